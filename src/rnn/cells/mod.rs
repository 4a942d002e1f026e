//! RNN cell kinds: their static properties, and (one file per cell) the fused element-wise
//! part of a cell (the "post-GEMM") that turns gate pre-activations into new states.
//!
//! Adding a cell: a variant here, its properties, a file with its post-GEMM, and an arm in the
//! forward driver's dispatch and in the reference.

pub mod gru;
pub mod lbr_gru;
pub mod lstm;
pub mod vanilla;

use super::precision::Precision;
use crate::args;
use crate::attr::RnnTestParams;
use crate::kernels::isa::vector_dispatch;
use crate::kernels::vector::Vector;
use crate::memory::packed::PANEL;
use crate::types::AlgKind;

/// The kind of an RNN cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CellKind {
    /// Vanilla RNN (one gate, configurable activation).
    VanillaRnn,
    /// LSTM (gates i, f, c̃, o; cell state c).
    Lstm,
    /// GRU (gates u, r, o).
    Gru,
    /// Linear-before-reset GRU (gates u, r, o; four bias rows).
    LbrGru,
    /// GRU with attention-scaled update gate.
    Augru,
    /// Linear-before-reset AUGRU.
    LbrAugru,
}

impl CellKind {
    /// The cell for a oneDNN cell algorithm kind; `None` for non-cell kinds.
    pub fn from_alg(alg: AlgKind) -> Option<Self> {
        Some(match alg {
            AlgKind::VanillaRnn => CellKind::VanillaRnn,
            AlgKind::VanillaLstm => CellKind::Lstm,
            AlgKind::VanillaGru => CellKind::Gru,
            AlgKind::LbrGru => CellKind::LbrGru,
            AlgKind::VanillaAugru => CellKind::Augru,
            AlgKind::LbrAugru => CellKind::LbrAugru,
            _ => return None,
        })
    }

    /// Number of gates (G, the `g` dimension of the weights).
    pub fn gates(self) -> usize {
        match self {
            CellKind::VanillaRnn => 1,
            CellKind::Lstm => 4,
            CellKind::Gru | CellKind::LbrGru | CellKind::Augru | CellKind::LbrAugru => 3,
        }
    }

    /// Number of bias rows (G, plus one for the linear-before-reset cells).
    pub fn bias_gates(self) -> usize {
        match self {
            CellKind::LbrGru | CellKind::LbrAugru => 4,
            other => other.gates(),
        }
    }

    /// True when the cell carries a cell state `c` (`src_iter_c` / `dst_iter_c`).
    pub fn has_c_state(self) -> bool {
        self == CellKind::Lstm
    }

    /// True for the cells with a per-step attention input.
    pub fn has_attention(self) -> bool {
        matches!(self, CellKind::Augru | CellKind::LbrAugru)
    }

    /// True for the cells whose recurrent weights multiply the state directly (SIC must equal
    /// DHC).
    pub fn is_gru_family(self) -> bool {
        matches!(
            self,
            CellKind::Gru | CellKind::LbrGru | CellKind::Augru | CellKind::LbrAugru
        )
    }

    /// The forward execution arguments a primitive of this cell takes (besides workspace and
    /// scratchpad), in oneDNN's order.
    pub fn forward_args(self) -> Vec<i32> {
        let mut v = vec![args::SRC_LAYER, args::SRC_ITER];
        if self.has_c_state() {
            v.push(args::SRC_ITER_C);
        }
        if self.has_attention() {
            v.push(args::AUGRU_ATTENTION);
        }
        v.extend([args::WEIGHTS_LAYER, args::WEIGHTS_ITER]);
        if self == CellKind::Lstm {
            v.extend([args::WEIGHTS_PEEPHOLE, args::WEIGHTS_PROJECTION]);
        }
        v.extend([args::BIAS, args::DST_LAYER, args::DST_ITER]);
        if self.has_c_state() {
            v.push(args::DST_ITER_C);
        }
        v
    }

