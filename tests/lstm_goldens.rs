//! Every golden case (outputs of the real oneDNN: LSTM in `tests/goldens/lstm`, the other cells
//! in `tests/goldens/<cell>`) through the primitive, compared with benchdnn's f32 threshold; also
//! the reference against the same goldens, so a disagreement can be blamed on the right side.
//!
//! Test-mode goldens (oneDNN's `rnn_tparams`: a `tparams` line) run the primitive with that
//! attribute and the reference with the same linear activations.
//!
//! Golden inputs have both signs, so the LSTM cell state may cancel; where a point exceeds
//! benchdnn's relative threshold the comparison falls back to benchdnn's L2-norm rule — as
//! benchdnn does — except at L = T = 1, where the threshold is applied relative to
//! max(|expected|, 1).

#[path = "common/golden.rs"]
mod golden;
mod lstm_common;

use golden::GoldenCase;
use lstm_common::*;
use oxidnn::rnn::cells::vanilla::Activation;
use oxidnn::rnn::cells::Linear;
use oxidnn::rnn::reference;
use oxidnn::types::PropKind;

fn case_of(g: &GoldenCase) -> (Case, Inputs) {
    let dim = |k: &str| g.dim(k) as usize;
    let cell = cell_named(&g.cell);
    assert_eq!(
        dim("SIC"),
        dim("DIC"),
        "{}: the test assumes SIC = DIC",
        g.name
    );
    let mut c = Case::new(
        direction_named(&g.direction),
        dim("L"),
        dim("T"),
        dim("N"),
        dim("SLC"),
        dim("DHC"),
    )
    .with_cell(cell);
    if g.values("weights_projection").is_some() {
        c = c.with_projection(dim("DIC"));
    }
    if let Some(tp) = &g.tparams {
        let mut scales = [0f32; 4];
        scales[..tp.len() - 1].copy_from_slice(&tp[1..]);
        c.linear = Some(Linear {
            scales,
            cscale: tp[0],
        });
    }
    if let Some(act) = &g.activation {
        let alpha: f32 = g.alpha.as_deref().unwrap_or("0").parse().expect("alpha");
        c.activation = match act.as_str() {
            "relu" => Activation::Relu(alpha),
            "tanh" => Activation::Tanh,
            "logistic" => Activation::Logistic,
            other => panic!("{}: unknown activation {other}", g.name),
        };
    }
    assert_eq!(c.d(), dim("D"), "{}", g.name);
    c.prop = match g.prop.as_str() {
        "forward_inference" => PropKind::ForwardInference,
        "forward_training" => PropKind::ForwardTraining,
        other => panic!("{}: unexpected prop {other}", g.name),
    };
    let t = |name: &str| g.values(name).map(|v| v.to_vec());
    c.src_iter = t("src_iter").is_some();
    if cell.has_c_state() {
        assert_eq!(c.src_iter, t("src_iter_c").is_some(), "{}", g.name);
    }
    c.bias = t("bias").is_some();
    c.dst_iter = t("dst_iter").is_some();
    let x = Inputs {
        src_layer: t("src_layer").expect("src_layer"),
        src_iter: t("src_iter"),
        src_iter_c: t("src_iter_c"),
        weights_layer: t("weights_layer").expect("weights_layer"),
        weights_iter: t("weights_iter").expect("weights_iter"),
        bias: t("bias"),
        // `[T][N][1]` values are `[T][N]` in row-major order.
        attention: t("attention"),
        peephole: t("weights_peephole"),
        projection: t("weights_projection"),
        lengths: None,
    };
    c.peephole = x.peephole.is_some();
    (c, x)
}

fn check(g: &GoldenCase, c: &Case, what: &str, got: &[f32]) -> Result<(), String> {
    let exp = g
        .values(what)
        .unwrap_or_else(|| panic!("{}: no {what}", g.name));
    let trh = cell_threshold(c.cell, c.dhc, c.direction, c.t);
    if c.l == 1 && c.t == 1 {
        compare_scaled(what, got, exp, trh)
    } else {
        compare(what, got, exp, trh, true)
    }
}

#[test]
fn primitive_and_reference_match_onednn_goldens() {
    check_dir(&golden::lstm_dir());
}

#[test]
fn other_cells_match_onednn_goldens() {
    for cell in ["vanilla_rnn", "gru", "lbr_gru", "augru", "lbr_augru"] {
        check_dir(&golden::cell_dir(cell));
    }
}

/// Every case of a golden directory through the primitive (weights `any` and plain) and the
/// reference.
fn check_dir(dir: &std::path::Path) {
    let cases = golden::load_dir(dir);
    assert!(!cases.is_empty(), "no golden cases in {}", dir.display());
    let mut errors = Vec::new();
    for g in &cases {
        let (c, x) = case_of(g);
        let r = reference::forward(&c.ref_problem(), &x.as_ref_inputs()).expect("reference");
        for weights_any in [true, false] {
            let mut c = c.clone();
            c.weights_any = weights_any;
            let out = run_primitive(&c, &x);
            let mut results = vec![(
                "primitive dst_layer",
                check(g, &c, "dst_layer", &out.dst_layer),
            )];
            if c.dst_iter {
                results.push((
                    "primitive dst_iter",
                    check(g, &c, "dst_iter", &out.dst_iter),
                ));
            }
            if c.dst_iter && c.cell.has_c_state() {
                results.push((
                    "primitive dst_iter_c",
                    check(g, &c, "dst_iter_c", &out.dst_iter_c),
                ));
            }
            errors.extend(results.into_iter().filter_map(|(w, r)| {
                r.err()
                    .map(|e| format!("{} ({w}, any={weights_any}): {e}", g.name))
            }));
        }
        errors.extend(
            check(g, &c, "dst_layer", &r.dst_layer)
                .err()
                .map(|e| format!("{} (reference): {e}", g.name)),
        );
        if c.dst_iter {
            errors.extend(
                check(g, &c, "dst_iter", &r.dst_iter)
                    .err()
                    .map(|e| format!("{} (reference): {e}", g.name)),
            );
        }
        if c.dst_iter && c.cell.has_c_state() {
            errors.extend(
                check(g, &c, "dst_iter_c", &r.dst_iter_c)
                    .err()
                    .map(|e| format!("{} (reference): {e}", g.name)),
            );
        }
    }
    assert!(
        errors.is_empty(),
        "{} golden mismatches:\n{}",
        errors.len(),
        errors.join("\n")
    );
}
