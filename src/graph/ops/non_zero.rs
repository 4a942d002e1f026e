//! NonZero-3: the coordinates of the non-zero elements (NaN counts as non-zero; `true` for
//! booleans), as `[rank, count]` in row-major order, of `output_type` (i64 default, or i32).

use std::any::Any;

use super::{check_arity, expect_inputs, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::PartialShape;
use crate::graph::tensor::{ElementType, Scalar, Tensor};

/// Coordinates of non-zero elements.
#[derive(Clone, Debug)]
pub struct NonZero {
    /// i64 or i32.
    pub output_type: ElementType,
}

impl NonZero {
    /// Reads `<data output_type/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=1)?;
        let output_type = match layer.attr("output_type") {
            Some(_) => layer.attr_element_type("output_type")?,
            None => ElementType::I64,
        };
        if !matches!(output_type, ElementType::I64 | ElementType::I32) {
            return Err(layer.err(format!("output_type must be i64 or i32, got {output_type}")));
        }
        Ok(Self { output_type })
    }
}

impl Op for NonZero {
    fn type_name(&self) -> &'static str {
        "NonZero"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let shape = match inputs[0].shape.rank() {
            Some(r) => PartialShape::new(vec![Some(r), None]),
            None => PartialShape::dynamic_of_rank(2),
        };
        Ok(vec![OutputInfo::new(self.output_type, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("NonZero", inputs, 1..=1)?;
        let t = inputs[0];
        let shape = t.shape();
        let hits: Vec<usize> = t
            .scalars()
            .into_iter()
            .enumerate()
            .filter(|(_, s)| match *s {
                Scalar::Float(f) => f != 0.0,
                Scalar::Int(i) => i != 0,
            })
            .map(|(i, _)| i)
            .collect();
        let rank = shape.len();
        let mut out = vec![0i64; rank * hits.len()];
        for (j, &flat) in hits.iter().enumerate() {
            let mut rest = flat;
            for d in (0..rank).rev() {
                out[d * hits.len() + j] = (rest % shape[d]) as i64;
                rest /= shape[d];
            }
        }
        let coords = Tensor::from_vec(&[rank, hits.len()], out)?;
        Ok(vec![coords.convert(self.output_type)])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
