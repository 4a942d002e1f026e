//! `dnnl_sgemm` of a few rows of `A` by a not transposed `B`: `B` streamed from where it is.
//!
//! Each element of `B` is used by at most [`MAX_ROWS`] rows, so copying all of `B` into the
//! tiles' layout (a read and a write of all of it, then a read of the copy) costs more than
//! the products; read in place, its rows lie far apart, so the hardware prefetcher does not
//! follow them and every row waits on L3. Here a column block of 48 or 64 columns is
//! multiplied `K` block by `K` block (128 rows), and while a block's tiles run they ask L2 for
//! the next block's rows (the next `K` block, or the next column block's first), a few lines
//! per `k` step spread over all the tiles: the reads of `B` overlap the multiply-adds instead
//! of preceding them. When more than one tile re-reads a block whose rows are half a page or
//! more apart, the later tiles read a copy in a buffer on the stack (up to 32 KiB, from a cache
//! line): such rows share a few L1 sets and would evict each other between the tiles. The copy
//! is made as [`BlockCopy`] says.
//!
//! Register tiles of 24 zmm accumulators, the columns past `N` masked off: up to 6 rows × 4
//! vectors of 16 columns when one tile takes all rows (blocks of 64 columns), else up to 8 rows
//! × 3 vectors (blocks of 48): fewer tiles re-read each block, and a `k` step's 3 loads of `B`
//! and 8 broadcasts of `A` keep the two FMA units busier than 4 and 6 do. Between `K` blocks
//! the tiles' running sums wait in a buffer on the stack (rows of 64 contiguous floats, not
//! `C`'s rows far apart); the last `K` block stores `beta·C` plus them. Each element's sum is
//! formed in order along `K` from zero, then added to `beta·C`.

use std::arch::x86_64::*;

/// Most rows of `A` this path takes (`sgemm` sends more than 32 only with a large `B`): with
/// more, the tiles re-read each block of `B` so often that copying all of it once into the
/// tiles' layout is as fast.
pub const MAX_ROWS: usize = 64;
/// Columns of a block of 4 vectors, the widest.
const COLUMNS: usize = 64;
/// Rows of `K` per block: 32 KiB of a column block of `B`, which its copy keeps in L1.
const K_BLOCK: usize = 128;
/// Row stride of `B` (floats) from which a block re-read by several tiles is copied first: half
/// a page, where all its rows fall into two groups of a few L1 sets.
pub const COPY_MIN_LDB: usize = 512;
/// Columns of a block of 3 vectors, for the narrow tiles.
const NARROW_COLUMNS: usize = 48;
/// Most rows of a register tile of 4 vectors.
const TILE_ROWS: usize = 6;
/// Most rows of a register tile of 3 vectors.
const TILE_ROWS_NARROW: usize = 8;

/// How a block of `B` that several tiles re-read, its rows half a page or more apart, is copied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockCopy {
    /// In a pass of its own before the tiles (Intel, where it was measured).
    Before,
    /// By the first tile, which stores each vector of `B` it loads: no pass of its own, whose
    /// loads waited on L2 with no multiply-add beside them (AMD Zen 4).
    ByFirstTile,
}

impl BlockCopy {
    /// The way for this CPU.
    pub fn for_cpu() -> Self {
        if super::isa::intel_cpu() {
            Self::Before
        } else {
            Self::ByFirstTile
        }
    }
}

/// Whether `m` rows take the narrow tiles (8 rows × 3 vectors): more than one wide tile holds.
pub fn narrow_tiles(m: usize) -> bool {
    m > TILE_ROWS
}

/// Columns of a block for `m` rows ([`narrow_tiles`]).
pub fn columns(m: usize) -> usize {
    if narrow_tiles(m) {
        NARROW_COLUMNS
    } else {
        COLUMNS
    }
}

/// The column blocks of `n` columns for `m` rows shared by `members` threads, as (count, the
/// columns of block `i`): whole vectors of 16 columns (the last one may be partial), at most
/// [`columns`]`(m)` wide, as many blocks as the widest need rounded up to a multiple of
/// `members`, the vectors spread evenly over them — so that the members' shares differ by at
/// most a vector rather than a block (2 threads, N = 512, 16 rows: 16 vectors each, not 18 and
/// 14).
pub fn column_blocks(
    m: usize,
    n: usize,
    members: usize,
) -> (usize, impl Fn(usize) -> std::ops::Range<usize>) {
    let vectors = n.div_ceil(16);
    let (per, members) = (columns(m) / 16, members.max(1));
    let count = (members * vectors.div_ceil(members * per)).min(vectors);
    let at = move |i: usize| (16 * (i * vectors / count)).min(n);
    (count, move |i| at(i)..at(i + 1))
}

