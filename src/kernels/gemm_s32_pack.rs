//! The packing of `op(B)` for [`super::gemm_s32`]: 4-row groups of 16-column vectors in column
//! blocks, the layout the int8 kernels read (`[block][group][vector][column][row of 4]`).

use super::blas::GemmShape;
#[cfg(target_arch = "x86_64")]
use super::gemm::prefetch_byte_rows;
use super::int8_gemm::VECTOR;

/// 16-column vectors per column block (the unit a thread packs and reads).
pub(super) const COL_VECTORS: usize = 4;
/// Columns per block.
pub(super) const COL_BLOCK: usize = COL_VECTORS * VECTOR;
/// Bytes of one packed vector: 16 columns × 4 rows.
pub(super) const VECTOR_BYTES: usize = VECTOR * 4;

/// The packed `op(B)`: column block `cb` (vectors `cb·COL_VECTORS..`) starts at
/// `cb·COL_VECTORS·groups·64` bytes; in it, group `g`'s vectors lie `vb·64` bytes apart
/// (`vb` vectors in the block): `[block][group][vector][column][row of 4]`.
pub(super) struct PackedB {
    /// 4-row groups (`K` rounded up).
    pub groups: usize,
    /// 16-column vectors (`N` rounded up).
    pub vectors: usize,
}

impl PackedB {
    /// Column blocks.
    pub fn blocks(&self) -> usize {
        self.vectors.div_ceil(COL_VECTORS)
    }

    /// Vectors in block `cb`.
    pub fn block_vectors(&self, cb: usize) -> usize {
        COL_VECTORS.min(self.vectors - cb * COL_VECTORS)
    }

    /// Byte offset of block `cb`.
    pub fn block_offset(&self, cb: usize) -> usize {
        cb * COL_VECTORS * self.groups * VECTOR_BYTES
    }
}

/// Groups of 4 rows of a not transposed `B` packed for each column block of a member in turn,
/// for `cols` columns of blocks: the blocks share the rows, read as one run across them, and
/// as many groups as keep those rows in half of L1 (32 KiB on every x86 core we meet: the
/// rows are read 64 bytes at a time, a block after the other; past L1 the reads wait on
/// L2/L3), 1 to 16.
pub(super) fn pack_groups(cols: usize) -> usize {
    ((16 << 10) / (4 * cols).max(1)).clamp(1, 16)
}

/// Groups of a not transposed `B`'s rows the packing fetches ahead on Intel: its rows are far
/// apart (one or two lines of each per block), a pattern the Xeons' hardware prefetchers do
/// not follow (16-row s8s8s32 and u8s8s32 products 8–15 % faster, 32×4096×1024 on one thread
/// 40 %). None elsewhere: on AMD Zen 4 the hardware follows the rows, and the requests only
/// cost (paired, u8s8s32 16×2048×512 / 16×2048×1024 / 32×4096×1024, one thread: 0.93 /
/// 0.93 / 0.93–0.95 of the time with them).
#[cfg(target_arch = "x86_64")]
fn pack_ahead_groups() -> usize {
    if super::isa::intel_cpu() {
        4
    } else {
        0
    }
}

