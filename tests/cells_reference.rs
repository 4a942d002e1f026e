//! The vanilla RNN, GRU, LBR-GRU, AUGRU and LBR-AUGRU forward primitives against the plain
//! reference (`rnn::reference`), with benchdnn's f32 thresholds: every cell × direction ×
//! L 1–2 × T 1, 5 × N 1, 13, inference and training (with the workspace checked), steps split
//! by batch (LSTM too), plus oneDNN's validation rules for these cells.

mod lstm_common;

use lstm_common::*;
use oxidnn::args;
use oxidnn::rnn::cells::vanilla::Activation;
use oxidnn::rnn::cells::Linear;
use oxidnn::rnn::reference::RefOutputs;
use oxidnn::rnn::CellKind;
use oxidnn::types::{Direction, PropKind};
use oxidnn::Error;

/// Every cell of this file, with the vanilla RNN once per activation.
fn cells() -> Vec<(CellKind, Activation)> {
    let mut v: Vec<_> = [
        Activation::Relu(0.25),
        Activation::Relu(0.0),
        Activation::Tanh,
        Activation::Logistic,
    ]
    .into_iter()
    .map(|a| (CellKind::VanillaRnn, a))
    .collect();
    for cell in [
        CellKind::Gru,
        CellKind::LbrGru,
        CellKind::Augru,
        CellKind::LbrAugru,
    ] {
        v.push((cell, Activation::Tanh));
    }
    v
}

/// Checks the training workspace (gates, h, LBR's extra term) against the reference states.
fn check_workspace(c: &Case, out: &Outputs, r: &RefOutputs) {
    let ws = out.pd.workspace_layout().expect("training").clone();
    assert_eq!(out.workspace.len(), ws.bytes);
    let floats = |region| out.workspace_floats(region);
    let trh = cell_threshold(c.cell, c.dhc, c.direction, c.t);
    let cmp = |what: &str, got: &[f32], exp: &[f32]| {
        let res = if c.signed {
            compare_scaled(what, got, exp, trh)
        } else {
            compare(what, got, exp, trh, true)
        };
        res.unwrap_or_else(|e| panic!("{c:?}\n{e}"));
    };
    cmp("ws gates", &floats(ws.gates), &r.gates);
    cmp("ws h", &floats(ws.h), &r.h);
    cmp("ws lbr", &floats(ws.lbr), &r.lbr);
}

fn run_and_check(c: &Case) {
    let mut x = Inputs::random(c);
    if matches!(c.activation, Activation::Relu(_)) && c.cell == CellKind::VanillaRnn {
        x = x.flip_first_batch_row(c);
    }
    if c.linear.is_some() {
        x = x.with_sparse_weights(c);
    }
    let out = run_primitive(c, &x);
    let r = check_against_reference(c, &x, &out);
    if c.prop == PropKind::ForwardTraining {
        check_workspace(c, &out, &r);
    }
}

/// True when oneDNN accepts the cell with this direction and layer count (AUGRU: one layer,
/// left2right).
fn accepted(cell: CellKind, direction: Direction, l: usize) -> bool {
    !cell.has_attention() || (l == 1 && direction == Direction::Left2Right)
}

#[test]
fn every_cell_direction_layers_steps_batches_and_propagation() {
    let mut k = 0usize;
    let mut cases = 0;
    for (cell, activation) in cells() {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                if !accepted(cell, direction, l) {
                    continue;
                }
                for t in [1, 5] {
                    for n in [1, 13] {
                        for prop in [PropKind::ForwardInference, PropKind::ForwardTraining] {
                            let dhc = [5, 32, 37][k % 3];
                            let slc = if l == 1 { [7, 3, 40][(k / 3) % 3] } else { dhc };
                            let mut c = Case::new(direction, l, t, n, slc, dhc).with_cell(cell);
                            c.activation = activation;
                            c.prop = prop;
                            c.src_iter = k % 4 != 1;
                            c.bias = k % 5 != 2;
                            c.dst_iter = !k.is_multiple_of(3);
                            c.weights_any = k.is_multiple_of(2);
                            c.layer_tag = if k % 7 < 3 { NTC } else { TNC };
                            c.seed = k as u64 + 11;
                            run_and_check(&c);
                            k += 1;
                            cases += 1;
                        }
                    }
                }
            }
        }
    }
    // 4 vanilla + 2 GRU cells × 4 directions × 2 layers, 2 AUGRU cells × 1, × 2 × 2 × 2.
    assert_eq!(cases, (6 * 4 * 2 + 2) * 8);
}

