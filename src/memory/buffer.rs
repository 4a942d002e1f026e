//! A 64-byte aligned, zero-initialised heap buffer owned by the library.

use crate::error::{Error, Result};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

/// Alignment of every library allocation (one cache line, one zmm register).
pub const ALIGN: usize = 64;

/// An aligned byte buffer. Empty buffers allocate nothing.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: AlignedBuf uniquely owns its allocation; moving it between threads is fine, and shared
// references only hand out raw pointers whose use is the caller's responsibility.
unsafe impl Send for AlignedBuf {}
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Allocates `len` zeroed bytes.
    pub fn zeroed(len: usize) -> Result<Self> {
        if len == 0 {
            return Ok(Self {
                ptr: NonNull::<u64>::dangling().cast(),
                len: 0,
            });
        }
        let layout = Layout::from_size_align(len, ALIGN)
            .map_err(|_| Error::OutOfMemory(format!("cannot lay out {len} bytes")))?;
        // SAFETY: layout has non-zero size.
        let p = unsafe { alloc_zeroed(layout) };
        let ptr =
            NonNull::new(p).ok_or_else(|| Error::OutOfMemory(format!("allocating {len} bytes")))?;
        Ok(Self { ptr, len })
    }

    /// Start of the buffer (dangling but aligned when empty).
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no byte is allocated.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buffer as f32 values (`len / 4` of them).
    pub fn as_f32_mut(&mut self) -> &mut [f32] {
        // SAFETY: the allocation is 64-byte aligned, zero-initialised (a valid f32 pattern) and
        // uniquely borrowed through &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().cast::<f32>(), self.len / 4) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        if self.len != 0 {
            // SAFETY: allocated in `zeroed` with exactly this layout.
            unsafe {
                dealloc(
                    self.ptr.as_ptr(),
                    Layout::from_size_align_unchecked(self.len, ALIGN),
                )
            }
        }
    }
}
