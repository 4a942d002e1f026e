//! What TensorIterator, Loop and If share: building a body, resolving port maps (outer port ↔
//! body Parameter / Result), slicing inputs, and the iteration engine.

use std::borrow::Cow;

use ndarray::{Axis, Slice};

use super::static_iteration::iterate_static;
use super::{invalid, BuildContext};
use crate::error::{Error, Result};
use crate::graph::build::build_model;
use crate::graph::ir::{with_context, IrLayer, IrPortMapEntry, PortMapKind};
use crate::graph::limits::Budget;
use crate::graph::model::Model;
use crate::graph::shape::{normalize_axis, PartialShape};
use crate::graph::tensor::{ElementType, Scalar, Tensor};

/// Builds the nested net `name` (`body`, `then_body`, `else_body`) of `layer` into a model;
/// errors inside name the outer layer.
pub fn build_body(layer: &IrLayer, name: &str, ctx: &BuildContext) -> Result<Model> {
    let net = layer
        .body(name)
        .ok_or_else(|| layer.err(format!("has no <{name}>")))?;
    build_model(net, ctx.weights).map_err(|e| with_context(e, &format!("in <{name}> of {layer}")))
}

/// The position among `body`'s Parameters of the Parameter layer `layer_id`.
pub fn body_parameter(layer: &IrLayer, body: &Model, layer_id: i64, what: &str) -> Result<usize> {
    body.parameter_nodes()
        .iter()
        .position(|&n| body.nodes()[n].layer_id == layer_id)
        .ok_or_else(|| {
            layer.err(format!(
                "{what}: internal layer {layer_id} is not a Parameter of the body"
            ))
        })
}

/// The position among `body`'s Results of the Result layer `layer_id`.
pub fn body_result(layer: &IrLayer, body: &Model, layer_id: i64, what: &str) -> Result<usize> {
    body.result_nodes()
        .iter()
        .position(|&n| body.nodes()[n].layer_id == layer_id)
        .ok_or_else(|| {
            layer.err(format!(
                "{what}: internal layer {layer_id} is not a Result of the body"
            ))
        })
}

/// The input position of the outer port `external_port_id` (the port with that id, else the
/// index itself, as OpenVINO reads it).
pub fn outer_input(layer: &IrLayer, entry: &IrPortMapEntry) -> Result<usize> {
    let id = entry.external_port_id;
    layer
        .inputs
        .iter()
        .position(|p| p.id == id)
        .or_else(|| usize::try_from(id).ok().filter(|&i| i < layer.inputs.len()))
        .ok_or_else(|| {
            layer.err(format!(
                "port map entry at line {}: external_port_id {id} is not an input port",
                entry.line
            ))
        })
}

/// The output entries of a port map that map to outer outputs, in output order (sorted by
/// `external_port_id`; the i-th maps to output i, as OpenVINO reads them). Their count must
/// equal the layer's output count.
pub fn outer_outputs<'a>(
    layer: &IrLayer,
    map: &'a [IrPortMapEntry],
    map_name: &str,
) -> Result<Vec<&'a IrPortMapEntry>> {
    let mut outs: Vec<&IrPortMapEntry> = map
        .iter()
        .filter(|e| e.kind == PortMapKind::Output && e.external_port_id >= 0)
        .collect();
    outs.sort_by_key(|e| e.external_port_id);
    if let Some(w) = outs
        .windows(2)
        .find(|w| w[0].external_port_id == w[1].external_port_id)
    {
        return Err(layer.err(format!(
            "<{map_name}> maps external_port_id {} twice",
            w[0].external_port_id
        )));
    }
    if outs.len() != layer.outputs.len() {
        return Err(layer.err(format!(
            "<{map_name}> maps {} outputs but the layer has {} output ports",
            outs.len(),
            layer.outputs.len()
        )));
    }
    Ok(outs)
}

/// Slicing (inputs) or concatenation (outputs) along an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceSpec {
    /// The axis.
    pub axis: i64,
    /// First index (negative: `dim + 1 + start`).
    pub start: i64,
    /// End index, exclusive after normalization (negative: `dim + 1 + end`).
    pub end: i64,
    /// Step between slices; negative walks from the end backwards.
    pub stride: i64,
    /// Slice length along the axis.
    pub part_size: i64,
}

impl SliceSpec {
    /// From a port-map entry with an `axis`.
    pub fn from_entry(layer: &IrLayer, e: &IrPortMapEntry) -> Result<Option<Self>> {
        let Some(axis) = e.axis else { return Ok(None) };
        if e.stride == 0 {
            return Err(layer.err(format!(
                "port map entry at line {}: stride must not be 0",
                e.line
            )));
        }
        if e.part_size <= 0 {
            return Err(layer.err(format!(
                "port map entry at line {}: part_size {} must be positive",
                e.line, e.part_size
            )));
        }
        Ok(Some(Self {
            axis,
            start: e.start,
            end: e.end,
            stride: e.stride,
            part_size: e.part_size,
        }))
    }

