//! `dnnl_memory_desc_*`: creating, comparing and querying memory descriptors.
//!
//! Query results that are arrays (`dims`, `strides`, ...) are `const dnnl_dims_t *` pointers
//! into the descriptor, as in oneDNN: they live as long as the descriptor.

// oneDNN's constants are lower-case; matching on them is the point of this module.
#![allow(non_upper_case_globals)]

use super::boundary::{check_handle_index, check_out, put, slice, status, value};
use super::handle::{as_rust, as_rust_opt, destroy, write_handle};
use super::types::*;
use crate::ensure_args;
use crate::error::{Error, Result};
use crate::memory::MemoryDesc;
use crate::types::{CEnum, DataType};
use libc::{c_int, c_void};

/// What `padded_offsets`, `inner_blks` and `inner_idxs` point to: no padding and no inner
/// blocks exist in our layouts.
static ZERO_DIMS: dnnl_dims_t = [0; DNNL_MAX_NDIMS];

/// `ndims` as passed from C: 0..=12.
fn parse_ndims(n: c_int) -> Result<usize> {
    usize::try_from(n)
        .ok()
        .filter(|&n| n <= DNNL_MAX_NDIMS)
        .ok_or_else(|| Error::InvalidArguments(format!("ndims {n} is not in 0..={DNNL_MAX_NDIMS}")))
}

/// A data type value: ours, or `unimplemented` for oneDNN's types we do not model.
fn parse_data_type(v: dnnl_data_type_t) -> Result<DataType> {
    match v {
        dnnl_f64 | dnnl_boolean => {
            Err(Error::Unimplemented(format!("data type {v} (f64/boolean)")))
        }
        _ => DataType::parse(v),
    }
}

/// Answers a memory descriptor query. `v2` enables the queries only `_query_v2` knows.
///
/// # Safety
/// `result` is valid for a write of the type the query returns.
unsafe fn query(md: &MemoryDesc, what: dnnl_query_t, result: *mut c_void, v2: bool) -> Result<()> {
    let not_blocked = || {
        Error::InvalidArguments(format!(
            "query {what} needs a blocked memory descriptor (format kind {})",
            md.format_kind().raw()
        ))
    };
    match what {
        dnnl_query_ndims_s32 => put(result, md.ndims() as c_int),
        dnnl_query_dims => put::<*const dnnl_dims_t>(result, md.dims_array()),
        dnnl_query_data_type => put(result, md.data_type().raw()),
        dnnl_query_submemory_offset_s64 => put::<dnnl_dim_t>(result, md.offset0()),
        dnnl_query_padded_dims => put::<*const dnnl_dims_t>(result, md.dims_array()),
        dnnl_query_padded_offsets => put::<*const dnnl_dims_t>(result, &ZERO_DIMS),
        dnnl_query_format_kind => put(result, md.format_kind().raw()),
        dnnl_query_strides => {
            put::<*const dnnl_dims_t>(result, md.strides_array().ok_or_else(not_blocked)?)
        }
        dnnl_query_inner_nblks_s32 => {
            md.strides_array().ok_or_else(not_blocked)?;
            put::<c_int>(result, 0)
        }
        dnnl_query_inner_blks | dnnl_query_inner_idxs => {
            md.strides_array().ok_or_else(not_blocked)?;
            put::<*const dnnl_dims_t>(result, &ZERO_DIMS)
        }
        dnnl_query_num_handles_s32 if v2 => put::<c_int>(result, 1),
        _ => Err(Error::Unimplemented(format!(
            "memory descriptor query {what}"
        ))),
    }
}

/// Creates a descriptor from dims, data type and format tag. `ndims` 0 or the tag
/// `dnnl_format_tag_undef` give the zero descriptor (`dims` may then be NULL).
///
/// # Safety
/// `memory_desc` is NULL or writable; `dims` is NULL or holds `ndims` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_tag(
    memory_desc: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    tag: dnnl_format_tag_t,
) -> dnnl_status_t {
    status("dnnl_memory_desc_create_with_tag", || {
        check_out(memory_desc, "memory_desc")?;
        let n = parse_ndims(ndims)?;
        let md = if n == 0 {
            MemoryDesc::zero()
        } else {
            let dims = slice(dims, n, "dims")?;
            MemoryDesc::with_tag(dims, parse_data_type(data_type)?, tag)?
        };
        write_handle::<dnnl_memory_desc>(memory_desc, "memory_desc", md)
    })
}

