//! The RNN primitive descriptor creators (`dnnl_{vanilla_rnn,lstm,gru,lbr_gru,augru,
//! lbr_augru}_{forward,backward}_primitive_desc_create`), with oneDNN v3's signatures.
//!
//! Each one validates its enum arguments, builds an [`RnnDesc`] and hands it to `create`,
//! which calls [`RnnPd::new`]. Optional tensors may be given as NULL or as a zero memory
//! descriptor (both mean "absent"); as in oneDNN, the tensors every RNN needs (source and
//! destination layer, both weights, and their diffs for backward) must not be NULL.

use super::boundary::{check_out, status};
use super::handle::{as_rust, as_rust_opt, write_handle};
use super::objects::CPrimitiveDesc;
use super::types::*;
use crate::args;
use crate::attr::Attr;
use crate::error::{Error, Result};
use crate::primitive::PrimitiveDesc;
use crate::rnn::{RnnDesc, RnnPd};
use crate::types::{AlgKind, CEnum, Direction, PropKind};
use libc::c_uint;

/// The `DNNL_ARG_DIFF_*` index of a forward argument.
const fn diff(arg: i32) -> i32 {
    args::DIFF + arg
}

/// Tensors oneDNN requires as non-NULL descriptors (NULL → `invalid_arguments`).
const REQUIRED: [i32; 8] = [
    args::SRC_LAYER,
    args::WEIGHTS_LAYER,
    args::WEIGHTS_ITER,
    args::DST_LAYER,
    diff(args::SRC_LAYER),
    diff(args::WEIGHTS_LAYER),
    diff(args::WEIGHTS_ITER),
    diff(args::DST_LAYER),
];

