//! ReduceSum-1, ReduceMean-1, ReduceMax-1, ReduceMin-1, ReduceProd-1, ReduceL1-4, ReduceL2-4,
//! ReduceLogicalAnd-1, ReduceLogicalOr-1: reductions of `data` over the axes of input 1 (scalar
//! or 1-D, negative from the end; empty: nothing reduced), keeping them as 1s with `keep_dims`.
//!
//! Floats accumulate in `f64`, integers in `i64` (wrapping). Over an empty axis Sum, Mean, L1
//! and L2 give 0, Prod 1, Max and Min the type's lowest and highest finite values (as OpenVINO).

use std::any::Any;

use ndarray::ArrayD;

use super::numeric::Numeric;
use super::{
    check_arity, const_i64s, expect_inputs, invalid, require_integer, Op, OutputInfo, ValueInfo,
};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{normalize_axis, PartialShape};
use crate::graph::tensor::{checked_numel, ElementType, Tensor};

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    /// Σ x
    Sum,
    /// Σ x / n
    Mean,
    /// max x
    Max,
    /// min x
    Min,
    /// Π x
    Prod,
    /// Σ |x|
    L1,
    /// √Σ x²
    L2,
    /// ∧ x (boolean)
    LogicalAnd,
    /// ∨ x (boolean)
    LogicalOr,
}

/// IR type names of the reductions.
const KINDS: [(&str, ReduceKind); 9] = [
    ("ReduceSum", ReduceKind::Sum),
    ("ReduceMean", ReduceKind::Mean),
    ("ReduceMax", ReduceKind::Max),
    ("ReduceMin", ReduceKind::Min),
    ("ReduceProd", ReduceKind::Prod),
    ("ReduceL1", ReduceKind::L1),
    ("ReduceL2", ReduceKind::L2),
    ("ReduceLogicalAnd", ReduceKind::LogicalAnd),
    ("ReduceLogicalOr", ReduceKind::LogicalOr),
];

/// A reduction over some axes.
#[derive(Clone, Debug)]
pub struct Reduce {
    /// The reduction.
    pub kind: ReduceKind,
    /// Reduced axes stay as 1s.
    pub keep_dims: bool,
}

/// An accumulator: `f64` for floats, `i64` for integers and booleans.
trait Acc: Copy {
    /// The starting value of `kind`.
    fn init(kind: ReduceKind) -> Self;
    /// Folds `x` into `self`.
    fn fold(self, kind: ReduceKind, x: Self) -> Self;
    /// The result from the accumulated value over `n` elements.
    fn finish(self, kind: ReduceKind, n: usize) -> Self;
}

impl Acc for f64 {
    fn init(kind: ReduceKind) -> Self {
        match kind {
            ReduceKind::Prod | ReduceKind::LogicalAnd => 1.0,
            ReduceKind::Max => f64::NEG_INFINITY,
            ReduceKind::Min => f64::INFINITY,
            _ => 0.0,
        }
    }
    #[inline]
    fn fold(self, kind: ReduceKind, x: Self) -> Self {
        match kind {
            ReduceKind::Sum | ReduceKind::Mean => self + x,
            ReduceKind::L1 => self + x.abs(),
            ReduceKind::L2 => self + x * x,
            ReduceKind::Prod => self * x,
            ReduceKind::Max | ReduceKind::LogicalOr => self.max(x),
            ReduceKind::Min | ReduceKind::LogicalAnd => self.min(x),
        }
    }
    fn finish(self, kind: ReduceKind, n: usize) -> Self {
        match kind {
            ReduceKind::Mean if n == 0 => 0.0,
            ReduceKind::Mean => self / n as f64,
            ReduceKind::L2 => self.sqrt(),
            _ => self,
        }
    }
}

impl Acc for i64 {
    fn init(kind: ReduceKind) -> Self {
        match kind {
            ReduceKind::Prod | ReduceKind::LogicalAnd => 1,
            ReduceKind::Max => i64::MIN,
            ReduceKind::Min => i64::MAX,
            _ => 0,
        }
    }
    #[inline]
    fn fold(self, kind: ReduceKind, x: Self) -> Self {
        match kind {
            ReduceKind::Sum | ReduceKind::Mean => self.wrapping_add(x),
            ReduceKind::L1 => self.wrapping_add(x.wrapping_abs()),
            ReduceKind::L2 => self.wrapping_add(x.wrapping_mul(x)),
            ReduceKind::Prod => self.wrapping_mul(x),
            ReduceKind::Max | ReduceKind::LogicalOr => self.max(x),
            ReduceKind::Min | ReduceKind::LogicalAnd => self.min(x),
        }
    }
    fn finish(self, kind: ReduceKind, n: usize) -> Self {
        match kind {
            ReduceKind::Mean if n == 0 => 0,
            ReduceKind::Mean => self / n as i64,
            ReduceKind::L2 => (self as f64).sqrt() as i64,
            _ => self,
        }
    }
}

impl Reduce {
    /// Reads `<data keep_dims/>` (default false).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        let kind = KINDS
            .iter()
            .find(|(n, _)| *n == layer.type_name)
            .map(|&(_, k)| k)
            .ok_or_else(|| layer.err("not a reduction op"))?;
        Ok(Self {
            kind,
            keep_dims: layer.attr_bool_or("keep_dims", false)?,
        })
    }

    fn logical(&self) -> bool {
        matches!(self.kind, ReduceKind::LogicalAnd | ReduceKind::LogicalOr)
    }

    /// Which axes of a rank-`rank` input are reduced.
    fn reduced(axes: &[i64], rank: usize) -> Result<Vec<bool>> {
        let mut reduced = vec![false; rank];
        for &a in axes {
            reduced[normalize_axis(a, rank, "reduction axis")?] = true;
        }
        Ok(reduced)
    }

    /// The output dims of input dims `dims`.
    fn output_dims<D: Copy>(&self, dims: &[D], reduced: &[bool], one: D) -> Vec<D> {
        dims.iter()
            .zip(reduced)
            .filter_map(|(&d, &r)| match (r, self.keep_dims) {
                (false, _) => Some(d),
                (true, true) => Some(one),
                (true, false) => None,
            })
            .collect()
    }

    fn check_type(&self, et: ElementType) -> Result<()> {
        if self.logical() != (et == ElementType::Boolean) {
            return Err(invalid(format!(
                "{} is not defined for {et} data",
                self.type_name()
            )));
        }
        Ok(())
    }
}

