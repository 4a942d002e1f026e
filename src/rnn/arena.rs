//! Carving one byte buffer (workspace or scratchpad) into aligned f32 regions.

use crate::error::Result;
use crate::memory::buffer::ALIGN;
use crate::size;
use std::mem::size_of;

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

/// Builds consecutive regions, each starting on a 64-byte boundary, with checked sizes: a
/// region or total that does not fit (`size::MAX_BYTES`) is `invalid_arguments` naming the
/// buffer.
#[derive(Debug)]
pub struct Arena {
    what: &'static str,
    bytes: usize,
}

impl Arena {
    /// An empty arena for the buffer named `what` (in errors).
    pub fn new(what: &'static str) -> Self {
        Self { what, bytes: 0 }
    }

    /// Appends a region of the product of `factors` floats.
    pub fn push(&mut self, factors: &[usize]) -> Result<Region> {
        let what = self.what;
        let len = size::product(what, factors)?;
        let offset = size::round_up(what, self.bytes, ALIGN)?;
        let end = size::add(what, offset, size::bytes(what, len, size_of::<f32>())?)?;
        // The total, rounded up, stays a valid byte size: `bytes` cannot overflow.
        size::bytes(what, size::round_up(what, end, ALIGN)?, 1)?;
        self.bytes = end;
        Ok(Region { offset, len })
    }

    /// Total bytes, rounded up to the alignment (0 when nothing was pushed).
    pub fn bytes(&self) -> usize {
        self.bytes.next_multiple_of(ALIGN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn regions_are_aligned_and_sizes_checked() {
        let mut a = Arena::new("test buffer");
        assert_eq!(a.push(&[3, 5]), Ok(Region { offset: 0, len: 15 }));
        assert_eq!(a.push(&[0, usize::MAX]), Ok(Region { offset: 64, len: 0 }));
        assert_eq!(a.push(&[1]), Ok(Region { offset: 64, len: 1 }));
        assert_eq!(a.bytes(), 128);
        // Floats past isize::MAX bytes, a product past usize, a total (offset 128) past
        // isize::MAX once rounded up.
        for factors in [&[1usize << 61][..], &[1 << 32, 1 << 32], &[(1 << 61) - 47]] {
            let err = a.push(factors).unwrap_err();
            assert!(
                matches!(&err, Error::InvalidArguments(m) if m.starts_with("test buffer")),
                "{factors:?}: {err:?}"
            );
        }
        // Failed pushes leave the arena as it was.
        assert_eq!(a.bytes(), 128);
        assert_eq!(
            a.push(&[(1 << 61) - 48]),
            Ok(Region {
                offset: 128,
                len: (1 << 61) - 48
            })
        );
        assert_eq!(a.bytes(), isize::MAX as usize + 1 - 64);
    }
}
