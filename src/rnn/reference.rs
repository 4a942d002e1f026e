//! A plain f32 reference implementation of the RNN forward pass — the equations of reference
//! §a.12 and the composition of §a.15, written for readability, not speed. Used as a test
//! oracle (and by benchdnn-style drivers); never by the primitive.
//!
//! All tensors are dense, in canonical plain layouts: `src_layer`/`dst_layer` `tnc`, states
//! `ldnc`, weights `ldigo`, bias `ldgo`. Arithmetic follows benchdnn's reference: per cell,
//! `x·W` (summed over inputs in order), then `+ h·U`, then `+ b`, then the activations with
//! libm's `exp`/`tanh` in f32.
//!
//! LSTM with projection (LSTMP): the cell's `h̃ = o ⊙ tanh(c)` (DHC wide) is multiplied by the
//! projection weights, `h = h̃·R` (summed over DHC in order); h (DIC wide) is what the next step,
//! the next layer, `dst_layer` and `dst_iter` see.
//!
//! Test mode (oneDNN's hidden `rnn_tparams` attribute, benchdnn's `--skip-nonlinear`): every
//! gate activation `f(x)` becomes `scale_g·x` and LSTM's `tanh(c)` in `h̃` becomes `cscale·c`.
//!
//! Adding a cell: an arm in `cell_forward` and a function computing one step of it.

use super::cells::vanilla::Activation;
use super::cells::{CellKind, Linear};
use super::pd::RnnPd;
use super::precision::Precision;
use super::problem::RnnProblem;
use crate::error::{Error, Result};
use crate::types::Direction;

/// Sizes and kinds of a reference problem.
#[derive(Clone, Debug, PartialEq)]
pub struct RefProblem {
    /// Cell kind.
    pub cell: CellKind,
    /// Direction.
    pub direction: Direction,
    /// Layers.
    pub l: usize,
    /// Time steps.
    pub t: usize,
    /// Batch.
    pub n: usize,
    /// Input channels of layer 0.
    pub slc: usize,
    /// Recurrent input channels.
    pub sic: usize,
    /// Hidden channels.
    pub dhc: usize,
    /// Output state channels: DHC, or the projection size (LSTMP).
    pub dic: usize,
    /// LSTM projection weights are given (then `dic` may differ from `dhc`).
    pub with_projection: bool,
    /// Vanilla RNN activation (`None` for the other cells).
    pub activation: Option<Activation>,
    /// Test mode: linear activations (`None`: the cell's own).
    pub linear: Option<Linear>,
    /// The precision hidden states are rounded to where they are stored (h, LSTMP's h̃,
    /// GRU's `r ⊙ h`), as oneDNN stores them in the activation type.
    pub precision: Precision,
    /// The precision the LSTM c-state is rounded to where it is stored (its type).
    pub c_precision: Precision,
}

impl RefProblem {
    /// The reference problem of a validated primitive problem.
    pub fn from_problem(p: &RnnProblem) -> Self {
        Self {
            cell: p.cell,
            direction: p.direction,
            l: p.l,
            t: p.t,
            n: p.n,
            slc: p.slc,
            sic: p.sic,
            dhc: p.dhc,
            dic: p.dic,
            with_projection: p.with_projection,
            activation: p.activation,
            linear: None,
            precision: p.precision,
            c_precision: p.c_precision,
        }
    }

    /// The reference problem of a primitive descriptor: its problem, plus the test-mode
    /// activations of its attributes.
    pub fn from_pd(pd: &RnnPd) -> Self {
        Self {
            linear: Linear::from_attr(&pd.attr().rnn_tparams),
            ..Self::from_problem(pd.problem())
        }
    }

    /// Directions (1 or 2).
    pub fn d(&self) -> usize {
        self.direction.num_directions()
    }

    /// Gates.
    pub fn g(&self) -> usize {
        self.cell.gates()
    }

