//! GEMM with a pre-packed right operand: `C[m × w] (+)= A[m × K] · B[K × w]`.
//!
//! `B` is one column panel of packed weights (see `memory::packed`): `K` rows of `w` floats
//! (`w` a multiple of [`CHUNK`]), stored as one block of rows (row stride `ld`) or as several
//! (an LSTM panel: two blocks of rows of 64 floats, or four of 32). `A` is a set of rows with
//! unit stride along `K`, addressed through a two-level grid ([`RowsA`]) so that time-major, batch-major,
//! reversed or padded activations are all read in place. `C` is row-major with stride `ldc`.
//!
//! The work is cut into register tiles of `MR` rows × `NR` 16-float vectors, each computed by a
//! micro-kernel that keeps the whole tile in registers for a block of `K`: per `k`, `NR` vector
//! loads of `B`, `MR` broadcasts of `A`, `MR·NR` multiply-adds. The micro-kernel is written once
//! over a small vector trait and compiled per instruction set (AVX-512: 6 × 4 vectors on 64-wide
//! blocks, 13 × 2 on 32-wide blocks or remainders, i.e. 24 or 26 zmm accumulators; AVX2: 2 × 2;
//! portable: 2 × 2; on a panel of two 32-wide blocks — two one-gate panels side by side — 6 × 4
//! across both), with fixed-size arrays the compiler vectorizes as vectors. Every tile reads
//! whole rows of its block of `B`, one sequential stream (see `memory::packed`): `B` read from
//! L2 is what limits a tile, and 6 × 4 loads 256 bytes of `B` per 24 multiply-adds where 4 × 6
//! loads 384. For 1–2 rows (batch 1–2, memory-bound) a tile spans a whole panel row — both
//! blocks of an LSTM panel, as two sequential streams; at that width the vectors are AVX-512
//! registers, which the compiler keeps in registers where it would spill an array accumulator.
//! Wider tiles (4 × 6, 5 × 5), faster alone in L1 on a Xeon, lose inside the GEMM, where `B`
//! comes from L2 or beyond.
//! When a column of tiles has enough row tiles (4 on Zen 5, 2 on Intel), its later tiles
//! (re-reading `B` from L2) also fetch the next column's `B` into cache, one line per `k` step,
//! and the last column fetches the first rows of the panel the caller multiplies next: the first
//! tile of each column then finds its `B` near, where it would stream it from L3 on its own.
//! On Intel, where the later tiles fetch only part of the next column (few rows), the first
//! tile also fetches its own `B` some rows ahead into L1 (`fetch_ahead_rows`).
//! [`gemm_sum`] adds several products into the same tiles — an RNN step's `x·W + h·U` with the
//! layer GEMM fused — each tile kept in registers across the terms and stored once.
//! `K` is cut into blocks (after each, the tiles are stored; 128 rather than 1024 where a
//! column's tiles then re-read `B` from L1: `k_block`); a later block's multiply-adds start
//! from the stored sums, so the summation order along `K` is fixed whatever the blocks, and
//! results do not depend on threading.

use super::isa::Isa;
use super::vector::{Lanes, Vector, LANES};

/// Column granularity: panels are a whole number of 32-float chunks.
pub const CHUNK: usize = 32;
/// `K` block: the micro-kernel accumulates this many rows of `B` before storing its tile. A
/// whole `K` of 1024 in one block rather than two of 512 (one store and reload of each tile
/// fewer; a 6-row tile of `A` is 24 KiB, still in L1): one thread, `K` = 1024, 16 LSTM panels,
/// 1.2–1.6 % faster for 16, 32 and 104 rows in three alternated criterion rounds; LSTM T=25 N=32
/// C=1024 on two threads faster in 5 of 6 A/B pairs (fastest iteration). On a Xeon (48 KiB
/// L1), blocks small enough for a tile column's `B` to stay in L1 pay off for some products
/// only ([`k_block`]).
const KC: usize = 1024;
/// `K` block of the products whose column tiles re-read `B` from L1 ([`k_block`]): 32 KiB of a
/// 64-wide block, beside a block of `A`.
const KC_L1: usize = 128;
/// Most rows for [`KC_L1`]: the merged layer GEMM's 104-row blocks (whose `A` block no longer
/// stays in L1 beside `B`'s) were 2 % slower with it (LSTM T=25 N=32 C=1024, paired).
const KC_L1_MAX_ROWS: usize = 64;

/// What the caller knows of the weights around one product (`default()`: nothing).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fetch {
    /// The panel (and its `K`) the caller multiplies next, if known: while each column of
    /// tiles re-reads its `B`, the next column's (in the end, `next`'s first) is fetched into
    /// cache.
    pub next: Option<(Panel, usize)>,
    /// Whether the weights the calling thread cycles through are larger than its L2, so that
    /// `B` streams from farther (which can make the `K` blocks shorter: `k_block`).
    pub streamed: bool,
}

/// Rows of the `A` operand: row `r` starts at
/// `base + (r / inner)·outer_stride + (r % inner)·inner_stride` (elements).
#[derive(Clone, Copy, Debug)]
pub struct RowsA {
    /// Row 0.
    pub base: *const f32,
    /// Stride between groups of `inner` rows (e.g. time steps).
    pub outer_stride: isize,
    /// Stride between rows of a group (e.g. batch rows).
    pub inner_stride: isize,
    /// Rows per group (≥ 1).
    pub inner: usize,
}

// SAFETY: a read-only operand description; the GEMM only reads through it.
unsafe impl Send for RowsA {}
unsafe impl Sync for RowsA {}

impl RowsA {
    /// Address of row `r` (wrapping arithmetic: computing it is always safe).
    #[inline]
    pub fn row(&self, r: usize) -> *const f32 {
        // (No division for the rows of the first group: most GEMMs have one.)
        let (o, i) = if r < self.inner {
            (0, r)
        } else {
            (r / self.inner, r % self.inner)
        };
        self.base
            .wrapping_offset(o as isize * self.outer_stride + i as isize * self.inner_stride)
    }

    /// Whether rows `rows` are `inner_stride` apart throughout (in one group, or groups
    /// spaced as their rows).
    pub fn evenly_spaced(&self, rows: &std::ops::Range<usize>) -> bool {
        rows.len() < 2
            || rows.start / self.inner == (rows.end - 1) / self.inner
            || self.outer_stride == (self.inner as isize).wrapping_mul(self.inner_stride)
    }
}

