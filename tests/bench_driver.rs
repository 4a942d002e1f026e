//! `oxidnn-bench` end to end: every benchdnn RNN input file parses; the CI and `_all` lists run
//! with no FAILED case and at least the stated number of PASSED forward f32 cases (against
//! `rnn::reference` with benchdnn's thresholds); and an injected error of one ulp-scale makes a
//! case fail, so the comparison is live.
//!
//! The inputs are the shared copy of benchdnn's files: `../shared/conformance/benchdnn-rnn`
//! beside the repository, or `$OXIDNN_BENCH_INPUTS`.

use std::path::PathBuf;
use std::process::{Command, Output};

fn inputs_dir() -> PathBuf {
    let dir = std::env::var_os("OXIDNN_BENCH_INPUTS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/benchdnn-rnn"),
        PathBuf::from,
    );
    assert!(
        dir.join("SYNTAX.md").is_file(),
        "benchdnn RNN inputs not found at {} (set OXIDNN_BENCH_INPUTS)",
        dir.display()
    );
    dir
}

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oxidnn-bench"))
        .arg(format!("--inputs-dir={}", inputs_dir().display()))
        .args(args)
        .output()
        .expect("run oxidnn-bench")
}

/// Counts of the summary line `N passed, N failed, N skipped`.
fn summary(out: &Output) -> (usize, usize, usize) {
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .rfind(|l| l.ends_with(" skipped"))
        .unwrap_or_else(|| panic!("no summary in:\n{text}"));
    let n: Vec<usize> = line
        .split(", ")
        .map(|part| part.split(' ').next().unwrap().parse().unwrap())
        .collect();
    (n[0], n[1], n[2])
}

