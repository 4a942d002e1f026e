//! Activations for the post-GEMM: logistic sigmoid and tanh, accurate to a few ulp.
//!
//! Written once over the kernels' [`Vector`] type, on arrays of `N` vectors in lockstep
//! ([`exp_parts`], [`sigmoid_n`], [`tanh_n`]): branch-free (selects, bit manipulation, no libm
//! call). The scalar forms ([`sigmoid`], [`tanh`]: one [`Scalar`]) in a loop over an array,
//! compiled inside a `#[target_feature]` function, become SIMD code for that instruction set;
//! the LSTM post-GEMM runs them on `__m512` registers. Every instance computes the same IEEE
//! operations, so they agree bit for bit (tested below). `FMA` selects fused multiply-adds for
//! the polynomial steps (true on the AVX2/AVX-512 paths; the portable path, which may lack the
//! instruction, uses separate multiplies and adds).
//!
//! Accuracy, measured against f64 by the tests below (both `FMA` settings): `exp`, `expm1`
//! ≤ 2 ulp, `sigmoid`, `tanh` ≤ 3 ulp, well inside benchdnn's f32 tolerance (16 ulp at
//! T = L = 1). NaN propagates.

use super::isa::isa_dispatch;
use super::vector::{Scalar, Vector};
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
    Scalar::<FMA>::mul_add(Scalar(a), Scalar(b), Scalar(c)).0
}

/// `[e(0), …, e(N−1)]` for `lanes!(V, N, |k| e(k))`, built by a loop rather than a closure, so
/// that intrinsics in `e` inline into the calling function.
macro_rules! lanes {
    ($v:ty, $n:expr, |$k:ident| $e:expr) => {{
        let mut out = [<$v>::zero(); $n];
        for $k in 0..$n {
            out[$k] = $e;
        }
        out
    }};
}
pub(crate) use lanes;

/// What [`Vector::shl23_add`] adds to `v`'s bits shifted by 23 to make `2^n` from
/// `v = n + ROUND_MAGIC`: `(127 − bits(ROUND_MAGIC)) << 23` (wrapping).
const POW2_BIAS: u32 = 127u32.wrapping_sub(ROUND_MAGIC.to_bits()).wrapping_shl(23);

/// e^x for x ≤ 0 split as `2^n · (1 + q)`, on `N` vectors in lockstep (each step on all of them
/// before the next, so the chains overlap): returns `(2^n, q)` with `q = e^r − 1`,
/// `r = x − n·ln2` in [−ln2/2, ln2/2] (x < −87 is treated as −87), `q = r + r²·p(r)` with `p`
/// of degree 4, fitted (weighted minimax) to the relative error of `e^r`: at most 0.05·2⁻²⁴
/// before rounding, one multiply-add fewer than Cephes' degree 5.
#[inline(always)]
pub fn exp_parts<V: Vector, const N: usize>(x: [V; N]) -> ([V; N], [V; N]) {
    let s = V::splat;
    let x = lanes!(V, N, |k| V::at_least(x[k], s(EXP_MIN)));
    let v = lanes!(V, N, |k| V::mul_add(x[k], s(LOG2E), s(ROUND_MAGIC)));
    let n = lanes!(V, N, |k| V::sub(v[k], s(ROUND_MAGIC)));
    let r = lanes!(V, N, |k| V::mul_add(n[k], s(-LN2_HI), x[k]));
    let r = lanes!(V, N, |k| V::mul_add(n[k], s(-LN2_LO), r[k]));
    let mut p = [s(1.381_461_3e-3); N];
    for c in [8.368_71e-3, 4.166_839e-2, 1.666_652_1e-1, 4.999_999_4e-1] {
        p = lanes!(V, N, |k| V::mul_add(p[k], r[k], s(c)));
    }
    let r2 = lanes!(V, N, |k| V::mul(r[k], r[k]));
    let q = lanes!(V, N, |k| V::mul_add(p[k], r2[k], r[k]));
    let scale = lanes!(V, N, |k| V::shl23_add(v[k], POW2_BIAS));
    (scale, q)
}

/// Logistic sigmoid 1 / (1 + e^−x) of `N` vectors in lockstep, without overflow for either
/// sign.
#[inline(always)]
pub fn sigmoid_n<V: Vector, const N: usize>(x: [V; N]) -> [V; N] {
    let (scale, q) = exp_parts(lanes!(V, N, |k| V::neg_abs(x[k])));
    lanes!(V, N, |k| sigmoid_finish(x[k], scale[k], q[k]))
}

/// Sigmoid of `x` from the [`exp_parts`] of `−|x|`.
#[inline(always)]
pub fn sigmoid_finish<V: Vector>(x: V, scale: V, q: V) -> V {
    let (num, den) = sigmoid_quotient(x, scale, q);
    V::div(num, den)
}

/// Sigmoid of `x` as `(numerator, denominator)`, from the [`exp_parts`] of `−|x|`: `1 or e`
/// over `1 + e` with `e = e^−|x|` (x < −87 treated as −87), so the numerator is in
/// [e^−87, 1] and the denominator in [1, 2] — products of several never overflow, for a
/// caller that combines quotients before its one division.
#[inline(always)]
pub fn sigmoid_quotient<V: Vector>(x: V, scale: V, q: V) -> (V, V) {
    let e = V::mul_add(q, scale, scale);
    let num = V::select_nonneg(x, V::splat(1.0), e);
    (num, V::add(V::splat(1.0), e))
}

