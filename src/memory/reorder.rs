//! Reorder: copies a tensor between two layouts of the same dims (plain ↔ plain, plain ↔ packed).

use super::desc::{Layout, MemoryDesc};
use super::memory::Memory;
use crate::error::Result;
use crate::types::DataType;
use crate::{ensure_args, unimplemented_err};

/// A validated reorder between two descriptors.
#[derive(Clone, Debug, PartialEq)]
pub struct Reorder {
    src: MemoryDesc,
    dst: MemoryDesc,
}

impl Reorder {
    /// Checks that `src` can be reordered into `dst`.
    pub fn new(src: &MemoryDesc, dst: &MemoryDesc) -> Result<Self> {
        ensure_args!(!src.is_any() && !dst.is_any(), "reorder descriptors must not be format_tag::any");
        ensure_args!(src.dims() == dst.dims(), "reorder dims differ: {:?} vs {:?}", src.dims(), dst.dims());
        ensure_args!(
            *src.layout() != Layout::Undef && *dst.layout() != Layout::Undef || src.is_zero(),
            "reorder descriptors need a layout"
        );
        if src.data_type() != DataType::F32 || dst.data_type() != DataType::F32 {
            unimplemented_err!(
                "reorder {:?} -> {:?}: only f32 is implemented",
                src.data_type(),
                dst.data_type()
            );
        }
        Ok(Self { src: src.clone(), dst: dst.clone() })
    }

    /// Source descriptor.
    pub fn src(&self) -> &MemoryDesc {
        &self.src
    }

    /// Destination descriptor.
    pub fn dst(&self) -> &MemoryDesc {
        &self.dst
    }

    /// Copies `from` into `to`. Padding of a packed destination is zeroed.
    pub fn execute(&self, from: &Memory, to: &Memory) -> Result<()> {
        ensure_args!(from.desc().dims() == self.src.dims(), "reorder source dims differ from its descriptor");
        ensure_args!(to.desc().dims() == self.dst.dims(), "reorder destination dims differ from its descriptor");
        if self.src.nelems() == 0 {
            return Ok(());
        }
        ensure_args!(!from.data_ptr().is_null() && !to.data_ptr().is_null(), "reorder memory has no buffer");
        let src = from.data_ptr().cast::<f32>().cast_const();
        let dst = to.data_ptr().cast::<f32>();
        if let Layout::Packed(p) = self.dst.layout() {
            // SAFETY: a packed buffer holds p.len() floats (its size_bytes()).
            unsafe { std::ptr::write_bytes(dst, 0, p.len()) };
        }
        let dims = self.src.dims();
        let mut idx = vec![0i64; dims.len()];
        loop {
            let s = self.src.element_offset(&idx);
            let d = self.dst.element_offset(&idx);
            // SAFETY: both offsets are within the extents of their descriptors, which the memory
            // objects' buffers cover (the user's contract for user buffers).
            unsafe { *dst.add(d) = *src.add(s) };
            if !next_index(&mut idx, dims) {
                return Ok(());
            }
        }
    }
}

/// Advances a row-major multi-index; false after the last one.
pub fn next_index(idx: &mut [i64], dims: &[i64]) -> bool {
    for k in (0..dims.len()).rev() {
        idx[k] += 1;
        if idx[k] < dims[k] {
            return true;
        }
        idx[k] = 0;
    }
    false
}
