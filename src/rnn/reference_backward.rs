//! A plain f32 reference of the RNN backward pass — the equations of reference §a.13 (including
//! AUGRU's as oneDNN computes them) and the composition of §a.15, written for readability, not
//! speed. Used as a test oracle; never by the primitive.
//!
//! It reads the intermediate states of [`reference::forward`](super::reference::forward)
//! ([`RefOutputs`]: gates, h, c, the linear-before-reset term) and returns the pure gradients
//! ([`RefGrads`]); oneDNN's accumulation into the user's diff weights is the caller's business.
//! Layouts are the forward reference's: `tnc`, `ldnc`, weights `ldigo`, bias `ldgo`.
//!
//! Test mode (`RefProblem::linear`): oneDNN 3.13's formulas, which are not the gradient of the
//! linear forward pass — the gate derivatives keep their normal forms in the stored (linear)
//! gates, the vanilla RNN's `act'(h)` becomes `scale_0·h` and LSTM's `tanh(c)` `cscale·c`.
//!
//! LSTM with projection (`h = h̃·R`): the gradient reaching h (DIC wide) gives
//! `dR += h̃ᵀ·dh` and the cell's `dh̃ = dh·Rᵀ` (reference §a.13.2).
//!
//! Walk: for each direction, layers from top to bottom, steps from last to first. The gradient
//! reaching the h of a cell is the sum of the one from above (`diff_dst_layer` for the last
//! layer — its channel half for concat, the whole tensor for sum — or the input gradient of the
//! layer above) and the one from the next step (`diff_dst_iter` at the last step).

use super::cells::vanilla::Activation;
use super::cells::CellKind;
use super::reference::{RefInputs, RefOutputs, RefProblem};
use crate::error::{Error, Result};
use crate::types::Direction;
use std::ops::Range;

/// Gradients flowing into the outputs, dense in canonical layouts; `None` means zeros.
#[derive(Clone, Copy, Debug)]
pub struct RefDiffDst<'a> {
    /// `[T][N][DLC]`.
    pub diff_dst_layer: &'a [f32],
    /// `[L][D][N][DIC]`.
    pub diff_dst_iter: Option<&'a [f32]>,
    /// `[L][D][N][DHC]` (LSTM).
    pub diff_dst_iter_c: Option<&'a [f32]>,
}

/// Gradients of the loss with respect to every input (canonical layouts).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RefGrads {
    /// `[T][N][SLC]`.
    pub diff_src_layer: Vec<f32>,
    /// `[L][D][N][SIC]`.
    pub diff_src_iter: Vec<f32>,
    /// `[L][D][N][DHC]` (empty without a cell state).
    pub diff_src_iter_c: Vec<f32>,
    /// AUGRU: `[T][N]` (empty for the other cells).
    pub diff_attention: Vec<f32>,
    /// `[L][D][SLC][G][DHC]` (layer l > 0 fills the first DIC input rows).
    pub diff_weights_layer: Vec<f32>,
    /// `[L][D][SIC][G][DHC]`.
    pub diff_weights_iter: Vec<f32>,
    /// `[L][D][B][DHC]`.
    pub diff_bias: Vec<f32>,
    /// LSTM: `[L][D][3][DHC]` (rows i, f, o; empty for the other cells).
    pub diff_peephole: Vec<f32>,
    /// LSTM with projection: `[L][D][DHC][DIC]` (ldio; empty without projection).
    pub diff_projection: Vec<f32>,
}

/// What one cell reads from the forward pass (all batch rows).
struct CellState<'a> {
    /// Post-activation gates `[N][G·DHC]`.
    gates: &'a [f32],
    /// `[N][SIC]`.
    h_prev: Vec<f32>,
    /// `[N][DHC]` (LSTM; else empty).
    c_prev: Vec<f32>,
    /// `[N][DHC]` (LSTM; else empty).
    c: Vec<f32>,
    /// Linear-before-reset: `h_prev·U_o + b_u'` `[N][DHC]` (else empty).
    lbr: &'a [f32],
    /// AUGRU: the attention of each batch row at this step.
    att: Option<&'a [f32]>,
}

/// The weights of one layer and direction.
struct CellWeights<'a> {
    /// `[in][G·DHC]`.
    w: &'a [f32],
    /// `[SIC][G·DHC]`.
    u: &'a [f32],
    /// LSTM peephole `[3·DHC]` (zeros without).
    peephole: &'a [f32],
}

