//! Per-sample sequence lengths (`Attr::rnn_seq_lengths`, `args::SEQ_LENGTHS`): the reference
//! with lengths against itself run sample by sample (each alone, with T = its length), and the
//! forward primitive against that reference for every cell × direction × L 1–2 × inference and
//! training, with mixed lengths including 0 and T, on the driver's paths (steps split by batch
//! or by panel, merged or fused layer GEMM, peephole, projection).

mod lstm_common;

use lstm_common::*;
use oxidnn::rnn::cells::vanilla::Activation;
use oxidnn::rnn::reference::{self, RefOutputs};
use oxidnn::rnn::reference_backward::{self, RefDiffDst, RefGrads};
use oxidnn::rnn::CellKind;
use oxidnn::types::{Direction, PropKind};

/// oneDNN's rule: AUGRU cells take one layer, left2right.
fn accepted(cell: CellKind, direction: Direction, l: usize) -> bool {
    !cell.has_attention() || (l == 1 && direction == Direction::Left2Right)
}

/// The inputs of sample `b` alone, its sequence cut to `len` steps: a problem of N = 1, T = len.
fn sample_alone(c: &Case, x: &Inputs, b: usize, len: usize) -> (Case, Inputs) {
    let (n, d) = (c.n, c.d());
    let rows = |v: &[f32], outer: usize, ch: usize| -> Vec<f32> {
        (0..outer)
            .flat_map(|o| v[(o * n + b) * ch..][..ch].to_vec())
            .collect()
    };
    let mut one = c.clone();
    one.n = 1;
    one.t = len;
    let y = Inputs {
        src_layer: rows(&x.src_layer, len, c.slc),
        src_iter: x.src_iter.as_ref().map(|v| rows(v, c.l * d, c.sic())),
        src_iter_c: x.src_iter_c.as_ref().map(|v| rows(v, c.l * d, c.dhc)),
        attention: x.attention.as_ref().map(|v| rows(v, len, 1)),
        lengths: None,
        ..x.clone()
    };
    (one, y)
}

/// Runs the reference on `c`, `x`.
fn reference_of(c: &Case, x: &Inputs) -> RefOutputs {
    reference::forward(&c.ref_problem(), &x.as_ref_inputs()).expect("reference")
}

/// Every accepted cell × direction × L ∈ {1, 2} at T = 4, DHC = 5 with `n` samples, varied by
/// their index k (peephole, src_iter, projection; seed k + `seed`), as (k, case).
fn varied_cases(n: usize, seed: u64) -> Vec<(usize, Case)> {
    let mut cases = Vec::new();
    for cell in CELLS {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                if !accepted(cell, direction, l) {
                    continue;
                }
                let k = cases.len();
                let (t, dhc) = (4, 5);
                let slc = if l == 1 { 3 } else { dhc };
                let mut c = Case::new(direction, l, t, n, slc, dhc).with_cell(cell);
                c.peephole = cell == CellKind::Lstm && k % 2 == 0;
                c.src_iter = k % 3 != 2;
                c.seed = k as u64 + seed;
                if cell == CellKind::Lstm && k % 4 == 1 {
                    c = c.with_projection(4);
                    c.slc = if l == 1 { 3 } else { 4 };
                }
                cases.push((k, c));
            }
        }
    }
    cases
}

