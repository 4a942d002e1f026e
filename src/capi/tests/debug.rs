//! Version, verbose level, `*2str` names (against oneDNN 3.13's answers), the last-error
//! extension, panics at the boundary, and agreement between core enums and C constants.

use super::super::boundary::{status, value};
use super::super::debug::*;
use super::super::types::*;
use super::{c_str, last_error};
use crate::error::Error;
use crate::types::{
    AlgKind, CEnum, DataType, Direction, EngineKind, FormatKind, FpmathMode, PrimitiveKind,
    PropKind, RnnFlags, ScratchpadMode,
};

#[test]
fn version_is_onednn_3_13_with_the_headers_cpu_runtime() {
    let v = unsafe { &*dnnl_version() };
    assert_eq!((v.major, v.minor, v.patch), (3, 13, 0));
    assert_eq!(c_str(v.hash), concat!("oxidnn-", env!("CARGO_PKG_VERSION")));
    assert_eq!(v.cpu_runtime, DNNL_RUNTIME_SEQ); // DNNL_CPU_RUNTIME in include/oxidnn.h
    assert_eq!(v.gpu_runtime, DNNL_RUNTIME_NONE);
    assert!(std::ptr::eq(v, dnnl_version()), "one static structure");
    assert!(c_str(oxidnn_version_string()).contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn set_verbose_takes_levels_0_to_2() {
    for bad in [-1, 3, 100] {
        assert_eq!(dnnl_set_verbose(bad), dnnl_invalid_arguments);
    }
    for ok in [2, 1, 0] {
        assert_eq!(dnnl_set_verbose(ok), dnnl_success);
    }
    assert_eq!(super::super::verbose::flags(), 0);
}

type ToStr = extern "C" fn(i32) -> *const libc::c_char;

/// `(what, function, [(value, expected name)])`.
type NameCases<'a> = &'a [(&'a str, ToStr, &'a [(i32, &'a str)])];

/// `(function, value, what oneDNN 3.13 returns)`, from a C program run against the real
/// library; values our headers do not define expect oneDNN's "unknown" text.
#[test]
fn names_match_onednn() {
    let cases: NameCases = &[
        (
            "status",
            dnnl_status2str,
            &[
                (-1, "unknown status"),
                (0, "success"),
                (1, "out_of_memory"),
                (2, "invalid_arguments"),
                (3, "unimplemented"),
                (4, "last_impl_reached"),
                (5, "runtime_error"),
                (6, "not_required"),
                (7, "invalid_graph"),
                (8, "invalid_graph_op"),
                (9, "invalid_shape"),
                (10, "invalid_data_type"),
                (11, "unknown status"),
            ],
        ),
        (
            "dt",
            dnnl_dt2str,
            &[
                (-1, "unknown dt"),
                (0, "undef"),
                (1, "f16"),
                (2, "bf16"),
                (3, "f32"),
                (4, "s32"),
                (5, "s8"),
                (6, "u8"),
                (7, "f64"),
                (8, "boolean"),
                (15, "unknown dt"),
            ],
        ),
        (
            "engine kind",
            dnnl_engine_kind2str,
            &[
                (-1, "unknown engine_kind"),
                (0, "any"),
                (1, "cpu"),
                (2, "gpu"),
                (3, "unknown engine_kind"),
            ],
        ),
        (
            "fmt tag",
            dnnl_fmt_tag2str,
            &[
                (-1, "unknown fmt_tag"),
                (0, "undef"),
                (1, "any"),
                (2, "a"),
                (3, "ab"),
                (4, "abc"),
                (5, "abcd"),
                (6, "abcde"),
                (7, "abcdef"),
                (14, "ba"),
                (15, "acb"),
                (16, "bac"),
                (17, "bca"),
                (18, "cab"),
                (19, "cba"),
                (20, "abdc"),
                (21, "acbd"),
                (22, "acdb"),
                (23, "adbc"),
                (24, "adcb"),
                (25, "bacd"),
                (26, "bcda"),
                (27, "cdab"),
                (28, "cdba"),
                (29, "dcab"),
                (30, "abced"),
                (31, "abdec"),
                (32, "acbde"),
                (33, "acdeb"),
                (34, "adecb"),
                (35, "bacde"),
                (36, "bcdea"),
                (37, "cdeab"),
                (38, "cdeba"),
                (39, "decab"),
                (40, "abcdfe"),
                (41, "abdefc"),
                (42, "abdfce"),
                (43, "acbdef"),
                (44, "adefcb"),
                (45, "defcab"),
                (9999, "unknown fmt_tag"),
            ],
        ),
        (
            "prop kind",
            dnnl_prop_kind2str,
            &[
                (-1, "unknown prop_kind"),
                (0, "undef"),
                (64, "forward_training"),
                (96, "forward_inference"),
                (128, "backward"),
                (160, "backward_data"),
                (192, "backward_weights"),
                (193, "backward_bias"),
                (1, "unknown prop_kind"),
                (255, "unknown prop_kind"),
            ],
        ),
        (
            "prim kind",
            dnnl_prim_kind2str,
            &[
                (-1, "unknown prim_kind"),
                (0, "undef"),
                (1, "reorder"),
                (11, "rnn"),
                (22, "unknown prim_kind"),
            ],
        ),
        (
            "alg kind",
            dnnl_alg_kind2str,
            &[
                (-1, "unknown alg_kind"),
                (0, "undef"),
                (32, "eltwise_relu"),
                (33, "eltwise_tanh"),
                (41, "eltwise_logistic"),
                (8191, "vanilla_rnn"),
                (12287, "vanilla_lstm"),
                (16383, "vanilla_gru"),
                (20479, "lbr_gru"),
                (24575, "vanilla_augru"),
                (28671, "lbr_augru"),
                (32767, "unknown alg_kind"),
                (9999, "unknown alg_kind"),
            ],
        ),
        (
            "rnn flags",
            dnnl_rnn_flags2str,
            &[
                (-1, "unknown rnn_flags"),
                (0, "undef"),
                (1, "rnn_flags_diff_weights_overwrite"),
                (2, "unknown rnn_flags"),
            ],
        ),
        (
            "rnn direction",
            dnnl_rnn_direction2str,
            &[
                (-1, "unknown rnn_direction"),
                (0, "undef"),
                (1, "unidirectional_left2right"),
                (2, "unidirectional_right2left"),
                (3, "bidirectional_concat"),
                (4, "bidirectional_sum"),
                (5, "unknown rnn_direction"),
            ],
        ),
        (
            "scratchpad mode",
            dnnl_scratchpad_mode2str,
            &[
                (-1, "unknown scratchpad_mode"),
                (0, "library"),
                (1, "user"),
                (2, "unknown scratchpad_mode"),
            ],
        ),
        (
            "fpmath mode",
            dnnl_fpmath_mode2str,
            &[
                (-1, "unknown fpmath_mode"),
                (0, "strict"),
                (1, "bf16"),
                (2, "f16"),
                (3, "any"),
                (4, "tf32"),
                (5, "unknown fpmath_mode"),
            ],
        ),
        (
            "accumulation mode",
            dnnl_accumulation_mode2str,
            &[
                (-1, "unknown accumulation_mode"),
                (0, "strict"),
                (1, "relaxed"),
                (2, "any"),
                (3, "s32"),
                (4, "f32"),
                (5, "f16"),
                (6, "unknown accumulation_mode"),
            ],
        ),
        (
            "cpu isa",
            dnnl_cpu_isa2str,
            &[
                (0, "cpu_isa_default"),
                (0x1, "cpu_isa_sse41"),
                (0x7, "cpu_isa_avx2"),
                (0x1f, "cpu_isa_avx2_vnni_2"),
                (0x1ef, "cpu_isa_avx10_1_512"),
                (0xfef, "cpu_isa_avx10_1_512_amx"),
                (0x1fef, "cpu_isa_avx10_1_512_amx_fp16"),
                (0x22fff, "cpu_isa_avx10_2_amx_2"),
                (0x5, "unknown cpu_isa"),
            ],
        ),
        (
            "cpu isa hints",
            dnnl_cpu_isa_hints2str,
            &[
                (0, "cpu_isa_no_hints"),
                (1, "cpu_isa_prefer_ymm"),
                (2, "unknown cpu_isa_hints"),
            ],
        ),
        (
            "quantization mode",
            dnnl_quantization_mode2str,
            &[
                (0, "undef"),
                (1, "static_sazp"),
                (3, "dynamic_fp"),
                (4, "unknown quantization_mode"),
            ],
        ),
        (
            "rounding mode",
            dnnl_rounding_mode2str,
            &[
                (0, "environment"),
                (1, "stochastic"),
                (2, "unknown rounding_mode"),
            ],
        ),
        (
            "sparse encoding",
            dnnl_sparse_encoding2str,
            &[
                (0, "undef"),
                (1, "csr"),
                (2, "packed"),
                (3, "coo"),
                (4, "unknown sparse_encoding"),
            ],
        ),
        (
            "fmt kind",
            dnnl_fmt_kind2str,
            &[
                (-1, "unknown fmt_kind"),
                (0, "undef"),
                (1, "any"),
                (2, "blocked"),
                (3, "unknown fmt_kind"),
            ],
        ),
    ];
    for (what, f, expected) in cases {
        for &(v, name) in *expected {
            let p = f(v);
            assert_eq!(c_str(p), name, "{what} {v}");
            assert!(
                std::ptr::eq(p, f(v)),
                "{what} {v}: the same static string every time"
            );
        }
    }
    let runtimes: &[(u32, &str)] = &[
        (0, "none"),
        (1, "sequential"),
        (2, "OpenMP"),
        (4, "TBB"),
        (8, "threadpool"),
        (256, "OpenCL"),
        (512, "SYCL"),
        (1024, "Level Zero"),
        (3, "unknown"),
        (16, "unknown"),
    ];
    for &(v, name) in runtimes {
        assert_eq!(c_str(dnnl_runtime2str(v)), name, "runtime {v}");
    }
}

/// Every variant of `E` paired with its C constant: all variants covered, values equal, and
/// the `*2str` function returns the variant's name.
fn check_enum<E: CEnum + std::fmt::Debug + PartialEq>(
    pairs: &[(E, i32)],
    to_str: ToStr,
    except: &[E],
) {
    for v in E::ALL {
        assert!(
            pairs.iter().any(|(e, _)| e == v),
            "{} {v:?} has no C constant in the test",
            E::WHAT
        );
    }
    for (e, c) in pairs {
        assert_eq!(e.raw(), *c, "{} {e:?}", E::WHAT);
        assert_eq!(E::from_raw(*c), Some(*e));
        if !except.contains(e) {
            assert_eq!(c_str(to_str(*c)), e.name(), "{} {e:?}", E::WHAT);
        }
    }
}

#[test]
fn core_enums_agree_with_the_c_constants_and_names() {
    use AlgKind as A;
    check_enum(
        &[
            (DataType::Undef, dnnl_data_type_undef),
            (DataType::F16, dnnl_f16),
            (DataType::Bf16, dnnl_bf16),
            (DataType::F32, dnnl_f32),
            (DataType::S32, dnnl_s32),
            (DataType::S8, dnnl_s8),
            (DataType::U8, dnnl_u8),
        ],
        dnnl_dt2str,
        &[],
    );
    check_enum(
        &[
            (PropKind::Undef, dnnl_prop_kind_undef),
            (PropKind::ForwardTraining, dnnl_forward_training),
            (PropKind::ForwardInference, dnnl_forward_inference),
            (PropKind::Backward, dnnl_backward),
            (PropKind::BackwardData, dnnl_backward_data),
            (PropKind::BackwardWeights, dnnl_backward_weights),
            (PropKind::BackwardBias, dnnl_backward_bias),
        ],
        dnnl_prop_kind2str,
        &[],
    );
    check_enum(
        &[
            (Direction::Undef, dnnl_rnn_direction_undef),
            (Direction::Left2Right, dnnl_unidirectional_left2right),
            (Direction::Right2Left, dnnl_unidirectional_right2left),
            (Direction::BidirectionalConcat, dnnl_bidirectional_concat),
            (Direction::BidirectionalSum, dnnl_bidirectional_sum),
        ],
        dnnl_rnn_direction2str,
        &[],
    );
    check_enum(
        &[
            (A::Undef, dnnl_alg_kind_undef),
            (A::VanillaRnn, dnnl_vanilla_rnn),
            (A::VanillaLstm, dnnl_vanilla_lstm),
            (A::VanillaGru, dnnl_vanilla_gru),
            (A::LbrGru, dnnl_lbr_gru),
            (A::VanillaAugru, dnnl_vanilla_augru),
            (A::LbrAugru, dnnl_lbr_augru),
            (A::EltwiseRelu, dnnl_eltwise_relu),
            (A::EltwiseTanh, dnnl_eltwise_tanh),
            (A::EltwiseLogistic, dnnl_eltwise_logistic),
        ],
        dnnl_alg_kind2str,
        &[],
    );
    check_enum(
        &[
            (PrimitiveKind::Undef, dnnl_undefined_primitive),
            (PrimitiveKind::Reorder, dnnl_reorder),
            (PrimitiveKind::Rnn, dnnl_rnn),
        ],
        dnnl_prim_kind2str,
        &[],
    );
    check_enum(
        &[
            (EngineKind::Any, dnnl_any_engine),
            (EngineKind::Cpu, dnnl_cpu),
            (EngineKind::Gpu, dnnl_gpu),
        ],
        dnnl_engine_kind2str,
        &[],
    );
    // oneDNN has no name for the opaque and host-scalar format kinds ("unknown fmt_kind").
    check_enum(
        &[
            (FormatKind::Undef, dnnl_format_kind_undef),
            (FormatKind::Any, dnnl_format_kind_any),
            (FormatKind::Blocked, dnnl_blocked),
            (FormatKind::Opaque, dnnl_format_kind_opaque),
            // oneDNN 3.13's dnnl_format_kind_host_scalar
            (FormatKind::HostScalar, 5),
        ],
        dnnl_fmt_kind2str,
        &[FormatKind::Opaque, FormatKind::HostScalar],
    );
    check_enum(
        &[
            (ScratchpadMode::Library, dnnl_scratchpad_mode_library),
            (ScratchpadMode::User, dnnl_scratchpad_mode_user),
        ],
        dnnl_scratchpad_mode2str,
        &[],
    );
    check_enum(
        &[
            (FpmathMode::Strict, dnnl_fpmath_mode_strict),
            (FpmathMode::Bf16, dnnl_fpmath_mode_bf16),
            (FpmathMode::F16, dnnl_fpmath_mode_f16),
            (FpmathMode::Any, dnnl_fpmath_mode_any),
            (FpmathMode::Tf32, dnnl_fpmath_mode_tf32),
        ],
        dnnl_fpmath_mode2str,
        &[],
    );
    check_enum(
        &[
            (RnnFlags::Undef, dnnl_rnn_flags_undef),
            (
                RnnFlags::DiffWeightsOverwrite,
                dnnl_rnn_flags_diff_weights_overwrite,
            ),
        ],
        dnnl_rnn_flags2str,
        &[],
    );
    // Status: the core's values are the C ones.
    use crate::error::Status as S;
    for (s, c) in [
        (S::Success, dnnl_success),
        (S::OutOfMemory, dnnl_out_of_memory),
        (S::InvalidArguments, dnnl_invalid_arguments),
        (S::Unimplemented, dnnl_unimplemented),
        (S::LastImplReached, dnnl_last_impl_reached),
        (S::RuntimeError, dnnl_runtime_error),
        (S::NotRequired, dnnl_not_required),
    ] {
        assert_eq!(s as i32, c);
    }
}

#[test]
fn last_error_message_is_per_thread_and_kept_until_the_next_failure() {
    std::thread::spawn(|| {
        assert_eq!(last_error(), "", "a new thread has no error");
        assert_eq!(dnnl_set_verbose(7), dnnl_invalid_arguments);
        let msg = last_error();
        assert!(
            msg.contains("dnnl_set_verbose") && msg.contains('7'),
            "{msg}"
        );
        assert_eq!(dnnl_set_verbose(0), dnnl_success);
        assert_eq!(last_error(), msg, "success does not clear the message");
        std::thread::spawn(|| assert_eq!(last_error(), ""))
            .join()
            .unwrap();
    })
    .join()
    .unwrap();
}

#[test]
fn a_panic_becomes_runtime_error_with_a_message() {
    std::thread::spawn(|| {
        let st = status("oxidnn_test_panic", || panic!("deliberate test panic"));
        assert_eq!(st, dnnl_runtime_error);
        let msg = last_error();
        assert!(
            msg.contains("oxidnn_test_panic") && msg.contains("deliberate test panic"),
            "{msg}"
        );
        let v = value("oxidnn_test_panic_value", 42usize, || {
            panic!("formatted {}", 7)
        });
        assert_eq!(v, 42, "value() returns the fallback after a panic");
        assert!(last_error().contains("formatted 7"));
        // errors map to their statuses
        for (e, s) in [
            (Error::InvalidArguments("x".into()), dnnl_invalid_arguments),
            (Error::Unimplemented("x".into()), dnnl_unimplemented),
            (Error::OutOfMemory("x".into()), dnnl_out_of_memory),
            (Error::Runtime("x".into()), dnnl_runtime_error),
            (Error::NotRequired("x".into()), dnnl_not_required),
            (Error::LastImplReached, dnnl_last_impl_reached),
        ] {
            assert_eq!(status("oxidnn_test_error", || Err(e.clone())), s, "{e}");
        }
    })
    .join()
    .unwrap();
}
