//! Linear-before-reset GRU / AUGRU post-GEMM, one part: the recurrent product `R = h_prev·U`
//! (plus the extra bias row `b_u'` on the `o` gate) arrives in its own buffer, so
//!
//! ```text
//! u = σ(A_u + R_u)   r = σ(A_r + R_r)   o = tanh(A_o + r ⊙ R_o)
//! ```
//! and h as in the GRU (shared [`gru::finish`](super::gru), with AUGRU's attention factor).
//! In test mode (`Linear`) σ and tanh of gate g become `scale_g·x`.
//! Training keeps `R_o` (`h_prev·U_o + b_u'`) for the backward pass.

use super::gru::{finish, keep, new_h, store_h_in_place, GruTile, GATES};
use super::{activate, copy_units, Linear};
use crate::kernels::activations::{sigmoid, tanh};
use crate::kernels::isa::isa_dispatch;
use crate::memory::packed::PANEL;

#[inline(always)]
unsafe fn tile_body<const FMA: bool, const LINEAR: bool>(t: &GruTile) {
    unsafe {
        let lin = Linear::of_tile(t.linear);
        let sig = |g: usize, x: f32| activate::<LINEAR>(&lin, g, x, sigmoid::<FMA>);
        // A whole panel of inference: the gates and h in one pass, h stored in place
        // (`store_h_in_place`) rather than through the activated gates on the stack, which
        // Zen 4 reloads only once the stores are done.
        let in_place = t.ws_gates.is_none() && t.h.direct(t.valid);
        for r in 0..t.rows {
            let a = &*(t.gates.row(r) as *const [[f32; PANEL]; GATES]);
            let rec = &*(t.aux.row(r) as *const [[f32; PANEL]; GATES]);
            // The activated gates u, r, o of unit k.
            let gates = |k: usize| {
                let rg = sig(1, a[1][k] + rec[1][k]);
                let o = activate::<LINEAR>(&lin, 2, a[2][k] + rg * rec[2][k], tanh::<FMA>);
                (sig(0, a[0][k] + rec[0][k]), rg, o)
            };
            if in_place {
                let keep = keep(t, r);
                store_h_in_place(t, r, |k, hp| {
                    let (u, _, o) = gates(k);
                    new_h(keep, u, hp, o)
                });
            } else {
                let mut act = [[0f32; PANEL]; GATES];
                let [u, rg, o] = &mut act;
                for (k, ((u, rg), o)) in u.iter_mut().zip(rg).zip(o).enumerate() {
                    (*u, *rg, *o) = gates(k);
                }
                finish(t, r, &act);
            }
            if !t.ws_lbr.is_none() {
                copy_units(t.ws_lbr.row(r), rec[2].as_ptr(), t.valid);
            }
        }
    }
}

#[inline(always)]
unsafe fn tile_any<const FMA: bool>(t: &GruTile) {
    unsafe {
        if t.linear.is_some() {
            tile_body::<FMA, true>(t)
        } else {
            tile_body::<FMA, false>(t)
        }
    }
}

isa_dispatch!(
    /// The LBR-GRU post-GEMM of one tile: rows of `gates` and `aux` have `3·32` readable floats,
    /// every non-null row of the other buffers `valid` floats; outputs do not overlap inputs.
    pub unsafe fn postgemm_tile => tile_any, (tile: &GruTile)
);
