//! A backward execution: the execution arguments turned into the driver's views.
//!
//! Read: src_layer, attention, both weights, peephole, the diff_dst tensors and the workspace
//! (src_iter, bias and dst_* are taken by the pd, as in oneDNN, but everything backward needs of
//! them is in the workspace), and the sequence lengths when the pd takes them (the same as the
//! forward pass's). Written: every diff_src and diff weights tensor.

use super::{Backward, BackwardTensors, GateWeights};
use crate::args;
use crate::error::{Error, Result};
use crate::memory::Layout;
use crate::rnn::cells::Linear;
use crate::rnn::primitive::ExecTensors;
use crate::rnn::seq_lengths::SeqOrder;
use crate::rnn::views::Strided;

/// Runs the backward primitive of `io.pd` on `io`'s tensors.
///
/// # Safety
/// `io.scratch` points to a scratchpad of at least `pd.scratch_bytes()` bytes, not in use by
/// another execution.
pub(crate) unsafe fn run(io: &ExecTensors) -> Result<()> {
    let (pd, scratch) = (io.pd, io.scratch);
    let p = pd.problem();
    let md = |arg| io.md(arg);
    let req = |arg| -> Result<*mut u8> { io.required(arg) };
    let opt = |arg| -> Result<Option<*mut u8>> {
        match pd.md(arg) {
            Ok(_) => io.buffer(arg),
            Err(_) => Ok(None),
        }
    };
    let s3 = |arg| -> Result<Strided<3>> { Ok(Strided::new(req(arg)?, md(arg)?)) };
    let s5 = |arg| -> Result<Strided<5>> { Ok(Strided::new(req(arg)?, md(arg)?)) };
    let o3 = |arg| -> Result<Option<Strided<3>>> {
        Ok(opt(arg)?.map(|b| Strided::new(b, md(arg).expect("checked by opt"))))
    };
    let o4 = |arg| -> Result<Option<Strided<4>>> {
        Ok(opt(arg)?.map(|b| Strided::new(b, md(arg).expect("checked by opt"))))
    };
    // Gate weights: read in place when packed transposed, else packed at every execution.
    let gate_weights = |arg| -> Result<GateWeights> {
        Ok(match md(arg)?.layout() {
            Layout::PackedTransposed(_) => {
                GateWeights::Packed(req(arg)?.cast::<f32>().cast_const())
            }
            _ => GateWeights::Plain(s5(arg)?),
        })
    };
    let diff = |arg| args::DIFF + arg;
    let tensors = BackwardTensors {
        src_layer: s3(args::SRC_LAYER)?,
        attention: o3(args::AUGRU_ATTENTION)?,
        weights_layer: gate_weights(args::WEIGHTS_LAYER)?,
        weights_iter: gate_weights(args::WEIGHTS_ITER)?,
        peephole: o4(args::WEIGHTS_PEEPHOLE)?,
        projection: o4(args::WEIGHTS_PROJECTION)?,
        diff_dst_layer: s3(diff(args::DST_LAYER))?,
        diff_dst_iter: o4(diff(args::DST_ITER))?,
        diff_dst_iter_c: o4(diff(args::DST_ITER_C))?,
        diff_src_layer: s3(diff(args::SRC_LAYER))?,
        diff_src_iter: o4(diff(args::SRC_ITER))?,
        diff_src_iter_c: o4(diff(args::SRC_ITER_C))?,
        diff_attention: o3(diff(args::AUGRU_ATTENTION))?,
        diff_weights_layer: s5(diff(args::WEIGHTS_LAYER))?,
        diff_weights_iter: s5(diff(args::WEIGHTS_ITER))?,
        diff_peephole: o4(diff(args::WEIGHTS_PEEPHOLE))?,
        diff_projection: o4(diff(args::WEIGHTS_PROJECTION))?,
        diff_bias: o4(diff(args::BIAS))?,
        workspace: req(args::WORKSPACE)?.cast_const(),
        scratch,
    };
    let (Some(workspace), Some(layout)) = (pd.workspace_layout(), pd.backward_scratch()) else {
        return Err(Error::Runtime(
            "backward pd without workspace layout".into(),
        ));
    };
    let order = match p.seq_lengths && !p.is_empty() {
        // SAFETY: the memory's descriptor is the pd's (N s32 values); the order region is
        // inside the scratchpad.
        true => Some(unsafe {
            let ptr = req(args::SEQ_LENGTHS)?.cast::<i32>().cast_const();
            let lengths = std::slice::from_raw_parts(ptr, p.n);
            SeqOrder::new(p, layout.order, scratch, lengths)?
        }),
        false => None,
    };
    if !p.is_empty() {
        // SAFETY: the caller's contract.
        unsafe { io.stage(false, &[])? };
    }
    let run = Backward {
        problem: p,
        scratch: layout,
        workspace,
        tensors,
        linear: Linear::from_attr(&pd.attr().rnn_tparams),
        isa: pd.isa(),
        order,
    };
    // SAFETY: every pointer comes from a memory object whose descriptor equals the pd's (checked
    // by `ExecArgs::require`); the workspace and scratchpad are at least as large as their
    // layouts (the workspace descriptor is the forward pd's); the driver stays within the dims.
    unsafe { run.run() };
    Ok(())
}
