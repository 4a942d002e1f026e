//! Pad-1 / Pad-12: widens each axis by `pads_begin[i]` before and `pads_end[i]` after (negative
//! pads crop), filling with `pad_value` (input 3, default 0; `pad_mode="constant"`), the edge
//! element (`edge`), the mirror image without the edge (`reflect`) or with it (`symmetric`).

use std::any::Any;

use super::{check_arity, const_i64s, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{Dim, PartialShape};
use crate::graph::tensor::{Element, Tensor};

/// How padded elements are filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// `pad_value`.
    Constant,
    /// The nearest edge element.
    Edge,
    /// Mirrored, the edge not repeated.
    Reflect,
    /// Mirrored, the edge repeated.
    Symmetric,
}

/// Padding.
#[derive(Clone, Debug)]
pub struct Pad {
    /// The fill.
    pub mode: PadMode,
}

impl Pad {
    /// Reads `<data pad_mode/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 3..=4)?;
        let mode = match layer.attr_str("pad_mode")? {
            "constant" => PadMode::Constant,
            "edge" => PadMode::Edge,
            "reflect" => PadMode::Reflect,
            "symmetric" => PadMode::Symmetric,
            m => {
                return Err(layer.err(format!(
                    "pad_mode=\"{m}\" is not supported (constant, edge, reflect or symmetric)"
                )))
            }
        };
        Ok(Self { mode })
    }

    /// The output dim of an axis of `dim` padded by `b` and `e`.
    fn out_dim(&self, dim: usize, b: i64, e: i64) -> Result<usize> {
        let biggest = b.max(e);
        let allowed = biggest <= 0
            || match self.mode {
                PadMode::Constant => true,
                PadMode::Edge => dim > 0,
                PadMode::Reflect => biggest < dim as i64,
                PadMode::Symmetric => biggest <= dim as i64,
            };
        if !allowed {
            return Err(invalid(format!(
                "pads {b}, {e} are too large for {:?} padding of a dim of {dim}",
                self.mode
            )));
        }
        let total = (dim as i128) + b as i128 + e as i128;
        usize::try_from(total)
            .map_err(|_| invalid(format!("pads {b}, {e} crop more than the dim {dim}")))
    }

    fn dims(&self, dims: &[Dim], begin: &[i64], end: &[i64]) -> Result<Vec<Dim>> {
        if begin.len() != dims.len() || end.len() != dims.len() {
            return Err(invalid(format!(
                "pads_begin {begin:?} and pads_end {end:?} need one entry per axis ({})",
                dims.len()
            )));
        }
        dims.iter()
            .zip(begin.iter().zip(end))
            .map(|(d, (&b, &e))| d.map(|d| self.out_dim(d, b, e)).transpose())
            .collect()
    }

    /// The source index of output index `o` of an axis of `dim` padded by `b` before (`None`:
    /// the pad value).
    fn source(&self, o: usize, dim: usize, b: i64) -> Option<usize> {
        let i = o as i64 - b;
        let d = dim as i64;
        let s = match self.mode {
            _ if (0..d).contains(&i) => i,
            PadMode::Constant => return None,
            PadMode::Edge => i.clamp(0, d - 1),
            PadMode::Reflect if i < 0 => -i,
            PadMode::Reflect => 2 * (d - 1) - i,
            PadMode::Symmetric if i < 0 => -i - 1,
            PadMode::Symmetric => 2 * d - 1 - i,
        };
        Some(s as usize)
    }
}

fn pad<T: Element>(
    op: &Pad,
    t: &Tensor,
    begin: &[i64],
    out: &[usize],
    value: Option<&Tensor>,
) -> Result<Tensor> {
    let fill = match value {
        Some(v) => {
            let a = v.typed::<T>("pad_value")?;
            match a.len() {
                1 => a.iter().copied().next().unwrap_or_default(),
                _ => {
                    return Err(invalid(format!(
                        "pad_value must hold one value, got shape {:?}",
                        v.shape()
                    )))
                }
            }
        }
        None => T::default(),
    };
    let shape = t.shape();
    let src: Vec<T> = t.typed::<T>("data")?.iter().copied().collect();
    let numel: usize = out.iter().product();
    let mut values = Vec::with_capacity(numel);
    if numel > 0 {
        let rank = shape.len();
        let strides: Vec<usize> = (0..rank).map(|d| shape[d + 1..].iter().product()).collect();
        // Per axis and output index: the source offset, or None for the pad value.
        let maps: Vec<Vec<Option<usize>>> = (0..rank)
            .map(|d| {
                (0..out[d])
                    .map(|o| op.source(o, shape[d], begin[d]).map(|s| s * strides[d]))
                    .collect()
            })
            .collect();
        let mut idx = vec![0usize; rank];
        for _ in 0..numel {
            let offset: Option<usize> =
                (0..rank).try_fold(0usize, |acc, d| maps[d][idx[d]].map(|o| acc + o));
            values.push(offset.map_or(fill, |o| src[o]));
            for d in (0..rank).rev() {
                idx[d] += 1;
                if idx[d] < out[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
    }
    Tensor::from_vec(out, values)
}

impl Op for Pad {
    fn type_name(&self) -> &'static str {
        "Pad"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let x = &inputs[0];
        if inputs
            .get(3)
            .is_some_and(|v| v.element_type != x.element_type)
        {
            return Err(invalid("pad_value must have the data's type"));
        }
        let shape = match (
            x.shape.dims(),
            const_i64s(&inputs[1], "pads_begin")?,
            const_i64s(&inputs[2], "pads_end")?,
        ) {
            (Some(d), Some(b), Some(e)) => PartialShape::new(self.dims(d, &b, &e)?),
            (Some(d), _, _) => PartialShape::dynamic_of_rank(d.len()),
            _ => PartialShape::dynamic(),
        };
        Ok(vec![OutputInfo::new(x.element_type, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Pad", inputs, 3..=4)?;
        let t = inputs[0];
        let begin = inputs[1].to_i64_vec("pads_begin")?;
        let end = inputs[2].to_i64_vec("pads_end")?;
        let dims: Vec<Dim> = t.shape().iter().map(|&d| Some(d)).collect();
        let out: Vec<usize> = self
            .dims(&dims, &begin, &end)?
            .into_iter()
            .flatten()
            .collect();
        crate::graph::build::allocatable(0, &out).map_err(invalid)?;
        let value = inputs.get(3).copied();
        let padded =
            crate::dispatch_type!(t.element_type(), T => pad::<T>(self, t, &begin, &out, value))?;
        Ok(vec![padded])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
