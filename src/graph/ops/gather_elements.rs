//! GatherElements-6: `out[i…] = data[i… with indices[i…] at axis]`; `indices` has the rank of
//! `data` and its dims except along `axis`. Negative indices count from the end; out-of-range
//! ones are errors.

use std::any::Any;

use super::{check_arity, expect_inputs, invalid, require_integer, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{normalize_axis, PartialShape};
use crate::graph::tensor::{Element, Tensor};

/// Element-wise gather along one axis.
#[derive(Clone, Debug)]
pub struct GatherElements {
    /// The axis (negative counts from the end).
    pub axis: i64,
}

impl GatherElements {
    /// Reads `<data axis/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        Ok(Self {
            axis: layer.attr_i64("axis")?,
        })
    }
}

fn gather<T: Element>(data: &Tensor, idx: &[i64], ishape: &[usize], axis: usize) -> Result<Tensor> {
    let shape = data.shape();
    let src: Vec<T> = data.typed::<T>("data")?.iter().copied().collect();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let (m, outer) = (ishape[axis], ishape[..axis].iter().product::<usize>());
    let mut out = Vec::with_capacity(idx.len());
    for o in 0..outer {
        for k in 0..m {
            for i in 0..inner {
                let raw = idx[(o * m + k) * inner + i];
                let j = if raw < 0 { raw + n as i64 } else { raw };
                if !(0..n as i64).contains(&j) {
                    return Err(invalid(format!(
                        "index {raw} is out of range for a dim of {n}"
                    )));
                }
                out.push(src[(o * n + j as usize) * inner + i]);
            }
        }
    }
    Tensor::from_vec(ishape, out)
}

impl Op for GatherElements {
    fn type_name(&self) -> &'static str {
        "GatherElements"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (d, i) = (&inputs[0], &inputs[1]);
        require_integer("indices", i)?;
        if let Some(r) = d.shape.rank() {
            normalize_axis(self.axis, r, "axis")?;
        }
        let shape = match i.shape.rank() {
            Some(_) => i.shape.clone(),
            None => PartialShape::dynamic(),
        };
        Ok(vec![OutputInfo::new(d.element_type, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("GatherElements", inputs, 2..=2)?;
        let (data, indices) = (inputs[0], inputs[1]);
        let (shape, ishape) = (data.shape(), indices.shape());
        let axis = normalize_axis(self.axis, shape.len(), "axis")?;
        let same = ishape.len() == shape.len()
            && shape
                .iter()
                .zip(ishape)
                .enumerate()
                .all(|(d, (a, b))| d == axis || a == b);
        if !same {
            return Err(invalid(format!(
                "indices of shape {ishape:?} must match data {shape:?} except along axis {axis}"
            )));
        }
        let idx = indices.to_i64_vec("indices")?;
        let out =
            crate::dispatch_type!(data.element_type(), T => gather::<T>(data, &idx, ishape, axis))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
