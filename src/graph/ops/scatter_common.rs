//! What the scatter ops (ScatterUpdate-3, ScatterElementsUpdate-3/12, ScatterNDUpdate-3/15)
//! share: the output is `data` with some elements replaced by `updates`.

use super::{invalid, OutputInfo, ValueInfo};
use crate::error::Result;

/// Output type and shape of a scatter op: `data`'s. Indices (and `axis`, when the op has one)
/// must be integer and `updates` of `data`'s type.
pub fn infer(
    data: &ValueInfo,
    indices: &ValueInfo,
    updates: &ValueInfo,
    axis: Option<&ValueInfo>,
) -> Result<Vec<OutputInfo>> {
    for (what, v) in [("indices", Some(indices)), ("axis", axis)] {
        if let Some(v) = v.filter(|v| !v.element_type.is_integer()) {
            return Err(invalid(format!(
                "{what} must be integer, got {}",
                v.element_type
            )));
        }
    }
    if updates.element_type != data.element_type {
        return Err(invalid(format!(
            "updates are {}, data is {}",
            updates.element_type, data.element_type
        )));
    }
    Ok(vec![OutputInfo::new(data.element_type, data.shape.clone())])
}
