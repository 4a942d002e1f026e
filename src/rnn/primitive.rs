//! The RNN primitive: checks the execution arguments, prepares weights and bias, and runs the
//! forward driver on the library's thread pool.
//!
//! A primitive may execute on several threads at once. Each execution gets its own scratchpad:
//! the user's (`DNNL_ARG_SCRATCHPAD`, user scratchpad mode) or one from a pool of buffers the
//! primitive keeps (library mode; one is allocated with the primitive) — a buffer is taken for
//! the execution and returned after, so steady-state executions allocate nothing and concurrent
//! ones never share a buffer. Executions large enough to use the thread pool take all of its
//! threads, so they run one after the other; small ones run on their callers' threads at once.
//!
//! Plain (strided) weights are packed into the scratchpad at every execution: the values behind
//! a weights memory may change between executions (a training loop updates them in place), so a
//! copy packed once would silently go stale. Weights given as `format_tag::any` are packed once,
//! by the user's reorder, and used as they are.

use super::backward;
use super::cells::Linear;
use super::forward::{Forward, ForwardTensors};
use super::pd::RnnPd;
use super::seq_lengths::SeqOrder;
use super::views::Strided;
use super::weights::{self, PackedWeights};
use crate::args;
use crate::ensure_args;
use crate::error::{Error, Result};
use crate::memory::buffer::AlignedBuf;
use crate::memory::{Layout, MemoryDesc, PackedLayout};
use crate::primitive::ExecArgs;
use crate::types::{PrimitiveKind, ScratchpadMode};
use std::sync::Mutex;

/// An RNN primitive, ready to execute.
#[derive(Default)]
pub struct RnnPrimitive {
    /// Library-mode scratchpads not in use by an execution.
    free_scratch: Mutex<Vec<AlignedBuf>>,
}

/// The data pointer of an argument: `None` when the pd has no such tensor; a null pointer for a
/// tensor with no element (never dereferenced); an error when the pd has it but the arguments
/// do not.
pub(super) fn buffer(pd: &RnnPd, args: &ExecArgs, arg: i32) -> Result<Option<*mut u8>> {
    let md = pd.md(arg)?;
    if md.is_zero() {
        return Ok(None);
    }
    if md.nelems() == 0 {
        return Ok(Some(std::ptr::null_mut()));
    }
    let mem = args.require(arg, md, PrimitiveKind::Rnn)?;
    Ok(Some(mem.data_ptr()))
}

pub(super) fn required(pd: &RnnPd, args: &ExecArgs, arg: i32) -> Result<*mut u8> {
    buffer(pd, args, arg)?
        .ok_or_else(|| Error::Runtime(format!("{} has a zero descriptor", args::rnn_name(arg))))
}

impl RnnPrimitive {
    /// Creates the primitive for a pd; in library scratchpad mode with its first scratchpad.
    pub fn new(pd: &RnnPd) -> Result<Self> {
        let mut free = Vec::new();
        if pd.attr().scratchpad_mode == ScratchpadMode::Library {
            free.push(AlignedBuf::zeroed(pd.scratch_bytes())?);
        }
        Ok(Self {
            free_scratch: Mutex::new(free),
        })
    }

