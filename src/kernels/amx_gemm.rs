//! GEMM on AMX tiles over the packed layouts whose row is one 4-byte word per column: the int8
//! groups (`memory::packed_int8`: 4 s8 of K per word, `tdpbusd`) and the bf16 pairs (2 bf16 of
//! K per word, `tdpbf16ps`). One packed row of 16 columns is one B tile row (64 bytes), so a
//! B tile is 16 consecutive packed rows of one 16-column vector, read in place (`ldb` apart);
//! an A tile is 16 rows of 16 words of K (64 bytes) of the activations, read in place.
//!
//! Remainders without padding anything in memory: fewer than 16 rows of A → the tiles are
//! configured with that many rows; more, and not a multiple of 16 → the last row block starts
//! 16 rows before the end, overlapping the block before it (when accumulating, its overlapping
//! rows are not stored). Fewer than 16 K words → the tiles are configured with that many;
//! more, and not a multiple of 16 → the last K step reads the last 16 rows of B, and a copy of
//! A's last words with the words of the overlap zeroed (so the step adds only the new ones).

use super::amx::{self, Dot, TileConfig, TILE_ROWS, TILE_ROW_BYTES};
use super::start::Start;

/// Columns of one tile (16 × 4 bytes).
pub const VECTOR: usize = 16;

/// Operands of one tile GEMM: `C[i][v·16 + j] (+)= Σ_k A[i][k] · B[k][v·16 + j]` over the
/// 4-byte words `k` of A's rows and the rows of B, for vectors `v` in `0..vectors`.
#[derive(Clone, Copy, Debug)]
pub struct TileGemm {
    /// Rows of A and C.
    pub m: usize,
    /// A: `m` rows of `4·k` bytes, `lda` bytes apart.
    pub a: *const u8,
    /// Bytes between rows of A.
    pub lda: usize,
    /// B: `k` rows of `vectors` × 64 bytes, `ldb` bytes apart.
    pub b: *const u8,
    /// Bytes between rows of B.
    pub ldb: usize,
    /// Rows of B = 4-byte words of A's rows.
    pub k: usize,
    /// 16-column vectors to compute.
    pub vectors: usize,
    /// C: `m` rows of `16·vectors` 4-byte values, `ldc` bytes apart.
    pub c: *mut u8,
    /// Bytes between rows of C.
    pub ldc: usize,
    /// What C starts from.
    pub start: Start,
}

/// One run of K of a [`gemm_runs`] sum: `k` 4-byte words of A's rows times `k` rows of B.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// A's first row (row 0 of the GEMM): `4·k` bytes per row.
    pub a: *const u8,
    /// Bytes between rows of A.
    pub lda: usize,
    /// B's first row: `vectors` × 64 bytes per row.
    pub b: *const u8,
    /// Bytes between rows of B.
    pub ldb: usize,
    /// Words of K.
    pub k: usize,
}

/// Tiles: accumulators 0..4, A 4 and 5, B 6 and 7.
const A0: usize = 4;
const B0: usize = 6;

/// Most runs summed in the same accumulators; more are summed group after group.
const MAX_RUNS: usize = 2;

/// The configuration for `rows` rows of A (≤ 16) and `words` words of K per step (≤ 16).
fn config(rows: usize, words: usize) -> TileConfig {
    let mut c = TileConfig::new();
    for t in 0..A0 {
        c = c.tile(t, rows, TILE_ROW_BYTES);
    }
    for t in A0..B0 {
        c = c.tile(t, rows, 4 * words);
    }
    for t in B0..8 {
        c = c.tile(t, words, TILE_ROW_BYTES);
    }
    c
}

/// One block of (up to) 16 rows of A and C.
#[derive(Clone, Copy)]
struct Rows {
    /// Each run's first row of A in the block.
    a: [*const u8; MAX_RUNS],
    /// C's first row.
    c: *mut u8,
    /// Each run's masked copy of A's last K step (16 rows of 64 bytes), when it has one.
    last: [*const u8; MAX_RUNS],
    /// Rows to store from the end, when not all (the overlapping last block, accumulating).
    keep: usize,
}

