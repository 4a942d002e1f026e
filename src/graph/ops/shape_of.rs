//! ShapeOf-1 / ShapeOf-3: the input's shape as a 1-D integer tensor (`output_type`, default i64).

use std::any::Any;

use super::{check_arity, expect_inputs, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::PartialShape;
use crate::graph::tensor::{ElementType, Tensor};

/// The shape of the input.
#[derive(Clone, Debug)]
pub struct ShapeOf {
    /// `i64` or `i32`.
    pub output_type: ElementType,
}

impl ShapeOf {
    /// Reads `<data output_type/>` (ShapeOf-3; ShapeOf-1 always gives i64).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=1)?;
        let output_type = if layer.attr("output_type").is_some() {
            layer.attr_element_type("output_type")?
        } else {
            ElementType::I64
        };
        if !matches!(output_type, ElementType::I64 | ElementType::I32) {
            return Err(layer.err(format!("output_type must be i64 or i32, got {output_type}")));
        }
        Ok(Self { output_type })
    }
}

impl Op for ShapeOf {
    fn type_name(&self) -> &'static str {
        "ShapeOf"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let shape = match inputs[0].shape.rank() {
            Some(r) => PartialShape::from_static(&[r]),
            None => PartialShape::dynamic_of_rank(1),
        };
        Ok(vec![OutputInfo::new(self.output_type, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("ShapeOf", inputs, 1..=1)?;
        let dims: Vec<i64> = inputs[0].shape().iter().map(|&d| d as i64).collect();
        let t = Tensor::from_vec(&[dims.len()], dims)?;
        Ok(vec![t.convert(self.output_type)])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
