//! Transposed weights packed for the backward pass's per-step products (`Uᵀ`, `Wᵀ`,
//! `W_projᵀ`): `rows` rows of `width` columns (a multiple of [`CHUNK`]), stored as column panels
//! of [`PANEL`] floats, each panel `[rows][PANEL]` contiguous (the last one [`CHUNK`] wide when
//! `width` is not a multiple of [`PANEL`]): the layout of `memory::packed_transposed`, which
//! backward weights given as `any` resolve to and which is then read in place.
//!
//! A panel is what one column of the kernel's 4-vector register tiles reads, so every tile
//! column streams its `B` sequentially and fetches the next panel while it re-reads its own
//! (see `kernels::gemm`). Read in place, the user's dense `ldgoi` rows of `SIC` floats gave the
//! tiles 256 bytes of every 2 KiB row (SIC = 512), which the caches do not fetch ahead: W10's
//! backward ran its step products at about half the forward's GFLOP/s on a Xeon.

use super::{slice, slice_mut, PACK_PARALLEL_MIN};
use crate::error::Result;
use crate::kernels::gemm::{Packing, Panel};
use crate::kernels::gemm_bf16::bf16_bits;
use crate::memory::packed_transposed::{self as layout, padded_width, panel_columns};
use crate::rnn::views::{Strided, SyncPtr};
use crate::{size, threading};
use std::ops::Range;

pub use crate::memory::packed_transposed::{CHUNK, PANEL};

// The layout's padding is the kernel's column granularity.
const _: () = assert!(CHUNK == crate::kernels::gemm::CHUNK);

/// Gate weights (`weights_layer` or `weights_iter`) as a backward execution was given them.
#[derive(Clone, Copy, Debug)]
pub enum GateWeights {
    /// Any plain layout: transposed and packed into the scratchpad at every execution.
    Plain(Strided<5>),
    /// Already in the packed transposed layout (element 0 of the tensor): read in place.
    Packed(*const f32),
}

/// Packs matrix `(l, d)` of plain gate weights `w` (`[L][D][K][G][O]`, `k` input channels, `g`
/// gates of `o` channels) into `dst` as its `G·O × K` transpose (row `g·O + o`), on the
/// library's threads when large.
///
/// # Safety
/// Every element of that matrix is readable through `w`; `dst` has
/// `g·o·`[`padded_width`]`(k)` writable floats not overlapping it.
pub unsafe fn pack_gate_weights(
    w: &Strided<5>,
    (l, d): (usize, usize),
    (k, g, o): (usize, usize, usize),
    dst: *mut f32,
) -> Transposed {
    let (base, st) = (SyncPtr(w.at([l, d, 0, 0, 0])), w.strides);
    let row = move |j: usize| {
        let (g, o) = ((j / o) as isize, (j % o) as isize);
        base.get()
            .wrapping_offset(g * st[3] + o * st[4])
            .cast_const()
    };
    unsafe { Transposed::pack(dst, g * o, k, row, st[2]) }
}

/// A packed transposed matrix, or a range of its rows.
#[derive(Clone, Copy, Debug)]
pub struct Transposed {
    /// Panel 0, row 0.
    ptr: *const f32,
    /// Rows of the matrix.
    rows: usize,
    /// The first row this view starts at (even with pairs).
    row0: usize,
    /// Columns (a multiple of [`CHUNK`]).
    pub width: usize,
    /// Rows stored as bf16 pairs (`Packing::Bf16Pairs`: a stored row holds rows `2p` and
    /// `2p + 1`, one word per column) rather than f32.
    pairs: bool,
}

// SAFETY: an address of read-only packed weights.
unsafe impl Send for Transposed {}
unsafe impl Sync for Transposed {}

impl Transposed {
    /// Floats of the packed form of `rows` rows of `k` columns; `invalid_arguments` naming
    /// `what` when they do not fit.
    pub fn floats(what: &str, rows: usize, k: usize) -> Result<usize> {
        size::product(what, &[rows, size::round_up(what, k, CHUNK)?])
    }

    /// Floats (4-byte words) of the bf16-pair form of `rows` rows of `k` columns.
    pub fn pair_floats(what: &str, rows: usize, k: usize) -> Result<usize> {
        Self::floats(what, rows.div_ceil(2), k)
    }

    /// The packed form of `rows` rows of `k` columns already at `ptr`.
    pub fn in_place(ptr: *const f32, rows: usize, k: usize) -> Self {
        Self {
            ptr,
            rows,
            row0: 0,
            width: padded_width(k),
            pairs: false,
        }
    }

