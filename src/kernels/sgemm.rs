//! `dnnl_sgemm` on the library's f32 GEMM micro-kernels ([`super::gemm`]): row-major
//! `C = alpha·op(A)·op(B) + beta·C` with any transpositions and leading dimensions.
//!
//! The kernels multiply rows of `A` (unit stride along `K`) by a panel of `B` (`K` rows of a
//! multiple of 32 columns) into `C`. So `op(A)` is read in place when `A` is not transposed and
//! `alpha` is 1, else copied once as `alpha·op(A)`; `op(B)` is read in place when it is not
//! transposed, `A` has at most `IN_PLACE_MAX_ROWS` rows and `B` fits `IN_PLACE_MAX_BYTES`
//! (up to its last whole 32 columns), else copied into contiguous column blocks of `K` rows ×
//! 64 columns (each by the thread that multiplies it, just before, when `A` is one row block,
//! else all before the products): read in place, a larger `B`'s rows far apart cost a TLB miss
//! and a lost hardware prefetch per row — except for up to 32 rows (64 by a `B` over 2 MiB, or
//! by any `B` where the stream's first tile copies its blocks) with AVX-512
//! ([`super::sgemm_stream`], which asks the caches for `B`'s rows ahead of the tiles, 128 rows
//! of a column block at a time; it also takes a small `B` whose rows are 2 KiB or more apart
//! from 7 rows on, whose 8-row tiles re-read it from L1). Up to `GEMV_ROWS` rows
//! with a not transposed `B` (`GEMV_ROWS_STREAMED` with AVX-512, the next ones streamed) take a path of their own
//! (`few_rows`) that streams `B` in place. Transposed operands are copied 16 × 16 words at a time
//! ([`super::transpose`]). The last
//! `n mod 32` columns are computed from the zero-padded copy into a tile, then added to
//! `C`. The copies live in the calling thread's scratch (`kernels::scratch`). `C` is scaled by `beta` first (not read when `beta` is 0, as in BLAS) and the product
//! accumulated onto it. One team of the library's crew copies, then computes blocks of rows ×
//! columns (a member that finishes early takes blocks the others have not started,
//! `Team::for_each_balanced`: a member whose CPU another process holds up does not hold up
//! the call); every element's sum along `K` is formed in the same
//! order whatever the blocks.

use super::gemm::{self, Fetch, Init, Panel, RowsA, CHUNK};
use super::isa::Isa;
use super::scratch::with_scratch;
#[cfg(target_arch = "x86_64")]
use super::{sgemm_stream, sgemm_strips};
use crate::error::{Error, Result};
use crate::kernels::blas::GemmShape;
use crate::threading;

/// Rows per block: a multiple of the AVX-512 tiles' 6 rows.
const ROW_BLOCK: usize = 96;
/// Columns per block: one 64-wide tile column, whose copy of `B` the tiles read as one
/// sequential stream.
const COL_BLOCK: usize = 64;
/// Rows of a not transposed `B` ahead whose columns of the block the copy fetches: its rows
/// are far apart, which no hardware prefetcher follows (M = 256, N = 2048: 2–3 % faster).
const COPY_AHEAD_ROWS: usize = 8;
/// Products smaller than this many multiply-adds run on the calling thread.
const PARALLEL_MIN: usize = 1 << 18;
/// Most rows of `A` that read a not transposed `B` of at most `IN_PLACE_MAX_BYTES` in place:
/// so few that the copy costs more than reading `B` far apart (one thread, `B` of 1 MiB: 16
/// rows 1.4× faster in place, 64 rows 1.15× faster copied).
const IN_PLACE_MAX_ROWS: usize = 32;
/// Largest `B` (bytes) read in place: one that stays in L2 between calls (at 2–4 MiB the copy
/// was as fast or faster, the more so the busier the machine).
const IN_PLACE_MAX_BYTES: usize = 1 << 20;
/// Rows of `A` up to which `B` is read in place whatever its size: each element of `B` is used
/// so few times that a copy costs more than the scattered reads.
const GEMV_ROWS: usize = 4;
/// Rows of `A` that take `few_rows` where [`sgemm_stream`] runs: its register tiles are faster
/// from 3 rows on.
const GEMV_ROWS_STREAMED: usize = 2;

