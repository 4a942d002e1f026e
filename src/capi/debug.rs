//! Version, verbose switch and the `dnnl_*2str` names of `dnnl_debug.h`, plus the `oxidnn_`
//! version and last-error extensions.
//!
//! Every `*2str` function returns, for each value `types.rs` defines, the string oneDNN 3.13
//! returns for it (checked against the real library), and oneDNN's "unknown ..." string for
//! any other value. The names come from the core enums ([`CEnum::name`], [`tag_name`]); the
//! few values the core does not model (graph statuses, `f64`, runtimes) are listed here.

// oneDNN's constants are lower-case; matching on them is the point of this module.
#![allow(non_upper_case_globals)]

use super::boundary::{last_error_ptr, status, value};
use super::types::*;
use crate::error::Error;
use crate::memory::tag::tag_name;
use crate::types::{
    AlgKind, CEnum, DataType, Direction, EngineKind, FormatKind, FpmathMode, PrimitiveKind,
    PropKind, RnnFlags, ScratchpadMode,
};
use libc::{c_char, c_int, c_uint};
use std::ffi::CString;
use std::sync::Mutex;

/// The version `dnnl_version()` reports: the oneDNN C API this library implements (3.13).
///
/// `cpu_runtime` is `DNNL_RUNTIME_SEQ`, as the header's `DNNL_CPU_RUNTIME`: the library runs its
/// own worker threads (`OXIDNN_NUM_THREADS`), which no threading-runtime API of the program
/// drives. `OMP`/`TBB` would name runtimes whose APIs (`omp_set_num_threads`, task arenas) have
/// no effect on it, and `THREADPOOL` would tell the program to pass its own threadpool through
/// `dnnl_threadpool_interop_*`, which the library does not have; `SEQ` — nothing to drive — is
/// the value under which oneDNN programs compile and run unchanged.
static VERSION: SyncVersion = SyncVersion(dnnl_version_t {
    major: 3,
    minor: 13,
    patch: 0,
    hash: concat!("oxidnn-", env!("CARGO_PKG_VERSION"), "\0")
        .as_ptr()
        .cast(),
    cpu_runtime: DNNL_RUNTIME_SEQ,
    gpu_runtime: DNNL_RUNTIME_NONE,
});

/// `dnnl_version_t` holds a pointer to a static string, which makes it `!Sync`.
struct SyncVersion(dnnl_version_t);
// SAFETY: the only pointer inside points to an immutable static string.
unsafe impl Sync for SyncVersion {}

/// The text `oxidnn_version_string` returns.
const VERSION_STRING: &str = concat!(
    "oxidnn ",
    env!("CARGO_PKG_VERSION"),
    " (oneDNN C API 3.13, RNN primitives)\0"
);

/// A NUL-terminated copy of a static name, made once per name and kept for the life of the
/// process (the set of names is fixed, so this allocates a bounded amount). A plain vector keeps
/// every allocation reachable from its start, so leak checkers report nothing.
fn c_name(name: &'static str) -> *const c_char {
    static NAMES: Mutex<Vec<(&'static str, CString)>> = Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = names.iter().find(|(n, _)| *n == name) {
        return c.as_ptr();
    }
    let c = CString::new(name).unwrap_or_default();
    let p = c.as_ptr();
    names.push((name, c));
    p
}

/// The name of a core enum value, else the name from `extra`, else oneDNN's `unknown` text.
fn enum_name<E: CEnum>(
    v: c_int,
    extra: &[(c_int, &'static str)],
    unknown: &'static str,
) -> &'static str {
    E::from_raw(v)
        .map(E::name)
        .or_else(|| extra.iter().find(|(k, _)| *k == v).map(|(_, n)| *n))
        .unwrap_or(unknown)
}

/// What a `*2str` function returns if it panics (never expected).
const NO_NAME: *const c_char = c"".as_ptr();

/// The library version (a pointer to a static structure).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_version() -> *const dnnl_version_t {
    let v: *const dnnl_version_t = &VERSION.0;
    value("dnnl_version", v, || Ok(v))
}

