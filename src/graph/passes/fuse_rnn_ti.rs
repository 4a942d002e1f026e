//! Fuses a TensorIterator whose body is one LSTMCell into one LSTM primitive over the sequence.
//!
//! The pattern (as OpenVINO's `ConvertTensorIteratorToLSTMSequence`, every body op in it):
//!
//! ```text
//! X (sliced on axis 0 or 1, part_size 1, stride ±1) → Reshape | Squeeze → LSTMCell.X
//! H (back edge from the cell's H'), C (back edge from the cell's C') → LSTMCell.H / .C
//! Const W [4H, I], R [4H, H], B [4H] → LSTMCell (opset4, or opset1 without peephole)
//! LSTMCell.H' → Result (back edge / last H) and → Reshape | Unsqueeze → Result (concatenated
//! along the sliced axis with the same stride sign); LSTMCell.C' → Result (back edge / last C)
//! ```
//!
//! with default activations, no clip, no `input_forget` and static shapes. Stride −1 runs the
//! primitive right-to-left. OpenVINO's gate order f, i, c, o becomes oneDNN's i, f, c, o and the
//! weights are converted (and reordered into the primitive's layout) once, when the pass runs.
//! Anything else leaves the TensorIterator as it is.

use std::any::Any;
use std::borrow::Cow;

use crate::args;
use crate::attr::Attr;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::graph::model::{Model, ValueRef};
use crate::graph::ops::activation::ActivationKind;
use crate::graph::ops::lstm_cell::LstmCell;
use crate::graph::ops::reshape::Reshape;
use crate::graph::ops::squeeze::Squeeze;
use crate::graph::ops::subgraph::{InputMapping, OutputMapping, SliceSpec};
use crate::graph::ops::tensor_iterator::TensorIterator;
use crate::graph::ops::unsqueeze::Unsqueeze;
use crate::graph::ops::{Op, OutputInfo, ValueInfo};
use crate::graph::shape::PartialShape;
use crate::graph::tensor::{ElementType, Tensor};
use crate::memory::{Handle, Memory, MemoryDesc, Reorder};
use crate::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use crate::rnn::{RnnDesc, RnnPd};
use crate::types::{AlgKind, DataType, Direction, PropKind};

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

/// The op type name of a fused TensorIterator.
pub const FUSED_LSTM_TYPE: &str = "LSTMSequence";

/// Replaces every top-level TensorIterator matching the pattern; returns how many were fused.
pub fn run(model: &mut Model) -> Result<usize> {
    let mut fused = 0;
    for i in 0..model.nodes.len() {
        if let Some(op) = try_fuse(model, i)? {
            model.replace_op(i, Box::new(op))?;
            fused += 1;
        }
    }
    Ok(fused)
}

/// How the outer outputs of the TensorIterator come from the primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Produce {
    /// The whole hidden sequence (dst_layer).
    Sequence = 0,
    /// The last hidden state (dst_iter).
    LastH = 1,
    /// The last cell state (dst_iter_c).
    LastC = 2,
}

/// What the pattern matcher extracted from a TensorIterator.
struct Matched {
    x_input: usize,
    h_input: usize,
    c_input: usize,
    x_spec: SliceSpec,
    outputs: Vec<Produce>,
    w: Tensor,
    r: Tensor,
    b: Tensor,
    hidden: usize,
    /// The concatenations of the sequence outputs (each must cover its whole output axis).
    concat_specs: Vec<SliceSpec>,
}

fn static_shape(s: &PartialShape) -> Option<Vec<usize>> {
    s.to_static()
}

/// `shape` with a unit dim removed at `axis`, if it is a unit dim.
fn without_axis(shape: &[usize], axis: usize) -> Option<Vec<usize>> {
    (shape.get(axis) == Some(&1)).then(|| {
        let mut v = shape.to_vec();
        v.remove(axis);
        v
    })
}

