//! Concat-1: joins inputs along `axis` (negative counts from the end).

use std::any::Any;

use ndarray::{ArrayD, ArrayViewD, Axis};

use super::{expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{normalize_axis, PartialShape};
use crate::graph::tensor::{Element, Tensor};

/// Concatenation along one axis.
#[derive(Clone, Debug)]
pub struct Concat {
    /// The axis (may be negative).
    pub axis: i64,
}

impl Concat {
    /// Reads `<data axis/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=usize::MAX)?;
        Ok(Self {
            axis: layer.attr_i64("axis")?,
        })
    }
}

/// Concatenates same-typed tensors along a normalized `axis` (shapes equal elsewhere).
pub fn concat_tensors(tensors: &[&Tensor], axis: usize) -> Result<Tensor> {
    fn cat<T: Element>(ts: &[&Tensor], axis: usize) -> Result<Tensor> {
        let views: Vec<ArrayViewD<T>> = ts
            .iter()
            .map(|t| t.typed::<T>("every Concat input").map(|a| a.view()))
            .collect::<Result<_>>()?;
        let out: ArrayD<T> = ndarray::concatenate(Axis(axis), &views).map_err(|_| {
            invalid(format!(
                "cannot concatenate shapes {:?} along axis {axis}",
                ts.iter().map(|t| t.shape().to_vec()).collect::<Vec<_>>()
            ))
        })?;
        Ok(T::wrap(out))
    }
    let first = tensors
        .first()
        .ok_or_else(|| invalid("Concat of no tensors"))?;
    if axis >= first.shape().len() {
        return Err(invalid(format!(
            "axis {axis} is out of range for shape {:?}",
            first.shape()
        )));
    }
    crate::dispatch_type!(first.element_type(), T => cat::<T>(tensors, axis))
}

impl Op for Concat {
    fn type_name(&self) -> &'static str {
        "Concat"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        if let Some(bad) = inputs.iter().find(|i| i.element_type != et) {
            return Err(invalid(format!(
                "inputs have different element types ({et} and {})",
                bad.element_type
            )));
        }
        let Some(rank) = inputs.iter().find_map(|i| i.shape.rank()) else {
            return Ok(vec![OutputInfo::new(et, PartialShape::dynamic())]);
        };
        let axis = normalize_axis(self.axis, rank, "axis")?;
        let mut out: Vec<Option<usize>> = vec![None; rank];
        let mut total = Some(0usize);
        for (k, i) in inputs.iter().enumerate() {
            let Some(d) = i.shape.dims() else {
                total = None;
                continue;
            };
            if d.len() != rank {
                return Err(invalid(format!(
                    "input {k} has rank {}, expected {rank}",
                    d.len()
                )));
            }
            for (j, &x) in d.iter().enumerate() {
                if j == axis {
                    total = total.zip(x).map(|(t, x)| t + x);
                } else if let Some(x) = x {
                    if out[j].is_some_and(|o| o != x) {
                        return Err(invalid(format!(
                            "input {k} has dim {x} at axis {j}, other inputs have {}",
                            out[j].unwrap_or(0)
                        )));
                    }
                    out[j] = Some(x);
                }
            }
        }
        out[axis] = total;
        Ok(vec![OutputInfo::new(et, PartialShape::new(out))])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let first = inputs
            .first()
            .ok_or_else(|| invalid("Concat needs at least one input"))?;
        let axis = normalize_axis(self.axis, first.shape().len(), "axis")?;
        Ok(vec![concat_tensors(inputs, axis)?])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
