//! `dnnl_engine_*` and `dnnl_stream_*`.

use super::boundary::{status, value, write_out};
use super::handle::{as_rust, destroy, write_handle};
use super::objects::CStream;
use super::types::*;
use crate::engine::Engine;
use crate::stream::Stream;
use crate::types::{CEnum, EngineKind};

/// Number of engines of a kind (1 for CPU, 0 otherwise).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_engine_get_count(kind: dnnl_engine_kind_t) -> usize {
    value("dnnl_engine_get_count", 0, || {
        Ok(EngineKind::from_raw(kind).map_or(0, Engine::count))
    })
}

/// Creates engine `index` of `kind`.
///
/// # Safety
/// `engine` is NULL or valid for writing a handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_create(
    engine: *mut dnnl_engine_t,
    kind: dnnl_engine_kind_t,
    index: usize,
) -> dnnl_status_t {
    status("dnnl_engine_create", || {
        let e = Engine::new(EngineKind::parse(kind)?, index)?;
        write_handle::<dnnl_engine>(engine, "engine", e)
    })
}

/// The kind of an engine.
///
/// # Safety
/// `engine` is NULL or a live engine; `kind` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_get_kind(
    engine: dnnl_engine_t,
    kind: *mut dnnl_engine_kind_t,
) -> dnnl_status_t {
    status("dnnl_engine_get_kind", || {
        let e = as_rust::<dnnl_engine>(engine)?;
        write_out(kind, "kind", e.kind().raw())
    })
}

/// Destroys an engine (NULL: no-op).
///
/// # Safety
/// `engine` is NULL or a live engine not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_destroy(engine: dnnl_engine_t) -> dnnl_status_t {
    status("dnnl_engine_destroy", || {
        destroy(engine);
        Ok(())
    })
}

/// Creates a stream on an engine.
///
/// # Safety
/// `stream` is NULL or writable; `engine` is NULL or a live engine that outlives the stream.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_create(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    flags: u32,
) -> dnnl_status_t {
    status("dnnl_stream_create", || {
        let e = as_rust::<dnnl_engine>(engine)?;
        let s = CStream {
            stream: Stream::new(*e, flags)?,
            engine,
        };
        write_handle::<dnnl_stream>(stream, "stream", s)
    })
}

/// The engine a stream was created on.
///
/// # Safety
/// `stream` is NULL or a live stream; `engine` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_get_engine(
    stream: const_dnnl_stream_t,
    engine: *mut dnnl_engine_t,
) -> dnnl_status_t {
    status("dnnl_stream_get_engine", || {
        let s = as_rust::<dnnl_stream>(stream)?;
        write_out(engine, "engine", s.engine)
    })
}

/// Waits for the stream's work: execution is synchronous, so this returns at once.
///
/// # Safety
/// `stream` is NULL or a live stream.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_wait(stream: dnnl_stream_t) -> dnnl_status_t {
    status("dnnl_stream_wait", || {
        as_rust::<dnnl_stream>(stream).map(|_| ())
    })
}

/// Destroys a stream (NULL: no-op).
///
/// # Safety
/// `stream` is NULL or a live stream not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_destroy(stream: dnnl_stream_t) -> dnnl_status_t {
    status("dnnl_stream_destroy", || {
        destroy(stream);
        Ok(())
    })
}
