//! The calling thread's scratch for the copies the BLAS-like calls make (`sgemm`, `gemm_s32`),
//! kept between calls: a fresh buffer of megabytes costs a page fault per page on every call.

use crate::error::{Error, Result};
use std::cell::RefCell;

/// 64 bytes: the scratch's unit, so that it starts on a cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// Most bytes a thread keeps between calls; a larger scratch is freed after its call.
const KEEP_BYTES: usize = 64 << 20;

thread_local! {
    static SCRATCH: RefCell<Vec<Line>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on at least `bytes` bytes of the calling thread's scratch: 64-byte aligned,
/// initialized (zeros, or what an earlier call left). `out_of_memory` when it cannot grow.
pub fn with_scratch<R>(bytes: usize, f: impl FnOnce(*mut u8) -> R) -> Result<R> {
    let lines = bytes.div_ceil(64);
    SCRATCH.with(|cell| {
        let mut own = Vec::new();
        let mut kept = cell.try_borrow_mut();
        // (a nested call, which no caller makes, gets a buffer of its own)
        let v = match kept.as_deref_mut() {
            Ok(v) => v,
            Err(_) => &mut own,
        };
        if v.len() < lines {
            *v = Vec::new();
            v.try_reserve_exact(lines)
                .map_err(|_| Error::OutOfMemory(format!("scratch of {bytes} bytes")))?;
            v.resize(lines, Line([0; 64]));
        }
        let r = f(v.as_mut_ptr().cast());
        if v.len() * 64 > KEEP_BYTES {
            *v = Vec::new();
        }
        Ok(r)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_is_aligned_large_enough_and_kept() {
        let first = with_scratch(1000, |p| {
            assert_eq!(p as usize % 64, 0);
            // SAFETY: the scratch has at least 1000 bytes.
            unsafe { std::ptr::write_bytes(p, 7, 1000) };
            p as usize
        })
        .unwrap();
        // a smaller request reuses the same bytes, as the first call left them
        // SAFETY: the scratch has at least 10 bytes.
        let (again, byte) = with_scratch(10, |p| (p as usize, unsafe { *p.add(9) })).unwrap();
        assert_eq!((again, byte), (first, 7));
        assert!(with_scratch(usize::MAX, |_| ()).is_err());
    }
}