/// Packs groups `gs` of the columns of block `cb` of `op(B)` into `dst` (the block's bytes),
/// writing every byte of those groups (zeros past `K` and `N`). `wide`: the CPU runs AVX-512BW
/// (64 columns, or 16 × 16 words of a transposed `B`, moved in registers at a time).
///
/// Returns whether the groups were packed as a whole block of a not transposed `B` in one
/// pass; those passes also add the packed groups' column sums to `sums` (64 values) when
/// given — the zero-point corrections, without reading the packed block again.
#[allow(clippy::too_many_arguments)]
pub(super) fn pack_b_block(
    s: &GemmShape,
    b: &[i8],
    p: &PackedB,
    cb: usize,
    gs: std::ops::Range<usize>,
    dst: &mut [i8],
    wide: bool,
    sums: Option<&mut [i32]>,
) -> bool {
    let (k, ldb) = (s.k, s.ld[1]);
    let vb = p.block_vectors(cb);
    let j0 = cb * COL_BLOCK;
    let cols = (vb * VECTOR).min(s.n - j0);
    let ld = vb * VECTOR_BYTES;
    let full_groups = k / 4;
    if s.trans_b {
        // column j is row j of the stored B: 4 consecutive bytes per group, at 4j in the
        // packed rows
        let full = gs.start..gs.end.min(full_groups);
        assert!(4 * cols <= ld && dst.len() >= k.div_ceil(4) * ld);
        let row = |jj: usize| &b[(j0 + jj) * ldb..(j0 + jj) * ldb + k];
        // the words of columns `js` in groups `g`: 4 × 4 at a time (SSE2), the rest one by one
        let words = |dst: &mut [i8], js: std::ops::Range<usize>, g: std::ops::Range<usize>| {
            let (quads, gq) = if cfg!(target_arch = "x86_64") {
                (js.len() / 4 * 4, g.len() / 4 * 4)
            } else {
                (0, 0)
            };
            #[cfg(target_arch = "x86_64")]
            for jj in (js.start..js.start + quads).step_by(4) {
                let rows: [&[i8]; 4] = std::array::from_fn(|q| row(jj + q));
                for g0 in (g.start..g.start + gq).step_by(4) {
                    // SAFETY: 16 bytes of each row at 4·g0 (g0 + 4 <= k / 4); 16 bytes at
                    // (g0 + p)·ld + 4·jj of `dst` (4·jj + 16 <= ld, g0 + 4 <= groups:
                    // asserted).
                    unsafe {
                        transpose_words(
                            rows.map(|r| &r[4 * g0..4 * g0 + 16]),
                            dst,
                            g0 * ld + 4 * jj,
                            ld,
                        )
                    };
                }
            }
            for jj in js.clone() {
                let row = row(jj);
                let done = if jj < js.start + quads {
                    g.start + gq
                } else {
                    g.start
                };
                for g in done..g.end {
                    dst[g * ld + 4 * jj..g * ld + 4 * jj + 4]
                        .copy_from_slice(&row[4 * g..4 * g + 4]);
                }
            }
        };
        // 16 columns × 16 groups in registers where AVX-512 runs and the rows are whole words
        let mut blocked = (0, full.start);
        #[cfg(target_arch = "x86_64")]
        if wide && ldb % 4 == 0 {
            use super::transpose::{block16, WORDS};
            blocked = (
                cols / WORDS * WORDS,
                full.start + full.len() / WORDS * WORDS,
            );
            for jj in (0..blocked.0).step_by(WORDS) {
                for g0 in (full.start..blocked.1).step_by(WORDS) {
                    let from = &row(jj)[4 * g0..4 * g0 + 4 * WORDS];
                    let last = &row(jj + WORDS - 1)[4 * g0..4 * g0 + 4 * WORDS];
                    let to = &mut dst[g0 * ld + 4 * jj..(g0 + WORDS - 1) * ld + 4 * jj + 64];
                    debug_assert!(last.as_ptr() as usize - from.as_ptr() as usize == 15 * ldb);
                    // SAFETY: 16 rows of 64 bytes at stride `ldb` from `from` (the first and
                    // last are in `b`), 16 of 64 at stride `ld` in `to`; AVX-512F runs.
                    unsafe {
                        block16::<false>(
                            from.as_ptr().cast(),
                            ldb / 4,
                            to.as_mut_ptr().cast(),
                            ld / 4,
                            1.0,
                        )
                    };
                }
            }
        }
        words(dst, 0..blocked.0, blocked.1..full.end);
        words(dst, blocked.0..cols, full.clone());
        if gs.end > full_groups {
            for jj in 0..cols {
                let rest = &row(jj)[4 * full_groups..];
                let word = &mut dst[full_groups * ld + 4 * jj..full_groups * ld + 4 * jj + 4];
                word.fill(0);
                word[..rest.len()].copy_from_slice(rest);
            }
        }
        if 4 * cols < ld {
            for g in gs {
                dst[g * ld + 4 * cols..g * ld + ld].fill(0);
            }
        }
    } else {
        // A whole block's whole groups in one pass; the rest group by group below.
        #[cfg(target_arch = "x86_64")]
        let full = gs.start..gs.end.min(full_groups);
        #[cfg(target_arch = "x86_64")]
        let gs = if wide && cols == COL_BLOCK && !full.is_empty() {
            let rows = Rows::of(b, j0, ldb, &full);
            assert!(dst.len() >= full.end * ld && ld >= 4 * VECTOR_BYTES);
            let sums =
                sums.map(|s| <&mut [i32; COL_BLOCK]>::try_from(&mut s[..COL_BLOCK]).unwrap());
            // SAFETY: `Rows::of` checked the rows (and the lines around them when read as
            // lines), the assertion `dst`; AVX-512BW runs (`wide`).
            unsafe {
                interleave_groups(
                    rows,
                    full.clone(),
                    (dst.as_mut_ptr(), ld),
                    pack_ahead_groups(),
                    sums,
                )
            };
            if full.end == gs.end {
                return true;
            }
            full.end..gs.end
        } else {
            gs
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = sums;
        for g in gs {
            let rows = 4.min(k - 4 * g);
            let out = &mut dst[g * ld..g * ld + ld];
            if rows < 4 {
                out.fill(0);
            }
            if 4 * cols < ld {
                out[4 * cols..].fill(0);
            }
            let mut j = 0;
            #[cfg(target_arch = "x86_64")]
            if g < full_groups {
                let at = |q: usize, j: usize, w: usize| &b[(4 * g + q) * ldb + j0 + j..][..w];
                let ahead = pack_ahead_groups();
                if ahead > 0 && g + ahead < full_groups {
                    let at = (4 * (g + ahead)) * ldb + j0;
                    prefetch_byte_rows(b.as_ptr().wrapping_add(at).cast(), 4, ldb, cols);
                }
                while j + VECTOR <= cols {
                    let w = VECTOR;
                    // SAFETY: 16 bytes of each of the four rows, 64 bytes of `out`.
                    unsafe {
                        interleave4(
                            [at(0, j, w), at(1, j, w), at(2, j, w), at(3, j, w)],
                            &mut out[j / VECTOR * VECTOR_BYTES..][..VECTOR_BYTES],
                        )
                    };
                    j += VECTOR;
                }
            }
            for jj in j..cols {
                let at = (jj / VECTOR) * VECTOR_BYTES + (jj % VECTOR) * 4;
                for q in 0..rows {
                    out[at + q] = b[(4 * g + q) * ldb + j0 + jj];
                }
            }
        }
    }
    false
}

/// The rows of a whole column block of a not transposed `B` that [`interleave_groups`] reads:
/// 64 bytes of each, row `r` at `first + r·ld` (`first`: the block's first column) — as they
/// are, or, where each starts a multiple of 4 bytes into a cache line, as the two aligned
/// lines around it (`lines`): an unaligned 64-byte load spans two lines, and the next block
/// reads the second again; two aligned loads and a permute cost less (Zen 4, paired,
/// u8s8s32 with `B` 16 bytes past a line, as `malloc` returns: 16×2048×512, 16×2048×1024 and
/// 32×4096×1024, one and two threads, 0.90–0.93 of the time with unaligned loads).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Rows {
    first: *const i8,
    ld: usize,
    lines: bool,
}