/// Calls `f(index, group)` for every row-major `index` of `shape` in order, with `group` the
/// row-major index of its position once the `reduced` axes are dropped; returns the number of
/// groups. Shared with MVN, which normalizes over such groups.
pub fn visit_groups(shape: &[usize], reduced: &[bool], mut f: impl FnMut(usize, usize)) -> usize {
    let rank = shape.len();
    let mut ostride = vec![0usize; rank];
    let mut groups = 1usize;
    for d in (0..rank).rev() {
        if !reduced[d] {
            ostride[d] = groups;
            groups *= shape[d];
        }
    }
    let numel: usize = shape.iter().product();
    if numel == 0 {
        return groups;
    }
    let Some((&last, outer)) = shape.split_last() else {
        f(0, 0);
        return groups;
    };
    let step = ostride[rank - 1];
    let mut idx = vec![0usize; outer.len()];
    let (mut base, mut index) = (0usize, 0usize);
    for _ in 0..numel / last {
        for j in 0..last {
            f(index, base + j * step);
            index += 1;
        }
        for d in (0..outer.len()).rev() {
            idx[d] += 1;
            base += ostride[d];
            if idx[d] < shape[d] {
                break;
            }
            base -= ostride[d] * shape[d];
            idx[d] = 0;
        }
    }
    groups
}

/// The number of elements each group of [`visit_groups`] holds.
pub fn group_size(shape: &[usize], reduced: &[bool]) -> usize {
    shape
        .iter()
        .zip(reduced)
        .filter(|(_, &r)| r)
        .map(|(&d, _)| d)
        .product()
}

/// Folds every element of `data` into the accumulator of its output position.
fn reduce<T: Numeric, A: Acc>(
    data: &ArrayD<T>,
    reduced: &[bool],
    kind: ReduceKind,
    to_acc: impl Fn(T) -> A,
    from_acc: impl Fn(A) -> T,
) -> Result<Vec<T>> {
    let shape = data.shape();
    let groups: usize = shape
        .iter()
        .zip(reduced)
        .filter(|(_, &r)| !r)
        .map(|(&d, _)| d)
        .product();
    let mut acc = vec![A::init(kind); groups];
    let contiguous = data.as_standard_layout();
    let values = contiguous
        .as_slice()
        .ok_or_else(|| invalid("data is not contiguous"))?;
    visit_groups(shape, reduced, |i, g| {
        acc[g] = acc[g].fold(kind, to_acc(values[i]));
    });
    let n = group_size(shape, reduced);
    Ok(acc
        .into_iter()
        .map(|a| from_acc(a.finish(kind, n)))
        .collect())
}

fn reduce_tensor<T: Numeric>(op: &Reduce, t: &Tensor, reduced: &[bool]) -> Result<Tensor> {
    let a = t.typed::<T>("data")?;
    let kind = op.kind;
    let shape = op.output_dims(t.shape(), reduced, 1);
    let empty = t.shape().iter().zip(reduced).any(|(&d, &r)| r && d == 0);
    let values = match kind {
        // Max and Min over nothing give the type's own extremes.
        ReduceKind::Max if empty => vec![T::lowest(); checked_numel(&shape)?],
        ReduceKind::Min if empty => vec![T::highest(); checked_numel(&shape)?],
        _ if T::FLOAT => reduce::<T, f64>(a, reduced, kind, T::to_f64, T::from_f64)?,
        _ => reduce::<T, i64>(a, reduced, kind, T::to_i64, T::from_i64)?,
    };
    Tensor::from_vec(&shape, values)
}

impl Op for Reduce {
    fn type_name(&self) -> &'static str {
        KINDS
            .iter()
            .find(|(_, k)| *k == self.kind)
            .map_or("", |&(n, _)| n)
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (x, axes) = (&inputs[0], &inputs[1]);
        let et = x.element_type;
        self.check_type(et)?;
        require_integer("axes", axes)?;
        let Some(dims) = x.shape.dims() else {
            return Ok(vec![OutputInfo::new(et, PartialShape::dynamic())]);
        };
        let shape = match const_i64s(axes, "axes")? {
            Some(a) => {
                let reduced = Self::reduced(&a, dims.len())?;
                PartialShape::new(self.output_dims(dims, &reduced, Some(1)))
            }
            None if self.keep_dims => PartialShape::dynamic_of_rank(dims.len()),
            None => PartialShape::dynamic(),
        };
        Ok(vec![OutputInfo::new(et, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity(self.type_name(), inputs, 2..=2)?;
        let t = inputs[0];
        self.check_type(t.element_type())?;
        let axes = inputs[1].to_i64_vec("axes")?;
        if inputs[1].shape().len() > 1 {
            return Err(invalid(format!(
                "axes must be a scalar or 1-D, got shape {:?}",
                inputs[1].shape()
            )));
        }
        let reduced = Self::reduced(&axes, t.shape().len())?;
        let out =
            crate::dispatch_type!(t.element_type(), T => reduce_tensor::<T>(self, t, &reduced))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
