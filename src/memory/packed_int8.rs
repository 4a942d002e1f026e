//! The packed int8 weights layout: what s8 weights given as `format_tag::any` resolve to
//! (a [`Layout::Packed`](super::Layout::Packed) descriptor of data type s8).
//!
//! For every `(l, d)` the `I × G·O` matrix is cut into column panels of [`PANEL`] output units,
//! all gates of those units side by side (as the f32 layout, `memory::packed`). Input rows are
//! taken in groups of 4 (`I` zero-padded to a multiple of 4): a panel holds, for each group, gate
//! 0's 32 units, then gate 1's, …, each unit as the 4 bytes of its 4 rows — the operand of
//! `vpdpbusd`, which multiplies 4 u8 activations by 4 s8 weights into one s32 lane. Bytes:
//! `[L][D][O/PANEL][I/4][G][PANEL][4]`, the last panel zero-padded.
//!
//! After the weights, the compensation oneDNN keeps beside int8 weights: for every
//! `(l, d, g, o)` the s32 sum over `i` of the s8 weights, `[L][D][G][O]` (the activations' shift
//! times it is subtracted from the accumulators at execution).

use super::packed::PackedLayout;
use crate::error::Result;
use crate::size;

/// Output units per panel.
pub const PANEL: usize = 32;
/// Input rows per group (the 4 bytes of one `vpdpbusd` lane).
pub const GROUP: usize = 4;

/// Geometry of a packed int8 weights tensor (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int8Layout {
    /// Layers.
    pub l: usize,
    /// Directions.
    pub d: usize,
    /// Input channels (K of the GEMM).
    pub i: usize,
    /// Gates.
    pub g: usize,
    /// Output channels per gate.
    pub o: usize,
}

impl Int8Layout {
    /// The int8 layout of the logical dims of a packed layout; `invalid_arguments` when its
    /// size does not fit (offsets inside it then never overflow).
    pub fn new(p: &PackedLayout) -> Result<Self> {
        let lay = Self {
            l: p.l,
            d: p.d,
            i: p.i,
            g: p.g,
            o: p.o,
        };
        let what = "packed int8 weights";
        let w = size::product(
            what,
            &[
                lay.l,
                lay.d,
                lay.panels(),
                lay.groups(),
                GROUP,
                lay.g,
                PANEL,
            ],
        )?;
        let c = size::product(what, &[lay.l, lay.d, lay.g, lay.o, 4])?;
        size::bytes(what, size::add(what, w, c)?, 1)?;
        Ok(lay)
    }

    /// Groups of 4 input rows.
    pub fn groups(&self) -> usize {
        self.i.div_ceil(GROUP)
    }

    /// Panels per matrix.
    pub fn panels(&self) -> usize {
        self.o.div_ceil(PANEL)
    }

    /// Bytes of one group row of a panel (all gates).
    pub fn row_bytes(&self) -> usize {
        self.g * PANEL * GROUP
    }

    /// Bytes per panel.
    pub fn panel_bytes(&self) -> usize {
        self.groups() * self.row_bytes()
    }

    /// Bytes per `(l, d)` matrix.
    pub fn matrix_bytes(&self) -> usize {
        self.panels() * self.panel_bytes()
    }

    /// Bytes of the weights; the compensation starts there.
    pub fn weights_bytes(&self) -> usize {
        self.l * self.d * self.matrix_bytes()
    }

    /// Total bytes: weights and compensation.
    pub fn bytes(&self) -> usize {
        self.weights_bytes() + self.l * self.d * self.g * self.o * 4
    }

    /// Byte offset of the start of panel `p` of matrix `(l, d)`.
    pub fn panel_offset(&self, l: usize, d: usize, p: usize) -> usize {
        (l * self.d + d) * self.matrix_bytes() + p * self.panel_bytes()
    }

    /// Byte offset of logical `(l, d, i, g, o)`.
    pub fn offset(&self, l: usize, d: usize, i: usize, g: usize, o: usize) -> usize {
        self.panel_offset(l, d, o / PANEL)
            + (i / GROUP) * self.row_bytes()
            + (g * PANEL + o % PANEL) * GROUP
            + i % GROUP
    }

    /// Index (in s32 values from [`Self::weights_bytes`]) of the compensation of
    /// `(l, d, g, o)`.
    pub fn comp_index(&self, l: usize, d: usize, g: usize, o: usize) -> usize {
        ((l * self.d + d) * self.g + g) * self.o + o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_a_bijection_onto_unpadded_slots() {
        let p = PackedLayout::from_dims(&[2, 2, 7, 3, 37]).unwrap();
        let lay = Int8Layout::new(&p).unwrap();
        assert_eq!(lay.weights_bytes(), 2 * 2 * 2 * 2 * 4 * 3 * 32);
        assert_eq!(lay.bytes(), lay.weights_bytes() + 2 * 2 * 3 * 37 * 4);
        let mut seen = vec![false; lay.weights_bytes()];
        for l in 0..2 {
            for d in 0..2 {
                for i in 0..7 {
                    for g in 0..3 {
                        for o in 0..37 {
                            let off = lay.offset(l, d, i, g, o);
                            assert!(!seen[off]);
                            seen[off] = true;
                        }
                    }
                }
            }
        }
        assert_eq!(
            lay.offset(0, 0, 5, 1, 33),
            lay.panel_offset(0, 0, 1) + 384 + 132 + 1
        );
    }

    #[test]
    fn sizes_that_do_not_fit_are_rejected() {
        let p = PackedLayout::from_dims(&[1 << 50, 1, 64, 4, 32]).unwrap();
        assert!(Int8Layout::new(&p).is_err());
    }
}