/// The K steps of one run.
#[derive(Clone, Copy)]
struct Steps {
    /// Steps reading A in place: A's words `16s..16s + 16` (or all, when fewer than 16).
    full: usize,
    /// B's row of the masked last step, when there is one.
    last_row: Option<usize>,
    lda: usize,
    b: *const u8,
    ldb: usize,
}

impl Steps {
    fn of(r: &Run) -> Self {
        let masked = r.k > TILE_ROWS && !r.k.is_multiple_of(TILE_ROWS);
        Self {
            full: r.k.div_ceil(TILE_ROWS) - masked as usize,
            last_row: masked.then(|| r.k - TILE_ROWS),
            lda: r.lda,
            b: r.b,
            ldb: r.ldb,
        }
    }
}

/// The runs of one group and how C starts and is stored.
#[derive(Clone, Copy)]
struct Group {
    steps: [Steps; MAX_RUNS],
    runs: usize,
    ldc: usize,
    start: Start,
}

/// Runs one tile GEMM with the dot product `D`, up to 4 blocks of 16 rows in the accumulators
/// at once (4 × 1 vector).
///
/// # Safety
/// AMX with `D` available (`amx::int8` / `amx::bf16`); the operands address what [`TileGemm`]
/// describes; C overlaps neither A nor B.
pub unsafe fn gemm<D: Dot>(op: &TileGemm) {
    // SAFETY: the caller's contract.
    unsafe { sum_runs::<D>(&[op.run()], op.m, op.vectors, op.c, op.ldc, op.start, 4) }
}

impl TileGemm {
    /// Its product as a run of a [`gemm_runs`] sum.
    pub fn run(&self) -> Run {
        Run {
            a: self.a,
            lda: self.lda,
            b: self.b,
            ldb: self.ldb,
            k: self.k,
        }
    }
}

/// `C[i][v·16 + j] (start)+= Σ_runs Σ_k A[i][k] · B[k][v·16 + j]` with the dot product `D`,
/// for `m` rows and vectors `v` in `0..vectors`; C's rows `ldc` bytes apart. Runs of at
/// least 16 words of K are summed in the same accumulators (stored once). The accumulators
/// cover 2 row blocks × 2 vectors (each A tile loaded for two vectors: on the Xeon, one
/// thread, bf16 LSTM N=64 C=512 0.86 and LBR-GRU N=32 C=512 0.96 of the time with 4 × 1).
///
/// # Safety
/// AMX with `D` available; every run addresses `m` rows of A and `k` rows of B as [`Run`]
/// says; C has `m` rows of `vectors` × 64 bytes, overlapping neither; a `Start::Row` row has
/// `vectors` × 64 bytes.
pub unsafe fn gemm_runs<D: Dot>(
    runs: &[Run],
    m: usize,
    vectors: usize,
    c: *mut u8,
    ldc: usize,
    start: Start,
) {
    // SAFETY: the caller's contract.
    unsafe { sum_runs::<D>(runs, m, vectors, c, ldc, start, 2) }
}

/// [`gemm_runs`] with up to `row_blocks` (1..=4) blocks of 16 rows in the accumulators at
/// once.
///
/// # Safety
/// As [`gemm_runs`].
unsafe fn sum_runs<D: Dot>(
    runs: &[Run],
    m: usize,
    vectors: usize,
    c: *mut u8,
    ldc: usize,
    start: Start,
    row_blocks: usize,
) {
    if m == 0 || vectors == 0 {
        return;
    }
    let Some(first) = runs.iter().position(|r| r.k > 0) else {
        let zero = [0u8; 64];
        for i in 0..m {
            for v in 0..vectors {
                // SAFETY: C's rows hold `vectors` × 64 bytes (a row start has as many).
                unsafe {
                    let to = c.add(i * ldc + v * 64);
                    match start {
                        Start::Zero => std::ptr::copy_nonoverlapping(zero.as_ptr(), to, 64),
                        Start::Row(r) => std::ptr::copy_nonoverlapping(r.add(v * 64), to, 64),
                        Start::Accumulate => {}
                    }
                }
            }
        }
        return;
    };
    let runs = &runs[first..];
    // Runs of one step configuration share the accumulators; a run of another (fewer than 16
    // words), an empty one or one past `MAX_RUNS` adds to what the ones before stored.
    let words = |r: &Run| r.k.min(TILE_ROWS);
    let mut group = 1;
    while group < runs.len().min(MAX_RUNS)
        && runs[group].k > 0
        && words(&runs[group]) == words(&runs[0])
    {
        group += 1;
    }
    // SAFETY: the caller's contract.
    unsafe {
        group_runs::<D>(&runs[..group], m, vectors, c, ldc, start, row_blocks);
        if group < runs.len() {
            let rest = &runs[group..];
            sum_runs::<D>(rest, m, vectors, c, ldc, Start::Accumulate, row_blocks);
        }
    }
}

