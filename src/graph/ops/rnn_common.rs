//! What LSTMCell, GRUCell and RNNCell share: `hidden_size` / `activations` / `clip`
//! attributes, 2-D views of the inputs with shape checks, and `x · Wᵀ`.

use ndarray::{Array2, ArrayView1, ArrayView2, Ix1, Ix2};

use super::activation::ActivationKind;
use super::{invalid, OutputInfo, ValueInfo};
use crate::error::{Error, Result};
use crate::graph::ir::IrLayer;
use crate::graph::shape::{Dim, PartialShape};
use crate::graph::tensor::{ElementType, Tensor};

/// Attributes common to the RNN cells.
#[derive(Clone, Debug)]
pub struct CellAttrs {
    /// H.
    pub hidden_size: usize,
    /// The activation functions (f, g, h for LSTM; f, g for GRU; f for RNN).
    pub activations: Vec<ActivationKind>,
    /// Clip gate pre-activations to [−clip, clip] when > 0.
    pub clip: f32,
}

impl CellAttrs {
    /// Reads `hidden_size`, `activations` (default `defaults`) and `clip` (default 0).
    pub fn from_ir(layer: &IrLayer, defaults: &[&str]) -> Result<Self> {
        Self::with_activations(layer, defaults, layer.attr_str_list("activations"))
    }

    /// As [`CellAttrs::from_ir`], with the `activations` names given (empty: `defaults`).
    pub fn with_activations(
        layer: &IrLayer,
        defaults: &[&str],
        mut names: Vec<String>,
    ) -> Result<Self> {
        let hidden_size = layer.attr_i64("hidden_size")?;
        if hidden_size <= 0 {
            return Err(layer.err(format!("hidden_size={hidden_size} must be positive")));
        }
        // Bounded so that gate counts times H never overflow.
        if hidden_size > i64::from(i32::MAX) {
            return Err(layer.err(format!("hidden_size={hidden_size} is over 2^31-1")));
        }
        if names.is_empty() {
            names = defaults.iter().map(|s| s.to_string()).collect();
        }
        if names.len() != defaults.len() {
            return Err(layer.err(format!(
                "activations=\"{}\" must list {} functions",
                names.join(", "),
                defaults.len()
            )));
        }
        let activations = names
            .iter()
            .map(|n| {
                ActivationKind::parse(n).ok_or_else(|| {
                    Error::Unimplemented(format!(
                        "IR: {layer}: activation '{n}' is not supported (sigmoid, tanh, relu)"
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let clip = layer.attr_f32_or("clip", 0.0)?;
        if clip < 0.0 || !clip.is_finite() {
            return Err(layer.err(format!("clip={clip} must be a non-negative number")));
        }
        Ok(Self {
            hidden_size: hidden_size as usize,
            activations,
            clip,
        })
    }

    /// Clips (when enabled) then applies activation number `k`.
    #[inline]
    pub fn act(&self, k: usize, x: f32) -> f32 {
        let x = if self.clip > 0.0 {
            x.clamp(-self.clip, self.clip)
        } else {
            x
        };
        self.activations[k].apply(x)
    }

    /// Applies activation number `k` without clipping (LSTM's h(C_t)).
    #[inline]
    pub fn act_unclipped(&self, k: usize, x: f32) -> f32 {
        self.activations[k].apply(x)
    }

    /// Shape inference: checks the input shapes that are known against
    /// `expected[i] = [rows, cols]` (`None` = batch, taken from X) and returns `outputs` outputs
    /// of shape `[N, H]`.
    pub fn infer(
        &self,
        inputs: &[ValueInfo],
        expected: &[&[Dim]],
        outputs: usize,
    ) -> Result<Vec<OutputInfo>> {
        let batch = inputs[0]
            .shape
            .dims()
            .and_then(|d| d.first().copied())
            .flatten();
        for (i, (info, want)) in inputs.iter().zip(expected).enumerate() {
            if info.element_type != ElementType::F32 {
                return Err(Error::Unimplemented(format!(
                    "input {i} is {}; the RNN cells run in f32 only",
                    info.element_type
                )));
            }
            let want_shape = PartialShape::new(want.iter().map(|d| d.or(batch)).collect());
            if !info.shape.compatible(&want_shape) {
                return Err(invalid(format!(
                    "input {i} has shape {}, expected {want_shape}",
                    info.shape
                )));
            }
        }
        let out = PartialShape::new(vec![batch, Some(self.hidden_size)]);
        Ok(vec![OutputInfo::new(ElementType::F32, out); outputs])
    }
}

/// The `input_size` of a cell: the second dim of input 0 (`X`, `[batch, input_size]`), when
/// known.
pub fn input_size(inputs: &[ValueInfo]) -> Dim {
    inputs[0]
        .shape
        .dims()
        .and_then(|d| d.get(1).copied())
        .flatten()
}

/// `X` `[batch, input_size]` and `H` `[batch, hidden_size]` (inputs 0 and 1) of a cell.
pub fn x_and_h<'a>(
    inputs: &[&'a Tensor],
    hidden_size: usize,
) -> Result<(ArrayView2<'a, f32>, ArrayView2<'a, f32>)> {
    let x = view2(
        inputs[0],
        0,
        None,
        inputs[0].shape().get(1).copied().unwrap_or(0),
    )?;
    let h = view2(inputs[1], 1, Some(x.nrows()), hidden_size)?;
    Ok((x, h))
}

/// A 2-D f32 view of input `i` with `cols` columns and `rows` rows (any when `None`).
pub fn view2<'a>(
    t: &'a Tensor,
    i: usize,
    rows: Option<usize>,
    cols: usize,
) -> Result<ArrayView2<'a, f32>> {
    let a = t.typed::<f32>(&format!("input {i}"))?;
    let v = a
        .view()
        .into_dimensionality::<Ix2>()
        .map_err(|_| invalid(format!("input {i} must be 2-D, got shape {:?}", t.shape())))?;
    if v.ncols() != cols || rows.is_some_and(|r| r != v.nrows()) {
        return Err(invalid(format!(
            "input {i} has shape {:?}, expected [{}, {cols}]",
            t.shape(),
            rows.map_or("N".to_string(), |r| r.to_string())
        )));
    }
    Ok(v)
}

/// A 1-D f32 view of input `i` with `len` elements.
pub fn view1<'a>(t: &'a Tensor, i: usize, len: usize) -> Result<ArrayView1<'a, f32>> {
    let a = t.typed::<f32>(&format!("input {i}"))?;
    let v = a
        .view()
        .into_dimensionality::<Ix1>()
        .map_err(|_| invalid(format!("input {i} must be 1-D, got shape {:?}", t.shape())))?;
    if v.len() != len {
        return Err(invalid(format!(
            "input {i} has shape {:?}, expected [{len}]",
            t.shape()
        )));
    }
    Ok(v)
}

/// `x · wᵀ` (x: [N, K], w: [G, K]) → [N, G].
pub fn matmul_t(x: &ArrayView2<f32>, w: &ArrayView2<f32>) -> Array2<f32> {
    x.dot(&w.t())
}

/// Wraps a [N, H] result as a tensor.
pub fn to_tensor(a: Array2<f32>) -> Tensor {
    Tensor::F32(a.into_dyn())
}
