//! LogicalAnd-1, LogicalOr-1, LogicalXor-1 (two `boolean` inputs under the `auto_broadcast`
//! rules) and LogicalNot-1 (one): element-wise boolean logic.

use std::any::Any;

use super::auto_broadcast::AutoBroadcast;
use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::PartialShape;
use crate::graph::tensor::{ElementType, Tensor};

/// Which boolean function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicalKind {
    /// a ∧ b
    And,
    /// a ∨ b
    Or,
    /// a ⊕ b
    Xor,
    /// ¬a
    Not,
}

/// IR type names of the logical ops.
const KINDS: [(&str, LogicalKind); 4] = [
    ("LogicalAnd", LogicalKind::And),
    ("LogicalOr", LogicalKind::Or),
    ("LogicalXor", LogicalKind::Xor),
    ("LogicalNot", LogicalKind::Not),
];

/// An element-wise boolean op.
#[derive(Clone, Debug)]
pub struct Logical {
    /// The function.
    pub kind: LogicalKind,
    /// How the inputs of a binary one broadcast.
    pub broadcast: AutoBroadcast,
}

impl Logical {
    /// Reads `<data auto_broadcast/>` (binary ones).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        let kind = KINDS
            .iter()
            .find(|(n, _)| *n == layer.type_name)
            .map(|&(_, k)| k)
            .ok_or_else(|| layer.err("not a logical op"))?;
        expect_inputs(
            layer,
            if kind == LogicalKind::Not {
                1..=1
            } else {
                2..=2
            },
        )?;
        Ok(Self {
            kind,
            broadcast: AutoBroadcast::from_ir(layer)?,
        })
    }
}

impl Op for Logical {
    fn type_name(&self) -> &'static str {
        KINDS
            .iter()
            .find(|(_, k)| *k == self.kind)
            .map_or("", |&(n, _)| n)
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        if let Some(bad) = inputs
            .iter()
            .find(|i| i.element_type != ElementType::Boolean)
        {
            return Err(invalid(format!(
                "inputs must be boolean, got {}",
                bad.element_type
            )));
        }
        let shape: PartialShape = match inputs {
            [a] => a.shape.clone(),
            [a, b, ..] => self.broadcast.infer(&a.shape, &b.shape)?,
            [] => return Err(invalid("no input")),
        };
        Ok(vec![OutputInfo::new(ElementType::Boolean, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let a = inputs.first().copied().ok_or_else(|| invalid("no input"))?;
        let a = a.typed::<bool>("input 0")?;
        let out = match self.kind {
            LogicalKind::Not => {
                check_arity(self.type_name(), inputs, 1..=1)?;
                a.mapv(|x| !x)
            }
            kind => {
                check_arity(self.type_name(), inputs, 2..=2)?;
                let b = inputs[1].typed::<bool>("input 1")?;
                self.broadcast.zip(a, b, |x, y| match kind {
                    LogicalKind::And => x && y,
                    LogicalKind::Or => x || y,
                    _ => x != y,
                })?
            }
        };
        Ok(vec![Tensor::Boolean(out)])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
