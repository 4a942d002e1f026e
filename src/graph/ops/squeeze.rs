//! Squeeze-1: removes the size-1 dims listed in `axes` (all size-1 dims without `axes`).

use std::any::Any;

use super::{check_arity, const_i64s, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{normalize_axis, Dim, PartialShape};
use crate::graph::tensor::Tensor;

/// Removes size-1 dims.
#[derive(Clone, Debug, Default)]
pub struct Squeeze;

impl Squeeze {
    /// Checks the input count (data, optional axes).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=2)?;
        Ok(Self)
    }

    /// The output dims; `axes == None` squeezes every dim known to be 1.
    pub fn output_dims(input: &[Dim], axes: Option<&[i64]>) -> Result<Vec<Dim>> {
        let Some(axes) = axes else {
            return Ok(input.iter().copied().filter(|d| *d != Some(1)).collect());
        };
        let mut drop = vec![false; input.len()];
        for &a in axes {
            let a = normalize_axis(a, input.len(), "squeeze axis")?;
            match input[a] {
                Some(1) | None => drop[a] = true,
                Some(d) => {
                    return Err(invalid(format!(
                        "cannot squeeze axis {a} of shape {}: its dim is {d}, not 1",
                        PartialShape::new(input.to_vec())
                    )))
                }
            }
        }
        Ok(input
            .iter()
            .zip(drop)
            .filter(|(_, dr)| !dr)
            .map(|(d, _)| *d)
            .collect())
    }
}

impl Squeeze {
    /// The output shape for these inputs.
    fn target(inputs: &[&Tensor]) -> Result<Vec<usize>> {
        check_arity("Squeeze", inputs, 1..=2)?;
        let axes = inputs.get(1).map(|a| a.to_i64_vec("axes")).transpose()?;
        let dims: Vec<Dim> = inputs[0].shape().iter().map(|&d| Some(d)).collect();
        Ok(Self::output_dims(&dims, axes.as_deref())?
            .into_iter()
            .map(|d| d.unwrap_or(1))
            .collect())
    }
}

impl Op for Squeeze {
    fn type_name(&self) -> &'static str {
        "Squeeze"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        let axes = match inputs.get(1) {
            Some(a) => match const_i64s(a, "axes")? {
                Some(v) => Some(v),
                None => return Ok(vec![OutputInfo::new(et, PartialShape::dynamic())]),
            },
            None => None,
        };
        let shape = match inputs[0].shape.dims() {
            Some(d) if axes.is_some() || d.iter().all(Option::is_some) => {
                PartialShape::new(Self::output_dims(d, axes.as_deref())?)
            }
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
