//! Unsqueeze-1: inserts size-1 dims at `axes` (normalized against the output rank).

use std::any::Any;

use super::{check_arity, const_i64s, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{normalize_axis, Dim, PartialShape};
use crate::graph::tensor::Tensor;

/// Inserts size-1 dims.
#[derive(Clone, Debug, Default)]
pub struct Unsqueeze;

impl Unsqueeze {
    /// Checks the input count (data, axes).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        Ok(Self)
    }

    /// The output dims.
    pub fn output_dims(input: &[Dim], axes: &[i64]) -> Result<Vec<Dim>> {
        let rank = input.len() + axes.len();
        let mut is_new = vec![false; rank];
        for &a in axes {
            let a = normalize_axis(a, rank, "unsqueeze axis")?;
            if std::mem::replace(&mut is_new[a], true) {
                return Err(invalid(format!("unsqueeze axes {axes:?} repeat axis {a}")));
            }
        }
        let mut rest = input.iter();
        Ok(is_new
            .into_iter()
            .map(|n| {
                if n {
                    Some(1)
                } else {
                    *rest.next().unwrap_or(&None)
                }
            })
            .collect())
    }
}

impl Unsqueeze {
    /// The output shape for these inputs.
    fn target(inputs: &[&Tensor]) -> Result<Vec<usize>> {
        check_arity("Unsqueeze", inputs, 2..=2)?;
        let axes = inputs[1].to_i64_vec("axes")?;
        let dims: Vec<Dim> = inputs[0].shape().iter().map(|&d| Some(d)).collect();
        Ok(Self::output_dims(&dims, &axes)?
            .into_iter()
            .map(|d| d.unwrap_or(1))
            .collect())
    }
}

impl Op for Unsqueeze {
    fn type_name(&self) -> &'static str {
        "Unsqueeze"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        let shape = match (const_i64s(&inputs[1], "axes")?, inputs[0].shape.dims()) {
            (Some(axes), Some(d)) => PartialShape::new(Self::output_dims(d, &axes)?),
            _ => PartialShape::dynamic(),
        };
        Ok(vec![OutputInfo::new(et, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![inputs[0].reshaped(&Self::target(inputs)?)?])
    }
    fn reshape_target(&self, inputs: &[&Tensor]) -> Option<Result<Vec<usize>>> {
        Some(Self::target(inputs))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
