//! LSTMSequence / GRUSequence / RNNSequence beyond the corpus (`graph_ov_corpus`): one model
//! with dynamic dims run on several shapes (a primitive per shape, OpenVINO's outputs for
//! each), LSTMSequence-1, bad lengths and activations as errors naming the layer, an unknown op
//! failing at load, and `oxidnn-run --verbose`.

#[path = "graph_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use oxidnn::graph::npy::read_npy_file;
use oxidnn::graph::{Model, Tensor};
use oxidnn::Error;
use support::{cases_in, compare, Case};

fn corpus(name: &str) -> Case {
    cases_in("tests/ov_corpus")
        .into_iter()
        .find(|c| c.name() == name)
        .unwrap_or_else(|| panic!("no corpus case {name}"))
}

fn xml(case: &Case) -> String {
    std::fs::read_to_string(case.dir.join("model.xml")).unwrap()
}

fn bin(case: &Case) -> Vec<u8> {
    std::fs::read(case.dir.join("model.bin")).unwrap_or_default()
}

fn inputs(case: &Case, model: &Model) -> Vec<Tensor> {
    let mut v: Vec<Option<Tensor>> = vec![None; model.inputs().len()];
    for (name, file) in &case.inputs {
        v[model.input_index(name).unwrap()] = Some(read_npy_file(file).unwrap());
    }
    v.into_iter().map(Option::unwrap).collect()
}

fn check_outputs(case: &Case, model: &Model, got: &[Tensor]) {
    for (name, file) in &case.outputs {
        let want = read_npy_file(file).unwrap();
        compare(&got[model.output_index(name).unwrap()], &want)
            .unwrap_or_else(|e| panic!("{}: {name}: {e}", case.name()));
    }
}

#[test]
fn one_dynamic_model_runs_every_shape_it_meets() {
    for names in [
        &[
            "seq_lstm_dynamic",
            "seq_lstm_dynamic_n1t7",
            "seq_lstm_dynamic_n4t2",
        ][..],
        &["seq_gru_dynamic_lengths", "seq_gru_dynamic_lengths_n2t3"],
        &[
            "torch_lstm_dynamic",
            "torch_lstm_dynamic_n1t9",
            "torch_lstm_dynamic_n5t2",
        ],
    ] {
        let cases: Vec<Case> = names.iter().map(|n| corpus(n)).collect();
        let model = Model::from_ir(xml(&cases[0]).as_bytes(), &bin(&cases[0])).unwrap();
        assert!(model.fused_node_count() > 0, "{}", names[0]);
        // Every shape, then the first again (its primitive cached).
        for case in cases.iter().chain(&cases[..1]) {
            let got = model.infer(&inputs(case, &model)).unwrap();
            check_outputs(case, &model, &got);
        }
    }
}

#[test]
fn lstm_sequence_1_runs_as_lstm_sequence_5() {
    let case = corpus("seq_lstm_bidirectional_lengths");
    let v1 = xml(&case).replace(
        "type=\"LSTMSequence\" version=\"opset5\"",
        "type=\"LSTMSequence\" version=\"opset1\"",
    );
    let model = Model::from_ir(v1.as_bytes(), &bin(&case)).unwrap();
    assert_eq!(model.fused_node_count(), 1);
    let got = model.infer(&inputs(&case, &model)).unwrap();
    check_outputs(&case, &model, &got);
    // input_forget (i = 1 − f) has no oneDNN equivalent: the op runs step by step.
    let coupled = v1.replace("clip=\"0\"", "clip=\"0\" input_forget=\"true\"");
    let model = Model::from_ir(coupled.as_bytes(), &bin(&case)).unwrap();
    assert_eq!(model.fused_node_count(), 0);
    let other = model.infer(&inputs(&case, &model)).unwrap();
    assert_ne!(got[0], other[0], "input_forget changes Y");
    assert!(model.rnn_report()[0].contains("input_forget"));
}