#[test]
fn every_instruction_set_and_parallel_sizes() {
    for isa in oxidnn::kernels::Isa::all_supported() {
        for (cell, _) in cells() {
            for (direction, l, t, n, slc, dhc) in [
                (Direction::BidirectionalSum, 2, 3, 40, 33, 33),
                (Direction::Left2Right, 1, 4, 13, 80, 100),
                // One step of 5–13 rows: weights in one-gate blocks (`rnn::weights::block_gates`).
                (Direction::Left2Right, 1, 1, 10, 70, 100),
                (Direction::BidirectionalConcat, 2, 1, 6, 70, 70),
            ] {
                if !accepted(cell, direction, l) {
                    continue;
                }
                let mut c = Case::new(direction, l, t, n, slc, dhc).with_cell(cell);
                c.isa = Some(isa);
                c.prop = PropKind::ForwardTraining;
                run_and_check(&c);
            }
        }
    }
}

/// Batches of small cells run split by batch (each member of the thread team steps its own
/// rows, without barriers): every cell, LSTM with peephole and with projection too, one and
/// two layers, inference and training, against the reference.
#[test]
fn steps_split_by_batch() {
    let mut cells = cells();
    cells.push((CellKind::Lstm, Activation::Tanh));
    // Teams wait for every worker, so each execution has a team of all the threads.
    oxidnn::threading::FULL_TEAMS.store(true, std::sync::atomic::Ordering::Relaxed);
    let before = oxidnn::rnn::forward::batch_split_passes();
    let mut passes = 0;
    for (k, (cell, activation)) in cells.into_iter().enumerate() {
        for (direction, l, n) in [
            (Direction::Left2Right, 1, 19),
            (Direction::Right2Left, 2, 40),
        ] {
            if !accepted(cell, direction, l) {
                continue;
            }
            for prop in [PropKind::ForwardInference, PropKind::ForwardTraining] {
                let mut c = Case::new(direction, l, 4, n, 50, 70).with_cell(cell);
                if cell == CellKind::Lstm && l == 2 {
                    c = c.with_projection(29);
                }
                if l == 2 {
                    c.slc = c.dic;
                }
                c.peephole = cell == CellKind::Lstm && prop == PropKind::ForwardTraining;
                c.activation = activation;
                c.prop = prop;
                c.seed = k as u64 + 5;
                run_and_check(&c);
                passes += l;
            }
        }
    }
    if oxidnn::threading::num_threads() >= 2 {
        // Steps of 2·N·(SLC + SIC)·G·DHC ≥ 2^18 flops run on a team of two or more (other
        // tests of this binary may add passes of their own).
        assert!(oxidnn::rnn::forward::batch_split_passes() - before >= passes);
    }
}

#[test]
fn padded_views_plain_ldgoi_weights_and_user_scratchpad() {
    for (cell, activation) in cells() {
        let direction = if cell.has_attention() {
            Direction::Left2Right
        } else {
            Direction::BidirectionalConcat
        };
        let mut c = Case::new(direction, 1, 4, 3, 9, 9).with_cell(cell);
        c.activation = activation;
        c.weights_any = false;
        c.weights_tag = LDGOI;
        c.padded = true;
        c.user_scratchpad = true;
        run_and_check(&c);
    }
}

/// Test mode (`rnn_tparams`, benchdnn's `--skip-nonlinear`): every cell (LSTM also with
/// peephole and projection) × direction × L × T, inference and training, all instruction sets,
/// against the reference fed by `RefProblem::from_pd`, with benchdnn's sparse weights (as
/// benchdnn runs this mode). Distinct scales per gate catch a gate taking another gate's scale;
/// no L2-norm fallback (benchdnn disables it in this mode).
#[test]
fn test_mode_linear_activations() {
    let lin = Linear {
        scales: [0.5, 0.75, 0.625, 0.875],
        cscale: 0.8125,
    };
    let mut all: Vec<(CellKind, Activation)> = cells();
    all.push((CellKind::Lstm, Activation::Tanh));
    let isas = oxidnn::kernels::Isa::all_supported();
    let mut k = 0usize;
    for (cell, activation) in all {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                if !accepted(cell, direction, l) {
                    continue;
                }
                for t in [1, 5] {
                    let dhc = [5, 37][k % 2];
                    let slc = if l == 1 { 7 } else { dhc };
                    let mut c = Case::new(direction, l, t, 3 + k % 11, slc, dhc).with_cell(cell);
                    c.activation = activation;
                    c.linear = Some(lin);
                    c.prop = if k % 2 == 1 {
                        PropKind::ForwardTraining
                    } else {
                        PropKind::ForwardInference
                    };
                    if cell == CellKind::Lstm {
                        c.peephole = !k.is_multiple_of(3);
                        if k % 4 < 2 {
                            c = c.with_projection(slc.min(6));
                            c.slc = if l == 1 { 7 } else { c.dic };
                        }
                    }
                    c.weights_any = (k / 2).is_multiple_of(2);
                    c.isa = Some(isas[k % isas.len()]);
                    c.seed = k as u64 + 3;
                    // (`check_against_reference` builds the reference problem with
                    // `RefProblem::from_pd`: the pd's attribute reaches the reference.)
                    run_and_check(&c);
                    k += 1;
                }
            }
        }
    }
    assert_eq!(k, (7 * 4 * 2 + 2) * 2);
}

