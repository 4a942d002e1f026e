//! [`IrNet`] → [`Model`]: resolves edges (ports by id), sorts topologically, creates the ops,
//! infers shapes (folding constants) and checks them against the dims the IR declares.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::ir::{IrLayer, IrNet};
use super::model::{IoInfo, Model, Node, PortInfo, ValueRef};
use super::ops::{
    self, constant::Constant, parameter::Parameter, BuildContext, Op, OutputInfo, ValueInfo,
};
use super::shape::PartialShape;
use super::tensor::{checked_numel, ElementType, Tensor};
use super::weights::Weights;
use crate::error::{Error, Result};

/// Values known at load time, per node output (constants and what folds from them).
type Folded = Vec<Option<Arc<Tensor>>>;

/// Builds a model (or a body) from a parsed net and the weights.
pub fn build_model(net: &IrNet, weights: &Weights) -> Result<Model> {
    let index = layer_index(net)?;
    let sources = resolve_edges(net, &index)?;
    let order = topological_order(net, &sources)?;
    let ctx = BuildContext { weights };

    // Position of each XML layer in the node list.
    let mut node_of = vec![usize::MAX; net.layers.len()];
    let mut nodes: Vec<Node> = Vec::with_capacity(order.len());
    let mut values: Vec<Folded> = Vec::with_capacity(order.len());
    for &li in &order {
        let layer = &net.layers[li];
        let op = ops::create(layer, &ctx)?;
        let inputs: Vec<ValueRef> = sources[li]
            .iter()
            .map(|&(src, port)| ValueRef {
                node: node_of[src],
                port,
            })
            .collect();
        check_input_dims(layer, &inputs, &nodes)?;
        let (infos, folded) = infer_node(layer, op.as_ref(), &inputs, &nodes, &values)?;
        let outputs = check_outputs(layer, net.version, infos)?;
        node_of[li] = nodes.len();
        values.push(folded);
        nodes.push(Node {
            layer_id: layer.id,
            name: layer.name.clone(),
            op,
            inputs,
            outputs,
        });
    }

    let in_xml_order = |ty: &str| -> Vec<usize> {
        net.layers
            .iter()
            .enumerate()
            .filter(|(_, l)| l.type_name == ty)
            .map(|(i, _)| node_of[i])
            .collect()
    };
    let parameters = in_xml_order("Parameter");
    let results = in_xml_order("Result");
    let io = |n: &Node, port: &PortInfo| {
        let mut names = port.names.clone();
        if !names.contains(&n.name) {
            names.push(n.name.clone());
        }
        IoInfo {
            name: port
                .names
                .first()
                .cloned()
                .unwrap_or_else(|| n.name.clone()),
            names,
            element_type: port.element_type,
            shape: port.shape.clone(),
        }
    };
    let inputs = parameters
        .iter()
        .map(|&p| io(&nodes[p], &nodes[p].outputs[0]))
        .collect();
    let outputs = results
        .iter()
        .map(|&r| {
            let src = nodes[r].inputs[0];
            let port = &nodes[src.node].outputs[src.port];
            let mut info = io(&nodes[r], port);
            if port.names.is_empty() {
                info.name = nodes[r].name.clone();
            }
            info
        })
        .collect();
    let mut use_counts: Vec<Vec<usize>> = nodes.iter().map(|n| vec![0; n.outputs.len()]).collect();
    for n in &nodes {
        for v in &n.inputs {
            use_counts[v.node][v.port] += 1;
        }
    }
    Ok(Model {
        name: net.name.clone(),
        nodes,
        parameters,
        results,
        inputs,
        outputs,
        use_counts,
    })
}

/// Layer id → XML position; duplicate ids are an error.
fn layer_index(net: &IrNet) -> Result<HashMap<i64, usize>> {
    let mut index = HashMap::with_capacity(net.layers.len());
    for (i, l) in net.layers.iter().enumerate() {
        if let Some(prev) = index.insert(l.id, i) {
            return Err(l.err(format!(
                "duplicate layer id {} (also used by {})",
                l.id, net.layers[prev]
            )));
        }
        let mut ids = HashSet::new();
        for p in l.inputs.iter().chain(&l.outputs) {
            if !ids.insert(p.id) {
                return Err(l.err(format!("port id {} is used twice (line {})", p.id, p.line)));
            }
        }
    }
    Ok(index)
}