/// [`sum_runs`] of runs (1..=`MAX_RUNS`, none empty) of one step configuration.
///
/// # Safety
/// As [`gemm_runs`].
unsafe fn group_runs<D: Dot>(
    runs: &[Run],
    m: usize,
    vectors: usize,
    c: *mut u8,
    ldc: usize,
    start: Start,
    row_blocks: usize,
) {
    let rows = m.min(TILE_ROWS);
    let words = runs[0].k.min(TILE_ROWS);
    let mut steps = [Steps::of(&runs[0]); MAX_RUNS];
    for (s, r) in steps.iter_mut().zip(runs) {
        *s = Steps::of(r);
    }
    let g = Group {
        steps,
        runs: runs.len(),
        ldc,
        start,
    };
    let accumulate = matches!(start, Start::Accumulate);
    // Row blocks: the overlapping last one first (its overlap must read C before the block
    // it overlaps stores it).
    let tail = if m > TILE_ROWS { m % TILE_ROWS } else { 0 };
    let blocks = m.div_ceil(TILE_ROWS);
    let first_row = |i: usize| match (tail, i) {
        (0, _) => i * TILE_ROWS,
        (_, 0) => m - TILE_ROWS,
        _ => (i - 1) * TILE_ROWS,
    };
    // The masked copies of A's last step, per block of a group and run.
    #[repr(C, align(64))]
    struct Last([[u8; TILE_ROWS * TILE_ROW_BYTES]; 4 * MAX_RUNS]);
    let mut last = std::mem::MaybeUninit::<Last>::uninit();
    let last_base = last.as_mut_ptr().cast::<u8>();
    let last_at = |j: usize| last_base.wrapping_add(j * TILE_ROWS * TILE_ROW_BYTES);
    // SAFETY: AMX available (the caller's contract).
    unsafe { amx::configure(&config(rows, words)) };
    let mut i0 = 0;
    while i0 < blocks {
        let r = (blocks - i0).min(row_blocks);
        let rb: [Rows; 4] = std::array::from_fn(|j| {
            let s = first_row(i0 + j.min(r - 1));
            let mut a = [std::ptr::null(); MAX_RUNS];
            let mut lasts = [std::ptr::null(); MAX_RUNS];
            for (q, run) in runs.iter().enumerate() {
                a[q] = run.a.wrapping_add(s * run.lda);
                let buf = last_at(j * MAX_RUNS + q);
                lasts[q] = buf;
                let rem = run.k % TILE_ROWS;
                if g.steps[q].last_row.is_some() && j < r {
                    let skip = 4 * (TILE_ROWS - rem);
                    for i in 0..rows {
                        // SAFETY: A's rows hold `4·k` bytes; the copy's 64.
                        unsafe {
                            let row = buf.add(i * TILE_ROW_BYTES);
                            std::ptr::write_bytes(row, 0, skip);
                            std::ptr::copy_nonoverlapping(
                                run.a.add((s + i) * run.lda + 4 * (run.k - rem)),
                                row.add(skip),
                                4 * rem,
                            );
                        }
                    }
                }
            }
            Rows {
                a,
                c: c.wrapping_add(s * ldc),
                last: lasts,
                keep: if tail != 0 && i0 + j == 0 && accumulate {
                    tail
                } else {
                    TILE_ROWS
                },
            }
        });
        // SAFETY: the blocks' rows exist; the caller's contract for the rest.
        unsafe {
            match r {
                1 => columns::<D, 1>(&g, &rb, vectors),
                2 => columns::<D, 2>(&g, &rb, vectors),
                3 => columns::<D, 3>(&g, &rb, vectors),
                _ => columns::<D, 4>(&g, &rb, vectors),
            }
        }
        i0 += r;
    }
}

