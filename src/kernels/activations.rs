//! Activations for the post-GEMM: logistic sigmoid and tanh, accurate to a few ulp.
//!
//! Each function is branch-free scalar code (selects, bit manipulation, no libm call) so that a
//! loop over an array of them, compiled inside a `#[target_feature]` function, becomes SIMD code
//! for that instruction set. `FMA` selects fused multiply-adds for the polynomial steps (true on
//! the AVX2/AVX-512 paths; the portable path, which may lack the instruction, uses separate
//! multiplies and adds).
//!
//! Accuracy, measured against f64 by the tests below (both `FMA` settings): `exp`, `expm1`
//! ≤ 2 ulp, `sigmoid`, `tanh` ≤ 3 ulp, well inside benchdnn's f32 tolerance (16 ulp at
//! T = L = 1). NaN propagates.

use super::isa::isa_dispatch;
use super::Isa;

const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 split in two (Cody–Waite): `LN2_HI` has few significant bits so `n·LN2_HI` is exact.
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// 1.5·2²³: adding it rounds a float of magnitude < 2²² to an integer (round-to-nearest-even).
const ROUND_MAGIC: f32 = 12_582_912.0;
/// Below this, `exp` returns `e^EXP_MIN` (a normal number) instead of a subnormal.
const EXP_MIN: f32 = -87.0;

/// `a·b + c`, fused when `FMA`.
#[inline(always)]
pub fn mul_add<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// e^x for x ≤ 0 split as `2^n · (1 + q)`: returns `(2^n, q)` with `q = e^r − 1`, `r = x − n·ln2`
/// in [−ln2/2, ln2/2] (x < −87 is treated as −87), `q = r + r²·p(r)` with `p` of degree 4,
/// fitted (weighted minimax) to the relative error of `e^r`: at most 0.05·2⁻²⁴ before rounding,
/// one multiply-add fewer than Cephes' degree 5.
#[inline(always)]
fn exp_parts<const FMA: bool>(x: f32) -> (f32, f32) {
    let x = if x < EXP_MIN { EXP_MIN } else { x };
    let v = mul_add::<FMA>(x, LOG2E, ROUND_MAGIC);
    let n = v - ROUND_MAGIC;
    let n_int = v.to_bits().wrapping_sub(ROUND_MAGIC.to_bits()) as i32;
    let r = mul_add::<FMA>(-n, LN2_LO, mul_add::<FMA>(-n, LN2_HI, x));
    let mut p = 1.381_461_3e-3_f32;
    p = mul_add::<FMA>(p, r, 8.368_71e-3);
    p = mul_add::<FMA>(p, r, 4.166_839e-2);
    p = mul_add::<FMA>(p, r, 1.666_652_1e-1);
    p = mul_add::<FMA>(p, r, 4.999_999_4e-1);
    let q = mul_add::<FMA>(p, r * r, r);
    let scale = f32::from_bits((n_int.wrapping_add(127) as u32) << 23);
    (scale, q)
}

/// e^x for x ≤ 0 (x < −87 is treated as −87).
#[inline(always)]
pub fn exp_nonpositive<const FMA: bool>(x: f32) -> f32 {
    let (scale, q) = exp_parts::<FMA>(x);
    mul_add::<FMA>(q, scale, scale)
}

/// e^x − 1 for x ≤ 0, without cancellation near 0: `2^n·q + (2^n − 1)`.
#[inline(always)]
pub fn expm1_nonpositive<const FMA: bool>(x: f32) -> f32 {
    let (scale, q) = exp_parts::<FMA>(x);
    mul_add::<FMA>(scale, q, scale - 1.0)
}

/// Logistic sigmoid 1 / (1 + e^−x), computed without overflow for either sign.
#[inline(always)]
pub fn sigmoid<const FMA: bool>(x: f32) -> f32 {
    let e = exp_nonpositive::<FMA>(-x.abs());
    let num = if x >= 0.0 { 1.0 } else { e };
    num / (1.0 + e)
}

/// Hyperbolic tangent: `−m / (2 + m)` with `m = e^−2|x| − 1` and the sign of x — one formula for
/// every x (no cancellation near 0, no overflow for large |x|).
#[inline(always)]
pub fn tanh<const FMA: bool>(x: f32) -> f32 {
    let m = expm1_nonpositive::<FMA>(-2.0 * x.abs());
    (-m / (2.0 + m)).copysign(x)
}

/// An activation applied to a whole slice by [`apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// Logistic sigmoid.
    Sigmoid,
    /// Hyperbolic tangent.
    Tanh,
}

/// # Safety
/// `x` has `len` readable and writable floats.
#[inline(always)]
unsafe fn apply_body<const FMA: bool>(f: Activation, x: *mut f32, len: usize) {
    let xs = unsafe { std::slice::from_raw_parts_mut(x, len) };
    match f {
        Activation::Sigmoid => xs.iter_mut().for_each(|v| *v = sigmoid::<FMA>(*v)),
        Activation::Tanh => xs.iter_mut().for_each(|v| *v = tanh::<FMA>(*v)),
    }
}

isa_dispatch!(
    /// Applies `f` to `len` floats at `x` in place, as SIMD code of `isa`.
    unsafe fn apply_raw => apply_body, (f: Activation, x: *mut f32, len: usize)
);

