//! Range-1 / Range-4: `start, start + step, …` while before `stop`, from three scalars;
//! `max(⌈(stop − start) / step⌉, 0)` elements. Range-1's inputs and output share one numeric
//! type; Range-4 takes any numeric inputs and gives `output_type`.
//!
//! Integer inputs compute exactly in integers. Float values written to an integer output round
//! to the nearest (ties to even), as OpenVINO's CPU plugin does.

use std::any::Any;

use super::numeric::Numeric;
use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::PartialShape;
use crate::graph::tensor::{ElementType, Scalar, Tensor};

/// An arithmetic sequence.
#[derive(Clone, Debug)]
pub struct Range {
    /// Range-4's `output_type`; `None` for Range-1 (the inputs' type).
    pub output_type: Option<ElementType>,
}

/// `start` and `step`, as exact integers or as floats.
enum Bounds {
    Int(i64, i64),
    Float(f64, f64),
}

impl Range {
    /// Reads `<data output_type/>` (Range-4).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 3..=3)?;
        let output_type = match layer.attr("output_type") {
            Some(_) => Some(layer.attr_element_type("output_type")?),
            None => None,
        };
        if output_type == Some(ElementType::Boolean) {
            return Err(layer.err("output_type must be numeric, got boolean"));
        }
        Ok(Self { output_type })
    }

    /// The output type for input types `types`.
    fn out_type(&self, types: &[ElementType]) -> Result<ElementType> {
        if let Some(bad) = types.iter().find(|&&t| t == ElementType::Boolean) {
            return Err(invalid(format!("inputs must be numeric, got {bad}")));
        }
        match self.output_type {
            Some(t) => Ok(t),
            None if types.iter().all(|&t| t == types[0]) => Ok(types[0]),
            None => Err(invalid(format!(
                "Range-1 inputs must share one type, got {types:?}"
            ))),
        }
    }

    /// The bounds and the element count from the three scalar inputs.
    fn bounds(values: [&Tensor; 3]) -> Result<(Bounds, usize)> {
        let mut s = [Scalar::Int(0); 3];
        for (slot, (t, what)) in s
            .iter_mut()
            .zip(values.iter().zip(["start", "stop", "step"]))
        {
            let v = t.scalars();
            let [x] = v.as_slice() else {
                return Err(invalid(format!(
                    "{what} must hold one value, got shape {:?}",
                    t.shape()
                )));
            };
            *slot = *x;
        }
        match s {
            [Scalar::Int(a), Scalar::Int(b), Scalar::Int(c)] => {
                if c == 0 {
                    return Err(invalid("step is 0"));
                }
                let (span, c128) = (b as i128 - a as i128, c as i128);
                let n = if (span > 0) == (c > 0) && span != 0 {
                    (span.abs() + c128.abs() - 1) / c128.abs()
                } else {
                    0
                };
                Ok((Bounds::Int(a, c), usize::try_from(n).unwrap_or(usize::MAX)))
            }
            _ => {
                let f = |x: Scalar| match x {
                    Scalar::Int(v) => v as f64,
                    Scalar::Float(v) => v,
                };
                let (a, b, c) = (f(s[0]), f(s[1]), f(s[2]));
                let n = ((b - a) / c).ceil();
                if c == 0.0 || n.is_nan() {
                    return Err(invalid(format!(
                        "start {a}, stop {b}, step {c} do not make a finite sequence"
                    )));
                }
                // `as` saturates: an infinite count is refused by the size check.
                Ok((Bounds::Float(a, c), n.max(0.0) as usize))
            }
        }
    }
}

fn sequence<T: Numeric>(bounds: &Bounds, n: usize) -> Tensor {
    let values: Vec<T> = match *bounds {
        Bounds::Int(a, c) => (0..n as i64)
            .map(|i| T::from_i64(a.wrapping_add(i.wrapping_mul(c))))
            .collect(),
        Bounds::Float(a, c) => (0..n)
            .map(|i| {
                let v = a + i as f64 * c;
                T::from_f64(if T::FLOAT { v } else { v.round_ties_even() })
            })
            .collect(),
    };
    T::wrap(ndarray::Array1::from(values).into_dyn())
}

impl Op for Range {
    fn type_name(&self) -> &'static str {
        "Range"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let types: Vec<ElementType> = inputs.iter().map(|i| i.element_type).collect();
        let et = self.out_type(&types)?;
        for (i, what) in inputs.iter().zip(["start", "stop", "step"]) {
            if i.shape
                .to_static()
                .is_some_and(|s| s.iter().product::<usize>() != 1)
            {
                return Err(invalid(format!(
                    "{what} must hold one value, got {}",
                    i.shape
                )));
            }
        }
        let shape = match (inputs[0].value, inputs[1].value, inputs[2].value) {
            (Some(a), Some(b), Some(c)) => PartialShape::from_static(&[Self::bounds([a, b, c])?.1]),
            _ => PartialShape::dynamic_of_rank(1),
        };
        Ok(vec![OutputInfo::new(et, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Range", inputs, 3..=3)?;
        let types: Vec<ElementType> = inputs.iter().map(|t| t.element_type()).collect();
        let et = self.out_type(&types)?;
        let (bounds, n) = Self::bounds([inputs[0], inputs[1], inputs[2]])?;
        crate::graph::build::allocatable(0, &[n]).map_err(invalid)?;
        Ok(vec![
            crate::dispatch_type!(et, T => sequence::<T>(&bounds, n)),
        ])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
