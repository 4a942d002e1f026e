//! Sigmoid-1, Tanh-1, Relu-1: element-wise activations (also used by the RNN cells).

use std::any::Any;

use half::f16;

use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::Tensor;

/// Which activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActivationKind {
    /// 1 / (1 + e^−x).
    Sigmoid,
    /// tanh(x).
    Tanh,
    /// max(0, x).
    Relu,
}

impl ActivationKind {
    /// Parses an op type (`Sigmoid`, `Tanh`, `Relu`/`ReLU`) or an RNN `activations` entry
    /// (`sigmoid`, `tanh`, `relu`).
    pub fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "sigmoid" => Some(Self::Sigmoid),
            "tanh" => Some(Self::Tanh),
            "relu" => Some(Self::Relu),
            _ => None,
        }
    }

    /// Applies the activation to one value.
    #[inline]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Self::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Self::Tanh => x.tanh(),
            Self::Relu => x.max(0.0),
        }
    }
}

/// An element-wise activation op.
#[derive(Clone, Debug)]
pub struct Activation {
    /// The function.
    pub kind: ActivationKind,
}

impl Activation {
    /// Builds from the layer type.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=1)?;
        let kind = ActivationKind::parse(&layer.type_name)
            .ok_or_else(|| layer.err("not an activation op"))?;
        Ok(Self { kind })
    }
}

impl Op for Activation {
    fn type_name(&self) -> &'static str {
        match self.kind {
            ActivationKind::Sigmoid => "Sigmoid",
            ActivationKind::Tanh => "Tanh",
            ActivationKind::Relu => "Relu",
        }
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        Ok(vec![OutputInfo::new(
            inputs[0].element_type,
            inputs[0].shape.clone(),
        )])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity(self.type_name(), inputs, 1..=1)?;
        let k = self.kind;
        let out = match inputs[0] {
            Tensor::F32(a) => Tensor::F32(a.mapv(|x| k.apply(x))),
            Tensor::F16(a) => Tensor::F16(a.mapv(|x| f16::from_f32(k.apply(x.to_f32())))),
            Tensor::I32(a) if k == ActivationKind::Relu => Tensor::I32(a.mapv(|x| x.max(0))),
            Tensor::I64(a) if k == ActivationKind::Relu => Tensor::I64(a.mapv(|x| x.max(0))),
            Tensor::I8(a) if k == ActivationKind::Relu => Tensor::I8(a.mapv(|x| x.max(0))),
            Tensor::U8(a) if k == ActivationKind::Relu => Tensor::U8(a.clone()),
            t => {
                return Err(invalid(format!(
                    "{} is not defined for {} inputs",
                    self.type_name(),
                    t.element_type()
                )))
            }
        };
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
