//! `dnnl_reorder_primitive_desc_create`: layout (and packing) conversion between two memory
//! descriptors with the same dims.

use super::boundary::{check_out, status};
use super::handle::{as_rust, as_rust_opt, write_handle};
use super::objects::CPrimitiveDesc;
use super::types::*;
use crate::attr::Attr;
use crate::primitive::PrimitiveDesc;

/// Creates a reorder primitive descriptor from `src_desc` on `src_engine` to `dst_desc` on
/// `dst_engine`. `attr` may be NULL (defaults); its RNN quantization parameters apply to
/// int8 reorders.
///
/// # Safety
/// `reorder_primitive_desc` is NULL or writable; the other handles are NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_reorder_primitive_desc_create(
    reorder_primitive_desc: *mut dnnl_primitive_desc_t,
    src_desc: const_dnnl_memory_desc_t,
    src_engine: dnnl_engine_t,
    dst_desc: const_dnnl_memory_desc_t,
    dst_engine: dnnl_engine_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_reorder_primitive_desc_create", || {
        check_out(reorder_primitive_desc, "reorder_primitive_desc")?;
        let (src, dst) = (as_rust(src_desc)?, as_rust(dst_desc)?);
        let engine = *as_rust(src_engine)?;
        as_rust(dst_engine)?;
        let attr = as_rust_opt(attr).cloned().unwrap_or_else(Attr::new);
        let pd = PrimitiveDesc::reorder(src, dst, engine, &attr)?;
        let c = CPrimitiveDesc::new(pd, src_engine).with_dst_engine(dst_engine);
        write_handle::<dnnl_primitive_desc>(reorder_primitive_desc, "reorder_primitive_desc", c)
    })
}
