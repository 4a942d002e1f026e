//! The element-wise part of each cell's backward step (reference §a.13), on all batch rows of
//! one step: from the gradient `dh` reaching the cell's h (and `dc`, its c) and the gates the
//! forward pass stored, the gradient `dA` of the gate pre-activations and the direct terms of
//! the previous state's gradient. The recurrent products (`dA·Uᵀ`) are the driver's GEMMs.
//!
//! Matrices are row-major `[N][·]`; `dA` rows are `[G][DHC]`, like the workspace gates.
//!
//! Test mode (`rnn_tparams`): oneDNN 3.13 keeps every gate derivative's normal-mode form, taken
//! in the stored (linear) gates; only the vanilla RNN's derivative ([`vanilla`]) and LSTM's
//! `tanh(c)` ([`lstm`]) change.

use crate::kernels::activations::tanh;
use crate::kernels::isa::isa_dispatch;
use crate::kernels::Isa;
use crate::rnn::cells::vanilla::Activation;
use crate::rnn::cells::Linear;
use std::ops::Range;

/// What one step reads from the forward pass.
#[derive(Clone, Copy, Debug)]
pub struct StepState<'a> {
    /// Batch rows.
    pub n: usize,
    /// Hidden channels.
    pub dhc: usize,
    /// Post-activation gates `[N][G·DHC]`.
    pub gates: &'a [f32],
    /// Previous hidden state, rows of `h_ld` floats.
    pub h_prev: &'a [f32],
    /// Row stride of `h_prev`.
    pub h_ld: usize,
    /// LSTM: cell state before and after the step, `[N][DHC]` each (else empty).
    pub c_prev: &'a [f32],
    /// See `c_prev`.
    pub c: &'a [f32],
    /// LSTM peephole weights `[3][DHC]` (rows i, f, o; zeros without peephole).
    pub peephole: &'a [f32],
    /// AUGRU: the attention of each row (`[N]`), or empty.
    pub att: &'a [f32],
    /// Linear-before-reset cells: `h_prev·U_o + b_u'` `[N][DHC]` (else empty).
    pub lbr: &'a [f32],
}

impl<'a> StepState<'a> {
    /// The same state restricted to the batch rows `rows`.
    pub fn rows(&self, rows: Range<usize>) -> StepState<'a> {
        let cols = self.gates.len().checked_div(self.n).unwrap_or(0);
        let part = |v: &'a [f32], width: usize| -> &'a [f32] {
            if v.is_empty() {
                v
            } else {
                &v[rows.start * width..rows.end * width]
            }
        };
        StepState {
            n: rows.len(),
            gates: part(self.gates, cols),
            h_prev: part(self.h_prev, self.h_ld),
            c_prev: part(self.c_prev, self.dhc),
            c: part(self.c, self.dhc),
            att: part(self.att, 1),
            lbr: part(self.lbr, self.dhc),
            ..*self
        }
    }
}

/// Vanilla RNN: `dA = dh ⊙ act'(h)`, the derivative taken from the output `h` (the stored
/// gate): relu `h > 0 ? 1 : alpha`, tanh `1 − h²`, logistic `h(1 − h)`; in test mode (`linear`:
/// the activation is `scale_0·x`) `scale_0·h` — as oneDNN 3.13, which applies the linear
/// activation to the output where the derivative would be (not the derivative `scale_0`).
pub fn vanilla(
    isa: Isa,
    act: Activation,
    linear: Option<&Linear>,
    st: &StepState,
    dh: &[f32],
    da: &mut [f32],
) {
    // SAFETY: `isa` is supported by the CPU.
    unsafe {
        vanilla_raw(
            isa.or_portable(),
            act,
            linear.map(|lin| lin.scales[0]),
            st,
            dh,
            da,
        )
    }
}

/// [`vanilla`] with the derivative chosen once per call (`scale`: test mode's `scale_0`).
#[inline(always)]
unsafe fn vanilla_body<const FMA: bool>(
    act: Activation,
    scale: Option<f32>,
    st: &StepState,
    dh: &[f32],
    da: &mut [f32],
) {
    let gates = st.gates;
    match (scale, act) {
        (Some(s), _) => times_derivative(da, gates, dh, |h| s * h),
        (None, Activation::Relu(alpha)) => {
            times_derivative(da, gates, dh, |h| if h > 0.0 { 1.0 } else { alpha })
        }
        (None, Activation::Tanh) => times_derivative(da, gates, dh, |h| 1.0 - h * h),
        (None, Activation::Logistic) => times_derivative(da, gates, dh, |h| h * (1.0 - h)),
    }
}