/// One cell's gradients.
struct StepGrads {
    /// Gradient of the gate pre-activations `[N][G·DHC]` (what `x·W + b` receives).
    da: Vec<f32>,
    /// `[N][SIC]`, complete (direct terms and the recurrent product).
    dh_prev: Vec<f32>,
    /// `[N][DHC]` (LSTM; else empty).
    dc_prev: Vec<f32>,
    /// AUGRU: `[N]` (else empty).
    d_att: Vec<f32>,
    /// Contribution to the recurrent weights' gradient `[SIC][G·DHC]`.
    du: Vec<f32>,
    /// Contribution to the bias gradient `[B·DHC]`.
    db: Vec<f32>,
    /// LSTM: contribution to the peephole gradient `[3·DHC]` (else empty).
    dp: Vec<f32>,
}

/// `out[r][k] += Σ_{j ∈ cols} a[r][j]·b[k][j]` (`a·bᵀ` on a column block); `a` and `b` have
/// rows of `ld` floats, `out` rows of `k` floats.
fn add_a_bt(out: &mut [f32], a: &[f32], b: &[f32], ld: usize, k: usize, cols: Range<usize>) {
    for (o_row, a_row) in out.chunks_exact_mut(k).zip(a.chunks_exact(ld)) {
        for (kk, o) in o_row.iter_mut().enumerate() {
            let b_row = &b[kk * ld..][..ld];
            *o += cols.clone().map(|j| a_row[j] * b_row[j]).sum::<f32>();
        }
    }
}

/// `out[k][j] += Σ_r a[r][k]·b[r][j]` for `j ∈ cols` (`aᵀ·b` on a column block); `a` has rows of
/// `k` floats, `b` and `out` rows of `ld` floats.
fn add_at_b(out: &mut [f32], a: &[f32], b: &[f32], k: usize, ld: usize, cols: Range<usize>) {
    for (a_row, b_row) in a.chunks_exact(k).zip(b.chunks_exact(ld)) {
        for (kk, &av) in a_row.iter().enumerate() {
            for j in cols.clone() {
                out[kk * ld + j] += av * b_row[j];
            }
        }
    }
}

/// `Σ_r m[r][·]` of a `[rows][width]` matrix.
fn column_sums(m: &[f32], width: usize) -> Vec<f32> {
    let mut s = vec![0f32; width];
    for row in m.chunks_exact(width) {
        for (a, v) in s.iter_mut().zip(row) {
            *a += v;
        }
    }
    s
}

/// Vanilla RNN: `dA = dh ⊙ act'(h)`; in test mode `dh ⊙ scale_0·h` — oneDNN 3.13 applies the
/// linear activation itself to the output in place of a derivative (not `dh·scale_0`).
fn vanilla_step(p: &RefProblem, wts: &CellWeights, st: &CellState, dh: &[f32]) -> StepGrads {
    let act = p.activation.unwrap_or(Activation::Tanh);
    let da: Vec<f32> = st
        .gates
        .iter()
        .zip(dh)
        .map(|(&h, &d)| match &p.linear {
            Some(lin) => d * lin.gate(0, h),
            None => d * act.derivative_from_output(h),
        })
        .collect();
    recurrent_grads(p, wts, st, da, vec![0.0; p.n * p.sic])
}

/// The part every cell but the GRU shares: `dh_prev = direct + dA·Uᵀ`, `dU = h_prevᵀ·dA`,
/// `db = Σ_n dA`.
fn recurrent_grads(
    p: &RefProblem,
    wts: &CellWeights,
    st: &CellState,
    da: Vec<f32>,
    dh_prev: Vec<f32>,
) -> StepGrads {
    recurrent_grads_split(p, wts, st, da.clone(), da, dh_prev, Vec::new())
}

/// As [`recurrent_grads`], with a different gradient `da_iter` for the recurrent product, and
/// `db_extra` appended to the bias gradient (LBR: the `u'` row).
fn recurrent_grads_split(
    p: &RefProblem,
    wts: &CellWeights,
    st: &CellState,
    da: Vec<f32>,
    da_iter: Vec<f32>,
    mut dh_prev: Vec<f32>,
    db_extra: Vec<f32>,
) -> StepGrads {
    let cols = p.g() * p.dhc;
    add_a_bt(&mut dh_prev, &da_iter, wts.u, cols, p.sic, 0..cols);
    let mut du = vec![0f32; p.sic * cols];
    add_at_b(&mut du, &st.h_prev, &da_iter, p.sic, cols, 0..cols);
    let mut db = column_sums(&da, cols);
    db.extend(db_extra);
    StepGrads {
        da,
        dh_prev,
        dc_prev: Vec::new(),
        d_att: Vec::new(),
        du,
        db,
        dp: Vec::new(),
    }
}

