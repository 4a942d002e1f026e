//! One vector abstraction for the kernels: the GEMM micro-kernel and the activations are
//! written once over [`Vector`] and instantiated per instruction set —
//!
//! - [`Scalar`]: one `f32`; the activations' scalar form, which loops over arrays call and
//!   the compiler vectorizes for the instruction set of the calling function;
//! - [`Lanes`]: 16 `f32` as an array the compiler vectorizes (AVX2, portable, and narrow GEMM
//!   tiles under AVX-512);
//! - `__m512`: an AVX-512 register through intrinsics (only inside functions compiled with
//!   `avx512f`);
//! - `__m256`: an AVX2 register (8 lanes) through intrinsics, for the element-wise code of the
//!   AVX2 path (only inside functions compiled with `avx2,fma`).
//!
//! Every operation of [`Lanes`] is its [`Scalar`] operation lane by lane, and the `__m512` and
//! `__m256` operations are the same IEEE operations, so they all give bit-identical results
//! (`FMA = true` for the vector types on x86).

/// Lanes of a [`Lanes`] vector (and of an AVX-512 register).
pub const LANES: usize = 16;

/// A vector of `f32` lanes. All operations are lane by lane.
pub trait Vector: Copy {
    /// Lanes.
    const WIDTH: usize;
    /// All zeros.
    fn zero() -> Self;
    /// `x` in every lane.
    fn splat(x: f32) -> Self;
    /// `a + b`.
    fn add(a: Self, b: Self) -> Self;
    /// `a − b`.
    fn sub(a: Self, b: Self) -> Self;
    /// `a·b`.
    fn mul(a: Self, b: Self) -> Self;
    /// `a·b + c` (fused for the FMA instances).
    fn mul_add(a: Self, b: Self, c: Self) -> Self;
    /// `a / b`.
    fn div(a: Self, b: Self) -> Self;
    /// `lo` where `x < lo`, else `x` (NaN stays).
    fn at_least(x: Self, lo: Self) -> Self;
    /// `−|x|`.
    fn neg_abs(x: Self) -> Self;
    /// `|mag|` with the sign of `sign`.
    fn copysign(mag: Self, sign: Self) -> Self;
    /// `a` where `x ≥ 0`, else `b` (NaN: `b`).
    fn select_nonneg(x: Self, a: Self, b: Self) -> Self;
    /// The bits of `x` shifted left by 23, plus `add` (wrapping), as a float: builds `2^n`
    /// from an integer held in the low mantissa bits.
    fn shl23_add(x: Self, add: u32) -> Self;
    /// `x` rounded to the nearest bf16, ties to even (NaN stays a quiet NaN), as an f32.
    fn round_bf16(x: Self) -> Self;
    /// Loads [`Vector::WIDTH`] floats.
    ///
    /// # Safety
    /// `p` has that many readable floats.
    unsafe fn load(p: *const f32) -> Self;
    /// Stores [`Vector::WIDTH`] floats.
    ///
    /// # Safety
    /// `p` has that many writable floats.
    unsafe fn store(self, p: *mut f32);
}

/// One `f32` (`FMA`: fused multiply-adds; false on the portable path, which may lack them).
#[derive(Clone, Copy, Debug)]
pub struct Scalar<const FMA: bool>(pub f32);

impl<const FMA: bool> Vector for Scalar<FMA> {
    const WIDTH: usize = 1;
    #[inline(always)]
    fn zero() -> Self {
        Self(0.0)
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Self(x)
    }
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        Self(a.0 + b.0)
    }
    #[inline(always)]
    fn sub(a: Self, b: Self) -> Self {
        Self(a.0 - b.0)
    }
    #[inline(always)]
    fn mul(a: Self, b: Self) -> Self {
        Self(a.0 * b.0)
    }
    #[inline(always)]
    fn mul_add(a: Self, b: Self, c: Self) -> Self {
        Self(if FMA {
            a.0.mul_add(b.0, c.0)
        } else {
            a.0 * b.0 + c.0
        })
    }
    #[inline(always)]
    fn div(a: Self, b: Self) -> Self {
        Self(a.0 / b.0)
    }
    #[inline(always)]
    fn at_least(x: Self, lo: Self) -> Self {
        Self(if x.0 < lo.0 { lo.0 } else { x.0 })
    }
    #[inline(always)]
    fn neg_abs(x: Self) -> Self {
        Self(-x.0.abs())
    }
    #[inline(always)]
    fn copysign(mag: Self, sign: Self) -> Self {
        Self(mag.0.copysign(sign.0))
    }
    #[inline(always)]
    fn select_nonneg(x: Self, a: Self, b: Self) -> Self {
        Self(if x.0 >= 0.0 { a.0 } else { b.0 })
    }
    #[inline(always)]
    fn shl23_add(x: Self, add: u32) -> Self {
        Self(f32::from_bits((x.0.to_bits() << 23).wrapping_add(add)))
    }
    #[inline(always)]
    fn round_bf16(x: Self) -> Self {
        Self(f32::from_bits(super::gemm_bf16::bf16_bits(x.0) << 16))
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        Self(unsafe { *p })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        unsafe { *p = self.0 }
    }
}

