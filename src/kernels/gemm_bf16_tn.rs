//! Weight gradients in bf16: `C_p[m_p × n] += A_pᵀ·B` for products `p` sharing `B[k × n]`
//! (`dW = xᵀ·dA`, `dU = h_prevᵀ·dA` over the `T·N` rows of a layer), the operands rounded to
//! bf16 (nearest even) and the sums in f32 — the twin of the f32 `kernels::gemm_tn`, as
//! oneDNN's bf16 backward multiplies.
//!
//! The operands are converted into the tile layouts of `kernels::amx_gemm`, `K` padded with
//! zeros to a multiple of [`K_ALIGN`]: `B` into bf16 pair rows (`K/2` rows, the pair of `K` rows
//! `2q`, `2q + 1` of a column in one word: the B tile layout, [`convert_b`]) stored in column
//! blocks of `BLOCK_VECTORS` 16-column vectors, each block's rows contiguous; each `A_p` into
//! its transpose (`m_p` rows of `K` bf16: A tiles, [`transpose_a`]). [`multiply`] then runs
//! `amx_gemm::gemm_bf16` block by block — or, without AMX-BF16, `kernels::dot_gemm_bf16` on
//! the same operands.

use super::amx_gemm::{gemm_bf16, Bf16Gemm, VECTOR};
use super::gemm_bf16::{bf16_bits as bf16, Bf16Kernel};
use std::ops::Range;

/// `K` is padded to a multiple of this: whole 16-word tile steps, and rows of `A_pᵀ` on cache
/// lines.
pub const K_ALIGN: usize = 32;
/// 16-column vectors per block of converted `B` and tile GEMM call: a block (`K/2` rows of
/// 512 bytes, contiguous) stays in L2 while every 64-row group of `A_pᵀ` passes over it. (Rows
/// as wide as all of `B` — 8 KiB for 2048 columns — put a vector's pair rows in a few cache sets:
/// it did not stay.)
const BLOCK_VECTORS: usize = 8;

/// `k` padded to [`K_ALIGN`].
pub fn padded_k(k: usize) -> usize {
    k.next_multiple_of(K_ALIGN)
}

/// Columns of a block of converted `B`: `BLOCK_VECTORS` vectors.
const BLOCK_COLS: usize = BLOCK_VECTORS * VECTOR;

/// Blocks of converted `B` for `n` columns.
pub fn blocks(n: usize) -> usize {
    n.div_ceil(BLOCK_COLS)
}

/// Block `j` of converted `B` (`n` columns, `pairs` pair rows): its columns and the word offset
/// of its first row (its rows are as many words as it has columns).
fn block(j: usize, n: usize, pairs: usize) -> (Range<usize>, usize) {
    let cols = j * BLOCK_COLS..n.min((j + 1) * BLOCK_COLS);
    (cols, j * BLOCK_COLS * pairs)
}

/// The body of [`convert_b`].
///
/// # Safety
/// `B`'s rows hold `n` floats; `dst` has `padded_k(k)/2 · n` writable words (`n` a multiple
/// of 16), not overlapping `B`; `sums` (when given) has `n` floats.
#[inline(always)]
unsafe fn convert_b_body<const FMA: bool>(
    b: *const f32,
    ldb: usize,
    k: usize,
    n: usize,
    blocks: Range<usize>,
    dst: *mut u32,
    sums: Option<*mut f32>,
) {
    let pairs = padded_k(k) / 2;
    for j in blocks {
        let (cols, offset) = block(j, n, pairs);
        let w = cols.len();
        let mut acc = [0f32; BLOCK_COLS];
        let acc = &mut acc[..if sums.is_some() { w } else { 0 }];
        for q in 0..pairs {
            // SAFETY: the caller's contract.
            unsafe {
                let out = std::slice::from_raw_parts_mut(dst.add(offset + q * w), w);
                let row = |r: usize| std::slice::from_raw_parts(b.add(r * ldb + cols.start), w);
                match (2 * q < k, 2 * q + 1 < k) {
                    (true, true) => {
                        let (lo, hi) = (row(2 * q), row(2 * q + 1));
                        for ((o, &x), &y) in out.iter_mut().zip(lo).zip(hi) {
                            *o = bf16(x) | bf16(y) << 16;
                        }
                        for ((s, &x), &y) in acc.iter_mut().zip(lo).zip(hi) {
                            *s += x + y;
                        }
                    }
                    (true, false) => {
                        let lo = row(2 * q);
                        for (o, &x) in out.iter_mut().zip(lo) {
                            *o = bf16(x);
                        }
                        for (s, &x) in acc.iter_mut().zip(lo) {
                            *s += x;
                        }
                    }
                    _ => out.fill(0),
                }
            }
        }
        if let Some(s) = sums {
            for (j, &v) in cols.zip(acc.iter()) {
                // SAFETY: the caller's contract.
                unsafe { *s.add(j) += v };
            }
        }
    }
}