/// Matches the body; `None` when the TensorIterator is not a plain LSTM sequence.
fn match_ti(ti: &TensorIterator) -> Option<Matched> {
    let body = &ti.body;
    let nodes = body.nodes();
    let is = |n: usize, ty: &str| nodes[n].op.type_name() == ty;
    // Exactly one LSTMCell; every node is Parameter/Result/Const/Reshape/Squeeze/Unsqueeze/it.
    let cells: Vec<usize> = (0..nodes.len()).filter(|&n| is(n, "LSTMCell")).collect();
    let &[cell] = cells.as_slice() else {
        return None;
    };
    let lstm = nodes[cell].op.as_any().downcast_ref::<LstmCell>()?;
    if nodes[cell].inputs.len() != 6 || lstm.input_forget {
        return None;
    }
    let a = &lstm.attrs;
    if a.clip != 0.0
        || a.activations
            != [
                ActivationKind::Sigmoid,
                ActivationKind::Tanh,
                ActivationKind::Tanh,
            ]
    {
        return None;
    }
    let hidden = a.hidden_size;
    let constant = |v: ValueRef| nodes[v.node].op.constant().cloned();
    let cin = &nodes[cell].inputs;
    let (w, r, b) = (constant(cin[3])?, constant(cin[4])?, constant(cin[5])?);
    if [&w, &r, &b]
        .iter()
        .any(|t| t.element_type() != ElementType::F32)
    {
        return None;
    }
    // Parameters: exactly X (sliced), H and C (merged from the cell's outputs).
    let params = body.parameter_nodes();
    if ti.inputs.len() != 3 || params.len() != 3 {
        return None;
    }
    let results = body.result_nodes();
    let result_src = |r: usize| nodes[results[r]].inputs[0];
    let (mut x, mut h, mut c) = (None, None, None);
    for m in &ti.inputs {
        match *m {
            InputMapping::Sliced { input, param, spec } => x = Some((input, param, spec)),
            InputMapping::Merged {
                input,
                param,
                result,
            } => {
                let src = result_src(result);
                let v = ValueRef {
                    node: params[param],
                    port: 0,
                };
                if src
                    == (ValueRef {
                        node: cell,
                        port: 0,
                    })
                    && cin[1] == v
                {
                    h = Some(input);
                } else if src
                    == (ValueRef {
                        node: cell,
                        port: 1,
                    })
                    && cin[2] == v
                {
                    c = Some(input);
                } else {
                    return None;
                }
            }
            InputMapping::Invariant { .. } => return None,
        }
    }
    let ((x_input, x_param, x_spec), h_input, c_input) = (x?, h?, c?);
    if x_spec.part_size != 1 || x_spec.stride.abs() != 1 {
        return None;
    }
    // X slice → Reshape | Squeeze → cell.X, removing the sliced unit axis.
    let xi_shape = static_shape(&nodes[params[x_param]].outputs[0].shape)?;
    if xi_shape.len() != 3 {
        return None;
    }
    let axis = x_spec.axis(3).ok()?;
    if axis > 1 {
        return None;
    }
    let squeeze = cin[0].node;
    let sq = &nodes[squeeze];
    let is_squeeze = sq.op.as_any().is::<Reshape>() || sq.op.as_any().is::<Squeeze>();
    if !is_squeeze
        || sq.inputs[0]
            != (ValueRef {
                node: params[x_param],
                port: 0,
            })
        || sq.inputs[1..]
            .iter()
            .any(|v| nodes[v.node].op.constant().is_none())
        || static_shape(&sq.outputs[0].shape)? != without_axis(&xi_shape, axis)?
    {
        return None;
    }
    // Outputs.
    let mut outputs = Vec::new();
    let mut concat_specs = Vec::new();
    for m in &ti.outputs {
        let produce = match *m {
            OutputMapping::Last { result } => match result_src(result) {
                ValueRef { node, port: 0 } if node == cell => Produce::LastH,
                ValueRef { node, port: 1 } if node == cell => Produce::LastC,
                _ => return None,
            },
            OutputMapping::Concat { result, spec } => {
                let un = &nodes[result_src(result).node];
                let is_unsqueeze =
                    un.op.as_any().is::<Reshape>() || un.op.as_any().is::<Unsqueeze>();
                let out_shape = static_shape(&un.outputs[0].shape)?;
                if !is_unsqueeze
                    || result_src(result).port != 0
                    || un.inputs[0]
                        != (ValueRef {
                            node: cell,
                            port: 0,
                        })
                    || un.inputs[1..]
                        .iter()
                        .any(|v| nodes[v.node].op.constant().is_none())
                    || spec.part_size != 1
                    || spec.stride != x_spec.stride
                    || out_shape.len() != 3
                    || spec.axis(3).ok()? != axis
                    || without_axis(&out_shape, axis)?
                        != static_shape(&nodes[cell].outputs[0].shape)?
                {
                    return None;
                }
                concat_specs.push(spec);
                Produce::Sequence
            }
        };
        outputs.push(produce);
    }
    // Every body node is accounted for: params, results, the cell, its constants, the squeeze,
    // the unsqueezes and their constant inputs.
    let allowed = |n: usize| {
        [
            "Parameter",
            "Result",
            "Const",
            "LSTMCell",
            "Reshape",
            "Squeeze",
            "Unsqueeze",
        ]
        .iter()
        .any(|t| is(n, t))
    };
    if !(0..nodes.len()).all(allowed) {
        return None;
    }
    Some(Matched {
        x_input,
        h_input,
        c_input,
        x_spec,
        outputs,
        w,
        r,
        b,
        hidden,
        concat_specs,
    })
}

