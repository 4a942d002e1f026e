//! The LSTM forward primitive against the plain reference (`rnn::reference`), with benchdnn's
//! f32 thresholds, over directions, layers, sequence lengths, batch sizes, optional tensors,
//! layouts and propagation kinds.

mod lstm_common;

use lstm_common::*;
use oxidnn::memory::Layout;
use oxidnn::primitive::{Primitive, PrimitiveDesc};
use oxidnn::rnn::reference::RefOutputs;
use oxidnn::types::{Direction, PropKind};

fn run_and_check(c: &Case) -> (Outputs, RefOutputs) {
    let x = Inputs::random(c);
    let out = run_primitive(c, &x);
    let r = check_against_reference(c, &x, &out);
    (out, r)
}

/// The options of a case, from the bits of `k` (every combination over 64 consecutive k).
fn with_options(mut c: Case, k: usize) -> Case {
    c.src_iter = k & 1 != 0;
    c.bias = k & 2 != 0;
    c.dst_iter = k & 4 != 0;
    c.weights_any = k & 8 != 0;
    c.layer_tag = if k & 16 != 0 { NTC } else { TNC };
    c.prop = if k & 32 != 0 {
        PropKind::ForwardTraining
    } else {
        PropKind::ForwardInference
    };
    c.seed = k as u64 * 7 + 3;
    c
}

