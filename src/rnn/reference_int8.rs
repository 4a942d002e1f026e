//! A plain simulation of oneDNN's int8 RNN inference (reference §a.14) — LSTM, LSTMP and GRU
//! with u8 or s8 activations and s8 weights — written for readability; a test oracle (as
//! benchdnn's reference simulates the integer path), never used by the primitive.
//!
//! All tensors are dense and canonical (`tnc`, `ldnc`, `ldigo`, `ldgo`) and hold quantized
//! values as integers: activations `q = sat(round_half_even(scale·x + shift))`, weights
//! `W_q = sat_s8(round_half_even(ws·W))`. Per cell: integer sums `Σ x_q·W_q + Σ h_q·U_q`,
//! dequantized as `acc/(ws·scale)` onto the bias minus the compensation
//! `(Σ_i W_q + Σ_i U_q)·shift/(ws·scale)`; f32 gates and c-state; `h` requantized (with s8
//! activations saturated to [0, 127], as oneDNN). GRU requantizes `r⊙h` for the second
//! iteration product; LSTMP quantizes `h`, projects, dequantizes with the projection scales and
//! compensation, and requantizes. `dst_layer` of a bidirectional sum is the saturated sum of the
//! two quantized outputs.
//!
//! With per-sample sequence lengths (the `oxidnn_` extension, [`seq_lengths`](super::seq_lengths)),
//! sample `b` runs steps `0..len_b` only (a reversed direction from time `len_b − 1` down);
//! `dst_iter` / `dst_iter_c` hold its states after its last step (the initial ones for length
//! 0), and each direction's output at times `≥ len_b` is the quantized zero, combined into
//! `dst_layer` as the valid ones are.
//!
//! The activations are the library's scalar ones (checked against libm by the f32 tests), so
//! any difference from the primitive is one of the integer path.

use super::cells::CellKind;
use super::reference::RefProblem;
use crate::kernels::activations;
use crate::types::Direction;

/// An int8 reference problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Int8RefProblem {
    /// Cell (LSTM with or without projection, or GRU), direction and sizes (the vanilla
    /// activation, test mode and precisions are not read).
    pub shape: RefProblem,
    /// s8 activations (else u8).
    pub s8: bool,
    /// Data scale.
    pub scale: f32,
    /// Data shift.
    pub shift: f32,
}

/// Inputs (quantized values as integers).
#[derive(Clone, Copy, Debug)]
pub struct Int8RefInputs<'a> {
    /// `[T][N][SLC]`.
    pub src_layer: &'a [i32],
    /// `[L][D][N][SIC]` (absent: the quantized zero).
    pub src_iter: Option<&'a [i32]>,
    /// `[L][D][N][DHC]` (LSTM; absent: zeros).
    pub src_iter_c: Option<&'a [f32]>,
    /// `[L][D][SLC][G][DHC]`.
    pub weights_layer: &'a [i32],
    /// `[L][D][SIC][G][DHC]`.
    pub weights_iter: &'a [i32],
    /// `[L][D][DHC][DIC]` (LSTMP).
    pub weights_projection: Option<&'a [i32]>,
    /// `[L][D][G][DHC]`.
    pub bias: &'a [f32],
    /// Weights scales: one, or `G·DHC`.
    pub weights_scales: &'a [f32],
    /// Projection scales: one, or `DIC`.
    pub projection_scales: &'a [f32],
    /// Per-sample sequence lengths `[N]` (each in `0..=T`), or none (all T).
    pub lengths: Option<&'a [i32]>,
}

/// Outputs: quantized `dst_layer` (`[T][N][DLC]`) and `dst_iter` (`[L][D][N][DIC]`), f32
/// `dst_iter_c`.
#[derive(Clone, Debug, PartialEq)]
pub struct Int8RefOutputs {
    /// `[T][N][DLC]`.
    pub dst_layer: Vec<i32>,
    /// `[L][D][N][DIC]`.
    pub dst_iter: Vec<i32>,
    /// `[L][D][N][DHC]` (LSTM).
    pub dst_iter_c: Vec<f32>,
}

