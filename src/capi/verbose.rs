//! oneDNN v3's verbose mode: `ONEDNN_VERBOSE` (alias `OXIDNN_VERBOSE`, legacy `DNNL_VERBOSE`)
//! or `dnnl_set_verbose`, printed to stdout in oneDNN's `onednn_verbose,v1,…` format.
//!
//! The variable is a comma-separated list of `none`, `error` (the default), `warn`, `check`,
//! `dispatch`, `profile_create`, `profile_exec`, `profile` (both), `all`, or a legacy number
//! (`0` none, `1` errors + execution times, `2` creation times too); `debuginfo=` and
//! `filter=` are accepted and ignored. The `info` header (version, CPU runtime, ISA, the
//! primitive line template) is printed once, before the first line. `ONEDNN_VERBOSE_TIMESTAMP=1`
//! puts the time of each primitive line (milliseconds since the epoch) before its body.

mod md;
mod pd;

pub use pd::pd_info;

use super::types::*;
use crate::error::Error;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Once, OnceLock};

/// Errors at run time (`…,error,…`).
pub(crate) const ERROR: u32 = 1 << 2;
/// Argument checks failed while creating an object (`…,create:check,…`).
pub(crate) const CREATE_CHECK: u32 = 1 << 3;
/// An implementation declined a problem (`…,create:dispatch,…`).
pub(crate) const CREATE_DISPATCH: u32 = 1 << 4;
/// Primitive creation with its time (`primitive,create:cache_miss,…`).
pub(crate) const CREATE_PROFILE: u32 = 1 << 5;
/// Argument checks failed at execution (`primitive,exec:check,…`).
pub(crate) const EXEC_CHECK: u32 = 1 << 6;
/// Primitive execution with its time (`primitive,exec,…`).
pub(crate) const EXEC_PROFILE: u32 = 1 << 7;
/// Warnings.
pub(crate) const WARN: u32 = 1 << 9;
/// Everything.
pub(crate) const ALL: u32 = u32::MAX;

/// The flags of oneDNN's legacy numeric levels 0, 1, 2 (`dnnl_set_verbose`).
pub fn legacy_flags(level: i32) -> Option<u32> {
    match level {
        0 => Some(0),
        1 => Some(ERROR | EXEC_PROFILE),
        2 => Some(ERROR | EXEC_PROFILE | CREATE_PROFILE),
        _ => None,
    }
}

/// The flags a `ONEDNN_VERBOSE` value selects; unknown words are ignored.
pub fn parse(value: &str) -> u32 {
    let mut flags = 0;
    for word in value.split(',').map(str::trim) {
        flags = match word {
            "none" => 0,
            "error" => flags | ERROR,
            "warn" => flags | WARN,
            "check" => flags | CREATE_CHECK | EXEC_CHECK,
            "dispatch" => flags | CREATE_DISPATCH,
            "profile_create" => flags | CREATE_PROFILE,
            "profile_exec" => flags | EXEC_PROFILE,
            "profile" => flags | CREATE_PROFILE | EXEC_PROFILE,
            "all" => ALL,
            w => match w.parse::<i32>().ok().and_then(legacy_flags) {
                Some(0) => 0,
                Some(f) => flags | f,
                None => flags,
            },
        };
    }
    flags
}

/// `u32::MAX - 1`: "not set by `dnnl_set_verbose`" (no valid flag set equals it).
const UNSET: u32 = u32::MAX - 1;
static SET: AtomicU32 = AtomicU32::new(UNSET);

fn env_flags() -> u32 {
    static ENV: OnceLock<u32> = OnceLock::new();
    *ENV.get_or_init(|| {
        ["ONEDNN_VERBOSE", "OXIDNN_VERBOSE", "DNNL_VERBOSE"]
            .iter()
            .find_map(|k| std::env::var(k).ok())
            .map_or(ERROR, |v| parse(&v))
    })
}

/// The flags in force: those of `dnnl_set_verbose`, else of the environment.
pub fn flags() -> u32 {
    match SET.load(Ordering::Relaxed) {
        UNSET => env_flags(),
        f => f,
    }
}

/// Whether any of `kind` is on.
pub fn enabled(kind: u32) -> bool {
    flags() & kind != 0
}

/// Sets the flags (`dnnl_set_verbose`); overrides the environment.
pub fn set_flags(flags: u32) {
    SET.store(flags, Ordering::Relaxed);
}

