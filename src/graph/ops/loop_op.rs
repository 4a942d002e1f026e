//! Loop-5: runs its body while `iteration < trip_count` (input 0; −1 = no limit) and the
//! condition holds (input 1 initially, then the body Result with
//! `purpose="execution_condition"`). A body Parameter with `purpose="current_iteration"`
//! receives the iteration number. Other inputs and outputs map as in TensorIterator.
//!
//! A Loop that runs zero times (trip count 0 or a false initial condition) outputs the initial
//! value of a back edge for a Result on one, and an empty concatenation (0 along the axis).

use std::any::Any;

use super::subgraph::{
    body_parameter, body_result, build_body, check_condition_type, iterate, iteration_mappings,
    truthy, InputMapping, LoopControl, OutputMapping,
};
use super::tensor_iterator::iteration_outputs;
use super::{expect_inputs, invalid, BuildContext, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::{IrLayer, PortMapKind};
use crate::graph::limits::Budget;
use crate::graph::model::Model;
use crate::graph::tensor::Tensor;

/// A Loop with its body.
#[derive(Debug)]
pub struct Loop {
    /// The body.
    pub body: Model,
    /// How each body Parameter is fed.
    pub inputs: Vec<InputMapping>,
    /// How each outer output is made, in output order.
    pub outputs: Vec<OutputMapping>,
    /// The special body ports.
    pub control: LoopControl,
}

impl Loop {
    /// Builds the body and resolves `<port_map>` (with `purpose`) and `<back_edges>`.
    pub fn from_ir(layer: &IrLayer, ctx: &BuildContext) -> Result<Self> {
        expect_inputs(layer, 2..=usize::MAX)?;
        let body = build_body(layer, "body", ctx)?;
        let (inputs, outputs) = iteration_mappings(layer, &body)?;
        let mut control = LoopControl::default();
        for e in layer.port_map("port_map").unwrap_or(&[]) {
            let what = format!("port map entry at line {}", e.line);
            match (e.kind, e.purpose.as_deref()) {
                (PortMapKind::Input, Some("current_iteration")) => {
                    control.current_iteration =
                        Some(body_parameter(layer, &body, e.internal_layer_id, &what)?)
                }
                (PortMapKind::Output, Some("execution_condition")) => {
                    control.condition = Some(body_result(layer, &body, e.internal_layer_id, &what)?)
                }
                (_, Some(p)) if !p.is_empty() => {
                    return Err(layer.err(format!("{what}: unknown purpose \"{p}\"")));
                }
                _ => {}
            }
        }
        if inputs.iter().any(|m| {
            matches!(m, InputMapping::Sliced { input, .. } | InputMapping::Invariant { input, .. } | InputMapping::Merged { input, .. } if *input < 2)
        }) {
            return Err(layer.err("the port map feeds the body from input 0 or 1 (trip count, condition)"));
        }
        Ok(Self {
            body,
            inputs,
            outputs,
            control,
        })
    }
}

impl Op for Loop {
    fn type_name(&self) -> &'static str {
        "Loop"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        if !inputs[0].element_type.is_integer() {
            return Err(invalid(format!(
                "trip count must be an integer, got {}",
                inputs[0].element_type
            )));
        }
        check_condition_type(inputs[1].element_type, "execution condition")?;
        // The iteration count is known when the Loop runs zero times or exactly trip times.
        let n = match (inputs[0].value, inputs[1].value) {
            (Some(t), Some(c)) => {
                let trip = t.to_i64_vec("trip count")?.first().copied().unwrap_or(0);
                if !truthy(c)? || trip == 0 {
                    Some(0)
                } else {
                    (self.control.condition.is_none() && trip > 0).then_some(trip as usize)
                }
            }
            _ => None,
        };
        iteration_outputs(&self.body, &self.outputs, n)
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        self.execute_within(inputs, &Budget::default())
    }
    fn execute_within(&self, inputs: &[&Tensor], budget: &Budget) -> Result<Vec<Tensor>> {
        if inputs.len() < 2 {
            return Err(invalid("Loop needs the trip count and condition inputs"));
        }
        let trip = *inputs[0]
            .to_i64_vec("trip count")?
            .first()
            .ok_or_else(|| invalid("empty trip count"))?;
        let max = if truthy(inputs[1])? {
            (trip >= 0).then_some(trip as usize)
        } else {
            Some(0)
        };
        iterate(
            &self.body,
            &self.inputs,
            &self.outputs,
            inputs,
            max,
            self.control,
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
