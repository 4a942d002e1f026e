//! Identity-16: a copy of the input.

use std::any::Any;

use super::{check_arity, expect_inputs, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::Tensor;

/// Passes its input through.
#[derive(Clone, Debug, Default)]
pub struct Identity;

impl Identity {
    /// Checks the input count.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=1)?;
        Ok(Self)
    }
}

impl Op for Identity {
    fn type_name(&self) -> &'static str {
        "Identity"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        Ok(vec![OutputInfo::new(
            inputs[0].element_type,
            inputs[0].shape.clone(),
        )])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Identity", inputs, 1..=1)?;
        Ok(vec![inputs[0].clone()])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