/// oneDNN's description of each ISA value (`info,cpu,isa:` line).
const ISA_TEXTS: [(dnnl_cpu_isa_t, &str); 11] = [
    (
        dnnl_cpu_isa_avx512_core_amx_fp16,
        "Intel AVX-512 with float16, Intel DL Boost and bfloat16 support and Intel AMX with \
         bfloat16, float16 and 8-bit integer support (preview support)",
    ),
    (
        dnnl_cpu_isa_avx512_core_amx,
        "Intel AVX-512 with float16, Intel DL Boost and bfloat16 support and Intel AMX with \
         bfloat16 and 8-bit integer support",
    ),
    (
        dnnl_cpu_isa_avx512_core_fp16,
        "Intel AVX-512 with float16, Intel DL Boost and bfloat16 support ",
    ),
    (
        dnnl_cpu_isa_avx512_core_bf16,
        "Intel AVX-512 with Intel DL Boost and bfloat16 support",
    ),
    (
        dnnl_cpu_isa_avx512_core_vnni,
        "Intel AVX-512 with Intel DL Boost",
    ),
    (
        dnnl_cpu_isa_avx512_core,
        "Intel AVX-512 with AVX512BW, AVX512VL, and AVX512DQ extensions",
    ),
    (
        dnnl_cpu_isa_avx2_vnni_2,
        "Intel AVX2 with Intel DL Boost, float16 and bfloat16 support (preview support)",
    ),
    (dnnl_cpu_isa_avx2_vnni, "Intel AVX2 with Intel DL Boost"),
    (dnnl_cpu_isa_avx2, "Intel AVX2"),
    (dnnl_cpu_isa_avx, "Intel AVX"),
    (dnnl_cpu_isa_sse41, "Intel SSE4.1"),
];

/// oneDNN's description of the effective ISA; AVX-512 with BF16 (and no more) under the
/// `prefer_ymm` hint is its "on Ymm/Zmm" variant.
fn isa_text() -> String {
    let isa = crate::kernels::cpu_isa::effective() as dnnl_cpu_isa_t;
    let text = ISA_TEXTS
        .iter()
        .find(|&&(v, _)| v == isa)
        .map_or("Intel 64", |&(_, t)| t);
    let ymm = isa == dnnl_cpu_isa_avx512_core_bf16
        && super::settings::dnnl_get_cpu_isa_hints() == dnnl_cpu_isa_prefer_ymm;
    if ymm {
        format!("{text} on Ymm/Zmm")
    } else {
        text.into()
    }
}

/// The `info` lines oneDNN prints before its first verbose line.
pub fn header() -> Vec<String> {
    let v = super::debug::dnnl_version();
    // SAFETY: dnnl_version returns a pointer to a static structure with a static hash string.
    let (v, hash) = unsafe { (&*v, std::ffi::CStr::from_ptr((*v).hash)) };
    vec![
        format!(
            "info,oneDNN v{}.{}.{} (commit {})",
            v.major,
            v.minor,
            v.patch,
            hash.to_string_lossy()
        ),
        format!(
            "info,cpu,runtime:threadpool,nthr:{}",
            crate::threading::num_threads()
        ),
        format!("info,cpu,isa:{}", isa_text()),
        "info,gpu,runtime:none".into(),
        format!(
            "primitive,info,template:{}operation,engine,primitive,implementation,prop_kind,\
             memory_descriptors,attributes,auxiliary,problem_desc,exec_time",
            if timestamps() { "timestamp," } else { "" }
        ),
    ]
}

/// Whether primitive lines carry a timestamp (`ONEDNN_VERBOSE_TIMESTAMP` set to a non-zero
/// number, as oneDNN reads it); decided once.
fn timestamps() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| crate::environment::onednn_int("VERBOSE_TIMESTAMP").is_some_and(|v| v != 0))
}

/// Writes `text` to C's `stdout` stream (flushed), so verbose lines interleave with the
/// program's own `printf` output in order, as oneDNN's do.
#[cfg(target_os = "linux")]
fn write_stdout(text: &str) {
    unsafe extern "C" {
        static mut stdout: *mut libc::FILE;
    }
    let Ok(c) = std::ffi::CString::new(text) else {
        return;
    };
    // SAFETY: `stdout` is the C library's stream, valid for the life of the process; the
    // string is NUL-terminated. stdio locks the stream for each call.
    unsafe {
        let out = *std::ptr::addr_of!(stdout);
        libc::fputs(c.as_ptr(), out);
        libc::fflush(out);
    }
}

#[cfg(not(target_os = "linux"))]
fn write_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Prints `onednn_verbose,v1,<body>` (after the header, the first time), with the time in
/// milliseconds since the epoch before the body when [`timestamps`] are on.
fn print(body: &str) {
    static HEADER: Once = Once::new();
    HEADER.call_once(|| {
        let lines: String = header()
            .iter()
            .map(|h| format!("onednn_verbose,v1,{h}\n"))
            .collect();
        write_stdout(&lines);
    });
    let stamp = if timestamps() {
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        format!("{:.6},", since.as_secs_f64() * 1e3)
    } else {
        String::new()
    };
    write_stdout(&format!("onednn_verbose,v1,{stamp}{body}\n"));
}

