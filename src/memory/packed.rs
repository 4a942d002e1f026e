//! The packed weights layout: what weights given as `format_tag::any` resolve to.
//!
//! Logical weights are oneDNN's `ldigo` (`[L][D][I][G][O]`, projection `ldio` = G of 1). For every
//! `(l, d)` the `I × G·O` matrix is cut into column panels of [`PANEL`] output units; a panel
//! holds, for each input row `i`, the `PANEL` values of gate 0, then gate 1, … gate G−1, so one
//! tile of hidden units sees all gates of those units side by side and the post-GEMM of a cell
//! can run on the tile the GEMM has just produced. Within a panel the gates are grouped in
//! **blocks** of `block_gates` gates (1 or 2), each block stored row after row on its own:
//! `[L][D][O/PANEL][block][I][gates of the block][PANEL]`, the last panel zero-padded.
//!
//! With blocks of 2 gates (the default), an LSTM panel is two 64-float-wide blocks (gates i, f,
//! then c̃, o), a GRU panel a 64-float-wide block (u, r: the GRU's first recurrent GEMM) and a
//! 32-float one (o), a vanilla RNN or projection panel one 32-float block. The GEMM's wide
//! register tiles are 64 floats wide (6 rows × 4 vectors), so every tile reads whole rows of its
//! block — one sequential stream, which the prefetchers serve better than part of every row.
//!
//! With blocks of 1 gate, every gate is a 32-float-wide block: a tile of up to 13 rows × 2
//! vectors then reads each line of the weights once, at the pace the last-level cache delivers
//! it, where two 64-wide tiles of half the rows make the first one wait on the cache and the
//! second one compute alone (what the RNN primitive picks for a few batch rows and steps:
//! `rnn::weights::block_gates`).
//!
//! **bf16 pairs** (`pairs`, the bf16 weights' layout): a stored row holds two input rows, one
//! 4-byte word per column — the bf16 of row `2p` in its low half, of row `2p + 1` in its high
//! half (a last odd row paired with zeros) — so a block of `I` rows has the byte geometry of an
//! f32 block of `ceil(I/2)` rows. A row of 16 words is the B operand of `vdpbf16ps` and one row
//! of an AMX-BF16 B tile (`kernels::gemm_bf16`).
//!
//! The layout does not depend on the data, only on the dims, the block size and the element
//! form, so one packed tensor serves every primitive with the same weights descriptor.
//! Reported to users as `dnnl_format_kind_opaque`.

use crate::error::Result;
use crate::{invalid, size};

/// Hidden units per panel: two 16-lane AVX-512 vectors of f32.
pub const PANEL: usize = 32;
/// Gates per block of a panel unless a primitive asks for fewer (see the module docs).
pub const BLOCK_GATES: usize = 2;

/// Geometry of a packed weights tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackedLayout {
    /// Layers.
    pub l: usize,
    /// Directions.
    pub d: usize,
    /// Input channels (rows of each matrix, K of the GEMM).
    pub i: usize,
    /// Gates.
    pub g: usize,
    /// Output channels per gate.
    pub o: usize,
    /// Gates per block of a panel: 1 or [`BLOCK_GATES`].
    pub block_gates: usize,
    /// Rows stored as bf16 pairs (see the module docs) rather than f32 values.
    pub pairs: bool,
}

impl PackedLayout {
    /// Layout for 5-D `ldigo` dims or 4-D `ldio` dims (then one gate), blocks of
    /// [`BLOCK_GATES`] gates; `invalid_arguments` for other dims, negative ones, or a padded
    /// length ([`Self::len`]) that does not fit (offsets inside it then never overflow).
    pub fn from_dims(dims: &[i64]) -> Result<Self> {
        let what = "packed weights";
        let u = |v: i64| size::from_dim(what, v);
        let (l, d, i, g, o) = match *dims {
            [l, d, i, g, o] => (u(l)?, u(d)?, u(i)?, u(g)?, u(o)?),
            [l, d, i, o] => (u(l)?, u(d)?, u(i)?, 1, u(o)?),
            _ => invalid!("packed weights need 4 or 5 dims, not {}", dims.len()),
        };
        let lay = Self {
            l,
            d,
            i,
            g,
            o,
            block_gates: BLOCK_GATES,
            pairs: false,
        };
        size::product(
            format_args!("packed weights {dims:?}"),
            &[l, d, lay.panels(), i, g, PANEL],
        )?;
        Ok(lay)
    }

