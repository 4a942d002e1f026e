//! The op an LSTMSequence / GRUSequence / RNNSequence becomes when oneDNN has its cell: one RNN
//! primitive over the whole batch-major sequence (X `[N, T, K]` is oneDNN's `ntc`), any T and
//! N (a primitive per shape, the weights packed once, see [`super::rnn_primitive`]).
//!
//! The states `[N, D, H]` are transposed to and from oneDNN's `ldnc` `[1, D, N, H]`, and a
//! bidirectional Y from `[N, T, 2·H]` to `[N, 2, T, H]`; with D = 1 both are the same memory.
//! Lengths short of T go to the primitive (`Attr::rnn_seq_lengths`), which leaves a length-0
//! sample's initial state in Ho / Co where OpenVINO gives zeros: those rows are cleared. An
//! empty sequence or batch runs on the reference op.

use std::any::Any;

use ndarray::{ArrayView3, ArrayView4};

use super::rnn_primitive::RnnPrimitive;
use crate::error::Result;
use crate::graph::ops::rnn_sequence::{sequence_lengths, RnnSequence};
use crate::graph::ops::{check_arity, invalid, Op, OutputInfo, ValueInfo};
use crate::graph::tensor::Tensor;

/// A sequence op run as one RNN primitive.
#[derive(Debug)]
pub struct PrimitiveSequence {
    reference: RnnSequence,
    primitive: RnnPrimitive,
}

impl PrimitiveSequence {
    /// The op `reference` on `primitive` (made for its weights and direction).
    pub fn new(reference: RnnSequence, primitive: RnnPrimitive) -> Self {
        Self {
            reference,
            primitive,
        }
    }

    /// What the op runs, for `--verbose`.
    pub fn describe(&self) -> String {
        self.primitive.describe()
    }
}

/// `a` `[P, Q, R]` with its first two axes swapped, row-major.
fn swap01(a: ArrayView3<f32>) -> Vec<f32> {
    a.permuted_axes([1, 0, 2]).iter().copied().collect()
}

impl Op for PrimitiveSequence {
    fn type_name(&self) -> &'static str {
        self.reference.ir_type()
    }

    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        self.reference.infer(inputs)
    }

    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let r = &self.reference;
        let l = r.lengths_input();
        check_arity(r.ir_type(), inputs, l + 4..=l + 4)?;
        let x = inputs[0].typed::<f32>("X")?;
        let &[n, t, _] = x.shape() else {
            return Err(invalid(format!("X must be 3-D, got shape {:?}", x.shape())));
        };
        if n == 0 || t == 0 {
            return r.execute(inputs);
        }
        let lengths = sequence_lengths(inputs[l], n, t)?;
        let mut short: Option<Vec<i32>> = if lengths.iter().all(|&v| v == t) {
            None
        } else {
            let as_i32 = |&v: &usize| {
                i32::try_from(v).map_err(|_| invalid(format!("sequence length {v} over 2^31")))
            };
            Some(lengths.iter().map(as_i32).collect::<Result<_>>()?)
        };
        let (d, h) = (self.primitive.directions(), r.attrs.hidden_size);
        let x = x.as_standard_layout();
        let mut states = (0..r.states())
            .map(|s| {
                let a = inputs[1 + s].typed::<f32>("initial state")?;
                let v = a
                    .view()
                    .into_dimensionality()
                    .ok()
                    .filter(|v: &ArrayView3<f32>| v.dim() == (n, d, h));
                let v = v.ok_or_else(|| {
                    invalid(format!(
                        "initial state {s} has shape {:?}, expected [{n}, {d}, {h}]",
                        a.shape()
                    ))
                })?;
                Ok(swap01(v))
            })
            .collect::<Result<Vec<_>>>()?;
        let x = x.as_slice().ok_or_else(|| invalid("X is not contiguous"))?;
        let mut run = self
            .primitive
            .run(t, n, x, &mut states, short.as_deref_mut())?;
        for s in &mut run.states {
            for (b, _) in lengths.iter().enumerate().filter(|(_, &v)| v == 0) {
                for dir in 0..d {
                    s[(dir * n + b) * h..][..h].fill(0.0);
                }
            }
        }
        let y = if d == 1 {
            run.layer
        } else {
            let v = ArrayView4::from_shape((n, t, d, h), &run.layer)
                .map_err(|e| invalid(e.to_string()))?;
            v.permuted_axes([0, 2, 1, 3]).iter().copied().collect()
        };
        let mut out = vec![Tensor::from_vec(&[n, d, t, h], y)?];
        for s in run.states {
            let v = ArrayView3::from_shape((d, n, h), &s).map_err(|e| invalid(e.to_string()))?;
            out.push(Tensor::from_vec(&[n, d, h], swap01(v))?);
        }
        Ok(out)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