    /// `(lowest index covered, number of slices)` over an axis of length `dim`.
    pub fn range(&self, dim: usize) -> Result<(usize, usize)> {
        let d = dim as i64;
        let norm = |v: i64| if v < 0 { d + 1 + v } else { v };
        let (s, e) = (norm(self.start), norm(self.end));
        let (lo, hi) = if self.stride > 0 { (s, e) } else { (e, s) };
        let part = self.part_size;
        if lo < 0 || hi > d || hi - lo < part {
            return Err(invalid(format!(
                "start={} end={} stride={} part_size={} select no slice of an axis of length {dim}",
                self.start, self.end, self.stride, self.part_size
            )));
        }
        let step = self.stride.abs();
        Ok((lo as usize, ((hi - lo - part) / step + 1) as usize))
    }

    /// The normalized axis for a tensor of rank `rank`.
    pub fn axis(&self, rank: usize) -> Result<usize> {
        normalize_axis(self.axis, rank, "port map axis")
    }

    /// Where slice number `i` (in iteration order) starts along an axis of length `dim`
    /// (which has more than `i` slices).
    pub fn begin(&self, dim: usize, i: usize) -> Result<usize> {
        let (lo, n) = self.range(dim)?;
        let step = self.stride.unsigned_abs() as usize;
        Ok(if self.stride > 0 {
            lo + i * step
        } else {
            lo + n.saturating_sub(i + 1) * step
        })
    }

    /// Slice number `i` of `t` (in iteration order); an error when `t` has fewer slices (a
    /// Loop whose trip count exceeds its sliced input's length).
    pub fn slice(&self, t: &Tensor, i: usize) -> Result<Tensor> {
        let axis = self.axis(t.shape().len())?;
        let (_, n) = self.range(t.shape()[axis])?;
        if i >= n {
            return Err(invalid(format!(
                "iteration {i} needs slice {i} of an input of shape {:?}, which has {n} slices \
                 along axis {axis} (start={} end={} stride={} part_size={})",
                t.shape(),
                self.start,
                self.end,
                self.stride,
                self.part_size
            )));
        }
        let begin = self.begin(t.shape()[axis], i)?;
        let sl = Slice::from(begin..begin + self.part_size as usize);
        Ok(crate::map_tensor!(t, a => a.slice_axis(Axis(axis), sl).to_owned()))
    }
}

/// How one body Parameter is fed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputMapping {
    /// Slice `i` of outer input `input` at iteration `i`.
    Sliced {
        /// Outer input position.
        input: usize,
        /// Body Parameter position.
        param: usize,
        /// The slicing.
        spec: SliceSpec,
    },
    /// Outer input `input` at every iteration.
    Invariant {
        /// Outer input position.
        input: usize,
        /// Body Parameter position.
        param: usize,
    },
    /// Outer input at the first iteration, then body Result `result` of the previous one.
    Merged {
        /// Outer input position.
        input: usize,
        /// Body Parameter position.
        param: usize,
        /// Body Result position (the back edge's source).
        result: usize,
    },
}

/// How one outer output is produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputMapping {
    /// Body Result `result` of every iteration, concatenated along the axis (reversed order
    /// for a negative stride).
    Concat {
        /// Body Result position.
        result: usize,
        /// The concatenation.
        spec: SliceSpec,
    },
    /// Body Result `result` of the last iteration.
    Last {
        /// Body Result position.
        result: usize,
    },
}

