//! `dnnl_memory_*`: memory objects (a descriptor, an engine and one data handle).
//!
//! The `_v2` variants take a buffer index; our memories have exactly one buffer, so index 0 is
//! the only valid one.

use super::boundary::{check_handle_index, check_out, slice, status, write_out};
use super::handle::{as_rust, as_rust_mut, as_rust_opt, borrowed, destroy, write_handle};
use super::objects::CMemory;
use super::types::*;
use crate::error::{Error, Result};
use crate::memory::{Handle, Memory};
use libc::{c_int, c_void};

/// `DNNL_MEMORY_ALLOCATE`: `(void *)-1`.
fn is_allocate(p: *mut c_void) -> bool {
    p as usize == usize::MAX
}

/// The core handle kind for a C handle argument.
fn handle_of(p: *mut c_void) -> Handle {
    match p {
        _ if is_allocate(p) => Handle::Allocate,
        _ if p.is_null() => Handle::None,
        _ => Handle::User(p.cast()),
    }
}

/// Creates a memory object and writes its handle.
///
/// # Safety
/// `memory` is NULL or writable; `md` and `engine` are NULL or live; a user buffer holds at
/// least `dnnl_memory_desc_get_size(md)` bytes and outlives the memory object.
unsafe fn create(
    memory: *mut dnnl_memory_t,
    md: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    handle: *mut c_void,
) -> Result<()> {
    check_out(memory, "memory")?;
    let md = as_rust(md)?;
    let e = *as_rust(engine)?;
    let m = CMemory {
        memory: Memory::new(md, e, handle_of(handle))?,
        engine,
    };
    write_handle::<dnnl_memory>(memory, "memory", m)
}

/// The memory behind a handle whose data handle is asked for or replaced: a host scalar
/// memory has none (its value is reached by `dnnl_memory_{get,set}_host_scalar_value`).
fn with_handle(m: &CMemory) -> Result<&CMemory> {
    if m.memory.desc().is_host_scalar() {
        crate::invalid!(
            "unsupported format kind: a host scalar memory has no data handle (use \
             dnnl_memory_get_host_scalar_value / dnnl_memory_set_host_scalar_value)"
        );
    }
    Ok(m)
}

/// Creates a memory object holding a copy of the scalar at `scalar_ptr` (one element of the
/// descriptor's data type). The descriptor must be a host scalar one
/// (`dnnl_memory_desc_create_host_scalar`), `scalar_ptr` not NULL; the memory has no engine
/// (`dnnl_memory_get_engine` gives NULL).
///
/// # Safety
/// `memory` is NULL or writable; `memory_desc` is NULL or live; `scalar_ptr` is NULL or
/// readable for one element.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_create_host_scalar(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    scalar_ptr: *mut c_void,
) -> dnnl_status_t {
    status("dnnl_memory_create_host_scalar", || {
        check_out(memory, "memory")?;
        let md = as_rust(memory_desc)?;
        if !md.is_host_scalar() {
            crate::invalid!("unsupported format kind: not a host scalar memory descriptor");
        }
        check_out(scalar_ptr, "scalar_ptr")?;
        let value = slice(
            scalar_ptr.cast_const().cast::<u8>(),
            md.size_bytes(),
            "scalar_ptr",
        )?;
        let m = CMemory {
            memory: Memory::host_scalar(md, value)?,
            engine: std::ptr::null_mut(),
        };
        write_handle::<dnnl_memory>(memory, "memory", m)
    })
}

/// Copies the value of a host scalar memory to `value` (one element of its data type).
///
/// # Safety
/// `memory` is NULL or live; `value` is NULL or writable for one element.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_host_scalar_value(
    memory: const_dnnl_memory_t,
    value: *mut c_void,
) -> dnnl_status_t {
    status("dnnl_memory_get_host_scalar_value", || {
        let v = as_rust(memory)?.memory.host_scalar_value()?;
        check_out(value, "value")?;
        std::ptr::copy_nonoverlapping(v.as_ptr(), value.cast::<u8>(), v.len());
        Ok(())
    })
}

/// Replaces the value of a host scalar memory with the one at `value` (copied).
///
/// # Safety
/// `memory` is NULL or live and not used by another thread meanwhile; `value` is NULL or
/// readable for one element.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_set_host_scalar_value(
    memory: dnnl_memory_t,
    value: *const c_void,
) -> dnnl_status_t {
    status("dnnl_memory_set_host_scalar_value", || {
        let m = as_rust_mut(memory)?;
        let n = m.memory.host_scalar_value()?.len();
        check_out(value.cast_mut(), "value")?;
        let v = slice(value.cast::<u8>(), n, "value")?;
        m.memory.set_host_scalar_value(v)
    })
}

/// Creates a memory object. `handle` is a user buffer, `DNNL_MEMORY_ALLOCATE` (the library
/// allocates a zeroed, 64-byte aligned buffer) or `DNNL_MEMORY_NONE` (no buffer yet). A zero
/// descriptor gives an empty memory; an `any` descriptor is `dnnl_invalid_arguments`.
///
/// # Safety
/// `memory` is NULL or writable; `memory_desc` and `engine` are NULL or live; a user buffer
/// holds at least `dnnl_memory_desc_get_size(memory_desc)` bytes and outlives the memory.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_create(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    status("dnnl_memory_create", || {
        create(memory, memory_desc, engine, handle)
    })
}