#[cfg(target_arch = "x86_64")]
impl Rows {
    /// Rows `4·groups` (not empty) of the block from column `j0` of `b` (rows `ldb` apart).
    ///
    /// # Panics
    /// If a row's 64 bytes are not inside `b`.
    fn of(b: &[i8], j0: usize, ldb: usize, groups: &std::ops::Range<usize>) -> Self {
        let (lo, hi) = (4 * groups.start * ldb + j0, (4 * groups.end - 1) * ldb + j0);
        assert!(hi + COL_BLOCK <= b.len());
        let first = b.as_ptr().wrapping_add(j0);
        let into = first as usize % 64;
        // The aligned lines around every row are inside `b` (the first row's line starts at
        // or after `b`, the last row's second line ends at or before its end).
        let lines = into != 0
            && into.is_multiple_of(4)
            && ldb.is_multiple_of(64)
            && lo >= into
            && hi - into + 128 <= b.len();
        Self {
            first,
            ld: ldb,
            lines,
        }
    }
}

/// Packs groups `groups` of a whole column block (64 columns, from `rows`) into `out` (a
/// pointer, `ld`): group `g`'s four vectors at `out + g·ld` ([`super::transpose::vnni_words`]),
/// fetching the rows of group `g + ahead` (0: none), and adding each column's sum over the
/// groups to `sums`. One call per block rather than per group (Zen 4, paired,
/// `B` on a line: u8s8s32 16×2048×512 0.85 / 0.89 of the time on two / one threads,
/// 32×4096×1024 1.00 / 0.97).
///
/// # Safety
/// `rows` is [`Rows::of`] these groups; `out` has 256 writable bytes at each `g·ld`; the CPU runs
/// AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn interleave_groups(
    rows: Rows,
    groups: std::ops::Range<usize>,
    (out, ld): (*mut i8, usize),
    ahead: usize,
    sums: Option<&mut [i32; COL_BLOCK]>,
) {
    use std::arch::x86_64::*;
    let end = groups.end;
    // the sums of the four bytes (rows) of each column: u8 ones times the s8 values, pairs
    // into i16, then pairs of those into i32
    let (ones8, ones16) = (_mm512_set1_epi8(1), _mm512_set1_epi16(1));
    let mut acc = [_mm512_setzero_si512(); COL_VECTORS];
    // word i of a row's first line + the words the row starts into it, across both lines
    let into = rows.first as usize % 64;
    let index = _mm512_add_epi32(
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
        _mm512_set1_epi32((into / 4) as i32),
    );
    let base = rows.first.wrapping_sub(into);
    for g in groups {
        // SAFETY: the caller's contract (`Rows::of` checked each row, and the lines around it
        // when `lines`).
        unsafe {
            let v: [__m512i; 4] = std::array::from_fn(|q| {
                let row = (4 * g + q) * rows.ld;
                if rows.lines {
                    let p = base.add(row);
                    let (lo, hi) = (
                        _mm512_load_si512(p.cast()),
                        _mm512_load_si512(p.add(64).cast()),
                    );
                    _mm512_permutex2var_epi32(lo, index, hi)
                } else {
                    _mm512_loadu_si512(rows.first.add(row).cast())
                }
            });
            if ahead > 0 && g + ahead < end {
                let next = rows.first.wrapping_add(4 * (g + ahead) * rows.ld);
                prefetch_byte_rows(next.cast(), 4, rows.ld, COL_BLOCK);
            }
            let o = out.add(g * ld).cast::<__m512i>();
            for (i, x) in super::transpose::vnni_words(v).into_iter().enumerate() {
                _mm512_storeu_si512(o.add(i), x);
                if sums.is_some() {
                    let pairs = _mm512_maddubs_epi16(ones8, x);
                    acc[i] = _mm512_add_epi32(acc[i], _mm512_madd_epi16(pairs, ones16));
                }
            }
        }
    }
    if let Some(sums) = sums {
        for (i, a) in acc.iter().enumerate() {
            // SAFETY: 16 of the 64 sums.
            unsafe {
                let at = sums.as_mut_ptr().add(16 * i).cast::<__m512i>();
                _mm512_storeu_si512(at, _mm512_add_epi32(_mm512_loadu_si512(at), *a));
            }
        }
    }
}

