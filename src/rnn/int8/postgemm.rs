//! The int8 post-GEMM: the loads and stores around the cells' shared gate math
//! ([`lstm`], [`gru`]) — s32 accumulators dequantized in place (`acc/(ws·scale)` onto the
//! compensated bias) into the f32 gates the cells take, u8 states dequantized for GRU's
//! `h_prev`, and the cells' f32 `h` (and GRU's `r ⊙ h`) requantized into u8 rows
//! (`round_half_even(scale·x + shift)`, saturated; s8 activations stored as `q + 128`).
//!
//! The cells run with fused multiply-adds on every instruction set (their `*_same_bits`
//! instantiations; a CPU without them computes them in software), so requantized outputs do
//! not depend on the CPU.

use crate::kernels::isa::isa_dispatch;
use crate::kernels::Isa;
use crate::memory::packed_int8::PANEL;
use crate::rnn::cells::{gru, lstm, HDest, TileRows};
use crate::rnn::precision::Precision;

/// Rows of a tile processed at once (the f32 `h` of that many rows stays on the stack).
const ROWS: usize = 16;

/// Rounds to the nearest integer, ties to even, for `|x| < 2^22` (adding and taking away
/// 1.5·2^23 leaves no fraction bits; the default rounding mode does the rest) — a form the
/// compiler vectorizes on every target.
#[inline(always)]
fn round_half_even(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    (x + MAGIC) - MAGIC
}

/// The activations' quantization: `q = round_half_even(scale·x + shift)` saturated to
/// `[lo, hi]`, stored as the u8 `q + offset`.
#[derive(Clone, Copy, Debug)]
pub struct Quant {
    /// Data scale.
    pub scale: f32,
    /// Data shift.
    pub shift: f32,
    /// Range of the activations' type.
    pub lo: f32,
    /// See `lo`.
    pub hi: f32,
    /// Lower bound of the cell's own `h` quantization: 0 also for s8 activations (oneDNN
    /// 3.13 saturates an LSTM's s8 `h` to [0, 127]; projections and reorders use all of s8).
    pub cell_lo: f32,
    /// Offset of the stored u8 (128 for s8 activations: the GEMM multiplies u8 by s8).
    pub offset: i32,
}

impl Quant {
    /// Quantizes `x` saturated from `lo` (NaN: 0). Compares and an unchecked conversion of
    /// a value known to be in range, which vectorize (a saturating `as i32` does not).
    #[inline(always)]
    pub fn quantize_from(&self, x: f32, lo: f32) -> i32 {
        let v = x * self.scale + self.shift;
        let v = if v.is_nan() {
            0.0
        } else if v < lo {
            lo
        } else if v > self.hi {
            self.hi
        } else {
            v
        };
        // SAFETY: `v` is finite and inside [lo, hi], a range of i32.
        unsafe { round_half_even(v).to_int_unchecked::<i32>() }
    }

    /// Quantizes `x` to the activations' type.
    #[inline(always)]
    pub fn quantize(&self, x: f32) -> i32 {
        self.quantize_from(x, self.lo)
    }

    /// The stored u8 of a quantized value.
    #[inline(always)]
    pub fn store(&self, q: i32) -> u8 {
        (q + self.offset) as u8
    }

    /// Dequantizes a quantized value (as oneDNN's copies out: `(q − shift)/scale`).
    #[inline(always)]
    pub fn dequantize(&self, q: f32, shift: f32) -> f32 {
        (q - shift) / self.scale
    }

    /// The quantized value of a stored u8, dequantized.
    #[inline(always)]
    pub fn dequantize_stored(&self, s: u8) -> f32 {
        self.dequantize((s as i32 - self.offset) as f32, self.shift)
    }

    /// The shift the stored values carry (the data shift plus the s8 offset).
    pub fn stored_shift(&self) -> f32 {
        self.shift + self.offset as f32
    }
}

/// The dequantization of one panel's accumulators: unit `u` of gate `g` is
/// `acc·deq[g·stride + u] + bias[g·stride + u]`.
#[derive(Clone, Copy, Debug)]
pub struct Dequant {
    /// `1/(ws·scale)` of the panel's first unit of gate 0.
    pub deq: *const f32,
    /// Compensated bias, indexed as `deq`.
    pub bias: *const f32,
    /// Distance between gates in `deq` and `bias` (DHC).
    pub stride: usize,
}

/// Rows of a tile: row `i` at `ptr + i·ld` elements.
#[derive(Clone, Copy, Debug)]
pub struct Rows<T> {
    /// Row 0 (at the tile's first unit).
    pub ptr: *mut T,
    /// Elements between rows.
    pub ld: usize,
}

