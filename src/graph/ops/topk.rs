//! TopK-1 / TopK-3 / TopK-11: the `k` largest (`mode="max"`) or smallest (`"min"`) elements
//! along `axis` and their indices (`index_element_type`, default i32). `sort="value"` orders
//! them by value, `"index"` by index (`"none"` is taken as by value); equal values keep the
//! lower index first (TopK-11's `stable` order, used for every version). A `k` beyond the dim
//! selects the whole axis.

use std::any::Any;
use std::cmp::Ordering;

use super::numeric::Numeric;
use super::{check_arity, const_i64s, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{normalize_axis, PartialShape};
use crate::graph::tensor::{ElementType, Tensor};

/// Top-k selection along one axis.
#[derive(Clone, Debug)]
pub struct TopK {
    /// The axis (negative counts from the end).
    pub axis: i64,
    /// Largest (true) or smallest.
    pub largest: bool,
    /// Output in index order instead of value order.
    pub by_index: bool,
    /// i32 or i64.
    pub index_type: ElementType,
}

impl TopK {
    /// Reads `<data axis mode sort [index_element_type] [stable]/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        let largest = match layer.attr_str("mode")?.to_ascii_lowercase().as_str() {
            "max" => true,
            "min" => false,
            m => return Err(layer.err(format!("mode=\"{m}\" is not supported (max or min)"))),
        };
        let by_index = match layer.attr_str("sort")?.to_ascii_lowercase().as_str() {
            "value" | "none" => false,
            "index" => true,
            s => {
                return Err(layer.err(format!(
                    "sort=\"{s}\" is not supported (value, index or none)"
                )))
            }
        };
        let index_type = match layer.attr("index_element_type") {
            Some(_) => layer.attr_element_type("index_element_type")?,
            None => ElementType::I32,
        };
        if !matches!(index_type, ElementType::I32 | ElementType::I64) {
            return Err(layer.err(format!(
                "index_element_type must be i32 or i64, got {index_type}"
            )));
        }
        layer.attr_bool_or("stable", false)?;
        Ok(Self {
            axis: layer.attr_i64("axis")?,
            largest,
            by_index,
            index_type,
        })
    }

    fn k(value: &[i64]) -> Result<usize> {
        match value {
            [k] => usize::try_from(*k).map_err(|_| invalid(format!("k {k} is negative"))),
            _ => Err(invalid(format!("k must hold one value, got {value:?}"))),
        }
    }
}

fn topk<T: Numeric>(op: &TopK, t: &Tensor, axis: usize, k: usize) -> Result<(Tensor, Vec<i64>)> {
    let shape = t.shape();
    let values: Vec<T> = t.typed::<T>("data")?.iter().copied().collect();
    let n = shape[axis];
    let k = k.min(n);
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out_shape = shape.to_vec();
    out_shape[axis] = k;
    let mut out_v = vec![T::default(); outer * k * inner];
    let mut out_i = vec![0i64; outer * k * inner];
    let mut order: Vec<usize> = Vec::with_capacity(n);
    // Better first: NaN last, then by value in the mode's direction, then by lower index (a
    // total order, as sorting needs).
    let better = |a: &usize, b: &usize, base: usize| -> Ordering {
        let (x, y) = (values[base + a * inner], values[base + b * inner]);
        #[allow(clippy::eq_op)]
        let (x_nan, y_nan) = (x != x, y != y);
        x_nan
            .cmp(&y_nan)
            .then_with(|| {
                let o = x.partial_cmp(&y).unwrap_or(Ordering::Equal);
                if op.largest {
                    o.reverse()
                } else {
                    o
                }
            })
            .then(a.cmp(b))
    };
    if k > 0 {
        for o in 0..outer {
            for i in 0..inner {
                let base = o * n * inner + i;
                order.clear();
                order.extend(0..n);
                if k < n {
                    order.select_nth_unstable_by(k - 1, |a, b| better(a, b, base));
                    order.truncate(k);
                }
                if op.by_index {
                    order.sort_unstable();
                } else {
                    order.sort_unstable_by(|a, b| better(a, b, base));
                }
                for (j, &src) in order.iter().enumerate() {
                    let dst = (o * k + j) * inner + i;
                    out_v[dst] = values[base + src * inner];
                    out_i[dst] = src as i64;
                }
            }
        }
    }
    Ok((Tensor::from_vec(&out_shape, out_v)?, out_i))
}

impl Op for TopK {
    fn type_name(&self) -> &'static str {
        "TopK"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (x, k) = (&inputs[0], &inputs[1]);
        if x.element_type == ElementType::Boolean || !k.element_type.is_integer() {
            return Err(invalid(format!(
                "TopK needs numeric data and an integer k, got {} and {}",
                x.element_type, k.element_type
            )));
        }
        let shape = match x.shape.dims() {
            Some(d) => {
                let axis = normalize_axis(self.axis, d.len(), "axis")?;
                let mut out = d.to_vec();
                out[axis] = match (const_i64s(k, "k")?, d[axis]) {
                    (Some(v), Some(n)) => Some(n.min(Self::k(&v)?)),
                    _ => None,
                };
                PartialShape::new(out)
            }
            None => PartialShape::dynamic(),
        };
        Ok(vec![
            OutputInfo::new(x.element_type, shape.clone()),
            OutputInfo::new(self.index_type, shape),
        ])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("TopK", inputs, 2..=2)?;
        let t = inputs[0];
        if t.element_type() == ElementType::Boolean {
            return Err(invalid("TopK is not defined for boolean data"));
        }
        let axis = normalize_axis(self.axis, t.shape().len(), "axis")?;
        let k = Self::k(&inputs[1].to_i64_vec("k")?)?;
        let (values, idx) =
            crate::dispatch_type!(t.element_type(), T => topk::<T>(self, t, axis, k))?;
        let idx = Tensor::from_vec(values.shape(), idx)?.convert(self.index_type);
        Ok(vec![values, idx])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