/// Transposes 4 × 4 words: word `p` of `rows[q]` to word `q` of the 16 bytes at
/// `at + p·ld` of `out`.
///
/// # Safety
/// Each row has 16 bytes; `out` has 16 bytes at `at + p·ld` for `p < 4`.
#[cfg(target_arch = "x86_64")]
unsafe fn transpose_words(rows: [&[i8]; 4], out: &mut [i8], at: usize, ld: usize) {
    use std::arch::x86_64::*;
    debug_assert!(rows.iter().all(|r| r.len() >= 16) && out.len() >= at + 3 * ld + 16);
    // SAFETY: SSE2 is part of x86_64; the lengths are the caller's contract.
    unsafe {
        let r: [__m128i; 4] = std::array::from_fn(|q| _mm_loadu_si128(rows[q].as_ptr().cast()));
        let lo01 = _mm_unpacklo_epi32(r[0], r[1]);
        let lo23 = _mm_unpacklo_epi32(r[2], r[3]);
        let hi01 = _mm_unpackhi_epi32(r[0], r[1]);
        let hi23 = _mm_unpackhi_epi32(r[2], r[3]);
        let o = out.as_mut_ptr().add(at);
        _mm_storeu_si128(o.cast(), _mm_unpacklo_epi64(lo01, lo23));
        _mm_storeu_si128(o.add(ld).cast(), _mm_unpackhi_epi64(lo01, lo23));
        _mm_storeu_si128(o.add(2 * ld).cast(), _mm_unpacklo_epi64(hi01, hi23));
        _mm_storeu_si128(o.add(3 * ld).cast(), _mm_unpackhi_epi64(hi01, hi23));
    }
}

