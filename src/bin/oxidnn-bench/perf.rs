//! Performance mode: times a case's primitive and reports the median and GFLOP/s.

use crate::case::Case;
use crate::check::Outcome;
use crate::options::Prop;
use crate::run::Prepared;
use std::time::Instant;

/// Executes a forward case once to warm up, then `times` more, timing each execution.
pub fn time(c: &Case, times: usize) -> Outcome {
    if !matches!(c.prop, Prop::FwdI | Prop::FwdD) {
        return crate::check::check(c, 0.0);
    }
    let timed = if crate::int8::Config::of(&c.cfg).is_some() {
        crate::int8::Prepared::new(c).map(|p| samples(times, p.pd(), || p.execute()))
    } else {
        Prepared::new(c).map(|p| samples(times, p.pd(), || p.execute()))
    };
    match timed {
        Ok(outcome) => outcome,
        Err(e) => e.into(),
    }
}

/// Runs `execute` once to warm up, then `times` more; the median and GFLOP/s of `pd`'s work.
fn samples(
    times: usize,
    pd: &oxidnn::rnn::RnnPd,
    execute: impl Fn() -> Result<(), oxidnn::Error>,
) -> Outcome {
    let mut samples = Vec::with_capacity(times);
    for i in 0..=times {
        let start = Instant::now();
        if let Err(e) = execute() {
            return Outcome::Failed(vec![format!("execute: {e}")]);
        }
        if i > 0 {
            samples.push(start.elapsed().as_secs_f64());
        }
    }
    let median = median(&mut samples);
    Outcome::Timed {
        ms: median * 1e3,
        gflops: pd.problem().forward_flops() / median.max(1e-12) / 1e9,
    }
}

/// The median of a non-empty sample (mean of the middle two for an even count).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn median_of_odd_and_even_samples() {
        assert_eq!(super::median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
