//! Typed access to a layer's `<data>` attributes; every error names the layer and attribute.

use super::IrLayer;
use crate::error::{Error, Result};
use crate::graph::shape::PartialShape;
use crate::graph::tensor::ElementType;

impl IrLayer {
    /// The raw value of `<data name=…>`, if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.data
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A required string attribute.
    pub fn attr_str(&self, name: &str) -> Result<&str> {
        self.attr(name)
            .ok_or_else(|| self.err(format!("missing attribute '{name}' in <data>")))
    }

    /// A required integer attribute.
    pub fn attr_i64(&self, name: &str) -> Result<i64> {
        let v = self.attr_str(name)?;
        v.trim()
            .parse()
            .map_err(|_| self.bad(name, v, "an integer"))
    }

    /// An optional integer attribute with a default.
    pub fn attr_i64_or(&self, name: &str, default: i64) -> Result<i64> {
        if self.attr(name).is_some() {
            self.attr_i64(name)
        } else {
            Ok(default)
        }
    }

    /// An optional float attribute with a default.
    pub fn attr_f32_or(&self, name: &str, default: f32) -> Result<f32> {
        match self.attr(name) {
            None => Ok(default),
            Some(v) => v.trim().parse().map_err(|_| self.bad(name, v, "a number")),
        }
    }

    /// An optional boolean attribute (`true`/`false`, `1`/`0`) with a default.
    pub fn attr_bool_or(&self, name: &str, default: bool) -> Result<bool> {
        match self.attr(name).map(str::trim) {
            None => Ok(default),
            Some("true") | Some("True") | Some("1") => Ok(true),
            Some("false") | Some("False") | Some("0") => Ok(false),
            Some(v) => Err(self.bad(name, v, "true or false")),
        }
    }

    /// An optional comma-separated list of strings (empty entries dropped).
    pub fn attr_str_list(&self, name: &str) -> Vec<String> {
        self.attr(name)
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// An optional comma-separated list of floats (empty when absent).
    pub fn attr_f32_list(&self, name: &str) -> Result<Vec<f32>> {
        self.attr_str_list(name)
            .iter()
            .map(|s| {
                s.parse()
                    .map_err(|_| self.bad(name, s, "a list of numbers"))
            })
            .collect()
    }

    /// A required element type attribute (`f32`, `i64`, …).
    pub fn attr_element_type(&self, name: &str) -> Result<ElementType> {
        let v = self.attr_str(name)?;
        ElementType::from_ir_name(v.trim()).ok_or_else(|| {
            self.err(format!(
                "attribute {name}=\"{v}\" is not a supported element type (f32, f16, i32, i64, u8, i8, boolean)"
            ))
        })
    }

    /// A required shape attribute (`2,3`, `?,3`, `-1`, `1..10`, empty for a scalar, `...`).
    pub fn attr_partial_shape(&self, name: &str) -> Result<PartialShape> {
        let v = self.attr_str(name)?;
        parse_partial_shape(v).map_err(|m| self.err(format!("attribute {name}=\"{v}\": {m}")))
    }

    /// A required static shape attribute (every dim known, ≥ 0).
    pub fn attr_static_shape(&self, name: &str) -> Result<Vec<usize>> {
        let v = self.attr_str(name)?;
        self.attr_partial_shape(name)?
            .to_static()
            .ok_or_else(|| self.err(format!("attribute {name}=\"{v}\" must be a static shape")))
    }

    fn bad(&self, name: &str, value: &str, expected: &str) -> Error {
        self.err(format!("attribute {name}=\"{value}\" is not {expected}"))
    }
}

/// Parses an IR shape string: comma-separated dims, each a number, `-1` or `?` (dynamic), or a
/// range `a..b` (treated as dynamic); an empty string is a scalar; `...` is an unknown rank.
pub fn parse_partial_shape(s: &str) -> std::result::Result<PartialShape, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(PartialShape::new(Vec::new()));
    }
    if s == "..." {
        return Ok(PartialShape::dynamic());
    }
    let s = s.trim_start_matches('[').trim_end_matches(']');
    let mut dims = Vec::new();
    for part in s.split(',') {
        let p = part.trim();
        if p == "?" || p == "-1" || p.contains("..") {
            dims.push(None);
        } else {
            let d: usize = p
                .parse()
                .map_err(|_| format!("dim '{p}' is not a dimension"))?;
            dims.push(Some(d));
        }
    }
    Ok(PartialShape::new(dims))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(parse_partial_shape("2,?,3").unwrap().to_string(), "[2,?,3]");
        assert_eq!(parse_partial_shape("").unwrap().rank(), Some(0));
        assert_eq!(parse_partial_shape("1..10,4").unwrap().to_string(), "[?,4]");
        assert_eq!(parse_partial_shape("...").unwrap().rank(), None);
        assert!(parse_partial_shape("2,x").is_err());
        assert!(parse_partial_shape("-2").is_err());
    }
}
