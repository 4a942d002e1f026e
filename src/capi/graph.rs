//! `oxidnn_model_*`: load an OpenVINO IR and query its inputs and outputs; `oxidnn_request_*`:
//! run it.
//!
//! A model handle owns the loaded [`Model`] and the C strings and dims arrays its queries
//! return; it never changes after loading, so any number of threads may query it and run it at
//! once. An execution's state — the input shapes, the [`Limits`], the outputs of the last run —
//! lives in a request handle made from the model (as OpenVINO's infer requests): one request
//! per thread. A request serves one thread at a time; a call on a request that another thread
//! is using fails with `dnnl_invalid_arguments`. A request keeps the model it runs alive.
//!
//! Every buffer comes with its size in bytes: an input shorter than its shape needs, or an
//! output buffer too small for the output of this run (whose shape may depend on input
//! values), is an error, never an out-of-bounds access.

use std::ffi::{CStr, CString};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use libc::{c_char, c_int, c_void};

use super::boundary::{check_out, slice, status, write_out};
use super::handle::{as_rust, destroy, write_handle};
use super::types::*;
use crate::error::{Error, Result};
use crate::graph::{ElementType, IoInfo, Limits, Model, PartialShape, Tensor};

/// The Rust object behind an `oxidnn_model_t`: immutable after loading.
pub struct CModel {
    model: Arc<Model>,
    input_names: Vec<CString>,
    output_names: Vec<CString>,
    /// Input shapes as declared (dynamic dims are -1).
    input_dims: Vec<Vec<i64>>,
    /// Output shapes as declared.
    output_dims: Vec<Vec<i64>>,
}

/// The Rust object behind an `oxidnn_request_t`.
pub struct CRequest {
    model: Arc<Model>,
    state: Mutex<RequestState>,
}

/// What one request changes: used by one thread at a time.
struct RequestState {
    /// Input shapes for the next executions (from the model's; set by `set_input_shape`).
    input_dims: Vec<Vec<i64>>,
    /// Output shapes as reported: the declared ones, then the last execution's.
    output_dims: Vec<Vec<i64>>,
    /// The last execution's outputs, as 8-byte-aligned native-order bytes, with byte lengths.
    output_data: Vec<(Vec<u64>, usize)>,
    limits: Limits,
}

fn c_names(infos: &[IoInfo]) -> Vec<CString> {
    infos
        .iter()
        .map(|i| CString::new(i.name.replace('\0', " ")).unwrap_or_default())
        .collect()
}

fn reported_dims(shape: &PartialShape) -> Vec<i64> {
    shape.dims().map_or_else(Vec::new, |d| {
        d.iter().map(|x| x.map_or(-1, |v| v as i64)).collect()
    })
}

impl CModel {
    fn new(model: Model) -> CModel {
        let model = Arc::new(model);
        let input_dims = model
            .inputs()
            .iter()
            .map(|i| reported_dims(&i.shape))
            .collect();
        let output_dims = model
            .outputs()
            .iter()
            .map(|o| reported_dims(&o.shape))
            .collect();
        CModel {
            input_names: c_names(model.inputs()),
            output_names: c_names(model.outputs()),
            input_dims,
            output_dims,
            model,
        }
    }

    fn input(&self, i: c_int) -> Result<usize> {
        index(i, self.model.inputs().len(), "input")
    }

    fn output(&self, i: c_int) -> Result<usize> {
        index(i, self.model.outputs().len(), "output")
    }
}

impl CRequest {
    /// The request's state, or an error when another thread is using the request.
    fn state(&self) -> Result<MutexGuard<'_, RequestState>> {
        match self.state.try_lock() {
            Ok(g) => Ok(g),
            // A panic while locked was caught at the boundary; the state is still consistent
            // (every field is replaced whole).
            Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
            Err(TryLockError::WouldBlock) => Err(Error::InvalidArguments(
                "the request is in use by another thread (a request serves one thread at a \
                 time; create one per thread)"
                    .into(),
            )),
        }
    }
}

fn index(i: c_int, n: usize, what: &str) -> Result<usize> {
    usize::try_from(i).ok().filter(|&i| i < n).ok_or_else(|| {
        Error::InvalidArguments(format!("{what} index {i} out of range (the model has {n})"))
    })
}