/// Hyperbolic tangent of `N` vectors in lockstep: `−m / (2 + m)` with `m = e^−2|x| − 1` and
/// the sign of x — one formula for every x (no cancellation near 0, no overflow for large
/// |x|).
#[inline(always)]
pub fn tanh_n<V: Vector, const N: usize>(x: [V; N]) -> [V; N] {
    let (scale, q) = exp_parts(lanes!(V, N, |k| tanh_arg(x[k])));
    lanes!(V, N, |k| tanh_finish(x[k], scale[k], q[k]))
}

/// What tanh takes the [`exp_parts`] of: `−2|x|`.
#[inline(always)]
pub fn tanh_arg<V: Vector>(x: V) -> V {
    V::mul(V::neg_abs(x), V::splat(2.0))
}

/// Tanh of `x` from the [`exp_parts`] of `−2|x|`.
#[inline(always)]
pub fn tanh_finish<V: Vector>(x: V, scale: V, q: V) -> V {
    let (num, den) = tanh_quotient(x, scale, q);
    V::div(num, den)
}

/// Tanh of `x` as `(numerator, denominator)`, from the [`exp_parts`] of `−2|x|`: `∓m` (the
/// sign of x) over `2 + m` with `m = e^−2|x| − 1` as `2^n·q + (2^n − 1)` (no cancellation
/// near 0). |numerator| < 1 and the denominator is in (1, 2]; see [`sigmoid_quotient`].
#[inline(always)]
pub fn tanh_quotient<V: Vector>(x: V, scale: V, q: V) -> (V, V) {
    let m = V::mul_add(scale, q, V::sub(scale, V::splat(1.0)));
    let num = V::copysign(V::sub(V::zero(), m), x);
    (num, V::add(V::splat(2.0), m))
}

/// e^x for x ≤ 0 (x < −87 is treated as −87).
#[inline(always)]
pub fn exp_nonpositive<const FMA: bool>(x: f32) -> f32 {
    let ([scale], [q]) = exp_parts([Scalar::<FMA>(x)]);
    Scalar::<FMA>::mul_add(q, scale, scale).0
}

/// e^x − 1 for x ≤ 0, without cancellation near 0: `2^n·q + (2^n − 1)`.
#[inline(always)]
pub fn expm1_nonpositive<const FMA: bool>(x: f32) -> f32 {
    let ([scale], [q]) = exp_parts([Scalar::<FMA>(x)]);
    Scalar::<FMA>::mul_add(scale, q, Scalar::sub(scale, Scalar(1.0))).0
}

/// Logistic sigmoid 1 / (1 + e^−x), computed without overflow for either sign.
#[inline(always)]
pub fn sigmoid<const FMA: bool>(x: f32) -> f32 {
    sigmoid_n([Scalar::<FMA>(x)])[0].0
}

/// Hyperbolic tangent (see [`tanh_n`]).
#[inline(always)]
pub fn tanh<const FMA: bool>(x: f32) -> f32 {
    tanh_n([Scalar::<FMA>(x)])[0].0
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
    use crate::kernels::vector::Lanes;

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

    /// `f` (0: sigmoid, 1: tanh) over `xs` (a multiple of 32 floats) in place, on vectors `V`,
    /// two at a time in lockstep.
    ///
    /// # Safety
    /// `xs` has `len` floats; `V` is supported by the CPU.
    #[inline(always)]
    unsafe fn apply_lockstep<V: Vector>(f: usize, xs: *mut f32, len: usize) {
        for i in (0..len).step_by(2 * V::WIDTH) {
            unsafe {
                let x = lanes!(V, 2, |k| V::load(xs.add(i + k * V::WIDTH)));
                let y = if f == 0 { sigmoid_n(x) } else { tanh_n(x) };
                for (k, v) in y.iter().enumerate() {
                    v.store(xs.add(i + k * V::WIDTH));
                }
            }
        }
    }

    crate::kernels::isa::vector_dispatch!(
        /// [`apply_lockstep`] on the vector type of `isa`.
        unsafe fn apply_lockstep_isa => apply_lockstep, (f: usize, xs: *mut f32, len: usize)
    );

    #[test]
    fn every_vector_type_matches_the_scalar_form_bit_for_bit() {
        let mut xs: Vec<f32> = samples().chain([f32::NAN, -f32::NAN]).collect();
        xs.resize(xs.len().next_multiple_of(32), 0.5);
        for f in 0..2 {
            let scalar = |fma: bool, x: f32| match (f, fma) {
                (0, true) => sigmoid::<true>(x),
                (0, false) => sigmoid::<false>(x),
                (_, true) => tanh::<true>(x),
                (_, false) => tanh::<false>(x),
            };
            let check = |got: &[f32], fma: bool, what: &str| {
                for (&x, &y) in xs.iter().zip(got) {
                    let want = scalar(fma, x);
                    assert!(
                        y.to_bits() == want.to_bits() || (y.is_nan() && want.is_nan()),
                        "{what} f{f}({x:e}) = {y:e}, scalar {want:e}"
                    );
                }
            };
            for isa in Isa::all_supported() {
                let mut ys = xs.clone();
                // SAFETY: `ys` has `len` floats, a multiple of 32; `isa` is supported.
                unsafe { apply_lockstep_isa(isa, f, ys.as_mut_ptr(), ys.len()) };
                check(&ys, isa != Isa::Portable, &format!("{isa:?}"));
            }
            for fma in [false, true] {
                let mut ys = xs.clone();
                // SAFETY: as above; `Lanes` needs no CPU feature.
                unsafe {
                    if fma {
                        apply_lockstep::<Lanes<true>>(f, ys.as_mut_ptr(), ys.len());
                    } else {
                        apply_lockstep::<Lanes<false>>(f, ys.as_mut_ptr(), ys.len());
                    }
                }
                check(&ys, fma, "Lanes");
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
