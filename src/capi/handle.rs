//! Opaque C handles and the only casts between them and Rust objects.
//!
//! Every C handle type is a zero-sized struct the header only forward-declares; [`Castable`]
//! names the Rust object behind it. Handles are created with `Box::into_raw` and destroyed with
//! `Box::from_raw`; borrowed pointers returned by queries point into the owning object.

use crate::error::{Error, Result};

/// Ties a C handle type to the Rust object it points to.
pub(crate) trait Castable {
    /// The Rust object behind the handle.
    type Rust;
    /// Handle name for error messages.
    const NAME: &'static str;
}

/// Moves a Rust object to the heap and returns its handle.
pub(crate) fn into_handle<C: Castable>(v: C::Rust) -> *mut C {
    Box::into_raw(Box::new(v)).cast()
}

/// Writes a new handle for `v` to the out-parameter `p`; when `p` is NULL nothing is allocated
/// (`v` is dropped) and the result is `invalid_arguments` naming the parameter.
///
/// # Safety
/// `p` is NULL or valid for writing a handle.
pub(crate) unsafe fn write_handle<C: Castable>(
    p: *mut *mut C,
    name: &str,
    v: C::Rust,
) -> Result<()> {
    if p.is_null() {
        return Err(Error::InvalidArguments(format!("{name} is NULL")));
    }
    p.write(into_handle::<C>(v));
    Ok(())
}

/// Borrows the object behind a handle; NULL → `invalid_arguments`.
///
/// # Safety
/// `p` is NULL or a handle created by [`into_handle`] for the same `C` and not yet destroyed.
pub(crate) unsafe fn as_rust<'a, C: Castable>(p: *const C) -> Result<&'a C::Rust> {
    p.cast::<C::Rust>()
        .as_ref()
        .ok_or_else(|| Error::InvalidArguments(format!("{} is NULL", C::NAME)))
}

/// Borrows the object behind a handle that may be NULL (optional arguments).
///
/// # Safety
/// As [`as_rust`].
pub(crate) unsafe fn as_rust_opt<'a, C: Castable>(p: *const C) -> Option<&'a C::Rust> {
    p.cast::<C::Rust>().as_ref()
}

/// Mutably borrows the object behind a handle; NULL → `invalid_arguments`.
///
/// # Safety
/// As [`as_rust`], and no other reference to the object is alive.
pub(crate) unsafe fn as_rust_mut<'a, C: Castable>(p: *mut C) -> Result<&'a mut C::Rust> {
    p.cast::<C::Rust>()
        .as_mut()
        .ok_or_else(|| Error::InvalidArguments(format!("{} is NULL", C::NAME)))
}

/// A handle to a Rust object owned elsewhere (query results).
pub(crate) fn borrowed<C: Castable>(v: &C::Rust) -> *const C {
    (v as *const C::Rust).cast()
}

/// Destroys a handle; NULL is a no-op.
///
/// # Safety
/// `p` is NULL or a live handle created by [`into_handle`] for the same `C`.
pub(crate) unsafe fn destroy<C: Castable>(p: *mut C) {
    if !p.is_null() {
        drop(Box::from_raw(p.cast::<C::Rust>()));
    }
}
