//! In-register transposes with AVX-512 for the BLAS-like calls: 16 × 16 blocks of 4-byte words
//! (f32, or the four int8 of a VNNI group), for the copies of transposed operands (`sgemm`'s
//! `op(A)`, `op(B)`; `gemm_s32`'s `op(B)`), which then move 16 words per load and store instead
//! of one; and 4 rows × 64 int8 into 64 VNNI words (`vnni_words`), for packing or reading a not
//! transposed int8 `B`.

/// Words per side of a block.
pub const WORDS: usize = 16;

/// Whether [`block16`] runs on this CPU (AVX-512 foundation), capped by `OXIDNN_ISA`.
pub fn available() -> bool {
    super::Isa::detected() >= super::Isa::Avx512
}

/// `dst[j·ldd + i] = scale·src[i·lds + j]` for `i, j < 16` (words, as f32 when `SCALE`; else
/// the bits are moved unchanged).
///
/// # Safety
/// `src` has 16 rows of 16 readable words at stride `lds`, `dst` 16 rows of 16 writable words
/// at stride `ldd` (unaligned is fine), not overlapping `src`; the CPU runs AVX-512F
/// ([`available`]).
#[target_feature(enable = "avx512f")]
pub unsafe fn block16<const SCALE: bool>(
    src: *const f32,
    lds: usize,
    dst: *mut f32,
    ldd: usize,
    scale: f32,
) {
    use std::arch::x86_64::*;
    unsafe {
        let r: [__m512; WORDS] = std::array::from_fn(|i| _mm512_loadu_ps(src.add(i * lds)));
        // pairs of rows interleaved: t[2p] holds words 0,1 | 4,5 | … of rows 2p, 2p + 1
        let mut t = [_mm512_setzero_ps(); WORDS];
        for p in 0..WORDS / 2 {
            t[2 * p] = _mm512_unpacklo_ps(r[2 * p], r[2 * p + 1]);
            t[2 * p + 1] = _mm512_unpackhi_ps(r[2 * p], r[2 * p + 1]);
        }
        // quads of rows: u[4q + w] holds word w of each 128-bit lane, rows 4q..4q + 4
        let mut u = [_mm512_setzero_ps(); WORDS];
        for q in 0..WORDS / 4 {
            let (a, b, c, d) = (t[4 * q], t[4 * q + 1], t[4 * q + 2], t[4 * q + 3]);
            u[4 * q] = _mm512_shuffle_ps::<0x44>(a, c);
            u[4 * q + 1] = _mm512_shuffle_ps::<0xEE>(a, c);
            u[4 * q + 2] = _mm512_shuffle_ps::<0x44>(b, d);
            u[4 * q + 3] = _mm512_shuffle_ps::<0xEE>(b, d);
        }
        // lanes: v[w] and v[w + 4] of quads 0, 1 (and 2, 3) take lanes 0, 2 / 1, 3
        let mut v = [_mm512_setzero_ps(); WORDS];
        for w in 0..4 {
            for h in 0..2 {
                let (a, b) = (u[8 * h + w], u[8 * h + 4 + w]);
                v[8 * h + w] = _mm512_shuffle_f32x4::<0x88>(a, b);
                v[8 * h + 4 + w] = _mm512_shuffle_f32x4::<0xDD>(a, b);
            }
        }
        // row j of the result: lane L of it is rows 4L..4L + 4, word j
        for w in 0..4 {
            for h in 0..2 {
                let (a, b) = (v[w + 4 * h], v[8 + w + 4 * h]);
                let lo = _mm512_shuffle_f32x4::<0x88>(a, b);
                let hi = _mm512_shuffle_f32x4::<0xDD>(a, b);
                for (lane_pair, x) in [(0, lo), (2, hi)] {
                    let j = w + 4 * (h + lane_pair);
                    let x = if SCALE {
                        _mm512_mul_ps(x, _mm512_set1_ps(scale))
                    } else {
                        x
                    };
                    _mm512_storeu_ps(dst.add(j * ldd), x);
                }
            }
        }
    }
}

/// Four rows of 64 int8 (`rows[q]` = row `q`) as 64 words of 4 bytes, one per column (byte `q`
/// of word `j` = column `j` of row `q`), in four vectors of 16 columns: column `16v + c` is
/// word `c` of vector `v` (`vpdpbusd`'s layout of `B`).
///
/// # Safety
/// The CPU runs AVX-512BW.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn vnni_words(rows: [std::arch::x86_64::__m512i; 4]) -> [std::arch::x86_64::__m512i; 4] {
    use std::arch::x86_64::*;
    // within each 128-bit lane L: x[w] holds columns 16L + 4w .. 16L + 4w + 4
    let lo01 = _mm512_unpacklo_epi8(rows[0], rows[1]);
    let hi01 = _mm512_unpackhi_epi8(rows[0], rows[1]);
    let lo23 = _mm512_unpacklo_epi8(rows[2], rows[3]);
    let hi23 = _mm512_unpackhi_epi8(rows[2], rows[3]);
    let x = [
        _mm512_unpacklo_epi16(lo01, lo23),
        _mm512_unpackhi_epi16(lo01, lo23),
        _mm512_unpacklo_epi16(hi01, hi23),
        _mm512_unpackhi_epi16(hi01, hi23),
    ];
    // vector L = lane L of x[0..4]: a 4 × 4 transpose of lanes
    let t0 = _mm512_shuffle_i32x4::<0x44>(x[0], x[1]);
    let t1 = _mm512_shuffle_i32x4::<0x44>(x[2], x[3]);
    let t2 = _mm512_shuffle_i32x4::<0xEE>(x[0], x[1]);
    let t3 = _mm512_shuffle_i32x4::<0xEE>(x[2], x[3]);
    [
        _mm512_shuffle_i32x4::<0x88>(t0, t1),
        _mm512_shuffle_i32x4::<0xDD>(t0, t1),
        _mm512_shuffle_i32x4::<0x88>(t2, t3),
        _mm512_shuffle_i32x4::<0xDD>(t2, t3),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block16_transposes_and_scales() {
        if !available() {
            return;
        }
        let (lds, ldd) = (19, 21);
        let src: Vec<f32> = (0..16 * lds).map(|x| x as f32).collect();
        for (scaled, s) in [(false, 1.0), (true, -0.5)] {
            let mut dst = vec![f32::NAN; 16 * ldd];
            // SAFETY: 16 rows of at least 16 words each, AVX-512F checked.
            unsafe {
                if scaled {
                    block16::<true>(src.as_ptr(), lds, dst.as_mut_ptr(), ldd, s)
                } else {
                    block16::<false>(src.as_ptr(), lds, dst.as_mut_ptr(), ldd, s)
                }
            }
            for j in 0..16 {
                for i in 0..16 {
                    assert_eq!(dst[j * ldd + i], s * src[i * lds + j], "({i},{j})");
                }
                assert!(dst[j * ldd + 16..(j + 1) * ldd].iter().all(|x| x.is_nan()));
            }
        }
    }
}
