//! Element types seen as numbers, for the ops whose
//! formula is written once over floats and integers (reductions, Range, Clamp, unary math).
//!
//! Floats compute in `f64` and integers in `i64` (wrapping), then convert back; an integer
//! result out of the type's range wraps like a C cast.

use half::f16;

use crate::graph::tensor::Element;

/// An element type seen as a number.
pub trait Numeric: Element + PartialOrd {
    /// True for `f32` and `f16`.
    const FLOAT: bool;
    /// The value as `f64`.
    fn to_f64(self) -> f64;
    /// A value from `f64` (integers truncate toward zero, saturating at `i64`, then wrap).
    fn from_f64(v: f64) -> Self;
    /// The value as `i64` (floats truncate toward zero).
    fn to_i64(self) -> i64;
    /// A value from `i64` (wrapping for narrower integers).
    fn from_i64(v: i64) -> Self;
    /// The lowest finite value.
    fn lowest() -> Self;
    /// The highest finite value.
    fn highest() -> Self;
}

macro_rules! int_numeric {
    ($($t:ty),*) => {$(
        impl Numeric for $t {
            const FLOAT: bool = false;
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                (v as i64) as $t
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn lowest() -> Self {
                <$t>::MIN
            }
            fn highest() -> Self {
                <$t>::MAX
            }
        }
    )*};
}
int_numeric!(i32, i64, u8, i8);

impl Numeric for f32 {
    const FLOAT: bool = true;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn from_i64(v: i64) -> Self {
        v as f32
    }
    fn lowest() -> Self {
        f32::MIN
    }
    fn highest() -> Self {
        f32::MAX
    }
}

impl Numeric for f16 {
    const FLOAT: bool = true;
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn to_i64(self) -> i64 {
        f16::to_f64(self) as i64
    }
    fn from_i64(v: i64) -> Self {
        f16::from_f64(v as f64)
    }
    fn lowest() -> Self {
        f16::MIN
    }
    fn highest() -> Self {
        f16::MAX
    }
}

/// Booleans count as 0 / 1 so that generic code dispatches over every type; the ops whose
/// specification excludes `boolean` refuse it before computing.
impl Numeric for bool {
    const FLOAT: bool = false;
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    fn lowest() -> Self {
        false
    }
    fn highest() -> Self {
        true
    }
}
