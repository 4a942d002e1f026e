//! The reference backward (`rnn::reference_backward`) against finite differences of the
//! reference forward, for every cell × direction × layers 1–2 on tiny problems, plus AUGRU's
//! oneDNN-specific formulas checked by hand.
//!
//! Loss: `Σ dst_layer·Y + Σ dst_iter·Yi + Σ dst_iter_c·Yc` (f64 sum) with fixed random `Y`s,
//! whose gradients are then exactly `diff_dst_* = Y`. Central differences with step 4e−3 on the
//! f32 forward; tolerance `|fd − analytic| ≤ 1e−3 + 1e−2·|analytic|` (f32 rounding of the loss
//! divided by the step is ~1e−5, truncation ~1e−5).

mod lstm_common;

use lstm_common::{fill, fill_positive, DIRECTIONS};
use oxidnn::rnn::cells::vanilla::Activation;
use oxidnn::rnn::precision::Precision;
use oxidnn::rnn::reference::{self, RefInputs, RefProblem};
use oxidnn::rnn::reference_backward::{self, RefDiffDst, RefGrads};
use oxidnn::rnn::CellKind;
use oxidnn::types::Direction;

/// Owned inputs, perturbable by name.
#[derive(Clone)]
struct Params {
    src_layer: Vec<f32>,
    src_iter: Vec<f32>,
    src_iter_c: Vec<f32>,
    weights_layer: Vec<f32>,
    weights_iter: Vec<f32>,
    bias: Vec<f32>,
    peephole: Option<Vec<f32>>,
    attention: Option<Vec<f32>>,
    /// LSTM projection `[L][D][DHC][DIC]` (the problem's `with_projection`).
    projection: Option<Vec<f32>>,
    /// Per-sample sequence lengths (not perturbed).
    lengths: Option<Vec<i32>>,
}

impl Params {
    fn random(p: &RefProblem, peephole: bool, positive: bool, seed: u64) -> Self {
        let (l, d, n, g, dhc) = (p.l, p.d(), p.n, p.g(), p.dhc);
        let f = |len: usize, k: u64, scale: f32| {
            if positive {
                fill_positive(len, seed * 16 + k, scale)
            } else {
                fill(len, seed * 16 + k)
                    .iter()
                    .map(|v| v * 2.0 * scale)
                    .collect()
            }
        };
        Self {
            src_layer: f(p.t * n * p.slc, 0, 1.0),
            src_iter: f(l * d * n * p.sic, 1, 1.0),
            src_iter_c: f(l * d * n * dhc, 2, 1.0),
            weights_layer: f(l * d * p.slc * g * dhc, 3, 1.0),
            weights_iter: f(l * d * p.sic * g * dhc, 4, 1.0),
            bias: f(l * d * p.cell.bias_gates() * dhc, 5, 0.5),
            peephole: peephole.then(|| f(l * d * 3 * dhc, 6, 0.5)),
            // AUGRU: zero attention, where oneDNN's backward is the analytic gradient.
            attention: p.cell.has_attention().then(|| vec![0.0; p.t * n]),
            projection: p.with_projection.then(|| f(l * d * dhc * p.dic, 7, 1.0)),
            lengths: None,
        }
    }

    fn inputs(&self, cell: CellKind) -> RefInputs<'_> {
        RefInputs {
            src_layer: &self.src_layer,
            src_iter: Some(&self.src_iter),
            src_iter_c: cell.has_c_state().then_some(&self.src_iter_c[..]),
            weights_layer: &self.weights_layer,
            weights_iter: &self.weights_iter,
            bias: Some(&self.bias),
            attention: self.attention.as_deref(),
            peephole: self.peephole.as_deref(),
            projection: self.projection.as_deref(),
            lengths: self.lengths.as_deref(),
        }
    }

    /// The names of the tensors checked.
    fn names(&self, cell: CellKind) -> Vec<&'static str> {
        let mut v = vec![
            "src_layer",
            "src_iter",
            "weights_layer",
            "weights_iter",
            "bias",
        ];
        if cell.has_c_state() {
            v.push("src_iter_c");
        }
        if self.peephole.is_some() {
            v.push("peephole");
        }
        if self.projection.is_some() {
            v.push("projection");
        }
        v
    }

    fn tensor_mut(&mut self, name: &str) -> &mut Vec<f32> {
        match name {
            "src_layer" => &mut self.src_layer,
            "src_iter" => &mut self.src_iter,
            "src_iter_c" => &mut self.src_iter_c,
            "weights_layer" => &mut self.weights_layer,
            "weights_iter" => &mut self.weights_iter,
            "bias" => &mut self.bias,
            "projection" => self.projection.as_mut().unwrap(),
            _ => self.peephole.as_mut().unwrap(),
        }
    }
}

