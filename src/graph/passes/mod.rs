//! Graph passes: rewrites of a loaded [`Model`] before it runs. [`Model::from_ir`] and
//! [`Model::load`] apply them all ([`apply`]); [`Model::from_ir_unfused`] skips them.
//!
//! - [`fuse_rnn_ti`]: a TensorIterator over one LSTMCell runs as one LSTM primitive.
//!
//! A pass finds a node, downcasts its op (`node.op.as_any().downcast_ref::<TensorIterator>()`),
//! inspects it and swaps the op with [`Model::replace_op`].

pub mod fuse_rnn_ti;

use super::model::Model;
use crate::error::Result;

/// Runs every pass on `model`; returns the number of nodes rewritten.
pub fn apply(model: &mut Model) -> Result<usize> {
    fuse_rnn_ti::run(model)
}
