//! oneDNN's primitive cache: its capacity (recorded and reported; this library keeps no
//! cache of primitives, creating one is cheap) and the cache-blob functions, which oneDNN's CPU
//! engines answer with `dnnl_unimplemented`, as here.

use super::boundary::{check_out, status, write_out};
use super::handle::as_rust;
use super::types::*;
use crate::error::Error;
use libc::c_int;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// oneDNN's default capacity (`ONEDNN_PRIMITIVE_CACHE_CAPACITY` unset).
const DEFAULT_CAPACITY: i32 = 1024;

/// The capacity: `ONEDNN_PRIMITIVE_CACHE_CAPACITY` read as oneDNN reads it
/// ([`crate::environment::onednn_int`]: even a negative value is reported back) when first
/// used, unless set before.
fn capacity_cell() -> &'static AtomicI32 {
    static CAPACITY: OnceLock<AtomicI32> = OnceLock::new();
    CAPACITY.get_or_init(|| {
        let env = crate::environment::onednn_int("PRIMITIVE_CACHE_CAPACITY");
        AtomicI32::new(env.unwrap_or(DEFAULT_CAPACITY))
    })
}

/// Sets the primitive cache capacity (0 or more; negative → `dnnl_invalid_arguments`).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_set_primitive_cache_capacity(capacity: c_int) -> dnnl_status_t {
    status("dnnl_set_primitive_cache_capacity", || {
        if capacity < 0 {
            crate::invalid!("capacity is negative ({capacity})");
        }
        capacity_cell().store(capacity, Ordering::Relaxed);
        Ok(())
    })
}

/// The primitive cache capacity (1024 unless set, or set by the environment).
///
/// # Safety
/// `capacity` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_get_primitive_cache_capacity(capacity: *mut c_int) -> dnnl_status_t {
    status("dnnl_get_primitive_cache_capacity", || {
        write_out(
            capacity,
            "capacity",
            capacity_cell().load(Ordering::Relaxed),
        )
    })
}

fn no_cache_blob() -> crate::error::Result<()> {
    Err(Error::Unimplemented(
        "cache blobs are not supported on the CPU engine".into(),
    ))
}

/// Creates a primitive from a cache blob: NULL arguments → `dnnl_invalid_arguments`, else
/// `dnnl_unimplemented` (oneDNN's CPU engines have no cache blobs).
///
/// # Safety
/// `primitive` is NULL or writable; `primitive_desc` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_create_from_cache_blob(
    primitive: *mut dnnl_primitive_t,
    primitive_desc: const_dnnl_primitive_desc_t,
    size: usize,
    cache_blob: *const u8,
) -> dnnl_status_t {
    status("dnnl_primitive_create_from_cache_blob", || {
        check_out(primitive, "primitive")?;
        as_rust(primitive_desc)?;
        if size == 0 || cache_blob.is_null() {
            crate::invalid!("the cache blob is empty or NULL");
        }
        no_cache_blob()
    })
}

/// A primitive's cache blob: NULL arguments → `dnnl_invalid_arguments`, else
/// `dnnl_unimplemented` (oneDNN's CPU engines have no cache blobs).
///
/// # Safety
/// `primitive` is NULL or live; `size` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_get_cache_blob(
    primitive: const_dnnl_primitive_t,
    size: *mut usize,
    cache_blob: *mut u8,
) -> dnnl_status_t {
    status("dnnl_primitive_get_cache_blob", || {
        as_rust(primitive)?;
        check_out(size, "size")?;
        let _ = cache_blob;
        no_cache_blob()
    })
}