/// Applies `f` to every element of `xs`, compiled for `isa` (the portable code when the CPU
/// lacks `isa`): the post-GEMM's activations on their own, for tests and benchmarks.
pub fn apply(isa: Isa, f: Activation, xs: &mut [f32]) {
    let isa = isa.or_portable();
    // SAFETY: the slice is valid for its length; `isa` is supported.
    unsafe { apply_raw(isa, f, xs.as_mut_ptr(), xs.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in representable floats between `got` and the correctly rounded `exact`.
    fn ulps(got: f32, exact: f64) -> f64 {
        let e = exact as f32;
        if got == e {
            return 0.0;
        }
        let ulp = (f32::from_bits(e.abs().to_bits() + 1) - e.abs()) as f64;
        ((got as f64 - exact) / ulp).abs()
    }

    fn samples() -> impl Iterator<Item = f32> {
        let dense = (-400_000..=400_000).map(|i| i as f32 * 5e-5);
        let wide = (-10_000..=10_000).map(|i| i as f32 * 0.01);
        let tiny = (0..200).flat_map(|i| {
            let v = 1e-30_f32 * 1.5_f32.powi(i);
            [v, -v]
        });
        dense.chain(wide).chain(tiny).chain([
            0.0,
            -0.0,
            0.625,
            -0.625,
            0.624_999_9,
            87.0,
            -87.0,
            200.0,
        ])
    }

    fn max_ulps(f: impl Fn(f32) -> f32, exact: impl Fn(f64) -> f64, skip_below: f64) -> f64 {
        samples()
            .filter(|&x| exact(x as f64).abs() >= skip_below)
            .map(|x| ulps(f(x), exact(x as f64)))
            .fold(0.0, f64::max)
    }

    fn exp_within_two_ulp<const FMA: bool>() {
        let worst = samples()
            .filter(|&x| (-87.0..=0.0).contains(&x))
            .map(|x| ulps(exp_nonpositive::<FMA>(x), (x as f64).exp()))
            .fold(0.0, f64::max);
        assert!(worst <= 2.0, "exp (fma {FMA}) worst error {worst} ulp");
    }

    fn sigmoid_within_three_ulp<const FMA: bool>() {
        let worst = max_ulps(sigmoid::<FMA>, |x| 1.0 / (1.0 + (-x).exp()), 1e-37);
        assert!(worst <= 3.0, "sigmoid (fma {FMA}) worst error {worst} ulp");
        assert_eq!(sigmoid::<FMA>(200.0), 1.0);
        assert!(sigmoid::<FMA>(-200.0) < 1e-37);
    }

    fn tanh_within_three_ulp<const FMA: bool>() {
        let worst = max_ulps(tanh::<FMA>, f64::tanh, 0.0);
        assert!(worst <= 3.0, "tanh (fma {FMA}) worst error {worst} ulp");
        assert_eq!(tanh::<FMA>(50.0), 1.0);
        assert_eq!(tanh::<FMA>(-50.0), -1.0);
        assert_eq!(tanh::<FMA>(0.0).to_bits(), 0.0f32.to_bits());
    }

    #[test]
    fn exp_is_within_two_ulp() {
        exp_within_two_ulp::<false>();
        exp_within_two_ulp::<true>();
    }

    #[test]
    fn sigmoid_is_within_three_ulp() {
        sigmoid_within_three_ulp::<false>();
        sigmoid_within_three_ulp::<true>();
    }

    #[test]
    fn tanh_is_within_three_ulp() {
        tanh_within_three_ulp::<false>();
        tanh_within_three_ulp::<true>();
    }

    #[test]
    fn expm1_is_within_two_ulp() {
        for fma in [false, true] {
            let f = if fma {
                expm1_nonpositive::<true>
            } else {
                expm1_nonpositive::<false>
            };
            let worst = samples()
                .filter(|&x| (-87.0..=0.0).contains(&x) && x != 0.0)
                .map(|x| ulps(f(x), (x as f64).exp_m1()))
                .fold(0.0, f64::max);
            assert!(worst <= 2.0, "expm1 (fma {fma}) worst error {worst} ulp");
        }
    }

    #[test]
    fn slice_activations_match_scalar_accuracy_for_every_isa() {
        let xs: Vec<f32> = samples().collect();
        for isa in Isa::all_supported() {
            for (f, exact, skip) in [
                (
                    Activation::Sigmoid,
                    (|x: f64| 1.0 / (1.0 + (-x).exp())) as fn(f64) -> f64,
                    1e-37,
                ),
                (Activation::Tanh, f64::tanh as fn(f64) -> f64, 0.0),
            ] {
                let mut ys = xs.clone();
                apply(isa, f, &mut ys);
                let worst = xs
                    .iter()
                    .zip(&ys)
                    .filter(|(&x, _)| exact(x as f64).abs() >= skip)
                    .map(|(&x, &y)| ulps(y, exact(x as f64)))
                    .fold(0.0, f64::max);
                assert!(worst <= 3.0, "{f:?} on {isa:?}: worst error {worst} ulp");
            }
        }
    }

    #[test]
    fn nan_propagates() {
        assert!(sigmoid::<false>(f32::NAN).is_nan());
        assert!(tanh::<true>(f32::NAN).is_nan());
        assert!(exp_nonpositive::<true>(f32::NAN).is_nan());
    }
}
