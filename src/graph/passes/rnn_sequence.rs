//! The op a fused TensorIterator becomes: one oneDNN RNN primitive (LSTM, GRU, LBR-GRU or
//! vanilla RNN) over the whole sequence, with the weights converted and reordered into the
//! primitive's layout once, when the op is made.

use std::any::Any;
use std::borrow::Cow;

use super::rnn_primitive::{RnnPrimitive, NTC, TNC};
use super::sequence_cell::SequenceCell;
use crate::error::{Error, Result};
use crate::graph::ops::{Op, OutputInfo, ValueInfo};
use crate::graph::shape::PartialShape;
use crate::graph::tensor::{ElementType, Tensor};
use crate::types::Direction;

/// How one outer output of the TensorIterator comes from the primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Produce {
    /// The whole hidden sequence (dst_layer).
    Sequence,
    /// The last value of state `k` (0: h = dst_iter, 1: c = dst_iter_c).
    LastState(usize),
}

/// Where the sequence is: X's sliced axis and range, the sizes, the direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// The sequence axis of X and of the concatenated output (0: tnc, 1: ntc).
    pub axis: usize,
    /// First slice of X along the axis (the port map's `start`).
    pub first: usize,
    /// Time steps.
    pub t: usize,
    /// Batch.
    pub n: usize,
    /// Input channels.
    pub k: usize,
    /// Walk the sequence backwards (stride −1): right-to-left.
    pub reverse: bool,
}

/// A TensorIterator over one RNN cell, run as one RNN primitive (see `fuse_rnn_ti`).
pub struct FusedRnnSequence {
    type_name: &'static str,
    states: usize,
    hidden: usize,
    geometry: Geometry,
    primitive: RnnPrimitive,
    /// Outer input positions of X and of the initial states.
    inputs: Vec<usize>,
    outputs: Vec<Produce>,
    n_inputs: usize,
}

impl std::fmt::Debug for FusedRnnSequence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(self.type_name)
            .field("geometry", &self.geometry)
            .field("hidden_size", &self.hidden)
            .field("outputs", &self.outputs)
            .finish()
    }
}

impl FusedRnnSequence {
    /// Creates the primitive for `cell` over `g` and converts the weights. `inputs` are the
    /// outer input positions of X and of the states; the op takes `n_inputs` inputs.
    pub fn new(
        cell: SequenceCell,
        g: Geometry,
        inputs: Vec<usize>,
        outputs: Vec<Produce>,
        n_inputs: usize,
    ) -> Result<Self> {
        let direction = if g.reverse {
            Direction::Right2Left
        } else {
            Direction::Left2Right
        };
        let layer_tag = if g.axis == 0 { TNC } else { NTC };
        let primitive = RnnPrimitive::new(&cell, direction, layer_tag, g.k, (g.t, g.n))?;
        Ok(Self {
            type_name: cell.kind.type_name,
            states: cell.kind.states,
            hidden: cell.hidden,
            geometry: g,
            primitive,
            inputs,
            outputs,
            n_inputs,
        })
    }

    /// What the op runs, for `--verbose`.
    pub fn describe(&self) -> String {
        self.primitive.describe()
    }

    fn output_shape(&self, p: Produce) -> Vec<usize> {
        let Geometry { t, n, axis, .. } = self.geometry;
        match p {
            Produce::Sequence if axis == 0 => vec![t, n, self.hidden],
            Produce::Sequence => vec![n, t, self.hidden],
            Produce::LastState(_) => vec![n, self.hidden],
        }
    }

    /// X restricted to the iterated slices, contiguous in tnc / ntc order: borrowed when the
    /// slices are the whole (row-major) input, copied otherwise.
    fn x_slices<'a>(&self, x: &'a Tensor) -> Result<Cow<'a, [f32]>> {
        let Geometry {
            axis,
            first,
            t,
            n,
            k,
            ..
        } = self.geometry;
        let x_all = x.typed::<f32>("X")?;
        let view = x_all.slice_axis(ndarray::Axis(axis), ndarray::Slice::from(first..first + t));
        let want = if axis == 0 { [t, n, k] } else { [n, t, k] };
        if view.shape() != want {
            return Err(Error::InvalidArguments(format!(
                "{}: X slices of shape {:?}, expected {want:?}",
                self.type_name,
                view.shape()
            )));
        }
        Ok(match view.to_slice() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(view.iter().copied().collect()),
        })
    }
}

impl Op for FusedRnnSequence {
    fn type_name(&self) -> &'static str {
        self.type_name
    }

    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        if inputs.len() != self.n_inputs {
            return Err(Error::InvalidArguments(format!(
                "{}: {} inputs, expected {}",
                self.type_name,
                inputs.len(),
                self.n_inputs
            )));
        }
        Ok(self
            .outputs
            .iter()
            .map(|&p| {
                OutputInfo::new(
                    ElementType::F32,
                    PartialShape::from_static(&self.output_shape(p)),
                )
            })
            .collect())
    }

    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let Geometry { t, n, .. } = self.geometry;
        let h = self.hidden;
        let x = self.x_slices(inputs[self.inputs[0]])?;
        let mut src_states: Vec<Vec<f32>> = (0..self.states)
            .map(|s| {
                let a = inputs[self.inputs[1 + s]].typed::<f32>("initial state")?;
                if a.shape() != [n, h] {
                    return Err(Error::InvalidArguments(format!(
                        "{}: initial state {s} of shape {:?}, expected [{n}, {h}]",
                        self.type_name,
                        a.shape()
                    )));
                }
                Ok(a.iter().copied().collect())
            })
            .collect::<Result<_>>()?;
        let run = self.primitive.run(t, n, &x, &mut src_states, None)?;
        // Buffers by Produce: [sequence, h, c].
        let mut buffers = vec![run.layer];
        buffers.extend(run.states);
        // Each buffer moves into the last output that reads it (a result mapped twice is copied).
        let slot = |p: Produce| match p {
            Produce::Sequence => 0,
            Produce::LastState(s) => 1 + s,
        };
        let mut buffers: Vec<Option<Vec<f32>>> = buffers.into_iter().map(Some).collect();
        let slots: Vec<usize> = self.outputs.iter().map(|&p| slot(p)).collect();
        slots
            .iter()
            .enumerate()
            .map(|(j, &b)| {
                let data = if slots[j + 1..].contains(&b) {
                    buffers[b].clone()
                } else {
                    buffers[b].take()
                };
                Tensor::from_vec(
                    &self.output_shape(self.outputs[j]),
                    data.unwrap_or_default(),
                )
            })
            .collect()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
