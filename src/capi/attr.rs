//! `dnnl_primitive_attr_*`: the attributes RNN primitives and their reorders use.
//!
//! As in oneDNN, getters skip NULL output pointers of the RNN quantization parameters and of
//! `get_fpmath_mode_v2`, and setters only check what a single value can violate; whether a
//! primitive accepts the attributes is decided when its descriptor is created.

use super::boundary::{check_out, slice, status, write_out};
use super::handle::{as_rust, as_rust_mut, destroy, write_handle};
use super::types::*;
use crate::attr::{Attr, RnnTestParams, WeightsQParams};
use crate::error::{Error, Result};
use crate::invalid;
use crate::types::{CEnum, FpmathMode, ScratchpadMode};
use libc::c_int;

/// Writes `v` through `p` unless `p` is NULL.
///
/// # Safety
/// `p` is NULL or valid for a write of `T`.
unsafe fn write_opt<T>(p: *mut T, v: T) {
    if !p.is_null() {
        p.write(v);
    }
}

/// The scales of a `set_rnn_*weights*_qparams` call.
///
/// # Safety
/// `scales` is NULL or holds `count` values.
unsafe fn parse_scales<'a>(
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> Result<&'a [f32]> {
    if count <= 0 || mask < 0 || scales.is_null() {
        return Err(Error::InvalidArguments(format!(
            "weights scales: count {count} and mask {mask} must be positive, scales non-NULL"
        )));
    }
    let count = usize::try_from(count)
        .map_err(|_| Error::InvalidArguments(format!("scales count {count} too large")))?;
    slice(scales, count, "scales")
}

/// Writes the fields of weights quantization parameters (NULL outputs skipped).
///
/// # Safety
/// Each pointer is NULL or writable; the scales pointer stays valid while the attribute lives
/// unchanged.
unsafe fn get_qparams(
    q: &WeightsQParams,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    s: *mut *const f32,
) {
    write_opt(count, q.scales.len() as dnnl_dim_t);
    write_opt(mask, q.mask);
    write_opt(s, q.scales.as_ptr());
}

/// Creates attributes with every field at its default.
///
/// # Safety
/// `attr` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_create(
    attr: *mut dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_create", || {
        write_handle::<dnnl_primitive_attr>(attr, "attr", Attr::new())
    })
}

/// Copies attributes.
///
/// # Safety
/// `attr` is NULL or writable; `existing_attr` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_clone(
    attr: *mut dnnl_primitive_attr_t,
    existing_attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_clone", || {
        check_out(attr, "attr")?;
        let a = as_rust(existing_attr)?.clone();
        write_handle::<dnnl_primitive_attr>(attr, "attr", a)
    })
}

/// Destroys attributes (NULL: no-op).
///
/// # Safety
/// `attr` is NULL or live and not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_destroy(attr: dnnl_primitive_attr_t) -> dnnl_status_t {
    status("dnnl_primitive_attr_destroy", || {
        destroy(attr);
        Ok(())
    })
}

/// The scratchpad mode.
///
/// # Safety
/// `attr` is NULL or live; `mode` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_scratchpad_mode(
    attr: const_dnnl_primitive_attr_t,
    mode: *mut dnnl_scratchpad_mode_t,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_get_scratchpad_mode", || {
        write_out(mode, "mode", as_rust(attr)?.scratchpad_mode.raw())
    })
}

/// Sets the scratchpad mode (`library` or `user`).
///
/// # Safety
/// `attr` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_scratchpad_mode(
    attr: dnnl_primitive_attr_t,
    mode: dnnl_scratchpad_mode_t,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_set_scratchpad_mode", || {
        let a = as_rust_mut(attr)?;
        a.scratchpad_mode = ScratchpadMode::parse(mode)?;
        Ok(())
    })
}

/// The floating-point math mode.
///
/// # Safety
/// `attr` is NULL or live; `mode` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_fpmath_mode(
    attr: const_dnnl_primitive_attr_t,
    mode: *mut dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_get_fpmath_mode", || {
        write_out(mode, "mode", as_rust(attr)?.fpmath_mode.raw())
    })
}

/// Sets the floating-point math mode (and resets `apply_to_int` to false).
///
/// # Safety
/// `attr` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_fpmath_mode(
    attr: dnnl_primitive_attr_t,
    mode: dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_set_fpmath_mode", || {
        let a = as_rust_mut(attr)?;
        a.fpmath_mode = FpmathMode::parse(mode)?;
        a.fpmath_apply_to_int = false;
        Ok(())
    })
}

