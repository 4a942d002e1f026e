//! Slice-8: `data[start:stop:step]` along `axes` (default `0..len(start)`) with Python's rules
//! (negative bounds count from the end, bounds clamp to the dim, a negative step walks
//! backwards); also the strided copy StridedSlice-1 shares.

use std::any::Any;

use ndarray::{ArrayD, Slice as NdSlice};

use super::{
    check_arity, const_i64s, expect_inputs, invalid, require_integer, Op, OutputInfo, ValueInfo,
};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{normalize_axis, Dim, PartialShape};
use crate::graph::tensor::Tensor;

/// The elements an axis keeps: `count` of them from `start`, `step` apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisRange {
    /// The first index.
    pub start: usize,
    /// The distance between kept indices (negative: backwards).
    pub step: i64,
    /// How many are kept.
    pub count: usize,
}

impl AxisRange {
    /// The whole axis of length `dim`.
    pub fn full(dim: usize) -> Self {
        Self {
            start: 0,
            step: 1,
            count: dim,
        }
    }

    /// `[start:stop:step]` over a dim of `dim`, with Python's rules.
    pub fn new(start: i64, stop: i64, step: i64, dim: usize) -> Result<Self> {
        if step == 0 {
            return Err(invalid("a slice step is 0"));
        }
        let d = dim as i64;
        let norm =
            |x: i64, lo: i64, hi: i64| (if x < 0 { x.saturating_add(d) } else { x }).clamp(lo, hi);
        let (s, count) = if step > 0 {
            let (s, e) = (norm(start, 0, d), norm(stop, 0, d));
            (
                s,
                if e > s {
                    (e - s - 1) as u64 / step as u64 + 1
                } else {
                    0
                },
            )
        } else {
            let (s, e) = (norm(start, -1, d - 1), norm(stop, -1, d - 1));
            (
                s,
                if s > e {
                    (s - e - 1) as u64 / step.unsigned_abs() + 1
                } else {
                    0
                },
            )
        };
        Ok(Self {
            start: s.max(0) as usize,
            step,
            count: count as usize,
        })
    }

    /// The ndarray slice selecting the same elements.
    fn to_nd(self) -> NdSlice {
        if self.count == 0 {
            return NdSlice::new(0, Some(0), 1);
        }
        let s = self.start as isize;
        let last = s + (self.count as isize - 1) * self.step as isize;
        if self.step > 0 {
            NdSlice::new(s, Some(last + 1), self.step as isize)
        } else {
            // ndarray walks a negative step from the end of [last, start].
            NdSlice::new(last, Some(s + 1), self.step as isize)
        }
    }
}

/// A copy of the elements of `a` kept by one range per axis.
pub fn strided<T: Clone>(a: &ArrayD<T>, ranges: &[AxisRange]) -> ArrayD<T> {
    a.slice_each_axis(|ax| ranges[ax.axis.index()].to_nd())
        .as_standard_layout()
        .into_owned()
}

/// Slice with runtime bounds.
#[derive(Clone, Debug, Default)]
pub struct Slice;

impl Slice {
    /// Checks the input count (data, start, stop, step, optional axes).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 4..=5)?;
        Ok(Self)
    }

    /// One range per axis of `dims` (`None` where the dim is unknown) from the inputs' values.
    fn plan(dims: &[Dim], v: &[Vec<i64>]) -> Result<Vec<Option<AxisRange>>> {
        let (start, stop, step) = (&v[0], &v[1], &v[2]);
        let default_axes: Vec<i64> = (0..start.len() as i64).collect();
        let axes = v.get(3).unwrap_or(&default_axes);
        if [stop.len(), step.len(), axes.len()]
            .iter()
            .any(|&n| n != start.len())
        {
            return Err(invalid(format!(
                "start {start:?}, stop {stop:?}, step {step:?} and axes {axes:?} must have one length"
            )));
        }
        let mut ranges: Vec<Option<AxisRange>> =
            dims.iter().map(|d| d.map(AxisRange::full)).collect();
        let mut seen = vec![false; dims.len()];
        for (i, &a) in axes.iter().enumerate() {
            let a = normalize_axis(a, dims.len(), "axis")?;
            if std::mem::replace(&mut seen[a], true) {
                return Err(invalid(format!("axes {axes:?} repeat axis {a}")));
            }
            if step[i] == 0 {
                return Err(invalid(format!("step {step:?} has a 0")));
            }
            ranges[a] = dims[a]
                .map(|d| AxisRange::new(start[i], stop[i], step[i], d))
                .transpose()?;
        }
        Ok(ranges)
    }
}

impl Op for Slice {
    fn type_name(&self) -> &'static str {
        "Slice"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        let names = ["start", "stop", "step", "axes"];
        let mut values = Vec::with_capacity(4);
        for (i, what) in inputs[1..].iter().zip(names) {
            require_integer(what, i)?;
            values.push(const_i64s(i, what)?);
        }
        let Some(dims) = inputs[0].shape.dims() else {
            return Ok(vec![OutputInfo::new(et, PartialShape::dynamic())]);
        };
        let shape = match values.into_iter().collect::<Option<Vec<_>>>() {
            Some(v) => PartialShape::new(
                Self::plan(dims, &v)?
                    .iter()
                    .map(|r| r.map(|r| r.count))
                    .collect(),
            ),
            None => PartialShape::dynamic_of_rank(dims.len()),
        };
        Ok(vec![OutputInfo::new(et, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Slice", inputs, 4..=5)?;
        let names = ["start", "stop", "step", "axes"];
        let v: Vec<Vec<i64>> = inputs[1..]
            .iter()
            .zip(names)
            .map(|(t, what)| t.to_i64_vec(what))
            .collect::<Result<_>>()?;
        let data = inputs[0];
        let dims: Vec<Dim> = data.shape().iter().map(|&d| Some(d)).collect();
        let ranges: Vec<AxisRange> = Self::plan(&dims, &v)?.into_iter().flatten().collect();
        Ok(vec![crate::map_tensor!(data, a => strided(a, &ranges))])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_slicing() {
        let r = |s, e, st, d| AxisRange::new(s, e, st, d).unwrap();
        assert_eq!(
            r(1, 4, 2, 5),
            AxisRange {
                start: 1,
                step: 2,
                count: 2
            }
        );
        assert_eq!(
            r(-1, i64::MIN, -1, 5),
            AxisRange {
                start: 4,
                step: -1,
                count: 5
            }
        );
        assert_eq!(r(i64::MAX, -3, -2, 5).count, 1);
        assert_eq!(r(3, 1, 1, 5).count, 0);
        assert_eq!(r(0, i64::MAX, i64::MAX, 5).count, 1);
        assert_eq!(r(0, 10, 1, 0).count, 0);
        assert!(AxisRange::new(0, 1, 0, 3).is_err());
    }
}