/// Every vector for `R` row blocks: 1 block → up to 4 vectors at a time, 2 → 2, else 1.
#[inline(always)]
unsafe fn columns<D: Dot, const R: usize>(g: &Group, rb: &[Rows; 4], vectors: usize) {
    let rb: &[Rows; R] = rb[..R].try_into().unwrap();
    let mut v = 0;
    // SAFETY: the caller's contract.
    unsafe {
        while v < vectors {
            let n = (vectors - v).min(4 / R);
            match n {
                4 => block::<D, R, 4>(g, rb, v),
                3 => block::<D, R, 3>(g, rb, v),
                2 => block::<D, R, 2>(g, rb, v),
                _ => block::<D, R, 1>(g, rb, v),
            }
            v += n;
        }
    }
}

/// `R` row blocks × `V` vectors from vector `v0` (`R·V` ≤ 4 accumulators): the start, every
/// K step of every run, then the store.
#[inline(always)]
unsafe fn block<D: Dot, const R: usize, const V: usize>(g: &Group, rb: &[Rows; R], v0: usize) {
    let col = |r: usize, v: usize| rb[r].c.wrapping_add((v0 + v) * 64);
    // SAFETY: the caller's contract.
    unsafe {
        for r in 0..R {
            for v in 0..V {
                match g.start {
                    Start::Accumulate => amx::load_n(r * V + v, col(r, v), g.ldc),
                    Start::Zero => amx::zero_n(r * V + v),
                    Start::Row(row) => amx::load_n(r * V + v, row.add((v0 + v) * 64), 0),
                }
            }
        }
        for (q, s) in g.steps[..g.runs].iter().enumerate() {
            let b = s.b.add(v0 * 64);
            for k in 0..s.full {
                let a: [*const u8; R] = std::array::from_fn(|r| rb[r].a[q].add(TILE_ROW_BYTES * k));
                step::<D, R, V>(a, s.lda, b.add(TILE_ROWS * k * s.ldb), s.ldb);
            }
            if let Some(row) = s.last_row {
                let a: [*const u8; R] = std::array::from_fn(|r| rb[r].last[q]);
                step::<D, R, V>(a, TILE_ROW_BYTES, b.add(row * s.ldb), s.ldb);
            }
        }
        for (r, rows) in rb.iter().enumerate() {
            for v in 0..V {
                let t = r * V + v;
                let keep = rows.keep;
                if keep == TILE_ROWS {
                    amx::store_n(t, col(r, v), g.ldc);
                } else {
                    let mut tmp =
                        std::mem::MaybeUninit::<[u8; TILE_ROWS * TILE_ROW_BYTES]>::uninit();
                    let tmp = tmp.as_mut_ptr().cast::<u8>();
                    amx::store_n(t, tmp, TILE_ROW_BYTES);
                    for i in TILE_ROWS - keep..TILE_ROWS {
                        std::ptr::copy_nonoverlapping(
                            tmp.add(i * TILE_ROW_BYTES),
                            col(r, v).add(i * g.ldc),
                            TILE_ROW_BYTES,
                        );
                    }
                }
            }
        }
    }
}

