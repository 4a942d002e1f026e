//! ReverseSequence-1: for each index `b` along `batch_axis`, reverses the first
//! `seq_lengths[b]` elements along `seq_axis` (the rest stay); both axes may be negative.

use std::any::Any;

use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::normalize_axis;
use crate::graph::tensor::{Element, Scalar, Tensor};

/// Per-batch partial reversal.
#[derive(Clone, Debug)]
pub struct ReverseSequence {
    /// The batch axis (default 0).
    pub batch_axis: i64,
    /// The sequence axis (default 1).
    pub seq_axis: i64,
}

impl ReverseSequence {
    /// Reads `<data batch_axis seq_axis/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        Ok(Self {
            batch_axis: layer.attr_i64_or("batch_axis", 0)?,
            seq_axis: layer.attr_i64_or("seq_axis", 1)?,
        })
    }

    fn axes(&self, rank: usize) -> Result<(usize, usize)> {
        let b = normalize_axis(self.batch_axis, rank, "batch_axis")?;
        let s = normalize_axis(self.seq_axis, rank, "seq_axis")?;
        if b == s {
            return Err(invalid(format!("batch_axis and seq_axis are both {b}")));
        }
        Ok((b, s))
    }
}

fn reverse<T: Element>(t: &Tensor, lengths: &[usize], b: usize, s: usize) -> Result<Tensor> {
    let shape = t.shape();
    let mut values: Vec<T> = t.typed::<T>("data")?.iter().copied().collect();
    let src = values.clone();
    let strides: Vec<usize> = (0..shape.len())
        .map(|d| shape[d + 1..].iter().product())
        .collect();
    let (seq_stride, batch_stride) = (strides[s], strides[b]);
    for (i, v) in values.iter_mut().enumerate() {
        let bi = i / batch_stride % shape[b];
        let si = i / seq_stride % shape[s];
        let len = lengths[bi];
        if si < len {
            let mirrored = i - si * seq_stride + (len - 1 - si) * seq_stride;
            *v = src[mirrored];
        }
    }
    Tensor::from_vec(shape, values)
}

impl Op for ReverseSequence {
    fn type_name(&self) -> &'static str {
        "ReverseSequence"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (x, l) = (&inputs[0], &inputs[1]);
        if l.element_type == crate::graph::tensor::ElementType::Boolean {
            return Err(invalid("seq_lengths must be numeric, got boolean"));
        }
        if let Some(rank) = x.shape.rank() {
            self.axes(rank)?;
        }
        Ok(vec![OutputInfo::new(x.element_type, x.shape.clone())])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("ReverseSequence", inputs, 2..=2)?;
        let data = inputs[0];
        let shape = data.shape();
        let (b, s) = self.axes(shape.len())?;
        let lengths: Vec<usize> = inputs[1]
            .scalars()
            .into_iter()
            .map(|v| {
                let n = match v {
                    Scalar::Int(n) => n,
                    Scalar::Float(f) => f as i64,
                };
                usize::try_from(n)
                    .ok()
                    .filter(|&n| n <= shape[s])
                    .ok_or_else(|| {
                        invalid(format!(
                            "seq_lengths value {n} is out of range for a sequence of {}",
                            shape[s]
                        ))
                    })
            })
            .collect::<Result<_>>()?;
        if inputs[1].shape().len() != 1 || lengths.len() != shape[b] {
            return Err(invalid(format!(
                "seq_lengths of shape {:?} must be 1-D with one length per batch ({})",
                inputs[1].shape(),
                shape[b]
            )));
        }
        let out =
            crate::dispatch_type!(data.element_type(), T => reverse::<T>(data, &lengths, b, s))?;
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
