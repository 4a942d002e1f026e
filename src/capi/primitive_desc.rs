//! `dnnl_primitive_desc_*`: queries, attributes, cloning and destruction of primitive
//! descriptors (created by `rnn.rs` and `reorder.rs`).
//!
//! The answers follow oneDNN 3.13 (checked against the real library): memory-descriptor
//! queries of the `src`/`weights`/`dst` families answer any index, with the zero descriptor
//! for tensors the primitive does not have; `workspace_md`/`scratchpad_md` answer index 0 only;
//! `exec_arg_md` answers any argument. Queries a primitive kind does not have give
//! `dnnl_unimplemented`. Returned pointers are owned by the primitive descriptor.

// oneDNN's constants are lower-case; matching on them is the point of this module.
#![allow(non_upper_case_globals)]

use super::boundary::{check_out, put, status, value, write_out};
use super::handle::{as_rust, as_rust_mut, borrowed, destroy, write_handle};
use super::objects::CPrimitiveDesc;
use super::types::*;
use crate::error::{Error, Result};
use crate::memory::MemoryDesc;
use crate::primitive::{MdQuery, PrimitiveDesc};
use crate::types::CEnum;
use libc::{c_char, c_int, c_void};

/// The generic md query family of a query value, if it is one.
fn md_query(what: dnnl_query_t) -> Option<MdQuery> {
    Some(match what {
        dnnl_query_src_md => MdQuery::Src,
        dnnl_query_diff_src_md => MdQuery::DiffSrc,
        dnnl_query_weights_md => MdQuery::Weights,
        dnnl_query_diff_weights_md => MdQuery::DiffWeights,
        dnnl_query_dst_md => MdQuery::Dst,
        dnnl_query_diff_dst_md => MdQuery::DiffDst,
        dnnl_query_workspace_md => MdQuery::Workspace,
        dnnl_query_scratchpad_md => MdQuery::Scratchpad,
        _ => return None,
    })
}

/// The descriptor a memory-descriptor query asks for (`index` is the argument for
/// `exec_arg_md`).
fn md_for_query(cpd: &CPrimitiveDesc, what: dnnl_query_t, index: c_int) -> Result<&MemoryDesc> {
    let pd = &cpd.pd;
    let arg = if what == dnnl_query_exec_arg_md {
        Some(index)
    } else {
        let q = md_query(what).ok_or_else(|| {
            Error::Unimplemented(format!("query {what} is not a memory descriptor query"))
        })?;
        if matches!(q, MdQuery::Workspace | MdQuery::Scratchpad) && index != 0 {
            return Err(Error::InvalidArguments(format!(
                "query {what}: index {index} is not 0"
            )));
        }
        usize::try_from(index)
            .ok()
            .and_then(|i| pd.arg_for_query(q, i))
    };
    Ok(arg.and_then(|a| pd.arg_md(a)).unwrap_or(&cpd.zero_md))
}

/// The RNN operation of a pd, or `unimplemented` naming the query.
fn rnn_desc(pd: &PrimitiveDesc, what: dnnl_query_t) -> Result<&crate::rnn::RnnDesc> {
    match pd {
        PrimitiveDesc::Rnn(p) => Ok(p.desc()),
        _ => Err(Error::Unimplemented(format!(
            "query {what} is not defined for a reorder"
        ))),
    }
}

/// Answers `dnnl_primitive_desc_query`.
///
/// # Safety
/// `result` is valid for a write of the type the query returns.
unsafe fn query(
    cpd: &CPrimitiveDesc,
    what: dnnl_query_t,
    index: c_int,
    result: *mut c_void,
) -> Result<()> {
    let pd = &cpd.pd;
    match what {
        dnnl_query_engine => put(result, cpd.engine),
        dnnl_query_primitive_kind => put(result, pd.kind().raw()),
        dnnl_query_num_of_inputs_s32 => put(result, pd.num_inputs() as c_int),
        dnnl_query_num_of_outputs_s32 => put(result, pd.num_outputs() as c_int),
        dnnl_query_memory_consumption_s64 => put(result, pd.memory_consumption() as dnnl_dim_t),
        dnnl_query_impl_info_str => put::<*const c_char>(result, cpd.impl_info.as_ptr()),
        dnnl_query_reorder_src_engine | dnnl_query_reorder_dst_engine => match pd {
            PrimitiveDesc::Reorder(_) if what == dnnl_query_reorder_src_engine => {
                put(result, cpd.engine)
            }
            PrimitiveDesc::Reorder(_) => put(result, cpd.dst_engine),
            _ => Err(Error::Unimplemented(format!(
                "query {what} is defined for reorders only"
            ))),
        },
        dnnl_query_prop_kind => {
            let prop = pd
                .prop_kind()
                .ok_or_else(|| Error::Unimplemented("a reorder has no propagation kind".into()))?;
            put(result, prop.raw())
        }
        // No cache blob id: the primitive cache is not exposed.
        dnnl_query_cache_blob_id_size_s64 => put::<dnnl_dim_t>(result, 0),
        dnnl_query_cache_blob_id => put::<*const u8>(result, std::ptr::null()),
        dnnl_query_cell_kind => put(result, rnn_desc(pd, what)?.cell.raw()),
        dnnl_query_direction => put(result, rnn_desc(pd, what)?.direction.raw()),
        dnnl_query_activation_kind => put(result, rnn_desc(pd, what)?.activation.raw()),
        dnnl_query_alpha_f32 => put(result, rnn_desc(pd, what)?.alpha),
        _ if what == dnnl_query_exec_arg_md || md_query(what).is_some() => {
            put::<const_dnnl_memory_desc_t>(result, borrowed(md_for_query(cpd, what, index)?))
        }
        // beta_f32, flags, alg_kind, time_estimate_f64, scratchpad_engine, ...: oneDNN's RNN
        // and reorder descriptors do not answer them either.
        _ => Err(Error::Unimplemented(format!(
            "primitive descriptor query {what}"
        ))),
    }
}