/// Sets oneDNN's legacy verbose level: 0 none, 1 errors and execution times, 2 creation
/// times too. Other levels give `dnnl_invalid_arguments`. Overrides `ONEDNN_VERBOSE`.
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_set_verbose(level: c_int) -> dnnl_status_t {
    status("dnnl_set_verbose", || {
        let flags = super::verbose::legacy_flags(level).ok_or_else(|| {
            Error::InvalidArguments(format!("verbose level {level} is not 0, 1 or 2"))
        })?;
        super::verbose::set_flags(flags);
        Ok(())
    })
}

/// The name of a status (`"success"`, `"invalid_arguments"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_status2str(v: dnnl_status_t) -> *const c_char {
    value("dnnl_status2str", NO_NAME, || {
        Ok(c_name(match v {
            dnnl_success => "success",
            dnnl_out_of_memory => "out_of_memory",
            dnnl_invalid_arguments => "invalid_arguments",
            dnnl_unimplemented => "unimplemented",
            dnnl_last_impl_reached => "last_impl_reached",
            dnnl_runtime_error => "runtime_error",
            dnnl_not_required => "not_required",
            dnnl_invalid_graph => "invalid_graph",
            dnnl_invalid_graph_op => "invalid_graph_op",
            dnnl_invalid_shape => "invalid_shape",
            dnnl_invalid_data_type => "invalid_data_type",
            _ => "unknown status",
        }))
    })
}

/// The name of a data type (`"f32"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_dt2str(v: dnnl_data_type_t) -> *const c_char {
    value("dnnl_dt2str", NO_NAME, || {
        Ok(c_name(enum_name::<DataType>(
            v,
            &[(dnnl_f64, "f64"), (dnnl_boolean, "boolean")],
            "unknown dt",
        )))
    })
}

/// The name of an engine kind (`"cpu"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_engine_kind2str(v: dnnl_engine_kind_t) -> *const c_char {
    value("dnnl_engine_kind2str", NO_NAME, || {
        Ok(c_name(enum_name::<EngineKind>(
            v,
            &[],
            "unknown engine_kind",
        )))
    })
}

/// The name of a format tag: its letters (`"abc"` for `dnnl_tnc`), `"any"` or `"undef"`.
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_fmt_tag2str(v: dnnl_format_tag_t) -> *const c_char {
    value("dnnl_fmt_tag2str", NO_NAME, || {
        Ok(c_name(tag_name(v).unwrap_or("unknown fmt_tag")))
    })
}

/// The name of a propagation kind (`"forward_inference"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_prop_kind2str(v: dnnl_prop_kind_t) -> *const c_char {
    value("dnnl_prop_kind2str", NO_NAME, || {
        Ok(c_name(enum_name::<PropKind>(v, &[], "unknown prop_kind")))
    })
}

/// The name of a primitive kind (`"rnn"`, `"reorder"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_prim_kind2str(v: dnnl_primitive_kind_t) -> *const c_char {
    value("dnnl_prim_kind2str", NO_NAME, || {
        Ok(c_name(enum_name::<PrimitiveKind>(
            v,
            &[],
            "unknown prim_kind",
        )))
    })
}

/// The name of an algorithm kind (`"vanilla_lstm"`, `"eltwise_tanh"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_alg_kind2str(v: dnnl_alg_kind_t) -> *const c_char {
    value("dnnl_alg_kind2str", NO_NAME, || {
        Ok(c_name(enum_name::<AlgKind>(v, &[], "unknown alg_kind")))
    })
}

/// The name of an RNN flags value (`"undef"`, `"rnn_flags_diff_weights_overwrite"`).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_rnn_flags2str(v: dnnl_rnn_flags_t) -> *const c_char {
    value("dnnl_rnn_flags2str", NO_NAME, || {
        Ok(c_name(enum_name::<RnnFlags>(v, &[], "unknown rnn_flags")))
    })
}