/// When `op(B)` is copied.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BSource {
    /// The user's `B`, up to the last whole chunk (+ a copy of the last chunk).
    InPlace,
    /// One copy of all column blocks, made before the products.
    Copied,
    /// Each column block copied by the member that multiplies it, just before (one row block).
    PerBlock,
    /// The user's `B` streamed by [`super::sgemm_stream`] (few rows, a large `B`).
    Streamed,
}

/// Rows of `A` up to which [`sgemm_stream`] takes a not transposed `B` of any size.
const STREAMED_ROWS: usize = 32;
/// Size of `B` (bytes) above which [`sgemm_stream`] also takes up to its `MAX_ROWS` rows: the
/// copy of a whole column block of `K` rows then comes from L3 and is re-read from L2, where the
/// stream's copy of 128 rows stays in L1 for its tiles (1 thread, 48–64 rows by 4–8 MiB: 0.83–0.94
/// of the time; at 2 MiB as fast). Where its first tile makes that copy
/// ([`sgemm_stream::BlockCopy::ByFirstTile`]), it takes them whatever the size of `B`.
const STREAMED_MORE_MIN_BYTES: usize = 2 << 20;

/// Whether [`sgemm_stream`] takes this product (when `B` is not read in place as it is).
fn streamed(s: &GemmShape, isa: Isa) -> bool {
    #[cfg(target_arch = "x86_64")]
    return !s.trans_b
        && isa >= Isa::Avx512
        && (s.m <= STREAMED_ROWS
            || (s.m <= sgemm_stream::MAX_ROWS
                && (sgemm_stream::BlockCopy::for_cpu() == sgemm_stream::BlockCopy::ByFirstTile
                    || s.k.saturating_mul(s.n).saturating_mul(4) > STREAMED_MORE_MIN_BYTES)));
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (s, isa);
        false
    }
}

/// Whether [`sgemm_stream`] takes this product even when `B` is small enough to be read in
/// place by the tiles of [`gemm`]: several rows (its 8-row tiles) by rows of `B` 2 KiB or more
/// apart, which the tiles would read from few L1 sets.
fn sgemm_stream_first(s: &GemmShape) -> bool {
    #[cfg(target_arch = "x86_64")]
    return sgemm_stream::narrow_tiles(s.m) && s.ld[1] >= sgemm_stream::COPY_MIN_LDB;
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = s;
        false
    }
}

/// A pointer the blocks share; each block writes its own rows × columns of `C`.
#[derive(Clone, Copy)]
struct Out(*mut f32);
// SAFETY: the blocks write disjoint elements (see `sgemm`).
unsafe impl Send for Out {}
unsafe impl Sync for Out {}

impl Out {
    /// The pointer (a method, so closures capture the `Send` wrapper, not the field).
    fn at(self, offset: usize) -> *mut f32 {
        self.0.wrapping_add(offset)
    }
}

/// Rows (or columns) copied together when transposing without AVX-512: 16 read streams, one
/// write stream.
const STRIPE: usize = 16;

/// `dst[r·ld_dst + q] = alpha·src[q·ld_src + r]` for `r < rows`, `q < cols`: `src` transposed,
/// in 16 × 16 blocks in registers where AVX-512 runs ([`super::transpose`]), the rest a stripe
/// of rows at a time (each step reads `STRIPE` neighbours of one source row).
fn transpose_into(
    dst: &mut [f32],
    ld_dst: usize,
    src: &[f32],
    ld_src: usize,
    (rows, cols): (usize, usize),
    alpha: f32,
) {
    if rows == 0 || cols == 0 {
        return;
    }
    assert!(src.len() >= (cols - 1) * ld_src + rows && dst.len() >= (rows - 1) * ld_dst + cols);
    let mut blocked = (0, 0);
    #[cfg(target_arch = "x86_64")]
    if super::transpose::available() {
        use super::transpose::{block16, WORDS};
        blocked = (rows / WORDS * WORDS, cols / WORDS * WORDS);
        for r0 in (0..blocked.0).step_by(WORDS) {
            for q0 in (0..blocked.1).step_by(WORDS) {
                let (s, d) = (q0 * ld_src + r0, r0 * ld_dst + q0);
                // SAFETY: 16 source rows of 16 floats from `s` and 16 destination rows from
                // `d`, inside the slices (asserted above); AVX-512F checked.
                unsafe {
                    let (s, d) = (src.as_ptr().add(s), dst.as_mut_ptr().add(d));
                    if alpha == 1.0 {
                        block16::<false>(s, ld_src, d, ld_dst, alpha)
                    } else {
                        block16::<true>(s, ld_src, d, ld_dst, alpha)
                    }
                }
            }
        }
    }
    // what the blocks left: the last rows (all columns), the last columns of the other rows
    let stripes = |dst: &mut [f32], rs: std::ops::Range<usize>, qs: std::ops::Range<usize>| {
        for r0 in rs.clone().step_by(STRIPE) {
            let r1 = rs.end.min(r0 + STRIPE);
            for q in qs.clone() {
                for (r, &x) in (r0..r1).zip(&src[q * ld_src + r0..q * ld_src + r1]) {
                    dst[r * ld_dst + q] = alpha * x;
                }
            }
        }
    };
    stripes(dst, blocked.0..rows, 0..cols);
    stripes(dst, 0..blocked.0, blocked.1..cols);
}

