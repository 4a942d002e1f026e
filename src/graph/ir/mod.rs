//! OpenVINO IR (v10 / v11) reader: the XML turned into plain structs, with positions for errors.
//!
//! This layer only checks the XML's own structure (elements, required attributes, numbers);
//! what the layers mean (edges, ops, shapes, blobs) is checked when the model is built
//! (`graph::build`), where every error names the layer.

mod attrs;
mod blob;
mod xml;

pub use attrs::parse_partial_shape;
pub use blob::read_const_blob;
pub use xml::parse_ir;

use std::fmt;

use crate::error::Error;

/// A parsed `<net>` or a sub-graph body (`<body>`, `<then_body>`, `<else_body>`).
#[derive(Clone, Debug, Default)]
pub struct IrNet {
    /// The `name` attribute of `<net>` (empty for bodies).
    pub name: String,
    /// The IR version (10 or 11; bodies inherit the root's).
    pub version: u32,
    /// The layers in XML order.
    pub layers: Vec<IrLayer>,
    /// The edges in XML order.
    pub edges: Vec<IrEdge>,
}

/// One `<layer>`.
#[derive(Clone, Debug, Default)]
pub struct IrLayer {
    /// The `id` attribute (unique within its net).
    pub id: i64,
    /// The `name` attribute.
    pub name: String,
    /// The `type` attribute (`Const`, `Parameter`, `Gather`, …).
    pub type_name: String,
    /// The `version` attribute (`opset1`, `opset8`, …), empty when absent.
    pub version: String,
    /// 1-based line of the `<layer>` element.
    pub line: u32,
    /// The attributes of `<data>`, in XML order.
    pub data: Vec<(String, String)>,
    /// The `<input>` ports in XML order.
    pub inputs: Vec<IrPort>,
    /// The `<output>` ports in XML order.
    pub outputs: Vec<IrPort>,
    /// Nested nets by element name (`body`, `then_body`, `else_body`).
    pub bodies: Vec<(String, IrNet)>,
    /// Port maps by element name (`port_map`, `then_port_map`, `else_port_map`).
    pub port_maps: Vec<(String, Vec<IrPortMapEntry>)>,
    /// `<back_edges>` of a TensorIterator / Loop.
    pub back_edges: Vec<IrBackEdge>,
}

/// One `<port>` of a layer.
#[derive(Clone, Debug, Default)]
pub struct IrPort {
    /// The port id (unique within the layer, inputs and outputs together).
    pub id: i64,
    /// The `precision` attribute (`FP32`, `I64`, …), if present.
    pub precision: Option<String>,
    /// The `<dim>` values (−1 = dynamic); empty for a scalar.
    pub dims: Vec<i64>,
    /// The tensor names (`names` attribute split on unescaped commas).
    pub names: Vec<String>,
    /// 1-based line of the `<port>` element.
    pub line: u32,
}

/// One `<edge from-layer from-port to-layer to-port/>`.
#[derive(Clone, Copy, Debug, Default)]
pub struct IrEdge {
    /// Producing layer id.
    pub from_layer: i64,
    /// Producing port id (an output port of `from_layer`).
    pub from_port: i64,
    /// Consuming layer id.
    pub to_layer: i64,
    /// Consuming port id (an input port of `to_layer`).
    pub to_port: i64,
    /// 1-based line of the `<edge>` element.
    pub line: u32,
}

/// Whether a port-map entry maps an input or an output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortMapKind {
    /// `<input …/>`: an outer input to a body Parameter.
    Input,
    /// `<output …/>`: a body Result to an outer output.
    Output,
}

/// One `<input>` / `<output>` entry of a port map.
#[derive(Clone, Debug)]
pub struct IrPortMapEntry {
    /// Input or output mapping.
    pub kind: PortMapKind,
    /// The outer port (−1: internal only, e.g. Loop's current-iteration input).
    pub external_port_id: i64,
    /// The body layer id of the Parameter / Result.
    pub internal_layer_id: i64,
    /// The slicing / concatenation axis (present ⇒ sliced input or concatenated output).
    pub axis: Option<i64>,
    /// First index (default 0; negative counts from the end).
    pub start: i64,
    /// Last index (default −1; negative counts from the end).
    pub end: i64,
    /// Step (default 1; negative iterates backwards).
    pub stride: i64,
    /// Slice length along the axis (default 1).
    pub part_size: i64,
    /// Loop's `purpose` (`current_iteration`, `execution_condition`).
    pub purpose: Option<String>,
    /// 1-based line of the entry.
    pub line: u32,
}

/// One `<back_edges><edge from-layer to-layer/>`: body Result → body Parameter.
#[derive(Clone, Copy, Debug)]
pub struct IrBackEdge {
    /// Body Result layer id.
    pub from_layer: i64,
    /// Body Parameter layer id.
    pub to_layer: i64,
    /// 1-based line of the element.
    pub line: u32,
}

impl IrNet {
    /// The layer with the given id.
    pub fn layer(&self, id: i64) -> Option<&IrLayer> {
        self.layers.iter().find(|l| l.id == id)
    }
}

impl IrLayer {
    /// The nested net called `name` (`body`, `then_body`, `else_body`).
    pub fn body(&self, name: &str) -> Option<&IrNet> {
        self.bodies.iter().find(|(n, _)| n == name).map(|(_, b)| b)
    }

    /// The port map called `name` (`port_map`, `then_port_map`, `else_port_map`).
    pub fn port_map(&self, name: &str) -> Option<&[IrPortMapEntry]> {
        self.port_maps
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, m)| m.as_slice())
    }

    /// An `InvalidArguments` error about this layer: `IR: layer 7 "name" (Type, line 42): msg`.
    pub fn err(&self, msg: impl fmt::Display) -> Error {
        Error::InvalidArguments(format!("IR: {self}: {msg}"))
    }
}

impl fmt::Display for IrLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "layer {} \"{}\" ({}", self.id, self.name, self.type_name)?;
        if !self.version.is_empty() {
            write!(f, "-{}", self.version)?;
        }
        write!(f, ", line {})", self.line)
    }
}

/// Prefixes the message of `e` with `context` (keeping the error kind), for errors that come
/// out of a nested body: `in body of layer 3 "ti" (TensorIterator, line 9): …`.
pub fn with_context(e: Error, context: &str) -> Error {
    let wrap = |m: String| match m.strip_prefix("IR: ") {
        Some(rest) => format!("IR: {context}: {rest}"),
        None => format!("{context}: {m}"),
    };
    match e {
        Error::InvalidArguments(m) => Error::InvalidArguments(wrap(m)),
        Error::Unimplemented(m) => Error::Unimplemented(wrap(m)),
        Error::Runtime(m) => Error::Runtime(wrap(m)),
        Error::OutOfMemory(m) => Error::OutOfMemory(wrap(m)),
        Error::NotRequired(m) => Error::NotRequired(wrap(m)),
        Error::LastImplReached => Error::LastImplReached,
    }
}
