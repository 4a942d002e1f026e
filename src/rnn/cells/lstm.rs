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
//! One body over the kernels' [`Vector`] type (see `tile_body`): `__m512` registers under
//! AVX-512, with all eight vectors of a panel row in lockstep; elsewhere `Scalar` lanes in a
//! loop over the units that the compiler vectorizes. One call processes a whole tile (all
//! batch rows of a work item), so constants are set up once. Two batch rows per iteration of
//! the old unit loops, for more independent chains, was not faster (9.6 against 9.2 µs).

use super::{copy_units, load_units, store_gates, HDest, Linear, TileRows};
use crate::kernels::activations::{
    exp_parts, lanes, sigmoid_finish, sigmoid_n, tanh_arg, tanh_finish, tanh_n,
};
use crate::kernels::isa::{isa_dispatch, vector_dispatch};
use crate::kernels::vector::{Scalar, Unfused, Vector};
use crate::memory::packed::PANEL;
use crate::rnn::precision::Precision;

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
    /// The precision c is rounded to where it is stored (the c-state's type; h is computed
    /// from the unrounded c, as oneDNN does).
    pub c_precision: Precision,
    /// Where h goes.
    pub h: HDest,
    /// Workspace rows `[G][DHC]` for the post-activation gates (training), or none.
    pub ws_gates: TileRows,
    /// Stride between gates in `ws_gates` (DHC).
    pub ws_gate_stride: usize,
    /// Test mode: linear activations.
    pub linear: Option<Linear>,
}

/// The cell on one group of `K` vectors of units of one batch row (see `tile_body`): from the
/// pre-activations `a` (vector `j`: gate `j / K`, the units of vector `j % K` of the group)
/// and `c_prev` `cp` to the activated gates, c and h. `pp(j)` loads the peephole weights of
/// vector `j` (i, f, and as gate 2 o), read only with `PEEPHOLE`.
#[inline(always)]
pub(crate) fn units<
    V: Vector,
    const K: usize,
    const N: usize,
    const LINEAR: bool,
    const PEEPHOLE: bool,
>(
    mut a: [V; N],
    cp: [V; K],
    lin: &Linear,
    pp: impl Fn(usize) -> V,
) -> ([V; N], [V; K], [V; K]) {
    debug_assert_eq!(N, GATES * K);
    if PEEPHOLE {
        for j in 0..2 * K {
            a[j] = V::mul_add(pp(j), cp[j % K], a[j]);
        }
    }
    let mut g: [V; N] = if LINEAR {
        lanes!(V, N, |j| V::mul(V::splat(lin.scales[j / K]), a[j]))
    } else {
        let arg = lanes!(V, N, |j| if j / K == 2 {
            tanh_arg(a[j])
        } else {
            V::neg_abs(a[j])
        });
        let (scale, q) = exp_parts(arg);
        lanes!(V, N, |j| if j / K == 2 {
            tanh_finish(a[j], scale[j], q[j])
        } else {
            sigmoid_finish(a[j], scale[j], q[j])
        })
    };
    let c: [V; K] = lanes!(V, K, |b| {
        V::mul_add(g[K + b], cp[b], V::mul(g[b], g[2 * K + b]))
    });
    if PEEPHOLE {
        let ao: [V; K] = lanes!(V, K, |b| V::mul_add(pp(2 * K + b), c[b], a[3 * K + b]));
        let o: [V; K] = if LINEAR {
            lanes!(V, K, |b| V::mul(V::splat(lin.scales[3]), ao[b]))
        } else {
            sigmoid_n(ao)
        };
        g[3 * K..].copy_from_slice(&o);
    }
    let th: [V; K] = if LINEAR {
        lanes!(V, K, |b| V::mul(V::splat(lin.cscale), c[b]))
    } else {
        tanh_n(c)
    };
    let h = lanes!(V, K, |b| V::mul(g[3 * K + b], th[b]));
    (g, c, h)
}

/// Computes one tile, on vectors `V`, `K` vectors of units at a time (`N` = 4·K): per batch
/// row and group of `K·V::WIDTH` units, the exponentials of the four gates in lockstep (each
/// step on all `N` vectors before the next, so their dependency chains overlap), then c, then
/// tanh(c) (and with peephole weights σ of `o`, which needs the new c). With AVX-512 a group
/// is a whole panel row (`K` = 2). The same arithmetic as loops over each gate's 32 units
/// (which the compiler turned into one gate's chains after the other) took, in two paired
/// `rnn_bench --variants` runs (2 threads, 20 rounds each), 1.009 / 1.018 × as long on W2,
/// 1.019 / 1.008 on W8, 1.011 / 1.009 on X8, 1.025 / 1.007 on W7 (W1, W3: within noise);
/// criterion `lstm_postgemm`: 7.4–9.3 µs against 9.4–13.4, alternately on a busy host. With
/// `Scalar` lanes (`K` = 1) the loop over the units is what the compiler vectorizes, as before
/// (16-float arrays in lockstep spill to the stack on AVX2: LSTM N=128 C=256 5 % slower).
///
/// # Safety
/// Every row of `gates` has `4·32` readable floats; every non-null row pointer of the other
/// buffers `valid` floats (per gate for `ws_gates`), inputs readable and outputs writable; outputs
/// do not overlap each other or the inputs, except `c_out` == `c_prev` exactly. `V` must be
/// supported by the CPU.
#[inline(always)]
unsafe fn tile_body<
    V: Vector,
    const K: usize,
    const N: usize,
    const STORE_GATES: bool,
    const LINEAR: bool,
    const PEEPHOLE: bool,
