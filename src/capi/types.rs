//! The C-visible types and constants of oneDNN's v3 API, with oneDNN's names and values.
//!
//! oneDNN's enumerations and integer macros are the generated table `onednn_names.rs`
//! (re-exported here); this file holds the handles, structs and the constants that are not plain
//! integers. cbindgen turns it into the types part of `include/oxidnn.h`.
#![allow(non_camel_case_types, non_upper_case_globals)]

pub use super::onednn_names::*;
use crate::capi::handle::Castable;
use libc::{c_char, c_int, c_uint};

macro_rules! opaque {
    ($(#[$m:meta])* $c:ident, $t:ident, $ct:ident => $rust:ty) => {
        $(#[$m])*
        pub struct $c {
            _private: [u8; 0],
        }
        impl Castable for $c {
            type Rust = $rust;
            const NAME: &'static str = stringify!($t);
        }
        #[doc = concat!("Handle to a `", stringify!($c), "`.")]
        pub type $t = *mut $c;
        #[doc = concat!("Read-only handle to a `", stringify!($c), "`.")]
        pub type $ct = *const $c;
    };
}

opaque!(
    /// A CPU engine.
    dnnl_engine, dnnl_engine_t, const_dnnl_engine_t => crate::engine::Engine);
opaque!(
    /// An execution stream.
    dnnl_stream, dnnl_stream_t, const_dnnl_stream_t => super::objects::CStream);
opaque!(
    /// A memory descriptor.
    dnnl_memory_desc, dnnl_memory_desc_t, const_dnnl_memory_desc_t => crate::memory::MemoryDesc);
opaque!(
    /// A memory object.
    dnnl_memory, dnnl_memory_t, const_dnnl_memory_t => super::objects::CMemory);
opaque!(
    /// Primitive attributes.
    dnnl_primitive_attr, dnnl_primitive_attr_t, const_dnnl_primitive_attr_t => crate::attr::Attr);
opaque!(
    /// A primitive descriptor.
    dnnl_primitive_desc, dnnl_primitive_desc_t, const_dnnl_primitive_desc_t => super::objects::CPrimitiveDesc);
opaque!(
    /// A primitive.
    dnnl_primitive, dnnl_primitive_t, const_dnnl_primitive_t => super::objects::CPrimitive);
opaque!(
    /// A post-ops chain (not supported: the `dnnl_post_ops_*` functions return
    /// `dnnl_unimplemented`, so no such object is ever created).
    dnnl_post_ops, dnnl_post_ops_t, const_dnnl_post_ops_t => ());
opaque!(
    /// A loaded OpenVINO IR model (`oxidnn_model_*`).
    oxidnn_model, oxidnn_model_t, const_oxidnn_model_t => super::graph::CModel);
opaque!(
    /// The state of executions of a model: input shapes, limits, last outputs
    /// (`oxidnn_request_*`).
    oxidnn_request, oxidnn_request_t, const_oxidnn_request_t => super::graph::CRequest);

/// A dimension size.
pub type dnnl_dim_t = i64;
/// Maximum number of dimensions of a tensor.
pub const DNNL_MAX_NDIMS: usize = 12;
/// A dims array (`DNNL_MAX_NDIMS` dimensions).
pub type dnnl_dims_t = [dnnl_dim_t; DNNL_MAX_NDIMS];
/// A dimension known only at execution time: descriptors may hold it, memories and primitives
/// cannot be made from them.
pub const DNNL_RUNTIME_DIM_VAL: dnnl_dim_t = i64::MIN;
/// `DNNL_RUNTIME_SIZE_VAL`: the size of a memory descriptor with runtime dims or strides.
pub const DNNL_RUNTIME_SIZE_VAL: usize = DNNL_RUNTIME_DIM_VAL as usize;

/// One execution argument: an argument index and the memory bound to it.
#[repr(C)]
pub struct dnnl_exec_arg_t {
    /// `DNNL_ARG_*` index.
    pub arg: c_int,
    /// The memory (may be an empty memory).
    pub memory: dnnl_memory_t,
}

/// Library version.
#[repr(C)]
pub struct dnnl_version_t {
    /// Major version.
    pub major: c_int,
    /// Minor version.
    pub minor: c_int,
    /// Patch version.
    pub patch: c_int,
    /// Build hash.
    pub hash: *const c_char,
    /// CPU threading runtime (`DNNL_RUNTIME_*`).
    pub cpu_runtime: c_uint,
    /// GPU runtime (`DNNL_RUNTIME_NONE`).
    pub gpu_runtime: c_uint,
}

/// The data type the `oxidnn_model_get_*_type` functions report for `i64` tensors: oneDNN
/// 3.13's `dnnl_s64` (a value inside the C enum's range, which C++ callers need).
pub const oxidnn_s64: dnnl_data_type_t = dnnl_s64;

/// oxidnn extension: an RNN's per-sample sequence lengths (`s32`, dims `{N}`), see
/// `oxidnn_primitive_attr_set_rnn_seq_lengths`. Bit 30, above every `DNNL_ARG_*` (oneDNN's
/// indices use bits up to 20, post-op arguments included), so it never collides with one.
pub const OXIDNN_ARG_SEQ_LENGTHS: c_int = 0x4000_0000;