/// oneDNN's `%g`: six significant digits, trailing zeros dropped.
pub fn format_ms(ms: f64) -> String {
    if ms == 0.0 || !ms.is_finite() {
        return format!("{ms}");
    }
    let exp = ms.abs().log10().floor() as i32;
    if !(-5..6).contains(&exp) {
        let s = format!("{ms:.5e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = m.trim_end_matches('0').trim_end_matches('.');
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let s = format!("{ms:.*}", (5 - exp) as usize);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A primitive line: `primitive,<op>,<pd info>,<ms>` with `op` `exec` or
/// `create:cache_miss` (this library keeps no primitive cache).
pub fn log_primitive(kind: u32, pd: &crate::primitive::PrimitiveDesc, ms: f64) {
    if enabled(kind) {
        let op = if kind == EXEC_PROFILE {
            "exec"
        } else {
            "create:cache_miss"
        };
        print(&format!("primitive,{op},{},{}", pd_info(pd), format_ms(ms)));
    }
}

/// Where a failing C function belongs in oneDNN's lines: API kind and component.
fn origin(func: &str) -> (&'static str, String) {
    let name = func.strip_prefix("dnnl_").unwrap_or(func);
    if let Some(prim) = name.strip_suffix("_primitive_desc_create") {
        let base = prim
            .trim_end_matches("_forward")
            .trim_end_matches("_backward");
        let rnn = ["rnn", "lstm", "gru", "augru"]
            .iter()
            .any(|c| base.ends_with(c));
        return ("primitive", if rnn { "rnn".into() } else { base.into() });
    }
    if name.starts_with("primitive") {
        return ("primitive", "primitive".into());
    }
    let component = name.split('_').next().unwrap_or(name);
    ("common", component.into())
}

/// Reports a failed C call as oneDNN does: argument errors as `create:check` (or
/// `exec:check` from `dnnl_primitive_execute`), an implementation declining the problem as
/// `create:dispatch`, failures while running as `error`. The message's commas become spaces,
/// so the line keeps its fields; the last field names the C function. Only `dnnl_*` calls
/// are reported.
pub fn log_failure(func: &str, err: &Error) {
    // oneDNN's API only: the `oxidnn_` extensions (graph models, …) report through their
    // status and last-error text alone.
    if !func.starts_with("dnnl_") {
        return;
    }
    let exec = func == "dnnl_primitive_execute";
    let (api, component) = origin(func);
    let (kind, op) = match err {
        Error::InvalidArguments(_) if exec => (EXEC_CHECK, "exec:check"),
        Error::InvalidArguments(_) => (CREATE_CHECK, "create:check"),
        Error::Unimplemented(_) => (CREATE_DISPATCH, "create:dispatch"),
        Error::OutOfMemory(_) | Error::Runtime(_) => (ERROR, "error"),
        Error::NotRequired(_) | Error::LastImplReached => return,
    };
    if !enabled(kind) {
        return;
    }
    let text = match err {
        Error::InvalidArguments(m)
        | Error::Unimplemented(m)
        | Error::OutOfMemory(m)
        | Error::Runtime(m)
        | Error::NotRequired(m) => m.clone(),
        Error::LastImplReached => err.to_string(),
    };
    let msg = text.replace(", ", " ").replace(',', " ");
    if kind == ERROR {
        print(&format!("{api},error,{component},{msg}"));
    } else {
        print(&format!("{api},{op},{component},{msg},{func}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_as_onednn_spells_them() {
        assert_eq!(parse("none"), 0);
        assert_eq!(parse("error"), ERROR);
        assert_eq!(parse("check"), CREATE_CHECK | EXEC_CHECK);
        assert_eq!(parse("profile"), CREATE_PROFILE | EXEC_PROFILE);
        assert_eq!(
            parse("profile_exec,dispatch"),
            EXEC_PROFILE | CREATE_DISPATCH
        );
        assert_eq!(parse("all"), ALL);
        assert_eq!(parse("1"), ERROR | EXEC_PROFILE);
        assert_eq!(parse("2"), ERROR | EXEC_PROFILE | CREATE_PROFILE);
        assert_eq!(parse("all,none"), 0);
        assert_eq!(parse("error,debuginfo=3,filter=rnn"), ERROR);
        assert_eq!(parse("garbage"), 0);
    }

    #[test]
    fn times_print_like_printf_g() {
        assert_eq!(format_ms(0.187012345), "0.187012");
        assert_eq!(format_ms(35.906), "35.906");
        assert_eq!(format_ms(31.55812), "31.5581");
        assert_eq!(format_ms(0.0009765625), "0.000976562");
        assert_eq!(format_ms(2.0), "2");
        assert_eq!(format_ms(1234567.0), "1.23457e+06");
        assert_eq!(format_ms(0.0000012), "1.2e-06");
    }

    #[test]
    fn failures_name_their_component() {
        assert_eq!(
            origin("dnnl_lstm_backward_primitive_desc_create"),
            ("primitive", "rnn".into())
        );
        assert_eq!(
            origin("dnnl_convolution_forward_primitive_desc_create"),
            ("primitive", "convolution".into())
        );
        assert_eq!(
            origin("dnnl_reorder_primitive_desc_create"),
            ("primitive", "reorder".into())
        );
        assert_eq!(
            origin("dnnl_memory_desc_create_with_tag"),
            ("common", "memory".into())
        );
    }
}
