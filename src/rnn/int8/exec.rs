//! Executing an int8 RNN primitive: checks the arguments, packs plain s8 weights into the
//! scratchpad, and runs the [`forward`](mod@super::forward) driver.

use super::forward::{self, Int8Tensors, Int8Weights, View};
use crate::args;
use crate::error::{Error, Result};
use crate::memory::packed_int8::Int8Layout;
use crate::memory::{quantize, Layout, PackedLayout};
use crate::primitive::ExecArgs;
use crate::rnn::pd::RnnPd;
use crate::rnn::primitive::{buffer, required};
use crate::rnn::seq_lengths::SeqOrder;

/// Runs an int8 forward pass with `scratch` as its scratchpad.
///
/// # Safety
/// `scratch` must hold the pd's scratchpad bytes and be used by this execution only.
pub unsafe fn run(pd: &RnnPd, args: &ExecArgs, scratch: *mut u8) -> Result<()> {
    let p = pd.problem();
    let (Some(cfg), Some(plan)) = (p.int8.as_ref(), pd.int8_plan()) else {
        return Err(Error::Runtime("not an int8 primitive".into()));
    };
    let view3 = |arg| -> Result<View<3>> { Ok(View::new(required(pd, args, arg)?, pd.md(arg)?)) };
    let view4 = |arg| -> Result<Option<View<4>>> {
        Ok(buffer(pd, args, arg)?.map(|b| View::new(b, pd.md(arg).expect("checked by buffer"))))
    };
    let src_layer = view3(args::SRC_LAYER)?;
    let dst_layer = view3(args::DST_LAYER)?;
    let (src_iter, dst_iter) = (view4(args::SRC_ITER)?, view4(args::DST_ITER)?);
    let (src_iter_c, dst_iter_c) = if p.cell.has_c_state() {
        (view4(args::SRC_ITER_C)?, view4(args::DST_ITER_C)?)
    } else {
        (None, None)
    };
    let bias = view4(args::BIAS)?;
    let weights = |k: usize, arg: i32| -> Result<Int8Weights> {
        let buf = required(pd, args, arg)?;
        let md = pd.md(arg)?;
        let packed = PackedLayout::from_dims(md.dims())?;
        let layout = Int8Layout::new(&packed)?;
        Ok(match (md.layout(), plan.packed[k]) {
            (Layout::Packed(_), _) => Int8Weights {
                ptr: buf.cast_const(),
                layout,
            },
            (Layout::Strided { .. }, Some(region)) => {
                let dst = scratch.wrapping_add(region.offset);
                let five = md.ndims() == 5;
                let v5 = five.then(|| View::<5>::new(buf, md));
                let v4 = (!five).then(|| View::<4>::new(buf, md));
                let value = |[l, d, i, g, o]: [usize; 5]| -> i8 {
                    // SAFETY: indices inside the descriptor's dims.
                    unsafe {
                        match (v5, v4) {
                            (Some(v), _) => v.get([l, d, i, g, o]) as i8,
                            (_, Some(v)) => v.get([l, d, i, o]) as i8,
                            _ => 0,
                        }
                    }
                };
                // SAFETY: the region holds the layout's bytes.
                unsafe { quantize::pack_s8(&layout, dst, value) };
                Int8Weights {
                    ptr: dst.cast_const(),
                    layout,
                }
            }
            _ => {
                return Err(Error::Runtime(format!(
                    "{}: unexpected weights layout",
                    args::rnn_name(arg)
                )))
            }
        })
    };
    let tensors = Int8Tensors {
        src_layer,
        src_iter,
        src_iter_c,
        dst_layer,
        dst_iter,
        dst_iter_c,
        bias,
        weights: [
            weights(0, args::WEIGHTS_LAYER)?,
            weights(1, args::WEIGHTS_ITER)?,
        ],
        projection: if p.with_projection {
            Some(weights(2, args::WEIGHTS_PROJECTION)?)
        } else {
            None
        },
        scratch,
    };
    let lengths = if p.seq_lengths {
        Some(required(pd, args, args::SEQ_LENGTHS)?)
    } else {
        None
    };
    if p.is_empty() {
        return Ok(());
    }
    let order = match (plan.seq, lengths) {
        // SAFETY: the memory's descriptor is the pd's (N s32 values); the region lies in the
        // scratchpad.
        (Some((region, _)), Some(ptr)) => Some(unsafe {
            let lengths = std::slice::from_raw_parts(ptr.cast::<i32>().cast_const(), p.n);
            SeqOrder::new(p, region, scratch, lengths)?
        }),
        _ => None,
    };
    // SAFETY: every view addresses its descriptor (checked by `ExecArgs::require`), the
    // scratchpad holds the plan; the pd's instruction set runs on this CPU.
    unsafe { forward::run(p, cfg, plan, pd.attr(), pd.isa(), tensors, order) };
    Ok(())
}
