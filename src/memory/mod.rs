//! Tensors: descriptors, layouts, buffers, memory objects and reorders.

pub mod buffer;
pub mod desc;
pub mod describe;
#[allow(clippy::module_inception)]
pub mod memory;
pub mod packed;
pub mod packed_int8;
pub mod packed_transposed;
pub mod quantize;
pub mod reorder;
pub mod reshape;
pub mod tag;

pub use desc::{Layout, MemoryDesc};
pub use describe::describe;
pub use memory::{Handle, Memory};
pub use packed::PackedLayout;
pub use packed_transposed::TransposedLayout;
pub use reorder::Reorder;
