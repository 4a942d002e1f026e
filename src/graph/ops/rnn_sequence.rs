//! LSTMSequence-5 (and LSTMSequence-1), GRUSequence-5, RNNSequence-5: the matching cell
//! (`LSTMCell`, `GRUCell`, `RNNCell`, same gate orders, activations and `clip`) run over a
//! batch-major sequence, per direction, honouring per-sample lengths.
//!
//! ```text
//! inputs   X [N, T, K], H0 [N, D, H], (LSTM: C0 [N, D, H]), sequence_lengths [N] (integer),
//!          W [D, G·H, K], R [D, G·H, H], B [D, G·H] (GRU linear_before_reset: [D, 4H]),
//!          (LSTMSequence-1: optional peephole P [D, 3H])
//! outputs  Y [N, D, T, H], Ho [N, D, H], (LSTM: Co [N, D, H])
//! ```
//! `direction` is `forward`, `reverse` or `bidirectional` (D = 2: direction 0 forward,
//! 1 reverse). Sample `b` of length `L_b` (each in `0..=T`) runs times `0..L_b` (reversed:
//! `L_b−1, …, 0`); `Y` is zero at times `≥ L_b`, `Ho`/`Co` hold the state after its last valid
//! step, and zeros when `L_b = 0` (as OpenVINO's CPU plugin gives them). `activations_alpha` / `activations_beta` are read
//! and ignored: none of the supported activations (sigmoid, tanh, relu) takes them. A
//! bidirectional op may list its activations once per direction (as ONNX does), if the same.
//!
//! This op is the reference path, step by step through the cell ops; the `fuse_rnn_seq` pass
//! replaces it by one oneDNN RNN primitive over the whole sequence whenever oneDNN has the
//! cell (see `passes::sequence_cell`), so it runs only for `clip`, other activations,
//! LSTMSequence-1's peephole or `input_forget`, non-constant weights, or `--no-fuse`.

use std::any::Any;

use ndarray::{s, Array2, Array3, Array4, ArrayView3, Axis, Ix3};

use super::gru_cell::GruCell;
use super::lstm_cell::LstmCell;
use super::rnn_cell::RnnCell;
use super::rnn_common::CellAttrs;
use super::{check_arity, expect_inputs, invalid, opset_number, Op, OutputInfo, ValueInfo};
use crate::error::{Error, Result};
use crate::graph::ir::IrLayer;
use crate::graph::shape::{Dim, PartialShape};
use crate::graph::tensor::{ElementType, Tensor};

/// Which cell the sequence runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SequenceCellType {
    /// LSTMSequence: gates f, i, c, o; states h, c.
    Lstm,
    /// GRUSequence: gates z, r, h.
    Gru,
    /// RNNSequence: one gate.
    Rnn,
}

/// The `direction` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SequenceDirection {
    /// Times 0, 1, …
    Forward,
    /// Times T−1, T−2, …
    Reverse,
    /// Both, forward as direction 0.
    Bidirectional,
}

impl SequenceDirection {
    /// D.
    pub fn count(self) -> usize {
        if self == Self::Bidirectional {
            2
        } else {
            1
        }
    }

    /// Whether direction `d` walks the sequence backwards.
    pub fn reversed(self, d: usize) -> bool {
        self == Self::Reverse || (self == Self::Bidirectional && d == 1)
    }
}

/// An RNN sequence op (see the module doc).
#[derive(Clone, Debug)]
pub struct RnnSequence {
    /// The cell.
    pub cell: SequenceCellType,
    /// hidden_size, activations, clip.
    pub attrs: CellAttrs,
    /// The direction(s).
    pub direction: SequenceDirection,
    /// GRU: reset gate after the recurrent product (B then [D, 4H]).
    pub linear_before_reset: bool,
    /// LSTMSequence-1: i = 1 − f.
    pub input_forget: bool,
}

