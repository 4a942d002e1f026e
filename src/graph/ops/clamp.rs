//! Clamp-1: `min(max(x, min), max)` element-wise; for integer data `min` rounds up and `max`
//! rounds down to integers first.

use std::any::Any;

use super::numeric::Numeric;
use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::{ElementType, Tensor};

/// Clamps into `[min, max]`.
#[derive(Clone, Debug)]
pub struct Clamp {
    /// The lower bound.
    pub min: f64,
    /// The upper bound.
    pub max: f64,
}

impl Clamp {
    /// Reads `<data min max/>` (both required, `min ≤ max`).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=1)?;
        let bound = |name: &str| -> Result<f64> {
            let v = layer.attr_str(name)?;
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| !x.is_nan())
                .ok_or_else(|| layer.err(format!("attribute {name}=\"{v}\" is not a number")))
        };
        let (min, max) = (bound("min")?, bound("max")?);
        if min > max {
            return Err(layer.err(format!("min {min} is greater than max {max}")));
        }
        Ok(Self { min, max })
    }
}

fn clamp<T: Numeric>(op: &Clamp, t: &Tensor) -> Result<Tensor> {
    let a = t.typed::<T>("data")?;
    let out = if T::FLOAT {
        let (lo, hi) = (T::from_f64(op.min), T::from_f64(op.max));
        a.mapv(|x| {
            if x < lo {
                lo
            } else if x > hi {
                hi
            } else {
                x
            }
        })
    } else {
        // Bounds beyond the type's range do not bind.
        let (lo, hi) = (op.min.ceil(), op.max.floor());
        a.mapv(|x| {
            let v = x.to_f64();
            if v < lo {
                T::from_f64(lo)
            } else if v > hi {
                T::from_f64(hi)
            } else {
                x
            }
        })
    };
    Ok(T::wrap(out))
}

impl Op for Clamp {
    fn type_name(&self) -> &'static str {
        "Clamp"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        if et == ElementType::Boolean {
            return Err(invalid("Clamp is not defined for boolean inputs"));
        }
        Ok(vec![OutputInfo::new(et, inputs[0].shape.clone())])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Clamp", inputs, 1..=1)?;
        let t = inputs[0];
        if t.element_type() == ElementType::Boolean {
            return Err(invalid("Clamp is not defined for boolean inputs"));
        }
        let out = crate::dispatch_type!(t.element_type(), T => clamp::<T>(self, t))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