/// `C[r·ldc + j] = beta·C[r·ldc + j] + Σ_q a[r][q]·b[q·ldb + j]` for rows `r < a.len()` (at
/// most [`MAX_ROWS`]) and columns `j < cols` (at most [`columns`] of the rows), `q < k`; `beta`
/// 0 does not read `C`. `next` is where the column block multiplied after this one starts in
/// `B` (only asked of the caches: any address); `copy_by` says how a block several tiles
/// re-read is copied.
///
/// # Safety
/// Each `a[r]` has `k` readable floats; `b` has `k` rows of `cols` readable floats at stride
/// `ldb`; `c` has `a.len()` rows of `cols` writable floats at stride `ldc`, overlapping
/// neither; the CPU runs AVX-512F and FMA.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f,fma")]
pub unsafe fn column_block(
    a: &[*const f32],
    k: usize,
    b: *const f32,
    ldb: usize,
    cols: usize,
    (c, ldc): (*mut f32, usize),
    beta: f32,
    next: *const f32,
    copy_by: BlockCopy,
) {
    let m = a.len();
    let width = columns(m);
    debug_assert!(m <= MAX_ROWS && cols <= width);
    // The tiles' vectors: the block's own, or one fewer than the widest blocks, masked.
    let vectors = cols.div_ceil(16).max(width / 16 - 1);
    let tiles = m.div_ceil(if narrow_tiles(m) {
        TILE_ROWS_NARROW
    } else {
        TILE_ROWS
    });
    let masks: [__mmask16; 4] = std::array::from_fn(|v| {
        let left = cols.saturating_sub(16 * v).min(16);
        ((1u32 << left) - 1) as __mmask16
    });
    // the running sums between K blocks (row r at r·COLUMNS), and the copy of a K block of B
    let mut sums = std::mem::MaybeUninit::<[f32; MAX_ROWS * COLUMNS]>::uninit();
    let sums = sums.as_mut_ptr().cast::<f32>();
    let mut copy = std::mem::MaybeUninit::<Lines<{ K_BLOCK * COLUMNS }>>::uninit();
    let copy = copy.as_mut_ptr().cast::<f32>();
    for k0 in (0..k).step_by(K_BLOCK) {
        let kb = K_BLOCK.min(k - k0);
        let b0 = b.wrapping_add(k0 * ldb);
        let copied = tiles > 1 && ldb >= COPY_MIN_LDB;
        let (bt, ldt) = if copied && copy_by == BlockCopy::Before {
            for q in 0..kb {
                for (v, &mask) in masks.iter().enumerate().take(vectors) {
                    // SAFETY: row k0 + q of B's `cols` columns (masked), row q of the copy.
                    unsafe {
                        let x = _mm512_maskz_loadu_ps(mask, b0.add(q * ldb + 16 * v));
                        _mm512_storeu_ps(copy.add(q * width + 16 * v), x);
                    }
                }
            }
            (copy.cast_const(), width)
        } else {
            (b0, ldb)
        };
        // the block after this one: this column's next rows, or the next column's first
        let (pf, pf_rows) = if k0 + kb < k {
            (b0.wrapping_add(kb * ldb), K_BLOCK.min(k - k0 - kb))
        } else {
            (next, K_BLOCK.min(k))
        };
        let mut i0 = 0;
        for t in 0..tiles {
            let h = m / tiles + usize::from(t < m % tiles);
            // this tile's share of the next block's rows
            let share = t * pf_rows / tiles..(t + 1) * pf_rows / tiles;
            let fetch = Fetch {
                ptr: pf.wrapping_add(share.start * ldb),
                rows: share.len(),
                ld: ldb,
            };
            let mut rows = [std::ptr::null::<f32>(); TILE_ROWS_NARROW];
            for (r, p) in rows.iter_mut().enumerate().take(h) {
                *p = a[i0 + r].wrapping_add(k0);
            }
            let own = sums.wrapping_add(i0 * COLUMNS);
            let ends = Ends {
                from: (k0 > 0).then_some(own.cast_const()),
                to: if k0 + kb < k {
                    End::Sums(own)
                } else {
                    End::C(c.wrapping_add(i0 * ldc), ldc, beta)
                },
            };
            // (B, its stride, where the tile copies the vectors of B it loads)
            let (src, copy_to) = match (copied && copy_by == BlockCopy::ByFirstTile, t) {
                (false, _) => ((bt, ldt), None),
                (true, 0) => ((b0, ldb), Some((copy, width))),
                (true, _) => ((copy.cast_const(), width), None),
            };
            let args = (rows, kb, src, masks, ends, fetch, copy_to);
            // SAFETY: the caller's contract, for rows i0..i0 + h and K rows k0..k0 + kb; the
            // tile's running sums are rows i0..i0 + h of `sums`.
            unsafe {
                match vectors {
                    4 => by_rows!(tile, 4, h, args, [6, 5, 4, 3, 2]),
                    3 => by_rows!(tile, 3, h, args, [8, 7, 6, 5, 4, 3, 2]),
                    _ => by_rows!(tile, 2, h, args, [8, 7, 6, 5, 4, 3, 2]),
                }
            }
            i0 += h;
        }
    }
}