/// For each layer and input port (by position), the producing `(layer position, output
/// position)`. Checks edges point at existing layers and ports, and every input is connected
/// exactly once.
fn resolve_edges(net: &IrNet, index: &HashMap<i64, usize>) -> Result<Vec<Vec<(usize, usize)>>> {
    let mut sources: Vec<Vec<Option<(usize, usize, u32)>>> = net
        .layers
        .iter()
        .map(|l| vec![None; l.inputs.len()])
        .collect();
    for e in &net.edges {
        let at = format!("IR: edge at line {}", e.line);
        let from = *index.get(&e.from_layer).ok_or_else(|| {
            Error::InvalidArguments(format!("{at}: from-layer {} does not exist", e.from_layer))
        })?;
        let to = *index.get(&e.to_layer).ok_or_else(|| {
            Error::InvalidArguments(format!("{at}: to-layer {} does not exist", e.to_layer))
        })?;
        let (fl, tl) = (&net.layers[from], &net.layers[to]);
        let out = fl
            .outputs
            .iter()
            .position(|p| p.id == e.from_port)
            .ok_or_else(|| {
                Error::InvalidArguments(format!(
                    "{at}: from-port {} is not an output port of {fl}",
                    e.from_port
                ))
            })?;
        let inp = tl
            .inputs
            .iter()
            .position(|p| p.id == e.to_port)
            .ok_or_else(|| {
                Error::InvalidArguments(format!(
                    "{at}: to-port {} is not an input port of {tl}",
                    e.to_port
                ))
            })?;
        if let Some((_, _, line)) = sources[to][inp].replace((from, out, e.line)) {
            return Err(tl.err(format!(
                "input port {} has two incoming edges (lines {line} and {})",
                e.to_port, e.line
            )));
        }
    }
    sources
        .into_iter()
        .zip(&net.layers)
        .map(|(s, l)| {
            s.into_iter()
                .zip(&l.inputs)
                .map(|(src, port)| {
                    src.map(|(f, o, _)| (f, o)).ok_or_else(|| {
                        l.err(format!(
                            "input port {} is not connected (no edge ends there)",
                            port.id
                        ))
                    })
                })
                .collect()
        })
        .collect()
}

/// Kahn's algorithm, lowest XML position first among the ready layers; a cycle is an error
/// naming the layers on it.
fn topological_order(net: &IrNet, sources: &[Vec<(usize, usize)>]) -> Result<Vec<usize>> {
    let n = net.layers.len();
    let mut pending: Vec<usize> = sources.iter().map(Vec::len).collect();
    let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (to, s) in sources.iter().enumerate() {
        for &(from, _) in s {
            consumers[from].push(to);
        }
    }
    let mut ready: BTreeSet<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &c in &consumers[i] {
            pending[c] -= 1;
            if pending[c] == 0 {
                ready.insert(c);
            }
        }
    }
    if order.len() < n {
        let stuck: Vec<String> = (0..n)
            .filter(|&i| pending[i] > 0)
            .take(6)
            .map(|i| net.layers[i].to_string())
            .collect();
        return Err(Error::InvalidArguments(format!(
            "IR: the graph has a cycle through {}",
            stuck.join(", ")
        )));
    }
    Ok(order)
}

/// Checks each input port's declared dims against its producer's output shape.
fn check_input_dims(layer: &IrLayer, inputs: &[ValueRef], nodes: &[Node]) -> Result<()> {
    for (port, src) in layer.inputs.iter().zip(inputs) {
        let declared = declared_shape(&port.dims);
        let producer = &nodes[src.node];
        let actual = &producer.outputs[src.port].shape;
        if !declared.compatible(actual) {
            return Err(layer.err(format!(
                "input port {} declares dims {declared} but its producer {} gives {actual}",
                port.id,
                producer.label()
            )));
        }
    }
    Ok(())
}

/// Largest output (elements) a node may have: more is surely a malformed model (or input),
/// refused with an error rather than left to abort on allocation.
const MAX_ELEMENTS: usize = 1 << 32;

/// The element count of output `i` of shape `shape`, or why it is refused (over
/// [`MAX_ELEMENTS`]).
pub(super) fn allocatable(i: usize, shape: &[usize]) -> std::result::Result<usize, String> {
    match checked_numel(shape) {
        Ok(n) if n <= MAX_ELEMENTS => Ok(n),
        _ => Err(format!(
            "output {i} of shape {shape:?} would hold more than 2^32 elements"
        )),
    }
}
/// Largest output (elements) folded at load time; a larger constant expression is computed when
/// the model runs.
const FOLD_ELEMENTS: usize = 1 << 24;

