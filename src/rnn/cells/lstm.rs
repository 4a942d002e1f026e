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
    exp_parts, lanes, sigmoid_n, sigmoid_quotient, tanh_arg, tanh_n, tanh_quotient,
};
use crate::kernels::isa::{isa_dispatch, vector_dispatch};
use crate::kernels::vector::{Scalar, Vector};
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
        let (num, den) = gate_quotients::<V, K, N>(a);
        lanes!(V, N, |j| V::div(num[j], den[j]))
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

/// The activated gates of [`units`] as `(numerators, denominators)` ([`sigmoid_quotient`],
/// [`tanh_quotient`] of gate 2), their exponentials in lockstep.
#[inline(always)]
fn gate_quotients<V: Vector, const K: usize, const N: usize>(a: [V; N]) -> ([V; N], [V; N]) {
    let arg = lanes!(V, N, |j| if j / K == 2 {
        tanh_arg(a[j])
    } else {
        V::neg_abs(a[j])
    });
    let (scale, q) = exp_parts(arg);
    let mut num = [V::zero(); N];
    let mut den = [V::zero(); N];
    for j in 0..N {
        (num[j], den[j]) = if j / K == 2 {
            tanh_quotient(a[j], scale[j], q[j])
        } else {
            sigmoid_quotient(a[j], scale[j], q[j])
        };
    }
    (num, den)
}

/// The new c and h of [`units`] without peephole weights or test mode, each as one quotient —
/// two divisions per unit instead of five (one per activation):
/// `c = (n_f·c_prev·d_i·d_c̃ + n_i·n_c̃·d_f) / (d_f·d_i·d_c̃)` and `h = n_o·n_t / (d_o·d_t)`
/// with `n/d` the gates' quotients and `n_t/d_t` that of tanh(c). Every denominator is in
/// [1, 2], so their products neither overflow nor underflow (only a |c_prev| above
/// f32::MAX/4 could overflow where [`units`] does not); a saturated gate has denominator 1
/// and numerator e^−87, 0 or ±1, as its per-activation value, so c and h saturate alike.
/// Within a few ulp of [`units`] (of its terms' magnitude where they cancel), not bit for bit.
#[inline(always)]
pub(crate) fn state<V: Vector, const K: usize, const N: usize>(
    a: [V; N],
    cp: [V; K],
) -> ([V; K], [V; K]) {
    debug_assert_eq!(N, GATES * K);
    let (n, d) = gate_quotients::<V, K, N>(a);
    let (i, f, g, o) = (0, K, 2 * K, 3 * K);
    let c: [V; K] = lanes!(V, K, |b| {
        let d_ig = V::mul(d[i + b], d[g + b]);
        let added = V::mul(V::mul(n[i + b], n[g + b]), d[f + b]);
        V::div(
            V::mul_add(n[f + b], V::mul(cp[b], d_ig), added),
            V::mul(d_ig, d[f + b]),
        )
    });
    let (scale, q) = exp_parts(lanes!(V, K, |b| tanh_arg(c[b])));
    let h = lanes!(V, K, |b| {
        let (nt, dt) = tanh_quotient(c[b], scale[b], q[b]);
        V::div(V::mul(n[o + b], nt), V::mul(d[o + b], dt))
    });
    (c, h)
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
/// With `QUOTIENT`, inference (no workspace, peephole weights or test mode) computes c and h
/// by [`state`] (two divisions per unit instead of five).
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
    const QUOTIENT: bool,
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
    // A whole panel reads c_prev and, when h has one destination and c and h are f32 or bf16
    // (rounded in registers), writes c and h in place rather than through copies on the
    // stack: Zen 4 does not forward a zmm store to a zmm load (it stores the halves apart),
    // so each reload waited for its store to retire.
    let whole = valid == PANEL;
    let in_place = t.h.direct(valid) && matches!(t.c_precision, Precision::F32 | Precision::Bf16);
    let (c_bf16, h_bf16) = (
        t.c_precision == Precision::Bf16,
        t.h.precision == Precision::Bf16,
    );
    for r in 0..t.rows {
        unsafe {
            let row = t.gates.row(r);
            let cp_row;
            let cp_at: *const f32 = if whole && !t.c_prev.is_none() {
                t.c_prev.row(r)
            } else {
                cp_row = load_units(t.c_prev, r, valid);
                cp_row.as_ptr()
            };
            let mut act = [[0f32; PANEL]; GATES];
            let mut c_row = [0f32; PANEL];
            let mut h_row = [0f32; PANEL];
            for u in (0..PANEL).step_by(K * w) {
                // Vector j: gate j / K, units u + (j % K)·w.
                let at = |j: usize| (j / K) * PANEL + u + (j % K) * w;
                let a: [V; N] = lanes!(V, N, |j| V::load(row.add(at(j))));
                let cp: [V; K] = lanes!(V, K, |b| V::load(cp_at.add(u + b * w)));
                let (c, h) = if QUOTIENT && !(STORE_GATES || LINEAR || PEEPHOLE) {
                    state::<V, K, N>(a, cp)
                } else {
                    let (g, c, h) =
                        units::<V, K, N, LINEAR, PEEPHOLE>(a, cp, &lin, |j| V::load(pp.add(at(j))));
                    if STORE_GATES {
                        for (j, v) in g.iter().enumerate() {
                            v.store(act[j / K].as_mut_ptr().add(u + (j % K) * w));
                        }
                    }
                    (c, h)
                };
                let (c_at, h_at) = if in_place {
                    (t.c_out.row(r), t.h.h_out.row(r))
                } else {
                    (c_row.as_mut_ptr(), h_row.as_mut_ptr())
                };
                for b in 0..K {
                    let o = u + b * w;
                    let (cv, hv) = if in_place {
                        (
                            if c_bf16 { V::round_bf16(c[b]) } else { c[b] },
                            if h_bf16 { V::round_bf16(h[b]) } else { h[b] },
                        )
                    } else {
                        (c[b], h[b])
                    };
                    cv.store(c_at.add(o));
                    hv.store(h_at.add(o));
                }
            }
            if !in_place {
                let c_row = t.c_precision.round_panel(&c_row, valid);
                copy_units(t.c_out.row(r), c_row.as_ptr(), valid);
                t.h.store(r, &h_row, valid);
            }
            if STORE_GATES {
                store_gates(t.ws_gates, t.ws_gate_stride, r, &act, valid);
            }
        }
    }
}