/// `C = alpha·op(A)·op(B) + beta·C`. Slices hold at least `s.a_len()`, `s.b_len()`,
/// `s.c_len()` elements; `out_of_memory` when a copy cannot be allocated.
pub fn sgemm(
    s: &GemmShape,
    alpha: f32,
    a: &[f32],
    b: &[f32],
    beta: f32,
    c: &mut [f32],
) -> Result<()> {
    let (m, n, k) = (s.m, s.n, s.k);
    let [lda, ldb, ldc] = s.ld;
    // oneDNN leaves C alone when K is 0, whatever beta
    if m == 0 || n == 0 || k == 0 {
        return Ok(());
    }
    if alpha == 0.0 {
        for i in 0..m {
            scale(&mut c[i * ldc..i * ldc + n], beta);
        }
        return Ok(());
    }
    let macs = m.saturating_mul(n).saturating_mul(k);
    let join = (macs >= PARALLEL_MIN).then(|| threading::join_wait(macs.saturating_mul(2)));
    let isa = Isa::detected();
    let gemv_rows = if streamed(s, isa) {
        GEMV_ROWS_STREAMED
    } else {
        GEMV_ROWS
    };
    if m <= gemv_rows && !s.trans_b {
        few_rows(s, alpha, a, b, beta, c, join);
        return Ok(());
    }
    let row_blocks = m.div_ceil(ROW_BLOCK);
    // op(B), copied into column blocks of K rows each (zero-padded to whole chunks): block j0
    // holds columns j0..j0 + width at row stride width, from k·j0.
    let n_pad = n.div_ceil(CHUNK) * CHUNK;
    let n_main = n / CHUNK * CHUNK;
    let n_rest = n - n_main;
    let col_blocks = n_pad.div_ceil(COL_BLOCK);
    let block = |cb: usize| {
        let j0 = cb * COL_BLOCK;
        (j0, COL_BLOCK.min(n_pad - j0))
    };
    let b_size = k.saturating_mul(n).saturating_mul(4);
    let source = if (m <= GEMV_ROWS || sgemm_stream_first(s)) && streamed(s, isa) {
        BSource::Streamed
    } else if !s.trans_b && m <= IN_PLACE_MAX_ROWS && b_size <= IN_PLACE_MAX_BYTES {
        BSource::InPlace
    } else if streamed(s, isa) {
        BSource::Streamed
    } else if row_blocks == 1 {
        BSource::PerBlock
    } else {
        BSource::Copied
    };
    // op(A), with alpha folded in, as rows of K: in place when possible, else copied.
    let copy_a = s.trans_a || alpha != 1.0;
    // The scratch: the copies of B and A, then the columns past the last whole chunk (computed
    // there, then added onto C); each part starts on a cache line.
    let too_big = || Error::OutOfMemory(format!("sgemm: copies for {m}x{n}x{k}"));
    let line = |floats: Option<usize>| {
        floats
            .and_then(|f| f.checked_mul(4))
            .map(|b| b.next_multiple_of(64))
            .ok_or_else(too_big)
    };
    let b_bytes = line(match source {
        BSource::InPlace if n_rest > 0 => k.checked_mul(CHUNK),
        BSource::InPlace => Some(0),
        BSource::Copied => k.checked_mul(n_pad),
        BSource::PerBlock => (threading::num_threads() * COL_BLOCK).checked_mul(k),
        BSource::Streamed => Some(0),
    })?;
    let a_bytes = line(if copy_a { m.checked_mul(k) } else { Some(0) })?;
    let tail_bytes = line(if n_rest > 0 && source != BSource::Streamed {
        m.checked_mul(CHUNK)
    } else {
        Some(0)
    })?;
    let bytes = [b_bytes, a_bytes, tail_bytes]
        .into_iter()
        .try_fold(0, usize::checked_add)
        .ok_or_else(too_big)?;
    with_scratch(bytes, |base| {
        let b_out = Out(base.cast::<f32>());
        let a_out = Out(base.wrapping_add(b_bytes).cast::<f32>());
        let scratch_out = Out(base.wrapping_add(b_bytes + a_bytes).cast::<f32>());
        let (a_ptr, a_ld) = if copy_a {
            (a_out.at(0).cast_const(), k)
        } else {
            (a.as_ptr(), lda)
        };
        let rows_a = RowsA {
            base: a_ptr,
            outer_stride: 0,
            inner_stride: a_ld as isize,
            inner: m,
        };
        let out = Out(c.as_mut_ptr());
        threading::team(join, |t| {
            if copy_a {
                t.for_each(row_blocks, false, |rb| {
                    let rows = rb * ROW_BLOCK..m.min((rb + 1) * ROW_BLOCK);
                    // SAFETY: each block writes its own rows of the copy.
                    let d = unsafe {
                        std::slice::from_raw_parts_mut(a_out.at(rows.start * k), rows.len() * k)
                    };
                    if s.trans_a {
                        let src = &a[rows.start..];
                        transpose_into(d, k, src, lda, (rows.len(), k), alpha);
                    } else {
                        for (i, row) in rows.clone().enumerate() {
                            let src = &a[row * lda..row * lda + k];
                            for (x, &y) in d[i * k..(i + 1) * k].iter_mut().zip(src) {
                                *x = alpha * y;
                            }
                        }
                    }
                });
            }
            // block cb of op(B) into `d` (rows of `width`, zeros past N)
            let copy_block = |cb: usize, d: &mut [f32]| {
                let (j0, width) = block(cb);
                let cols = width.min(n - j0);
                if s.trans_b {
                    transpose_into(d, width, &b[j0 * ldb..], ldb, (k, cols), 1.0);
                } else {
                    for q in 0..k {
                        if q + COPY_AHEAD_ROWS < k {
                            let ahead = (q + COPY_AHEAD_ROWS) * ldb + j0;
                            gemm::prefetch_rows(b.as_ptr().wrapping_add(ahead), 1, ldb, cols);
                        }
                        d[q * width..q * width + cols]
                            .copy_from_slice(&b[q * ldb + j0..q * ldb + j0 + cols]);
                    }
                }
                if cols < width {
                    for q in 0..k {
                        d[q * width + cols..(q + 1) * width].fill(0.0);
                    }
                }
            };
            match source {
                BSource::InPlace if n_rest > 0 && t.index() == t.size() - 1 => {
                    // SAFETY: the tail copy is this member's alone.
                    let d = unsafe { std::slice::from_raw_parts_mut(b_out.at(0), k * CHUNK) };
                    for q in 0..k {
                        let (cols, pad) = d[q * CHUNK..(q + 1) * CHUNK].split_at_mut(n_rest);
                        cols.copy_from_slice(&b[q * ldb + n_main..q * ldb + n]);
                        pad.fill(0.0);
                    }
                }
                BSource::Copied => t.for_each(col_blocks, false, |cb| {
                    let (j0, width) = block(cb);
                    // SAFETY: each block writes its own part of the copy.
                    copy_block(cb, unsafe {
                        std::slice::from_raw_parts_mut(b_out.at(k * j0), k * width)
                    });
                }),
                _ => {}
            }
            t.barrier();
            #[cfg(target_arch = "x86_64")]
            if source == BSource::Streamed {
                let (blocks, columns) = sgemm_stream::column_blocks(m, n, t.size());
                let copy_by = sgemm_stream::BlockCopy::for_cpu();
                let mut rows = [std::ptr::null::<f32>(); sgemm_stream::MAX_ROWS];
                for (i, p) in rows.iter_mut().enumerate().take(m) {
                    *p = rows_a.row(i);
                }
                t.for_each_balanced(blocks, false, |cb| {
                    let cols = columns(cb);
                    let (j0, next) = (cols.start, cols.end);
                    let next = b.as_ptr().wrapping_add(next);
                    // SAFETY: A's rows have K floats (GemmShape, or our copy); B has K rows of
                    // N floats at stride ldb; columns j0..j0 + cols of C's m rows are this
                    // item's alone; AVX-512 runs.
                    unsafe {
                        sgemm_stream::column_block(
                            &rows[..m],
                            k,
                            b.as_ptr().add(j0),
                            ldb,
                            cols.len(),
                            (out.at(j0), ldc),
                            beta,
                            next,
                            copy_by,
                        )
                    }
                });
                return;
            }
            // column blocks outer: a member's consecutive items share their columns of B
            t.for_each_balanced(row_blocks * col_blocks, false, |item| {
                let (cb, rb) = (item / row_blocks, item % row_blocks);
                let rows = rb * ROW_BLOCK..m.min((rb + 1) * ROW_BLOCK);
                let (j0, width) = block(cb);
                let full = n_main.min(j0 + width).saturating_sub(j0);
                // (main panel, tail panel) of this block
                let (main, tail) = if source == BSource::InPlace {
                    (
                        Panel::dense(b.as_ptr().wrapping_add(j0), ldb, full),
                        Panel::dense(b_out.at(0).cast_const(), CHUNK, CHUNK),
                    )
                } else {
                    let b0 = if source == BSource::Copied {
                        b_out.at(k * j0)
                    } else {
                        let d = b_out.at(t.index() * k * COL_BLOCK);
                        // SAFETY: the member's own part of the copy, k·COL_BLOCK floats.
                        copy_block(cb, unsafe { std::slice::from_raw_parts_mut(d, k * width) });
                        d
                    }
                    .cast_const();
                    (
                        Panel::dense(b0, width, full),
                        Panel::dense(b0.wrapping_add(n_main - j0), width, CHUNK),
                    )
                };
                // SAFETY: rows × columns of this block are written by this block only; `A` rows
                // have `k` floats (checked by GemmShape, or our copy); `B` has `k` rows of the
                // panels' widths (GemmShape's checks, or our copies, written before the barrier).
                unsafe {
                    if full > 0 {
                        let c0 = out.at(rows.start * ldc + j0);
                        let init = if beta == 0.0 {
                            Init::Zero
                        } else {
                            for i in 0..rows.len() {
                                scale(std::slice::from_raw_parts_mut(c0.add(i * ldc), full), beta);
                            }
                            Init::Accumulate
                        };
                        let fetch = Fetch::default();
                        gemm::gemm(isa, &rows_a, rows.clone(), k, &main, c0, ldc, init, fetch);
                    }
                    if j0 + width > n_main && n_rest > 0 {
                        let t0 = scratch_out.at(rows.start * CHUNK);
                        let fetch = Fetch::default();
                        gemm::gemm(
                            isa,
                            &rows_a,
                            rows.clone(),
                            k,
                            &tail,
                            t0,
                            CHUNK,
                            Init::Zero,
                            fetch,
                        );
                        for i in 0..rows.len() {
                            let t = std::slice::from_raw_parts(t0.add(i * CHUNK), n_rest);
                            let dst = std::slice::from_raw_parts_mut(
                                out.at((rows.start + i) * ldc + n_main),
                                n_rest,
                            );
                            for (d, &v) in dst.iter_mut().zip(t) {
                                *d = if beta == 0.0 { v } else { beta * *d + v };
                            }
                        }
                    }
                }
            });
        });
    })
}