    /// Channels of `dst_layer`.
    pub fn dlc(&self) -> usize {
        if self.direction == Direction::BidirectionalConcat {
            2 * self.dic
        } else {
            self.dic
        }
    }

    /// Input channels of layer `l`.
    pub fn layer_input(&self, l: usize) -> usize {
        if l == 0 {
            self.slc
        } else {
            self.dic
        }
    }

    /// The activation of gate `g` that is a logistic sigmoid in normal mode.
    fn sigmoid(&self, g: usize, x: f32) -> f32 {
        match &self.linear {
            Some(lin) => lin.gate(g, x),
            None => 1.0 / (1.0 + (-x).exp()),
        }
    }

    /// The activation of gate `g` that is tanh in normal mode.
    fn tanh(&self, g: usize, x: f32) -> f32 {
        match &self.linear {
            Some(lin) => lin.gate(g, x),
            None => x.tanh(),
        }
    }

    /// LSTM's `tanh(c)` in `h̃ = o ⊙ tanh(c)`.
    pub(crate) fn tanh_c(&self, c: f32) -> f32 {
        match &self.linear {
            Some(lin) => lin.cscale * c,
            None => c.tanh(),
        }
    }

    /// True when direction `dir` walks time backwards.
    pub fn reversed(&self, dir: usize) -> bool {
        matches!(
            (self.direction, dir),
            (Direction::Right2Left, _)
                | (
                    Direction::BidirectionalConcat | Direction::BidirectionalSum,
                    1
                )
        )
    }

    /// Time index of step `s` of direction `dir`.
    pub fn time(&self, dir: usize, s: usize) -> usize {
        self.time_in(dir, s, self.t)
    }

    /// Time index of step `s` of direction `dir` in a sequence of `len` steps.
    pub fn time_in(&self, dir: usize, s: usize, len: usize) -> usize {
        if self.reversed(dir) {
            len - 1 - s
        } else {
            s
        }
    }
}

/// Inputs, dense in canonical layouts; `None` optional tensors are zeros.
#[derive(Clone, Copy, Debug)]
pub struct RefInputs<'a> {
    /// `[T][N][SLC]`.
    pub src_layer: &'a [f32],
    /// `[L][D][N][SIC]`.
    pub src_iter: Option<&'a [f32]>,
    /// `[L][D][N][DHC]` (LSTM).
    pub src_iter_c: Option<&'a [f32]>,
    /// `[L][D][SLC][G][DHC]` (layer l > 0 uses the first DIC input rows; SLC == DIC then).
    pub weights_layer: &'a [f32],
    /// `[L][D][SIC][G][DHC]`.
    pub weights_iter: &'a [f32],
    /// `[L][D][B][DHC]` (B = G, or G + 1 for the linear-before-reset cells).
    pub bias: Option<&'a [f32]>,
    /// AUGRU: `[T][N]` (the trailing dim of 1 dropped); required for those cells.
    pub attention: Option<&'a [f32]>,
    /// LSTM peephole weights `[L][D][3][DHC]` (rows i, f, o), or none.
    pub peephole: Option<&'a [f32]>,
    /// LSTM projection weights `[L][D][DHC][DIC]` (ldio); required when the problem has them.
    pub projection: Option<&'a [f32]>,
    /// Per-sample sequence lengths `[N]` (each in `0..=T`), or none (all T).
    pub lengths: Option<&'a [i32]>,
}

impl RefInputs<'_> {
    /// The sequence length of batch row `r`.
    pub fn len(&self, t: usize, r: usize) -> usize {
        self.lengths.map_or(t, |v| v[r] as usize)
    }
}

