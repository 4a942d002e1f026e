//! LSTM post-GEMM: from the gate pre-activations of 32 hidden units of one batch row (one panel
//! of the GEMM output, gates `i, f, c̃, o` side by side) to the new cell and hidden states.
//!
//! ```text
//! i = σ(A_i + P_i·c_prev)   f = σ(A_f + P_f·c_prev)   c̃ = tanh(A_c̃)
//! c = f·c_prev + i·c̃        o = σ(A_o + P_o·c)         h = o·tanh(c)
//! ```
//! (bias is already in `A`: the layer GEMM starts from it; `P` are the peephole weights, zeros
//! without them). In test mode (`Linear`) σ and tanh of gate g become `scale_g·x` and
//! `tanh(c)` in h becomes `cscale·c`. With projection, h here is h̃ (the driver projects it).
//! Written as scalar loops over 32
//! lanes that the compiler turns into two 16-lane vectors per operation under AVX-512; one call
//! processes a whole tile (all batch rows of a work item), so constants are set up once.
//! Measured alternatives (criterion `lstm_postgemm`, 1.1 ns per unit): two batch rows per loop
//! iteration, for more independent chains, was not faster (9.6 against 9.2 µs per 8 Ki units);
//! the activations written as lockstep array steps (`[f32; 64]` per operation) spill the
//! arrays to the stack (memcpy calls), 10× slower.

use super::{activate, copy_units, load_units, store_gates, HDest, Linear, TileRows};
use crate::kernels::activations::{mul_add, sigmoid, tanh};
use crate::kernels::isa::isa_dispatch;
use crate::memory::packed::PANEL;

/// Gates of the LSTM cell.
pub const GATES: usize = 4;

/// One tile of the post-GEMM: `rows` batch rows × the `valid` (≤ 32) units of one panel.
#[derive(Clone, Copy, Debug)]
pub struct LstmTile {
    /// Batch rows.
    pub rows: usize,
    /// Valid units of the panel (32 except in the last panel).
    pub valid: usize,
    /// Gate pre-activations, a panel row `[4][32]` per batch row.
    pub gates: TileRows,
    /// Peephole weights of the panel, `[3][32]` (rows i, f, o), or null for none.
    pub peephole: *const f32,
    /// Previous cell state (null: zeros).
    pub c_prev: TileRows,
    /// New cell state (may be `c_prev` itself: updated in place).
    pub c_out: TileRows,
    /// Where h goes.
    pub h: HDest,
    /// Workspace rows `[G][DHC]` for the post-activation gates (training), or none.
    pub ws_gates: TileRows,
    /// Stride between gates in `ws_gates` (DHC).
    pub ws_gate_stride: usize,
    /// Test mode: linear activations.
    pub linear: Option<Linear>,
}

/// Computes one tile.
///
/// # Safety
/// Every row of `gates` has `4·32` readable floats; every non-null row pointer of the other
/// buffers `valid` floats (per gate for `ws_gates`), inputs readable and outputs writable; outputs
/// do not overlap each other or the inputs, except `c_out` == `c_prev` exactly.
#[inline(always)]
unsafe fn tile_body<
    const FMA: bool,
    const STORE_GATES: bool,
    const LINEAR: bool,
    const PEEPHOLE: bool,
>(
    t: &LstmTile,
) {
    unsafe {
        let valid = t.valid;
        let lin = Linear::of_tile(t.linear);
        let sig = |g: usize, x: f32| activate::<LINEAR>(&lin, g, x, sigmoid::<FMA>);
        // `A + P_g[u]·x` (peephole row g), or `A` alone: a separate instantiation without
        // peephole weights (adding zeros costs a quarter of the tile's time).
        let pp = t.peephole as *const [[f32; PANEL]; 3];
        let peep = |g: usize, u: usize, x: f32, a: f32| {
            if PEEPHOLE {
                mul_add::<FMA>((*pp)[g][u], x, a)
            } else {
                a
            }
        };
        for r in 0..t.rows {
            let a = &*(t.gates.row(r) as *const [[f32; PANEL]; GATES]);
            let cp = load_units(t.c_prev, r, valid);
            let mut act = [[0f32; PANEL]; GATES];
            let mut c = [0f32; PANEL];
            let mut h = [0f32; PANEL];
            for u in 0..PANEL {
                let i = sig(0, peep(0, u, cp[u], a[0][u]));
                let f = sig(1, peep(1, u, cp[u], a[1][u]));
                let ct = activate::<LINEAR>(&lin, 2, a[2][u], tanh::<FMA>);
                let cn = mul_add::<FMA>(f, cp[u], i * ct);
                let o = sig(3, peep(2, u, cn, a[3][u]));
                c[u] = cn;
                h[u] = o * if LINEAR {
                    lin.cscale * cn
                } else {
                    tanh::<FMA>(cn)
                };
                if STORE_GATES {
                    act[0][u] = i;
                    act[1][u] = f;
                    act[2][u] = ct;
                    act[3][u] = o;
                }
            }
            copy_units(t.c_out.row(r), c.as_ptr(), valid);
            t.h.store(r, &h, valid);
            if STORE_GATES {
                store_gates(t.ws_gates, t.ws_gate_stride, r, &act, valid);
            }
        }
    }
}

