//! Result-1: a model (or body) output; passes its input through.

use std::any::Any;

use super::{check_arity, expect_inputs, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::Tensor;

/// A model output (no output ports in IR; the executor reads its input).
#[derive(Clone, Debug, Default)]
pub struct ResultOp;

impl ResultOp {
    /// Checks the layer has exactly one input.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=1)?;
        Ok(Self)
    }
}

impl Op for ResultOp {
    fn type_name(&self) -> &'static str {
        "Result"
    }
    fn infer(&self, _inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        Ok(Vec::new())
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Result", inputs, 1..=1)?;
        Ok(Vec::new())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn foldable(&self) -> bool {
        false
    }
}