#[test]
fn directions_layers_steps_batches_and_options() {
    // Hidden sizes cover a partial panel (5), exactly one panel (32), and one full + one partial
    // (37); layer 0 input differs from the hidden size whenever L = 1.
    let mut k = 0;
    let mut cases = 0;
    for direction in DIRECTIONS {
        for l in 1..=3 {
            for t in 1..=7 {
                for n in [1, 13] {
                    for _ in 0..2 {
                        let dhc = [5, 32, 37][k % 3];
                        let slc = if l == 1 { [7, 3, 40][(k / 3) % 3] } else { dhc };
                        let c = with_options(Case::new(direction, l, t, n, slc, dhc), k * 37 % 64);
                        run_and_check(&c);
                        k += 1;
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 4 * 3 * 7 * 2 * 2);
}

#[test]
fn every_option_combination_on_a_small_problem() {
    for direction in DIRECTIONS {
        for k in 0..64 {
            run_and_check(&with_options(Case::new(direction, 2, 3, 2, 6, 6), k));
        }
    }
}

#[test]
fn inputs_of_both_signs() {
    for direction in DIRECTIONS {
        for (l, t, n) in [(1, 1, 1), (3, 7, 13), (2, 5, 4)] {
            let mut c = Case::new(direction, l, t, n, if l == 1 { 11 } else { 37 }, 37);
            c.signed = true;
            c.prop = PropKind::ForwardTraining;
            run_and_check(&c);
        }
    }
}

#[test]
fn every_instruction_set() {
    // The whole driver with each kernel set this CPU supports (AVX-512, AVX2/FMA, portable):
    // small and large batches (merged and fused layer GEMM), partial panels, training.
    for isa in oxidnn::kernels::Isa::all_supported() {
        for (direction, l, t, n, slc, dhc, k) in [
            (Direction::Left2Right, 2, 3, 1, 37, 37, 63),
            (Direction::BidirectionalConcat, 1, 4, 13, 20, 45, 41),
            (Direction::BidirectionalSum, 2, 3, 40, 33, 33, 32),
            (Direction::Right2Left, 1, 2, 3, 64, 96, 14),
        ] {
            let mut c = with_options(Case::new(direction, l, t, n, slc, dhc), k);
            c.isa = Some(isa);
            let (out, _) = run_and_check(&c);
            assert_eq!(out.pd.isa(), isa);
        }
    }
}

#[test]
fn big_enough_to_run_in_parallel() {
    // Steps above the parallel threshold: multi-threaded step and layer GEMM paths.
    for (direction, l, t, n, slc, dhc, k) in [
        (Direction::Left2Right, 1, 4, 13, 80, 100, 15),
        (Direction::Right2Left, 2, 3, 64, 96, 96, 40),
        (Direction::BidirectionalConcat, 1, 3, 1, 300, 512, 9),
        (Direction::BidirectionalSum, 2, 2, 100, 64, 64, 63),
        (Direction::Left2Right, 1, 2, 150, 33, 70, 46),
    ] {
        run_and_check(&with_options(Case::new(direction, l, t, n, slc, dhc), k));
    }
}

#[test]
fn plain_weights_in_ldgoi_and_padded_sub_memory_views() {
    for direction in DIRECTIONS {
        let mut c = Case::new(direction, 2, 4, 3, 9, 9);
        c.weights_any = false;
        c.weights_tag = LDGOI;
        c.padded = true;
        run_and_check(&c);
        c.layer_tag = NTC;
        c.prop = PropKind::ForwardTraining;
        run_and_check(&c);
    }
}

#[test]
fn any_weights_resolve_to_the_packed_layout_and_plain_ones_stay() {
    let mut c = Case::new(Direction::Left2Right, 1, 2, 2, 3, 4);
    let pd = make_pd(&c).unwrap();
    assert!(matches!(
        pd.arg_md(oxidnn::args::WEIGHTS_LAYER).unwrap().layout(),
        Layout::Packed(_)
    ));
    assert!(pd
        .arg_md(oxidnn::args::SRC_LAYER)
        .unwrap()
        .is_plain_tag(TNC));
    c.weights_any = false;
    let pd = make_pd(&c).unwrap();
    assert!(pd
        .arg_md(oxidnn::args::WEIGHTS_ITER)
        .unwrap()
        .is_plain_tag(LDIGO));
}

#[test]
fn user_scratchpad_mode() {
    for direction in DIRECTIONS {
        let mut c = Case::new(direction, 2, 3, 5, 8, 8);
        c.user_scratchpad = true;
        c.weights_any = false;
        let (out, _) = run_and_check(&c);
        let sp = out.pd.arg_md(oxidnn::args::SCRATCHPAD).unwrap();
        assert_eq!(sp.ndims(), 1);
        assert!(sp.size_bytes() > 0);
        assert_eq!(out.pd.memory_consumption(), 0);
    }
}

/// The workspace holds the post-activation gates, h and c of every cell, as documented in
/// `rnn::workspace`.
#[test]
fn training_workspace_matches_the_reference_states() {
    for direction in DIRECTIONS {
        for src_iter in [false, true] {
            let mut c = Case::new(direction, 2, 4, 3, 37, 37);
            c.prop = PropKind::ForwardTraining;
            c.src_iter = src_iter;
            let (out, r) = run_and_check(&c);
            let ws = out
                .pd
                .workspace_layout()
                .expect("training has a workspace")
                .clone();
            assert_eq!(out.workspace.len(), ws.bytes);
            let floats = |region| out.workspace_floats(region);
            let trh = threshold(direction, c.t);
            compare("ws gates", &floats(ws.gates), &r.gates, trh, true).unwrap();
            compare("ws h", &floats(ws.h), &r.h, trh, true).unwrap();
            compare("ws c", &floats(ws.c), &r.c, trh, true).unwrap();
        }
    }
}

#[test]
fn peephole_weights() {
    let mut k = 0usize;
    for direction in DIRECTIONS {
        for l in 1..=2 {
            for t in [1, 5] {
                for n in [1, 13] {
                    for prop in [PropKind::ForwardInference, PropKind::ForwardTraining] {
                        let dhc = [5, 32, 37][k % 3];
                        let slc = if l == 1 { 11 } else { dhc };
                        let mut c = Case::new(direction, l, t, n, slc, dhc);
                        c.peephole = true;
                        c.prop = prop;
                        c.weights_any = k.is_multiple_of(2);
                        c.src_iter = k % 4 != 3;
                        c.seed = k as u64 + 5;
                        let (out, r) = run_and_check(&c);
                        if prop == PropKind::ForwardTraining {
                            let ws = out.pd.workspace_layout().unwrap().clone();
                            let trh = threshold(direction, t);
                            let ws_gates = out.workspace_floats(ws.gates);
                            compare("ws gates", &ws_gates, &r.gates, trh, true).unwrap();
                        }
                        k += 1;
                    }
                }
            }
        }
    }
}

/// LSTM with projection over direction × L × T × N × peephole × prop, DIC below and above DHC,
/// weights `any` (packed, projection included) or plain (projection ldio or ldoi); the training
/// workspace holds the projected h and the pre-projection h̃.
#[test]
fn projection() {
    let mut k = 0usize;
    for direction in DIRECTIONS {
        for l in 1..=2 {
            for t in [1, 5] {
                for n in [1, 13] {
                    for peephole in [false, true] {
                        let (dhc, dic) = [(5, 3), (37, 40), (32, 7), (20, 33)][k % 4];
                        let slc = if l == 1 { [11, 4][k % 2] } else { dic };
                        let mut c = Case::new(direction, l, t, n, slc, dhc).with_projection(dic);
                        c.peephole = peephole;
                        c.prop = if k.is_multiple_of(3) {
                            PropKind::ForwardTraining
                        } else {
                            PropKind::ForwardInference
                        };
                        c.weights_any = (k / 3).is_multiple_of(2);
                        c.projection_tag = if (k / 5).is_multiple_of(2) {
                            LDIO
                        } else {
                            LDOI
                        };
                        c.src_iter = k % 5 != 4;
                        c.dst_iter = k % 7 != 6;
                        c.seed = k as u64 + 11;
                        let (out, r) = run_and_check(&c);
                        if c.prop == PropKind::ForwardTraining {
                            let ws = out.pd.workspace_layout().unwrap().clone();
                            let trh = threshold(direction, t);
                            let floats = |region| out.workspace_floats(region);
                            compare("ws gates", &floats(ws.gates), &r.gates, trh, true).unwrap();
                            compare("ws h", &floats(ws.h), &r.h, trh, true).unwrap();
                            compare("ws ht", &floats(ws.ht), &r.ht, trh, true).unwrap();
                            compare("ws c", &floats(ws.c), &r.c, trh, true).unwrap();
                        }
                        k += 1;
                    }
                }
            }
        }
    }
    assert_eq!(k, 4 * 2 * 2 * 2 * 2);
}

/// Projection on large problems (parallel steps, several DIC panels, fused layer GEMM) and with
/// every instruction set. Batches above 64 split the steps into batch blocks (N = 70 with three
/// panels: members' shares end inside a panel's blocks; N = 100 with one panel).
#[test]
fn projection_big_and_every_instruction_set() {
    for (direction, l, t, n, slc, dhc, dic, k) in [
        (Direction::Left2Right, 1, 3, 64, 96, 128, 70, 40),
        (Direction::BidirectionalSum, 2, 3, 40, 100, 64, 100, 63),
        (Direction::BidirectionalConcat, 1, 2, 13, 300, 256, 64, 9),
        (Direction::Left2Right, 2, 4, 70, 40, 70, 40, 37),
        (Direction::Right2Left, 1, 3, 100, 300, 20, 24, 22),
        (Direction::BidirectionalConcat, 2, 3, 70, 40, 70, 40, 5),
    ] {
        run_and_check(&with_options(
            Case::new(direction, l, t, n, slc, dhc).with_projection(dic),
            k,
        ));
    }
    for isa in oxidnn::kernels::Isa::all_supported() {
        let mut c = with_options(
            Case::new(Direction::Right2Left, 2, 3, 5, 33, 40).with_projection(33),
            46,
        );
        c.isa = Some(isa);
        run_and_check(&c);
    }
}

/// At T = 1 the recurrent input may differ from the output state (SIC ≠ DIC, oneDNN accepts
/// it): with and without projection, every direction, L 1–2, inference and training (the
/// workspace's h rows are max(SIC, DIC) wide).
#[test]
fn one_step_with_sic_different_from_dic() {
    let mut k = 0usize;
    for direction in DIRECTIONS {
        for l in 1..=2 {
            for (dhc, dic, sic) in [(6, 6, 9), (6, 6, 2), (8, 3, 5), (5, 7, 4)] {
                let slc = if l == 1 { 4 } else { dic };
                let mut c = Case::new(direction, l, 1, 3, slc, dhc);
                if dic != dhc {
                    c = c.with_projection(dic);
                }
                c.sic_override = Some(sic);
                c.peephole = k.is_multiple_of(2);
                c.weights_any = (k / 2).is_multiple_of(2);
                c.prop = if k.is_multiple_of(3) {
                    PropKind::ForwardTraining
                } else {
                    PropKind::ForwardInference
                };
                c.seed = k as u64 + 29;
                let (out, r) = run_and_check(&c);
                if c.prop == PropKind::ForwardTraining {
                    let ws = out.pd.workspace_layout().unwrap().clone();
                    assert_eq!(ws.hc, sic.max(dic));
                    let h = out.workspace_floats(ws.h);
                    compare("ws h", &h, &r.h, threshold(direction, 1), false).unwrap();
                }
                k += 1;
            }
        }
    }
}

#[test]
fn any_projection_weights_resolve_to_the_packed_layout() {
    let mut c = Case::new(Direction::Left2Right, 1, 2, 2, 3, 8).with_projection(5);
    let pd = make_pd(&c).unwrap();
    let proj = pd.arg_md(oxidnn::args::WEIGHTS_PROJECTION).unwrap();
    assert!(matches!(proj.layout(), Layout::Packed(_)));
    assert_eq!(proj.dims(), &[1, 1, 8, 5]);
    assert_eq!(proj.format_kind(), oxidnn::types::FormatKind::Opaque);
    // Generic weights queries: layer, iter, [peephole], projection, bias (oneDNN's order).
    let weights = |pd: &oxidnn::rnn::RnnPd| -> Vec<Option<i32>> {
        (0..6)
            .map(|i| pd.arg_for_query(oxidnn::primitive::MdQuery::Weights, i))
            .collect()
    };
    use oxidnn::args::{BIAS, WEIGHTS_ITER, WEIGHTS_LAYER, WEIGHTS_PEEPHOLE, WEIGHTS_PROJECTION};
    assert_eq!(
        weights(&pd),
        [WEIGHTS_LAYER, WEIGHTS_ITER, WEIGHTS_PROJECTION, BIAS]
            .map(Some)
            .into_iter()
            .chain([None, None])
            .collect::<Vec<_>>()
    );
    assert_eq!(pd.num_inputs(), 7);
    c.peephole = true;
    let pd = make_pd(&c).unwrap();
    assert_eq!(
        weights(&pd)[2..5],
        [WEIGHTS_PEEPHOLE, WEIGHTS_PROJECTION, BIAS].map(Some)
    );
    c.weights_any = false;
    c.projection_tag = LDOI;
    let pd = make_pd(&c).unwrap();
    assert!(pd
        .arg_md(oxidnn::args::WEIGHTS_PROJECTION)
        .unwrap()
        .is_plain_tag(LDOI));
}

#[test]
fn concurrent_executions_of_one_primitive() {
    let c = Case::new(Direction::BidirectionalConcat, 2, 5, 13, 40, 40);
    let pd = make_pd(&c).unwrap();
    let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone()))).unwrap();
    std::thread::scope(|s| {
        for seed in 0..4u64 {
            let (pd, prim, c) = (&pd, &prim, &c);
            s.spawn(move || {
                for rep in 0..3 {
                    let mut c = c.clone();
                    c.seed = seed * 10 + rep;
                    let x = Inputs::random(&c);
                    let out = run_with(&c, &x, pd, prim);
                    check_against_reference(&c, &x, &out);
                }
            });
        }
    });
}

#[test]
fn repeated_executions_reread_plain_weights() {
    // Weights may change between executions: plain weights are packed at every execution.
    let mut c = Case::new(Direction::Left2Right, 1, 3, 2, 4, 6);
    c.weights_any = false;
    let pd = make_pd(&c).unwrap();
    let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone()))).unwrap();
    for seed in 0..3 {
        c.seed = seed;
        let x = Inputs::random(&c);
        check_against_reference(&c, &x, &run_with(&c, &x, &pd, &prim));
    }
}

