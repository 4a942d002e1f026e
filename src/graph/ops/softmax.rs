//! Softmax-1 / Softmax-8 (`eˣ / Σ eˣ` along `axis`; negative axes from version 8) and
//! LogSoftmax-5 (`x − max − ln Σ e^(x − max)`): normalizations along one axis of float data.

use std::any::Any;

use half::f16;

use super::{check_arity, expect_inputs, invalid, opset_number, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::normalize_axis;
use crate::graph::tensor::Tensor;

/// Softmax or LogSoftmax along one axis.
#[derive(Clone, Debug)]
pub struct Softmax {
    /// The axis (negative counts from the end).
    pub axis: i64,
    /// LogSoftmax.
    pub log: bool,
}

impl Softmax {
    /// Reads `<data axis/>` (default 1; Softmax-1 allows no negative axis).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 1..=1)?;
        let log = layer.type_name == "LogSoftmax";
        let axis = layer.attr_i64_or("axis", 1)?;
        if !log && axis < 0 && opset_number(layer) < 8 {
            return Err(layer.err(format!("axis {axis} must be ≥ 0 in Softmax-1")));
        }
        Ok(Self { axis, log })
    }

    /// Normalizes `x` (row-major, of `shape`) in place along `axis`.
    fn normalize(&self, x: &mut [f32], shape: &[usize], axis: usize) {
        let n = shape[axis];
        let inner: usize = shape[axis + 1..].iter().product();
        if n == 0 || inner == 0 {
            return;
        }
        let mut max = vec![0f32; inner];
        let mut sum = vec![0f32; inner];
        for block in x.chunks_exact_mut(n * inner) {
            max.copy_from_slice(&block[..inner]);
            for row in block.chunks_exact(inner).skip(1) {
                for (m, &v) in max.iter_mut().zip(row) {
                    *m = m.max(v);
                }
            }
            // Softmax keeps e^(x − max) in place; LogSoftmax keeps x − max.
            sum.fill(0.0);
            for row in block.chunks_exact_mut(inner) {
                for ((v, s), m) in row.iter_mut().zip(&mut sum).zip(&max) {
                    let e = (*v - m).exp();
                    *s += e;
                    *v = if self.log { *v - m } else { e };
                }
            }
            if self.log {
                sum.iter_mut().for_each(|s| *s = s.ln());
            }
            for row in block.chunks_exact_mut(inner) {
                for (v, s) in row.iter_mut().zip(&sum) {
                    *v = if self.log { *v - s } else { *v / s };
                }
            }
        }
    }
}

impl Op for Softmax {
    fn type_name(&self) -> &'static str {
        if self.log {
            "LogSoftmax"
        } else {
            "Softmax"
        }
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let x = &inputs[0];
        if !x.element_type.is_float() {
            return Err(invalid(format!(
                "{} needs float data, got {}",
                self.type_name(),
                x.element_type
            )));
        }
        if let Some(rank) = x.shape.rank() {
            normalize_axis(self.axis, rank, "axis")?;
        }
        Ok(vec![OutputInfo::new(x.element_type, x.shape.clone())])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity(self.type_name(), inputs, 1..=1)?;
        let t = inputs[0];
        let shape = t.shape();
        let axis = normalize_axis(self.axis, shape.len(), "axis")?;
        let out = match t {
            Tensor::F32(a) => {
                let mut v: Vec<f32> = a.iter().copied().collect();
                self.normalize(&mut v, shape, axis);
                Tensor::from_vec(shape, v)?
            }
            Tensor::F16(a) => {
                let mut v: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
                self.normalize(&mut v, shape, axis);
                Tensor::from_vec(shape, v.into_iter().map(f16::from_f32).collect::<Vec<_>>())?
            }
            _ => {
                return Err(invalid(format!(
                    "{} needs float data, got {}",
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
