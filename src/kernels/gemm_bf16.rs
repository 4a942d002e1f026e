//! The bf16 GEMM: `gemm::gemm_sum` for panels of bf16 pairs
//! (`Packing::Bf16Pairs`, `memory::packed`), with f32 accumulation.
//!
//! `A` stays f32 for the driver (an RNN's activations, already rounded to bf16 for bf16
//! primitives); each call converts the rows it multiplies into bf16 pair rows (`A[2q]` in the
//! low half, `A[2q + 1]` in the high half of word `q`, a last odd column paired with zero;
//! rounded to nearest even, exact for bf16 values) in a buffer of the calling thread, once per
//! call — or, inside a [`reusing_converted`] scope (an RNN phase: the same activations times
//! every panel of the weights), once per scope. A row of `A` is then one word per pair of `K`
//! and a row of `B` one word per column,
//! so the f32 GEMM's tiling (`gemm::tiles`: register tiles, `K` blocks,
//! summed terms, prefetches) runs unchanged over `K/2` pair rows, with bf16 micro-kernels:
//!
//! - AVX512_BF16 (on Intel one row only: without AMX-BF16, or `B` streamed from beyond L2):
//!   `vdpbf16ps` in the f32 kernels' tiles — per pair row, one 16-column vector of `B` and a
//!   broadcast word of `A` add both products into 16 f32 accumulators;
//! - AVX-512, more rows on Intel (or no BF16): `A` converted to f32 instead, both halves of
//!   each word of `B` widened to f32 (a bf16 is the high half of its f32) and two multiply-adds,
//!   in tiles of the f32 kernels' shapes (a row fewer for the wide ones);
//! - AVX2, portable: as the latter with `A` as pairs, in the f32 kernels' narrow tiles;
//! - AMX-BF16, from 4 rows, and for one row whose `B` stays in L2 (a batch-1 step):
//!   `kernels::amx_gemm` tiles (one row: `kernels::amx_gemm_row`), every term of the sum in
//!   the same accumulators, which start from the bias row, zeros or `C`.
//!
//! The products of two bf16 are exact in f32, so every path computes the same sums; only the
//! order of the additions differs (two per pair row, and per kernel).

use super::gemm::{self, micro_fn, micro_table, Fetch, Init, Kernels, Mac, Packing};
use super::gemm::{Panel, RowsA, Shapes, Term};
use super::isa::Isa;
use super::vector::{Lanes, Vector};
use std::cell::RefCell;

/// Most words of converted `A` one thread keeps; larger calls convert and multiply their rows in
/// chunks.
const BUFFER_WORDS: usize = 1 << 19;
/// Most terms converted at once; more are summed group after group.
const GROUP: usize = 4;
#[cfg(target_arch = "x86_64")]
const _: () = assert!(GROUP <= super::amx_gemm_row::MAX_RUNS);

// Converted `A` is written as bf16 in the order of `K`, read as words whose low half is the
// even element: a little-endian layout (as AMX tiles read it).
const _: () = assert!(
    cfg!(target_endian = "little"),
    "bf16 pairs assume little-endian"
);

/// 64 bytes of converted `A` (the buffer's unit: rows start on cache lines).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u32; 16]);

/// Most words of converted `A` one thread keeps in a [`reusing_converted`] scope; beyond, the
/// products convert per call again.
const REUSE_MAX_WORDS: usize = 1 << 24;

thread_local! {
    /// The calling thread's converted `A`.
    static BUFFER: RefCell<Vec<Line>> = const { RefCell::new(Vec::new()) };
    /// The calling thread's conversions kept for a [`reusing_converted`] scope.
    static REUSE: RefCell<Reuse> = const { RefCell::new(Reuse::new()) };
}

/// What identifies one conversion of `A`: the operand's rows, `K` and form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    base: usize,
    outer_stride: isize,
    inner_stride: isize,
    inner: usize,
    k: usize,
    rows: (usize, usize),
    form: AForm,
}

/// The conversions of `A` a thread keeps while a [`reusing_converted`] scope runs: each
/// operand's rows converted once, where the products of one phase read the same `A` for many
/// panels.
struct Reuse {
    active: bool,
    /// The conversions: where each starts in `lines`.
    entries: Vec<(Key, usize)>,
    lines: Vec<Line>,
    /// Lines of `lines` in use.
    used: usize,
}

impl Reuse {
    const fn new() -> Self {
        Self {
            active: false,
            entries: Vec::new(),
            lines: Vec::new(),
            used: 0,
        }
    }
}

/// Runs `f` with every conversion of an `A` operand (its rows, `K` and form) by this thread's
/// bf16 products kept, so that the products of `f` that read the same rows again (the panels
/// of one RNN step or layer GEMM) convert them once. The buffer stays allocated for the next
/// scope.
///
/// # Safety
/// While `f` runs, the memory of every `A` operand of this thread's bf16 products does not
/// change (e.g. one phase of an RNN pass, between barriers).
pub unsafe fn reusing_converted<R>(f: impl FnOnce() -> R) -> R {
    let start = |on: bool| {
        REUSE.with_borrow_mut(|r| {
            r.active = on;
            r.entries.clear();
            r.used = 0;
        })
    };
    start(true);
    let out = f();
    start(false);
    out
}

/// The bf16 of `x`, rounded to nearest even (NaN stays NaN, quieted), in the low 16 bits; as
/// `vcvtneps2bf16`. Without branches, so that loops over it vectorize.
#[inline(always)]
pub fn bf16_bits(x: f32) -> u32 {
    let b = x.to_bits();
    let rounded = b.wrapping_add(0x7fff + ((b >> 16) & 1)) >> 16;
    if x.is_nan() {
        (b >> 16) | 0x40
    } else {
        rounded
    }
}