/// One K step: `V` B tiles, `R` A tiles, `R·V` dot products (bound by the tile loads: 4 × 1
/// and 2 × 2 blocks load the fewest per dot product).
#[inline(always)]
unsafe fn step<D: Dot, const R: usize, const V: usize>(
    a: [*const u8; R],
    lda: usize,
    b: *const u8,
    ldb: usize,
) {
    // SAFETY: the caller's contract.
    unsafe {
        if V <= 2 {
            for v in 0..V {
                amx::load_n(B0 + v, b.add(v * 64), ldb);
            }
            for (r, &ar) in a.iter().enumerate() {
                let ta = A0 + r % 2;
                amx::load_n(ta, ar, lda);
                for v in 0..V {
                    amx::dot_n::<D>(r * V + v, ta, B0 + v);
                }
            }
        } else {
            let ta = A0;
            amx::load_n(ta, a[0], lda);
            for v in 0..V {
                let tb = B0 + v % 2;
                amx::load_n(tb, b.add(v * 64), ldb);
                amx::dot_n::<D>(v, ta, tb);
            }
        }
    }
}

/// Operands of one AMX-BF16 GEMM on the bf16-pair layout: `C[i][v·16 + j] (+)=
/// Σ_k A[i][k] · B[k][v·16 + j]` in f32.
#[derive(Clone, Copy, Debug)]
pub struct Bf16Gemm {
    /// Rows of A and C.
    pub m: usize,
    /// A: `m` rows of `2·pairs` bf16 (K padded to even with a zero), `lda` apart.
    pub a: *const u16,
    /// bf16 values between rows of A (even).
    pub lda: usize,
    /// B: `pairs` rows of `vectors` × 16 words (two bf16 of K rows `2p`, `2p + 1` each, the
    /// first in the low half), `ldb` words apart.
    pub b: *const u32,
    /// Words between rows of B.
    pub ldb: usize,
    /// Pair rows of B (K / 2 rounded up).
    pub pairs: usize,
    /// 16-column vectors to compute.
    pub vectors: usize,
    /// C: `m` rows of `16·vectors` f32, `ldc` apart.
    pub c: *mut f32,
    /// Values between rows of C.
    pub ldc: usize,
    /// Add to C rather than overwrite it.
    pub accumulate: bool,
}

