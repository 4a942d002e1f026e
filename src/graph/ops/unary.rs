//! Element-wise math of one input: Abs-1, Negative-1, Sign-1, Floor-1, Ceiling-1, Round-5,
//! Exp-1, Log-1, Sqrt-1, Erf-1, Sin/Cos/Tan/Asin/Acos/Atan/Sinh/Cosh-1, Asinh/Acosh/Atanh-3, and
//! the activations Gelu-2/7, Elu-1, SoftPlus-4, SoftSign-9, Mish-4, HSwish-4, HSigmoid-5,
//! Swish-4 (optional scalar `beta` input) and HardSigmoid-1 (scalar `alpha`, `beta` inputs).
//!
//! Floats and integers alike compute in `f64` and convert back (integers truncate toward
//! zero); Abs, Negative, Sign, Floor, Ceiling and Round are exact on integers (wrapping).

use std::any::Any;

use super::numeric::Numeric;
use super::{check_arity, expect_inputs, invalid, opset_number, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::{ElementType, Scalar, Tensor};

/// Which function (with its attributes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UnaryKind {
    /// |x|
    Abs,
    /// −x
    Negative,
    /// −1, 0 or 1
    Sign,
    /// ⌊x⌋
    Floor,
    /// ⌈x⌉
    Ceiling,
    /// Nearest integer; ties to even, or away from zero when `away`.
    Round {
        /// `mode="half_away_from_zero"`.
        away: bool,
    },
    /// eˣ
    Exp,
    /// ln x
    Log,
    /// √x
    Sqrt,
    /// The error function.
    Erf,
    /// sin x
    Sin,
    /// cos x
    Cos,
    /// tan x
    Tan,
    /// asin x
    Asin,
    /// acos x
    Acos,
    /// atan x
    Atan,
    /// sinh x
    Sinh,
    /// cosh x
    Cosh,
    /// asinh x
    Asinh,
    /// acosh x
    Acosh,
    /// atanh x
    Atanh,
    /// x·Φ(x), exactly (erf) or with the tanh approximation.
    Gelu {
        /// `approximation_mode="tanh"`.
        tanh: bool,
    },
    /// x for x > 0, α(eˣ − 1) otherwise.
    Elu {
        /// α.
        alpha: f64,
    },
    /// ln(1 + eˣ)
    SoftPlus,
    /// x / (1 + |x|)
    SoftSign,
    /// x·tanh(ln(1 + eˣ))
    Mish,
    /// x·min(max(x + 3, 0), 6) / 6
    HSwish,
    /// min(max(x + 3, 0), 6) / 6
    HSigmoid,
    /// x·sigmoid(β·x), β from input 1 (default 1).
    Swish,
    /// max(0, min(1, α·x + β)), α and β from inputs 1 and 2.
    HardSigmoid,
}

/// IR type names of the functions without attributes.
const PLAIN: [(&str, UnaryKind); 27] = [
    ("Abs", UnaryKind::Abs),
    ("Negative", UnaryKind::Negative),
    ("Sign", UnaryKind::Sign),
    ("Floor", UnaryKind::Floor),
    ("Ceiling", UnaryKind::Ceiling),
    ("Exp", UnaryKind::Exp),
    ("Log", UnaryKind::Log),
    ("Sqrt", UnaryKind::Sqrt),
    ("Erf", UnaryKind::Erf),
    ("Sin", UnaryKind::Sin),
    ("Cos", UnaryKind::Cos),
    ("Tan", UnaryKind::Tan),
    ("Asin", UnaryKind::Asin),
    ("Acos", UnaryKind::Acos),
    ("Atan", UnaryKind::Atan),
    ("Sinh", UnaryKind::Sinh),
    ("Cosh", UnaryKind::Cosh),
    ("Asinh", UnaryKind::Asinh),
    ("Acosh", UnaryKind::Acosh),
    ("Atanh", UnaryKind::Atanh),
    ("SoftPlus", UnaryKind::SoftPlus),
    ("SoftSign", UnaryKind::SoftSign),
    ("Mish", UnaryKind::Mish),
    ("HSwish", UnaryKind::HSwish),
    ("HSigmoid", UnaryKind::HSigmoid),
    ("Swish", UnaryKind::Swish),
    ("HardSigmoid", UnaryKind::HardSigmoid),
];

