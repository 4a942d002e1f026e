//! benchdnn's pass/fail rules for an f32 RNN output (reference §b): the threshold, the
//! point-wise acceptance, the L2-norm fallback and the "too many zeros" mistrust.

use crate::case::Case;
use crate::options::{Alg, Dir};

/// Fraction of zeros in the expected output above which a pass is not trusted.
const ZERO_TRUST: f64 = 0.3;

/// What one tensor comparison found.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Every point (or the norm) within the threshold.
    Passed,
    /// Passed, but the expected output is mostly zeros.
    Mistrusted(String),
    /// Outside the threshold; the message names the worst point.
    Failed(String),
}

/// How a tensor is compared.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// Per-point threshold (relative where |expected| > 1e−5, else absolute).
    pub trh: f32,
    /// Whether the L2 relative norm may rescue a point-wise failure.
    pub norm_fallback: bool,
    /// benchdnn's backward rule: an absolute difference below `trh` also passes.
    pub abs_ok: bool,
}

impl Rule {
    /// The forward rule of a case:
    /// `trh = 4 · (2 if sum) · ceil(log2(acc · T)) · eps` (eps of the cfg's type), `acc = 2G + 1` (× SIC for GRU and
    /// AUGRU); no norm fallback with skip-nonlinear or at L = T = 1.
    pub fn forward(c: &Case) -> Self {
        Self::with_acc(c, 1.0, 1.0, false)
    }

    /// The backward rule of a case: as forward with `acc` multiplied by `max(G·DHC, MB)`
    /// and the threshold doubled; an absolute difference below it passes too, except for
    /// VANILLA_AUGRU.
    pub fn backward(c: &Case) -> Self {
        let acc = (c.gates() * c.dims.dhc).max(c.dims.mb) as f64;
        Self::with_acc(c, acc, 2.0, c.alg != Alg::VanillaAugru)
    }

    fn with_acc(c: &Case, acc_factor: f64, trh_factor: f32, abs_ok: bool) -> Self {
        let mut acc = (2.0 * c.gates() as f64 + 1.0) * acc_factor;
        if matches!(c.alg, Alg::VanillaGru | Alg::VanillaAugru) {
            acc *= c.dims.sic as f64;
        }
        let k = (acc * c.dims.t.max(1) as f64).log2().ceil() as f32;
        let sum = if c.direction == Dir::Sum { 2.0 } else { 1.0 };
        Self {
            trh: 4.0 * trh_factor * sum * k * c.eps(),
            norm_fallback: !(c.skip_nonlinear || c.dims.l == 1 && c.dims.t == 1),
            abs_ok,
        }
    }

    /// Compares `got` with `exp` (same logical order) for the tensor `what`.
    pub fn check(&self, what: &str, got: &[f32], exp: &[f32]) -> Verdict {
        if got.len() != exp.len() {
            return Verdict::Failed(format!(
                "{what}: {} values, expected {}",
                got.len(),
                exp.len()
            ));
        }
        let (mut fails, mut worst, mut worst_at) = (0usize, -1f32, 0usize);
        let (mut num, mut den, mut zeros) = (0f64, 0f64, 0usize);
        for (i, (&g, &e)) in got.iter().zip(exp).enumerate() {
            let diff = (g - e).abs();
            let rel = if e.abs() > 1e-5 { diff / e.abs() } else { diff };
            num += f64::from(diff).powi(2);
            den += f64::from(e).powi(2);
            zeros += usize::from(e == 0.0);
            let ok = g == e
                || rel <= self.trh
                || (e.abs() <= 1e-5 && diff < f32::EPSILON)
                || (self.abs_ok && diff < self.trh);
            if !ok {
                fails += 1;
                if rel.is_nan() || rel > worst {
                    (worst, worst_at) = (if rel.is_nan() { f32::INFINITY } else { rel }, i);
                }
            }
        }
        let norm = (num / den.max(f64::MIN_POSITIVE)).sqrt();
        if fails > 0 && !(self.norm_fallback && norm <= f64::from(self.trh)) {
            return Verdict::Failed(format!(
                "{what}: {fails}/{} points above trh {:e}; worst [{worst_at}] got {} expected {} \
                 (diff {:e}, rel {:e}); L2 rel {norm:e}{}",
                got.len(),
                self.trh,
                got[worst_at],
                exp[worst_at],
                (got[worst_at] - exp[worst_at]).abs(),
                worst,
                if self.norm_fallback {
                    ""
                } else {
                    " (no norm fallback)"
                }
            ));
        }
        if !exp.is_empty() && zeros as f64 > ZERO_TRUST * exp.len() as f64 {
            return Verdict::Mistrusted(format!(
                "{what}: {zeros}/{} expected values are zero",
                exp.len()
            ));
        }
        Verdict::Passed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: Rule = Rule {
        trh: 1e-6,
        norm_fallback: false,
        abs_ok: false,
    };

    #[test]
    fn points_within_the_relative_threshold_pass() {
        let exp = [1.0, 0.5, -2.0, 0.0];
        let got = [1.0 + 5e-7, 0.5, -2.0 - 1e-6, 1e-8];
        assert_eq!(RULE.check("x", &got, &exp), Verdict::Passed);
    }

    #[test]
    fn a_point_outside_fails_and_is_named() {
        let exp = [1.0, 0.5, 0.25];
        let got = [1.0, 0.5 + 1e-5, 0.25];
        let Verdict::Failed(m) = RULE.check("dst_layer", &got, &exp) else {
            panic!("must fail")
        };
        assert!(
            m.contains("dst_layer: 1/3 points") && m.contains("[1]"),
            "{m}"
        );
        let nan = [1.0, f32::NAN, 0.25];
        assert!(matches!(RULE.check("x", &nan, &exp), Verdict::Failed(_)));
        assert!(matches!(
            RULE.check("x", &got[..2], &exp),
            Verdict::Failed(_)
        ));
    }

    #[test]
    fn the_norm_rescues_a_single_outlier_only_when_allowed() {
        let exp = vec![1.0f32; 1000];
        let mut got = exp.clone();
        got[7] = 1.0 + 2e-6;
        assert!(matches!(RULE.check("x", &got, &exp), Verdict::Failed(_)));
        let norm = Rule {
            norm_fallback: true,
            ..RULE
        };
        assert_eq!(norm.check("x", &got, &exp), Verdict::Passed);
    }

    #[test]
    fn the_backward_rule_accepts_small_absolute_differences() {
        let exp = [1e-3f32];
        let got = [1e-3 + 5e-7];
        assert!(matches!(RULE.check("x", &got, &exp), Verdict::Failed(_)));
        let abs = Rule {
            abs_ok: true,
            ..RULE
        };
        assert_eq!(abs.check("x", &got, &exp), Verdict::Passed);
    }

    #[test]
    fn mostly_zero_outputs_are_mistrusted() {
        let exp = [0.0, 0.0, 1.0];
        assert!(matches!(
            RULE.check("x", &exp, &exp),
            Verdict::Mistrusted(_)
        ));
    }
}