/// 16 `f32` as an array, each operation the [`Scalar`] one lane by lane.
#[derive(Clone, Copy, Debug)]
pub struct Lanes<const FMA: bool>(pub [f32; LANES]);

impl<const FMA: bool> Lanes<FMA> {
    /// `f` on every lane of `a` and `b`.
    #[inline(always)]
    fn zip(a: Self, b: Self, f: impl Fn(Scalar<FMA>, Scalar<FMA>) -> Scalar<FMA>) -> Self {
        Self(std::array::from_fn(|l| f(Scalar(a.0[l]), Scalar(b.0[l])).0))
    }
}

impl<const FMA: bool> Vector for Lanes<FMA> {
    const WIDTH: usize = LANES;
    #[inline(always)]
    fn zero() -> Self {
        Self([0.0; LANES])
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Self([x; LANES])
    }
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        Self::zip(a, b, Vector::add)
    }
    #[inline(always)]
    fn sub(a: Self, b: Self) -> Self {
        Self::zip(a, b, Vector::sub)
    }
    #[inline(always)]
    fn mul(a: Self, b: Self) -> Self {
        Self::zip(a, b, Vector::mul)
    }
    #[inline(always)]
    fn mul_add(a: Self, b: Self, c: Self) -> Self {
        Self(std::array::from_fn(|l| {
            Scalar::<FMA>::mul_add(Scalar(a.0[l]), Scalar(b.0[l]), Scalar(c.0[l])).0
        }))
    }
    #[inline(always)]
    fn div(a: Self, b: Self) -> Self {
        Self::zip(a, b, Vector::div)
    }
    #[inline(always)]
    fn at_least(x: Self, lo: Self) -> Self {
        Self::zip(x, lo, Vector::at_least)
    }
    #[inline(always)]
    fn neg_abs(x: Self) -> Self {
        Self(x.0.map(|v| Scalar::<FMA>::neg_abs(Scalar(v)).0))
    }
    #[inline(always)]
    fn copysign(mag: Self, sign: Self) -> Self {
        Self::zip(mag, sign, Vector::copysign)
    }
    #[inline(always)]
    fn select_nonneg(x: Self, a: Self, b: Self) -> Self {
        Self(std::array::from_fn(|l| {
            if x.0[l] >= 0.0 {
                a.0[l]
            } else {
                b.0[l]
            }
        }))
    }
    #[inline(always)]
    fn shl23_add(x: Self, add: u32) -> Self {
        Self(x.0.map(|v| Scalar::<FMA>::shl23_add(Scalar(v), add).0))
    }
    #[inline(always)]
    fn round_bf16(x: Self) -> Self {
        Self(x.0.map(|v| Scalar::<FMA>::round_bf16(Scalar(v)).0))
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        Self(unsafe { *(p as *const [f32; LANES]) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        unsafe { *(p as *mut [f32; LANES]) = self.0 }
    }
}

/// An AVX-512 register.
// SAFETY (every method): the intrinsics need avx512f, and this type is only used inside
// functions compiled with it, which run only on CPUs that have it (`Isa::detected`).
#[cfg(target_arch = "x86_64")]
impl Vector for std::arch::x86_64::__m512 {
    const WIDTH: usize = LANES;
    #[inline(always)]
    fn zero() -> Self {
        unsafe { std::arch::x86_64::_mm512_setzero_ps() }
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        unsafe { std::arch::x86_64::_mm512_set1_ps(x) }
    }
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        unsafe { std::arch::x86_64::_mm512_add_ps(a, b) }
    }
    #[inline(always)]
    fn sub(a: Self, b: Self) -> Self {
        unsafe { std::arch::x86_64::_mm512_sub_ps(a, b) }
    }
    #[inline(always)]
    fn mul(a: Self, b: Self) -> Self {
        unsafe { std::arch::x86_64::_mm512_mul_ps(a, b) }
    }
    #[inline(always)]
    fn mul_add(a: Self, b: Self, c: Self) -> Self {
        unsafe { std::arch::x86_64::_mm512_fmadd_ps(a, b, c) }
    }
    #[inline(always)]
    fn div(a: Self, b: Self) -> Self {
        unsafe { std::arch::x86_64::_mm512_div_ps(a, b) }
    }
    #[inline(always)]
    fn at_least(x: Self, lo: Self) -> Self {
        // vmaxps returns its second operand unless the first is greater: `x` when NaN.
        unsafe { std::arch::x86_64::_mm512_max_ps(lo, x) }
    }
    #[inline(always)]
    fn neg_abs(x: Self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let sign = _mm512_set1_epi32(i32::MIN);
            _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x), sign))
        }
    }
    #[inline(always)]
    fn copysign(mag: Self, sign: Self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let mask = _mm512_set1_epi32(i32::MIN);
            // Bitwise `mask ? sign : mag` (truth table 0xD8 of (mag, sign, mask)).
            _mm512_castsi512_ps(_mm512_ternarylogic_epi32::<0xD8>(
                _mm512_castps_si512(mag),
                _mm512_castps_si512(sign),
                mask,
            ))
        }
    }
    #[inline(always)]
    fn select_nonneg(x: Self, a: Self, b: Self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let nonneg = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, _mm512_setzero_ps());
            _mm512_mask_blend_ps(nonneg, b, a)
        }
    }
    #[inline(always)]
    fn shl23_add(x: Self, add: u32) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let bits = _mm512_slli_epi32::<23>(_mm512_castps_si512(x));
            _mm512_castsi512_ps(_mm512_add_epi32(bits, _mm512_set1_epi32(add as i32)))
        }
    }
    #[inline(always)]
    fn round_bf16(x: Self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let bits = _mm512_castps_si512(x);
            let lsb = _mm512_and_si512(_mm512_srli_epi32::<16>(bits), _mm512_set1_epi32(1));
            let biased = _mm512_add_epi32(bits, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), lsb));
            let quiet = _mm512_or_si512(bits, _mm512_set1_epi32(0x40_0000));
            let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
            let high = _mm512_set1_epi32(0xffff_0000_u32 as i32);
            let rounded = _mm512_mask_blend_epi32(nan, biased, quiet);
            _mm512_castsi512_ps(_mm512_and_si512(rounded, high))
        }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        unsafe { std::arch::x86_64::_mm512_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        unsafe { std::arch::x86_64::_mm512_storeu_ps(p, self) }
    }
}

