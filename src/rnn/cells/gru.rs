//! GRU and AUGRU post-GEMM (gates `u, r, o`), in two parts around the second recurrent GEMM:
//!
//! ```text
//! part 1:  u = σ(A_u)   r = σ(A_r)          (stored back into the tile), r ⊙ h_prev → aux
//!          — the driver then adds (r ⊙ h_prev)·U_o to A_o, which needs every unit of r —
//! part 2:  o = tanh(A_o)
//!          ũ = (1 − a)·u  (AUGRU, a = attention of the row; GRU: ũ = u)
//!          h = ũ ⊙ h_prev + (1 − ũ) ⊙ o
//! ```
//! In test mode (`Linear`) σ and tanh of gate g become `scale_g·x`.
//! `finish` (the last two lines) is shared with the linear-before-reset cells.

use super::{activate, copy_units, load_units, store_gates, HDest, Linear, TileRows};
use crate::kernels::activations::{sigmoid, tanh};
use crate::kernels::isa::isa_dispatch;
use crate::memory::packed::PANEL;

/// Gates of the GRU cells.
pub const GATES: usize = 3;

/// One tile of a GRU-family post-GEMM: `rows` batch rows × the `valid` (≤ 32) units of one
/// panel.
#[derive(Clone, Copy, Debug)]
pub struct GruTile {
    /// Batch rows.
    pub rows: usize,
    /// Valid units of the panel.
    pub valid: usize,
    /// Gate pre-activations, a panel row `[3][32]` per batch row.
    pub gates: TileRows,
    /// Previous hidden state (null: zeros).
    pub h_prev: TileRows,
    /// AUGRU: the attention scalar of each row; none for the plain GRU cells.
    pub attention: TileRows,
    /// Where h goes.
    pub h: HDest,
    /// Workspace rows `[3][DHC]` for the post-activation gates `u, r, o` (training), or none.
    pub ws_gates: TileRows,
    /// Stride between gates in `ws_gates` (DHC).
    pub ws_gate_stride: usize,
    /// GRU: where part 1 writes `r ⊙ h_prev` (none when h_prev is zeros). LBR: the recurrent
    /// product `h_prev·U + (0, 0, b_u')`, a panel row `[3][32]` per batch row (input).
    pub aux: TileRows,
    /// LBR training: where `h_prev·U_o + b_u'` is kept for the backward pass, or none.
    pub ws_lbr: TileRows,
    /// Test mode: linear activations.
    pub linear: Option<Linear>,
}

/// From the activated gates `[u, r, o]` of row `r`: the new h (with the attention factor),
/// stored with the gates.
///
/// # Safety
/// The tile's contract (see [`part2_tile`]).
#[inline(always)]
pub(super) unsafe fn finish(t: &GruTile, r: usize, act: &[[f32; PANEL]; GATES]) {
    unsafe {
        let hp = load_units(t.h_prev, r, t.valid);
        let keep = keep(t, r);
        let mut h = [0f32; PANEL];
        for (k, hv) in h.iter_mut().enumerate() {
            *hv = new_h(keep, act[0][k], hp[k], act[2][k]);
        }
        t.h.store(r, &h, t.valid);
        store_gates(t.ws_gates, t.ws_gate_stride, r, act, t.valid);
    }
}

/// The factor of `u` in row `r`: `1 − a` with AUGRU's attention `a`, else 1.
///
/// # Safety
/// The tile's contract.
#[inline(always)]
unsafe fn keep(t: &GruTile, r: usize) -> f32 {
    if t.attention.is_none() {
        1.0
    } else {
        1.0 - unsafe { *t.attention.row(r) }
    }
}

/// `h = u·h_prev + (1 − u)·o` with `u` scaled by `keep`.
#[inline(always)]
fn new_h(keep: f32, u: f32, h_prev: f32, o: f32) -> f32 {
    let u = keep * u;
    u * h_prev + (1.0 - u) * o
}