    /// The same layout with blocks of `gates` gates (1 or [`BLOCK_GATES`]).
    pub fn with_block_gates(self, gates: usize) -> Self {
        debug_assert!((1..=BLOCK_GATES).contains(&gates));
        Self {
            block_gates: gates,
            ..self
        }
    }

    /// The same layout with rows of bf16 pairs (`true`) or of f32 values.
    pub fn with_pairs(self, pairs: bool) -> Self {
        Self { pairs, ..self }
    }

    /// Stored rows of each block: `I`, or `ceil(I/2)` for bf16 pairs.
    pub fn rows(&self) -> usize {
        if self.pairs {
            self.i.div_ceil(2)
        } else {
            self.i
        }
    }

    /// Columns of a panel's full blocks (`block_gates` gates of [`PANEL`], fewer with fewer
    /// gates).
    pub fn block_width(&self) -> usize {
        self.block_gates.min(self.g) * PANEL
    }

    /// Number of panels per matrix.
    pub fn panels(&self) -> usize {
        self.o.div_ceil(PANEL)
    }

    /// 4-byte words (f32 values or bf16 pairs) per panel ([`Self::rows`]` · G · PANEL`).
    pub fn panel_len(&self) -> usize {
        self.rows() * self.g * PANEL
    }

    /// Words per `(l, d)` matrix.
    pub fn matrix_len(&self) -> usize {
        self.panels() * self.panel_len()
    }

    /// Total words, padding included.
    pub fn len(&self) -> usize {
        self.l * self.d * self.matrix_len()
    }

    /// Stored elements (f32 values, or bf16 values: two per word), padding included.
    pub fn elements(&self) -> usize {
        if self.pairs {
            2 * self.len()
        } else {
            self.len()
        }
    }

    /// True when the tensor has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// For gate `g`'s block: its word offset from the start of a panel (its row 0), its row
    /// length in words, and its first gate.
    pub fn block(&self, g: usize) -> (usize, usize, usize) {
        let first = g / self.block_gates * self.block_gates;
        let gates = self.block_gates.min(self.g - first);
        (self.rows() * first * PANEL, gates * PANEL, first)
    }

    /// Word offset of stored row `r` (an input row, or a pair of them), gate `g`, unit `o` of
    /// matrix `(l, d)`.
    pub fn offset(&self, l: usize, d: usize, r: usize, g: usize, o: usize) -> usize {
        let matrix = (l * self.d + d) * self.matrix_len();
        let (start, row, first) = self.block(g);
        matrix + (o / PANEL) * self.panel_len() + start + r * row + (g - first) * PANEL + o % PANEL
    }

