//! roxmltree → [`IrNet`]: elements, required attributes and numbers, with line numbers.

use roxmltree::{Document, Node, ParsingOptions};

use super::{IrBackEdge, IrEdge, IrLayer, IrNet, IrPort, IrPortMapEntry, PortMapKind};
use crate::error::{Error, Result};

/// At most this many XML nodes are accepted (a guard against absurd or hostile files).
const NODES_LIMIT: u32 = 50_000_000;

/// Nested bodies deeper than this are rejected (a guard against stack exhaustion).
const MAX_BODY_DEPTH: usize = 32;

/// Parses an IR XML document (v10 or v11) into an [`IrNet`]. DTDs are refused.
pub fn parse_ir(xml: &[u8]) -> Result<IrNet> {
    let text = std::str::from_utf8(xml).map_err(|e| {
        Error::InvalidArguments(format!(
            "IR: the XML is not valid UTF-8 (at byte {})",
            e.valid_up_to()
        ))
    })?;
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: NODES_LIMIT,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, options)
        .map_err(|e| Error::InvalidArguments(format!("IR: malformed XML: {e}")))?;
    let root = doc.root_element();
    let p = Parser {
        lines: LineIndex::new(text)?,
    };
    if root.tag_name().name() != "net" {
        return Err(p.err(
            root,
            format!(
                "the root element is <{}>, expected <net>",
                root.tag_name().name()
            ),
        ));
    }
    let version: u32 = match root.attribute("version") {
        None => return Err(p.err(root, "<net> has no 'version' attribute")),
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| p.err(root, format!("<net version=\"{v}\"> is not a number")))?,
    };
    if !(10..=11).contains(&version) {
        return Err(p.err(
            root,
            format!("IR version {version} is not supported (only 10 and 11)"),
        ));
    }
    let mut net = p.net(root, version, 0)?;
    net.name = root.attribute("name").unwrap_or_default().to_string();
    Ok(net)
}

/// Byte offset → 1-based line number, from one scan of the document: every layer, port and
/// edge records its line, so asking roxmltree (which rescans from the start each time) would
/// make loading quadratic in the file size.
struct LineIndex {
    /// Byte offsets of the document's `\n`s, ascending.
    newlines: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Result<Self> {
        let is_newline = |&(_, b): &(usize, u8)| b == b'\n';
        let mut newlines = Vec::new();
        let count = text.bytes().enumerate().filter(is_newline).count();
        newlines.try_reserve_exact(count).map_err(|_| {
            Error::OutOfMemory(format!(
                "IR: no memory to index the {count} lines of the XML"
            ))
        })?;
        newlines.extend(text.bytes().enumerate().filter(is_newline).map(|(i, _)| i));
        Ok(Self { newlines })
    }

    fn line(&self, offset: usize) -> u32 {
        let before = self.newlines.partition_point(|&nl| nl < offset);
        u32::try_from(before + 1).unwrap_or(u32::MAX)
    }
}

struct Parser {
    lines: LineIndex,
}

impl Parser {
    fn line(&self, node: Node) -> u32 {
        self.lines.line(node.range().start)
    }

    fn err(&self, node: Node, msg: impl std::fmt::Display) -> Error {
        Error::InvalidArguments(format!("IR: line {}: {msg}", self.line(node)))
    }

    /// A required integer attribute of `node` (an element called `what` in messages).
    fn int(&self, node: Node, attr: &str, what: &str) -> Result<i64> {
        match node.attribute(attr) {
            None => Err(self.err(node, format!("{what} has no '{attr}' attribute"))),
            Some(v) => v.trim().parse().map_err(|_| {
                self.err(
                    node,
                    format!("{what} attribute {attr}=\"{v}\" is not an integer"),
                )
            }),
        }
    }

    fn int_or(&self, node: Node, attr: &str, default: i64, what: &str) -> Result<i64> {
        if node.has_attribute(attr) {
            self.int(node, attr, what)
        } else {
            Ok(default)
        }
    }

    /// A `<net>` or a body: its `<layers>` and `<edges>`.
    fn net(&self, node: Node, version: u32, depth: usize) -> Result<IrNet> {
        if depth > MAX_BODY_DEPTH {
            return Err(self.err(
                node,
                format!("sub-graph bodies nested deeper than {MAX_BODY_DEPTH}"),
            ));
        }
        let mut net = IrNet {
            version,
            ..IrNet::default()
        };
        let Some(layers) = child(node, "layers") else {
            return Err(self.err(
                node,
                format!("<{}> has no <layers>", node.tag_name().name()),
            ));
        };
        for l in elements(layers, "layer") {
            net.layers.push(self.layer(l, version, depth)?);
        }
        if let Some(edges) = child(node, "edges") {
            for e in elements(edges, "edge") {
                net.edges.push(IrEdge {
                    from_layer: self.int(e, "from-layer", "<edge>")?,
                    from_port: self.int(e, "from-port", "<edge>")?,
                    to_layer: self.int(e, "to-layer", "<edge>")?,
                    to_port: self.int(e, "to-port", "<edge>")?,
                    line: self.line(e),
                });
            }
        }
        Ok(net)
    }