/// [`tile_body`] with its lockstep width: a whole panel row of `V`s when two of them make a
/// gate's 32 units (AVX-512), else one `V` (a `Scalar`) at a time.
#[inline(always)]
unsafe fn tile_k<
    V: Vector,
    const QUOTIENT: bool,
    const STORE_GATES: bool,
    const LINEAR: bool,
    const PEEPHOLE: bool,
>(
    t: &LstmTile,
) {
    unsafe {
        if V::WIDTH * 2 == PANEL {
            tile_body::<V, 2, 8, QUOTIENT, STORE_GATES, LINEAR, PEEPHOLE>(t)
        } else {
            tile_body::<V, 1, 4, QUOTIENT, STORE_GATES, LINEAR, PEEPHOLE>(t)
        }
    }
}

#[inline(always)]
unsafe fn tile_any<V: Vector, const QUOTIENT: bool>(t: &LstmTile) {
    unsafe {
        let store = !t.ws_gates.is_none();
        match (store, t.linear.is_some(), !t.peephole.is_null()) {
            (false, false, false) => tile_k::<V, QUOTIENT, false, false, false>(t),
            (true, false, false) => tile_k::<V, QUOTIENT, true, false, false>(t),
            (false, true, false) => tile_k::<V, QUOTIENT, false, true, false>(t),
            (true, true, false) => tile_k::<V, QUOTIENT, true, true, false>(t),
            (false, false, true) => tile_k::<V, QUOTIENT, false, false, true>(t),
            (true, false, true) => tile_k::<V, QUOTIENT, true, false, true>(t),
            (false, true, true) => tile_k::<V, QUOTIENT, false, true, true>(t),
            (true, true, true) => tile_k::<V, QUOTIENT, true, true, true>(t),
        }
    }
}

/// [`tile_any`] with inference by [`state`].
#[inline(always)]
unsafe fn tile_quotient<V: Vector>(t: &LstmTile) {
    unsafe { tile_any::<V, true>(t) }
}

vector_dispatch!(
    /// The LSTM post-GEMM of one tile (see `tile_body`'s contract).
    pub unsafe fn postgemm_tile => tile_quotient, (tile: &LstmTile)
);