/// Every IR type name this file implements.
pub const TYPE_NAMES: [&str; 30] = {
    // `PLAIN`'s names, then the functions with attributes (see `from_ir`).
    let with_attributes = ["Round", "Gelu", "Elu"];
    let mut names = [""; 30];
    let mut i = 0;
    while i < PLAIN.len() {
        names[i] = PLAIN[i].0;
        i += 1;
    }
    while i < names.len() {
        names[i] = with_attributes[i - PLAIN.len()];
        i += 1;
    }
    names
};

/// The error function, by the Chebyshev fit of erfc of Numerical Recipes (fractional error
/// below 1.2e-7 everywhere).
fn erf(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = [
        -1.26551223,
        1.00002368,
        0.37409196,
        0.09678418,
        -0.18628806,
        0.27886807,
        -1.13520398,
        1.48851587,
        -0.82215223,
        0.17087277,
    ]
    .iter()
    .rev()
    .fold(0.0, |acc, &c| acc * t + c);
    let erfc = t * (-z * z + poly).exp();
    if x >= 0.0 {
        1.0 - erfc
    } else {
        erfc - 1.0
    }
}

/// ln(1 + eˣ) without overflow.
fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

impl UnaryKind {
    /// Applies the function; `p` holds the values of the parameter inputs (Swish's β,
    /// HardSigmoid's α and β).
    #[inline]
    pub fn apply(self, x: f64, p: [f64; 2]) -> f64 {
        use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI};
        match self {
            Self::Abs => x.abs(),
            Self::Negative => -x,
            Self::Sign => {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x
                }
            }
            Self::Floor => x.floor(),
            Self::Ceiling => x.ceil(),
            Self::Round { away: true } => x.round(),
            Self::Round { away: false } => x.round_ties_even(),
            Self::Exp => x.exp(),
            Self::Log => x.ln(),
            Self::Sqrt => x.sqrt(),
            Self::Erf => erf(x),
            Self::Sin => x.sin(),
            Self::Cos => x.cos(),
            Self::Tan => x.tan(),
            Self::Asin => x.asin(),
            Self::Acos => x.acos(),
            Self::Atan => x.atan(),
            Self::Sinh => x.sinh(),
            Self::Cosh => x.cosh(),
            Self::Asinh => x.asinh(),
            Self::Acosh => x.acosh(),
            Self::Atanh => x.atanh(),
            Self::Gelu { tanh: false } => 0.5 * x * (1.0 + erf(x * FRAC_1_SQRT_2)),
            Self::Gelu { tanh: true } => {
                // √(2/π) = (2/√π)/√2.
                let k = FRAC_2_SQRT_PI * FRAC_1_SQRT_2;
                0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
            }
            Self::Elu { alpha } => {
                if x > 0.0 {
                    x
                } else {
                    alpha * x.exp_m1()
                }
            }
            Self::SoftPlus => softplus(x),
            Self::SoftSign => x / (1.0 + x.abs()),
            Self::Mish => x * softplus(x).tanh(),
            Self::HSwish => x * (x + 3.0).clamp(0.0, 6.0) / 6.0,
            Self::HSigmoid => (x + 3.0).clamp(0.0, 6.0) / 6.0,
            Self::Swish => x / (1.0 + (-p[0] * x).exp()),
            Self::HardSigmoid => (p[0] * x + p[1]).clamp(0.0, 1.0),
        }
    }

    /// True for the functions that keep integers integral (computed by [`Self::apply_int`]).
    fn integral(self) -> bool {
        matches!(
            self,
            Self::Abs
                | Self::Negative
                | Self::Sign
                | Self::Floor
                | Self::Ceiling
                | Self::Round { .. }
        )
    }

    /// The exact (wrapping) integer result of an [`integral`](Self::integral) function.
    fn apply_int(self, x: i64) -> i64 {
        match self {
            Self::Abs => x.wrapping_abs(),
            Self::Negative => x.wrapping_neg(),
            Self::Sign => x.signum(),
            _ => x,
        }
    }

    /// Parameter inputs after the data input.
    fn parameter_inputs(self) -> std::ops::RangeInclusive<usize> {
        match self {
            Self::Swish => 0..=1,
            Self::HardSigmoid => 2..=2,
            _ => 0..=0,
        }
    }
}

/// An element-wise function of one input.
#[derive(Clone, Debug)]
pub struct Unary {
    /// The function.
    pub kind: UnaryKind,
}

