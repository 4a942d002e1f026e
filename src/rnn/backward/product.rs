//! The backward pass's products on transposed weights, `out (+)= src·B` — the recurrent
//! `dA·Uᵀ`, the input gradient `dA·Wᵀ`, LSTMP's `dh·W_projᵀ` — on the forward pass's GEMM
//! kernel, and how the members of a team share them: by chunks of [`CHUNK`] columns of `B`.

use super::transposed::{Transposed, PANEL};
use crate::kernels::gemm::{gemm, Fetch, Init, RowsA, CHUNK};
use crate::kernels::Isa;
use crate::threading::share_of;
use std::ops::Range;

/// Rows of `src` per call of the GEMM kernel: each block's rows stay in cache for all the
/// column panels.
const ROW_BLOCK: usize = 128;
/// [`ROW_BLOCK`] for bf16 pairs: the bf16 GEMM converts the rows once per call and multiplies
/// them in tile groups of 64, so larger blocks read `B` fewer times.
const ROW_BLOCK_PAIRS: usize = 512;
/// Floating-point work from which products are split over several threads.
const PARALLEL_MIN_FLOPS: usize = 1 << 20;

/// `out[m × B.width] (+)= src[m × k]·B` (`+=` when `accumulate`): `src` rows `lda` floats
/// apart, `out` rows `ldc` floats apart, `B` packed transposed weights (`k` rows).
#[derive(Clone, Copy, Debug)]
pub struct Product {
    /// `src[0][0]`.
    pub src: *const f32,
    /// Row stride of `src`.
    pub lda: usize,
    /// Rows of `src` and `out`.
    pub m: usize,
    /// Columns of `src`, rows of `B`.
    pub k: usize,
    /// The right operand.
    pub b: Transposed,
    /// `out[0][0]`.
    pub out: *mut f32,
    /// Row stride of `out`.
    pub ldc: usize,
    /// `+=` rather than `=`.
    pub accumulate: bool,
}

// SAFETY: addresses only; the members of a team (or the parts of a fork/join) running a
// product write disjoint columns of `out` and only read the operands.
unsafe impl Sync for Product {}
unsafe impl Send for Product {}

impl Product {
    /// Chunks of [`CHUNK`] columns.
    fn chunks(&self) -> usize {
        self.b.width / CHUNK
    }

    /// Computes the columns of chunks `chunks`, in blocks of rows, panel by panel (each
    /// fetching the first rows of the next while it ends).
    ///
    /// # Safety
    /// `src` has `m` rows of `k` readable floats, `B` `k` rows of `B.width`, `out` `m` rows of
    /// `B.width` writable floats not overlapping the operands; `isa` supported by the CPU.
    unsafe fn run(&self, isa: Isa, chunks: Range<usize>) {
        if chunks.is_empty() {
            return;
        }
        let a = RowsA {
            base: self.src,
            outer_stride: 0,
            inner_stride: self.lda as isize,
            inner: self.m,
        };
        let (c0, c1) = (chunks.start * CHUNK, chunks.end * CHUNK);
        let init = if self.accumulate {
            Init::Accumulate
        } else {
            Init::Zero
        };
        let first = c0 / PANEL;
        let row_block = if self.b.pairs() {
            ROW_BLOCK_PAIRS
        } else {
            ROW_BLOCK
        };
        for r0 in (0..self.m).step_by(row_block) {
            let rows = r0..(r0 + row_block).min(self.m);
            if self.b.pairs() {
                // bf16: few calls (each converts its rows of `A`), over runs of panels.
                self.b.for_each_span(c0..c1, |cols, panel| {
                    let c = self.out.wrapping_add(r0 * self.ldc + cols.start);
                    let (k, ldc) = (self.k, self.ldc);
                    let fetch = Fetch::default();
                    unsafe { gemm(isa, &a, rows.clone(), k, &panel, c, ldc, init, fetch) };
                });
                continue;
            }
            for p in first..self.b.panels() {
                let cols = self.b.columns(p);
                let (start, end) = (cols.start.max(c0), cols.end.min(c1));
                if start >= end {
                    break;
                }
                let panel = self.b.panel(p);
                let part = panel.columns(start - cols.start..end - cols.start);
                let next = (end < c1).then(|| (self.b.panel(p + 1), self.k));
                let c = self.out.wrapping_add(r0 * self.ldc + start);
                unsafe {
                    gemm(
                        isa,
                        &a,
                        rows.clone(),
                        self.k,
                        &part,
                        c,
                        self.ldc,
                        init,
                        Fetch {
                            next,
                            streamed: false,
                        },
                    )
                };
            }
        }
    }
}

/// Parts `product` is split into on `threads`: one when its work is small, else at most one
/// per chunk.
pub fn parts(product: &Product, threads: usize) -> usize {
    if 2 * product.m * product.k * product.b.width >= PARALLEL_MIN_FLOPS {
        threads.min(product.chunks()).max(1)
    } else {
        1
    }
}

/// Part `part.0` of `part.1` of `product`: its share of the chunks, `n / parts` or one more.
///
/// # Safety
/// As [`Product::run`]; the parts write disjoint columns.
pub unsafe fn run_part(isa: Isa, product: &Product, (i, parts): (usize, usize)) {
    unsafe { product.run(isa, share_of(i, parts, product.chunks())) };
}
