//! Every OpenVINO case of `tests/ov_cases/` through the `oxidnn-run` binary (outputs written
//! as `.npy` and compared like `graph_ov_cases`), with and without `--no-fuse`, plus its
//! argument errors.

#[path = "graph_support/mod.rs"]
mod support;

use std::process::Command;

use oxidnn::graph::npy::read_npy_file;
use support::{cases, compare};

fn oxidnn_run() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oxidnn-run"))
}

#[test]
fn every_openvino_case_through_oxidnn_run() {
    let out_root = std::env::temp_dir().join(format!("oxidnn-run-cases-{}", std::process::id()));
    let mut failures = Vec::new();
    let all = cases();
    // Every case with the graph passes (the default) and without them (`--no-fuse`).
    for (case, no_fuse) in all.iter().flat_map(|c| [(c, false), (c, true)]) {
        let out = out_root.join(format!("{}-{no_fuse}", case.name()));
        let mut cmd = oxidnn_run();
        cmd.arg(case.dir.join("model.xml"))
            .arg("--output-dir")
            .arg(&out);
        if no_fuse {
            cmd.arg("--no-fuse");
        }
        for (name, file) in &case.inputs {
            cmd.arg("--input").arg(format!("{name}={}", file.display()));
        }
        let result = cmd.output().expect("oxidnn-run runs");
        if !result.status.success() {
            failures.push(format!(
                "{} (--no-fuse: {no_fuse}): {}",
                case.name(),
                String::from_utf8_lossy(&result.stderr)
            ));
            continue;
        }
        for (name, file) in &case.outputs {
            let got = read_npy_file(&out.join(format!("{name}.npy")));
            let check = got
                .map_err(|e| e.to_string())
                .and_then(|g| compare(&g, &read_npy_file(file).unwrap()));
            if let Err(e) = check {
                failures.push(format!(
                    "{} (--no-fuse: {no_fuse}): output {name}: {e}",
                    case.name()
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&out_root);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn bad_arguments_exit_non_zero_with_a_message() {
    let case = &cases()[0];
    let model = case.dir.join("model.xml");
    let bad: Vec<Vec<String>> = vec![
        vec![],
        vec![model.display().to_string()],
        vec![model.display().to_string(), "--output-dir".into()],
        vec![
            model.display().to_string(),
            "--output-dir".into(),
            "/tmp/x".into(),
            "--bench".into(),
            "0".into(),
        ],
        vec![
            model.display().to_string(),
            "--output-dir".into(),
            "/tmp/x".into(),
            "--input".into(),
            "novalue".into(),
        ],
        vec![
            model.display().to_string(),
            "--output-dir".into(),
            "/tmp/x".into(),
            "--frobnicate".into(),
        ],
        vec![
            "/nonexistent/model.xml".into(),
            "--output-dir".into(),
            "/tmp/x".into(),
        ],
        vec![
            model.display().to_string(),
            "--output-dir".into(),
            "/tmp/x".into(),
            "--input".into(),
            "nosuch=a.npy".into(),
        ],
    ];
    for args in bad {
        let r = oxidnn_run().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!r.status.success(), "{args:?} succeeded");
        assert!(err.starts_with("oxidnn-run: "), "{args:?}: {err}");
    }
}

#[test]
fn bench_prints_median_and_min() {
    let case = cases()
        .into_iter()
        .find(|c| c.name() == "ti_lstm_seed_example")
        .unwrap();
    let out = std::env::temp_dir().join(format!("oxidnn-run-bench-{}", std::process::id()));
    let mut cmd = oxidnn_run();
    cmd.arg(case.dir.join("model.xml"))
        .arg("--output-dir")
        .arg(&out)
        .args(["--bench", "3"]);
    for (name, file) in &case.inputs {
        cmd.arg("--input").arg(format!("{name}={}", file.display()));
    }
    let r = cmd.output().unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        r.status.success() && text.contains("bench: 3 runs, median") && text.contains("min"),
        "{text}"
    );
}