#[inline(always)]
unsafe fn tile_any<const FMA: bool>(t: &LstmTile) {
    unsafe {
        let store = !t.ws_gates.is_none();
        match (store, t.linear.is_some(), !t.peephole.is_null()) {
            (false, false, false) => tile_body::<FMA, false, false, false>(t),
            (true, false, false) => tile_body::<FMA, true, false, false>(t),
            (false, true, false) => tile_body::<FMA, false, true, false>(t),
            (true, true, false) => tile_body::<FMA, true, true, false>(t),
            (false, false, true) => tile_body::<FMA, false, false, true>(t),
            (true, false, true) => tile_body::<FMA, true, false, true>(t),
            (false, true, true) => tile_body::<FMA, false, true, true>(t),
            (true, true, true) => tile_body::<FMA, true, true, true>(t),
        }
    }
}

isa_dispatch!(
    /// The LSTM post-GEMM of one tile (see `tile_body`'s contract).
    pub unsafe fn postgemm_tile => tile_any, (tile: &LstmTile)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Isa;

    #[test]
    fn matches_the_equations_on_every_isa() {
        let rows = 3;
        let gates: Vec<f32> = (0..rows * GATES * PANEL)
            .map(|i| (i as f32 * 0.37).sin() * 3.0)
            .collect();
        let c_prev: Vec<f32> = (0..rows * 40).map(|i| (i as f32 * 0.11).cos()).collect();
        for isa in Isa::all_supported() {
            for valid in [32, 7] {
                let mut c = vec![9f32; rows * 40];
                let mut h = vec![9f32; rows * 40];
                let mut extra = vec![1f32; rows * 40];
                let mut ws = vec![9f32; rows * GATES * 40];
                let tr = |p: *mut f32, stride: usize| TileRows {
                    ptr: p,
                    stride: stride as isize,
                };
                let tile = LstmTile {
                    rows,
                    valid,
                    gates: tr(gates.as_ptr().cast_mut(), GATES * PANEL),
                    peephole: std::ptr::null(),
                    c_prev: tr(c_prev.as_ptr().cast_mut(), 40),
                    c_out: tr(c.as_mut_ptr(), 40),
                    h: HDest {
                        h_out: tr(h.as_mut_ptr(), 40),
                        h_extra: tr(extra.as_mut_ptr(), 40),
                        extra_add: true,
                    },
                    ws_gates: tr(ws.as_mut_ptr(), GATES * 40),
                    ws_gate_stride: 40,
                    linear: None,
                };
                unsafe { postgemm_tile(isa, &tile) };
                for r in 0..rows {
                    let g = &gates[r * GATES * PANEL..];
                    for u in 0..40 {
                        let k = r * 40 + u;
                        if u >= valid {
                            assert_eq!((c[k], h[k], extra[k]), (9.0, 9.0, 1.0));
                            continue;
                        }
                        let s = |x: f32| 1.0 / (1.0 + (-x as f64).exp());
                        let (i, f, ct, o) = (
                            s(g[u]),
                            s(g[32 + u]),
                            (g[64 + u] as f64).tanh(),
                            s(g[96 + u]),
                        );
                        let ce = f * c_prev[k] as f64 + i * ct;
                        let he = o * ce.tanh();
                        assert!((c[k] as f64 - ce).abs() < 1e-6, "{isa:?} c[{r}][{u}]");
                        assert!((h[k] as f64 - he).abs() < 1e-6, "{isa:?} h[{r}][{u}]");
                        assert!((extra[k] as f64 - 1.0 - he).abs() < 1e-6);
                        assert!((ws[r * GATES * 40 + 40 + u] as f64 - f).abs() < 1e-6);
                    }
                }
            }
        }
    }
}