    /// This f32 matrix (a whole one) as bf16 pairs in `dst` ([`Self::pack_pairs`]'s layout),
    /// panel by panel, on the library's threads when large.
    ///
    /// # Safety
    /// The matrix is readable; `dst` has [`Self::pair_floats`]`(rows, width)` writable floats
    /// not overlapping it.
    pub unsafe fn pack_as_pairs(&self, dst: *mut f32) -> Self {
        debug_assert!(!self.pairs && self.row0 == 0);
        let packed = Self {
            ptr: dst,
            pairs: true,
            ..*self
        };
        let (rows, pair_rows) = (self.rows, self.rows.div_ceil(2));
        let parallel = self.width * pair_rows >= PACK_PARALLEL_MIN;
        let parts = if parallel {
            threading::num_threads()
        } else {
            1
        };
        let (src, dst) = (SyncPtr(self.ptr.cast_mut()), SyncPtr(dst.cast::<u32>()));
        // SAFETY: each part writes its own pair rows of every panel.
        threading::crew_for_each(parts, parallel, self.width * pair_rows, |i| {
            let qs = i * pair_rows / parts..(i + 1) * pair_rows / parts;
            for p in 0..self.panels() {
                let w = self.columns(p).len();
                let (from, to) = (self.offset(p), packed.offset(p));
                for q in qs.clone() {
                    unsafe {
                        let out = std::slice::from_raw_parts_mut(dst.get().add(to + q * w), w);
                        let lo = slice(src.get().add(from + 2 * q * w), w);
                        if 2 * q + 1 < rows {
                            let hi = slice(src.get().add(from + (2 * q + 1) * w), w);
                            for ((o, &x), &y) in out.iter_mut().zip(lo).zip(hi) {
                                *o = bf16_bits(x) | bf16_bits(y) << 16;
                            }
                        } else {
                            for (o, &x) in out.iter_mut().zip(lo) {
                                *o = bf16_bits(x);
                            }
                        }
                    }
                }
            }
        });
        packed
    }

    /// Packs `rows` rows of `k` columns — element `(j, c)` is `value(j, c)` — into `dst` as
    /// bf16 pairs rounded to nearest even (rows `2p`, `2p + 1` in the low and high half of a
    /// word; the last one paired with zero when `rows` is odd; the columns `k..` up to the next
    /// multiple of [`CHUNK`] zero), on the library's threads when large: the bf16 GEMM's `B`.
    ///
    /// # Safety
    /// `dst` has [`Self::pair_floats`]`(rows, k)` writable floats not overlapping what
    /// `value` reads.
    pub unsafe fn pack_pairs(
        dst: *mut f32,
        rows: usize,
        k: usize,
        value: impl Fn(usize, usize) -> f32 + Sync + Send,
    ) -> Self {
        let packed = Self {
            pairs: true,
            ..Self::in_place(dst, rows, k)
        };
        let pair_rows = rows.div_ceil(2);
        let parallel = packed.width * pair_rows >= PACK_PARALLEL_MIN;
        let parts = if parallel {
            threading::num_threads()
        } else {
            1
        };
        let dst = SyncPtr(dst.cast::<u32>());
        // SAFETY: each part writes its own pair rows of every panel.
        threading::crew_for_each(parts, parallel, packed.width * pair_rows, |i| {
            for q in i * pair_rows / parts..(i + 1) * pair_rows / parts {
                for p in 0..packed.width.div_ceil(PANEL) {
                    let cols = packed.columns(p);
                    let at = dst.get().wrapping_add(packed.offset(p) + q * cols.len());
                    let out = unsafe { std::slice::from_raw_parts_mut(at, cols.len()) };
                    for (c, o) in cols.zip(out.iter_mut()) {
                        *o = if c < k {
                            let hi = if 2 * q + 1 < rows {
                                bf16_bits(value(2 * q + 1, c))
                            } else {
                                0
                            };
                            bf16_bits(value(2 * q, c)) | hi << 16
                        } else {
                            0
                        };
                    }
                }
            }
        });
        packed
    }

