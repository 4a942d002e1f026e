//! Transpose-1: permutes the axes of `data` by `order` (output axis `i` is input axis
//! `order[i]`; an empty `order` reverses the axes).

use std::any::Any;

use super::{check_arity, const_i64s, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::PartialShape;
use crate::graph::tensor::Tensor;

/// Axis permutation.
#[derive(Clone, Debug, Default)]
pub struct Transpose;

impl Transpose {
    /// Checks the input count (data, order).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        Ok(Self)
    }

    /// The permutation for a rank-`rank` input, checked.
    pub fn permutation(order: &[i64], rank: usize) -> Result<Vec<usize>> {
        if order.is_empty() {
            return Ok((0..rank).rev().collect());
        }
        let mut seen = vec![false; rank];
        let ok = order.len() == rank
            && order.iter().all(|&o| {
                usize::try_from(o).is_ok_and(|o| o < rank && !std::mem::replace(&mut seen[o], true))
            });
        if !ok {
            return Err(invalid(format!(
                "order {order:?} is not a permutation of the {rank} axes"
            )));
        }
        Ok(order.iter().map(|&o| o as usize).collect())
    }
}

impl Op for Transpose {
    fn type_name(&self) -> &'static str {
        "Transpose"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        if !inputs[1].element_type.is_integer() {
            return Err(invalid(format!(
                "order must be integer, got {}",
                inputs[1].element_type
            )));
        }
        let shape = match (inputs[0].shape.dims(), const_i64s(&inputs[1], "order")?) {
            (Some(d), Some(order)) => {
                let p = Self::permutation(&order, d.len())?;
                PartialShape::new(p.iter().map(|&i| d[i]).collect())
            }
            (Some(d), None) => PartialShape::dynamic_of_rank(d.len()),
            (None, Some(order)) if !order.is_empty() => PartialShape::dynamic_of_rank(order.len()),
            _ => PartialShape::dynamic(),
        };
        Ok(vec![OutputInfo::new(et, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Transpose", inputs, 2..=2)?;
        let order = inputs[1].to_i64_vec("order")?;
        let p = Self::permutation(&order, inputs[0].shape().len())?;
        let out = crate::map_tensor!(inputs[0], a => a
            .view()
            .permuted_axes(p.as_slice())
            .as_standard_layout()
            .into_owned());
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