/// LSTM (gates i, f, c̃, o; optional peephole). Test mode: `tanh(c)` is `cscale·c`, also in
/// `1 − tanh²(c)` (oneDNN's form); the gate derivatives keep their form in the linear gates.
fn lstm_step(
    p: &RefProblem,
    wts: &CellWeights,
    st: &CellState,
    dh: &[f32],
    dc_next: &[f32],
) -> StepGrads {
    let (n, dhc) = (p.n, p.dhc);
    let cols = 4 * dhc;
    let pp = |k: usize, o: usize| wts.peephole[k * dhc + o];
    let mut da = vec![0f32; n * cols];
    let mut dc_prev = vec![0f32; n * dhc];
    let mut dp = vec![0f32; 3 * dhc];
    for r in 0..n {
        for o in 0..dhc {
            let g = |gate: usize| st.gates[r * cols + gate * dhc + o];
            let (i, f, ct, og) = (g(0), g(1), g(2), g(3));
            let j = r * dhc + o;
            let (c, cp) = (st.c[j], st.c_prev[j]);
            let tc = p.tanh_c(c);
            let da_o = dh[j] * tc * og * (1.0 - og);
            let dc = dc_next[j] + dh[j] * og * (1.0 - tc * tc) + da_o * pp(2, o);
            let da_f = dc * cp * f * (1.0 - f);
            let da_i = dc * ct * i * (1.0 - i);
            let da_c = dc * i * (1.0 - ct * ct);
            dc_prev[j] = dc * f + da_f * pp(1, o) + da_i * pp(0, o);
            for (gate, v) in [da_i, da_f, da_c, da_o].into_iter().enumerate() {
                da[r * cols + gate * dhc + o] = v;
            }
            dp[o] += da_i * cp;
            dp[dhc + o] += da_f * cp;
            dp[2 * dhc + o] += da_o * c;
        }
    }
    let mut out = recurrent_grads(p, wts, st, da, vec![0.0; n * p.sic]);
    out.dc_prev = dc_prev;
    out.dp = dp;
    out
}

/// The element-wise start shared by the GRU family: `dA_u`, `dA_o`, the direct `dh ⊙ u` term
/// and AUGRU's attention gradient — with oneDNN's AUGRU formulas: the raw update gate `u` in
/// `(1 − u)` and `dh ⊙ u`, `d_att = −Σ_j t·u` and `dA_u = t·(1 − a)` with
/// `t = dh ⊙ (h_prev − o) ⊙ u(1 − u)`.
fn gru_common(p: &RefProblem, st: &CellState, dh: &[f32]) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let (n, dhc) = (p.n, p.dhc);
    let cols = 3 * dhc;
    let mut da = vec![0f32; n * cols];
    let mut dh_prev = vec![0f32; n * dhc];
    let mut d_att = vec![0f32; if st.att.is_some() { n } else { 0 }];
    for r in 0..n {
        let keep = st.att.map_or(1.0, |a| 1.0 - a[r]);
        for o in 0..dhc {
            let (j, i) = (r * dhc + o, r * cols + o);
            let (u, og) = (st.gates[i], st.gates[i + 2 * dhc]);
            let t = dh[j] * (st.h_prev[j] - og) * u * (1.0 - u);
            da[i] = t * keep;
            da[i + 2 * dhc] = dh[j] * (1.0 - u) * (1.0 - og * og);
            dh_prev[j] = dh[j] * u;
            if st.att.is_some() {
                d_att[r] -= t * u;
            }
        }
    }
    (da, dh_prev, d_att)
}

