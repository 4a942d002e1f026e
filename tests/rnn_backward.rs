//! The backward primitive of every cell against the reference backward
//! (`rnn::reference_backward`): forward training through the primitive, then backward from its
//! workspace, every diff tensor compared with benchdnn's backward threshold
//! (`4·2·(2 if sum)·ceil(log2(acc·T))·eps`, `acc = (2G+1)(·SIC for GRU/AUGRU)·max(G·DHC, N)`),
//! point-wise relative or absolute, with its L2 fallback. Diff weights are pre-filled with
//! non-zero values and must accumulate (or be overwritten with the flag).

mod lstm_common;

use lstm_common::*;
use oxidnn::args;
use oxidnn::attr::Attr;
use oxidnn::engine::Engine;
use oxidnn::memory::{Memory, MemoryDesc};
use oxidnn::primitive::{ExecArgs, MdQuery, Primitive, PrimitiveDesc};
use oxidnn::rnn::cells::vanilla::Activation;
use oxidnn::rnn::reference;
use oxidnn::rnn::reference_backward::{self, RefDiffDst, RefGrads};
use oxidnn::rnn::{CellKind, RnnPd};
use oxidnn::types::{Direction, PropKind, ScratchpadMode};
use oxidnn::Error;

const DIRECTIONS: [Direction; 4] = [
    Direction::Left2Right,
    Direction::Right2Left,
    Direction::BidirectionalConcat,
    Direction::BidirectionalSum,
];

/// How the backward pd is asked for.
#[derive(Clone, Debug)]
struct Bwd {
    /// Weights tag of the backward pd (`any` → ldgoi, reordered from the user's ldigo).
    weights_tag: i32,
    /// Diff weights tag.
    diff_weights_tag: i32,
    /// `dnnl_rnn_flags_diff_weights_overwrite`.
    overwrite: bool,
}

impl Default for Bwd {
    fn default() -> Self {
        Self {
            weights_tag: ANY,
            diff_weights_tag: ANY,
            overwrite: false,
        }
    }
}

/// The backward pd of a case (its forward descriptor with diffs of every tensor).
fn backward_pd(c: &Case, b: &Bwd, hint: Option<&RnnPd>) -> oxidnn::Result<RnnPd> {
    let fwd = make_pd(&Case {
        prop: PropKind::ForwardTraining,
        ..c.clone()
    })?;
    let mut desc = fwd.desc().clone();
    desc.prop = PropKind::Backward;
    desc.flags = b.overwrite as u32;
    let fwd_mds: Vec<(i32, MemoryDesc)> = desc.mds.iter().map(|(a, m)| (*a, m.clone())).collect();
    for (arg, m) in fwd_mds {
        let dims: Vec<usize> = m.dims().iter().map(|&d| d as usize).collect();
        let weights = arg == args::WEIGHTS_LAYER || arg == args::WEIGHTS_ITER;
        if weights {
            desc.mds.insert(arg, md(&dims, b.weights_tag));
        }
        let diff = if weights {
            md(&dims, b.diff_weights_tag)
        } else {
            m.clone()
        };
        desc.mds.insert(args::DIFF + arg, diff);
    }
    let mut attr = Attr::new();
    if c.user_scratchpad {
        attr.scratchpad_mode = ScratchpadMode::User;
    }
    RnnPd::new(Engine::cpu(), desc, &attr, hint)
}

/// Engine and reference gradients of one case (both including the pre-filled diff weights).
struct Run {
    got: RefGrads,
    exp: RefGrads,
}

