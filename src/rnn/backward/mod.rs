//! The backward driver: every diff tensor of reference §a.11 from the workspace a forward
//! training pass left (layout: [`WorkspaceLayout`]) and the gradients of the outputs.
//!
//! For each direction, layers from top to bottom; per layer and direction:
//! 1. **steps, last to first**: the gradient reaching the step's h is the one from above (the
//!    `diff_dst_layer` rows of the direction — channel half for concat, all for sum — or the
//!    input gradient of the layer above) plus the one from the next step (`diff_dst_iter` at the
//!    last step) — with LSTM projection (`h = h̃·W_proj`) kept for `dW_proj` and turned into the
//!    cell's `dh̃ = dh·W_projᵀ` by a GEMM; the cell's element-wise backward ([`cells`]) turns it
//!    into `dA`, the gradient
//!    of the gate pre-activations, kept for every step; then the recurrent GEMM `dA·Uᵀ` gives
//!    the previous state's gradient (GRU: in two parts around the reset gate). The steps run
//!    on one team of the library's threads ([`threading::team`]): each member takes its batch
//!    rows of the element-wise part and its columns of the recurrent GEMMs, with spin barriers
//!    between the phases — one fork/join per layer rather than two or more per step. (Each
//!    member taking its batch rows through every phase and product instead has no barriers,
//!    but every member reads all of `Uᵀ` and `Wᵀ`: slower at C=512.);
//! 2. **merged GEMMs over all `T·N` rows** (reference §c.2): `dW += xᵀ·dA`, `dU += h_prevᵀ·dA'`,
//!    `db += Σ dA`, the peephole sums, `dW_proj += h̃ᵀ·dh`, and the layer input's gradient
//!    `dA·Wᵀ`. That gradient feeds the layer below, or (layer 0) is added into
//!    `diff_src_layer` over both directions. (One product over all rows reads `Wᵀ` once,
//!    where each step computing its own rows of `dA_s·Wᵀ` would read all of it for only `N`
//!    rows: the smaller the batch, the larger the gain.)
//!
//! `diff_dst_layer` and `src_layer` are read in place, and layer 0's input gradient of the first
//! direction is written straight into `diff_src_layer`, when they are already in step order
//! (not reversed, dense rows); else through step-ordered copies in the scratchpad.
//!
//! Diff weights and bias accumulate into the user's tensors; with
//! `dnnl_rnn_flags_diff_weights_overwrite` each layer and direction's part is zeroed first.
//! The merged GEMMs read the weights in the user's plain layout (any strides) with strided GEMMs
//! ([`gemm`](mod@gemm)). The weight gradients `dW += xᵀ·dA` and `dU += h_prevᵀ·dA` share their
//! right operand: with AVX-512 (and unit column strides) they run together through the blocked
//! kernel [`kernels::gemm_tn`](crate::kernels::gemm_tn), which packs each block of `dA` once for
//! both, reads `x` and `h_prev` in place and sums `db = Σ dA` while it packs (12 % faster than
//! two `matrixmultiply` products, whose AVX-512 tile is one vector wide).
//!
//! The per-step products use the forward pass's kernel (`kernels::gemm`) on the transposed
//! weights in 64-column panels (`transposed`): `Uᵀ` for the recurrent GEMMs and, with
//! AVX-512, `Wᵀ` for the input gradient `dA·Wᵀ` over all rows (faster than `matrixmultiply`'s
//! one-vector tiles; without AVX-512 the input gradient is a strided product). Weights
//! given as `any` are in that layout already (`memory::packed_transposed`) and read in place;
//! plain ones are packed once per layer and direction at every execution (LSTM T=1 N=128 C=512
//! SLC=1024: 8 % of forward + backward). Packed panels rather than the user's dense `ldgoi`:
//! W10 backward 138–141 → 89–91 ms on a Xeon (medians of 20 executions, two alternated runs
//! each). With projection, each step's `dh̃ = dh·W_projᵀ` takes the kernel too, on `W_projᵀ`
//! packed likewise, its columns split over the team, and `dW_proj += h̃ᵀ·dh` the blocked
//! weight-gradient kernel (LSTMP T=50 N=16 DHC=1024 DIC=256 training: 33.0 → 30.3 ms against
//! one thread's strided `matrixmultiply` product per step).
//!
//! bf16 primitives with AMX-BF16, or with a full-rate `vdpbf16ps` (AMD Zen 4), multiply in
//! bf16 where oneDNN's bf16 backward does (bf16 operands, f32 sums): `Uᵀ` and `Wᵀ` are packed
//! as bf16 pairs (`Packing::Bf16Pairs`, from plain or packed weights alike) and the per-step
//! products and the input gradient run on the bf16 GEMM (`kernels::gemm_bf16`), which rounds
//! `dA` to bf16 as it converts it; the weight gradients run on `kernels::gemm_bf16_tn` (`dA`
//! and the layer inputs rounded to bf16 there too). Otherwise they keep the f32 kernels
//! (faster there than the widened bf16 ones; products of the bf16 inputs are exact in f32).
//!
//! With two directions and at least two threads, the directions run at the same time, one
//! thread each, in scratchpad lanes of their own (`BackwardScratch::lanes`): every step on one
//! thread, no barriers; direction 1 adds its layer-0 input gradient into `diff_src_layer`
//! once both are done.
//!
//! Known difference from oneDNN 3.13: without `src_iter`, oneDNN's `diff_weights_iter` is not
//! the gradient of its own forward pass (which starts from zeros): at T = 1 it equals
//! `h_0ᵀ·dA_0`, the first step's output standing in for the initial state. This library
//! computes the exact gradient (zero initial state, zero contribution); with `src_iter` given —
//! zeros or not — both agree.

pub mod cells;
pub mod exec;
pub mod gemm;
mod product;
pub mod scratch;
mod transposed;

