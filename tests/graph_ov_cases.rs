//! Runs every OpenVINO case of `tests/ov_cases/` (made by `tools/ov_cases/make_cases.py`)
//! through the Rust graph API and compares with the expected outputs: exact for integer and
//! boolean outputs, `|got − want| ≤ 1e-5 · max(1, |want|)` for floats.
//!
//! Expected outputs come from OpenVINO's CPU plugin (f32), except for the cases marked
//! `source spec` in their `case.txt`, where the plugin departs from OpenVINO's own
//! specification (a TensorIterator's `start` offset, LSTMCell-1's peephole input, Gather-8's
//! out-of-range index) and numpy computed them from the specification.

#[path = "graph_support/mod.rs"]
mod support;

use std::path::Path;

use oxidnn::graph::Model;
use support::{cases, run_case_on, Case};

fn run_case(case: &Case) -> Result<(), String> {
    let model = Model::load(&case.dir.join("model.xml"), None).map_err(|e| format!("load: {e}"))?;
    let outputs = run_case_on(&model, case)?;
    if case.outputs.len() != outputs.len() {
        return Err(format!(
            "{} outputs, expected {}",
            outputs.len(),
            case.outputs.len()
        ));
    }
    Ok(())
}

#[test]
fn every_openvino_case_matches() {
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases found", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.name();
        match run_case(case) {
            Ok(()) => println!("ok   {name} ({})", case.source),
            Err(e) => {
                println!("FAIL {name}: {e}");
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn output_names_follow_the_producing_port() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ov_cases/ti_lstm_seed_example");
    let model = Model::load(&dir.join("model.xml"), None).unwrap();
    let names: Vec<&str> = model.outputs().iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["Y", "Ho", "Co"]);
    let inputs: Vec<&str> = model.inputs().iter().map(|o| o.name.as_str()).collect();
    assert_eq!(inputs, ["X", "H", "C"]);
}
