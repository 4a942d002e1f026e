//! The model: nodes (an op with typed attributes, its input edges and output port infos) in
//! topological order, plus the model's inputs (Parameters) and outputs (Results).
//!
//! Sub-graph ops (TensorIterator, Loop, If) own their bodies as nested [`Model`]s. A pass (see
//! `graph::passes`) may replace a node's op with [`Model::replace_op`] as long as the new op
//! keeps the node's input and output arity.

use std::fmt;
use std::path::Path;

use super::ops::Op;
use super::shape::PartialShape;
use super::tensor::ElementType;
use super::weights::{read_regular_file, Weights};
use crate::error::{Error, Result};

/// A reference to one output of a node: `nodes[node].outputs[port]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValueRef {
    /// Index of the producing node in [`Model::nodes`].
    pub node: usize,
    /// Output index (position among the producer's output ports).
    pub port: usize,
}

/// Element type, shape and tensor names of one node output.
#[derive(Clone, Debug, PartialEq)]
pub struct PortInfo {
    /// The element type.
    pub element_type: ElementType,
    /// The shape as inferred (and refined by the IR's declared dims).
    pub shape: PartialShape,
    /// The tensor names from the IR port's `names` attribute.
    pub names: Vec<String>,
}

/// One node of the model.
#[derive(Debug)]
pub struct Node {
    /// The IR layer id.
    pub layer_id: i64,
    /// The IR layer name.
    pub name: String,
    /// The operation.
    pub op: Box<dyn Op>,
    /// Where each input comes from (earlier nodes only: the list is topologically sorted).
    pub inputs: Vec<ValueRef>,
    /// The outputs.
    pub outputs: Vec<PortInfo>,
}

impl Node {
    /// `layer 7 "name" (Type)`, for messages.
    pub fn label(&self) -> String {
        format!(
            "layer {} \"{}\" ({})",
            self.layer_id,
            self.name,
            self.op.type_name()
        )
    }
}

/// A model input or output as seen by a user.
#[derive(Clone, Debug, PartialEq)]
pub struct IoInfo {
    /// The primary name: the port's first tensor name, else the layer's name.
    pub name: String,
    /// Every name that selects this input/output (tensor names, then the layer name).
    pub names: Vec<String>,
    /// The element type.
    pub element_type: ElementType,
    /// The (possibly partial) shape.
    pub shape: PartialShape,
}

/// A loaded model (or a sub-graph body).
#[derive(Debug)]
pub struct Model {
    /// The `<net name>` (empty for bodies).
    pub name: String,
    pub(crate) nodes: Vec<Node>,
    pub(crate) parameters: Vec<usize>,
    pub(crate) results: Vec<usize>,
    pub(crate) inputs: Vec<IoInfo>,
    pub(crate) outputs: Vec<IoInfo>,
    /// For each node output, how many consumers (inputs and Results) read it.
    pub(crate) use_counts: Vec<Vec<usize>>,
}

impl Model {
    /// Loads an IR from memory: the XML text and the `.bin` weights (may be empty when the model
    /// has no constants).
    /// The graph passes run on the loaded model (see `graph::passes`: a TensorIterator over an
    /// LSTMCell, GRUCell or RNNCell becomes one RNN primitive).
    pub fn from_ir(xml: &[u8], bin: &[u8]) -> Result<Model> {
        Model::build(xml, &Weights::Memory(bin), true)
    }

    /// Loads an IR from memory as [`Model::from_ir`] does, without running the graph passes:
    /// every op runs as the IR spells it.
    pub fn from_ir_unfused(xml: &[u8], bin: &[u8]) -> Result<Model> {
        Model::build(xml, &Weights::Memory(bin), false)
    }

    /// Parses and builds a model, then runs the graph passes when `fuse` is set.
    fn build(xml: &[u8], weights: &Weights, fuse: bool) -> Result<Model> {
        let net = super::ir::parse_ir(xml)?;
        let mut model = super::build::build_model(&net, weights)?;
        if fuse {
            super::passes::apply(&mut model)?;
        }
        Ok(model)
    }

