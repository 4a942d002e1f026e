//! Tensors of the graph layer: an element type plus an n-dimensional array of that type.
//!
//! Storage is one `ndarray::ArrayD` per element type (an enum), always in row-major logical order
//! as far as callers are concerned (iterate with `.iter()`, never with raw slices of a view).
//! Type-generic ops are written once over [`Element`] and dispatched with [`map_tensor!`].

use half::f16;
use ndarray::{ArrayD, Axis, IxDyn, Slice};
use std::fmt;

use crate::error::{Error, Result};

/// The element types the graph layer supports, with OpenVINO's spellings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementType {
    /// 32-bit IEEE float (`f32`, precision `FP32`).
    F32,
    /// 16-bit IEEE float (`f16`, precision `FP16`).
    F16,
    /// 32-bit signed integer (`i32`, precision `I32`).
    I32,
    /// 64-bit signed integer (`i64`, precision `I64`).
    I64,
    /// 8-bit unsigned integer (`u8`, precision `U8`).
    U8,
    /// 8-bit signed integer (`i8`, precision `I8`).
    I8,
    /// Boolean stored as one byte (`boolean`, precision `BOOL`).
    Boolean,
}

impl ElementType {
    /// Every supported element type.
    pub const ALL: [ElementType; 7] = [
        ElementType::F32,
        ElementType::F16,
        ElementType::I32,
        ElementType::I64,
        ElementType::U8,
        ElementType::I8,
        ElementType::Boolean,
    ];

    /// Parses the lowercase spelling of `<data element_type=…>` (`f32`, `i64`, `boolean`, …).
    pub fn from_ir_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.ir_name() == name)
    }

    /// Parses a port `precision` attribute (`FP32`, `I64`, `BOOL`, …).
    pub fn from_precision(precision: &str) -> Option<Self> {
        match precision.to_ascii_uppercase().as_str() {
            "FP32" | "F32" => Some(Self::F32),
            "FP16" | "F16" => Some(Self::F16),
            "I32" => Some(Self::I32),
            "I64" => Some(Self::I64),
            "U8" => Some(Self::U8),
            "I8" => Some(Self::I8),
            "BOOL" | "BOOLEAN" => Some(Self::Boolean),
            _ => None,
        }
    }

    /// The lowercase IR spelling (`f32`, `boolean`, …).
    pub fn ir_name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F16 => "f16",
            Self::I32 => "i32",
            Self::I64 => "i64",
            Self::U8 => "u8",
            Self::I8 => "i8",
            Self::Boolean => "boolean",
        }
    }

    /// Bytes per element in an IR `.bin` blob and in user buffers.
    pub fn size_bytes(self) -> usize {
        match self {
            Self::F32 | Self::I32 => 4,
            Self::F16 => 2,
            Self::I64 => 8,
            Self::U8 | Self::I8 | Self::Boolean => 1,
        }
    }

    /// True for `f32` and `f16`.
    pub fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F16)
    }

    /// True for the integer types (not `boolean`).
    pub fn is_integer(self) -> bool {
        matches!(self, Self::I32 | Self::I64 | Self::U8 | Self::I8)
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ir_name())
    }
}

/// A number read out of any element type, keeping integers exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A floating-point value.
    Float(f64),
    /// An integer (booleans read as 0 / 1).
    Int(i64),
}

/// A Rust type that can be the element of a [`Tensor`].
pub trait Element: Copy + Default + PartialEq + fmt::Debug + Send + Sync + 'static {
    /// The matching element type.
    const TYPE: ElementType;
    /// Wraps an array of this type into a tensor.
    fn wrap(array: ArrayD<Self>) -> Tensor;
    /// The array inside `t` if its element type is `Self`.
    fn view(t: &Tensor) -> Option<&ArrayD<Self>>;
    /// This value as a [`Scalar`].
    fn to_scalar(self) -> Scalar;
    /// Converts a scalar into this type with OpenVINO's `Convert` rules (floats to integers
    /// truncate toward zero and wrap like a C cast through i64; anything to boolean is `!= 0`).
    fn from_scalar(s: Scalar) -> Self;
    /// Decodes one element from little-endian bytes (`bytes.len() == TYPE.size_bytes()`).
    fn from_le(bytes: &[u8]) -> Self;
}

