//! ScatterUpdate-3: a copy of `data` whose slices along the scalar `axis` at `indices` are
//! replaced by `updates` (`data[:axis] + indices.shape + data[axis+1:]`); with repeated indices
//! the last update wins. Negative or out-of-range indices are errors.

use std::any::Any;

use super::{check_arity, expect_inputs, invalid, scatter_common, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::normalize_axis;
use crate::graph::tensor::{Element, Tensor};

/// Slice-wise scatter along one axis.
#[derive(Clone, Debug, Default)]
pub struct ScatterUpdate;

impl ScatterUpdate {
    /// Checks the input count (data, indices, updates, axis).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 4..=4)?;
        Ok(Self)
    }
}

fn scatter<T: Element>(
    data: &Tensor,
    idx: &[i64],
    updates: &Tensor,
    axis: usize,
) -> Result<Tensor> {
    let shape = data.shape();
    let mut out: Vec<T> = data.typed::<T>("data")?.iter().copied().collect();
    let upd: Vec<T> = updates.typed::<T>("updates")?.iter().copied().collect();
    let outer: usize = shape[..axis].iter().product();
    let (n, inner) = (shape[axis], shape[axis + 1..].iter().product::<usize>());
    for o in 0..outer {
        for (p, &k) in idx.iter().enumerate() {
            let k = usize::try_from(k)
                .ok()
                .filter(|&k| k < n)
                .ok_or_else(|| invalid(format!("index {k} is out of range for a dim of {n}")))?;
            let src = (o * idx.len() + p) * inner;
            let dst = (o * n + k) * inner;
            out[dst..dst + inner].copy_from_slice(&upd[src..src + inner]);
        }
    }
    Tensor::from_vec(shape, out)
}

impl Op for ScatterUpdate {
    fn type_name(&self) -> &'static str {
        "ScatterUpdate"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        scatter_common::infer(&inputs[0], &inputs[1], &inputs[2], Some(&inputs[3]))
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("ScatterUpdate", inputs, 4..=4)?;
        let (data, indices, updates) = (inputs[0], inputs[1], inputs[2]);
        let axis = match inputs[3].to_i64_vec("axis")?[..] {
            [a] => normalize_axis(a, data.shape().len(), "axis")?,
            ref v => return Err(invalid(format!("axis must hold one value, got {v:?}"))),
        };
        let shape = data.shape();
        let want: Vec<usize> = shape[..axis]
            .iter()
            .chain(indices.shape())
            .chain(&shape[axis + 1..])
            .copied()
            .collect();
        if updates.shape() != want.as_slice() {
            return Err(invalid(format!(
                "updates have shape {:?}, expected {want:?}",
                updates.shape()
            )));
        }
        let idx = indices.to_i64_vec("indices")?;
        let out = crate::dispatch_type!(data.element_type(), T => scatter::<T>(data, &idx, updates, axis))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