/// `$tile::<h, $v>($args)` for `h` one of `$rows`, else `$tile::<1, $v>`.
macro_rules! by_rows {
    ($tile:ident, $v:literal, $h:expr, $args:expr, [$($r:literal),*]) => {
        match $h {
            $($r => $tile::<$r, $v>($args),)*
            _ => $tile::<1, $v>($args),
        }
    };
}
use by_rows;

/// `N` floats from the start of a cache line: the tiles' vector loads of the copy of `B` then
/// each touch one line, not two.
#[repr(C, align(64))]
struct Lines<const N: usize>([f32; N]);

/// Where a tile's accumulators start and end.
#[derive(Clone, Copy)]
struct Ends {
    /// Zero (`None`), or the running sums of the earlier `K` blocks (rows of [`COLUMNS`]).
    from: Option<*const f32>,
    /// Where they go.
    to: End,
}

/// Where a tile's accumulators go.
#[derive(Clone, Copy)]
enum End {
    /// Running sums for the next `K` block (rows of [`COLUMNS`]).
    Sums(*mut f32),
    /// `C` (at its row stride), as `beta·C` plus the sums (`C` not read when `beta` is 0).
    C(*mut f32, usize, f32),
}

/// Rows of `B` a tile asks L2 for, spread over its `k` steps (all its vectors' lines of each).
#[derive(Clone, Copy)]
struct Fetch {
    ptr: *const f32,
    rows: usize,
    ld: usize,
}

type TileArgs = (
    [*const f32; TILE_ROWS_NARROW],
    usize,
    (*const f32, usize),
    [__mmask16; 4],
    Ends,
    Fetch,
    Option<(*mut f32, usize)>,
);