/// OpenVINO gate `k` for oneDNN gate `g` (i, f, c, o ← f, i, c, o).
const OV_GATE: [usize; 4] = [1, 0, 2, 3];

/// `W [4H, K]` (gates f, i, c, o) → ldigo `[1, 1, K, 4, H]` (gates i, f, c, o), logical order.
fn to_ldigo(w: &Tensor, k: usize, h: usize) -> Result<Vec<f32>> {
    let w = w.typed::<f32>("LSTM weights")?;
    if w.shape() != [4 * h, k] {
        return Err(Error::InvalidArguments(format!(
            "LSTM weights of shape {:?}, expected [{}, {k}]",
            w.shape(),
            4 * h
        )));
    }
    let mut out = Vec::with_capacity(k * 4 * h);
    for i in 0..k {
        for og in OV_GATE {
            for j in 0..h {
                out.push(w[[og * h + j, i]]);
            }
        }
    }
    Ok(out)
}

/// `B [4H]` (f, i, c, o) → ldgo `[1, 1, 4, H]` (i, f, c, o).
fn to_ldgo(b: &Tensor, h: usize) -> Result<Vec<f32>> {
    let b: Vec<f32> = b.typed::<f32>("LSTM bias")?.iter().copied().collect();
    if b.len() != 4 * h {
        return Err(Error::InvalidArguments(format!(
            "LSTM bias of {} values, expected {}",
            b.len(),
            4 * h
        )));
    }
    Ok(OV_GATE
        .iter()
        .flat_map(|&og| b[og * h..(og + 1) * h].to_vec())
        .collect())
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

fn try_fuse(model: &Model, index: usize) -> Result<Option<FusedLstmSequence>> {
    let node = &model.nodes[index];
    let Some(ti) = node.op.as_any().downcast_ref::<TensorIterator>() else {
        return Ok(None);
    };
    let Some(m) = match_ti(ti) else {
        return Ok(None);
    };
    let outer = |i: usize| {
        let v = node.inputs[i];
        static_shape(&model.nodes[v.node].outputs[v.port].shape)
    };
    let (Some(xs), Some(hs), Some(cs)) = (outer(m.x_input), outer(m.h_input), outer(m.c_input))
    else {
        return Ok(None);
    };
    let axis = m.x_spec.axis(3)?;
    let Ok((lo, t)) = m.x_spec.range(xs[axis]) else {
        return Ok(None);
    };
    let (n, k, h) = (xs[1 - axis], xs[2], m.hidden);
    let whole = |spec: &SliceSpec| matches!(spec.range(t), Ok((0, c)) if c == t);
    if hs != [n, h] || cs != [n, h] || t == 0 || !m.concat_specs.iter().all(whole) {
        return Ok(None);
    }
    let layer_tag = if axis == 0 { TNC } else { NTC };
    let direction = if m.x_spec.stride > 0 {
        Direction::Left2Right
    } else {
        Direction::Right2Left
    };
    let state = md(&[1, 1, n, h], LDNC)?;
    let desc = RnnDesc::new(PropKind::ForwardInference, AlgKind::VanillaLstm, direction)
        .with(args::SRC_LAYER, Some(&md(&[t, n, k], layer_tag)?))
        .with(args::SRC_ITER, Some(&state))
        .with(args::SRC_ITER_C, Some(&state))
        .with(args::WEIGHTS_LAYER, Some(&md(&[1, 1, k, 4, h], ANY)?))
        .with(args::WEIGHTS_ITER, Some(&md(&[1, 1, h, 4, h], ANY)?))
        .with(args::BIAS, Some(&md(&[1, 1, 4, h], LDNC)?))
        .with(args::DST_LAYER, Some(&md(&[t, n, h], layer_tag)?))
        .with(args::DST_ITER, Some(&state))
        .with(args::DST_ITER_C, Some(&state));
    let pd = RnnPd::new(Engine::cpu(), desc, &Attr::new(), None)?;
    let arg = |a: i32| {
        pd.arg_md(a)
            .cloned()
            .ok_or_else(|| Error::Runtime(format!("the LSTM primitive has no argument {a}")))
    };
    let weights_layer = prepared(
        &mut to_ldigo(&m.w, k, h)?,
        &[1, 1, k, 4, h],
        LDIGO,
        &arg(args::WEIGHTS_LAYER)?,
    )?;
    let weights_iter = prepared(
        &mut to_ldigo(&m.r, h, h)?,
        &[1, 1, h, 4, h],
        LDIGO,
        &arg(args::WEIGHTS_ITER)?,
    )?;
    let bias = prepared(
        &mut to_ldgo(&m.b, h)?,
        &[1, 1, 4, h],
        LDNC,
        &arg(args::BIAS)?,
    )?;
    let primitive = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone())))?;
    Ok(Some(FusedLstmSequence {
        pd,
        primitive,
        weights_layer,
        weights_iter,
        bias,
        inputs: [m.x_input, m.h_input, m.c_input],
        outputs: m.outputs,
        axis,
        first: lo,
        t,
        n,
        k,
        h,
        n_inputs: node.inputs.len(),
    }))
}