/// A vector of words whose halves widen to f32: the low half is the f32 `bits << 16`, the high
/// half the f32 `bits & 0xffff_0000`.
trait Halves: Vector {
    fn low(self) -> Self;
    fn high(self) -> Self;
}

impl<const FMA: bool> Halves for Lanes<FMA> {
    #[inline(always)]
    fn low(self) -> Self {
        Self(self.0.map(|x| f32::from_bits(x.to_bits() << 16)))
    }
    #[inline(always)]
    fn high(self) -> Self {
        Self(self.0.map(|x| f32::from_bits(x.to_bits() & 0xffff_0000)))
    }
}

// SAFETY (both methods): only inside functions compiled with avx512f (`SHAPES_AVX512_SPLIT`).
#[cfg(target_arch = "x86_64")]
impl Halves for std::arch::x86_64::__m512 {
    #[inline(always)]
    fn low(self) -> Self {
        use std::arch::x86_64::*;
        unsafe { _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_castps_si512(self))) }
    }
    #[inline(always)]
    fn high(self) -> Self {
        use std::arch::x86_64::*;
        unsafe {
            let mask = _mm512_set1_epi32(0xffff_0000_u32 as i32);
            _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(self), mask))
        }
    }
}

/// bf16 pairs widened to f32: `acc + a_lo·b_lo + a_hi·b_hi` as two multiply-adds.
struct WidenMac<V>(std::marker::PhantomData<V>);

impl<V: Halves> Mac for WidenMac<V> {
    type V = V;
    type A = (V, V);
    type B = (V, V);
    #[inline(always)]
    unsafe fn load_a(p: *const f32) -> (V, V) {
        let w = unsafe { *p.cast::<u32>() };
        (
            V::splat(f32::from_bits(w << 16)),
            V::splat(f32::from_bits(w & 0xffff_0000)),
        )
    }
    #[inline(always)]
    unsafe fn load_b(p: *const f32) -> (V, V) {
        let v = unsafe { V::load(p) };
        (v.low(), v.high())
    }
    #[inline(always)]
    fn mac(acc: V, a: (V, V), b: (V, V)) -> V {
        V::mul_add(a.1, b.1, V::mul_add(a.0, b.0, acc))
    }
}

/// `vdpbf16ps`: `acc + a_lo·b_lo + a_hi·b_hi` in one instruction.
#[cfg(target_arch = "x86_64")]
pub(super) struct DotMac;

// SAFETY (every method): only inside functions compiled with avx512bf16 (`SHAPES_AVX512_BF16`).
#[cfg(target_arch = "x86_64")]
impl Mac for DotMac {
    type V = std::arch::x86_64::__m512;
    type A = std::arch::x86_64::__m512bh;
    type B = std::arch::x86_64::__m512bh;
    #[inline(always)]
    unsafe fn load_a(p: *const f32) -> Self::A {
        use std::arch::x86_64::*;
        unsafe { std::mem::transmute(_mm512_set1_epi32(*p.cast::<i32>())) }
    }
    #[inline(always)]
    unsafe fn load_b(p: *const f32) -> Self::B {
        use std::arch::x86_64::*;
        unsafe { std::mem::transmute(_mm512_loadu_ps(p)) }
    }
    #[inline(always)]
    fn mac(acc: Self::V, a: Self::A, b: Self::B) -> Self::V {
        unsafe { std::arch::x86_64::_mm512_dpbf16_ps(acc, a, b) }
    }
}

/// bf16 pairs of `B` widened to f32, `A` already f32 (as [`AForm::Floats`]): two broadcasts
/// from memory and two multiply-adds per pair.
#[cfg(target_arch = "x86_64")]
struct SplitMac;

// SAFETY (every method): only inside functions compiled with avx512f (`SHAPES_AVX512_SPLIT`).
#[cfg(target_arch = "x86_64")]
impl Mac for SplitMac {
    type V = std::arch::x86_64::__m512;
    type A = (Self::V, Self::V);
    type B = (Self::V, Self::V);
    #[inline(always)]
    unsafe fn load_a(p: *const f32) -> Self::A {
        // The word address stands for the pair's two floats at twice it (`AForm::Floats`).
        let pair = p.with_addr(p.addr() * 2);
        unsafe { (Self::V::splat(*pair), Self::V::splat(*pair.add(1))) }
    }
    #[inline(always)]
    unsafe fn load_b(p: *const f32) -> Self::B {
        let v = unsafe { Self::V::load(p) };
        (v.low(), v.high())
    }
    #[inline(always)]
    fn mac(acc: Self::V, a: Self::A, b: Self::B) -> Self::V {
        Self::V::mul_add(a.1, b.1, Self::V::mul_add(a.0, b.0, acc))
    }
}

micro_fn!(
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bf16,fma")]
    micro_dot,
    DotMac
);
micro_fn!(
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,fma")]
    micro_split,
    SplitMac
);
micro_fn!(
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    micro_widen_avx2,
    WidenMac<Lanes<true>>
);
micro_fn!(micro_widen_portable, WidenMac<Lanes<false>>);

/// AVX512_BF16: the f32 AVX-512 tiles on `vdpbf16ps`.
#[cfg(target_arch = "x86_64")]
static SHAPES_AVX512_BF16: Shapes = gemm::avx512_shapes!(micro_dot, micro_dot);