/// The oneDNN data type of an element type (`i64` is [`oxidnn_s64`], i.e. `dnnl_s64`).
fn data_type(t: ElementType) -> dnnl_data_type_t {
    match t {
        ElementType::F32 => dnnl_f32,
        ElementType::F16 => dnnl_f16,
        ElementType::I32 => dnnl_s32,
        ElementType::I64 => oxidnn_s64,
        ElementType::U8 => dnnl_u8,
        ElementType::I8 => dnnl_s8,
        ElementType::Boolean => dnnl_boolean,
    }
}

/// A NUL-terminated C string argument as UTF-8.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn c_str<'a>(p: *const c_char, name: &str) -> Result<&'a str> {
    if p.is_null() {
        return Err(Error::InvalidArguments(format!("{name} is NULL")));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|_| Error::InvalidArguments(format!("{name} is not UTF-8")))
}

/// The number of elements of a reported shape, when it is static.
fn static_shape(dims: &[i64], what: &str) -> Result<Vec<usize>> {
    dims.iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| {
            Error::InvalidArguments(format!(
                "{what} has a dynamic shape {dims:?}: set it with oxidnn_request_set_input_shape"
            ))
        })
}

/// Loads an IR from files: `xml_path` and `bin_path` (NULL: `MODEL.bin` next to `MODEL.xml`,
/// if it exists). Both must be regular files; only the byte ranges the Consts name are read
/// from the `.bin`, and its size bounds them.
///
/// A model never changes after loading: any number of threads may query it and run it at
/// once, each through its own request ([`oxidnn_request_create`]).
///
/// # Safety
/// `model` is NULL or writable; `xml_path` is NULL or a NUL-terminated string; `bin_path` is
/// NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_load(
    model: *mut oxidnn_model_t,
    xml_path: *const c_char,
    bin_path: *const c_char,
) -> dnnl_status_t {
    status("oxidnn_model_load", || {
        check_out(model, "model")?;
        let xml = c_str(xml_path, "xml_path")?;
        let bin = if bin_path.is_null() {
            None
        } else {
            Some(c_str(bin_path, "bin_path")?)
        };
        let m = Model::load(Path::new(xml), bin.map(Path::new))?;
        write_handle::<oxidnn_model>(model, "model", CModel::new(m))
    })
}

/// Loads an IR from memory: the XML text (`xml_len` bytes, no NUL needed) and the weights
/// (`bin_len` bytes; `bin` may be NULL when `bin_len` is 0). The buffers are not kept. The
/// model may be shared by threads, as with [`oxidnn_model_load`].
///
/// # Safety
/// `model` is NULL or writable; `xml` is NULL or readable for `xml_len` bytes; `bin` is NULL or
/// readable for `bin_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_load_from_memory(
    model: *mut oxidnn_model_t,
    xml: *const c_char,
    xml_len: usize,
    bin: *const u8,
    bin_len: usize,
) -> dnnl_status_t {
    status("oxidnn_model_load_from_memory", || {
        check_out(model, "model")?;
        if xml.is_null() {
            return Err(Error::InvalidArguments("xml is NULL".into()));
        }
        let xml = slice(xml.cast::<u8>(), xml_len, "xml")?;
        let bin = slice(bin, bin_len, "bin")?;
        let m = Model::from_ir(xml, bin)?;
        write_handle::<oxidnn_model>(model, "model", CModel::new(m))
    })
}

/// The number of inputs (Parameters).
///
/// # Safety
/// `model` is NULL or a live model; `n` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_get_num_inputs(
    model: const_oxidnn_model_t,
    n: *mut c_int,
) -> dnnl_status_t {
    status("oxidnn_model_get_num_inputs", || {
        let m = as_rust::<oxidnn_model>(model)?;
        write_out(n, "n", m.model.inputs().len() as c_int)
    })
}

/// The number of outputs (Results).
///
/// # Safety
/// `model` is NULL or a live model; `n` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_get_num_outputs(
    model: const_oxidnn_model_t,
    n: *mut c_int,
) -> dnnl_status_t {
    status("oxidnn_model_get_num_outputs", || {
        let m = as_rust::<oxidnn_model>(model)?;
        write_out(n, "n", m.model.outputs().len() as c_int)
    })
}

