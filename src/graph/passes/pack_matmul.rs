//! Replaces every MatMul whose B is a constant f32 matrix by a [`PackedMatMul`] (B packed
//! once, at load), in the model and in its bodies at any depth.

use super::packed_matmul::PackedMatMul;
use crate::error::Result;
use crate::graph::model::Model;
use crate::graph::ops::matmul::MatMul;
use crate::graph::ElementType;

/// Packs the constant B of every MatMul it can; returns how many.
pub fn run(model: &mut Model) -> Result<usize> {
    let mut packed = 0;
    for i in 0..model.nodes.len() {
        for body in model.nodes[i].op.bodies_mut() {
            packed += run(body)?;
        }
        let node = &model.nodes[i];
        let Some(op) = node.op.as_any().downcast_ref::<MatMul>() else {
            continue;
        };
        let (Some(a), Some(b)) = (node.inputs.first(), node.inputs.get(1)) else {
            continue;
        };
        let a_is_f32 = model.nodes[a.node].outputs[a.port].element_type == ElementType::F32;
        let Some(b) = model.nodes[b.node].op.constant().filter(|_| a_is_f32) else {
            continue;
        };
        if let Some(p) = PackedMatMul::new(op, b) {
            model.replace_op(i, Box::new(p))?;
            packed += 1;
        }
    }
    Ok(packed)
}