#[test]
fn test_mode_changes_the_results_and_needs_a_scale_per_gate() {
    // A sanity check of the comparison above: the linear results differ from the normal ones.
    let c = Case::new(Direction::Left2Right, 1, 3, 2, 4, 4);
    let x = Inputs::random(&c);
    let normal = run_primitive(&c, &x);
    let mut lc = c.clone();
    lc.linear = Some(Linear {
        scales: [0.5; 4],
        cscale: 1.0,
    });
    let linear = run_primitive(&lc, &x);
    assert!(compare(
        "dst_layer",
        &linear.dst_layer,
        &normal.dst_layer,
        1e-3,
        false
    )
    .is_err());
    // Fewer scales than gates: invalid.
    use oxidnn::attr::{Attr, RnnTestParams};
    let pd = make_pd(&c).unwrap();
    let mut attr = Attr::new();
    attr.rnn_tparams = RnnTestParams {
        test_mode: true,
        scales: vec![1.0; 3],
        cscale: 1.0,
    };
    let r = oxidnn::rnn::RnnPd::new(pd.engine(), pd.desc().clone(), &attr, None);
    assert!(matches!(r, Err(Error::InvalidArguments(_))), "{r:?}");
}

fn status(c: &Case) -> Result<(), Error> {
    make_pd(c).map(|_| ())
}

#[test]
fn augru_needs_one_layer_left_to_right() {
    for cell in [CellKind::Augru, CellKind::LbrAugru] {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                let c = Case::new(direction, l, 2, 2, 4, 4).with_cell(cell);
                let r = status(&c);
                if accepted(cell, direction, l) {
                    r.unwrap();
                } else {
                    assert!(
                        matches!(r, Err(Error::InvalidArguments(_))),
                        "{cell:?} {direction:?} L={l}: {r:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn gru_family_needs_sic_equal_to_dhc_and_lbr_four_bias_rows() {
    use oxidnn::rnn::RnnDesc;
    for cell in [CellKind::Gru, CellKind::LbrGru] {
        let c = Case::new(Direction::Left2Right, 1, 1, 2, 4, 4).with_cell(cell);
        let pd = make_pd(&c).unwrap();
        let desc = |arg, dims: &[usize]| -> RnnDesc {
            let mut d = pd.desc().clone();
            d.mds
                .insert(arg, md(dims, if dims.len() == 5 { LDIGO } else { LDNC }));
            d
        };
        let bad = [
            desc(args::WEIGHTS_ITER, &[1, 1, 5, 3, 4]),
            desc(
                args::BIAS,
                &[1, 1, if cell == CellKind::LbrGru { 3 } else { 4 }, 4],
            ),
            desc(args::WEIGHTS_LAYER, &[1, 1, 4, 4, 4]),
        ];
        for d in bad {
            let r = oxidnn::rnn::RnnProblem::new(&d);
            assert!(
                matches!(r, Err(Error::InvalidArguments(_))),
                "{cell:?}: {r:?}"
            );
        }
    }
}

/// Batch 1 over long sequences (the memory-bound one-row step GEMMs): every cell (LSTM too),
/// direction kind, L 1–2, inference and training, with and without `src_iter`.
#[test]
fn batch_one_long_sequences() {
    let mut k = 0usize;
    let mut all = cells();
    all.push((CellKind::Lstm, Activation::Tanh));
    for (cell, activation) in all {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                if !accepted(cell, direction, l) {
                    continue;
                }
                let t = [24, 37, 48][k % 3];
                let dhc = [40, 32, 70][(k / 3) % 3];
                let slc = if l == 1 { [20, 64, 33][k % 3] } else { dhc };
                let mut c = Case::new(direction, l, t, 1, slc, dhc).with_cell(cell);
                c.activation = activation;
                c.prop = if k.is_multiple_of(2) {
                    PropKind::ForwardInference
                } else {
                    PropKind::ForwardTraining
                };
                c.src_iter = k % 4 < 2;
                c.weights_any = k % 3 == 1;
                c.seed = k as u64 + 101;
                run_and_check(&c);
                k += 1;
            }
        }
    }
}