macro_rules! int_element {
    ($t:ty, $variant:ident) => {
        impl Element for $t {
            const TYPE: ElementType = ElementType::$variant;
            fn wrap(array: ArrayD<Self>) -> Tensor {
                Tensor::$variant(array)
            }
            fn view(t: &Tensor) -> Option<&ArrayD<Self>> {
                match t {
                    Tensor::$variant(a) => Some(a),
                    _ => None,
                }
            }
            fn to_scalar(self) -> Scalar {
                Scalar::Int(self as i64)
            }
            fn from_scalar(s: Scalar) -> Self {
                match s {
                    Scalar::Int(v) => v as $t,
                    // `as i64` saturates and maps NaN to 0; the second cast wraps like C.
                    Scalar::Float(v) => (v.trunc() as i64) as $t,
                }
            }
            fn from_le(bytes: &[u8]) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(bytes);
                <$t>::from_le_bytes(b)
            }
        }
    };
}
int_element!(i32, I32);
int_element!(i64, I64);
int_element!(u8, U8);
int_element!(i8, I8);

impl Element for f32 {
    const TYPE: ElementType = ElementType::F32;
    fn wrap(array: ArrayD<Self>) -> Tensor {
        Tensor::F32(array)
    }
    fn view(t: &Tensor) -> Option<&ArrayD<Self>> {
        match t {
            Tensor::F32(a) => Some(a),
            _ => None,
        }
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Float(self as f64)
    }
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Int(v) => v as f32,
            Scalar::Float(v) => v as f32,
        }
    }
    fn from_le(bytes: &[u8]) -> Self {
        f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
    }
}

impl Element for f16 {
    const TYPE: ElementType = ElementType::F16;
    fn wrap(array: ArrayD<Self>) -> Tensor {
        Tensor::F16(array)
    }
    fn view(t: &Tensor) -> Option<&ArrayD<Self>> {
        match t {
            Tensor::F16(a) => Some(a),
            _ => None,
        }
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Float(self.to_f64())
    }
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Int(v) => f16::from_f64(v as f64),
            Scalar::Float(v) => f16::from_f64(v),
        }
    }
    fn from_le(bytes: &[u8]) -> Self {
        f16::from_le_bytes([bytes[0], bytes[1]])
    }
}

