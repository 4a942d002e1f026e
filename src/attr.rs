//! Primitive attributes (`dnnl_primitive_attr_t`): the subset RNN primitives use.

use crate::ensure_args;
use crate::error::Result;
use crate::types::{FpmathMode, ScratchpadMode};

/// Per-tensor or per-channel quantization scales of RNN weights.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsQParams {
    /// Mask over the ldigo dims (0: one scale; 24: per gate × output channel).
    pub mask: i32,
    /// The scales (`count` values).
    pub scales: Vec<f32>,
}

impl Default for WeightsQParams {
    fn default() -> Self {
        Self {
            mask: 0,
            scales: vec![1.0],
        }
    }
}

/// Activation linearisation used by benchdnn's `--skip-nonlinear` (hidden oneDNN attribute).
#[derive(Clone, Debug, PartialEq)]
pub struct RnnTestParams {
    /// Test mode on: every activation f(x) becomes `scales[gate]·x`.
    pub test_mode: bool,
    /// Per-gate scales.
    pub scales: Vec<f32>,
    /// Scale replacing tanh(c) in the LSTM output.
    pub cscale: f32,
}

impl Default for RnnTestParams {
    fn default() -> Self {
        Self {
            test_mode: false,
            scales: Vec::new(),
            cscale: 0.0,
        }
    }
}

/// Attributes of a primitive.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Attr {
    /// Who owns the scratchpad.
    pub scratchpad_mode: ScratchpadMode,
    /// Floating-point math mode.
    pub fpmath_mode: FpmathMode,
    /// Whether `fpmath_mode` applies to integer primitives too.
    pub fpmath_apply_to_int: bool,
    /// RNN data quantization `(scale, shift)`.
    pub rnn_data_qparams: (f32, f32),
    /// RNN weights quantization.
    pub rnn_weights_qparams: WeightsQParams,
    /// RNN projection weights quantization.
    pub rnn_weights_projection_qparams: WeightsQParams,
    /// benchdnn's test parameters.
    pub rnn_tparams: RnnTestParams,
    /// Deterministic results requested (`dnnl_primitive_attr_set_deterministic`); recorded and
    /// reported back, it does not change how primitives run.
    pub deterministic: bool,
    /// RNN: per-sample sequence lengths are given at execution
    /// ([`args::SEQ_LENGTHS`](crate::args::SEQ_LENGTHS); an `oxidnn_` extension).
    pub rnn_seq_lengths: bool,
}

impl Attr {
    /// Attributes with every field at oneDNN's default.
    pub fn new() -> Self {
        Self {
            rnn_data_qparams: (1.0, 0.0),
            ..Default::default()
        }
    }

    /// Sets the RNN weights scales (mask over the `ldigo` dims: 0 or 24).
    pub fn set_rnn_weights_qparams(&mut self, mask: i32, scales: &[f32]) -> Result<()> {
        self.rnn_weights_qparams = checked_qparams(mask, scales)?;
        Ok(())
    }

    /// Sets the RNN projection weights scales.
    pub fn set_rnn_weights_projection_qparams(&mut self, mask: i32, scales: &[f32]) -> Result<()> {
        self.rnn_weights_projection_qparams = checked_qparams(mask, scales)?;
        Ok(())
    }

    /// True when nothing but defaults (and options every primitive accepts) is set.
    pub fn has_default_quantization(&self) -> bool {
        self.rnn_data_qparams == (1.0, 0.0)
            && self.rnn_weights_qparams == WeightsQParams::default()
            && self.rnn_weights_projection_qparams == WeightsQParams::default()
    }
}

/// oneDNN's setter checks only a non-negative mask and a positive count (3.13 takes two scales
/// with mask 0), and keeps one scale as mask 0 whatever the mask given (3.2 and 3.13); the
/// count is checked against the mask and dims by the primitive descriptor and the reorder that
/// use them.
fn checked_qparams(mask: i32, scales: &[f32]) -> Result<WeightsQParams> {
    ensure_args!(mask >= 0, "negative scales mask {mask}");
    ensure_args!(!scales.is_empty(), "scales count must be positive");
    Ok(WeightsQParams {
        mask: if scales.len() == 1 { 0 } else { mask },
        scales: scales.to_vec(),
    })
}