>(
    t: &LstmTile,
) {
    debug_assert_eq!(N, GATES * K);
    let valid = t.valid;
    let lin = Linear::of_tile(t.linear);
    let pp = t.peephole;
    let w = V::WIDTH;
    for r in 0..t.rows {
        unsafe {
            let row = t.gates.row(r);
            let cp_row = load_units(t.c_prev, r, valid);
            let mut act = [[0f32; PANEL]; GATES];
            let mut c_row = [0f32; PANEL];
            let mut h_row = [0f32; PANEL];
            for u in (0..PANEL).step_by(K * w) {
                // Vector j: gate j / K, units u + (j % K)·w.
                let at = |j: usize| (j / K) * PANEL + u + (j % K) * w;
                let a: [V; N] = lanes!(V, N, |j| V::load(row.add(at(j))));
                let cp: [V; K] = lanes!(V, K, |b| V::load(cp_row.as_ptr().add(u + b * w)));
                let (g, c, h) =
                    units::<V, K, N, LINEAR, PEEPHOLE>(a, cp, &lin, |j| V::load(pp.add(at(j))));
                for b in 0..K {
                    let o = u + b * w;
                    c[b].store(c_row.as_mut_ptr().add(o));
                    h[b].store(h_row.as_mut_ptr().add(o));
                }
                if STORE_GATES {
                    for (j, v) in g.iter().enumerate() {
                        v.store(act[j / K].as_mut_ptr().add(u + (j % K) * w));
                    }
                }
            }
            let c_row = t.c_precision.round_panel(&c_row, valid);
            copy_units(t.c_out.row(r), c_row.as_ptr(), valid);
            t.h.store(r, &h_row, valid);
            if STORE_GATES {
                store_gates(t.ws_gates, t.ws_gate_stride, r, &act, valid);
            }
        }
    }
}

/// [`tile_body`] with its lockstep width: a whole panel row of `V`s when two of them make a
/// gate's 32 units (AVX-512), else one `V` (a `Scalar`) at a time.
#[inline(always)]
unsafe fn tile_k<V: Vector, const STORE_GATES: bool, const LINEAR: bool, const PEEPHOLE: bool>(
    t: &LstmTile,
) {
    unsafe {
        if V::WIDTH * 2 == PANEL {
            tile_body::<V, 2, 8, STORE_GATES, LINEAR, PEEPHOLE>(t)
        } else {
            tile_body::<V, 1, 4, STORE_GATES, LINEAR, PEEPHOLE>(t)
        }
    }
}

#[inline(always)]
unsafe fn tile_any<V: Vector>(t: &LstmTile) {
    unsafe {
        let store = !t.ws_gates.is_none();
        match (store, t.linear.is_some(), !t.peephole.is_null()) {
            (false, false, false) => tile_k::<V, false, false, false>(t),
            (true, false, false) => tile_k::<V, true, false, false>(t),
            (false, true, false) => tile_k::<V, false, true, false>(t),
            (true, true, false) => tile_k::<V, true, true, false>(t),
            (false, false, true) => tile_k::<V, false, false, true>(t),
            (true, false, true) => tile_k::<V, true, false, true>(t),
            (false, true, true) => tile_k::<V, false, true, true>(t),
            (true, true, true) => tile_k::<V, true, true, true>(t),
        }
    }
}

vector_dispatch!(
    /// The LSTM post-GEMM of one tile (see `tile_body`'s contract).
    pub unsafe fn postgemm_tile => tile_any, (tile: &LstmTile)
);

isa_dispatch!(
    @with [Unfused<std::arch::x86_64::__m512>] [Scalar<false>] [Scalar<false>]
    /// [`postgemm_tile`] without fused multiply-adds on every instruction set: the same bits
    /// wherever it runs (the int8 post-GEMM, whose requantized outputs must not depend on
    /// the CPU).
    pub unsafe fn postgemm_tile_unfused => tile_any, (tile: &LstmTile)
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
                    c_precision: Precision::F32,
                    h: HDest {
                        h_out: tr(h.as_mut_ptr(), 40),
                        h_extra: tr(extra.as_mut_ptr(), 40),
                        extra_add: true,
                        precision: Precision::F32,
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
