//! Fuses a TensorIterator whose body is one RNN cell (LSTMCell, GRUCell or RNNCell) into one
//! oneDNN RNN primitive over the whole sequence, in the model and (recursively) in every body.
//!
//! The pattern (as OpenVINO's `ConvertTensorIteratorTo{LSTM,GRU,RNN}Sequence`, every body op in
//! it):
//!
//! ```text
//! X (sliced on axis 0 or 1, part_size 1, stride ±1) → Reshape | Squeeze → cell.X
//! each state (H; and C for LSTM) on a back edge from the cell's matching output → cell input
//! Const W, R, B → cell (see `sequence_cell` for the cells and attributes oneDNN can run)
//! cell.H' → Result (back edge / last H) and → Reshape | Unsqueeze → Result (concatenated
//! along the sliced axis with the same stride sign); LSTM's C' → Result (back edge / last C)
//! ```
//!
//! with static shapes. Stride −1 runs the primitive right-to-left. The per-cell facts (gate
//! orders, weights layout, activations) live in [`super::sequence_cell`]; the fused op in
//! [`super::rnn_sequence`]. Anything else leaves the TensorIterator as it is.

use super::rnn_sequence::{FusedRnnSequence, Produce};
use super::sequence_cell::SequenceCell;
use crate::error::Result;
use crate::graph::model::{Model, Node, ValueRef};
use crate::graph::ops::reshape::Reshape;
use crate::graph::ops::squeeze::Squeeze;
use crate::graph::ops::subgraph::{InputMapping, OutputMapping, SliceSpec};
use crate::graph::ops::tensor_iterator::TensorIterator;
use crate::graph::ops::unsqueeze::Unsqueeze;

/// Replaces every TensorIterator matching the pattern, in `model` and in the bodies of its
/// sub-graph ops (at any depth); returns how many were fused.
pub fn run(model: &mut Model) -> Result<usize> {
    let mut fused = 0;
    for i in 0..model.nodes.len() {
        for body in model.nodes[i].op.bodies_mut() {
            fused += run(body)?;
        }
        if let Some(op) = try_fuse(model, i)? {
            model.replace_op(i, Box::new(op))?;
            fused += 1;
        }
    }
    Ok(fused)
}

/// What the pattern matcher extracted from a TensorIterator.
struct Matched {
    cell: SequenceCell,
    x_input: usize,
    /// Outer inputs of the initial states (H, then C for LSTM).
    state_inputs: Vec<usize>,
    x_spec: SliceSpec,
    outputs: Vec<Produce>,
    /// The concatenations of the sequence outputs (each must cover its whole output axis).
    concat_specs: Vec<SliceSpec>,
}

/// `shape` with a unit dim removed at `axis`, if it is a unit dim.
fn without_axis(shape: &[usize], axis: usize) -> Option<Vec<usize>> {
    (shape.get(axis) == Some(&1)).then(|| {
        let mut v = shape.to_vec();
        v.remove(axis);
        v
    })
}

/// True when `node` is a Reshape / Squeeze (`unsqueeze`: Reshape / Unsqueeze) of `from` by
/// constants, from shape `from_shape` to `to_shape`.
fn is_unit_reshape(
    nodes: &[Node],
    node: usize,
    from: ValueRef,
    unsqueeze: bool,
    to_shape: Option<Vec<usize>>,
) -> bool {
    let n = &nodes[node];
    let any = n.op.as_any();
    let kind_ok = any.is::<Reshape>()
        || if unsqueeze {
            any.is::<Unsqueeze>()
        } else {
            any.is::<Squeeze>()
        };
    kind_ok
        && n.inputs.first() == Some(&from)
        && n.inputs[1..]
            .iter()
            .all(|v| nodes[v.node].op.constant().is_some())
        && to_shape.is_some()
        && n.outputs[0].shape.to_static() == to_shape
}

