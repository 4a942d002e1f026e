//! Blocked AVX-512 GEMM for weight gradients: `C_p[m_p × n] += A_pᵀ · B` for a few products
//! `p` sharing one right operand `B[k × n]`, where `A_p[k × m_p]` and `B` are stored with rows
//! along `k` (`dW = xᵀ·dA` over the `T·N` rows of a layer: `x` and `dA` as the passes left
//! them, no transposed copy) and `C_p` is row-major.
//!
//! Goto-style blocking for one call (one thread's slice of the columns of `B`, or of the rows of
//! every `C`: the caller splits): per block of [`KC`] rows of `k`, `B` is packed once into
//! [`NR`]-column micro-panels (`[KC][NR]`, contiguous) and used by every product; per block of up
//! to [`MC`] columns of `A_p`, `A_p` is packed into [`MR`]-row micro-panels (`[KC][MR]`). The
//! micro-kernel keeps an `MR × NR` tile of `C` in 24 zmm registers for the `KC` rows: per row of
//! `k`, 2 vector loads of `B`, `MR` broadcasts of `A`, 24 multiply-adds. An `A` micro-panel
//! (`KC·MR` floats, 12 KiB) stays in L1 while every `B` micro-panel of the block (in L2) passes
//! over it; tiles at the edges store through masks.
//! (The other way round, a 32 KiB `B` micro-panel in L1 under the streamed `A`, was slower on a
//! Xeon with a 48 KiB L1: paired runs W10 0.965 / 0.980, LBR-GRU T50 N32 C512 training 0.972,
//! DeepSpeech2 vanilla training 0.971, GNMT encoder T10 training 0.92; N16 and C256 shapes
//! within noise.)
//! Summation order along `k` is fixed (blocks in order), so results do not depend on threading.

use std::arch::x86_64::*;

/// Rows of a micro-tile (broadcasts of `A` per row of `k`).
pub const MR: usize = 12;
/// zmm vectors per row of a micro-tile.
const NV: usize = 2;
/// Columns of a micro-tile.
pub const NR: usize = 16 * NV;
/// Rows of `k` per block.
pub const KC: usize = 256;
/// Largest number of `A` columns (rows of `C`) packed at once: 21 micro-panels.
pub const MC: usize = 21 * MR;
/// Largest number of `B` columns packed at once.
pub const NC: usize = 1024;
const _: () = assert!(MC.is_multiple_of(MR) && NC.is_multiple_of(NR));

/// Rows of `k` before the end of a micro-kernel at which it prefetches its tile of `C`.
const C_PREFETCH: usize = 32;

/// One product `C[m × n] += Aᵀ·B`: `A` has `k` rows of `m` floats at stride `lda`, `C` `m` rows
/// of `n` floats at stride `ldc`.
#[derive(Clone, Copy, Debug)]
pub struct TnProduct {
    /// `A[0][0]`.
    pub a: *const f32,
    /// Row stride of `A`.
    pub lda: usize,
    /// Columns of `A` (rows of `C`).
    pub m: usize,
    /// `C[0][0]`.
    pub c: *mut f32,
    /// Row stride of `C`.
    pub ldc: usize,
}

/// Floats of packed `A` and `B` blocks for products with `k` rows, at most `m` columns of `A`
/// and `n` columns of `B`: the packing buffer [`gemm_tn`] needs, `A` block first.
pub fn pack_floats(k: usize, m: usize, n: usize) -> (usize, usize) {
    let kc = KC.min(k);
    (
        kc * MC.min(m.next_multiple_of(MR)),
        kc * NC.min(n.next_multiple_of(NR)),
    )
}