    /// The number of nodes, in the model and in the bodies of its sub-graph ops at any depth,
    /// that the graph passes replaced by a fused op.
    pub fn fused_node_count(&self) -> usize {
        self.nodes
            .iter()
            .map(|n| {
                let fused = super::passes::fused_primitive(n.op.as_ref()).is_some();
                usize::from(fused)
                    + n.op
                        .bodies()
                        .iter()
                        .map(|b| b.fused_node_count())
                        .sum::<usize>()
            })
            .sum()
    }

    /// One line per RNN node, in the model and in the bodies of its sub-graph ops at any
    /// depth: which ran fused onto which primitive, which step by step (see
    /// `graph::passes::rnn_summary`).
    pub fn rnn_report(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for n in &self.nodes {
            let at = format!("layer {} \"{}\"", n.layer_id, n.name);
            if let Some(s) = super::passes::rnn_summary(n.op.as_ref()) {
                lines.push(format!("{at}: {s}"));
            }
            for b in n.op.bodies() {
                lines.extend(b.rnn_report().into_iter().map(|l| format!("{at} > {l}")));
            }
        }
        lines
    }

    /// Loads an IR from files and runs the graph passes, as [`Model::from_ir`]. Without `bin`,
    /// `MODEL.bin` next to `MODEL.xml` is used when it exists (a model without constants needs
    /// none). Both must be regular files; only the byte ranges the Consts name are read from
    /// the `.bin`.
    pub fn load(xml: &Path, bin: Option<&Path>) -> Result<Model> {
        let (xml, weights) = open_ir_files(xml, bin)?;
        Model::build(&xml, &weights, true)
    }

    /// Loads an IR from files as [`Model::load`] does, without running the graph passes.
    pub fn load_unfused(xml: &Path, bin: Option<&Path>) -> Result<Model> {
        let (xml, weights) = open_ir_files(xml, bin)?;
        Model::build(&xml, &weights, false)
    }

    /// The inputs, in Parameter order (the order of Parameter layers in the XML).
    pub fn inputs(&self) -> &[IoInfo] {
        &self.inputs
    }

    /// The outputs, in Result order (the order of Result layers in the XML).
    pub fn outputs(&self) -> &[IoInfo] {
        &self.outputs
    }

    /// The position of the input selected by `name` (any of its names).
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.inputs
            .iter()
            .position(|i| i.names.iter().any(|n| n == name))
    }

    /// The position of the output selected by `name` (any of its names).
    pub fn output_index(&self, name: &str) -> Option<usize> {
        self.outputs
            .iter()
            .position(|o| o.names.iter().any(|n| n == name))
    }

    /// The nodes in topological order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Node indices of the Parameters, in input order.
    pub fn parameter_nodes(&self) -> &[usize] {
        &self.parameters
    }

    /// Node indices of the Results, in output order.
    pub fn result_nodes(&self) -> &[usize] {
        &self.results
    }

    /// Replaces the op of node `index` (for passes). The new op must have the node's input
    /// count and output count.
    pub fn replace_op(&mut self, index: usize, op: Box<dyn Op>) -> Result<()> {
        let node = self
            .nodes
            .get_mut(index)
            .ok_or_else(|| Error::InvalidArguments(format!("replace_op: no node {index}")))?;
        node.op = op;
        Ok(())
    }
}

/// The XML bytes and the opened `.bin` of an IR (see [`Model::load`] for the default `.bin`).
fn open_ir_files(xml: &Path, bin: Option<&Path>) -> Result<(Vec<u8>, Weights<'static>)> {
    let xml_bytes = read_regular_file(xml)?;
    let weights = match bin {
        Some(b) => Weights::open(b)?,
        None => {
            let default = xml.with_extension("bin");
            if default.exists() {
                Weights::open(&default)?
            } else {
                Weights::Memory(&[])
            }
        }
    };
    Ok((xml_bytes, weights))
}

impl fmt::Display for IoInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.name, self.element_type, self.shape)
    }
}
