//! CumSum-3: running sums along the scalar `axis` (input 1, default 0; negative from the end),
//! `exclusive` (each sum leaves its own element out) and `reverse` (from the end).

use std::any::Any;

use super::numeric::Numeric;
use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::normalize_axis;
use crate::graph::tensor::{ElementType, Tensor};

/// Cumulative sum.
#[derive(Clone, Debug)]
pub struct CumSum {
    /// Sums leave their own element out.
    pub exclusive: bool,
    /// Sums run from the end.
    pub reverse: bool,
}

impl CumSum {
    /// Reads `<data exclusive reverse/>` (both default false).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=2)?;
        Ok(Self {
            exclusive: layer.attr_bool_or("exclusive", false)?,
            reverse: layer.attr_bool_or("reverse", false)?,
        })
    }
}

fn cumsum<T: Numeric>(op: &CumSum, t: &Tensor, axis: usize) -> Result<Tensor> {
    let shape = t.shape();
    let mut v: Vec<T> = t.typed::<T>("data")?.iter().copied().collect();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    if n == 0 || inner == 0 {
        return Tensor::from_vec(shape, v);
    }
    let mut acc_f = vec![0f64; inner];
    let mut acc_i = vec![0i64; inner];
    for block in v.chunks_exact_mut(n * inner) {
        acc_f.fill(0.0);
        acc_i.fill(0);
        for step in 0..n {
            let k = if op.reverse { n - 1 - step } else { step };
            for (j, x) in block[k * inner..(k + 1) * inner].iter_mut().enumerate() {
                let own = *x;
                if T::FLOAT {
                    let sum = acc_f[j] + own.to_f64();
                    *x = T::from_f64(if op.exclusive { acc_f[j] } else { sum });
                    acc_f[j] = sum;
                } else {
                    let sum = acc_i[j].wrapping_add(own.to_i64());
                    *x = T::from_i64(if op.exclusive { acc_i[j] } else { sum });
                    acc_i[j] = sum;
                }
            }
        }
    }
    Tensor::from_vec(shape, v)
}

impl Op for CumSum {
    fn type_name(&self) -> &'static str {
        "CumSum"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let x = &inputs[0];
        if x.element_type == ElementType::Boolean {
            return Err(invalid("CumSum is not defined for boolean data"));
        }
        if inputs.get(1).is_some_and(|a| !a.element_type.is_integer()) {
            return Err(invalid("axis must be integer"));
        }
        Ok(vec![OutputInfo::new(x.element_type, x.shape.clone())])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("CumSum", inputs, 1..=2)?;
        let t = inputs[0];
        if t.element_type() == ElementType::Boolean {
            return Err(invalid("CumSum is not defined for boolean data"));
        }
        let axis = match inputs.get(1) {
            Some(a) => match a.to_i64_vec("axis")?[..] {
                [v] => v,
                ref v => return Err(invalid(format!("axis must hold one value, got {v:?}"))),
            },
            None => 0,
        };
        let axis = normalize_axis(axis, t.shape().len(), "axis")?;
        let out = crate::dispatch_type!(t.element_type(), T => cumsum::<T>(self, t, axis))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