    /// oneDNN's name of the cell.
    pub fn name(self) -> &'static str {
        match self {
            CellKind::VanillaRnn => "vanilla_rnn",
            CellKind::Lstm => "vanilla_lstm",
            CellKind::Gru => "vanilla_gru",
            CellKind::LbrGru => "lbr_gru",
            CellKind::Augru => "vanilla_augru",
            CellKind::LbrAugru => "lbr_augru",
        }
    }
}

/// Test-mode activations (oneDNN's hidden `rnn_tparams` attribute, benchdnn's
/// `--skip-nonlinear`): the activation of gate `g` — σ or tanh, the vanilla RNN's activation — becomes
/// `scales[g]·x`, and LSTM's `tanh(c)` in `h̃ = o ⊙ tanh(c)` becomes `cscale·c`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Linear {
    /// Per-gate scales (gates beyond the cell's count are unused).
    pub scales: [f32; 4],
    /// Scale replacing LSTM's `tanh(c)`.
    pub cscale: f32,
}

impl Linear {
    /// The test-mode activations of an attribute, `None` when test mode is off. Missing scales
    /// (fewer than the cell's gates; the pd rejects that) read as 0.
    pub fn from_attr(t: &RnnTestParams) -> Option<Self> {
        t.test_mode.then(|| {
            let mut scales = [0.0; 4];
            for (s, v) in scales.iter_mut().zip(&t.scales) {
                *s = *v;
            }
            Self {
                scales,
                cscale: t.cscale,
            }
        })
    }

    /// Gate `g`'s activation of `x`.
    #[inline(always)]
    pub fn gate(&self, g: usize, x: f32) -> f32 {
        self.scales[g] * x
    }

    /// The test-mode activations of a tile, or placeholder scales for a tile in normal mode
    /// (then never used: the post-GEMMs read them only in their `LINEAR` instantiation).
    #[inline(always)]
    pub fn of_tile(linear: Option<Linear>) -> Self {
        linear.unwrap_or(Self {
            scales: [0.0; 4],
            cscale: 0.0,
        })
    }
}

/// Gate `g`'s activation in a post-GEMM: `f(x)`, or with `LINEAR` (test mode, chosen once per
/// tile, so the normal path has no per-element branch) `scale_g·x`.
#[inline(always)]
pub fn activate<const LINEAR: bool>(lin: &Linear, g: usize, x: f32, f: impl Fn(f32) -> f32) -> f32 {
    if LINEAR {
        lin.gate(g, x)
    } else {
        f(x)
    }
}

/// Rows of a tile in some buffer: row `i` starts at `ptr + i·stride` (a null `ptr` means "no
/// such output" or, for inputs, zeros).
#[derive(Clone, Copy, Debug)]
pub struct TileRows {
    /// Row 0 (already offset to the tile's first unit).
    pub ptr: *mut f32,
    /// Stride between rows, in elements.
    pub stride: isize,
}

impl TileRows {
    /// No buffer.
    pub const NONE: TileRows = TileRows {
        ptr: std::ptr::null_mut(),
        stride: 0,
    };

    /// True when there is no buffer.
    pub fn is_none(&self) -> bool {
        self.ptr.is_null()
    }

    /// Address of row `i` (wrapping arithmetic).
    #[inline(always)]
    pub fn row(&self, i: usize) -> *mut f32 {
        self.ptr.wrapping_offset(i as isize * self.stride)
    }
}

/// Where a tile's new hidden state goes: its own buffer, and for the last layer a second
/// destination (`dst_layer`) that is stored or, for the second direction of a bidirectional
/// sum, added into.
#[derive(Clone, Copy, Debug)]
pub struct HDest {
    /// New hidden state.
    pub h_out: TileRows,
    /// A second destination of h (`dst_layer`), or none.
    pub h_extra: TileRows,
    /// Add h into `h_extra` instead of storing it.
    pub extra_add: bool,
    /// The precision h is rounded to before it is stored (the operand of the next GEMMs).
    pub precision: Precision,
}

