//! OneHot-1: `on_value` where `indices[…] == k`, `off_value` elsewhere, along a new axis of
//! `depth` at `axis` (negative counts from the end of the output); indices outside
//! `[0, depth)` give a row of `off_value`. The output has the type of `on_value`.

use std::any::Any;

use super::{check_arity, const_i64s, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{normalize_axis, PartialShape};
use crate::graph::tensor::{Element, Tensor};

/// One-hot encoding.
#[derive(Clone, Debug)]
pub struct OneHot {
    /// Where the new axis goes (in the output's axes).
    pub axis: i64,
}

impl OneHot {
    /// Reads `<data axis/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 4..=4)?;
        Ok(Self {
            axis: layer.attr_i64("axis")?,
        })
    }

    fn depth(v: &[i64]) -> Result<usize> {
        match v {
            [d] => usize::try_from(*d).map_err(|_| invalid(format!("depth {d} is negative"))),
            _ => Err(invalid(format!("depth must hold one value, got {v:?}"))),
        }
    }
}

fn one_hot<T: Element>(
    idx: &[i64],
    outer: usize,
    depth: usize,
    inner: usize,
    on: &Tensor,
    off: &Tensor,
    shape: &[usize],
) -> Result<Tensor> {
    let scalar = |t: &Tensor, what: &str| -> Result<T> {
        let a = t.typed::<T>(what)?;
        match a.len() {
            1 => Ok(a.iter().copied().next().unwrap_or_default()),
            _ => Err(invalid(format!(
                "{what} must hold one value, got shape {:?}",
                t.shape()
            ))),
        }
    };
    let (on, off) = (scalar(on, "on_value")?, scalar(off, "off_value")?);
    let mut out = vec![off; outer * depth * inner];
    for o in 0..outer {
        for i in 0..inner {
            let k = idx[o * inner + i];
            if (0..depth as i64).contains(&k) {
                out[(o * depth + k as usize) * inner + i] = on;
            }
        }
    }
    Tensor::from_vec(shape, out)
}

impl Op for OneHot {
    fn type_name(&self) -> &'static str {
        "OneHot"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (idx, depth, on, off) = (&inputs[0], &inputs[1], &inputs[2], &inputs[3]);
        if !idx.element_type.is_integer() || !depth.element_type.is_integer() {
            return Err(invalid(format!(
                "indices and depth must be integer, got {} and {}",
                idx.element_type, depth.element_type
            )));
        }
        if on.element_type != off.element_type {
            return Err(invalid(format!(
                "on_value and off_value have different types ({} and {})",
                on.element_type, off.element_type
            )));
        }
        let shape = match idx.shape.dims() {
            Some(d) => {
                let axis = normalize_axis(self.axis, d.len() + 1, "axis")?;
                let mut out = d.to_vec();
                let depth = const_i64s(depth, "depth")?
                    .map(|v| Self::depth(&v))
                    .transpose()?;
                out.insert(axis, depth);
                PartialShape::new(out)
            }
            None => PartialShape::dynamic(),
        };
        Ok(vec![OutputInfo::new(on.element_type, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("OneHot", inputs, 4..=4)?;
        let idx_shape = inputs[0].shape();
        let axis = normalize_axis(self.axis, idx_shape.len() + 1, "axis")?;
        let depth = Self::depth(&inputs[1].to_i64_vec("depth")?)?;
        let mut shape = idx_shape.to_vec();
        shape.insert(axis, depth);
        crate::graph::build::allocatable(0, &shape).map_err(invalid)?;
        let idx = inputs[0].to_i64_vec("indices")?;
        let outer: usize = idx_shape[..axis].iter().product();
        let inner: usize = idx_shape[axis..].iter().product();
        let (on, off) = (inputs[2], inputs[3]);
        let out = crate::dispatch_type!(on.element_type(), T => one_hot::<T>(&idx, outer, depth, inner, on, off, &shape))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