/// AVX-512, `A` as floats: the f32 AVX-512 shapes less a row where the widened halves of `B`
/// take the registers (4 vectors × 5 rows: 20 accumulators, 8 halves of `B`, 2 of `A`).
#[cfg(target_arch = "x86_64")]
static SHAPES_AVX512_SPLIT: Shapes = Shapes {
    wide: Some(Kernels {
        vectors: 4,
        split: 4,
        table: micro_table!(micro_split, 4, [1, 2, 3, 4, 5]),
    }),
    tall: Kernels {
        vectors: 2,
        split: 2,
        table: micro_table!(micro_split, 2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
    },
    pair: Some(Kernels {
        vectors: 4,
        split: 2,
        table: micro_table!(micro_split, 4, 2, [1, 2, 3, 4, 5]),
    }),
    small: &[],
};

#[cfg(target_arch = "x86_64")]
static SHAPES_AVX2: Shapes = Shapes::narrow(micro_table!(micro_widen_avx2, 2, [1, 2]));

static SHAPES_PORTABLE: Shapes = Shapes::narrow(micro_table!(micro_widen_portable, 2, [1, 2]));

/// Most rows of the products that take `vdpbf16ps` on AVX512_BF16; more rows are computed
/// widened ([`SplitMac`]). On a Xeon, whose `vdpbf16ps` issues every other cycle, two
/// multiply-adds per pair cost less from 2 rows (LSTM C=512, one thread: equal at 1 row,
/// widened 1.2–2.3× faster from 2 rows); elsewhere (AMD Zen 4) `vdpbf16ps` throughout.
fn dot_max_rows() -> usize {
    if super::isa::intel_cpu() {
        1
    } else {
        usize::MAX
    }
}

/// Fewest rows of the products on AMX tiles (fewer fill too little of a 16-row tile), but for
/// one row whose `B` stays in L2 (`Fetch::streamed` false: a batch-1 step whose share of `U`
/// the core keeps): there the tiles read `B` faster than `vdpbf16ps` multiplies it (the
/// instruction issues every other cycle; a tile product of one row costs about a tile load).
/// Streamed from L3, the tiles' strided row loads wait longer than `vdpbf16ps`'s sequential
/// ones.
const AMX_MIN_ROWS: usize = 4;

/// The kernels of one call.
#[derive(Clone, Copy)]
enum Plan {
    /// Register tiles of `gemm::tiles` with these micro-kernels, reading `A` in this form.
    Tiles(&'static Shapes, AForm),
    /// AMX-BF16 tiles, `A` as pairs.
    Amx,
}

/// How a call's converted `A` is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AForm {
    /// One word per pair of `K`: the bf16 of `A[2q]` (low half) and `A[2q + 1]` (high half).
    Pairs,
    /// Two f32 per pair of `K` (the values rounded to bf16), row pointers at half the address:
    /// word `q` of a row pointer stands for the floats at twice its address ([`SplitMac`]).
    Floats,
}

/// The bf16 micro-kernel family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bf16Kernel {
    /// Widened to f32, portable code.
    Portable,
    /// Widened to f32, AVX2 and FMA.
    Avx2,
    /// Widened to f32, AVX-512.
    Avx512,
    /// AVX512_BF16 `vdpbf16ps`.
    Avx512Bf16,
    /// AMX-BF16 tiles (`kernels::amx_gemm`) from `AMX_MIN_ROWS` rows and for one row whose `B`
    /// stays in L2, else as `Avx512Bf16`.
    Amx,
}

impl Bf16Kernel {
    /// The best family for kernels capped at `isa` on this CPU.
    pub fn for_isa(isa: Isa) -> Self {
        match isa.or_portable() {
            #[cfg(target_arch = "x86_64")]
            Isa::Amx if super::amx::bf16() => Self::Amx,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Amx if super::cpu_isa::has(super::cpu_isa::AVX512_BF16) => {
                Self::Avx512Bf16
            }
            Isa::Avx512 | Isa::Amx => Self::Avx512,
            Isa::Avx2 => Self::Avx2,
            Isa::Portable => Self::Portable,
        }
    }

    /// Every family this CPU runs.
    pub fn all_supported() -> Vec<Self> {
        let mut all: Vec<Self> = Isa::all_supported()
            .into_iter()
            .filter_map(|isa| match isa {
                Isa::Portable => Some(Self::Portable),
                Isa::Avx2 => Some(Self::Avx2),
                Isa::Avx512 => Some(Self::Avx512),
                Isa::Amx => None,
            })
            .collect();
        for isa in [Isa::Avx512, Isa::Amx] {
            let best = Self::for_isa(isa);
            if !all.contains(&best) {
                all.push(best);
            }
        }
        all
    }

    /// Whether products of many rows multiply on bf16 instructions — AMX-BF16 tiles, or
    /// `vdpbf16ps` where it runs at full rate — rather than widened to f32 (then the f32
    /// kernels on f32 operands are as fast, without converting `A` at every call).
    pub fn multiplies_in_bf16(self) -> bool {
        match self {
            Self::Amx => true,
            Self::Avx512Bf16 => dot_max_rows() > 1,
            _ => false,
        }
    }

    /// Short name, for implementation names.
    pub fn name(self) -> &'static str {
        match self {
            Self::Portable => "portable",
            Self::Avx2 => "avx2",
            Self::Avx512 => "avx512",
            Self::Avx512Bf16 => "avx512_bf16",
            Self::Amx => "amx_bf16",
        }
    }

    /// The kernels for a product of `m` rows whose `B` streams from beyond L2 when `streamed`.
    fn plan(self, m: usize, streamed: bool) -> Plan {
        match self {
            #[cfg(target_arch = "x86_64")]
            Self::Amx if m >= AMX_MIN_ROWS || (m == 1 && !streamed) => Plan::Amx,
            #[cfg(target_arch = "x86_64")]
            Self::Avx512Bf16 | Self::Amx if m <= dot_max_rows() => {
                Plan::Tiles(&SHAPES_AVX512_BF16, AForm::Pairs)
            }
            #[cfg(target_arch = "x86_64")]
            Self::Avx512Bf16 | Self::Avx512 | Self::Amx => {
                Plan::Tiles(&SHAPES_AVX512_SPLIT, AForm::Floats)
            }
            #[cfg(target_arch = "x86_64")]
            Self::Avx2 => Plan::Tiles(&SHAPES_AVX2, AForm::Pairs),
            _ => Plan::Tiles(&SHAPES_PORTABLE, AForm::Pairs),
        }
    }

    /// The instruction set the conversion of `A` is compiled for.
    fn isa(self) -> Isa {
        match self {
            Self::Amx | Self::Avx512Bf16 | Self::Avx512 => Isa::Avx512,
            Self::Avx2 => Isa::Avx2,
            Self::Portable => Isa::Portable,
        }
    }
}