#[test]
fn bad_sequence_lengths_are_errors_naming_the_layer() {
    let case = corpus("seq_lstm_forward_lengths");
    for fused in [true, false] {
        let (x, b) = (xml(&case), bin(&case));
        let model = if fused {
            Model::from_ir(x.as_bytes(), &b)
        } else {
            Model::from_ir_unfused(x.as_bytes(), &b)
        }
        .unwrap();
        let mut args = inputs(&case, &model);
        let l = model.input_index("lengths").unwrap();
        for bad in [vec![6, 1, 1, 1], vec![-1, 1, 1, 1]] {
            args[l] = Tensor::from_vec(&[4], bad).unwrap();
            let e = model.infer(&args).unwrap_err().to_string();
            assert!(e.contains("LSTMSequence_"), "{e}");
        }
    }
    // Lengths [?] of another batch than X's.
    let case = corpus("seq_gru_dynamic_lengths");
    let model = Model::from_ir(xml(&case).as_bytes(), &bin(&case)).unwrap();
    let mut args = inputs(&case, &model);
    let l = model.input_index("lengths").unwrap();
    args[l] = Tensor::from_vec(&[2], vec![1i32, 1]).unwrap();
    let e = model.infer(&args).unwrap_err().to_string();
    assert!(e.contains("GRUSequence_"), "{e}");
}

#[test]
fn activations_differing_per_direction_fail_at_load() {
    let case = corpus("seq_rnn_bidirectional");
    let x = xml(&case);
    let same = x.replace("activations=\"tanh\"", "activations=\"relu, relu\"");
    let model = Model::from_ir(same.as_bytes(), &bin(&case)).unwrap();
    assert_eq!(model.fused_node_count(), 1, "ONNX's per-direction list");
    let differ = x.replace("activations=\"tanh\"", "activations=\"tanh, relu\"");
    match Model::from_ir(differ.as_bytes(), &bin(&case)) {
        Err(Error::Unimplemented(m)) => assert!(m.contains("RNNSequence_"), "{m}"),
        other => panic!("{other:?}"),
    }
}

fn oxidnn_run(case: &Case, model: &Path, extra: &[&str]) -> std::process::Output {
    let out = std::env::temp_dir().join(format!("oxidnn-seq-{}", std::process::id()));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oxidnn-run"));
    cmd.arg(model).arg("--output-dir").arg(&out).args(extra);
    for (name, file) in &case.inputs {
        cmd.arg("--input").arg(format!("{name}={}", file.display()));
    }
    let result = cmd.output().unwrap();
    let _ = std::fs::remove_dir_all(&out);
    result
}

#[test]
fn oxidnn_run_verbose_names_the_primitive_of_each_rnn_node() {
    let case = corpus("torch_lstm_2layer_bidirectional_batch_first");
    let out = oxidnn_run(&case, &case.dir.join("model.xml"), &["--verbose"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 of 2 RNN nodes fused"), "{err}");
    assert_eq!(
        err.matches("LSTMSequence → one RNN primitive: vanilla_lstm bidirectional_concat")
            .count(),
        2,
        "{err}"
    );
    let case = corpus("seq_lstm_clip_bidirectional");
    let out = oxidnn_run(&case, &case.dir.join("model.xml"), &["--verbose"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("step by step (clip=0.5"), "{err}");
}

#[test]
fn an_unknown_op_fails_at_load_naming_type_opset_and_layer() {
    let case = corpus("seq_gru_forward");
    let x = xml(&case).replace(
        "type=\"GRUSequence\" version=\"opset5\"",
        "type=\"GRUSequenceX\" version=\"opset42\"",
    );
    let dir: PathBuf = std::env::temp_dir().join(format!("oxidnn-unknown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("model.xml"), x).unwrap();
    std::fs::write(dir.join("model.bin"), bin(&case)).unwrap();
    let out = oxidnn_run(&case, &dir.join("model.xml"), &[]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown op type 'GRUSequenceX' of opset42") && err.contains("GRUSequence_"),
        "{err}"
    );
}

#[test]
fn a_huge_hidden_size_fails_at_load() {
    let case = corpus("seq_rnn_forward");
    let x = xml(&case).replace("hidden_size=\"6\"", "hidden_size=\"4611686018427387904\"");
    let e = Model::from_ir(x.as_bytes(), &bin(&case))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("over 2^31-1") && e.contains("RNNSequence_"),
        "{e}"
    );
}
