//! [`Bf16Gemm`] on AVX512_BF16 `vdpbf16ps`: the twin of `amx_gemm::gemm_bf16` for CPUs without
//! AMX-BF16 whose `vdpbf16ps` runs at full rate (AMD Zen 4: see
//! `gemm_bf16::Bf16Kernel::multiplies_in_bf16`), on the same operands — `A` as rows of bf16,
//! `B` as pair rows.
//!
//! Column strips of up to 4 vectors; in each, `K` in blocks of 64 pair rows, the strip's
//! block of `B` (16 KiB) staying in L1 while every row tile of up to 6 rows passes over it, on
//! the bf16 GEMM's register tiles (`gemm::micro_body` with `vdpbf16ps`).

use super::amx_gemm::Bf16Gemm;
use super::gemm::{micro_fn, micro_table, row_tiles, Init, MicroFn, Segment};
use super::gemm_bf16::DotMac;
use super::vector::LANES;

/// Most rows of a register tile (6 × 4 vectors: 24 accumulators, 4 of `B`, 1 of `A`).
const MR: usize = 6;
/// Most vectors of a column strip.
const STRIP: usize = 4;
/// Pair rows of a `K` block: 64 × 4 vectors × 64 bytes of `B` = 16 KiB, half of L1.
const KC: usize = 64;

micro_fn!(
    #[target_feature(enable = "avx512f,avx512bf16,fma")]
    micro_dot,
    DotMac
);

/// The micro-kernels of strips of 1 to [`STRIP`] vectors, indexed by `vectors − 1`, then by
/// rows − 1.
static KERNELS: [&[MicroFn]; STRIP] = [
    micro_table!(micro_dot, 1, [1, 2, 3, 4, 5, 6]),
    micro_table!(micro_dot, 2, [1, 2, 3, 4, 5, 6]),
    micro_table!(micro_dot, 3, [1, 2, 3, 4, 5, 6]),
    micro_table!(micro_dot, 4, [1, 2, 3, 4, 5, 6]),
];

/// Runs one bf16-pair GEMM on `vdpbf16ps` (the products exact in f32, the sums rounded to f32
/// pair row after pair row).
///
/// # Safety
/// AVX512_BF16 is available; the operands address what [`Bf16Gemm`] describes (rows of `A`
/// 4-byte aligned: even `lda`, an aligned `a`); C overlaps neither A nor B.
pub unsafe fn gemm(op: &Bf16Gemm) {
    let (tiles, base, taller) = row_tiles(op.m, MR);
    for v0 in (0..op.vectors).step_by(STRIP) {
        let table = KERNELS[STRIP.min(op.vectors - v0) - 1];
        for k0 in (0..op.pairs).step_by(KC) {
            let init = match (k0, op.accumulate) {
                (0, true) => Init::Accumulate,
                (0, false) => Init::Zero,
                _ => Init::Continue,
            };
            let b = op.b.wrapping_add(k0 * op.ldb + v0 * LANES).cast::<f32>();
            // Row tiles of nearly equal height.
            let mut i0 = 0;
            for t in 0..tiles {
                let h = base + usize::from(t < taller);
                let rows: [*const f32; MR] = std::array::from_fn(|r| {
                    let row = i0 + r.min(h - 1);
                    op.a.wrapping_add(row * op.lda + 2 * k0).cast()
                });
                let segment = [Segment::plain(KC.min(op.pairs - k0), rows.as_ptr(), b)];
                let c = op.c.wrapping_add(i0 * op.ldc + v0 * LANES);
                // SAFETY: the caller's contract; the tile's rows, columns and `K` block lie
                // inside the operands.
                unsafe { table[h - 1](&segment, op.ldb, op.ldb, c, op.ldc, init) };
                i0 += h;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Against an f64 reference of the same bf16 products, on the AMX kernel's test shapes
    /// (1 to 9 vectors: whole and partial strips; `K` below, at and beyond a block).
    #[test]
    fn products_match_an_f64_reference() {
        if std::arch::is_x86_feature_detected!("avx512bf16") {
            super::super::amx_gemm::tests::check_bf16_gemm(super::gemm);
        }
    }
}
