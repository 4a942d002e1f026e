//! The floating-point precision of an RNN primitive: which data-type combinations are accepted
//! (reference §a.5, checked against oneDNN 3.13's CPU engine) and where the low-precision
//! configurations round.
//!
//! The drivers, scratch and workspace stay f32 for every precision: user tensors in bf16 or
//! f16 are widened where they are read and narrowed where they are written
//! ([`staging`](super::staging)); packed weights hold values rounded to the precision; the cells
//! round every hidden state they store (h, LSTMP's h̃ and h, GRU's `r ⊙ h`) — the operands of
//! the next GEMMs, which oneDNN keeps in the activation type. Products of two bf16 (or f16)
//! values are exact in f32, so the f32 GEMM computes what a bf16 GEMM with f32 accumulation
//! computes. Gate math is f32, as in oneDNN; the LSTM c-state is computed in f32 and rounded
//! to its own type (f32, bf16 or f16) where it is stored (`RnnProblem::c_precision`).

use crate::args;
use crate::error::Result;
use crate::kernels::gemm_bf16::bf16_bits;
use crate::memory::packed::PANEL;
use crate::types::{DataType, PropKind};
use crate::unimplemented_err;

/// The precision of the activations and weights of an RNN primitive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    /// Everything f32.
    #[default]
    F32,
    /// bf16 activations and weights (bias f32 or bf16, c-state f32 or bf16, peephole f32).
    Bf16,
    /// f16 activations and weights, forward inference (bias f32 or f16, c-state f32 or f16,
    /// peephole f32).
    F16,
}

impl Precision {
    /// The precision of a request whose forward tensors have types `dt(arg)` (absent ones
    /// `None`): the type of `src_layer`, with every other tensor's type checked against
    /// oneDNN's table; a combination oneDNN's CPU engine does not run is `unimplemented`, as
    /// it answers.
    pub fn of_request(dt: impl Fn(i32) -> Option<DataType>) -> Result<Self> {
        let base = dt(args::SRC_LAYER).unwrap_or(DataType::F32);
        let precision = match base {
            DataType::F32 => Precision::F32,
            DataType::Bf16 => Precision::Bf16,
            DataType::F16 => Precision::F16,
            other => unimplemented_err!("RNN with {other} src_layer is not implemented"),
        };
        let check = |arg: i32, allowed: &[DataType]| -> Result<()> {
            match dt(arg) {
                Some(t) if !allowed.contains(&t) => unimplemented_err!(
                    "{} is {t}: a {base} RNN takes {}",
                    args::rnn_name(arg),
                    allowed
                        .iter()
                        .map(|a| a.to_string())
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
                _ => Ok(()),
            }
        };
        let same = [base];
        let or_f32 = [base, DataType::F32];
        for arg in [
            args::SRC_ITER,
            args::WEIGHTS_LAYER,
            args::WEIGHTS_ITER,
            args::WEIGHTS_PROJECTION,
            args::AUGRU_ATTENTION,
            args::DST_LAYER,
            args::DST_ITER,
        ] {
            check(arg, &same)?;
        }
        check(args::BIAS, &or_f32)?;
        check(args::WEIGHTS_PEEPHOLE, &[DataType::F32])?;
        check(args::SRC_ITER_C, &or_f32)?;
        check(args::DST_ITER_C, &or_f32)?;
        if let (Some(s), Some(d)) = (dt(args::SRC_ITER_C), dt(args::DST_ITER_C)) {
            if s != d {
                unimplemented_err!("src_iter_c is {s}, dst_iter_c {d}: they must be one type");
            }
        }
        Ok(precision)
    }

    /// `unimplemented` for a propagation kind this precision does not run: f16 is forward
    /// inference only. oneDNN answers this after the dimensions (inconsistent ones are
    /// `invalid_arguments` first), so the caller checks it after them.
    pub fn check_prop(self, prop: PropKind) -> Result<()> {
        if self == Precision::F16 && prop != PropKind::ForwardInference {
            unimplemented_err!("f16 RNN primitives are forward inference only");
        }
        Ok(())
    }

    /// The element type of the activations and weights.
    pub fn data_type(self) -> DataType {
        match self {
            Precision::F32 => DataType::F32,
            Precision::Bf16 => DataType::Bf16,
            Precision::F16 => DataType::F16,
        }
    }

    /// The precision whose values tensors of type `dt` hold (f32 for the other types).
    pub fn of_type(dt: DataType) -> Self {
        match dt {
            DataType::Bf16 => Precision::Bf16,
            DataType::F16 => Precision::F16,
            _ => Precision::F32,
        }
    }

    /// `x` rounded to the nearest value of the precision (ties to even, as `vcvtneps2bf16`
    /// and `vcvtps2ph`).
    #[inline(always)]
    pub fn round(self, x: f32) -> f32 {
        match self {
            Precision::F32 => x,
            Precision::Bf16 => f32::from_bits(bf16_bits(x) << 16),
            Precision::F16 => half::f16::from_f32(x).to_f32(),
        }
    }

    /// A panel of values rounded (the first `valid`; the rest as they are). bf16 rounds the
    /// whole panel in one pass the compiler vectorizes, keeping the values past `valid`.
    #[inline(always)]
    pub fn round_panel(self, v: &[f32; PANEL], valid: usize) -> [f32; PANEL] {
        let mut out = *v;
        match self {
            Precision::F32 => {}
            Precision::Bf16 => {
                for (i, x) in out.iter_mut().enumerate() {
                    let r = self.round(*x);
                    *x = if i < valid { r } else { *x };
                }
            }
            Precision::F16 => {
                for x in &mut out[..valid] {
                    *x = self.round(*x);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_nearest_even() {
        let b = Precision::Bf16;
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
        assert_eq!(b.round(1.0 + 2f32.powi(-8)), 1.0);
        assert_eq!(
            b.round(1.0 + 3.0 * 2f32.powi(-8)),
            1.0 + 2.0 * 2f32.powi(-7)
        );
        assert_eq!(
            b.round(1.0 + 2f32.powi(-8) + 2f32.powi(-20)),
            1.0 + 2f32.powi(-7)
        );
        assert!(b.round(f32::NAN).is_nan());
        let h = Precision::F16;
        assert_eq!(h.round(1.0 + 2f32.powi(-11)), 1.0);
        assert_eq!(
            h.round(1.0 + 3.0 * 2f32.powi(-11)),
            1.0 + 2.0 * 2f32.powi(-10)
        );
        assert_eq!(Precision::F32.round(0.1), 0.1);
    }
}