/// Converts rows `rows` of term `t`'s `A` (`K` floats each, or `K/2` words of bf16 pairs) into
/// rows of [`converted_ld`] pair words at `dst` as `form` says: bf16 pairs (`A[2q]` low,
/// `A[2q + 1]` high, a last odd column paired with zero), or f32 values rounded to bf16 (two
/// per word, zeros after the `K`th).
///
/// # Safety
/// Each addressed row of `t.a` has `t.k` readable floats (`t.k/2` words with `t.a_pairs`);
/// `dst` has `rows.len()·form.words()·converted_ld(t)` writable words.
#[inline(always)]
unsafe fn convert_body<const FMA: bool>(
    t: &Term,
    rows: std::ops::Range<usize>,
    dst: *mut u32,
    form: AForm,
) {
    let (a, k) = (&t.a, t.k);
    let row_words = form.words() * converted_ld(t);
    for (i, r) in rows.enumerate() {
        unsafe {
            let at = dst.add(i * row_words);
            if t.a_pairs {
                let src = std::slice::from_raw_parts(a.row(r).cast::<u32>(), k / 2);
                let out = std::slice::from_raw_parts_mut(at, row_words);
                match form {
                    AForm::Pairs => out[..k / 2].copy_from_slice(src),
                    AForm::Floats => {
                        for (o, &w) in out.chunks_exact_mut(2).zip(src) {
                            o.copy_from_slice(&[w << 16, w & 0xffff_0000]);
                        }
                    }
                }
                out[form.words() * k / 2..].fill(0);
                continue;
            }
            let src = std::slice::from_raw_parts(a.row(r), k);
            match form {
                AForm::Pairs => {
                    let out = std::slice::from_raw_parts_mut(at.cast::<u16>(), 2 * k.div_ceil(2));
                    for (o, &x) in out.iter_mut().zip(src) {
                        *o = bf16_bits(x) as u16;
                    }
                    out[k..].fill(0);
                }
                AForm::Floats => {
                    let out = std::slice::from_raw_parts_mut(at.cast::<f32>(), row_words);
                    for (o, &x) in out.iter_mut().zip(src) {
                        *o = f32::from_bits(bf16_bits(x) << 16);
                    }
                    out[k..].fill(0.0);
                }
            }
        }
    }
}

super::isa::isa_dispatch!(
    /// [`convert_body`] compiled for `isa`.
    unsafe fn convert_term => convert_body,
    (t: &Term, rows: std::ops::Range<usize>, dst: *mut u32, form: AForm)
);

/// [`gemm::gemm_sum`] for panels of bf16 pairs, on the family [`Bf16Kernel::for_isa`] picks.
/// `K` of every term (and of `fetch.next`) counts rows of the logical `B`.
///
/// # Safety
/// As [`gemm::gemm_sum`]; every term's panel holds bf16 pairs (`ceil(k/2)` rows).
pub unsafe fn gemm_sum(
    isa: Isa,
    terms: &[Term],
    rows: std::ops::Range<usize>,
    c: *mut f32,
    ldc: usize,
    init: Init,
    fetch: Fetch,
) {
    unsafe { gemm_sum_with(Bf16Kernel::for_isa(isa), terms, rows, c, ldc, init, fetch) }
}

/// [`gemm_sum`] on the family `kernel`.
///
/// # Safety
/// As [`gemm_sum`]; the CPU runs `kernel`.
pub unsafe fn gemm_sum_with(
    kernel: Bf16Kernel,
    terms: &[Term],
    rows: std::ops::Range<usize>,
    c: *mut f32,
    ldc: usize,
    init: Init,
    fetch: Fetch,
) {
    let plan = kernel.plan(rows.len(), fetch.streamed);
    unsafe { gemm_planned(kernel.isa(), plan, terms, rows, c, ldc, init, fetch) }
}

/// The product on AMX tiles, per block of the panel: every term summed in the same tiles,
/// which start from zeros, the `Init::Row` row or `C` (one row: `amx_gemm_row`).
///
/// # Safety
/// As [`gemm_sum`], with every term's `A` converted (pairs, rows `inner_stride` words apart)
/// and `k` counting pairs; at most [`GROUP`] terms; the CPU runs AMX-BF16.
#[cfg(target_arch = "x86_64")]
unsafe fn amx(terms: &[Term], rows: std::ops::Range<usize>, c: *mut f32, ldc: usize, init: Init) {
    use super::amx::Bf16;
    use super::amx_gemm::{gemm_runs, Run};
    use super::amx_gemm_row::gemm_row;
    use super::start::Start;
    let (width, block) = (terms[0].b.width, terms[0].b.block);
    let empty = Run {
        a: std::ptr::null(),
        lda: 0,
        b: std::ptr::null(),
        ldb: 0,
        k: 0,
    };
    for j0 in (0..width).step_by(block) {
        let cols = j0..width.min(j0 + block);
        let mut runs = [empty; GROUP];
        for (run, t) in runs.iter_mut().zip(terms) {
            let b = t.b.columns(cols.clone());
            *run = Run {
                a: t.a.row(rows.start).cast(),
                lda: 4 * t.a.inner_stride as usize,
                b: b.ptr.cast(),
                ldb: 4 * b.ld,
                k: t.k,
            };
        }
        let start = match init {
            Init::Zero => Start::Zero,
            Init::Row(r) => Start::Row(r.wrapping_add(cols.start).cast()),
            Init::Accumulate | Init::Continue => Start::Accumulate,
        };
        let out = c.wrapping_add(cols.start).cast();
        let vectors = cols.len() / 16;
        let runs = &runs[..terms.len()];
        // SAFETY: the operands are the terms' rows and block; the caller's contract.
        unsafe {
            if rows.len() == 1 {
                gemm_row::<Bf16>(runs, vectors, out, start)
            } else {
                gemm_runs::<Bf16>(runs, rows.len(), vectors, out, 4 * ldc, start)
            }
        };
    }
}

