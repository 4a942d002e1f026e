//! Vanilla RNN post-GEMM: `h = act(A)` for 32 hidden units of each batch row of a tile (one
//! gate; the bias is already in `A`), with `act` one of relu (negative slope `alpha`), tanh and
//! logistic — or, in test mode (`Linear`), `scale_0·A`.

use super::{load_units, store_gates, write_panel, HDest, Linear, TileRows};
use crate::kernels::activations::{sigmoid, tanh};
use crate::kernels::isa::isa_dispatch;
use crate::memory::packed::PANEL;

/// The activation of a vanilla RNN cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    /// `x > 0 ? x : alpha·x`.
    Relu(f32),
    /// Hyperbolic tangent.
    Tanh,
    /// Logistic sigmoid.
    Logistic,
}

// Alpha is never NaN (oneDNN takes any float, but a NaN slope compares unequal to itself only
// in this derived comparison; descriptors with it are still usable).
impl Eq for Activation {}

impl Activation {
    /// The activation applied to one value, in f32 with libm's functions (the reference's
    /// arithmetic).
    pub fn apply_ref(self, x: f32) -> f32 {
        match self {
            Activation::Relu(alpha) => {
                if x > 0.0 {
                    x
                } else {
                    alpha * x
                }
            }
            Activation::Tanh => x.tanh(),
            Activation::Logistic => 1.0 / (1.0 + (-x).exp()),
        }
    }

    /// The derivative at the input that gave output `y`, computed from `y` as oneDNN's backward
    /// does: relu `y > 0 ? 1 : alpha`, tanh `1 − y²`, logistic `y(1 − y)`.
    pub fn derivative_from_output(self, y: f32) -> f32 {
        match self {
            Activation::Relu(alpha) => {
                if y > 0.0 {
                    1.0
                } else {
                    alpha
                }
            }
            Activation::Tanh => 1.0 - y * y,
            Activation::Logistic => y * (1.0 - y),
        }
    }
}

/// One tile of the post-GEMM: `rows` batch rows × the `valid` (≤ 32) units of one panel.
#[derive(Clone, Copy, Debug)]
pub struct VanillaTile {
    /// Batch rows.
    pub rows: usize,
    /// Valid units of the panel.
    pub valid: usize,
    /// Pre-activations, a panel row of 32 per batch row.
    pub gates: TileRows,
    /// The activation.
    pub activation: Activation,
    /// Where h goes.
    pub h: HDest,
    /// Workspace rows for the post-activation gate (training), or none.
    pub ws_gates: TileRows,
    /// Test mode: linear activation.
    pub linear: Option<Linear>,
}

/// The tile with activation `f`. A whole panel with one destination goes from the gates' row
/// to h's ([`write_panel`]), not through an array on the stack whose reload waits for its
/// stores.
///
/// # Safety
/// The tile's contract (see [`postgemm_tile`]).
#[inline(always)]
unsafe fn rows_with(t: &VanillaTile, f: impl Fn(f32) -> f32) {
    let direct = t.ws_gates.is_none() && t.h.direct(t.valid);
    for r in 0..t.rows {
        // SAFETY: the caller's contract: whole rows of 32 gates; `valid` units of the outputs
        // (a whole panel when `direct`).
        unsafe {
            if direct {
                let a = &*(t.gates.row(r) as *const [f32; PANEL]);
                write_panel(t.h.h_out.row(r), t.h.precision, |k| f(a[k]));
                continue;
            }
            let a = load_units(t.gates, r, PANEL);
            let mut h = [0f32; PANEL];
            for (o, &x) in h.iter_mut().zip(&a) {
                *o = f(x);
            }
            t.h.store(r, &h, t.valid);
            store_gates(t.ws_gates, 0, r, &[h], t.valid);
        }
    }
}

#[inline(always)]
unsafe fn tile_any<const FMA: bool>(t: &VanillaTile) {
    unsafe {
        match t.activation {
            _ if t.linear.is_some() => {
                let lin = Linear::of_tile(t.linear);
                rows_with(t, |x| lin.gate(0, x))
            }
            Activation::Relu(alpha) => rows_with(t, |x| if x > 0.0 { x } else { alpha * x }),
            Activation::Tanh => rows_with(t, tanh::<FMA>),
            Activation::Logistic => rows_with(t, sigmoid::<FMA>),
        }
    }
}

isa_dispatch!(
    /// The vanilla RNN post-GEMM of one tile: every row of `gates` has 32 readable floats, every
    /// non-null row of the outputs `valid` writable ones, not overlapping the inputs.
    pub unsafe fn postgemm_tile => tile_any, (tile: &VanillaTile)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Isa;
    use crate::rnn::precision::Precision;

    /// A whole panel's h written straight from the gates (one destination) has the bits of the
    /// copy path (a second destination), for every activation, in f32 and bf16.
    #[test]
    fn direct_h_has_the_bits_of_the_copy_path() {
        let rows = 3;
        let gates: Vec<f32> = (0..rows * PANEL)
            .map(|i| (i as f32 * 0.31).sin() * 4.0)
            .collect();
        let tr = |ptr: *mut f32| TileRows {
            ptr,
            stride: PANEL as isize,
        };
        let activations = [
            Activation::Relu(0.25),
            Activation::Tanh,
            Activation::Logistic,
        ];
        for isa in Isa::all_supported() {
            for precision in [Precision::F32, Precision::Bf16] {
                for activation in activations {
                    let run = |extra: bool| {
                        let mut g = gates.clone();
                        let (mut h, mut x) = (vec![9f32; rows * PANEL], vec![9f32; rows * PANEL]);
                        let tile = VanillaTile {
                            rows,
                            valid: PANEL,
                            gates: tr(g.as_mut_ptr()),
                            activation,
                            h: HDest {
                                h_out: tr(h.as_mut_ptr()),
                                h_extra: if extra {
                                    tr(x.as_mut_ptr())
                                } else {
                                    TileRows::NONE
                                },
                                extra_add: false,
                                precision,
                            },
                            ws_gates: TileRows::NONE,
                            linear: None,
                        };
                        // SAFETY: every buffer has the rows and units the tile describes.
                        unsafe { postgemm_tile(isa, &tile) };
                        h.iter().map(|v| v.to_bits()).collect::<Vec<u32>>()
                    };
                    let at = format!("{isa:?} {precision:?} {activation:?}");
                    let copied = run(true);
                    assert!(copied.iter().all(|&b| b != 9f32.to_bits()), "{at}");
                    assert_eq!(run(false), copied, "{at}");
                }
            }
        }
    }
}
