//! `oxidnn_model_*`: load an OpenVINO IR, query its inputs and outputs, run it.
//!
//! A model handle owns the loaded [`Model`], the C strings and dims arrays its queries return,
//! and the outputs of its last execution. Execution takes the inputs as user buffers (dense,
//! row-major, native byte order, in Parameter order) and either copies each output into a user
//! buffer or keeps it in the handle, readable with `oxidnn_model_get_output_data` until the next
//! execution or the handle's destruction. A handle is not thread-safe: do not execute or query it
//! from several threads at once.

use std::ffi::{CStr, CString};
use std::path::Path;

use libc::{c_char, c_int, c_void};

use super::boundary::{check_out, slice, status, write_out};
use super::handle::{as_rust, as_rust_mut, destroy, write_handle};
use super::types::*;
use crate::error::{Error, Result};
use crate::graph::{ElementType, IoInfo, Model, PartialShape, Tensor};

/// The Rust object behind an `oxidnn_model_t`.
pub struct CModel {
    model: Model,
    input_names: Vec<CString>,
    output_names: Vec<CString>,
    /// Input shapes as reported (dynamic dims are -1); replaced by `set_input_shape`.
    input_dims: Vec<Vec<i64>>,
    /// Output shapes as reported: declared ones, then the last execution's.
    output_dims: Vec<Vec<i64>>,
    /// The last execution's outputs, as 8-byte-aligned native-order bytes, with byte lengths.
    output_data: Vec<(Vec<u64>, usize)>,
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
            output_data: Vec::new(),
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

fn index(i: c_int, n: usize, what: &str) -> Result<usize> {
    usize::try_from(i).ok().filter(|&i| i < n).ok_or_else(|| {
        Error::InvalidArguments(format!("{what} index {i} out of range (the model has {n})"))
    })
}

/// The oneDNN data type of an element type; `i64` has none and is [`oxidnn_s64`].
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
                "{what} has a dynamic shape {dims:?}: set it with oxidnn_model_set_input_shape"
            ))
        })
}

/// Loads an IR from files: `xml_path` and `bin_path` (NULL: `MODEL.bin` next to `MODEL.xml`,
/// if it exists).
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
/// (`bin_len` bytes; `bin` may be NULL when `bin_len` is 0). The buffers are not kept.
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

/// The shape of input `i`: `*ndims` dims at `*dims` (valid until the shape is set again or the
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

/// The shape of output `i`, as [`oxidnn_model_get_input_shape`]: the shape the model declares
/// until an execution, then the last execution's (always static).
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
        let known = !m.output_data.is_empty() || m.model.outputs()[i].shape.rank().is_some();
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

/// Sets the shape of input `i` for the next executions: needed when the model declares it with
/// dynamic dims; it must be compatible with the declared shape.
///
/// # Safety
/// `model` is NULL or a live model; `dims` is NULL or readable for `ndims` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_set_input_shape(
    model: oxidnn_model_t,
    i: c_int,
    ndims: c_int,
    dims: *const i64,
) -> dnnl_status_t {
    status("oxidnn_model_set_input_shape", || {
        let m = as_rust_mut::<oxidnn_model>(model)?;
        let i = m.input(i)?;
        let n = usize::try_from(ndims)
            .map_err(|_| Error::InvalidArguments(format!("ndims {ndims} is negative")))?;
        let d = slice(dims, n, "dims")?;
        let shape = static_shape(d, "the shape")
            .map_err(|_| Error::InvalidArguments(format!("dims {d:?} has a negative dim")))?;
        let info = &m.model.inputs()[i];
        if !info.shape.accepts(&shape) {
            return Err(Error::InvalidArguments(format!(
                "shape {shape:?} does not fit input {} declared {}",
                info.name, info.shape
            )));
        }
        m.input_dims[i] = d.to_vec();
        Ok(())
    })
}

