//! Streams (`dnnl_stream_t`): execution is synchronous, so a stream only records its engine.

use crate::engine::Engine;
use crate::ensure_args;
use crate::error::Result;

/// `dnnl_stream_in_order`.
pub const STREAM_IN_ORDER: u32 = 1;
/// `dnnl_stream_out_of_order`.
pub const STREAM_OUT_OF_ORDER: u32 = 2;

/// An execution stream. Primitives run to completion inside `execute`; `wait` has nothing to do.
#[derive(Clone, Copy, Debug)]
pub struct Stream {
    engine: Engine,
    flags: u32,
}

impl Stream {
    /// Creates a stream on an engine; `flags` must be in-order and/or out-of-order.
    pub fn new(engine: Engine, flags: u32) -> Result<Self> {
        ensure_args!(
            flags != 0 && flags & !(STREAM_IN_ORDER | STREAM_OUT_OF_ORDER) == 0,
            "unknown stream flags {flags:#x}"
        );
        Ok(Self { engine, flags })
    }

    /// The engine the stream runs on.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The creation flags.
    pub fn flags(&self) -> u32 {
        self.flags
    }
}
