//! Graph passes: rewrites of a loaded [`Model`] before it runs. [`Model::from_ir`] and
//! [`Model::load`] apply them all ([`apply`]); [`Model::from_ir_unfused`] skips them.
//!
//! - [`fuse_rnn_ti`]: a TensorIterator over one LSTMCell, GRUCell or RNNCell runs as one RNN
//!   primitive ([`rnn_sequence`]; the per-cell conversions are in [`sequence_cell`]), at any
//!   depth of nested bodies.
//!
//! A pass finds a node, downcasts its op (`node.op.as_any().downcast_ref::<TensorIterator>()`),
//! inspects it and swaps the op with [`Model::replace_op`]; it reaches bodies through
//! `Op::bodies_mut`.

pub mod fuse_rnn_ti;
pub mod rnn_sequence;
pub mod sequence_cell;

pub use sequence_cell::FUSED_TYPES;

use super::model::Model;
use crate::error::Result;

/// Runs every pass on `model`; returns the number of nodes rewritten.
pub fn apply(model: &mut Model) -> Result<usize> {
    fuse_rnn_ti::run(model)
}