fn run_backward(c: &Case, b: &Bwd) -> Run {
    let c = &Case {
        prop: PropKind::ForwardTraining,
        ..c.clone()
    };
    let mut x = Inputs::random(c);
    if c.cell == CellKind::VanillaRnn && matches!(c.activation, Activation::Relu(_)) {
        x = x.flip_first_batch_row(c);
    }
    let fwd = run_primitive(c, &x);
    let pd = backward_pd(c, b, Some(&fwd.pd)).unwrap_or_else(|e| panic!("{c:?} {b:?}: {e}"));
    let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone()))).unwrap();
    let arg = |a| pd.arg_md(a).expect("pd takes the argument").clone();
    let (l, d, n, dhc, g) = (c.l, c.d(), c.n, c.dhc, c.g());
    let cells = l * d;
    let seed = c.seed * 1000;

    // Inputs.
    let mut keep: Vec<(i32, Memory)> = Vec::new();
    keep.push((
        args::SRC_LAYER,
        memory_with(&arg(args::SRC_LAYER), &x.src_layer),
    ));
    for (a, v, k) in [
        (args::WEIGHTS_LAYER, &x.weights_layer, c.slc),
        (args::WEIGHTS_ITER, &x.weights_iter, dhc),
    ] {
        let want = arg(a);
        let m = if b.weights_tag == ANY {
            reorder_into(&memory_with(&md(&[l, d, k, g, dhc], LDIGO), v), &want)
        } else {
            memory_with(&want, v)
        };
        keep.push((a, m));
    }
    for (a, v) in [
        (args::SRC_ITER, &x.src_iter),
        (args::SRC_ITER_C, &x.src_iter_c),
        (args::BIAS, &x.bias),
        (args::AUGRU_ATTENTION, &x.attention),
        (args::WEIGHTS_PEEPHOLE, &x.peephole),
    ] {
        if let Some(v) = v {
            keep.push((a, memory_with(&arg(a), v)));
        }
    }
    keep.push((
        args::DST_LAYER,
        memory_with(&arg(args::DST_LAYER), &fwd.dst_layer),
    ));
    let ws = Memory::allocate(&arg(args::WORKSPACE)).unwrap();
    // SAFETY: both hold the workspace's bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(fwd.workspace.as_ptr(), ws.data_ptr(), fwd.workspace.len())
    };
    keep.push((args::WORKSPACE, ws));
    // Gradients of the outputs.
    let dd_layer = fill(c.t * n * c.dlc(), seed + 1);
    let dd_iter = c.dst_iter.then(|| fill(cells * n * dhc, seed + 2));
    let dd_iter_c = (c.dst_iter && c.cell.has_c_state()).then(|| fill(cells * n * dhc, seed + 3));
    keep.push((
        args::DIFF + args::DST_LAYER,
        memory_with(&arg(args::DIFF + args::DST_LAYER), &dd_layer),
    ));
    for (a, v, f) in [
        (args::DST_ITER, &dd_iter, &fwd.dst_iter),
        (args::DST_ITER_C, &dd_iter_c, &fwd.dst_iter_c),
    ] {
        if let Some(v) = v {
            keep.push((a, memory_with(&arg(a), f)));
            keep.push((args::DIFF + a, memory_with(&arg(args::DIFF + a), v)));
        }
    }
    // Outputs: diff_src poisoned, diff weights pre-filled.
    let diff = |a| args::DIFF + a;
    let mut outs: Vec<(i32, Memory)> = Vec::new();
    for a in [
        args::SRC_LAYER,
        args::SRC_ITER,
        args::SRC_ITER_C,
        args::AUGRU_ATTENTION,
    ] {
        if let Some(m) = pd.arg_md(diff(a)).filter(|m| !m.is_zero()) {
            outs.push((diff(a), poisoned(m)));
        }
    }
    let mut prefill = Vec::new();
    for (k, a) in [
        args::WEIGHTS_LAYER,
        args::WEIGHTS_ITER,
        args::BIAS,
        args::WEIGHTS_PEEPHOLE,
    ]
    .into_iter()
    .enumerate()
    {
        if let Some(m) = pd.arg_md(diff(a)).filter(|m| !m.is_zero()) {
            let v = fill(m.nelems(), seed + 10 + k as u64);
            outs.push((diff(a), memory_with(m, &v)));
            prefill.push((a, v));
        }
    }
    let sp_md = arg(args::SCRATCHPAD);
    let scratchpad = (!sp_md.is_zero()).then(|| Memory::allocate(&sp_md).unwrap());
    let mut list: Vec<(i32, &Memory)> = keep.iter().chain(&outs).map(|(a, m)| (*a, m)).collect();
    if let Some(m) = &scratchpad {
        list.push((args::SCRATCHPAD, m));
    }
    prim.execute(&ExecArgs::new(list).unwrap())
        .unwrap_or_else(|e| panic!("{c:?} {b:?}: backward failed: {e}"));
    let read = |a: i32| {
        outs.iter()
            .find(|(k, _)| *k == diff(a))
            .map_or(Vec::new(), |(_, m)| read_logical(m))
    };
    let got = RefGrads {
        diff_src_layer: read(args::SRC_LAYER),
        diff_src_iter: read(args::SRC_ITER),
        diff_src_iter_c: read(args::SRC_ITER_C),
        diff_attention: read(args::AUGRU_ATTENTION),
        diff_weights_layer: read(args::WEIGHTS_LAYER),
        diff_weights_iter: read(args::WEIGHTS_ITER),
        diff_bias: read(args::BIAS),
        diff_peephole: read(args::WEIGHTS_PEEPHOLE),
    };

    // Reference.
    let p = c.ref_problem();
    let rf = reference::forward(&p, &x.as_ref_inputs()).unwrap();
    let mut exp = reference_backward::backward(
        &p,
        &x.as_ref_inputs(),
        &rf,
        &RefDiffDst {
            diff_dst_layer: &dd_layer,
            diff_dst_iter: dd_iter.as_deref(),
            diff_dst_iter_c: dd_iter_c.as_deref(),
        },
    )
    .unwrap();
    if !c.src_iter {
        exp.diff_src_iter.clear();
        exp.diff_src_iter_c.clear();
    }
    if !c.bias {
        exp.diff_bias.clear();
    }
    if !b.overwrite {
        for (a, v) in prefill {
            let e = match a {
                args::WEIGHTS_LAYER => &mut exp.diff_weights_layer,
                args::WEIGHTS_ITER => &mut exp.diff_weights_iter,
                args::BIAS => &mut exp.diff_bias,
                _ => &mut exp.diff_peephole,
            };
            for (e, p) in e.iter_mut().zip(v) {
                *e += p;
            }
        }
    }
    Run { got, exp }
}

