//! The backward driver: every diff tensor of reference §a.11 from the workspace a forward
//! training pass left (layout: [`WorkspaceLayout`]) and the gradients of the outputs.
//!
//! For each direction, layers from top to bottom; per layer and direction:
//! 1. **steps, last to first**: the gradient reaching the step's h is the one from above (the
//!    `diff_dst_layer` rows of the direction — channel half for concat, all for sum — or the
//!    input gradient of the layer above) plus the one from the next step (`diff_dst_iter` at the
//!    last step); the cell's element-wise backward ([`cells`]) turns it into `dA`, the gradient
//!    of the gate pre-activations, kept for every step; then the recurrent GEMM `dA·Uᵀ` gives
//!    the previous state's gradient (GRU: in two parts around the reset gate);
//! 2. **merged GEMMs over all `T·N` rows** (reference §c.2): `dW += xᵀ·dA`, `dU += h_prevᵀ·dA'`,
//!    `db += Σ dA`, the peephole sums, and the layer input's gradient `dA·Wᵀ` — which feeds the
//!    layer below, or (layer 0) is added into `diff_src_layer` over both directions.
//!
//! Diff weights and bias accumulate into the user's tensors; with
//! `dnnl_rnn_flags_diff_weights_overwrite` each layer and direction's part is zeroed first.
//! Weights are read in the user's plain layout (any strides) by strided GEMMs
//! ([`gemm`]); nothing is packed.

pub mod cells;
pub mod exec;
pub mod gemm;
pub mod scratch;

use self::gemm::{gemm, Mat};
use self::scratch::BackwardScratch;
use super::cells::CellKind;
use super::problem::RnnProblem;
use super::views::Strided;
use super::workspace::WorkspaceLayout;
use crate::types::Direction;

/// Every tensor one backward execution touches, as raw views.
#[derive(Clone, Copy, Debug)]
pub struct BackwardTensors {
    /// `src_layer` `[T][N][SLC]`.
    pub src_layer: Strided<3>,
    /// AUGRU: `attention` `[T][N][1]`.
    pub attention: Option<Strided<3>>,
    /// `weights_layer` `[L][D][SLC][G][DHC]` (any strides).
    pub weights_layer: Strided<5>,
    /// `weights_iter` `[L][D][SIC][G][DHC]`.
    pub weights_iter: Strided<5>,
    /// LSTM peephole `[L][D][3][DHC]`.
    pub peephole: Option<Strided<4>>,
    /// `diff_dst_layer` `[T][N][DLC]`.
    pub diff_dst_layer: Strided<3>,
    /// `diff_dst_iter` `[L][D][N][DIC]`.
    pub diff_dst_iter: Option<Strided<4>>,
    /// `diff_dst_iter_c` `[L][D][N][DHC]`.
    pub diff_dst_iter_c: Option<Strided<4>>,
    /// `diff_src_layer` `[T][N][SLC]`.
    pub diff_src_layer: Strided<3>,
    /// `diff_src_iter` `[L][D][N][SIC]`.
    pub diff_src_iter: Option<Strided<4>>,
    /// `diff_src_iter_c` `[L][D][N][DHC]`.
    pub diff_src_iter_c: Option<Strided<4>>,
    /// AUGRU: `diff_augru_attention` `[T][N][1]`.
    pub diff_attention: Option<Strided<3>>,
    /// `diff_weights_layer` `[L][D][SLC][G][DHC]`.
    pub diff_weights_layer: Strided<5>,
    /// `diff_weights_iter` `[L][D][SIC][G][DHC]`.
    pub diff_weights_iter: Strided<5>,
    /// `diff_weights_peephole` `[L][D][3][DHC]`.
    pub diff_peephole: Option<Strided<4>>,
    /// `diff_bias` `[L][D][B][DHC]`.
    pub diff_bias: Option<Strided<4>>,
    /// The forward training workspace (read).
    pub workspace: *const u8,
    /// Scratchpad buffer (laid out by [`BackwardScratch`]).
    pub scratch: *mut u8,
}

/// One backward execution.
pub struct Backward<'a> {
    /// The problem.
    pub problem: &'a RnnProblem,
    /// Scratchpad layout.
    pub scratch: &'a BackwardScratch,
    /// Workspace layout.
    pub workspace: &'a WorkspaceLayout,
    /// The tensors.
    pub tensors: BackwardTensors,
}

