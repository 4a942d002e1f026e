//! The backward pass's products on transposed weights, `out (+)= src·B` — the recurrent
//! `dA·Uᵀ`, the input gradient `dA·Wᵀ`, LSTMP's `dh·W_projᵀ` — on the forward pass's GEMM
//! kernel, and how the members of a team share them: by chunks of [`CHUNK`] columns of `B`.
//!
//! Each member takes a share of every product's columns, and the products a step runs together
//! (its last recurrent product and its input gradient) are shared **side by side**: where a
//! product's chunks do not split evenly, the member the first product left with one chunk
//! fewer takes one more of the next. With SIC = SLC = 1760 (55 chunks each), two members got
//! 27 + 27 and 28 + 28 chunks, the second doing 3.7 % more of every step's GEMM work; side by
//! side they get 27 + 28 and 28 + 27.

use super::transposed::{Transposed, PANEL};
use crate::kernels::gemm::{gemm, Fetch, Init, RowsA, CHUNK};
use crate::kernels::Isa;
use std::ops::Range;

/// Rows of `src` per call of the GEMM kernel: each block's rows stay in cache for all the
/// column panels.
const ROW_BLOCK: usize = 128;
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
        for r0 in (0..self.m).step_by(ROW_BLOCK) {
            let rows = r0..(r0 + ROW_BLOCK).min(self.m);
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

/// Parts `products` are split into on `threads`: one when their work is small, else at most
/// one per chunk.
pub fn parts(products: &[Product], threads: usize) -> usize {
    let flops: usize = products.iter().map(|p| 2 * p.m * p.k * p.b.width).sum();
    let chunks: usize = products.iter().map(Product::chunks).sum();
    if flops >= PARALLEL_MIN_FLOPS {
        threads.min(chunks).max(1)
    } else {
        1
    }
}

/// Part `part.0` of `part.1` of `products` side by side: a share of each product's chunks
/// ([`share`]).
///
/// # Safety
/// As [`Product::run`] for every product; the parts write disjoint columns.
pub unsafe fn run_part(isa: Isa, products: &[Product], part: (usize, usize)) {
    let mut start = 0;
    for p in products {
        unsafe { p.run(isa, share(p.chunks(), start, part)) };
        start += p.chunks();
    }
}

/// The chunks part `i` of `parts` takes of a product of `n` chunks that comes `start` chunks
/// into a run of products side by side: `n / parts` or one more, the one more going to the
/// parts the products before it left with one fewer.
fn share(n: usize, start: usize, (i, parts): (usize, usize)) -> Range<usize> {
    let offset = start % parts;
    (i * n + offset) / parts..((i + 1) * n + offset) / parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shares of every part, for products of `sizes` chunks side by side.
    fn shares(sizes: &[usize], parts: usize) -> Vec<Vec<Range<usize>>> {
        (0..parts)
            .map(|i| {
                let mut start = 0;
                sizes
                    .iter()
                    .map(|&n| {
                        let r = share(n, start, (i, parts));
                        start += n;
                        r
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn odd_chunks_of_products_side_by_side_go_to_different_parts() {
        assert_eq!(shares(&[55], 2), vec![vec![0..27], vec![27..55]]);
        assert_eq!(
            shares(&[55, 55], 2),
            vec![vec![0..27, 0..28], vec![27..55, 28..55]]
        );
        assert_eq!(
            shares(&[16, 16], 2),
            vec![vec![0..8, 0..8], vec![8..16, 8..16]]
        );
    }

    #[test]
    fn every_chunk_goes_to_exactly_one_part_and_parts_differ_by_one_at_most() {
        for sizes in [&[1usize][..], &[3, 8], &[55, 55], &[5, 0, 9, 7], &[2, 2, 2]] {
            for parts in 1..6 {
                let all = shares(sizes, parts);
                for (j, &n) in sizes.iter().enumerate() {
                    let mut next = 0;
                    for part in &all {
                        assert_eq!(part[j].start, next, "{sizes:?} {parts}: {all:?}");
                        next = part[j].end;
                    }
                    assert_eq!(next, n, "{sizes:?} {parts}: {all:?}");
                }
                let totals: Vec<usize> = all
                    .iter()
                    .map(|p| p.iter().map(|r| r.len()).sum())
                    .collect();
                let (lo, hi) = (totals.iter().min().unwrap(), totals.iter().max().unwrap());
                assert!(hi - lo <= 1, "{sizes:?} {parts}: {totals:?}");
            }
        }
    }
}
