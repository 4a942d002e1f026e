//! The C ABI: oneDNN v3's C API for the objects and primitives this library implements, plus
//! `oxidnn_*` extensions. Each function validates its arguments, calls the core and maps the
//! result through [`boundary`]; no logic lives here.

pub(crate) mod boundary;
pub mod engine;
pub(crate) mod handle;
pub mod objects;
pub mod types;
pub mod verbose;
