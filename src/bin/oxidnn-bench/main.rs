//! `oxidnn-bench`: a benchdnn-compatible RNN conformance driver.
//!
//! ```text
//! oxidnn-bench [--mode=C|P|CP|L] [--inputs-dir=DIR] [--fix-times-per-prb=N] OPTIONS... DESCRIPTORS... [--batch=FILE]...
//! ```
//! Reads benchdnn RNN options, descriptors and batch files (see
//! `shared/conformance/benchdnn-rnn/SYNTAX.md`), runs every f32, bf16 and f16 case through the library's core
//! API exactly as the C API would, compares dst_layer, dst_iter and dst_iter_c (and, for
//! `--prop=BWD_DW`, every gradient) with `rnn::reference` / `rnn::reference_backward` under
//! benchdnn's thresholds, and prints one line per case
//! (`PASSED`, `FAILED`, `MISTRUSTED`, `SKIPPED: reason`), the skip reasons with their counts,
//! and `N passed, N failed, N skipped`. The exit status is 1 when a case failed, 2 on bad input.
//! `--mode=P` times each case instead (median ms of `--fix-times-per-prb` executions, default
//! 10, and GFLOP/s); `--mode=CP` checks, then times the cases that passed; `--mode=L` only lists
//! the cases. A panic inside a case is reported as its failure and the run goes on. Batch files
//! are looked up next to the including file, then in `--inputs-dir` (default
//! `$OXIDNN_BENCH_INPUTS`, else `../shared/conformance/benchdnn-rnn` beside the repository).

mod backward;
mod case;
mod check;
mod compare;
mod descriptor;
mod fill;
mod int8;
mod options;
mod parse;
mod perf;
mod run;
mod tensor;

use check::Outcome;
use parse::{Input, Mode};
use std::collections::BTreeMap;
use std::process::ExitCode;

/// Case counts of a run.
#[derive(Default)]
struct Summary {
    passed: usize,
    failed: usize,
    skipped: usize,
    mistrusted: usize,
    skip_reasons: BTreeMap<String, usize>,
}

impl Summary {
    /// Prints one case's line and counts it.
    fn record(&mut self, index: usize, repro: &str, outcome: Outcome) {
        let (status, details) = match outcome {
            Outcome::Passed => {
                self.passed += 1;
                ("PASSED".to_string(), Vec::new())
            }
            Outcome::Mistrusted(why) => {
                self.mistrusted += 1;
                ("MISTRUSTED".to_string(), why)
            }
            Outcome::Failed(why) => {
                self.failed += 1;
                ("FAILED".to_string(), why)
            }
            Outcome::Skipped(why) => {
                self.skipped += 1;
                let why = why.to_string();
                *self.skip_reasons.entry(why.clone()).or_default() += 1;
                (format!("SKIPPED: {why}"), Vec::new())
            }
            Outcome::Timed { ms, gflops } => {
                self.passed += 1;
                (format!("PERF {ms:.4} ms {gflops:.3} GFLOP/s"), Vec::new())
            }
        };
        println!("{index}:{status} __REPRO: {repro}");
        for d in details {
            println!("    {d}");
        }
    }

    fn print(&self) {
        if !self.skip_reasons.is_empty() {
            println!("skip reasons:");
            for (why, n) in &self.skip_reasons {
                println!("  {n:>6}  {why}");
            }
        }
        let total = self.passed + self.failed + self.skipped + self.mistrusted;
        println!(
            "tests:{total} passed:{} mistrusted:{} skipped:{} failed:{}",
            self.passed, self.mistrusted, self.skipped, self.failed
        );
        println!(
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        );
    }
}

/// Runs `f`, turning a panic into a failure of the case.
fn guarded(f: impl FnOnce() -> Outcome) -> Outcome {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| p.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        Outcome::Failed(vec![format!("panicked: {msg}")])
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.iter().any(|a| a == "--help" || a == "-h") {
        println!(
            "usage: oxidnn-bench [--mode=C|P|CP|L] [--inputs-dir=DIR] [--fix-times-per-prb=N] \
             [benchdnn RNN options] [descriptors] [--batch=FILE]..."
        );
        return ExitCode::from(if args.is_empty() { 2 } else { 0 });
    }
    let input = match Input::from_args(&args) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("oxidnn-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let g = &input.global;
    let mut summary = Summary::default();
    for (index, c) in input.cases.iter().enumerate() {
        let repro = c.repro();
        if g.mode == Mode::List {
            println!("{index}:LISTED __REPRO: {repro}");
            continue;
        }
        if let Some(skip) = c.skip_reason() {
            summary.record(index, &repro, Outcome::Skipped(skip));
            continue;
        }
        let outcome = guarded(|| match g.mode {
            Mode::Performance => perf::time(c, g.times),
            _ => check::check(c, g.inject_error),
        });
        // Both: a case that passed is then timed, on a line of its own that is not counted.
        let timed = matches!(outcome, Outcome::Passed) && g.mode == Mode::Both;
        summary.record(index, &repro, outcome);
        if timed {
            if let Outcome::Timed { ms, gflops } = perf::time(c, g.times) {
                println!("{index}:PERF {ms:.4} ms {gflops:.3} GFLOP/s");
            }
        }
    }
    if g.mode == Mode::List {
        println!("{} cases", input.cases.len());
        return ExitCode::SUCCESS;
    }
    summary.print();
    if summary.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_case_is_a_failure() {
        match guarded(|| panic!("boom {}", 7)) {
            Outcome::Failed(why) => assert_eq!(why, ["panicked: boom 7"]),
            other => panic!("{other:?}"),
        }
        assert!(matches!(guarded(|| Outcome::Passed), Outcome::Passed));
    }
}
