//! Add-1, Subtract-1, Multiply-1, Divide-1, Maximum-1, Minimum-1, Power-1, Mod-1, FloorMod-1,
//! SquaredDifference-1: element-wise arithmetic under the `auto_broadcast` rules
//! ([`AutoBroadcast`]: numpy by default, pdpd or none).
//!
//! Integer arithmetic wraps; integer division follows `python_division` (default true: floor
//! division); an integer division or remainder by zero gives 0 instead of trapping. Mod's result
//! has the dividend's sign (C `fmod`), FloorMod's the divisor's (Python `%`). An integer Power
//! with a negative exponent is `1 / a^-b` truncated (0 unless `|a| = 1`).

use std::any::Any;

use half::f16;
use ndarray::ArrayD;

use super::auto_broadcast::AutoBroadcast;
use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::{ElementType, Tensor};

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
    /// max(a, b)
    Maximum,
    /// min(a, b)
    Minimum,
    /// a ^ b
    Power,
    /// Truncated remainder (sign of a).
    Mod,
    /// Floored remainder (sign of b).
    FloorMod,
    /// (a − b)²
    SquaredDifference,
}

/// IR type names of the arithmetic ops.
const KINDS: [(&str, BinaryKind); 10] = [
    ("Add", BinaryKind::Add),
    ("Subtract", BinaryKind::Subtract),
    ("Multiply", BinaryKind::Multiply),
    ("Divide", BinaryKind::Divide),
    ("Maximum", BinaryKind::Maximum),
    ("Minimum", BinaryKind::Minimum),
    ("Power", BinaryKind::Power),
    ("Mod", BinaryKind::Mod),
    ("FloorMod", BinaryKind::FloorMod),
    ("SquaredDifference", BinaryKind::SquaredDifference),
];

impl BinaryKind {
    /// The op of an IR type name.
    pub fn parse(type_name: &str) -> Option<Self> {
        KINDS.iter().find(|(n, _)| *n == type_name).map(|&(_, k)| k)
    }

    /// The IR type name.
    pub fn name(self) -> &'static str {
        KINDS
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("", |&(n, _)| n)
    }
}

/// An element-wise arithmetic op.
#[derive(Clone, Debug)]
pub struct Binary {
    /// The operation.
    pub kind: BinaryKind,
    /// How the inputs broadcast.
    pub broadcast: AutoBroadcast,
    /// Divide's `python_division` (floor division for integers).
    pub python_division: bool,
}

