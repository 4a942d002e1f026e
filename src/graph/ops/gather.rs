//! Gather-1 / Gather-7 / Gather-8: takes slices of `data` along `axis` at `indices`, with
//! `batch_dims` leading dims shared by data and indices.
//!
//! `out[p_0..p_{axis-1}, i_b..i_{M-1}, p_{axis+1}..] = data[p_0..p_{axis-1}, indices[p_0..p_{b-1},
//! i_b..i_{M-1}], p_{axis+1}..]`; output shape `data[:axis] + indices[b:] + data[axis+1:]`.
//! Negative indices count from the end; indices outside `[-dim, dim-1]` give zeros (Gather-8;
//! the same rule is applied to the older versions, whose behaviour there is undefined).

use std::any::Any;

use super::{
    check_arity, const_i64s, expect_inputs, invalid, opset_number, require_integer, Op, OutputInfo,
    ValueInfo,
};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{normalize_axis, PartialShape};
use crate::graph::tensor::{Element, Tensor};

/// Gather with a batch_dims attribute (0 for Gather-1).
#[derive(Clone, Debug)]
pub struct Gather {
    /// Leading dims shared by data and indices (negative: `indices.rank + batch_dims`).
    pub batch_dims: i64,
}

impl Gather {
    /// Reads `<data batch_dims/>` (Gather-7/8; Gather-1 has none).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 3..=3)?;
        let batch_dims = if opset_number(layer) >= 7 {
            layer.attr_i64_or("batch_dims", 0)?
        } else {
            0
        };
        Ok(Self { batch_dims })
    }

    /// Normalized `(axis, batch_dims)` for the given ranks, validated against each other.
    fn normalize(
        &self,
        axis: &[i64],
        data_rank: usize,
        indices_rank: usize,
    ) -> Result<(usize, usize)> {
        let [axis] = axis else {
            return Err(invalid(format!("axis must hold one value, got {axis:?}")));
        };
        let axis = normalize_axis(*axis, data_rank, "axis")?;
        let b = if self.batch_dims < 0 {
            self.batch_dims + indices_rank as i64
        } else {
            self.batch_dims
        };
        let limit = data_rank.min(indices_rank) as i64;
        if b < 0 || b > limit {
            return Err(invalid(format!(
                "batch_dims {} is out of range for data rank {data_rank} and indices rank {indices_rank}",
                self.batch_dims
            )));
        }
        let b = b as usize;
        if b > axis {
            return Err(invalid(format!(
                "batch_dims {b} must not exceed axis {axis}"
            )));
        }
        Ok((axis, b))
    }
}

fn gather<T: Element>(
    data: &Tensor,
    shape: &[usize],
    indices: &[i64],
    idx_shape: &[usize],
    axis: usize,
    b: usize,
) -> Result<Tensor> {
    let values: Vec<T> = data.typed::<T>("data")?.iter().copied().collect();
    let batch: usize = shape[..b].iter().product();
    let outer: usize = shape[b..axis].iter().product();
    let axis_dim = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let per_batch: usize = idx_shape[b..].iter().product();
    let mut out = Vec::with_capacity(batch * outer * per_batch * inner);
    for bi in 0..batch {
        for oi in 0..outer {
            for &raw in &indices[bi * per_batch..(bi + 1) * per_batch] {
                let idx = if raw < 0 { raw + axis_dim as i64 } else { raw };
                if idx < 0 || idx >= axis_dim as i64 {
                    out.extend(std::iter::repeat_n(T::default(), inner));
                } else {
                    let start = ((bi * outer + oi) * axis_dim + idx as usize) * inner;
                    out.extend_from_slice(&values[start..start + inner]);
                }
            }
        }
    }
    let out_shape: Vec<usize> = shape[..axis]
        .iter()
        .chain(&idx_shape[b..])
        .chain(&shape[axis + 1..])
        .copied()
        .collect();
    Tensor::from_vec(&out_shape, out)
}

impl Op for Gather {
    fn type_name(&self) -> &'static str {
        "Gather"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        require_integer("indices", &inputs[1])?;
        require_integer("axis", &inputs[2])?;
        let (Some(d), Some(ix)) = (inputs[0].shape.dims(), inputs[1].shape.dims()) else {
            return Ok(vec![OutputInfo::new(et, PartialShape::dynamic())]);
        };
        let Some(axis) = const_i64s(&inputs[2], "axis")? else {
            let b = if self.batch_dims < 0 {
                self.batch_dims + ix.len() as i64
            } else {
                self.batch_dims
            };
            let rank = (d.len() + ix.len()).checked_sub(1 + b.max(0) as usize);
            return Ok(vec![OutputInfo::new(
                et,
                rank.map_or_else(PartialShape::dynamic, PartialShape::dynamic_of_rank),
            )]);
        };
        let (axis, b) = self.normalize(&axis, d.len(), ix.len())?;
        for k in 0..b {
            if let (Some(x), Some(y)) = (d[k], ix[k]) {
                if x != y {
                    return Err(invalid(format!(
                        "batch dim {k} differs: data has {x}, indices have {y}"
                    )));
                }
            }
        }
        let out = d[..axis]
            .iter()
            .chain(&ix[b..])
            .chain(&d[axis + 1..])
            .copied()
            .collect();
        Ok(vec![OutputInfo::new(et, PartialShape::new(out))])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Gather", inputs, 3..=3)?;
        let (data, indices) = (inputs[0], inputs[1]);
        let axis = inputs[2].to_i64_vec("axis")?;
        let (shape, idx_shape) = (data.shape(), indices.shape());
        let (axis, b) = self.normalize(&axis, shape.len(), idx_shape.len())?;
        if shape[..b] != idx_shape[..b] {
            return Err(invalid(format!(
                "the first {b} dims of data {shape:?} and indices {idx_shape:?} must be equal"
            )));
        }
        let idx = indices.to_i64_vec("indices")?;
        let out = crate::dispatch_type!(data.element_type(), T => gather::<T>(data, shape, &idx, idx_shape, axis, b))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