/// An AVX2 register.
// SAFETY (every method): the intrinsics need avx2 and fma, and this type is only used inside
// functions compiled with them, which run only on CPUs that have them (`Isa::detected`).
#[cfg(target_arch = "x86_64")]
impl Vector for std::arch::x86_64::__m256 {
    const WIDTH: usize = 8;
    #[inline(always)]
    fn zero() -> Self {
        unsafe { std::arch::x86_64::_mm256_setzero_ps() }
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        unsafe { std::arch::x86_64::_mm256_set1_ps(x) }
    }
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_add_ps(a, b) }
    }
    #[inline(always)]
    fn sub(a: Self, b: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_sub_ps(a, b) }
    }
    #[inline(always)]
    fn mul(a: Self, b: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_mul_ps(a, b) }
    }
    #[inline(always)]
    fn mul_add(a: Self, b: Self, c: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_fmadd_ps(a, b, c) }
    }
    #[inline(always)]
    fn div(a: Self, b: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_div_ps(a, b) }
    }
    #[inline(always)]
    fn at_least(x: Self, lo: Self) -> Self {
        // vmaxps returns its second operand unless the first is greater: `x` when NaN.
        unsafe { std::arch::x86_64::_mm256_max_ps(lo, x) }
    }
    #[inline(always)]
    fn neg_abs(x: Self) -> Self {
        use std::arch::x86_64::*;
        unsafe { _mm256_or_ps(x, _mm256_set1_ps(-0.0)) }
    }
    #[inline(always)]
    fn copysign(mag: Self, sign: Self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let mask = _mm256_set1_ps(-0.0);
            _mm256_or_ps(_mm256_andnot_ps(mask, mag), _mm256_and_ps(mask, sign))
        }
    }
    #[inline(always)]
    fn select_nonneg(x: Self, a: Self, b: Self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let nonneg = _mm256_cmp_ps::<_CMP_GE_OQ>(x, _mm256_setzero_ps());
            _mm256_blendv_ps(b, a, nonneg)
        }
    }
    #[inline(always)]
    fn shl23_add(x: Self, add: u32) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let bits = _mm256_slli_epi32::<23>(_mm256_castps_si256(x));
            _mm256_castsi256_ps(_mm256_add_epi32(bits, _mm256_set1_epi32(add as i32)))
        }
    }
    #[inline(always)]
    fn round_bf16(x: Self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let bits = _mm256_castps_si256(x);
            let lsb = _mm256_and_si256(_mm256_srli_epi32::<16>(bits), _mm256_set1_epi32(1));
            let biased = _mm256_add_epi32(bits, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb));
            let quiet = _mm256_or_si256(bits, _mm256_set1_epi32(0x40_0000));
            let nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(x, x));
            let high = _mm256_set1_epi32(0xffff_0000_u32 as i32);
            let rounded = _mm256_blendv_epi8(biased, quiet, nan);
            _mm256_castsi256_ps(_mm256_and_si256(rounded, high))
        }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        unsafe { std::arch::x86_64::_mm256_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        unsafe { std::arch::x86_64::_mm256_storeu_ps(p, self) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounding to bf16 gives the same bits on every vector type: ties either way, the
    /// largest finite values (rounding up to infinity), infinities, NaNs, subnormals.
    #[test]
    fn round_bf16_is_the_same_on_every_vector() {
        let mut bits: Vec<u32> = vec![
            0x3f80_8000,
            0x3f81_8000,
            0x3f80_7fff,
            0x7f7f_ffff,
            0xff7f_8000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0xffff_ffff,
            0x0000_8000,
            0x0001_8000,
            0,
            0x8000_0000,
        ];
        let mut seed = 0x1234_5678_u32;
        bits.extend((0..4096).map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        }));
        for chunk in bits.chunks(LANES) {
            let mut lanes = [0f32; LANES];
            for (l, &b) in lanes.iter_mut().zip(chunk) {
                *l = f32::from_bits(b);
            }
            let want: Vec<u32> = lanes
                .iter()
                .map(|&x| Scalar::<true>::round_bf16(Scalar(x)).0.to_bits())
                .collect();
            for (i, (&x, &w)) in lanes.iter().zip(&want).enumerate() {
                let b = crate::kernels::gemm_bf16::bf16_bits(x) << 16;
                assert_eq!(w, b, "scalar lane {i}: {:#x}", x.to_bits());
            }
            let got = Lanes::<false>::round_bf16(Lanes(lanes)).0.map(f32::to_bits);
            assert_eq!(got.as_slice(), want.as_slice());
            #[cfg(target_arch = "x86_64")]
            if crate::kernels::Isa::all_supported().contains(&crate::kernels::Isa::Avx512) {
                let mut out = [0f32; LANES];
                // SAFETY: AVX-512 is available; both arrays hold 16 floats.
                unsafe { avx512_round(&lanes, &mut out) };
                assert_eq!(out.map(f32::to_bits).as_slice(), want.as_slice());
            }
            #[cfg(target_arch = "x86_64")]
            if crate::kernels::Isa::all_supported().contains(&crate::kernels::Isa::Avx2) {
                let mut out = [0f32; LANES];
                // SAFETY: AVX2 and FMA are available; both arrays hold 16 floats.
                unsafe { avx2_round(&lanes, &mut out) };
                assert_eq!(out.map(f32::to_bits).as_slice(), want.as_slice());
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn avx2_round(x: &[f32; LANES], out: &mut [f32; LANES]) {
        use std::arch::x86_64::__m256;
        for h in 0..2 {
            unsafe {
                let v = <__m256 as Vector>::round_bf16(__m256::load(x.as_ptr().add(8 * h)));
                v.store(out.as_mut_ptr().add(8 * h));
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn avx512_round(x: &[f32; LANES], out: &mut [f32; LANES]) {
        use std::arch::x86_64::__m512;
        unsafe { <__m512 as Vector>::round_bf16(__m512::load(x.as_ptr())).store(out.as_mut_ptr()) }
    }
}