/// Running sums of an item of [`few_rows`] (8 KiB): its run of columns is this many over the
/// rows of `A`, the longer the fewer rows (longer runs of each row of `B` read in a row).
const FEW_ROWS_SUMS: usize = 2048;

/// `C = alpha·op(A)·B + beta·C` for at most `GEMV_ROWS` rows and a not transposed `B`: `B`
/// is read row after row (each contiguous run of a row used by every row of `A` while in L1),
/// which streams it at the memory's speed; the tile kernels would read it down its columns.
/// Items are runs of columns; each element's sum along `K` is formed in order.
fn few_rows(
    s: &GemmShape,
    alpha: f32,
    a: &[f32],
    b: &[f32],
    beta: f32,
    c: &mut [f32],
    join: Option<std::time::Duration>,
) {
    let (m, n, k) = (s.m, s.n, s.k);
    let [lda, ldb, ldc] = s.ld;
    let isa = Isa::detected();
    let out = Out(c.as_mut_ptr());
    let op_a = |i: usize, q: usize| {
        alpha
            * if s.trans_a {
                a[q * lda + i]
            } else {
                a[i * lda + q]
            }
    };
    // AVX-512 off Intel (not measured there): a run of B that stays in L2 in strips
    // (`sgemm_strips`).
    #[cfg(target_arch = "x86_64")]
    let strips = (m <= sgemm_strips::MAX_ROWS && isa >= Isa::Avx512 && !super::isa::intel_cpu())
        .then(|| super::isa::l2_cache_bytes(1 << 20));
    threading::team(join, |t| {
        // at least one run per member (a narrow B would leave the others idle)
        let longest = FEW_ROWS_SUMS / m / 16 * 16;
        let run = n.div_ceil(t.size()).next_multiple_of(16).min(longest);
        // The sums of an item (rows `run` apart) into columns j0..j0 + w of C.
        let store = |acc: &[f32], j0: usize, w: usize| {
            for (i, sums) in acc.chunks(run).take(m).enumerate() {
                // SAFETY: columns j0..j0 + w of row i are this item's alone.
                let dst = unsafe { std::slice::from_raw_parts_mut(out.at(i * ldc + j0), w) };
                for (d, &v) in dst.iter_mut().zip(&sums[..w]) {
                    *d = if beta == 0.0 { v } else { beta * *d + v };
                }
            }
        };
        t.for_each(n.div_ceil(run), false, |item| {
            let j0 = item * run;
            let w = run.min(n - j0);
            let mut acc = [0f32; FEW_ROWS_SUMS];
            #[cfg(target_arch = "x86_64")]
            if strips.is_some_and(|l2| k.saturating_mul(w).saturating_mul(4) <= l2) {
                let (first, second) = acc.split_at_mut(run);
                // SAFETY: B has k rows of columns j0..j0 + w at stride ldb; AVX-512 runs.
                unsafe {
                    let b = b.as_ptr().add(j0);
                    match m {
                        1 => sgemm_strips::strips::<1, 16>(op_a, k, b, ldb, w, [&mut first[..w]]),
                        _ => {
                            let rows = [&mut first[..w], &mut second[..w]];
                            sgemm_strips::strips::<2, 12>(op_a, k, b, ldb, w, rows)
                        }
                    }
                }
                return store(&acc, j0, w);
            }
            let row = |q: usize| &b[q * ldb + j0..q * ldb + j0 + w];
            let quads = k / 4 * 4;
            for q in (0..quads).step_by(4) {
                let x: [&[f32]; 4] = std::array::from_fn(|d| row(q + d));
                for (i, sums) in acc.chunks_mut(run).take(m).enumerate() {
                    let f = std::array::from_fn(|d| op_a(i, q + d));
                    axpy4(isa, &mut sums[..w], f, x);
                }
            }
            for q in quads..k {
                for (i, sums) in acc.chunks_mut(run).take(m).enumerate() {
                    let f = op_a(i, q);
                    for (v, &x) in sums[..w].iter_mut().zip(row(q)) {
                        *v += f * x;
                    }
                }
            }
            store(&acc, j0, w);
        });
    });
}

