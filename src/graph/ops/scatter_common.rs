//! What the scatter ops (ScatterUpdate-3, ScatterElementsUpdate-3/12, ScatterNDUpdate-3/15)
//! share: the output is `data` with some elements replaced by `updates`.

use super::{invalid, require_integer, OutputInfo, ValueInfo};
use crate::error::Result;

/// Output type and shape of a scatter op: `data`'s. Indices (and `axis`, when the op has one)
/// must be integer and `updates` of `data`'s type.
pub fn infer(
    data: &ValueInfo,
    indices: &ValueInfo,
    updates: &ValueInfo,
    axis: Option<&ValueInfo>,
) -> Result<Vec<OutputInfo>> {
    require_integer("indices", indices)?;
    if let Some(axis) = axis {
        require_integer("axis", axis)?;
    }
    if updates.element_type != data.element_type {
        return Err(invalid(format!(
            "updates are {}, data is {}",
            updates.element_type, data.element_type
        )));
    }
    Ok(vec![OutputInfo::new(data.element_type, data.shape.clone())])
}