/// The operation of a creator: propagation kind (one of `allowed`), cell, direction, flags.
fn op(
    prop_kind: dnnl_prop_kind_t,
    allowed: &[PropKind],
    cell: AlgKind,
    direction: dnnl_rnn_direction_t,
    flags: c_uint,
) -> Result<RnnDesc> {
    let prop = PropKind::parse(prop_kind)?;
    if !allowed.contains(&prop) {
        return Err(Error::InvalidArguments(format!(
            "propagation kind {prop} is not one of {} for this function",
            allowed
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let direction = match Direction::parse(direction)? {
        Direction::Undef => return Err(Error::InvalidArguments("rnn direction is undef".into())),
        d => d,
    };
    Ok(RnnDesc {
        flags,
        ..RnnDesc::new(prop, cell, direction)
    })
}

/// A forward operation (`forward_training` or `forward_inference`).
fn forward_op(
    prop_kind: dnnl_prop_kind_t,
    cell: AlgKind,
    direction: dnnl_rnn_direction_t,
    flags: c_uint,
) -> Result<RnnDesc> {
    op(
        prop_kind,
        &[PropKind::ForwardTraining, PropKind::ForwardInference],
        cell,
        direction,
        flags,
    )
}

/// A backward operation (`backward`).
fn backward_op(
    prop_kind: dnnl_prop_kind_t,
    cell: AlgKind,
    direction: dnnl_rnn_direction_t,
    flags: c_uint,
) -> Result<RnnDesc> {
    op(prop_kind, &[PropKind::Backward], cell, direction, flags)
}

/// Adds the vanilla RNN activation (ReLU, tanh or logistic) and its parameters.
fn vanilla(op: RnnDesc, activation: dnnl_alg_kind_t, alpha: f32, beta: f32) -> Result<RnnDesc> {
    let activation = AlgKind::parse(activation)?;
    if !matches!(
        activation,
        AlgKind::EltwiseRelu | AlgKind::EltwiseTanh | AlgKind::EltwiseLogistic
    ) {
        return Err(Error::InvalidArguments(format!(
            "vanilla RNN activation {} is not eltwise_relu, eltwise_tanh or eltwise_logistic",
            activation.name()
        )));
    }
    Ok(RnnDesc {
        activation,
        alpha,
        beta,
        ..op
    })
}

/// What every creator does once its operation is known: checks the required tensors, adds the
/// given ones to `op`, creates the primitive descriptor and writes its handle.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
unsafe fn create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    op: RnnDesc,
    tensors: &[(i32, const_dnnl_memory_desc_t)],
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> Result<()> {
    check_out(primitive_desc, "primitive_desc")?;
    let e = *as_rust(engine)?;
    let mut desc = op;
    for &(arg, md) in tensors {
        if REQUIRED.contains(&arg) {
            match as_rust_opt(md) {
                None => {
                    return Err(Error::InvalidArguments(format!(
                        "the descriptor of {} is NULL",
                        args::rnn_name(arg)
                    )))
                }
                // oneDNN answers a zero descriptor for a required tensor with `unimplemented`.
                Some(m) if m.is_zero() => {
                    return Err(Error::Unimplemented(format!(
                        "the descriptor of {} is a zero memory descriptor",
                        args::rnn_name(arg)
                    )))
                }
                Some(_) => {}
            }
        }
        desc = desc.with(arg, as_rust_opt(md));
    }
    let attr = as_rust_opt(attr).cloned().unwrap_or_else(Attr::new);
    let hint = as_rust_opt(hint_fwd_pd).and_then(|c| match &c.pd {
        PrimitiveDesc::Rnn(p) => Some(&**p),
        PrimitiveDesc::Reorder(_) => None,
    });
    let pd = PrimitiveDesc::Rnn(Box::new(RnnPd::new(e, desc, &attr, hint)?));
    let c = CPrimitiveDesc::new(pd, engine);
    write_handle::<dnnl_primitive_desc>(primitive_desc, "primitive_desc", c)
}

/// Creates a vanilla RNN forward (training or inference) primitive descriptor.
/// `activation` is `dnnl_eltwise_relu` (negative slope `alpha`), `_tanh` or `_logistic`.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_vanilla_rnn_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    activation: dnnl_alg_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    alpha: f32,
    beta: f32,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_vanilla_rnn_forward_primitive_desc_create", || {
        let op = vanilla(
            forward_op(prop_kind, AlgKind::VanillaRnn, direction, flags)?,
            activation,
            alpha,
            beta,
        )?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
        ];
        create(primitive_desc, engine, op, &tensors, std::ptr::null(), attr)
    })
}

/// Creates a vanilla RNN backward primitive descriptor.
/// `activation` is `dnnl_eltwise_relu` (negative slope `alpha`), `_tanh` or `_logistic`.
/// `hint_fwd_pd` (may be NULL) is the forward training descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_vanilla_rnn_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    activation: dnnl_alg_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    alpha: f32,
    beta: f32,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_vanilla_rnn_backward_primitive_desc_create", || {
        let op = vanilla(
            backward_op(prop_kind, AlgKind::VanillaRnn, direction, flags)?,
            activation,
            alpha,
            beta,
        )?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
            (diff(args::SRC_LAYER), diff_src_layer_desc),
            (diff(args::SRC_ITER), diff_src_iter_desc),
            (diff(args::WEIGHTS_LAYER), diff_weights_layer_desc),
            (diff(args::WEIGHTS_ITER), diff_weights_iter_desc),
            (diff(args::BIAS), diff_bias_desc),
            (diff(args::DST_LAYER), diff_dst_layer_desc),
            (diff(args::DST_ITER), diff_dst_iter_desc),
        ];
        create(primitive_desc, engine, op, &tensors, hint_fwd_pd, attr)
    })
}

/// Creates a LSTM (with optional peephole and projection) forward (training or inference) primitive descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lstm_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    src_iter_c_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    weights_peephole_desc: const_dnnl_memory_desc_t,
    weights_projection_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    dst_iter_c_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_lstm_forward_primitive_desc_create", || {
        let op = forward_op(prop_kind, AlgKind::VanillaLstm, direction, flags)?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::SRC_ITER_C, src_iter_c_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::WEIGHTS_PEEPHOLE, weights_peephole_desc),
            (args::WEIGHTS_PROJECTION, weights_projection_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
            (args::DST_ITER_C, dst_iter_c_desc),
        ];
        create(primitive_desc, engine, op, &tensors, std::ptr::null(), attr)
    })
}