/// The floating-point math mode and whether it applies to integer primitives (NULL outputs
/// are skipped).
///
/// # Safety
/// `attr` is NULL or live; `mode` and `apply_to_int` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_fpmath_mode_v2(
    attr: const_dnnl_primitive_attr_t,
    mode: *mut dnnl_fpmath_mode_t,
    apply_to_int: *mut c_int,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_get_fpmath_mode_v2", || {
        let a = as_rust(attr)?;
        write_opt(mode, a.fpmath_mode.raw());
        write_opt(apply_to_int, c_int::from(a.fpmath_apply_to_int));
        Ok(())
    })
}

/// Sets the floating-point math mode; `apply_to_int` non-zero extends it to integer primitives.
///
/// # Safety
/// `attr` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_fpmath_mode_v2(
    attr: dnnl_primitive_attr_t,
    mode: dnnl_fpmath_mode_t,
    apply_to_int: c_int,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_set_fpmath_mode_v2", || {
        let a = as_rust_mut(attr)?;
        a.fpmath_mode = FpmathMode::parse(mode)?;
        a.fpmath_apply_to_int = apply_to_int != 0;
        Ok(())
    })
}

/// Whether deterministic results were requested (1 or 0).
///
/// # Safety
/// `attr` is NULL or live; `value` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_deterministic(
    attr: const_dnnl_primitive_attr_t,
    value: *mut c_int,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_get_deterministic", || {
        write_out(value, "value", c_int::from(as_rust(attr)?.deterministic))
    })
}

/// Requests deterministic results (non-zero `value`). Recorded only: it does not change how
/// this library's primitives run.
///
/// # Safety
/// `attr` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_deterministic(
    attr: dnnl_primitive_attr_t,
    value: c_int,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_set_deterministic", || {
        as_rust_mut(attr)?.deterministic = value != 0;
        Ok(())
    })
}

/// oxidnn extension: per-sample sequence lengths. With `enabled` = 1, RNN primitives created
/// with these attributes take an execution argument `OXIDNN_ARG_SEQ_LENGTHS`: an `s32` memory
/// of dims `{N}` (its descriptor is the pd's `dnnl_query_exec_arg_md` for that index), each
/// length in `0..=T` (else execution returns `dnnl_invalid_arguments`). Sample `b` then runs
/// its first `len_b` steps only, in every layer — a reversed direction reads times
/// `len_b − 1 … 0` — and costs what those steps cost: its `dst_layer` rows at times `≥ len_b`
/// are zeros (int8: the quantized zero, the data shift, twice it for a bidirectional sum), its
/// `dst_iter` / `dst_iter_c` rows hold each layer's state after its last valid step (`src_iter`
/// / `src_iter_c`, or zeros, when `len_b` = 0; int8 holds an f32 `src_iter` quantized, as its
/// arithmetic holds every state); the directions of a bidirectional RNN are concatenated or
/// summed on the valid times. Forward inference,
/// training and backward (a backward primitive takes the same attribute and the same lengths
/// as the forward training pass whose workspace it reads; its gradients at times `≥ len_b`
/// are zeros). `enabled` = 0 (the default) switches it off; other values are
/// `dnnl_invalid_arguments`.
///
/// # Safety
/// `attr` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_primitive_attr_set_rnn_seq_lengths(
    attr: dnnl_primitive_attr_t,
    enabled: c_int,
) -> dnnl_status_t {
    status("oxidnn_primitive_attr_set_rnn_seq_lengths", || {
        let a = as_rust_mut(attr)?;
        a.rnn_seq_lengths = match enabled {
            0 => false,
            1 => true,
            other => invalid!("enabled must be 0 or 1, not {other}"),
        };
        Ok(())
    })
}

/// oxidnn extension: whether per-sample sequence lengths are switched on (1 or 0), see
/// [`oxidnn_primitive_attr_set_rnn_seq_lengths`].
///
/// # Safety
/// `attr` is NULL or live; `enabled` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oxidnn_primitive_attr_get_rnn_seq_lengths(
    attr: const_dnnl_primitive_attr_t,
    enabled: *mut c_int,
) -> dnnl_status_t {
    status("oxidnn_primitive_attr_get_rnn_seq_lengths", || {
        write_out(
            enabled,
            "enabled",
            c_int::from(as_rust(attr)?.rnn_seq_lengths),
        )
    })
}

/// Sets the RNN data quantization `q = scale·x + shift` (int8 inference and its reorders).
///
/// # Safety
/// `attr` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_data_qparams(
    attr: dnnl_primitive_attr_t,
    scale: f32,
    shift: f32,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_set_rnn_data_qparams", || {
        as_rust_mut(attr)?.rnn_data_qparams = (scale, shift);
        Ok(())
    })
}