/// The name of input `i`: its first tensor name, else its Parameter layer's name. The string
/// lives as long as the model.
///
/// # Safety
/// `model` is NULL or a live model; `name` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_get_input_name(
    model: const_oxidnn_model_t,
    i: c_int,
    name: *mut *const c_char,
) -> dnnl_status_t {
    status("oxidnn_model_get_input_name", || {
        let m = as_rust::<oxidnn_model>(model)?;
        let i = m.input(i)?;
        write_out(name, "name", m.input_names[i].as_ptr())
    })
}

/// The name of output `i`: the producing port's first tensor name, else the Result layer's
/// name. The string lives as long as the model.
///
/// # Safety
/// `model` is NULL or a live model; `name` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_get_output_name(
    model: const_oxidnn_model_t,
    i: c_int,
    name: *mut *const c_char,
) -> dnnl_status_t {
    status("oxidnn_model_get_output_name", || {
        let m = as_rust::<oxidnn_model>(model)?;
        let i = m.output(i)?;
        write_out(name, "name", m.output_names[i].as_ptr())
    })
}

/// The element type of input `i` as a oneDNN data type (`dnnl_f32`, `dnnl_f16`, `dnnl_s32`,
/// `dnnl_s8`, `dnnl_u8`, `dnnl_boolean`, or `oxidnn_s64` for 64-bit integers).
///
/// # Safety
/// `model` is NULL or a live model; `dt` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_get_input_type(
    model: const_oxidnn_model_t,
    i: c_int,
    dt: *mut dnnl_data_type_t,
) -> dnnl_status_t {
    status("oxidnn_model_get_input_type", || {
        let m = as_rust::<oxidnn_model>(model)?;
        let i = m.input(i)?;
        write_out(dt, "dt", data_type(m.model.inputs()[i].element_type))
    })
}

/// The element type of output `i` (as [`oxidnn_model_get_input_type`]).
///
/// # Safety
/// `model` is NULL or a live model; `dt` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_get_output_type(
    model: const_oxidnn_model_t,
    i: c_int,
    dt: *mut dnnl_data_type_t,
) -> dnnl_status_t {
    status("oxidnn_model_get_output_type", || {
        let m = as_rust::<oxidnn_model>(model)?;
        let i = m.output(i)?;
        write_out(dt, "dt", data_type(m.model.outputs()[i].element_type))
    })
}

/// The shape of input `i` as the model declares it: `*ndims` dims at `*dims` (valid until the
/// model is destroyed). A dynamic dim is -1; an unknown rank gives `*ndims == -1` and NULL dims.
///
/// # Safety
/// `model` is NULL or a live model; `ndims` and `dims` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_get_input_shape(
    model: const_oxidnn_model_t,
    i: c_int,
    ndims: *mut c_int,
    dims: *mut *const i64,
) -> dnnl_status_t {
    status("oxidnn_model_get_input_shape", || {
        let m = as_rust::<oxidnn_model>(model)?;
        let i = m.input(i)?;
        let rank = m.model.inputs()[i].shape.rank();
        write_shape(&m.input_dims[i], rank.is_some(), ndims, dims)
    })
}

/// The shape of output `i` as the model declares it, as [`oxidnn_model_get_input_shape`] (a
/// dim that depends on input values is -1; a request reports each execution's actual shape:
/// [`oxidnn_request_get_output_shape`]).
///
/// # Safety
/// `model` is NULL or a live model; `ndims` and `dims` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_get_output_shape(
    model: const_oxidnn_model_t,
    i: c_int,
    ndims: *mut c_int,
    dims: *mut *const i64,
) -> dnnl_status_t {
    status("oxidnn_model_get_output_shape", || {
        let m = as_rust::<oxidnn_model>(model)?;
        let i = m.output(i)?;
        let known = m.model.outputs()[i].shape.rank().is_some();
        write_shape(&m.output_dims[i], known, ndims, dims)
    })
}

