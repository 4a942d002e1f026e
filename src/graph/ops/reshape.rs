//! Reshape-1: new shape from a 1-D integer pattern; `-1` infers one dim, `0` copies the input
//! dim at the same position when `special_zero` is true (else it is a zero-sized dim).

use std::any::Any;

use super::{check_arity, const_i64s, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{Dim, PartialShape};
use crate::graph::tensor::Tensor;

/// Reshape with a runtime (usually constant) target shape.
#[derive(Clone, Debug)]
pub struct Reshape {
    /// `0` in the pattern copies the input dim.
    pub special_zero: bool,
}

impl Reshape {
    /// Reads `<data special_zero/>` (required by the spec).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        layer.attr_str("special_zero")?;
        Ok(Self {
            special_zero: layer.attr_bool_or("special_zero", false)?,
        })
    }

    /// The output dims for input dims `input` (dynamic dims allowed) and `pattern`.
    pub fn output_dims(&self, input: &[Dim], pattern: &[i64]) -> Result<Vec<Dim>> {
        let mut out: Vec<Dim> = Vec::with_capacity(pattern.len());
        let mut infer_at = None;
        for (i, &p) in pattern.iter().enumerate() {
            out.push(match p {
                -1 => {
                    if infer_at.replace(i).is_some() {
                        return Err(invalid(format!("target shape {pattern:?} has more than one -1")));
                    }
                    None
                }
                0 if self.special_zero => *input.get(i).ok_or_else(|| {
                    invalid(format!(
                        "target shape {pattern:?}: 0 at position {i} copies an input dim, but the input has rank {}",
                        input.len()
                    ))
                })?,
                p if p < 0 => return Err(invalid(format!("target shape {pattern:?} has {p}"))),
                p => Some(p as usize),
            });
        }
        let numel: Option<usize> = input
            .iter()
            .copied()
            .try_fold(1usize, |a, d| d.and_then(|d| a.checked_mul(d)));
        let known: Option<usize> = out
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != infer_at)
            .try_fold(1usize, |a, (_, d)| d.and_then(|d| a.checked_mul(d)));
        match (infer_at, numel, known) {
            (Some(i), Some(n), Some(k)) => {
                if k == 0 || n % k != 0 {
                    return Err(invalid(format!(
                        "cannot reshape {} elements to {pattern:?}",
                        n
                    )));
                }
                out[i] = Some(n / k);
            }
            (None, Some(n), Some(k)) if n != k => {
                return Err(invalid(format!(
                    "cannot reshape {n} elements (shape {}) to {pattern:?} ({k} elements)",
                    PartialShape::new(input.to_vec())
                )))
            }
            _ => {}
        }
        Ok(out)
    }
}

impl Reshape {
    /// The output shape for these inputs.
    fn target(&self, inputs: &[&Tensor]) -> Result<Vec<usize>> {
        check_arity("Reshape", inputs, 2..=2)?;
        let pattern = inputs[1].to_i64_vec("target shape")?;
        let dims: Vec<Dim> = inputs[0].shape().iter().map(|&d| Some(d)).collect();
        Ok(self
            .output_dims(&dims, &pattern)?
            .into_iter()
            .map(|d| d.unwrap_or(0))
            .collect())
    }
}

impl Op for Reshape {
    fn type_name(&self) -> &'static str {
        "Reshape"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        let shape = match (
            const_i64s(&inputs[1], "target shape")?,
            inputs[0].shape.dims(),
        ) {
            (Some(pattern), Some(dims)) => PartialShape::new(self.output_dims(dims, &pattern)?),
            (Some(pattern), None) => PartialShape::dynamic_of_rank(pattern.len()),
            (None, _) => match inputs[1].shape.to_static().as_deref() {
                Some([n]) => PartialShape::dynamic_of_rank(*n),
                _ => PartialShape::dynamic(),
            },
        };
        Ok(vec![OutputInfo::new(et, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![inputs[0].reshaped(&self.target(inputs)?)?])
    }
    fn reshape_target(&self, inputs: &[&Tensor]) -> Option<Result<Vec<usize>>> {
        Some(self.target(inputs))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
