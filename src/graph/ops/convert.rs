//! Convert-1: element type conversion (`destination_type`).

use std::any::Any;

use super::{check_arity, expect_inputs, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::{ElementType, Tensor};

/// Converts the input to `destination_type` (floats to integers truncate toward zero).
#[derive(Clone, Debug)]
pub struct Convert {
    /// The output element type.
    pub destination_type: ElementType,
}

impl Convert {
    /// Reads `<data destination_type/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=1)?;
        Ok(Self {
            destination_type: layer.attr_element_type("destination_type")?,
        })
    }
}

impl Op for Convert {
    fn type_name(&self) -> &'static str {
        "Convert"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        Ok(vec![OutputInfo::new(
            self.destination_type,
            inputs[0].shape.clone(),
        )])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Convert", inputs, 1..=1)?;
        Ok(vec![inputs[0].convert(self.destination_type)])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
