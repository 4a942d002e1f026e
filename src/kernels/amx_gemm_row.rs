//! GEMM of one row of A on AMX tiles (a batch-1 RNN step): `C[v·16 + j] (start)+=
//! Σ_runs Σ_k A[k] · B[k][v·16 + j]`, the operands as [`amx_gemm::gemm_runs`] takes them.
//!
//! One row leaves the tile unit with one A row per product: every B tile (1 KiB of the
//! weights) costs a tile load and a dot product, and the time goes to walking B. This loop does
//! only that — one configuration, the accumulators of up to four vectors started once, every K
//! step of every run, stored once — without the row-block bookkeeping of the general loop
//! (block lists, overlapping blocks, per-block masked copies), which costs a one-row call
//! about a quarter of its time.

use super::amx::{self, Dot, TileConfig, TILE_ROWS, TILE_ROW_BYTES};
use super::amx_gemm::{self, Run};
use super::start::Start;

/// Tiles: accumulators 0..4, A 4, B 6 and 7 (as `amx_gemm`, so that a thread switching
/// between both loops keeps one configuration).
const A: usize = 4;
const B0: usize = 6;

/// Most runs summed in one call (the masked last steps' copies are kept per run).
pub const MAX_RUNS: usize = 4;

/// One row of A, 16 words of K per step.
const CONFIG: TileConfig = TileConfig::new()
    .tile(0, 1, TILE_ROW_BYTES)
    .tile(1, 1, TILE_ROW_BYTES)
    .tile(2, 1, TILE_ROW_BYTES)
    .tile(3, 1, TILE_ROW_BYTES)
    .tile(A, 1, TILE_ROW_BYTES)
    .tile(A + 1, 1, TILE_ROW_BYTES)
    .tile(B0, TILE_ROWS, TILE_ROW_BYTES)
    .tile(B0 + 1, TILE_ROWS, TILE_ROW_BYTES);

/// A 64-byte line: the last K step of a run whose `k` is not a multiple of 16 reads A from a
/// copy whose first words (the ones the step before covered) are zero.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; TILE_ROW_BYTES]);

/// [`amx_gemm::gemm_runs`] for `m` = 1: `vectors` 16-column vectors of C (one row) from the
/// runs (`lda` unused), with the dot product `D`. Runs of fewer than 16 words of K (other
/// than empty ones) go to `gemm_runs`.
///
/// # Safety
/// As [`amx_gemm::gemm_runs`] with `m` = 1; at most [`MAX_RUNS`] runs.
pub unsafe fn gemm_row<D: Dot>(runs: &[Run], vectors: usize, c: *mut u8, start: Start) {
    debug_assert!(runs.len() <= MAX_RUNS);
    if vectors == 0 {
        return;
    }
    if runs.iter().any(|r| r.k > 0 && r.k < TILE_ROWS) || runs.iter().all(|r| r.k == 0) {
        // SAFETY: the caller's contract.
        return unsafe { amx_gemm::gemm_runs::<D>(runs, 1, vectors, c, 0, start) };
    }
    let mut last = [Line([0; TILE_ROW_BYTES]); MAX_RUNS];
    for (r, l) in runs.iter().zip(last.iter_mut()) {
        let rem = r.k % TILE_ROWS;
        if rem != 0 {
            // SAFETY: A's row holds `4·k` bytes.
            unsafe {
                let from = r.a.add(4 * (r.k - rem));
                let to = l.0.as_mut_ptr().add(4 * (TILE_ROWS - rem));
                std::ptr::copy_nonoverlapping(from, to, 4 * rem);
            }
        }
    }
    // SAFETY: AMX available (the caller's contract).
    unsafe { amx::configure(&CONFIG) };
    let mut v = 0;
    while v < vectors {
        let n = (vectors - v).min(4);
        // SAFETY: the caller's contract.
        unsafe {
            match n {
                4 => block::<D, 4>(runs, &last, v, c, start),
                3 => block::<D, 3>(runs, &last, v, c, start),
                2 => block::<D, 2>(runs, &last, v, c, start),
                _ => block::<D, 1>(runs, &last, v, c, start),
            }
        }
        v += n;
    }
}