impl RnnSequence {
    /// Reads `<data hidden_size direction activations activations_alpha activations_beta clip
    /// [linear_before_reset] [input_forget]/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        let (cell, defaults): (_, &[&str]) = match layer.type_name.as_str() {
            "LSTMSequence" => (SequenceCellType::Lstm, &["sigmoid", "tanh", "tanh"]),
            "GRUSequence" => (SequenceCellType::Gru, &["sigmoid", "tanh"]),
            _ => (SequenceCellType::Rnn, &["tanh"]),
        };
        let v1 = cell == SequenceCellType::Lstm && opset_number(layer) < 5;
        let inputs = if cell == SequenceCellType::Lstm { 7 } else { 6 };
        expect_inputs(layer, inputs..=inputs + usize::from(v1))?;
        let direction = match layer.attr_str("direction")?.to_ascii_lowercase().as_str() {
            "forward" => SequenceDirection::Forward,
            "reverse" => SequenceDirection::Reverse,
            "bidirectional" => SequenceDirection::Bidirectional,
            other => {
                return Err(layer.err(format!(
                    "direction='{other}' (expected forward, reverse or bidirectional)"
                )))
            }
        };
        layer.attr_f32_list("activations_alpha")?;
        layer.attr_f32_list("activations_beta")?;
        // ONNX's bidirectional RNNs list the functions per direction (OpenVINO's ONNX frontend
        // keeps the list): the same functions twice are the functions once.
        let mut names = layer.attr_str_list("activations");
        let m = defaults.len();
        if direction == SequenceDirection::Bidirectional && names.len() == 2 * m {
            if names[..m] != names[m..] {
                return Err(Error::Unimplemented(format!(
                    "IR: {layer}: activations={names:?} differ per direction"
                )));
            }
            names.truncate(m);
        }
        Ok(Self {
            cell,
            attrs: CellAttrs::with_activations(layer, defaults, names)?,
            direction,
            linear_before_reset: cell == SequenceCellType::Gru
                && layer.attr_bool_or("linear_before_reset", false)?,
            input_forget: v1 && layer.attr_bool_or("input_forget", false)?,
        })
    }

    /// Recurrent states: 2 for LSTM (h, c), else 1. They are inputs `1..=states`.
    pub fn states(&self) -> usize {
        if self.cell == SequenceCellType::Lstm {
            2
        } else {
            1
        }
    }

    /// Input position of `sequence_lengths`; W, R, B (and P) follow it.
    pub fn lengths_input(&self) -> usize {
        1 + self.states()
    }

    /// Gates per step (the G of W and R).
    pub fn gates(&self) -> usize {
        match self.cell {
            SequenceCellType::Lstm => 4,
            SequenceCellType::Gru => 3,
            SequenceCellType::Rnn => 1,
        }
    }

    /// Values of B per direction.
    pub fn bias_len(&self) -> usize {
        (self.gates() + usize::from(self.linear_before_reset)) * self.attrs.hidden_size
    }

    /// The type name as spelled in IR.
    pub fn ir_type(&self) -> &'static str {
        match self.cell {
            SequenceCellType::Lstm => "LSTMSequence",
            SequenceCellType::Gru => "GRUSequence",
            SequenceCellType::Rnn => "RNNSequence",
        }
    }

    /// The output shapes for X `[N, T, K]`.
    pub fn output_shapes(&self, n: Dim, t: Dim) -> Vec<PartialShape> {
        let (d, h) = (Some(self.direction.count()), Some(self.attrs.hidden_size));
        let mut out = vec![PartialShape::new(vec![n, d, t, h])];
        out.extend((0..self.states()).map(|_| PartialShape::new(vec![n, d, h])));
        out
    }

    /// The cell op of one step.
    fn step_op(&self) -> Box<dyn Op> {
        let attrs = self.attrs.clone();
        match self.cell {
            SequenceCellType::Lstm => Box::new(LstmCell {
                attrs,
                input_forget: self.input_forget,
            }),
            SequenceCellType::Gru => Box::new(GruCell {
                attrs,
                linear_before_reset: self.linear_before_reset,
            }),
            SequenceCellType::Rnn => Box::new(RnnCell { attrs }),
        }
    }
}