/// Outputs, plus every intermediate state (indexed by processing step, as in our workspace).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RefOutputs {
    /// `[T][N][DLC]`.
    pub dst_layer: Vec<f32>,
    /// `[L][D][N][DIC]`.
    pub dst_iter: Vec<f32>,
    /// `[L][D][N][DHC]` (empty for cells without a cell state).
    pub dst_iter_c: Vec<f32>,
    /// Post-activation gates `[L][D][T][N][G][DHC]`.
    pub gates: Vec<f32>,
    /// Hidden states `[L][D][T+1][N][HC]`, `HC = max(SIC, DIC)`; slot 0 = initial state (SIC
    /// channels), slot s+1 = after step s (DIC channels; projected with LSTMP).
    pub h: Vec<f32>,
    /// LSTMP: the hidden states before projection, `h̃ = o ⊙ tanh(c)`, `[L][D][T][N][DHC]`
    /// (empty without projection).
    pub ht: Vec<f32>,
    /// Cell states `[L][D][T+1][N][DHC]`, slot 0 initial (empty without a cell state).
    pub c: Vec<f32>,
    /// Linear-before-reset cells: `h_prev·U_o + b_u'` `[L][D][T][N][DHC]` (else empty).
    pub lbr: Vec<f32>,
}

/// One cell's results for all batch rows.
struct StepOut {
    h: Vec<f32>,
    ht: Vec<f32>,
    c: Vec<f32>,
    gates: Vec<f32>,
    lbr: Vec<f32>,
}

/// The weights of one layer and direction, viewed as row-major matrices.
struct CellWeights<'a> {
    /// `[in][G·DHC]`.
    w: &'a [f32],
    /// `[SIC][G·DHC]`.
    u: &'a [f32],
    /// `[B·DHC]`.
    b: &'a [f32],
    /// LSTM peephole `[3·DHC]` (zeros without).
    peephole: &'a [f32],
    /// LSTM projection `[DHC][DIC]`, or none.
    projection: Option<&'a [f32]>,
}

/// `acc[n][j] += Σ_k a[n][k]·b[k][j]`, summing over k in order.
fn matmul_acc(acc: &mut [f32], a: &[f32], b: &[f32], n: usize, k: usize, cols: usize) {
    for r in 0..n {
        for kk in 0..k {
            let av = a[r * k + kk];
            for j in 0..cols {
                acc[r * cols + j] += av * b[kk * cols + j];
            }
        }
    }
}

/// One LSTM step for all batch rows (gates i, f, c̃, o).
fn lstm_step(
    p: &RefProblem,
    wts: &CellWeights,
    x: &[f32],
    k: usize,
    h_prev: &[f32],
    c_prev: &[f32],
) -> StepOut {
    let (n, dhc, g) = (p.n, p.dhc, p.g());
    let cols = g * dhc;
    let mut a = vec![0f32; n * cols];
    matmul_acc(&mut a, x, wts.w, n, k, cols);
    matmul_acc(&mut a, h_prev, wts.u, n, p.sic, cols);
    let mut out = StepOut {
        h: Vec::new(),
        ht: vec![0.0; n * dhc],
        c: vec![0.0; n * dhc],
        gates: vec![0.0; n * cols],
        lbr: Vec::new(),
    };
    for r in 0..n {
        for o in 0..dhc {
            let pre = |gate: usize| a[r * cols + gate * dhc + o] + wts.b[gate * dhc + o];
            let (cp, pp) = (c_prev[r * dhc + o], |k: usize| wts.peephole[k * dhc + o]);
            let i = p.sigmoid(0, pre(0) + pp(0) * cp);
            let f = p.sigmoid(1, pre(1) + pp(1) * cp);
            let ct = p.tanh(2, pre(2));
            let c = f * cp + i * ct;
            let og = p.sigmoid(3, pre(3) + pp(2) * c);
            out.c[r * dhc + o] = p.c_precision.round(c);
            out.ht[r * dhc + o] = p.precision.round(og * p.tanh_c(c));
            for (gate, v) in [i, f, ct, og].into_iter().enumerate() {
                out.gates[r * cols + gate * dhc + o] = v;
            }
        }
    }
    match wts.projection {
        Some(proj) => {
            out.h = vec![0.0; n * p.dic];
            matmul_acc(&mut out.h, &out.ht, proj, n, dhc, p.dic);
            out.h.iter_mut().for_each(|v| *v = p.precision.round(*v));
        }
        None => out.h = std::mem::take(&mut out.ht),
    }
    out
}

