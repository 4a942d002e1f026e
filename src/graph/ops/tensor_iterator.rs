//! TensorIterator-1: runs its body once per slice of the sliced inputs.
//!
//! Port maps feed body Parameters with a slice of an outer input (`axis`, `start`, `end`,
//! `stride`, `part_size`; negative start/end count from the end as `dim + 1 + value`, a negative
//! stride walks backwards), with the same outer input at every iteration, or — for a Parameter
//! that is the target of a back edge — with the outer input first and the back edge's body
//! Result afterwards. Outputs are a body Result of the last iteration, or (with `axis`) the
//! Results of every iteration concatenated in stride order.
//!
//! OpenVINO's CPU plugin ignores a sliced input's `start`; this follows the specification.

use std::any::Any;

use super::subgraph::{
    build_body, iterate, iteration_mappings, sliced_iterations, InputMapping, LoopControl,
    OutputMapping,
};
use super::{BuildContext, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::limits::Budget;
use crate::graph::model::Model;
use crate::graph::shape::PartialShape;
use crate::graph::tensor::Tensor;

/// A TensorIterator with its body.
#[derive(Debug)]
pub struct TensorIterator {
    /// The body.
    pub body: Model,
    /// How each body Parameter is fed.
    pub inputs: Vec<InputMapping>,
    /// How each outer output is made, in output order.
    pub outputs: Vec<OutputMapping>,
    /// The outer output dims declared in the IR (the iteration count of a TensorIterator
    /// without sliced inputs comes from its concatenated outputs).
    pub declared_outputs: Vec<PartialShape>,
}

impl TensorIterator {
    /// Builds the body and resolves `<port_map>` and `<back_edges>`.
    pub fn from_ir(layer: &IrLayer, ctx: &BuildContext) -> Result<Self> {
        let body = build_body(layer, "body", ctx)?;
        let (inputs, outputs) = iteration_mappings(layer, &body)?;
        let fed: Vec<usize> = inputs
            .iter()
            .map(|m| match m {
                InputMapping::Sliced { param, .. }
                | InputMapping::Invariant { param, .. }
                | InputMapping::Merged { param, .. } => *param,
            })
            .collect();
        if let Some(p) = (0..body.parameter_nodes().len()).find(|p| !fed.contains(p)) {
            let node = &body.nodes()[body.parameter_nodes()[p]];
            return Err(layer.err(format!(
                "body Parameter {} \"{}\" has no port-map input",
                node.layer_id, node.name
            )));
        }
        let declared_outputs = layer
            .outputs
            .iter()
            .map(|p| PartialShape::new(p.dims.iter().map(|&d| usize::try_from(d).ok()).collect()))
            .collect();
        Ok(Self {
            body,
            inputs,
            outputs,
            declared_outputs,
        })
    }

    /// The iteration count for outer inputs of these shapes (`None` when not yet known).
    pub fn iterations(&self, outer: &[PartialShape]) -> Result<Option<usize>> {
        if self
            .inputs
            .iter()
            .any(|m| matches!(m, InputMapping::Sliced { .. }))
        {
            return sliced_iterations(&self.inputs, outer);
        }
        for (k, m) in self.outputs.iter().enumerate() {
            if let OutputMapping::Concat { spec, .. } = m {
                let dims = self.declared_outputs[k].dims().unwrap_or(&[]);
                let axis = spec.axis(dims.len())?;
                return Ok(match dims[axis] {
                    Some(d) => Some(spec.range(d)?.1),
                    None => None,
                });
            }
        }
        Ok(Some(1))
    }
}

/// Output infos of an iterating op: a body Result's, with the concatenation axis multiplied by
/// the iteration count `n` (dynamic when unknown).
pub fn iteration_outputs(
    body: &Model,
    outputs: &[OutputMapping],
    n: Option<usize>,
) -> Result<Vec<OutputInfo>> {
    outputs
        .iter()
        .map(|m| {
            let (OutputMapping::Last { result } | OutputMapping::Concat { result, .. }) = m;
            let info = &body.outputs()[*result];
            let shape = match (m, info.shape.dims()) {
                (OutputMapping::Concat { spec, .. }, Some(d)) => {
                    let mut d = d.to_vec();
                    let axis = spec.axis(d.len())?;
                    d[axis] = d[axis].zip(n).map(|(a, b)| a * b);
                    PartialShape::new(d)
                }
                (OutputMapping::Concat { .. }, None) => PartialShape::dynamic(),
                (OutputMapping::Last { .. }, _) => info.shape.clone(),
            };
            Ok(OutputInfo::new(info.element_type, shape))
        })
        .collect()
}

impl Op for TensorIterator {
    fn type_name(&self) -> &'static str {
        "TensorIterator"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let shapes: Vec<PartialShape> = inputs.iter().map(|i| i.shape.clone()).collect();
        iteration_outputs(&self.body, &self.outputs, self.iterations(&shapes)?)
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        self.execute_within(inputs, &Budget::default())
    }
    fn execute_within(&self, inputs: &[&Tensor], budget: &Budget) -> Result<Vec<Tensor>> {
        let shapes: Vec<PartialShape> = inputs
            .iter()
            .map(|t| PartialShape::from_static(t.shape()))
            .collect();
        let n = self.iterations(&shapes)?.unwrap_or(1);
        iterate(
            &self.body,
            &self.inputs,
            &self.outputs,
            inputs,
            Some(n),
            LoopControl::default(),
            budget,
        )
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn bodies(&self) -> Vec<&Model> {
        vec![&self.body]
    }
    fn bodies_mut(&mut self) -> Vec<&mut Model> {
        vec![&mut self.body]
    }
}