impl HDest {
    /// Whether a tile's h of `valid` units can be stored as it is computed, rounded in
    /// registers: a whole panel, one destination, f32 or bf16.
    pub fn direct(&self, valid: usize) -> bool {
        valid == PANEL
            && self.h_extra.is_none()
            && matches!(self.precision, Precision::F32 | Precision::Bf16)
    }

    /// Stores row `r` (`valid` units of `h`).
    ///
    /// # Safety
    /// Row `r` of every non-null buffer has `valid` writable floats.
    #[inline(always)]
    pub unsafe fn store(&self, r: usize, h: &[f32; PANEL], valid: usize) {
        let rounded = self.precision.round_panel(h, valid);
        let h = &rounded;
        unsafe {
            copy_units(self.h_out.row(r), h.as_ptr(), valid);
            if !self.h_extra.is_none() {
                let extra = self.h_extra.row(r);
                if self.extra_add {
                    let mut sum = [0f32; PANEL];
                    copy_units(sum.as_mut_ptr(), extra, valid);
                    for (s, v) in sum.iter_mut().zip(h) {
                        *s += v;
                    }
                    copy_units(extra, sum.as_ptr(), valid);
                } else {
                    copy_units(extra, h.as_ptr(), valid);
                }
            }
        }
    }
}

/// Writes a whole panel `out[k] = v(k)` rounded to `precision` (f32 or bf16, as
/// [`HDest::direct`] allows), straight from the registers the values are computed in: a panel
/// written to an array on the stack and copied on waits for its stores (Zen 4 does not forward
/// a zmm store to a zmm load). One loop per precision, so that each vectorizes.
///
/// # Safety
/// `out` has [`PANEL`] writable floats that `v` does not read.
#[inline(always)]
pub(super) unsafe fn write_panel(out: *mut f32, precision: Precision, v: impl Fn(usize) -> f32) {
    debug_assert!(matches!(precision, Precision::F32 | Precision::Bf16));
    // SAFETY: the caller's contract.
    let out = unsafe { &mut *(out as *mut [f32; PANEL]) };
    if precision == Precision::Bf16 {
        for (k, o) in out.iter_mut().enumerate() {
            *o = Precision::Bf16.round(v(k));
        }
    } else {
        for (k, o) in out.iter_mut().enumerate() {
            *o = v(k);
        }
    }
}

/// `store_rows` on vectors `V`.
///
/// # Safety
/// `src` has `rows` rows of a panel's readable floats; as [`HDest::store`] for every row; the
/// CPU supports `V`.
#[inline(always)]
unsafe fn store_rows_body<V: Vector>(
    h: &HDest,
    src: *const f32,
    ld: usize,
    rows: usize,
    valid: usize,
) {
    let bf16 = h.precision == Precision::Bf16;
    let direct = valid == PANEL && matches!(h.precision, Precision::F32 | Precision::Bf16);
    for r in 0..rows {
        // SAFETY: the caller's contract.
        unsafe {
            let row = src.add(r * ld);
            if !direct {
                h.store(r, &*(row as *const [f32; PANEL]), valid);
                continue;
            }
            let (out, extra) = (h.h_out.row(r), h.h_extra.row(r));
            for o in (0..PANEL).step_by(V::WIDTH) {
                let x = V::load(row.add(o));
                let x = if bf16 { V::round_bf16(x) } else { x };
                x.store(out.add(o));
                if h.h_extra.is_none() {
                    continue;
                }
                let e = if h.extra_add {
                    V::add(V::load(extra.add(o)), x)
                } else {
                    x
                };
                e.store(extra.add(o));
            }
        }
    }
}

vector_dispatch!(
    /// Stores `rows` rows of h of `valid` units, rows `ld` floats apart from `src` (the
    /// projection's output), to `h`'s destinations as [`HDest::store`] does. A whole f32 or
    /// bf16 panel row is rounded in registers and stored straight from them: a copy through
    /// the stack stalls every reload (Zen 4 does not forward a zmm store to a zmm load). The
    /// contract: `src` has `rows` rows of a panel's readable floats; as [`HDest::store`] for
    /// every row.
    pub unsafe fn store_rows => store_rows_body,
    (h: &HDest, src: *const f32, ld: usize, rows: usize, valid: usize)
);