/// Runs one AMX-BF16 GEMM (the products are exact in f32, the sums rounded to f32 in the
/// order of the tile instruction).
///
/// # Safety
/// [`amx::bf16`]; the operands address what [`Bf16Gemm`] describes; C overlaps neither A
/// nor B.
pub unsafe fn gemm_bf16(op: &Bf16Gemm) {
    let t = TileGemm {
        m: op.m,
        a: op.a.cast(),
        lda: 2 * op.lda,
        b: op.b.cast(),
        ldb: 4 * op.ldb,
        k: op.pairs,
        vectors: op.vectors,
        c: op.c.cast(),
        ldc: 4 * op.ldc,
        start: if op.accumulate {
            Start::Accumulate
        } else {
            Start::Zero
        },
    };
    // SAFETY: the caller's contract.
    unsafe { gemm::<amx::Bf16>(&t) }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn rng(mut seed: u32) -> impl FnMut() -> u32 {
        move || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            seed >> 8
        }
    }

    /// The shapes every test covers: rows below, at and above one tile, with and without an
    /// overlapping last block; K words below, at and above one step, with and without a
    /// masked last step; 1 to 9 vectors.
    const SHAPES: [(usize, usize, usize); 14] = [
        (1, 1, 1),
        (1, 16, 8),
        (3, 5, 3),
        (16, 16, 4),
        (16, 32, 2),
        (17, 17, 1),
        (20, 21, 5),
        (32, 48, 8),
        (33, 40, 6),
        (50, 7, 3),
        (64, 128, 8),
        (70, 100, 9),
        (96, 33, 2),
        (130, 19, 7),
    ];

    /// bf16 → f32 (exact).
    fn widen(x: u16) -> f32 {
        f32::from_bits((x as u32) << 16)
    }

    #[test]
    fn int8_matches_exact_integer_products() {
        if !amx::int8() {
            return;
        }
        let mut next = rng(11);
        for (m, k, vectors) in SHAPES {
            // A and B with padding around (lda, ldb larger than needed).
            let (lda, ldb, ldc) = (4 * k + 8, vectors * 64 + 64, vectors * 16 + 5);
            let a: Vec<u8> = (0..m * lda).map(|_| next() as u8).collect();
            let b: Vec<i8> = (0..k * ldb).map(|_| next() as i8).collect();
            for accumulate in [false, true] {
                let init: Vec<i32> = (0..m * ldc).map(|_| next() as i32 % 1000).collect();
                let mut c = init.clone();
                let op = TileGemm {
                    m,
                    a: a.as_ptr(),
                    lda,
                    b: b.as_ptr().cast(),
                    ldb,
                    k,
                    vectors,
                    c: c.as_mut_ptr().cast(),
                    ldc: 4 * ldc,
                    start: if accumulate {
                        Start::Accumulate
                    } else {
                        Start::Zero
                    },
                };
                // SAFETY: AMX-INT8 available; the buffers hold what the operands describe.
                unsafe { gemm::<amx::Int8>(&op) };
                for i in 0..m {
                    for j in 0..ldc {
                        let mut want = init[i * ldc + j];
                        if j < vectors * 16 {
                            if !accumulate {
                                want = 0;
                            }
                            for w in 0..k {
                                for q in 0..4 {
                                    let x = a[i * lda + 4 * w + q] as i32;
                                    want += x * b[w * ldb + 4 * j + q] as i32;
                                }
                            }
                        }
                        assert_eq!(c[i * ldc + j], want, "m{m} k{k} v{vectors} ({i}, {j})");
                    }
                }
            }
        }
    }

    /// `C` (`m` rows of `ldc`, the first `16·vectors` computed) against `start(i, j) + Σ_k
    /// A[i][k]·B[k][j]` in f64 over the bf16 of `A` (`lda` apart) and the pairs of `B` (`ldb`
    /// words apart, `A`'s row length / 2 of them): within the f32 rounding of the sums (bf16
    /// products are exact in f32); the columns past the computed ones as `init`.
    fn check_c(
        c: &[f32],
        init: &[f32],
        (m, vectors, ldc): (usize, usize, usize),
        start: impl Fn(usize, usize) -> f64,
        (a, lda): (&[u16], usize),
        (b, ldb): (&[u32], usize),
        shape: &str,
    ) {
        let pairs = b.len() / ldb;
        for i in 0..m {
            for j in 0..ldc {
                let got = c[i * ldc + j];
                if j >= vectors * 16 {
                    assert_eq!(got, init[i * ldc + j], "{shape} ({i}, {j})");
                    continue;
                }
                let (mut want, mut mag) = (start(i, j), start(i, j).abs());
                for p in 0..pairs {
                    let w = b[p * ldb + j];
                    for (q, wq) in [w as u16, (w >> 16) as u16].into_iter().enumerate() {
                        let x = widen(a[i * lda + 2 * p + q]) as f64 * widen(wq) as f64;
                        want += x;
                        mag += x.abs();
                    }
                }
                let tol = mag * 2f64.powi(-22) * (2 * pairs + 2) as f64;
                assert!(
                    (got as f64 - want).abs() <= tol,
                    "{shape} ({i}, {j}): {got} vs {want}"
                );
            }
        }
    }

    /// AMX-BF16 against an f64 reference of the same bf16 products: within the f32 rounding
    /// of the sums (bf16 products are exact in f32).
    #[test]
    fn bf16_matches_reference() {
        if amx::bf16() {
            check_bf16_gemm(gemm_bf16);
        }
    }

    /// `run`, a GEMM of [`Bf16Gemm`] operands (AMX-BF16 here, `vdpbf16ps` in
    /// `kernels::dot_gemm_bf16`), against an f64 reference of the same bf16 products on
    /// [`SHAPES`], overwriting and accumulating.
    pub(in crate::kernels) fn check_bf16_gemm(run: unsafe fn(&Bf16Gemm)) {
        let mut next = rng(5);
        // Values in [-2, 2) with 8 significant bits: exactly bf16.
        let mut value = move || (next() % 512) as f32 / 128.0 - 2.0;
        for (m, pairs, vectors) in SHAPES {
            let (lda, ldb, ldc) = (2 * pairs + 6, vectors * 16 + 16, vectors * 16 + 3);
            let bf = |x: f32| (x.to_bits() >> 16) as u16;
            let a: Vec<u16> = (0..m * lda).map(|_| bf(value())).collect();
            let b: Vec<u32> = (0..pairs * ldb)
                .map(|_| bf(value()) as u32 | (bf(value()) as u32) << 16)
                .collect();
            for accumulate in [false, true] {
                let init: Vec<f32> = (0..m * ldc).map(|_| value()).collect();
                let mut c = init.clone();
                let op = Bf16Gemm {
                    m,
                    a: a.as_ptr(),
                    lda,
                    b: b.as_ptr(),
                    ldb,
                    pairs,
                    vectors,
                    c: c.as_mut_ptr(),
                    ldc,
                    accumulate,
                };
                // SAFETY: the caller's kernel runs here; the buffers hold what the operands
                // describe.
                unsafe { run(&op) };
                let start = |i: usize, j: usize| {
                    if accumulate {
                        init[i * ldc + j] as f64
                    } else {
                        0.0
                    }
                };
                let shape = format!("m{m} pairs{pairs} v{vectors}");
                check_c(
                    &c,
                    &init,
                    (m, vectors, ldc),
                    start,
                    (&a, lda),
                    (&b, ldb),
                    &shape,
                );
            }
        }
    }

    /// Sums of runs (two runs of K, each in its own part of A and B) from zeros, a row
    /// (the bias: a row stride of 0) or C, against the f64 sum of the same bf16 products.
    #[test]
    fn bf16_runs_sum_from_every_start() {
        if !amx::bf16() {
            return;
        }
        let mut next = rng(9);
        let mut value = move || (next() % 512) as f32 / 128.0 - 2.0;
        let bf = |x: f32| (x.to_bits() >> 16) as u16;
        for (m, pairs, vectors) in SHAPES {
            // Run 0 takes the first `p0` pairs of each row, run 1 the rest (sizes below, at
            // and above a tile step, alike or not).
            let p0 = pairs / 2;
            let (lda, ldb, ldc) = (2 * pairs + 2, vectors * 16 + 16, vectors * 16 + 3);
            let a: Vec<u16> = (0..m * lda).map(|_| bf(value())).collect();
            let b: Vec<u32> = (0..pairs * ldb)
                .map(|_| bf(value()) as u32 | (bf(value()) as u32) << 16)
                .collect();
            let bias: Vec<f32> = (0..vectors * 16).map(|_| value()).collect();
            let runs = [
                Run {
                    a: a.as_ptr().cast(),
                    lda: 2 * lda,
                    b: b.as_ptr().cast(),
                    ldb: 4 * ldb,
                    k: p0,
                },
                Run {
                    a: a[2 * p0..].as_ptr().cast(),
                    lda: 2 * lda,
                    b: b[p0 * ldb..].as_ptr().cast(),
                    ldb: 4 * ldb,
                    k: pairs - p0,
                },
            ];
            for start in ["zero", "row", "acc"] {
                let init: Vec<f32> = (0..m * ldc).map(|_| value()).collect();
                let mut c = init.clone();
                let s = match start {
                    "zero" => Start::Zero,
                    "row" => Start::Row(bias.as_ptr().cast()),
                    _ => Start::Accumulate,
                };
                // SAFETY: AMX-BF16 available; the buffers hold what the runs describe.
                unsafe {
                    gemm_runs::<amx::Bf16>(&runs, m, vectors, c.as_mut_ptr().cast(), 4 * ldc, s)
                };
                let from = |i: usize, j: usize| match start {
                    "zero" => 0.0,
                    "row" => bias[j] as f64,
                    _ => init[i * ldc + j] as f64,
                };
                let shape = format!("{start} m{m} pairs{pairs} v{vectors}");
                check_c(
                    &c,
                    &init,
                    (m, vectors, ldc),
                    from,
                    (&a, lda),
                    (&b, ldb),
                    &shape,
                );
            }
        }
    }
}