#[test]
fn every_input_file_parses() {
    let mut files = 0;
    for entry in std::fs::read_dir(inputs_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            continue;
        }
        let out = bench(&["--mode=L", &format!("--batch={name}")]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let cases: usize = text
            .lines()
            .last()
            .and_then(|l| l.strip_suffix(" cases"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no case count"));
        assert!(cases > 0, "{name}: no case");
        files += 1;
    }
    assert_eq!(files, 72);
}

#[test]
fn lists_run_with_no_failure() {
    // (list, cases, at least this many PASSED). Totals are fixed by the files; the PASSED floor is
    // today's coverage: every valid f32, bf16 and f16 case (any fpmath mode), forward (projection
    // and skip-nonlinear included) and backward, and every int8 case benchdnn runs on CPU but those
    // in test mode (the rest is SKIPPED for a reason in
    // `SKIP_REASONS`).
    for (list, total, min_passed) in [
        ("test_rnn_ci", 11784, 4823),
        ("test_gru_ci", 1092, 424),
        ("test_lstm_ci", 3666, 2514),
        ("test_augru_ci", 240, 20),
        ("test_rnn_all", 4104, 3164),
        ("test_gru_all", 3997, 1369),
        ("test_lstm_all", 19104, 10128),
        ("test_augru_all", 672, 60),
    ] {
        let out = bench(&[&format!("--batch={list}")]);
        let text = String::from_utf8_lossy(&out.stdout);
        let (passed, failed, skipped) = summary(&out);
        let failures: Vec<&str> = text.lines().filter(|l| l.contains(":FAILED")).collect();
        assert_eq!(failed, 0, "{list}:\n{}", failures.join("\n"));
        assert!(out.status.success(), "{list}: exit status {}", out.status);
        // Mistrusted: benchdnn's sparse weights leave the diff_src_layer rows no weight reads at
        // exactly zero when SLC > DHC; more than 30 % zeros makes the comparison mistrusted.
        let mistrusted: Vec<&str> = text.lines().filter(|l| l.contains(":MISTRUSTED")).collect();
        assert!(
            mistrusted.iter().all(|l| l.contains("--prop=BWD_DW")),
            "{list}: {mistrusted:?}"
        );
        assert_eq!(
            passed + skipped + mistrusted.len(),
            total,
            "{list}: case count"
        );
        assert!(
            passed >= min_passed,
            "{list}: {passed} passed, expected at least {min_passed}"
        );
        // Every skip has a known reason, so a library regression answering `unimplemented` for
        // something it supports cannot hide among the skips.
        let unexpected: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once(":SKIPPED: ").map(|(_, r)| r))
            .filter(|r| !SKIP_REASONS.iter().any(|k| r.starts_with(k)))
            .collect();
        assert!(unexpected.is_empty(), "{list}: {:?}", &unexpected[..1]);
    }
}

/// The reasons a case of these lists may be skipped for today.
const SKIP_REASONS: [&str; 6] = [
    "invalid: ",
    "cfg ",
    "unimplemented: f16 RNN primitives are forward inference only",
    "unimplemented: backward with weights tag ",
    "int8 ",
    "unimplemented: int8 RNN in test mode",
];

#[test]
fn an_injected_error_fails_the_case() {
    let case = ["--alg=VANILLA_LSTM", "--direction=concat", "l1t1mb4sic16"];
    let out = bench(&case);
    assert!(out.status.success());
    assert_eq!(summary(&out), (1, 0, 0));
    // 1e-6 on a value near 0.23 is a relative error of ~4e-6, twice benchdnn's threshold here.
    let out = bench(&[&["--inject-error=1e-6"][..], &case].concat());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(summary(&out), (0, 1, 0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("0:FAILED __REPRO: --rnn --alg=VANILLA_LSTM --direction=concat"));
    assert!(text.contains("dst_layer: 1/128 points above trh"), "{text}");
}

#[test]
fn a_bf16_case_is_checked_with_the_bf16_threshold() {
    let case = [
        "--cfg=bf16",
        "--alg=VANILLA_LSTM",
        "--direction=concat",
        "l1t1mb4sic16",
    ];
    assert_eq!(summary(&bench(&case)), (1, 0, 0));
    // The threshold is 4·ceil(log2 9)·2⁻⁷ = 0.125 relative: an error of 1e-3 on values near
    // 0.23 passes, one of 0.1 fails.
    let out = bench(&[&["--inject-error=1e-3"][..], &case].concat());
    assert_eq!(summary(&out), (1, 0, 0));
    let out = bench(&[&["--inject-error=0.1"][..], &case].concat());
    assert_eq!(summary(&out), (0, 1, 0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("dst_layer: 1/128 points above trh"), "{text}");
}

#[test]
fn an_injected_error_fails_a_backward_case() {
    let case = ["--prop=BWD_DW", "--alg=VANILLA_LSTM", "l1t3mb4sic8"];
    assert_eq!(summary(&bench(&case)), (1, 0, 0));
    // 1e-4 on a diff_src_layer value near 0.16 is far above the backward threshold (~1e-5).
    let out = bench(&[&["--inject-error=1e-4"][..], &case].concat());
    assert_eq!(summary(&out), (0, 1, 0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("diff_src_layer: 1/96 points above trh"),
        "{text}"
    );
}

#[test]
fn bad_input_is_reported_with_its_place() {
    let out = bench(&["--alg=VANILLA_LSTM", "--frobnicate=1", "sic4"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown option '--frobnicate'"), "{err}");
    let out = bench(&["--batch=no_such_file"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn performance_mode_times_each_case() {
    let out = bench(&[
        "--mode=P",
        "--fix-times-per-prb=3",
        "--alg=VANILLA_GRU",
        "l2t3mb8sic32",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("0:PERF "))
        .expect("a PERF line");
    let words: Vec<&str> = line.split(' ').collect();
    let ms: f64 = words[1].parse().unwrap();
    let gflops: f64 = words[3].parse().unwrap();
    assert!(ms > 0.0 && gflops > 0.0, "{line}");
    assert_eq!((words[2], words[4]), ("ms", "GFLOP/s"));
}