/// Copies `valid ≤ 32` floats; a whole panel as one fixed-size move (no `memcpy` call).
///
/// # Safety
/// Both ranges valid for `valid` floats, not overlapping.
#[inline(always)]
pub unsafe fn copy_units(dst: *mut f32, src: *const f32, valid: usize) {
    unsafe {
        if valid == PANEL {
            *(dst as *mut [f32; PANEL]) = *(src as *const [f32; PANEL]);
        } else {
            for u in 0..valid {
                *dst.add(u) = *src.add(u);
            }
        }
    }
}

/// Loads `valid` units of row `r` of `rows` into a panel (zeros beyond, and everywhere for a
/// null buffer).
///
/// # Safety
/// Row `r` of a non-null `rows` has `valid` readable floats.
#[inline(always)]
pub unsafe fn load_units(rows: TileRows, r: usize, valid: usize) -> [f32; PANEL] {
    let mut v = [0f32; PANEL];
    if !rows.is_none() {
        unsafe { copy_units(v.as_mut_ptr(), rows.row(r), valid) };
    }
    v
}

/// Stores post-activation gates of row `r` into workspace rows `[G][stride]` (no-op for a null
/// buffer).
///
/// # Safety
/// Row `r` of a non-null `ws` has `act.len()` gates of `valid` writable floats at `stride`.
#[inline(always)]
pub unsafe fn store_gates(
    ws: TileRows,
    stride: usize,
    r: usize,
    act: &[[f32; PANEL]],
    valid: usize,
) {
    if ws.is_none() {
        return;
    }
    unsafe {
        let base = ws.row(r);
        for (g, v) in act.iter().enumerate() {
            copy_units(base.add(g * stride), v.as_ptr(), valid);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Isa;

    /// Row stride of the test buffers (more than a panel: units past `valid` stay untouched).
    const S: usize = 40;

    #[test]
    fn store_rows_stores_as_store_does_on_every_isa() {
        let rows = 3;
        // Values with bits below bf16's, and halfway cases that round to even.
        let src: Vec<f32> = (0..rows * S)
            .map(|i| (i as f32 * 0.377 - 9.0) * (1.0 + 2f32.powi(-8) * (i % 3) as f32))
            .collect();
        let tile = |v: &mut Vec<f32>| TileRows {
            ptr: v.as_mut_ptr(),
            stride: S as isize,
        };
        for precision in [Precision::F32, Precision::Bf16] {
            for valid in [PANEL, 20] {
                for extra in [None, Some(false), Some(true)] {
                    let run = |f: &dyn Fn(&HDest)| {
                        let (mut out, mut ext) = (vec![7.0; rows * S], vec![0.5; rows * S]);
                        let h = HDest {
                            h_out: tile(&mut out),
                            h_extra: extra.map_or(TileRows::NONE, |_| tile(&mut ext)),
                            extra_add: extra == Some(true),
                            precision,
                        };
                        f(&h);
                        (out, ext)
                    };
                    // SAFETY: every buffer has `rows` rows of `S` ≥ `PANEL` floats.
                    let want = run(&|h| unsafe {
                        for r in 0..rows {
                            h.store(r, &*(src.as_ptr().add(r * S) as *const [f32; PANEL]), valid);
                        }
                    });
                    assert!(want.0.iter().any(|&v| v != 7.0));
                    for isa in Isa::all_supported() {
                        // SAFETY: as above; `isa` runs here.
                        let got =
                            run(&|h| unsafe { store_rows(isa, h, src.as_ptr(), S, rows, valid) });
                        assert_eq!(got, want, "{isa:?} {precision:?} {valid} {extra:?}");
                    }
                }
            }
        }
    }
}
