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

/// The tensors of one execution as the drivers see them: the user's buffers, or for staged
/// (low-precision) tensors their f32 copies in the scratchpad ([`Staging`]).
///
/// [`Staging`]: super::staging::Staging
pub(crate) struct ExecTensors<'a> {
    pub pd: &'a RnnPd,
    pub args: &'a ExecArgs<'a>,
    pub scratch: *mut u8,
}

impl ExecTensors<'_> {
    /// As [`buffer`], the staged copy for a staged tensor (the user's memory is checked all
    /// the same).
    pub fn buffer(&self, arg: i32) -> Result<Option<*mut u8>> {
        let user = buffer(self.pd, self.args, arg)?;
        Ok(match self.pd.staging().view(arg, self.scratch) {
            Some((copy, _)) if user.is_some() => Some(copy),
            _ => user,
        })
    }

    /// As [`required`], the staged copy for a staged tensor.
    pub fn required(&self, arg: i32) -> Result<*mut u8> {
        self.buffer(arg)?
            .ok_or_else(|| Error::Runtime(format!("{} has a zero descriptor", args::rnn_name(arg))))
    }

    /// The descriptor of what [`Self::buffer`] gives.
    pub fn md(&self, arg: i32) -> Result<&MemoryDesc> {
        match self.pd.staging().view(arg, self.scratch) {
            Some((_, md)) => Ok(md),
            None => self.pd.md(arg),
        }
    }

    /// Widens the staged inputs but those of `direct` (read as they are) into their copies, or
    /// (`outputs`) narrows the copies of the staged outputs into the user's buffers.
    ///
    /// # Safety
    /// `scratch` is a scratchpad of the pd's size used by this execution only.
    pub unsafe fn stage(&self, outputs: bool, direct: &[i32]) -> Result<()> {
        let user = |arg| Ok((required(self.pd, self.args, arg)?, self.pd.md(arg)?.clone()));
        unsafe {
            self.pd
                .staging()
                .convert(self.scratch, outputs, direct, user)
        }
    }

    /// The user's bf16 `src_layer` as bf16 pairs ([`Strided::pairs`]), where the forward
    /// driver's bf16 GEMMs can read it as it is: without sequence lengths (which gather it
    /// into f32 rows).
    fn src_layer_pairs(&self) -> Result<Option<Strided<3>>> {
        let p = self.pd.problem();
        if !weights::pairs(p) || p.seq_lengths {
            return Ok(None);
        }
        let buf = required(self.pd, self.args, args::SRC_LAYER)?;
        Ok(Strided::pairs(buf, self.pd.md(args::SRC_LAYER)?))
    }
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
        let (scratch, pooled) = self.take_scratch(pd, args)?;
        let io = ExecTensors { pd, args, scratch };
        // SAFETY: the scratchpad is the user's (checked against the pd's descriptor) or one of
        // the pool's, of the pd's size, used by this execution only.
        let result = unsafe {
            if pd.problem().is_backward() {
                backward::exec::run(&io)
            } else if pd.problem().int8.is_some() {
                super::int8::exec::run(pd, args, scratch)
            } else {
                Self::execute_forward(&io)
            }
        };
        self.give_back(pooled);
        result
    }

    /// Runs a forward primitive.
    ///
    /// # Safety
    /// As [`ExecTensors::stage`].
    unsafe fn execute_forward(io: &ExecTensors) -> Result<()> {
        let (pd, scratch) = (io.pd, io.scratch);
        let p = pd.problem();
        let required = |arg| io.required(arg);
        let strided3 =
            |arg| -> Result<Strided<3>> { Ok(Strided::new(io.required(arg)?, io.md(arg)?)) };
        let strided4 = |arg| -> Result<Option<Strided<4>>> {
            Ok(io
                .buffer(arg)?
                .map(|b| Strided::new(b, io.md(arg).expect("checked by buffer"))))
        };
        let src_layer_pairs = io.src_layer_pairs()?;
        let src_layer = match src_layer_pairs {
            Some(view) => view,
            None => strided3(args::SRC_LAYER)?,
        };
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
        let weights_layer_buf = required(args::WEIGHTS_LAYER)?;
        let weights_iter_buf = required(args::WEIGHTS_ITER)?;
        let weights_projection_buf = if p.with_projection {
            Some(required(args::WEIGHTS_PROJECTION)?)
        } else {
            None
        };
        let workspace = match pd.workspace_layout() {
            Some(_) => required(args::WORKSPACE)?,
            None => std::ptr::null_mut(),
        };
        let lengths = if p.seq_lengths {
            Some(required(args::SEQ_LENGTHS)?)
        } else {
            None
        };
        if p.is_empty() {
            return Ok(());
        }
        let direct: &[i32] = if src_layer_pairs.is_some() {
            &[args::SRC_LAYER]
        } else {
            &[]
        };
        unsafe { io.stage(false, direct)? };

        let layout = pd.scratch_layout();
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
                Err(e) => return Err(e),
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
                let md: &MemoryDesc = io.md(arg)?;
                match (md.layout(), region) {
                    (Layout::Packed(lay), _) => Ok(PackedWeights {
                        ptr: buf.cast::<f32>().cast_const(),
                        layout: *lay,
                    }),
                    (Layout::Strided { .. }, Some(region)) => {
                        let lay = PackedLayout::from_dims(md.dims())?
                            .with_block_gates(weights::block_gates(p))
                            .with_pairs(weights::pairs(p));
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
                    src_layer_pairs: src_layer_pairs.is_some(),
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
            io.stage(true, &[])
        }
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
}