/// One packed column panel: `K` rows of `width` floats, stored as blocks of `block` columns
/// (see `memory::packed`), each row after row on its own: block `j` holds columns
/// `j·block..`, from `ptr + j·stride`, with row stride `ld` — or, for a last block narrower
/// than `block`, its own width.
#[derive(Clone, Copy, Debug)]
pub struct Panel {
    /// Row 0 of the first block.
    pub ptr: *const f32,
    /// Row stride of the full blocks, in floats.
    pub ld: usize,
    /// Columns; a multiple of [`CHUNK`].
    pub width: usize,
    /// Columns per block (`width` when the panel is one block); a multiple of [`CHUNK`].
    pub block: usize,
    /// Floats from one block's row 0 to the next one's (unused with one block).
    pub stride: usize,
    /// What a row holds: the GEMM that reads the panel ([`gemm_sum`] dispatches on it).
    pub packing: Packing,
}

/// What the 4-byte words of a packed panel hold (`memory::packed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// One f32 per column: a row is one row of `K`.
    F32,
    /// Two bf16 per column (rows `2p`, `2p + 1` of `K` in the low and high half): a row is two
    /// rows of `K` (`kernels::gemm_bf16`). Lengths in words and rows, `ld` and `stride`
    /// included, are counted as for f32.
    Bf16Pairs,
}

impl Panel {
    /// A panel of f32 stored as one block.
    pub fn dense(ptr: *const f32, ld: usize, width: usize) -> Self {
        Self {
            ptr,
            ld,
            width,
            block: width,
            stride: 0,
            packing: Packing::F32,
        }
    }

    /// Number of blocks.
    fn block_count(&self) -> usize {
        self.width.div_ceil(self.block.max(1))
    }

    /// Block `j`: (row 0, row stride, columns).
    fn block_at(&self, j: usize) -> (*const f32, usize, std::ops::Range<usize>) {
        let cols = j * self.block..self.width.min((j + 1) * self.block);
        let ld = if cols.len() == self.block {
            self.ld
        } else {
            cols.len()
        };
        (self.ptr.wrapping_add(j * self.stride), ld, cols)
    }

    /// The blocks, in column order.
    fn blocks(&self) -> impl Iterator<Item = (*const f32, usize, std::ops::Range<usize>)> + '_ {
        (0..self.block_count()).map(|j| self.block_at(j))
    }

    /// Columns `cols` as a panel of their own: inside one block, or whole blocks.
    pub fn columns(&self, cols: std::ops::Range<usize>) -> Self {
        let j = cols.start / self.block;
        let (ptr, ld, inside) = self.block_at(j);
        if cols.end <= inside.end {
            Self {
                packing: self.packing,
                ..Self::dense(ptr.wrapping_add(cols.start - inside.start), ld, cols.len())
            }
        } else {
            debug_assert!(cols.start == inside.start);
            Self {
                ptr,
                width: cols.len(),
                ..*self
            }
        }
    }
}

/// What `C` starts from.
#[derive(Clone, Copy, Debug)]
pub enum Init {
    /// `C = A·B`.
    Zero,
    /// `C = row + A·B`, the same `width`-float row (e.g. the bias) for every row of `C`.
    Row(*const f32),
    /// `C += A·B`, the product added at the end (the multiply-add chains do not wait for `C`).
    Accumulate,
    /// `C += A·B` with the multiply-add chains starting from `C`: `C` holds the partial sums of
    /// the earlier `K` blocks of the same product (near: just written), and the result has the
    /// same bits as one block over the whole `K`.
    Continue,
}

/// Micro-kernels of one tile width, indexed by `MR − 1`.
pub(super) struct Kernels {
    /// 16-float vectors per tile row (tile width = 16·vectors columns).
    pub(super) vectors: usize,
    /// Vectors read from a panel's first block; fewer than `vectors` for tiles that span both
    /// blocks of a two-block panel (the rest come from the second block).
    pub(super) split: usize,
    /// `table[MR − 1]` computes `MR` rows.
    pub(super) table: &'static [MicroFn],
}

/// Register tile shapes for one instruction set (and element type).
pub(super) struct Shapes {
    /// For row counts above the small tiles': wide tiles over as many columns as they fit.
    pub(super) wide: Option<Kernels>,
    /// For the columns left (and when there is no `wide`): the tallest tiles.
    pub(super) tall: Kernels,
    /// For row counts above the small tiles' on a panel of two 32-wide blocks (two one-gate
    /// panels side by side): tiles across both blocks, two vectors from each.
    pub(super) pair: Option<Kernels>,
    /// For small row counts (small batch): wider tiles, widest first — more columns per
    /// broadcast of `A`, and whole rows of `B` as sequential streams (8 vectors split 4 + 4: a
    /// whole row of both blocks of an LSTM panel; 6 split 4 + 2: of a GRU panel, one pass over
    /// both blocks rather than one per block — LBR-GRU batch 1, paired on a Xeon: C1760 0.863 /
    /// 0.856, C512 0.911, C256 0.921; batch 2 C1024 0.966).
    pub(super) small: &'static [Kernels],
}

/// `(segments of K, B row stride, second B stream's row stride, C, C row stride, init)`.
pub(super) type MicroFn = unsafe fn(&[Segment], usize, usize, *mut f32, usize, Init);

/// The multiply-add of a micro-kernel: what one `k` step reads of `B` (a row of 4-byte words)
/// and of each row of `A` (one word), and how they enter the f32 accumulators.
pub(super) trait Mac {
    /// The accumulators.
    type V: Vector;
    /// One word of a row of `A`, ready for the products.
    type A: Copy;
    /// 16 words of a row of `B`, ready for the products.
    type B: Copy;
    /// # Safety
    /// `p` has one readable word.
    unsafe fn load_a(p: *const f32) -> Self::A;
    /// # Safety
    /// `p` has 16 readable words.
    unsafe fn load_b(p: *const f32) -> Self::B;
    /// `acc + a·b` for the words' values.
    fn mac(acc: Self::V, a: Self::A, b: Self::B) -> Self::V;
}

/// f32 words: `acc + a·b` as one multiply-add.
pub(super) struct F32Mac<V>(std::marker::PhantomData<V>);

impl<V: Vector> Mac for F32Mac<V> {
    type V = V;
    type A = V;
    type B = V;
    #[inline(always)]
    unsafe fn load_a(p: *const f32) -> V {
        V::splat(unsafe { *p })
    }
    #[inline(always)]
    unsafe fn load_b(p: *const f32) -> V {
        unsafe { V::load(p) }
    }
    #[inline(always)]
    fn mac(acc: V, a: V, b: V) -> V {
        V::mul_add(a, b, acc)
    }
}