/// Output infos of a node, folding it when every input value is known and its outputs are not
/// known to be large. Sub-graph ops (TensorIterator, Loop, If) are never folded: a Loop over
/// constants may legitimately run for very long, or forever.
fn infer_node(
    layer: &IrLayer,
    op: &dyn Op,
    inputs: &[ValueRef],
    nodes: &[Node],
    values: &[Folded],
) -> Result<(Vec<OutputInfo>, Folded)> {
    if let Some(c) = op.as_any().downcast_ref::<Constant>() {
        let t = &c.value;
        return Ok((
            vec![OutputInfo::new(
                t.element_type(),
                PartialShape::from_static(t.shape()),
            )],
            vec![Some(t.clone())],
        ));
    }
    let infos: Vec<ValueInfo> = inputs
        .iter()
        .map(|v| {
            let p = &nodes[v.node].outputs[v.port];
            ValueInfo {
                element_type: p.element_type,
                shape: p.shape.clone(),
                value: values[v.node][v.port].as_deref(),
            }
        })
        .collect();
    let out = op.infer(&infos).map_err(|e| layer_error(layer, e))?;
    let mut largest = 0;
    for (i, o) in out.iter().enumerate() {
        if let Some(shape) = o.shape.to_static() {
            let n = allocatable(i, &shape).map_err(|e| layer.err(e))?;
            largest = largest.max(n);
        }
    }
    let known: Option<Vec<&Tensor>> = infos.iter().map(|i| i.value).collect();
    let foldable =
        op.foldable() && !inputs.is_empty() && op.bodies().is_empty() && largest <= FOLD_ELEMENTS;
    if let (Some(args), true) = (known, foldable) {
        let outs = op.execute(&args).map_err(|e| layer_error(layer, e))?;
        let infos = outs
            .iter()
            .map(|t| OutputInfo::new(t.element_type(), PartialShape::from_static(t.shape())))
            .collect();
        return Ok((infos, outs.into_iter().map(|t| Some(Arc::new(t))).collect()));
    }
    let n = out.len();
    Ok((out, vec![None; n]))
}

/// Checks the inferred outputs against the declared output ports (count, dims, and for v11
/// precision) and merges the declared dims in.
fn check_outputs(layer: &IrLayer, version: u32, infos: Vec<OutputInfo>) -> Result<Vec<PortInfo>> {
    if infos.len() != layer.outputs.len() {
        return Err(layer.err(format!(
            "has {} output ports, {} produces {}",
            layer.outputs.len(),
            layer.type_name,
            infos.len()
        )));
    }
    infos
        .into_iter()
        .zip(&layer.outputs)
        .map(|(info, port)| {
            let declared = declared_shape(&port.dims);
            if !declared.compatible(&info.shape) {
                return Err(layer.err(format!(
                    "output port {} declares dims {declared} but the inferred shape is {}",
                    port.id, info.shape
                )));
            }
            if version >= 11 {
                if let Some(p) = port
                    .precision
                    .as_deref()
                    .and_then(ElementType::from_precision)
                {
                    if p != info.element_type {
                        return Err(layer.err(format!(
                            "output port {} declares precision {} but the inferred type is {}",
                            port.id,
                            port.precision.as_deref().unwrap_or_default(),
                            info.element_type
                        )));
                    }
                }
            }
            Ok(PortInfo {
                element_type: info.element_type,
                shape: info.shape.refine(&declared),
                names: port.names.clone(),
            })
        })
        .collect()
}

fn declared_shape(dims: &[i64]) -> PartialShape {
    PartialShape::new(dims.iter().map(|&d| usize::try_from(d).ok()).collect())
}

/// Names the layer in an error from its op (the error kind is kept).
fn layer_error(layer: &IrLayer, e: Error) -> Error {
    let prefix = |m: String| {
        if m.starts_with("IR: ") {
            m
        } else {
            format!("IR: {m}")
        }
    };
    match super::ir::with_context(e, &layer.to_string()) {
        Error::InvalidArguments(m) => Error::InvalidArguments(prefix(m)),
        Error::Unimplemented(m) => Error::Unimplemented(prefix(m)),
        other => other,
    }
}

/// The Parameter op of node `index`, if it is one.
pub(crate) fn as_parameter(node: &Node) -> Option<&Parameter> {
    node.op.as_any().downcast_ref::<Parameter>()
}
