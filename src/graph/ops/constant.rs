//! Constant-1 (`Const` in IR): a value read from the `.bin`.

use std::any::Any;
use std::sync::Arc;

use super::{expect_inputs, BuildContext, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::{read_const_blob, IrLayer};
use crate::graph::shape::PartialShape;
use crate::graph::tensor::Tensor;

/// A constant tensor (shared, never copied by the executor).
#[derive(Clone, Debug)]
pub struct Constant {
    /// The value.
    pub value: Arc<Tensor>,
}

impl Constant {
    /// Reads the blob named by `<data element_type shape offset size/>`.
    pub fn from_ir(layer: &IrLayer, ctx: &BuildContext) -> Result<Self> {
        expect_inputs(layer, 0..=0)?;
        Ok(Self {
            value: Arc::new(read_const_blob(layer, ctx.weights)?),
        })
    }

    /// A constant holding `value`.
    pub fn new(value: Tensor) -> Self {
        Self {
            value: Arc::new(value),
        }
    }
}

impl Op for Constant {
    fn type_name(&self) -> &'static str {
        "Const"
    }
    fn infer(&self, _inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        Ok(vec![OutputInfo::new(
            self.value.element_type(),
            PartialShape::from_static(self.value.shape()),
        )])
    }
    fn execute(&self, _inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![(*self.value).clone()])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn constant(&self) -> Option<&Tensor> {
        Some(&self.value)
    }
}