fn grad<'a>(g: &'a RefGrads, name: &str) -> &'a [f32] {
    match name {
        "src_layer" => &g.diff_src_layer,
        "src_iter" => &g.diff_src_iter,
        "src_iter_c" => &g.diff_src_iter_c,
        "weights_layer" => &g.diff_weights_layer,
        "weights_iter" => &g.diff_weights_iter,
        "bias" => &g.diff_bias,
        "projection" => &g.diff_projection,
        _ => &g.diff_peephole,
    }
}

struct Seeds {
    y_layer: Vec<f32>,
    y_iter: Vec<f32>,
    y_iter_c: Vec<f32>,
}

fn loss(p: &RefProblem, x: &Params, y: &Seeds) -> f64 {
    let o = reference::forward(p, &x.inputs(p.cell)).expect("forward");
    let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(&u, &v)| u as f64 * v as f64).sum();
    let mut s: f64 = dot(&o.dst_layer, &y.y_layer);
    s += dot(&o.dst_iter, &y.y_iter);
    s + dot(&o.dst_iter_c, &y.y_iter_c)
}

fn check(p: &RefProblem, peephole: bool, positive: bool, seed: u64) -> usize {
    check_params(p, Params::random(p, peephole, positive, seed), seed)
}

fn check_params(p: &RefProblem, x: Params, seed: u64) -> usize {
    let peephole = x.peephole.is_some();
    let cells = p.l * p.d();
    let y = Seeds {
        y_layer: fill(p.t * p.n * p.dlc(), seed + 100),
        y_iter: fill(cells * p.n * p.dic, seed + 101),
        y_iter_c: if p.cell.has_c_state() {
            fill(cells * p.n * p.dhc, seed + 102)
        } else {
            Vec::new()
        },
    };
    let fwd = reference::forward(p, &x.inputs(p.cell)).expect("forward");
    let grads = reference_backward::backward(
        p,
        &x.inputs(p.cell),
        &fwd,
        &RefDiffDst {
            diff_dst_layer: &y.y_layer,
            diff_dst_iter: Some(&y.y_iter),
            diff_dst_iter_c: p.cell.has_c_state().then_some(&y.y_iter_c[..]),
        },
    )
    .expect("backward");
    let step = 4e-3f32;
    let mut checked = 0;
    for name in x.names(p.cell) {
        let an_all = grad(&grads, name);
        assert_eq!(an_all.len(), x.clone().tensor_mut(name).len(), "{name}");
        for (i, &an) in an_all.iter().enumerate() {
            let at = |delta: f32| {
                let mut w = x.clone();
                w.tensor_mut(name)[i] += delta;
                loss(p, &w, &y)
            };
            let fd = ((at(step) - at(-step)) / (2.0 * step as f64)) as f32;
            assert!(
                (fd - an).abs() <= 1e-3 + 1e-2 * an.abs(),
                "{p:?} peephole={peephole}: d{name}[{i}] analytic {an} vs finite difference {fd}"
            );
            checked += 1;
        }
    }
    checked
}

fn problem(
    cell: CellKind,
    direction: Direction,
    l: usize,
    activation: Option<Activation>,
) -> RefProblem {
    RefProblem {
        cell,
        direction,
        l,
        t: 3,
        n: 2,
        slc: if l == 1 { 3 } else { 2 },
        sic: 2,
        dhc: 2,
        dic: 2,
        with_projection: false,
        activation,
        precision: Precision::F32,
        c_precision: Precision::F32,
        linear: None,
    }
}

#[test]
fn every_cell_matches_finite_differences() {
    let mut cases = 0;
    let mut points = 0;
    let variants: Vec<(CellKind, Option<Activation>, bool)> = vec![
        (CellKind::VanillaRnn, Some(Activation::Tanh), false),
        (CellKind::VanillaRnn, Some(Activation::Logistic), false),
        (CellKind::Lstm, None, false),
        (CellKind::Lstm, None, true),
        (CellKind::Gru, None, false),
        (CellKind::LbrGru, None, false),
        (CellKind::Augru, None, false),
        (CellKind::LbrAugru, None, false),
    ];
    for (k, (cell, act, peephole)) in variants.into_iter().enumerate() {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                if cell.has_attention() && (l > 1 || direction != Direction::Left2Right) {
                    continue;
                }
                let p = problem(cell, direction, l, act);
                points += check(&p, peephole, false, (k * 8 + l) as u64);
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 6 * 8 + 2);
    assert!(points > 3000, "{points} points checked");
}

/// LSTM with projection (DIC = 3 > DHC = 2 and DIC = 1 < DHC), with and without peephole, every
/// direction, L 1–2: every input including the projection weights.
#[test]
fn lstm_projection_matches_finite_differences() {
    let mut cases = 0;
    for (k, (dic, peephole)) in [(3, false), (1, true), (3, true)].into_iter().enumerate() {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                let p = RefProblem {
                    sic: dic,
                    dic,
                    slc: if l == 1 { 3 } else { dic },
                    with_projection: true,
                    ..problem(CellKind::Lstm, direction, l, None)
                };
                let points = check(&p, peephole, false, (k * 8 + l + 200) as u64);
                assert!(points > 50, "{points}");
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 3 * 8);
}