/// A run of `K` a micro-kernel call multiplies: `k` columns of `A` (the tile's row pointers,
/// at the run's first column) by `k` rows of `B` (from `b` and, for tiles spanning two blocks,
/// `b1`), fetching one line of `pf` per `k` step (the first `pf.count` steps) or, when `ahead`
/// is not 0, the `B` row `ahead` rows on into L1. A call sums several runs into one register
/// tile: the `K` blocks of the terms of [`gemm_sum`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Segment {
    k: usize,
    a: *const *const f32,
    b: *const f32,
    b1: *const f32,
    pf: Lines,
    ahead: usize,
}

impl Segment {
    /// A run of `k` steps on one block of `B`, with no prefetches.
    pub(super) fn plain(k: usize, a: *const *const f32, b: *const f32) -> Self {
        Self {
            k,
            a,
            b,
            b1: b,
            pf: Lines::NONE,
            ahead: 0,
        }
    }
}

/// A run of consecutive cache lines (16 floats each) of `B` that a coming tile will read.
#[derive(Clone, Copy, Debug)]
struct Lines {
    /// The first line.
    ptr: *const f32,
    /// How many.
    count: usize,
}

impl Lines {
    const NONE: Lines = Lines {
        ptr: std::ptr::null(),
        count: 0,
    };

    /// Rows `0..rows` of a block of `B` with row stride `ld` (whole rows).
    fn rows(ptr: *const f32, rows: usize, ld: usize) -> Self {
        Self {
            ptr,
            count: (rows * ld).div_ceil(LANES),
        }
    }

    /// Part `i` of `parts` nearly equal parts, at most `most` lines long.
    fn part(self, i: usize, parts: usize, most: usize) -> Self {
        let len = self.count.div_ceil(parts).min(most);
        let start = (i * len).min(self.count);
        Self {
            ptr: self.ptr.wrapping_add(start * LANES),
            count: len.min(self.count - start),
        }
    }
}

/// The micro-kernel: `C[MR × 16·NR] (init)= Σ A[MR × k] · B[k × 16·NR]` over the segments,
/// with the multiply-adds of `M` (f32: over vectors `V`). The first `S` vectors of each row of `B` come from a segment's `b` (row
/// stride `ldb`), the others from its `b1` (row stride `ldb1`): a tile can span both blocks of a
/// two-block panel, reading each as one sequential stream. Iteration `kk` of a segment also asks
/// the caches for line `kk` of its `pf` (the first `pf.count` iterations) or, when its `ahead`
/// is not 0, for row `kk + ahead` of `B` (see [`gemm_sum`]).
///
/// # Safety
/// For each segment: `a` points to `MR` row pointers with `k` readable floats each; `b` to `k`
/// rows (stride `ldb`) of `16·S` floats and, when `S < NR`, `b1` to `k` rows (stride `ldb1`) of
/// `16·(NR − S)`. `c` points to `MR` rows (stride `ldc`) of `16·NR` writable floats; an
/// `Init::Row` pointer to `16·NR` floats. The caller is compiled with the features `M` uses.
#[inline(always)]
pub(super) unsafe fn micro_body<M: Mac, const MR: usize, const NR: usize, const S: usize>(
    segments: &[Segment],
    ldb: usize,
    ldb1: usize,
    c: *mut f32,
    ldc: usize,
    init: Init,
) {
    unsafe {
        type V<M> = <M as Mac>::V;
        let mut acc = [[V::<M>::zero(); NR]; MR];
        match init {
            Init::Row(r) => {
                for row in acc.iter_mut() {
                    for (j, v) in row.iter_mut().enumerate() {
                        *v = V::<M>::load(r.add(j * LANES));
                    }
                }
            }
            Init::Continue => {
                for (i, row) in acc.iter_mut().enumerate() {
                    for (j, v) in row.iter_mut().enumerate() {
                        *v = V::<M>::load(c.add(i * ldc + j * LANES));
                    }
                }
            }
            // Added at the end: the multiply-add chains do not wait for `C` (often far from
            // the core: gates the layer GEMM wrote several steps before).
            Init::Zero | Init::Accumulate => {}
        }
        for seg in segments {
            let a = &*(seg.a as *const [*const f32; MR]);
            let (mut bp, mut bp1) = (seg.b, seg.b1);
            // One `k` step: a row of `B` times column `kk` of `A`, into the accumulators (a macro:
            // used by two loops, and a closure would keep the accumulators in memory).
            macro_rules! step {
                ($kk:expr) => {
                    // (Loops, not `array::from_fn`: its closure is not inlined into the
                    // kernel's target features.)
                    let mut bv = [M::load_b(bp); NR];
                    for (j, v) in bv.iter_mut().enumerate().skip(1) {
                        *v = if j < S {
                            M::load_b(bp.add(j * LANES))
                        } else {
                            M::load_b(bp1.add((j - S) * LANES))
                        };
                    }
                    for i in 0..MR {
                        let av = M::load_a(a[i].add($kk));
                        for j in 0..NR {
                            acc[i][j] = M::mac(acc[i][j], av, bv[j]);
                        }
                    }
                    bp = bp.add(ldb);
                    if S < NR {
                        bp1 = bp1.add(ldb1);
                    }
                };
            }
            // Separate loops, so that the steps without a prefetch test nothing.
            if seg.ahead > 0 {
                let (ahead, ahead1) = (seg.ahead * ldb, seg.ahead * ldb1);
                for kk in 0..seg.k {
                    for j in 0..NR {
                        prefetch_line::<true>(if j < S {
                            bp.wrapping_add(ahead + j * LANES)
                        } else {
                            bp1.wrapping_add(ahead1 + (j - S) * LANES)
                        });
                    }
                    step!(kk);
                }
                continue;
            }
            let fetched = seg.pf.count.min(seg.k);
            for kk in 0..fetched {
                prefetch_line::<false>(seg.pf.ptr.wrapping_add(kk * LANES));
                step!(kk);
            }
            for kk in fetched..seg.k {
                step!(kk);
            }
        }
        for (i, row) in acc.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                let p = c.add(i * ldc + j * LANES);
                match init {
                    Init::Accumulate => V::<M>::add(V::<M>::load(p), v),
                    _ => v,
                }
                .store(p);
            }
        }
    }
}

