//! The correctness check of one case, one function per propagation kind: forward runs the
//! primitive and compares every output with the reference; backward is not implemented yet.

use crate::case::{Case, Skip};
use crate::compare::{Rule, Verdict};
use crate::options::Prop;
use crate::run::{NotRun, Prepared};
use oxidnn::args;

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
    match c.prop {
        Prop::FwdI | Prop::FwdD => forward(c, inject_error),
        Prop::BwdD | Prop::BwdDw => backward(c),
    }
}

/// Forward inference or training (the latter with its workspace): dst_layer, dst_iter and
/// dst_iter_c against the reference.
fn forward(c: &Case, inject_error: f32) -> Outcome {
    let prepared = match Prepared::new(c) {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    if let Err(e) = prepared.execute() {
        return Outcome::Failed(vec![format!("execute: {e}")]);
    }
    let mut got = prepared.outputs(c);
    if let Some(v) = got.tensors[0].2.first_mut() {
        *v += inject_error;
    }
    let exp = match prepared.reference() {
        Ok(r) => r,
        Err(e) => return Outcome::Failed(vec![format!("reference: {e}")]),
    };
    let rule = Rule::forward(c);
    let (mut failed, mut mistrusted) = (Vec::new(), Vec::new());
    for (arg, name, values) in &got.tensors {
        let expected = match *arg {
            args::DST_LAYER => &exp.dst_layer,
            args::DST_ITER => &exp.dst_iter,
            _ => &exp.dst_iter_c,
        };
        match rule.check(name, values, expected) {
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

/// Backward (data, or data and weights): benchdnn runs forward training, then backward, and
/// compares every diff tensor. Not implemented by the library yet.
fn backward(_c: &Case) -> Outcome {
    Outcome::Skipped(Skip::Unsupported("backward not implemented".into()))
}