impl Element for bool {
    const TYPE: ElementType = ElementType::Boolean;
    fn wrap(array: ArrayD<Self>) -> Tensor {
        Tensor::Boolean(array)
    }
    fn view(t: &Tensor) -> Option<&ArrayD<Self>> {
        match t {
            Tensor::Boolean(a) => Some(a),
            _ => None,
        }
    }
    fn to_scalar(self) -> Scalar {
        Scalar::Int(self as i64)
    }
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Int(v) => v != 0,
            Scalar::Float(v) => v != 0.0,
        }
    }
    fn from_le(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

/// A tensor: element type + shape + data.
#[derive(Clone, Debug, PartialEq)]
pub enum Tensor {
    /// `f32` data.
    F32(ArrayD<f32>),
    /// `f16` data.
    F16(ArrayD<f16>),
    /// `i32` data.
    I32(ArrayD<i32>),
    /// `i64` data.
    I64(ArrayD<i64>),
    /// `u8` data.
    U8(ArrayD<u8>),
    /// `i8` data.
    I8(ArrayD<i8>),
    /// `boolean` data.
    Boolean(ArrayD<bool>),
}

/// Applies a type-generic expression to the array inside a tensor and wraps the resulting array
/// back into a tensor of the same element type: `map_tensor!(t, a => a.clone())`.
#[macro_export]
macro_rules! map_tensor {
    ($t:expr, $a:ident => $body:expr) => {
        match $t {
            $crate::graph::tensor::Tensor::F32($a) => $crate::graph::tensor::Tensor::F32($body),
            $crate::graph::tensor::Tensor::F16($a) => $crate::graph::tensor::Tensor::F16($body),
            $crate::graph::tensor::Tensor::I32($a) => $crate::graph::tensor::Tensor::I32($body),
            $crate::graph::tensor::Tensor::I64($a) => $crate::graph::tensor::Tensor::I64($body),
            $crate::graph::tensor::Tensor::U8($a) => $crate::graph::tensor::Tensor::U8($body),
            $crate::graph::tensor::Tensor::I8($a) => $crate::graph::tensor::Tensor::I8($body),
            $crate::graph::tensor::Tensor::Boolean($a) => {
                $crate::graph::tensor::Tensor::Boolean($body)
            }
        }
    };
}

/// Applies a type-generic expression to the array inside a tensor and returns its value
/// (not re-wrapped): `with_tensor!(t, a => a.len())`.
#[macro_export]
macro_rules! with_tensor {
    ($t:expr, $a:ident => $body:expr) => {
        match $t {
            $crate::graph::tensor::Tensor::F32($a) => $body,
            $crate::graph::tensor::Tensor::F16($a) => $body,
            $crate::graph::tensor::Tensor::I32($a) => $body,
            $crate::graph::tensor::Tensor::I64($a) => $body,
            $crate::graph::tensor::Tensor::U8($a) => $body,
            $crate::graph::tensor::Tensor::I8($a) => $body,
            $crate::graph::tensor::Tensor::Boolean($a) => $body,
        }
    };
}

/// Runs a type-generic expression with `$T` bound to the Rust type of an [`ElementType`]:
/// `dispatch_type!(et, T => Tensor::scalar(T::default()))`.
#[macro_export]
macro_rules! dispatch_type {
    ($et:expr, $T:ident => $body:expr) => {
        match $et {
            $crate::graph::tensor::ElementType::F32 => {
                type $T = f32;
                $body
            }
            $crate::graph::tensor::ElementType::F16 => {
                type $T = half::f16;
                $body
            }
            $crate::graph::tensor::ElementType::I32 => {
                type $T = i32;
                $body
            }
            $crate::graph::tensor::ElementType::I64 => {
                type $T = i64;
                $body
            }
            $crate::graph::tensor::ElementType::U8 => {
                type $T = u8;
                $body
            }
            $crate::graph::tensor::ElementType::I8 => {
                type $T = i8;
                $body
            }
            $crate::graph::tensor::ElementType::Boolean => {
                type $T = bool;
                $body
            }
        }
    };
}

pub use crate::{dispatch_type, map_tensor, with_tensor};

impl Tensor {
    /// A tensor from a shape and row-major data; fails if the lengths disagree.
    pub fn from_vec<T: Element>(shape: &[usize], data: Vec<T>) -> Result<Tensor> {
        let n = data.len();
        ArrayD::from_shape_vec(IxDyn(shape), data)
            .map(T::wrap)
            .map_err(|_| {
                Error::InvalidArguments(format!(
                    "tensor of shape {shape:?} needs {} elements, got {n}",
                    shape.iter().product::<usize>()
                ))
            })
    }

    /// A rank-0 tensor holding `v`.
    pub fn scalar<T: Element>(v: T) -> Tensor {
        T::wrap(ArrayD::from_elem(IxDyn(&[]), v))
    }

    /// A tensor of the given type and shape filled with zeros (false).
    pub fn zeros(element_type: ElementType, shape: &[usize]) -> Tensor {
        dispatch_type!(element_type, T => T::wrap(ArrayD::from_elem(IxDyn(shape), T::default())))
    }

    /// Decodes a tensor from little-endian bytes (an IR blob or a user buffer); `bytes` must
    /// hold exactly `numel · size_bytes` bytes.
    pub fn from_le_bytes(
        element_type: ElementType,
        shape: &[usize],
        bytes: &[u8],
    ) -> Result<Tensor> {
        fn decode<T: Element>(shape: &[usize], bytes: &[u8]) -> Result<Tensor> {
            let size = T::TYPE.size_bytes();
            Tensor::from_vec(
                shape,
                bytes.chunks_exact(size).map(T::from_le).collect::<Vec<T>>(),
            )
        }
        let numel = checked_numel(shape)?;
        let need = numel.checked_mul(element_type.size_bytes());
        if need != Some(bytes.len()) {
            return Err(Error::InvalidArguments(format!(
                "{element_type} tensor of shape {shape:?} needs {} bytes, got {}",
                need.map_or_else(|| "too many".to_string(), |n| n.to_string()),
                bytes.len()
            )));
        }
        dispatch_type!(element_type, T => decode::<T>(shape, bytes))
    }

    /// The data as little-endian bytes in row-major order.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Tensor::F32(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Tensor::F16(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Tensor::I32(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Tensor::I64(a) => a.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Tensor::U8(a) => a.iter().copied().collect(),
            Tensor::I8(a) => a.iter().map(|&v| v as u8).collect(),
            Tensor::Boolean(a) => a.iter().map(|&v| v as u8).collect(),
        }
    }

    /// The element type.
    pub fn element_type(&self) -> ElementType {
        match self {
            Tensor::F32(_) => ElementType::F32,
            Tensor::F16(_) => ElementType::F16,
            Tensor::I32(_) => ElementType::I32,
            Tensor::I64(_) => ElementType::I64,
            Tensor::U8(_) => ElementType::U8,
            Tensor::I8(_) => ElementType::I8,
            Tensor::Boolean(_) => ElementType::Boolean,
        }
    }

    /// The shape (empty for a scalar).
    pub fn shape(&self) -> &[usize] {
        with_tensor!(self, a => a.shape())
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        with_tensor!(self, a => a.len())
    }

    /// True when the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `f32` array, if this is an `f32` tensor.
    pub fn as_f32(&self) -> Option<&ArrayD<f32>> {
        f32::view(self)
    }

    /// The array of element type `T`, or an error naming `what` and the actual type.
    pub fn typed<T: Element>(&self, what: &str) -> Result<&ArrayD<T>> {
        T::view(self).ok_or_else(|| {
            Error::InvalidArguments(format!(
                "{what} must be {}, got {}",
                T::TYPE,
                self.element_type()
            ))
        })
    }

    /// Every element as a [`Scalar`], row-major.
    pub fn scalars(&self) -> Vec<Scalar> {
        with_tensor!(self, a => a.iter().map(|v| v.to_scalar()).collect())
    }

    /// The values of an integer tensor as `i64` (for shapes, axes and indices); `what` names
    /// the input in the error when the tensor is not of an integer type.
    pub fn to_i64_vec(&self, what: &str) -> Result<Vec<i64>> {
        if !self.element_type().is_integer() {
            return Err(Error::InvalidArguments(format!(
                "{what} must be an integer tensor, got {}",
                self.element_type()
            )));
        }
        Ok(self
            .scalars()
            .into_iter()
            .map(|s| match s {
                Scalar::Int(v) => v,
                Scalar::Float(v) => v as i64,
            })
            .collect())
    }

    /// Converts to another element type with OpenVINO's `Convert` rules.
    pub fn convert(&self, to: ElementType) -> Tensor {
        fn conv<D: Element>(t: &Tensor) -> Tensor {
            D::wrap(with_tensor!(t, a => a.mapv(|v| D::from_scalar(v.to_scalar()))))
        }
        if to == self.element_type() {
            return self.clone();
        }
        dispatch_type!(to, T => conv::<T>(self))
    }

    /// The same data with a new shape of equal element count.
    pub fn reshaped(&self, shape: &[usize]) -> Result<Tensor> {
        self.check_reshape(shape)?;
        Ok(map_tensor!(self, a => reshape_array(a, shape)))
    }

    /// [`Tensor::reshaped`] without copying: the array is moved (copied only when it is not
    /// in row-major layout).
    pub fn into_reshaped(self, shape: &[usize]) -> Result<Tensor> {
        self.check_reshape(shape)?;
        Ok(map_tensor!(self, a => {
            let a = if a.is_standard_layout() { a } else { a.as_standard_layout().into_owned() };
            a.into_shape_with_order(IxDyn(shape))
                .expect("element count checked, row-major layout")
        }))
    }

    /// A tensor of zeros, its buffer allocated fallibly (for sizes an input decides).
    pub fn try_zeros(element_type: ElementType, shape: &[usize]) -> Result<Tensor> {
        fn zeros<T: Element>(shape: &[usize], n: usize) -> Result<Tensor> {
            let mut v: Vec<T> = Vec::new();
            v.try_reserve_exact(n).map_err(|_| {
                Error::OutOfMemory(format!("no memory for a tensor of shape {shape:?}"))
            })?;
            v.resize(n, T::default());
            Tensor::from_vec(shape, v)
        }
        let n = checked_numel(shape)?;
        dispatch_type!(element_type, T => zeros::<T>(shape, n))
    }

    /// Overwrites this tensor's values with `src`'s (same element type and shape, else false
    /// and nothing changes).
    pub fn copy_from(&mut self, src: &Tensor) -> bool {
        if self.shape() != src.shape() {
            return false;
        }
        same_type!(self, src, |d, s| d.assign(s));
        true
    }

    /// Overwrites this tensor's values with `src`'s in row-major order (same element type
    /// and count, else false and nothing changes): a reshape into an existing buffer.
    pub fn copy_reshaped(&mut self, src: &Tensor) -> bool {
        if self.len() != src.len() {
            return false;
        }
        same_type!(self, src, |d, s| match (d.as_slice_mut(), s.as_slice()) {
            (Some(d), Some(s)) => d.copy_from_slice(s),
            (Some(d), None) => d.iter_mut().zip(s.iter()).for_each(|(d, s)| *d = *s),
            (None, _) => return false,
        });
        true
    }

    /// Overwrites this tensor with `src[.., begin..begin + len, ..]` (`len` = this tensor's
    /// length along `axis`); false, changing nothing, when the types or the other dims differ
    /// or the range is out of `src`.
    pub fn copy_from_slice_of(&mut self, src: &Tensor, axis: usize, begin: usize) -> bool {
        let fits = |d: &[usize], s: &[usize]| {
            d.len() == s.len()
                && axis < d.len()
                && (0..d.len()).all(|i| i == axis || d[i] == s[i])
                && begin.checked_add(d[axis]).is_some_and(|e| e <= s[axis])
        };
        if !fits(self.shape(), src.shape()) {
            return false;
        }
        let len = self.shape()[axis];
        same_type!(self, src, |d, s| d
            .assign(&s.slice_axis(Axis(axis), Slice::from(begin..begin + len))));
        true
    }

    /// Overwrites `self[.., begin..begin + len, ..]` with `src` (`len` = `src`'s length along
    /// `axis`); false, changing nothing, when the types or the other dims differ or the range
    /// is out of this tensor.
    pub fn copy_into_slice(&mut self, axis: usize, begin: usize, src: &Tensor) -> bool {
        let (d, s) = (self.shape(), src.shape());
        let fits = d.len() == s.len()
            && axis < d.len()
            && (0..d.len()).all(|i| i == axis || d[i] == s[i])
            && begin.checked_add(s[axis]).is_some_and(|e| e <= d[axis]);
        if !fits {
            return false;
        }
        let len = s[axis];
        same_type!(self, src, |d, s| d
            .slice_axis_mut(Axis(axis), Slice::from(begin..begin + len))
            .assign(s));
        true
    }

    fn check_reshape(&self, shape: &[usize]) -> Result<()> {
        if checked_numel(shape)? != self.len() {
            return Err(Error::InvalidArguments(format!(
                "cannot reshape {:?} ({} elements) to {shape:?}",
                self.shape(),
                self.len()
            )));
        }
        Ok(())
    }
}

