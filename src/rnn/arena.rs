//! Carving one byte buffer (workspace or scratchpad) into aligned f32 regions.

use crate::memory::buffer::ALIGN;

/// A region of f32 values inside a larger buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Region {
    /// Offset from the buffer start, in bytes (a multiple of 64).
    pub offset: usize,
    /// Length in f32 elements.
    pub len: usize,
}

impl Region {
    /// Pointer to the region's first element inside a buffer starting at `base`.
    ///
    /// # Safety
    /// `base` must point to a buffer at least as large as the arena that made this region.
    pub unsafe fn ptr(&self, base: *mut u8) -> *mut f32 {
        unsafe { base.add(self.offset).cast::<f32>() }
    }
}

/// Builds consecutive regions, each starting on a 64-byte boundary.
#[derive(Debug, Default)]
pub struct Arena {
    bytes: usize,
}

impl Arena {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a region of `len` floats.
    pub fn push(&mut self, len: usize) -> Region {
        let offset = self.bytes.next_multiple_of(ALIGN);
        self.bytes = offset + len * std::mem::size_of::<f32>();
        Region { offset, len }
    }

    /// Total bytes, rounded up to the alignment (0 when nothing was pushed).
    pub fn bytes(&self) -> usize {
        self.bytes.next_multiple_of(ALIGN)
    }
}
