//! Checked size arithmetic: every element count, offset and byte size derived from dims a user
//! controls is computed here, so a size that does not fit becomes `invalid_arguments` with a
//! message naming it — never a wrapped value (and a buffer smaller than what is written into
//! it) and never a panic.
//!
//! The bound for every byte size is [`MAX_BYTES`]: Rust's allocation limit (`isize::MAX`), which
//! also keeps it representable as a `dnnl_dim_t` (the 1-D byte descriptors of workspaces and
//! scratchpads). Element counts and offsets are bounded by the byte sizes they lead to.

use crate::error::{Error, Result};
use std::fmt::Display;

/// The largest byte size of any tensor or buffer: `isize::MAX` (≤ `i64::MAX`).
pub const MAX_BYTES: usize = isize::MAX as usize;
const _: () = assert!(MAX_BYTES as u128 <= i64::MAX as u128);

fn too_large(what: impl Display) -> Error {
    Error::InvalidArguments(format!(
        "{what}: size overflows (more than {MAX_BYTES} bytes)"
    ))
}

/// The product of `factors`, or `invalid_arguments` naming `what`. Any zero factor makes the
/// product 0, whatever the others (an empty tensor has no element).
pub fn product(what: impl Display, factors: &[usize]) -> Result<usize> {
    if factors.contains(&0) {
        return Ok(0);
    }
    factors
        .iter()
        .try_fold(1usize, |acc, &f| acc.checked_mul(f))
        .ok_or_else(|| too_large(what))
}

/// `a + b`, or `invalid_arguments` naming `what`.
pub fn add(what: impl Display, a: usize, b: usize) -> Result<usize> {
    a.checked_add(b).ok_or_else(|| too_large(what))
}

/// A vector of `len` copies of `value`, or `out_of_memory` naming `what` when it cannot be had
/// (a length the input decides must not abort the process).
pub fn filled<T: Clone>(what: impl Display, len: usize, value: T) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::OutOfMemory(format!("{what}: {len} elements")))?;
    v.resize(len, value);
    Ok(v)
}

/// `a` rounded up to a multiple of `m` (> 0), or `invalid_arguments` naming `what`.
pub fn round_up(what: impl Display, a: usize, m: usize) -> Result<usize> {
    a.checked_next_multiple_of(m).ok_or_else(|| too_large(what))
}

/// Bytes of `elems` elements of `elem_size` bytes, at most [`MAX_BYTES`].
pub fn bytes(what: impl Display, elems: usize, elem_size: usize) -> Result<usize> {
    elems
        .checked_mul(elem_size)
        .filter(|&b| b <= MAX_BYTES)
        .ok_or_else(|| too_large(what))
}

/// A non-negative `dnnl_dim_t` (dim, stride or offset) as a `usize`.
pub fn from_dim(what: impl Display, v: i64) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::InvalidArguments(format!("{what} is negative ({v})")))
}

/// A size as a `dnnl_dim_t`, or `invalid_arguments` naming `what`.
pub fn to_dim(what: impl Display, v: usize) -> Result<i64> {
    i64::try_from(v).map_err(|_| too_large(what))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_invalid<T: std::fmt::Debug>(r: Result<T>, what: &str) -> bool {
        matches!(r, Err(Error::InvalidArguments(m)) if m.starts_with(what))
    }

    #[test]
    fn products_are_exact_or_rejected() {
        assert_eq!(product("x", &[]), Ok(1));
        assert_eq!(product("x", &[3, 5, 7]), Ok(105));
        assert_eq!(product("x", &[1 << 31, 1 << 31]), Ok(1 << 62));
        assert_eq!(product("x", &[usize::MAX, 1]), Ok(usize::MAX));
        assert!(is_invalid(product("gates", &[1 << 32, 1 << 32]), "gates"));
        assert!(is_invalid(product("x", &[(1 << 62) + 1, 4]), "x"));
        // A zero anywhere: the product is 0 even when the others overflow together.
        assert_eq!(product("x", &[usize::MAX, usize::MAX, 0]), Ok(0));
    }

    #[test]
    fn sums_and_roundings_are_exact_or_rejected() {
        assert_eq!(add("x", usize::MAX - 1, 1), Ok(usize::MAX));
        assert!(is_invalid(add("offset", usize::MAX, 1), "offset"));
        assert_eq!(round_up("x", 65, 64), Ok(128));
        assert_eq!(round_up("x", 0, 64), Ok(0));
        assert!(is_invalid(round_up("arena", usize::MAX - 1, 64), "arena"));
    }

    #[test]
    fn byte_sizes_stop_at_isize_max() {
        assert_eq!(bytes("x", 1 << 61, 2), Ok(1 << 62));
        assert_eq!(bytes("x", MAX_BYTES, 1), Ok(MAX_BYTES));
        // The element count fits, the byte size does not fit in isize / i64 ...
        assert!(is_invalid(bytes("x", 1 << 61, 4), "x"));
        assert!(is_invalid(bytes("x", MAX_BYTES + 1, 1), "x"));
        // ... nor in usize.
        assert!(is_invalid(bytes("x", 1 << 62, 8), "x"));
        assert_eq!(bytes("x", 0, 4), Ok(0));
    }

    #[test]
    fn filled_vectors_fail_instead_of_aborting() {
        assert_eq!(filled("v", 3, 7u8).unwrap(), vec![7u8; 3]);
        assert!(matches!(
            filled("v", usize::MAX, 0u8),
            Err(Error::OutOfMemory(_))
        ));
    }

    #[test]
    fn dims_convert_both_ways() {
        assert_eq!(from_dim("d", 7), Ok(7));
        assert_eq!(from_dim("d", i64::MAX), Ok(i64::MAX as usize));
        assert!(
            matches!(from_dim("dim 2", -1), Err(Error::InvalidArguments(m)) if m == "dim 2 is negative (-1)")
        );
        assert_eq!(to_dim("s", MAX_BYTES), Ok(i64::MAX));
        assert!(is_invalid(to_dim("s", MAX_BYTES + 1), "s"));
    }
}
