//! Equal-1, NotEqual-1, Greater-1, GreaterEqual-1, Less-1, LessEqual-1: element-wise
//! comparisons of two inputs of one element type (any, `boolean` too) under the
//! `auto_broadcast` rules; the output is `boolean`.

use std::any::Any;

use super::auto_broadcast::AutoBroadcast;
use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::{Element, ElementType, Tensor};

/// Which comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComparisonKind {
    /// a = b
    Equal,
    /// a ≠ b
    NotEqual,
    /// a > b
    Greater,
    /// a ≥ b
    GreaterEqual,
    /// a < b
    Less,
    /// a ≤ b
    LessEqual,
}

/// IR type names of the comparisons.
const KINDS: [(&str, ComparisonKind); 6] = [
    ("Equal", ComparisonKind::Equal),
    ("NotEqual", ComparisonKind::NotEqual),
    ("Greater", ComparisonKind::Greater),
    ("GreaterEqual", ComparisonKind::GreaterEqual),
    ("Less", ComparisonKind::Less),
    ("LessEqual", ComparisonKind::LessEqual),
];

impl ComparisonKind {
    /// The comparison of an IR type name.
    pub fn parse(type_name: &str) -> Option<Self> {
        KINDS.iter().find(|(n, _)| *n == type_name).map(|&(_, k)| k)
    }

    /// Compares two values (NaN compares unequal to everything).
    #[inline]
    pub fn apply<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            Self::Equal => a == b,
            Self::NotEqual => a != b,
            Self::Greater => a > b,
            Self::GreaterEqual => a >= b,
            Self::Less => a < b,
            Self::LessEqual => a <= b,
        }
    }
}

/// An element-wise comparison.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The comparison.
    pub kind: ComparisonKind,
    /// How the inputs broadcast.
    pub broadcast: AutoBroadcast,
}

impl Comparison {
    /// Reads `<data auto_broadcast/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        Ok(Self {
            kind: ComparisonKind::parse(&layer.type_name)
                .ok_or_else(|| layer.err("not a comparison op"))?,
            broadcast: AutoBroadcast::from_ir(layer)?,
        })
    }
}

fn compare<T: Element + PartialOrd>(op: &Comparison, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let kind = op.kind;
    let out = op
        .broadcast
        .zip(a.typed::<T>("a")?, b.typed::<T>("b")?, |x, y| {
            kind.apply(x, y)
        })?;
    Ok(Tensor::Boolean(out))
}

impl Op for Comparison {
    fn type_name(&self) -> &'static str {
        KINDS
            .iter()
            .find(|(_, k)| *k == self.kind)
            .map_or("", |&(n, _)| n)
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (a, b) = (&inputs[0], &inputs[1]);
        if a.element_type != b.element_type {
            return Err(invalid(format!(
                "inputs have different element types ({} and {})",
                a.element_type, b.element_type
            )));
        }
        let shape = self.broadcast.infer(&a.shape, &b.shape)?;
        Ok(vec![OutputInfo::new(ElementType::Boolean, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity(self.type_name(), inputs, 2..=2)?;
        let (a, b) = (inputs[0], inputs[1]);
        let out = crate::dispatch_type!(a.element_type(), T => compare::<T>(self, a, b))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