impl Binary {
    /// Reads `<data auto_broadcast [m_pythondiv | python_division]/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        let kind =
            BinaryKind::parse(&layer.type_name).ok_or_else(|| layer.err("not an arithmetic op"))?;
        // OpenVINO serializes the attribute as `m_pythondiv`; the specification calls it
        // `python_division`.
        let python_division = match layer.attr("m_pythondiv") {
            Some(_) => layer.attr_bool_or("m_pythondiv", true)?,
            None => layer.attr_bool_or("python_division", true)?,
        };
        Ok(Self {
            kind,
            broadcast: AutoBroadcast::from_ir(layer)?,
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
        #[allow(unused_comparisons)]
        impl Arith for $t {
            fn apply(kind: BinaryKind, a: Self, b: Self, floor: bool) -> Self {
                let floored = |r: Self| if r != 0 && ((r < 0) != (b < 0)) { r.wrapping_add(b) } else { r };
                match kind {
                    BinaryKind::Add => a.wrapping_add(b),
                    BinaryKind::Subtract => a.wrapping_sub(b),
                    BinaryKind::Multiply => a.wrapping_mul(b),
                    BinaryKind::Divide => {
                        if b == 0 {
                            return 0;
                        }
                        let q = a.wrapping_div(b);
                        let adjust = floor && (a.wrapping_rem(b) != 0) && ((a < 0) != (b < 0));
                        if adjust { q.wrapping_sub(1) } else { q }
                    }
                    BinaryKind::Maximum => a.max(b),
                    BinaryKind::Minimum => a.min(b),
                    BinaryKind::Power => {
                        if b >= 0 {
                            a.wrapping_pow(u32::try_from(b).unwrap_or(u32::MAX))
                        } else if a == 1 {
                            1
                        } else if a.wrapping_add(1) == 0 {
                            if b % 2 == 0 { 1 } else { a }
                        } else {
                            0
                        }
                    }
                    BinaryKind::Mod if b == 0 => 0,
                    BinaryKind::Mod => a.wrapping_rem(b),
                    BinaryKind::FloorMod if b == 0 => 0,
                    BinaryKind::FloorMod => floored(a.wrapping_rem(b)),
                    BinaryKind::SquaredDifference => {
                        let d = a.wrapping_sub(b);
                        d.wrapping_mul(d)
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
            BinaryKind::Maximum => a.max(b),
            BinaryKind::Minimum => a.min(b),
            BinaryKind::Power => a.powf(b),
            BinaryKind::Mod => a % b,
            BinaryKind::FloorMod => {
                let r = a % b;
                if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
                    r + b
                } else {
                    r
                }
            }
            BinaryKind::SquaredDifference => (a - b) * (a - b),
        }
    }
}

impl Arith for f16 {
    fn apply(kind: BinaryKind, a: Self, b: Self, floor: bool) -> Self {
        f16::from_f32(f32::apply(kind, a.to_f32(), b.to_f32(), floor))
    }
}

fn arith<T: Arith>(op: &Binary, a: &ArrayD<T>, b: &ArrayD<T>) -> Result<ArrayD<T>> {
    let (kind, floor) = (op.kind, op.python_division);
    op.broadcast.zip(a, b, |x, y| T::apply(kind, x, y, floor))
}

impl Op for Binary {
    fn type_name(&self) -> &'static str {
        self.kind.name()
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (a, b) = (&inputs[0], &inputs[1]);
        if a.element_type != b.element_type {
            return Err(invalid(format!(
                "inputs have different element types ({} and {})",
                a.element_type, b.element_type
            )));
        }
        if a.element_type == ElementType::Boolean {
            return Err(invalid(format!(
                "{} is not defined for boolean inputs",
                self.type_name()
            )));
        }
        let shape = self.broadcast.infer(&a.shape, &b.shape)?;
        Ok(vec![OutputInfo::new(a.element_type, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity(self.type_name(), inputs, 2..=2)?;
        let (a, b) = (inputs[0], inputs[1]);
        let out = match (a, b) {
            (Tensor::F32(x), Tensor::F32(y)) => Tensor::F32(arith(self, x, y)?),
            (Tensor::F16(x), Tensor::F16(y)) => Tensor::F16(arith(self, x, y)?),
            (Tensor::I32(x), Tensor::I32(y)) => Tensor::I32(arith(self, x, y)?),
            (Tensor::I64(x), Tensor::I64(y)) => Tensor::I64(arith(self, x, y)?),
            (Tensor::U8(x), Tensor::U8(y)) => Tensor::U8(arith(self, x, y)?),
            (Tensor::I8(x), Tensor::I8(y)) => Tensor::I8(arith(self, x, y)?),
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
    fn execute_into(&self, inputs: &[&Tensor], outputs: &mut [Tensor]) -> Result<bool> {
        check_arity(self.type_name(), inputs, 2..=2)?;
        let ([Tensor::F32(o)], Tensor::F32(a), Tensor::F32(b)) = (outputs, inputs[0], inputs[1])
        else {
            return Ok(false);
        };
        if matches!(self.broadcast, AutoBroadcast::Pdpd { .. }) {
            return Ok(false);
        }
        let numpy = self.broadcast == AutoBroadcast::Numpy;
        let shape = o.shape().to_vec();
        // A row repeated over the output: its dims, leading 1s aside, end the output's.
        let row = |x: &ArrayD<f32>| {
            let d = x.shape();
            let lead = d.iter().take_while(|&&v| v == 1).count();
            numpy && d.len() <= shape.len() && shape.ends_with(&d[lead..]) && !x.is_empty()
        };
        let (Some(o), Some(av), Some(bv)) = (o.as_slice_mut(), a.as_slice(), b.as_slice()) else {
            return Ok(false);
        };
        let (kind, floor) = (self.kind, self.python_division);
        let f = |x: f32, y: f32| f32::apply(kind, x, y, floor);
        let (a_full, b_full) = (a.shape() == shape, b.shape() == shape);
        if a_full && b_full {
            for ((r, &x), &y) in o.iter_mut().zip(av).zip(bv) {
                *r = f(x, y);
            }
        } else if a_full && row(b) {
            for (rs, xs) in o.chunks_exact_mut(bv.len()).zip(av.chunks_exact(bv.len())) {
                for ((r, &x), &y) in rs.iter_mut().zip(xs).zip(bv) {
                    *r = f(x, y);
                }
            }
        } else if b_full && row(a) {
            for (rs, ys) in o.chunks_exact_mut(av.len()).zip(bv.chunks_exact(av.len())) {
                for ((r, &x), &y) in rs.iter_mut().zip(av).zip(ys) {
                    *r = f(x, y);
                }
            }
        } else {
            return Ok(false);
        }
        Ok(true)
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

    #[test]
    fn remainders_and_powers() {
        use BinaryKind::{FloorMod, Mod, Power};
        assert_eq!(i32::apply(Mod, -7, 3, true), -1);
        assert_eq!(i32::apply(FloorMod, -7, 3, true), 2);
        assert_eq!(i32::apply(FloorMod, 7, -3, true), -2);
        assert_eq!(i64::apply(FloorMod, 7, 0, true), 0);
        assert_eq!(f32::apply(FloorMod, -7.5, 2.0, true), 0.5);
        assert_eq!(i32::apply(Power, 3, 4, true), 81);
        assert_eq!(i32::apply(Power, 2, -1, true), 0);
        assert_eq!(i32::apply(Power, -1, -3, true), -1);
        assert_eq!(i8::apply(Power, -1, -2, true), 1);
    }
}
