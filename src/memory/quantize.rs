//! What a reorder does to values with the RNN int8 attributes (reference §a.9, §a.14):
//! f32 data into u8/s8 is quantized with the data qparams (`q = scale·x + shift`, rounded half
//! to even, saturated), u8/s8 data into f32 dequantized (`(q − shift)/scale`); f32 weights into
//! s8 are quantized with the weights scales (`ldigo`: mask 0 or 24 = per gate × output channel;
//! 4-D projection weights: the projection scales, mask 0 or 8). Into the packed s8 layout the
//! reorder also writes the compensation (`memory::packed_int8`).

use super::desc::{Layout, MemoryDesc};
use super::packed_int8::Int8Layout;
use crate::attr::{Attr, WeightsQParams};
use crate::error::Result;
use crate::types::DataType;
use crate::{ensure_args, invalid};

/// The value transform of a reorder.
#[derive(Clone, Debug, PartialEq)]
pub enum Quantization {
    /// Values are converted as they are.
    None,
    /// `scale·x + shift` (the store rounds and saturates).
    Data {
        /// Scale.
        scale: f32,
        /// Shift.
        shift: f32,
    },
    /// `(x − shift)/scale`.
    Dequantize {
        /// Scale.
        scale: f32,
        /// Shift.
        shift: f32,
    },
    /// `scales[index(mask)]·x`.
    Weights(WeightsQParams),
}

impl Quantization {
    /// The transform of a reorder from `src` to `dst` with `attr`; `invalid_arguments` when
    /// the weights scales do not match the mask over the dims.
    pub fn of(src: &MemoryDesc, dst: &MemoryDesc, attr: &Attr) -> Result<Self> {
        let (sdt, ddt) = (src.data_type(), dst.data_type());
        let int8 = |dt| matches!(dt, DataType::U8 | DataType::S8);
        let (scale, shift) = attr.rnn_data_qparams;
        let data_default = (scale, shift) == (1.0, 0.0);
        let weights = |q: &WeightsQParams| -> Result<Self> {
            check_mask(q, src.dims())?;
            Ok(Self::Weights(q.clone()))
        };
        if sdt == DataType::F32 && ddt == DataType::S8 {
            let packed = matches!(dst.layout(), Layout::Packed(_));
            let projection = &attr.rnn_weights_projection_qparams;
            return match src.ndims() {
                5 => weights(&attr.rnn_weights_qparams),
                4 if packed || (data_default && *projection != WeightsQParams::default()) => {
                    weights(projection)
                }
                _ if !data_default => Ok(Self::Data { scale, shift }),
                _ => Ok(Self::None),
            };
        }
        if data_default {
            return Ok(Self::None);
        }
        Ok(match (sdt, ddt) {
            (DataType::F32, d) if int8(d) => Self::Data { scale, shift },
            (s, DataType::F32) if int8(s) => Self::Dequantize { scale, shift },
            _ => Self::None,
        })
    }

    /// Applies the transform to the value at logical index `idx`.
    pub fn apply(&self, v: f32, idx: &[i64], dims: &[i64]) -> f32 {
        match self {
            Self::None => v,
            Self::Data { scale, shift } => v * scale + shift,
            Self::Dequantize { scale, shift } => (v - shift) / scale,
            Self::Weights(q) => q.scales[scale_index(q.mask, idx, dims)] * v,
        }
    }
}

/// Index of the scale of element `idx`: its row-major index over the dims in `mask`.
fn scale_index(mask: i32, idx: &[i64], dims: &[i64]) -> usize {
    let mut k = 0usize;
    for (j, (&i, &d)) in idx.iter().zip(dims).enumerate() {
        if mask & (1 << j) != 0 {
            k = k * d as usize + i as usize;
        }
    }
    k
}

/// The scales count must be the product of the masked dims, and the mask must name dims.
fn check_mask(q: &WeightsQParams, dims: &[i64]) -> Result<()> {
    if q.mask >> dims.len() != 0 {
        invalid!(
            "weights scales mask {} names dims the weights do not have",
            q.mask
        );
    }
    let want: i64 = dims
        .iter()
        .enumerate()
        .filter(|(j, _)| q.mask & (1 << j) != 0)
        .map(|(_, &d)| d)
        .product();
    ensure_args!(
        q.scales.len() as i64 == want,
        "weights scales: mask {} over dims {dims:?} takes {want} scales, {} given",
        q.mask,
        q.scales.len()
    );
    Ok(())
}

/// Writes s8 weights into the packed int8 layout with their compensation: `value(l, d, i, g,
/// o)` gives each quantized weight (the padding is zeroed).
///
/// # Safety
/// `dst` must hold `lay.bytes()` bytes.
pub unsafe fn pack_s8(lay: &Int8Layout, dst: *mut u8, value: impl Fn([usize; 5]) -> i8) {
    // SAFETY: the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts_mut(dst, lay.bytes()) };
    let (weights, comp) = bytes.split_at_mut(lay.weights_bytes());
    weights.fill(0);
    for l in 0..lay.l {
        for d in 0..lay.d {
            for g in 0..lay.g {
                for o in 0..lay.o {
                    let mut sum = 0i32;
                    for i in 0..lay.i {
                        let q = value([l, d, i, g, o]);
                        weights[lay.offset(l, d, i, g, o)] = q as u8;
                        sum += q as i32;
                    }
                    let at = 4 * lay.comp_index(l, d, g, o);
                    comp[at..at + 4].copy_from_slice(&sum.to_ne_bytes());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_indices_follow_the_mask() {
        let dims = [1, 1, 5, 4, 3];
        assert_eq!(scale_index(0, &[0, 0, 2, 3, 1], &dims), 0);
        assert_eq!(scale_index(24, &[0, 0, 2, 3, 1], &dims), 3 * 3 + 1);
        assert_eq!(scale_index(8, &[0, 0, 2, 7], &[1, 1, 5, 9]), 7);
        let q = |mask, n| WeightsQParams {
            mask,
            scales: vec![1.0; n],
        };
        assert!(check_mask(&q(24, 12), &dims).is_ok());
        assert!(check_mask(&q(24, 11), &dims).is_err());
        assert!(check_mask(&q(64, 1), &dims).is_err());
        assert!(check_mask(&q(0, 1), &dims).is_ok());
    }
}