/// Instantiates [`micro_body`] as a [`MicroFn`] for one [`Mac`] and target feature set.
macro_rules! micro_fn {
    ($(#[$attr:meta])* $name:ident, $mac:ty) => {
        $(#[$attr])*
        unsafe fn $name<const MR: usize, const NR: usize, const S: usize>(
            segments: &[$crate::kernels::gemm::Segment],
            ldb: usize,
            ldb1: usize,
            c: *mut f32,
            ldc: usize,
            init: $crate::kernels::gemm::Init,
        ) {
            unsafe {
                $crate::kernels::gemm::micro_body::<$mac, MR, NR, S>(
                    segments, ldb, ldb1, c, ldc, init,
                )
            }
        }
    };
}
pub(super) use micro_fn;

micro_fn!(
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,fma")]
    micro_avx512,
    F32Mac<Lanes<true>>
);
micro_fn!(
    /// Intrinsics registers, for wide tiles (`NR` ≥ 6: the compiler does not keep an array
    /// accumulator of that width in registers; intrinsics it does).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,fma")]
    micro_avx512_wide,
    F32Mac<std::arch::x86_64::__m512>
);
micro_fn!(
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    micro_avx2,
    F32Mac<Lanes<true>>
);
micro_fn!(micro_portable, F32Mac<Lanes<false>>);

/// The [`MicroFn`]s of a micro-kernel for `MR` in a list, at `NR` vectors (`S` of them from the
/// first block: `NR` unless given).
macro_rules! micro_table {
    ($f:ident, $nr:literal, [$($mr:literal),*]) => {
        &[$($f::<$mr, $nr, $nr> as $crate::kernels::gemm::MicroFn),*]
    };
    ($f:ident, $nr:literal, $s:literal, [$($mr:literal),*]) => {
        &[$($f::<$mr, $nr, $s> as $crate::kernels::gemm::MicroFn),*]
    };
}
pub(super) use micro_table;

/// The AVX-512 register tiles over a micro-kernel family: `$wide` for the tiles of 4 vectors
/// and more (intrinsics accumulators), `$narrow` for the others — for every [`Mac`] whose `B`
/// takes one register per vector and `A` one broadcast (f32 and `vdpbf16ps`).
macro_rules! avx512_shapes {
    ($wide:ident, $narrow:ident) => {
        $crate::kernels::gemm::Shapes {
            wide: Some($crate::kernels::gemm::Kernels {
                vectors: 4,
                split: 4,
                table: $crate::kernels::gemm::micro_table!($wide, 4, [1, 2, 3, 4, 5, 6]),
            }),
            tall: $crate::kernels::gemm::Kernels {
                vectors: 2,
                split: 2,
                table: $crate::kernels::gemm::micro_table!(
                    $narrow,
                    2,
                    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
                ),
            },
            pair: Some($crate::kernels::gemm::Kernels {
                vectors: 4,
                split: 2,
                table: $crate::kernels::gemm::micro_table!($wide, 4, 2, [1, 2, 3, 4, 5, 6]),
            }),
            small: &[
                $crate::kernels::gemm::Kernels {
                    vectors: 8,
                    split: 8,
                    table: $crate::kernels::gemm::micro_table!($wide, 8, [1, 2]),
                },
                $crate::kernels::gemm::Kernels {
                    vectors: 8,
                    split: 4,
                    table: $crate::kernels::gemm::micro_table!($wide, 8, 4, [1, 2]),
                },
                $crate::kernels::gemm::Kernels {
                    vectors: 6,
                    split: 4,
                    table: $crate::kernels::gemm::micro_table!($wide, 6, 4, [1, 2]),
                },
                $crate::kernels::gemm::Kernels {
                    vectors: 6,
                    split: 6,
                    table: $crate::kernels::gemm::micro_table!($wide, 6, [1, 2, 3, 4]),
                },
                $crate::kernels::gemm::Kernels {
                    vectors: 4,
                    split: 4,
                    table: $crate::kernels::gemm::micro_table!($narrow, 4, [1, 2, 3, 4]),
                },
            ],
        }
    };
}
pub(super) use avx512_shapes;

#[cfg(target_arch = "x86_64")]
static AVX512: Shapes = avx512_shapes!(micro_avx512_wide, micro_avx512);
/// AVX2 (16 ymm registers): tiles of up to 6 rows × 16 columns (12 accumulators), so that `B`
/// is re-read from L2 once per 6 rows rather than per 2; for one or two rows (batch-1 or -2
/// steps) wider tiles, a whole 64-column block of a panel per pass over `K` for one row.
#[cfg(target_arch = "x86_64")]
static AVX2: Shapes = Shapes {
    wide: None,
    tall: Kernels {
        vectors: 1,
        split: 1,
        table: micro_table!(micro_avx2, 1, [1, 2, 3, 4, 5, 6]),
    },
    pair: None,
    small: &[
        Kernels {
            vectors: 4,
            split: 4,
            table: micro_table!(micro_avx2, 4, [1]),
        },
        Kernels {
            vectors: 2,
            split: 2,
            table: micro_table!(micro_avx2, 2, [1, 2]),
        },
    ],
};
static PORTABLE: Shapes = Shapes::narrow(micro_table!(micro_portable, 2, [1, 2]));

impl Shapes {
    /// The shapes of the narrow vector units (portable, bf16 widened on AVX2): 2-vector tiles
    /// of the rows `table` computes, nothing wider.
    pub(super) const fn narrow(table: &'static [MicroFn]) -> Self {
        Self {
            wide: None,
            tall: Kernels {
                vectors: 2,
                split: 2,
                table,
            },
            pair: None,
            small: &[],
        }
    }
}

fn shapes(isa: Isa) -> &'static Shapes {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 | Isa::Amx => &AVX512,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => &AVX2,
        _ => &PORTABLE,
    }
}

/// Asks the caches for `rows` rows of `width` floats at stride `ld` that a coming GEMM will read
/// (e.g. gate pre-activations written several steps before, long out of the core's caches), so
/// the misses overlap the current work rather than stall the coming tiles. A hint: it never
/// faults, whatever the addresses.
pub fn prefetch_rows(ptr: *const f32, rows: usize, ld: usize, width: usize) {
    prefetch_byte_rows(ptr.cast(), rows, 4 * ld, 4 * width);
}

/// [`prefetch_rows`] of `rows` rows of `width` bytes at a stride of `ld` bytes.
pub fn prefetch_byte_rows(ptr: *const u8, rows: usize, ld: usize, width: usize) {
    #[cfg(target_arch = "x86_64")]
    prefetch_with::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr, rows, ld, width);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (ptr, rows, ld, width);
}

