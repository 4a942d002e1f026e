//! The packed weights layout: what weights given as `format_tag::any` resolve to.
//!
//! Logical weights are oneDNN's `ldigo` (`[L][D][I][G][O]`, projection `ldio` = G of 1). For every
//! `(l, d)` the `I × G·O` matrix is cut into column panels of [`PANEL`] output units; a panel
//! stores, for each input row `i`, the `PANEL` values of gate 0, then gate 1, … gate G−1:
//! `[L][D][O/PANEL][I][G][PANEL]`, the last panel zero-padded. One tile of hidden units thus
//! sees all gates of those units side by side, so the post-GEMM of a cell can run on the tile
//! the GEMM has just produced. The layout does not depend on batch or sequence length, so one
//! packed tensor serves every primitive with the same weights dims. Reported to users as
//! `dnnl_format_kind_opaque`.

/// Hidden units per panel: two 16-lane AVX-512 vectors of f32.
pub const PANEL: usize = 32;

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
}

impl PackedLayout {
    /// Layout for 5-D `ldigo` dims or 4-D `ldio` dims (then one gate).
    pub fn from_dims(dims: &[i64]) -> Option<Self> {
        let u = |v: i64| usize::try_from(v).ok();
        match *dims {
            [l, d, i, g, o] => Some(Self {
                l: u(l)?,
                d: u(d)?,
                i: u(i)?,
                g: u(g)?,
                o: u(o)?,
            }),
            [l, d, i, o] => Some(Self {
                l: u(l)?,
                d: u(d)?,
                i: u(i)?,
                g: 1,
                o: u(o)?,
            }),
            _ => None,
        }
    }

    /// Number of panels per matrix.
    pub fn panels(&self) -> usize {
        self.o.div_ceil(PANEL)
    }

    /// Floats per panel (`I · G · PANEL`).
    pub fn panel_len(&self) -> usize {
        self.i * self.g * PANEL
    }

    /// Floats per `(l, d)` matrix.
    pub fn matrix_len(&self) -> usize {
        self.panels() * self.panel_len()
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
        let matrix = (l * self.d + d) * self.matrix_len();
        matrix + (o / PANEL) * self.panel_len() + (i * self.g + g) * PANEL + o % PANEL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_a_bijection_onto_unpadded_slots() {
        let p = PackedLayout::from_dims(&[2, 2, 3, 4, 37]).unwrap();
        let mut seen = vec![false; p.len()];
        for l in 0..2 {
            for d in 0..2 {
                for i in 0..3 {
                    for g in 0..4 {
                        for o in 0..37 {
                            let off = p.offset(l, d, i, g, o);
                            assert!(!seen[off]);
                            seen[off] = true;
                        }
                    }
                }
            }
        }
        assert_eq!(seen.iter().filter(|s| **s).count(), 2 * 2 * 3 * 4 * 37);
        assert_eq!(p.len(), 2 * 2 * 2 * 3 * 4 * PANEL);
    }
}
