//! The texts `oxidnn_get_last_error_message()` gives for representative failures: arguments by
//! their `DNNL_ARG_*` names, layouts by oneDNN's tag names (RNN aliases in RNN context), enum
//! values by oneDNN's names — no Rust debug syntax.

use super::super::memory::*;
use super::super::memory_desc::*;
use super::super::primitive::*;
use super::super::rnn::*;
use super::super::types::*;
use super::{engine, last_error, md, md_dt, stream};
use libc::{c_int, c_void};
use std::ptr::{null, null_mut};

const ALLOCATE: *mut c_void = usize::MAX as *mut c_void;

/// T=2, N=3, C=4 single-layer LSTM forward inference pd (`ldigo` weights, `ldgo` bias).
unsafe fn lstm(
    direction: dnnl_rnn_direction_t,
    src: const_dnnl_memory_desc_t,
    weights: const_dnnl_memory_desc_t,
) -> (dnnl_status_t, dnnl_primitive_desc_t) {
    let mut pd = null_mut();
    let st = dnnl_lstm_forward_primitive_desc_create(
        &mut pd,
        engine(),
        dnnl_forward_inference,
        direction,
        src,
        null(),
        null(),
        weights,
        md(&[1, 1, 4, 4, 4], dnnl_ldigo),
        null(),
        null(),
        md(&[1, 1, 4, 4], dnnl_ldgo),
        md(&[2, 3, 4], dnnl_tnc),
        null(),
        null(),
        0,
        null(),
    );
    (st, pd)
}

fn create_error(st: dnnl_status_t, want_status: dnnl_status_t, text: &str) {
    assert_eq!(st, want_status, "{}", last_error());
    assert_eq!(
        last_error(),
        format!("dnnl_lstm_forward_primitive_desc_create: {text}")
    );
}

#[test]
fn creation_errors_name_arguments_and_values() {
    let (src, wl) = (md(&[2, 3, 4], dnnl_tnc), md(&[1, 1, 4, 4, 4], dnnl_ldigo));
    unsafe {
        let (st, _) = lstm(dnnl_unidirectional_left2right, null(), wl);
        create_error(
            st,
            dnnl_invalid_arguments,
            "invalid arguments: the descriptor of DNNL_ARG_SRC_LAYER is NULL",
        );
        let bf16 = md_dt(&[2, 3, 4], dnnl_bf16, dnnl_tnc);
        let (st, _) = lstm(dnnl_unidirectional_left2right, bf16, wl);
        create_error(
            st,
            dnnl_unimplemented,
            "unimplemented: DNNL_ARG_WEIGHTS_LAYER is f32: a bf16 RNN takes bf16",
        );
        let (st, _) = lstm(dnnl_bidirectional_concat, src, wl);
        create_error(
            st,
            dnnl_invalid_arguments,
            "invalid arguments: weights have 1 directions but bidirectional_concat needs 2",
        );
        // src_layer with strided channels
        let (mut strided, d, s) = (null_mut(), [2i64, 3, 4], [24i64, 8, 2]);
        dnnl_memory_desc_create_with_strides(&mut strided, 3, d.as_ptr(), dnnl_f32, s.as_ptr());
        let (st, _) = lstm(dnnl_unidirectional_left2right, strided, wl);
        create_error(
            st,
            dnnl_unimplemented,
            "unimplemented: DNNL_ARG_SRC_LAYER is f32 [2, 3, 4] strides [24, 8, 2]: channels must \
             be contiguous (innermost stride 1)",
        );
    }
}

