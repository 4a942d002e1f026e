//! The TensorIterator → LSTM primitive fusion (`graph::passes::fuse_rnn_ti`): every committed
//! OpenVINO TensorIterator-over-LSTMCell case fuses, and the fused run matches both OpenVINO's
//! expected outputs and the unfused run (`|got − want| ≤ 1e-5 · max(1, |want|)`); TensorIterators
//! outside the pattern stay unfused and still run.

#[path = "graph_support/mod.rs"]
mod support;

use oxidnn::graph::npy::read_npy_file;
use oxidnn::graph::{Model, Tensor};
use support::{cases, compare, Case};

fn load(case: &Case, fused: bool) -> Model {
    let xml = std::fs::read(case.dir.join("model.xml")).unwrap();
    let bin = std::fs::read(case.dir.join("model.bin")).unwrap_or_default();
    let m = if fused {
        Model::from_ir(&xml, &bin)
    } else {
        Model::from_ir_unfused(&xml, &bin)
    };
    m.unwrap_or_else(|e| panic!("{}: {e}", case.name()))
}

fn inputs(case: &Case, model: &Model) -> Vec<Tensor> {
    let mut v: Vec<Option<Tensor>> = vec![None; model.inputs().len()];
    for (name, file) in &case.inputs {
        v[model.input_index(name).unwrap()] = Some(read_npy_file(file).unwrap());
    }
    v.into_iter().map(Option::unwrap).collect()
}

#[test]
fn every_lstm_tensor_iterator_case_fuses_and_matches_openvino_and_the_unfused_run() {
    let lstm_cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.name().starts_with("ti_lstm"))
        .collect();
    assert!(
        lstm_cases.len() >= 4,
        "only {} TI LSTM cases",
        lstm_cases.len()
    );
    for case in &lstm_cases {
        let name = case.name();
        let fused = load(case, true);
        let unfused = load(case, false);
        assert_eq!(fused.fused_node_count(), 1, "{name}: not fused");
        assert_eq!(unfused.fused_node_count(), 0, "{name}");
        let x = inputs(case, &fused);
        let got = fused
            .infer(&x)
            .unwrap_or_else(|e| panic!("{name}: fused: {e}"));
        let reference = unfused
            .infer(&x)
            .unwrap_or_else(|e| panic!("{name}: unfused: {e}"));
        for (out_name, file) in &case.outputs {
            let i = fused.output_index(out_name).unwrap();
            let want = read_npy_file(file).unwrap();
            compare(&got[i], &want)
                .unwrap_or_else(|e| panic!("{name}: {out_name} vs OpenVINO: {e}"));
            compare(&got[i], &reference[i])
                .unwrap_or_else(|e| panic!("{name}: {out_name} vs unfused: {e}"));
        }
    }
}

#[test]
fn other_tensor_iterators_stay_unfused() {
    for case in cases() {
        let name = case.name();
        if name.starts_with("ti_") && !name.starts_with("ti_lstm") {
            assert_eq!(load(&case, true).fused_node_count(), 0, "{name}");
        }
    }
}

#[test]
fn a_cell_outside_the_pattern_is_not_fused_and_still_runs() {
    let case = cases()
        .into_iter()
        .find(|c| c.name() == "ti_lstm_seed_example")
        .unwrap();
    let xml = std::fs::read_to_string(case.dir.join("model.xml")).unwrap();
    let bin = std::fs::read(case.dir.join("model.bin")).unwrap();
    // oneDNN's LSTM has no clip: a clipped cell stays a TensorIterator.
    let clipped = xml.replacen("clip=\"0\"", "clip=\"0.25\"", 1);
    assert_ne!(clipped, xml);
    let model = Model::from_ir(clipped.as_bytes(), &bin).unwrap();
    assert_eq!(model.fused_node_count(), 0);
    let x = inputs(&case, &model);
    let out = model.infer(&x).unwrap();
    assert_eq!(out.len(), 3);
}