/// Creates the descriptor of a scalar held on the host (oneDNN 3.13): format kind
/// `dnnl_format_kind_host_scalar`, dims `[1]`, size one element. Memory for it is made with
/// `dnnl_memory_create_host_scalar`; RNN primitives refuse it (`dnnl_invalid_arguments`).
///
/// # Safety
/// `memory_desc` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_host_scalar(
    memory_desc: *mut dnnl_memory_desc_t,
    data_type: dnnl_data_type_t,
) -> dnnl_status_t {
    status("dnnl_memory_desc_create_host_scalar", || {
        check_out(memory_desc, "memory_desc")?;
        let md = MemoryDesc::host_scalar(parse_data_type(data_type)?)?;
        write_handle::<dnnl_memory_desc>(memory_desc, "memory_desc", md)
    })
}

/// Creates a plain descriptor with explicit strides (NULL strides: dense row-major).
///
/// # Safety
/// `memory_desc` is NULL or writable; `dims` and `strides` are NULL or hold `ndims` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_strides(
    memory_desc: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    strides: *const dnnl_dim_t,
) -> dnnl_status_t {
    status("dnnl_memory_desc_create_with_strides", || {
        check_out(memory_desc, "memory_desc")?;
        let n = parse_ndims(ndims)?;
        let md = if n == 0 {
            MemoryDesc::zero()
        } else {
            let dims = slice(dims, n, "dims")?;
            let strides = (!strides.is_null())
                .then(|| slice(strides, n, "strides"))
                .transpose()?;
            MemoryDesc::with_strides(dims, parse_data_type(data_type)?, strides)?
        };
        write_handle::<dnnl_memory_desc>(memory_desc, "memory_desc", md)
    })
}

/// Creates a view of part of a plain tensor: `dims` elements starting at `offsets`.
///
/// # Safety
/// `memory_desc` is NULL or writable; `parent_memory_desc` is NULL or live; `dims` and
/// `offsets` are NULL or hold the parent's `ndims` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_submemory(
    memory_desc: *mut dnnl_memory_desc_t,
    parent_memory_desc: const_dnnl_memory_desc_t,
    dims: *const dnnl_dim_t,
    offsets: *const dnnl_dim_t,
) -> dnnl_status_t {
    status("dnnl_memory_desc_create_submemory", || {
        check_out(memory_desc, "memory_desc")?;
        let parent = as_rust(parent_memory_desc)?;
        let n = parent.ndims();
        let (dims, offsets) = (slice(dims, n, "dims")?, slice(offsets, n, "offsets")?);
        let md = parent.submemory(dims, offsets)?;
        write_handle::<dnnl_memory_desc>(memory_desc, "memory_desc", md)
    })
}

/// The same tensor with axis `i` renamed to `permutation[i]`.
///
/// # Safety
/// `out_memory_desc` is NULL or writable; `in_memory_desc` is NULL or live; `permutation` is
/// NULL or holds `ndims` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_permute_axes(
    out_memory_desc: *mut dnnl_memory_desc_t,
    in_memory_desc: const_dnnl_memory_desc_t,
    permutation: *const c_int,
) -> dnnl_status_t {
    status("dnnl_memory_desc_permute_axes", || {
        check_out(out_memory_desc, "out_memory_desc")?;
        let md = as_rust(in_memory_desc)?;
        if permutation.is_null() {
            return Err(Error::InvalidArguments("permutation is NULL".into()));
        }
        let md = md.permute_axes(slice(permutation, md.ndims(), "permutation")?)?;
        write_handle::<dnnl_memory_desc>(out_memory_desc, "out_memory_desc", md)
    })
}

