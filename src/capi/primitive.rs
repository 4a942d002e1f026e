//! `dnnl_primitive_*`: creating, executing and destroying primitives.

use super::boundary::{check_out, slice, status, write_out};
use super::handle::{as_rust, as_rust_opt, borrowed, destroy, write_handle};
use super::objects::CPrimitive;
use super::types::*;
use super::verbose;
use crate::error::Error;
use crate::invalid;
use crate::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use libc::c_int;
use std::time::Instant;

/// Whether the primitive uses an execution argument: it has a non-zero descriptor for it. As
/// in oneDNN, arguments it does not use are dropped from the list before anything is checked
/// (so they may even be given twice).
fn uses(pd: &PrimitiveDesc, arg: c_int) -> bool {
    pd.arg_md(arg).is_some_and(|m| !m.is_zero())
}

/// Creates a primitive from a primitive descriptor (weights given in plain layouts may be
/// packed here, once). With verbose `profile_create` a `create` line with the time is printed.
///
/// # Safety
/// `primitive` is NULL or writable; `primitive_desc` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_create(
    primitive: *mut dnnl_primitive_t,
    primitive_desc: const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    status("dnnl_primitive_create", || {
        check_out(primitive, "primitive")?;
        let cpd = as_rust(primitive_desc)?;
        let start = Instant::now();
        let p = Primitive::new(&cpd.pd)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        verbose::log_primitive(verbose::CREATE_PROFILE, &cpd.pd, ms);
        let c = CPrimitive {
            primitive: p,
            pd: cpd.clone(),
        };
        write_handle::<dnnl_primitive>(primitive, "primitive", c)
    })
}

/// Executes a primitive synchronously. `args` is an unordered list of `nargs` (argument,
/// memory) pairs; as in oneDNN, arguments the primitive does not use and entries with a NULL
/// memory are skipped, empty memories stand for absent tensors, and an argument the primitive
/// uses given twice is `dnnl_invalid_arguments`. With verbose `profile_exec` an `exec` line with the
/// time is printed.
///
/// # Safety
/// `primitive` and `stream` are NULL or live; `args` is NULL or holds `nargs` entries whose
/// memories are NULL or live; memory buffers are valid for their descriptors.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_execute(
    primitive: const_dnnl_primitive_t,
    stream: dnnl_stream_t,
    nargs: c_int,
    args: *const dnnl_exec_arg_t,
) -> dnnl_status_t {
    status("dnnl_primitive_execute", || {
        let p = as_rust(primitive)?;
        as_rust(stream)?;
        let n = usize::try_from(nargs)
            .map_err(|_| Error::InvalidArguments(format!("nargs is negative ({nargs})")))?;
        let args = slice(args, n, "args")?;
        // Our own argument given to a primitive that ignores it: the attribute was forgotten,
        // and the results would silently be the full-length ones.
        if args.iter().any(|a| {
            a.arg == OXIDNN_ARG_SEQ_LENGTHS && !a.memory.is_null() && !uses(&p.pd.pd, a.arg)
        }) {
            invalid!(
                "OXIDNN_ARG_SEQ_LENGTHS given to a primitive created without \
                 oxidnn_primitive_attr_set_rnn_seq_lengths"
            );
        }
        let list = args
            .iter()
            .filter(|a| uses(&p.pd.pd, a.arg))
            .filter_map(|a| as_rust_opt(a.memory).map(|m| (a.arg, &m.memory)))
            .collect();
        let args = ExecArgs::new(list)?;
        let start = Instant::now();
        p.primitive.execute(&args)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        verbose::log_primitive(verbose::EXEC_PROFILE, &p.pd.pd, ms);
        Ok(())
    })
}

/// The primitive's descriptor (owned by the primitive).
///
/// # Safety
/// `primitive` is NULL or live; `primitive_desc` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_get_primitive_desc(
    primitive: const_dnnl_primitive_t,
    primitive_desc: *mut const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    status("dnnl_primitive_get_primitive_desc", || {
        let p = as_rust(primitive)?;
        write_out(
            primitive_desc,
            "primitive_desc",
            borrowed::<dnnl_primitive_desc>(&p.pd),
        )
    })
}

/// Destroys a primitive (NULL: no-op).
///
/// # Safety
/// `primitive` is NULL or live, not executing, and not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_destroy(primitive: dnnl_primitive_t) -> dnnl_status_t {
    status("dnnl_primitive_destroy", || {
        destroy(primitive);
        Ok(())
    })
}