#[test]
fn reference_with_lengths_is_each_sample_alone() {
    for (k, c) in varied_cases(6, 3) {
        let (cell, t, n) = (c.cell, c.t, c.n);
        let mut x = Inputs::random(&c);
        let full = reference_of(&c, &x);
        // All lengths T: the reference without lengths.
        x.lengths = Some(vec![t as i32; n]);
        assert_eq!(reference_of(&c, &x), full, "{c:?}");
        let lengths = mixed_lengths(n, t, k);
        x.lengths = Some(lengths.clone());
        let mixed = reference_of(&c, &x);
        let (dlc, dic, dhc) = (c.dlc(), c.dic, c.dhc);
        for (b, &len) in lengths.iter().enumerate() {
            let len = len as usize;
            let (one, y) = sample_alone(&c, &x, b, len);
            let alone = reference_of(&one, &y);
            for tt in 0..t {
                let got = &mixed.dst_layer[(tt * n + b) * dlc..][..dlc];
                match tt < len {
                    true => assert_eq!(got, &alone.dst_layer[tt * dlc..][..dlc]),
                    false => assert!(got.iter().all(|&v| v == 0.0), "{c:?} b {b}"),
                }
            }
            for ld in 0..c.l * c.d() {
                let got = &mixed.dst_iter[(ld * n + b) * dic..][..dic];
                assert_eq!(got, &alone.dst_iter[ld * dic..][..dic], "{c:?} b {b}");
                if cell.has_c_state() {
                    let got = &mixed.dst_iter_c[(ld * n + b) * dhc..][..dhc];
                    assert_eq!(got, &alone.dst_iter_c[ld * dhc..][..dhc]);
                }
            }
        }
    }
}

/// Runs `c` with `lengths` through the primitive and checks it against the reference.
fn check(c: &Case, lengths: Vec<i32>) {
    let mut x = Inputs::random(c);
    x.lengths = Some(lengths);
    let out = run_primitive(c, &x);
    check_against_reference(c, &x, &out);
}

#[test]
fn every_cell_direction_layers_and_propagation() {
    let mut k = 0usize;
    for cell in CELLS {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                if !accepted(cell, direction, l) {
                    continue;
                }
                for prop in [PropKind::ForwardInference, PropKind::ForwardTraining] {
                    for (t, n) in [(1, 3), (5, 13)] {
                        let dhc = [5, 32, 37][k % 3];
                        let slc = if l == 1 { [7, 3, 40][(k / 3) % 3] } else { dhc };
                        let mut c = Case::new(direction, l, t, n, slc, dhc).with_cell(cell);
                        c.prop = prop;
                        c.activation = [Activation::Tanh, Activation::Relu(0.25)][k % 2];
                        c.src_iter = k % 4 != 1;
                        c.bias = k % 5 != 2;
                        c.dst_iter = !k.is_multiple_of(3);
                        c.weights_any = k.is_multiple_of(2);
                        c.layer_tag = if k % 7 < 3 { NTC } else { TNC };
                        c.peephole = cell == CellKind::Lstm && k % 2 == 1;
                        c.user_scratchpad = k.is_multiple_of(3);
                        c.seed = k as u64 + 5;
                        check(&c, mixed_lengths(n, t, k));
                        k += 1;
                    }
                }
            }
        }
    }
}

/// Larger batches: steps split by batch (small weights), by panel, and the layer GEMM fused
/// into the steps (N ≥ 32); LSTM with projection; all lengths T, all 0, all equal.
#[test]
fn driver_paths_and_uniform_lengths() {
    let mut k = 0;
    for cell in CELLS {
        for (direction, l, t, n, slc, dhc) in [
            (Direction::Left2Right, 1, 7, 40, 16, 16),
            (Direction::BidirectionalConcat, 2, 6, 33, 48, 48),
            (Direction::Right2Left, 1, 9, 70, 100, 70),
            (Direction::BidirectionalSum, 1, 4, 16, 8, 200),
        ] {
            if !accepted(cell, direction, 1) {
                continue;
            }
            let direction = if cell.has_attention() {
                Direction::Left2Right
            } else {
                direction
            };
            let l = if cell.has_attention() { 1 } else { l };
            for prop in [PropKind::ForwardInference, PropKind::ForwardTraining] {
                let mut c = Case::new(direction, l, t, n, slc, dhc).with_cell(cell);
                c.prop = prop;
                c.seed = k + 100;
                check(&c, mixed_lengths(n, t, k as usize));
                k += 1;
            }
        }
    }
    let mut c = Case::new(Direction::BidirectionalConcat, 2, 6, 20, 24, 40).with_projection(24);
    c.peephole = true;
    for prop in [PropKind::ForwardInference, PropKind::ForwardTraining] {
        c.prop = prop;
        check(&c, mixed_lengths(20, 6, 1));
        for len in [0, 3, 6] {
            check(&c, vec![len; 20]);
        }
    }
}

