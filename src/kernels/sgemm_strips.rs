//! `dnnl_sgemm` of one or two rows of `A` by a not transposed `B` that stays in L2, with
//! AVX-512: `B` read in strips of up to 256 columns (one row of `A`: 16 vectors; two: 12), each
//! strip's sums held in registers over all of `K` — rather than `sgemm`'s row-by-row sums,
//! which go through L1 every four rows of `B`. Each element's sum is formed in order along
//! `K` from zero, one fused multiply-add per row of `B` (as the row-by-row sums' AVX-512
//! version, which fuses all but the last `K mod 4` rows).
//!
//! Only for a `B` in L2: a strip reads each row of `B` in a short run far from the next, which
//! streams from memory more slowly than whole rows.

use std::arch::x86_64::*;

/// Most rows of `A`.
pub const MAX_ROWS: usize = 2;
/// Most accumulators of a strip (`rows × vectors`).
const SUMS: usize = 24;
/// Most vectors of a strip.
const MAX_VECTORS: usize = 16;

/// `sums[r][j] = Σ_q a(r, q)·b[q·ldb + j]` for rows `r < R` (at most [`MAX_ROWS`]), columns
/// `j < w`, `q < k`, in order along `q` (`sums[r]` has `w` floats), in strips of `V` vectors
/// (`R·V` at most 24 accumulators: one row 16, two rows 12).
///
/// # Safety
/// `b` has `k` rows of `w` readable floats at stride `ldb`; the CPU runs AVX-512F and FMA.
#[target_feature(enable = "avx512f,fma")]
pub unsafe fn strips<const R: usize, const V: usize>(
    a: impl Fn(usize, usize) -> f32,
    k: usize,
    b: *const f32,
    ldb: usize,
    w: usize,
    sums: [&mut [f32]; R],
) {
    const { assert!(R <= MAX_ROWS && R * V <= SUMS && V <= MAX_VECTORS) };
    debug_assert!(sums.iter().all(|s| s.len() >= w));
    for j in (0..w).step_by(16 * V) {
        let cols = (w - j).min(16 * V);
        let masks: [__mmask16; V] = std::array::from_fn(|v| {
            let left = cols.saturating_sub(16 * v).min(16);
            ((1u32 << left) - 1) as __mmask16
        });
        let mut acc = [[_mm512_setzero_ps(); V]; R];
        for q in 0..k {
            // SAFETY: row q of B, columns j.. of the strip (masked to w).
            let row = unsafe { b.add(q * ldb + j) };
            let y: [__m512; V] = std::array::from_fn(|v| unsafe {
                _mm512_maskz_loadu_ps(masks[v], row.add(16 * v))
            });
            for (r, acc) in acc.iter_mut().enumerate() {
                let x = _mm512_set1_ps(a(r, q));
                for (s, &y) in acc.iter_mut().zip(&y) {
                    *s = _mm512_fmadd_ps(x, y, *s);
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            let out = sums[r][j..].as_mut_ptr();
            for (v, &s) in acc.iter().enumerate() {
                // SAFETY: columns j + 16·v.. of the row's `w` sums (masked).
                unsafe { _mm512_mask_storeu_ps(out.add(16 * v), masks[v], s) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every column's sum is the in-order chain of fused multiply-adds, bit for bit, for one
    /// and two rows, partial vectors and strips.
    #[test]
    fn strips_sum_in_order_along_k() {
        if crate::kernels::Isa::detected() < crate::kernels::Isa::Avx512 {
            return;
        }
        for k in [0, 1, 5, 64] {
            for w in [1, 15, 16, 17, 200, 256, 300, 1000] {
                let ldb = w + 3;
                let b: Vec<f32> = (0..k * ldb)
                    .map(|i| ((i * 7919) % 97) as f32 / 97.0 - 0.5)
                    .collect();
                let a = |r: usize, q: usize| ((r * 31 + q * 17) % 13) as f32 / 13.0 - 0.4;
                let want = |r: usize| -> Vec<f32> {
                    (0..w)
                        .map(|j| (0..k).fold(0f32, |s, q| a(r, q).mul_add(b[q * ldb + j], s)))
                        .collect()
                };
                let (mut one, mut two) = (vec![9f32; w], [vec![9f32; w], vec![9f32; w]]);
                let [t0, t1] = &mut two;
                // SAFETY: k rows of w floats at ldb; AVX-512 checked above.
                unsafe {
                    strips::<1, 16>(a, k, b.as_ptr(), ldb, w, [&mut one]);
                    strips::<2, 12>(a, k, b.as_ptr(), ldb, w, [t0, t1]);
                }
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&one), bits(&want(0)), "k{k} w{w} one row");
                for (r, got) in two.iter().enumerate() {
                    assert_eq!(bits(got), bits(&want(r)), "k{k} w{w} row {r} of two");
                }
            }
        }
    }
}