/// Resolves a TensorIterator / Loop `<port_map>` + `<back_edges>` into mappings. Entries with
/// `external_port_id = -1` (Loop's special ports) are skipped.
pub fn iteration_mappings(
    layer: &IrLayer,
    body: &Model,
) -> Result<(Vec<InputMapping>, Vec<OutputMapping>)> {
    let map = layer
        .port_map("port_map")
        .ok_or_else(|| layer.err("has no <port_map>"))?;
    let mut inputs = Vec::new();
    let mut fed = vec![false; body.parameter_nodes().len()];
    for e in map
        .iter()
        .filter(|e| e.kind == PortMapKind::Input && e.external_port_id >= 0)
    {
        let what = format!("port map input at line {}", e.line);
        let input = outer_input(layer, e)?;
        let param = body_parameter(layer, body, e.internal_layer_id, &what)?;
        if std::mem::replace(&mut fed[param], true) {
            return Err(layer.err(format!(
                "{what}: body Parameter {} is mapped twice",
                e.internal_layer_id
            )));
        }
        let back = layer
            .back_edges
            .iter()
            .find(|b| b.to_layer == e.internal_layer_id);
        inputs.push(match (SliceSpec::from_entry(layer, e)?, back) {
            (Some(spec), None) => InputMapping::Sliced { input, param, spec },
            (Some(_), Some(b)) => {
                return Err(layer.err(format!(
                "{what}: sliced body Parameter {} is also the target of the back edge at line {}",
                e.internal_layer_id, b.line
            )))
            }
            (None, Some(b)) => {
                let result = body_result(
                    layer,
                    body,
                    b.from_layer,
                    &format!("back edge at line {}", b.line),
                )?;
                InputMapping::Merged {
                    input,
                    param,
                    result,
                }
            }
            (None, None) => InputMapping::Invariant { input, param },
        });
    }
    for b in &layer.back_edges {
        let what = format!("back edge at line {}", b.line);
        body_result(layer, body, b.from_layer, &what)?;
        let p = body_parameter(layer, body, b.to_layer, &what)?;
        if !fed[p] {
            return Err(layer.err(format!(
                "{what}: body Parameter {} has no port-map input for its first iteration",
                b.to_layer
            )));
        }
    }
    let mut outputs = Vec::new();
    for e in outer_outputs(layer, map, "port_map")? {
        let result = body_result(
            layer,
            body,
            e.internal_layer_id,
            &format!("port map output at line {}", e.line),
        )?;
        outputs.push(match SliceSpec::from_entry(layer, e)? {
            Some(spec) => OutputMapping::Concat { result, spec },
            None => OutputMapping::Last { result },
        });
    }
    Ok((inputs, outputs))
}

/// The iteration count implied by the sliced inputs (`None` when there are none); all sliced
/// inputs must agree.
pub fn sliced_iterations(inputs: &[InputMapping], outer: &[PartialShape]) -> Result<Option<usize>> {
    let mut n = None;
    for m in inputs {
        if let InputMapping::Sliced { input, spec, .. } = m {
            let Some(dims) = outer[*input].dims() else {
                return Ok(None);
            };
            let axis = spec.axis(dims.len())?;
            let Some(dim) = dims[axis] else {
                return Ok(None);
            };
            let (_, k) = spec.range(dim)?;
            if n.is_some_and(|n| n != k) {
                return Err(invalid(format!(
                    "sliced inputs disagree on the iteration count ({} vs {k})",
                    n.unwrap_or(0)
                )));
            }
            n = Some(k);
        }
    }
    Ok(n)
}

/// Loop-specific controls of [`iterate`].
#[derive(Clone, Copy, Debug, Default)]
pub struct LoopControl {
    /// Body Parameter fed with the iteration number (Loop's `current_iteration`).
    pub current_iteration: Option<usize>,
    /// Body Result read as the condition to continue (Loop's `execution_condition`).
    pub condition: Option<usize>,
}