/// Runs `pd` with src_layer, weights_layer, weights_iter, bias and dst_layer memories of the
/// given descriptors, plus `extra` arguments; the status.
unsafe fn execute(
    pd: dnnl_primitive_desc_t,
    mds: [dnnl_memory_desc_t; 5],
    extra: &[c_int],
) -> dnnl_status_t {
    let mut prim = null_mut();
    assert_eq!(dnnl_primitive_create(&mut prim, pd), dnnl_success);
    let names = [
        DNNL_ARG_SRC_LAYER,
        DNNL_ARG_WEIGHTS_LAYER,
        DNNL_ARG_WEIGHTS_ITER,
        DNNL_ARG_BIAS,
        DNNL_ARG_DST_LAYER,
    ];
    let mut args: Vec<dnnl_exec_arg_t> = names
        .iter()
        .zip(mds)
        .map(|(&arg, m)| {
            let mut memory = null_mut();
            assert_eq!(dnnl_memory_create(&mut memory, m, engine(), ALLOCATE), 0);
            dnnl_exec_arg_t { arg, memory }
        })
        .collect();
    for &e in extra {
        let memory = args.iter().find(|a| a.arg == e.abs()).unwrap().memory;
        args.push(dnnl_exec_arg_t { arg: e, memory });
    }
    let dropped: Vec<c_int> = extra.iter().filter(|&&e| e < 0).map(|e| -e).collect();
    args.retain(|a| a.arg > 0 && !dropped.contains(&a.arg));
    dnnl_primitive_execute(prim, stream(), args.len() as c_int, args.as_ptr())
}

#[test]
fn execution_errors_name_arguments_and_layouts() {
    let src = md(&[2, 3, 4], dnnl_tnc);
    let w = || md(&[1, 1, 4, 4, 4], dnnl_ldigo);
    let (bias, dst) = (md(&[1, 1, 4, 4], dnnl_ldgo), md(&[2, 3, 4], dnnl_tnc));
    unsafe {
        let (st, pd) = lstm(dnnl_unidirectional_left2right, src, w());
        assert_eq!(st, dnnl_success, "{}", last_error());
        let mds = [src, w(), w(), bias, dst];
        assert_eq!(execute(pd, mds, &[]), dnnl_success, "{}", last_error());

        // the pd's descriptor decides how a buffer is read: another layout of the same span is
        // taken (as in oneDNN), a memory spanning less is refused
        let ntc = md(&[2, 3, 4], dnnl_ntc);
        assert_eq!(execute(pd, [ntc, w(), w(), bias, dst], &[]), dnnl_success);
        let short = md(&[2, 3, 2], dnnl_tnc);
        assert_eq!(execute(pd, [short, w(), w(), bias, dst], &[]), 2);
        assert_eq!(
            last_error(),
            "dnnl_primitive_execute: invalid arguments: DNNL_ARG_SRC_LAYER: the primitive \
             descriptor's f32 [2, 3, 4] tnc reaches 96 bytes from the data handle, but the \
             memory's descriptor, f32 [2, 3, 2] tnc, spans only 48"
        );
        let small_w = md(&[1, 1, 4, 4, 2], dnnl_ldgoi);
        assert_eq!(execute(pd, [src, w(), small_w, bias, dst], &[]), 2);
        assert_eq!(
            last_error(),
            "dnnl_primitive_execute: invalid arguments: DNNL_ARG_WEIGHTS_ITER: the primitive \
             descriptor's f32 [1, 1, 4, 4, 4] ldigo reaches 256 bytes from the data handle, \
             but the memory's descriptor, f32 [1, 1, 4, 4, 2] ldgoi, spans only 128"
        );
        // a negative entry drops that argument; a positive one repeats it
        assert_eq!(execute(pd, mds, &[-DNNL_ARG_BIAS]), 2);
        assert_eq!(
            last_error(),
            "dnnl_primitive_execute: invalid arguments: execution argument DNNL_ARG_BIAS is \
             missing"
        );
        assert_eq!(execute(pd, mds, &[DNNL_ARG_SRC_LAYER]), 2);
        assert_eq!(
            last_error(),
            "dnnl_primitive_execute: invalid arguments: execution argument DNNL_ARG_SRC_LAYER / \
             DNNL_ARG_FROM given twice"
        );
    }
}
