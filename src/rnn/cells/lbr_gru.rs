//! Linear-before-reset GRU / AUGRU post-GEMM, one part: the recurrent product `R = h_prev·U`
//! (plus the extra bias row `b_u'` on the `o` gate) arrives in its own buffer, so
//!
//! ```text
//! u = σ(A_u + R_u)   r = σ(A_r + R_r)   o = tanh(A_o + r ⊙ R_o)
//! ```
//! and h as in the GRU (shared [`gru::finish`](super::gru), with AUGRU's attention factor).
//! Training keeps `R_o` (`h_prev·U_o + b_u'`) for the backward pass.

use super::copy_units;
use super::gru::{finish, GruTile, GATES};
use crate::kernels::activations::{sigmoid, tanh};
use crate::kernels::isa::isa_dispatch;
use crate::memory::packed::PANEL;

#[inline(always)]
unsafe fn tile_any<const FMA: bool>(t: &GruTile) {
    unsafe {
        for r in 0..t.rows {
            let a = &*(t.gates.row(r) as *const [[f32; PANEL]; GATES]);
            let rec = &*(t.aux.row(r) as *const [[f32; PANEL]; GATES]);
            let mut act = [[0f32; PANEL]; GATES];
            for k in 0..PANEL {
                let rg = sigmoid::<FMA>(a[1][k] + rec[1][k]);
                act[0][k] = sigmoid::<FMA>(a[0][k] + rec[0][k]);
                act[1][k] = rg;
                act[2][k] = tanh::<FMA>(a[2][k] + rg * rec[2][k]);
            }
            finish(t, r, &act);
            if !t.ws_lbr.is_none() {
                copy_units(t.ws_lbr.row(r), rec[2].as_ptr(), t.valid);
            }
        }
    }
}

isa_dispatch!(
    /// The LBR-GRU post-GEMM of one tile: rows of `gates` and `aux` have `3·32` readable floats,
    /// every non-null row of the other buffers `valid` floats; outputs do not overlap inputs.
    pub unsafe fn postgemm_tile => tile_any, (tile: &GruTile)
);
