//! MVN-1 / MVN-6: mean-variance normalization over some axes (what LayerNorm converts to):
//! `x − mean`, divided by `√(var + eps)` (`eps_mode="inside_sqrt"`) or `√var + eps`
//! (`"outside_sqrt"`) when `normalize_variance`. MVN-6 takes the axes as input 1; MVN-1 reduces
//! over `reduction_axes`, or over all axes from 1 (`across_channels`) or from 2, always inside
//! the square root.

use std::any::Any;

use super::reduce::{group_size, visit_groups};
use super::{
    attr_i64_list, check_arity, const_i64s, expect_inputs, invalid, Op, OutputInfo, ValueInfo,
};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::normalize_axis;
use crate::graph::tensor::Tensor;

/// Which axes MVN normalizes over.
#[derive(Clone, Debug, PartialEq)]
pub enum MvnAxes {
    /// MVN-6: from input 1.
    Input,
    /// MVN-1: listed (`reduction_axes`).
    Listed(Vec<i64>),
    /// MVN-1: every axis from this one on (1 `across_channels`, else 2).
    From(usize),
}

/// Mean-variance normalization.
#[derive(Clone, Debug)]
pub struct Mvn {
    /// The axes.
    pub axes: MvnAxes,
    /// Divide by the standard deviation.
    pub normalize_variance: bool,
    /// Added to the variance (inside) or to the standard deviation (outside).
    pub eps: f64,
    /// `eps_mode="inside_sqrt"`.
    pub eps_inside: bool,
}

impl Mvn {
    /// Reads `<data normalize_variance eps eps_mode/>` (MVN-6) or `<data across_channels
    /// [reduction_axes] normalize_variance eps/>` (MVN-1).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        let v6 = super::opset_number(layer) >= 6;
        expect_inputs(layer, if v6 { 2..=2 } else { 1..=1 })?;
        let eps_text = layer.attr_str("eps")?;
        let eps: f64 = eps_text
            .trim()
            .parse()
            .map_err(|_| layer.err(format!("attribute eps=\"{eps_text}\" is not a number")))?;
        let (axes, eps_inside) = if v6 {
            let inside = match layer.attr_str("eps_mode")?.to_ascii_lowercase().as_str() {
                "inside_sqrt" => true,
                "outside_sqrt" => false,
                m => {
                    return Err(layer.err(format!(
                        "eps_mode=\"{m}\" is not supported (inside_sqrt or outside_sqrt)"
                    )))
                }
            };
            (MvnAxes::Input, inside)
        } else if layer.attr("reduction_axes").is_some() {
            (
                MvnAxes::Listed(attr_i64_list(layer, "reduction_axes")?),
                true,
            )
        } else {
            let across = layer.attr_bool_or("across_channels", false)?;
            (MvnAxes::From(if across { 1 } else { 2 }), true)
        };
        Ok(Self {
            axes,
            normalize_variance: layer.attr_bool_or("normalize_variance", v6)?,
            eps,
            eps_inside,
        })
    }

    /// Which axes of a rank-`rank` input are normalized over.
    fn reduced(&self, rank: usize, input: Option<&[i64]>) -> Result<Vec<bool>> {
        let listed = match (&self.axes, input) {
            (MvnAxes::From(first), _) => return Ok((0..rank).map(|d| d >= *first).collect()),
            (MvnAxes::Listed(a), _) => a.as_slice(),
            (MvnAxes::Input, Some(a)) => a,
            (MvnAxes::Input, None) => return Err(invalid("MVN-6 needs its axes input")),
        };
        let mut reduced = vec![false; rank];
        for &a in listed {
            reduced[normalize_axis(a, rank, "axis")?] = true;
        }
        Ok(reduced)
    }

    fn normalize(&self, x: &mut [f64], shape: &[usize], reduced: &[bool]) {
        let n = group_size(shape, reduced) as f64;
        let groups = visit_groups(shape, reduced, |_, _| {});
        let mut mean = vec![0.0; groups];
        visit_groups(shape, reduced, |i, g| mean[g] += x[i] / n);
        let mut var = vec![0.0; groups];
        visit_groups(shape, reduced, |i, g| {
            x[i] -= mean[g];
            var[g] += x[i] * x[i] / n;
        });
        if self.normalize_variance {
            let scale: Vec<f64> = var
                .iter()
                .map(|v| {
                    if self.eps_inside {
                        1.0 / (v + self.eps).sqrt()
                    } else {
                        1.0 / (v.sqrt() + self.eps)
                    }
                })
                .collect();
            visit_groups(shape, reduced, |i, g| x[i] *= scale[g]);
        }
    }
}

impl Op for Mvn {
    fn type_name(&self) -> &'static str {
        "MVN"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let x = &inputs[0];
        if !x.element_type.is_float() {
            return Err(invalid(format!(
                "MVN needs float data, got {}",
                x.element_type
            )));
        }
        if let (Some(rank), Some(axes)) = (x.shape.rank(), inputs.get(1)) {
            if let Some(a) = const_i64s(axes, "axes")? {
                self.reduced(rank, Some(&a))?;
            }
        }
        Ok(vec![OutputInfo::new(x.element_type, x.shape.clone())])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("MVN", inputs, 1..=2)?;
        let t = inputs[0];
        if !t.element_type().is_float() {
            return Err(invalid(format!(
                "MVN needs float data, got {}",
                t.element_type()
            )));
        }
        let axes = inputs.get(1).map(|a| a.to_i64_vec("axes")).transpose()?;
        let reduced = self.reduced(t.shape().len(), axes.as_deref())?;
        let mut x: Vec<f64> = t
            .convert(crate::graph::tensor::ElementType::F32)
            .as_f32()
            .map(|a| a.iter().map(|&v| v as f64).collect())
            .unwrap_or_default();
        self.normalize(&mut x, t.shape(), &reduced);
        let out = Tensor::from_vec(
            t.shape(),
            x.into_iter().map(|v| v as f32).collect::<Vec<_>>(),
        )?;
        Ok(vec![out.convert(t.element_type())])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