    /// Runs the primitive on the given arguments (synchronously).
    pub fn execute(&self, pd: &RnnPd, args: &ExecArgs) -> Result<()> {
        let p = pd.problem();
        if p.is_backward() {
            return self.execute_backward(pd, args);
        }
        if p.int8.is_some() {
            let (scratch, pooled) = self.take_scratch(pd, args)?;
            // SAFETY: the scratchpad is the user's (checked against the pd's descriptor) or
            // one of the pool's, of the pd's size, used by this execution only.
            let result = unsafe { super::int8::exec::run(pd, args, scratch) };
            self.give_back(pooled);
            return result;
        }
        let strided3 =
            |arg| -> Result<Strided<3>> { Ok(Strided::new(required(pd, args, arg)?, pd.md(arg)?)) };
        let strided4 = |arg| -> Result<Option<Strided<4>>> {
            Ok(buffer(pd, args, arg)?
                .map(|b| Strided::new(b, pd.md(arg).expect("checked by buffer"))))
        };
        let src_layer = strided3(args::SRC_LAYER)?;
        let dst_layer = strided3(args::DST_LAYER)?;
        let (mut src_iter, dst_iter) = (strided4(args::SRC_ITER)?, strided4(args::DST_ITER)?);
        let (mut src_iter_c, dst_iter_c) = if p.cell.has_c_state() {
            (strided4(args::SRC_ITER_C)?, strided4(args::DST_ITER_C)?)
        } else {
            (None, None)
        };
        let bias = strided4(args::BIAS)?;
        let peephole = if p.with_peephole {
            strided4(args::WEIGHTS_PEEPHOLE)?
        } else {
            None
        };
        let mut attention = if p.cell.has_attention() {
            ensure_args!(
                p.with_attention,
                "AUGRU needs the attention tensor: this primitive descriptor was created without one"
            );
            Some(strided3(args::AUGRU_ATTENTION)?)
        } else {
            None
        };
        let weights_layer_buf = required(pd, args, args::WEIGHTS_LAYER)?;
        let weights_iter_buf = required(pd, args, args::WEIGHTS_ITER)?;
        let weights_projection_buf = if p.with_projection {
            Some(required(pd, args, args::WEIGHTS_PROJECTION)?)
        } else {
            None
        };
        let workspace = match pd.workspace_layout() {
            Some(_) => required(pd, args, args::WORKSPACE)?,
            None => std::ptr::null_mut(),
        };
        let lengths = if p.seq_lengths {
            Some(required(pd, args, args::SEQ_LENGTHS)?)
        } else {
            None
        };
        if p.is_empty() {
            return Ok(());
        }

        let layout = pd.scratch_layout();
        let (scratch, pooled) = self.take_scratch(pd, args)?;
        let order = match (&layout.seq_lengths, lengths) {
            // SAFETY: the scratchpad has the pd's layout; the tensors were checked above.
            (Some(seq), Some(ptr)) => match unsafe {
                // The memory's descriptor is the pd's: N s32 values.
                let lengths = std::slice::from_raw_parts(ptr.cast::<i32>().cast_const(), p.n);
                SeqOrder::new(p, seq.order, scratch, lengths)
            } {
                Ok(o) => {
                    let states = [src_iter, src_iter_c];
                    let gathered = unsafe { o.gather_small(p, seq, scratch, states, attention) };
                    ([src_iter, src_iter_c], attention) = gathered;
                    Some(o)
                }
                Err(e) => {
                    self.give_back(pooled);
                    return Err(e);
                }
            },
            _ => None,
        };

        // SAFETY: every pointer comes from a memory object whose descriptor equals the pd's
        // (checked by `ExecArgs::require`), the scratchpad and workspace are at least as large as
        // their layouts, and the forward driver stays within the validated dims.
        unsafe {
            let weights = |arg,
                           buf: *mut u8,
                           region: Option<super::arena::Region>|
             -> Result<PackedWeights> {
                let md: &MemoryDesc = pd.md(arg)?;
                match (md.layout(), region) {
                    (Layout::Packed(lay), _) => Ok(PackedWeights {
                        ptr: buf.cast::<f32>().cast_const(),
                        layout: *lay,
                    }),
                    (Layout::Strided { .. }, Some(region)) => {
                        let lay = PackedLayout::from_dims(md.dims())?
                            .with_block_gates(weights::block_gates(p));
                        let dst = region.ptr(scratch);
                        weights::pack(weights::ldigo_view(buf, md), dst, &lay);
                        Ok(PackedWeights {
                            ptr: dst.cast_const(),
                            layout: lay,
                        })
                    }
                    _ => Err(Error::Runtime(format!(
                        "{}: unexpected weights layout",
                        args::rnn_name(arg)
                    ))),
                }
            };
            let weights_layer =
                weights(args::WEIGHTS_LAYER, weights_layer_buf, layout.weights_layer)?;
            let weights_iter = weights(args::WEIGHTS_ITER, weights_iter_buf, layout.weights_iter)?;
            let weights_projection = match weights_projection_buf {
                Some(buf) => Some(weights(
                    args::WEIGHTS_PROJECTION,
                    buf,
                    layout.weights_projection,
                )?),
                None => None,
            };
            let bias_staged = layout.bias.ptr(scratch);
            let rows: Vec<_> = (0..p.g).map(Some).collect();
            weights::stage_bias(bias, &rows, bias_staged, p.l, p.d, p.dhc);
            let peephole = match peephole {
                Some(w) => {
                    let dst = layout.peephole.ptr(scratch);
                    let rows = [Some(0), Some(1), Some(2)];
                    weights::stage_bias(Some(w), &rows, dst, p.l, p.d, p.dhc);
                    dst.cast_const()
                }
                None => std::ptr::null(),
            };
            let bias_rec = if layout.bias_rec.len > 0 {
                let dst = layout.bias_rec.ptr(scratch);
                weights::stage_bias(bias, &[None, None, Some(3)], dst, p.l, p.d, p.dhc);
                dst.cast_const()
            } else {
                std::ptr::null()
            };

            let forward = Forward {
                problem: p,
                scratch: layout,
                workspace: pd.workspace_layout(),
                isa: pd.isa(),
                linear: Linear::from_attr(&pd.attr().rnn_tparams),
                tensors: ForwardTensors {
                    src_layer,
                    src_iter,
                    src_iter_c,
                    dst_layer,
                    dst_iter,
                    dst_iter_c,
                    weights_layer,
                    weights_iter,
                    weights_projection,
                    bias: bias_staged.cast_const(),
                    bias_rec,
                    peephole,
                    attention,
                    scratch,
                    workspace,
                },
                order,
            };
            forward.run();
        }

        self.give_back(pooled);
        Ok(())
    }

    /// The scratchpad of one execution: the user's, or a buffer of the pool (returned with it,
    /// to be given back by [`give_back`](Self::give_back)).
    fn take_scratch(&self, pd: &RnnPd, args: &ExecArgs) -> Result<(*mut u8, Option<AlignedBuf>)> {
        Ok(match pd.attr().scratchpad_mode {
            ScratchpadMode::User => (required(pd, args, args::SCRATCHPAD)?, None),
            ScratchpadMode::Library => {
                let buf = match self
                    .free_scratch
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .pop()
                {
                    Some(b) => b,
                    None => AlignedBuf::zeroed(pd.scratch_bytes())?,
                };
                (buf.as_ptr(), Some(buf))
            }
        })
    }

    /// Returns a pooled scratchpad after an execution.
    fn give_back(&self, pooled: Option<AlignedBuf>) {
        if let Some(buf) = pooled {
            self.free_scratch
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(buf);
        }
    }

    /// Runs a backward primitive.
    fn execute_backward(&self, pd: &RnnPd, args: &ExecArgs) -> Result<()> {
        let (scratch, pooled) = self.take_scratch(pd, args)?;
        // SAFETY: the scratchpad is the user's (checked against the pd's descriptor) or one of
        // the pool's, of the pd's size, used by this execution only.
        let result = unsafe { backward::exec::run(pd, args, scratch) };
        self.give_back(pooled);
        result
    }
}