/// Words of one converted row of a term: its pairs, a whole number of cache lines.
fn converted_ld(t: &Term) -> usize {
    t.k.div_ceil(2).next_multiple_of(16)
}

impl AForm {
    /// Words per pair of `K`.
    fn words(self) -> usize {
        match self {
            AForm::Pairs => 1,
            AForm::Floats => 2,
        }
    }
}

/// Term `t` reading its rows from `r0` on converted as `form` at `at` ([`convert_term`]), `K`
/// in pairs.
fn converted_term(t: &Term, form: AForm, at: *const u32, r0: usize) -> Term {
    let ld = converted_ld(t);
    let row0 = match form {
        AForm::Pairs => at.cast::<f32>(),
        // Word `q` of a row pointer stands for the floats at twice its address.
        AForm::Floats => at.cast::<f32>().with_addr(at.addr() / 2),
    };
    Term {
        a: RowsA {
            base: row0.wrapping_sub(r0 * ld),
            outer_stride: 0,
            inner_stride: ld as isize,
            inner: usize::MAX,
        },
        k: t.k.div_ceil(2),
        b: t.b,
        a_pairs: false,
    }
}

/// Term `t` as the kernels of `plan` read it over rows `rows` without converting its `A`, if
/// they can: bf16 pairs the kernels read as pairs (AMX tiles: rows evenly spaced).
fn unconverted(t: &Term, plan: Plan, rows: &std::ops::Range<usize>) -> Option<Term> {
    let reads = match plan {
        Plan::Tiles(_, form) => form == AForm::Pairs,
        Plan::Amx => t.a.evenly_spaced(rows),
    };
    (t.a_pairs && reads).then_some(Term {
        k: t.k / 2,
        a_pairs: false,
        ..*t
    })
}

/// Inside a [`reusing_converted`] scope, runs `f` on the terms with their `A` rows `rows`
/// converted as `form` from the scope's conversions (converting those not there yet) and
/// returns true; false, running nothing, outside a scope or without room.
///
/// # Safety
/// As [`convert_term`] for every term; the scope's contract.
unsafe fn with_reused(
    isa: Isa,
    plan: Plan,
    form: AForm,
    terms: &[Term],
    rows: std::ops::Range<usize>,
    f: impl FnOnce(&[Term]),
) -> bool {
    if terms.len() > GROUP {
        return false;
    }
    REUSE.with_borrow_mut(|r| {
        if !r.active {
            return false;
        }
        // The terms read as they are, and where the others' conversions start.
        let direct: [Option<Term>; GROUP] =
            std::array::from_fn(|i| terms.get(i).and_then(|t| unconverted(t, plan, &rows)));
        let mut at = [0usize; GROUP];
        for (i, t) in terms.iter().enumerate() {
            if direct[i].is_some() {
                continue;
            }
            let key = Key {
                base: t.a.base.addr(),
                outer_stride: t.a.outer_stride,
                inner_stride: t.a.inner_stride,
                inner: t.a.inner,
                k: t.k,
                rows: (rows.start, rows.end),
                form,
            };
            if let Some(&(_, start)) = r.entries.iter().find(|(k, _)| *k == key) {
                at[i] = start;
                continue;
            }
            let need = r.used + (rows.len() * form.words() * converted_ld(t)).div_ceil(16);
            if 16 * need > REUSE_MAX_WORDS {
                return false;
            }
            if r.lines.len() < need {
                if r.lines.try_reserve(need - r.lines.len()).is_err() {
                    return false;
                }
                r.lines.resize(need, Line([0; 16]));
            }
            // SAFETY: lines `used..need` hold the rows; the caller's contract for the rest.
            unsafe {
                let dst = r.lines.as_mut_ptr().add(r.used).cast::<u32>();
                convert_term(isa, t, rows.clone(), dst, form);
            }
            r.entries.push((key, r.used));
            at[i] = r.used;
            r.used = need;
        }
        let mut converted = [terms[0]; GROUP];
        for (i, t) in terms.iter().enumerate() {
            converted[i] = direct[i].unwrap_or_else(|| {
                let line = r.lines[at[i]..].as_ptr().cast::<u32>();
                converted_term(t, form, line, rows.start)
            });
        }
        f(&converted[..terms.len()]);
        true
    })
}