#[test]
fn edge_sizes_lengths_out_of_range_and_the_lengths_descriptor() {
    let c = Case::new(Direction::Left2Right, 1, 4, 3, 5, 6);
    let pd = make_pd_with(&c, true).unwrap();
    let md = pd.arg_md(oxidnn::args::SEQ_LENGTHS).expect("lengths md");
    assert_eq!(md.dims(), &[3]);
    assert_eq!(md.data_type(), oxidnn::types::DataType::S32);
    assert!(make_pd(&c)
        .unwrap()
        .arg_md(oxidnn::args::SEQ_LENGTHS)
        .is_none());
    // No step, no sample: the states pass through / nothing to do.
    for (t, n, lengths) in [(0, 3, vec![0, 0, 0]), (4, 0, vec![])] {
        let mut e = Case::new(Direction::BidirectionalConcat, 2, t, n, 6, 6);
        for prop in [PropKind::ForwardInference, PropKind::ForwardTraining] {
            e.prop = prop;
            check(&e, lengths.clone());
        }
    }
    for bad in [vec![1, 5, 2], vec![-1, 0, 0]] {
        let mut x = Inputs::random(&c);
        x.lengths = Some(bad.clone());
        let err = std::panic::catch_unwind(|| run_primitive(&c, &x)).expect_err("accepted");
        let msg = err.downcast_ref::<String>().expect("a message");
        assert!(msg.contains("is not in 0..=4"), "{bad:?}: {msg}");
    }
}

/// Steps split by batch keep each member's rows from step to step, clipped to the active ones.
#[test]
fn steps_split_by_batch() {
    oxidnn::threading::FULL_TEAMS.store(true, std::sync::atomic::Ordering::Relaxed);
    let before = oxidnn::rnn::forward::batch_split_passes();
    let mut passes = 0;
    for (k, cell) in CELLS.into_iter().enumerate() {
        for (direction, l, n) in [
            (Direction::Left2Right, 1, 19),
            (Direction::Right2Left, 2, 40),
        ] {
            if !accepted(cell, direction, l) {
                continue;
            }
            for prop in [PropKind::ForwardInference, PropKind::ForwardTraining] {
                let mut c = Case::new(direction, l, 6, n, 50, 70).with_cell(cell);
                if cell == CellKind::Lstm && l == 2 {
                    c = c.with_projection(29);
                }
                if l == 2 {
                    c.slc = c.dic;
                }
                c.prop = prop;
                c.seed = k as u64 + 9;
                check(&c, mixed_lengths(n, 6, k));
                passes += l;
            }
        }
    }
    if oxidnn::threading::num_threads() >= 2 {
        assert!(oxidnn::rnn::forward::batch_split_passes() - before >= passes);
    }
}

fn reference_grads_of(
    c: &Case,
    x: &Inputs,
    dy_layer: &[f32],
    dy_iter: &[f32],
    dy_iter_c: &[f32],
) -> RefGrads {
    let p = c.ref_problem();
    let fwd = reference::forward(&p, &x.as_ref_inputs()).expect("reference");
    let dy = RefDiffDst {
        diff_dst_layer: dy_layer,
        diff_dst_iter: Some(dy_iter),
        diff_dst_iter_c: c.cell.has_c_state().then_some(dy_iter_c),
    };
    reference_backward::backward(&p, &x.as_ref_inputs(), &fwd, &dy).expect("backward")
}

