//! StridedSlice-1: `data[begin:end:stride]` per entry of `begin`, with masks (an entry's bit at
//! 1): `begin_mask` / `end_mask` ignore the bound (the axis's start / end in the stride's
//! direction), `new_axis_mask` inserts a dim of 1, `shrink_axis_mask` takes the element at
//! `begin` and drops the axis, `ellipsis_mask` (one entry) stands for every axis the other
//! entries leave out. Axes after the last entry are kept whole.

use std::any::Any;

use super::slice::{strided, AxisRange};
use super::{
    attr_i64_list, check_arity, const_i64s, expect_inputs, invalid, require_integer, Op,
    OutputInfo, ValueInfo,
};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{Dim, PartialShape};
use crate::graph::tensor::Tensor;

/// Strided slicing with masks.
#[derive(Clone, Debug)]
pub struct StridedSlice {
    /// Per entry: ignore `begin`.
    pub begin_mask: Vec<bool>,
    /// Per entry: ignore `end`.
    pub end_mask: Vec<bool>,
    /// Per entry: insert a dim of 1.
    pub new_axis_mask: Vec<bool>,
    /// Per entry: index at `begin` and drop the axis.
    pub shrink_axis_mask: Vec<bool>,
    /// Per entry: the ellipsis.
    pub ellipsis_mask: Vec<bool>,
}

/// What the slice does: a range per input axis and the output dims.
struct Plan {
    ranges: Vec<Option<AxisRange>>,
    out: Vec<Dim>,
}

impl StridedSlice {
    /// Reads the five masks (comma-separated 0/1 lists; `begin_mask` and `end_mask` required).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 3..=4)?;
        layer.attr_str("begin_mask")?;
        layer.attr_str("end_mask")?;
        let mask = |name: &str| -> Result<Vec<bool>> {
            Ok(attr_i64_list(layer, name)?
                .iter()
                .map(|&v| v != 0)
                .collect())
        };
        let s = Self {
            begin_mask: mask("begin_mask")?,
            end_mask: mask("end_mask")?,
            new_axis_mask: mask("new_axis_mask")?,
            shrink_axis_mask: mask("shrink_axis_mask")?,
            ellipsis_mask: mask("ellipsis_mask")?,
        };
        if s.ellipsis_mask.iter().filter(|&&b| b).count() > 1 {
            return Err(layer.err("ellipsis_mask has more than one bit set"));
        }
        Ok(s)
    }

    fn plan(
        &self,
        dims: &[Dim],
        begin: &[i64],
        end: &[i64],
        stride: Option<&[i64]>,
    ) -> Result<Plan> {
        let n = begin.len();
        if end.len() != n || stride.is_some_and(|s| s.len() != n) {
            return Err(invalid(format!(
                "begin {begin:?}, end {end:?} and stride {stride:?} must have one length"
            )));
        }
        let bit = |m: &[bool], i: usize| m.get(i).copied().unwrap_or(false);
        let is_new = |i| bit(&self.new_axis_mask, i);
        let ellipsis = (0..n).find(|&i| bit(&self.ellipsis_mask, i) && !is_new(i));
        let consumed = (0..n)
            .filter(|&i| !is_new(i) && Some(i) != ellipsis)
            .count();
        let rank = dims.len();
        let too_many = || {
            invalid(format!(
                "{n} slice entries (masks included) address more than the {rank} axes"
            ))
        };
        let mut ranges: Vec<Option<AxisRange>> =
            dims.iter().map(|d| d.map(AxisRange::full)).collect();
        let mut out = Vec::with_capacity(rank + n);
        let mut axis = 0usize;
        for i in 0..n {
            if Some(i) == ellipsis {
                let k = rank.checked_sub(consumed).ok_or_else(too_many)?;
                out.extend_from_slice(&dims[axis..axis + k]);
                axis += k;
                continue;
            }
            if is_new(i) {
                out.push(Some(1));
                continue;
            }
            let dim = *dims.get(axis).ok_or_else(too_many)?;
            if bit(&self.shrink_axis_mask, i) {
                ranges[axis] = match dim {
                    Some(d) => {
                        let idx = if begin[i] < 0 {
                            begin[i].saturating_add(d as i64)
                        } else {
                            begin[i]
                        };
                        if idx < 0 || idx >= d as i64 {
                            return Err(invalid(format!(
                                "begin {} of a shrunk axis is out of range for its dim {d}",
                                begin[i]
                            )));
                        }
                        Some(AxisRange {
                            start: idx as usize,
                            step: 1,
                            count: 1,
                        })
                    }
                    None => None,
                };
            } else {
                let step = stride.map_or(1, |s| s[i]);
                if step == 0 {
                    return Err(invalid(format!("stride {stride:?} has a 0")));
                }
                let (lo, hi) = if step > 0 {
                    (i64::MIN, i64::MAX)
                } else {
                    (i64::MAX, i64::MIN)
                };
                let b = if bit(&self.begin_mask, i) {
                    lo
                } else {
                    begin[i]
                };
                let e = if bit(&self.end_mask, i) { hi } else { end[i] };
                ranges[axis] = dim.map(|d| AxisRange::new(b, e, step, d)).transpose()?;
                out.push(ranges[axis].map(|r| r.count));
            }
            axis += 1;
        }
        out.extend_from_slice(&dims[axis..]);
        Ok(Plan { ranges, out })
    }
}

impl Op for StridedSlice {
    fn type_name(&self) -> &'static str {
        "StridedSlice"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        let names = ["begin", "end", "stride"];
        let mut values = Vec::with_capacity(3);
        for (i, what) in inputs[1..].iter().zip(names) {
            require_integer(what, i)?;
            values.push(const_i64s(i, what)?);
        }
        let shape = match (
            inputs[0].shape.dims(),
            values.into_iter().collect::<Option<Vec<_>>>(),
        ) {
            (Some(dims), Some(v)) => PartialShape::new(
                self.plan(dims, &v[0], &v[1], v.get(2).map(Vec::as_slice))?
                    .out,
            ),
            _ => PartialShape::dynamic(),
        };
        Ok(vec![OutputInfo::new(et, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("StridedSlice", inputs, 3..=4)?;
        let names = ["begin", "end", "stride"];
        let v: Vec<Vec<i64>> = inputs[1..]
            .iter()
            .zip(names)
            .map(|(t, what)| t.to_i64_vec(what))
            .collect::<Result<_>>()?;
        let data = inputs[0];
        let dims: Vec<Dim> = data.shape().iter().map(|&d| Some(d)).collect();
        let plan = self.plan(&dims, &v[0], &v[1], v.get(2).map(Vec::as_slice))?;
        let ranges: Vec<AxisRange> = plan.ranges.into_iter().flatten().collect();
        let out: Vec<usize> = plan.out.into_iter().flatten().collect();
        let sliced = crate::map_tensor!(data, a => strided(a, &ranges));
        Ok(vec![sliced.reshaped(&out)?])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