/// GRU / AUGRU: the reset gate acts before the recurrent product of `o`, so
/// `g = dA_o·U_oᵀ`, `dA_r = g ⊙ h_prev ⊙ r(1 − r)`, `dh_prev += g ⊙ r + [dA_u, dA_r]·[U_u, U_r]ᵀ`,
/// `dU_{u,r} = h_prevᵀ·[dA_u, dA_r]`, `dU_o = (r ⊙ h_prev)ᵀ·dA_o`.
fn gru_step(p: &RefProblem, wts: &CellWeights, st: &CellState, dh: &[f32]) -> StepGrads {
    let (n, dhc) = (p.n, p.dhc);
    let cols = 3 * dhc;
    let (mut da, mut dh_prev, d_att) = gru_common(p, st, dh);
    let mut g = vec![0f32; n * dhc];
    add_a_bt(&mut g, &da, wts.u, cols, dhc, 2 * dhc..cols);
    let mut rh = vec![0f32; n * dhc];
    for r in 0..n {
        for o in 0..dhc {
            let (j, i) = (r * dhc + o, r * cols + dhc + o);
            let rg = st.gates[i];
            da[i] = g[j] * st.h_prev[j] * rg * (1.0 - rg);
            dh_prev[j] += g[j] * rg;
            rh[j] = rg * st.h_prev[j];
        }
    }
    add_a_bt(&mut dh_prev, &da, wts.u, cols, dhc, 0..2 * dhc);
    let mut du = vec![0f32; dhc * cols];
    add_at_b(&mut du, &st.h_prev, &da, dhc, cols, 0..2 * dhc);
    add_at_b(&mut du, &rh, &da, dhc, cols, 2 * dhc..cols);
    StepGrads {
        db: column_sums(&da, cols),
        da,
        dh_prev,
        dc_prev: Vec::new(),
        d_att,
        du,
        dp: Vec::new(),
    }
}

/// LBR-GRU / LBR-AUGRU: with `R_o = h_prev·U_o + b_u'` from the forward pass,
/// `dA_r = R_o ⊙ dA_o ⊙ r(1 − r)`; the recurrent product gets `[dA_u, dA_r, dA_o ⊙ r]`, which
/// is also the gradient of the extra bias row `u'`.
fn lbr_gru_step(p: &RefProblem, wts: &CellWeights, st: &CellState, dh: &[f32]) -> StepGrads {
    let (n, dhc) = (p.n, p.dhc);
    let cols = 3 * dhc;
    let (mut da, dh_prev, d_att) = gru_common(p, st, dh);
    for r in 0..n {
        for o in 0..dhc {
            let i = r * cols + o;
            let rg = st.gates[i + dhc];
            da[i + dhc] = st.lbr[r * dhc + o] * da[i + 2 * dhc] * rg * (1.0 - rg);
        }
    }
    let mut da_iter = da.clone();
    for r in 0..n {
        for o in 0..dhc {
            let i = r * cols + o;
            da_iter[i + 2 * dhc] *= st.gates[i + dhc];
        }
    }
    let db_extra: Vec<f32> = column_sums(&da_iter, cols)[2 * dhc..].to_vec();
    let mut out = recurrent_grads_split(p, wts, st, da, da_iter, dh_prev, db_extra);
    out.d_att = d_att;
    out
}

fn cell_backward(
    p: &RefProblem,
    wts: &CellWeights,
    st: &CellState,
    dh: &[f32],
    dc: &[f32],
) -> StepGrads {
    match p.cell {
        CellKind::VanillaRnn => vanilla_step(p, wts, st, dh),
        CellKind::Lstm => lstm_step(p, wts, st, dh, dc),
        CellKind::Gru | CellKind::Augru => gru_step(p, wts, st, dh),
        CellKind::LbrGru | CellKind::LbrAugru => lbr_gru_step(p, wts, st, dh),
    }
}

fn check_len(name: &str, v: &[f32], len: usize) -> Result<()> {
    if v.len() == len {
        Ok(())
    } else {
        Err(Error::InvalidArguments(format!(
            "reference backward: {name} has {} values, expected {len}",
            v.len()
        )))
    }
}