impl<T> Rows<T> {
    /// Row `i`.
    pub fn row(&self, i: usize) -> *mut T {
        self.ptr.wrapping_add(i * self.ld)
    }

    /// The rows from row `i`.
    fn rows_from(&self, i: usize) -> Self {
        Self {
            ptr: self.row(i),
            ld: self.ld,
        }
    }
}

/// Accumulator rows: a panel row `[G][32]` of s32 each (f32 once dequantized in place).
pub type AccRows = Rows<i32>;

/// u8 state rows.
pub type U8Rows = Rows<u8>;

impl AccRows {
    /// The rows as the f32 gates the cells take.
    fn gates(&self) -> TileRows {
        TileRows {
            ptr: self.ptr.cast(),
            stride: self.ld as isize,
        }
    }
}

/// # Safety
/// `rows` accumulator rows hold gates `gates` of the panel; `dq` covers their `valid` units.
#[inline(always)]
unsafe fn dequantize_body<const FMA: bool>(
    acc: AccRows,
    rows: usize,
    gates: std::ops::Range<usize>,
    dq: Dequant,
    valid: usize,
) {
    for r in 0..rows {
        for g in gates.clone() {
            // SAFETY: the caller's contract; s32 and f32 share size and alignment.
            unsafe {
                let a = &mut *(acc.row(r).add(g * PANEL) as *mut [i32; PANEL]);
                let f = &mut *(a as *mut [i32; PANEL] as *mut [f32; PANEL]);
                let (d, b) = (dq.deq.add(g * dq.stride), dq.bias.add(g * dq.stride));
                for u in 0..PANEL {
                    f[u] = if u < valid {
                        a[u] as f32 * *d.add(u) + *b.add(u)
                    } else {
                        0.0
                    };
                }
            }
        }
    }
}

isa_dispatch!(
    /// Dequantizes gates `gates` of `rows` accumulator rows in place (units past `valid`
    /// become zeros).
    unsafe fn dequantize_gates => dequantize_body,
    (acc: AccRows, rows: usize, gates: std::ops::Range<usize>, dq: Dequant, valid: usize)
);

/// # Safety
/// `h` holds `rows` panel rows; `dst` rows have `valid` writable bytes.
#[inline(always)]
unsafe fn requantize_body<const FMA: bool>(
    h: *const [f32; PANEL],
    rows: usize,
    dst: U8Rows,
    valid: usize,
    q: &Quant,
    lo: f32,
) {
    for r in 0..rows {
        // SAFETY: the caller's contract.
        unsafe {
            let h = &*h.add(r);
            let mut out = [0u8; PANEL];
            for (o, &x) in out.iter_mut().zip(h) {
                *o = q.store(q.quantize_from(x, lo));
            }
            std::ptr::copy_nonoverlapping(out.as_ptr(), dst.row(r), valid);
        }
    }
}

isa_dispatch!(
    /// Requantizes `rows` panel rows of f32 into u8 rows, saturated from `lo`.
    unsafe fn requantize => requantize_body,
    (h: *const [f32; PANEL], rows: usize, dst: U8Rows, valid: usize, q: &Quant, lo: f32)
);

/// A tile of LSTMP projection accumulators: `rows` batch rows × the `valid` units of a panel.
#[derive(Clone, Copy, Debug)]
pub struct ProjectionTile<'a> {
    /// Batch rows.
    pub rows: usize,
    /// Valid units of the panel.
    pub valid: usize,
    /// The accumulators, `PANEL` s32 per row.
    pub acc: AccRows,
    /// Per unit, the compensation: the column sum times the stored shift.
    pub comp: &'a [f32; PANEL],
    /// Per unit, the dequantization factor.
    pub dq: &'a [f32; PANEL],
    /// Where the requantized h goes.
    pub h: U8Rows,
}

/// # Safety
/// Every buffer addresses what [`ProjectionTile`] describes.
#[inline(always)]
unsafe fn requantize_projection_body<const FMA: bool>(t: &ProjectionTile<'_>, q: &Quant) {
    for r in 0..t.rows {
        // SAFETY: the caller's contract.
        unsafe {
            let a = &*(t.acc.row(r) as *const [i32; PANEL]);
            let mut out = [0u8; PANEL];
            for (u, o) in out.iter_mut().enumerate() {
                *o = q.store(q.quantize((a[u] as f32 - t.comp[u]) * t.dq[u]));
            }
            std::ptr::copy_nonoverlapping(out.as_ptr(), t.h.row(r), t.valid);
        }
    }
}

