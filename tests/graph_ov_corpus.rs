//! Runs the RNN corpus of `tests/ov_corpus/` (made by `tools/ov_cases/make_rnn_corpus.py`:
//! OpenVINO opset graphs, PyTorch models through `openvino.convert_model` and through both ONNX
//! exporters, ONNX helper graphs) and compares with OpenVINO's outputs, fused (each case's
//! `fused` sequence ops run as RNN primitives) and unfused (the reference path):
//! `|got − want| ≤ 1e-5 · max(1, |want|)`.

#[path = "graph_support/mod.rs"]
mod support;

use oxidnn::graph::Model;
use support::{cases_in, run_case_on, Case};

fn check(case: &Case, fused: bool) -> Result<(), String> {
    let xml = std::fs::read(case.dir.join("model.xml")).map_err(|e| e.to_string())?;
    let bin = std::fs::read(case.dir.join("model.bin")).unwrap_or_default();
    let model = if fused {
        Model::from_ir(&xml, &bin)
    } else {
        Model::from_ir_unfused(&xml, &bin)
    }
    .map_err(|e| format!("load: {e}"))?;
    let want_fused = if fused { case.fused } else { Some(0) };
    if want_fused != Some(model.fused_node_count()) {
        return Err(format!(
            "{} fused nodes, expected {want_fused:?}",
            model.fused_node_count()
        ));
    }
    run_case_on(&model, case).map(|_| ())
}

#[test]
fn every_corpus_case_matches_openvino_fused_and_unfused() {
    let cases = cases_in("tests/ov_corpus");
    assert!(cases.len() >= 50, "only {} cases found", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        for fused in [true, false] {
            let how = if fused { "fused" } else { "unfused" };
            match check(case, fused) {
                Ok(()) => println!("ok   {} {how} ({})", case.name(), case.made),
                Err(e) => {
                    println!("FAIL {} {how}: {e}", case.name());
                    failures.push(format!("{} {how}: {e}", case.name()));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs failed:\n{}",
        failures.len(),
        2 * cases.len(),
        failures.join("\n")
    );
}
