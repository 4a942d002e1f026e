//! The correctness check of one case, one function per propagation kind: forward runs the
//! primitive and compares every output with the reference; backward (in [`crate::backward`])
//! runs forward training, then backward, and compares every gradient.

use crate::backward;
use crate::case::{Case, Skip};
use crate::compare::{Rule, Verdict};
use crate::options::Prop;
use crate::run::{NotRun, Prepared};
use oxidnn::args;
use oxidnn::rnn::reference::RefOutputs;

/// The result of one case.
#[derive(Debug)]
pub enum Outcome {
    /// Every output within benchdnn's rules.
    Passed,
    /// Passed with outputs too full of zeros to trust.
    Mistrusted(Vec<String>),
    /// Some output outside the rules, or the library failed.
    Failed(Vec<String>),
    /// Not run.
    Skipped(Skip),
    /// Performance mode: median milliseconds and GFLOP/s.
    Timed {
        /// Median wall time of one execution.
        ms: f64,
        /// Forward GEMM flops over the median time.
        gflops: f64,
    },
}

impl From<NotRun> for Outcome {
    fn from(n: NotRun) -> Self {
        match n {
            NotRun::Skipped(s) => Outcome::Skipped(s),
            NotRun::Failed(m) => Outcome::Failed(vec![m]),
        }
    }
}

/// Checks a case that passed the driver's own skip rules. `inject_error` is added to the
/// library's first output value (a test of the comparison itself).
pub fn check(c: &Case, inject_error: f32) -> Outcome {
    if crate::int8::Config::of(&c.cfg).is_some() {
        return crate::int8::check(c, inject_error);
    }
    match c.prop {
        Prop::FwdI | Prop::FwdD => forward(c, inject_error),
        Prop::BwdD | Prop::BwdDw => backward::check(c, inject_error),
    }
}

/// Compares `(name, got, expected)` tensors with one rule: failed if any fails, else mistrusted
/// if any is, else passed.
pub fn judge<'a>(
    rule: Rule,
    tensors: impl IntoIterator<Item = (&'a str, &'a [f32], &'a [f32])>,
) -> Outcome {
    let (mut failed, mut mistrusted) = (Vec::new(), Vec::new());
    for (name, got, exp) in tensors {
        match rule.check(name, got, exp) {
            Verdict::Passed => {}
            Verdict::Mistrusted(m) => mistrusted.push(m),
            Verdict::Failed(m) => failed.push(m),
        }
    }
    if !failed.is_empty() {
        Outcome::Failed(failed)
    } else if !mistrusted.is_empty() {
        Outcome::Mistrusted(mistrusted)
    } else {
        Outcome::Passed
    }
}

/// Executes a forward case (inference, or training with its workspace) and compares
/// dst_layer, dst_iter and dst_iter_c with the reference; also returns the reference outputs.
pub fn run_forward(
    c: &Case,
    prepared: &Prepared,
    inject_error: f32,
) -> Result<(Outcome, RefOutputs), Outcome> {
    prepared
        .execute()
        .map_err(|e| Outcome::Failed(vec![format!("execute: {e}")]))?;
    let mut got = prepared.outputs(c);
    if let Some(v) = got.tensors[0].2.first_mut() {
        *v += inject_error;
    }
    let exp = prepared
        .reference()
        .map_err(|e| Outcome::Failed(vec![format!("reference: {e}")]))?;
    let outcome = judge(
        Rule::forward(c),
        got.tensors.iter().map(|(arg, name, values)| {
            let expected = match *arg {
                args::DST_LAYER => &exp.dst_layer,
                args::DST_ITER => &exp.dst_iter,
                _ => &exp.dst_iter_c,
            };
            (*name, values.as_slice(), expected.as_slice())
        }),
    );
    Ok((outcome, exp))
}

/// Forward inference or training: the primitive's outputs against the reference.
fn forward(c: &Case, inject_error: f32) -> Outcome {
    let prepared = match Prepared::new(c) {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    match run_forward(c, &prepared, inject_error) {
        Ok((outcome, _)) | Err(outcome) => outcome,
    }
}