/// The values of a `sequence_lengths` input for a batch of `n`, each checked to be in `0..=t`.
pub fn sequence_lengths(lengths: &Tensor, n: usize, t: usize) -> Result<Vec<usize>> {
    let v = lengths.to_i64_vec("sequence_lengths")?;
    if v.len() != n {
        return Err(invalid(format!(
            "sequence_lengths has {} values for a batch of {n}",
            v.len()
        )));
    }
    v.iter()
        .map(|&l| {
            usize::try_from(l).ok().filter(|&l| l <= t).ok_or_else(|| {
                invalid(format!(
                    "sequence_lengths holds {l}, outside 0..={t} (the sequence length)"
                ))
            })
        })
        .collect()
}

impl Op for RnnSequence {
    fn type_name(&self) -> &'static str {
        self.ir_type()
    }

    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (d, h, g) = (
            Some(self.direction.count()),
            Some(self.attrs.hidden_size),
            Some(self.gates() * self.attrs.hidden_size),
        );
        let dims = |i: usize, rank: usize| -> Result<Vec<Dim>> {
            let s = &inputs[i].shape;
            match s.dims() {
                None => Ok(vec![None; rank]),
                Some(v) if v.len() == rank => Ok(v.to_vec()),
                Some(_) => Err(invalid(format!(
                    "input {i} has shape {s}, expected rank {rank}"
                ))),
            }
        };
        let x = dims(0, 3)?;
        let l = self.lengths_input();
        let w = dims(l + 1, 3)?;
        let n = x[0].or(dims(1, 3)?[0]).or(dims(l, 1)?[0]);
        let k = x[2].or(w[2]);
        let mut expected: Vec<Vec<Dim>> = vec![vec![n, x[1], k]];
        expected.extend((0..self.states()).map(|_| vec![n, d, h]));
        expected.push(vec![n]);
        expected.extend([vec![d, g, k], vec![d, g, h], vec![d, Some(self.bias_len())]]);
        if inputs.len() > l + 4 {
            expected.push(vec![d, Some(3 * self.attrs.hidden_size)]);
        }
        for (i, (info, want)) in inputs.iter().zip(expected).enumerate() {
            let is_lengths = i == l;
            if is_lengths && !info.element_type.is_integer() {
                return Err(invalid(format!(
                    "sequence_lengths (input {i}) is {}, expected an integer type",
                    info.element_type
                )));
            }
            if !is_lengths && info.element_type != ElementType::F32 {
                return Err(Error::Unimplemented(format!(
                    "input {i} is {}; the RNN sequences run in f32 only",
                    info.element_type
                )));
            }
            let want = PartialShape::new(want);
            if !info.shape.compatible(&want) {
                return Err(invalid(format!(
                    "input {i} has shape {}, expected {want}",
                    info.shape
                )));
            }
        }
        Ok(self
            .output_shapes(n, x[1])
            .into_iter()
            .map(|s| OutputInfo::new(ElementType::F32, s))
            .collect())
    }

    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let l = self.lengths_input();
        check_arity(self.ir_type(), inputs, l + 4..=l + 5)?;
        let x = view3(inputs[0], "X")?;
        let (n, t, k) = x.dim();
        let (dirs, h, states) = (
            self.direction.count(),
            self.attrs.hidden_size,
            self.states(),
        );
        let lengths = sequence_lengths(inputs[l], n, t)?;
        let init: Vec<ArrayView3<f32>> = (0..states)
            .map(|s| {
                let v = view3(inputs[1 + s], "initial state")?;
                if v.dim() != (n, dirs, h) {
                    return Err(invalid(format!(
                        "initial state {s} has shape {:?}, expected [{n}, {dirs}, {h}]",
                        v.shape()
                    )));
                }
                Ok(v)
            })
            .collect::<Result<_>>()?;
        // Per direction slices of W, R, B (and P), each the shape the cell op checks.
        let per_direction = |i: usize, d: usize| -> Result<Tensor> {
            let a = inputs[i].typed::<f32>("weights")?;
            if a.shape().first() != Some(&dirs) {
                return Err(invalid(format!(
                    "input {i} has shape {:?}, expected {dirs} directions first",
                    a.shape()
                )));
            }
            Ok(Tensor::F32(a.index_axis(Axis(0), d).to_owned()))
        };
        let step = self.step_op();
        let mut y = Array4::<f32>::zeros((n, dirs, t, h));
        let mut last: Vec<Array3<f32>> = (0..states).map(|_| Array3::zeros((n, dirs, h))).collect();
        let steps = lengths.iter().copied().max().unwrap_or(0);
        for d in 0..dirs {
            let weights: Vec<Tensor> = (l + 1..inputs.len())
                .map(|i| per_direction(i, d))
                .collect::<Result<_>>()?;
            let mut state: Vec<Tensor> = init
                .iter()
                .map(|v| Tensor::F32(v.index_axis(Axis(1), d).to_owned().into_dyn()))
                .collect();
            let reversed = self.direction.reversed(d);
            // The time sample `b` reads at step `s`, if it still runs.
            let time = |b: usize, s: usize| {
                (s < lengths[b]).then(|| if reversed { lengths[b] - 1 - s } else { s })
            };
            for s in 0..steps {
                let mut xs = Array2::<f32>::zeros((n, k));
                for b in 0..n {
                    if let Some(ti) = time(b, s) {
                        xs.row_mut(b).assign(&x.slice(s![b, ti, ..]));
                    }
                }
                let xs = Tensor::F32(xs.into_dyn());
                let mut args: Vec<&Tensor> = vec![&xs];
                args.extend(&state);
                args.extend(&weights);
                let new = step.execute(&args)?;
                for (st, nt) in state.iter_mut().zip(&new) {
                    let (old, new) = (f32_mut(st)?, nt.typed::<f32>("state")?);
                    for b in (0..n).filter(|&b| time(b, s).is_some()) {
                        old.index_axis_mut(Axis(0), b)
                            .assign(&new.index_axis(Axis(0), b));
                    }
                }
                let hv = new[0].typed::<f32>("H")?;
                for b in 0..n {
                    if let Some(ti) = time(b, s) {
                        y.slice_mut(s![b, d, ti, ..])
                            .assign(&hv.index_axis(Axis(0), b));
                    }
                }
            }
            for (out, st) in last.iter_mut().zip(&state) {
                let v = st.typed::<f32>("state")?;
                for b in (0..n).filter(|&b| lengths[b] > 0) {
                    out.slice_mut(s![b, d, ..])
                        .assign(&v.index_axis(Axis(0), b));
                }
            }
        }
        let mut out = vec![Tensor::F32(y.into_dyn())];
        out.extend(last.into_iter().map(|a| Tensor::F32(a.into_dyn())));
        Ok(out)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A 3-D f32 view of `t`.
fn view3<'a>(t: &'a Tensor, what: &str) -> Result<ArrayView3<'a, f32>> {
    t.typed::<f32>(what)?
        .view()
        .into_dimensionality::<Ix3>()
        .map_err(|_| invalid(format!("{what} must be 3-D, got shape {:?}", t.shape())))
}

fn f32_mut(t: &mut Tensor) -> Result<&mut ndarray::ArrayD<f32>> {
    match t {
        Tensor::F32(a) => Ok(a),
        other => Err(invalid(format!(
            "a state is {}, expected f32",
            other.element_type()
        ))),
    }
}