    /// Packs `rows` rows of `k` columns — element `(j, c)` at `row(j) + c·cs` — into `dst`
    /// (the columns `k..` up to the next multiple of [`CHUNK`] zeroed), on the library's
    /// threads when large.
    ///
    /// # Safety
    /// Every element addressed is readable; `dst` has [`Self::floats`]`(rows, k)` writable
    /// floats not overlapping the source.
    pub unsafe fn pack(
        dst: *mut f32,
        rows: usize,
        k: usize,
        row: impl Fn(usize) -> *const f32 + Sync + Send,
        cs: isize,
    ) -> Self {
        let packed = Self::in_place(dst, rows, k);
        let parallel = packed.width * rows >= PACK_PARALLEL_MIN;
        let parts = if parallel {
            threading::num_threads()
        } else {
            1
        };
        let dst = SyncPtr(dst);
        // SAFETY: each part writes its own rows of every panel; the source is only read.
        threading::crew_for_each(parts, parallel, packed.width * rows, |i| {
            for j in i * rows / parts..(i + 1) * rows / parts {
                let src = row(j);
                for p in 0..packed.width.div_ceil(PANEL) {
                    let cols = packed.columns(p);
                    let at = dst.get().wrapping_add(packed.offset(p) + j * cols.len());
                    let out = unsafe { slice_mut(at, cols.len()) };
                    let n = k.saturating_sub(cols.start).min(cols.len());
                    if cs == 1 {
                        out[..n].copy_from_slice(unsafe { slice(src.add(cols.start), n) });
                    } else {
                        for (c, v) in out[..n].iter_mut().enumerate() {
                            *v = unsafe { *src.offset((cols.start + c) as isize * cs) };
                        }
                    }
                    out[n..].fill(0.0);
                }
            }
        });
        packed
    }

    /// The rows `rows` (relative to this view) as a view of their own.
    pub fn rows(&self, rows: Range<usize>) -> Self {
        debug_assert!(self.row0 + rows.end <= self.rows);
        debug_assert!(!self.pairs || rows.start.is_multiple_of(2));
        Self {
            row0: self.row0 + rows.start,
            ..*self
        }
    }

    /// Panels.
    pub fn panels(&self) -> usize {
        self.width.div_ceil(PANEL)
    }

    /// The columns of panel `p`.
    pub fn columns(&self, p: usize) -> Range<usize> {
        panel_columns(self.width, p)
    }

    /// Panel `p` from this view's first row, as the GEMM kernel's right operand.
    pub fn panel(&self, p: usize) -> Panel {
        let w = self.columns(p).len();
        let (row0, packing) = if self.pairs {
            (self.row0 / 2, Packing::Bf16Pairs)
        } else {
            (self.row0, Packing::F32)
        };
        let ptr = self.ptr.wrapping_add(self.offset(p) + row0 * w);
        Panel {
            packing,
            ..Panel::dense(ptr, w, w)
        }
    }

    /// Whether the rows are bf16 pairs.
    pub fn pairs(&self) -> bool {
        self.pairs
    }

    /// Calls `f(columns, panel)` over the columns `cols` (inside the width, on [`CHUNK`]
    /// boundaries) in as few kernel operands as the layout allows: each run of whole
    /// [`PANEL`]-wide panels as one multi-block [`Panel`], each part of a panel (and a narrower
    /// last panel) on its own. (The bf16 GEMM converts `A` once per call.)
    pub fn for_each_span(&self, cols: Range<usize>, mut f: impl FnMut(Range<usize>, Panel)) {
        let mut c = cols.start;
        while c < cols.end {
            let p = c / PANEL;
            let pc = self.columns(p);
            if c == pc.start && pc.len() == PANEL && pc.end <= cols.end {
                let mut end = pc.end;
                while end + PANEL <= cols.end && self.columns(end / PANEL).len() == PANEL {
                    end += PANEL;
                }
                let span = Panel {
                    width: end - c,
                    block: PANEL,
                    stride: self.offset(p + 1) - self.offset(p),
                    ..self.panel(p)
                };
                f(c..end, span);
                c = end;
            } else {
                let end = pc.end.min(cols.end);
                f(c..end, self.panel(p).columns(c - pc.start..end - pc.start));
                c = end;
            }
        }
    }

