//! Graph passes: rewrites of a loaded [`Model`] before it runs. [`Model::from_ir`] and
//! [`Model::load`] apply them all ([`apply`]); [`Model::from_ir_unfused`] skips them.
//!
//! - [`fuse_rnn_ti`]: a TensorIterator over one LSTMCell, GRUCell or RNNCell runs as one RNN
//!   primitive ([`rnn_sequence`]; the per-cell conversions are in [`sequence_cell`]), at any
//!   depth of nested bodies.
//! - [`fuse_rnn_seq`]: an LSTMSequence, GRUSequence or RNNSequence runs as one RNN primitive
//!   ([`primitive_sequence`]). Both fused ops run [`rnn_primitive`].
//! - [`pack_matmul`]: a MatMul by a constant f32 matrix packs it once ([`packed_matmul`]).
//!
//! A pass finds a node, downcasts its op (`node.op.as_any().downcast_ref::<TensorIterator>()`),
//! inspects it and swaps the op with [`Model::replace_op`]; it reaches bodies through
//! `Op::bodies_mut`.

pub mod fuse_rnn_seq;
pub mod fuse_rnn_ti;
pub mod pack_matmul;
pub mod packed_matmul;
pub mod primitive_sequence;
pub mod rnn_primitive;
pub mod rnn_sequence;
pub mod sequence_cell;

use super::model::Model;
use super::ops::Op;
use crate::error::Result;

/// Runs every pass on `model`; returns the number of nodes rewritten.
pub fn apply(model: &mut Model) -> Result<usize> {
    Ok(fuse_rnn_ti::run(model)? + fuse_rnn_seq::run(model)? + pack_matmul::run(model)?)
}

/// What a fused op runs (`vanilla_lstm unidirectional_left2right K=… H=… (impl)`); `None` for
/// an op no pass made.
pub fn fused_primitive(op: &dyn Op) -> Option<String> {
    let any = op.as_any();
    if let Some(f) = any.downcast_ref::<rnn_sequence::FusedRnnSequence>() {
        return Some(f.describe());
    }
    any.downcast_ref::<primitive_sequence::PrimitiveSequence>()
        .map(|p| p.describe())
}

/// How an RNN node runs, for `oxidnn-run --verbose`: `TensorIterator over one LSTMCell → one
/// RNN primitive: …` / `LSTMSequence → one RNN primitive: …` for fused ops, `LSTMSequence →
/// step by step (…)` for a sequence op left unfused; `None` for other ops.
pub fn rnn_summary(op: &dyn Op) -> Option<String> {
    let any = op.as_any();
    let what = if any.is::<rnn_sequence::FusedRnnSequence>() {
        format!(
            "TensorIterator over one {}",
            op.type_name().replace("Sequence", "Cell")
        )
    } else {
        op.type_name().to_string()
    };
    if let Some(p) = fused_primitive(op) {
        return Some(format!("{what} → one RNN primitive: {p}"));
    }
    let s = any.downcast_ref::<crate::graph::ops::rnn_sequence::RnnSequence>()?;
    let why = if s.attrs.clip != 0.0 {
        format!("clip={}, which oneDNN's RNN lacks", s.attrs.clip)
    } else if s.input_forget {
        "input_forget, which oneDNN's LSTM lacks".to_string()
    } else if sequence_cell::sequence_kind(s).is_none() {
        format!(
            "activations {:?}, which oneDNN's cell lacks",
            s.attrs.activations
        )
    } else {
        "W, R, B not constant f32, or a peephole input".to_string()
    };
    Some(format!("{what} → step by step ({why})"))
}