#[test]
fn zero_sized_time_and_bias_free_cases() {
    // T = 0: no step runs; dst_iter(_c) are the initial states.
    let c = Case::new(Direction::BidirectionalSum, 2, 0, 3, 4, 4);
    let (out, _) = run_and_check(&c);
    let x = Inputs::random(&c);
    assert_eq!(out.dst_iter, x.src_iter.unwrap());
    // No bias: zeros (a superset of oneDNN's CPU engine, which requires it).
    let mut c = Case::new(Direction::Left2Right, 1, 1, 2, 3, 5);
    c.bias = false;
    run_and_check(&c);
}

/// Batch 16 fuses the layer GEMM into the steps only when a thread's share of `U` (more than
/// 1 MiB) would be streamed at every step anyway; the fused and merged paths both match the
/// reference there (LSTMP DHC = 1024, DIC = 256: `U` is 4 MiB).
#[test]
fn batch_sixteen_fuses_the_layer_gemm_when_u_is_streamed() {
    let threads = oxidnn::threading::num_threads();
    for direction in [Direction::Left2Right, Direction::BidirectionalConcat] {
        // Threads per direction: the two directions run at the same time from 2 threads.
        let lanes = if direction == Direction::Left2Right {
            1
        } else {
            2
        };
        let per_direction = (threads / lanes.min(threads)).max(1);
        for (n, dhc, dic) in [(16, 1024, 256), (13, 1024, 256), (16, 64, 64)] {
            let u_bytes = dic * 4 * dhc * 4;
            let fused = n >= 16 && u_bytes / per_direction > 1 << 20;
            let c = Case::new(direction, 1, 3, n, 40, dhc).with_projection(dic);
            let pd = make_pd(&c).unwrap();
            assert_eq!(pd.scratch_layout().fused_layer_gemm, fused, "{c:?}");
            run_and_check(&c);
        }
    }
}
