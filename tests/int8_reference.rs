//! int8 primitives against the int8 simulation (`rnn::reference_int8`) on shapes the goldens do
//! not reach: several 32-unit panels with a partial last one, input widths that are not
//! multiples of 4, batches above the GEMM's 4-row tiles, more steps than threads, every
//! direction, LSTM / LSTMP / GRU, u8 and s8 activations, weights packed by the reorder (`any`)
//! or given plain (packed at every execution), integer or f32 states and `dst_layer` — on every
//! kernel this CPU runs.
//!
//! Tolerance: quantized outputs at most one step off, and at most 3 % of them differing at all
//! (the simulation's activations are libm's); f32 ones within one quantization step (two for a
//! bidirectional sum); c-states within 0.05.

mod int8_common;
mod lstm_common;

use int8_common::*;
use lstm_common::mixed_lengths;
use oxidnn::args;
use oxidnn::attr::Attr;
use oxidnn::engine::Engine;
use oxidnn::kernels::Isa;
use oxidnn::memory::Memory;
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::rnn::precision::Precision;
use oxidnn::rnn::reference::RefProblem;
use oxidnn::rnn::reference_int8::{self, Int8RefInputs, Int8RefProblem};
use oxidnn::rnn::{CellKind, RnnDesc, RnnPd};
use oxidnn::types::{AlgKind, DataType, Direction, PropKind};

/// Deterministic integers in `lo..=hi`.
fn ints(len: usize, seed: u64, lo: i32, hi: i32) -> Vec<i32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            lo + (s % (hi - lo + 1) as u64) as i32
        })
        .collect()
}

/// One case: the problem, how its tensors are given.
struct Case {
    p: Int8RefProblem,
    /// Weights `any` (reordered into the packed layout) or plain `ldigo`.
    weights_any: bool,
    /// States and dst_layer f32 (dequantized) instead of the activations' type.
    f32_outputs: bool,
    /// Per-channel weights scales.
    per_channel: bool,
    /// Per-sample sequence lengths (`Attr::rnn_seq_lengths`).
    lengths: Option<Vec<i32>>,
}