/// Interleaves 16 bytes of four rows into 16 columns of 4 bytes (a 4 × 16 byte transpose).
///
/// # Safety
/// Each row has 16 bytes, `out` 64 (checked by the slices' lengths in debug builds).
#[cfg(target_arch = "x86_64")]
unsafe fn interleave4(rows: [&[i8]; 4], out: &mut [i8]) {
    use std::arch::x86_64::*;
    debug_assert!(rows.iter().all(|r| r.len() >= 16) && out.len() >= 64);
    // SAFETY: SSE2 is part of x86_64; the lengths are the caller's contract.
    unsafe {
        let r: [__m128i; 4] = std::array::from_fn(|q| _mm_loadu_si128(rows[q].as_ptr().cast()));
        let lo01 = _mm_unpacklo_epi8(r[0], r[1]);
        let hi01 = _mm_unpackhi_epi8(r[0], r[1]);
        let lo23 = _mm_unpacklo_epi8(r[2], r[3]);
        let hi23 = _mm_unpackhi_epi8(r[2], r[3]);
        let o = out.as_mut_ptr().cast::<__m128i>();
        _mm_storeu_si128(o, _mm_unpacklo_epi16(lo01, lo23));
        _mm_storeu_si128(o.add(1), _mm_unpackhi_epi16(lo01, lo23));
        _mm_storeu_si128(o.add(2), _mm_unpacklo_epi16(hi01, hi23));
        _mm_storeu_si128(o.add(3), _mm_unpackhi_epi16(hi01, hi23));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte of a packed not transposed `B`, in the documented layout, for blocks read
    /// in one pass (rows as they are, or as aligned lines: `B` 0, 3, 4 and 16 bytes past a
    /// line, blocks at the very start and end of the slice) and group by group (`wide` off).
    #[test]
    fn packs_every_alignment_and_path_into_the_layout() {
        // K = 18 (a last partial group), N = 128 and 112 (a narrower last block), ldb a
        // multiple of 64 or not
        for (n, ldb) in [(128usize, 128usize), (112, 128), (128, 130)] {
            let k: usize = 18;
            let groups = k.div_ceil(4);
            let vectors = n.div_ceil(VECTOR);
            let p = PackedB { groups, vectors };
            for offset in [0, 3, 4, 16] {
                let store: Vec<Line> = vec![Line([0; 64]); (k * ldb).div_ceil(64) + 2];
                // SAFETY: `store` has (k·ldb + 64 + offset) bytes and more.
                let b = unsafe {
                    let base = store.as_ptr().cast::<i8>().cast_mut().add(offset);
                    let b = std::slice::from_raw_parts_mut(base, (k - 1) * ldb + n);
                    for (i, x) in b.iter_mut().enumerate() {
                        *x = (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3] as i8;
                    }
                    &*b
                };
                let s = GemmShape::new(
                    b'N',
                    b'N',
                    [1, n as i64, k as i64],
                    [k as i64, ldb as i64, n as i64],
                )
                .unwrap();
                let wides = if cfg!(target_arch = "x86_64") && is_x86_feature_detected!("avx512bw")
                {
                    vec![false, true]
                } else {
                    vec![false]
                };
                for wide in wides {
                    for cb in 0..p.blocks() {
                        let vb = p.block_vectors(cb);
                        let mut dst = vec![-1i8; vb * VECTOR_BYTES * groups];
                        // two calls: groups 0..2 and 2.., as the packing's passes split them;
                        // the column sums when both packed whole groups of a whole block
                        let mut sums = [7i32; COL_BLOCK];
                        let first =
                            pack_b_block(&s, b, &p, cb, 0..2, &mut dst, wide, Some(&mut sums));
                        let rest =
                            pack_b_block(&s, b, &p, cb, 2..groups, &mut dst, wide, Some(&mut sums));
                        let whole =
                            wide && vb * VECTOR == COL_BLOCK && cb * COL_BLOCK + COL_BLOCK <= n;
                        assert_eq!(first, whole, "n {n} offset {offset} wide {wide} block {cb}");
                        assert_eq!(rest, whole && k.is_multiple_of(4), "n {n} block {cb}");
                        if whole {
                            for (c, &sum) in sums.iter().enumerate() {
                                let column = (0..k / 4 * 4)
                                    .map(|r| i32::from(b[r * ldb + cb * COL_BLOCK + c]));
                                assert_eq!(
                                    sum,
                                    7 + column.sum::<i32>(),
                                    "n {n} offset {offset} block {cb} column {c}"
                                );
                            }
                        }
                        for g in 0..groups {
                            for v in 0..vb {
                                for c in 0..VECTOR {
                                    for q in 0..4 {
                                        let (row, col) =
                                            (4 * g + q, cb * COL_BLOCK + v * VECTOR + c);
                                        let want = if row < k && col < n {
                                            b[row * ldb + col]
                                        } else {
                                            0
                                        };
                                        let at =
                                            g * vb * VECTOR_BYTES + v * VECTOR_BYTES + 4 * c + q;
                                        assert_eq!(dst[at], want, "n {n} ldb {ldb} offset {offset} wide {wide} block {cb} group {g}");
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// 64 bytes on a cache line.
    #[derive(Clone, Copy)]
    #[repr(C, align(64))]
    struct Line([u8; 64]);

    /// Both ways of reading a block's rows are chosen as documented.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn rows_are_read_as_lines_only_inside_the_slice() {
        let store = vec![Line([0; 64]); 40];
        // SAFETY: 40 lines.
        let all = unsafe { std::slice::from_raw_parts(store.as_ptr().cast::<i8>(), 40 * 64) };
        let rows = |from: usize, len: usize, j0: usize, ldb: usize| {
            Rows::of(&all[from..from + len], j0, ldb, &(0..2)).lines
        };
        assert!(!rows(0, 1024, 0, 128), "aligned");
        assert!(rows(0, 1024, 16, 128), "16 bytes in");
        assert!(
            !rows(16, 1024, 0, 128),
            "the first row's line starts before the slice"
        );
        assert!(!rows(0, 1024, 3, 128), "not on a word");
        assert!(!rows(0, 1024, 16, 130), "rows not a line apart");
        assert!(
            !rows(0, 976, 16, 128),
            "the last row's second line ends past the slice"
        );
    }
}