/// [`dnnl_memory_create`] with an array of handles; our memories have one buffer, so
/// `nhandles` must be at least 1 and `handles[0]` is used.
///
/// # Safety
/// As [`dnnl_memory_create`]; `handles` is NULL or holds `nhandles` pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_create_v2(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    nhandles: c_int,
    handles: *mut *mut c_void,
) -> dnnl_status_t {
    status("dnnl_memory_create_v2", || {
        if nhandles < 1 {
            return Err(Error::InvalidArguments(format!(
                "nhandles is {nhandles}, must be >= 1"
            )));
        }
        let handles = slice(handles.cast_const(), nhandles as usize, "handles")?;
        create(memory, memory_desc, engine, handles[0])
    })
}

/// The memory's descriptor (a pointer into the memory object).
///
/// # Safety
/// `memory` is NULL or live; `memory_desc` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_memory_desc(
    memory: const_dnnl_memory_t,
    memory_desc: *mut const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    status("dnnl_memory_get_memory_desc", || {
        let m = as_rust(memory)?;
        write_out(
            memory_desc,
            "memory_desc",
            borrowed::<dnnl_memory_desc>(m.memory.desc()),
        )
    })
}

/// The engine handle the memory was created with.
///
/// # Safety
/// `memory` is NULL or live; `engine` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_engine(
    memory: const_dnnl_memory_t,
    engine: *mut dnnl_engine_t,
) -> dnnl_status_t {
    status("dnnl_memory_get_engine", || {
        let m = as_rust(memory)?;
        write_out(engine, "engine", m.engine)
    })
}

/// The data handle. As in oneDNN, a NULL memory gives a NULL handle (and success).
///
/// # Safety
/// `memory` is NULL or live; `handle` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_data_handle(
    memory: const_dnnl_memory_t,
    handle: *mut *mut c_void,
) -> dnnl_status_t {
    status("dnnl_memory_get_data_handle", || {
        check_out(handle, "handle")?;
        let p = match as_rust_opt(memory) {
            Some(m) => with_handle(m)?.memory.data_ptr().cast(),
            None => std::ptr::null_mut(),
        };
        write_out(handle, "handle", p)
    })
}

/// [`dnnl_memory_get_data_handle`] for buffer `index` (must be 0).
///
/// # Safety
/// As [`dnnl_memory_get_data_handle`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_data_handle_v2(
    memory: const_dnnl_memory_t,
    handle: *mut *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    status("dnnl_memory_get_data_handle_v2", || {
        check_handle_index(index)?;
        check_out(handle, "handle")?;
        let p = match as_rust_opt(memory) {
            Some(m) => with_handle(m)?.memory.data_ptr().cast(),
            None => std::ptr::null_mut(),
        };
        write_out(handle, "handle", p)
    })
}

/// Replaces the data handle; a library-allocated buffer is released. The pointer is stored as
/// given (as in oneDNN, `DNNL_MEMORY_ALLOCATE` is not special here).
///
/// # Safety
/// `memory` is NULL or live and not used by another thread meanwhile; `handle` is NULL or a
/// buffer of at least the descriptor's size that outlives its use.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_set_data_handle(
    memory: dnnl_memory_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    status("dnnl_memory_set_data_handle", || {
        let m = as_rust_mut(memory)?;
        with_handle(m)?;
        m.memory.set_data_ptr(handle.cast());
        Ok(())
    })
}

/// [`dnnl_memory_set_data_handle`] for buffer `index` (must be 0).
///
/// # Safety
/// As [`dnnl_memory_set_data_handle`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_set_data_handle_v2(
    memory: dnnl_memory_t,
    handle: *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    status("dnnl_memory_set_data_handle_v2", || {
        check_handle_index(index)?;
        let m = as_rust_mut(memory)?;
        with_handle(m)?;
        m.memory.set_data_ptr(handle.cast());
        Ok(())
    })
}

/// Maps the data for host access: CPU memory is host memory, so this returns the handle.
///
/// # Safety
/// `memory` is NULL or live; `mapped_ptr` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_map_data(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut *mut c_void,
) -> dnnl_status_t {
    status("dnnl_memory_map_data", || {
        let m = as_rust(memory)?;
        write_out(mapped_ptr, "mapped_ptr", m.memory.data_ptr().cast())
    })
}

/// [`dnnl_memory_map_data`] for buffer `index` (must be 0).
///
/// # Safety
/// As [`dnnl_memory_map_data`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_map_data_v2(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    status("dnnl_memory_map_data_v2", || {
        check_handle_index(index)?;
        let m = as_rust(memory)?;
        write_out(mapped_ptr, "mapped_ptr", m.memory.data_ptr().cast())
    })
}

/// Ends a mapping: nothing to do for CPU memory.
///
/// # Safety
/// `memory` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_unmap_data(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut c_void,
) -> dnnl_status_t {
    let _ = mapped_ptr;
    status("dnnl_memory_unmap_data", || as_rust(memory).map(|_| ()))
}

/// [`dnnl_memory_unmap_data`] for buffer `index` (must be 0).
///
/// # Safety
/// `memory` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_unmap_data_v2(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    let _ = mapped_ptr;
    status("dnnl_memory_unmap_data_v2", || {
        check_handle_index(index)?;
        as_rust(memory).map(|_| ())
    })
}

/// Destroys a memory object (NULL: no-op); a library-allocated buffer is freed.
///
/// # Safety
/// `memory` is NULL or live and not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_destroy(memory: dnnl_memory_t) -> dnnl_status_t {
    status("dnnl_memory_destroy", || {
        destroy(memory);
        Ok(())
    })
}