/// Like [`prefetch_rows`], for rows a coming tile will write (not read): the lines arrive owned,
/// so the stores do not wait for them (training's workspace rows, written once per step).
pub fn prefetch_rows_for_write(ptr: *const f32, rows: usize, ld: usize, width: usize) {
    #[cfg(target_arch = "x86_64")]
    prefetch_with::<{ std::arch::x86_64::_MM_HINT_ET0 }>(ptr.cast(), rows, 4 * ld, 4 * width);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (ptr, rows, ld, width);
}

/// Asks the caches for the line at `ptr` (into L1 if `L1`, else into L2): a hint that never
/// faults.
#[inline(always)]
fn prefetch_line<const L1: bool>(ptr: *const f32) {
    // SAFETY: a prefetch does not access memory architecturally.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        if L1 {
            _mm_prefetch::<_MM_HINT_T0>(ptr.cast())
        } else {
            _mm_prefetch::<_MM_HINT_T1>(ptr.cast())
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

/// Prefetches every cache line of `rows` rows of `width` bytes, `ld` bytes apart (a row that
/// does not start on a line spans one more).
#[cfg(target_arch = "x86_64")]
fn prefetch_with<const HINT: i32>(ptr: *const u8, rows: usize, ld: usize, width: usize) {
    if width == 0 {
        return;
    }
    for r in 0..rows {
        let row = ptr.wrapping_add(r * ld);
        let lines = (row as usize % 64 + width).div_ceil(64);
        let first = row.wrapping_sub(row as usize % 64);
        for line in 0..lines {
            // SAFETY: a prefetch does not access memory architecturally.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<HINT>(first.wrapping_add(64 * line).cast())
            };
        }
    }
}

/// The `K` block of a product of `m` rows into `init` from `b`: on Intel, [`KC_L1`] when the
/// tiles of a column, re-reading their `B` from L1 rather than L2, are many — at least 8 of the
/// wide tiles, or 6 when `B` streams from beyond L2 (L2 then also takes the stream) — and the
/// product starts from a row or from zero (later blocks continue the chains: same result bits
/// whatever the block); else [`KC`].
///
/// The gain is L2 spared while it also serves the stream and the other traffic: one thread
/// alone with `B` in L2 runs faster with [`KC`], and so does every workload on AMD Zen 4, whose
/// 32 KiB L1 a `KC_L1` block of `B` fills.
fn k_block(shapes: &Shapes, m: usize, b: &Panel, init: Init, streamed: bool) -> usize {
    let Some(wide) = shapes.wide.as_ref().filter(|_| super::isa::intel_cpu()) else {
        return KC;
    };
    let (tiles, ..) = row_tiles(m, wide.table.len());
    let many = tiles >= 8 || (streamed && tiles >= 6);
    let continued = !matches!(init, Init::Accumulate | Init::Continue);
    if many && continued && m <= KC_L1_MAX_ROWS && b.width >= wide.vectors * LANES {
        KC_L1
    } else {
        KC
    }
}

/// Splits `m` rows into `ceil(m / max)` tiles of nearly equal height; returns (tiles, base height,
/// number of tiles one row taller).
pub(super) fn row_tiles(m: usize, max: usize) -> (usize, usize, usize) {
    let tiles = m.div_ceil(max);
    (tiles, m / tiles, m % tiles)
}

/// Row tiles a column needs before its later tiles fetch the next column's `B` (one line per `k`
/// step). The first tile streams its `B` from L3; the later ones re-read it from L2, which
/// leaves room for the requests. With 3 tiles (M = 16) the requests cost more than they gave
/// on Zen 5 (A/B up to 5 % slower) and gave more than they cost on a Xeon (paired runs: LSTMP
/// W8 0.945 / 0.955, its training X6 0.958 / 0.944, LSTM bidirectional N16 training X5 0.975
/// / 0.974). With 2 tiles too on the Xeon: GNMT decoder N10 T1 (two 5-row tiles per column)
/// 0.934 / 0.934 (174 and 181 of 200 rounds faster), GRU N16 0.983, LSTM N8 0.983, vanilla
/// N20 0.976, LSTM N10 training 0.965; W2–W10 and X1–X6 within noise (0.968–1.008). So 2 on
/// Intel, else 4. (Also on the Xeon, not adopted: the whole next column, up to 4 lines per `k`
/// step, 1.04 against one line; 2 lines 0.99; the column after next rather than the next one,
/// W2 / W3 / W8 1.03–1.04.)
fn prefetch_min_tiles() -> usize {
    if super::isa::intel_cpu() {
        2
    } else {
        4
    }
}

/// Rows of `B` ahead of the `k` step that the first tile of a column fetches into L1, one line
/// per vector per step, when it streams a `B` the previous column's tiles did not fetch whole
/// (fewer later tiles than the tile has vectors; see [`prefetch_min_tiles`]) and has at least
/// [`AHEAD_MIN_ROWS`] rows; 0 for none. On Intel only, where such a column waits on `B` from
/// L3 (the hardware prefetcher stops at each 4 KiB page).
fn fetch_ahead_rows() -> usize {
    if super::isa::intel_cpu() {
        16
    } else {
        0
    }
}

/// Fewest rows a tile needs for [`fetch_ahead_rows`]: a 1-row tile is all loads, and the
/// prefetches cost it more than they gave (GRU N1, hint T0 8 rows ahead: 1.046 slower).
const AHEAD_MIN_ROWS: usize = 4;

/// Most pieces of terms one micro-kernel call sums in a `K` block.
const MAX_PIECES: usize = 2;

/// One product of a sum ([`gemm_sum`]): `A[rows × k] · B[k × width]`.
#[derive(Clone, Copy, Debug)]
pub struct Term {
    /// The rows of `A`, `k` readable floats each.
    pub a: RowsA,
    /// `K` of this product.
    pub k: usize,
    /// `B`: `k` rows.
    pub b: Panel,
    /// `A` holds bf16 values in pairs rather than floats (only with a `B` of
    /// [`Packing::Bf16Pairs`]): `a` counts 4-byte words, word `q` of a row holding elements
    /// `2q` (low half) and `2q + 1`; `k` (still counting elements) is even. The bf16 GEMM reads
    /// such rows as they are, without converting them.
    pub a_pairs: bool,
}

/// Rows `k0..k0 + kb` of `K` of term `term`: a part of a `K` block.
#[derive(Clone, Copy, Debug, Default)]
struct Piece {
    term: usize,
    k0: usize,
    kb: usize,
}