/// Per-sample sequence lengths (0, shorter than T, T): every cell × direction × L 1–2, LSTM with
/// peephole and with projection.
#[test]
fn sequence_lengths_match_finite_differences() {
    let mut cases = 0;
    let variants: Vec<(CellKind, Option<Activation>, bool, bool)> = vec![
        (CellKind::VanillaRnn, Some(Activation::Tanh), false, false),
        (CellKind::Lstm, None, true, false),
        (CellKind::Lstm, None, false, true),
        (CellKind::Gru, None, false, false),
        (CellKind::LbrGru, None, false, false),
        (CellKind::Augru, None, false, false),
        (CellKind::LbrAugru, None, false, false),
    ];
    for (k, (cell, act, peephole, projection)) in variants.into_iter().enumerate() {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                if cell.has_attention() && (l > 1 || direction != Direction::Left2Right) {
                    continue;
                }
                let p = RefProblem {
                    n: 3,
                    with_projection: projection,
                    ..problem(cell, direction, l, act)
                };
                let seed = (k * 8 + l + 300) as u64;
                let mut x = Params::random(&p, peephole, false, seed);
                x.lengths = Some(vec![2, 0, 3]);
                let points = check_params(&p, x, seed);
                assert!(points > 40, "{points}");
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 5 * 8 + 2);
}

#[test]
fn relu_on_the_positive_side_matches_finite_differences() {
    // Non-negative inputs and weights keep every pre-activation away from the kink.
    for direction in DIRECTIONS {
        let p = problem(
            CellKind::VanillaRnn,
            direction,
            2,
            Some(Activation::Relu(0.3)),
        );
        check(&p, false, true, 5);
    }
}

/// oneDNN's AUGRU backward at one step (T = L = N... = small), by hand from the forward states:
/// `dA_o = dh(1 − u)(1 − o²)`, `t = dh(h_prev − o)u(1 − u)`, `dA_u = t(1 − a)`,
/// `d_att = −Σ_j t·u` — checked through diff_bias (the sum of dA over the batch) and
/// diff_attention.
#[test]
fn augru_uses_onednn_formulas() {
    for cell in [CellKind::Augru, CellKind::LbrAugru] {
        let p = RefProblem {
            t: 1,
            n: 2,
            ..problem(cell, Direction::Left2Right, 1, None)
        };
        let mut x = Params::random(&p, false, false, 9);
        x.attention = Some(vec![0.3, 0.8]);
        let fwd = reference::forward(&p, &x.inputs(cell)).unwrap();
        let dy = fill(p.n * p.dhc, 77);
        let g = reference_backward::backward(
            &p,
            &x.inputs(cell),
            &fwd,
            &RefDiffDst {
                diff_dst_layer: &dy,
                diff_dst_iter: None,
                diff_dst_iter_c: None,
            },
        )
        .unwrap();
        let dhc = p.dhc;
        let mut db_u = vec![0f32; dhc];
        let mut db_o = vec![0f32; dhc];
        for r in 0..p.n {
            let a = x.attention.as_ref().unwrap()[r];
            let mut d_att = 0f32;
            for o in 0..dhc {
                let gate = |k: usize| fwd.gates[r * 3 * dhc + k * dhc + o];
                let (u, og) = (gate(0), gate(2));
                let hp = x.src_iter[r * dhc + o];
                let dh = dy[r * dhc + o];
                let t = dh * (hp - og) * u * (1.0 - u);
                db_u[o] += t * (1.0 - a);
                db_o[o] += dh * (1.0 - u) * (1.0 - og * og);
                d_att -= t * u;
            }
            let got = g.diff_attention[r];
            assert!(
                (got - d_att).abs() < 1e-6,
                "{cell:?} d_att[{r}] {got} vs {d_att}"
            );
        }
        for o in 0..dhc {
            assert!((g.diff_bias[o] - db_u[o]).abs() < 1e-6, "{cell:?} db_u");
            assert!(
                (g.diff_bias[2 * dhc + o] - db_o[o]).abs() < 1e-6,
                "{cell:?} db_o"
            );
        }
    }
}

#[test]
fn one_step_with_more_state_channels_than_hidden_ones() {
    // T = 1 allows SIC ≠ DIC (vanilla RNN and LSTM; the GRU cells need SIC = DHC).
    for (cell, act) in [
        (CellKind::VanillaRnn, Some(Activation::Tanh)),
        (CellKind::Lstm, None),
    ] {
        for direction in DIRECTIONS {
            let p = RefProblem {
                t: 1,
                sic: 3,
                ..problem(cell, direction, 1, act)
            };
            check(&p, cell == CellKind::Lstm, false, 41);
        }
    }
}