isa_dispatch!(
    @with [std::arch::x86_64::__m512, false] [Scalar<true>, false] [Scalar<true>, false]
    /// [`postgemm_tile`] with fused multiply-adds on every instruction set (computed in
    /// software by a CPU without them) and the per-activation cell (`units`) throughout: the
    /// same bits wherever it runs, and as the int8 AVX-512 tile (the int8 post-GEMM, whose
    /// requantized outputs must not depend on the CPU).
    pub unsafe fn postgemm_tile_same_bits => tile_any, (tile: &LstmTile)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Isa;

    /// Unit stride of the test buffers (more than a panel: units past `valid` stay untouched).
    const S: usize = 40;

    /// What one tile wrote: c, h, `1 + h` (h added into ones) and the workspace gates.
    struct Out {
        c: Vec<f32>,
        h: Vec<f32>,
        extra: Vec<f32>,
        ws: Vec<f32>,
    }

    /// Runs the post-GEMM on `isa` over `rows` panel rows of `gates` and `c_prev` (rows of
    /// `S`), `valid` units, storing the activated gates (training) or not (inference).
    fn run(isa: Isa, gates: &[f32], c_prev: &[f32], valid: usize, training: bool) -> Out {
        run_with(isa, gates, c_prev, valid, training, true, Precision::F32)
    }

    /// [`run`], with h also added into `extra` only when `extra` (else h alone: the tile may
    /// write c and h in place), c and h rounded to `precision`.
    fn run_with(
        isa: Isa,
        gates: &[f32],
        c_prev: &[f32],
        valid: usize,
        training: bool,
        extra: bool,
        precision: Precision,
    ) -> Out {
        let rows = c_prev.len() / S;
        let mut o = Out {
            c: vec![9.0; rows * S],
            h: vec![9.0; rows * S],
            extra: vec![1.0; rows * S],
            ws: vec![9.0; rows * GATES * S],
        };
        let tr = |p: *mut f32, stride: usize| TileRows {
            ptr: p,
            stride: stride as isize,
        };
        let tile = LstmTile {
            rows,
            valid,
            gates: tr(gates.as_ptr().cast_mut(), GATES * PANEL),
            peephole: std::ptr::null(),
            c_prev: tr(c_prev.as_ptr().cast_mut(), S),
            c_out: tr(o.c.as_mut_ptr(), S),
            c_precision: precision,
            h: HDest {
                h_out: tr(o.h.as_mut_ptr(), S),
                h_extra: if extra {
                    tr(o.extra.as_mut_ptr(), S)
                } else {
                    TileRows::NONE
                },
                extra_add: true,
                precision,
            },
            ws_gates: if training {
                tr(o.ws.as_mut_ptr(), GATES * S)
            } else {
                TileRows::NONE
            },
            ws_gate_stride: S,
            linear: None,
        };
        // SAFETY: every buffer has the rows and units the tile describes.
        unsafe { postgemm_tile(isa, &tile) };
        o
    }

    #[test]
    fn matches_the_equations_on_every_isa() {
        let rows = 3;
        let gates: Vec<f32> = (0..rows * GATES * PANEL)
            .map(|i| (i as f32 * 0.37).sin() * 3.0)
            .collect();
        let c_prev: Vec<f32> = (0..rows * S).map(|i| (i as f32 * 0.11).cos()).collect();
        for isa in Isa::all_supported() {
            for (valid, training) in [(32, false), (32, true), (7, false), (7, true)] {
                for (extra, precision) in [
                    (true, Precision::F32),
                    (false, Precision::F32),
                    (false, Precision::Bf16),
                ] {
                    let o = run_with(isa, &gates, &c_prev, valid, training, extra, precision);
                    // bf16: the stored c and h within one bf16 step of the f32 values.
                    let tol = |x: f64| match precision {
                        Precision::Bf16 => 1e-6 + x.abs() * 2f64.powi(-8),
                        _ => 1e-6,
                    };
                    for r in 0..rows {
                        let g = &gates[r * GATES * PANEL..];
                        for u in 0..S {
                            let k = r * S + u;
                            if u >= valid {
                                assert_eq!((o.c[k], o.h[k], o.extra[k]), (9.0, 9.0, 1.0));
                                continue;
                            }
                            let s = |x: f32| 1.0 / (1.0 + (-x as f64).exp());
                            let (i, f, ct, og) = (
                                s(g[u]),
                                s(g[32 + u]),
                                (g[64 + u] as f64).tanh(),
                                s(g[96 + u]),
                            );
                            let ce = f * c_prev[k] as f64 + i * ct;
                            let he = og * ce.tanh();
                            let at = format!(
                                "{isa:?} training {training} extra {extra} {precision:?} [{r}][{u}]"
                            );
                            assert!((o.c[k] as f64 - ce).abs() <= tol(ce), "c{at}");
                            assert!((o.h[k] as f64 - he).abs() <= tol(he), "h{at}");
                            let rounded = |x: f32| precision.round(x) == x;
                            assert!(rounded(o.c[k]) && rounded(o.h[k]), "{at}");
                            let extra_want = if extra { 1.0 + he } else { 1.0 };
                            assert!((o.extra[k] as f64 - extra_want).abs() < 1e-6, "{at}");
                            if training {
                                let wf = o.ws[r * GATES * S + S + u] as f64;
                                assert!((wf - f).abs() < 1e-6, "{at}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// The inference tile ([`state`]: one quotient for c, one for h) against the
    /// per-activation cell of the training tile ([`units`], whose activated gates it stores),
    /// over random and extreme pre-activations and states: within a few ulp of the terms'
    /// magnitude, NaN where it gives NaN, and bit for bit where it saturates (gates 0 or ±1 in
    /// c, h 0 or ±1).
    #[test]
    fn inference_tiles_match_the_equations_on_every_isa() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut value = |state: bool| {
            let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let sign = if next() & 1 == 0 { 1.0 } else { -1.0 };
            let v = match next() % 16 {
                0 => sign * (20.0 + 180.0 * u),
                1 => sign * 1e30 * u,
                2 => sign * 1e-30 * u,
                3 => 0.0,
                4 if !state => f64::INFINITY * sign,
                5 => f64::NAN,
                6 if state => sign * 1e37 * u,
                _ => sign * 8.0 * u,
            };
            v as f32
        };
        let rows = 400;
        let gates: Vec<f32> = (0..rows * GATES * PANEL).map(|_| value(false)).collect();
        let c_prev: Vec<f32> = (0..rows * S).map(|_| value(true)).collect();
        let eps = f64::from(f32::EPSILON) / 2.0;
        for isa in Isa::all_supported() {
            let (mut worst_c, mut worst_h) = (0f64, 0f64);
            for valid in [32, 7] {
                let new = run(isa, &gates, &c_prev, valid, false);
                let old = run(isa, &gates, &c_prev, valid, true);
                for r in 0..rows {
                    for u in 0..valid {
                        let k = r * S + u;
                        let gate = |g: usize| old.ws[r * GATES * S + g * S + u];
                        let (i, f, g) = (gate(0), gate(1), gate(2));
                        let at = format!(
                            "{isa:?} [{r}][{u}]: c {} h {} (new {} {}), gates {:?}, c_prev {}",
                            old.c[k],
                            old.h[k],
                            new.c[k],
                            new.h[k],
                            (0..GATES)
                                .map(|j| gates[r * GATES * PANEL + j * PANEL + u])
                                .collect::<Vec<_>>(),
                            c_prev[k]
                        );
                        assert_eq!(new.c[k].is_nan(), old.c[k].is_nan(), "c {at}");
                        assert_eq!(new.h[k].is_nan(), old.h[k].is_nan(), "h {at}");
                        assert_eq!(new.extra[k].is_nan(), old.extra[k].is_nan(), "{at}");
                        if old.c[k].is_nan() {
                            continue;
                        }
                        let saturated = |x: f32| x == 0.0 || x.abs() == 1.0;
                        if [i, f, g].into_iter().all(saturated) {
                            assert_eq!(new.c[k].to_bits(), old.c[k].to_bits(), "c {at}");
                        }
                        if saturated(old.h[k]) {
                            assert_eq!(new.h[k].to_bits(), old.h[k].to_bits(), "h {at}");
                        }
                        if old.c[k].is_infinite() {
                            assert_eq!(new.c[k], old.c[k], "c {at}");
                            continue;
                        }
                        // Differences in units of 2⁻²⁴ (at most an ulp) of the terms of c
                        // (which may cancel) and of |h|, beyond c's (which tanh passes on to h
                        // at most as large) and the subnormal results of tiny gates.
                        let terms = (f64::from(f) * f64::from(c_prev[k])).abs()
                            + (f64::from(i) * f64::from(g)).abs();
                        let dc = f64::from(new.c[k]) - f64::from(old.c[k]);
                        let dh = f64::from(new.h[k]) - f64::from(old.h[k]);
                        let ulps = |excess: f64, scale: f64| {
                            if excess > 0.0 {
                                excess / (eps * scale)
                            } else {
                                0.0
                            }
                        };
                        let ulps_c = ulps(dc.abs() - 1e-44, terms);
                        worst_c = worst_c.max(ulps_c);
                        assert!(ulps_c <= 6.0, "c {at}: new {} ({ulps_c} ulp)", new.c[k]);
                        if old.h[k].is_nan() {
                            continue;
                        }
                        let ulps_h = ulps(dh.abs() - dc.abs() - 1e-44, old.h[k].abs().into());
                        worst_h = worst_h.max(ulps_h);
                        assert!(ulps_h <= 6.0, "h {at}: new {} ({ulps_h} ulp)", new.h[k]);
                        assert_eq!(new.extra[k], 1.0 + new.h[k], "{at}");
                    }
                }
            }
            eprintln!("{isa:?}: worst c {worst_c:.2}, h {worst_h:.2} (× 2⁻²⁴ of the magnitude)");
        }
    }
}
