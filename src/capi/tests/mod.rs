//! Tests of the C API, calling the `extern "C"` functions directly: NULL handling, enum
//! validation, the boundary (panics, last error), query answers checked against oneDNN 3.13,
//! and a source scan that every entry point goes through the boundary.

#![allow(non_upper_case_globals)]

mod attr;
mod debug;
mod discipline;
mod error_texts;
mod memory;
mod memory_desc;
mod primitive;
mod rnn;

use super::debug::oxidnn_get_last_error_message;
use super::engine::{dnnl_engine_create, dnnl_stream_create};
use super::memory_desc::dnnl_memory_desc_create_with_tag;
use super::types::*;
use std::ffi::CStr;
use std::ptr::null_mut;

/// The CPU engine (leaked: engines are plain values).
fn engine() -> dnnl_engine_t {
    let mut e = null_mut();
    assert_eq!(
        unsafe { dnnl_engine_create(&mut e, dnnl_cpu, 0) },
        dnnl_success
    );
    e
}

/// A stream on the CPU engine (leaked).
fn stream() -> dnnl_stream_t {
    let mut s = null_mut();
    assert_eq!(
        unsafe { dnnl_stream_create(&mut s, engine(), dnnl_stream_default_flags) },
        dnnl_success
    );
    s
}

/// A memory descriptor from dims, f32 and a tag (leaked; tests are short-lived).
fn md(dims: &[i64], tag: dnnl_format_tag_t) -> dnnl_memory_desc_t {
    md_dt(dims, dnnl_f32, tag)
}

/// A memory descriptor from dims, a data type and a tag (leaked).
fn md_dt(dims: &[i64], dt: dnnl_data_type_t, tag: dnnl_format_tag_t) -> dnnl_memory_desc_t {
    let mut m = null_mut();
    let st = unsafe {
        dnnl_memory_desc_create_with_tag(&mut m, dims.len() as i32, dims.as_ptr(), dt, tag)
    };
    assert_eq!(st, dnnl_success);
    m
}

/// The zero memory descriptor (leaked).
fn zero_md() -> dnnl_memory_desc_t {
    let mut m = null_mut();
    let st = unsafe { dnnl_memory_desc_create_with_tag(&mut m, 0, std::ptr::null(), 0, 0) };
    assert_eq!(st, dnnl_success);
    m
}

/// This thread's last error message.
fn last_error() -> String {
    unsafe { CStr::from_ptr(oxidnn_get_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

/// A C string returned by the library.
fn c_str(p: *const libc::c_char) -> &'static str {
    assert!(!p.is_null());
    unsafe { CStr::from_ptr(p) }.to_str().unwrap()
}