/// `y = y + f[0]·x[0] + … + f[3]·x[3]` element by element, in that order.
fn axpy4(isa: Isa, y: &mut [f32], f: [f32; 4], x: [&[f32]; 4]) {
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        // SAFETY: `isa` is one this CPU runs (AVX2 and FMA, or AVX-512).
        return unsafe {
            if isa >= Isa::Avx512 {
                axpy4_avx512(y, f, x)
            } else {
                axpy4_avx2(y, f, x)
            }
        };
    }
    let _ = isa;
    for (j, v) in y.iter_mut().enumerate() {
        *v = *v + f[0] * x[0][j] + f[1] * x[1][j] + f[2] * x[2][j] + f[3] * x[3][j];
    }
}

/// `y += Σ f[i]·x[i]` with fused multiply-adds, inlined into each target-feature version below.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn axpy4_fused(y: &mut [f32], f: [f32; 4], x: [&[f32]; 4]) {
    let n = y.len();
    let (x0, x1, x2, x3) = (&x[0][..n], &x[1][..n], &x[2][..n], &x[3][..n]);
    for j in 0..n {
        y[j] = x3[j].mul_add(
            f[3],
            x2[j].mul_add(f[2], x1[j].mul_add(f[1], x0[j].mul_add(f[0], y[j]))),
        );
    }
}