/// Runs the model.
///
/// `inputs` holds one buffer per input, in input order (`n_inputs` must equal the number of
/// inputs): dense row-major data of the input's type and shape (see
/// [`oxidnn_model_set_input_shape`] for dynamic shapes), native byte order.
///
/// Outputs: when `outputs` is not NULL, `n_outputs` must equal the number of outputs and each
/// non-NULL `outputs[i]` receives output `i` (the caller sized it from the output's shape,
/// which must then be static or known from an earlier execution). Whether or not they are
/// copied, the outputs stay readable with [`oxidnn_model_get_output_data`] and their shapes
/// with [`oxidnn_model_get_output_shape`] until the next execution. On failure no output buffer
/// is written.
///
/// # Safety
/// `model` is NULL or a live model; `inputs` is NULL or readable for `n_inputs` pointers, each
/// readable for its input's bytes; `outputs` is NULL or readable for `n_outputs` pointers, each
/// NULL or writable for its output's bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_execute(
    model: oxidnn_model_t,
    n_inputs: c_int,
    inputs: *const *const c_void,
    n_outputs: c_int,
    outputs: *const *mut c_void,
) -> dnnl_status_t {
    status("oxidnn_model_execute", || {
        let m = as_rust_mut::<oxidnn_model>(model)?;
        let n_in = m.model.inputs().len();
        if usize::try_from(n_inputs).ok() != Some(n_in) {
            return Err(Error::InvalidArguments(format!(
                "n_inputs is {n_inputs}, the model has {n_in} inputs"
            )));
        }
        let n_out = m.model.outputs().len();
        if !outputs.is_null() && usize::try_from(n_outputs).ok() != Some(n_out) {
            return Err(Error::InvalidArguments(format!(
                "n_outputs is {n_outputs}, the model has {n_out} outputs"
            )));
        }
        let ptrs = slice(inputs, n_in, "inputs")?;
        let mut tensors = Vec::with_capacity(n_in);
        for (i, (&p, info)) in ptrs.iter().zip(m.model.inputs()).enumerate() {
            let shape = static_shape(&m.input_dims[i], &format!("input {}", info.name))?;
            let bytes = crate::graph::tensor::checked_numel(&shape)?
                .checked_mul(info.element_type.size_bytes())
                .ok_or_else(|| {
                    Error::InvalidArguments(format!("input {} is too big", info.name))
                })?;
            let data = slice(p.cast::<u8>(), bytes, &format!("inputs[{i}]"))?;
            tensors.push(native_tensor(info.element_type, &shape, data)?);
        }
        let results = m.model.infer(&tensors)?;
        let outs = if outputs.is_null() {
            &[][..]
        } else {
            slice(outputs, n_out, "outputs")?
        };
        m.output_data.clear();
        for (i, t) in results.iter().enumerate() {
            m.output_dims[i] = t.shape().iter().map(|&d| d as i64).collect();
            let bytes = native_bytes(t);
            if let Some(&dst) = outs.get(i) {
                if !dst.is_null() {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst.cast::<u8>(), bytes.len());
                }
            }
            let mut words = vec![0u64; bytes.len().div_ceil(8)];
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                words.as_mut_ptr().cast::<u8>(),
                bytes.len(),
            );
            m.output_data.push((words, bytes.len()));
        }
        Ok(())
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

/// A tensor's data in native byte order.
fn native_bytes(t: &Tensor) -> Vec<u8> {
    let le = t.to_le_bytes();
    if cfg!(target_endian = "little") {
        le
    } else {
        let size = t.element_type().size_bytes();
        le.chunks_exact(size)
            .flat_map(|c| c.iter().rev().copied())
            .collect()
    }
}

/// The data of output `i` from the last execution (dense row-major, native byte order, aligned
/// to 8 bytes), valid until the next execution or the model's destruction; `size` (may be NULL)
/// receives its size in bytes. Fails before the first successful execution.
///
/// # Safety
/// `model` is NULL or a live model; `data` is NULL or writable; `size` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_model_get_output_data(
    model: const_oxidnn_model_t,
    i: c_int,
    data: *mut *const c_void,
    size: *mut usize,
) -> dnnl_status_t {
    status("oxidnn_model_get_output_data", || {
        let m = as_rust::<oxidnn_model>(model)?;
        let i = m.output(i)?;
        check_out(data, "data")?;
        let (words, len) = m.output_data.get(i).ok_or_else(|| {
            Error::InvalidArguments("the model has not been executed successfully".into())
        })?;
        if !size.is_null() {
            size.write(*len);
        }
        write_out(data, "data", words.as_ptr().cast::<c_void>())
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
