//! ScatterElementsUpdate-3 / -12: a copy of `data` where, for every position `p` of `indices`,
//! the element at `p` with its `axis` coordinate replaced by `indices[p]` (negative counts from
//! the end) becomes `updates[p]`. Inputs: data, indices (integer, data's rank), updates
//! (indices' shape, data's type), axis (integer scalar). Of -12's `reduction` only `none` (what
//! PyTorch's `scatter_` converts to) is supported; the others fail at load.

use std::any::Any;

use ndarray::{ArrayD, IxDyn};

use super::{check_arity, expect_inputs, invalid, opset_number, Op, OutputInfo, ValueInfo};
use crate::error::{Error, Result};
use crate::graph::ir::IrLayer;
use crate::graph::shape::normalize_axis;
use crate::graph::tensor::{Element, Tensor};

/// Element-wise scatter along one axis.
#[derive(Clone, Debug, Default)]
pub struct ScatterElementsUpdate;

impl ScatterElementsUpdate {
    /// Checks the input count and, for -12, that `reduction` is `none`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 4..=4)?;
        if opset_number(layer) >= 12 {
            let r = layer.attr("reduction").unwrap_or("none").trim();
            if !r.eq_ignore_ascii_case("none") {
                return Err(Error::Unimplemented(format!(
                    "IR: {layer}: reduction='{r}' (only none is supported)"
                )));
            }
        }
        Ok(Self)
    }
}

fn scatter<T: Element>(
    data: &Tensor,
    indices: &[i64],
    index_shape: &[usize],
    updates: &Tensor,
    axis: usize,
) -> Result<Tensor> {
    let mut out: ArrayD<T> = data.typed::<T>("data")?.clone();
    let updates = updates.typed::<T>("updates")?;
    let dim = out.shape()[axis] as i64;
    let mut at = vec![0usize; index_shape.len()];
    for (&i, &u) in indices.iter().zip(updates.iter()) {
        let j = if i < 0 { i + dim } else { i };
        if !(0..dim).contains(&j) {
            return Err(invalid(format!(
                "index {i} is out of range for axis {axis} of size {dim}"
            )));
        }
        let mut target = at.clone();
        target[axis] = j as usize;
        out[IxDyn(&target)] = u;
        // Next position of `indices`, row-major.
        for k in (0..at.len()).rev() {
            at[k] += 1;
            if at[k] < index_shape[k] {
                break;
            }
            at[k] = 0;
        }
    }
    Ok(T::wrap(out))
}

impl Op for ScatterElementsUpdate {
    fn type_name(&self) -> &'static str {
        "ScatterElementsUpdate"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (data, indices, updates) = (&inputs[0], &inputs[1], &inputs[2]);
        if !indices.element_type.is_integer() || !inputs[3].element_type.is_integer() {
            return Err(invalid("indices and axis must be integer"));
        }
        if updates.element_type != data.element_type {
            return Err(invalid(format!(
                "updates are {}, data {}",
                updates.element_type, data.element_type
            )));
        }
        let ranks = [&data.shape, &indices.shape, &updates.shape].map(|s| s.rank());
        if let [Some(a), Some(b), Some(c)] = ranks {
            if a != b || b != c {
                return Err(invalid(format!(
                    "data {}, indices {} and updates {} must have one rank",
                    data.shape, indices.shape, updates.shape
                )));
            }
        }
        if !indices.shape.compatible(&updates.shape) {
            return Err(invalid(format!(
                "indices {} and updates {} differ in shape",
                indices.shape, updates.shape
            )));
        }
        Ok(vec![OutputInfo::new(data.element_type, data.shape.clone())])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("ScatterElementsUpdate", inputs, 4..=4)?;
        let (data, indices, updates) = (inputs[0], inputs[1], inputs[2]);
        let rank = data.shape().len();
        let axis = match inputs[3].to_i64_vec("axis")?[..] {
            [a] => normalize_axis(a, rank, "axis")?,
            _ => return Err(invalid("axis must hold one value")),
        };
        let (is, us) = (indices.shape(), updates.shape());
        let fits = is.len() == rank
            && is == us
            && is
                .iter()
                .enumerate()
                .all(|(k, &d)| k == axis || d <= data.shape()[k]);
        if !fits || updates.element_type() != data.element_type() {
            return Err(invalid(format!(
                "data {:?}, indices {is:?} and updates {us:?} do not fit along axis {axis}",
                data.shape()
            )));
        }
        let idx = indices.to_i64_vec("indices")?;
        let out = crate::dispatch_type!(data.element_type(), T => scatter::<T>(data, &idx, is, updates, axis))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