/// Runs `$body` on the arrays of two tensors (`$d` mutable) when they have the same element
/// type (true), else is false.
macro_rules! same_type {
    ($dst:expr, $src:expr, |$d:ident, $s:ident| $body:expr) => {
        match ($dst, $src) {
            (Tensor::F32($d), Tensor::F32($s)) => $body,
            (Tensor::F16($d), Tensor::F16($s)) => $body,
            (Tensor::I32($d), Tensor::I32($s)) => $body,
            (Tensor::I64($d), Tensor::I64($s)) => $body,
            (Tensor::U8($d), Tensor::U8($s)) => $body,
            (Tensor::I8($d), Tensor::I8($s)) => $body,
            (Tensor::Boolean($d), Tensor::Boolean($s)) => $body,
            _ => return false,
        }
    };
}
use same_type;

/// Row-major reshape of an array whose element count equals that of `shape`.
pub(crate) fn reshape_array<T: Clone>(a: &ArrayD<T>, shape: &[usize]) -> ArrayD<T> {
    let data: Vec<T> = match a.as_slice() {
        Some(s) => s.to_vec(),
        None => a.iter().cloned().collect(),
    };
    ArrayD::from_shape_vec(IxDyn(shape), data).expect("element count checked by the caller")
}

/// The element count of `shape`, or an error if it overflows `usize`.
pub fn checked_numel(shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| Error::InvalidArguments(format!("shape {shape:?} has too many elements")))
}

