//! Weights at execution: packed panels, either the user's (format `any`, packed by a reorder)
//! or packed from the user's plain layout into the scratchpad, plus the staged bias.

use super::problem::RnnProblem;
use super::views::{Strided, SyncPtr};
use crate::kernels::gemm::{Packing, Panel};
use crate::kernels::gemm_bf16::bf16_bits;
use crate::memory::packed::{PackedLayout, BLOCK_GATES, PANEL};
use crate::memory::MemoryDesc;
use crate::threading;

/// Elements below which packing runs on one thread.
const PARALLEL_MIN_ELEMS: usize = 1 << 16;

/// Packed weights in memory.
#[derive(Clone, Copy, Debug)]
pub struct PackedWeights {
    /// Start of the packed tensor (4-byte words: f32 values or bf16 pairs, as `layout` says).
    pub ptr: *const f32,
    /// Its geometry.
    pub layout: PackedLayout,
}

impl PackedWeights {
    /// Panel `p` (hidden units `32p … 32p+31`, all gates) of layer `l`, direction `d`.
    ///
    /// # Safety
    /// `l`, `d`, `p` must be inside the layout.
    pub unsafe fn panel(&self, l: usize, d: usize, p: usize) -> Panel {
        let lay = &self.layout;
        let ptr = unsafe { self.ptr.add(lay.offset(l, d, 0, 0, p * PANEL)) };
        let block = lay.block_width();
        Panel {
            ptr,
            ld: block,
            width: lay.g * PANEL,
            block,
            stride: lay.rows() * block,
            packing: if lay.pairs {
                Packing::Bf16Pairs
            } else {
                Packing::F32
            },
        }
    }

    /// Packed panels `p..p + count` (fewer at the end) side by side as one panel whose block
    /// `j` is panel `p + j`, for layouts of one-block panels (one gate).
    ///
    /// # Safety
    /// As [`Self::panel`].
    pub unsafe fn panel_run(&self, l: usize, d: usize, p: usize, count: usize) -> Panel {
        let one = unsafe { self.panel(l, d, p) };
        let count = count.min(self.layout.panels() - p);
        if count == 1 {
            return one;
        }
        debug_assert_eq!(one.block, one.width, "panel runs need one-block panels");
        Panel {
            width: one.width * count,
            stride: self.layout.panel_len(),
            ..one
        }
    }
}

/// The `ldigo` view of plain weights: 5-D weights as they are, 4-D projection weights (`ldio`
/// and any other strides) with a gate dim of 1 inserted.
pub fn ldigo_view(buf: *mut u8, md: &MemoryDesc) -> Strided<5> {
    if md.ndims() == 5 {
        return Strided::new(buf, md);
    }
    let v = Strided::<4>::new(buf, md);
    let [sl, sd, si, so] = v.strides;
    Strided {
        ptr: v.ptr,
        strides: [sl, sd, si, 0, so],
    }
}

/// Fewest and most rows of the GEMMs for which [`block_gates`] picks one-gate blocks.
const ONE_GATE_BLOCK_ROWS: std::ops::RangeInclusive<usize> = 5..=13;

/// Gates per block of the packed weights a primitive of `p` uses when it chooses them
/// (`format_tag::any`, and plain weights it packs itself): 1 when every GEMM of a pass has
/// 5–13 rows (the layer GEMM over `T·N`, the steps over `N`: a decoder step of a few beams),
/// else [`BLOCK_GATES`]. With 32-wide blocks, one 13 × 2 tile reads each line of the weights
/// once, at the pace the last-level cache delivers it, where two 64-wide tiles of half the rows
/// make the first wait on the cache and the second compute alone (a decoder step of a few
/// beams over megabytes of weights). Fewer rows take tiles spanning whole rows of two-gate
/// blocks.
pub fn block_gates(p: &RnnProblem) -> usize {
    let rows = p.t.saturating_mul(p.n);
    if ONE_GATE_BLOCK_ROWS.contains(&p.n) && ONE_GATE_BLOCK_ROWS.contains(&rows) {
        1
    } else {
        BLOCK_GATES
    }
}

