//! Graph passes: rewrites of a loaded [`Model`] before it runs. [`Model::from_ir`] and
//! [`Model::load`] apply them all ([`apply`]); [`Model::from_ir_unfused`] skips them.
//!
//! - [`fuse_rnn_ti`]: a TensorIterator over one LSTMCell, GRUCell or RNNCell runs as one RNN
//!   primitive ([`rnn_sequence`]; the per-cell conversions are in [`sequence_cell`]), at any
//!   depth of nested bodies.
//! - [`fuse_rnn_seq`]: an LSTMSequence, GRUSequence or RNNSequence runs as one RNN primitive
//!   ([`primitive_sequence`]). Both fused ops run [`rnn_primitive`].
//!
//! A pass finds a node, downcasts its op (`node.op.as_any().downcast_ref::<TensorIterator>()`),
//! inspects it and swaps the op with [`Model::replace_op`]; it reaches bodies through
//! `Op::bodies_mut`.

pub mod fuse_rnn_seq;
pub mod fuse_rnn_ti;
pub mod primitive_sequence;
pub mod rnn_primitive;
pub mod rnn_sequence;
pub mod sequence_cell;

use super::model::Model;
use super::ops::Op;
use crate::error::Result;

/// Runs every pass on `model`; returns the number of nodes rewritten.
pub fn apply(model: &mut Model) -> Result<usize> {
    Ok(fuse_rnn_ti::run(model)? + fuse_rnn_seq::run(model)?)
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