use self::gemm::{gemm, gemm_tn, gemm_tn_bf16, Mat, TnPart};
use self::product::Product;
use self::scratch::BackwardScratch;
use self::transposed::Transposed;
pub use self::transposed::{pack_gate_weights, GateWeights};
use super::arena::Region;
use super::cells::{CellKind, Linear};
use super::problem::RnnProblem;
use super::seq_lengths::SeqOrder;
use super::views::{Strided, SyncPtr};
use super::workspace::WorkspaceLayout;
use crate::kernels::gemm::CHUNK;
use crate::kernels::gemm_bf16::Bf16Kernel;
use crate::kernels::Isa;
use crate::memory::TransposedLayout;
use crate::threading::{self, Team};
use crate::types::Direction;
use std::ops::Range;

/// Elements (`N·G·DHC`) of a step from which its element-wise part runs on several threads.
const ELEMENTWISE_PARALLEL_MIN: usize = 1 << 12;
/// Floats of packed transposed weights from which packing runs on several threads.
const PACK_PARALLEL_MIN: usize = 1 << 16;
/// Floating-point work of a per-step recurrent GEMM from which the steps run on a team.
const RECURRENT_PARALLEL_MIN_FLOPS: usize = 1 << 20;

/// Every tensor one backward execution touches, as raw views.
#[derive(Clone, Copy, Debug)]
pub struct BackwardTensors {
    /// `src_layer` `[T][N][SLC]`.
    pub src_layer: Strided<3>,
    /// AUGRU: `attention` `[T][N][1]`.
    pub attention: Option<Strided<3>>,
    /// `weights_layer` `[L][D][SLC][G][DHC]` (any strides, or packed transposed).
    pub weights_layer: GateWeights,
    /// `weights_iter` `[L][D][SIC][G][DHC]` (likewise).
    pub weights_iter: GateWeights,
    /// LSTM peephole `[L][D][3][DHC]`.
    pub peephole: Option<Strided<4>>,
    /// LSTM projection `[L][D][DHC][DIC]` (any strides).
    pub projection: Option<Strided<4>>,
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
    /// `diff_weights_projection` `[L][D][DHC][DIC]`.
    pub diff_projection: Option<Strided<4>>,
    /// `diff_bias` `[L][D][B][DHC]`.
    pub diff_bias: Option<Strided<4>>,
    /// The forward training workspace (read).
    pub workspace: *const u8,
    /// Scratchpad buffer (laid out by [`BackwardScratch`]).
    pub scratch: *mut u8,
}

/// What every step of a layer and direction reads besides the workspace.
struct StepOperands<'a> {
    /// `Uᵀ` ([`Backward::transposed`]).
    ut: &'a Transposed,
    /// LSTM with projection: `W_projᵀ` ([`Backward::projection_transposed`]), if usable.
    projection: Option<&'a Transposed>,
    /// The gradient from above ([`Backward::above`]).
    above: (*const f32, usize),
    /// Peephole weights `[3][DHC]` (zeros without).
    peephole: &'a [f32],
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
    /// Instruction set of the GEMM kernel and the element-wise parts (the pd checked that
    /// this CPU runs it).
    pub isa: Isa,
    /// Test mode (the `rnn_tparams` attribute): the linear activations of the forward pass.
    pub linear: Option<Linear>,
    /// Per-sample sequence lengths: the batch order of the forward pass (its workspace rows
    /// are in that order, see [`seq_lengths`](crate::rnn::seq_lengths)).
    pub order: Option<SeqOrder>,
}

// SAFETY: `Backward` only holds addresses; its parallel parts give each block of batch rows its
// own rows to write and only read what no block writes.
unsafe impl Sync for Backward<'_> {}
unsafe impl Send for Backward<'_> {}

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

/// `Σ_r a[r][j]` — or `Σ_r a[r][j]·w[r][j]` — for `j < width`, `a` with rows of `ld` floats and
/// `w` of its own stride, summed row after row (sequential reads).
///
/// # Safety
/// `rows` rows of `width` floats readable at both.
unsafe fn column_sums(
    a: *const f32,
    ld: usize,
    rows: usize,
    width: usize,
    w: Option<(*const f32, usize)>,
) -> Vec<f32> {
    let mut acc = vec![0f32; width];
    for r in 0..rows {
        let row = unsafe { slice(a.add(r * ld), width) };
        match w {
            Some((w, w_ld)) => {
                let wr = unsafe { slice(w.add(r * w_ld), width) };
                for ((s, v), x) in acc.iter_mut().zip(row).zip(wr) {
                    *s += v * x;
                }
            }
            None => {
                for (s, v) in acc.iter_mut().zip(row) {
                    *s += v;
                }
            }
        }
    }
    acc
}