/// A TensorIterator over an LSTMCell, run as one LSTM primitive (see the module docs).
pub struct FusedLstmSequence {
    pd: RnnPd,
    primitive: Primitive,
    weights_layer: Memory,
    weights_iter: Memory,
    bias: Memory,
    /// Outer input positions of X, H0, C0.
    inputs: [usize; 3],
    outputs: Vec<Produce>,
    /// The sequence axis of X and of the concatenated output (0: tnc, 1: ntc).
    axis: usize,
    /// First slice of X along the axis (the port map's `start`).
    first: usize,
    t: usize,
    n: usize,
    k: usize,
    h: usize,
    n_inputs: usize,
}

impl std::fmt::Debug for FusedLstmSequence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FusedLstmSequence")
            .field("t", &self.t)
            .field("n", &self.n)
            .field("input_size", &self.k)
            .field("hidden_size", &self.h)
            .field("axis", &self.axis)
            .field("outputs", &self.outputs)
            .finish()
    }
}

impl FusedLstmSequence {
    fn output_shape(&self, p: Produce) -> Vec<usize> {
        match p {
            Produce::Sequence if self.axis == 0 => vec![self.t, self.n, self.h],
            Produce::Sequence => vec![self.n, self.t, self.h],
            Produce::LastH | Produce::LastC => vec![self.n, self.h],
        }
    }
}