super::isa::isa_dispatch!(
    /// Converts the column blocks `blocks` of `B` (`k` rows of `n` f32, `ldb` apart) into pair
    /// rows at `dst` (`padded_k(k)/2` rows per block, block after block; the pairs past `k`
    /// zero), adding each column's sum of the f32 values into `sums[j]` when given.
    pub unsafe fn convert_b => convert_b_body,
    (
        b: *const f32,
        ldb: usize,
        k: usize,
        n: usize,
        blocks: Range<usize>,
        dst: *mut u32,
        sums: Option<*mut f32>,
    )
);

/// The body of [`transpose_a`].
///
/// # Safety
/// `A`'s rows below `k` hold `m` floats; `dst` has `m` rows of `ks.end` writable bf16 not
/// overlapping `A`.
#[inline(always)]
unsafe fn transpose_a_body<const FMA: bool>(
    a: *const f32,
    lda: usize,
    k: usize,
    m: usize,
    ks: Range<usize>,
    dst: *mut u16,
    ldd: usize,
) {
    const BLOCK: usize = 16;
    for q0 in ks.clone().step_by(BLOCK) {
        let q1 = (q0 + BLOCK).min(ks.end);
        for i0 in (0..m).step_by(BLOCK) {
            let i1 = (i0 + BLOCK).min(m);
            for q in q0..q1 {
                for i in i0..i1 {
                    // SAFETY: the caller's contract.
                    unsafe {
                        let v = if q < k {
                            bf16(*a.add(q * lda + i)) as u16
                        } else {
                            0
                        };
                        *dst.add(i * ldd + q) = v;
                    }
                }
            }
        }
    }
}

super::isa::isa_dispatch!(
    /// [`transpose_a`] in plain loops, compiled for `isa`.
    unsafe fn transpose_a_loops => transpose_a_body,
    (a: *const f32, lda: usize, k: usize, m: usize, ks: Range<usize>, dst: *mut u16, ldd: usize)
);

/// Writes columns `ks` of `A_pᵀ` — rows `ks` of `A` (`[k × m]` f32, `lda` apart; zeros past
/// `k`) transposed and rounded to bf16 — into `dst` (`m` rows of bf16, `ldd` apart): with
/// AVX-512, 16 rows of `A` at a time by gathers (each column's 16 values, one line per row,
/// the 16 rows' lines in L1 for all columns), the rest in plain loops.
///
/// # Safety
/// `A`'s rows below `k` hold `m` floats; `dst` has `m` rows of `ks.end` writable bf16 not
/// overlapping `A`; `isa` is supported by the CPU.
#[allow(clippy::too_many_arguments)]
pub unsafe fn transpose_a(
    isa: super::Isa,
    a: *const f32,
    lda: usize,
    k: usize,
    m: usize,
    ks: Range<usize>,
    dst: *mut u16,
    ldd: usize,
) {
    let mut ks = ks;
    // (Gather indices are i32 element offsets: 15 rows apart must fit.)
    if isa >= super::Isa::Avx512 && lda <= i32::MAX as usize / 16 {
        let whole = ks.start..ks.start + (ks.len() / 16) * 16;
        // SAFETY: the caller's contract; AVX-512 available.
        unsafe { transpose_a_gather(a, lda, k, m, whole.clone(), dst, ldd) };
        ks = whole.end..ks.end;
    }
    // SAFETY: the caller's contract.
    unsafe { transpose_a_loops(isa, a, lda, k, m, ks, dst, ldd) }
}

