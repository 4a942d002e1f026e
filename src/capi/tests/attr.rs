//! `dnnl_primitive_attr_*`: defaults, setters' validation, getters (NULL outputs skipped where
//! oneDNN skips them), the hidden `set_rnn_tparams` under both of its symbol names.

use super::super::attr::*;
use super::super::types::*;
use crate::attr::Attr;
use std::ptr::{null, null_mut};

fn attr() -> dnnl_primitive_attr_t {
    let mut a = null_mut();
    assert_eq!(unsafe { dnnl_primitive_attr_create(&mut a) }, dnnl_success);
    a
}

fn rust(a: dnnl_primitive_attr_t) -> &'static Attr {
    unsafe { &*a.cast::<Attr>() }
}

#[test]
fn create_clone_destroy() {
    let a = attr();
    let mut c = null_mut();
    unsafe {
        assert_eq!(
            dnnl_primitive_attr_create(null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_set_scratchpad_mode(a, dnnl_scratchpad_mode_user),
            0
        );
        assert_eq!(dnnl_primitive_attr_clone(&mut c, a), dnnl_success);
        assert_eq!(rust(c), rust(a));
        assert_eq!(
            dnnl_primitive_attr_clone(&mut c, null()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_clone(null_mut(), a),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_primitive_attr_destroy(c), dnnl_success);
        assert_eq!(dnnl_primitive_attr_destroy(a), dnnl_success);
        assert_eq!(dnnl_primitive_attr_destroy(null_mut()), dnnl_success);
    }
}

#[test]
fn scratchpad_fpmath_deterministic() {
    let a = attr();
    let (mut m, mut i) = (-5, -5);
    unsafe {
        assert_eq!(dnnl_primitive_attr_get_scratchpad_mode(a, &mut m), 0);
        assert_eq!(m, dnnl_scratchpad_mode_library);
        assert_eq!(
            dnnl_primitive_attr_set_scratchpad_mode(a, dnnl_scratchpad_mode_user),
            0
        );
        assert_eq!(dnnl_primitive_attr_get_scratchpad_mode(a, &mut m), 0);
        assert_eq!(m, dnnl_scratchpad_mode_user);
        for bad in [-1, 2] {
            assert_eq!(
                dnnl_primitive_attr_set_scratchpad_mode(a, bad),
                dnnl_invalid_arguments
            );
        }
        assert_eq!(
            dnnl_primitive_attr_set_scratchpad_mode(null_mut(), 0),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_get_scratchpad_mode(a, null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_get_scratchpad_mode(null(), &mut m),
            dnnl_invalid_arguments
        );

        assert_eq!(dnnl_primitive_attr_get_fpmath_mode(a, &mut m), 0);
        assert_eq!(m, dnnl_fpmath_mode_strict);
        for v in 0..=4 {
            assert_eq!(dnnl_primitive_attr_set_fpmath_mode(a, v), 0);
        }
        for bad in [-1, 5] {
            assert_eq!(
                dnnl_primitive_attr_set_fpmath_mode(a, bad),
                dnnl_invalid_arguments
            );
            assert_eq!(
                dnnl_primitive_attr_set_fpmath_mode_v2(a, bad, 0),
                dnnl_invalid_arguments
            );
        }
        assert_eq!(
            dnnl_primitive_attr_set_fpmath_mode_v2(a, dnnl_fpmath_mode_bf16, -1),
            0
        );
        assert_eq!(dnnl_primitive_attr_get_fpmath_mode_v2(a, &mut m, &mut i), 0);
        assert_eq!((m, i), (dnnl_fpmath_mode_bf16, 1));
        assert_eq!(
            dnnl_primitive_attr_get_fpmath_mode_v2(a, null_mut(), null_mut()),
            0
        );
        // the v1 setter resets apply_to_int, as in oneDNN
        assert_eq!(
            dnnl_primitive_attr_set_fpmath_mode(a, dnnl_fpmath_mode_f16),
            0
        );
        assert_eq!(dnnl_primitive_attr_get_fpmath_mode_v2(a, &mut m, &mut i), 0);
        assert_eq!((m, i), (dnnl_fpmath_mode_f16, 0));
        assert_eq!(
            dnnl_primitive_attr_get_fpmath_mode(a, null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_get_fpmath_mode(null(), &mut m),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_set_fpmath_mode(null_mut(), 0),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_get_fpmath_mode_v2(null(), &mut m, &mut i),
            dnnl_invalid_arguments
        );

        assert_eq!(dnnl_primitive_attr_get_deterministic(a, &mut i), 0);
        assert_eq!(i, 0);
        assert_eq!(dnnl_primitive_attr_set_deterministic(a, 2), 0);
        assert_eq!(dnnl_primitive_attr_get_deterministic(a, &mut i), 0);
        assert_eq!(i, 1);
        assert_eq!(
            dnnl_primitive_attr_get_deterministic(a, null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_set_deterministic(null_mut(), 1),
            dnnl_invalid_arguments
        );
        dnnl_primitive_attr_destroy(a);
    }
}

#[test]
fn rnn_quantization_parameters() {
    let a = attr();
    let (mut sc, mut sh) = (0f32, -1f32);
    let (mut count, mut mask, mut scales) = (0i64, -1, null());
    unsafe {
        assert_eq!(
            dnnl_primitive_attr_get_rnn_data_qparams(a, &mut sc, &mut sh),
            0
        );
        assert_eq!((sc, sh), (1.0, 0.0));
        assert_eq!(dnnl_primitive_attr_set_rnn_data_qparams(a, 63.0, 64.0), 0);
        assert_eq!(
            dnnl_primitive_attr_get_rnn_data_qparams(a, &mut sc, null_mut()),
            0
        );
        assert_eq!(sc, 63.0);
        assert_eq!(
            dnnl_primitive_attr_get_rnn_data_qparams(a, null_mut(), &mut sh),
            0
        );
        assert_eq!(sh, 64.0);
        assert_eq!(
            dnnl_primitive_attr_set_rnn_data_qparams(null_mut(), 1.0, 0.0),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_get_rnn_data_qparams(null(), &mut sc, &mut sh),
            dnnl_invalid_arguments
        );

        type Set =
            unsafe extern "C" fn(dnnl_primitive_attr_t, i64, i32, *const f32) -> dnnl_status_t;
        type Get = unsafe extern "C" fn(
            const_dnnl_primitive_attr_t,
            *mut i64,
            *mut i32,
            *mut *const f32,
        ) -> dnnl_status_t;
        let pairs: [(Set, Get, i32); 2] = [
            (
                dnnl_primitive_attr_set_rnn_weights_qparams,
                dnnl_primitive_attr_get_rnn_weights_qparams,
                24,
            ),
            (
                dnnl_primitive_attr_set_rnn_weights_projection_qparams,
                dnnl_primitive_attr_get_rnn_weights_projection_qparams,
                8,
            ),
        ];
        for (set, get, per_channel) in pairs {
            assert_eq!(get(a, &mut count, &mut mask, &mut scales), 0);
            assert_eq!(
                (count, mask, *scales),
                (1, 0, 1.0),
                "default: one scale of 1"
            );
            let user = [1f32, 2., 3., 4., 5., 6., 7., 8.];
            assert_eq!(set(a, 8, per_channel, user.as_ptr()), 0);
            assert_eq!(get(a, &mut count, &mut mask, &mut scales), 0);
            assert_eq!((count, mask), (8, per_channel));
            assert_ne!(scales, user.as_ptr(), "the attributes own a copy");
            assert_eq!(std::slice::from_raw_parts(scales, 8), &user);
            assert_eq!(
                get(a, null_mut(), null_mut(), null_mut()),
                0,
                "NULL outputs are skipped"
            );
            for (c, m, p) in [
                (0, 0, user.as_ptr()),
                (-1, 0, user.as_ptr()),
                (1, -1, user.as_ptr()),
                (1, 0, null()),
            ] {
                assert_eq!(
                    set(a, c, m, p),
                    dnnl_invalid_arguments,
                    "count {c} mask {m}"
                );
            }
            // As oneDNN 3.13: the setter does not check the count against the mask.
            assert_eq!(set(a, 2, 0, user.as_ptr()), 0);
            assert_eq!(get(a, &mut count, &mut mask, &mut scales), 0);
            assert_eq!((count, mask), (2, 0));
            assert_eq!(set(null_mut(), 1, 0, user.as_ptr()), dnnl_invalid_arguments);
            assert_eq!(
                get(null(), &mut count, &mut mask, &mut scales),
                dnnl_invalid_arguments
            );
        }
        dnnl_primitive_attr_destroy(a);
    }
}

#[test]
fn rnn_test_parameters_under_both_symbol_names() {
    let a = attr();
    let s = [0.5f32, 1.5, 2.5, 3.5];
    unsafe {
        assert_eq!(
            dnnl_primitive_attr_set_rnn_tparams(a, true, 4, s.as_ptr(), 0.25),
            0
        );
        let t = &rust(a).rnn_tparams;
        assert!(t.test_mode);
        assert_eq!((t.scales.as_slice(), t.cscale), (&s[..], 0.25));
        assert_eq!(
            dnnl_primitive_attr_set_rnn_tparams(a, false, 0, null(), 0.0),
            0
        );
        assert!(!rust(a).rnn_tparams.test_mode && rust(a).rnn_tparams.scales.is_empty());
        assert_eq!(
            dnnl_primitive_attr_set_rnn_tparams(a, true, -1, s.as_ptr(), 1.0),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_set_rnn_tparams(a, true, 2, null(), 1.0),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_set_rnn_tparams(null_mut(), true, 4, s.as_ptr(), 1.0),
            dnnl_invalid_arguments
        );
        #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
        {
            assert_eq!(
                dnnl_primitive_attr_set_rnn_tparams_cxx(a, true, 3, s.as_ptr(), 2.0),
                0
            );
            assert_eq!(rust(a).rnn_tparams.scales, &s[..3]);
        }
        dnnl_primitive_attr_destroy(a);
    }
}

#[test]
fn rnn_seq_lengths_switch() {
    let a = attr();
    let mut v: libc::c_int = -1;
    unsafe {
        assert_eq!(oxidnn_primitive_attr_get_rnn_seq_lengths(a, &mut v), 0);
        assert_eq!(v, 0);
        assert_eq!(oxidnn_primitive_attr_set_rnn_seq_lengths(a, 1), 0);
        assert_eq!(oxidnn_primitive_attr_get_rnn_seq_lengths(a, &mut v), 0);
        assert_eq!((v, rust(a).rnn_seq_lengths), (1, true));
        for bad in [2, -1] {
            let s = oxidnn_primitive_attr_set_rnn_seq_lengths(a, bad);
            assert_eq!(s, dnnl_invalid_arguments);
        }
        assert!(rust(a).rnn_seq_lengths);
        assert_eq!(oxidnn_primitive_attr_set_rnn_seq_lengths(a, 0), 0);
        assert!(!rust(a).rnn_seq_lengths);
        let s = oxidnn_primitive_attr_set_rnn_seq_lengths(null_mut(), 1);
        assert_eq!(s, dnnl_invalid_arguments);
        let s = oxidnn_primitive_attr_get_rnn_seq_lengths(a, null_mut());
        assert_eq!(s, dnnl_invalid_arguments);
        let s = oxidnn_primitive_attr_get_rnn_seq_lengths(null(), &mut v);
        assert_eq!(s, dnnl_invalid_arguments);
        dnnl_primitive_attr_destroy(a);
    }
    assert_eq!(OXIDNN_ARG_SEQ_LENGTHS, crate::args::SEQ_LENGTHS);
}