/// benchdnn's backward threshold.
fn threshold(c: &Case) -> f32 {
    let g = c.g();
    let mut acc = (2 * g + 1) as f64;
    if matches!(c.cell, CellKind::Gru | CellKind::Augru) {
        acc *= c.dhc as f64;
    }
    acc *= (g * c.dhc).max(c.n) as f64;
    let k = (acc * c.t.max(1) as f64).log2().ceil() as f32;
    let sum = if c.direction == Direction::BidirectionalSum {
        2.0
    } else {
        1.0
    };
    4.0 * 2.0 * sum * k * f32::EPSILON
}

/// benchdnn's backward rule: relative or absolute difference within the threshold, else the
/// whole tensor's L2 relative error.
fn compare_bwd(what: &str, got: &[f32], exp: &[f32], trh: f32) -> Result<(), String> {
    if got.len() != exp.len() {
        return Err(format!(
            "{what}: {} values, expected {}",
            got.len(),
            exp.len()
        ));
    }
    let bad = got.iter().zip(exp).position(|(&g, &e)| {
        let d = (g - e).abs();
        !(d <= trh || d <= trh * e.abs())
    });
    match bad {
        None => Ok(()),
        Some(_) => compare(what, got, exp, trh, true),
    }
}

fn check(c: &Case, b: &Bwd) {
    let r = run_backward(c, b);
    let trh = threshold(c);
    let mut errs = Vec::new();
    for (what, got, exp) in [
        (
            "diff_src_layer",
            &r.got.diff_src_layer,
            &r.exp.diff_src_layer,
        ),
        ("diff_src_iter", &r.got.diff_src_iter, &r.exp.diff_src_iter),
        (
            "diff_src_iter_c",
            &r.got.diff_src_iter_c,
            &r.exp.diff_src_iter_c,
        ),
        (
            "diff_attention",
            &r.got.diff_attention,
            &r.exp.diff_attention,
        ),
        (
            "diff_weights_layer",
            &r.got.diff_weights_layer,
            &r.exp.diff_weights_layer,
        ),
        (
            "diff_weights_iter",
            &r.got.diff_weights_iter,
            &r.exp.diff_weights_iter,
        ),
        ("diff_bias", &r.got.diff_bias, &r.exp.diff_bias),
        ("diff_peephole", &r.got.diff_peephole, &r.exp.diff_peephole),
    ] {
        errs.extend(compare_bwd(what, got, exp, trh).err());
    }
    assert!(errs.is_empty(), "{c:?}\n{b:?}\n{}", errs.join("\n"));
}

