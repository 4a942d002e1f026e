//! The backward check, as benchdnn runs `--prop=BWD_DW`: forward training through the
//! primitive (its outputs checked too), then the backward primitive created with the forward pd
//! as hint and executed from the forward's workspace and outputs, with filled diff_dst tensors
//! and pre-filled diff weights (which must accumulate, or be overwritten with `--flags=O`);
//! every gradient is compared with `rnn::reference_backward` under benchdnn's backward rule.

use crate::case::{Case, Skip};
use crate::check::{judge, run_forward, Outcome};
use crate::compare::Rule;
use crate::fill::{self, Kind};
use crate::run::{NotRun, Prepared};
use crate::tensor::{input_memory, poisoned, read_values, retyped};
use oxidnn::args;
use oxidnn::engine::Engine;
use oxidnn::memory::tag::TAG_ANY;
use oxidnn::memory::{Memory, MemoryDesc};
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::rnn::reference::RefOutputs;
use oxidnn::rnn::reference_backward::{self, RefDiffDst, RefGrads};
use oxidnn::rnn::{RnnDesc, RnnPd};
use oxidnn::types::{DataType, PropKind};
use oxidnn::Error;

/// Gradients the backward pass writes, with the name it is reported under.
const DIFF_SRC: [(i32, &str); 4] = [
    (args::SRC_LAYER, "diff_src_layer"),
    (args::SRC_ITER, "diff_src_iter"),
    (args::SRC_ITER_C, "diff_src_iter_c"),
    (args::AUGRU_ATTENTION, "diff_augru_attention"),
];

/// Weight gradients: accumulated into the pre-filled buffers unless the flag says overwrite.
const DIFF_WEIGHTS: [(i32, &str); 5] = [
    (args::WEIGHTS_LAYER, "diff_weights_layer"),
    (args::WEIGHTS_ITER, "diff_weights_iter"),
    (args::BIAS, "diff_bias"),
    (args::WEIGHTS_PEEPHOLE, "diff_weights_peephole"),
    (args::WEIGHTS_PROJECTION, "diff_weights_projection"),
];

/// Gradients reaching the outputs, and what fills them.
const DIFF_DST: [(i32, Kind); 3] = [
    (args::DST_LAYER, Kind::DiffDstLayer),
    (args::DST_ITER, Kind::DiffDstIter),
    (args::DST_ITER_C, Kind::DiffDstIterC),
];

/// The `DNNL_ARG_DIFF_*` of a forward argument.
fn diff(arg: i32) -> i32 {
    args::DIFF + arg
}

/// The backward descriptor: the forward one with `any` weights and a diff of every tensor
/// (data diffs in the forward's layouts, weight diffs `any`).
fn backward_desc(fwd: &RnnPd, overwrite: bool) -> Result<RnnDesc, Error> {
    let mut desc = fwd.desc().clone();
    desc.prop = PropKind::Backward;
    desc.flags = u32::from(overwrite);
    let forward: Vec<(i32, MemoryDesc)> = desc.mds.iter().map(|(a, m)| (*a, m.clone())).collect();
    for (arg, md) in forward {
        let weights = [
            args::WEIGHTS_LAYER,
            args::WEIGHTS_ITER,
            args::WEIGHTS_PROJECTION,
        ]
        .contains(&arg);
        let any = |dt| MemoryDesc::with_tag(md.dims(), dt, TAG_ANY);
        if weights {
            desc.mds.insert(arg, any(md.data_type())?);
        }
        let plain_diff = arg == args::BIAS || weights;
        // Diff tensors are f32 whatever the cfg.
        let diff_md = if plain_diff {
            any(DataType::F32)?
        } else {
            retyped(&md, DataType::F32)?
        };
        desc.mds.insert(diff(arg), diff_md);
    }
    Ok(desc)
}