/// The name of an RNN direction (`"unidirectional_left2right"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_rnn_direction2str(v: dnnl_rnn_direction_t) -> *const c_char {
    value("dnnl_rnn_direction2str", NO_NAME, || {
        Ok(c_name(enum_name::<Direction>(
            v,
            &[],
            "unknown rnn_direction",
        )))
    })
}

/// The name of a scratchpad mode (`"library"`, `"user"`).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_scratchpad_mode2str(v: dnnl_scratchpad_mode_t) -> *const c_char {
    value("dnnl_scratchpad_mode2str", NO_NAME, || {
        Ok(c_name(enum_name::<ScratchpadMode>(
            v,
            &[],
            "unknown scratchpad_mode",
        )))
    })
}

/// The name of a floating-point math mode (`"strict"`, `"bf16"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_fpmath_mode2str(v: dnnl_fpmath_mode_t) -> *const c_char {
    value("dnnl_fpmath_mode2str", NO_NAME, || {
        Ok(c_name(enum_name::<FpmathMode>(
            v,
            &[],
            "unknown fpmath_mode",
        )))
    })
}

/// The name of a format kind (`"undef"`, `"any"`, `"blocked"`). Like oneDNN, the opaque and
/// host-scalar kinds have no name: they give `"unknown fmt_kind"`.
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_fmt_kind2str(v: dnnl_format_kind_t) -> *const c_char {
    value("dnnl_fmt_kind2str", NO_NAME, || {
        Ok(c_name(match FormatKind::from_raw(v) {
            Some(FormatKind::Opaque | FormatKind::HostScalar) | None => "unknown fmt_kind",
            Some(k) => k.name(),
        }))
    })
}

/// The name a value has in `names`, else oneDNN's `unknown` text (for the enums the core does not
/// model: the first enumerator of an aliased value names it, as in oneDNN).
fn listed_name(v: c_int, names: &[(c_int, &'static str)], unknown: &'static str) -> *const c_char {
    c_name(
        names
            .iter()
            .find(|(k, _)| *k == v)
            .map_or(unknown, |(_, n)| n),
    )
}

/// The name of an accumulation mode (`"strict"`, `"relaxed"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_accumulation_mode2str(v: dnnl_accumulation_mode_t) -> *const c_char {
    value("dnnl_accumulation_mode2str", NO_NAME, || {
        Ok(listed_name(
            v,
            &[
                (dnnl_accumulation_mode_strict, "strict"),
                (dnnl_accumulation_mode_relaxed, "relaxed"),
                (dnnl_accumulation_mode_any, "any"),
                (dnnl_accumulation_mode_s32, "s32"),
                (dnnl_accumulation_mode_f32, "f32"),
                (dnnl_accumulation_mode_f16, "f16"),
            ],
            "unknown accumulation_mode",
        ))
    })
}

/// The name of a CPU ISA (`"cpu_isa_avx2"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_cpu_isa2str(v: dnnl_cpu_isa_t) -> *const c_char {
    value("dnnl_cpu_isa2str", NO_NAME, || {
        Ok(listed_name(
            v,
            &[
                (dnnl_cpu_isa_default, "cpu_isa_default"),
                (dnnl_cpu_isa_sse41, "cpu_isa_sse41"),
                (dnnl_cpu_isa_avx, "cpu_isa_avx"),
                (dnnl_cpu_isa_avx2, "cpu_isa_avx2"),
                (dnnl_cpu_isa_avx2_vnni, "cpu_isa_avx2_vnni"),
                (dnnl_cpu_isa_avx2_vnni_2, "cpu_isa_avx2_vnni_2"),
                (dnnl_cpu_isa_avx512_core, "cpu_isa_avx512_core"),
                (dnnl_cpu_isa_avx512_core_vnni, "cpu_isa_avx512_core_vnni"),
                (dnnl_cpu_isa_avx512_core_bf16, "cpu_isa_avx512_core_bf16"),
                (dnnl_cpu_isa_avx10_1_512, "cpu_isa_avx10_1_512"),
                (dnnl_cpu_isa_avx10_1_512_amx, "cpu_isa_avx10_1_512_amx"),
                (
                    dnnl_cpu_isa_avx10_1_512_amx_fp16,
                    "cpu_isa_avx10_1_512_amx_fp16",
                ),
                (dnnl_cpu_isa_avx10_2, "cpu_isa_avx10_2"),
                (dnnl_cpu_isa_avx10_2_amx_2, "cpu_isa_avx10_2_amx_2"),
            ],
            "unknown cpu_isa",
        ))
    })
}