/// Defines `$name`: [`axpy4`] with fused multiply-adds, vectorized for the target features
/// `$features` (`$what`).
macro_rules! axpy4_version {
    ($name:ident, $features:literal, $what:literal) => {
        #[doc = concat!("[`axpy4`] with fused multiply-adds, vectorized for ", $what, ".")]
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        fn $name(y: &mut [f32], f: [f32; 4], x: [&[f32]; 4]) {
            axpy4_fused(y, f, x)
        }
    };
}
axpy4_version!(axpy4_avx512, "avx512f,fma", "AVX-512");
axpy4_version!(axpy4_avx2, "avx2,fma", "AVX2");

/// `x = beta·x`; `beta == 0` writes zeros without reading `x` (BLAS).
fn scale(x: &mut [f32], beta: f32) {
    if beta == 0.0 {
        x.fill(0.0);
    } else if beta != 1.0 {
        x.iter_mut().for_each(|v| *v *= beta);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive product in f64, BLAS rules for `beta == 0`.
    fn reference(s: &GemmShape, alpha: f32, a: &[f32], b: &[f32], beta: f32, c: &mut [f32]) {
        for i in 0..s.m {
            for j in 0..s.n {
                let mut acc = 0.0f64;
                for q in 0..s.k {
                    let x = if s.trans_a {
                        a[q * s.ld[0] + i]
                    } else {
                        a[i * s.ld[0] + q]
                    };
                    let y = if s.trans_b {
                        b[j * s.ld[1] + q]
                    } else {
                        b[q * s.ld[1] + j]
                    };
                    acc += f64::from(x) * f64::from(y);
                }
                let d = &mut c[i * s.ld[2] + j];
                let old = if beta == 0.0 {
                    0.0
                } else {
                    f64::from(beta * *d)
                };
                *d = (f64::from(alpha) * acc + old) as f32;
            }
        }
    }

    fn fill(len: usize, seed: u32) -> Vec<f32> {
        (0..len as u32)
            .map(|i| {
                let h = (i.wrapping_mul(2654435761) ^ seed.wrapping_mul(40503)) >> 7;
                (h % 2001) as f32 / 1000.0 - 1.0
            })
            .collect()
    }

    /// Every transposition, leading dimensions above the row length, shapes around the tile
    /// and chunk sizes, alpha/beta cases (beta 0 ignores NaNs in C).
    #[test]
    fn matches_the_naive_product() {
        let shapes = [
            (1, 1, 1),
            (3, 4, 5),
            (7, 32, 9),
            (13, 33, 64),
            (37, 75, 129),
            (100, 300, 40),
            (6, 64, 1030),
            (130, 70, 33),
            (2, 600, 7),
            (9, 1100, 300),
            // a small B with rows 2 KiB or more apart: sgemm_stream's 8-row tiles
            (16, 520, 40),
            (32, 600, 130),
        ];
        for &(m, n, k) in &shapes {
            for (ta, tb) in [(b'N', b'N'), (b'T', b'N'), (b'N', b'T'), (b'T', b'T')] {
                for &(alpha, beta) in &[(1.0, 0.0), (1.0, 1.0), (0.5, -2.0), (-1.5, 0.0)] {
                    let lda = if ta == b'N' { k } else { m } + 3;
                    let ldb = if tb == b'N' { n } else { k } + 1;
                    let ldc = n + 2;
                    let s = GemmShape::new(
                        ta,
                        tb,
                        [m as i64, n as i64, k as i64],
                        [lda as i64, ldb as i64, ldc as i64],
                    )
                    .unwrap();
                    let a = fill(s.a_len(), 1);
                    let b = fill(s.b_len(), 2);
                    let mut c = fill(s.c_len(), 3);
                    if beta == 0.0 {
                        c.iter_mut().step_by(5).for_each(|v| *v = f32::NAN);
                    }
                    let mut want = c.clone();
                    reference(&s, alpha, &a, &b, beta, &mut want);
                    sgemm(&s, alpha, &a, &b, beta, &mut c).unwrap();
                    for i in 0..m {
                        for j in 0..ldc {
                            if i * ldc + j >= c.len() {
                                continue;
                            }
                            let (g, w) = (c[i * ldc + j], want[i * ldc + j]);
                            if j >= n {
                                // padding between rows is left alone
                                assert!(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()));
                                continue;
                            }
                            let tol = 1e-5 * (k as f32).sqrt() * (1.0 + w.abs()) * 4.0;
                            assert!(
                                (g - w).abs() <= tol,
                                "{m}x{n}x{k} {}{} alpha {alpha} beta {beta} at ({i},{j}): {g} vs {w}",
                                ta as char,
                                tb as char
                            );
                        }
                    }
                }
            }
        }
    }

    /// 33–64 rows by a `B` over `STREAMED_MORE_MIN_BYTES` (sgemm_stream's 8-row tiles, 5–8 of
    /// them per block), a column tail, `beta` 0 and not.
    #[test]
    fn many_rows_by_a_large_b() {
        let (m, n, k) = (40, 1050, 520);
        let s = GemmShape::new(b'N', b'N', [m, n, k], [k + 1, n + 3, n + 2]).unwrap();
        assert!(s.k * s.n * 4 > STREAMED_MORE_MIN_BYTES);
        let (a, b) = (fill(s.a_len(), 4), fill(s.b_len(), 5));
        for beta in [0.0, 0.5] {
            let mut c = fill(s.c_len(), 6);
            let mut want = c.clone();
            reference(&s, 1.0, &a, &b, beta, &mut want);
            sgemm(&s, 1.0, &a, &b, beta, &mut c).unwrap();
            for (i, (g, w)) in c.iter().zip(&want).enumerate() {
                let tol = 1e-5 * (k as f32).sqrt() * (1.0 + w.abs()) * 4.0;
                assert!((g - w).abs() <= tol, "beta {beta} at {i}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn sgemm_matches_a_hand_computed_product_in_every_transposition() {
        // op(A) = [[1,2,3],[4,5,6]], op(B) = [[1,0],[0,1],[1,1]], C = [[1,1],[1,1]]
        let a_n = [1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0]; // 2 x 3, lda 4
        let a_t = [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]; // 3 x 2, lda 2
        let b_n = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0]; // 3 x 2, ldb 2
        let b_t = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0]; // 2 x 3, ldb 3
        for (ta, a, lda) in [(b'N', &a_n[..], 4), (b't', &a_t[..], 2)] {
            for (tb, b, ldb) in [(b'n', &b_n[..], 2), (b'T', &b_t[..], 3)] {
                let s = GemmShape::new(ta, tb, [2, 2, 3], [lda, ldb, 3]).unwrap();
                let mut c = [1.0, 1.0, -7.0, 1.0, 1.0, -7.0];
                sgemm(&s, 2.0, a, b, 0.5, &mut c).unwrap();
                // A·B = [[4,5],[10,11]]; 2·AB + 0.5·1; the column past N stays
                assert_eq!(c, [8.5, 10.5, -7.0, 20.5, 22.5, -7.0]);
            }
        }
    }

    #[test]
    fn alpha_zero_only_scales_c() {
        let s = GemmShape::new(b'N', b'N', [2, 2, 2], [2, 2, 2]).unwrap();
        let a = [f32::NAN; 4];
        let mut c = [1.0, 2.0, 3.0, 4.0];
        sgemm(&s, 0.0, &a, &a, 2.0, &mut c).unwrap();
        assert_eq!(c, [2.0, 4.0, 6.0, 8.0]);
    }
}