/// Calls `f(g0, count, m)` over blocks of the gates `gates` of layer `l`, direction `d` of a
/// 5-D weights tensor, `m` being the block as the matrix `(i, (g − g0)·DHC + o)`: one block for
/// all the gates when consecutive gates follow each other at a uniform stride (dense `ldigo` and
/// `ldgoi`), else one block per gate.
fn gate_blocks(
    w: &Strided<5>,
    l: usize,
    d: usize,
    gates: Range<usize>,
    dhc: usize,
    mut f: impl FnMut(usize, usize, Mat),
) {
    let mat = |g: usize| Mat {
        ptr: w.at([l, d, 0, g, 0]),
        rs: w.strides[2],
        cs: w.strides[4],
    };
    if w.strides[3] == dhc as isize * w.strides[4] {
        f(gates.start, gates.len(), mat(gates.start));
    } else {
        for g in gates {
            f(g, 1, mat(g));
        }
    }
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
            // No batch row or hidden unit: zero gradients (written only in overwrite mode).
            if p.overwrites_diff_weights() && p.dhc > 0 {
                for (l, d) in (0..p.l).flat_map(|l| (0..p.d).map(move |d| (l, d))) {
                    unsafe { self.zero_diff_weights(l, d) };
                }
            }
            return;
        }
        let stack = |d: usize| {
            let lane = self.lane(d);
            for l in (0..p.l).rev() {
                unsafe { lane.layer(l, d) };
            }
        };
        if self.scratch.lanes == 2 {
            // The directions at the same time, one thread each: every step on one thread, no
            // barriers (LSTM bidirectional concat L2 T50 N16 C256 training, paired rounds: the
            // directions in turn were 1.5 % slower). Direction 1 adds its input gradient into
            // diff_src_layer once direction 0 has written it.
            threading::for_each(2, true, stack);
            unsafe { self.lane(1).add_input_gradient(1) };
        } else {
            (0..p.d).for_each(stack);
        }
    }

    /// This execution with direction `d`'s lane of the scratchpad.
    fn lane(&self, d: usize) -> Self {
        let offset = d % self.scratch.lanes * self.scratch.lane_bytes;
        Backward {
            tensors: BackwardTensors {
                scratch: self.tensors.scratch.wrapping_add(offset),
                ..self.tensors
            },
            ..*self
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

    /// The time and the user's batch row of row `r` at step `s` of direction `d`; `None` past
    /// the sample's length (rows are in the forward's batch order with sequence lengths).
    fn time_row(&self, d: usize, s: usize, r: usize) -> Option<(usize, usize)> {
        match &self.order {
            None => Some((self.time(d, s), r)),
            Some(o) => (s < o.len(r)).then(|| (o.time(self.problem, d, r, s), o.sample(r))),
        }
    }

    /// The user's batch row of row `r`.
    fn sample(&self, r: usize) -> usize {
        self.order.map_or(r, |o| o.sample(r))
    }

    /// Batch rows computed at step `s`: N, or those of the samples still running.
    fn active(&self, s: usize) -> usize {
        self.order.map_or(self.problem.n, |o| o.active(s))
    }

    /// One layer of one direction: the steps from last to first, then the merged GEMMs.
    unsafe fn layer(&self, l: usize, d: usize) {
        let p = self.problem;
        unsafe {
            if p.overwrites_diff_weights() {
                self.zero_diff_weights(l, d);
            }
            let above = self.above(l, d);
            self.init_state_grads(l, d);
            if let Some(o) = &self.order {
                self.zero_inactive(o);
            }
            let ut = self.transposed(&self.tensors.weights_iter, p.sic, l, d, self.scratch.ut);
            self.load_attention(d);
            let peephole: Vec<f32> = match self.tensors.peephole {
                Some(w) => (0..3 * p.dhc)
                    .map(|i| *w.at([l, d, i / p.dhc, i % p.dhc]))
                    .collect(),
                None => vec![0.0; 3 * p.dhc],
            };
            // The steps run on one team: the members split each phase (rows of the
            // element-wise part, columns of the recurrent GEMM) and meet at barriers — no
            // fork/join per phase.
            let cols = p.g * p.dhc;
            let parallel = p.n * cols >= ELEMENTWISE_PARALLEL_MIN
                || 2 * p.n * cols * self.scratch.ut_ld >= RECURRENT_PARALLEL_MIN_FLOPS;
            let above = (SyncPtr(above.0.cast_mut()), above.1);
            let proj = self.projection_transposed(l, d);
            let work = 2 * p.n * cols * self.scratch.ut_ld * p.t;
            threading::team(parallel.then(|| threading::join_wait(work)), |team| {
                let operands = StepOperands {
                    ut: &ut,
                    projection: proj.as_ref(),
                    above: (above.0.get(), above.1),
                    peephole: &peephole,
                };
                let steps = self.order.map_or(p.t, |o| o.steps());
                for s in (0..steps).rev() {
                    self.step(team, &operands, l, d, s);
                }
            });
            self.store_state_grads(l, d);
            self.merged_gemms(l, d);
        }
    }

    /// The gradient reaching each step's h from above, rows `(s, n)` of `.1` floats: the
    /// direction's part of `diff_dst_layer` (copied in step order) for the last layer, else what
    /// the layer above left in `below`.
    unsafe fn above(&self, l: usize, d: usize) -> (*const f32, usize) {
        let p = self.problem;
        let sc = self.scratch;
        if l + 1 < p.l {
            return (self.sc(sc.below).cast_const(), sc.xc);
        }
        let col = if p.direction == Direction::BidirectionalConcat {
            d * p.dic
        } else {
            0
        };
        if let Some((ptr, ld)) = self.in_step_order(&self.tensors.diff_dst_layer, d, col) {
            return (ptr.cast_const(), ld);
        }
        let dst = self.sc(sc.above);
        unsafe { self.gather_steps(&self.tensors.diff_dst_layer, d, col, p.dic, dst) };
        (dst.cast_const(), p.dic)
    }

    /// A `[T][N][C]` tensor from channel `col` as rows `(s, n)` of `.1` floats in the step order
    /// of direction `d`, when it already is (not reversed, time and batch dense, channels
    /// contiguous): read and written in place rather than through a copy.
    fn in_step_order(&self, v: &Strided<3>, d: usize, col: usize) -> Option<(*mut f32, usize)> {
        let st = v.strides;
        let dense = st[2] == 1 && st[1] >= 0 && st[0] == self.problem.n as isize * st[1];
        let in_order = !self.problem.is_reversed(d) && self.order.is_none();
        (dense && in_order).then(|| (v.at([0, 0, col]), st[1] as usize))
    }

    /// Copies `ch` channels from `col` of a `[T][N][C]` tensor into `dst` `[T][N][ch]` in the
    /// step order of direction `d` (zeros past a sample's length).
    unsafe fn gather_steps(
        &self,
        src: &Strided<3>,
        d: usize,
        col: usize,
        ch: usize,
        dst: *mut f32,
    ) {
        let p = self.problem;
        for s in 0..p.t {
            for r in 0..p.n {
                let from = self.time_row(d, s, r).map(|(t, b)| src.at([t, b, col]));
                for c in 0..ch {
                    unsafe {
                        *dst.add((s * p.n + r) * ch + c) =
                            from.map_or(0.0, |f| *f.offset(c as isize * src.strides[2]));
                    }
                }
            }
        }
    }

    /// With sequence lengths, before the steps of a layer: zeroes the rows of the steps' buffers
    /// no step writes (`dA`, LBR's `dA'`, GRU's `r ⊙ h_prev`, LSTMP's `dh` of rows past their
    /// sample's length), which the merged GEMMs read over all `T·N` rows, and AUGRU's attention
    /// gradient (only valid times are written).
    unsafe fn zero_inactive(&self, o: &SeqOrder) {
        let p = self.problem;
        let sc = self.scratch;
        let cols = p.g * p.dhc;
        for (region, width) in [
            (sc.da, cols),
            (sc.da_iter, cols),
            (sc.rh, p.dhc),
            (sc.dhp, p.dic),
        ] {
            if region.len == 0 {
                continue;
            }
            for s in 0..p.t {
                let from = (s * p.n + o.active(s)) * width;
                let to = (s + 1) * p.n * width;
                unsafe { std::ptr::write_bytes(self.sc(region).add(from), 0, to - from) };
            }
        }
        if let Some(v) = self.tensors.diff_attention {
            for (t, b) in (0..p.t).flat_map(|t| (0..p.n).map(move |b| (t, b))) {
                unsafe { *v.at([t, b, 0]) = 0.0 };
            }
        }
    }

    /// The state gradients before the last step: `diff_dst_iter(_c)` or zeros.
    unsafe fn init_state_grads(&self, l: usize, d: usize) {
        let p = self.problem;
        let t = &self.tensors;
        let hc = self.scratch.hc;
        let (dh_next, dc) = (self.sc(self.scratch.dh_next), self.sc(self.scratch.dc));
        unsafe {
            for r in 0..p.n {
                let b = self.sample(r);
                for c in 0..hc {
                    *dh_next.add(r * hc + c) = match t.diff_dst_iter {
                        Some(v) if c < p.dic => *v.at([l, d, b, c]),
                        _ => 0.0,
                    };
                }
                if p.cell.has_c_state() {
                    for c in 0..p.dhc {
                        *dc.add(r * p.dhc + c) =
                            t.diff_dst_iter_c.map_or(0.0, |v| *v.at([l, d, b, c]));
                    }
                }
            }
        }
    }

    /// AUGRU: the attention in the step order of direction `d`.
    unsafe fn load_attention(&self, d: usize) {
        if let Some(a) = self.tensors.attention {
            unsafe { self.gather_steps(&a, d, 0, 1, self.sc(self.scratch.att)) };
        }
    }

    /// What step `s` of layer `l`, direction `d` reads from the forward pass.
    unsafe fn step_state<'s>(
        &self,
        l: usize,
        d: usize,
        s: usize,
        peephole: &'s [f32],
    ) -> cells::StepState<'s> {
        let p = self.problem;
        let ws = self.workspace;
        let (n, dhc) = (p.n, p.dhc);
        let has_c = p.cell.has_c_state();
        unsafe {
            cells::StepState {
                n,
                dhc,
                gates: slice(
                    self.ws(ws.gates).add(ws.gates_index(l, d, s, 0)),
                    n * p.g * dhc,
                ),
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
                peephole,
                att: if self.tensors.attention.is_some() {
                    slice(self.sc(self.scratch.att).add(s * n), n)
                } else {
                    &[]
                },
                lbr: if ws.lbr.len > 0 {
                    slice(self.ws(ws.lbr).add(ws.lbr_index(l, d, s, 0)), n * dhc)
                } else {
                    &[]
                },
            }
        }
    }

    /// The transposed weights `w` of layer `l`, direction `d` (`k` input channels), `[G·DHC]`
    /// rows of `k` packed for the GEMM kernel — in place when given packed, else packed into
    /// `region`: `Uᵀ` for the per-step recurrent products, `Wᵀ` for the input gradient.
    ///
    /// # Safety
    /// `region` is one of the scratchpad's, large enough, and not in use by anything else.
    unsafe fn transposed(
        &self,
        w: &GateWeights,
        k: usize,
        l: usize,
        d: usize,
        region: Region,
    ) -> Transposed {
        let p = self.problem;
        let rows = p.g * p.dhc;
        let in_place = |ptr: *const f32| {
            let layout = TransposedLayout {
                l: p.l,
                d: p.d,
                i: k,
                g: p.g,
                o: p.dhc,
            };
            Transposed::in_place(ptr.wrapping_add(layout.matrix_offset(l, d)), rows, k)
        };
        if self.bf16_pairs() {
            // bf16 pairs for the bf16 GEMM, from either form (their values are bf16 already).
            let dst = self.sc(region);
            return match *w {
                GateWeights::Packed(ptr) => unsafe { in_place(ptr).pack_as_pairs(dst) },
                GateWeights::Plain(w) => {
                    let (base, st) = (SyncPtr(w.at([l, d, 0, 0, 0])), w.strides);
                    let value = move |j: usize, c: usize| {
                        let (g, o) = ((j / p.dhc) as isize, (j % p.dhc) as isize);
                        let at = g * st[3] + o * st[4] + c as isize * st[2];
                        unsafe { *base.get().wrapping_offset(at) }
                    };
                    unsafe { Transposed::pack_pairs(dst, rows, k, value) }
                }
            };
        }
        match w {
            GateWeights::Packed(ptr) => in_place(*ptr),
            GateWeights::Plain(w) => unsafe {
                pack_gate_weights(w, (l, d), (k, p.g, p.dhc), self.sc(region))
            },
        }
    }

    /// Whether the gate weights are packed as bf16 pairs for the bf16 GEMM: bf16 primitives
    /// whose kernels multiply many rows in bf16 (`Bf16Kernel::multiplies_in_bf16`). (Else the
    /// f32 kernels on f32 panels are faster than the widened bf16 ones, which convert `A` at
    /// every call.)
    fn bf16_pairs(&self) -> bool {
        self.problem.bf16_math && Bf16Kernel::for_isa(self.isa).multiplies_in_bf16()
    }

    /// Whether the input gradient runs on the steps' kernel over `Wᵀ` packed in column panels
    /// ([`Self::input_gradient`]): with AVX-512, and with bf16 pairs.
    fn packed_input_gradient(&self) -> bool {
        self.isa >= Isa::Avx512 || self.bf16_pairs()
    }

    /// Where the input gradient of layer `l`, direction `d` goes, rows `(s, n)` of `.1` floats,
    /// and whether that is `diff_src_layer` itself: layer 0's first direction goes straight
    /// there when it is in step order (with AVX-512, the packed kernel writes whole 32-column
    /// chunks: only if SLC is made of them), everything else into `below`.
    fn input_gradient_target(&self, l: usize, d: usize) -> ((*mut f32, usize), bool) {
        let p = self.problem;
        let packed = self.packed_input_gradient();
        let direct = (l == 0 && d == 0)
            .then(|| self.in_step_order(&self.tensors.diff_src_layer, d, 0))
            .flatten()
            .filter(|_| !packed || p.slc.is_multiple_of(CHUNK));
        let below = (self.sc(self.scratch.below), self.scratch.xc);
        (direct.unwrap_or(below), direct.is_some())
    }

    /// `out (+)= Σ_{g ∈ gates} src_g·U_gᵀ` (`+=` when `accumulate`) for the first `m` rows
    /// `[m][G·DHC]` at `src`, into rows of `ldc ≥ ut.width` floats at `out` (columns
    /// `SIC..ut.width` receive zeros), on `Uᵀ` ([`Self::transposed`]): the product, for the
    /// team to share.
    fn recurrent(
        &self,
        ut: &Transposed,
        (src, m): (*const f32, usize),
        gates: Range<usize>,
        (out, ldc): (*mut f32, usize),
        accumulate: bool,
    ) -> Product {
        let p = self.problem;
        let dhc = p.dhc;
        Product {
            src: src.wrapping_add(gates.start * dhc),
            lda: p.g * dhc,
            m,
            k: gates.len() * dhc,
            b: ut.rows(gates.start * dhc..gates.end * dhc),
            out,
            ldc,
            accumulate,
        }
    }

    /// This team member's share of `product`'s columns ([`product::run_part`]). No barrier.
    unsafe fn product_share(&self, team: &Team, product: &Product) {
        let parts = product::parts(product, team.size());
        if team.index() < parts {
            unsafe { product::run_part(self.isa, product, (team.index(), parts)) };
        }
    }

    /// The batch rows of step `s`'s element-wise phase this team member takes (of its
    /// [active](Self::active) rows): its share when a step has enough elements to split, else
    /// all of them for member 0.
    fn rows_share(&self, team: &Team, s: usize) -> Range<usize> {
        let p = self.problem;
        let n = self.active(s);
        if p.n * p.g * p.dhc >= ELEMENTWISE_PARALLEL_MIN {
            team.share(n)
        } else if team.index() == 0 {
            0..n
        } else {
            0..0
        }
    }

    /// Step `s` backwards, on a team: `dA` of the step (and GRU's `r ⊙ h_prev`, LBR's `dA'`),
    /// the state gradients for the previous step, AUGRU's attention gradient. The element-wise
    /// parts run on the members' batch rows, the recurrent GEMMs on their columns, with a
    /// barrier between phases and at the end.
    unsafe fn step(&self, team: &Team, op: &StepOperands, l: usize, d: usize, s: usize) {
        let p = self.problem;
        let sc = self.scratch;
        let (n, dhc, hc) = (p.n, p.dhc, sc.hc);
        let cols = p.g * dhc;
        let (ut, above) = (op.ut, op.above);
        unsafe {
            let dh_next = self.sc(sc.dh_next);
            let st = self.step_state(l, d, s, op.peephole);
            let da = SyncPtr(self.sc(sc.da).add(s * n * cols));
            let da_iter = SyncPtr(self.sc(sc.da_iter).wrapping_add(s * n * cols));
            if let Some(wp) = self.tensors.projection {
                self.project_back(team, l, d, s, &wp, op);
            }
            // Each member reads and writes its own rows (element-wise) or columns (GEMMs).
            self.elementwise(&st, s, above, self.rows_share(team, s), da, da_iter);
            team.barrier();
            let m = self.active(s);
            if let (Some(v), 0) = (self.tensors.diff_attention, team.index()) {
                let d_att = slice(self.sc(sc.d_att), sc.d_att.len);
                for (r, &a) in d_att.iter().enumerate().take(m) {
                    if let Some((t, b)) = self.time_row(d, s, r) {
                        *v.at([t, b, 0]) = a;
                    }
                }
            }
            let (da_m, da_iter_m) = ((da.get().cast_const(), m), (da_iter.get().cast_const(), m));
            let last = match p.cell {
                CellKind::VanillaRnn | CellKind::Lstm => {
                    self.recurrent(ut, da_m, 0..p.g, (dh_next, hc), false)
                }
                CellKind::Gru | CellKind::Augru => {
                    // g = dA_o·U_oᵀ, needed by every unit's dA_r (rows of `ut_ld` ≥ `ut.width`
                    // floats).
                    let g_ld = sc.ut_ld;
                    let g = self.sc(sc.g);
                    let o = self.recurrent(ut, da_m, 2..3, (g, g_ld), false);
                    self.product_share(team, &o);
                    team.barrier();
                    let rh = self.sc(sc.rh).add(s * n * dhc);
                    let rows = self.rows_share(team, s);
                    let (r0, nr) = (rows.start, rows.len());
                    cells::gru_reset(
                        self.isa,
                        &st.rows(rows),
                        (slice(g.add(r0 * g_ld), nr * g_ld), g_ld),
                        slice_mut(da.get().add(r0 * cols), nr * cols),
                        slice_mut(dh_next.add(r0 * hc), nr * hc),
                        hc,
                        slice_mut(rh.add(r0 * dhc), nr * dhc),
                    );
                    team.barrier();
                    self.recurrent(ut, da_m, 0..2, (dh_next, hc), true)
                }
                CellKind::LbrGru | CellKind::LbrAugru => {
                    self.recurrent(ut, da_iter_m, 0..p.g, (dh_next, hc), true)
                }
            };
            self.product_share(team, &last);
            team.barrier();
        }
    }

    /// Writes the gradient reaching the h of step `s` — from above plus from the next step —
    /// for the batch rows `rows`, `width` channels, into the rows of `dst` (`width` floats each,
    /// the first being row `rows.start`).
    ///
    /// # Safety
    /// `dst` valid for those rows; `above` holds `[T][N][·]` rows of `above.1` floats.
    unsafe fn incoming(
        &self,
        s: usize,
        above: (*const f32, usize),
        rows: Range<usize>,
        width: usize,
        dst: *mut f32,
    ) {
        let (n, hc) = (self.problem.n, self.scratch.hc);
        let (r0, nr) = (rows.start, rows.len());
        if nr == 0 {
            return;
        }
        // Each row's `width` floats, the last row's without its stride's tail.
        let span = |ld: usize| (nr - 1) * ld + width;
        unsafe {
            let (above, above_ld) = (above.0.add((s * n + r0) * above.1), above.1);
            let above = slice(above, span(above_ld));
            let next = slice(self.sc(self.scratch.dh_next).add(r0 * hc), span(hc));
            let dh = slice_mut(dst, nr * width);
            cells::incoming(
                self.isa.or_portable(),
                dh,
                nr,
                (above, above_ld),
                (next, hc),
            );
        }
    }

    /// LSTM with projection, step `s`: the gradient reaching h (`DIC` wide) into `dhp[s]`
    /// (kept for the projection's weight gradient), and the one reaching h̃,
    /// `dh̃ = dh·W_projᵀ`, into `dh`, where the cell's element-wise backward reads it. With
    /// `W_projᵀ` as a kernel operand ([`Self::projection_transposed`]) each member computes its
    /// columns of `dh̃`; else member 0 computes all of it with a strided GEMM. Ends with a
    /// barrier. `wp` is the projection weights, `op` gives the gradient from above and `W_projᵀ`.
    unsafe fn project_back(
        &self,
        team: &Team,
        l: usize,
        d: usize,
        s: usize,
        wp: &Strided<4>,
        op: &StepOperands,
    ) {
        let p = self.problem;
        let sc = self.scratch;
        let (above, wpt) = (op.above, op.projection);
        let m = self.active(s);
        unsafe {
            let dhp = self.sc(sc.dhp).add(s * p.n * p.dic);
            let dh = self.sc(sc.dh);
            if team.index() == 0 {
                self.incoming(s, above, 0..m, p.dic, dhp);
            }
            match wpt {
                Some(b) => {
                    team.barrier();
                    let product = Product {
                        src: dhp,
                        lda: p.dic,
                        m,
                        k: p.dic,
                        b: *b,
                        out: dh,
                        ldc: p.dhc,
                        accumulate: false,
                    };
                    self.product_share(team, &product);
                }
                None if team.index() == 0 => {
                    let w = Mat {
                        ptr: wp.at([l, d, 0, 0]),
                        rs: wp.strides[2],
                        cs: wp.strides[3],
                    };
                    let (a, c) = (Mat::rows(dhp, p.dic), Mat::rows(dh, p.dhc));
                    gemm(m, p.dhc, p.dic, a, w.t(), 0.0, c);
                }
                None => {}
            }
            team.barrier();
        }
    }

    /// `W_projᵀ` of layer `l`, direction `d` (`[DIC]` rows of `DHC`), packed into the `wpt`
    /// region for the GEMM kernel. `None` when `DHC` is not a multiple of 32 (the kernel
    /// writes whole 32-column chunks; `dh` rows are `DHC` wide).
    ///
    /// # Safety
    /// The `wpt` region is not in use by anything else.
    unsafe fn projection_transposed(&self, l: usize, d: usize) -> Option<Transposed> {
        let p = self.problem;
        let w = self.tensors.projection?;
        if !p.dhc.is_multiple_of(CHUNK) {
            return None;
        }
        // Row o of `W_projᵀ` is column o of `W_proj` `[DHC][DIC]`.
        let (base, st) = (SyncPtr(w.at([l, d, 0, 0])), w.strides);
        let row = move |o: usize| base.get().wrapping_offset(o as isize * st[3]).cast_const();
        let dst = self.sc(self.scratch.wpt);
        Some(unsafe { Transposed::pack(dst, p.dic, p.dhc, row, st[2]) })
    }

    /// The element-wise part of step `s` on the batch rows `rows`: the gradient reaching h
    /// (from above plus from the next step; with projection, `dh̃` is already in `dh`), then
    /// the cell's backward up to what needs a GEMM.
    unsafe fn elementwise(
        &self,
        st: &cells::StepState,
        s: usize,
        above: (*const f32, usize),
        rows: Range<usize>,
        da: SyncPtr<f32>,
        da_iter: SyncPtr<f32>,
    ) {
        let p = self.problem;
        let sc = self.scratch;
        let (dhc, hc) = (p.dhc, sc.hc);
        let cols = p.g * dhc;
        let (r0, nr) = (rows.start, rows.len());
        unsafe {
            let dh_next = self.sc(sc.dh_next);
            if self.tensors.projection.is_none() {
                self.incoming(s, above, rows.clone(), dhc, self.sc(sc.dh).add(r0 * dhc));
            }
            let dh = slice_mut(self.sc(sc.dh).add(r0 * dhc), nr * dhc);
            let st = st.rows(rows);
            let da = slice_mut(da.get().add(r0 * cols), nr * cols);
            let dh_prev = slice_mut(dh_next.add(r0 * hc), nr * hc);
            let d_att = if sc.d_att.len > 0 {
                slice_mut(self.sc(sc.d_att).add(r0), nr)
            } else {
                &mut []
            };
            match p.cell {
                CellKind::VanillaRnn => {
                    let act = p.activation.expect("vanilla RNN has an activation");
                    cells::vanilla(self.isa, act, self.linear.as_ref(), &st, dh, da);
                }
                CellKind::Lstm => {
                    let dc = slice_mut(self.sc(sc.dc).add(r0 * dhc), nr * dhc);
                    cells::lstm(self.isa, self.linear.as_ref(), &st, dh, dc, da);
                }
                CellKind::Gru | CellKind::Augru => {
                    cells::gru_update(self.isa, &st, dh, da, dh_prev, hc, d_att);
                }
                CellKind::LbrGru | CellKind::LbrAugru => {
                    cells::gru_update(self.isa, &st, dh, da, dh_prev, hc, d_att);
                    let da_iter = slice_mut(da_iter.get().add(r0 * cols), nr * cols);
                    cells::lbr_reset(self.isa, &st, da, da_iter);
                }
            }
        }
    }

    /// `diff_src_iter(_c)` of layer `l`, direction `d`: the state gradients after the first
    /// step (with no step, `diff_dst_iter` passed through).
    unsafe fn store_state_grads(&self, l: usize, d: usize) {
        let p = self.problem;
        let t = &self.tensors;
        let hc = self.scratch.hc;
        let (dh_next, dc) = (self.sc(self.scratch.dh_next), self.sc(self.scratch.dc));
        unsafe {
            if let Some(v) = t.diff_src_iter {
                for r in 0..p.n {
                    for c in 0..p.sic {
                        *v.at([l, d, self.sample(r), c]) = *dh_next.add(r * hc + c);
                    }
                }
            }
            if let Some(v) = t.diff_src_iter_c {
                for r in 0..p.n {
                    for c in 0..p.dhc {
                        *v.at([l, d, self.sample(r), c]) = *dc.add(r * p.dhc + c);
                    }
                }
            }
        }
    }

    /// The GEMMs and reductions over the `T·N` rows of every step: `dW += xᵀ·dA`,
    /// `dU += h_prevᵀ·dA'` (GRU: `(r ⊙ h_prev)ᵀ·dA_o` for `o`), `db += Σ dA` (LBR: the `u'` row
    /// from `dA'`), the peephole sums, and the input gradient `dA·Wᵀ` into `below` (layer 0:
    /// into `diff_src_layer`, summed over the directions).
    unsafe fn merged_gemms(&self, l: usize, d: usize) {
        let p = self.problem;
        let t = &self.tensors;
        let sc = self.scratch;
        let ws = self.workspace;
        let dhc = p.dhc;
        let cols = p.g * dhc;
        let rows = p.t * p.n;
        let k_in = p.layer_input_channels(l);
        unsafe {
            // Layer input by step: src_layer (copied in step order) or the h of the layer below.
            let x = if l == 0 {
                match self.in_step_order(&t.src_layer, d, 0) {
                    Some((ptr, ld)) => Mat::rows(ptr, ld),
                    None => {
                        let dst = self.sc(sc.x);
                        self.gather_steps(&t.src_layer, d, 0, p.slc, dst);
                        Mat::rows(dst, p.slc)
                    }
                }
            } else {
                Mat::rows(self.ws(ws.h).add(ws.h_index(l - 1, d, 1, 0)), ws.hc)
            };
            let da = self.sc(sc.da).cast_const();
            let da_iter = if sc.da_iter.len > 0 {
                self.sc(sc.da_iter).cast_const()
            } else {
                da
            };
            let block = |src: *const f32, g0: usize| Mat::rows(src, cols).at(0, g0 * dhc);
            // (B block, gates, product) of every weight gradient; products sharing a B block
            // run together, so B is packed once for both dW and dU.
            let mut jobs: Vec<(*const f32, usize, TnPart)> = Vec::new();
            gate_blocks(&t.diff_weights_layer, l, d, 0..p.g, dhc, |g0, ng, dw| {
                let (m, a, c) = (k_in, x, dw);
                jobs.push((block(da, g0).ptr, ng, TnPart { m, a, c }));
            });
            let h_prev = Mat::rows(self.ws(ws.h).add(ws.h_index(l, d, 0, 0)), ws.hc);
            let gru = matches!(p.cell, CellKind::Gru | CellKind::Augru);
            let split = if gru { 2 } else { p.g };
            for (gates, a) in [
                (0..split, h_prev),
                (split..p.g, Mat::rows(self.sc(sc.rh), dhc)),
            ] {
                gate_blocks(&t.diff_weights_iter, l, d, gates, dhc, |g0, ng, c| {
                    let m = p.sic;
                    jobs.push((block(da_iter, g0).ptr, ng, TnPart { m, a, c }));
                });
            }
            let pack = (self.sc(sc.pack), sc.pack.len);
            // db = Σ dA: summed while the product over all of dA packs it, if there is one.
            let mut sums = vec![0f32; cols];
            let mut summed = false;
            for group in jobs.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
                let (b, ng) = (Mat::rows(group[0].0, cols), group[0].1);
                let parts: Vec<TnPart> = group.iter().map(|j| j.2).collect();
                let sum = t.diff_bias.is_some() && !summed && (b.ptr, ng) == (da, p.g);
                summed |= sum;
                let mut sums = sum.then_some(&mut sums[..]);
                let (n, isa) = (ng * dhc, self.isa);
                let bf16 = p.bf16_math
                    && gemm_tn_bf16(isa, rows, n, b, &parts, pack.0, pack.1, sums.as_deref_mut());
                if !bf16 {
                    gemm_tn(isa, rows, n, b, &parts, pack.0, pack.1, sums);
                }
            }
            if let Some(b) = t.diff_bias {
                let add_row = |sums: &[f32], row: usize| {
                    for (o, v) in sums.iter().enumerate() {
                        *b.at([l, d, row, o]) += v;
                    }
                };
                if !summed {
                    sums = column_sums(da, cols, rows, cols, None);
                }
                for g in 0..p.g {
                    add_row(&sums[g * dhc..][..dhc], g);
                }
                if p.cell.bias_gates() > p.g {
                    add_row(
                        &column_sums(da_iter.add(2 * dhc), cols, rows, dhc, None),
                        p.g,
                    );
                }
            }
            if let Some(dwp) = t.diff_projection {
                // dW_proj += h̃ᵀ·dh over every step.
                let ht = Mat::rows(self.ws(ws.ht).add(ws.ht_index(l, d, 0, 0)), dhc);
                let dhp = Mat::rows(self.sc(sc.dhp), p.dic);
                let dw = Mat {
                    ptr: dwp.at([l, d, 0, 0]),
                    rs: dwp.strides[2],
                    cs: dwp.strides[3],
                };
                let part = [TnPart {
                    m: dhc,
                    a: ht,
                    c: dw,
                }];
                gemm_tn(self.isa, rows, p.dic, dhp, &part, pack.0, pack.1, None);
            }
            if let Some(dp) = t.diff_peephole {
                let c = self.ws(ws.c).add(ws.c_index(l, d, 0, 0));
                // Rows i, f pair with c_prev (slots 0..T), row o with the new c (slots 1..T+1).
                for (row, gate, shift) in [(0, 0, 0), (1, 1, 0), (2, 3, p.n * dhc)] {
                    let w = Some((c.add(shift), dhc));
                    let sums = column_sums(da.add(gate * dhc), cols, rows, dhc, w);
                    for (o, v) in sums.iter().enumerate() {
                        *dp.at([l, d, row, o]) += v;
                    }
                }
            }
            // Input gradient dA·Wᵀ into `below` (read by the layer below) or diff_src_layer.
            let ((below, below_ld), direct) = self.input_gradient_target(l, d);
            self.input_gradient(l, d, da, Mat::rows(below, below_ld));
            let deferred = d == 1 && sc.lanes == 2;
            if l == 0 && !direct && !deferred {
                self.add_input_gradient(d);
            }
        }
    }

    /// The input gradient `dA·Wᵀ` of layer `l`, direction `d` over the `T·N` rows of `da`
    /// (`[T·N][G·DHC]`) into `out`: with AVX-512 the steps' kernel on `Wᵀ` in column panels
    /// ([`Self::transposed`]), the columns shared by the library's threads (LSTM T=1 N=1
    /// C=512 training: 1.29 → 0.62 ms against `matrixmultiply`, which packs `Wᵀ` at every
    /// call); else strided GEMMs by gate blocks of plain weights, or by column panels of packed
    /// transposed ones.
    ///
    /// # Safety
    /// `da` and `out` hold `T·N` rows (with AVX-512, `out` is [`Self::input_gradient_target`]:
    /// rows wide enough for whole 32-column chunks); nothing else writes `out` meanwhile.
    unsafe fn input_gradient(&self, l: usize, d: usize, da: *const f32, out: Mat) {
        let p = self.problem;
        let (rows, dhc, cols) = (p.t * p.n, p.dhc, p.g * p.dhc);
        let k_in = p.layer_input_channels(l);
        if self.packed_input_gradient() {
            let wt = unsafe {
                self.transposed(&self.tensors.weights_layer, k_in, l, d, self.scratch.wt)
            };
            let product = Product {
                src: da,
                lda: cols,
                m: rows,
                k: cols,
                b: wt,
                out: out.ptr.cast_mut(),
                ldc: out.rs as usize,
                accumulate: false,
            };
            let parts = product::parts(&product, threading::num_threads());
            // SAFETY: the parts write disjoint columns of `out`; the operands are as the
            // per-step products' (same target, same transposed weights).
            let flops = 2 * rows * cols * product.b.width;
            threading::crew_for_each(parts, parts > 1, flops, |i| unsafe {
                product::run_part(self.isa, &product, (i, parts))
            });
            return;
        }
        let block = |g0: usize| Mat::rows(da, cols).at(0, g0 * dhc);
        unsafe {
            match self.tensors.weights_layer {
                GateWeights::Plain(w) => {
                    let mut first = true;
                    gate_blocks(&w, l, d, 0..p.g, dhc, |g0, ng, w| {
                        let beta = if first { 0.0 } else { 1.0 };
                        first = false;
                        gemm(rows, k_in, ng * dhc, block(g0), w.t(), beta, out);
                    });
                }
                packed @ GateWeights::Packed(_) => {
                    // No scratch region: packed weights are read in place.
                    let wt = self.transposed(&packed, k_in, l, d, Region::default());
                    for pnl in 0..wt.panels() {
                        let c = wt.columns(pnl);
                        let n = k_in.saturating_sub(c.start).min(c.len());
                        let b = wt.panel(pnl);
                        let b = Mat::rows(b.ptr, b.ld);
                        gemm(rows, n, cols, block(0), b, 0.0, out.at(0, c.start));
                    }
                }
            }
        }
    }
    /// Layer 0's input gradient of direction `d`, left in `below`, into `diff_src_layer`:
    /// stored by direction 0, added by direction 1 (zeros past a sample's length).
    unsafe fn add_input_gradient(&self, d: usize) {
        let p = self.problem;
        let ds = &self.tensors.diff_src_layer;
        let ((below, ld), _) = self.input_gradient_target(0, d);
        for s in 0..p.t {
            for r in 0..p.n {
                // Past its length, a sample's step s stands for its time s (padding).
                let (dst, src) = match self.time_row(d, s, r) {
                    Some((t, b)) => (
                        ds.at([t, b, 0]),
                        Some(below.wrapping_add((s * p.n + r) * ld)),
                    ),
                    None if d == 0 => (ds.at([s, self.sample(r), 0]), None),
                    None => continue,
                };
                for c in 0..p.slc {
                    unsafe {
                        let v = dst.offset(c as isize * ds.strides[2]);
                        let add = src.map_or(0.0, |src| *src.add(c));
                        *v = if d == 0 { 0.0 } else { *v } + add;
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
            for (v, rows, cols) in [
                (t.diff_bias, p.cell.bias_gates(), p.dhc),
                (t.diff_peephole, 3, p.dhc),
                (t.diff_projection, p.dhc, p.dic),
            ] {
                if let Some(v) = v {
                    for g in 0..rows {
                        for o in 0..cols {
                            *v.at([l, d, g, o]) = 0.0;
                        }
                    }
                }
            }
        }
    }
}