/// Runs forward training then backward for `c` and compares every gradient.
pub fn check(c: &Case, inject_error: f32) -> Outcome {
    if c.tag.wei != "any" {
        // benchdnn's CPU runs skip these as unimplemented.
        return Outcome::Skipped(Skip::Unsupported(format!(
            "unimplemented: backward with weights tag {} (benchdnn skips it on CPU)",
            c.tag.wei
        )));
    }
    let fwd = match Prepared::new(c) {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    let ref_fwd = match run_forward(c, &fwd, 0.0) {
        Ok((Outcome::Passed, r)) => r,
        Ok((outcome, _)) | Err(outcome) => return outcome,
    };
    match run_backward(c, &fwd, &ref_fwd, inject_error) {
        Ok(outcome) => outcome,
        Err(e) => e.into(),
    }
}

/// The backward half of [`check`]: the backward primitive from the executed forward `fwd`,
/// and its gradients against the reference from the forward reference states `ref_fwd`.
fn run_backward(
    c: &Case,
    fwd: &Prepared,
    ref_fwd: &RefOutputs,
    inject_error: f32,
) -> Result<Outcome, NotRun> {
    let overwrite = c.flags == "O";
    let desc = backward_desc(fwd.pd(), overwrite)?;
    let pd = RnnPd::new(Engine::cpu(), desc, fwd.pd().attr(), Some(fwd.pd()))?;
    let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone())))?;
    let md = |arg| pd.arg_md(arg).filter(|m| !m.is_zero());

    // Forward tensors: the forward's memories where the layouts agree (outputs, workspace),
    // fresh ones from the same values otherwise (the weights in the backward's layout).
    let mut owned: Vec<(i32, Memory)> = Vec::new();
    let mut borrowed: Vec<(i32, &Memory)> = Vec::new();
    for arg in RnnDesc::FORWARD_ARGS.into_iter().chain([args::WORKSPACE]) {
        let Some(want) = md(arg) else { continue };
        match (fwd.memory(arg), fwd.values(arg)) {
            (Some(m), _) if m.desc() == want => borrowed.push((arg, m)),
            (_, Some(v)) => owned.push((arg, input_memory(want, v)?)),
            _ => {
                return Err(NotRun::Failed(format!(
                    "no forward tensor for argument {arg}"
                )))
            }
        }
    }
    let mut dy = Vec::new();
    for (arg, kind) in DIFF_DST {
        if let Some(want) = md(diff(arg)) {
            let v = fill::activations(want.nelems(), kind);
            owned.push((diff(arg), input_memory(want, &v)?));
            dy.push((arg, v));
        }
    }
    let mut prefill = Vec::new();
    for (arg, _) in DIFF_WEIGHTS {
        if let Some(want) = md(diff(arg)) {
            let v =
                fill::activations_seeded(want.nelems(), Kind::DiffWeights as u64 + 16 * arg as u64);
            owned.push((diff(arg), input_memory(want, &v)?));
            prefill.push((arg, v));
        }
    }
    for (arg, _) in DIFF_SRC {
        if let Some(want) = md(diff(arg)) {
            owned.push((diff(arg), poisoned(want)?));
        }
    }
    if let Some(want) = md(args::SCRATCHPAD) {
        owned.push((args::SCRATCHPAD, Memory::allocate(want)?));
    }
    let list = borrowed
        .iter()
        .copied()
        .chain(owned.iter().map(|(a, m)| (*a, m)))
        .collect();
    prim.execute(&ExecArgs::new(list)?)?;

    let got = |arg| {
        owned
            .iter()
            .find(|(a, _)| *a == diff(arg))
            .map(|(_, m)| read_values(m).expect("f32 copy"))
            .unwrap_or_default()
    };
    let dy_of = |arg| {
        dy.iter()
            .find(|(a, _)| *a == arg)
            .map(|(_, v)| v.as_slice())
    };
    let grads = reference_backward::backward(
        &fwd.ref_problem(),
        &fwd.ref_inputs(),
        ref_fwd,
        &RefDiffDst {
            diff_dst_layer: dy_of(args::DST_LAYER).unwrap_or(&[]),
            diff_dst_iter: dy_of(args::DST_ITER),
            diff_dst_iter_c: dy_of(args::DST_ITER_C),
        },
    )?;
    let mut tensors: Vec<(&str, Vec<f32>, Vec<f32>)> = Vec::new();
    for (arg, name) in DIFF_SRC {
        if md(diff(arg)).is_some() {
            tensors.push((name, got(arg), expected_src(&grads, arg).to_vec()));
        }
    }
    for (arg, name) in DIFF_WEIGHTS {
        if let Some((_, init)) = prefill.iter().find(|(a, _)| *a == arg) {
            let grad = expected_weights(&grads, arg);
            let exp = if overwrite {
                grad.to_vec()
            } else {
                init.iter().zip(grad).map(|(i, g)| i + g).collect()
            };
            tensors.push((name, got(arg), exp));
        }
    }
    if let Some((_, values, _)) = tensors.first_mut() {
        if let Some(v) = values.first_mut() {
            *v += inject_error;
        }
    }
    Ok(judge(
        Rule::backward(c),
        tensors
            .iter()
            .map(|(n, g, e)| (*n, g.as_slice(), e.as_slice())),
    ))
}

/// The reference gradient of a data input.
fn expected_src(g: &RefGrads, arg: i32) -> &[f32] {
    match arg {
        args::SRC_LAYER => &g.diff_src_layer,
        args::SRC_ITER => &g.diff_src_iter,
        args::SRC_ITER_C => &g.diff_src_iter_c,
        _ => &g.diff_attention,
    }
}

/// The reference gradient of a weights input (without the pre-filled values).
fn expected_weights(g: &RefGrads, arg: i32) -> &[f32] {
    match arg {
        args::WEIGHTS_LAYER => &g.diff_weights_layer,
        args::WEIGHTS_ITER => &g.diff_weights_iter,
        args::BIAS => &g.diff_bias,
        args::WEIGHTS_PEEPHOLE => &g.diff_peephole,
        _ => &g.diff_projection,
    }
}