/// `f32` slice of `len` elements at `ptr`.
///
/// # Safety
/// `ptr` valid for `len` reads, not written while the slice lives.
unsafe fn slice<'a>(ptr: *const f32, len: usize) -> &'a [f32] {
    if len == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

/// Mutable `f32` slice of `len` elements at `ptr`.
///
/// # Safety
/// `ptr` valid for `len` writes, not otherwise accessed while the slice lives.
unsafe fn slice_mut<'a>(ptr: *mut f32, len: usize) -> &'a mut [f32] {
    if len == 0 {
        &mut []
    } else {
        unsafe { std::slice::from_raw_parts_mut(ptr, len) }
    }
}

/// Gate `g` of one layer and direction of a 5-D weights tensor, transposed: the matrix
/// `(o, i)` (`[DHC × in]`), so that `dA_g·W_gᵀ` reads it in place.
fn gate_t(w: &Strided<5>, l: usize, d: usize, g: usize) -> Mat {
    Mat {
        ptr: w.at([l, d, 0, g, 0]),
        rs: w.strides[4],
        cs: w.strides[2],
    }
}

/// Gate `g` of one layer and direction of a 5-D weights tensor: the matrix `(i, o)`.
fn gate(w: &Strided<5>, l: usize, d: usize, g: usize) -> Mat {
    gate_t(w, l, d, g).t()
}

impl Backward<'_> {
    /// Runs the whole backward pass.
    ///
    /// # Safety
    /// The tensors must be valid for the problem (the pd's descriptors), the workspace the one
    /// a forward training execution of the same problem and inputs wrote, the scratchpad at
    /// least as large as its layout, and outputs must not overlap inputs or each other.
    pub unsafe fn run(&self) {
        let p = self.problem;
        if p.is_empty() {
            return;
        }
        for d in 0..p.d {
            for l in (0..p.l).rev() {
                unsafe { self.layer(l, d) };
            }
        }
    }

    fn ws(&self, region: super::arena::Region) -> *const f32 {
        // SAFETY (address only): the workspace is at least as large as its layout.
        unsafe { region.ptr(self.tensors.workspace.cast_mut()).cast_const() }
    }

    fn sc(&self, region: super::arena::Region) -> *mut f32 {
        // SAFETY (address only): the scratchpad is at least as large as its layout.
        unsafe { region.ptr(self.tensors.scratch) }
    }

    /// Time index of step `s` of direction `d`.
    fn time(&self, d: usize, s: usize) -> usize {
        if self.problem.is_reversed(d) {
            self.problem.t - 1 - s
        } else {
            s
        }
    }

    /// One layer of one direction.
    unsafe fn layer(&self, l: usize, d: usize) {
        let p = self.problem;
        let t = &self.tensors;
        let (n, dhc, sic, dic, tn) = (p.n, p.dhc, p.sic, p.dic, p.t);
        let cols = p.g * dhc;
        let rows = tn * n;
        let k_in = p.layer_input_channels(l);
        let sc = self.scratch;
        let ws = self.workspace;
        let hc = sc.hc;
        unsafe {
            if p.overwrites_diff_weights() {
                self.zero_diff_weights(l, d);
            }
            // Gradient from above, rows of `above_ld` floats by step.
            let (above, above_ld) = if l + 1 == p.l {
                let dst = self.sc(sc.above);
                let col = if p.direction == Direction::BidirectionalConcat {
                    d * dic
                } else {
                    0
                };
                for s in 0..tn {
                    for r in 0..n {
                        let src = t.diff_dst_layer.at([self.time(d, s), r, col]);
                        let row = dst.add((s * n + r) * dic);
                        for c in 0..dic {
                            *row.add(c) = *src.offset(c as isize * t.diff_dst_layer.strides[2]);
                        }
                    }
                }
                (dst.cast_const(), dic)
            } else {
                (self.sc(sc.below).cast_const(), sc.xc)
            };
            // Running state gradients.
            let dh_next = self.sc(sc.dh_next);
            let dc = self.sc(sc.dc);
            for r in 0..n {
                let row = dh_next.add(r * hc);
                for c in 0..hc {
                    *row.add(c) = match t.diff_dst_iter {
                        Some(v) if c < dic => *v.at([l, d, r, c]),
                        _ => 0.0,
                    };
                }
                if p.cell.has_c_state() {
                    for c in 0..dhc {
                        *dc.add(r * dhc + c) =
                            t.diff_dst_iter_c.map_or(0.0, |v| *v.at([l, d, r, c]));
                    }
                }
            }
            // Layer input by step, rows of `x_ld` floats.
            let (x, x_ld) = if l == 0 {
                let dst = self.sc(sc.x);
                for s in 0..tn {
                    for r in 0..n {
                        let src = t.src_layer.at([self.time(d, s), r, 0]);
                        let row = dst.add((s * n + r) * p.slc);
                        for c in 0..p.slc {
                            *row.add(c) = *src.offset(c as isize * t.src_layer.strides[2]);
                        }
                    }
                }
                (dst.cast_const(), p.slc)
            } else {
                (self.ws(ws.h).add(ws.h_index(l - 1, d, 1, 0)), ws.hc)
            };
            let att = self.sc(sc.att);
            if let Some(a) = t.attention {
                for s in 0..tn {
                    for r in 0..n {
                        *att.add(s * n + r) = *a.at([self.time(d, s), r, 0]);
                    }
                }
            }
            let peephole: Vec<f32> = match t.peephole {
                Some(w) => (0..3 * dhc)
                    .map(|i| *w.at([l, d, i / dhc, i % dhc]))
                    .collect(),
                None => Vec::new(),
            };
            let mut d_att = vec![0f32; if t.diff_attention.is_some() { n } else { 0 }];

            for s in (0..tn).rev() {
                let dh = slice_mut(self.sc(sc.dh), n * dhc);
                for r in 0..n {
                    for c in 0..dhc {
                        dh[r * dhc + c] =
                            *above.add((s * n + r) * above_ld + c) + *dh_next.add(r * hc + c);
                    }
                }
                let has_c = p.cell.has_c_state();
                let st = cells::StepState {
                    n,
                    dhc,
                    gates: slice(self.ws(ws.gates).add(ws.gates_index(l, d, s, 0)), n * cols),
                    h_prev: slice(self.ws(ws.h).add(ws.h_index(l, d, s, 0)), n * ws.hc),
                    h_ld: ws.hc,
                    c_prev: if has_c {
                        slice(self.ws(ws.c).add(ws.c_index(l, d, s, 0)), n * dhc)
                    } else {
                        &[]
                    },
                    c: if has_c {
                        slice(self.ws(ws.c).add(ws.c_index(l, d, s + 1, 0)), n * dhc)
                    } else {
                        &[]
                    },
                    peephole: &peephole,
                    att: if t.attention.is_some() {
                        slice(att.add(s * n), n)
                    } else {
                        &[]
                    },
                    lbr: if ws.lbr.len > 0 {
                        slice(self.ws(ws.lbr).add(ws.lbr_index(l, d, s, 0)), n * dhc)
                    } else {
                        &[]
                    },
                };
                let da_ptr = self.sc(sc.da).add(s * n * cols);
                let da = slice_mut(da_ptr, n * cols);
                let dh_prev = slice_mut(dh_next, n * hc);
                let u = &t.weights_iter;
                // dh_prev += Σ_{g ∈ gates} dA'_g·U_gᵀ, dA' rows of `cols` floats at `src`.
                let recurrent = |src: *const f32, gates: std::ops::Range<usize>, beta: f32| {
                    for (k, g) in gates.enumerate() {
                        gemm(
                            n,
                            sic,
                            dhc,
                            Mat::rows(src, cols).at(0, g * dhc),
                            gate_t(u, l, d, g),
                            if k == 0 { beta } else { 1.0 },
                            Mat::rows(dh_next, hc),
                        );
                    }
                };
                match p.cell {
                    CellKind::VanillaRnn => {
                        let act = p.activation.expect("vanilla RNN has an activation");
                        cells::vanilla(act, &st, dh, da);
                        recurrent(da_ptr, 0..p.g, 0.0);
                    }
                    CellKind::Lstm => {
                        cells::lstm(&st, dh, slice_mut(dc, n * dhc), da);
                        recurrent(da_ptr, 0..p.g, 0.0);
                    }
                    CellKind::Gru | CellKind::Augru => {
                        cells::gru_update(&st, dh, da, dh_prev, hc, &mut d_att);
                        let g = self.sc(sc.g);
                        gemm(
                            n,
                            sic,
                            dhc,
                            Mat::rows(da_ptr, cols).at(0, 2 * dhc),
                            gate_t(u, l, d, 2),
                            0.0,
                            Mat::rows(g, dhc),
                        );
                        let rh = slice_mut(self.sc(sc.rh).add(s * n * dhc), n * dhc);
                        let da = slice_mut(da_ptr, n * cols);
                        let dh_prev = slice_mut(dh_next, n * hc);
                        cells::gru_reset(&st, slice(g, n * dhc), da, dh_prev, hc, rh);
                        recurrent(da_ptr, 0..2, 1.0);
                    }
                    CellKind::LbrGru | CellKind::LbrAugru => {
                        cells::gru_update(&st, dh, da, dh_prev, hc, &mut d_att);
                        let da_iter_ptr = self.sc(sc.da_iter).add(s * n * cols);
                        let da = slice_mut(da_ptr, n * cols);
                        cells::lbr_reset(&st, da, slice_mut(da_iter_ptr, n * cols));
                        recurrent(da_iter_ptr, 0..p.g, 1.0);
                    }
                }
                if let Some(v) = t.diff_attention {
                    for (r, &a) in d_att.iter().enumerate() {
                        *v.at([self.time(d, s), r, 0]) = a;
                    }
                }
            }

            // Final state gradients. With no step, diff_dst_iter passes through.
            if let Some(v) = t.diff_src_iter {
                for r in 0..n {
                    for c in 0..sic {
                        *v.at([l, d, r, c]) = *dh_next.add(r * hc + c);
                    }
                }
            }
            if let Some(v) = t.diff_src_iter_c {
                for r in 0..n {
                    for c in 0..dhc {
                        *v.at([l, d, r, c]) = *dc.add(r * dhc + c);
                    }
                }
            }

            // Merged GEMMs over the T·N rows of every step.
            let da = self.sc(sc.da).cast_const();
            let da_iter = if sc.da_iter.len > 0 {
                self.sc(sc.da_iter).cast_const()
            } else {
                da
            };
            let h_prev = self.ws(ws.h).add(ws.h_index(l, d, 0, 0));
            let gru = matches!(p.cell, CellKind::Gru | CellKind::Augru);
            for g in 0..p.g {
                let dag = Mat::rows(da, cols).at(0, g * dhc);
                let dw = gate(&t.diff_weights_layer, l, d, g);
                gemm(k_in, dhc, rows, Mat::rows(x, x_ld).t(), dag, 1.0, dw);
                let (operand, ld) = if gru && g == 2 {
                    (self.sc(sc.rh).cast_const(), dhc)
                } else {
                    (h_prev, ws.hc)
                };
                let du = gate(&t.diff_weights_iter, l, d, g);
                let dai = Mat::rows(da_iter, cols).at(0, g * dhc);
                gemm(sic, dhc, rows, Mat::rows(operand, ld).t(), dai, 1.0, du);
            }
            if let Some(b) = t.diff_bias {
                let sums = |src: *const f32, g: usize, row: usize| {
                    for o in 0..dhc {
                        let mut acc = 0f32;
                        for r in 0..rows {
                            acc += *src.add(r * cols + g * dhc + o);
                        }
                        *b.at([l, d, row, o]) += acc;
                    }
                };
                for g in 0..p.g {
                    sums(da, g, g);
                }
                if p.cell.bias_gates() > p.g {
                    sums(da_iter, 2, p.g);
                }
            }
            if let Some(dp) = t.diff_peephole {
                let c = self.ws(ws.c).add(ws.c_index(l, d, 0, 0));
                // Rows i, f use c_prev (slots 0..T), row o the new c (slots 1..T+1).
                for (row, gate, shift) in [(0, 0, 0), (1, 1, 0), (2, 3, n * dhc)] {
                    for o in 0..dhc {
                        let mut acc = 0f32;
                        for r in 0..rows {
                            acc += *da.add(r * cols + gate * dhc + o) * *c.add(shift + r * dhc + o);
                        }
                        *dp.at([l, d, row, o]) += acc;
                    }
                }
            }
            // Gradient of the layer input: dA·Wᵀ, into `below` (read by the layer below).
            let below = self.sc(sc.below);
            for g in 0..p.g {
                let dag = Mat::rows(da, cols).at(0, g * dhc);
                let w = gate_t(&t.weights_layer, l, d, g);
                let beta = if g == 0 { 0.0 } else { 1.0 };
                gemm(rows, k_in, dhc, dag, w, beta, Mat::rows(below, sc.xc));
            }
            if l == 0 {
                let ds = &t.diff_src_layer;
                for s in 0..tn {
                    for r in 0..n {
                        let dst = ds.at([self.time(d, s), r, 0]);
                        let src = below.add((s * n + r) * sc.xc);
                        for c in 0..p.slc {
                            let v = dst.offset(c as isize * ds.strides[2]);
                            *v = if d == 0 { 0.0 } else { *v } + *src.add(c);
                        }
                    }
                }
            }
        }
    }

    /// Zeroes the diff weights, bias and peephole of one layer and direction (overwrite mode).
    unsafe fn zero_diff_weights(&self, l: usize, d: usize) {
        let p = self.problem;
        let t = &self.tensors;
        unsafe {
            for (w, k) in [
                (&t.diff_weights_layer, p.slc),
                (&t.diff_weights_iter, p.sic),
            ] {
                for i in 0..k {
                    for g in 0..p.g {
                        for o in 0..p.dhc {
                            *w.at([l, d, i, g, o]) = 0.0;
                        }
                    }
                }
            }
            for (v, rows) in [(t.diff_bias, p.cell.bias_gates()), (t.diff_peephole, 3)] {
                if let Some(v) = v {
                    for g in 0..rows {
                        for o in 0..p.dhc {
                            *v.at([l, d, g, o]) = 0.0;
                        }
                    }
                }
            }
        }
    }
}
