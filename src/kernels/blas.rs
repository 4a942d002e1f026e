//! oneDNN's BLAS-like GEMM calls (`dnnl_sgemm`, `dnnl_gemm_u8s8s32`, `dnnl_gemm_s8s8s32`):
//! row-major `C = alpha·op(A)·op(B) + beta·C` on user buffers with leading dimensions: the
//! shape validation and the `offsetc` flag shared by all three. The products run on the
//! library's kernels (`kernels::sgemm`, `kernels::gemm_s32`).

use crate::ensure_args;
use crate::error::Result;

/// The shape of one GEMM call, validated: `op(A)` is `m × k`, `op(B)` is `k × n`, `C` is
/// `m × n`; every matrix is row-major with its leading dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmShape {
    /// Rows of `op(A)` and `C`.
    pub m: usize,
    /// Columns of `op(B)` and `C`.
    pub n: usize,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: usize,
    /// `A` is stored `k × m` (`transa` `'T'`).
    pub trans_a: bool,
    /// `B` is stored `n × k` (`transb` `'T'`).
    pub trans_b: bool,
    /// Leading dimensions (elements between rows) of `A`, `B`, `C`.
    pub ld: [usize; 3],
}

/// Reads oneDNN's transposition flag: `'N'`/`'n'` or `'T'`/`'t'`.
fn trans(name: &str, c: u8) -> Result<bool> {
    match c {
        b'N' | b'n' => Ok(false),
        b'T' | b't' => Ok(true),
        _ => crate::invalid!("{name} is {:?}: expected 'N' or 'T'", c as char),
    }
}

/// Elements a row-major `rows × cols` matrix with leading dimension `ld` spans (0 when empty).
fn span(rows: usize, cols: usize, ld: usize) -> Option<usize> {
    if rows == 0 || cols == 0 {
        return Some(0);
    }
    (rows - 1).checked_mul(ld)?.checked_add(cols)
}

impl GemmShape {
    /// Validates oneDNN's arguments: flags, non-negative sizes, `ld ≥ max(1, stored columns)`.
    pub fn new(transa: u8, transb: u8, mnk: [i64; 3], ld: [i64; 3]) -> Result<Self> {
        let (trans_a, trans_b) = (trans("transa", transa)?, trans("transb", transb)?);
        let mut v = [0usize; 3];
        for (i, (&x, name)) in mnk.iter().zip(["M", "N", "K"]).enumerate() {
            v[i] = usize::try_from(x).or_else(|_| crate::invalid!("{name} is negative ({x})"))?;
        }
        let [m, n, k] = v;
        let cols = [if trans_a { m } else { k }, if trans_b { k } else { n }, n];
        let mut lds = [0usize; 3];
        for (i, name) in ["lda", "ldb", "ldc"].into_iter().enumerate() {
            let need = cols[i].max(1);
            lds[i] = usize::try_from(ld[i])
                .ok()
                .filter(|&l| l >= need)
                .map_or_else(
                    || crate::invalid!("{name} is {}: must be >= {need}", ld[i]),
                    Ok,
                )?;
        }
        let s = Self {
            m,
            n,
            k,
            trans_a,
            trans_b,
            ld: lds,
        };
        // a slice of the span must stay within isize::MAX bytes (4-byte elements at most)
        let max = isize::MAX as usize / 4;
        for (i, name) in ["A", "B", "C"].into_iter().enumerate() {
            ensure_args!(
                s.stored(i).is_some_and(|n| n <= max),
                "{name} is too large to address ({m} x {n} x {k})"
            );
        }
        Ok(s)
    }

    /// Elements of matrix `i` (0 `A`, 1 `B`, 2 `C`) the call reads or writes, from its start.
    fn stored(&self, i: usize) -> Option<usize> {
        let (m, n, k) = (self.m, self.n, self.k);
        let (rows, cols) = match i {
            0 if self.trans_a => (k, m),
            0 => (m, k),
            1 if self.trans_b => (n, k),
            1 => (k, n),
            _ => (m, n),
        };
        // an empty product reads neither A nor B
        let used = if i < 2 { m.min(n) > 0 } else { true };
        if used {
            span(rows, cols, self.ld[i])
        } else {
            Some(0)
        }
    }

    /// Elements of `A` the call reads.
    pub fn a_len(&self) -> usize {
        self.stored(0).unwrap_or(0)
    }

    /// Elements of `B` the call reads.
    pub fn b_len(&self) -> usize {
        self.stored(1).unwrap_or(0)
    }

    /// Elements of `C` the call reads and writes.
    pub fn c_len(&self) -> usize {
        self.stored(2).unwrap_or(0)
    }
}

/// How `co` offsets `C` in the integer GEMMs (oneDNN's `offsetc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum COffset {
    /// `'F'`: one value for every element.
    Fixed,
    /// `'C'`: an offset column, one value per row of `C` (`m` values).
    Column,
    /// `'R'`: an offset row, one value per column of `C` (`n` values).
    Row,
}

impl COffset {
    /// Reads oneDNN's flag `'F'`, `'C'` or `'R'` (either case).
    pub fn parse(c: u8) -> Result<Self> {
        match c.to_ascii_uppercase() {
            b'F' => Ok(Self::Fixed),
            b'C' => Ok(Self::Column),
            b'R' => Ok(Self::Row),
            _ => crate::invalid!("offsetc is {:?}: expected 'F', 'C' or 'R'", c as char),
        }
    }

    /// Values of `co` the call reads.
    pub fn len(self, s: &GemmShape) -> usize {
        match self {
            Self::Fixed => 1,
            Self::Column => s.m,
            Self::Row => s.n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_checks_are_onednns() {
        assert!(GemmShape::new(b'X', b'N', [1, 1, 1], [1, 1, 1]).is_err());
        assert!(GemmShape::new(b'N', b'N', [-1, 1, 1], [1, 1, 1]).is_err());
        assert!(GemmShape::new(b'N', b'N', [2, 3, 4], [3, 3, 3]).is_err()); // lda < K
        assert!(GemmShape::new(b'N', b'N', [2, 3, 4], [4, 2, 3]).is_err()); // ldb < N
        assert!(GemmShape::new(b'N', b'N', [2, 3, 4], [4, 3, 2]).is_err()); // ldc < N
        assert!(GemmShape::new(b'N', b'N', [0, 0, 0], [0, 1, 1]).is_err()); // ld >= 1
        let s = GemmShape::new(b'T', b'N', [2, 3, 4], [2, 3, 3]).unwrap();
        assert_eq!((s.a_len(), s.b_len(), s.c_len()), (8, 12, 6));
        let empty = GemmShape::new(b'N', b'N', [0, 3, 4], [4, 3, 3]).unwrap();
        assert_eq!((empty.a_len(), empty.b_len(), empty.c_len()), (0, 0, 0));
        assert!(GemmShape::new(b'N', b'N', [i64::MAX / 2, 1, 1], [1, 1, 1]).is_err());
        assert!(GemmShape::new(b'N', b'N', [i64::MAX, 1, 1], [2, 1, 1]).is_err());
    }
}