fn run(c: &Case, isa: Isa) -> (usize, usize) {
    let ip = &c.p;
    let p = &ip.shape;
    let (l, d, t, n) = (p.l, p.direction.num_directions(), p.t, p.n);
    let g = p.cell.gates();
    let i64s = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
    let act = if ip.s8 { DataType::S8 } else { DataType::U8 };
    let out_dt = if c.f32_outputs { DataType::F32 } else { act };
    let dlc = if p.direction == Direction::BidirectionalConcat {
        2 * p.dic
    } else {
        p.dic
    };
    let (alo, ahi) = if ip.s8 { (-60, 100) } else { (20, 200) };
    let src_layer = ints(t * n * p.slc, 1, alo, ahi);
    let src_iter = ints(l * d * n * p.sic, 2, alo, ahi);
    let src_iter_c: Vec<f32> = ints(l * d * n * p.dhc, 3, -100, 100)
        .iter()
        .map(|&v| v as f32 / 100.0)
        .collect();
    let wl_dims = [l, d, p.slc, g, p.dhc];
    let wi_dims = [l, d, p.sic, g, p.dhc];
    let wp_dims = [l, d, p.dhc, p.dic];
    let wl = ints(wl_dims.iter().product(), 4, -20, 20);
    let wi = ints(wi_dims.iter().product(), 5, -20, 20);
    let wp = ints(wp_dims.iter().product(), 6, -40, 40);
    let bias: Vec<f32> = ints(l * d * g * p.dhc, 7, -50, 50)
        .iter()
        .map(|&v| v as f32 / 100.0)
        .collect();
    let ws: Vec<f32> = if c.per_channel {
        (0..g * p.dhc)
            .map(|k| 80.0 + (k % 7) as f32 * 10.0)
            .collect()
    } else {
        vec![100.0]
    };
    let ps: Vec<f32> = if c.per_channel {
        (0..p.dic).map(|k| 150.0 + (k % 5) as f32 * 20.0).collect()
    } else {
        vec![180.0]
    };

    let mut attr = Attr::new();
    attr.rnn_data_qparams = (ip.scale, ip.shift);
    attr.rnn_seq_lengths = c.lengths.is_some();
    attr.set_rnn_weights_qparams(if c.per_channel { 24 } else { 0 }, &ws)
        .unwrap();
    if p.with_projection {
        attr.set_rnn_weights_projection_qparams(if c.per_channel { 8 } else { 0 }, &ps)
            .unwrap();
    }
    let wtag = if c.weights_any { ANY } else { LDIGO };
    let sl_md = md(&i64s(&[t, n, p.slc]), act, TNC);
    let si_md = md(&i64s(&[l, d, n, p.sic]), out_dt, LDNC);
    let c_md = md(&i64s(&[l, d, n, p.dhc]), DataType::F32, LDNC);
    let dl_md = md(&i64s(&[t, n, dlc]), out_dt, TNC);
    let di_md = md(&i64s(&[l, d, n, p.dic]), out_dt, LDNC);
    let lstm = p.cell == CellKind::Lstm;
    let alg = if lstm {
        AlgKind::VanillaLstm
    } else {
        AlgKind::VanillaGru
    };
    let mut desc = RnnDesc::new(PropKind::ForwardInference, alg, p.direction)
        .with(args::SRC_LAYER, Some(&sl_md))
        .with(args::SRC_ITER, Some(&si_md))
        .with(
            args::WEIGHTS_LAYER,
            Some(&md(&i64s(&wl_dims), DataType::S8, wtag)),
        )
        .with(
            args::WEIGHTS_ITER,
            Some(&md(&i64s(&wi_dims), DataType::S8, wtag)),
        )
        .with(
            args::BIAS,
            Some(&md(&i64s(&[l, d, g, p.dhc]), DataType::F32, LDNC)),
        )
        .with(args::DST_LAYER, Some(&dl_md))
        .with(args::DST_ITER, Some(&di_md));
    if lstm {
        desc = desc
            .with(args::SRC_ITER_C, Some(&c_md))
            .with(args::DST_ITER_C, Some(&c_md));
    }
    let wptag = if c.weights_any { ANY } else { LDNC };
    if p.with_projection {
        desc = desc.with(
            args::WEIGHTS_PROJECTION,
            Some(&md(&i64s(&wp_dims), DataType::S8, wptag)),
        );
    }
    let pd = RnnPd::new(Engine::cpu(), desc, &attr, None)
        .expect("pd")
        .with_isa(isa)
        .unwrap();
    let arg = |a| pd.arg_md(a).unwrap().clone();
    let f = |v: &[i32]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    // s8 weights: plain, or reordered (no attribute: already quantized) into the packed layout.
    let weights = |a: i32, dims: &[usize], v: &[i32], tag: i32| {
        let plain = with(&md(&i64s(dims), DataType::S8, tag), &f(v));
        if c.weights_any {
            reorder(&plain, &arg(a), &Attr::new())
        } else {
            plain
        }
    };
    let wl_mem = weights(args::WEIGHTS_LAYER, &wl_dims, &wl, LDIGO);
    let wi_mem = weights(args::WEIGHTS_ITER, &wi_dims, &wi, LDIGO);
    let wp_mem = p
        .with_projection
        .then(|| weights(args::WEIGHTS_PROJECTION, &wp_dims, &wp, LDNC));
    let src_layer_mem = with(&sl_md, &f(&src_layer));
    let deq = |q: i32| (q as f32 - ip.shift) / ip.scale;
    let src_iter_mem = if c.f32_outputs {
        // f32 states: values that quantize back to the integers exactly.
        with(
            &si_md,
            &src_iter.iter().map(|&q| deq(q)).collect::<Vec<_>>(),
        )
    } else {
        with(&si_md, &f(&src_iter))
    };
    let src_iter_c_mem = with(&c_md, &src_iter_c);
    let bias_mem = with(&arg(args::BIAS), &bias);
    let lengths_mem = c
        .lengths
        .as_ref()
        .map(|v| lstm_common::lengths_memory(&arg(args::SEQ_LENGTHS), v));
    let dl = Memory::allocate(&dl_md).unwrap();
    let di = Memory::allocate(&di_md).unwrap();
    let dc = Memory::allocate(&c_md).unwrap();
    let mut list: Vec<(i32, &Memory)> = vec![
        (args::SRC_LAYER, &src_layer_mem),
        (args::SRC_ITER, &src_iter_mem),
        (args::WEIGHTS_LAYER, &wl_mem),
        (args::WEIGHTS_ITER, &wi_mem),
        (args::BIAS, &bias_mem),
        (args::DST_LAYER, &dl),
        (args::DST_ITER, &di),
    ];
    if lstm {
        list.push((args::SRC_ITER_C, &src_iter_c_mem));
        list.push((args::DST_ITER_C, &dc));
    }
    if let Some(m) = &wp_mem {
        list.push((args::WEIGHTS_PROJECTION, m));
    }
    if let Some(m) = &lengths_mem {
        list.push((args::SEQ_LENGTHS, m));
    }
    let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone()))).unwrap();
    prim.execute(&ExecArgs::new(list).unwrap())
        .expect("execute");

    let want = reference_int8::forward(
        ip,
        &Int8RefInputs {
            src_layer: &src_layer,
            src_iter: Some(&src_iter),
            src_iter_c: lstm.then_some(&src_iter_c[..]),
            weights_layer: &wl,
            weights_iter: &wi,
            weights_projection: p.with_projection.then_some(&wp[..]),
            bias: &bias,
            weights_scales: &ws,
            projection_scales: &ps,
            lengths: c.lengths.as_deref(),
        },
    );
    let sum = p.direction == Direction::BidirectionalSum;
    let (mut compared, mut differing) = (0, 0);
    for (name, got, want) in [
        ("dst_layer", read(&dl), &want.dst_layer),
        ("dst_iter", read(&di), &want.dst_iter),
    ] {
        let sum_shift = if sum && name == "dst_layer" { 2.0 } else { 1.0 };
        for (k, (&a, &q)) in got.iter().zip(want.iter()).enumerate() {
            let (diff, limit) = if c.f32_outputs {
                let w = (q as f32 - sum_shift * ip.shift) / ip.scale;
                ((a - w).abs(), 1.0 / ip.scale + 1e-5)
            } else {
                ((a - q as f32).abs(), 1.0)
            };
            assert!(diff <= limit, "{name}[{k}] = {a}, simulation {q} ({isa:?})");
            compared += 1;
            differing += usize::from(diff > 1e-6);
        }
    }
    if lstm {
        for (a, w) in read(&dc).iter().zip(&want.dst_iter_c) {
            assert!((a - w).abs() <= 0.05, "dst_iter_c {a} vs {w}");
        }
    }
    (compared, differing)
}