/// Calls `f` with each `K` block of the terms, in order: at most `kc` rows of `K` in at most
/// [`MAX_PIECES`] pieces (consecutive terms short enough share a block). When every term is
/// empty, one empty block, so that `C` is still initialized.
fn for_each_k_block(terms: &[Term], kc: usize, mut f: impl FnMut(&[Piece])) {
    let mut block = [Piece::default(); MAX_PIECES];
    let (mut n, mut room, mut any) = (0, kc, false);
    for (term, t) in terms.iter().enumerate() {
        let mut k0 = 0;
        while k0 < t.k {
            let kb = room.min(t.k - k0);
            block[n] = Piece { term, k0, kb };
            (n, room, k0) = (n + 1, room - kb, k0 + kb);
            if room == 0 || n == MAX_PIECES {
                f(&block[..n]);
                (n, room, any) = (0, kc, true);
            }
        }
    }
    if n > 0 || !any {
        f(&block[..n.max(1)]);
    }
}

/// What one column of tiles reads of one piece: rows `k0..k0 + kb` of term `term`, from `b` in
/// its block of `B` (and `b1` in the second block, for tiles spanning both).
#[derive(Clone, Copy)]
struct ColumnPiece {
    term: usize,
    k0: usize,
    kb: usize,
    b: *const f32,
    b1: *const f32,
}

/// One column of register tiles: shapes `ks` over the columns `j0..` of one `K` block
/// (`pieces[..n]`), whose `B` rows have stride `ldb`.
#[derive(Clone, Copy)]
struct Column {
    ks: &'static Kernels,
    ldb: usize,
    j0: usize,
    pieces: [ColumnPiece; MAX_PIECES],
    n: usize,
    init: Init,
}

impl Column {
    /// The lines of `B` each piece of the column reads, when they are consecutive (the column
    /// spans whole rows of its block, as in LSTM panels); else none (a narrower column reads a
    /// piece of each row: fetching whole rows made GRU steps 2–4 % slower).
    fn lines(&self) -> [Lines; MAX_PIECES] {
        let mut lines = [Lines::NONE; MAX_PIECES];
        if self.whole_rows() {
            for (l, p) in lines.iter_mut().zip(&self.pieces[..self.n]) {
                *l = Lines::rows(p.b, p.kb, self.ldb);
            }
        }
        lines
    }

    /// Whether the column's tiles span whole rows of its block of `B`.
    fn whole_rows(&self) -> bool {
        self.ks.vectors * LANES == self.ldb
    }
}

/// `C[rows × width] (init)= A[rows × k] · B[k × width]` for rows `rows` of `a`: [`gemm_sum`] of
/// one term.
///
/// # Safety
/// As [`gemm_sum`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm(
    isa: Isa,
    a: &RowsA,
    rows: std::ops::Range<usize>,
    k: usize,
    b: &Panel,
    c: *mut f32,
    ldc: usize,
    init: Init,
    fetch: Fetch,
) {
    let term = Term {
        a: *a,
        k,
        b: *b,
        a_pairs: false,
    };
    unsafe { gemm_sum(isa, &[term], rows, c, ldc, init, fetch) }
}

/// `C[rows × width] (init)= Σ A·B` over the terms (at least one), for rows `rows` of each
/// term's `A`; row `r` of the range goes to `c + (r − rows.start)·ldc`. The terms' panels have
/// the same layout (`width`, `block`, `ld`). Terms whose `K` together fit one block (`KC`)
/// accumulate in the same register tiles, each tile stored once (an LSTMP step's `x·W + h·U`,
/// `K` = 256 each, 16 rows: 216–220 against 213–214 GFLOP/s as two GEMMs, one thread, four
/// rounds of criterion's `gemm_two_terms_k256`; 32 rows: within 1 %). `fetch` says what comes
/// next and whether `B` is streamed.
///
/// # Safety
/// For every term: each addressed row of `a` has `k` readable floats; `b` has `k` rows of
/// `b.width` readable floats at stride `b.ld`. `c` has `rows.len()` rows of `width` writable
/// floats at stride `ldc`, not overlapping any `a` or `b`; an `Init::Row` pointer has `width`
/// floats. `isa` must be supported by the CPU. (`fetch.next` is only prefetched: any address is
/// safe.)
pub unsafe fn gemm_sum(
    isa: Isa,
    terms: &[Term],
    rows: std::ops::Range<usize>,
    c: *mut f32,
    ldc: usize,
    init: Init,
    fetch: Fetch,
) {
    match terms[0].b.packing {
        Packing::F32 => unsafe {
            debug_assert!(terms.iter().all(|t| !t.a_pairs));
            tiles(shapes(isa), terms, rows, c, ldc, init, fetch)
        },
        Packing::Bf16Pairs => unsafe {
            super::gemm_bf16::gemm_sum(isa, terms, rows, c, ldc, init, fetch)
        },
    }
}