isa_dispatch!(
    /// Requantizes a tile of projection accumulators into u8 rows, each compensated and
    /// dequantized.
    pub unsafe fn requantize_projection => requantize_projection_body,
    (t: &ProjectionTile<'_>, q: &Quant)
);

/// # Safety
/// `src` rows have `valid` readable bytes; `h` has room for `rows` panel rows.
#[inline(always)]
unsafe fn dequantize_states_body<const FMA: bool>(
    src: U8Rows,
    rows: usize,
    h: *mut [f32; PANEL],
    valid: usize,
    q: &Quant,
) {
    for r in 0..rows {
        // SAFETY: the caller's contract.
        unsafe {
            let mut s = [0u8; PANEL];
            std::ptr::copy_nonoverlapping(src.row(r), s.as_mut_ptr(), valid);
            let h = &mut *h.add(r);
            for (x, &b) in h.iter_mut().zip(&s) {
                *x = q.dequantize_stored(b);
            }
        }
    }
}

isa_dispatch!(
    /// Dequantizes `rows` u8 state rows into panel rows of f32.
    unsafe fn dequantize_states => dequantize_states_body,
    (src: U8Rows, rows: usize, h: *mut [f32; PANEL], valid: usize, q: &Quant)
);

/// An f32 `HDest` into panel rows.
fn h_dest(h: *mut [f32; PANEL]) -> HDest {
    HDest {
        h_out: TileRows {
            ptr: h.cast(),
            stride: PANEL as isize,
        },
        h_extra: TileRows::NONE,
        extra_add: false,
        precision: Precision::F32,
    }
}

/// One LSTM tile: `rows` batch rows × the `valid` units of one panel.
#[derive(Clone, Copy, Debug)]
pub struct LstmTile {
    /// Batch rows.
    pub rows: usize,
    /// Valid units of the panel.
    pub valid: usize,
    /// The accumulators `[4][32]` per row.
    pub acc: AccRows,
    /// Their dequantization.
    pub dq: Dequant,
    /// The c-state rows, updated in place.
    pub c: TileRows,
    /// Where the requantized h goes.
    pub h: U8Rows,
}

/// The LSTM post-GEMM of one tile: with AVX-512 in registers (`rnn::int8::lstm_avx512`), else
/// staged through the tile's rows (dequantize in place, cell, requantize).
///
/// # Safety
/// Every buffer addresses what [`LstmTile`] describes; `isa` runs on this CPU.
pub unsafe fn lstm_tile(isa: Isa, t: &LstmTile, q: &Quant) {
    #[cfg(target_arch = "x86_64")]
    if matches!(isa, Isa::Avx512 | Isa::Amx) {
        // SAFETY: the caller's contract; `isa` says the CPU has AVX-512F.
        return unsafe { super::lstm_avx512::lstm_tile(t, q) };
    }
    let mut h = [[0f32; PANEL]; ROWS];
    for r0 in (0..t.rows).step_by(ROWS) {
        let rows = ROWS.min(t.rows - r0);
        let acc = t.acc.rows_from(r0);
        let c = TileRows {
            ptr: t.c.row(r0),
            ..t.c
        };
        let tile = lstm::LstmTile {
            rows,
            valid: t.valid,
            gates: acc.gates(),
            peephole: std::ptr::null(),
            c_prev: c,
            c_out: c,
            c_precision: Precision::F32,
            h: h_dest(h.as_mut_ptr()),
            ws_gates: TileRows::NONE,
            ws_gate_stride: 0,
            linear: None,
        };
        // SAFETY: the caller's contract; `h` holds `rows` panel rows.
        unsafe {
            dequantize_gates(isa, acc, rows, 0..lstm::GATES, t.dq, t.valid);
            lstm::postgemm_tile_same_bits(isa, &tile);
            let dst = t.h.rows_from(r0);
            requantize(isa, h.as_ptr(), rows, dst, t.valid, q, q.cell_lo);
        }
    }
}

/// One GRU tile: `rows` batch rows × the `valid` units of one panel.
#[derive(Clone, Copy, Debug)]
pub struct GruTile {
    /// Batch rows.
    pub rows: usize,
    /// Valid units of the panel.
    pub valid: usize,
    /// The accumulators `[3][32]` per row (part 1 leaves `u, r` there as f32).
    pub acc: AccRows,
    /// Their dequantization.
    pub dq: Dequant,
    /// The previous state's u8 rows.
    pub h_prev: U8Rows,
    /// Part 1: where the requantized `r ⊙ h_prev` goes; part 2: where the requantized h goes.
    pub out: U8Rows,
}

/// The shared cell's GRU tile of rows `r0..r0 + rows`: `h_prev` dequantized in `hp`, the f32
/// output (`r ⊙ h_prev` or h) into `out`.
fn gru_cell(
    t: &GruTile,
    r0: usize,
    rows: usize,
    hp: *const [f32; PANEL],
    out: *mut [f32; PANEL],
) -> gru::GruTile {
    let panel_rows = |p: *mut [f32; PANEL]| TileRows {
        ptr: p.cast(),
        stride: PANEL as isize,
    };
    gru::GruTile {
        rows,
        valid: t.valid,
        gates: t.acc.rows_from(r0).gates(),
        h_prev: panel_rows(hp.cast_mut()),
        attention: TileRows::NONE,
        h: h_dest(out),
        ws_gates: TileRows::NONE,
        ws_gate_stride: 0,
        aux: panel_rows(out),
        ws_lbr: TileRows::NONE,
        linear: None,
    }
}

/// GRU part 1 of one tile: `u, r` activated in place, `r ⊙ h_prev` requantized into `out`.
///
/// # Safety
/// Every buffer addresses what [`GruTile`] describes; `isa` runs on this CPU.
pub unsafe fn gru_part1(isa: Isa, t: &GruTile, q: &Quant) {
    unsafe { gru_part(isa, t, q, 0..2) }
}

/// GRU part 2 of one tile (after the `o` accumulators took `(r ⊙ h_prev)·U_o`): the new h
/// requantized into `out`.
///
/// # Safety
/// As [`gru_part1`].
pub unsafe fn gru_part2(isa: Isa, t: &GruTile, q: &Quant) {
    unsafe { gru_part(isa, t, q, 2..3) }
}

/// GRU part 1 (gates `0..2`) or 2 (gate `2`).
unsafe fn gru_part(isa: Isa, t: &GruTile, q: &Quant, gates: std::ops::Range<usize>) {
    let first = gates.start == 0;
    let (mut hp, mut out) = ([[0f32; PANEL]; ROWS], [[0f32; PANEL]; ROWS]);
    for r0 in (0..t.rows).step_by(ROWS) {
        let rows = ROWS.min(t.rows - r0);
        let acc = t.acc.rows_from(r0);
        let prev = t.h_prev.rows_from(r0);
        // SAFETY: the caller's contract; `hp` and `out` hold `rows` panel rows.
        unsafe {
            dequantize_gates(isa, acc, rows, gates.clone(), t.dq, t.valid);
            dequantize_states(isa, prev, rows, hp.as_mut_ptr(), t.valid, q);
            let cell = gru_cell(t, r0, rows, hp.as_ptr(), out.as_mut_ptr());
            if first {
                gru::part1_tile_same_bits(isa, &cell);
            } else {
                gru::part2_tile_same_bits(isa, &cell);
            }
            let dst = t.out.rows_from(r0);
            requantize(isa, out.as_ptr(), rows, dst, t.valid, q, q.lo);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The projection's requantization gives the same bytes on every instruction set, over
    /// saturated and partial-panel rows, for u8 and s8 activations.
    #[test]
    fn projection_requantization_is_the_same_on_every_isa() {
        const ROWS: usize = 3;
        const LD: usize = 2 * PANEL;
        let acc: Vec<i32> = (0..ROWS * LD)
            .map(|k| ((k as i64 * 7919) % 60001 - 30000) as i32)
            .collect();
        let comp: [f32; PANEL] = std::array::from_fn(|u| (u as f32 * 0.9).sin() * 3000.0);
        let dq: [f32; PANEL] = std::array::from_fn(|u| 1e-4 * (1 + u % 5) as f32);
        for s8 in [false, true] {
            let q = Quant {
                scale: 60.0,
                shift: if s8 { 3.0 } else { 120.0 },
                lo: if s8 { -128.0 } else { 0.0 },
                hi: if s8 { 127.0 } else { 255.0 },
                cell_lo: 0.0,
                offset: if s8 { 128 } else { 0 },
            };
            for valid in [PANEL, 19] {
                let run = |isa: Isa| {
                    let mut out = vec![7u8; ROWS * LD];
                    let t = ProjectionTile {
                        rows: ROWS,
                        valid,
                        acc: AccRows {
                            ptr: acc.as_ptr().cast_mut(),
                            ld: LD,
                        },
                        comp: &comp,
                        dq: &dq,
                        h: U8Rows {
                            ptr: out.as_mut_ptr(),
                            ld: LD,
                        },
                    };
                    // SAFETY: `ROWS` rows of `LD` values each side.
                    unsafe { requantize_projection(isa, &t, &q) };
                    out
                };
                let want = run(Isa::Portable);
                let levels: std::collections::BTreeSet<u8> = (0..ROWS)
                    .flat_map(|r| want[r * LD..r * LD + valid].iter().copied())
                    .collect();
                assert!(levels.len() >= 8 && levels.contains(&0) && levels.contains(&255));
                for r in 0..ROWS {
                    assert!(want[r * LD + valid..(r + 1) * LD].iter().all(|&b| b == 7));
                }
                for isa in Isa::all_supported() {
                    assert_eq!(run(isa), want, "{isa:?} s8 {s8} valid {valid}");
                }
            }
        }
    }

    /// The LSTM tile gives the same bits on every instruction set (AVX-512 in registers, the
    /// others staged), over saturated, NaN and partial-panel cases, for u8 and s8 activations.
    #[test]
    fn lstm_tile_gives_the_same_bits_on_every_isa() {
        const ROWS: usize = 3;
        const G: usize = lstm::GATES;
        const DHC: usize = 45;
        let deq: Vec<f32> = (0..G * DHC).map(|k| 1e-4 * (1 + k % 7) as f32).collect();
        let bias: Vec<f32> = (0..G * DHC).map(|k| (k as f32 * 0.3).sin()).collect();
        let acc0: Vec<i32> = (0..ROWS * G * PANEL)
            .map(|k| ((k as i64 * 7919) % 60001 - 30000) as i32)
            .collect();
        let c0: Vec<f32> = (0..ROWS * DHC)
            .map(|k| match k {
                5 => f32::NAN,
                9 => 1e30,
                _ => (k as f32 * 0.7).cos() * 2.0,
            })
            .collect();
        for s8 in [false, true] {
            let q = Quant {
                scale: if s8 { 60.0 } else { 130.0 },
                shift: if s8 { 3.0 } else { 120.0 },
                lo: if s8 { -128.0 } else { 0.0 },
                hi: if s8 { 127.0 } else { 255.0 },
                cell_lo: 0.0,
                offset: if s8 { 128 } else { 0 },
            };
            // one row (a batch-1 step's tile) and several; a whole panel and a partial one
            for (rows, panel, valid) in [(1, 0, PANEL), (ROWS, 0, PANEL), (ROWS, 1, DHC - PANEL)] {
                let run = |isa: Isa| {
                    let (mut acc, mut c, mut h) = (acc0.clone(), c0.clone(), vec![7u8; ROWS * DHC]);
                    let o0 = panel * PANEL;
                    let t = LstmTile {
                        rows,
                        valid,
                        acc: AccRows {
                            ptr: acc.as_mut_ptr(),
                            ld: G * PANEL,
                        },
                        dq: Dequant {
                            deq: deq[o0..].as_ptr(),
                            bias: bias[o0..].as_ptr(),
                            stride: DHC,
                        },
                        c: TileRows {
                            ptr: c[o0..].as_mut_ptr(),
                            stride: DHC as isize,
                        },
                        h: U8Rows {
                            ptr: h[o0..].as_mut_ptr(),
                            ld: DHC,
                        },
                    };
                    unsafe { lstm_tile(isa, &t, &q) };
                    (c.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), h)
                };
                let want = run(Isa::Portable);
                let (c, h) = (&want.0, &want.1);
                // Units outside the tile kept; inside, c updated and h spread over many
                // levels (h of the NaN c-state quantized to 0).
                let mut levels = std::collections::BTreeSet::new();
                for k in 0..ROWS * DHC {
                    let u = k % DHC;
                    if k / DHC >= rows || !(panel * PANEL..panel * PANEL + valid).contains(&u) {
                        assert_eq!((h[k], c[k]), (7, c0[k].to_bits()), "unit {k}");
                        continue;
                    }
                    levels.insert(h[k]);
                    if k == 5 {
                        assert_eq!(h[k] as i32 - q.offset, 0);
                    } else {
                        assert_ne!(c[k], c0[k].to_bits(), "unit {k}");
                    }
                }
                assert!(levels.len() >= 8, "{levels:?}");
                for isa in Isa::all_supported() {
                    assert_eq!(run(isa), want, "{isa:?} s8 {s8} rows {rows} panel {panel}");
                }
            }
        }
    }
}
