//! ScatterNDUpdate-3: a copy of `data` where each `k`-tuple of the last axis of `indices`
//! addresses a slice `data[i_0, …, i_{k-1}]` that is replaced by the matching slice of `updates`
//! (`indices.shape[:-1] + data.shape[k:]`); negative indices count from the end, out-of-range
//! ones are errors; with repeated tuples the last update wins.

use std::any::Any;

use super::{check_arity, expect_inputs, invalid, scatter_common, Op, OutputInfo, ValueInfo};
use crate::error::{Error, Result};
use crate::graph::ir::IrLayer;
use crate::graph::tensor::{Element, Tensor};

/// N-dimensional slice scatter.
#[derive(Clone, Debug, Default)]
pub struct ScatterNdUpdate;

impl ScatterNdUpdate {
    /// Checks the input count (data, indices, updates) and ScatterNDUpdate-15's `reduction`
    /// (only `none`, the version 3 behaviour, is implemented).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 3..=3)?;
        match layer.attr("reduction").unwrap_or("none") {
            "none" => Ok(Self),
            r => Err(Error::Unimplemented(format!(
                "IR: {layer}: ScatterNDUpdate reduction=\"{r}\" is not implemented (only none)"
            ))),
        }
    }
}

/// Scatters `tuples` slices (index tuples of `k` in `idx`).
fn scatter<T: Element>(
    data: &Tensor,
    idx: &[i64],
    k: usize,
    tuples: usize,
    updates: &Tensor,
) -> Result<Tensor> {
    let shape = data.shape();
    let mut out: Vec<T> = data.typed::<T>("data")?.iter().copied().collect();
    let upd: Vec<T> = updates.typed::<T>("updates")?.iter().copied().collect();
    let slice: usize = shape[k..].iter().product();
    for p in 0..tuples {
        let mut offset = 0usize;
        for (d, &raw) in idx[p * k..(p + 1) * k].iter().enumerate() {
            let n = shape[d] as i64;
            let i = if raw < 0 { raw + n } else { raw };
            if !(0..n).contains(&i) {
                return Err(invalid(format!(
                    "index {raw} is out of range for dim {d} of {n}"
                )));
            }
            offset = offset * shape[d] + i as usize;
        }
        let dst = offset * slice;
        out[dst..dst + slice].copy_from_slice(&upd[p * slice..(p + 1) * slice]);
    }
    Tensor::from_vec(shape, out)
}

impl Op for ScatterNdUpdate {
    fn type_name(&self) -> &'static str {
        "ScatterNDUpdate"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        scatter_common::infer(&inputs[0], &inputs[1], &inputs[2], None)
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("ScatterNDUpdate", inputs, 3..=3)?;
        let (data, indices, updates) = (inputs[0], inputs[1], inputs[2]);
        let (shape, ishape) = (data.shape(), indices.shape());
        let Some((&k, lead)) = ishape.split_last() else {
            return Err(invalid("indices must have rank ≥ 1"));
        };
        if k > shape.len() {
            return Err(invalid(format!(
                "index tuples of {k} exceed the data rank {}",
                shape.len()
            )));
        }
        let want: Vec<usize> = lead.iter().chain(&shape[k..]).copied().collect();
        if updates.shape() != want.as_slice() {
            return Err(invalid(format!(
                "updates have shape {:?}, expected {want:?}",
                updates.shape()
            )));
        }
        let idx = indices.to_i64_vec("indices")?;
        let out = crate::dispatch_type!(data.element_type(), T => scatter::<T>(data, &idx, k, lead.iter().product(), updates))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