/// `C_p[·][cols] += A_pᵀ · B[·][cols]` for every product, the columns `cols` of `B` (`k` rows
/// at stride `ldb`) and of each `C_p`.
///
/// # Safety
/// The CPU supports AVX-512F and FMA. `b` has `k` rows with the columns `cols` readable; each
/// product's `A` has `k` rows of `m` readable floats and its `C` `m` rows with the columns
/// `cols` writable, not overlapping any operand; `pack` has the sum of [`pack_floats`]`(k, m,
/// cols.len())` writable floats (`m` the largest product's), not overlapping anything else.
/// `sums`, when given, has the columns `cols` writable: they receive `+= Σ_k B[k][j]` (the
/// column sums come free while `B` is packed).
pub unsafe fn gemm_tn(
    k: usize,
    b: *const f32,
    ldb: usize,
    cols: std::ops::Range<usize>,
    products: &[TnProduct],
    pack: *mut f32,
    sums: Option<*mut f32>,
) {
    let m = products.iter().map(|p| p.m).max().unwrap_or(0);
    let (apack, bpack) = (pack, pack.wrapping_add(pack_floats(k, m, cols.len()).0));
    let mut jc = cols.start;
    while jc < cols.end {
        let nc = NC.min(cols.end - jc);
        let mut pc = 0;
        while pc < k {
            let kc = KC.min(k - pc);
            let sums = sums.map(|s| s.wrapping_add(jc));
            unsafe { pack_b(kc, b.add(pc * ldb + jc), ldb, nc, bpack, sums) };
            for p in products {
                let tiles = p.m.div_ceil(MR);
                let blocks = tiles.div_ceil(MC / MR);
                for blk in 0..blocks {
                    let (t0, t1) = (blk * tiles / blocks, (blk + 1) * tiles / blocks);
                    let i0 = t0 * MR;
                    let mc = (t1 * MR).min(p.m) - i0;
                    unsafe {
                        pack_a(kc, p.a.add(pc * p.lda + i0), p.lda, mc, apack);
                        block(kc, apack, mc, bpack, nc, p.c.add(i0 * p.ldc + jc), p.ldc);
                    }
                }
            }
            pc += kc;
        }
        jc += nc;
    }
}

/// Packs `kc` rows of `mc` floats of `a` (stride `lda`) into `MR`-column micro-panels
/// `[kc][MR]` (zeros past `mc`).
///
/// # Safety
/// Addresses as described; `dst` holds `ceil(mc / MR)·MR·kc` floats; AVX-512F available.
#[target_feature(enable = "avx512f")]
unsafe fn pack_a(kc: usize, a: *const f32, lda: usize, mc: usize, dst: *mut f32) {
    for kk in 0..kc {
        let row = unsafe { std::slice::from_raw_parts(a.add(kk * lda), mc) };
        let (full, tail) = row.as_chunks::<MR>();
        for (t, chunk) in full.iter().enumerate() {
            // Fixed-size copies: a few vector moves, not a call to memcpy.
            unsafe { *dst.add((t * kc + kk) * MR).cast::<[f32; MR]>() = *chunk };
        }
        if !tail.is_empty() {
            let mut last = [0f32; MR];
            last[..tail.len()].copy_from_slice(tail);
            unsafe { *dst.add((full.len() * kc + kk) * MR).cast::<[f32; MR]>() = last };
        }
    }
}

/// Packs `kc` rows of `nc` floats of `b` (stride `ldb`) into `NR`-column micro-panels
/// `[kc][NR]` (zeros past `nc`); adds each column's sum into `sums[j]` when given. Row by row
/// (each row of `b` read once, in order), whole micro-panel rows as fixed-size moves rather
/// than `memcpy` calls: packing was 8 % of the weight gradients' time with a call per row of
/// each micro-panel.
///
/// # Safety
/// Addresses as described; `nc` ≤ [`NC`]; `dst` holds `ceil(nc / NR)·NR·kc` floats; `sums`
/// `nc`; AVX-512F available.
#[target_feature(enable = "avx512f")]
unsafe fn pack_b(
    kc: usize,
    b: *const f32,
    ldb: usize,
    nc: usize,
    dst: *mut f32,
    sums: Option<*mut f32>,
) {
    let (full, tail) = (nc / NR, nc % NR);
    // Column sums of this block, in row order (then added to `sums` once).
    let mut acc = [0f32; NC];
    for kk in 0..kc {
        let row = unsafe { std::slice::from_raw_parts(b.add(kk * ldb), nc) };
        let (chunks, rest) = row.as_chunks::<NR>();
        for (t, chunk) in chunks.iter().enumerate() {
            unsafe { *dst.add((t * kc + kk) * NR).cast::<[f32; NR]>() = *chunk };
        }
        if tail > 0 {
            let mut last = [0f32; NR];
            last[..tail].copy_from_slice(rest);
            unsafe { *dst.add((full * kc + kk) * NR).cast::<[f32; NR]>() = last };
        }
        if sums.is_some() {
            for (a, v) in acc[..nc].iter_mut().zip(row) {
                *a += v;
            }
        }
    }
    if let Some(s) = sums {
        let s = unsafe { std::slice::from_raw_parts_mut(s, nc) };
        for (s, a) in s.iter_mut().zip(acc) {
            *s += a;
        }
    }
}