/// `da = dh ⊙ f(h)` element-wise.
#[inline(always)]
fn times_derivative(da: &mut [f32], h: &[f32], dh: &[f32], f: impl Fn(f32) -> f32) {
    for ((d, &h), &g) in da.iter_mut().zip(h).zip(dh) {
        *d = g * f(h);
    }
}

isa_dispatch!(
    /// [`vanilla_body`] as SIMD code of `isa`.
    unsafe fn vanilla_raw => vanilla_body,
    (act: Activation, scale: Option<f32>, st: &StepState, dh: &[f32], da: &mut [f32])
);

/// LSTM (gates i, f, c̃, o; peephole `P`, zeros without peephole). `dc` holds the gradient of
/// the new cell state on entry and of the previous one on return. In test mode (`linear`)
/// `tanh(c)` is `cscale·c` — also in `1 − tanh²(c)`, as oneDNN computes it; the gate
/// derivatives keep their form in the stored (linear) gates. `tanh` is the forward pass's
/// branch-free one, so the loop is SIMD code of `isa`.
/// ```text
/// dA_o = dh·tanh(c)·o(1−o)     dc += dh·o·(1 − tanh²(c)) + dA_o·P_o
/// dA_f = dc·c_prev·f(1−f)      dA_i = dc·c̃·i(1−i)      dA_c̃ = dc·i·(1 − c̃²)
/// dc_prev = dc·f + dA_f·P_f + dA_i·P_i
/// ```
pub fn lstm(
    isa: Isa,
    linear: Option<&Linear>,
    st: &StepState,
    dh: &[f32],
    dc: &mut [f32],
    da: &mut [f32],
) {
    let cscale = linear.map(|lin| lin.cscale);
    // SAFETY: `isa` is supported by the CPU.
    unsafe { lstm_raw(isa.or_portable(), cscale, st, dh, dc, da) }
}

/// [`lstm`] compiled for one instruction set (`FMA`), `tanh(c)` chosen once.
///
/// # Safety
/// None beyond the callers' target features.
#[inline(always)]
unsafe fn lstm_body<const FMA: bool>(
    cscale: Option<f32>,
    st: &StepState,
    dh: &[f32],
    dc: &mut [f32],
    da: &mut [f32],
) {
    match cscale {
        Some(s) => lstm_rows(|c| s * c, st, dh, dc, da),
        None => lstm_rows(tanh::<FMA>, st, dh, dc, da),
    }
}

isa_dispatch!(
    /// [`lstm_body`] as SIMD code of `isa`.
    unsafe fn lstm_raw => lstm_body,
    (cscale: Option<f32>, st: &StepState, dh: &[f32], dc: &mut [f32], da: &mut [f32])
);

/// The loop of [`lstm`] with `tanh_c` for `tanh(c)`; every slice cut to `DHC` floats so the
/// loop has no bounds checks.
#[inline(always)]
fn lstm_rows(
    tanh_c: impl Fn(f32) -> f32,
    st: &StepState,
    dh: &[f32],
    dc: &mut [f32],
    da: &mut [f32],
) {
    let dhc = st.dhc;
    let (p_i, p_f, p_o) = (
        &st.peephole[..dhc],
        &st.peephole[dhc..2 * dhc],
        &st.peephole[2 * dhc..3 * dhc],
    );
    for r in 0..st.n {
        let gates = &st.gates[r * 4 * dhc..][..4 * dhc];
        let (gi, rest) = gates.split_at(dhc);
        let (gf, rest) = rest.split_at(dhc);
        let (gc, go) = rest.split_at(dhc);
        let da = &mut da[r * 4 * dhc..][..4 * dhc];
        let (da_i, rest) = da.split_at_mut(dhc);
        let (da_f, rest) = rest.split_at_mut(dhc);
        let (da_c, da_o) = rest.split_at_mut(dhc);
        let c = &st.c[r * dhc..][..dhc];
        let cp = &st.c_prev[r * dhc..][..dhc];
        let dh = &dh[r * dhc..][..dhc];
        let dc = &mut dc[r * dhc..][..dhc];
        for o in 0..dhc {
            let (i, f, ct, og) = (gi[o], gf[o], gc[o], go[o]);
            let tc = tanh_c(c[o]);
            let d_o = dh[o] * tc * og * (1.0 - og);
            let d = dc[o] + dh[o] * og * (1.0 - tc * tc) + d_o * p_o[o];
            let d_f = d * cp[o] * f * (1.0 - f);
            let d_i = d * ct * i * (1.0 - i);
            da_i[o] = d_i;
            da_f[o] = d_f;
            da_c[o] = d * i * (1.0 - ct * ct);
            da_o[o] = d_o;
            dc[o] = d * f + d_f * p_f[o] + d_i * p_i[o];
        }
    }
}