/// [`gemm_sum`] on the micro-kernels `shapes` reading `A` as `form`, converted by code compiled
/// for `isa`.
///
/// # Safety
/// As [`gemm_sum`]; the CPU runs `isa` and `shapes`.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_planned(
    isa: Isa,
    plan: Plan,
    terms: &[Term],
    rows: std::ops::Range<usize>,
    c: *mut f32,
    ldc: usize,
    init: Init,
    fetch: Fetch,
) {
    debug_assert!(terms.iter().all(|t| t.b.packing == Packing::Bf16Pairs));
    if rows.is_empty() || terms[0].b.width == 0 {
        return;
    }
    let form = match plan {
        Plan::Tiles(_, form) => form,
        Plan::Amx => AForm::Pairs,
    };
    let ld = converted_ld;
    let words = form.words();
    let row_words: usize = terms.iter().map(|t| words * ld(t)).sum();
    let chunk = (BUFFER_WORDS / row_words.max(1)).clamp(1, rows.len());
    let fetch = Fetch {
        next: fetch.next.map(|(p, k)| match p.packing {
            Packing::Bf16Pairs => (p, k.div_ceil(2)),
            Packing::F32 => (p, k),
        }),
        ..fetch
    };
    // The product of converted terms, rows `r` of them into `c`.
    // SAFETY: called on converted rows of the caller's terms, into its `C`: its contract.
    let run = |terms: &[Term], r: std::ops::Range<usize>, c: *mut f32, init: Init| unsafe {
        match plan {
            Plan::Tiles(shapes, _) => gemm::tiles(shapes, terms, r, c, ldc, init, fetch),
            Plan::Amx => amx(terms, r, c, ldc, init),
        }
    };
    // SAFETY: the caller's contract.
    if unsafe {
        with_reused(isa, plan, form, terms, rows.clone(), |t| {
            run(t, rows.clone(), c, init)
        })
    } {
        return;
    }
    BUFFER.with_borrow_mut(|buf| {
        let lines = (chunk * row_words).div_ceil(16);
        if buf.len() < lines {
            buf.clear();
            if buf.try_reserve_exact(lines).is_err() {
                // No room for even one chunk: the products one by one.
                unsafe { scalar(terms, rows, c, ldc, init) };
                return;
            }
            buf.resize(lines, Line([0; 16]));
        }
        let base = buf.as_mut_ptr().cast::<u32>();
        let mut r0 = rows.start;
        while r0 < rows.end {
            let r1 = rows.end.min(r0 + chunk);
            let c0 = c.wrapping_add((r0 - rows.start) * ldc);
            for (g, group) in terms.chunks(GROUP).enumerate() {
                let mut converted = [group[0]; GROUP];
                let mut at = base;
                for (t, to) in group.iter().zip(converted.iter_mut()) {
                    if let Some(t) = unconverted(t, plan, &(r0..r1)) {
                        *to = t;
                        continue;
                    }
                    // SAFETY: the buffer holds `chunk` rows of every term's `words·ld` words.
                    unsafe { convert_term(isa, t, r0..r1, at, form) };
                    *to = converted_term(t, form, at, r0);
                    at = at.wrapping_add(chunk * words * ld(t));
                }
                let init = if g == 0 { init } else { Init::Accumulate };
                run(&converted[..group.len()], r0..r1, c0, init);
            }
            r0 = r1;
        }
    });
}