/// `x·W` and `h_prev·U` of one step, `[N][G·DHC]` each.
fn products(p: &RefProblem, wts: &CellWeights, x: &[f32], k: usize, h: &[f32]) -> [Vec<f32>; 2] {
    let cols = p.g() * p.dhc;
    let mut xw = vec![0f32; p.n * cols];
    let mut hu = vec![0f32; p.n * cols];
    matmul_acc(&mut xw, x, wts.w, p.n, k, cols);
    matmul_acc(&mut hu, h, wts.u, p.n, p.sic, cols);
    [xw, hu]
}

/// One vanilla RNN step: `h = act(x·W + h_prev·U + b)`.
fn vanilla_step(p: &RefProblem, wts: &CellWeights, x: &[f32], k: usize, h: &[f32]) -> StepOut {
    let [xw, hu] = products(p, wts, x, k, h);
    let act = p.activation.unwrap_or(Activation::Tanh);
    let h: Vec<f32> = (0..p.n * p.dhc)
        .map(|i| {
            let x = xw[i] + hu[i] + wts.b[i % p.dhc];
            match &p.linear {
                Some(lin) => lin.gate(0, x),
                None => act.apply_ref(x),
            }
        })
        .collect();
    StepOut {
        gates: h.clone(),
        h: h.iter().map(|&v| p.precision.round(v)).collect(),
        ht: Vec::new(),
        c: Vec::new(),
        lbr: Vec::new(),
    }
}