    fn layer(&self, node: Node, version: u32, depth: usize) -> Result<IrLayer> {
        let id = self.int(node, "id", "<layer>")?;
        let required = |attr: &str| {
            node.attribute(attr).map(str::to_string).ok_or_else(|| {
                self.err(
                    node,
                    format!("<layer id=\"{id}\"> has no '{attr}' attribute"),
                )
            })
        };
        let mut layer = IrLayer {
            id,
            name: required("name")?,
            type_name: required("type")?,
            version: node.attribute("version").unwrap_or_default().to_string(),
            line: self.line(node),
            ..IrLayer::default()
        };
        let label = layer_label(&layer);
        let in_layer = |e: Error| super::with_context(e, &label);
        if let Some(data) = child(node, "data") {
            layer.data = data
                .attributes()
                .map(|a| (a.name().to_string(), a.value().to_string()))
                .collect();
        }
        if let Some(inputs) = child(node, "input") {
            for p in elements(inputs, "port") {
                layer.inputs.push(self.port(p).map_err(in_layer)?);
            }
        }
        if let Some(outputs) = child(node, "output") {
            for p in elements(outputs, "port") {
                layer.outputs.push(self.port(p).map_err(in_layer)?);
            }
        }
        for c in node.children().filter(Node::is_element) {
            let tag = c.tag_name().name();
            match tag {
                "body" | "then_body" | "else_body" => {
                    let body = self.net(c, version, depth + 1).map_err(in_layer)?;
                    layer.bodies.push((tag.to_string(), body));
                }
                "port_map" | "then_port_map" | "else_port_map" => {
                    let entries = self.port_map(c).map_err(in_layer)?;
                    layer.port_maps.push((tag.to_string(), entries));
                }
                "back_edges" => {
                    for e in elements(c, "edge") {
                        layer.back_edges.push(IrBackEdge {
                            from_layer: self.int(e, "from-layer", "back edge").map_err(in_layer)?,
                            to_layer: self.int(e, "to-layer", "back edge").map_err(in_layer)?,
                            line: self.line(e),
                        });
                    }
                }
                _ => {}
            }
        }
        Ok(layer)
    }

    fn port(&self, node: Node) -> Result<IrPort> {
        let mut port = IrPort {
            id: self.int(node, "id", "<port>")?,
            precision: node.attribute("precision").map(str::to_string),
            names: node.attribute("names").map(split_names).unwrap_or_default(),
            line: self.line(node),
            ..IrPort::default()
        };
        for d in elements(node, "dim") {
            let text = d.text().unwrap_or("").trim();
            let v: i64 = text.parse().map_err(|_| {
                self.err(
                    d,
                    format!("port {}: <dim>{text}</dim> is not an integer", port.id),
                )
            })?;
            if v < -1 {
                return Err(self.err(d, format!("port {}: <dim>{v}</dim> is below -1", port.id)));
            }
            port.dims.push(v);
        }
        Ok(port)
    }

    fn port_map(&self, node: Node) -> Result<Vec<IrPortMapEntry>> {
        let mut entries = Vec::new();
        for e in node.children().filter(Node::is_element) {
            let kind = match e.tag_name().name() {
                "input" => PortMapKind::Input,
                "output" => PortMapKind::Output,
                _ => continue,
            };
            let what = format!("<{}> port-map entry", e.tag_name().name());
            entries.push(IrPortMapEntry {
                kind,
                external_port_id: self.int(e, "external_port_id", &what)?,
                internal_layer_id: self.int(e, "internal_layer_id", &what)?,
                axis: if e.has_attribute("axis") {
                    Some(self.int(e, "axis", &what)?)
                } else {
                    None
                },
                start: self.int_or(e, "start", 0, &what)?,
                end: self.int_or(e, "end", -1, &what)?,
                stride: self.int_or(e, "stride", 1, &what)?,
                part_size: self.int_or(e, "part_size", 1, &what)?,
                purpose: e.attribute("purpose").map(str::to_string),
                line: self.line(e),
            });
        }
        Ok(entries)
    }
}

fn layer_label(layer: &IrLayer) -> String {
    format!(
        "layer {} \"{}\" ({})",
        layer.id, layer.name, layer.type_name
    )
}

fn child<'a, 'i>(node: Node<'a, 'i>, tag: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == tag)
}

fn elements<'a, 'i: 'a>(
    node: Node<'a, 'i>,
    tag: &'a str,
) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == tag)
}

/// Splits a `names` attribute on commas not escaped by a backslash (`a\,b` is one name).
pub(crate) fn split_names(s: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(',') => cur.push(','),
                Some(other) => {
                    cur.push('\\');
                    cur.push(other);
                }
                None => cur.push('\\'),
            },
            ',' => names.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    names.push(cur);
    names
        .into_iter()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_escaped_commas() {
        assert_eq!(split_names("a,b\\,c, d"), vec!["a", "b,c", "d"]);
        assert_eq!(split_names(""), Vec::<String>::new());
    }

    #[test]
    fn line_numbers_count_newlines_before_the_offset() {
        let lines = LineIndex::new("a\nbc\n\nd").unwrap();
        let got: Vec<u32> = [0, 1, 2, 4, 5, 6, 7].map(|o| lines.line(o)).to_vec();
        assert_eq!(got, vec![1, 1, 2, 2, 3, 4, 4]);
    }

    #[test]
    fn rejects_dtd_and_bad_root() {
        let dtd = b"<?xml version=\"1.0\"?><!DOCTYPE net [<!ENTITY a \"x\">]><net version=\"11\"/>";
        assert!(parse_ir(dtd).is_err());
        let e = parse_ir(b"<foo/>").unwrap_err().to_string();
        assert!(e.contains("<net>"), "{e}");
    }
}
