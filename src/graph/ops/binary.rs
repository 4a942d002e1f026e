//! Add-1, Subtract-1, Multiply-1, Divide-1: element-wise arithmetic with numpy broadcasting
//! (`auto_broadcast="numpy"`, the default) or equal shapes (`"none"`).
//!
//! Integer arithmetic wraps; integer division follows `python_division` (default true: floor
//! division); an integer division by zero gives 0 instead of trapping.

use std::any::Any;

use half::f16;
use ndarray::{ArrayD, IxDyn, Zip};

use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{broadcast_partial, broadcast_static};
use crate::graph::tensor::Tensor;

/// Which arithmetic operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryKind {
    /// a + b
    Add,
    /// a − b
    Subtract,
    /// a · b
    Multiply,
    /// a / b
    Divide,
}

/// An element-wise arithmetic op.
#[derive(Clone, Debug)]
pub struct Binary {
    /// The operation.
    pub kind: BinaryKind,
    /// True for numpy broadcasting, false for `auto_broadcast="none"` (equal shapes).
    pub numpy: bool,
    /// Divide's `python_division` (floor division for integers).
    pub python_division: bool,
}

impl Binary {
    /// Reads `<data auto_broadcast [m_pythondiv | python_division]/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        let kind = match layer.type_name.as_str() {
            "Add" => BinaryKind::Add,
            "Subtract" => BinaryKind::Subtract,
            "Multiply" => BinaryKind::Multiply,
            _ => BinaryKind::Divide,
        };
        let numpy = match layer.attr("auto_broadcast").unwrap_or("numpy") {
            "numpy" => true,
            "none" => false,
            other => {
                return Err(layer.err(format!(
                    "auto_broadcast=\"{other}\" is not supported (numpy or none)"
                )))
            }
        };
        // OpenVINO serializes the attribute as `m_pythondiv`; the specification calls it
        // `python_division`.
        let python_division = match layer.attr("m_pythondiv") {
            Some(_) => layer.attr_bool_or("m_pythondiv", true)?,
            None => layer.attr_bool_or("python_division", true)?,
        };
        Ok(Self {
            kind,
            numpy,
            python_division,
        })
    }
}

/// The element types arithmetic is defined on.
pub trait Arith: Copy {
    /// Applies `kind` to `a` and `b` (`floor` selects floor division for integers).
    fn apply(kind: BinaryKind, a: Self, b: Self, floor: bool) -> Self;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn apply(kind: BinaryKind, a: Self, b: Self, floor: bool) -> Self {
                match kind {
                    BinaryKind::Add => a.wrapping_add(b),
                    BinaryKind::Subtract => a.wrapping_sub(b),
                    BinaryKind::Multiply => a.wrapping_mul(b),
                    BinaryKind::Divide => {
                        if b == 0 {
                            return 0;
                        }
                        let q = a.wrapping_div(b);
                        #[allow(unused_comparisons)]
                        let adjust = floor && (a.wrapping_rem(b) != 0) && ((a < 0) != (b < 0));
                        if adjust { q.wrapping_sub(1) } else { q }
                    }
                }
            }
        }
    )*};
}
int_arith!(i32, i64, u8, i8);

impl Arith for f32 {
    fn apply(kind: BinaryKind, a: Self, b: Self, _floor: bool) -> Self {
        match kind {
            BinaryKind::Add => a + b,
            BinaryKind::Subtract => a - b,
            BinaryKind::Multiply => a * b,
            BinaryKind::Divide => a / b,
        }
    }
}

impl Arith for f16 {
    fn apply(kind: BinaryKind, a: Self, b: Self, floor: bool) -> Self {
        f16::from_f32(f32::apply(kind, a.to_f32(), b.to_f32(), floor))
    }
}

/// Applies `f` element-wise to `a` and `b` broadcast against each other (numpy rules) — the
/// one broadcasting helper every element-wise binary op uses.
pub fn broadcast_zip<A: Copy, B: Copy, O>(
    a: &ArrayD<A>,
    b: &ArrayD<B>,
    f: impl Fn(A, B) -> O,
) -> Result<ArrayD<O>> {
    let shape = broadcast_static(a.shape(), b.shape())?;
    let av = a
        .broadcast(IxDyn(&shape))
        .ok_or_else(|| invalid("broadcast failed"))?;
    let bv = b
        .broadcast(IxDyn(&shape))
        .ok_or_else(|| invalid("broadcast failed"))?;
    Ok(Zip::from(&av).and(&bv).map_collect(|&x, &y| f(x, y)))
}

fn arith<T: Arith>(
    kind: BinaryKind,
    floor: bool,
    a: &ArrayD<T>,
    b: &ArrayD<T>,
) -> Result<ArrayD<T>> {
    broadcast_zip(a, b, |x, y| T::apply(kind, x, y, floor))
}

impl Op for Binary {
    fn type_name(&self) -> &'static str {
        match self.kind {
            BinaryKind::Add => "Add",
            BinaryKind::Subtract => "Subtract",
            BinaryKind::Multiply => "Multiply",
            BinaryKind::Divide => "Divide",
        }
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (a, b) = (&inputs[0], &inputs[1]);
        if a.element_type != b.element_type {
            return Err(invalid(format!(
                "inputs have different element types ({} and {})",
                a.element_type, b.element_type
            )));
        }
        let shape = if self.numpy {
            broadcast_partial(&a.shape, &b.shape)?
        } else if a.shape.compatible(&b.shape) {
            a.shape.refine(&b.shape)
        } else {
            return Err(invalid(format!(
                "auto_broadcast=none needs equal shapes, got {} and {}",
                a.shape, b.shape
            )));
        };
        Ok(vec![OutputInfo::new(a.element_type, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity(self.type_name(), inputs, 2..=2)?;
        let (a, b) = (inputs[0], inputs[1]);
        if !self.numpy && a.shape() != b.shape() {
            return Err(invalid(format!(
                "auto_broadcast=none needs equal shapes, got {:?} and {:?}",
                a.shape(),
                b.shape()
            )));
        }
        let (k, fl) = (self.kind, self.python_division);
        let out = match (a, b) {
            (Tensor::F32(x), Tensor::F32(y)) => Tensor::F32(arith(k, fl, x, y)?),
            (Tensor::F16(x), Tensor::F16(y)) => Tensor::F16(arith(k, fl, x, y)?),
            (Tensor::I32(x), Tensor::I32(y)) => Tensor::I32(arith(k, fl, x, y)?),
            (Tensor::I64(x), Tensor::I64(y)) => Tensor::I64(arith(k, fl, x, y)?),
            (Tensor::U8(x), Tensor::U8(y)) => Tensor::U8(arith(k, fl, x, y)?),
            (Tensor::I8(x), Tensor::I8(y)) => Tensor::I8(arith(k, fl, x, y)?),
            _ => {
                return Err(invalid(format!(
                    "{} is not defined for {} and {} inputs",
                    self.type_name(),
                    a.element_type(),
                    b.element_type()
                )))
            }
        };
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_division() {
        assert_eq!(i32::apply(BinaryKind::Divide, -7, 2, true), -4);
        assert_eq!(i32::apply(BinaryKind::Divide, -7, 2, false), -3);
        assert_eq!(i32::apply(BinaryKind::Divide, 7, 0, true), 0);
        assert_eq!(u8::apply(BinaryKind::Divide, 7, 2, true), 3);
    }
}