/// The RNN data quantization parameters (NULL outputs are skipped).
///
/// # Safety
/// `attr` is NULL or live; `scale` and `shift` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_rnn_data_qparams(
    attr: const_dnnl_primitive_attr_t,
    scale: *mut f32,
    shift: *mut f32,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_get_rnn_data_qparams", || {
        let (sc, sh) = as_rust(attr)?.rnn_data_qparams;
        write_opt(scale, sc);
        write_opt(shift, sh);
        Ok(())
    })
}

/// Sets the RNN weights scales: `count` values, `mask` over the ldigo dims (0: one scale,
/// 24: one per gate and output channel).
///
/// # Safety
/// `attr` is NULL or live; `scales` is NULL or holds `count` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_weights_qparams(
    attr: dnnl_primitive_attr_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_set_rnn_weights_qparams", || {
        let a = as_rust_mut(attr)?;
        a.set_rnn_weights_qparams(mask, parse_scales(count, mask, scales)?)
    })
}

/// The RNN weights scales; `scales` receives a pointer owned by the attributes (valid while
/// they live unchanged). NULL outputs are skipped.
///
/// # Safety
/// `attr` is NULL or live; the outputs are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_rnn_weights_qparams(
    attr: const_dnnl_primitive_attr_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_get_rnn_weights_qparams", || {
        get_qparams(&as_rust(attr)?.rnn_weights_qparams, count, mask, scales);
        Ok(())
    })
}

/// Sets the scales of the LSTM projection weights (`mask` 0 or 8: one per output channel).
///
/// # Safety
/// `attr` is NULL or live; `scales` is NULL or holds `count` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_weights_projection_qparams(
    attr: dnnl_primitive_attr_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    status(
        "dnnl_primitive_attr_set_rnn_weights_projection_qparams",
        || {
            let a = as_rust_mut(attr)?;
            a.set_rnn_weights_projection_qparams(mask, parse_scales(count, mask, scales)?)
        },
    )
}

/// The projection weights scales (pointer owned by the attributes; NULL outputs skipped).
///
/// # Safety
/// `attr` is NULL or live; the outputs are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_rnn_weights_projection_qparams(
    attr: const_dnnl_primitive_attr_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    status(
        "dnnl_primitive_attr_get_rnn_weights_projection_qparams",
        || {
            get_qparams(
                &as_rust(attr)?.rnn_weights_projection_qparams,
                count,
                mask,
                scales,
            );
            Ok(())
        },
    )
}

/// benchdnn's test mode: every activation `f(x)` of gate `g` becomes `scales[g]·x` and the
/// LSTM output `tanh(c)` becomes `cscale·c`.
///
/// # Safety
/// `attr` is NULL or live; `scales` is NULL or holds `ngates` values.
unsafe fn set_rnn_tparams(
    attr: dnnl_primitive_attr_t,
    mode: bool,
    ngates: dnnl_dim_t,
    scales: *const f32,
    cscale: f32,
) -> Result<()> {
    let a = as_rust_mut(attr)?;
    let n = usize::try_from(ngates)
        .map_err(|_| Error::InvalidArguments(format!("ngates {ngates} is negative")))?;
    let scales = slice(scales, n, "scales")?.to_vec();
    a.rnn_tparams = RnnTestParams {
        test_mode: mode,
        scales,
        cscale,
    };
    Ok(())
}

/// Hidden oneDNN entry point used by benchdnn (`--skip-nonlinear`): with `mode` true every
/// activation `f(x)` of gate `g` becomes `scales[g]·x` and the LSTM output `tanh(c)` becomes
/// `cscale·c`. oneDNN exports it without declaring it in its headers.
///
/// # Safety
/// `attr` is NULL or live; `scales` is NULL or holds `ngates` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_tparams(
    attr: dnnl_primitive_attr_t,
    mode: bool,
    ngates: dnnl_dim_t,
    scales: *const f32,
    cscale: f32,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_set_rnn_tparams", || {
        set_rnn_tparams(attr, mode, ngates, scales, cscale)
    })
}

/// The same function under the C++-mangled name oneDNN actually exports it with (it is
/// declared without `extern "C"` in oneDNN), so C++ programs built against oneDNN's own
/// declaration (benchdnn) link too. Itanium ABI on 64-bit Linux, where `dnnl_dim_t` is `long`.
///
/// cbindgen:ignore
///
/// # Safety
/// As [`dnnl_primitive_attr_set_rnn_tparams`].
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[unsafe(export_name = "_Z35dnnl_primitive_attr_set_rnn_tparamsP19dnnl_primitive_attrblPKff")]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_tparams_cxx(
    attr: dnnl_primitive_attr_t,
    mode: bool,
    ngates: dnnl_dim_t,
    scales: *const f32,
    cscale: f32,
) -> dnnl_status_t {
    status("dnnl_primitive_attr_set_rnn_tparams", || {
        set_rnn_tparams(attr, mode, ngates, scales, cscale)
    })
}
