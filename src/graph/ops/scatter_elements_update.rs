//! ScatterElementsUpdate-3 / -12: a copy of `data` where, for every position `p` of `indices`
//! (and of `updates`, of the same shape, at most `data`'s along each axis), the element at `p`
//! with its `axis` coordinate replaced by `indices[p]` becomes `updates[p]`; negative indices
//! count from the end, out-of-range ones are errors, the last of repeated targets wins. Of
//! version 12's `reduction`s only `none` (version 3's behaviour) is implemented.

use std::any::Any;

use super::{check_arity, expect_inputs, invalid, scatter_common, Op, OutputInfo, ValueInfo};
use crate::error::{Error, Result};
use crate::graph::ir::IrLayer;
use crate::graph::shape::normalize_axis;
use crate::graph::tensor::{Element, Tensor};

/// Element-wise scatter along one axis.
#[derive(Clone, Debug, Default)]
pub struct ScatterElementsUpdate;

impl ScatterElementsUpdate {
    /// Checks the inputs (data, indices, updates, axis) and `reduction`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 4..=4)?;
        match layer.attr("reduction").unwrap_or("none") {
            "none" => Ok(Self),
            r => Err(Error::Unimplemented(format!(
                "IR: {layer}: ScatterElementsUpdate reduction=\"{r}\" is not implemented (only none)"
            ))),
        }
    }
}

fn scatter<T: Element>(
    data: &Tensor,
    idx: &[i64],
    ishape: &[usize],
    updates: &Tensor,
    axis: usize,
) -> Result<Tensor> {
    let shape = data.shape();
    let mut out: Vec<T> = data.typed::<T>("data")?.iter().copied().collect();
    let upd: Vec<T> = updates.typed::<T>("updates")?.iter().copied().collect();
    let strides: Vec<usize> = (0..shape.len())
        .map(|d| shape[d + 1..].iter().product())
        .collect();
    let n = shape[axis] as i64;
    let mut pos = vec![0usize; ishape.len()];
    for (p, (&raw, &u)) in idx.iter().zip(&upd).enumerate() {
        let i = if raw < 0 { raw + n } else { raw };
        if !(0..n).contains(&i) {
            return Err(invalid(format!(
                "index {raw} is out of range for a dim of {n}"
            )));
        }
        let target: usize = pos
            .iter()
            .enumerate()
            .map(|(d, &c)| if d == axis { i as usize } else { c } * strides[d])
            .sum();
        out[target] = u;
        if p + 1 < idx.len() {
            for d in (0..ishape.len()).rev() {
                pos[d] += 1;
                if pos[d] < ishape[d] {
                    break;
                }
                pos[d] = 0;
            }
        }
    }
    Tensor::from_vec(shape, out)
}

impl Op for ScatterElementsUpdate {
    fn type_name(&self) -> &'static str {
        "ScatterElementsUpdate"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        scatter_common::infer(&inputs[0], &inputs[1], &inputs[2], Some(&inputs[3]))
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("ScatterElementsUpdate", inputs, 4..=4)?;
        let (data, indices, updates) = (inputs[0], inputs[1], inputs[2]);
        let (shape, ishape) = (data.shape(), indices.shape());
        let axis = match inputs[3].to_i64_vec("axis")?[..] {
            [a] => normalize_axis(a, shape.len(), "axis")?,
            ref v => return Err(invalid(format!("axis must hold one value, got {v:?}"))),
        };
        let fits = ishape.len() == shape.len() && ishape.iter().zip(shape).all(|(i, d)| i <= d);
        if !fits || updates.shape() != ishape {
            return Err(invalid(format!(
                "indices {ishape:?} and updates {:?} must have one shape, within data {shape:?}",
                updates.shape()
            )));
        }
        let idx = indices.to_i64_vec("indices")?;
        let out = crate::dispatch_type!(data.element_type(), T => scatter::<T>(data, &idx, ishape, updates, axis))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
