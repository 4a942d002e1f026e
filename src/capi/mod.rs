//! The C ABI: oneDNN v3's C API for the objects and primitives this library implements, plus
//! `oxidnn_*` extensions. Each function validates its arguments, calls the core and maps the
//! result through `boundary`; no logic lives here.

#[macro_use]
mod c_enum;
pub mod attr;
pub(crate) mod boundary;
pub mod cache;
pub mod debug;
pub mod engine;
pub mod gemm;
pub mod graph;
pub(crate) mod handle;
pub mod memory;
pub mod memory_desc;
pub mod objects;
pub mod onednn_names;
pub mod primitive;
pub mod primitive_desc;
pub mod reorder;
pub mod rnn;
pub mod settings;
pub mod types;
pub mod unimplemented;
pub mod verbose;

#[cfg(test)]
mod tests;