/// The GRU family's first part (gates u, r, o), with oneDNN's AUGRU formulas — the raw update
/// gate `u` in `(1 − u)` and in the direct term, `t = dh·(h_prev − o)·u(1 − u)`,
/// `dA_u = t·(1 − a)`, `d_att = −Σ_j t·u`:
/// ```text
/// dA_o = dh·(1 − u)·(1 − o²)      dh_prev = dh·u   (rows of `dh_ld` floats)
/// ```
/// `dA_r` is left for [`gru_reset_body`] / [`lbr_reset_body`]. `d_att` is written for AUGRU
/// (`att` non-empty) only. Every slice is cut to its row, so the loops have no bounds checks.
#[inline(always)]
unsafe fn gru_update_body<const FMA: bool>(
    st: &StepState,
    dh: &[f32],
    da: &mut [f32],
    dh_prev: &mut [f32],
    dh_ld: usize,
    d_att: &mut [f32],
) {
    let dhc = st.dhc;
    for r in 0..st.n {
        let keep = st.att.get(r).map_or(1.0, |a| 1.0 - a);
        let gates = &st.gates[r * 3 * dhc..][..3 * dhc];
        let (gu, go) = (&gates[..dhc], &gates[2 * dhc..]);
        let (da_u, rest) = da[r * 3 * dhc..][..3 * dhc].split_at_mut(dhc);
        let da_o = &mut rest[dhc..];
        let h_prev = &st.h_prev[r * st.h_ld..][..dhc];
        let dh = &dh[r * dhc..][..dhc];
        let dh_prev = &mut dh_prev[r * dh_ld..][..dhc];
        let mut att = [0f32; ATT_LANES];
        let (dh_c, dh_t) = dh.as_chunks::<ATT_LANES>();
        let (gu_c, gu_t) = gu.as_chunks::<ATT_LANES>();
        let (go_c, go_t) = go.as_chunks::<ATT_LANES>();
        let (hp_c, hp_t) = h_prev.as_chunks::<ATT_LANES>();
        let (du_c, du_t) = da_u.as_chunks_mut::<ATT_LANES>();
        let (do_c, do_t) = da_o.as_chunks_mut::<ATT_LANES>();
        let (dp_c, dp_t) = dh_prev.as_chunks_mut::<ATT_LANES>();
        for c in 0..dh_c.len() {
            let inputs = (&dh_c[c], &gu_c[c], &go_c[c], &hp_c[c]);
            gru_update_units(
                keep,
                inputs,
                (&mut du_c[c], &mut do_c[c], &mut dp_c[c]),
                &mut att,
            );
        }
        if !dh_t.is_empty() {
            // The last units, through zero-padded lanes (zeros add nothing to `att`).
            let pad = |v: &[f32]| {
                let mut a = [0f32; ATT_LANES];
                a[..v.len()].copy_from_slice(v);
                a
            };
            let inputs = (&pad(dh_t), &pad(gu_t), &pad(go_t), &pad(hp_t));
            let mut out = [[0f32; ATT_LANES]; 3];
            let [du, dout, dp] = &mut out;
            gru_update_units(keep, inputs, (du, dout, dp), &mut att);
            let n = dh_t.len();
            du_t.copy_from_slice(&out[0][..n]);
            do_t.copy_from_slice(&out[1][..n]);
            dp_t.copy_from_slice(&out[2][..n]);
        }
        if let Some(v) = d_att.get_mut(r) {
            *v = att.iter().sum();
        }
    }
}

/// 16 units of one row of [`gru_update_body`]: from `(dh, u, o, h_prev)` to
/// `(dA_u, dA_o, dh_prev)`, unit `j` adding its `−t·u` into `att[j]` — one SIMD vector.
#[inline(always)]
fn gru_update_units(
    keep: f32,
    (dh, gu, go, h_prev): Lanes4,
    (da_u, da_o, dh_prev): (&mut Lane, &mut Lane, &mut Lane),
    att: &mut Lane,
) {
    for j in 0..ATT_LANES {
        let (dhv, u, og) = (dh[j], gu[j], go[j]);
        let t = dhv * (h_prev[j] - og) * u * (1.0 - u);
        da_u[j] = t * keep;
        da_o[j] = dhv * (1.0 - u) * (1.0 - og * og);
        dh_prev[j] = dhv * u;
        att[j] -= t * u;
    }
}

/// 16 units of one quantity.
type Lane = [f32; ATT_LANES];
/// The inputs of [`gru_update_units`].
type Lanes4<'a> = (&'a Lane, &'a Lane, &'a Lane, &'a Lane);

isa_dispatch!(
    /// `gru_update_body` as SIMD code of `isa`.
    pub unsafe fn gru_update => gru_update_body,
    (st: &StepState, dh: &[f32], da: &mut [f32], dh_prev: &mut [f32], dh_ld: usize,
     d_att: &mut [f32])
);

