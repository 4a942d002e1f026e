//! The Rust objects behind the stream, memory, primitive-descriptor and primitive handles:
//! core objects plus the handles the C API must hand back unchanged (engine pointers).

use super::types::dnnl_engine_t;
use crate::memory::{Memory, MemoryDesc};
use crate::primitive::{Primitive, PrimitiveDesc};
use crate::stream::Stream;

/// A stream and the engine handle it was created with.
pub struct CStream {
    /// The core stream.
    pub stream: Stream,
    /// The user's engine handle (returned by `dnnl_stream_get_engine`).
    pub engine: dnnl_engine_t,
}

/// A memory object and the engine handle it was created with.
pub struct CMemory {
    /// The core memory object.
    pub memory: Memory,
    /// The user's engine handle (returned by `dnnl_memory_get_engine`).
    pub engine: dnnl_engine_t,
}

/// A primitive descriptor, its engine handles, and the zero descriptor returned for absent
/// tensors.
#[derive(Clone)]
pub struct CPrimitiveDesc {
    /// The core primitive descriptor.
    pub pd: PrimitiveDesc,
    /// The user's engine handle (the source engine of a reorder).
    pub engine: dnnl_engine_t,
    /// The destination engine handle of a reorder (`engine` for other primitives).
    pub dst_engine: dnnl_engine_t,
    /// Returned by md queries for tensors the primitive takes but were not given.
    pub zero_md: MemoryDesc,
    /// NUL-terminated implementation name (`dnnl_query_impl_info_str`).
    pub impl_info: std::ffi::CString,
}

impl CPrimitiveDesc {
    /// Wraps a core pd.
    pub fn new(pd: PrimitiveDesc, engine: dnnl_engine_t) -> Self {
        let impl_info = std::ffi::CString::new(pd.impl_info()).unwrap_or_default();
        Self {
            pd,
            engine,
            dst_engine: engine,
            zero_md: MemoryDesc::zero(),
            impl_info,
        }
    }

    /// Sets the destination engine handle of a reorder.
    pub fn with_dst_engine(self, dst_engine: dnnl_engine_t) -> Self {
        Self { dst_engine, ..self }
    }
}

/// A primitive and a copy of its descriptor (returned by `dnnl_primitive_get_primitive_desc`).
pub struct CPrimitive {
    /// The core primitive.
    pub primitive: Primitive,
    /// Its descriptor, as a C object.
    pub pd: CPrimitiveDesc,
}