impl Int8RefProblem {
    fn range(&self) -> (f32, f32) {
        if self.s8 {
            (-128.0, 127.0)
        } else {
            (0.0, 255.0)
        }
    }

    fn quantize_in(&self, x: f32, lo: f32) -> i32 {
        (x * self.scale + self.shift)
            .round_ties_even()
            .clamp(lo, self.range().1) as i32
    }

    /// Quantizes a value with the full range of the activations' type.
    pub fn quantize(&self, x: f32) -> i32 {
        self.quantize_in(x, self.range().0)
    }

    /// Quantizes a cell's `h` (s8: from 0).
    fn quantize_h(&self, x: f32) -> i32 {
        self.quantize_in(x, if self.s8 { 0.0 } else { self.range().0 })
    }

    /// Dequantizes a state.
    fn dequantize(&self, q: i32) -> f32 {
        (q as f32 - self.shift) / self.scale
    }
}

/// The post-GEMM's activations: fused multiply-adds, as the int8 cells run everywhere.
fn sigmoid(x: f32) -> f32 {
    activations::sigmoid::<true>(x)
}

fn tanh(x: f32) -> f32 {
    activations::tanh::<true>(x)
}

/// Runs the simulation.
pub fn forward(q: &Int8RefProblem, x: &Int8RefInputs) -> Int8RefOutputs {
    let p = &q.shape;
    let (d_n, g_n) = (p.d(), p.g());
    let dlc = p.dlc();
    let mut out = Int8RefOutputs {
        dst_layer: vec![0; p.t * p.n * dlc],
        dst_iter: vec![0; p.l * d_n * p.n * p.dic],
        dst_iter_c: vec![0.0; p.l * d_n * p.n * p.dhc],
    };
    let ws = |g: usize, o: usize| {
        x.weights_scales[if x.weights_scales.len() == 1 {
            0
        } else {
            g * p.dhc + o
        }]
    };
    let ps = |k: usize| x.projection_scales[if x.projection_scales.len() == 1 { 0 } else { k }];
    // The last layer's quantized outputs of each direction: [D][T][N][DIC].
    let mut last = vec![0i32; d_n * p.t * p.n * p.dic];
    for d in 0..d_n {
        let mut input: Vec<i32> = x.src_layer.to_vec();
        for l in 0..p.l {
            let k_in = if l == 0 { p.slc } else { p.dic };
            let wl = |i: usize, g: usize, o: usize| {
                x.weights_layer[(((l * d_n + d) * k_in + i) * g_n + g) * p.dhc + o]
            };
            let wi = |i: usize, g: usize, o: usize| {
                x.weights_iter[(((l * d_n + d) * p.sic + i) * g_n + g) * p.dhc + o]
            };
            let bias = |g: usize, o: usize| {
                let comp: i32 = (0..k_in).map(|i| wl(i, g, o)).sum::<i32>()
                    + (0..p.sic).map(|i| wi(i, g, o)).sum::<i32>();
                let s = ws(g, o) * q.scale;
                x.bias[((l * d_n + d) * g_n + g) * p.dhc + o] - comp as f32 * q.shift / s
            };
            let deq = |acc: i32, g: usize, o: usize| {
                acc as f32 * (1.0 / (ws(g, o) * q.scale)) + bias(g, o)
            };
            let state = |n: usize, c: usize| ((l * d_n + d) * p.n + n) * p.sic + c;
            let mut h: Vec<Vec<i32>> = (0..p.n)
                .map(|n| {
                    (0..p.sic)
                        .map(|c| x.src_iter.map_or(q.quantize(0.0), |s| s[state(n, c)]))
                        .collect()
                })
                .collect();
            let c_at = |n: usize, o: usize| ((l * d_n + d) * p.n + n) * p.dhc + o;
            let mut c: Vec<Vec<f32>> = (0..p.n)
                .map(|n| {
                    (0..p.dhc)
                        .map(|o| x.src_iter_c.map_or(0.0, |s| s[c_at(n, o)]))
                        .collect()
                })
                .collect();
            let mut output = vec![q.quantize(0.0); p.t * p.n * p.dic];
            for s in 0..p.t {
                for n in 0..p.n {
                    let len = x.lengths.map_or(p.t, |v| v[n] as usize);
                    if s >= len {
                        continue;
                    }
                    let t = if p.direction == Direction::Right2Left || d == 1 {
                        len - 1 - s
                    } else {
                        s
                    };
                    let xr = &input[(t * p.n + n) * k_in..][..k_in];
                    let layer = |g: usize, o: usize| -> i32 {
                        (0..k_in).map(|i| xr[i] * wl(i, g, o)).sum()
                    };
                    let iter = |hv: &[i32], g: usize, o: usize| -> i32 {
                        (0..p.sic).map(|i| hv[i] * wi(i, g, o)).sum()
                    };
                    let new_h: Vec<i32> = match p.cell {
                        CellKind::Lstm => {
                            let mut hq = vec![0i32; p.dhc];
                            for o in 0..p.dhc {
                                let a = |g: usize| deq(layer(g, o) + iter(&h[n], g, o), g, o);
                                let (i, f) = (sigmoid(a(0)), sigmoid(a(1)));
                                let (cc, og) = (tanh(a(2)), sigmoid(a(3)));
                                // (as the cell: `f·c_prev` fused onto the rounded `i·c̃`)
                                c[n][o] = f.mul_add(c[n][o], i * cc);
                                hq[o] = q.quantize_h(og * tanh(c[n][o]));
                            }
                            match x.weights_projection {
                                Some(w) => (0..p.dic)
                                    .map(|k| {
                                        let r =
                                            |j: usize| w[((l * d_n + d) * p.dhc + j) * p.dic + k];
                                        let acc: i32 = (0..p.dhc).map(|j| hq[j] * r(j)).sum();
                                        let comp: i32 = (0..p.dhc).map(r).sum();
                                        let v = (acc as f32 - comp as f32 * q.shift)
                                            * (1.0 / (ps(k) * q.scale));
                                        q.quantize(v)
                                    })
                                    .collect(),
                                None => hq,
                            }
                        }
                        _ => {
                            let hf: Vec<f32> = h[n].iter().map(|&v| q.dequantize(v)).collect();
                            let u: Vec<f32> = (0..p.dhc)
                                .map(|o| sigmoid(deq(layer(0, o) + iter(&h[n], 0, o), 0, o)))
                                .collect();
                            let rh: Vec<i32> = (0..p.dhc)
                                .map(|o| {
                                    let r = sigmoid(deq(layer(1, o) + iter(&h[n], 1, o), 1, o));
                                    q.quantize(r * hf[o])
                                })
                                .collect();
                            (0..p.dhc)
                                .map(|o| {
                                    let cand = tanh(deq(layer(2, o) + iter(&rh, 2, o), 2, o));
                                    q.quantize(u[o] * hf[o] + (1.0 - u[o]) * cand)
                                })
                                .collect()
                        }
                    };
                    output[(t * p.n + n) * p.dic..][..p.dic].copy_from_slice(&new_h);
                    h[n] = new_h;
                }
            }
            for (n, (hn, cn)) in h.iter().zip(&c).enumerate() {
                let at = ((l * d_n + d) * p.n + n) * p.dic;
                out.dst_iter[at..at + p.dic].copy_from_slice(&hn[..p.dic]);
                out.dst_iter_c[c_at(n, 0)..][..p.dhc].copy_from_slice(cn);
            }
            input = output;
        }
        last[d * p.t * p.n * p.dic..][..p.t * p.n * p.dic].copy_from_slice(&input);
    }
    let (lo, hi) = q.range();
    for t in 0..p.t {
        for n in 0..p.n {
            for k in 0..p.dic {
                let quantized = |d: usize| last[(d * p.t + t) * p.n * p.dic + n * p.dic + k];
                let row = (t * p.n + n) * dlc;
                match p.direction {
                    Direction::BidirectionalSum => {
                        out.dst_layer[row + k] =
                            (quantized(0) + quantized(1)).clamp(lo as i32, hi as i32)
                    }
                    _ => {
                        for d in 0..d_n {
                            out.dst_layer[row + d * p.dic + k] = quantized(d);
                        }
                    }
                }
            }
        }
    }
    out
}
