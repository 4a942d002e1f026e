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
    if t.rows == 1 && t.valid == PANEL {
        // SAFETY: the caller's contract.
        return unsafe { one_row(t, q) };
    }
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
    let rq = Requantize::new(q);
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
                let stored = rq.stored(h[b]);
                // A whole panel's bytes narrowed in a register and stored whole: the masked
                // narrowing store (`vpmovdb m128{k}`) is slow on Zen 4.
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

/// The tile of one whole-panel row (a batch-1 step): the same arithmetic as [`lstm_tile`]'s
/// loop, without masks, the dequantization factors and bias read where the row needs them:
/// held in registers for rows to come, they are spilled and reloaded, all overhead at one row.
///
/// # Safety
/// As [`lstm_tile`], with one row of [`PANEL`] valid units.
#[target_feature(enable = "avx512f,fma")]
unsafe fn one_row(t: &LstmTile, q: &Quant) {
    let at = |j: usize| (j / HALVES) * t.dq.stride + (j % HALVES) * 16;
    let lin = Linear::of_tile(None);
    // SAFETY: the caller's contract: a panel row of accumulators, PANEL units of c, h, the
    // factors and the bias.
    unsafe {
        let acc = t.acc.row(0);
        let a: [__m512; VECTORS] = std::array::from_fn(|j| {
            let x = _mm512_cvtepi32_ps(_mm512_loadu_si512(acc.add(16 * j).cast()));
            let deq = _mm512_loadu_ps(t.dq.deq.add(at(j)));
            _mm512_add_ps(_mm512_mul_ps(x, deq), _mm512_loadu_ps(t.dq.bias.add(at(j))))
        });
        let c_row = t.c.row(0);
        let cp: [__m512; HALVES] = std::array::from_fn(|b| _mm512_loadu_ps(c_row.add(16 * b)));
        let (_, c, h) =
            lstm::units::<_, HALVES, VECTORS, false, false>(a, cp, &lin, |_| _mm512_setzero_ps());
        let (rq, dst) = (Requantize::new(q), t.h.row(0));
        for b in 0..HALVES {
            _mm512_storeu_ps(c_row.add(16 * b), c[b]);
            let bytes = _mm512_cvtepi32_epi8(rq.stored(h[b]));
            _mm_storeu_si128(dst.add(16 * b).cast(), bytes);
        }
    }
}

/// [`Quant::quantize_from`] of h in vectors: scale·h + shift saturated to [cell_lo, hi] (NaN:
/// 0), rounded half to even (the default rounding mode), plus the s8 offset.
#[derive(Clone, Copy)]
struct Requantize {
    scale: __m512,
    shift: __m512,
    lo: __m512,
    hi: __m512,
    offset: __m512i,
}

impl Requantize {
    #[target_feature(enable = "avx512f")]
    fn new(q: &Quant) -> Self {
        Self {
            scale: _mm512_set1_ps(q.scale),
            shift: _mm512_set1_ps(q.shift),
            lo: _mm512_set1_ps(q.cell_lo),
            hi: _mm512_set1_ps(q.hi),
            offset: _mm512_set1_epi32(q.offset),
        }
    }

    /// The stored values (as s32 lanes) of 16 units of h.
    #[target_feature(enable = "avx512f")]
    fn stored(&self, h: __m512) -> __m512i {
        let v = _mm512_add_ps(_mm512_mul_ps(h, self.scale), self.shift);
        let s = _mm512_min_ps(_mm512_max_ps(v, self.lo), self.hi);
        let s = _mm512_mask_mov_ps(
            s,
            _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v),
            _mm512_setzero_ps(),
        );
        _mm512_add_epi32(_mm512_cvtps_epi32(s), self.offset)
    }
}