/// An int8 problem: `(cell, direction, L)`, `(T, N, SLC)`, `(DHC, DIC)` (a projection when
/// they differ; SIC = DIC) and `(s8, data scale, u8 data shift)` (s8 activations: shift 0).
fn problem(
    (cell, direction, l): (CellKind, Direction, usize),
    (t, n, slc): (usize, usize, usize),
    (dhc, dic): (usize, usize),
    (s8, scale, u8_shift): (bool, f32, f32),
) -> Int8RefProblem {
    Int8RefProblem {
        shape: RefProblem {
            cell,
            direction,
            l,
            t,
            n,
            slc,
            sic: dic,
            dhc,
            dic,
            with_projection: dic != dhc,
            activation: None,
            linear: None,
            precision: Precision::F32,
            c_precision: Precision::F32,
        },
        s8,
        scale,
        shift: if s8 { 0.0 } else { u8_shift },
    }
}

#[test]
fn int8_primitives_match_the_simulation() {
    check_every_isa(&simulation_cases());
}

/// The same with the layer GEMM in chunks of one step (`scratch::with_gates_budget`: each
/// step's `x·W` after the step before), where it is not fused into the steps.
#[test]
fn int8_layer_gemm_in_chunks_matches_the_simulation() {
    oxidnn::rnn::scratch::with_gates_budget(1, || check_every_isa(&simulation_cases()));
}

/// Every direction × LSTM, LSTMP, GRU × u8 and s8, one and two layers, the layer GEMM merged
/// (N = 9) or fused into the steps (N = 19).
fn simulation_cases() -> Vec<Case> {
    let dirs = [
        Direction::Left2Right,
        Direction::Right2Left,
        Direction::BidirectionalConcat,
        Direction::BidirectionalSum,
    ];
    let mut cases = Vec::new();
    for (k, &direction) in dirs.iter().enumerate() {
        for (cell, proj, s8) in [
            (CellKind::Lstm, false, false),
            (CellKind::Lstm, true, false),
            (CellKind::Gru, false, false),
            (CellKind::Lstm, false, true),
            (CellKind::Lstm, true, true),
        ] {
            let l = 1 + k % 2;
            // Multiples of 4 (but the projection's 37): u8 GEMM rows read from `src_layer`
            // and written to `dst_layer` in place (s8 and f32 tensors are copied).
            let dhc = 72;
            let dic = if proj { 37 } else { dhc };
            cases.push(Case {
                // N = 19: the layer GEMM fused into the steps (`Int8Plan`), and a row block
                // of AMX tiles overlapping the one before it.
                p: problem(
                    (cell, direction, l),
                    (
                        7,
                        if k % 2 == 1 { 19 } else { 9 },
                        if l == 1 { 48 } else { dic },
                    ),
                    (dhc, dic),
                    (s8, 50.0, 110.0),
                ),
                weights_any: k != 1,
                f32_outputs: k == 3,
                per_channel: k % 2 == 0,
                lengths: None,
            });
        }
    }
    cases
}

