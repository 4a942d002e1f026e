//! Split-1 (`num_splits` equal parts) and VariadicSplit-1 (parts of `split_lengths`, one of which
//! may be -1: the rest of the dim): cut `data` along the scalar `axis` (negative from the end).

use std::any::Any;

use ndarray::{Axis, Slice};

use super::{check_arity, const_i64s, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{normalize_axis, Dim, PartialShape};
use crate::graph::tensor::Tensor;

/// Cuts along one axis.
#[derive(Clone, Debug)]
pub struct Split {
    /// `Some(n)` for Split (n equal parts), `None` for VariadicSplit.
    pub num_splits: Option<usize>,
    /// The number of outputs (VariadicSplit: the length of `split_lengths`).
    pub outputs: usize,
}

impl Split {
    /// Reads `<data num_splits/>` (Split) or counts the output ports (VariadicSplit).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        if layer.type_name == "Split" {
            expect_inputs(layer, 2..=2)?;
            let n = layer.attr_i64("num_splits")?;
            let n = usize::try_from(n)
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| layer.err(format!("num_splits {n} must be positive")))?;
            Ok(Self {
                num_splits: Some(n),
                outputs: n,
            })
        } else {
            expect_inputs(layer, 3..=3)?;
            Ok(Self {
                num_splits: None,
                outputs: layer.outputs.len(),
            })
        }
    }

    /// The part lengths for a dim of `dim` (unknown: `None`), given VariadicSplit's lengths.
    fn lengths(&self, dim: Dim, split_lengths: Option<&[i64]>) -> Result<Vec<Dim>> {
        let Some(lengths) = split_lengths else {
            return match (self.num_splits, dim) {
                (Some(n), Some(d)) if d % n != 0 => Err(invalid(format!(
                    "dim {d} does not split into {n} equal parts"
                ))),
                (Some(n), d) => Ok(vec![d.map(|d| d / n); n]),
                (None, _) => Ok(vec![None; self.outputs]),
            };
        };
        if lengths.len() != self.outputs {
            return Err(invalid(format!(
                "split_lengths {lengths:?} has {} entries for {} outputs",
                lengths.len(),
                self.outputs
            )));
        }
        let mut rest = None;
        let mut known = 0u64;
        for (i, &l) in lengths.iter().enumerate() {
            match l {
                -1 if rest.replace(i).is_none() => {}
                l if l >= 0 => known = known.saturating_add(l as u64),
                _ => {
                    return Err(invalid(format!(
                    "split_lengths {lengths:?} may hold one -1 and otherwise non-negative lengths"
                )))
                }
            }
        }
        let mut out: Vec<Dim> = lengths.iter().map(|&l| usize::try_from(l).ok()).collect();
        match (dim, rest) {
            (Some(d), _) if known > d as u64 || (rest.is_none() && known != d as u64) => {
                Err(invalid(format!(
                    "split_lengths {lengths:?} do not add up to the dim {d}"
                )))
            }
            (Some(d), Some(r)) => {
                out[r] = Some(d - known as usize);
                Ok(out)
            }
            _ => Ok(out),
        }
    }
}

impl Op for Split {
    fn type_name(&self) -> &'static str {
        if self.num_splits.is_some() {
            "Split"
        } else {
            "VariadicSplit"
        }
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        for i in &inputs[1..] {
            if !i.element_type.is_integer() {
                return Err(invalid(format!(
                    "axis and split_lengths must be integer, got {}",
                    i.element_type
                )));
            }
        }
        let lengths = match inputs.get(2) {
            Some(l) => const_i64s(l, "split_lengths")?,
            None => None,
        };
        let (Some(dims), Some(axis)) = (inputs[0].shape.dims(), const_i64s(&inputs[1], "axis")?)
        else {
            return Ok(vec![
                OutputInfo::new(et, PartialShape::dynamic());
                self.outputs
            ]);
        };
        let [axis] = axis[..] else {
            return Err(invalid(format!("axis must hold one value, got {axis:?}")));
        };
        let axis = normalize_axis(axis, dims.len(), "axis")?;
        let parts = if self.num_splits.is_none() && lengths.is_none() {
            vec![None; self.outputs]
        } else {
            self.lengths(dims[axis], lengths.as_deref())?
        };
        Ok(parts
            .into_iter()
            .map(|p| {
                let mut d = dims.to_vec();
                d[axis] = p;
                OutputInfo::new(et, PartialShape::new(d))
            })
            .collect())
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity(self.type_name(), inputs, 2..=3)?;
        let data = inputs[0];
        let axis = inputs[1].to_i64_vec("axis")?;
        let [axis] = axis[..] else {
            return Err(invalid(format!("axis must hold one value, got {axis:?}")));
        };
        let axis = normalize_axis(axis, data.shape().len(), "axis")?;
        let lengths = inputs
            .get(2)
            .map(|l| l.to_i64_vec("split_lengths"))
            .transpose()?;
        let parts = self.lengths(Some(data.shape()[axis]), lengths.as_deref())?;
        let mut start = 0usize;
        parts
            .into_iter()
            .map(|p| {
                let len = p.unwrap_or(0);
                let range = Slice::from(start..start + len);
                start += len;
                Ok(crate::map_tensor!(data, a => a
                    .slice_axis(Axis(axis), range)
                    .as_standard_layout()
                    .into_owned()))
            })
            .collect()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