/// One tile of `R` rows × `V` vectors over `kb` rows of `B` (at its stride), storing each row
/// of `B` it loads into the copy given (at its stride) too.
#[inline]
#[target_feature(enable = "avx512f,fma")]
unsafe fn tile<const R: usize, const V: usize>(args: TileArgs) {
    let (a, kb, (b, ldb), masks, ends, fetch, copy_to) = args;
    unsafe {
        let mut acc = [[_mm512_setzero_ps(); V]; R];
        if let Some(from) = ends.from {
            for (r, row) in acc.iter_mut().enumerate() {
                for (v, x) in row.iter_mut().enumerate() {
                    *x = _mm512_loadu_ps(from.add(r * COLUMNS + 16 * v));
                }
            }
        }
        // one fetched row every `period` steps
        let period = if fetch.rows == 0 {
            usize::MAX
        } else {
            kb.div_ceil(fetch.rows).max(1)
        };
        let mut due = 0;
        let mut fetched = 0;
        let mut bp = b;
        for kk in 0..kb {
            if kk == due && fetched < fetch.rows {
                let p = fetch.ptr.wrapping_add(fetched * fetch.ld);
                for v in 0..V {
                    _mm_prefetch::<_MM_HINT_T1>(p.wrapping_add(16 * v).cast());
                }
                fetched += 1;
                due += period;
            }
            let mut bv = [_mm512_setzero_ps(); V];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm512_maskz_loadu_ps(masks[v], bp.add(16 * v));
            }
            if let Some((to, ld)) = copy_to {
                for (v, &x) in bv.iter().enumerate() {
                    _mm512_storeu_ps(to.add(kk * ld + 16 * v), x);
                }
            }
            for (r, row) in acc.iter_mut().enumerate() {
                let x = _mm512_set1_ps(*a[r].add(kk));
                for (s, &y) in row.iter_mut().zip(&bv) {
                    *s = _mm512_fmadd_ps(x, y, *s);
                }
            }
            bp = bp.add(ldb);
        }
        for (r, row) in acc.iter().enumerate() {
            for (v, &x) in row.iter().enumerate() {
                match ends.to {
                    End::Sums(to) => _mm512_storeu_ps(to.add(r * COLUMNS + 16 * v), x),
                    End::C(c, ldc, beta) => {
                        let p = c.add(r * ldc + 16 * v);
                        let x = if beta == 0.0 {
                            x
                        } else {
                            let old = _mm512_maskz_loadu_ps(masks[v], p);
                            _mm512_fmadd_ps(old, _mm512_set1_ps(beta), x)
                        };
                        _mm512_mask_storeu_ps(p, masks[v], x);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_blocks_cover_the_columns_in_even_shares() {
        for m in [1, 6, 7, 16, 32] {
            for n in [0, 1, 15, 16, 17, 100, 512, 2000, 2048] {
                for members in [1, 2, 3] {
                    let (count, cols) = column_blocks(m, n, members);
                    let blocks: Vec<_> = (0..count).map(&cols).collect();
                    let what = format!("m{m} n{n} members{members}");
                    assert_eq!(blocks.iter().map(|b| b.len()).sum::<usize>(), n, "{what}");
                    let mut next = 0;
                    for b in &blocks {
                        assert_eq!(b.start, next, "{what}");
                        assert!(b.start.is_multiple_of(16) && !b.is_empty(), "{what}");
                        assert!(b.len() <= columns(m), "{what}");
                        next = b.end;
                    }
                    let vectors: Vec<usize> = blocks.iter().map(|b| b.len().div_ceil(16)).collect();
                    if count >= members {
                        assert!(
                            count.is_multiple_of(members) || count == n.div_ceil(16),
                            "{what}"
                        );
                        // `Team::share`: contiguous runs of `count / members` blocks
                        let share = |i: usize| -> usize {
                            vectors[i * count / members..(i + 1) * count / members]
                                .iter()
                                .sum()
                        };
                        let shares: Vec<usize> = (0..members).map(share).collect();
                        let (lo, hi) = (shares.iter().min().unwrap(), shares.iter().max().unwrap());
                        assert!(hi - lo <= 1, "{what}: {shares:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn column_blocks_match_the_naive_product() {
        if crate::kernels::Isa::detected() < crate::kernels::Isa::Avx512 {
            return;
        }
        for &(m, k, cols, ldb) in &[
            (1, 1, 1, 1),
            (16, 300, 64, 80),
            (32, 300, 64, 80),
            (4, 300, 50, 1024),
            (7, 129, 37, 40),
            (20, 260, 64, 1030),
            (30, 260, 47, 64),
            (64, 150, 48, 520),
            (41, 130, 40, 64),
            (8, 200, 48, 512),
            (16, 300, 48, 512),
            (13, 5, 50, 64),
            (16, 300, 32, 512),
            (20, 260, 20, 1030),
            (5, 300, 40, 1024),
            (3, 70, 33, 600),
        ] {
            let cols = cols.min(columns(m));
            for (beta, copy_by) in [
                (0.0f32, BlockCopy::Before),
                (0.5, BlockCopy::Before),
                (0.0, BlockCopy::ByFirstTile),
                (0.5, BlockCopy::ByFirstTile),
            ] {
                let lda = k + 3;
                let a: Vec<f32> = (0..m * lda).map(|i| (i % 7) as f32 - 3.0).collect();
                let b: Vec<f32> = (0..k * ldb).map(|i| (i % 5) as f32 * 0.5 - 1.0).collect();
                let ldc = cols + 2;
                let c0: Vec<f32> = (0..m * ldc).map(|i| (i % 3) as f32).collect();
                let mut c = c0.clone();
                if beta == 0.0 {
                    c.iter_mut().for_each(|x| *x = f32::NAN);
                }
                let rows: Vec<*const f32> = (0..m).map(|r| a[r * lda..].as_ptr()).collect();
                // SAFETY: m rows of k floats, k rows of cols floats at ldb, m rows of ldc.
                unsafe {
                    column_block(
                        &rows,
                        k,
                        b.as_ptr(),
                        ldb,
                        cols,
                        (c.as_mut_ptr(), ldc),
                        beta,
                        std::ptr::null(),
                        copy_by,
                    )
                };
                for r in 0..m {
                    for j in 0..cols {
                        let sum: f32 = (0..k).map(|q| a[r * lda + q] * b[q * ldb + j]).sum();
                        let want = beta * c0[r * ldc + j] + sum;
                        // small integers and halves: exact in any order
                        assert_eq!(c[r * ldc + j], want, "{m}x{cols}x{k} {copy_by:?} ({r},{j})");
                    }
                    for j in cols..ldc {
                        let old = c[r * ldc + j];
                        assert!(if beta == 0.0 {
                            old.is_nan()
                        } else {
                            old == c0[r * ldc + j]
                        });
                    }
                }
            }
        }
    }
}