    /// Offset of panel `p`'s row 0.
    fn offset(&self, p: usize) -> usize {
        let stored = if self.pairs {
            self.rows.div_ceil(2)
        } else {
            self.rows
        };
        layout::panel_offset(stored, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_puts_every_element_in_its_panel_and_zero_pads() {
        // 3 rows of 100 columns (width 128: panels 64 + 64), column stride 2.
        let (rows, k, cs) = (3, 100, 2);
        let src: Vec<f32> = (0..rows * k * cs).map(|i| i as f32).collect();
        let mut dst = vec![f32::NAN; Transposed::floats("test", rows, k).unwrap()];
        let t = unsafe {
            Transposed::pack(dst.as_mut_ptr(), rows, k, |j| src[j * k * cs..].as_ptr(), 2)
        };
        assert_eq!((t.width, t.panels()), (128, 2));
        let view = t.rows(1..3);
        for p in 0..t.panels() {
            let (panel, cols) = (view.panel(p), t.columns(p));
            assert_eq!(panel.width, cols.len());
            for r in 0..2 {
                for (i, c) in cols.clone().enumerate() {
                    let got = unsafe { *panel.ptr.add(r * panel.ld + i) };
                    let want = if c < k {
                        src[(r + 1) * k * cs + c * cs]
                    } else {
                        0.0
                    };
                    assert_eq!(got, want, "panel {p} row {r} column {c}");
                }
            }
        }
    }

    #[test]
    fn a_width_not_a_multiple_of_the_panel_ends_with_a_chunk_wide_panel() {
        let (rows, k) = (2, 70);
        let src = vec![1f32; rows * k];
        let mut dst = vec![f32::NAN; Transposed::floats("test", rows, k).unwrap()];
        let t =
            unsafe { Transposed::pack(dst.as_mut_ptr(), rows, k, |j| src[j * k..].as_ptr(), 1) };
        assert_eq!((t.width, t.panels(), t.columns(1)), (96, 2, 64..96));
        assert_eq!(t.panel(1).ptr, unsafe { dst.as_ptr().add(64 * rows) });
        assert!(dst.iter().all(|v| !v.is_nan()));
        assert_eq!(dst.iter().sum::<f32>(), (rows * k) as f32);
    }

    #[test]
    fn bf16_pairs_hold_two_rows_per_word_from_either_source_and_span_whole_panels() {
        // 5 rows (the last paired with zero) of 100 columns (width 128: two 64-wide panels);
        // values with more than 8 significant bits, so that the packing rounds.
        let (rows, k) = (5, 100);
        let value = |j: usize, c: usize| 1.0 + (j * k + c) as f32 / 1024.0;
        let round = |x: f32| half::bf16::from_f32(x).to_bits() as u32;
        let words = Transposed::pair_floats("test", rows, k).unwrap();
        assert_eq!(words, 3 * 128);
        let mut direct = vec![f32::NAN; words];
        let p = unsafe { Transposed::pack_pairs(direct.as_mut_ptr(), rows, k, value) };
        let src: Vec<f32> = (0..rows * k).map(|i| value(i / k, i % k)).collect();
        let mut f32s = vec![f32::NAN; Transposed::floats("test", rows, k).unwrap()];
        let mut via = vec![f32::NAN; words];
        let q = unsafe {
            let t = Transposed::pack(f32s.as_mut_ptr(), rows, k, |j| src[j * k..].as_ptr(), 1);
            t.pack_as_pairs(via.as_mut_ptr())
        };
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&direct), bits(&via));
        assert!(p.pairs() && q.pairs());
        // Pair rows 1 and 2 (rows 2..5) of each panel.
        let view = p.rows(2..5);
        for pnl in 0..p.panels() {
            let (panel, cols) = (view.panel(pnl), p.columns(pnl));
            assert_eq!((panel.packing, panel.ld), (Packing::Bf16Pairs, 64));
            for qr in 0..2 {
                for (i, c) in cols.clone().enumerate() {
                    let w = unsafe { *panel.ptr.add(qr * panel.ld + i).cast::<u32>() };
                    let (lo, hi) = (2 + 2 * qr, 3 + 2 * qr);
                    let want = match (c < k, hi < rows) {
                        (false, _) => 0,
                        (true, true) => round(value(lo, c)) | round(value(hi, c)) << 16,
                        (true, false) => round(value(lo, c)),
                    };
                    assert_eq!(w, want, "panel {pnl} pair row {qr} column {c}");
                }
            }
        }
        // Whole panels as one operand of two blocks; a part of a panel on its own.
        let mut spans = Vec::new();
        p.for_each_span(0..128, |c, panel| spans.push((c, panel.width, panel.block)));
        assert_eq!(spans, [(0..128, 128, 64)]);
        spans.clear();
        p.for_each_span(32..128, |c, panel| {
            spans.push((c, panel.width, panel.block))
        });
        assert_eq!(spans, [(32..64, 32, 32), (64..128, 64, 64)]);
    }
}
