//! Runs a model: nodes in topological order, values freed after their last use, constants and
//! inputs borrowed rather than copied.

use std::borrow::Cow;

use super::build::{allocatable, as_parameter};
use super::ir::with_context;
use super::limits::{Budget, Limits};
use super::model::{Model, Node};
use super::ops::ValueInfo;
use super::shape::PartialShape;
use super::tensor::{ElementType, Tensor};
use crate::error::{Error, Result};

impl Model {
    /// Runs the model on `inputs` (in [`Model::inputs`] order) within the default [`Limits`]
    /// and returns the outputs (in [`Model::outputs`] order).
    pub fn infer(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        self.infer_with(inputs, &Limits::default())
    }

    /// Runs the model as [`Model::infer`] within `limits`. A model may run on several threads
    /// at once: an execution's state lives in the call.
    pub fn infer_with(&self, inputs: &[Tensor], limits: &Limits) -> Result<Vec<Tensor>> {
        let args = inputs.iter().map(Cow::Borrowed).collect();
        let budget = Budget::new(*limits);
        Ok(self
            .run(args, &budget)?
            .into_iter()
            .map(Cow::into_owned)
            .collect())
    }

    /// Runs the model on borrowed or owned inputs within the execution's `budget`; outputs may
    /// borrow from the inputs or from the model's constants. Used for bodies, whose inputs
    /// change every iteration.
    pub fn run<'a>(
        &'a self,
        inputs: Vec<Cow<'a, Tensor>>,
        budget: &Budget,
    ) -> Result<Vec<Cow<'a, Tensor>>> {
        if inputs.len() != self.parameters.len() {
            return Err(Error::InvalidArguments(format!(
                "the model has {} inputs, got {}",
                self.parameters.len(),
                inputs.len()
            )));
        }
        let mut values: Vec<Vec<Option<Cow<'a, Tensor>>>> = self
            .nodes
            .iter()
            .map(|n| vec![None; n.outputs.len()])
            .collect();
        let mut remaining = self.use_counts.clone();
        for ((&p, t), info) in self.parameters.iter().zip(inputs).zip(&self.inputs) {
            if let Some(param) = as_parameter(&self.nodes[p]) {
                param.check(&info.name, &t)?;
            }
            values[p][0] = Some(t);
        }
        for (i, node) in self.nodes.iter().enumerate() {
            let op = node.op.as_ref();
            if let Some(c) = op.constant() {
                values[i][0] = Some(Cow::Borrowed(c));
                continue;
            }
            if !op.foldable() {
                continue; // Parameter (already fed) or Result (read below)
            }
            // Input 0 when this node is its last reader and the execution owns it.
            let dead_first = node.inputs.first().filter(|v| {
                remaining[v.node][v.port] == 1
                    && matches!(values[v.node][v.port], Some(Cow::Owned(_)))
            });
            let (outs, reshape) = {
                let args: Vec<&Tensor> = node
                    .inputs
                    .iter()
                    .map(|v| {
                        values[v.node][v.port]
                            .as_deref()
                            .ok_or_else(|| missing(self, i))
                    })
                    .collect::<Result<_>>()?;
                check_sizes(node, &args, budget).map_err(|e| with_context(e, &node.label()))?;
                match op.reshape_target(&args).filter(|_| dead_first.is_some()) {
                    Some(shape) => (Ok(Vec::new()), Some(shape)),
                    None => (op.execute_within(&args, budget), None),
                }
            };
            let outs = match (reshape, dead_first) {
                (Some(shape), Some(v)) => match values[v.node][v.port].take() {
                    Some(t) => shape
                        .and_then(|s| t.into_owned().into_reshaped(&s))
                        .map(|t| vec![t]),
                    None => Err(missing(self, i)),
                },
                _ => outs,
            }
            .map_err(|e| with_context(e, &node.label()))?;
            if outs.len() != node.outputs.len() {
                return Err(Error::Runtime(format!(
                    "{}: produced {} outputs, expected {}",
                    node.label(),
                    outs.len(),
                    node.outputs.len()
                )));
            }
            for v in &node.inputs {
                remaining[v.node][v.port] -= 1;
                if remaining[v.node][v.port] == 0 {
                    values[v.node][v.port] = None;
                }
            }
            for (slot, t) in values[i].iter_mut().zip(outs) {
                *slot = Some(Cow::Owned(t));
            }
        }
        self.results
            .iter()
            .map(|&r| {
                let v = self.nodes[r].inputs[0];
                remaining[v.node][v.port] -= 1;
                let slot = &mut values[v.node][v.port];
                let t = if remaining[v.node][v.port] == 0 {
                    slot.take()
                } else {
                    slot.clone()
                };
                t.ok_or_else(|| missing(self, r))
            })
            .collect()
    }
}

/// Refuses outputs over the budget's bytes per tensor; for a node whose output shapes were not
/// all known at load, infers them from the actual inputs first and also refuses outputs too large
/// to allocate (an abort on allocation failure would cross the C boundary).
pub(crate) fn check_sizes(node: &Node, args: &[&Tensor], budget: &Budget) -> Result<()> {
    let check = |i: usize, et: ElementType, shape: &[usize]| {
        let n = allocatable(i, shape).map_err(Error::InvalidArguments)?;
        let bytes = n.saturating_mul(et.size_bytes());
        budget.check_tensor(bytes, &format_args!("output {i} of shape {shape:?}"))
    };
    let declared: Option<Vec<Vec<usize>>> =
        node.outputs.iter().map(|o| o.shape.to_static()).collect();
    if let Some(shapes) = declared {
        for (i, (o, shape)) in node.outputs.iter().zip(&shapes).enumerate() {
            check(i, o.element_type, shape)?;
        }
        return Ok(());
    }
    let infos: Vec<ValueInfo> = args
        .iter()
        .map(|t| ValueInfo {
            element_type: t.element_type(),
            shape: PartialShape::from_static(t.shape()),
            value: Some(t),
        })
        .collect();
    for (i, o) in node.op.infer(&infos)?.iter().enumerate() {
        if let Some(shape) = o.shape.to_static() {
            check(i, o.element_type, &shape)?;
        }
    }
    Ok(())
}

fn missing(model: &Model, node: usize) -> Error {
    Error::Runtime(format!(
        "{}: an input value is missing (executor bug)",
        model.nodes[node].label()
    ))
}
