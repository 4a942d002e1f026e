//! Convert-1 (to `destination_type`) and ConvertLike-1 (to the element type of input 1):
//! element type conversion (floats to integers truncate toward zero).

use std::any::Any;

use super::{check_arity, expect_inputs, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::{ElementType, Tensor};

/// Converts the input to `destination_type`, or to the type of input 1 when `None`.
#[derive(Clone, Debug)]
pub struct Convert {
    /// The output element type (`None`: ConvertLike).
    pub destination_type: Option<ElementType>,
}

impl Convert {
    /// Reads `<data destination_type/>` (Convert) or checks ConvertLike's two inputs.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        if layer.type_name == "ConvertLike" {
            expect_inputs(layer, 2..=2)?;
            return Ok(Self {
                destination_type: None,
            });
        }
        expect_inputs(layer, 1..=1)?;
        Ok(Self {
            destination_type: Some(layer.attr_element_type("destination_type")?),
        })
    }
}

impl Op for Convert {
    fn type_name(&self) -> &'static str {
        if self.destination_type.is_some() {
            "Convert"
        } else {
            "ConvertLike"
        }
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let to = self
            .destination_type
            .unwrap_or_else(|| inputs[inputs.len() - 1].element_type);
        Ok(vec![OutputInfo::new(to, inputs[0].shape.clone())])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let to = match self.destination_type {
            Some(t) => {
                check_arity("Convert", inputs, 1..=1)?;
                t
            }
            None => {
                check_arity("ConvertLike", inputs, 2..=2)?;
                inputs[1].element_type()
            }
        };
        Ok(vec![inputs[0].convert(to)])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