/// `|got − exp| ≤ 1e-5·max(|exp|, 1)` point-wise.
fn close(what: &str, got: &[f32], exp: &[f32]) {
    compare_scaled(what, got, exp, 1e-5).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn reference_backward_with_lengths_is_each_sample_alone() {
    for (k, mut c) in varied_cases(5, 31) {
        c.signed = true;
        let (cell, t, n, dhc) = (c.cell, c.t, c.n, c.dhc);
        let mut x = Inputs::random(&c);
        let (dlc, dic, ld) = (c.dlc(), c.dic, c.l * c.d());
        let dy_layer = fill(t * n * dlc, k as u64);
        let dy_iter = fill(ld * n * dic, k as u64 + 1);
        let dy_iter_c = fill(ld * n * dhc, k as u64 + 2);
        let full = reference_grads_of(&c, &x, &dy_layer, &dy_iter, &dy_iter_c);
        x.lengths = Some(vec![t as i32; n]);
        let all_t = reference_grads_of(&c, &x, &dy_layer, &dy_iter, &dy_iter_c);
        assert_eq!(all_t, full, "{c:?}");
        let lengths = mixed_lengths(n, t, k);
        x.lengths = Some(lengths.clone());
        let mixed = reference_grads_of(&c, &x, &dy_layer, &dy_iter, &dy_iter_c);
        // Per sample alone; the weight gradients are sums over the samples.
        let mut sum = RefGrads::default();
        for (b, &len) in lengths.iter().enumerate() {
            let len = len as usize;
            let (one, y) = sample_alone(&c, &x, b, len);
            let rows = |v: &[f32], outer: usize, ch: usize| -> Vec<f32> {
                (0..outer)
                    .flat_map(|o| v[(o * n + b) * ch..][..ch].to_vec())
                    .collect()
            };
            let g = reference_grads_of(
                &one,
                &y,
                &rows(&dy_layer, len, dlc),
                &rows(&dy_iter, ld, dic),
                &rows(&dy_iter_c, ld, dhc),
            );
            let what = format!("{c:?} sample {b} len {len}");
            let src = rows(&mixed.diff_src_layer, t, c.slc);
            close(&what, &src[..g.diff_src_layer.len()], &g.diff_src_layer);
            assert!(src[g.diff_src_layer.len()..].iter().all(|&v| v == 0.0));
            close(
                &what,
                &rows(&mixed.diff_src_iter, ld, c.sic()),
                &g.diff_src_iter,
            );
            if cell.has_c_state() {
                close(
                    &what,
                    &rows(&mixed.diff_src_iter_c, ld, dhc),
                    &g.diff_src_iter_c,
                );
            }
            if cell.has_attention() {
                let att = rows(&mixed.diff_attention, t, 1);
                close(&what, &att[..len], &g.diff_attention);
                assert!(att[len..].iter().all(|&v| v == 0.0));
            }
            let add = |acc: &mut Vec<f32>, v: &[f32]| {
                acc.resize(v.len(), 0.0);
                acc.iter_mut().zip(v).for_each(|(a, b)| *a += b);
            };
            add(&mut sum.diff_weights_layer, &g.diff_weights_layer);
            add(&mut sum.diff_weights_iter, &g.diff_weights_iter);
            add(&mut sum.diff_bias, &g.diff_bias);
            add(&mut sum.diff_peephole, &g.diff_peephole);
            add(&mut sum.diff_projection, &g.diff_projection);
        }
        let what = format!("{c:?} weights");
        close(&what, &mixed.diff_weights_layer, &sum.diff_weights_layer);
        close(&what, &mixed.diff_weights_iter, &sum.diff_weights_iter);
        close(&what, &mixed.diff_bias, &sum.diff_bias);
        close(&what, &mixed.diff_peephole, &sum.diff_peephole);
        close(&what, &mixed.diff_projection, &sum.diff_projection);
    }
}
