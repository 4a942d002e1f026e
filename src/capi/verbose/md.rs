//! A memory descriptor in oneDNN's verbose spelling:
//! `<name>:<data type>:<properties>:<format kind>:<tag>:<strides>:<extra flags>`, e.g.
//! `src_layer:f32::blocked:abc::f0` or `wei_layer:f32:a:blocked:abcde:192x192x32x6x1:f0`.
//!
//! Properties: `a` when the user asked for `any`, `p` when the layout holds padding (our packed
//! weights), `0` when the view starts at an offset (a sub-memory), as oneDNN marks them. The
//! tag is the dimensions' letters from the largest stride to the smallest; the strides appear
//! only when the layout is not dense. Our packed layouts are `opaque` with no tag.

use crate::memory::{Layout, MemoryDesc};
use crate::types::CEnum;

/// The letters of a strided layout, outermost first (equal strides keep dimension order).
fn tag(strides: &[i64]) -> String {
    let mut order: Vec<usize> = (0..strides.len()).collect();
    order.sort_by(|&a, &b| strides[b].cmp(&strides[a]));
    order
        .into_iter()
        .map(|d| char::from(b'a' + d as u8))
        .collect()
}

/// `name:…` for `md`; `from_any` when the user's descriptor was `any`.
pub fn md_str(name: &str, md: &MemoryDesc, from_any: bool) -> String {
    let dense_bytes = md.nelems() * md.data_type().size();
    let mut props = String::new();
    if from_any {
        props.push('a');
    }
    let (kind, tag, strides) = match md.layout() {
        Layout::Undef => ("undef", String::new(), String::new()),
        Layout::Any => ("any", "any".into(), String::new()),
        Layout::HostScalar => ("host_scalar", String::new(), String::new()),
        Layout::Packed(_) | Layout::PackedTransposed(_) => {
            if md.size_bytes() > dense_bytes {
                props.push('p');
            }
            ("opaque", String::new(), String::new())
        }
        Layout::Strided { strides, offset0 } => {
            if *offset0 != 0 {
                props.push('0');
            }
            let s = &strides[..md.ndims()];
            let shown = if md.size_bytes() == dense_bytes {
                String::new()
            } else {
                join(s)
            };
            ("blocked", tag(s), shown)
        }
    };
    format!(
        "{name}:{}:{props}:{kind}:{tag}:{strides}:f0",
        md.data_type().name()
    )
}

/// `5x2x4`: dims (or strides) joined by `x`, as in oneDNN's lines.
pub fn join(v: &[i64]) -> String {
    v.iter().map(i64::to_string).collect::<Vec<_>>().join("x")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DataType;

    fn with_tag(dims: &[i64], tag: i32) -> MemoryDesc {
        MemoryDesc::with_tag(dims, DataType::F32, tag).unwrap()
    }

    /// Spellings seen in oneDNN 3.13's lines for the same descriptors.
    #[test]
    fn spellings_match_onednn() {
        assert_eq!(
            md_str("src_layer", &with_tag(&[5, 3, 5], 4), false),
            "src_layer:f32::blocked:abc::f0"
        );
        // ntc = bac
        assert_eq!(
            md_str("dst_layer", &with_tag(&[7, 2, 3], 16), false),
            "dst_layer:f32::blocked:bac::f0"
        );
        assert_eq!(
            md_str("wei_layer", &with_tag(&[1, 1, 8, 4, 8], 6), true),
            "wei_layer:f32:a:blocked:abcde::f0"
        );
        let padded =
            MemoryDesc::with_strides(&[2, 1, 6, 4, 6], DataType::F32, Some(&[192, 192, 32, 6, 1]))
                .unwrap();
        assert_eq!(
            md_str("wei_layer", &padded, false),
            "wei_layer:f32::blocked:abcde:192x192x32x6x1:f0"
        );
        let sub = with_tag(&[6, 2, 4], 4)
            .submemory(&[3, 2, 4], &[1, 0, 0])
            .unwrap();
        assert_eq!(md_str("src", &sub, false), "src:f32:0:blocked:abc::f0");
        let any = MemoryDesc::with_tag(&[1, 1, 4, 4, 8], DataType::F32, 1).unwrap();
        assert_eq!(md_str("wei_iter", &any, true), "wei_iter:f32:a:any:any::f0");
        let packed = MemoryDesc::packed(&[1, 1, 5, 4, 4], DataType::F32, 2).unwrap();
        assert!(md_str("wei_layer", &packed, true).starts_with("wei_layer:f32:a"));
        assert!(md_str("wei_layer", &packed, true).ends_with(":opaque:::f0"));
    }
}