/// Every cell (vanilla RNN once per activation, LSTM with and without peephole).
fn cells() -> Vec<(CellKind, Activation, bool)> {
    vec![
        (CellKind::VanillaRnn, Activation::Relu(0.25), false),
        (CellKind::VanillaRnn, Activation::Tanh, false),
        (CellKind::VanillaRnn, Activation::Logistic, false),
        (CellKind::Lstm, Activation::Tanh, false),
        (CellKind::Lstm, Activation::Tanh, true),
        (CellKind::Gru, Activation::Tanh, false),
        (CellKind::LbrGru, Activation::Tanh, false),
        (CellKind::Augru, Activation::Tanh, false),
        (CellKind::LbrAugru, Activation::Tanh, false),
    ]
}

fn accepted(cell: CellKind, direction: Direction, l: usize) -> bool {
    !cell.has_attention() || (l == 1 && direction == Direction::Left2Right)
}

#[test]
fn every_cell_direction_layers_steps_and_batches() {
    let mut k = 0usize;
    for (cell, activation, peephole) in cells() {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                if !accepted(cell, direction, l) {
                    continue;
                }
                for (t, n) in [(1, 1), (4, 3), (3, 17)] {
                    let dhc = [5, 8, 33][k % 3];
                    let slc = if l == 1 { [7, 3, 40][(k / 3) % 3] } else { dhc };
                    let mut c = Case::new(direction, l, t, n, slc, dhc).with_cell(cell);
                    c.activation = activation;
                    c.peephole = peephole;
                    c.src_iter = k % 4 != 1;
                    c.bias = k % 5 != 2;
                    c.dst_iter = !k.is_multiple_of(3);
                    c.weights_any = k.is_multiple_of(2);
                    c.layer_tag = if k % 7 < 3 { NTC } else { TNC };
                    c.seed = k as u64 + 3;
                    let b = Bwd {
                        weights_tag: [ANY, LDGOI, LDIGO][k % 3],
                        diff_weights_tag: [ANY, LDIGO, LDGOI][(k / 3) % 3],
                        overwrite: k % 4 == 3,
                    };
                    check(&c, &b);
                    k += 1;
                }
            }
        }
    }
    assert_eq!(k, (7 * 4 * 2 + 2) * 3);
}

#[test]
fn larger_problems_use_the_parallel_gemms() {
    for (cell, activation, peephole) in cells() {
        let direction = if cell.has_attention() {
            Direction::Left2Right
        } else {
            Direction::BidirectionalSum
        };
        let mut c = Case::new(direction, 1, 5, 40, 70, 64).with_cell(cell);
        c.activation = activation;
        c.peephole = peephole;
        c.user_scratchpad = true;
        check(&c, &Bwd::default());
    }
}

#[test]
fn padded_views() {
    for (cell, activation, _) in cells() {
        let direction = if cell.has_attention() {
            Direction::Left2Right
        } else {
            Direction::BidirectionalConcat
        };
        let mut c = Case::new(direction, 1, 3, 2, 6, 6).with_cell(cell);
        c.activation = activation;
        c.padded = true;
        check(&c, &Bwd::default());
    }
}