/// Runs `body` up to `max_iterations` times (`None`: until the condition is false), feeding it
/// per `inputs` and producing the outer outputs per `outputs`, within the execution's `budget`
/// (iterations, bytes of the per-iteration outputs kept for concatenation).
pub fn iterate(
    body: &Model,
    inputs: &[InputMapping],
    outputs: &[OutputMapping],
    outer: &[&Tensor],
    max_iterations: Option<usize>,
    control: LoopControl,
    budget: &Budget,
) -> Result<Vec<Tensor>> {
    if let (
        Some(n),
        LoopControl {
            current_iteration: None,
            condition: None,
        },
    ) = (max_iterations, control)
    {
        if let Some(out) = iterate_static(body, inputs, outputs, outer, n, budget)? {
            return Ok(out);
        }
    }
    let n_params = body.parameter_nodes().len();
    let mut feed: Vec<Option<Cow<Tensor>>> = vec![None; n_params];
    let mut invariant = vec![false; n_params];
    for m in inputs {
        match *m {
            InputMapping::Invariant { input, param } => {
                feed[param] = Some(Cow::Borrowed(outer[input]));
                invariant[param] = true;
            }
            InputMapping::Merged { input, param, .. } => {
                feed[param] = Some(Cow::Borrowed(outer[input]))
            }
            InputMapping::Sliced { .. } => {}
        }
    }
    let mut concat: Vec<Vec<Tensor>> = vec![Vec::new(); outputs.len()];
    let mut held = budget.hold();
    let mut last: Option<Vec<Cow<Tensor>>> = None;
    let mut i = 0usize;
    while max_iterations.is_none_or(|m| i < m) {
        budget.check_iteration(i)?;
        for m in inputs {
            if let InputMapping::Sliced { input, param, spec } = m {
                feed[*param] = Some(Cow::Owned(spec.slice(outer[*input], i)?));
            }
        }
        if let Some(p) = control.current_iteration {
            let et = body.inputs()[p].element_type;
            let t = Tensor::scalar(i as i64).convert(et);
            let shape = &body.inputs()[p].shape;
            feed[p] = Some(Cow::Owned(if shape.rank() == Some(1) {
                t.reshaped(&[1])?
            } else {
                t
            }));
        }
        let args: Vec<Cow<Tensor>> = feed
            .iter_mut()
            .enumerate()
            .map(|(k, f)| {
                let v = if invariant[k] { f.clone() } else { f.take() };
                v.ok_or_else(|| {
                    invalid(format!("body Parameter {k} has no value at iteration {i}"))
                })
            })
            .collect::<Result<_>>()?;
        let outs = body
            .run(args, budget)
            .map_err(|e| with_context(e, &format!("iteration {i}")))?;
        for (k, m) in outputs.iter().enumerate() {
            if let OutputMapping::Concat { result, .. } = m {
                let part = &outs[*result];
                let bytes = part.len().saturating_mul(part.element_type().size_bytes());
                held.add(bytes.saturating_add(std::mem::size_of::<Tensor>()))?;
                concat[k].try_reserve(1).map_err(|_| {
                    Error::OutOfMemory(format!("no memory to keep the output of iteration {i}"))
                })?;
                concat[k].push(part.clone().into_owned());
            }
        }
        for m in inputs {
            if let InputMapping::Merged { param, result, .. } = m {
                feed[*param] = Some(outs[*result].clone());
            }
        }
        i += 1;
        let go_on = match control.condition {
            Some(c) => truthy(&outs[c])?,
            None => true,
        };
        last = Some(outs);
        if !go_on {
            break;
        }
    }
    let Some(last) = last else {
        return zero_iteration_outputs(body, inputs, outputs, outer);
    };
    outputs
        .iter()
        .zip(concat)
        .map(|(m, mut parts)| match m {
            OutputMapping::Last { result } => Ok(last[*result].clone().into_owned()),
            OutputMapping::Concat { spec, .. } => {
                if spec.stride < 0 {
                    parts.reverse();
                }
                let refs: Vec<&Tensor> = parts.iter().collect();
                let axis = spec.axis(parts[0].shape().len())?;
                super::concat::concat_tensors(&refs, axis)
            }
        })
        .collect()
}

/// The outputs when the body ran zero times (a Loop with trip count 0 or a false initial
/// condition): a Result on a back edge gives the back edge's initial value, a concatenation is
/// empty along its axis; any other output is undefined (an error).
fn zero_iteration_outputs(
    body: &Model,
    inputs: &[InputMapping],
    outputs: &[OutputMapping],
    outer: &[&Tensor],
) -> Result<Vec<Tensor>> {
    outputs
        .iter()
        .map(|m| match *m {
            OutputMapping::Last { result } => inputs
                .iter()
                .find_map(|i| match *i {
                    InputMapping::Merged {
                        input, result: r, ..
                    } if r == result => Some(outer[input].clone()),
                    _ => None,
                })
                .ok_or_else(|| {
                    invalid(format!(
                        "the body ran zero iterations and its Result {result} is on no back edge: \
                         its last value is undefined"
                    ))
                }),
            OutputMapping::Concat { result, spec } => {
                let info = &body.outputs()[result];
                let mut dims = info.shape.to_static().ok_or_else(|| {
                    invalid(format!(
                        "the body ran zero iterations and its Result {result} has the dynamic \
                         shape {}: the empty concatenation has no shape",
                        info.shape
                    ))
                })?;
                let axis = spec.axis(dims.len())?;
                dims[axis] = 0;
                Ok(Tensor::zeros(info.element_type, &dims))
            }
        })
        .collect()
}

/// The truth value of a one-element tensor (If's and Loop's conditions).
pub fn truthy(t: &Tensor) -> Result<bool> {
    if t.len() != 1 {
        return Err(invalid(format!(
            "a condition must hold exactly one element, got shape {:?}",
            t.shape()
        )));
    }
    Ok(match t.scalars()[0] {
        Scalar::Int(v) => v != 0,
        Scalar::Float(v) => v != 0.0,
    })
}

/// The element type a condition input should have (boolean; integers are accepted).
pub fn check_condition_type(et: ElementType, what: &str) -> Result<()> {
    if et == ElementType::Boolean || et.is_integer() {
        Ok(())
    } else {
        Err(invalid(format!("{what} must be boolean, got {et}")))
    }
}