/// Vectors `v0..v0 + V` of C: the start, every K step of every run, the store.
#[inline(always)]
unsafe fn block<D: Dot, const V: usize>(
    runs: &[Run],
    last: &[Line; MAX_RUNS],
    v0: usize,
    c: *mut u8,
    start: Start,
) {
    let col = |v: usize| c.wrapping_add((v0 + v) * TILE_ROW_BYTES);
    // SAFETY: the caller's contract (`gemm_row`).
    unsafe {
        for v in 0..V {
            match start {
                Start::Accumulate => amx::load_n(v, col(v), 0),
                Start::Zero => amx::zero_n(v),
                Start::Row(row) => amx::load_n(v, row.add((v0 + v) * TILE_ROW_BYTES), 0),
            }
        }
        for (r, l) in runs.iter().zip(last) {
            let b = r.b.add(v0 * TILE_ROW_BYTES);
            let step = |a: *const u8, b: *const u8| {
                amx::load_n(A, a, 0);
                for v in 0..V {
                    let tb = B0 + v % 2;
                    amx::load_n(tb, b.add(v * TILE_ROW_BYTES), r.ldb);
                    amx::dot_n::<D>(v, A, tb);
                }
            };
            for k in 0..r.k / TILE_ROWS {
                step(r.a.add(k * TILE_ROW_BYTES), b.add(k * TILE_ROWS * r.ldb));
            }
            if r.k % TILE_ROWS != 0 {
                step(l.0.as_ptr(), b.add((r.k - TILE_ROWS) * r.ldb));
            }
        }
        for v in 0..V {
            amx::store_n(v, col(v), TILE_ROW_BYTES);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::amx::Int8;

    /// One row against the general loop (`gemm_runs`, m = 1), int8 so that both are exact:
    /// K below, at and above one step, with and without a masked last step, one to four runs of
    /// different K, 1 to 9 vectors, every start.
    #[test]
    fn matches_the_general_loop() {
        if !amx::int8() {
            return;
        }
        let mut seed = 7u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 8) as u8
        };
        for ks in [
            &[16][..],
            &[5],
            &[33, 16],
            &[0, 40],
            &[64, 17, 3],
            &[128, 31, 16, 50],
        ] {
            for vectors in [1, 2, 3, 4, 5, 8, 9] {
                let ldb = 64 * vectors + 64;
                let a: Vec<Vec<u8>> = ks
                    .iter()
                    .map(|&k| (0..4 * k).map(|_| next()).collect())
                    .collect();
                let b: Vec<Vec<u8>> = ks
                    .iter()
                    .map(|&k| (0..k * ldb).map(|_| next() % 16).collect())
                    .collect();
                let runs: Vec<Run> = ks
                    .iter()
                    .enumerate()
                    .map(|(i, &k)| Run {
                        a: a[i].as_ptr(),
                        lda: 4 * k,
                        b: b[i].as_ptr(),
                        ldb,
                        k,
                    })
                    .collect();
                let row: Vec<i32> = (0..16 * vectors).map(|j| j as i32 - 40).collect();
                let c0: Vec<i32> = (0..16 * vectors + 16).map(|j| 3 * j as i32).collect();
                for start in ["zero", "row", "acc"] {
                    let st = match start {
                        "zero" => Start::Zero,
                        "row" => Start::Row(row.as_ptr().cast()),
                        _ => Start::Accumulate,
                    };
                    let (mut got, mut want) = (c0.clone(), c0.clone());
                    unsafe {
                        gemm_row::<Int8>(&runs, vectors, got.as_mut_ptr().cast(), st);
                        let ldc = 4 * want.len();
                        let w = want.as_mut_ptr().cast();
                        amx_gemm::gemm_runs::<Int8>(&runs, 1, vectors, w, ldc, st);
                    }
                    assert_eq!(got, want, "k {ks:?} vectors {vectors} {start}");
                    assert_eq!(got[16 * vectors..], c0[16 * vectors..], "past the vectors");
                    if start == "zero" && ks == [16] {
                        // A real value: column 0 is the dot product of A and B's column 0.
                        let dot: i32 = (0..64)
                            .map(|q| {
                                i32::from(a[0][q]) * i32::from(b[0][(q / 4) * ldb + q % 4] as i8)
                            })
                            .sum();
                        assert_eq!(got[0], dot);
                    }
                }
            }
        }
    }
}
