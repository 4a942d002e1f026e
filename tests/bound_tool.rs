//! `oxidnn-bound` end to end: the batch-1 bound of issue 34 runs on every instruction set, reads
//! the bytes of `U` it says (the packed panels, padding included), adds its two parts, and
//! rejects what it does not model.

use std::process::{Command, Output};

fn bound(env: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oxidnn-bound"))
        .envs(env.iter().copied())
        .args(args)
        .output()
        .expect("run oxidnn-bound")
}

/// The numbers of the `BOUND` line: members, read, GEMM, bound, step GEMM.
fn bound_line(out: &Output) -> (usize, [f64; 4]) {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "oxidnn-bound failed:\n{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("BOUND "))
        .unwrap_or_else(|| panic!("no BOUND line in:\n{text}"));
    let t: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(t.len(), 6, "{line}");
    let v = |i: usize| {
        t[i].parse::<f64>()
            .unwrap_or_else(|e| panic!("{line}: {e}"))
    };
    (t[1].parse().expect("members"), [v(2), v(3), v(4), v(5)])
}

#[test]
fn w1_bound_on_every_isa() {
    for isa in ["avx512", "avx2", "portable"] {
        let out = bound(
            &[("OXIDNN_NUM_THREADS", "2"), ("OXIDNN_ISA", isa)],
            &["--steps", "4", "--reps", "3"],
        );
        let (members, [read, gemm, total, step_gemm]) = bound_line(&out);
        assert!((1..=2).contains(&members), "{members} members");
        assert!(read > 0.0 && gemm > 0.0 && step_gemm > 0.0);
        assert!(
            (total - (read + gemm)).abs() < 1e-3,
            "{total} != {read} + {gemm}"
        );
        let text = String::from_utf8_lossy(&out.stdout);
        // W1's U: 16 panels of 512 rows × 4 gates × 32 floats.
        assert!(text.contains("read U (4.00 MiB per layer"), "{text}");
        assert!(text.contains("layer GEMM 4x2048x512"), "{text}");
        // The ISA in use is the capped one, or one below it that this CPU runs.
        let below = match isa {
            "avx512" => &["avx512", "avx2", "portable"][..],
            "avx2" => &["avx2", "portable"],
            _ => &["portable"],
        };
        assert!(
            below.iter().any(|i| text.contains(&format!(", isa {i},"))),
            "{text}"
        );
    }
}

#[test]
fn padded_panels_and_several_layers() {
    let out = bound(
        &[("OXIDNN_NUM_THREADS", "1")],
        &[
            "--steps",
            "3",
            "--layers",
            "2",
            "--batch",
            "2",
            "--channels",
            "100",
            "--gates",
            "3",
        ],
    );
    bound_line(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    // 4 panels (100 units padded to 128) × 100 rows × 3 gates × 32 floats × 4 bytes = 0.15 MiB;
    // 2 layers × 3 steps.
    assert!(text.contains("read U (0.15 MiB per layer"), "{text}");
    assert!(text.contains("at 6 steps"), "{text}");
    assert!(text.contains("layer GEMM 6x384x100 x 2 layer(s)"), "{text}");
}

#[test]
fn rejects_what_it_does_not_model() {
    for args in [
        &["--batch", "9"][..],
        &["--steps", "0"],
        &["--gates"],
        &["--channels", "x"],
        &["--unknown", "1"],
    ] {
        let out = bound(&[], args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("usage:"),
            "{args:?}"
        );
    }
}