/// Writes a reported shape.
///
/// # Safety
/// `ndims` and `dims` are NULL or writable.
unsafe fn write_shape(
    shape: &[i64],
    known_rank: bool,
    ndims: *mut c_int,
    dims: *mut *const i64,
) -> Result<()> {
    check_out(ndims, "ndims")?;
    check_out(dims, "dims")?;
    if known_rank {
        write_out(ndims, "ndims", shape.len() as c_int)?;
        write_out(dims, "dims", shape.as_ptr())
    } else {
        write_out(ndims, "ndims", -1)?;
        write_out(dims, "dims", std::ptr::null())
    }
}

/// Creates a request: the state of executions of `model` (input shapes, limits, the last
/// outputs). Make one per thread that runs the model; the request keeps the model alive, so
/// the model handle may be destroyed first.
///
/// # Safety
/// `request` is NULL or writable; `model` is NULL or a live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_request_create(
    request: *mut oxidnn_request_t,
    model: const_oxidnn_model_t,
) -> dnnl_status_t {
    status("oxidnn_request_create", || {
        check_out(request, "request")?;
        let m = as_rust::<oxidnn_model>(model)?;
        let state = RequestState {
            input_dims: m.input_dims.clone(),
            output_dims: m.output_dims.clone(),
            output_data: Vec::new(),
            limits: Limits::default(),
        };
        let r = CRequest {
            model: Arc::clone(&m.model),
            state: Mutex::new(state),
        };
        write_handle::<oxidnn_request>(request, "request", r)
    })
}

/// Sets the shape of input `i` for the request's next executions: needed when the model
/// declares it with dynamic dims; it must be compatible with the declared shape.
///
/// # Safety
/// `request` is NULL or a live request; `dims` is NULL or readable for `ndims` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_request_set_input_shape(
    request: oxidnn_request_t,
    i: c_int,
    ndims: c_int,
    dims: *const i64,
) -> dnnl_status_t {
    status("oxidnn_request_set_input_shape", || {
        let r = as_rust::<oxidnn_request>(request)?;
        let i = index(i, r.model.inputs().len(), "input")?;
        let n = usize::try_from(ndims)
            .map_err(|_| Error::InvalidArguments(format!("ndims {ndims} is negative")))?;
        let d = slice(dims, n, "dims")?;
        let shape = static_shape(d, "the shape")
            .map_err(|_| Error::InvalidArguments(format!("dims {d:?} has a negative dim")))?;
        let info = &r.model.inputs()[i];
        if !info.shape.accepts(&shape) {
            return Err(Error::InvalidArguments(format!(
                "shape {shape:?} does not fit input {} declared {}",
                info.name, info.shape
            )));
        }
        r.state()?.input_dims[i] = d.to_vec();
        Ok(())
    })
}

/// Sets the bounds of the request's executions: at most `max_iterations` iterations per run
/// of a Loop or TensorIterator (more: `dnnl_invalid_arguments`), at most `max_bytes` bytes for
/// one tensor the execution computes and for the per-iteration outputs the Loops and
/// TensorIterators of one execution hold (more: `dnnl_out_of_memory`). The defaults,
/// 2^20 iterations and 2 GiB, keep an input value (a trip count of -1) from running forever
/// or exhausting memory.
///
/// # Safety
/// `request` is NULL or a live request.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_request_set_limits(
    request: oxidnn_request_t,
    max_iterations: usize,
    max_bytes: usize,
) -> dnnl_status_t {
    status("oxidnn_request_set_limits", || {
        let r = as_rust::<oxidnn_request>(request)?;
        r.state()?.limits = Limits {
            max_iterations,
            max_bytes,
        };
        Ok(())
    })
}