/// `C[mc × nc] += Apackᵀ·Bpack` for one packed block: every `A` micro-panel against every `B`
/// micro-panel.
///
/// # Safety
/// Packed blocks as [`pack_a`] / [`pack_b`] wrote them; `c` has `mc` rows of `nc` writable
/// floats at stride `ldc`; AVX-512F and FMA available.
#[target_feature(enable = "avx512f,fma")]
unsafe fn block(
    kc: usize,
    apack: *const f32,
    mc: usize,
    bpack: *const f32,
    nc: usize,
    c: *mut f32,
    ldc: usize,
) {
    for it in 0..mc.div_ceil(MR) {
        let (i0, h) = (it * MR, MR.min(mc - it * MR));
        for jt in 0..nc.div_ceil(NR) {
            let (j0, w) = (jt * NR, NR.min(nc - jt * NR));
            let bp = unsafe { bpack.add(jt * kc * NR) };
            unsafe {
                micro(
                    kc,
                    apack.add(it * kc * MR),
                    bp,
                    c.add(i0 * ldc + j0),
                    ldc,
                    h,
                    w,
                )
            };
        }
    }
}

/// Lane mask of the first `w` of 16 lanes (`w` ≤ 16).
#[inline(always)]
fn mask(w: usize) -> __mmask16 {
    ((1u32 << w) - 1) as __mmask16
}

/// Asks the cache level `HINT` for the lines of the `h × w` tile of C at `c` (stride `ldc`).
#[inline(always)]
fn prefetch_tile<const HINT: i32>(c: *const f32, ldc: usize, h: usize, w: usize) {
    for i in 0..h {
        let row = c.wrapping_add(i * ldc);
        // A prefetch does not access memory architecturally (safe whatever the address).
        for v in 0..NV {
            unsafe { _mm_prefetch::<HINT>(row.wrapping_add(16 * v).cast()) };
        }
        unsafe { _mm_prefetch::<HINT>(row.wrapping_add(w - 1).cast()) };
    }
}

