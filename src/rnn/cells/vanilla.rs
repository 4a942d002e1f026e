//! Vanilla RNN post-GEMM: `h = act(A)` for 32 hidden units of each batch row of a tile (one
//! gate; the bias is already in `A`), with `act` one of relu (negative slope `alpha`), tanh and
//! logistic — or, in test mode (`Linear`), `scale_0·A`.

use super::{load_units, store_gates, HDest, Linear, TileRows};
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

#[inline(always)]
unsafe fn tile_any<const FMA: bool>(t: &VanillaTile) {
    unsafe {
        for r in 0..t.rows {
            let a = load_units(t.gates, r, PANEL);
            let mut h = [0f32; PANEL];
            match t.activation {
                _ if t.linear.is_some() => {
                    let lin = Linear::of_tile(t.linear);
                    for (o, &x) in h.iter_mut().zip(&a) {
                        *o = lin.gate(0, x);
                    }
                }
                Activation::Relu(alpha) => {
                    for (o, &x) in h.iter_mut().zip(&a) {
                        *o = if x > 0.0 { x } else { alpha * x };
                    }
                }
                Activation::Tanh => {
                    for (o, &x) in h.iter_mut().zip(&a) {
                        *o = tanh::<FMA>(x);
                    }
                }
                Activation::Logistic => {
                    for (o, &x) in h.iter_mut().zip(&a) {
                        *o = sigmoid::<FMA>(x);
                    }
                }
            }
            t.h.store(r, &h, t.valid);
            store_gates(t.ws_gates, 0, r, &[h], t.valid);
        }
    }
}

isa_dispatch!(
    /// The vanilla RNN post-GEMM of one tile: every row of `gates` has 32 readable floats, every
    /// non-null row of the outputs `valid` writable ones, not overlapping the inputs.
    pub unsafe fn postgemm_tile => tile_any, (tile: &VanillaTile)
);
