//! Sigmoid-1, Tanh-1, Relu-1: element-wise activations (also used by the RNN cells).

use std::any::Any;

use half::f16;

use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::tensor::Tensor;
use crate::kernels::activations as kernels;
use crate::kernels::Isa;

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
            Tensor::F32(a) => {
                let mut out = a.as_standard_layout().into_owned();
                self.apply_f32(out.as_slice_mut().expect("row-major"));
                Tensor::F32(out)
            }
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
    fn execute_into(&self, inputs: &[&Tensor], outputs: &mut [Tensor]) -> Result<bool> {
        check_arity(self.type_name(), inputs, 1..=1)?;
        let [out @ Tensor::F32(_)] = outputs else {
            return Ok(false);
        };
        if !out.copy_from(inputs[0]) {
            return Ok(false);
        }
        let Tensor::F32(o) = out else {
            return Ok(false);
        };
        match o.as_slice_mut() {
            Some(v) => self.apply_f32(v),
            None => return Ok(false),
        }
        Ok(true)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Activation {
    /// Applies the activation in place: sigmoid and tanh as the RNN cells' vectorized code.
    fn apply_f32(&self, xs: &mut [f32]) {
        let f = match self.kind {
            ActivationKind::Sigmoid => kernels::Activation::Sigmoid,
            ActivationKind::Tanh => kernels::Activation::Tanh,
            ActivationKind::Relu => return xs.iter_mut().for_each(|x| *x = x.max(0.0)),
        };
        kernels::apply(Isa::detected(), f, xs);
    }
}
