//! Parameter-1: a model (or body) input with a declared element type and partial shape.

use std::any::Any;

use super::{expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::PartialShape;
use crate::graph::tensor::{ElementType, Tensor};

/// A model input. The executor feeds it; it is never executed itself.
#[derive(Clone, Debug)]
pub struct Parameter {
    /// The declared element type.
    pub element_type: ElementType,
    /// The declared shape.
    pub shape: PartialShape,
}

impl Parameter {
    /// Reads `<data element_type shape/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 0..=0)?;
        Ok(Self {
            element_type: layer.attr_element_type("element_type")?,
            shape: layer.attr_partial_shape("shape")?,
        })
    }

    /// Checks a tensor fed to this parameter; `name` names the input in the error.
    pub fn check(&self, name: &str, t: &Tensor) -> Result<()> {
        if t.element_type() != self.element_type {
            return Err(invalid(format!(
                "input '{name}' must be {}, got {}",
                self.element_type,
                t.element_type()
            )));
        }
        if !self.shape.accepts(t.shape()) {
            return Err(invalid(format!(
                "input '{name}' must have shape {}, got {:?}",
                self.shape,
                t.shape()
            )));
        }
        Ok(())
    }
}

impl Op for Parameter {
    fn type_name(&self) -> &'static str {
        "Parameter"
    }
    fn infer(&self, _inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        Ok(vec![OutputInfo::new(self.element_type, self.shape.clone())])
    }
    fn execute(&self, _inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Err(invalid("Parameter is fed by the executor, not executed"))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn foldable(&self) -> bool {
        false
    }
}