impl Unary {
    /// Reads the type and its attributes (`mode` of Round, `approximation_mode` of Gelu-7,
    /// `alpha` of Elu).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        let name = layer.type_name.as_str();
        let kind = match name {
            "Round" => match layer.attr_str("mode")? {
                "half_to_even" => UnaryKind::Round { away: false },
                "half_away_from_zero" => UnaryKind::Round { away: true },
                m => {
                    return Err(layer.err(format!(
                        "mode=\"{m}\" is not supported (half_to_even or half_away_from_zero)"
                    )))
                }
            },
            "Gelu" => {
                let mode = if opset_number(layer) >= 7 {
                    layer.attr("approximation_mode").unwrap_or("ERF")
                } else {
                    "ERF"
                };
                match mode.to_ascii_lowercase().as_str() {
                    "erf" => UnaryKind::Gelu { tanh: false },
                    "tanh" => UnaryKind::Gelu { tanh: true },
                    m => {
                        return Err(layer.err(format!(
                            "approximation_mode=\"{m}\" is not supported (erf or tanh)"
                        )))
                    }
                }
            }
            "Elu" => {
                let text = layer.attr_str("alpha")?;
                let alpha = text.trim().parse().map_err(|_| {
                    layer.err(format!("attribute alpha=\"{text}\" is not a number"))
                })?;
                UnaryKind::Elu { alpha }
            }
            _ => PLAIN
                .iter()
                .find(|(n, _)| *n == name)
                .map(|&(_, k)| k)
                .ok_or_else(|| layer.err("not an element-wise unary op"))?,
        };
        let p = kind.parameter_inputs();
        expect_inputs(layer, 1 + p.start()..=1 + p.end())?;
        Ok(Self { kind })
    }

    /// The values of the scalar parameter inputs.
    fn parameters(&self, inputs: &[&Tensor]) -> Result<[f64; 2]> {
        let mut p = [1.0, 0.0];
        for (slot, t) in p.iter_mut().zip(&inputs[1..]) {
            let v = t.scalars();
            let [s] = v.as_slice() else {
                return Err(invalid(format!(
                    "{} parameter inputs must hold one value, got shape {:?}",
                    self.type_name(),
                    t.shape()
                )));
            };
            *slot = match *s {
                Scalar::Float(f) => f,
                Scalar::Int(i) => i as f64,
            };
        }
        Ok(p)
    }
}

fn map<T: Numeric>(kind: UnaryKind, p: [f64; 2], t: &Tensor) -> Result<Tensor> {
    let a = t.typed::<T>("data")?;
    let out = if !T::FLOAT && kind.integral() {
        a.mapv(|x| T::from_i64(kind.apply_int(x.to_i64())))
    } else {
        a.mapv(|x| T::from_f64(kind.apply(x.to_f64(), p)))
    };
    Ok(T::wrap(out))
}

impl Op for Unary {
    fn type_name(&self) -> &'static str {
        match self.kind {
            UnaryKind::Round { .. } => "Round",
            UnaryKind::Gelu { .. } => "Gelu",
            UnaryKind::Elu { .. } => "Elu",
            k => PLAIN.iter().find(|(_, p)| *p == k).map_or("", |&(n, _)| n),
        }
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        if et == ElementType::Boolean {
            return Err(invalid(format!(
                "{} is not defined for boolean inputs",
                self.type_name()
            )));
        }
        for (i, p) in inputs.iter().enumerate().skip(1) {
            if p.element_type != et {
                return Err(invalid(format!(
                    "input {i} is {}, the data is {et}",
                    p.element_type
                )));
            }
            if p.shape
                .to_static()
                .is_some_and(|s| s.iter().product::<usize>() != 1)
            {
                return Err(invalid(format!(
                    "input {i} must hold one value, got {}",
                    p.shape
                )));
            }
        }
        Ok(vec![OutputInfo::new(et, inputs[0].shape.clone())])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let p = self.kind.parameter_inputs();
        check_arity(self.type_name(), inputs, 1 + p.start()..=1 + p.end())?;
        let params = self.parameters(inputs)?;
        let t = inputs[0];
        if t.element_type() == ElementType::Boolean {
            return Err(invalid(format!(
                "{} is not defined for boolean inputs",
                self.type_name()
            )));
        }
        let out = crate::dispatch_type!(t.element_type(), T => map::<T>(self.kind, params, t))?;
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
    fn erf_is_accurate() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_8),
            (-1.0, -0.842_700_792_9),
            (3.0, 0.999_977_909_5),
        ] {
            assert!((erf(x) - want).abs() < 2e-7, "erf({x}) = {}", erf(x));
        }
    }
}