macro_rules! impl_from_array {
    ($t:ty) => {
        impl From<ArrayD<$t>> for Tensor {
            fn from(a: ArrayD<$t>) -> Tensor {
                <$t as Element>::wrap(a)
            }
        }
    };
}
impl_from_array!(f32);
impl_from_array!(f16);
impl_from_array!(i32);
impl_from_array!(i64);
impl_from_array!(u8);
impl_from_array!(i8);
impl_from_array!(bool);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_every_type() {
        for et in ElementType::ALL {
            let bytes: Vec<u8> = (0..6 * et.size_bytes()).map(|i| (i % 2) as u8).collect();
            let t = Tensor::from_le_bytes(et, &[2, 3], &bytes).unwrap();
            assert_eq!(t.element_type(), et);
            assert_eq!(t.shape(), &[2, 3]);
            assert_eq!(t.to_le_bytes(), bytes);
            assert_eq!(ElementType::from_ir_name(et.ir_name()), Some(et));
        }
        assert!(Tensor::from_le_bytes(ElementType::F32, &[2], &[0; 7]).is_err());
    }

    #[test]
    fn into_reshaped_keeps_row_major_order() {
        let t = Tensor::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
        let want = Tensor::from_vec(&[3, 1, 2], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
        assert_eq!(t.clone().into_reshaped(&[3, 1, 2]).unwrap(), want);
        assert_eq!(t.reshaped(&[3, 1, 2]).unwrap(), want);
        let Tensor::F32(a) = t else { unreachable!() };
        let transposed = Tensor::F32(a.reversed_axes());
        assert_eq!(
            transposed.into_reshaped(&[6]).unwrap(),
            Tensor::from_vec(&[6], vec![1f32, 4., 2., 5., 3., 6.]).unwrap()
        );
        let t = Tensor::from_vec(&[2], vec![1i64, 2]).unwrap();
        assert!(t.into_reshaped(&[3]).is_err());
    }

    #[test]
    fn convert_follows_c_casts() {
        let t = Tensor::from_vec(&[4], vec![2.7f32, -2.7, 0.0, 300.0]).unwrap();
        assert_eq!(
            t.convert(ElementType::I32),
            Tensor::from_vec(&[4], vec![2i32, -2, 0, 300]).unwrap()
        );
        assert_eq!(
            t.convert(ElementType::Boolean),
            Tensor::from_vec(&[4], vec![true, true, false, true]).unwrap()
        );
        assert_eq!(
            t.convert(ElementType::U8).to_i64_vec("x").unwrap(),
            vec![2, 254, 0, 44]
        );
    }
}