#[test]
fn backward_descriptors_and_queries() {
    let c = Case::new(Direction::Left2Right, 1, 3, 2, 4, 4);
    let pd = backward_pd(&c, &Bwd::default(), None).unwrap();
    // `any` weights: plain ldgoi (strides of L, D, I, G, O); diff weights: ldigo.
    let w = pd.arg_md(args::WEIGHTS_LAYER).unwrap();
    assert_eq!(w.strides().unwrap(), &[64, 64, 1, 16, 4]);
    let dw = pd.arg_md(args::DIFF + args::WEIGHTS_LAYER).unwrap();
    assert_eq!(dw.strides().unwrap(), &[64, 64, 16, 4, 1]);
    assert_eq!(
        pd.arg_md(args::DIFF + args::BIAS)
            .unwrap()
            .strides()
            .unwrap(),
        &[16, 16, 4, 1]
    );
    let fwd = make_pd(&Case {
        prop: PropKind::ForwardTraining,
        ..c.clone()
    })
    .unwrap();
    assert_eq!(pd.arg_md(args::WORKSPACE), fwd.arg_md(args::WORKSPACE));
    let p = PrimitiveDesc::Rnn(Box::new(pd));
    assert_eq!(
        p.arg_for_query(MdQuery::DiffSrc, 2),
        Some(args::DIFF + args::SRC_ITER_C)
    );
    assert_eq!(
        p.arg_for_query(MdQuery::DiffWeights, 2),
        Some(args::DIFF + args::BIAS)
    );
    assert_eq!(
        p.arg_for_query(MdQuery::DiffDst, 0),
        Some(args::DIFF + args::DST_LAYER)
    );
    // oneDNN 3.13 reports 13 inputs and 6 outputs for this LSTM.
    assert_eq!((p.num_inputs(), p.num_outputs()), (13, 6));
    assert_eq!(fwd.arg_for_query(MdQuery::DiffSrc, 0), None);
}

#[test]
fn backward_statuses_as_onednn() {
    let c = Case::new(Direction::Left2Right, 1, 3, 2, 4, 4);
    let base = backward_pd(&c, &Bwd::default(), None)
        .unwrap()
        .desc()
        .clone();
    let status = |f: &dyn Fn(&mut oxidnn::rnn::RnnDesc)| {
        let mut d = base.clone();
        f(&mut d);
        RnnPd::new(Engine::cpu(), d, &Attr::new(), None).map(|_| ())
    };
    let invalid =
        |r: Result<(), Error>| assert!(matches!(r, Err(Error::InvalidArguments(_))), "{r:?}");
    let unimpl = |r: Result<(), Error>| assert!(matches!(r, Err(Error::Unimplemented(_))), "{r:?}");
    // Every optional tensor and its diff: both or neither.
    for arg in [
        args::SRC_ITER,
        args::SRC_ITER_C,
        args::BIAS,
        args::DST_ITER,
        args::DST_ITER_C,
    ] {
        invalid(status(&|d| {
            d.mds.remove(&(args::DIFF + arg));
        }));
        invalid(status(&|d| {
            d.mds.remove(&arg);
        }));
    }
    // Diff dims must equal the tensor's.
    invalid(status(&|d| {
        d.mds
            .insert(args::DIFF + args::SRC_LAYER, md(&[4, 2, 4], TNC));
    }));
    // Diff tensors are f32.
    unimpl(status(&|d| {
        let m = MemoryDesc::with_tag(&[3, 2, 4], oxidnn::types::DataType::Bf16, TNC).unwrap();
        d.mds.insert(args::DIFF + args::SRC_LAYER, m);
    }));
    // Flags other than overwrite are accepted (as oneDNN 3.13 does).
    status(&|d| d.flags = 2).unwrap();
    // Neither bias nor its diff: accepted (oneDNN's CPU engine says unimplemented).
    status(&|d| {
        d.mds.remove(&args::BIAS);
        d.mds.remove(&(args::DIFF + args::BIAS));
    })
    .unwrap();
}
