//! The one gate every `extern "C"` function goes through: panics are caught, errors become a
//! `dnnl_status_t`, the failure text is kept per thread (`oxidnn_get_last_error_message`) and
//! printed when verbose mode is on.

use super::types::dnnl_status_t;
use crate::error::{Error, Result, Status};
use std::cell::RefCell;
use std::ffi::CString;
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Records the last failure of this thread.
pub(crate) fn set_last_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Pointer to this thread's last failure text (valid until the next failure on this thread).
pub(crate) fn last_error_ptr() -> *const libc::c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

fn report(func: &str, err: &Error) {
    let msg = format!("{func}: {err}");
    super::verbose::log_failure(func, err);
    set_last_error(&msg);
}

/// Runs the body of a status-returning C function.
pub(crate) fn status(func: &str, body: impl FnOnce() -> Result<()>) -> dnnl_status_t {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => Status::Success as dnnl_status_t,
        Ok(Err(e)) => {
            report(func, &e);
            e.status() as dnnl_status_t
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            report(
                func,
                &Error::Runtime(format!("internal error (panic): {what}")),
            );
            Status::RuntimeError as dnnl_status_t
        }
    }
}

/// Runs the body of a C function that returns a value instead of a status; `fallback` is
/// returned on error or panic (the error text is still recorded).
pub(crate) fn value<T>(func: &str, fallback: T, body: impl FnOnce() -> Result<T>) -> T {
    let mut out = None;
    status(func, || {
        out = Some(body()?);
        Ok(())
    });
    out.unwrap_or(fallback)
}

/// Writes an output parameter, or fails with `invalid_arguments` when it is NULL.
///
/// # Safety
/// `p` is NULL or valid for a write of `T`.
pub(crate) unsafe fn write_out<T>(p: *mut T, name: &str, v: T) -> Result<()> {
    if p.is_null() {
        return Err(Error::InvalidArguments(format!("{name} is NULL")));
    }
    p.write(v);
    Ok(())
}

/// Checks that an output pointer is non-NULL before any work is done.
pub(crate) fn check_out<T>(p: *mut T, name: &str) -> Result<()> {
    if p.is_null() {
        return Err(Error::InvalidArguments(format!("{name} is NULL")));
    }
    Ok(())
}

/// A slice from a pointer and a length the caller passes; NULL with a non-zero length →
/// `invalid_arguments`.
///
/// # Safety
/// `p` is NULL or valid for reading `len` values of `T`.
pub(crate) unsafe fn slice<'a, T>(p: *const T, len: usize, name: &str) -> Result<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::InvalidArguments(format!("{name} is NULL")));
    }
    Ok(std::slice::from_raw_parts(p, len))
}

/// The single `index` oneDNN's `_v2` functions accept for memories with one buffer.
pub(crate) fn check_handle_index(index: libc::c_int) -> Result<()> {
    if index != 0 {
        return Err(Error::InvalidArguments(format!(
            "handle index {index} out of range (the memory has one buffer)"
        )));
    }
    Ok(())
}

/// Writes a query result of type `T` through the untyped `result` pointer of a query function.
///
/// # Safety
/// `result` is valid for a write of `T` (the caller checked it is not NULL).
pub(crate) unsafe fn put<T>(result: *mut libc::c_void, v: T) -> Result<()> {
    result.cast::<T>().write(v);
    Ok(())
}