/// The micro-kernel: `C[h × w] += A[kc × MR]ᵀ·B[kc × NR]` (packed micro-panels; rows past `h`
/// and columns past `w` computed from the zero padding and not stored).
///
/// # Safety
/// `a` has `kc·MR` floats, `b` `kc·NR`; `c` has `h ≤ MR` rows of `w ≤ NR` writable floats at
/// stride `ldc`; AVX-512F and FMA available.
#[inline]
#[target_feature(enable = "avx512f,fma")]
unsafe fn micro(
    kc: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    ldc: usize,
    h: usize,
    w: usize,
) {
    let mut acc = [[_mm512_setzero_ps(); NV]; MR];
    let (mut ap, mut bp) = (a, b);
    // The tile of C is read after the loop: ask L2 for it now (when C is larger than the
    // caches, the loop's 3000-odd cycles cover a miss to memory; 3 % faster weight gradients
    // for K = 6400, M = 1760), then L1 a few rows of `k` before the end, so the last misses
    // overlap the last multiply-adds (earlier, the streamed B would evict it from L1).
    prefetch_tile::<_MM_HINT_T1>(c, ldc, h, w);
    let prefetch_at = kc.saturating_sub(C_PREFETCH);
    for kk in 0..kc {
        if kk == prefetch_at {
            prefetch_tile::<_MM_HINT_T0>(c, ldc, h, w);
        }
        unsafe {
            let bv: [__m512; NV] = std::array::from_fn(|v| _mm512_loadu_ps(bp.add(16 * v)));
            for (i, row) in acc.iter_mut().enumerate() {
                let av = _mm512_set1_ps(*ap.add(i));
                for (r, b) in row.iter_mut().zip(bv) {
                    *r = _mm512_fmadd_ps(av, b, *r);
                }
            }
            ap = ap.add(MR);
            bp = bp.add(NR);
        }
    }
    // Full tiles store plainly (masked loads and stores are much slower on this path).
    if h == MR && w == NR {
        for (i, row) in acc.iter().enumerate() {
            for (v, r) in row.iter().enumerate() {
                unsafe {
                    let cp = c.add(i * ldc + 16 * v);
                    _mm512_storeu_ps(cp, _mm512_add_ps(_mm512_loadu_ps(cp), *r));
                }
            }
        }
        return;
    }
    for (i, row) in acc.iter().enumerate().take(h) {
        for (v, r) in row.iter().enumerate() {
            let m = mask(w.saturating_sub(16 * v).min(16));
            unsafe {
                let cp = c.add(i * ldc + 16 * v);
                _mm512_mask_storeu_ps(cp, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, cp), *r));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Isa;

    #[test]
    fn matches_a_naive_loop_on_odd_and_blocked_sizes() {
        if !Isa::all_supported().contains(&Isa::Avx512) {
            return;
        }
        // (k, n, m of each product, columns): edges in every dimension, several blocks.
        for (k, n, ms, cols) in [
            (1usize, 1usize, &[1usize][..], 0..1usize),
            (5, 20, &[13, 7], 0..20),
            (300, 70, &[25, 12], 3..61),
            (600, 1100, &[260, 30], 16..1090),
            (37, 64, &[MC + 5], 0..64),
        ] {
            let (lda0, ldb, ldc_pad) = (ms.iter().max().unwrap() + 3, n + 5, 7);
            let b: Vec<f32> = (0..k * ldb)
                .map(|i| ((i * 7919) % 97) as f32 / 97.0 - 0.5)
                .collect();
            let a: Vec<Vec<f32>> = ms
                .iter()
                .map(|&m| {
                    (0..k * lda0 + m)
                        .map(|i| ((i * 104_729 + m) % 89) as f32 / 89.0 - 0.5)
                        .collect()
                })
                .collect();
            let ldc = n + ldc_pad;
            let mut c: Vec<Vec<f32>> = ms
                .iter()
                .map(|&m| (0..m * ldc).map(|i| (i % 5) as f32).collect())
                .collect();
            let c0 = c.clone();
            let products: Vec<TnProduct> = ms
                .iter()
                .zip(&a)
                .zip(&mut c)
                .map(|((&m, a), c)| TnProduct {
                    a: a.as_ptr(),
                    lda: lda0,
                    m,
                    c: c.as_mut_ptr(),
                    ldc,
                })
                .collect();
            let (pa, pb) = pack_floats(k, *ms.iter().max().unwrap(), cols.len());
            let mut pack = vec![f32::NAN; pa + pb];
            let pack = pack.as_mut_ptr();
            let mut sums = vec![1f32; n];
            let sp = Some(sums.as_mut_ptr());
            unsafe { gemm_tn(k, b.as_ptr(), ldb, cols.clone(), &products, pack, sp) };
            for (j, &got) in sums.iter().enumerate() {
                let e = if cols.contains(&j) {
                    1.0 + (0..k).map(|q| b[q * ldb + j] as f64).sum::<f64>()
                } else {
                    1.0
                };
                assert!(
                    (got as f64 - e).abs() <= 1e-5 * k as f64,
                    "sum {j}: {got} vs {e}"
                );
            }
            for (p, &m) in ms.iter().enumerate() {
                for i in 0..m {
                    for j in 0..ldc {
                        let got = c[p][i * ldc + j] as f64;
                        let base = c0[p][i * ldc + j] as f64;
                        if !cols.contains(&j) {
                            assert_eq!(got, base, "k{k} n{n} m{m} ({i},{j}) outside");
                            continue;
                        }
                        let e = base
                            + (0..k)
                                .map(|q| a[p][q * lda0 + i] as f64 * b[q * ldb + j] as f64)
                                .sum::<f64>();
                        assert!(
                            (got - e).abs() <= 1e-5 * (1.0 + e.abs()) * (k as f64).sqrt(),
                            "k{k} n{n} m{m} ({i},{j}): {got} vs {e}"
                        );
                    }
                }
            }
        }
    }
}