/// The product without conversion buffer, one output at a time (what [`gemm_sum`] falls back
/// to when its buffer cannot grow).
///
/// # Safety
/// As [`gemm_sum`].
unsafe fn scalar(
    terms: &[Term],
    rows: std::ops::Range<usize>,
    c: *mut f32,
    ldc: usize,
    init: Init,
) {
    let b = terms[0].b;
    for (i, r) in rows.enumerate() {
        for j in 0..b.width {
            let mut sum = 0f32;
            for t in terms {
                let Panel { ptr: col, ld, .. } = t.b.columns(j..j + 1);
                let a = t.a.row(r);
                for q in 0..t.k.div_ceil(2) {
                    // SAFETY: inside the term's rows of `A` and `B`.
                    unsafe {
                        let w = *col.add(q * ld).cast::<u32>();
                        let (lo, hi) = if t.a_pairs {
                            let v = *a.cast::<u32>().add(q);
                            (v << 16, v & 0xffff_0000)
                        } else {
                            let hi = if 2 * q + 1 < t.k {
                                *a.add(2 * q + 1)
                            } else {
                                0.0
                            };
                            (bf16_bits(*a.add(2 * q)) << 16, bf16_bits(hi) << 16)
                        };
                        let (lo, hi) = (f32::from_bits(lo), f32::from_bits(hi));
                        sum += lo * f32::from_bits(w << 16) + hi * f32::from_bits(w & 0xffff_0000);
                    }
                }
            }
            // SAFETY: row `i`, column `j` of `C` (and of an `Init::Row` row).
            unsafe {
                let out = c.add(i * ldc + j);
                *out = match init {
                    Init::Zero => sum,
                    Init::Row(row) => *row.add(j) + sum,
                    Init::Accumulate | Init::Continue => *out + sum,
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(x: f32) -> f64 {
        f64::from(f32::from_bits(bf16_bits(x) << 16))
    }

    /// Logical `B[k][width]` as a panel of bf16 pairs in blocks of `block` columns, with the
    /// words it points into.
    fn pack(b: &[f32], k: usize, width: usize, block: usize) -> (Vec<u32>, Panel) {
        let rows = k.div_ceil(2);
        let mut words = vec![0u32; rows * width];
        for j in 0..width.div_ceil(block) {
            let cols = j * block..width.min((j + 1) * block);
            for q in 0..rows {
                for (c, col) in cols.clone().enumerate() {
                    let at = |kk: usize| {
                        if kk < k {
                            bf16_bits(b[kk * width + col])
                        } else {
                            0
                        }
                    };
                    words[j * rows * block + q * cols.len() + c] = at(2 * q) | at(2 * q + 1) << 16;
                }
            }
        }
        let panel = Panel {
            ptr: words.as_ptr().cast(),
            ld: block,
            width,
            block,
            stride: rows * block,
            packing: Packing::Bf16Pairs,
        };
        (words, panel)
    }

    /// `C (init)= A·B` over two terms (`K` split at `k/3`, each an odd-sized part for most `k`)
    /// against the f64 product of the bf16-rounded operands.
    /// Every plan this CPU runs: each family's, for one row and for many (`vdpbf16ps` and the
    /// widened tiles both on all row counts).
    fn plans() -> Vec<(Bf16Kernel, Plan)> {
        let mut all: Vec<(Bf16Kernel, Plan)> = Vec::new();
        for kernel in Bf16Kernel::all_supported() {
            for (m, streamed) in [(1, false), (1, true), (64, false)] {
                let plan = kernel.plan(m, streamed);
                let same = |(_, p): &(Bf16Kernel, Plan)| match (p, &plan) {
                    (Plan::Tiles(a, _), Plan::Tiles(b, _)) => std::ptr::eq(*a, *b),
                    (Plan::Amx, Plan::Amx) => true,
                    _ => false,
                };
                if !all.iter().any(same) {
                    all.push((kernel, plan));
                }
            }
        }
        all
    }

    fn check(
        (kernel, plan): (Bf16Kernel, Plan),
        m: usize,
        k: usize,
        width: usize,
        block: usize,
        init: &str,
    ) {
        let lda = k + 3;
        let ldc = width + 16;
        let a: Vec<f32> = (0..m * lda)
            .map(|i| ((i * 7919) % 97) as f32 / 97.0 - 0.5)
            .collect();
        let b: Vec<f32> = (0..k * width)
            .map(|i| ((i * 104_729) % 89) as f32 / 89.0 - 0.5)
            .collect();
        let bias: Vec<f32> = (0..width).map(|i| i as f32 * 0.25).collect();
        let c0: Vec<f32> = (0..m * ldc).map(|i| (i % 5) as f32).collect();
        let k1 = k / 3;
        let (_w0, p0) = pack(&b[..k1 * width], k1, width, block);
        let (_w1, p1) = pack(&b[k1 * width..], k - k1, width, block);
        let rows = |k0: usize| RowsA {
            base: a[k0..].as_ptr(),
            outer_stride: 0,
            inner_stride: lda as isize,
            inner: usize::MAX,
        };
        let terms = [
            Term {
                a: rows(0),
                k: k1,
                b: p0,
                a_pairs: false,
            },
            Term {
                a: rows(k1),
                k: k - k1,
                b: p1,
                a_pairs: false,
            },
        ];
        let init_v = match init {
            "zero" => Init::Zero,
            "row" => Init::Row(bias.as_ptr()),
            _ => Init::Accumulate,
        };
        let form = match plan {
            Plan::Tiles(_, form) => format!("{form:?}"),
            Plan::Amx => "amx".into(),
        };
        let shape = format!("{kernel:?} {form} m{m} k{k} w{width} block{block} {init}");
        // Rows 1.. of the range (row 0 of `C` left alone), and the scalar fallback.
        let r0 = usize::from(m > 1);
        let mut c = c0.clone();
        let mut s = c0.clone();
        unsafe {
            let fetch = Fetch {
                next: Some((p0, k1)),
                streamed: m.is_multiple_of(2),
            };
            let out = c.as_mut_ptr().add(r0 * ldc);
            gemm_planned(kernel.isa(), plan, &terms, r0..m, out, ldc, init_v, fetch);
            scalar(&terms, r0..m, s.as_mut_ptr().add(r0 * ldc), ldc, init_v);
        }
        // In a reuse scope: the first product converts, one over other rows (row 0) converts
        // those, the third reads the first one's conversion; all as without the scope.
        let (mut first, mut other, mut again, mut plain) =
            (c0.clone(), c0.clone(), c0.clone(), c0.clone());
        unsafe {
            let isa = kernel.isa();
            let fetch = Fetch::default();
            let at = |c: &mut Vec<f32>, r: usize| c.as_mut_ptr().add(r * ldc);
            gemm_planned(
                isa,
                plan,
                &terms,
                0..1,
                at(&mut plain, 0),
                ldc,
                init_v,
                fetch,
            );
            let product = |r: std::ops::Range<usize>, c: &mut Vec<f32>| {
                let out = at(c, r.start);
                gemm_planned(isa, plan, &terms, r, out, ldc, init_v, fetch)
            };
            reusing_converted(|| {
                product(r0..m, &mut first);
                product(0..1, &mut other);
                product(r0..m, &mut again);
            });
        }
        assert_eq!(first, c, "{shape} in a reuse scope");
        assert_eq!(again, c, "{shape} reused");
        assert_eq!(
            other[..ldc],
            plain[..ldc],
            "{shape} other rows in a reuse scope"
        );
        for i in 0..m {
            for j in 0..ldc {
                let base = c0[i * ldc + j] as f64;
                if i < r0 || j >= width {
                    assert_eq!(
                        c[i * ldc + j],
                        c0[i * ldc + j],
                        "{shape} untouched ({i},{j})"
                    );
                    continue;
                }
                let dot: f64 = (0..k)
                    .map(|kk| round(a[i * lda + kk]) * round(b[kk * width + j]))
                    .sum();
                let e = dot
                    + match init {
                        "zero" => 0.0,
                        "row" => bias[j] as f64,
                        _ => base,
                    };
                for got in [c[i * ldc + j], s[i * ldc + j]] {
                    let g = got as f64;
                    assert!(
                        (g - e).abs() <= 1e-5 * (1.0 + e.abs()) * (k as f64).sqrt(),
                        "{shape} ({i},{j}): {g} vs {e}"
                    );
                }
            }
        }
    }

    #[test]
    fn matches_the_rounded_product_for_every_kernel_and_shape() {
        let plans = plans();
        assert!(plans.len() >= Bf16Kernel::all_supported().len());
        for plan in plans {
            for &m in &[1, 2, 3, 5, 7, 13, 14, 27, 33, 64] {
                for &(k, w, block) in &[
                    (1, 32, 32),
                    (2, 32, 32),
                    (7, 96, 96),
                    (33, 128, 128),
                    (601, 64, 64),
                    (0, 32, 32),
                    (33, 128, 96),
                    (5, 64, 32),
                    (601, 64, 32),
                    (33, 128, 64),
                    (2201, 128, 64),
                    (33, 128, 32),
                    (601, 96, 32),
                ] {
                    for init in ["zero", "row", "acc"] {
                        check(plan, m, k, w, block, init);
                    }
                }
            }
        }
    }

    /// Terms whose `A` is given as bf16 pairs (read as they are, or converted where the plan
    /// needs floats or evenly spaced rows) give the bits of the same `A` given as floats, in
    /// and out of a reuse scope, with the scalar fallback too; beside a float term.
    #[test]
    fn pairs_a_gives_the_bits_of_float_a() {
        let (m, k, width) = (13, 64, 64);
        // Rows in two groups of 7 (a step of 7 batch rows), the groups not evenly spaced.
        let (inner, lda) = (7, k + 6);
        let outer = 9 * lda;
        let a: Vec<f32> = (0..2 * outer)
            .map(|i| ((i * 7919) % 97) as f32 / 97.0 - 0.5)
            .collect();
        let pairs: Vec<u32> = a
            .chunks_exact(2)
            .map(|p| bf16_bits(p[0]) | bf16_bits(p[1]) << 16)
            .collect();
        let b: Vec<f32> = (0..k * width)
            .map(|i| ((i * 31) % 89) as f32 / 89.0 - 0.5)
            .collect();
        let (_w, panel) = pack(&b, k, width, width);
        let rows = |base: *const f32, scale: usize, at: usize| RowsA {
            base: base.wrapping_add(at / scale),
            outer_stride: (outer / scale) as isize,
            inner_stride: (lda / scale) as isize,
            inner,
        };
        let float = Term {
            a: rows(a.as_ptr(), 1, 2),
            k,
            b: panel,
            a_pairs: false,
        };
        let paired = Term {
            a: rows(pairs.as_ptr().cast(), 2, 2),
            a_pairs: true,
            ..float
        };
        let other = Term {
            a: rows(a.as_ptr(), 1, 5),
            ..float
        };
        for (kernel, plan) in plans() {
            for rs in [0..m, 1..2, 2..6] {
                let product = |terms: &[Term], scoped: bool| {
                    let mut c = vec![0f32; m * width];
                    let out = c.as_mut_ptr();
                    let fetch = Fetch::default();
                    let isa = kernel.isa();
                    let r = rs.clone();
                    unsafe {
                        let run = || {
                            gemm_planned(isa, plan, terms, r.clone(), out, width, Init::Zero, fetch)
                        };
                        if scoped {
                            reusing_converted(|| {
                                run();
                                run()
                            });
                        } else {
                            run();
                        }
                    }
                    c
                };
                let scalar_of = |terms: &[Term]| {
                    let mut c = vec![0f32; m * width];
                    unsafe { scalar(terms, rs.clone(), c.as_mut_ptr(), width, Init::Zero) };
                    c
                };
                let shape = format!("{kernel:?} rows {rs:?}");
                for scoped in [false, true] {
                    let want = product(&[float, other], scoped);
                    assert_eq!(product(&[paired, other], scoped), want, "{shape} {scoped}");
                }
                assert_eq!(scalar_of(&[paired]), scalar_of(&[float]), "{shape} scalar");
            }
        }
    }

    #[test]
    fn conversion_rounds_to_nearest_even() {
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1); 1 + 3·2^-8 up.
        assert_eq!(bf16_bits(1.0 + 2f32.powi(-8)), 0x3f80);
        assert_eq!(bf16_bits(1.0 + 3.0 * 2f32.powi(-8)), 0x3f82);
        assert_eq!(bf16_bits(-2.5), 0xc020);
        assert!(f32::from_bits(bf16_bits(f32::NAN) << 16).is_nan());
        assert_eq!(bf16_bits(f32::INFINITY), 0x7f80);
    }

    #[test]
    fn the_isa_cap_picks_the_family() {
        assert_eq!(Bf16Kernel::for_isa(Isa::Portable), Bf16Kernel::Portable);
        let all = Bf16Kernel::all_supported();
        if Isa::all_supported().contains(&Isa::Avx2) {
            assert_eq!(Bf16Kernel::for_isa(Isa::Avx2), Bf16Kernel::Avx2);
        }
        if all.contains(&Bf16Kernel::Avx512Bf16) {
            assert_eq!(Bf16Kernel::for_isa(Isa::Avx512), Bf16Kernel::Avx512Bf16);
        }
    }

    /// On AMX, one row takes the tiles when its `B` stays in L2 and `vdpbf16ps` when it
    /// streams; two and three rows the widened tiles (`vdpbf16ps` where it is full rate), four
    /// and more the tiles.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn one_row_takes_the_tiles_unless_streamed() {
        let amx = |m, streamed| matches!(Bf16Kernel::Amx.plan(m, streamed), Plan::Amx);
        let shapes = |m, streamed| match Bf16Kernel::Amx.plan(m, streamed) {
            Plan::Tiles(s, form) => Some((s as *const Shapes, form)),
            Plan::Amx => None,
        };
        assert!(amx(1, false) && amx(4, true) && amx(64, false));
        assert_eq!(
            shapes(1, true),
            Some((&SHAPES_AVX512_BF16 as *const Shapes, AForm::Pairs))
        );
        let two_rows = if dot_max_rows() >= 2 {
            (&SHAPES_AVX512_BF16 as *const Shapes, AForm::Pairs)
        } else {
            (&SHAPES_AVX512_SPLIT as *const Shapes, AForm::Floats)
        };
        assert_eq!(shapes(2, false), Some(two_rows));
        assert!(!amx(3, false));
    }
}