/// Creates a LSTM (with optional peephole and projection) backward primitive descriptor.
/// `hint_fwd_pd` (may be NULL) is the forward training descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lstm_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    src_iter_c_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    weights_peephole_desc: const_dnnl_memory_desc_t,
    weights_projection_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    dst_iter_c_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_src_iter_c_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_weights_peephole_desc: const_dnnl_memory_desc_t,
    diff_weights_projection_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_c_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_lstm_backward_primitive_desc_create", || {
        let op = backward_op(prop_kind, AlgKind::VanillaLstm, direction, flags)?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::SRC_ITER_C, src_iter_c_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::WEIGHTS_PEEPHOLE, weights_peephole_desc),
            (args::WEIGHTS_PROJECTION, weights_projection_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
            (args::DST_ITER_C, dst_iter_c_desc),
            (diff(args::SRC_LAYER), diff_src_layer_desc),
            (diff(args::SRC_ITER), diff_src_iter_desc),
            (diff(args::SRC_ITER_C), diff_src_iter_c_desc),
            (diff(args::WEIGHTS_LAYER), diff_weights_layer_desc),
            (diff(args::WEIGHTS_ITER), diff_weights_iter_desc),
            (diff(args::WEIGHTS_PEEPHOLE), diff_weights_peephole_desc),
            (diff(args::WEIGHTS_PROJECTION), diff_weights_projection_desc),
            (diff(args::BIAS), diff_bias_desc),
            (diff(args::DST_LAYER), diff_dst_layer_desc),
            (diff(args::DST_ITER), diff_dst_iter_desc),
            (diff(args::DST_ITER_C), diff_dst_iter_c_desc),
        ];
        create(primitive_desc, engine, op, &tensors, hint_fwd_pd, attr)
    })
}

/// Creates a GRU forward (training or inference) primitive descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_gru_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_gru_forward_primitive_desc_create", || {
        let op = forward_op(prop_kind, AlgKind::VanillaGru, direction, flags)?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
        ];
        create(primitive_desc, engine, op, &tensors, std::ptr::null(), attr)
    })
}

/// Creates a GRU backward primitive descriptor.
/// `hint_fwd_pd` (may be NULL) is the forward training descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_gru_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_gru_backward_primitive_desc_create", || {
        let op = backward_op(prop_kind, AlgKind::VanillaGru, direction, flags)?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
            (diff(args::SRC_LAYER), diff_src_layer_desc),
            (diff(args::SRC_ITER), diff_src_iter_desc),
            (diff(args::WEIGHTS_LAYER), diff_weights_layer_desc),
            (diff(args::WEIGHTS_ITER), diff_weights_iter_desc),
            (diff(args::BIAS), diff_bias_desc),
            (diff(args::DST_LAYER), diff_dst_layer_desc),
            (diff(args::DST_ITER), diff_dst_iter_desc),
        ];
        create(primitive_desc, engine, op, &tensors, hint_fwd_pd, attr)
    })
}

/// Creates a linear-before-reset GRU forward (training or inference) primitive descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lbr_gru_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_lbr_gru_forward_primitive_desc_create", || {
        let op = forward_op(prop_kind, AlgKind::LbrGru, direction, flags)?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
        ];
        create(primitive_desc, engine, op, &tensors, std::ptr::null(), attr)
    })
}

