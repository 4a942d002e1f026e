//! Runs every LSTMSequence / GRUSequence / RNNSequence whose cell oneDNN has (see
//! [`super::sequence_cell`]: no `clip`, the default activations or RNN's tanh / relu / sigmoid,
//! constant f32 W, R, B) as one RNN primitive over the whole sequence
//! ([`super::primitive_sequence`]), in the model and in every body. The primitive made at load
//! is for X's static T and N, or T = N = 1 when they are dynamic.

use super::primitive_sequence::PrimitiveSequence;
use super::rnn_primitive::{RnnPrimitive, NTC};
use super::sequence_cell::SequenceCell;
use crate::error::Result;
use crate::graph::ir::with_context;
use crate::graph::model::Model;
use crate::graph::ops::rnn_sequence::{RnnSequence, SequenceDirection};
use crate::types::Direction;

/// Replaces every sequence op oneDNN runs, in `model` and (at any depth) in its bodies;
/// returns how many were replaced.
pub fn run(model: &mut Model) -> Result<usize> {
    let mut fused = 0;
    for i in 0..model.nodes.len() {
        for body in model.nodes[i].op.bodies_mut() {
            fused += run(body)?;
        }
        let node = &model.nodes[i];
        let Some(op) = node.op.as_any().downcast_ref::<RnnSequence>() else {
            continue;
        };
        let Some(cell) = SequenceCell::recognize_sequence(&model.nodes, i) else {
            continue;
        };
        let direction = match op.direction {
            SequenceDirection::Forward => Direction::Left2Right,
            SequenceDirection::Reverse => Direction::Right2Left,
            SequenceDirection::Bidirectional => Direction::BidirectionalConcat,
        };
        let x = node.inputs[0];
        let dims = model.nodes[x.node].outputs[x.port].shape.dims();
        let dim = |a: usize| {
            dims.and_then(|d| d.get(a).copied().flatten())
                .filter(|&v| v > 0)
        };
        let w = node.inputs[op.lengths_input() + 1];
        let Some(&k) = model.nodes[w.node].outputs[w.port]
            .shape
            .to_static()
            .as_ref()
            .and_then(|s| s.get(2))
        else {
            continue;
        };
        let first = (dim(1).unwrap_or(1), dim(0).unwrap_or(1));
        let primitive = RnnPrimitive::new(&cell, direction, NTC, k, first)
            .map_err(|e| with_context(e, &node.label()))?;
        let op = PrimitiveSequence::new(op.clone(), primitive);
        model.replace_op(i, Box::new(op))?;
        fused += 1;
    }
    Ok(fused)
}
