//! The per-cell half of the RNN fusions: which OpenVINO cell and sequence ops map onto which
//! oneDNN RNN cell, and the one-time conversion of their W, R, B into oneDNN's gate order and
//! layout.
//!
//! | OpenVINO | gates (W rows) | oneDNN | gates | bias |
//! | --- | --- | --- | --- | --- |
//! | LSTMCell (σ, tanh, tanh) | f, i, c, o | `vanilla_lstm` | i, f, c, o | 4H, reordered |
//! | GRUCell (σ, tanh) | z, r, h | `vanilla_gru` | u, r, o | 3H |
//! | GRUCell, `linear_before_reset` | z, r, h | `lbr_gru` | u, r, o | 4H: z, r, Wb_h, Rb_h = u, r, o, u' |
//! | RNNCell (tanh / relu / sigmoid) | — | `vanilla_rnn` (tanh / relu α=0 / logistic) | — | H |
//!
//! The sequence ops (LSTMSequence, GRUSequence, RNNSequence) map as their cells. Both libraries
//! update a GRU state as `h' = z⊙h + (1 − z)⊙h̃`, so z is u unchanged. W `[D, G·H, K]` (a cell's
//! `[G·H, K]` is D = 1) becomes ldigo `[1, D, K, G, H]`. A cell with `clip` ≠ 0, other
//! activations, LSTMCell-1's / LSTMSequence-1's `input_forget` or peephole, or non-constant /
//! non-f32 weights has no oneDNN equivalent and is left alone.

use crate::error::{Error, Result};
use crate::graph::model::Node;
use crate::graph::ops::activation::ActivationKind;
use crate::graph::ops::gru_cell::GruCell;
use crate::graph::ops::lstm_cell::LstmCell;
use crate::graph::ops::rnn_cell::RnnCell;
use crate::graph::ops::rnn_common::CellAttrs;
use crate::graph::ops::rnn_sequence::{RnnSequence, SequenceCellType};
use crate::graph::tensor::{ElementType, Tensor};
use crate::types::AlgKind;

/// The oneDNN side of a recognized cell kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellKind {
    /// The oneDNN cell kind.
    pub alg: AlgKind,
    /// The vanilla RNN activation (`Undef` for the other cells).
    pub activation: AlgKind,
    /// The fused op's type name (`LSTMSequence`, `GRUSequence`, `RNNSequence`).
    pub type_name: &'static str,
    /// Recurrent states: 2 for LSTM (h, c), 1 otherwise. They are cell inputs `1..=states` and
    /// cell outputs `0..states`; W, R, B follow them as inputs.
    pub states: usize,
    /// For each oneDNN gate, the OpenVINO gate of the W / R rows.
    gate_order: &'static [usize],
    /// For each oneDNN bias gate, the OpenVINO bias gate.
    bias_order: &'static [usize],
}

const LSTM: CellKind = CellKind {
    alg: AlgKind::VanillaLstm,
    activation: AlgKind::Undef,
    type_name: "LSTMSequence",
    states: 2,
    gate_order: &[1, 0, 2, 3],
    bias_order: &[1, 0, 2, 3],
};
const GRU: CellKind = CellKind {
    alg: AlgKind::VanillaGru,
    activation: AlgKind::Undef,
    type_name: "GRUSequence",
    states: 1,
    gate_order: &[0, 1, 2],
    bias_order: &[0, 1, 2],
};
const LBR_GRU: CellKind = CellKind {
    alg: AlgKind::LbrGru,
    bias_order: &[0, 1, 2, 3],
    ..GRU
};
const fn rnn(activation: AlgKind) -> CellKind {
    CellKind {
        alg: AlgKind::VanillaRnn,
        activation,
        type_name: "RNNSequence",
        states: 1,
        gate_order: &[0],
        bias_order: &[0],
    }
}

/// One recognized cell: its kind, H and its weights.
#[derive(Clone, Debug)]
pub struct SequenceCell {
    /// What oneDNN runs.
    pub kind: CellKind,
    /// H.
    pub hidden: usize,
    /// D: 1, or 2 for a bidirectional sequence.
    pub directions: usize,
    /// W `[D, G·H, K]`, R `[D, G·H, H]`, B `[D, bias gates · H]`.
    w: Tensor,
    r: Tensor,
    b: Tensor,
}

/// Which weights [`SequenceCell::ldigo`] converts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weights {
    /// W: the input weights (weights_layer).
    Layer,
    /// R: the recurrent weights (weights_iter).
    Iter,
}

/// The oneDNN kind of a cell with these attributes; `None` for one oneDNN cannot run.
fn kind_of(
    cell: SequenceCellType,
    attrs: &CellAttrs,
    lbr: bool,
    input_forget: bool,
) -> Option<CellKind> {
    use ActivationKind::{Relu, Sigmoid, Tanh};
    if attrs.clip != 0.0 {
        return None;
    }
    match cell {
        SequenceCellType::Lstm => {
            (!input_forget && attrs.activations == [Sigmoid, Tanh, Tanh]).then_some(LSTM)
        }
        SequenceCellType::Gru if attrs.activations == [Sigmoid, Tanh] => {
            Some(if lbr { LBR_GRU } else { GRU })
        }
        SequenceCellType::Gru => None,
        SequenceCellType::Rnn => Some(rnn(match attrs.activations[..] {
            [Tanh] => AlgKind::EltwiseTanh,
            [Relu] => AlgKind::EltwiseRelu,
            [Sigmoid] => AlgKind::EltwiseLogistic,
            _ => return None,
        })),
    }
}