/// Queries a primitive descriptor. `result` points to the type the query returns: an engine
/// handle, an `int`/enum, an `int64_t`, a `float`, a `const char *` (`impl_info_str`) or a
/// `const_dnnl_memory_desc_t` (memory-descriptor queries; `index` is the argument for
/// `dnnl_query_exec_arg_md`). Unknown queries give `dnnl_unimplemented`.
///
/// # Safety
/// `primitive_desc` is NULL or live; `result` is NULL or valid for a write of the result type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_query(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
    result: *mut c_void,
) -> dnnl_status_t {
    status("dnnl_primitive_desc_query", || {
        let cpd = as_rust(primitive_desc)?;
        check_out(result, "result")?;
        query(cpd, what, index, result)
    })
}

/// A memory descriptor of a primitive descriptor (owned by it): the zero descriptor for
/// tensors the primitive does not have, NULL for queries that are not memory-descriptor
/// queries or an invalid index.
///
/// # Safety
/// `primitive_desc` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_query_md(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
) -> const_dnnl_memory_desc_t {
    value("dnnl_primitive_desc_query_md", std::ptr::null(), || {
        let cpd = as_rust(primitive_desc)?;
        Ok(borrowed(md_for_query(cpd, what, index)?))
    })
}

/// An `int` query (`num_of_inputs_s32`, `num_of_outputs_s32`); 0 for any other query or on
/// error.
///
/// # Safety
/// `primitive_desc` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_query_s32(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
) -> c_int {
    value("dnnl_primitive_desc_query_s32", 0, || {
        let cpd = as_rust(primitive_desc)?;
        if !matches!(
            what,
            dnnl_query_num_of_inputs_s32 | dnnl_query_num_of_outputs_s32
        ) {
            return Err(Error::Unimplemented(format!(
                "query {what} is not an s32 query"
            )));
        }
        let mut v: c_int = 0;
        query(cpd, what, index, (&mut v as *mut c_int).cast())?;
        Ok(v)
    })
}

/// The attributes the descriptor was created with (owned by the descriptor).
///
/// # Safety
/// `primitive_desc` is NULL or live; `attr` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_get_attr(
    primitive_desc: const_dnnl_primitive_desc_t,
    attr: *mut const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_primitive_desc_get_attr", || {
        let cpd = as_rust(primitive_desc)?;
        write_out(attr, "attr", borrowed::<dnnl_primitive_attr>(cpd.pd.attr()))
    })
}

/// Copies a primitive descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; `existing_primitive_desc` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_clone(
    primitive_desc: *mut dnnl_primitive_desc_t,
    existing_primitive_desc: const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    status("dnnl_primitive_desc_clone", || {
        check_out(primitive_desc, "primitive_desc")?;
        let c = as_rust(existing_primitive_desc)?.clone();
        write_handle::<dnnl_primitive_desc>(primitive_desc, "primitive_desc", c)
    })
}

/// Moves to the next implementation: there is one per problem, so this gives
/// `dnnl_last_impl_reached` and leaves the descriptor unchanged.
///
/// # Safety
/// `primitive_desc` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_next_impl(
    primitive_desc: dnnl_primitive_desc_t,
) -> dnnl_status_t {
    status("dnnl_primitive_desc_next_impl", || {
        as_rust_mut(primitive_desc)?.pd.next_impl()
    })
}

/// Destroys a primitive descriptor (NULL: no-op).
///
/// # Safety
/// `primitive_desc` is NULL or live and not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_destroy(
    primitive_desc: dnnl_primitive_desc_t,
) -> dnnl_status_t {
    status("dnnl_primitive_desc_destroy", || {
        destroy(primitive_desc);
        Ok(())
    })
}