/// [`gemm_sum`] with the micro-kernels of `shapes`, whose `k` step is one row of `B`; every
/// `K` here counts rows of `B` and words of `A`.
///
/// # Safety
/// As [`gemm_sum`]; the CPU runs the micro-kernels of `shapes`.
pub(super) unsafe fn tiles(
    shapes: &'static Shapes,
    terms: &[Term],
    rows: std::ops::Range<usize>,
    c: *mut f32,
    ldc: usize,
    init: Init,
    fetch: Fetch,
) {
    let b = terms[0].b;
    debug_assert!(b.width.is_multiple_of(CHUNK));
    debug_assert!(terms.iter().all(
        |t| (t.b.width, t.b.block, t.b.ld, t.b.packing) == (b.width, b.block, b.ld, b.packing)
    ));
    let m = rows.len();
    if m == 0 || b.width == 0 {
        return;
    }
    // Small row counts take the widest small tiles that fit, in one row tile (for a two-block
    // panel, first a tile spanning both blocks); the others the wide tiles while the columns
    // last, then the tallest 2-vector tiles — or, on a panel of two 32-wide blocks, the pair
    // tiles across both. Every other tile stays inside one block.
    let fits = |ks: &&Kernels| m <= ks.table.len();
    let small = shapes.small.iter().any(|ks| fits(&ks));
    let spans = |ks: &&Kernels| {
        b.block_count() == 2 && ks.split * LANES == b.block && ks.vectors * LANES == b.width
    };
    let spanning = if small {
        shapes.small.iter().filter(fits).find(spans)
    } else {
        shapes.pair.iter().find(spans)
    };
    let mut ptrs = [[std::ptr::null::<f32>(); 16]; MAX_PIECES];
    // Row stride of the second block, which tiles spanning two blocks also read.
    let ldb1 = b.block_at(1).1;
    let (min_tiles, ahead_rows) = (prefetch_min_tiles(), fetch_ahead_rows());
    let kc = k_block(shapes, m, &b, init, fetch.streamed);
    // Runs one column; its later tiles fetch `then` (piece by piece).
    let mut run = |col: Column, then: [Lines; MAX_PIECES]| {
        let mr_max = if small { m } else { col.ks.table.len() };
        let (tiles, base_h, taller) = row_tiles(m, mr_max);
        let init = match col.init {
            Init::Row(r) => Init::Row(r.wrapping_add(col.j0)),
            other => other,
        };
        let n = col.n;
        let mut segments = [Segment {
            k: 0,
            a: std::ptr::null(),
            b: std::ptr::null(),
            b1: std::ptr::null(),
            pf: Lines::NONE,
            ahead: 0,
        }; MAX_PIECES];
        for (seg, p) in segments.iter_mut().zip(&col.pieces[..n]) {
            (seg.k, seg.b, seg.b1) = (p.kb, p.b, p.b1);
        }
        let prefetch = tiles >= min_tiles;
        // Whether the previous column's later tiles (one line per `k` step each) fetched all
        // of this one's `B`.
        let fetched = prefetch && tiles > col.ks.vectors;
        let ahead = if fetched || !col.whole_rows() {
            0
        } else {
            ahead_rows
        };
        let mut i0 = 0;
        for t in 0..tiles {
            let h = base_h + usize::from(t < taller);
            for i in 0..n {
                let p = &col.pieces[i];
                let a = &terms[p.term].a;
                for (r, q) in ptrs[i][..h].iter_mut().enumerate() {
                    *q = a.row(rows.start + i0 + r).wrapping_add(p.k0);
                }
                segments[i].a = ptrs[i].as_ptr();
                if prefetch && t > 0 {
                    segments[i].pf = then[i].part(t - 1, tiles - 1, p.kb);
                }
                segments[i].ahead = if t == 0 && h >= AHEAD_MIN_ROWS {
                    ahead
                } else {
                    0
                };
            }
            let cp = unsafe { c.add(i0 * ldc + col.j0) };
            unsafe { col.ks.table[h - 1](&segments[..n], col.ldb, ldb1, cp, ldc, init) };
            i0 += h;
        }
    };
    // Each column runs when the one after it is known (the last one, with `next`'s first).
    let mut pending: Option<Column> = None;
    let mut visit = |col: Column| {
        if let Some(prev) = pending.replace(col) {
            run(prev, col.lines());
        }
    };
    let mut first_block = true;
    for_each_k_block(terms, kc, |pieces| {
        let init = if first_block { init } else { Init::Continue };
        first_block = false;
        // The column of shapes `ks` at `j0`, `off` columns into block `block` of every panel.
        let column = |ks, block: usize, off: usize, ldb, j0| {
            let empty = ColumnPiece {
                term: 0,
                k0: 0,
                kb: 0,
                b: std::ptr::null(),
                b1: std::ptr::null(),
            };
            let mut col = Column {
                ks,
                ldb,
                j0,
                pieces: [empty; MAX_PIECES],
                n: pieces.len(),
                init,
            };
            for (to, p) in col.pieces.iter_mut().zip(pieces) {
                let t = &terms[p.term].b;
                let row_k0 = |j: usize, ld: usize| t.block_at(j).0.wrapping_add(p.k0 * ld);
                *to = ColumnPiece {
                    term: p.term,
                    k0: p.k0,
                    kb: p.kb,
                    b: row_k0(block, ldb).wrapping_add(off),
                    b1: row_k0(1, ldb1),
                };
            }
            col
        };
        if let Some(ks) = spanning {
            visit(column(ks, 0, 0, b.ld, 0));
            return;
        }
        for (i, (_, ldb, cols)) in b.blocks().enumerate() {
            let mut j0 = cols.start;
            while j0 < cols.end {
                let left = cols.end - j0;
                let fits_left = |ks: &&Kernels| ks.vectors * LANES <= left;
                let one_block = |ks: &&Kernels| ks.split == ks.vectors;
                let ks = if small {
                    shapes
                        .small
                        .iter()
                        .filter(fits)
                        .filter(one_block)
                        .find(fits_left)
                } else {
                    shapes.wide.iter().find(fits_left)
                }
                .unwrap_or(&shapes.tall);
                visit(column(ks, i, j0 - cols.start, ldb, j0));
                j0 += ks.vectors * LANES;
            }
        }
    });
    if let Some(last) = pending {
        // `next`'s first column: the first rows of its first block, when they are consecutive.
        let mut then = [Lines::NONE; MAX_PIECES];
        then[0] = fetch
            .next
            .filter(|(p, _)| p.ld == p.block)
            .map_or(Lines::NONE, |(p, k)| Lines::rows(p.ptr, kc.min(k), p.ld));
        run(last, then);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(
        a: &[f32],
        lda: usize,
        b: &[f32],
        ldb: usize,
        m: usize,
        k: usize,
        w: usize,
    ) -> Vec<f64> {
        let mut c = vec![0f64; m * w];
        for i in 0..m {
            for kk in 0..k {
                for j in 0..w {
                    c[i * w + j] += a[i * lda + kk] as f64 * b[kk * ldb + j] as f64;
                }
            }
        }
        c
    }

    /// `C (init)= A·B` against [`naive`], with `B` stored as one block (`block == width`) or in
    /// blocks of `block` columns.
    fn check(isa: Isa, m: usize, k: usize, width: usize, block: usize, init: &str) {
        let lda = k + 3;
        let ldb = width + 32;
        let ldc = width + 16;
        let a: Vec<f32> = (0..m * lda)
            .map(|i| ((i * 7919) % 97) as f32 / 97.0 - 0.5)
            .collect();
        let b: Vec<f32> = (0..k * ldb)
            .map(|i| ((i * 104_729) % 89) as f32 / 89.0 - 0.5)
            .collect();
        let bias: Vec<f32> = (0..width).map(|i| i as f32 * 0.25).collect();
        let c0: Vec<f32> = (0..m * ldc).map(|i| (i % 5) as f32).collect();
        let rows = RowsA {
            base: a.as_ptr(),
            outer_stride: 0,
            inner_stride: lda as isize,
            inner: usize::MAX,
        };
        // Rows `k0..k0 + kn` of B as a panel, stored in blocks of `block` columns (`block ==
        // width`: B itself, dense), with the copy it points into.
        let blocked = |(k0, kn): (usize, usize)| {
            if block == width {
                return (Vec::new(), Panel::dense(b[k0 * ldb..].as_ptr(), ldb, width));
            }
            let mut blocks = vec![0f32; kn * width];
            for j in 0..width.div_ceil(block) {
                let cols = j * block..width.min((j + 1) * block);
                for kk in 0..kn {
                    let row = &b[(k0 + kk) * ldb..];
                    let at = j * kn * block + kk * cols.len();
                    blocks[at..at + cols.len()].copy_from_slice(&row[cols.clone()]);
                }
            }
            let panel = Panel {
                ptr: blocks.as_ptr(),
                ld: block,
                width,
                block,
                stride: kn * block,
                packing: Packing::F32,
            };
            (blocks, panel)
        };
        let (_blocks, panel) = blocked((0, k));
        let init_v = match init {
            "zero" => Init::Zero,
            "row" => Init::Row(bias.as_ptr()),
            _ => Init::Accumulate,
        };
        let run = |fetch| {
            let mut c = c0.clone();
            unsafe {
                gemm(
                    isa,
                    &rows,
                    0..m,
                    k,
                    &panel,
                    c.as_mut_ptr(),
                    ldc,
                    init_v,
                    fetch,
                )
            };
            c
        };
        let c = run(Fetch::default());
        // The same product as a sum of terms, each over a part of `K`: two terms fill the same
        // `K` blocks as one term (bit-identical results); three terms cut other blocks (checked
        // against the naive product below).
        let (k3, k4) = (k / 3, k / 4);
        let parts = [
            (0, k3),
            (k3, k - k3),
            (0, k),
            (k, 0),
            (0, k4),
            (k4, k4),
            (2 * k4, k - 2 * k4),
        ];
        let copies: Vec<_> = parts.into_iter().map(blocked).collect();
        // Term `i` of `parts`: its rows of `K`.
        let term = |i: usize| Term {
            a: RowsA {
                base: rows.base.wrapping_add(parts[i].0),
                ..rows
            },
            k: parts[i].1,
            b: copies[i].1,
            a_pairs: false,
        };
        let sum = |terms: &[Term]| {
            let mut c = c0.clone();
            let fetch = Fetch {
                next: Some((panel, k)),
                streamed: false,
            };
            unsafe { gemm_sum(isa, terms, 0..m, c.as_mut_ptr(), ldc, init_v, fetch) };
            c
        };
        let shape = format!("{isa:?} m{m} k{k} w{width} block{block} {init}");
        assert_eq!(sum(&[term(0), term(1)]), c, "{shape}");
        assert_eq!(sum(&[term(2), term(3)]), c, "{shape}");
        let three = sum(&[term(4), term(5), term(6)]);
        // A prefetch hint, whatever it points at, changes nothing (with several row tiles per
        // column — from 7 rows on Intel, 19 elsewhere, on 64-wide blocks — the later tiles
        // prefetch; on Intel, the first tiles of 5–14 rows on the dense blocks of two-block
        // panels fetch rows ahead).
        let far = Panel::dense(usize::MAX as *const f32, 64, 64);
        let next = |next, streamed| Fetch { next, streamed };
        assert_eq!(run(next(Some((panel, k)), false)), c, "{shape}");
        assert_eq!(run(next(Some((far, 1 << 20)), false)), c, "{shape}");
        // Streamed `B` (`K` blocks of `KC_L1` from 31 rows on 64-wide blocks, from 48 rows
        // whether streamed or not): later blocks continue the chains, same bits.
        assert_eq!(run(next(None, true)), c, "{shape}");
        let exp = naive(&a, lda, &b, ldb, m, k, width);
        for i in 0..m {
            for j in 0..width {
                let base = match init {
                    "zero" => 0.0,
                    "row" => bias[j] as f64,
                    _ => c0[i * ldc + j] as f64,
                };
                let e = exp[i * width + j] + base;
                for got in [&c, &three] {
                    let g = got[i * ldc + j] as f64;
                    assert!(
                        (g - e).abs() <= 1e-5 * (1.0 + e.abs()) * (k as f64).sqrt(),
                        "{shape} ({i},{j}): {g} vs {e}"
                    );
                }
            }
            // Columns beyond the panel are untouched.
            for j in width..ldc {
                assert_eq!(c[i * ldc + j], c0[i * ldc + j]);
                assert_eq!(three[i * ldc + j], c0[i * ldc + j]);
            }
        }
    }

    #[test]
    fn matches_naive_product_for_every_isa_and_shape() {
        for isa in Isa::all_supported() {
            for &m in &[1, 2, 3, 4, 5, 13, 14, 27, 33, 64] {
                for &(k, w, block) in &[
                    (1, 32, 32),
                    (7, 96, 96),
                    (33, 128, 128),
                    (600, 64, 64),
                    (0, 32, 32),
                    (33, 128, 96),
                    (600, 128, 96),
                    (5, 64, 32),
                    (600, 64, 32),
                    (33, 128, 64),
                    (600, 96, 64),
                    (1100, 128, 64),
                    (1100, 64, 64),
                    (33, 128, 32),
                    (600, 96, 32),
                    (1100, 128, 32),
                ] {
                    for init in ["zero", "row", "acc"] {
                        check(isa, m, k, w, block, init);
                    }
                }
            }
        }
    }

    #[test]
    fn lines_split_into_ordered_bounded_parts() {
        let base = 4096 as *const f32;
        for count in [0, 1, 5, 2048, 3000] {
            for parts in [1, 3, 5] {
                for most in [1, 100, 512, usize::MAX] {
                    let all = Lines { ptr: base, count };
                    let mut end = 0;
                    for i in 0..parts {
                        let part = all.part(i, parts, most);
                        let start = (part.ptr as usize - base as usize) / (4 * LANES);
                        assert!(part.count <= most && start + part.count <= count);
                        if part.count > 0 {
                            assert_eq!(start, end, "{count} {parts} {most} part {i}");
                            end += part.count;
                        }
                    }
                    let each = count.div_ceil(parts).min(most);
                    assert_eq!(end, count.min(parts * each), "{count} {parts} {most}");
                }
            }
        }
    }

    #[test]
    fn two_level_rows_address_time_and_batch() {
        // 3 "steps" of 2 rows, batch-major storage: row (t, n) at n*3*4 + t*4.
        let a: Vec<f32> = (0..24).map(|i| i as f32).collect();
        let rows = RowsA {
            base: a.as_ptr(),
            outer_stride: 4,
            inner_stride: 12,
            inner: 2,
        };
        unsafe {
            assert_eq!(*rows.row(0), 0.0);
            assert_eq!(*rows.row(1), 12.0);
            assert_eq!(*rows.row(2), 4.0);
            assert_eq!(*rows.row(5), 20.0);
        }
    }
}
