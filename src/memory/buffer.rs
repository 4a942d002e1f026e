//! A 64-byte aligned, zero-initialised heap buffer owned by the library. Buffers of 2 MiB or more
//! (packed weights, scratch) start on a 2 MiB boundary and ask the kernel for transparent huge
//! pages before they are first touched: the RNN steps stream megabytes of weights each, and on
//! 4 KiB pages every page costs a TLB lookup and restarts the hardware prefetcher.

use crate::error::{Error, Result};
use std::alloc::{alloc, dealloc, Layout};
use std::ptr::NonNull;

/// Least alignment of every library allocation (one cache line, one zmm register).
pub const ALIGN: usize = 64;
/// Size (and alignment) of a huge page; buffers at least this large are aligned to it.
const HUGE_PAGE: usize = 2 << 20;

/// Alignment of a buffer of `len` bytes.
fn align_for(len: usize) -> usize {
    if len >= HUGE_PAGE {
        HUGE_PAGE
    } else {
        ALIGN
    }
}

/// Asks for huge pages on `len` bytes at `p` (a hint: failure changes nothing but speed).
fn advise_huge_pages(p: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: `p..p + len` is one live allocation of ours; madvise only changes how the kernel
    // backs it.
    unsafe {
        libc::madvise(p.cast(), len, libc::MADV_HUGEPAGE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (p, len);
}

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
        let layout = Layout::from_size_align(len, align_for(len))
            .map_err(|_| Error::OutOfMemory(format!("cannot lay out {len} bytes")))?;
        // SAFETY: layout has non-zero size.
        let p = unsafe { alloc(layout) };
        let ptr =
            NonNull::new(p).ok_or_else(|| Error::OutOfMemory(format!("allocating {len} bytes")))?;
        if layout.align() == HUGE_PAGE {
            // Before the first touch: the pages faulted in below are then huge ones.
            advise_huge_pages(p, len);
        }
        // SAFETY: `p` has `len` writable bytes.
        unsafe { std::ptr::write_bytes(p, 0, len) };
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
                    Layout::from_size_align_unchecked(self.len, align_for(self.len)),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_and_aligned_by_size() {
        for (len, align) in [
            (4, ALIGN),
            (HUGE_PAGE - 4, ALIGN),
            (HUGE_PAGE, HUGE_PAGE),
            (3 * HUGE_PAGE + 12, HUGE_PAGE),
        ] {
            let mut b = AlignedBuf::zeroed(len).unwrap();
            assert_eq!(b.len(), len);
            assert_eq!(b.as_ptr() as usize % align, 0, "{len} bytes");
            let f = b.as_f32_mut();
            assert_eq!(f.len(), len / 4);
            assert!(f.iter().all(|&v| v == 0.0), "{len} bytes");
            // Every byte is writable (the whole length, not only the first page).
            f.iter_mut().for_each(|v| *v = 1.5);
            assert_eq!(f[len / 4 - 1], 1.5);
        }
        let empty = AlignedBuf::zeroed(0).unwrap();
        assert!(empty.is_empty());
    }
}