    /// Offset of logical `(l, d, i, g, o)` in stored elements (f32, or bf16 for pairs).
    pub fn element_offset(&self, l: usize, d: usize, i: usize, g: usize, o: usize) -> usize {
        if self.pairs {
            2 * self.offset(l, d, i / 2, g, o) + i % 2
        } else {
            self.offset(l, d, i, g, o)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_a_bijection_onto_unpadded_slots() {
        for (gates, pairs) in [
            (1, false),
            (BLOCK_GATES, false),
            (1, true),
            (BLOCK_GATES, true),
        ] {
            let p = PackedLayout::from_dims(&[2, 2, 3, 4, 37])
                .unwrap()
                .with_block_gates(gates)
                .with_pairs(pairs);
            let mut seen = vec![false; p.elements()];
            for l in 0..2 {
                for d in 0..2 {
                    for i in 0..3 {
                        for g in 0..4 {
                            for o in 0..37 {
                                let off = p.element_offset(l, d, i, g, o);
                                assert!(!seen[off]);
                                seen[off] = true;
                            }
                        }
                    }
                }
            }
            assert_eq!(seen.iter().filter(|s| **s).count(), 2 * 2 * 3 * 4 * 37);
            // Pairs: 3 rows stored as 2 words of 2 bf16 each.
            let rows = if pairs { 2 } else { 3 };
            assert_eq!(p.len(), 2 * 2 * 2 * rows * 4 * PANEL);
            assert_eq!(p.elements(), if pairs { 4096 } else { 3072 });
        }
    }

    #[test]
    fn lengths_that_do_not_fit_are_rejected() {
        // 2^57 layers of 4 gates: 2^59 weights, 2^64 once each hidden unit is padded to a
        // panel (the byte size is the descriptor's to check).
        assert_eq!(
            PackedLayout::from_dims(&[1 << 56, 1, 1, 4, 1])
                .unwrap()
                .len(),
            1 << 63
        );
        assert!(PackedLayout::from_dims(&[1 << 57, 1, 1, 4, 1]).is_err());
        assert!(PackedLayout::from_dims(&[1, 1, -1, 4]).is_err());
        assert!(PackedLayout::from_dims(&[1, 1, 4]).is_err());
    }

    #[test]
    fn lstm_and_gru_panels_hold_their_gates_as_two_blocks() {
        let p = PackedLayout::from_dims(&[1, 1, 5, 4, 40]).unwrap();
        // Panel 0: rows of 64 floats (gates 0, 1), then rows of 64 floats (gates 2, 3).
        assert_eq!(p.offset(0, 0, 0, 0, 0), 0);
        assert_eq!(p.offset(0, 0, 2, 1, 7), 2 * 64 + 32 + 7);
        assert_eq!(p.offset(0, 0, 0, 2, 0), 5 * 64);
        assert_eq!(p.offset(0, 0, 4, 3, 31), 5 * 64 + 4 * 64 + 32 + 31);
        // Panel 1 starts after 5 rows of 128 floats.
        assert_eq!(p.offset(0, 0, 0, 0, 32), 5 * 128);
        // GRU: rows of 64 floats (u, r), then rows of 32 (o).
        let g = PackedLayout::from_dims(&[1, 1, 5, 3, 40]).unwrap();
        assert_eq!(g.offset(0, 0, 2, 1, 7), 2 * 64 + 32 + 7);
        assert_eq!(g.offset(0, 0, 2, 2, 7), 5 * 64 + 2 * 32 + 7);
        assert_eq!(g.block(2), (5 * 64, 32, 2));
        // One gate: one block.
        let v = PackedLayout::from_dims(&[1, 1, 5, 1, 40]).unwrap();
        assert_eq!(v.block(0), (0, 32, 0));
    }

    #[test]
    fn bf16_pairs_hold_two_rows_per_word() {
        let p = PackedLayout::from_dims(&[1, 1, 5, 4, 40])
            .unwrap()
            .with_pairs(true);
        assert_eq!(p.rows(), 3);
        // Rows 2 and 3 share word row 1: low then high half.
        assert_eq!(p.element_offset(0, 0, 2, 1, 7), 2 * (64 + 32 + 7));
        assert_eq!(p.element_offset(0, 0, 3, 1, 7), 2 * (64 + 32 + 7) + 1);
        // Gates 2, 3 start after 3 word rows of 64; panel 1 after 3 rows of 128.
        assert_eq!(p.offset(0, 0, 0, 2, 0), 3 * 64);
        assert_eq!(p.offset(0, 0, 0, 0, 32), 3 * 128);
        assert_eq!(p.len(), 2 * 3 * 128);
    }

    #[test]
    fn one_gate_blocks_hold_each_gate_on_its_own() {
        let p = PackedLayout::from_dims(&[1, 1, 5, 4, 40])
            .unwrap()
            .with_block_gates(1);
        assert_eq!(p.block_width(), 32);
        // Panel 0: 5 rows of 32 floats per gate, gate after gate.
        assert_eq!(p.offset(0, 0, 2, 0, 7), 2 * 32 + 7);
        assert_eq!(p.offset(0, 0, 2, 1, 7), 5 * 32 + 2 * 32 + 7);
        assert_eq!(p.offset(0, 0, 4, 3, 31), 3 * 5 * 32 + 4 * 32 + 31);
        assert_eq!(p.block(2), (2 * 5 * 32, 32, 2));
        // Same panels and size as with two-gate blocks.
        assert_eq!(p.offset(0, 0, 0, 0, 32), 5 * 128);
        assert_eq!(
            p.len(),
            PackedLayout::from_dims(&[1, 1, 5, 4, 40]).unwrap().len()
        );
    }
}