/// Adds `src` into `dst` element-wise.
fn add_into(dst: &mut [f32], src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

/// Runs the backward pass from the forward pass's inputs `x` and states `fwd`.
pub fn backward(
    p: &RefProblem,
    x: &RefInputs,
    fwd: &RefOutputs,
    dy: &RefDiffDst,
) -> Result<RefGrads> {
    let (l_n, d_n, t_n, n, dhc, g) = (p.l, p.d(), p.t, p.n, p.dhc, p.g());
    let (slc, sic, dic, dlc) = (p.slc, p.sic, p.dic, p.dlc());
    let cols = g * dhc;
    let bg = p.cell.bias_gates();
    let has_c = p.cell.has_c_state();
    let hc = sic.max(dic);
    let cells = l_n * d_n;
    check_len("diff_dst_layer", dy.diff_dst_layer, t_n * n * dlc)?;
    if let Some(v) = dy.diff_dst_iter {
        check_len("diff_dst_iter", v, cells * n * dic)?;
    }
    if let Some(v) = dy.diff_dst_iter_c {
        check_len("diff_dst_iter_c", v, cells * n * dhc)?;
    }
    check_len("forward gates", &fwd.gates, cells * t_n * n * cols)?;
    check_len("forward h", &fwd.h, cells * (t_n + 1) * n * hc)?;

    let mut out = RefGrads {
        diff_src_layer: vec![0.0; t_n * n * slc],
        diff_src_iter: vec![0.0; cells * n * sic],
        diff_src_iter_c: vec![0.0; if has_c { cells * n * dhc } else { 0 }],
        diff_attention: vec![0.0; if p.cell.has_attention() { t_n * n } else { 0 }],
        diff_weights_layer: vec![0.0; cells * slc * cols],
        diff_weights_iter: vec![0.0; cells * sic * cols],
        diff_bias: vec![0.0; cells * bg * dhc],
        diff_peephole: vec![
            0.0;
            if x.peephole.is_some() {
                cells * 3 * dhc
            } else {
                0
            }
        ],
        diff_projection: vec![
            0.0;
            if p.with_projection {
                cells * dhc * dic
            } else {
                0
            }
        ],
    };
    if p.with_projection {
        check_len("forward ht", &fwd.ht, cells * t_n * n * dhc)?;
    }
    let peephole_zeros = vec![0f32; 3 * dhc];
    // h of layer l, direction d, slot `slot`, first `ch` channels of every batch row.
    let h_rows = |ld: usize, slot: usize, ch: usize| -> Vec<f32> {
        (0..n)
            .flat_map(|r| fwd.h[((ld * (t_n + 1) + slot) * n + r) * hc..][..ch].to_vec())
            .collect()
    };
    let c_rows = |ld: usize, slot: usize| -> Vec<f32> {
        if has_c {
            fwd.c[(ld * (t_n + 1) + slot) * n * dhc..][..n * dhc].to_vec()
        } else {
            Vec::new()
        }
    };
    // Sequence lengths: a sample's step s is at time `time_in(d, s, len)`; past its length it
    // receives nothing and passes the state gradients through.
    let len = |r: usize| x.len(t_n, r);
    for d in 0..d_n {
        // Gradient reaching each step's h from above, by step: diff_dst_layer for the top layer.
        let mut above: Vec<Vec<f32>> = (0..t_n)
            .map(|s| {
                let col = if p.direction == Direction::BidirectionalConcat {
                    d * dic
                } else {
                    0
                };
                (0..n)
                    .flat_map(|r| match s < len(r) {
                        true => {
                            let t = p.time_in(d, s, len(r));
                            dy.diff_dst_layer[(t * n + r) * dlc + col..][..dic].to_vec()
                        }
                        false => vec![0.0; dic],
                    })
                    .collect()
            })
            .collect();
        for l in (0..l_n).rev() {
            let ld = l * d_n + d;
            let k = p.layer_input(l);
            let wts = CellWeights {
                w: &x.weights_layer[ld * slc * cols..][..k * cols],
                u: &x.weights_iter[ld * sic * cols..][..sic * cols],
                peephole: x
                    .peephole
                    .map_or(&peephole_zeros[..], |v| &v[ld * 3 * dhc..][..3 * dhc]),
            };
            let mut dh_next = dy.diff_dst_iter.map_or(vec![0.0; n * dic], |v| {
                v[ld * n * dic..][..n * dic].to_vec()
            });
            let mut dc_next = dy.diff_dst_iter_c.map_or(vec![0.0; n * dhc], |v| {
                v[ld * n * dhc..][..n * dhc].to_vec()
            });
            let mut below = vec![Vec::new(); t_n];
            for s in (0..t_n).rev() {
                // Batch row r's time at this step, if it has one.
                let time = |r: usize| (s < len(r)).then(|| p.time_in(d, s, len(r)));
                let st = CellState {
                    gates: &fwd.gates[(ld * t_n + s) * n * cols..][..n * cols],
                    h_prev: h_rows(ld, s, sic),
                    c_prev: c_rows(ld, s),
                    c: c_rows(ld, s + 1),
                    lbr: if fwd.lbr.is_empty() {
                        &[]
                    } else {
                        &fwd.lbr[(ld * t_n + s) * n * dhc..][..n * dhc]
                    },
                    att: None,
                };
                let att: Option<Vec<f32>> = x.attention.map(|a| {
                    (0..n)
                        .map(|r| time(r).map_or(0.0, |t| a[t * n + r]))
                        .collect()
                });
                let st = CellState {
                    att: att.as_deref(),
                    ..st
                };
                let mut dh = above[s].clone();
                add_into(&mut dh, &dh_next);
                let mut dc_in = dc_next.clone();
                let dh_ch = dh_next.len() / n.max(1);
                for r in (0..n).filter(|&r| time(r).is_none()) {
                    dh[r * dic..][..dic].fill(0.0);
                    if has_c {
                        dc_in[r * dhc..][..dhc].fill(0.0);
                    }
                }
                // LSTMP, h = h̃·R: dR += h̃ᵀ·dh, and the cell receives dh̃ = dh·Rᵀ.
                if let Some(r) = x.projection {
                    let r = &r[ld * dhc * dic..][..dhc * dic];
                    let ht = &fwd.ht[(ld * t_n + s) * n * dhc..][..n * dhc];
                    let dr = &mut out.diff_projection[ld * dhc * dic..][..dhc * dic];
                    add_at_b(dr, ht, &dh, dhc, dic, 0..dic);
                    let mut dht = vec![0f32; n * dhc];
                    add_a_bt(&mut dht, &dh, r, dic, dhc, 0..dic);
                    dh = dht;
                }
                let mut step = cell_backward(p, &wts, &st, &dh, &dc_in);
                // Rows past their length: zero gradients went in (none out), the state
                // gradients pass through (their first min(SIC, DIC) channels).
                for r in (0..n).filter(|&r| time(r).is_none()) {
                    let row = &mut step.dh_prev[r * sic..][..sic];
                    row.fill(0.0);
                    let k = sic.min(dh_ch);
                    row[..k].copy_from_slice(&dh_next[r * dh_ch..][..k]);
                    if has_c {
                        step.dc_prev[r * dhc..][..dhc].copy_from_slice(&dc_next[r * dhc..][..dhc]);
                    }
                }

                // Layer input: src_layer at time t for layer 0, else the h of the layer below.
                let x_in: Vec<f32> = if l == 0 {
                    (0..n)
                        .flat_map(|r| match time(r) {
                            Some(t) => x.src_layer[(t * n + r) * slc..][..slc].to_vec(),
                            None => vec![0.0; slc],
                        })
                        .collect()
                } else {
                    h_rows((l - 1) * d_n + d, s + 1, dic)
                };
                let dwl = &mut out.diff_weights_layer[ld * slc * cols..][..k * cols];
                add_at_b(dwl, &x_in, &step.da, k, cols, 0..cols);
                add_into(&mut out.diff_weights_iter[ld * sic * cols..], &step.du);
                add_into(&mut out.diff_bias[ld * bg * dhc..][..bg * dhc], &step.db);
                if !out.diff_peephole.is_empty() {
                    add_into(&mut out.diff_peephole[ld * 3 * dhc..][..3 * dhc], &step.dp);
                }
                let mut dx = vec![0f32; n * k];
                add_a_bt(&mut dx, &step.da, wts.w, cols, k, 0..cols);
                for (r, t) in (0..n).filter_map(|r| time(r).map(|t| (r, t))) {
                    if !out.diff_attention.is_empty() {
                        out.diff_attention[t * n + r] = step.d_att[r];
                    }
                    if l == 0 {
                        add_into(
                            &mut out.diff_src_layer[(t * n + r) * slc..][..slc],
                            &dx[r * slc..][..slc],
                        );
                    }
                }
                below[s] = dx;
                dh_next = step.dh_prev;
                dc_next = step.dc_prev;
            }
            // With no step, diff_dst_iter passes straight through (its first min(SIC, DIC)
            // channels).
            if t_n == 0 {
                let k = sic.min(dic);
                let mut v = vec![0f32; n * sic];
                for r in 0..n {
                    v[r * sic..][..k].copy_from_slice(&dh_next[r * dic..][..k]);
                }
                dh_next = v;
            }
            out.diff_src_iter[ld * n * sic..][..n * sic].copy_from_slice(&dh_next);
            if has_c {
                out.diff_src_iter_c[ld * n * dhc..][..n * dhc].copy_from_slice(&dc_next);
            }
            above = below;
        }
    }
    Ok(out)
}