/// Runs every case on every kernel set this CPU runs: quantized outputs at most one step off,
/// at most 3 % of them differing at all.
fn check_every_isa(cases: &[Case]) {
    for isa in Isa::all_supported() {
        let (mut compared, mut differing) = (0, 0);
        for c in cases {
            let (a, b) = run(c, isa);
            compared += a;
            differing += b;
        }
        eprintln!("{isa:?}: {differing} of {compared} outputs differ by one step");
        assert!(
            differing * 100 <= 3 * compared,
            "{isa:?}: {differing} of {compared}"
        );
    }
}

/// Per-sample sequence lengths (the `oxidnn_` extension) on int8 primitives: every direction,
/// LSTM / LSTMP / GRU, u8 and s8, one and two layers, integer and f32 outputs, the layer GEMM
/// merged (N = 9) or fused into the steps (N = 70), and teams of every thread (steps split by
/// batch where the weights are small, both directions of a bidirectional problem at the same
/// time on a half team each), against the simulation with the same lengths.
#[test]
fn int8_sequence_lengths_and_steps_split_by_batch() {
    // Teams wait for every worker, so each execution has a team of all the threads.
    oxidnn::threading::FULL_TEAMS.store(true, std::sync::atomic::Ordering::Relaxed);
    let before = oxidnn::rnn::forward::batch_split_passes();
    let mut cases = Vec::new();
    let mut split_passes = 0;
    for (k, direction) in [
        Direction::Left2Right,
        Direction::Right2Left,
        Direction::BidirectionalConcat,
        Direction::BidirectionalSum,
    ]
    .into_iter()
    .enumerate()
    {
        for (j, (cell, proj, s8)) in [
            (CellKind::Lstm, false, false),
            (CellKind::Lstm, true, false),
            (CellKind::Gru, false, false),
            (CellKind::Lstm, true, true),
        ]
        .into_iter()
        .enumerate()
        {
            for n in [9, 70] {
                let l = 1 + (k + j) % 2;
                let dhc = 40;
                let dic = if proj { 21 } else { dhc };
                let t = 6;
                let seq = (k + j + n) % 3 != 2;
                cases.push(Case {
                    p: problem(
                        (cell, direction, l),
                        (t, n, if l == 1 { 20 } else { dic }),
                        (dhc, dic),
                        (s8, 40.0, 100.0),
                    ),
                    weights_any: j % 2 == 0,
                    f32_outputs: (k + j) % 3 == 1,
                    per_channel: k % 2 == 1,
                    lengths: seq.then(|| mixed_lengths(n, t, k + j)),
                });
                if n == 70 && direction.num_directions() == 1 {
                    // 70 rows, weights of a few KiB: split by batch on two or more threads
                    // (a bidirectional problem runs each direction on a half team).
                    split_passes += l;
                }
            }
        }
    }
    assert!(cases.iter().filter(|c| c.lengths.is_some()).count() >= 16);
    check_every_isa(&cases);
    if oxidnn::threading::num_threads() >= 2 {
        let isas = Isa::all_supported().len();
        assert!(oxidnn::rnn::forward::batch_split_passes() - before >= split_passes * isas);
    }
}

/// Balanced phases (`Team::for_each_balanced`) of the int8 driver: LSTM, LSTMP and GRU steps
/// reading 2.5–4 MiB of weights (a member's share over its L2, so the steps and the layer GEMM
/// are balanced), against the simulation undisturbed, then with member 0 held up at every balanced
/// phase until the others have run some of its items (they must give the same outputs).
#[test]
fn int8_balanced_phases_match_the_simulation() {
    use oxidnn::threading::{self, HOLD_MEMBER_ZERO_US};
    use std::sync::atomic::Ordering;
    let cases: Vec<Case> = [
        (CellKind::Lstm, 1024, 1024),
        (CellKind::Lstm, 1024, 512),
        (CellKind::Gru, 1024, 1024),
    ]
    .into_iter()
    .map(|(cell, dhc, dic)| Case {
        p: problem(
            (cell, Direction::Left2Right, 1),
            (3, 8, 64),
            (dhc, dic),
            (false, 50.0, 110.0),
        ),
        weights_any: true,
        f32_outputs: false,
        per_channel: true,
        lengths: None,
    })
    .collect();
    let isa = Isa::detected();
    for c in &cases {
        run(c, isa);
    }
    if threading::num_threads() < 2 {
        eprintln!("one thread (OXIDNN_NUM_THREADS): no team to balance");
        return;
    }
    HOLD_MEMBER_ZERO_US.store(300, Ordering::Relaxed);
    let taken = threading::items_taken_from_others();
    for c in &cases {
        run(c, isa);
    }
    HOLD_MEMBER_ZERO_US.store(0, Ordering::Relaxed);
    assert!(
        threading::items_taken_from_others() > taken,
        "no member took another's items"
    );
}