/// [`transpose_a`] for `ks` a multiple of 16 long, by gathers.
///
/// # Safety
/// As [`transpose_a`]; AVX-512 available; `16·lda` fits an `i32`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn transpose_a_gather(
    a: *const f32,
    lda: usize,
    k: usize,
    m: usize,
    ks: Range<usize>,
    dst: *mut u16,
    ldd: usize,
) {
    use super::vector::Vector;
    use std::arch::x86_64::*;
    let offsets: [i32; 16] = std::array::from_fn(|r| (r * lda) as i32);
    let index = unsafe { _mm512_loadu_si512(offsets.as_ptr().cast()) };
    for q0 in ks.step_by(16) {
        // Rows past `k` read as zeros.
        let valid: __mmask16 = match k.saturating_sub(q0) {
            0 => 0,
            n if n >= 16 => 0xffff,
            n => (1u16 << n) - 1,
        };
        for i in 0..m {
            // SAFETY: rows q0..q0 + 16 below `k` hold column `i` (masked otherwise).
            unsafe {
                let base = a.wrapping_add(q0 * lda + i);
                let v =
                    _mm512_mask_i32gather_ps::<4>(_mm512_setzero_ps(), valid, index, base.cast());
                let rounded = _mm512_castps_si512(<__m512 as Vector>::round_bf16(v));
                let packed = _mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(rounded));
                _mm256_storeu_si256(dst.add(i * ldd + q0).cast(), packed);
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn transpose_a_gather(
    _: *const f32,
    _: usize,
    _: usize,
    _: usize,
    _: Range<usize>,
    _: *mut u16,
    _: usize,
) {
}

/// `C[m × n] += Aᵀ·B` for the columns of blocks `blocks`, from the converted operands: `at`
/// (`m` rows of `2·pairs` bf16, `lda` apart) and `bp` ([`convert_b`]'s, `pairs` pair rows);
/// `C` rows `ldc` floats apart.
///
/// On AMX-BF16 tiles when `kernel` is [`Bf16Kernel::Amx`], else on `vdpbf16ps`.
///
/// # Safety
/// `kernel` [`multiplies_in_bf16`](Bf16Kernel::multiplies_in_bf16) on this CPU; the operands
/// hold what is described; `C` overlaps neither.
#[allow(clippy::too_many_arguments)]
pub unsafe fn multiply(
    kernel: Bf16Kernel,
    at: *const u16,
    lda: usize,
    m: usize,
    bp: *const u32,
    n: usize,
    pairs: usize,
    blocks: Range<usize>,
    c: *mut f32,
    ldc: usize,
) {
    for j in blocks {
        let (cols, offset) = block(j, n, pairs);
        let op = Bf16Gemm {
            m,
            a: at,
            lda,
            b: bp.wrapping_add(offset),
            ldb: cols.len(),
            pairs,
            vectors: cols.len() / VECTOR,
            c: c.wrapping_add(cols.start),
            ldc,
            accumulate: true,
        };
        // SAFETY: the caller's contract.
        unsafe {
            match kernel {
                Bf16Kernel::Amx => gemm_bf16(&op),
                _ => super::dot_gemm_bf16::gemm(&op),
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Isa;

    #[test]
    fn converted_products_match_an_f64_reference_of_the_rounded_operands() {
        let kernel = Bf16Kernel::for_isa(Isa::detected());
        if !kernel.multiplies_in_bf16() {
            return;
        }
        // k odd and not a multiple of K_ALIGN; m not a multiple of 16; n: a whole block and a
        // narrower one.
        let (k, m, n) = (77usize, 21usize, BLOCK_COLS + 48);
        let (lda, ldb, ldc) = (m + 3, n + 5, n + 2);
        let val = |i: usize| ((i * 37 % 101) as f32 - 50.0) / 37.0;
        let a: Vec<f32> = (0..k * lda).map(val).collect();
        let b: Vec<f32> = (0..k * ldb).map(|i| val(i + 7)).collect();
        let kp = padded_k(k);
        let mut at = vec![0xffffu16; m * kp];
        let mut bp = vec![0xffff_ffffu32; kp / 2 * n];
        let mut sums = vec![1f32; n];
        let init: Vec<f32> = (0..m * ldc).map(|i| val(i + 3)).collect();
        let mut c = init.clone();
        unsafe {
            // In parts, as threads would: gathers (rows past k masked), gathers and loops,
            // loops alone.
            let (ap, atp) = (a.as_ptr(), at.as_mut_ptr());
            for (isa, ks) in [
                (Isa::Avx512, 0..32),
                (Isa::Avx512, 32..kp - 2),
                (Isa::Portable, kp - 2..kp),
            ] {
                transpose_a(isa, ap, lda, k, m, ks, atp, kp);
            }
            let s = Some(sums.as_mut_ptr());
            convert_b(Isa::Avx512, b.as_ptr(), ldb, k, n, 0..1, bp.as_mut_ptr(), s);
            convert_b(
                Isa::Avx512,
                b.as_ptr(),
                ldb,
                k,
                n,
                1..blocks(n),
                bp.as_mut_ptr(),
                s,
            );
            let (at, bp) = (at.as_ptr(), bp.as_ptr());
            multiply(kernel, at, kp, m, bp, n, kp / 2, 0..1, c.as_mut_ptr(), ldc);
            let rest = 1..blocks(n);
            multiply(kernel, at, kp, m, bp, n, kp / 2, rest, c.as_mut_ptr(), ldc);
        }
        let round = |x: f32| half::bf16::from_f32(x).to_f32() as f64;
        for i in 0..m {
            for j in 0..ldc {
                let got = c[i * ldc + j];
                if j >= n {
                    assert_eq!(got, init[i * ldc + j]);
                    continue;
                }
                let (mut want, mut mag) = (init[i * ldc + j] as f64, 0f64);
                for q in 0..k {
                    let x = round(a[q * lda + i]) * round(b[q * ldb + j]);
                    want += x;
                    mag += x.abs();
                }
                let tol = (mag + want.abs()) * 2f64.powi(-20);
                assert!(
                    (got as f64 - want).abs() <= tol,
                    "({i}, {j}): {got} vs {want}"
                );
            }
        }
        for (j, &s) in sums.iter().enumerate() {
            let want: f32 = 1.0 + (0..k).map(|q| b[q * ldb + j]).sum::<f32>();
            assert!((s - want).abs() <= 1e-4, "sum {j}: {s} vs {want}");
        }
    }
}
