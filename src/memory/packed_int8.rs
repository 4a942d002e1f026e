//! The packed int8 weights layout: what s8 weights given as `format_tag::any` resolve to
//! (a [`Layout::Packed`](super::Layout::Packed) descriptor of data type s8).
//!
//! For every `(l, d)` the `I × G·O` matrix is cut into column panels of [`PANEL`] output units,
//! all gates of those units side by side (as the f32 layout, `memory::packed`): gate 0's 32
//! units, then gate 1's, …, `G·PANEL` columns. Input rows are taken in groups of 4 (`I`
//! zero-padded to a multiple of 4), each column of a group as the 4 bytes of its 4 rows — the
//! operand of `vpdpbusd`, which multiplies 4 u8 activations by 4 s8 weights into one s32 lane.
//! A panel's columns are stored in column blocks of [`BLOCK`] (the last narrower: a GRU panel's
//! 96 columns are 64 + 32), each block whole over the groups: the GEMM's register tiles read
//! one block at a time, and a contiguous block spreads over every L1 set (read from rows of a
//! whole panel, the same block took every other 256 bytes: half the sets). Bytes:
//! `[L][D][O/PANEL][blocks][I/4][block columns][4]`, the last panel zero-padded.
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
/// Columns per column block: 4 vectors of 16, the register tiles' width
/// (`kernels::int8_gemm::BLOCK_VECTORS`).
pub const BLOCK: usize = 64;

/// Consecutive column blocks of a panel of the same width: one GEMM operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRun {
    /// The first column in the panel (a multiple of [`BLOCK`]).
    pub col0: usize,
    /// Columns.
    pub cols: usize,
    /// Byte offset of the first block from the panel's start.
    pub offset: usize,
    /// Bytes per group of a block (its columns × 4).
    pub ldb: usize,
    /// Bytes between the blocks.
    pub stride: usize,
}

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

    /// Bytes per panel.
    pub fn panel_bytes(&self) -> usize {
        self.groups() * self.g * PANEL * GROUP
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

    /// Byte offset from its panel's start of the column block holding panel column `col`,
    /// and the block's width in columns.
    pub fn block(&self, col: usize) -> (usize, usize) {
        let col0 = col - col % BLOCK;
        (
            col0 * GROUP * self.groups(),
            (self.g * PANEL - col0).min(BLOCK),
        )
    }

    /// Panel columns `cols` (block-aligned: from a block's start to a block's start or the
    /// panel's end) as runs of blocks, in order: the whole blocks, then a narrower last one.
    pub fn runs(&self, cols: std::ops::Range<usize>) -> impl Iterator<Item = BlockRun> {
        debug_assert!(cols.start.is_multiple_of(BLOCK));
        debug_assert!(cols.end.is_multiple_of(BLOCK) || cols.end == self.g * PANEL);
        let whole = cols.start..cols.end - cols.end % BLOCK;
        let run = |c: std::ops::Range<usize>, width: usize| BlockRun {
            col0: c.start,
            cols: c.len(),
            offset: self.block(c.start).0,
            ldb: width * GROUP,
            stride: BLOCK * GROUP * self.groups(),
        };
        let narrow = whole.end..cols.end;
        [run(whole, BLOCK), run(narrow.clone(), narrow.len())]
            .into_iter()
            .filter(|r| r.cols > 0)
    }

    /// Byte offset of logical `(l, d, i, g, o)`.
    pub fn offset(&self, l: usize, d: usize, i: usize, g: usize, o: usize) -> usize {
        let col = g * PANEL + o % PANEL;
        let (block, width) = self.block(col);
        self.panel_offset(l, d, o / PANEL)
            + block
            + (i / GROUP) * width * GROUP
            + (col % BLOCK) * GROUP
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
        // G = 3: a block of 64 columns (gates 0 and 1), then one of 32 (gate 2); 2 groups
        assert_eq!(
            lay.offset(0, 0, 5, 1, 33),
            lay.panel_offset(0, 0, 1) + 256 + 33 * 4 + 1
        );
        assert_eq!(
            lay.offset(0, 0, 6, 2, 36),
            lay.panel_offset(0, 0, 1) + 2 * 256 + 128 + 4 * 4 + 2
        );
        let runs: Vec<BlockRun> = lay.runs(0..96).collect();
        assert_eq!(runs.len(), 2);
        assert_eq!((runs[0].col0, runs[0].cols, runs[0].ldb), (0, 64, 256));
        assert_eq!((runs[1].col0, runs[1].cols), (64, 32));
        assert_eq!((runs[1].offset, runs[1].ldb), (512, 128));
        let g4 = Int8Layout::new(&PackedLayout::from_dims(&[1, 1, 9, 4, 32]).unwrap()).unwrap();
        let runs: Vec<BlockRun> = g4.runs(0..128).collect();
        assert_eq!(runs.len(), 1);
        assert_eq!(
            (runs[0].cols, runs[0].ldb, runs[0].stride),
            (128, 256, 3 * 256)
        );
        assert_eq!(g4.offset(0, 0, 8, 2, 5), 3 * 256 + 2 * 256 + 5 * 4);
    }

    #[test]
    fn sizes_that_do_not_fit_are_rejected() {
        let p = PackedLayout::from_dims(&[1 << 50, 1, 64, 4, 32]).unwrap();
        assert!(Int8Layout::new(&p).is_err());
    }
}