impl Op for FusedLstmSequence {
    fn type_name(&self) -> &'static str {
        FUSED_LSTM_TYPE
    }

    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        if inputs.len() != self.n_inputs {
            return Err(Error::InvalidArguments(format!(
                "{FUSED_LSTM_TYPE}: {} inputs, expected {}",
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
        let (t, n, k, h) = (self.t, self.n, self.k, self.h);
        let get = |i: usize, shape: &[usize], what: &str| -> Result<Vec<f32>> {
            let a = inputs[self.inputs[i]].typed::<f32>(what)?;
            if a.shape() != shape {
                return Err(Error::InvalidArguments(format!(
                    "{FUSED_LSTM_TYPE}: {what} of shape {:?}, expected {shape:?}",
                    a.shape()
                )));
            }
            Ok(a.iter().copied().collect())
        };
        // X restricted to the iterated slices, contiguous in tnc / ntc order: borrowed when
        // the slices are the whole (row-major) input, copied otherwise.
        let x_all = inputs[self.inputs[0]].typed::<f32>("X")?;
        let x_view = x_all.slice_axis(
            ndarray::Axis(self.axis),
            ndarray::Slice::from(self.first..self.first + t),
        );
        let want = if self.axis == 0 { [t, n, k] } else { [n, t, k] };
        if x_view.shape() != want {
            return Err(Error::InvalidArguments(format!(
                "{FUSED_LSTM_TYPE}: X slices of shape {:?}, expected {want:?}",
                x_view.shape()
            )));
        }
        let x: Cow<[f32]> = match x_view.as_slice() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(x_view.iter().copied().collect()),
        };
        let mut h0 = get(1, &[n, h], "H")?;
        let mut c0 = get(2, &[n, h], "C")?;
        let mut y = vec![0f32; t * n * h];
        let (mut hn, mut cn) = (vec![0f32; n * h], vec![0f32; n * h]);
        let arg = |a: i32| {
            self.pd
                .arg_md(a)
                .ok_or_else(|| Error::Runtime(format!("the LSTM primitive has no argument {a}")))
        };
        let user = |a: i32, v: &mut Vec<f32>| {
            Memory::new(arg(a)?, Engine::cpu(), Handle::User(v.as_mut_ptr().cast()))
        };
        // SAFETY of the cast: the primitive only reads SRC_LAYER.
        let src_layer = Memory::new(
            arg(args::SRC_LAYER)?,
            Engine::cpu(),
            Handle::User(x.as_ptr().cast_mut().cast()),
        )?;
        let src_iter = user(args::SRC_ITER, &mut h0)?;
        let src_iter_c = user(args::SRC_ITER_C, &mut c0)?;
        let dst_layer = user(args::DST_LAYER, &mut y)?;
        let dst_iter = user(args::DST_ITER, &mut hn)?;
        let dst_iter_c = user(args::DST_ITER_C, &mut cn)?;
        let scratchpad = match self.pd.arg_md(args::SCRATCHPAD) {
            Some(md) if !md.is_zero() => Some(Memory::allocate(md)?),
            _ => None,
        };
        let mut list: Vec<(i32, &Memory)> = vec![
            (args::SRC_LAYER, &src_layer),
            (args::SRC_ITER, &src_iter),
            (args::SRC_ITER_C, &src_iter_c),
            (args::WEIGHTS_LAYER, &self.weights_layer),
            (args::WEIGHTS_ITER, &self.weights_iter),
            (args::BIAS, &self.bias),
            (args::DST_LAYER, &dst_layer),
            (args::DST_ITER, &dst_iter),
            (args::DST_ITER_C, &dst_iter_c),
        ];
        if let Some(sp) = &scratchpad {
            list.push((args::SCRATCHPAD, sp));
        }
        self.primitive.execute(&ExecArgs::new(list)?)?;
        drop((
            src_layer, src_iter, src_iter_c, dst_layer, dst_iter, dst_iter_c,
        ));
        // Each buffer moves into the last output that reads it (a result mapped twice is copied).
        let mut buffers = [Some(y), Some(hn), Some(cn)];
        let kinds: Vec<usize> = self.outputs.iter().map(|&p| p as usize).collect();
        kinds
            .iter()
            .enumerate()
            .map(|(j, &kind)| {
                let data = if kinds[j + 1..].contains(&kind) {
                    buffers[kind].clone()
                } else {
                    buffers[kind].take()
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
