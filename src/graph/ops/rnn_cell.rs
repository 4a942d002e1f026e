//! RNNCell-1: one vanilla RNN step, `H' = f(X·Wᵀ + H·Rᵀ + B)` (f default tanh, `clip` clamps
//! the pre-activation). Inputs: `X [N, I]`, `H [N, H]`, `W [H, I]`, `R [H, H]`, `B [H]`.
//! Output: H'.

use std::any::Any;

use super::rnn_common::{input_size, matmul_t, to_tensor, view1, view2, x_and_h, CellAttrs};
use super::{check_arity, expect_inputs, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::Tensor;

/// One vanilla RNN step.
#[derive(Clone, Debug)]
pub struct RnnCell {
    /// hidden_size, activations (f), clip.
    pub attrs: CellAttrs,
}

impl RnnCell {
    /// Reads `<data hidden_size activations clip/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 5..=5)?;
        Ok(Self {
            attrs: CellAttrs::from_ir(layer, &["tanh"])?,
        })
    }
}

impl Op for RnnCell {
    fn type_name(&self) -> &'static str {
        "RNNCell"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let h = Some(self.attrs.hidden_size);
        let input_size = input_size(inputs);
        self.attrs.infer(
            inputs,
            &[
                &[None, input_size],
                &[None, h],
                &[h, input_size],
                &[h, h],
                &[h],
            ],
            1,
        )
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("RNNCell", inputs, 5..=5)?;
        let hs = self.attrs.hidden_size;
        let (x, h) = x_and_h(inputs, hs)?;
        let input_size = x.ncols();
        let w = view2(inputs[2], 2, Some(hs), input_size)?;
        let r = view2(inputs[3], 3, Some(hs), hs)?;
        let b = view1(inputs[4], 4, hs)?;
        let mut pre = matmul_t(&x, &w) + matmul_t(&h, &r);
        pre += &b;
        let a = &self.attrs;
        Ok(vec![to_tensor(pre.mapv(|v| a.act(0, v)))])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
