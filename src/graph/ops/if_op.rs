//! If-8: runs `then_body` when the condition (input 0, boolean scalar or one-element 1-D) is
//! true, else `else_body`; `then_port_map` / `else_port_map` connect outer inputs to each
//! body's Parameters and each body's Results to the outer outputs.

use std::any::Any;
use std::borrow::Cow;

use super::subgraph::{
    body_parameter, body_result, build_body, check_condition_type, outer_input, outer_outputs,
    truthy,
};
use super::{expect_inputs, invalid, BuildContext, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::{IrLayer, PortMapKind};
use crate::graph::limits::Budget;
use crate::graph::model::Model;
use crate::graph::shape::PartialShape;
use crate::graph::tensor::Tensor;

/// One branch: its body and port maps.
#[derive(Debug)]
pub struct Branch {
    /// The body.
    pub body: Model,
    /// For each body Parameter (by position), the outer input feeding it.
    pub inputs: Vec<usize>,
    /// For each outer output, the body Result producing it.
    pub outputs: Vec<usize>,
}

impl Branch {
    fn from_ir(
        layer: &IrLayer,
        body_name: &str,
        map_name: &str,
        ctx: &BuildContext,
    ) -> Result<Self> {
        let body = build_body(layer, body_name, ctx)?;
        let map = layer
            .port_map(map_name)
            .ok_or_else(|| layer.err(format!("has no <{map_name}>")))?;
        let mut inputs: Vec<Option<usize>> = vec![None; body.parameter_nodes().len()];
        for e in map.iter().filter(|e| e.kind == PortMapKind::Input) {
            let what = format!("<{map_name}> input at line {}", e.line);
            let param = body_parameter(layer, &body, e.internal_layer_id, &what)?;
            if inputs[param].replace(outer_input(layer, e)?).is_some() {
                return Err(layer.err(format!(
                    "{what}: body Parameter {} is mapped twice",
                    e.internal_layer_id
                )));
            }
        }
        let inputs = inputs
            .into_iter()
            .enumerate()
            .map(|(p, i)| {
                i.ok_or_else(|| {
                    let n = &body.nodes()[body.parameter_nodes()[p]];
                    layer.err(format!(
                        "<{body_name}> Parameter {} \"{}\" has no <{map_name}> input",
                        n.layer_id, n.name
                    ))
                })
            })
            .collect::<Result<_>>()?;
        let outputs = outer_outputs(layer, map, map_name)?
            .into_iter()
            .map(|e| {
                body_result(
                    layer,
                    &body,
                    e.internal_layer_id,
                    &format!("<{map_name}> output at line {}", e.line),
                )
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            body,
            inputs,
            outputs,
        })
    }

    fn output_infos(&self) -> Vec<OutputInfo> {
        self.outputs
            .iter()
            .map(|&r| {
                let o = &self.body.outputs()[r];
                OutputInfo::new(o.element_type, o.shape.clone())
            })
            .collect()
    }

    fn run(&self, outer: &[&Tensor], budget: &Budget) -> Result<Vec<Tensor>> {
        let args = self
            .inputs
            .iter()
            .map(|&i| Cow::Borrowed(outer[i]))
            .collect();
        let mut outs: Vec<Option<Cow<Tensor>>> =
            self.body.run(args, budget)?.into_iter().map(Some).collect();
        self.outputs
            .iter()
            .map(|&r| match outs[r].take() {
                Some(v) => Ok(v.into_owned()),
                None => Err(invalid(format!("body Result {r} feeds two outputs"))),
            })
            .collect()
    }
}

/// An If with both branches.
#[derive(Debug)]
pub struct If {
    /// Runs when the condition is true.
    pub then_branch: Branch,
    /// Runs when the condition is false.
    pub else_branch: Branch,
}

impl If {
    /// Builds both bodies and resolves both port maps.
    pub fn from_ir(layer: &IrLayer, ctx: &BuildContext) -> Result<Self> {
        expect_inputs(layer, 1..=usize::MAX)?;
        Ok(Self {
            then_branch: Branch::from_ir(layer, "then_body", "then_port_map", ctx)?,
            else_branch: Branch::from_ir(layer, "else_body", "else_port_map", ctx)?,
        })
    }
}

/// Merges two partial shapes: equal dims stay, differing ones become dynamic.
fn merge(a: &PartialShape, b: &PartialShape) -> PartialShape {
    match (a.dims(), b.dims()) {
        (Some(x), Some(y)) if x.len() == y.len() => PartialShape::new(
            x.iter()
                .zip(y)
                .map(|(p, q)| if p == q { *p } else { None })
                .collect(),
        ),
        _ => PartialShape::dynamic(),
    }
}

impl Op for If {
    fn type_name(&self) -> &'static str {
        "If"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        check_condition_type(inputs[0].element_type, "cond")?;
        if let Some(c) = inputs[0].value {
            let branch = if truthy(c)? {
                &self.then_branch
            } else {
                &self.else_branch
            };
            return Ok(branch.output_infos());
        }
        self.then_branch
            .output_infos()
            .into_iter()
            .zip(self.else_branch.output_infos())
            .enumerate()
            .map(|(k, (t, e))| {
                if t.element_type != e.element_type {
                    return Err(invalid(format!(
                        "output {k} is {} in then_body but {} in else_body",
                        t.element_type, e.element_type
                    )));
                }
                Ok(OutputInfo::new(t.element_type, merge(&t.shape, &e.shape)))
            })
            .collect()
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        self.execute_within(inputs, &Budget::default())
    }
    fn execute_within(&self, inputs: &[&Tensor], budget: &Budget) -> Result<Vec<Tensor>> {
        let cond = inputs
            .first()
            .ok_or_else(|| invalid("If needs a condition input"))?;
        if cond.shape().len() > 1 {
            return Err(invalid(format!(
                "cond must be a scalar or 1-D, got shape {:?}",
                cond.shape()
            )));
        }
        if truthy(cond)? {
            self.then_branch.run(inputs, budget)
        } else {
            self.else_branch.run(inputs, budget)
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn bodies(&self) -> Vec<&Model> {
        vec![&self.then_branch.body, &self.else_branch.body]
    }
    fn bodies_mut(&mut self) -> Vec<&mut Model> {
        vec![&mut self.then_branch.body, &mut self.else_branch.body]
    }
}
