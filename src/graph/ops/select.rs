//! Select-1: `cond ? then : else` element-wise; `cond` is `boolean`, `then` and `else` share
//! one element type. With `auto_broadcast="numpy"` (default) all three broadcast together;
//! with `pdpd` `else` and `cond` broadcast onto `then`; with `none` the shapes are equal.

use std::any::Any;

use super::auto_broadcast::AutoBroadcast;
use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::{Element, ElementType, Tensor};

/// Element-wise choice between two inputs.
#[derive(Clone, Debug)]
pub struct Select {
    /// How the inputs broadcast.
    pub broadcast: AutoBroadcast,
}

impl Select {
    /// Reads `<data auto_broadcast/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 3..=3)?;
        Ok(Self {
            broadcast: AutoBroadcast::from_ir(layer)?,
        })
    }
}

fn select<T: Element>(op: &Select, c: &Tensor, t: &Tensor, e: &Tensor) -> Result<Tensor> {
    let out = op.broadcast.zip3(
        c.typed::<bool>("cond")?,
        t.typed::<T>("then")?,
        e.typed::<T>("else")?,
        |c, t, e| if c { t } else { e },
    )?;
    Ok(T::wrap(out))
}

impl Op for Select {
    fn type_name(&self) -> &'static str {
        "Select"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (c, t, e) = (&inputs[0], &inputs[1], &inputs[2]);
        if c.element_type != ElementType::Boolean {
            return Err(invalid(format!(
                "cond must be boolean, got {}",
                c.element_type
            )));
        }
        if t.element_type != e.element_type {
            return Err(invalid(format!(
                "then and else have different element types ({} and {})",
                t.element_type, e.element_type
            )));
        }
        let shape = match self.broadcast {
            AutoBroadcast::Pdpd { .. } => {
                self.broadcast.infer(&t.shape, &e.shape)?;
                self.broadcast.infer(&t.shape, &c.shape)?
            }
            b => b.infer(&c.shape, &b.infer(&t.shape, &e.shape)?)?,
        };
        Ok(vec![OutputInfo::new(t.element_type, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Select", inputs, 3..=3)?;
        let (c, t, e) = (inputs[0], inputs[1], inputs[2]);
        let out = crate::dispatch_type!(t.element_type(), T => select::<T>(self, c, t, e))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