/// Matches the body; `None` when the TensorIterator is not a plain RNN sequence.
fn match_ti(ti: &TensorIterator) -> Option<Matched> {
    let body = &ti.body;
    let nodes = body.nodes();
    let type_of = |n: usize| nodes[n].op.type_name();
    // Every body node is a Parameter/Result/Const/Reshape/Squeeze/Unsqueeze or the one cell.
    let mut cells =
        (0..nodes.len()).filter(|&n| matches!(type_of(n), "LSTMCell" | "GRUCell" | "RNNCell"));
    let (Some(cell), None) = (cells.next(), cells.next()) else {
        return None;
    };
    let allowed = [
        "Parameter",
        "Result",
        "Const",
        "Reshape",
        "Squeeze",
        "Unsqueeze",
    ];
    if !(0..nodes.len()).all(|n| n == cell || allowed.contains(&type_of(n))) {
        return None;
    }
    let seq = SequenceCell::recognize(nodes, cell)?;
    let states = seq.kind.states;
    let out = |port: usize| ValueRef { node: cell, port };
    let cin = &nodes[cell].inputs;
    // Parameters: exactly X (sliced) and one per state (merged from the cell's outputs).
    let params = body.parameter_nodes();
    if ti.inputs.len() != states + 1 || params.len() != states + 1 {
        return None;
    }
    let results = body.result_nodes();
    let result_src = |r: usize| nodes[results[r]].inputs[0];
    let mut x = None;
    let mut state_inputs = vec![None; states];
    for m in &ti.inputs {
        match *m {
            InputMapping::Sliced { input, param, spec } => x = Some((input, param, spec)),
            InputMapping::Merged {
                input,
                param,
                result,
            } => {
                let p = ValueRef {
                    node: params[param],
                    port: 0,
                };
                let s = (0..states).find(|&s| result_src(result) == out(s) && cin[1 + s] == p)?;
                state_inputs[s] = Some(input);
            }
            InputMapping::Invariant { .. } => return None,
        }
    }
    let (x_input, x_param, x_spec) = x?;
    let state_inputs: Vec<usize> = state_inputs.into_iter().collect::<Option<_>>()?;
    if x_spec.part_size != 1 || x_spec.stride.abs() != 1 {
        return None;
    }
    // X slice → Reshape | Squeeze → cell.X, removing the sliced unit axis.
    let x_param_value = ValueRef {
        node: params[x_param],
        port: 0,
    };
    let xi_shape = nodes[params[x_param]].outputs[0].shape.to_static()?;
    if xi_shape.len() != 3 {
        return None;
    }
    let axis = x_spec.axis(3).ok()?;
    if axis > 1
        || !is_unit_reshape(
            nodes,
            cin[0].node,
            x_param_value,
            false,
            without_axis(&xi_shape, axis),
        )
    {
        return None;
    }
    // Outputs.
    let h_shape = nodes[cell].outputs[0].shape.to_static()?;
    let mut outputs = Vec::new();
    let mut concat_specs = Vec::new();
    for m in &ti.outputs {
        let produce = match *m {
            OutputMapping::Last { result } => {
                let src = result_src(result);
                Produce::LastState((0..states).find(|&s| src == out(s))?)
            }
            OutputMapping::Concat { result, spec } => {
                let src = result_src(result);
                let un = nodes[src.node].outputs.get(src.port)?.shape.to_static()?;
                if src.port != 0
                    || spec.part_size != 1
                    || spec.stride != x_spec.stride
                    || un.len() != 3
                    || spec.axis(3).ok()? != axis
                    || !is_unit_reshape(nodes, src.node, out(0), true, Some(un.clone()))
                    || without_axis(&un, axis)? != h_shape
                {
                    return None;
                }
                concat_specs.push(spec);
                Produce::Sequence
            }
        };
        outputs.push(produce);
    }
    Some(Matched {
        cell: seq,
        x_input,
        state_inputs,
        x_spec,
        outputs,
        concat_specs,
    })
}

fn try_fuse(model: &Model, index: usize) -> Result<Option<FusedRnnSequence>> {
    let node = &model.nodes[index];
    let Some(ti) = node.op.as_any().downcast_ref::<TensorIterator>() else {
        return Ok(None);
    };
    let Some(m) = match_ti(ti) else {
        return Ok(None);
    };
    let outer = |i: usize| {
        let v = node.inputs[i];
        model.nodes[v.node].outputs[v.port].shape.to_static()
    };
    // A sequence is [T, N, K] or [N, T, K], sliced along axis 0 or 1; anything else (a
    // malformed model) stays unfused, where execution reports what is wrong.
    let Some(xs) = outer(m.x_input).filter(|xs| xs.len() == 3) else {
        return Ok(None);
    };
    let axis = m.x_spec.axis(3)?;
    if axis > 1 {
        return Ok(None);
    }
    let Ok((first, t)) = m.x_spec.range(xs[axis]) else {
        return Ok(None);
    };
    let (n, h) = (xs[1 - axis], m.cell.hidden);
    let whole = |spec: &SliceSpec| matches!(spec.range(t), Ok((0, c)) if c == t);
    let states_ok = m.state_inputs.iter().all(|&i| outer(i) == Some(vec![n, h]));
    if !states_ok || t == 0 || !m.concat_specs.iter().all(whole) {
        return Ok(None);
    }
    let mut inputs = vec![m.x_input];
    inputs.extend(&m.state_inputs);
    FusedRnnSequence::new(
        m.cell,
        super::rnn_sequence::Geometry {
            axis,
            first,
            t,
            n,
            k: xs[2],
            reverse: m.x_spec.stride < 0,
        },
        inputs,
        m.outputs,
        node.inputs.len(),
    )
    .map(Some)
}