/// Whether the packed weights a primitive of `p` chooses hold bf16 pairs (read by the bf16
/// GEMM, `kernels::gemm_bf16`): with bf16 math.
pub fn pairs(p: &RnnProblem) -> bool {
    p.bf16_math
}

/// Packs plain `ldigo`-indexed weights (any strides) into `dst` with layout `lay` (padding
/// zeroed; for bf16 pairs, the values rounded to bf16, nearest even). Parallel over matrices ×
/// panels when large.
///
/// # Safety
/// `src` must address every element of the `lay` dims; `dst` must hold `lay.len()` words and
/// not overlap `src`.
pub unsafe fn pack(src: Strided<5>, dst: *mut f32, lay: &PackedLayout) {
    let panels = lay.panels();
    let items = lay.l * lay.d * panels;
    let dst = SyncPtr(dst);
    // On the crew, as the loops between an execution's teams (`threading::crew_for_each`):
    // the pool would send the crew to sleep just before the forward pass's team.
    threading::crew_for_each(
        items,
        lay.len() >= PARALLEL_MIN_ELEMS,
        lay.len(),
        move |it| {
            let (ld, p) = (it / panels, it % panels);
            let (l, d) = (ld / lay.d, ld % lay.d);
            let valid = PANEL.min(lay.o - p * PANEL);
            // Input row `i` (zeros past `I`), units of the panel, gate `g`.
            let row = |i: usize, g: usize, out: &mut [f32; PANEL]| {
                out.fill(0.0);
                if i < lay.i {
                    let (at, so) = (src.at([l, d, i, g, p * PANEL]), src.strides[4]);
                    // SAFETY: indices are inside the dims.
                    unsafe {
                        if so == 1 {
                            out[..valid].copy_from_slice(std::slice::from_raw_parts(at, valid));
                        } else {
                            for (u, o) in out[..valid].iter_mut().enumerate() {
                                *o = *at.offset(u as isize * so);
                            }
                        }
                    }
                }
            };
            let (mut lo, mut hi) = ([0f32; PANEL], [0f32; PANEL]);
            for r in 0..lay.rows() {
                for g in 0..lay.g {
                    // SAFETY: the row is inside the layout; each item writes its own panel.
                    let out = unsafe {
                        &mut *(dst.get().add(lay.offset(l, d, r, g, p * PANEL))
                            as *mut [f32; PANEL])
                    };
                    if lay.pairs {
                        row(2 * r, g, &mut lo);
                        row(2 * r + 1, g, &mut hi);
                        for ((o, &a), &b) in out.iter_mut().zip(&lo).zip(&hi) {
                            *o = f32::from_bits(bf16_bits(a) | bf16_bits(b) << 16);
                        }
                    } else {
                        row(r, g, out);
                    }
                }
            }
        },
    );
}

/// Writes the bias in panel order, `[L][D][P][G][32]`, zero-padded: staged gate `g` takes the
/// bias row `rows[g]` (`None`, or no `bias` at all: zeros).
///
/// # Safety
/// `bias` must address `[L][D][B][DHC]` with every named row `< B`; `dst` must hold
/// `L·D·P·G·32` floats with `G = rows.len()`.
pub unsafe fn stage_bias(
    bias: Option<Strided<4>>,
    rows: &[Option<usize>],
    dst: *mut f32,
    l: usize,
    d: usize,
    dhc: usize,
) {
    let g = rows.len();
    let panels = dhc.div_ceil(PANEL);
    let out = unsafe { std::slice::from_raw_parts_mut(dst, l * d * panels * g * PANEL) };
    let mut k = 0;
    for li in 0..l {
        for di in 0..d {
            for p in 0..panels {
                for row in rows {
                    for u in 0..PANEL {
                        let o = p * PANEL + u;
                        out[k] = match (bias, row) {
                            (Some(b), Some(gi)) if o < dhc => unsafe { *b.at([li, di, *gi, o]) },
                            _ => 0.0,
                        };
                        k += 1;
                    }
                }
            }
        }
    }
}
