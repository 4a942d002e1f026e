//! Staging of the user tensors of a low-precision (bf16, f16) primitive: the plain tensors the
//! drivers read are widened to f32 copies in the scratchpad before they run, the outputs they
//! write are narrowed from f32 copies after (see [`precision`](super::precision)); f32 tensors
//! and packed weights (which hold f32 values) are used in place. A staged copy is dense, in
//! the plain order of its dims (`tnc`, `ldnc`, `ldigo`, …).
//!
//! Backward pds stage only what the backward driver reads of the forward tensors
//! (`src_layer`, attention, the gate and projection weights); every diff tensor is f32.

use super::arena::{Arena, Region};
use crate::args;
use crate::error::Result;
use crate::memory::reorder::convert;
use crate::memory::{Layout, MemoryDesc};
use crate::size;
use crate::types::DataType;
use std::collections::BTreeMap;

/// One staged tensor.
#[derive(Clone, Debug)]
struct Staged {
    arg: i32,
    /// The f32 copy's descriptor.
    md: MemoryDesc,
    /// Where the copy lives, relative to the staging area.
    region: Region,
    /// Written by the primitive (narrowed after the driver runs).
    output: bool,
}

/// The staged tensors of a primitive and their place in its scratchpad.
#[derive(Clone, Debug, Default)]
pub struct Staging {
    entries: Vec<Staged>,
    /// Offset of the staging area in the scratchpad (bytes, aligned).
    offset: usize,
    /// Bytes of the staging area.
    pub bytes: usize,
}

/// `abc`, `abcd`, `abcde`: the dense plain tags by number of dims.
fn dense_tag(ndims: usize) -> i32 {
    ndims as i32 + 1
}

/// True for the arguments a driver reads of a pd (`backward`: a backward pd).
fn read_by_driver(arg: i32, backward: bool) -> bool {
    match arg {
        args::SRC_LAYER
        | args::AUGRU_ATTENTION
        | args::WEIGHTS_LAYER
        | args::WEIGHTS_ITER
        | args::WEIGHTS_PROJECTION => true,
        args::SRC_ITER | args::SRC_ITER_C | args::BIAS | args::WEIGHTS_PEEPHOLE => !backward,
        _ => false,
    }
}

impl Staging {
    /// The staging of a pd with resolved descriptors `mds`, placed after the `after` bytes of
    /// the scratchpad its drivers use.
    pub fn new(mds: &BTreeMap<i32, MemoryDesc>, backward: bool, after: usize) -> Result<Self> {
        let mut arena = Arena::new("RNN scratchpad");
        let mut entries = Vec::new();
        for (&arg, md) in mds {
            let output =
                !backward && matches!(arg, args::DST_LAYER | args::DST_ITER | args::DST_ITER_C);
            let low = matches!(md.data_type(), DataType::Bf16 | DataType::F16);
            let plain = matches!(md.layout(), Layout::Strided { .. });
            if !(low && plain && md.nelems() > 0 && (output || read_by_driver(arg, backward))) {
                continue;
            }
            let staged = MemoryDesc::with_tag(md.dims(), DataType::F32, dense_tag(md.ndims()))?;
            let region = arena.push(&[md.nelems()])?;
            entries.push(Staged {
                arg,
                md: staged,
                region,
                output,
            });
        }
        let offset = size::round_up("RNN scratchpad", after, crate::memory::buffer::ALIGN)?;
        let bytes = arena.bytes();
        size::add("RNN scratchpad", offset, bytes)?;
        Ok(Self {
            entries,
            offset,
            bytes,
        })
    }

    /// Bytes of the scratchpad with the staging area (`after` when nothing is staged).
    pub fn scratch_bytes(&self, after: usize) -> usize {
        if self.entries.is_empty() {
            after
        } else {
            self.offset + self.bytes
        }
    }

    fn entry(&self, arg: i32) -> Option<&Staged> {
        self.entries.iter().find(|e| e.arg == arg)
    }

    /// The f32 copy of `arg` inside the scratchpad at `scratch` and its descriptor, when `arg`
    /// is staged.
    pub fn view(&self, arg: i32, scratch: *mut u8) -> Option<(*mut u8, &MemoryDesc)> {
        self.entry(arg).map(|e| {
            let ptr = scratch.wrapping_add(self.offset + e.region.offset);
            (ptr, &e.md)
        })
    }

    /// Widens every staged input but those of `direct` (which the driver reads as they are)
    /// from the user's buffer `user(arg)` (described by `user_md(arg)`), or narrows every
    /// staged output into it (`outputs`).
    ///
    /// # Safety
    /// `scratch` is a scratchpad of the pd's size; `user(arg)` covers `user_md(arg)`.
    pub unsafe fn convert(
        &self,
        scratch: *mut u8,
        outputs: bool,
        direct: &[i32],
        user: impl Fn(i32) -> Result<(*mut u8, MemoryDesc)>,
    ) -> Result<()> {
        let staged = |e: &&Staged| e.output == outputs && !direct.contains(&e.arg);
        for e in self.entries.iter().filter(staged) {
            let (buf, md) = user(e.arg)?;
            let copy = scratch.wrapping_add(self.offset + e.region.offset);
            // SAFETY: the caller's contract; the staged region holds `e.md`.
            unsafe {
                if outputs {
                    convert(&e.md, copy.cast_const(), &md, buf);
                } else {
                    convert(&md, buf.cast_const(), &e.md, copy);
                }
            }
        }
        Ok(())
    }
}
