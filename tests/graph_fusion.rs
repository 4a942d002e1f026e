//! The TensorIterator → RNN primitive fusion (`graph::passes::fuse_rnn_ti`): every committed
//! OpenVINO case with a TensorIterator over an LSTMCell, GRUCell or RNNCell in the pattern fuses
//! (nested in If and Loop bodies too), and the fused run matches both OpenVINO's expected
//! outputs and the unfused run (`|got − want| ≤ 1e-5 · max(1, |want|)`); TensorIterators
//! outside the pattern (clip, invariant inputs, extra body ops) stay unfused and still run.

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

/// The cases whose TensorIterators fuse, with how many (nested ones included).
const FUSED: &[(&str, usize)] = &[
    ("if8_ti_branches_false", 2),
    ("if8_ti_branches_true", 2),
    ("loop5_ti_lstm_body", 1),
    ("ti_gru_lbr_axis0_reverse", 1),
    ("ti_gru_lbr_reverse_last", 1),
    ("ti_gru_seq", 1),
    ("ti_lstm_axis0", 1),
    ("ti_lstm_reverse", 1),
    ("ti_lstm_seed_example", 1),
    ("ti_lstm_start_offset", 1),
    ("ti_rnn_relu_seq", 1),
    ("ti_rnn_sigmoid_reverse", 1),
    ("ti_rnn_tanh_axis0_last", 1),
    ("ti_ti_lstm_nested", 1),
];

#[test]
fn every_fusable_case_fuses_and_matches_openvino_and_the_unfused_run() {
    let all = cases();
    for &(name, count) in FUSED {
        let case = all
            .iter()
            .find(|c| c.name() == name)
            .unwrap_or_else(|| panic!("no case {name}"));
        let fused = load(case, true);
        let unfused = load(case, false);
        assert_eq!(fused.fused_node_count(), count, "{name}: fused nodes");
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
fn the_other_cases_stay_unfused() {
    for case in cases() {
        let name = case.name();
        if !FUSED.iter().any(|&(f, _)| f == name) {
            assert_eq!(load(&case, true).fused_node_count(), 0, "{name}");
        }
    }
}

#[test]
fn a_cell_outside_the_pattern_is_not_fused_and_still_runs() {
    // (case, attribute text, replacement): oneDNN's cells have no clip, and its GRU runs only
    // sigmoid / tanh.
    let edits = [
        ("ti_lstm_seed_example", "clip=\"0\"", "clip=\"0.25\""),
        ("ti_gru_seq", "clip=\"0\"", "clip=\"0.5\""),
        (
            "ti_gru_seq",
            "activations=\"sigmoid, tanh\"",
            "activations=\"sigmoid, relu\"",
        ),
        ("ti_rnn_relu_seq", "clip=\"0\"", "clip=\"2\""),
    ];
    let all = cases();
    for (name, from, to) in edits {
        let case = all.iter().find(|c| c.name() == name).unwrap();
        let xml = std::fs::read_to_string(case.dir.join("model.xml")).unwrap();
        let bin = std::fs::read(case.dir.join("model.bin")).unwrap();
        let edited = xml.replacen(from, to, 1);
        assert_ne!(edited, xml, "{name}: {from} not found");
        let model = Model::from_ir(edited.as_bytes(), &bin).unwrap();
        assert_eq!(model.fused_node_count(), 0, "{name} with {to}");
        let x = inputs(case, &model);
        let out = model.infer(&x).unwrap();
        assert_eq!(out.len(), case.outputs.len(), "{name} with {to}");
    }
}