/// Runs the model.
///
/// `inputs` holds one buffer per input, in input order (`n_inputs` must equal the number of
/// inputs), and `input_sizes` their sizes in bytes: dense row-major data of the input's type
/// and shape (see [`oxidnn_request_set_input_shape`] for dynamic shapes), native byte order;
/// a buffer smaller than its shape needs is `dnnl_invalid_arguments`.
///
/// Outputs: when `outputs` is not NULL, `n_outputs` must equal the number of outputs and each
/// non-NULL `outputs[i]` receives output `i` if `output_sizes[i]` (its size in bytes) is large
/// enough for this execution's output; otherwise no output buffer is written and the call
/// fails with `dnnl_invalid_arguments` naming the output and both sizes. An output's size may
/// depend on input values (a Loop's trip count): read it after an execution with
/// [`oxidnn_request_get_output_shape`] or [`oxidnn_request_get_output_data`]. After a
/// successful execution, or one that failed only for a too-small output buffer, the outputs
/// stay readable with those two functions until the request's next execution; after any other
/// failure the request holds no outputs.
///
/// # Safety
/// `request` is NULL or a live request; `inputs` and `input_sizes` are NULL or readable for
/// `n_inputs` values, each `inputs[i]` readable for `input_sizes[i]` bytes; `outputs` and
/// `output_sizes` are NULL or readable for `n_outputs` values, each `outputs[i]` NULL or
/// writable for `output_sizes[i]` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_request_execute(
    request: oxidnn_request_t,
    n_inputs: c_int,
    inputs: *const *const c_void,
    input_sizes: *const usize,
    n_outputs: c_int,
    outputs: *const *mut c_void,
    output_sizes: *const usize,
) -> dnnl_status_t {
    status("oxidnn_request_execute", || {
        let r = as_rust::<oxidnn_request>(request)?;
        let mut st = r.state()?;
        let model = &r.model;
        st.output_data.clear();
        st.output_dims = model
            .outputs()
            .iter()
            .map(|o| reported_dims(&o.shape))
            .collect();
        let n_in = model.inputs().len();
        if usize::try_from(n_inputs).ok() != Some(n_in) {
            return Err(Error::InvalidArguments(format!(
                "n_inputs is {n_inputs}, the model has {n_in} inputs"
            )));
        }
        let n_out = model.outputs().len();
        let (outs, out_sizes) = if outputs.is_null() {
            (&[][..], &[][..])
        } else {
            if usize::try_from(n_outputs).ok() != Some(n_out) {
                return Err(Error::InvalidArguments(format!(
                    "n_outputs is {n_outputs}, the model has {n_out} outputs"
                )));
            }
            (
                slice(outputs, n_out, "outputs")?,
                slice(output_sizes, n_out, "output_sizes")?,
            )
        };
        let ptrs = slice(inputs, n_in, "inputs")?;
        let sizes = slice(input_sizes, n_in, "input_sizes")?;
        let mut tensors = Vec::new();
        tensors
            .try_reserve_exact(n_in)
            .map_err(|_| Error::OutOfMemory("no memory for the inputs".into()))?;
        for (i, info) in model.inputs().iter().enumerate() {
            let shape = static_shape(&st.input_dims[i], &format!("input {}", info.name))?;
            let bytes = crate::graph::tensor::checked_numel(&shape)?
                .checked_mul(info.element_type.size_bytes())
                .ok_or_else(|| {
                    Error::InvalidArguments(format!("input {} is too big", info.name))
                })?;
            if sizes[i] < bytes {
                return Err(Error::InvalidArguments(format!(
                    "input {i} \"{}\" of shape {shape:?} needs {bytes} bytes, input_sizes[{i}] \
                     is {}",
                    info.name, sizes[i]
                )));
            }
            let data = slice(ptrs[i].cast::<u8>(), bytes, &format!("inputs[{i}]"))?;
            tensors.push(native_tensor(info.element_type, &shape, data)?);
        }
        let results = model.infer_with(&tensors, &st.limits)?;
        let mut kept = Vec::new();
        kept.try_reserve_exact(results.len())
            .map_err(|_| Error::OutOfMemory("no memory for the outputs".into()))?;
        for t in &results {
            kept.push(native_words(t)?);
        }
        st.output_dims = results
            .iter()
            .map(|t| t.shape().iter().map(|&d| d as i64).collect())
            .collect();
        st.output_data = kept;
        let small = outs
            .iter()
            .zip(out_sizes)
            .enumerate()
            .find(|&(i, (p, &size))| !p.is_null() && size < st.output_data[i].1);
        if let Some((i, (_, &size))) = small {
            return Err(Error::InvalidArguments(format!(
                "output {i} \"{}\" of shape {:?} needs {} bytes, output_sizes[{i}] is {size} \
                 (the outputs are readable from the request)",
                model.outputs()[i].name,
                st.output_dims[i],
                st.output_data[i].1
            )));
        }
        for (&dst, (words, len)) in outs.iter().zip(&st.output_data) {
            if !dst.is_null() {
                std::ptr::copy_nonoverlapping(words.as_ptr().cast::<u8>(), dst.cast::<u8>(), *len);
            }
        }
        Ok(())
    })
}