/// The oneDNN kind of a cell op and its attributes; `None` for a cell oneDNN cannot run.
fn cell_kind(node: &Node) -> Option<(CellKind, &CellAttrs)> {
    let any = node.op.as_any();
    let (kind, attrs) = if let Some(c) = any.downcast_ref::<LstmCell>() {
        let kind = kind_of(SequenceCellType::Lstm, &c.attrs, false, c.input_forget)?;
        (kind, &c.attrs)
    } else if let Some(c) = any.downcast_ref::<GruCell>() {
        let kind = kind_of(
            SequenceCellType::Gru,
            &c.attrs,
            c.linear_before_reset,
            false,
        )?;
        (kind, &c.attrs)
    } else if let Some(c) = any.downcast_ref::<RnnCell>() {
        (
            kind_of(SequenceCellType::Rnn, &c.attrs, false, false)?,
            &c.attrs,
        )
    } else {
        return None;
    };
    // LSTMCell-1 with a peephole has a 7th input.
    (node.inputs.len() == kind.states + 4).then_some((kind, attrs))
}

/// The oneDNN kind of a sequence op's cell; `None` for one oneDNN cannot run.
pub fn sequence_kind(op: &RnnSequence) -> Option<CellKind> {
    kind_of(op.cell, &op.attrs, op.linear_before_reset, op.input_forget)
}

/// A constant f32 input of `node`.
fn constant_f32(nodes: &[Node], node: &Node, input: usize) -> Option<Tensor> {
    let v = node.inputs.get(input)?;
    nodes[v.node]
        .op
        .constant()
        .filter(|t| t.element_type() == ElementType::F32)
        .cloned()
}

/// `t` with a leading unit axis (one direction).
fn one_direction(t: Tensor) -> Option<Tensor> {
    let mut shape = vec![1];
    shape.extend(t.shape());
    t.reshaped(&shape).ok()
}

impl SequenceCell {
    /// Recognizes `nodes[cell]` as a cell oneDNN runs, with constant f32 W, R, B; `None`
    /// otherwise.
    pub fn recognize(nodes: &[Node], cell: usize) -> Option<Self> {
        let node = &nodes[cell];
        let (kind, attrs) = cell_kind(node)?;
        let weight = |i: usize| one_direction(constant_f32(nodes, node, kind.states + 1 + i)?);
        Some(Self {
            kind,
            hidden: attrs.hidden_size,
            directions: 1,
            w: weight(0)?,
            r: weight(1)?,
            b: weight(2)?,
        })
    }

    /// Recognizes `nodes[node]`, an LSTM / GRU / RNN sequence op, as one oneDNN runs, with
    /// constant f32 W, R, B; `None` otherwise.
    pub fn recognize_sequence(nodes: &[Node], node: usize) -> Option<Self> {
        let node = &nodes[node];
        let op = node.op.as_any().downcast_ref::<RnnSequence>()?;
        let kind = sequence_kind(op)?;
        let l = op.lengths_input();
        if node.inputs.len() != l + 4 {
            return None; // LSTMSequence-1's peephole
        }
        Some(Self {
            kind,
            hidden: op.attrs.hidden_size,
            directions: op.direction.count(),
            w: constant_f32(nodes, node, l + 1)?,
            r: constant_f32(nodes, node, l + 2)?,
            b: constant_f32(nodes, node, l + 3)?,
        })
    }

    /// Gates per step (G of the weights).
    pub fn gates(&self) -> usize {
        self.kind.gate_order.len()
    }

    /// Bias gates (G, or 4 for LBR-GRU).
    pub fn bias_gates(&self) -> usize {
        self.kind.bias_order.len()
    }

    /// W `[D, G·H, K]` (or R with K = H) → ldigo `[1, D, K, G, H]` in oneDNN's gate order, as
    /// plain values in logical order.
    pub fn ldigo(&self, which: Weights, k: usize) -> Result<Vec<f32>> {
        let (t, what) = match which {
            Weights::Layer => (&self.w, "W"),
            Weights::Iter => (&self.r, "R"),
        };
        let (d, g, h) = (self.directions, self.gates(), self.hidden);
        let w = t.typed::<f32>(what)?;
        if w.shape() != [d, g * h, k] {
            return Err(Error::InvalidArguments(format!(
                "{}: {what} of shape {:?}, expected [{d}, {}, {k}]",
                self.kind.type_name,
                w.shape(),
                g * h
            )));
        }
        let mut out = Vec::with_capacity(d * k * g * h);
        for dir in 0..d {
            for i in 0..k {
                for &og in self.kind.gate_order {
                    out.extend((0..h).map(|j| w[[dir, og * h + j, i]]));
                }
            }
        }
        Ok(out)
    }

    /// B `[D, bias gates · H]` → ldgo `[1, D, bias gates, H]` in oneDNN's gate order.
    pub fn ldgo_bias(&self) -> Result<Vec<f32>> {
        let (d, h, bg) = (self.directions, self.hidden, self.bias_gates());
        let b = self.b.typed::<f32>("B")?;
        let b: Vec<f32> = b.iter().copied().collect();
        if b.len() != d * bg * h {
            return Err(Error::InvalidArguments(format!(
                "{}: B of {} values, expected {}",
                self.kind.type_name,
                b.len(),
                d * bg * h
            )));
        }
        Ok(b.chunks(bg * h)
            .flat_map(|b| {
                self.kind
                    .bias_order
                    .iter()
                    .flat_map(move |&og| b[og * h..(og + 1) * h].iter().copied())
            })
            .collect())
    }
}
