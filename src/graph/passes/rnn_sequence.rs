//! The op a fused TensorIterator becomes: one oneDNN RNN primitive (LSTM, GRU, LBR-GRU or
//! vanilla RNN) over the whole sequence, with the weights converted and reordered into the
//! primitive's layout once, when the op is made.

use std::any::Any;
use std::borrow::Cow;

use super::sequence_cell::{SequenceCell, Weights};
use crate::args;
use crate::attr::Attr;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::graph::ops::{Op, OutputInfo, ValueInfo};
use crate::graph::shape::PartialShape;
use crate::graph::tensor::{ElementType, Tensor};
use crate::memory::{Handle, Memory, MemoryDesc, Reorder};
use crate::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use crate::rnn::{RnnDesc, RnnPd};
use crate::types::{DataType, Direction, PropKind};

/// `dnnl_format_tag_any`.
const ANY: i32 = 1;
/// `dnnl_tnc`.
const TNC: i32 = 4;
/// `dnnl_ldnc` (= `dnnl_ldgo`).
const LDNC: i32 = 5;
/// `dnnl_ldigo`.
const LDIGO: i32 = 6;
/// `dnnl_ntc`.
const NTC: i32 = 16;

/// The iteration-state arguments, per state (h, c).
const SRC_ITER: [i32; 2] = [args::SRC_ITER, args::SRC_ITER_C];
const DST_ITER: [i32; 2] = [args::DST_ITER, args::DST_ITER_C];

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

fn md(dims: &[usize], tag: i32) -> Result<MemoryDesc> {
    let d: Vec<i64> = dims.iter().map(|&v| v as i64).collect();
    MemoryDesc::with_tag(&d, DataType::F32, tag)
}

/// Memory in the layout `want`, filled from plain values of layout `tag`.
fn prepared(values: &mut [f32], dims: &[usize], tag: i32, want: &MemoryDesc) -> Result<Memory> {
    let plain_md = md(dims, tag)?;
    let plain = Memory::new(
        &plain_md,
        Engine::cpu(),
        Handle::User(values.as_mut_ptr().cast()),
    )?;
    let out = Memory::allocate(want)?;
    Reorder::new(&plain_md, want)?.execute(&plain, &out)?;
    Ok(out)
}

/// A TensorIterator over one RNN cell, run as one RNN primitive (see `fuse_rnn_ti`).
pub struct FusedRnnSequence {
    type_name: &'static str,
    states: usize,
    hidden: usize,
    geometry: Geometry,
    pd: RnnPd,
    primitive: Primitive,
    weights_layer: Memory,
    weights_iter: Memory,
    bias: Memory,
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
        let kind = cell.kind;
        let (t, n, k, h) = (g.t, g.n, g.k, cell.hidden);
        let (gates, bias_gates) = (cell.gates(), cell.bias_gates());
        let layer_tag = if g.axis == 0 { TNC } else { NTC };
        let direction = if g.reverse {
            Direction::Right2Left
        } else {
            Direction::Left2Right
        };
        let state = md(&[1, 1, n, h], LDNC)?;
        let mut desc = RnnDesc::new(PropKind::ForwardInference, kind.alg, direction)
            .with(args::SRC_LAYER, Some(&md(&[t, n, k], layer_tag)?))
            .with(args::WEIGHTS_LAYER, Some(&md(&[1, 1, k, gates, h], ANY)?))
            .with(args::WEIGHTS_ITER, Some(&md(&[1, 1, h, gates, h], ANY)?))
            .with(args::BIAS, Some(&md(&[1, 1, bias_gates, h], LDNC)?))
            .with(args::DST_LAYER, Some(&md(&[t, n, h], layer_tag)?));
        for s in 0..kind.states {
            desc = desc
                .with(SRC_ITER[s], Some(&state))
                .with(DST_ITER[s], Some(&state));
        }
        desc.activation = kind.activation;
        let pd = RnnPd::new(Engine::cpu(), desc, &Attr::new(), None)?;
        let arg = |a: i32| {
            pd.arg_md(a).cloned().ok_or_else(|| {
                Error::Runtime(format!(
                    "the {} primitive has no argument {a}",
                    kind.type_name
                ))
            })
        };
        let weights_layer = prepared(
            &mut cell.ldigo(Weights::Layer, k)?,
            &[1, 1, k, gates, h],
            LDIGO,
            &arg(args::WEIGHTS_LAYER)?,
        )?;
        let weights_iter = prepared(
            &mut cell.ldigo(Weights::Iter, h)?,
            &[1, 1, h, gates, h],
            LDIGO,
            &arg(args::WEIGHTS_ITER)?,
        )?;
        let bias = prepared(
            &mut cell.ldgo_bias()?,
            &[1, 1, bias_gates, h],
            LDNC,
            &arg(args::BIAS)?,
        )?;
        let primitive = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone())))?;
        Ok(Self {
            type_name: kind.type_name,
            states: kind.states,
            hidden: h,
            geometry: g,
            pd,
            primitive,
            weights_layer,
            weights_iter,
            bias,
            inputs,
            outputs,
            n_inputs,
        })
    }

    fn output_shape(&self, p: Produce) -> Vec<usize> {
        let Geometry { t, n, axis, .. } = self.geometry;
        match p {
            Produce::Sequence if axis == 0 => vec![t, n, self.hidden],
            Produce::Sequence => vec![n, t, self.hidden],
            Produce::LastState(_) => vec![n, self.hidden],
        }
    }

    fn arg(&self, a: i32) -> Result<&MemoryDesc> {
        self.pd.arg_md(a).ok_or_else(|| {
            Error::Runtime(format!(
                "the {} primitive has no argument {a}",
                self.type_name
            ))
        })
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
        // Buffers by Produce: [sequence, h, c].
        let mut buffers: Vec<Vec<f32>> = vec![vec![0f32; t * n * h]];
        buffers.extend((0..self.states).map(|_| vec![0f32; n * h]));
        {
            let user = |a: i32, v: &mut Vec<f32>| {
                Memory::new(
                    self.arg(a)?,
                    Engine::cpu(),
                    Handle::User(v.as_mut_ptr().cast()),
                )
            };
            // SAFETY of the cast: the primitive only reads SRC_LAYER.
            let src_layer = Memory::new(
                self.arg(args::SRC_LAYER)?,
                Engine::cpu(),
                Handle::User(x.as_ptr().cast_mut().cast()),
            )?;
            let (dst_layer, dst_states) = buffers.split_at_mut(1);
            let mut owned: Vec<(i32, Memory)> = vec![
                (args::SRC_LAYER, src_layer),
                (args::DST_LAYER, user(args::DST_LAYER, &mut dst_layer[0])?),
            ];
            for (s, v) in src_states.iter_mut().enumerate() {
                owned.push((SRC_ITER[s], user(SRC_ITER[s], v)?));
            }
            for (s, v) in dst_states.iter_mut().enumerate() {
                owned.push((DST_ITER[s], user(DST_ITER[s], v)?));
            }
            if let Some(md) = self.pd.arg_md(args::SCRATCHPAD).filter(|m| !m.is_zero()) {
                owned.push((args::SCRATCHPAD, Memory::allocate(md)?));
            }
            let mut list: Vec<(i32, &Memory)> = vec![
                (args::WEIGHTS_LAYER, &self.weights_layer),
                (args::WEIGHTS_ITER, &self.weights_iter),
                (args::BIAS, &self.bias),
            ];
            list.extend(owned.iter().map(|(a, m)| (*a, m)));
            self.primitive.execute(&ExecArgs::new(list)?)?;
        }
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