/// One step of the GRU family (gates u, r, o): GRU, LBR-GRU, and their AUGRU variants with the
/// attention `att[n]` of the step.
fn gru_step(
    p: &RefProblem,
    wts: &CellWeights,
    x: &[f32],
    k: usize,
    h_prev: &[f32],
    att: Option<&[f32]>,
) -> StepOut {
    let (n, dhc, sic) = (p.n, p.dhc, p.sic);
    let cols = 3 * dhc;
    let lbr = matches!(p.cell, CellKind::LbrGru | CellKind::LbrAugru);
    let [xw, hu] = products(p, wts, x, k, h_prev);
    let b = |gate: usize, o: usize| wts.b[gate * dhc + o];
    let mut out = StepOut {
        h: vec![0.0; n * dhc],
        ht: Vec::new(),
        c: Vec::new(),
        gates: vec![0.0; n * cols],
        lbr: if lbr { vec![0.0; n * dhc] } else { Vec::new() },
    };
    // u and r.
    for r in 0..n {
        for gate in 0..2 {
            for o in 0..dhc {
                let i = r * cols + gate * dhc + o;
                out.gates[i] = p.sigmoid(gate, xw[i] + hu[i] + b(gate, o));
            }
        }
    }
    // o: the reset gate applied before (GRU) or after (LBR) the recurrent product.
    let mut ho = vec![0f32; n * dhc];
    for r in 0..n {
        if lbr {
            for o in 0..dhc {
                ho[r * dhc + o] = hu[r * cols + 2 * dhc + o] + b(3, o);
            }
        } else {
            for kk in 0..sic {
                let rh = p
                    .precision
                    .round(out.gates[r * cols + dhc + kk] * h_prev[r * sic + kk]);
                for o in 0..dhc {
                    ho[r * dhc + o] += rh * wts.u[kk * cols + 2 * dhc + o];
                }
            }
        }
    }
    for r in 0..n {
        for o in 0..dhc {
            let (i, j) = (r * cols + o, r * dhc + o);
            let pre = if lbr {
                xw[i + 2 * dhc] + b(2, o) + out.gates[i + dhc] * ho[j]
            } else {
                xw[i + 2 * dhc] + ho[j] + b(2, o)
            };
            let og = p.tanh(2, pre);
            out.gates[i + 2 * dhc] = og;
            let u = att.map_or(1.0, |a| 1.0 - a[r]) * out.gates[i];
            out.h[j] = p.precision.round(u * h_prev[j] + (1.0 - u) * og);
        }
    }
    if lbr {
        out.lbr = ho;
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn cell_forward(
    p: &RefProblem,
    wts: &CellWeights,
    x: &[f32],
    k: usize,
    h_prev: &[f32],
    c_prev: &[f32],
    att: Option<&[f32]>,
) -> Result<StepOut> {
    Ok(match p.cell {
        CellKind::Lstm => lstm_step(p, wts, x, k, h_prev, c_prev),
        CellKind::VanillaRnn => vanilla_step(p, wts, x, k, h_prev),
        CellKind::Gru | CellKind::LbrGru | CellKind::Augru | CellKind::LbrAugru => {
            gru_step(p, wts, x, k, h_prev, att)
        }
    })
}

fn check_len(name: &str, v: &[f32], len: usize) -> Result<()> {
    if v.len() == len {
        Ok(())
    } else {
        Err(Error::InvalidArguments(format!(
            "reference: {name} has {} values, expected {len}",
            v.len()
        )))
    }
}

/// Runs the forward pass.
pub fn forward(p: &RefProblem, x: &RefInputs) -> Result<RefOutputs> {
    let (l_n, d_n, t_n, n, dhc, g) = (p.l, p.d(), p.t, p.n, p.dhc, p.g());
    let (sic, dic, dlc) = (p.sic, p.dic, p.dlc());
    let has_c = p.cell.has_c_state();
    let w_mat = |k: usize| k * g * dhc;
    let bg = p.cell.bias_gates();
    let lbr = matches!(p.cell, CellKind::LbrGru | CellKind::LbrAugru);
    check_len("src_layer", x.src_layer, t_n * n * p.slc)?;
    check_len("weights_layer", x.weights_layer, l_n * d_n * w_mat(p.slc))?;
    check_len("weights_iter", x.weights_iter, l_n * d_n * w_mat(sic))?;
    if let Some(v) = x.src_iter {
        check_len("src_iter", v, l_n * d_n * n * sic)?;
    }
    if let Some(v) = x.src_iter_c {
        check_len("src_iter_c", v, l_n * d_n * n * dhc)?;
    }
    if let Some(v) = x.bias {
        check_len("bias", v, l_n * d_n * bg * dhc)?;
    }
    let attention = match (p.cell.has_attention(), x.attention) {
        (false, _) => None,
        (true, Some(a)) => {
            check_len("attention", a, t_n * n)?;
            Some(a)
        }
        (true, None) => {
            return Err(Error::InvalidArguments(
                "reference: AUGRU needs the attention".into(),
            ))
        }
    };
    match (p.with_projection, x.projection) {
        (true, Some(v)) => check_len("projection", v, l_n * d_n * dhc * dic)?,
        (false, None) => {}
        _ => {
            return Err(Error::InvalidArguments(
                "reference: projection weights given without a projection problem or the reverse"
                    .into(),
            ))
        }
    }
    if !p.with_projection && dic != dhc {
        return Err(Error::InvalidArguments(
            "reference: DIC differs from DHC without projection".into(),
        ));
    }
    if l_n > 1 && p.slc != dic || t_n > 1 && sic != dic {
        return Err(Error::InvalidArguments(
            "reference: inconsistent channels".into(),
        ));
    }

    let cells = l_n * d_n;
    let state = n * dhc;
    let hc = sic.max(dic);
    let mut out = RefOutputs {
        dst_layer: vec![0.0; t_n * n * dlc],
        dst_iter: vec![0.0; cells * n * dic],
        dst_iter_c: if has_c {
            vec![0.0; cells * state]
        } else {
            Vec::new()
        },
        gates: vec![0.0; cells * t_n * n * g * dhc],
        h: vec![0.0; cells * (t_n + 1) * n * hc],
        ht: if p.with_projection {
            vec![0.0; cells * t_n * state]
        } else {
            Vec::new()
        },
        c: if has_c {
            vec![0.0; cells * (t_n + 1) * state]
        } else {
            Vec::new()
        },
        lbr: if lbr {
            vec![0.0; cells * t_n * state]
        } else {
            Vec::new()
        },
    };
    let zeros = vec![0f32; n * sic.max(dhc)];
    let bias_zeros = vec![0f32; bg * dhc];
    let peephole_zeros = vec![0f32; 3 * dhc];
    if let Some(v) = x.peephole {
        check_len("peephole", v, l_n * d_n * 3 * dhc)?;
    }
    if let Some(v) = x.lengths {
        if v.len() != n
            || v.iter()
                .any(|&len| !(0..=t_n as i64).contains(&(len as i64)))
        {
            return Err(Error::InvalidArguments(
                "reference: sequence lengths must be N values in 0..=T".into(),
            ));
        }
    }
    let len = |r: usize| x.len(t_n, r);
    let slc = p.slc;
    for d in 0..d_n {
        // Output sequence (by step) of the layer below, for the current direction; a sample's
        // step s reads its time `time_in(d, s, len)` (zeros past its length).
        let mut below: Vec<Vec<f32>> = (0..t_n)
            .map(|s| {
                (0..n)
                    .flat_map(|r| match s < len(r) {
                        true => {
                            x.src_layer[(p.time_in(d, s, len(r)) * n + r) * slc..][..slc].to_vec()
                        }
                        false => vec![0.0; slc],
                    })
                    .collect()
            })
            .collect();
        for l in 0..l_n {
            let ld = l * d_n + d;
            let k = p.layer_input(l);
            let wts = CellWeights {
                w: &x.weights_layer[ld * w_mat(p.slc)..][..w_mat(k)],
                u: &x.weights_iter[ld * w_mat(sic)..][..w_mat(sic)],
                b: x.bias
                    .map_or(&bias_zeros[..], |b| &b[ld * bg * dhc..][..bg * dhc]),
                peephole: x
                    .peephole
                    .map_or(&peephole_zeros[..], |v| &v[ld * 3 * dhc..][..3 * dhc]),
                projection: x.projection.map(|v| &v[ld * dhc * dic..][..dhc * dic]),
            };
            let mut h_prev = x.src_iter.map_or(zeros[..n * sic].to_vec(), |v| {
                v[ld * n * sic..][..n * sic].to_vec()
            });
            let mut c_prev = x.src_iter_c.map_or(zeros[..state].to_vec(), |v| {
                v[ld * state..][..state].to_vec()
            });
            let slot = |s: usize| (ld * (t_n + 1) + s) * n;
            let put = |dst: &mut [f32], row_len: usize, v: &[f32], ch: usize| {
                for r in 0..n {
                    dst[r * row_len..][..ch].copy_from_slice(&v[r * ch..][..ch]);
                }
            };
            put(&mut out.h[slot(0) * hc..], hc, &h_prev, sic);
            if has_c {
                out.c[slot(0) * dhc..][..state].copy_from_slice(&c_prev);
            }
            let mut seq = Vec::with_capacity(t_n);
            for (s, xs) in below.iter().enumerate() {
                let att = attention.map(|a| &a[p.time(d, s) * n..][..n]);
                let mut step = cell_forward(p, &wts, xs, k, &h_prev, &c_prev, att)?;
                // Samples whose sequence has ended keep their states; nothing else of the step.
                let hp_ch = h_prev.len() / n.max(1);
                for r in (0..n).filter(|&r| s >= len(r)) {
                    let row = &mut step.h[r * dic..][..dic];
                    row.fill(0.0);
                    let k = hp_ch.min(dic);
                    row[..k].copy_from_slice(&h_prev[r * hp_ch..][..k]);
                    if has_c {
                        step.c[r * dhc..][..dhc].copy_from_slice(&c_prev[r * dhc..][..dhc]);
                    }
                    step.gates[r * g * dhc..][..g * dhc].fill(0.0);
                    for v in [&mut step.ht, &mut step.lbr] {
                        if !v.is_empty() {
                            v[r * dhc..][..dhc].fill(0.0);
                        }
                    }
                }
                if lbr {
                    out.lbr[(ld * t_n + s) * state..][..state].copy_from_slice(&step.lbr);
                }
                out.gates[((ld * t_n + s) * n) * g * dhc..][..n * g * dhc]
                    .copy_from_slice(&step.gates);
                put(&mut out.h[slot(s + 1) * hc..], hc, &step.h, dic);
                if p.with_projection {
                    out.ht[(ld * t_n + s) * state..][..state].copy_from_slice(&step.ht);
                }
                if has_c {
                    out.c[slot(s + 1) * dhc..][..state].copy_from_slice(&step.c);
                }
                h_prev = step.h.clone();
                c_prev = step.c;
                seq.push(step.h);
            }
            // h_prev rows have SIC channels if no step ran (T = 0), else DIC.
            let hp_ch = h_prev.len() / n.max(1);
            for r in 0..n {
                let k = hp_ch.min(dic);
                out.dst_iter[(ld * n + r) * dic..][..k].copy_from_slice(&h_prev[r * hp_ch..][..k]);
            }
            if has_c {
                out.dst_iter_c[ld * state..][..state].copy_from_slice(&c_prev);
            }
            below = seq;
        }
        // The last layer's sequence goes to dst_layer (each sample's valid steps).
        for (s, h) in below.iter().enumerate() {
            for r in (0..n).filter(|&r| s < len(r)) {
                let t = p.time_in(d, s, len(r));
                for o in 0..dic {
                    let v = h[r * dic + o];
                    let idx = (t * n + r) * dlc;
                    match p.direction {
                        Direction::BidirectionalConcat => out.dst_layer[idx + d * dic + o] = v,
                        Direction::BidirectionalSum => out.dst_layer[idx + o] += v,
                        _ => out.dst_layer[idx + o] = v,
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_unit_lstm_by_hand() {
        // One unit, one input, zero recurrent weights: c = σ(x·wi+bi)·tanh(x·wc+bc), h = σ(·)·tanh(c).
        let p = RefProblem {
            cell: CellKind::Lstm,
            direction: Direction::Left2Right,
            l: 1,
            t: 1,
            n: 1,
            slc: 1,
            sic: 1,
            dhc: 1,
            dic: 1,
            with_projection: false,
            activation: None,
            linear: None,
            precision: Precision::F32,
            c_precision: Precision::F32,
        };
        let w = [0.5, -1.0, 2.0, 0.25];
        let b = [0.1, 0.2, 0.3, 0.4];
        let u = [0.0; 4];
        let x = [0.8];
        let o = forward(
            &p,
            &RefInputs {
                src_layer: &x,
                src_iter: None,
                src_iter_c: None,
                weights_layer: &w,
                weights_iter: &u,
                bias: Some(&b),
                attention: None,
                peephole: None,
                projection: None,
                lengths: None,
            },
        )
        .unwrap();
        let s = |v: f32| 1.0 / (1.0 + (-v).exp());
        let c = s(0.8 * 0.5 + 0.1) * (0.8f32 * 2.0 + 0.3).tanh();
        let h = s(0.8 * 0.25 + 0.4) * c.tanh();
        assert!((o.dst_iter_c[0] - c).abs() < 1e-7);
        assert!((o.dst_layer[0] - h).abs() < 1e-7);
        assert_eq!(o.dst_iter[0], o.dst_layer[0]);
    }
}