/// The name of a CPU ISA hint (`"cpu_isa_no_hints"`, `"cpu_isa_prefer_ymm"`).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_cpu_isa_hints2str(v: dnnl_cpu_isa_hints_t) -> *const c_char {
    value("dnnl_cpu_isa_hints2str", NO_NAME, || {
        Ok(listed_name(
            v,
            &[
                (dnnl_cpu_isa_no_hints, "cpu_isa_no_hints"),
                (dnnl_cpu_isa_prefer_ymm, "cpu_isa_prefer_ymm"),
            ],
            "unknown cpu_isa_hints",
        ))
    })
}

/// The name of a quantization mode (`"undef"`, `"static_sazp"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_quantization_mode2str(v: dnnl_quantization_mode_t) -> *const c_char {
    value("dnnl_quantization_mode2str", NO_NAME, || {
        Ok(listed_name(
            v,
            &[
                (dnnl_quantization_mode_undef, "undef"),
                (dnnl_quantization_mode_static_sazp, "static_sazp"),
                (dnnl_quantization_mode_dynamic_mx, "dynamic_mx"),
                (dnnl_quantization_mode_dynamic_fp, "dynamic_fp"),
            ],
            "unknown quantization_mode",
        ))
    })
}

/// The name of a rounding mode (`"environment"`, `"stochastic"`).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_rounding_mode2str(v: dnnl_rounding_mode_t) -> *const c_char {
    value("dnnl_rounding_mode2str", NO_NAME, || {
        Ok(listed_name(
            v,
            &[
                (dnnl_rounding_mode_environment, "environment"),
                (dnnl_rounding_mode_stochastic, "stochastic"),
            ],
            "unknown rounding_mode",
        ))
    })
}

/// The name of a sparse encoding (`"undef"`, `"csr"`, `"packed"`, `"coo"`).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_sparse_encoding2str(v: dnnl_sparse_encoding_t) -> *const c_char {
    value("dnnl_sparse_encoding2str", NO_NAME, || {
        Ok(listed_name(
            v,
            &[
                (dnnl_sparse_encoding_undef, "undef"),
                (dnnl_csr, "csr"),
                (dnnl_packed, "packed"),
                (dnnl_coo, "coo"),
            ],
            "unknown sparse_encoding",
        ))
    })
}

/// The name of a `DNNL_RUNTIME_*` value (`"threadpool"`, `"OpenMP"`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_runtime2str(v: c_uint) -> *const c_char {
    value("dnnl_runtime2str", NO_NAME, || {
        Ok(c_name(match v {
            DNNL_RUNTIME_NONE => "none",
            DNNL_RUNTIME_SEQ => "sequential",
            DNNL_RUNTIME_OMP => "OpenMP",
            DNNL_RUNTIME_TBB => "TBB",
            DNNL_RUNTIME_THREADPOOL => "threadpool",
            DNNL_RUNTIME_OCL => "OpenCL",
            DNNL_RUNTIME_SYCL => "SYCL",
            DNNL_RUNTIME_ZE => "Level Zero",
            _ => "unknown",
        }))
    })
}

/// The text of the last failure of a C API call on the calling thread (`""` if none). The
/// pointer stays valid until the next failure on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn oxidnn_get_last_error_message() -> *const c_char {
    value("oxidnn_get_last_error_message", c"".as_ptr(), || {
        Ok(last_error_ptr())
    })
}

/// A static text naming this library, its version and the oneDNN API it implements.
#[unsafe(no_mangle)]
pub extern "C" fn oxidnn_version_string() -> *const c_char {
    value("oxidnn_version_string", c"".as_ptr(), || {
        Ok(VERSION_STRING.as_ptr().cast())
    })
}
