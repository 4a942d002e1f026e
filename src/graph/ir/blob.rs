//! Const blobs: `<data element_type shape offset size/>` read out of the `.bin` with bounds checks.

use super::IrLayer;
use crate::error::Result;
use crate::graph::tensor::{checked_numel, ElementType, Tensor};
use crate::graph::weights::Weights;

/// Reads the value of a `Const` layer from the weights (only the bytes it needs).
///
/// `element_type` and `shape` come from `<data>` (IR v10 files written by old tools may omit
/// them; then the output port's precision and dims are used). Checks that `offset + size` lies
/// inside the weights and that `size` covers `numel · element size`.
pub fn read_const_blob(layer: &IrLayer, weights: &Weights) -> Result<Tensor> {
    let port = layer.outputs.first();
    let element_type = if layer.attr("element_type").is_some() {
        layer.attr_element_type("element_type")?
    } else {
        let precision = port.and_then(|p| p.precision.as_deref()).ok_or_else(|| {
            layer.err("missing attribute 'element_type' in <data> (and no output precision)")
        })?;
        ElementType::from_precision(precision).ok_or_else(|| {
            layer.err(format!(
                "output precision \"{precision}\" is not a supported element type"
            ))
        })?
    };
    let shape = if layer.attr("shape").is_some() {
        layer.attr_static_shape("shape")?
    } else {
        let dims = port
            .map(|p| p.dims.clone())
            .ok_or_else(|| layer.err("missing attribute 'shape' in <data> (and no output port)"))?;
        dims.iter()
            .map(|&d| {
                usize::try_from(d).map_err(|_| layer.err("a Const output cannot have dynamic dims"))
            })
            .collect::<Result<Vec<usize>>>()?
    };
    let offset = layer.attr_i64("offset")?;
    let size = layer.attr_i64("size")?;
    if offset < 0 || size < 0 {
        return Err(layer.err(format!("offset={offset} size={size}: negative values")));
    }
    let (offset, size) = (offset as u64, size as u64);
    if offset.checked_add(size).is_none_or(|e| e > weights.len()) {
        return Err(layer.err(format!(
            "offset={offset} size={size} reaches beyond the end of the .bin ({} bytes)",
            weights.len()
        )));
    }
    let numel = checked_numel(&shape).map_err(|e| layer.err(e))?;
    let need = (numel as u64).checked_mul(element_type.size_bytes() as u64);
    if need.is_none_or(|n| n > size) {
        return Err(layer.err(format!(
            "size={size} bytes is too small for {element_type} of shape {shape:?} ({} bytes)",
            need.map_or_else(|| "overflow".to_string(), |n| n.to_string())
        )));
    }
    let bytes = weights
        .read(offset, need.unwrap_or(0))
        .map_err(|e| layer.err(e))?;
    Tensor::from_le_bytes(element_type, &shape, &bytes).map_err(|e| layer.err(e))
}