/// Creates a linear-before-reset GRU backward primitive descriptor.
/// `hint_fwd_pd` (may be NULL) is the forward training descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lbr_gru_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_lbr_gru_backward_primitive_desc_create", || {
        let op = backward_op(prop_kind, AlgKind::LbrGru, direction, flags)?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
            (diff(args::SRC_LAYER), diff_src_layer_desc),
            (diff(args::SRC_ITER), diff_src_iter_desc),
            (diff(args::WEIGHTS_LAYER), diff_weights_layer_desc),
            (diff(args::WEIGHTS_ITER), diff_weights_iter_desc),
            (diff(args::BIAS), diff_bias_desc),
            (diff(args::DST_LAYER), diff_dst_layer_desc),
            (diff(args::DST_ITER), diff_dst_iter_desc),
        ];
        create(primitive_desc, engine, op, &tensors, hint_fwd_pd, attr)
    })
}

/// Creates a AUGRU forward (training or inference) primitive descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_augru_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    attention_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_augru_forward_primitive_desc_create", || {
        let op = forward_op(prop_kind, AlgKind::VanillaAugru, direction, flags)?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::AUGRU_ATTENTION, attention_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
        ];
        create(primitive_desc, engine, op, &tensors, std::ptr::null(), attr)
    })
}

/// Creates a AUGRU backward primitive descriptor.
/// `hint_fwd_pd` (may be NULL) is the forward training descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_augru_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    attention_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_attention_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_augru_backward_primitive_desc_create", || {
        let op = backward_op(prop_kind, AlgKind::VanillaAugru, direction, flags)?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::AUGRU_ATTENTION, attention_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
            (diff(args::SRC_LAYER), diff_src_layer_desc),
            (diff(args::SRC_ITER), diff_src_iter_desc),
            (diff(args::AUGRU_ATTENTION), diff_attention_desc),
            (diff(args::WEIGHTS_LAYER), diff_weights_layer_desc),
            (diff(args::WEIGHTS_ITER), diff_weights_iter_desc),
            (diff(args::BIAS), diff_bias_desc),
            (diff(args::DST_LAYER), diff_dst_layer_desc),
            (diff(args::DST_ITER), diff_dst_iter_desc),
        ];
        create(primitive_desc, engine, op, &tensors, hint_fwd_pd, attr)
    })
}

/// Creates a linear-before-reset AUGRU forward (training or inference) primitive descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lbr_augru_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    attention_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_lbr_augru_forward_primitive_desc_create", || {
        let op = forward_op(prop_kind, AlgKind::LbrAugru, direction, flags)?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::AUGRU_ATTENTION, attention_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
        ];
        create(primitive_desc, engine, op, &tensors, std::ptr::null(), attr)
    })
}

/// Creates a linear-before-reset AUGRU backward primitive descriptor.
/// `hint_fwd_pd` (may be NULL) is the forward training descriptor.
///
/// # Safety
/// `primitive_desc` is NULL or writable; every handle is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lbr_augru_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    attention_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_attention_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    status("dnnl_lbr_augru_backward_primitive_desc_create", || {
        let op = backward_op(prop_kind, AlgKind::LbrAugru, direction, flags)?;
        let tensors = [
            (args::SRC_LAYER, src_layer_desc),
            (args::SRC_ITER, src_iter_desc),
            (args::AUGRU_ATTENTION, attention_desc),
            (args::WEIGHTS_LAYER, weights_layer_desc),
            (args::WEIGHTS_ITER, weights_iter_desc),
            (args::BIAS, bias_desc),
            (args::DST_LAYER, dst_layer_desc),
            (args::DST_ITER, dst_iter_desc),
            (diff(args::SRC_LAYER), diff_src_layer_desc),
            (diff(args::SRC_ITER), diff_src_iter_desc),
            (diff(args::AUGRU_ATTENTION), diff_attention_desc),
            (diff(args::WEIGHTS_LAYER), diff_weights_layer_desc),
            (diff(args::WEIGHTS_ITER), diff_weights_iter_desc),
            (diff(args::BIAS), diff_bias_desc),
            (diff(args::DST_LAYER), diff_dst_layer_desc),
            (diff(args::DST_ITER), diff_dst_iter_desc),
        ];
        create(primitive_desc, engine, op, &tensors, hint_fwd_pd, attr)
    })
}
