//! LSTMCell-1 / LSTMCell-4: one LSTM step, gate order f, i, c, o.
//!
//! ```text
//! f = σ(X·Wfᵀ + H·Rfᵀ + Bf + Pf⊙C)      i = σ(X·Wiᵀ + H·Riᵀ + Bi + Pi⊙C)   (i = 1 − f with input_forget)
//! c = g(X·Wcᵀ + H·Rcᵀ + Bc)            C' = f⊙C + i⊙c
//! o = σ(X·Woᵀ + H·Roᵀ + Bo + Po⊙C')     H' = o⊙h(C')
//! ```
//! σ, g, h are `activations` (default sigmoid, tanh, tanh); `clip` clamps the gate
//! pre-activations (not C'). Inputs: `X [N, I]`, `H [N, H]`, `C [N, H]`, `W [4H, I]`,
//! `R [4H, H]`, `B [4H]`, and for LSTMCell-1 an optional peephole `P [3H]` in order f, i, o (as
//! OpenVINO's reference implementation; its CPU plugin ignores P). The legacy 5-input form
//! (X, H, C, `W [4H, I+H]`, B) with W and R concatenated is accepted too. Outputs: H', C'.

use std::any::Any;

use ndarray::Array2;

use super::rnn_common::{input_size, matmul_t, to_tensor, view1, view2, x_and_h, CellAttrs};
use super::{check_arity, expect_inputs, opset_number, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::Dim;
use crate::graph::tensor::Tensor;

/// One LSTM step.
#[derive(Clone, Debug)]
pub struct LstmCell {
    /// hidden_size, activations (f, g, h), clip.
    pub attrs: CellAttrs,
    /// LSTMCell-1's `input_forget`: couple the input gate to the forget gate (i = 1 − f).
    pub input_forget: bool,
}

impl LstmCell {
    /// Reads `<data hidden_size activations clip [input_forget]/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        let v1 = opset_number(layer) < 4;
        expect_inputs(layer, if v1 { 5..=7 } else { 6..=6 })?;
        Ok(Self {
            attrs: CellAttrs::from_ir(layer, &["sigmoid", "tanh", "tanh"])?,
            input_forget: v1 && layer.attr_bool_or("input_forget", false)?,
        })
    }
}

impl Op for LstmCell {
    fn type_name(&self) -> &'static str {
        "LSTMCell"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let h = Some(self.attrs.hidden_size);
        let g = Some(4 * self.attrs.hidden_size);
        let input_size = input_size(inputs);
        let wr_cols = if inputs.len() == 5 {
            input_size.zip(h).map(|(a, b)| a + b)
        } else {
            input_size
        };
        let mut expected: Vec<Vec<Dim>> = vec![
            vec![None, input_size],
            vec![None, h],
            vec![None, h],
            vec![g, wr_cols],
        ];
        if inputs.len() == 5 {
            expected.push(vec![g]);
        } else {
            expected.extend([vec![g, h], vec![g]]);
            if inputs.len() == 7 {
                expected.push(vec![Some(3 * self.attrs.hidden_size)]);
            }
        }
        let refs: Vec<&[Dim]> = expected.iter().map(Vec::as_slice).collect();
        self.attrs.infer(inputs, &refs, 2)
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("LSTMCell", inputs, 5..=7)?;
        let hs = self.attrs.hidden_size;
        let (x, h) = x_and_h(inputs, hs)?;
        let (n, input_size) = x.dim();
        let c = view2(inputs[2], 2, Some(n), hs)?;
        let (mut gates, b, p) = if inputs.len() == 5 {
            let wr = view2(inputs[3], 3, Some(4 * hs), input_size + hs)?;
            let (w, r) = wr.split_at(ndarray::Axis(1), input_size);
            (
                matmul_t(&x, &w) + matmul_t(&h, &r),
                view1(inputs[4], 4, 4 * hs)?,
                None,
            )
        } else {
            let w = view2(inputs[3], 3, Some(4 * hs), input_size)?;
            let r = view2(inputs[4], 4, Some(4 * hs), hs)?;
            let p = inputs.get(6).map(|t| view1(t, 6, 3 * hs)).transpose()?;
            (
                matmul_t(&x, &w) + matmul_t(&h, &r),
                view1(inputs[5], 5, 4 * hs)?,
                p,
            )
        };
        gates += &b;
        let peep = |k: usize, j: usize| p.as_ref().map_or(0.0, |p| p[k * hs + j]);
        let a = &self.attrs;
        let mut h_out = Array2::<f32>::zeros((n, hs));
        let mut c_out = Array2::<f32>::zeros((n, hs));
        for r in 0..n {
            for j in 0..hs {
                let c_prev = c[[r, j]];
                let f = a.act(0, gates[[r, j]] + peep(0, j) * c_prev);
                let i = if self.input_forget {
                    1.0 - f
                } else {
                    a.act(0, gates[[r, hs + j]] + peep(1, j) * c_prev)
                };
                let cand = a.act(1, gates[[r, 2 * hs + j]]);
                let c_new = f * c_prev + i * cand;
                let o = a.act(0, gates[[r, 3 * hs + j]] + peep(2, j) * c_new);
                c_out[[r, j]] = c_new;
                h_out[[r, j]] = o * a.act_unclipped(2, c_new);
            }
        }
        Ok(vec![to_tensor(h_out), to_tensor(c_out)])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
