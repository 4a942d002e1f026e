//! The iteration engine for a body whose shapes are all static (the usual TensorIterator):
//! every body value keeps one buffer for the whole execution. The first iteration runs each op
//! as the executor does; later ones compute into the same buffers ([`super::Op::execute_into`]) where
//! the op can, sliced inputs are copied into their Parameter's buffer, back edges copy the
//! Result into it, and each iteration's part of a concatenated output is written straight
//! into the outer output, allocated once. No shape inference, size check or allocation is
//! repeated per iteration (an op without `execute_into` still allocates its outputs).

use std::borrow::Cow;

use super::invalid;
use super::subgraph::{InputMapping, OutputMapping};
use crate::error::{Error, Result};
use crate::graph::executor::check_sizes;
use crate::graph::ir::with_context;
use crate::graph::limits::Budget;
use crate::graph::model::{Model, ValueRef};
use crate::graph::tensor::Tensor;

/// Runs `body` `n` (≥ 1) times as `iterate` does, when every body value has a static shape,
/// the outer inputs match the body Parameters' shapes and no back edge comes straight from a
/// Parameter; `None` otherwise (the caller then runs the general engine).
pub fn iterate_static(
    body: &Model,
    inputs: &[InputMapping],
    outputs: &[OutputMapping],
    outer: &[&Tensor],
    n: usize,
    budget: &Budget,
) -> Result<Option<Vec<Tensor>>> {
    let nodes = body.nodes();
    if n == 0
        || nodes
            .iter()
            .any(|nd| nd.outputs.iter().any(|o| o.shape.to_static().is_none()))
    {
        return Ok(None);
    }
    let param_node = |p: usize| body.parameter_nodes()[p];
    let source = |result: usize| nodes[body.result_nodes()[result]].inputs[0];
    let is_param = |v: ValueRef| body.parameter_nodes().contains(&v.node);
    // Parameter (and Const) values by node; computed values by node and port.
    let mut fixed: Vec<Option<Cow<Tensor>>> = vec![None; nodes.len()];
    for (i, nd) in nodes.iter().enumerate() {
        if let Some(c) = nd.op.constant() {
            fixed[i] = Some(Cow::Borrowed(c));
        } else if nd.op.foldable() && !body.result_nodes().contains(&i) {
            check_sizes(nd, &[], budget).map_err(|e| with_context(e, &nd.label()))?;
        }
    }
    for m in inputs {
        let want = match *m {
            InputMapping::Invariant { input, param }
            | InputMapping::Merged { input, param, .. } => {
                fixed[param_node(param)] = Some(Cow::Borrowed(outer[input]));
                outer[input].shape().to_vec()
            }
            InputMapping::Sliced { input, spec, .. } => {
                let mut s = outer[input].shape().to_vec();
                let axis = spec.axis(s.len())?;
                s[axis] = spec.part_size as usize;
                s
            }
        };
        let (info, input) = match *m {
            InputMapping::Invariant { input, param }
            | InputMapping::Merged { input, param, .. }
            | InputMapping::Sliced { input, param, .. } => (&body.inputs()[param], input),
        };
        if info.shape.to_static().as_deref() != Some(&want[..])
            || info.element_type != outer[input].element_type()
        {
            return Ok(None);
        }
        if matches!(m, InputMapping::Merged { result, .. } if is_param(source(*result))) {
            return Ok(None);
        }
    }
    // The concatenated outputs, allocated once.
    let mut held = budget.hold();
    let mut concat: Vec<Option<Tensor>> = Vec::new();
    for m in outputs {
        concat.push(match m {
            OutputMapping::Concat { result, spec } => {
                let info = &body.outputs()[*result];
                let mut dims = info.shape.to_static().unwrap_or_default();
                let axis = spec.axis(dims.len())?;
                dims[axis] = dims[axis].checked_mul(n).ok_or_else(|| {
                    invalid(format!("{n} iterations of shape {:?} overflow", info.shape))
                })?;
                let elems = crate::graph::tensor::checked_numel(&dims)?;
                held.add(elems.saturating_mul(info.element_type.size_bytes()))?;
                Some(Tensor::try_zeros(info.element_type, &dims)?)
            }
            OutputMapping::Last { .. } => None,
        });
    }
    let mut computed: Vec<Vec<Tensor>> = (0..nodes.len()).map(|_| Vec::new()).collect();
    for i in 0..n {
        budget.check_iteration(i)?;
        run_iteration(body, inputs, outer, i, &mut fixed, &mut computed, budget)
            .map_err(|e| with_context(e, &format!("iteration {i}")))?;
        let value = |v: ValueRef| -> Result<&Tensor> {
            match &fixed[v.node] {
                Some(t) => Ok(t),
                None => computed[v.node].get(v.port).ok_or_else(|| missing(i)),
            }
        };
        for (m, out) in outputs.iter().zip(&mut concat) {
            if let (OutputMapping::Concat { result, spec }, Some(out)) = (m, out) {
                let part = value(source(*result))?;
                let axis = spec.axis(part.shape().len())?;
                let len = part.shape()[axis];
                let slot = if spec.stride < 0 { n - 1 - i } else { i };
                if !out.copy_into_slice(axis, slot * len, part) {
                    return Err(invalid(format!(
                        "iteration {i}: body Result {result} has shape {:?}, not the static {:?}",
                        part.shape(),
                        body.outputs()[*result].shape
                    )));
                }
            }
        }
        if i + 1 < n {
            for m in inputs {
                if let InputMapping::Merged { param, result, .. } = *m {
                    let v = source(result);
                    let new = computed[v.node].get(v.port).ok_or_else(|| missing(i))?;
                    let slot = &mut fixed[param_node(param)];
                    let copied = match slot {
                        Some(Cow::Owned(t)) => t.copy_from(new),
                        _ => false,
                    };
                    if !copied {
                        *slot = Some(Cow::Owned(new.clone()));
                    }
                }
            }
        }
    }
    outputs
        .iter()
        .zip(concat)
        .map(|(m, out)| match (m, out) {
            (_, Some(t)) => Ok(t),
            (OutputMapping::Last { result } | OutputMapping::Concat { result, .. }, None) => {
                let v = source(*result);
                match &fixed[v.node] {
                    Some(t) => Ok(t.clone().into_owned()),
                    None => computed[v.node]
                        .get(v.port)
                        .cloned()
                        .ok_or_else(|| missing(n)),
                }
            }
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// One iteration: feeds the sliced Parameters (slice `i`) and runs every op of the body.
fn run_iteration<'a>(
    body: &'a Model,
    inputs: &[InputMapping],
    outer: &[&'a Tensor],
    i: usize,
    fixed: &mut [Option<Cow<'a, Tensor>>],
    computed: &mut [Vec<Tensor>],
    budget: &Budget,
) -> Result<()> {
    for m in inputs {
        if let InputMapping::Sliced { input, param, spec } = m {
            let slot = &mut fixed[body.parameter_nodes()[*param]];
            let t = outer[*input];
            let axis = spec.axis(t.shape().len())?;
            let begin = spec.begin(t.shape()[axis], i)?;
            let reused = match slot {
                Some(Cow::Owned(s)) => s.copy_from_slice_of(t, axis, begin),
                _ => false,
            };
            if !reused {
                *slot = Some(Cow::Owned(spec.slice(t, i)?));
            }
        }
    }
    for (k, node) in body.nodes().iter().enumerate() {
        if fixed[k].is_some() || !node.op.foldable() || body.result_nodes().contains(&k) {
            continue;
        }
        let (done, rest) = computed.split_at_mut(k);
        let args: Vec<&Tensor> = node
            .inputs
            .iter()
            .map(|v| match &fixed[v.node] {
                Some(t) => Ok(&**t),
                None => done[v.node].get(v.port).ok_or_else(|| missing(i)),
            })
            .collect::<Result<_>>()?;
        let outs = &mut rest[0];
        let into = !outs.is_empty()
            && node
                .op
                .execute_into(&args, outs)
                .map_err(|e| with_context(e, &node.label()))?;
        if !into {
            let new = node
                .op
                .execute_within(&args, budget)
                .map_err(|e| with_context(e, &node.label()))?;
            if new.len() != node.outputs.len() {
                return Err(Error::Runtime(format!(
                    "{}: produced {} outputs, expected {}",
                    node.label(),
                    new.len(),
                    node.outputs.len()
                )));
            }
            *outs = new;
        }
    }
    Ok(())
}

fn missing(i: usize) -> Error {
    Error::Runtime(format!(
        "iteration {i}: a body value is missing (executor bug)"
    ))
}