#[inline(always)]
unsafe fn part1_body<const FMA: bool, const LINEAR: bool>(t: &GruTile) {
    unsafe {
        let lin = Linear::of_tile(t.linear);
        for r in 0..t.rows {
            let a = &mut *(t.gates.row(r) as *mut [[f32; PANEL]; GATES]);
            for (g, gate) in a[..2].iter_mut().enumerate() {
                for v in gate.iter_mut() {
                    *v = activate::<LINEAR>(&lin, g, *v, sigmoid::<FMA>);
                }
            }
            if !t.aux.is_none() {
                let hp = load_units(t.h_prev, r, t.valid);
                let mut rh = [0f32; PANEL];
                for (k, v) in rh.iter_mut().enumerate() {
                    *v = a[1][k] * hp[k];
                }
                let rh = t.h.precision.round_panel(&rh, t.valid);
                copy_units(t.aux.row(r), rh.as_ptr(), t.valid);
            }
        }
    }
}

#[inline(always)]
unsafe fn part2_body<const FMA: bool, const LINEAR: bool>(t: &GruTile) {
    unsafe {
        let lin = Linear::of_tile(t.linear);
        // A whole panel of inference whose h is stored as computed reads the gates and h_prev
        // and writes h in place, not through copies on the stack (see the LSTM tile: Zen 4
        // does not forward a zmm store to a zmm load).
        let in_place = t.valid == PANEL && t.ws_gates.is_none() && t.h.plain();
        for r in 0..t.rows {
            let a = &*(t.gates.row(r) as *const [[f32; PANEL]; GATES]);
            if in_place {
                let (keep, zeros) = (keep(t, r), [0f32; PANEL]);
                let hp = if t.h_prev.is_none() {
                    &zeros
                } else {
                    &*(t.h_prev.row(r) as *const [f32; PANEL])
                };
                let out = &mut *(t.h.h_out.row(r) as *mut [f32; PANEL]);
                for k in 0..PANEL {
                    let o = activate::<LINEAR>(&lin, 2, a[2][k], tanh::<FMA>);
                    out[k] = new_h(keep, a[0][k], hp[k], o);
                }
                continue;
            }
            let mut act = *a;
            for v in act[2].iter_mut() {
                *v = activate::<LINEAR>(&lin, 2, *v, tanh::<FMA>);
            }
            finish(t, r, &act);
        }
    }
}

#[inline(always)]
unsafe fn part1_any<const FMA: bool>(t: &GruTile) {
    unsafe {
        if t.linear.is_some() {
            part1_body::<FMA, true>(t)
        } else {
            part1_body::<FMA, false>(t)
        }
    }
}

#[inline(always)]
unsafe fn part2_any<const FMA: bool>(t: &GruTile) {
    unsafe {
        if t.linear.is_some() {
            part2_body::<FMA, true>(t)
        } else {
            part2_body::<FMA, false>(t)
        }
    }
}

isa_dispatch!(
    /// GRU part 1: activates u and r in place and writes `r ⊙ h_prev` to `aux`. Every row of
    /// `gates` has `3·32` floats; every non-null row of the other buffers `valid` floats;
    /// outputs do not overlap inputs.
    pub unsafe fn part1_tile => part1_any, (tile: &GruTile)
);

isa_dispatch!(
    /// GRU part 2 (after `A_o += (r ⊙ h_prev)·U_o`): o, the new h and the workspace gates.
    /// Same buffer contract as `part1_tile`.
    pub unsafe fn part2_tile => part2_any, (tile: &GruTile)
);

isa_dispatch!(
    @with [true] [true] [true]
    /// [`part1_tile`] with fused multiply-adds on every instruction set (computed in software
    /// by a CPU without them): the same bits wherever it runs (the int8 post-GEMM).
    pub unsafe fn part1_tile_same_bits => part1_any, (tile: &GruTile)
);

isa_dispatch!(
    @with [true] [true] [true]
    /// [`part2_tile`] with fused multiply-adds on every instruction set.
    pub unsafe fn part2_tile_same_bits => part2_any, (tile: &GruTile)
);
