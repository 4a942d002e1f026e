//! The integer GEMM of one or two rows of `A` (`gemm_s32` at `M ≤ FEW_ROWS`, a not transposed
//! `B`): `B` read in place, in strips of up to [`COLUMNS`] columns, each group of 4 of its
//! rows turned into `vpdpbusd` words in registers (`transpose::vnni_words`) as it streams by.
//! Packing `B` first would write and re-read all of it for products that use each element once
//! or twice.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Most rows of `A` this kernel takes.
pub const FEW_ROWS: usize = 2;
/// Most columns per call (two strips).
pub const COLUMNS: usize = 256;
/// Columns of a strip: two 64-column blocks in lockstep, so that each row of `B` is read as
/// one run of 128 bytes rather than 64 (rows far apart stream slowly in short runs; four
/// blocks were slower on a `B` in L2).
const STRIP: usize = 128;
/// Rows of `B` ahead of the group being read that are asked of the caches (rows far apart: the
/// hardware prefetcher does not follow).
const AHEAD: usize = 16;

/// Whether [`columns`] runs on this CPU (AVX512-BW and -VNNI; `OXIDNN_ISA` caps it).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use super::cpu_isa::{has, AVX512_CORE, AVX512_VNNI};
        super::Isa::detected() >= super::Isa::Avx512 && has(AVX512_CORE | AVX512_VNNI)
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// `c[r·ldc + j] = Σ_{q < k} a[r][q]·b[q·ldb + j]` for rows `r` of `a` (at most
/// [`FEW_ROWS`] + 1) and columns `j < cols` (at most [`COLUMNS`]), in wrapping s32.
///
/// # Safety
/// Each `a[r]` has `4·ceil(k / 4)` readable bytes, zero past `k`; `b` has `k` rows of `cols`
/// readable bytes at stride `ldb`; `c` has `a.len()` rows of `cols` writable values at stride
/// `ldc`; [`available`].
#[cfg(target_arch = "x86_64")]
pub unsafe fn columns(
    a: &[*const u8],
    k: usize,
    b: *const i8,
    ldb: usize,
    cols: usize,
    c: *mut i32,
    ldc: usize,
) {
    debug_assert!(cols <= COLUMNS && a.len() <= FEW_ROWS + 1);
    for j in (0..cols).step_by(STRIP) {
        let width = (cols - j).min(STRIP);
        // SAFETY: the caller's contract, for the strip's columns j..j + width.
        unsafe {
            let args = (k, b.add(j), ldb, width, c.add(j), ldc);
            match (a, width > 64) {
                (&[a0], true) => rows::<1, 2>([a0], args),
                (&[a0], false) => rows::<1, 1>([a0], args),
                (&[a0, a1], true) => rows::<2, 2>([a0, a1], args),
                (&[a0, a1], false) => rows::<2, 1>([a0, a1], args),
                (&[a0, a1, a2], true) => rows::<3, 2>([a0, a1, a2], args),
                (&[a0, a1, a2], false) => rows::<3, 1>([a0, a1, a2], args),
                _ => {}
            }
        }
    }
}

/// [`columns`] for `R` rows of `A` on a strip of `C` blocks of 64 columns (at most `64·C`
/// columns), in lockstep: each row of `B` is read as one run of the strip's width.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn rows<const R: usize, const C: usize>(
    a: [*const u8; R],
    (k, b, ldb, cols, c, ldc): (usize, *const i8, usize, usize, *mut i32, usize),
) {
    use super::transpose::vnni_words;
    unsafe {
        let masks: [__mmask64; C] = std::array::from_fn(|ch| {
            let left = cols.saturating_sub(64 * ch).min(64);
            if left == 64 {
                !0
            } else {
                (1u64 << left) - 1
            }
        });
        let mut acc = [[[_mm512_setzero_si512(); 4]; C]; R];
        let groups = k.div_ceil(4);
        for g in 0..groups {
            let q0 = 4 * g;
            for q in q0 + AHEAD..q0 + AHEAD + 4 {
                for ch in 0..C {
                    _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add(q * ldb + 64 * ch).cast());
                }
            }
            for (ch, &mask) in masks.iter().enumerate() {
                // the group's four rows (zeros past K) as `vpdpbusd` words
                let mut r = [_mm512_setzero_si512(); 4];
                for (q, x) in r.iter_mut().enumerate().take(k - q0) {
                    *x = _mm512_maskz_loadu_epi8(mask, b.add((q0 + q) * ldb + 64 * ch).cast());
                }
                let v = vnni_words(r);
                for (row, sums) in a.iter().zip(acc.iter_mut()) {
                    let w = _mm512_set1_epi32(row.add(q0).cast::<i32>().read_unaligned());
                    for (s, &x) in sums[ch].iter_mut().zip(&v) {
                        *s = _mm512_dpbusd_epi32(*s, w, x);
                    }
                }
            }
        }
        for (r, sums) in acc.iter().enumerate() {
            for (ch, sums) in sums.iter().enumerate() {
                for (v, &s) in sums.iter().enumerate() {
                    let left = cols.saturating_sub(64 * ch + 16 * v).min(16);
                    if left > 0 {
                        let m = ((1u32 << left) - 1) as __mmask16;
                        _mm512_mask_storeu_epi32(c.add(r * ldc + 64 * ch + 16 * v).cast(), m, s);
                    }
                }
            }
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn columns_match_the_exact_products() {
        if !available() {
            return;
        }
        let cases: [(usize, usize, usize); 9] = [
            (1, 1, 1),
            (7, 64, 70),
            (64, 33, 40),
            (130, 64, 64),
            (5, 17, 17),
            (9, 200, 230),
            (66, 256, 256),
            (3, 129, 140),
            (40, 250, 300),
        ];
        for &(k, cols, ldb) in &cases {
            for nrows in 1..=FEW_ROWS + 1 {
                let kp = k.div_ceil(4) * 4;
                let a: Vec<Vec<u8>> = (0..nrows)
                    .map(|r| {
                        let mut row: Vec<u8> =
                            (0..k).map(|q| (q * 37 + r * 101 + 11) as u8).collect();
                        row.resize(kp, 0);
                        row
                    })
                    .collect();
                let b: Vec<i8> = (0..k * ldb).map(|i| (i * 53 + 7) as u8 as i8).collect();
                let ldc = cols + 3;
                let mut c = vec![i32::MIN; nrows * ldc];
                let ptrs: Vec<*const u8> = a.iter().map(|r| r.as_ptr()).collect();
                // SAFETY: rows of kp bytes, zero past k; k rows of cols bytes at ldb; nrows
                // rows of ldc values.
                unsafe { columns(&ptrs, k, b.as_ptr(), ldb, cols, c.as_mut_ptr(), ldc) };
                for r in 0..nrows {
                    for j in 0..ldc {
                        let want = if j < cols {
                            (0..k)
                                .map(|q| i32::from(a[r][q]) * i32::from(b[q * ldb + j]))
                                .sum()
                        } else {
                            i32::MIN
                        };
                        assert_eq!(c[r * ldc + j], want, "k {k} cols {cols} row {r} col {j}");
                    }
                }
            }
        }
    }
}
