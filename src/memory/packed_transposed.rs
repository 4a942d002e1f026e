//! The packed transposed weights layout: what backward weights given as `format_tag::any`
//! resolve to.
//!
//! The backward pass multiplies gate gradients by `Wᵀ` and `Uᵀ`. For every `(l, d)`, logical
//! `ldigo` weights are read as the `G·O × I` matrix of row `g·O + o` and column `i`, cut into
//! column panels of [`PANEL`] input channels, each panel stored row after row:
//! `[L][D][I/PANEL][G·O][PANEL]`. `I` is padded with zeros to a multiple of [`CHUNK`], so the
//! last panel is [`CHUNK`] wide when the padded `I` is not a multiple of [`PANEL`].
//!
//! A panel is what one column of the GEMM kernel's 4-vector register tiles reads, so every tile
//! column streams its `B` sequentially (see `rnn::backward::transposed`, which packs plain
//! weights into the same layout at every execution). Weights already in this layout are read
//! in place: with few steps, packing is a large part of a backward pass (LSTM T=1 N=128 C=512
//! SLC=1024: 8 % of forward + backward). Reported to users as `dnnl_format_kind_opaque`.

use crate::error::Result;
use crate::{invalid, size};
use std::ops::Range;

/// Columns (input channels) per panel: one 4-vector tile column of 16-lane f32 vectors.
pub const PANEL: usize = 64;
/// Input channels are padded to a multiple of this (the GEMM writes whole 32-column chunks).
pub const CHUNK: usize = 32;

/// Geometry of a packed transposed weights tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransposedLayout {
    /// Layers.
    pub l: usize,
    /// Directions.
    pub d: usize,
    /// Input channels (columns of each matrix).
    pub i: usize,
    /// Gates.
    pub g: usize,
    /// Output channels per gate.
    pub o: usize,
}

impl TransposedLayout {
    /// Layout for 5-D `ldigo` dims; `invalid_arguments` for other dims, negative ones, or a
    /// padded length ([`Self::len`]) that does not fit (offsets inside it then never overflow).
    pub fn from_dims(dims: &[i64]) -> Result<Self> {
        let what = "packed transposed weights";
        let u = |v: i64| size::from_dim(what, v);
        let [l, d, i, g, o] = *dims else {
            invalid!("packed transposed weights need 5 dims, not {}", dims.len())
        };
        let lay = Self {
            l: u(l)?,
            d: u(d)?,
            i: u(i)?,
            g: u(g)?,
            o: u(o)?,
        };
        let width = size::round_up(what, lay.i, CHUNK)?;
        size::product(what, &[lay.l, lay.d, lay.g, lay.o, width])?;
        Ok(lay)
    }

    /// Rows of each matrix (`G·O`).
    pub fn rows(&self) -> usize {
        self.g * self.o
    }

    /// Columns of each matrix, padding included.
    pub fn width(&self) -> usize {
        padded_width(self.i)
    }

    /// Floats per `(l, d)` matrix.
    pub fn matrix_len(&self) -> usize {
        self.rows() * self.width()
    }

    /// Element offset of the `(l, d)` matrix.
    pub fn matrix_offset(&self, l: usize, d: usize) -> usize {
        (l * self.d + d) * self.matrix_len()
    }

    /// Total floats, padding included.
    pub fn len(&self) -> usize {
        self.l * self.d * self.matrix_len()
    }

    /// True when the tensor has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element offset of logical `(l, d, i, g, o)`.
    pub fn offset(&self, l: usize, d: usize, i: usize, g: usize, o: usize) -> usize {
        let (p, rows, width) = (i / PANEL, self.rows(), self.width());
        let cols = panel_columns(width, p).len();
        self.matrix_offset(l, d) + panel_offset(rows, p) + (g * self.o + o) * cols + i % PANEL
    }
}

/// Columns of a matrix of `k` input channels, padding included.
pub fn padded_width(k: usize) -> usize {
    k.next_multiple_of(CHUNK)
}

/// The columns of panel `p` of a matrix `width` columns wide.
pub fn panel_columns(width: usize, p: usize) -> Range<usize> {
    p * PANEL..((p + 1) * PANEL).min(width)
}

/// Offset of panel `p`'s row 0 in a matrix of `rows` rows (every panel before it is [`PANEL`]
/// wide).
pub fn panel_offset(rows: usize, p: usize) -> usize {
    p * PANEL * rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_a_bijection_onto_unpadded_slots() {
        // I = 70: width 96, panels of 64 and 32 columns.
        let t = TransposedLayout::from_dims(&[2, 2, 70, 3, 5]).unwrap();
        assert_eq!((t.rows(), t.width(), t.len()), (15, 96, 4 * 15 * 96));
        let mut seen = vec![false; t.len()];
        for l in 0..2 {
            for d in 0..2 {
                for i in 0..70 {
                    for g in 0..3 {
                        for o in 0..5 {
                            let off = t.offset(l, d, i, g, o);
                            assert!(!seen[off], "{l} {d} {i} {g} {o}");
                            seen[off] = true;
                        }
                    }
                }
            }
        }
        assert_eq!(seen.iter().filter(|s| **s).count(), 4 * 70 * 15);
    }

    #[test]
    fn panels_hold_rows_of_their_columns() {
        let t = TransposedLayout::from_dims(&[1, 2, 70, 3, 5]).unwrap();
        // Panel 0: 15 rows of 64; row g·O + o.
        assert_eq!(t.offset(0, 0, 0, 0, 0), 0);
        assert_eq!(t.offset(0, 0, 63, 1, 2), 7 * 64 + 63);
        // Panel 1: 15 rows of 32 after panel 0.
        assert_eq!(t.offset(0, 0, 64, 0, 0), 15 * 64);
        assert_eq!(t.offset(0, 0, 69, 2, 4), 15 * 64 + 14 * 32 + 5);
        // Direction 1 after the whole first matrix.
        assert_eq!(t.offset(0, 1, 0, 0, 0), 15 * 96);
        assert!(TransposedLayout::from_dims(&[1, 1, 4, 4]).is_err());
    }
}
