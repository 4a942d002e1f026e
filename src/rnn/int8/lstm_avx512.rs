//! The int8 LSTM post-GEMM of one tile in AVX-512 registers: per batch row, the panel's
//! s32 accumulators dequantized, the shared cell ([`lstm::units`], fused multiply-adds), c
//! stored and h requantized into u8 — the arithmetic of the staged path in [`postgemm`]
//! (dequantize in place, cell, requantize) without its passes through memory, so the same
//! bits.
//!
//! [`postgemm`]: super::postgemm

use super::postgemm::{LstmTile, Quant};
use crate::memory::packed::PANEL;
use crate::rnn::cells::{lstm, Linear};
use std::arch::x86_64::*;

/// Vectors of 16 units in a panel.
const HALVES: usize = 2;
/// Vectors of a panel row of accumulators (four gates).
const VECTORS: usize = lstm::GATES * HALVES;

/// The lanes of vector `b` of a panel below `valid` units.
fn lanes_below(b: usize, valid: usize) -> __mmask16 {
    let n = valid.saturating_sub(16 * b).min(16);
    ((1u32 << n) - 1) as __mmask16
}

/// The LSTM post-GEMM of one tile.
///
/// # Safety
/// Every buffer addresses what [`LstmTile`] describes (`dq` has `valid` readable floats per
/// gate); the CPU has AVX-512F.
#[target_feature(enable = "avx512f,fma")]
pub unsafe fn lstm_tile(t: &LstmTile, q: &Quant) {
    let m: [__mmask16; HALVES] = std::array::from_fn(|b| lanes_below(b, t.valid));
    // Vector `j`: gate `j / 2`, units `16·(j % 2)..`; past `valid`, factor and bias 0 (the
    // staged path's zero gates).
    let at = |j: usize| (j / HALVES) * t.dq.stride + (j % HALVES) * 16;
    // SAFETY: masked loads read only the `valid` units the caller's contract covers.
    let (deq, bias): ([__m512; VECTORS], [__m512; VECTORS]) = unsafe {
        (
            std::array::from_fn(|j| _mm512_maskz_loadu_ps(m[j % HALVES], t.dq.deq.add(at(j)))),
            std::array::from_fn(|j| _mm512_maskz_loadu_ps(m[j % HALVES], t.dq.bias.add(at(j)))),
        )
    };
    let (scale, shift) = (_mm512_set1_ps(q.scale), _mm512_set1_ps(q.shift));
    let (lo, hi) = (_mm512_set1_ps(q.cell_lo), _mm512_set1_ps(q.hi));
    let offset = _mm512_set1_epi32(q.offset);
    let lin = Linear::of_tile(None);
    for r in 0..t.rows {
        // SAFETY: the caller's contract: a panel row of accumulators, `valid` units of c and h.
        unsafe {
            let acc = t.acc.row(r);
            // the next row's accumulators (rows a page or more apart: no hardware prefetch
            // across) and c, while this one's activations run (a prefetch never faults)
            if r + 1 < t.rows {
                let next = t.acc.row(r + 1);
                for j in 0..VECTORS {
                    _mm_prefetch::<_MM_HINT_T0>(next.wrapping_add(16 * j).cast());
                }
                let c_next = t.c.row(r + 1);
                _mm_prefetch::<_MM_HINT_T0>(c_next.cast());
                _mm_prefetch::<_MM_HINT_T0>(c_next.wrapping_add(16).cast());
            }
            let a: [__m512; VECTORS] = std::array::from_fn(|j| {
                let x = _mm512_cvtepi32_ps(_mm512_loadu_si512(acc.add(16 * j).cast()));
                _mm512_add_ps(_mm512_mul_ps(x, deq[j]), bias[j])
            });
            let c_row = t.c.row(r);
            let cp: [__m512; HALVES] =
                std::array::from_fn(|b| _mm512_maskz_loadu_ps(m[b], c_row.add(16 * b)));
            let (_, c, h) = lstm::units::<_, HALVES, VECTORS, false, false>(a, cp, &lin, |_| {
                _mm512_setzero_ps()
            });
            let dst = t.h.row(r);
            for b in 0..HALVES {
                _mm512_mask_storeu_ps(c_row.add(16 * b), m[b], c[b]);
                // Quant::quantize_from: scale·h + shift saturated (NaN: 0), rounded half to
                // even (the default rounding mode).
                let v = _mm512_add_ps(_mm512_mul_ps(h[b], scale), shift);
                let s = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
                let s = _mm512_mask_mov_ps(
                    s,
                    _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v),
                    _mm512_setzero_ps(),
                );
                let stored = _mm512_add_epi32(_mm512_cvtps_epi32(s), offset);
                // A whole panel's bytes narrowed in a register and stored whole: with the
                // masked narrowing store, W2-int8 took 2.6–4 % longer on Zen 4.
                if t.valid == PANEL {
                    let bytes = _mm512_cvtepi32_epi8(stored);
                    _mm_storeu_si128(dst.add(16 * b).cast(), bytes);
                } else {
                    _mm512_mask_cvtepi32_storeu_epi8(dst.add(16 * b).cast(), m[b], stored);
                }
            }
        }
    }
}
