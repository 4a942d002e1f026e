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

use super::{activate, copy_units, load_units, store_gates, write_panel, HDest, Linear, TileRows};
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
        let keep = keep(t, r);
        if t.h.direct(t.valid) {
            store_h_in_place(t, r, |k, hp| new_h(keep, act[0][k], hp, act[2][k]));
        } else {
            let hp = load_units(t.h_prev, r, t.valid);
            let mut h = [0f32; PANEL];
            for (k, hv) in h.iter_mut().enumerate() {
                *hv = new_h(keep, act[0][k], hp[k], act[2][k]);
            }
            t.h.store(r, &h, t.valid);
        }
        store_gates(t.ws_gates, t.ws_gate_stride, r, act, t.valid);
    }
}

/// Writes row `r` of a whole panel's h, `h(k, h_prev[k])` rounded to its precision, reading
/// h_prev and writing h in place ([`write_panel`]).
///
/// # Safety
/// The tile's contract; `t.h.direct(t.valid)`.
#[inline(always)]
pub(super) unsafe fn store_h_in_place(t: &GruTile, r: usize, h: impl Fn(usize, f32) -> f32) {
    let zeros = [0f32; PANEL];
    // SAFETY: the caller's contract: whole rows of PANEL floats, h not overlapping h_prev.
    unsafe {
        let hp = if t.h_prev.is_none() {
            &zeros
        } else {
            &*(t.h_prev.row(r) as *const [f32; PANEL])
        };
        write_panel(t.h.h_out.row(r), t.h.precision, |k| h(k, hp[k]));
    }
}

/// The factor of `u` in row `r`: `1 − a` with AUGRU's attention `a`, else 1.
///
/// # Safety
/// The tile's contract.
#[inline(always)]
pub(super) unsafe fn keep(t: &GruTile, r: usize) -> f32 {
    if t.attention.is_none() {
        1.0
    } else {
        1.0 - unsafe { *t.attention.row(r) }
    }
}

/// `h = u·h_prev + (1 − u)·o` with `u` scaled by `keep`.
#[inline(always)]
pub(super) fn new_h(keep: f32, u: f32, h_prev: f32, o: f32) -> f32 {
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
            if !t.aux.is_none() && t.h.direct(t.valid) {
                // A whole panel straight from h_prev's row into aux's.
                let hp = &*(t.h_prev.row(r) as *const [f32; PANEL]);
                write_panel(t.aux.row(r), t.h.precision, |k| a[1][k] * hp[k]);
            } else if !t.aux.is_none() {
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
        // A whole panel of inference: tanh of `o` and h in one pass over the gates, h stored
        // in place (`store_h_in_place`).
        let in_place = t.ws_gates.is_none() && t.h.direct(t.valid);
        for r in 0..t.rows {
            let a = &*(t.gates.row(r) as *const [[f32; PANEL]; GATES]);
            if in_place {
                let keep = keep(t, r);
                store_h_in_place(t, r, |k, hp| {
                    let o = activate::<LINEAR>(&lin, 2, a[2][k], tanh::<FMA>);
                    new_h(keep, a[0][k], hp, o)
                });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Isa;
    use crate::rnn::precision::Precision;

    /// A whole panel written straight from its rows (h with one destination) has the bits of
    /// the copy path (a second destination), in f32 and bf16, inference and training: GRU
    /// parts 1 and 2 (h, and part 1's `r ⊙ h_prev`) and the LBR-GRU tile.
    #[test]
    fn whole_panels_have_the_bits_of_the_copy_path() {
        let rows = 3;
        let values =
            |n: usize, f: f32| -> Vec<f32> { (0..n).map(|i| (i as f32 * f).sin() * 3.0).collect() };
        let (gates, aux) = (
            values(rows * GATES * PANEL, 0.37),
            values(rows * GATES * PANEL, 0.23),
        );
        let h_prev = values(rows * PANEL, 0.11);
        let tr = |ptr: *mut f32, stride: usize| TileRows {
            ptr,
            stride: stride as isize,
        };
        for isa in Isa::all_supported() {
            for precision in [Precision::F32, Precision::Bf16] {
                for (training, lbr) in [(false, false), (true, false), (false, true), (true, true)]
                {
                    let run = |extra: bool| {
                        let (mut g, mut a, mut hp) = (gates.clone(), aux.clone(), h_prev.clone());
                        let mut h = vec![9f32; rows * PANEL];
                        let mut x = vec![9f32; rows * PANEL];
                        let mut ws = vec![0f32; rows * GATES * PANEL];
                        // GRU: `aux` is where part 1 writes `r ⊙ h_prev` (a panel row each).
                        let aux_stride = if lbr { GATES * PANEL } else { PANEL };
                        let tile = GruTile {
                            rows,
                            valid: PANEL,
                            gates: tr(g.as_mut_ptr(), GATES * PANEL),
                            h_prev: tr(hp.as_mut_ptr(), PANEL),
                            attention: TileRows::NONE,
                            h: HDest {
                                h_out: tr(h.as_mut_ptr(), PANEL),
                                h_extra: if extra {
                                    tr(x.as_mut_ptr(), PANEL)
                                } else {
                                    TileRows::NONE
                                },
                                extra_add: false,
                                precision,
                            },
                            ws_gates: if training {
                                tr(ws.as_mut_ptr(), GATES * PANEL)
                            } else {
                                TileRows::NONE
                            },
                            ws_gate_stride: PANEL,
                            aux: tr(a.as_mut_ptr(), aux_stride),
                            ws_lbr: TileRows::NONE,
                            linear: None,
                        };
                        // SAFETY: every buffer has the rows and units the tile describes.
                        unsafe {
                            if lbr {
                                super::super::lbr_gru::postgemm_tile(isa, &tile);
                            } else {
                                part1_tile(isa, &tile);
                                part2_tile(isa, &tile);
                            }
                        }
                        let bits = |v: &[f32]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                        (bits(&h), bits(&a))
                    };
                    let at = format!("{isa:?} {precision:?} training {training} lbr {lbr}");
                    let copied = run(true);
                    assert!(copied.0.iter().all(|&b| b != 9f32.to_bits()), "{at}");
                    assert_eq!(run(false), copied, "{at}");
                }
            }
        }
    }
}
