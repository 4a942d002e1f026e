//! GRUCell-3: one GRU step, gate order z, r, h.
//!
//! ```text
//! z = f(X·Wzᵀ + H·Rzᵀ + Bz)      r = f(X·Wrᵀ + H·Rrᵀ + Br)
//! h = g(X·Whᵀ + (r⊙H)·Rhᵀ + Bh)                 (linear_before_reset = false, B [3H])
//! h = g(X·Whᵀ + Wbh + r⊙(H·Rhᵀ + Rbh))          (linear_before_reset = true,  B [4H] = z, r, Wbh, Rbh)
//! H' = (1 − z)⊙h + z⊙H
//! ```
//! f, g are `activations` (default sigmoid, tanh); `clip` clamps pre-activations.
//! Inputs: X [N, I], H [N, H], W [3H, I], R [3H, H], B. Output: H'.

use std::any::Any;

use ndarray::{s, Array2};

use super::rnn_common::{input_size, matmul_t, to_tensor, view1, view2, x_and_h, CellAttrs};
use super::{check_arity, expect_inputs, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::Tensor;

/// One GRU step.
#[derive(Clone, Debug)]
pub struct GruCell {
    /// hidden_size, activations (f, g), clip.
    pub attrs: CellAttrs,
    /// Apply the reset gate after the recurrent product (B then has 4H entries).
    pub linear_before_reset: bool,
}

impl GruCell {
    /// Reads `<data hidden_size activations clip linear_before_reset/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 5..=5)?;
        Ok(Self {
            attrs: CellAttrs::from_ir(layer, &["sigmoid", "tanh"])?,
            linear_before_reset: layer.attr_bool_or("linear_before_reset", false)?,
        })
    }

    fn bias_len(&self) -> usize {
        (if self.linear_before_reset { 4 } else { 3 }) * self.attrs.hidden_size
    }
}

impl Op for GruCell {
    fn type_name(&self) -> &'static str {
        "GRUCell"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let h = Some(self.attrs.hidden_size);
        let g = Some(3 * self.attrs.hidden_size);
        let input_size = input_size(inputs);
        let b = [Some(self.bias_len())];
        self.attrs.infer(
            inputs,
            &[
                &[None, input_size],
                &[None, h],
                &[g, input_size],
                &[g, h],
                &b,
            ],
            1,
        )
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("GRUCell", inputs, 5..=5)?;
        let hs = self.attrs.hidden_size;
        let (x, h) = x_and_h(inputs, hs)?;
        let (n, input_size) = x.dim();
        let w = view2(inputs[2], 2, Some(3 * hs), input_size)?;
        let r = view2(inputs[3], 3, Some(3 * hs), hs)?;
        let b = view1(inputs[4], 4, self.bias_len())?;
        let xw = matmul_t(&x, &w);
        let a = &self.attrs;
        // z and r gates: X·Wᵀ + H·Rᵀ + B over the first 2H columns.
        let hr_zr = matmul_t(&h, &r.slice(s![..2 * hs, ..]));
        let mut z = Array2::<f32>::zeros((n, hs));
        let mut rg = Array2::<f32>::zeros((n, hs));
        for i in 0..n {
            for j in 0..hs {
                z[[i, j]] = a.act(0, xw[[i, j]] + hr_zr[[i, j]] + b[j]);
                rg[[i, j]] = a.act(0, xw[[i, hs + j]] + hr_zr[[i, hs + j]] + b[hs + j]);
            }
        }
        let rh = r.slice(s![2 * hs.., ..]);
        let recurrent = if self.linear_before_reset {
            let mut hr = matmul_t(&h, &rh);
            for i in 0..n {
                for j in 0..hs {
                    hr[[i, j]] = rg[[i, j]] * (hr[[i, j]] + b[3 * hs + j]);
                }
            }
            hr
        } else {
            let gated = &rg * &h;
            matmul_t(&gated.view(), &rh)
        };
        let mut out = Array2::<f32>::zeros((n, hs));
        for i in 0..n {
            for j in 0..hs {
                let cand = a.act(1, xw[[i, 2 * hs + j]] + recurrent[[i, j]] + b[2 * hs + j]);
                out[[i, j]] = (1.0 - z[[i, j]]) * cand + z[[i, j]] * h[[i, j]];
            }
        }
        Ok(vec![to_tensor(out)])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