/// Lanes of the attention gradient's partial sums in [`gru_update_body`]: the sum runs in this
/// fixed order (lane `j` takes units `j, j + 16, …`, then the lanes in order) on every
/// instruction set, and the loop becomes SIMD code.
const ATT_LANES: usize = 16;

/// GRU / AUGRU, after the driver computed `g = dA_o·U_oᵀ` (rows of `g.1` floats):
/// `dA_r = g·h_prev·r(1 − r)`, `dh_prev += g·r`, and `r ⊙ h_prev` (the operand of `dU_o`) into
/// `rh`. Every slice is cut to its row.
#[inline(always)]
unsafe fn gru_reset_body<const FMA: bool>(
    st: &StepState,
    (g, g_ld): (&[f32], usize),
    da: &mut [f32],
    dh_prev: &mut [f32],
    dh_ld: usize,
    rh: &mut [f32],
) {
    let dhc = st.dhc;
    for r in 0..st.n {
        let h_prev = &st.h_prev[r * st.h_ld..][..dhc];
        let rg = &st.gates[r * 3 * dhc + dhc..][..dhc];
        let g = &g[r * g_ld..][..dhc];
        let da_r = &mut da[r * 3 * dhc + dhc..][..dhc];
        let dh_prev = &mut dh_prev[r * dh_ld..][..dhc];
        let rh = &mut rh[r * dhc..][..dhc];
        for o in 0..dhc {
            da_r[o] = g[o] * h_prev[o] * rg[o] * (1.0 - rg[o]);
            dh_prev[o] += g[o] * rg[o];
            rh[o] = rg[o] * h_prev[o];
        }
    }
}

isa_dispatch!(
    /// `gru_reset_body` as SIMD code of `isa`.
    pub unsafe fn gru_reset => gru_reset_body,
    (st: &StepState, g: (&[f32], usize), da: &mut [f32], dh_prev: &mut [f32], dh_ld: usize,
     rh: &mut [f32])
);

/// Linear-before-reset GRU / AUGRU: `dA_r = R_o·dA_o·r(1 − r)` (`R_o = h_prev·U_o + b_u'` from
/// the workspace), and what the recurrent product receives, `[dA_u, dA_r, dA_o·r]`, into
/// `da_iter`. Every slice is cut to its row.
#[inline(always)]
unsafe fn lbr_reset_body<const FMA: bool>(st: &StepState, da: &mut [f32], da_iter: &mut [f32]) {
    let dhc = st.dhc;
    for r in 0..st.n {
        let rg = &st.gates[r * 3 * dhc + dhc..][..dhc];
        let lbr = &st.lbr[r * dhc..][..dhc];
        let (da_u, rest) = da[r * 3 * dhc..][..3 * dhc].split_at_mut(dhc);
        let (da_r, da_o) = rest.split_at_mut(dhc);
        let (it_u, rest) = da_iter[r * 3 * dhc..][..3 * dhc].split_at_mut(dhc);
        let (it_r, it_o) = rest.split_at_mut(dhc);
        for o in 0..dhc {
            da_r[o] = lbr[o] * da_o[o] * rg[o] * (1.0 - rg[o]);
            it_u[o] = da_u[o];
            it_r[o] = da_r[o];
            it_o[o] = da_o[o] * rg[o];
        }
    }
}

isa_dispatch!(
    /// `lbr_reset_body` as SIMD code of `isa`.
    pub unsafe fn lbr_reset => lbr_reset_body,
    (st: &StepState, da: &mut [f32], da_iter: &mut [f32])
);

/// `dh[r] = above[r] + next[r]` for the rows of the gradient reaching h: the gradient from
/// above and the one from the next step, each row `dh.len() / rows` floats wide; `above`
/// and `next` as (floats, row stride).
#[inline(always)]
unsafe fn incoming_body<const FMA: bool>(
    dh: &mut [f32],
    rows: usize,
    above: (&[f32], usize),
    next: (&[f32], usize),
) {
    let width = dh.len() / rows.max(1);
    for (r, out) in dh.chunks_exact_mut(width.max(1)).enumerate() {
        let a = &above.0[r * above.1..][..width];
        let n = &next.0[r * next.1..][..width];
        for ((o, &a), &n) in out.iter_mut().zip(a).zip(n) {
            *o = a + n;
        }
    }
}

isa_dispatch!(
    /// `incoming_body` as SIMD code of `isa`: `dh = above + next`, row by row.
    pub unsafe fn incoming => incoming_body,
    (dh: &mut [f32], rows: usize, above: (&[f32], usize), next: (&[f32], usize))
);