/// The same tensor with other dims (same number of elements): dims are merged or split only
/// where the data is contiguous; otherwise, or for ndims outside 1..=12, →
/// `dnnl_invalid_arguments`.
///
/// # Safety
/// `out_memory_desc` is NULL or writable; `in_memory_desc` is NULL or live; `dims` is NULL or
/// holds `ndims` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_reshape(
    out_memory_desc: *mut dnnl_memory_desc_t,
    in_memory_desc: const_dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
) -> dnnl_status_t {
    status("dnnl_memory_desc_reshape", || {
        check_out(out_memory_desc, "out_memory_desc")?;
        let md = as_rust(in_memory_desc)?;
        let n = parse_ndims(ndims)?;
        ensure_args!(n > 0, "ndims is 0");
        let md = md.reshape(slice(dims, n, "dims")?)?;
        write_handle::<dnnl_memory_desc>(out_memory_desc, "out_memory_desc", md)
    })
}

/// Copies a descriptor.
///
/// # Safety
/// `memory_desc` is NULL or writable; `existing_memory_desc` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_clone(
    memory_desc: *mut dnnl_memory_desc_t,
    existing_memory_desc: const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    status("dnnl_memory_desc_clone", || {
        check_out(memory_desc, "memory_desc")?;
        let md = as_rust(existing_memory_desc)?.clone();
        write_handle::<dnnl_memory_desc>(memory_desc, "memory_desc", md)
    })
}

/// Destroys a descriptor (NULL: no-op).
///
/// # Safety
/// `memory_desc` is NULL or a descriptor created by this library and not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_destroy(
    memory_desc: dnnl_memory_desc_t,
) -> dnnl_status_t {
    status("dnnl_memory_desc_destroy", || {
        destroy(memory_desc);
        Ok(())
    })
}

/// Queries a descriptor: `ndims_s32`, `dims`, `data_type`, `submemory_offset_s64`,
/// `padded_dims`, `padded_offsets`, `format_kind`, and for blocked (plain) descriptors
/// `strides`, `inner_nblks_s32`, `inner_blks`, `inner_idxs`. Array results are
/// `const dnnl_dims_t *` pointers into the descriptor.
///
/// # Safety
/// `memory_desc` is NULL or live; `result` is NULL or valid for a write of the result type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_query(
    memory_desc: const_dnnl_memory_desc_t,
    what: dnnl_query_t,
    result: *mut c_void,
) -> dnnl_status_t {
    status("dnnl_memory_desc_query", || {
        let md = as_rust(memory_desc)?;
        check_out(result, "result")?;
        query(md, what, result, false)
    })
}

/// [`dnnl_memory_desc_query`] for buffer `index` (always 0 here), plus `num_handles_s32`.
///
/// # Safety
/// As [`dnnl_memory_desc_query`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_query_v2(
    memory_desc: const_dnnl_memory_desc_t,
    what: dnnl_query_t,
    index: c_int,
    result: *mut c_void,
) -> dnnl_status_t {
    status("dnnl_memory_desc_query_v2", || {
        let md = as_rust(memory_desc)?;
        check_out(result, "result")?;
        check_handle_index(index)?;
        query(md, what, result, true)
    })
}

/// 1 when both descriptors describe the same tensor layout (or both are NULL), else 0.
///
/// # Safety
/// Each argument is NULL or a live descriptor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_equal(
    lhs: const_dnnl_memory_desc_t,
    rhs: const_dnnl_memory_desc_t,
) -> c_int {
    value("dnnl_memory_desc_equal", 0, || {
        Ok(c_int::from(as_rust_opt(lhs) == as_rust_opt(rhs)))
    })
}

/// Bytes a buffer for the descriptor needs (0 for NULL, zero and `any` descriptors).
///
/// # Safety
/// `memory_desc` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_get_size(memory_desc: const_dnnl_memory_desc_t) -> usize {
    value("dnnl_memory_desc_get_size", 0, || {
        Ok(as_rust_opt(memory_desc).map_or(0, MemoryDesc::size_bytes))
    })
}

/// Bytes of buffer `index` (0 for any index but 0).
///
/// # Safety
/// `memory_desc` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_get_size_v2(
    memory_desc: const_dnnl_memory_desc_t,
    index: c_int,
) -> usize {
    value("dnnl_memory_desc_get_size_v2", 0, || {
        Ok(as_rust_opt(memory_desc)
            .filter(|_| index == 0)
            .map_or(0, MemoryDesc::size_bytes))
    })
}