/// The shape of output `i` of the request's last execution (before one: the declared shape,
/// as [`oxidnn_model_get_output_shape`]); `*dims` is valid until the request's next execution
/// or its destruction.
///
/// # Safety
/// `request` is NULL or a live request; `ndims` and `dims` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_request_get_output_shape(
    request: const_oxidnn_request_t,
    i: c_int,
    ndims: *mut c_int,
    dims: *mut *const i64,
) -> dnnl_status_t {
    status("oxidnn_request_get_output_shape", || {
        let r = as_rust::<oxidnn_request>(request)?;
        let i = index(i, r.model.outputs().len(), "output")?;
        let st = r.state()?;
        let known = !st.output_data.is_empty() || r.model.outputs()[i].shape.rank().is_some();
        write_shape(&st.output_dims[i], known, ndims, dims)
    })
}

/// A tensor from a user buffer in native byte order.
fn native_tensor(t: ElementType, shape: &[usize], data: &[u8]) -> Result<Tensor> {
    if cfg!(target_endian = "little") {
        Tensor::from_le_bytes(t, shape, data)
    } else {
        let swapped: Vec<u8> = data
            .chunks_exact(t.size_bytes())
            .flat_map(|c| c.iter().rev().copied())
            .collect();
        Tensor::from_le_bytes(t, shape, &swapped)
    }
}

/// A tensor's data in native byte order, in 8-byte words (so it is aligned for any element
/// type), with its length in bytes.
fn native_words(t: &Tensor) -> Result<(Vec<u64>, usize)> {
    let mut bytes = t.to_le_bytes();
    if cfg!(target_endian = "big") {
        for c in bytes.chunks_exact_mut(t.element_type().size_bytes()) {
            c.reverse();
        }
    }
    let mut words = Vec::new();
    words
        .try_reserve_exact(bytes.len().div_ceil(8))
        .map_err(|_| Error::OutOfMemory(format!("no memory for {} output bytes", bytes.len())))?;
    words.resize(bytes.len().div_ceil(8), 0);
    // SAFETY: `words` holds at least `bytes.len()` bytes; the buffers do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), words.as_mut_ptr().cast::<u8>(), bytes.len())
    };
    Ok((words, bytes.len()))
}

/// The data of output `i` from the request's last execution (dense row-major, native byte
/// order, aligned to 8 bytes), valid until the request's next execution or its destruction;
/// `size` (may be NULL) receives its size in bytes. Fails when the request holds no outputs.
///
/// # Safety
/// `request` is NULL or a live request; `data` is NULL or writable; `size` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_request_get_output_data(
    request: const_oxidnn_request_t,
    i: c_int,
    data: *mut *const c_void,
    size: *mut usize,
) -> dnnl_status_t {
    status("oxidnn_request_get_output_data", || {
        let r = as_rust::<oxidnn_request>(request)?;
        let i = index(i, r.model.outputs().len(), "output")?;
        check_out(data, "data")?;
        let st = r.state()?;
        let (words, len) = st.output_data.get(i).ok_or_else(|| {
            Error::InvalidArguments("the request has not been executed successfully".into())
        })?;
        if !size.is_null() {
            size.write(*len);
        }
        write_out(data, "data", words.as_ptr().cast::<c_void>())
    })
}

/// Destroys a request (NULL: no-op); the shapes and output data it returned become invalid.
///
/// # Safety
/// `request` is NULL or a live request not used afterwards (nor being used by another thread).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_request_destroy(request: oxidnn_request_t) -> dnnl_status_t {
    status("oxidnn_request_destroy", || {
        destroy(request);
        Ok(())
    })
}

/// Destroys a model (NULL: no-op); the strings, shapes and output data it returned become
/// invalid.
///
/// # Safety
/// `model` is NULL or a live model not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_destroy(model: oxidnn_model_t) -> dnnl_status_t {
    status("oxidnn_model_destroy", || {
        destroy(model);
        Ok(())
    })
}
