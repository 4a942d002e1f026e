//! The forward driver: runs every layer of every direction over the whole sequence.
//!
//! Composition (reference §a.15): each direction runs its own stack of layers (layer l reads
//! layer l−1 of the same direction; layer 0 of both reads `src_layer`); the last layer's outputs
//! are written (concat: side by side) or added (sum) into `dst_layer`. A reversed direction walks
//! time from T−1 to 0; internally everything is indexed by step `s`, and only the user tensors
//! `src_layer`/`dst_layer` are read through time-reversed views — nothing is copied.
//!
//! Per layer and direction:
//! 1. the **layer GEMM** `x·W + b`, merged for a chunk of steps at once (all `Tc·N` rows) into the
//!    gates scratch in packed panel order — or, for large batches with cache-resident weights,
//!    fused into step 2's tiles (see [`ScratchLayout`]);
//! 2. per step, work items of (batch block × 32-unit panel; two panels for a vanilla RNN whose
//!    weights stay in L2, see `Forward::panel_run`): the **iteration GEMM** `h_prev·U`
//!    accumulated onto that tile (with the layer GEMM fused, `x·W + h_prev·U` as one GEMM of
//!    two terms), then the cell's fused **post-GEMM** on the same tile while it is in cache;
//!    h goes straight to where it is read next (the next step and next layer, or the user's
//!    `dst_layer`), c is updated in place (inference) or into the workspace;
//! 3. the final states go to `dst_iter` / `dst_iter_c` (in inference the last step writes
//!    `dst_iter_c` itself, and the first reads `src_iter_c` in place).
//!
//! LSTM with projection: the post-GEMM writes h̃ (DHC wide) to a buffer of its own (scratch, or
//! the workspace in training); after a barrier (a projected channel needs every unit of h̃) a
//! **projection GEMM** `h̃·R` over all batch rows of the step, per (batch block × 32-channel
//! panel of DIC) item, produces h in a scratch tile (the GEMM writes whole panels), copied from
//! there to where h goes without projection.
//!
//! The whole pass runs as one team of the library's pool threads (one fork/join per execution;
//! phases separated by spin barriers; items split statically, so a thread keeps the same weight
//! panels step after step; when that locality is lost anyway, a member that finishes early
//! takes items others have not started, see `items::balanced`), or on the calling thread
//! alone when steps are tiny. When the weights are small, each member steps its own batch
//! rows instead, without barriers (`Forward::split_by_batch`, `items`). With two directions
//! and at least two threads, the directions run at the same time on a half of the team each
//! (their scratch regions are separate, see `ScratchLayout::lane`); a bidirectional sum then
//! adds the second direction into `dst_layer` once both are done. Nothing is allocated, packed
//! or copied per step.

use super::arena::Region;
use super::cells::{self, gru, lbr_gru, lstm, vanilla, CellKind, HDest, Linear, TileRows};
use super::items::{self, next_item, PhaseItems};
use super::problem::RnnProblem;
use super::schedule;
use super::scratch::{l2_bytes, ScratchLayout};
use super::seq_lengths::SeqOrder;
use super::views::{SeqView, Strided};
use super::weights::{self, PackedWeights};
use super::workspace::WorkspaceLayout;
use crate::kernels::gemm::{self, Fetch, Init, Panel, Term};
use crate::kernels::gemm_bf16;
use crate::kernels::Isa;
use crate::memory::packed::PANEL;
use crate::threading::{self, Team};
use crate::types::Direction;

/// GEMM work (flops) of one step below which the whole pass runs on one thread.
const PARALLEL_MIN_FLOPS: usize = 1 << 18;
/// Rows of one layer-GEMM work item (8 register tiles of 13 rows).
const LAYER_ROW_BLOCK: usize = 104;
/// The same on AMX-BF16 tiles: 7 tiles of 16 rows.
const LAYER_ROW_BLOCK_AMX: usize = 112;
/// Largest batch block of one step work item.
const STEP_MAX_BATCH_BLOCK: usize = 64;
/// Smallest batch block when batch rows are split to feed more threads.
const STEP_MIN_BATCH_BLOCK: usize = 8;

pub use super::items::batch_split_passes;

/// Every tensor one forward execution touches, as raw views.
#[derive(Clone, Copy, Debug)]
pub struct ForwardTensors {
    /// `src_layer` `[T][N][SLC]`.
    pub src_layer: Strided<3>,
    /// `src_layer` holds bf16 pairs, its view counting 4-byte words ([`Strided::pairs`]): the
    /// layer GEMM reads it as it is, rather than an f32 copy.
    pub src_layer_pairs: bool,
    /// `src_iter` `[L][D][N][SIC]`.
    pub src_iter: Option<Strided<4>>,
    /// `src_iter_c` `[L][D][N][DHC]`.
    pub src_iter_c: Option<Strided<4>>,
    /// `dst_layer` `[T][N][DLC]`.
    pub dst_layer: Strided<3>,
    /// `dst_iter` `[L][D][N][DIC]`.
    pub dst_iter: Option<Strided<4>>,
    /// `dst_iter_c` `[L][D][N][DHC]`.
    pub dst_iter_c: Option<Strided<4>>,
    /// Packed layer weights.
    pub weights_layer: PackedWeights,
    /// Packed recurrent weights.
    pub weights_iter: PackedWeights,
    /// Packed projection weights (LSTMP), `[L][D][DHC][DIC]` with one gate.
    pub weights_projection: Option<PackedWeights>,
    /// Staged bias `[L][D][P·G·32]`.
    pub bias: *const f32,
    /// Linear-before-reset cells: the staged bias of the recurrent product `[L][D][P·G·32]`
    /// (`b_u'` on the `o` gate, zeros elsewhere); null otherwise.
    pub bias_rec: *const f32,
    /// AUGRU: `attention` `[T][N][1]`.
    pub attention: Option<Strided<3>>,
    /// LSTM peephole weights staged `[L][D][P·3·32]`, or null.
    pub peephole: *const f32,
    /// Scratchpad buffer (laid out by [`ScratchLayout`]).
    pub scratch: *mut u8,
    /// Workspace buffer (training), or null.
    pub workspace: *mut u8,
}

/// One forward execution.
pub struct Forward<'a> {
    /// The problem.
    pub problem: &'a RnnProblem,
    /// Scratchpad layout.
    pub scratch: &'a ScratchLayout,
    /// Workspace layout (training).
    pub workspace: Option<&'a WorkspaceLayout>,
    /// Kernels to use.
    pub isa: Isa,
    /// Test mode (the `rnn_tparams` attribute): linear activations.
    pub linear: Option<Linear>,
    /// The tensors.
    pub tensors: ForwardTensors,
    /// Per-sample sequence lengths: the batch order (the tensors then hold the gathered
    /// `src_iter`, `src_iter_c` and attention, see [`seq_lengths`](super::seq_lengths)).
    pub order: Option<SeqOrder>,
}

// SAFETY: `Forward` only holds addresses; `run` hands each work item disjoint output rows and
// only reads what no item writes during the same phase.
unsafe impl Sync for Forward<'_> {}
unsafe impl Send for Forward<'_> {}

/// The views of one layer of one direction.
#[derive(Clone, Copy, Debug)]
struct Pass {
    l: usize,
    d: usize,
    /// Input rows by step.
    x: SeqView,
    /// `x` holds bf16 pairs ([`ForwardTensors::src_layer_pairs`]).
    x_pairs: bool,
    /// Input channels (K of the layer GEMM).
    k_layer: usize,
    /// Steps split by batch ([`Forward::split_by_batch`], decided once for the pass).
    by_batch: bool,
    /// Whether a member's weights of a step stream from beyond its L2 ([`streamed`], decided
    /// once for the pass).
    step_streamed: bool,
    /// Initial hidden state (row `(0, n)`), `None` for zeros.
    h_init: Option<SeqView>,
    /// Hidden state after step `s` at row `(s, n)`.
    h_seq: SeqView,
    /// Workspace slot 0 of h (training): the initial state is stored there.
    h_ws_init: Option<SeqView>,
    /// Second destination of the last layer's h (`dst_layer`).
    h_extra: Option<SeqView>,
    /// Add into `h_extra` rather than store.
    extra_add: bool,
    /// Cell state before step `s` at row `(s, n)`, after it at `(s+1, n)`.
    c_all: SeqView,
    /// Inference with channel-contiguous state tensors: the first step reads `src_iter_c`
    /// (`c_src`, `None` for zeros) and the last writes `dst_iter_c` (`c_dst`, if given) in
    /// place of `c_all`, which then is neither filled nor copied out (GNMT decoder T=1 N=128,
    /// `perf`: copies 1.37 % → 0.38 % of the samples).
    c_direct: bool,
    /// See `c_direct`.
    c_src: Option<SeqView>,
    /// See `c_direct`.
    c_dst: Option<SeqView>,
    /// Post-activation gates of step `s` at row `(s, n)` (training).
    ws_gates: Option<SeqView>,
    /// Linear-before-reset training: `h_prev·U_o + b_u'` of step `s` at row `(s, n)`.
    ws_lbr: Option<SeqView>,
    /// AUGRU: the attention of step `s`, row `n` at `(s, n)`.
    attention: Option<SeqView>,
    /// LSTMP: h̃ (before projection) of step `s` at row `(s, n)`.
    ht: Option<SeqView>,
}

/// Which part of a cell's post-GEMM a step phase runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The only part (GRU: the first, before the `(r ⊙ h_prev)·U_o` GEMM).
    First,
    /// GRU: the second part.
    Second,
}

/// Whether `bytes` of weights shared by `members` fill each member's L2 or more (which also
/// holds the activations): its GEMMs then stream their `B` ([`gemm::Fetch::streamed`]).
fn streamed(bytes: usize, members: usize) -> bool {
    bytes >= members.max(1) * l2_bytes()
}

/// Rows `n0..` of a view at step `s`, from unit (channel) `u0`.
fn tile_at(v: &SeqView, s: usize, n0: usize, u0: usize) -> TileRows {
    TileRows {
        ptr: v.row(s, n0).wrapping_add(u0),
        stride: v.n_stride,
    }
}

/// Copies `len` floats, or writes zeros when `src` is `None`.
///
/// # Safety
/// Both ranges valid; they may be equal but must not partially overlap.
unsafe fn copy_or_zero(dst: *mut f32, src: Option<*const f32>, len: usize) {
    unsafe {
        match src {
            Some(s) if s != dst.cast_const() => std::ptr::copy_nonoverlapping(s, dst, len),
            Some(_) => {}
            None => std::ptr::write_bytes(dst, 0, len),
        }
    }
}

impl Forward<'_> {
    /// Runs the whole forward pass.
    ///
    /// # Safety
    /// The tensors must be valid for the problem (the pd's descriptors), the scratchpad and
    /// workspace buffers at least as large as their layouts, and outputs must not overlap inputs.
    pub unsafe fn run(&self) {
        let p = self.problem;
        if p.is_empty() {
            return;
        }
        // One team for the whole pass; a single thread when steps are tiny.
        // Flops only decide the threading: saturating is exact for the comparisons.
        let proj = if p.with_projection {
            p.dhc.saturating_mul(p.dic)
        } else {
            0
        };
        let row_flops = (p.sic.saturating_add(p.slc))
            .saturating_mul(self.scratch.gates_width)
            .saturating_add(proj);
        let step_flops = row_flops.saturating_mul(2 * p.n);
        let join_wait = (step_flops >= PARALLEL_MIN_FLOPS).then(|| {
            let pass_flops = [p.t, p.l, p.d]
                .iter()
                .fold(step_flops, |f, &k| f.saturating_mul(k));
            threading::join_wait(pass_flops)
        });
        threading::team(join_wait, |team| {
            if let Some(o) = &self.order {
                let x = |d| unsafe { self.seq_input(d) };
                unsafe { o.gather_input(team, p, self.tensors.src_layer, x) };
                team.barrier();
            }
            let stack = |team: &Team, d: usize| {
                for l in 0..p.l {
                    unsafe { self.layer(team, l, d) };
                }
            };
            schedule::directions(team, p.d, self.scratch.lanes, stack);
            if self.sum_deferred() {
                unsafe { self.add_second_direction(team) };
            }
            if let Some(o) = &self.order {
                let h = |d| unsafe { self.h_output(p.l - 1, d) };
                unsafe { o.scatter_output(team, p, h, self.tensors.dst_layer) };
            }
        });
    }

    /// Whether direction 1 of a bidirectional sum adds its last layer into `dst_layer` after
    /// both directions are done (they run at the same time), rather than during its pass
    /// (with sequence lengths, `SeqOrder::scatter_output` sums).
    fn sum_deferred(&self) -> bool {
        self.problem.direction == Direction::BidirectionalSum
            && self.scratch.lanes == 2
            && self.order.is_none()
    }

    /// With sequence lengths, the gathered `src_layer` of direction `d` by step.
    unsafe fn seq_input(&self, d: usize) -> SeqView {
        let layout = self.scratch.seq_lengths.as_ref().expect("sequence lengths");
        unsafe { layout.x_view(self.problem, self.tensors.scratch, d) }
    }

    /// Steps of each layer: T, or the longest sequence length.
    fn steps(&self) -> usize {
        self.order.map_or(self.problem.t, |o| o.steps())
    }

    /// Batch rows computed at step `s`: N, or those of the samples still running.
    fn active(&self, s: usize) -> usize {
        self.order.map_or(self.problem.n, |o| o.active(s))
    }

    /// Bidirectional sum with concurrent directions: `dst_layer += h` of direction 1's last
    /// layer (this member's steps), once both directions are done.
    unsafe fn add_second_direction(&self, team: &Team) {
        let p = self.problem;
        unsafe {
            let (h, dst) = (self.h_output(p.l - 1, 1), self.dst_view(1));
            for s in team.share(p.t) {
                for n in 0..p.n {
                    let (from, to) = (h.row(s, n), dst.row(s, n));
                    for c in 0..p.dic {
                        *to.add(c) += *from.add(c);
                    }
                }
            }
        }
    }

    /// This pass's copy of a per-pass scratchpad region.
    unsafe fn lane(&self, region: &Region, d: usize) -> *mut f32 {
        unsafe { self.scratch.lane(region, self.tensors.scratch, d) }
    }

    /// Columns of a work item's panel run ([`Self::panel_run`] packed panels).
    fn width(&self) -> usize {
        self.problem.g * PANEL * self.panel_run()
    }

    /// Work items' panel runs per matrix.
    fn panels(&self) -> usize {
        self.packed_panels().div_ceil(self.panel_run())
    }

    /// Packed panels per work item ([`ScratchLayout::panel_run`]).
    fn panel_run(&self) -> usize {
        self.scratch.panel_run
    }

    /// Packed 32-unit panels per matrix.
    fn packed_panels(&self) -> usize {
        self.problem.dhc.div_ceil(PANEL)
    }

    /// The packed panels of item panel run `panel`: (first, count).
    fn packed_of(&self, panel: usize) -> (usize, usize) {
        let first = panel * self.panel_run();
        (first, self.panel_run().min(self.packed_panels() - first))
    }

    /// `dst_layer` or `src_layer` rows of direction `d` by step (time-reversed for reversed
    /// directions), starting at channel `col`.
    fn time_view(&self, t: Strided<3>, d: usize, col: usize) -> SeqView {
        let p = self.problem;
        let (st, sn) = (t.strides[0], t.strides[1]);
        if p.is_reversed(d) {
            SeqView {
                base: t.at([p.t.saturating_sub(1), 0, col]),
                s_stride: -st,
                n_stride: sn,
            }
        } else {
            SeqView {
                base: t.at([0, 0, col]),
                s_stride: st,
                n_stride: sn,
            }
        }
    }

    fn dst_view(&self, d: usize) -> SeqView {
        let p = self.problem;
        let col = if p.direction == Direction::BidirectionalConcat && d == 1 {
            p.dic
        } else {
            0
        };
        self.time_view(self.tensors.dst_layer, d, col)
    }

    /// Where the hidden states of layer `l`, direction `d` live, by step.
    unsafe fn h_output(&self, l: usize, d: usize) -> SeqView {
        let p = self.problem;
        unsafe {
            match self.workspace {
                Some(ws) => SeqView::dense(
                    ws.h.ptr(self.tensors.workspace).add(ws.h_index(l, d, 1, 0)),
                    p.n,
                    ws.hc,
                ),
                None => match ScratchLayout::inference_h_slot(p, l, d) {
                    Some(slot) => {
                        let base = self
                            .scratch
                            .h_slots_of(self.tensors.scratch, d)
                            .add(slot * p.t * p.n * p.dic);
                        SeqView::dense(base, p.n, p.dic)
                    }
                    None => self.dst_view(d),
                },
            }
        }
    }

    unsafe fn pass(&self, l: usize, d: usize) -> Pass {
        let p = self.problem;
        let t = &self.tensors;
        unsafe {
            let x = if l == 0 {
                match &self.order {
                    Some(_) => self.seq_input(d),
                    None => self.time_view(t.src_layer, d, 0),
                }
            } else {
                self.h_output(l - 1, d)
            };
            let h_seq = self.h_output(l, d);
            let last = l + 1 == p.l;
            let h_extra = (last
                && self.order.is_none()
                && !(d == 1 && self.sum_deferred())
                && (self.workspace.is_some()
                    || ScratchLayout::inference_h_slot(p, l, d).is_some()))
            .then(|| self.dst_view(d));
            let (c_all, h_ws_init, ws_gates) = match self.workspace {
                Some(ws) => {
                    let base = t.workspace;
                    (
                        SeqView::dense(ws.c.ptr(base).add(ws.c_index(l, d, 0, 0)), p.n, p.dhc),
                        Some(SeqView::dense(
                            ws.h.ptr(base).add(ws.h_index(l, d, 0, 0)),
                            p.n,
                            ws.hc,
                        )),
                        Some(SeqView::dense(
                            ws.gates.ptr(base).add(ws.gates_index(l, d, 0, 0)),
                            p.n,
                            p.g * p.dhc,
                        )),
                    )
                }
                None => {
                    let c = self.lane(&self.scratch.c, d);
                    (
                        SeqView {
                            base: c,
                            s_stride: 0,
                            n_stride: p.dhc as isize,
                        },
                        None,
                        None,
                    )
                }
            };
            Pass {
                l,
                d,
                x,
                x_pairs: l == 0 && t.src_layer_pairs && self.order.is_none(),
                k_layer: p.layer_input_channels(l),
                by_batch: false,
                step_streamed: false,
                h_init: t.src_iter.map(|s| SeqView::state(&s, l, d)),
                h_seq,
                h_ws_init,
                h_extra,
                extra_add: p.direction == Direction::BidirectionalSum && d == 1,
                c_all,
                c_direct: self.workspace.is_none()
                    && self.order.is_none()
                    && p.cell.has_c_state()
                    && [t.src_iter_c, t.dst_iter_c]
                        .iter()
                        .all(|v| v.is_none_or(|v| v.strides[3] == 1)),
                c_src: t.src_iter_c.map(|v| SeqView::state(&v, l, d)),
                c_dst: t.dst_iter_c.map(|v| SeqView::state(&v, l, d)),
                ws_gates,
                ws_lbr: self.workspace.filter(|ws| ws.lbr.len > 0).map(|ws| {
                    SeqView::dense(
                        ws.lbr.ptr(t.workspace).add(ws.lbr_index(l, d, 0, 0)),
                        p.n,
                        p.dhc,
                    )
                }),
                attention: t.attention.map(|a| self.time_view(a, d, 0)),
                ht: p.with_projection.then(|| match self.workspace {
                    Some(ws) => SeqView::dense(
                        ws.ht.ptr(t.workspace).add(ws.ht_index(l, d, 0, 0)),
                        p.n,
                        p.dhc,
                    ),
                    None => SeqView {
                        base: self.lane(&self.scratch.ht, d),
                        s_stride: 0,
                        n_stride: p.dhc as isize,
                    },
                }),
            }
        }
    }

    /// One layer of one direction, by every member of the team.
    unsafe fn layer(&self, team: &Team, l: usize, d: usize) {
        let p = self.problem;
        unsafe {
            let mut pass = self.pass(l, d);
            pass.by_batch = self.split_by_batch(team, &pass);
            let step_members = if pass.by_batch { 1 } else { team.size() };
            pass.step_streamed = streamed(self.step_weight_bytes(&pass), step_members);
            for n in team.share(p.n) {
                if p.cell.has_c_state() && !(pass.c_direct && p.t > 0) {
                    copy_or_zero(
                        pass.c_all.row(0, n),
                        pass.c_src.map(|v| v.row(0, n).cast_const()),
                        p.dhc,
                    );
                }
                if self.lbr_summed() {
                    // The `u, r` columns of `rec`, never written (see `step`): zeros.
                    let rec = self
                        .lane(&self.scratch.rec, d)
                        .add(n * self.scratch.gates_ld);
                    std::ptr::write_bytes(rec, 0, self.scratch.gates_width);
                }
                if let Some(ws) = pass.h_ws_init {
                    copy_or_zero(
                        ws.row(0, n),
                        pass.h_init.map(|v| v.row(0, n).cast_const()),
                        p.sic,
                    );
                }
            }
            team.barrier();
            schedule::chunked_steps(
                team,
                (self.steps(), self.scratch.t_chunk),
                self.scratch.fused_layer_gemm,
                pass.by_batch,
                |chunk| self.layer_gemm(team, &pass, chunk.start, chunk.end),
                |s, chunk| self.step(team, &pass, s, chunk.start),
            );
            self.final_states(team, &pass);
            if let (Some(o), Some(ws)) = (&self.order, self.workspace) {
                // What backward reads of every step: h (slot s + 1), c (s + 1), h̃ (s).
                o.zero_inactive(team, p, pass.h_seq, 0, ws.hc);
                if p.cell.has_c_state() {
                    o.zero_inactive(team, p, pass.c_all, 1, p.dhc);
                }
                if let Some(ht) = pass.ht {
                    o.zero_inactive(team, p, ht, 0, p.dhc);
                }
            }
            team.barrier();
        }
    }

    /// Gates of steps `s0..s1` = `x·W + b`: this member's share of (row block × panel) items.
    unsafe fn layer_gemm(&self, team: &Team, pass: &Pass, s0: usize, s1: usize) {
        let p = self.problem;
        let (width, total, gld) = (
            self.width(),
            self.scratch.gates_width,
            self.scratch.gates_ld,
        );
        let block = self.layer_row_block().min((s1 - s0) * p.n);
        let gates = unsafe { self.lane(&self.scratch.gates, pass.d) };
        let bias = self
            .tensors
            .bias
            .wrapping_add((pass.l * p.d + pass.d) * total);
        let a = pass.x.gemm_rows(s0, p.n);
        let items = PhaseItems::by_panel((s1 - s0) * p.n, block, self.panels());
        let share = team.share(items.count());
        let weights = |panel| self.weights(&self.tensors.weights_layer, pass, panel);
        let flops = 2 * block * pass.k_layer * width;
        let w_streamed = streamed(pass.k_layer * total * self.weight_size(), team.size());
        self.for_items(team, pass, items.count(), false, flops, |it| {
            let (rows, panel) = items.tile(it);
            // The next panel's weights, fetched while this item runs.
            let next = items.next_panel(&share, it, false).map(weights);
            // SAFETY: each item writes its own rows × panel of the gates scratch.
            let gemm = |rows: std::ops::Range<usize>, next: Option<Panel>| unsafe {
                let c = gates.add(rows.start * gld + panel * width);
                let x = Term {
                    a,
                    k: pass.k_layer,
                    b: weights(panel),
                    a_pairs: pass.x_pairs,
                };
                gemm::gemm_sum(
                    self.isa,
                    &[x],
                    rows,
                    c,
                    gld,
                    Init::Row(bias.add(panel * width)),
                    Fetch {
                        next: next.map(|w| (w, pass.k_layer)),
                        streamed: w_streamed,
                    },
                );
            };
            match self.order {
                None => gemm(rows, next),
                // Only the rows of the samples running at each step of the chunk, in runs of
                // consecutive rows (steps whose rows all run join the next step's).
                Some(_) => {
                    let mut run = rows.start..rows.start;
                    for s in s0 + rows.start / p.n..s0 + rows.end.div_ceil(p.n) {
                        let first = (s - s0) * p.n;
                        let part = rows.start.max(first)..rows.end.min(first + self.active(s));
                        if part.start != run.end {
                            if !run.is_empty() {
                                gemm(run, None);
                            }
                            run = part.start..part.start;
                        }
                        run.end = run.end.max(part.end);
                    }
                    if !run.is_empty() {
                        gemm(run, next);
                    }
                }
            }
        });
    }

    /// The (batch block × panel) items of step `s`'s phases over its [active](Self::active)
    /// rows: one block per member when the pass is split by batch (the same blocks of all N
    /// rows at every step, each member keeping its own rows), else by panel, over batch blocks
    /// of at most `STEP_MAX_BATCH_BLOCK` rows (smaller when there would be fewer items than
    /// members).
    fn step_items(&self, team: &Team, pass: &Pass, s: usize) -> PhaseItems {
        let n = self.active(s);
        if pass.by_batch {
            return PhaseItems::by_block(self.problem.n, team.size(), self.panels()).clipped(n);
        }
        let mut blocks = n.div_ceil(STEP_MAX_BATCH_BLOCK);
        if blocks * self.panels() < team.size() {
            blocks = blocks.max(
                team.size()
                    .div_ceil(self.panels())
                    .min(n.div_ceil(STEP_MIN_BATCH_BLOCK)),
            );
        }
        PhaseItems::by_panel(n, n.div_ceil(blocks.max(1)), self.panels())
    }

    /// Whether each member runs every panel of its own batch rows ([`items::split_by_batch`]).
    fn split_by_batch(&self, team: &Team, pass: &Pass) -> bool {
        let p = self.problem;
        let barriers = if matches!(p.cell, CellKind::Gru | CellKind::Augru) || p.with_projection {
            2
        } else {
            1
        };
        let bytes = self.step_weight_bytes(pass);
        items::split_by_batch(
            team.size(),
            p.n,
            items::BATCH_SPLIT_MIN_ROWS,
            bytes,
            barriers,
        )
    }

    /// Bytes of the weights a step of `pass` reads (`U`, `W` too when the layer GEMM is
    /// fused, and the projection's).
    fn step_weight_bytes(&self, pass: &Pass) -> usize {
        let p = self.problem;
        let projection = if p.with_projection { p.dhc * p.dic } else { 0 };
        (self.step_k(pass) * self.panels() * self.width() + projection) * self.weight_size()
    }

    /// Rows of one layer-GEMM work item: whole register tiles of the kernel that runs.
    fn layer_row_block(&self) -> usize {
        if weights::pairs(self.problem)
            && gemm_bf16::Bf16Kernel::for_isa(self.isa) == gemm_bf16::Bf16Kernel::Amx
        {
            LAYER_ROW_BLOCK_AMX
        } else {
            LAYER_ROW_BLOCK
        }
    }

    /// Bytes of one packed weight: 2 in bf16 pairs, else 4.
    fn weight_size(&self) -> usize {
        if weights::pairs(self.problem) {
            2
        } else {
            4
        }
    }

    /// One step: per (batch block × panel) tile of this member's share, `gates += h_prev·U`
    /// (`gates = b + x·W + h_prev·U` in one GEMM when the layer GEMM is fused), then the
    /// post-GEMM. Members keep the same panels of the weights every step and walk them in
    /// alternate directions, reusing the part of their share still in cache.
    ///
    /// By cell: the linear-before-reset cells put `h_prev·U + b_u'` in a buffer of its own (only
    /// its `o` columns when the layer GEMM is fused, see [`Self::lbr_summed`]); the
    /// GRU cells multiply only the `u, r` columns here, then (after a barrier: every unit of r
    /// is needed) add `(r ⊙ h_prev)·U_o` to the `o` columns and run the second post-GEMM part.
    unsafe fn step(&self, team: &Team, pass: &Pass, s: usize, s0: usize) {
        let p = self.problem;
        let (width, total) = (self.width(), self.scratch.gates_width);
        // Row stride of the gates and `rec` scratch (`total` is the bias rows' length).
        let gld = self.scratch.gates_ld;
        let h_prev = if s == 0 {
            pass.h_init
        } else {
            Some(pass.h_seq.from_step(s - 1))
        };
        let items = self.step_items(team, pass, s);
        let gates = unsafe {
            self.lane(&self.scratch.gates, pass.d)
                .add((s - s0) * p.n * gld)
        };
        let ld = pass.l * p.d + pass.d;
        let bias = self.tensors.bias.wrapping_add(ld * total);
        let bias_rec = self.tensors.bias_rec.wrapping_add(ld * total);
        let (gru, lbr) = (
            matches!(p.cell, CellKind::Gru | CellKind::Augru),
            matches!(p.cell, CellKind::LbrGru | CellKind::LbrAugru),
        );
        // The tile of item `it`: (rows, panel, its gates).
        let tile_of = |it: usize| {
            let (rows, panel) = items.tile(it);
            let tile = gates.wrapping_add(rows.start * gld + panel * width);
            (rows, panel, tile)
        };
        let reverse = s % 2 == 1;
        // With the layer GEMM fused, both products go to the gates tile (for the
        // linear-before-reset cells, those of `u, r`), summed in one GEMM whose tiles are
        // stored once.
        let summed = self.scratch.fused_layer_gemm && !lbr;
        let share = team.share(items.count());
        let weights_layer = |panel| self.weights(&self.tensors.weights_layer, pass, panel);
        // The recurrent weights of a panel (GRU: the `u, r` columns, multiplied here).
        let weights_iter = |panel| {
            let u = self.weights(&self.tensors.weights_iter, pass, panel);
            if gru {
                u.columns(0..2 * PANEL)
            } else {
                u
            }
        };
        // The weights an item of `panel` multiplies first (`W` when the layer GEMM is fused),
        // with their `K`: what the item before it fetches while its last tiles run.
        let first_of = |panel| {
            if self.scratch.fused_layer_gemm {
                (weights_layer(panel), pass.k_layer)
            } else {
                (weights_iter(panel), p.sic)
            }
        };
        let flops = 2 * items.block * width * self.step_k(pass);
        let fetch = |next| Fetch {
            next,
            streamed: pass.step_streamed,
        };
        self.for_items(team, pass, items.count(), reverse, flops, |it| {
            let (rows, panel, tile) = tile_of(it);
            if rows.is_empty() {
                return; // a member's rows past the active ones (split by batch)
            }
            // The item this member takes next in this phase, if any.
            let next = next_item(&share, it, reverse);
            // Training: own the lines of the next item's workspace rows before its stores.
            if let Some((rows, panel, _)) = next.filter(|_| pass.ws_gates.is_some()).map(tile_of) {
                let (first, count) = self.packed_of(panel);
                for q in first..first + count {
                    self.prefetch_outputs(pass, s, rows.clone(), q);
                }
            }
            if !self.scratch.fused_layer_gemm {
                // The merged layer GEMM wrote these gates a chunk of steps ago: request the next
                // item's tile (and the first item's own) now, rather than stall on each tile.
                let first = if reverse { share.end - 1 } else { share.start };
                for i in [(it == first).then_some(it), next] {
                    if let Some((rows, _, tile)) = i.map(tile_of) {
                        gemm::prefetch_rows(tile, rows.len(), gld, width);
                    }
                }
            }
            let u = weights_iter(panel);
            let then = items.next_panel(&share, it, reverse).map(first_of);
            let rec = h_prev.map(|h| Term {
                a: h.gemm_rows(0, p.n),
                k: p.sic,
                b: u,
                a_pairs: false,
            });
            // SAFETY: the tile (rows, units of `panel`) is written by this item only; h_prev is
            // the previous step's output, complete (barrier) and read-only now.
            unsafe {
                if self.scratch.fused_layer_gemm {
                    let x = Term {
                        a: pass.x.gemm_rows(s, p.n),
                        k: pass.k_layer,
                        b: weights_layer(panel),
                        a_pairs: pass.x_pairs,
                    };
                    // Columns `j0..` of the tile (and bias) from the terms.
                    let run = |terms: &[Term], j0: usize, next| {
                        let (c, init) = (tile.add(j0), Init::Row(bias.add(panel * width + j0)));
                        gemm::gemm_sum(self.isa, terms, rows.clone(), c, gld, init, fetch(next))
                    };
                    match rec {
                        // `x·W + h_prev·U` in one pass over the columns of `U` (GRU: u, r),
                        // then `x·W` alone over the others.
                        Some(r) if summed && r.b.width < x.b.width => {
                            let (rw, xw) = (r.b.width, x.b.width);
                            let rest = x.b.columns(rw..xw);
                            let x_rec = Term {
                                b: x.b.columns(0..rw),
                                ..x
                            };
                            run(&[x_rec, r], 0, Some((rest, x.k)));
                            run(&[Term { b: rest, ..x }], rw, then);
                        }
                        Some(r) if summed => run(&[x, r], 0, then),
                        // Linear-before-reset: `x·W + h_prev·U` of `u, r` in one pass, then
                        // `x·W` of `o` (`h_prev·U_o` goes to `rec` below).
                        Some(r) if lbr => {
                            let (ur, o) = (0..2 * PANEL, 2 * PANEL..x.b.width);
                            let x_ur = Term {
                                b: x.b.columns(ur.clone()),
                                ..x
                            };
                            let r_ur = Term {
                                b: r.b.columns(ur),
                                ..r
                            };
                            let x_o = x.b.columns(o.clone());
                            run(&[x_ur, r_ur], 0, Some((x_o, x.k)));
                            let r_o = r.b.columns(o.start..r.b.width);
                            run(&[Term { b: x_o, ..x }], o.start, Some((r_o, r.k)));
                        }
                        Some(r) => run(&[x], 0, Some((r.b, r.k))),
                        None => run(&[x], 0, then),
                    }
                }
                let (c, init) = if lbr {
                    let c = self
                        .rec_tile(pass.d, rows.start, self.packed_of(panel).0)
                        .ptr;
                    (c, Init::Row(bias_rec.add(panel * width)))
                } else {
                    (tile, Init::Accumulate)
                };
                match rec {
                    Some(_) if summed => {}
                    Some(r) if self.lbr_summed() => {
                        // `rec` of `u, r` stays zero (`layer`).
                        let o = 2 * PANEL;
                        let (c, init) = (c.add(o), Init::Row(bias_rec.add(panel * width + o)));
                        let r = Term {
                            b: r.b.columns(o..r.b.width),
                            ..r
                        };
                        gemm::gemm_sum(self.isa, &[r], rows.clone(), c, gld, init, fetch(then))
                    }
                    Some(r) => {
                        let f = fetch(then);
                        gemm::gemm_sum(self.isa, &[r], rows.clone(), c, gld, init, f)
                    }
                    None if lbr => {
                        for r in 0..rows.len() {
                            let row = bias_rec.add(panel * width);
                            std::ptr::copy_nonoverlapping(row, c.add(r * gld), width);
                        }
                    }
                    None => {}
                }
                let (first, count) = self.packed_of(panel);
                for (j, q) in (first..first + count).enumerate() {
                    let tile = tile.add(j * p.g * PANEL);
                    self.postgemm(pass, s, rows.clone(), q, tile, gld, Phase::First);
                }
            }
        });
        // The projection and the GRU `o` phase read every unit of h̃ or r of their rows: a
        // barrier, unless a member has all the units of its rows.
        if let (Some(w), Some(ht)) = (&self.tensors.weights_projection, pass.ht) {
            if !pass.by_batch {
                team.barrier();
            }
            unsafe { self.project(team, pass, s, w, ht) };
        }
        if !gru {
            return;
        }
        if !pass.by_batch {
            team.barrier();
        }
        let flops = 2 * items.block * PANEL * p.sic;
        self.for_items(team, pass, items.count(), reverse, flops, |it| {
            let (rows, panel, tile) = tile_of(it);
            if rows.is_empty() {
                return; // a member's rows past the active ones (split by batch)
            }
            // SAFETY: as above; `rh` is complete (barrier) and read-only now.
            unsafe {
                let o = tile.add(2 * PANEL);
                if h_prev.is_some() {
                    let u_o = |panel| {
                        let u = self.weights(&self.tensors.weights_iter, pass, panel);
                        u.columns(2 * PANEL..3 * PANEL)
                    };
                    let a = self.rh_view(pass.d).gemm_rows(0, p.n);
                    let init = Init::Accumulate;
                    // The next item's `U_o`, fetched while this one's later tiles run (paired
                    // on a Xeon, 2 threads, against none: GRU N32 C512 (W4) 0.976 / 0.987, its
                    // training (X1) 0.988 / 0.990, AUGRU C256 (W9) 0.987 / 0.993, GRU N64
                    // C1024 0.988; AUGRU training (X4) 1.000).
                    let next = items.next_panel(&share, it, reverse);
                    let f = fetch(next.map(|q| (u_o(q), p.sic)));
                    gemm::gemm(
                        self.isa,
                        &a,
                        rows.clone(),
                        p.sic,
                        &u_o(panel),
                        o,
                        gld,
                        init,
                        f,
                    );
                }
                self.postgemm(pass, s, rows, panel, tile, gld, Phase::Second);
            }
        });
    }

    /// Whether a linear-before-reset step sums `x·W + h_prev·U` of the `u, r` gates in one
    /// GEMM (with the layer GEMM fused), leaving `rec` only `h_prev·U_o + b_u'` (its `u, r`
    /// columns zero): one pass over the accumulators fewer per item.
    fn lbr_summed(&self) -> bool {
        self.scratch.fused_layer_gemm
            && matches!(self.problem.cell, CellKind::LbrGru | CellKind::LbrAugru)
    }

    /// `K` of a step's GEMMs: `SIC`, plus the layer input channels when the layer GEMM is fused.
    fn step_k(&self, pass: &Pass) -> usize {
        let fused = if self.scratch.fused_layer_gemm {
            pass.k_layer
        } else {
            0
        };
        self.problem.sic + fused
    }

    /// Runs a phase's work items of `item_flops` GEMM work each on the team: `Team::for_each`,
    /// or `Team::for_each_balanced` when [`items::balanced`] (on the weights a step of this
    /// pass reads). Items a member takes from another's share have no `next_item` in its own:
    /// they run without fetching ahead. A member converts each bf16 `A` operand of the phase
    /// once for all its items (`gemm_bf16::reusing_converted`).
    fn for_items(
        &self,
        team: &Team,
        pass: &Pass,
        items: usize,
        reverse: bool,
        item_flops: usize,
        f: impl FnMut(usize),
    ) {
        let run = || {
            let bytes = self.step_weight_bytes(pass);
            if items::balanced(team.size(), pass.by_batch, item_flops, bytes) {
                team.for_each_balanced(items, reverse, f);
            } else {
                team.for_each(items, reverse, f);
            }
        };
        // SAFETY: a phase's GEMMs read what earlier phases wrote (before a barrier, or for a
        // pass split by batch this member's own rows), never what the phase writes.
        unsafe { gemm_bf16::reusing_converted(run) }
    }

    /// The weights `w` of `pass`'s layer and direction for item panel run `panel`.
    fn weights(&self, w: &PackedWeights, pass: &Pass, panel: usize) -> Panel {
        let (first, count) = self.packed_of(panel);
        // SAFETY: the run's packed panels are inside the layout (`packed_of`).
        unsafe { w.panel_run(pass.l, pass.d, first, count) }
    }

    /// Linear-before-reset cells: rows `n0..` of the recurrent product `h_prev·U + b_u'`
    /// (`rec`, rows of `gates_ld` like the gates), from packed panel `panel`'s first column.
    unsafe fn rec_tile(&self, d: usize, n0: usize, panel: usize) -> TileRows {
        let ld = self.scratch.gates_ld;
        TileRows {
            ptr: unsafe { self.lane(&self.scratch.rec, d) }
                .wrapping_add(n0 * ld + panel * self.problem.g * PANEL),
            stride: ld as isize,
        }
    }

    /// GRU / AUGRU: `r ⊙ h_prev` of the current step, `[N][DHC]`.
    unsafe fn rh_view(&self, d: usize) -> SeqView {
        let p = self.problem;
        SeqView::dense(unsafe { self.lane(&self.scratch.rh, d) }, p.n, p.dhc)
    }

    /// Prefetches for writing the rows a training step's item (`rows` × the units of `panel`)
    /// stores into the workspace: post-activation gates, new c and h (and `dst_layer`).
    fn prefetch_outputs(&self, pass: &Pass, s: usize, rows: std::ops::Range<usize>, panel: usize) {
        let p = self.problem;
        let u0 = panel * PANEL;
        let valid = PANEL.min(p.dhc - u0);
        let n0 = rows.start;
        let out = |v: Option<SeqView>, s: usize, gates: usize| {
            if let Some(v) = v {
                let t = tile_at(&v, s, n0, u0);
                for g in 0..gates {
                    let ptr = t.ptr.wrapping_add(g * p.dhc);
                    gemm::prefetch_rows_for_write(ptr, rows.len(), t.stride as usize, valid);
                }
            }
        };
        out(pass.ws_gates, s, p.g);
        out(p.cell.has_c_state().then_some(pass.c_all), s + 1, 1);
        out(Some(pass.ht.unwrap_or(pass.h_seq)), s, 1);
        out(pass.h_extra, s, 1);
    }

    /// LSTMP, step `s`: `h = h̃·R` per (batch block × 32-channel panel of DIC) item of this
    /// member's share, into the `proj` scratch, then to where h goes.
    unsafe fn project(&self, team: &Team, pass: &Pass, s: usize, w: &PackedWeights, ht: SeqView) {
        let p = self.problem;
        let panels = p.dic.div_ceil(PANEL);
        let ld = panels * PANEL;
        // The step's batch blocks (split by batch, each member projects its own rows).
        let items = self.step_items(team, pass, s).with_panels(panels);
        let out = unsafe { self.lane(&self.scratch.proj, pass.d) };
        let a = ht.gemm_rows(s, p.n);
        let reverse = s % 2 == 1;
        let share = team.share(items.count());
        let flops = 2 * items.block * p.dhc * PANEL;
        self.for_items(team, pass, items.count(), reverse, flops, |it| {
            let (rows, panel) = items.tile(it);
            if rows.is_empty() {
                return; // a member's rows past the active ones (split by batch)
            }
            let then = items
                .next_panel(&share, it, reverse)
                .map(|n| (w.panel(pass.l, pass.d, n), p.dhc));
            let n0 = rows.start;
            let u0 = panel * PANEL;
            // SAFETY: this item writes its own rows × panel of `proj` and its own rows × channels
            // of the h destinations; h̃ of the step is complete (barrier) and read-only now.
            unsafe {
                let c = out.add(n0 * ld + u0);
                let r = w.panel(pass.l, pass.d, panel);
                gemm::gemm(
                    self.isa,
                    &a,
                    rows.clone(),
                    p.dhc,
                    &r,
                    c,
                    ld,
                    Init::Zero,
                    Fetch {
                        next: then,
                        streamed: pass.step_streamed,
                    },
                );
                let h = HDest {
                    h_out: tile_at(&pass.h_seq, s, n0, u0),
                    h_extra: pass
                        .h_extra
                        .map_or(TileRows::NONE, |v| tile_at(&v, s, n0, u0)),
                    extra_add: pass.extra_add,
                    precision: p.precision,
                };
                let valid = PANEL.min(p.dic - u0);
                cells::store_rows(self.isa, &h, c, ld, rows.len(), valid);
            }
        });
    }

    /// The cell's element-wise part on rows `rows` of one panel.
    #[allow(clippy::too_many_arguments)]
    unsafe fn postgemm(
        &self,
        pass: &Pass,
        s: usize,
        rows: std::ops::Range<usize>,
        panel: usize,
        tile: *const f32,
        ld: usize,
        phase: Phase,
    ) {
        let p = self.problem;
        let u0 = panel * PANEL;
        let n0 = rows.start;
        // Rows n0.. of a view at step `s`, from unit u0.
        let at = |v: &SeqView, s: usize| tile_at(v, s, n0, u0);
        let opt = |v: Option<SeqView>, s: usize| v.map_or(TileRows::NONE, |v| at(&v, s));
        let valid = PANEL.min(p.dhc - u0);
        let gates = TileRows {
            ptr: tile.cast_mut(),
            stride: ld as isize,
        };
        // With projection the cell's h is h̃, projected later (`project`).
        let h = match pass.ht {
            Some(ht) => HDest {
                h_out: at(&ht, s),
                h_extra: TileRows::NONE,
                extra_add: false,
                precision: p.precision,
            },
            None => HDest {
                h_out: at(&pass.h_seq, s),
                h_extra: opt(pass.h_extra, s),
                extra_add: pass.extra_add,
                precision: p.precision,
            },
        };
        let ws_gates = opt(pass.ws_gates, s);
        let h_prev = if s == 0 {
            opt(pass.h_init, 0)
        } else {
            at(&pass.h_seq, s - 1)
        };
        // SAFETY (every arm): rows and units inside the problem; this item owns them (see
        // `step`).
        match p.cell {
            CellKind::Lstm => {
                let t = lstm::LstmTile {
                    rows: rows.len(),
                    valid,
                    gates,
                    peephole: if self.tensors.peephole.is_null() {
                        std::ptr::null()
                    } else {
                        self.tensors.peephole.wrapping_add(
                            ((pass.l * p.d + pass.d) * self.packed_panels() + panel) * 3 * PANEL,
                        )
                    },
                    c_prev: match pass.c_src {
                        _ if !(pass.c_direct && s == 0) => at(&pass.c_all, s),
                        Some(v) => at(&v, 0),
                        None => TileRows::NONE,
                    },
                    c_out: match pass.c_dst {
                        Some(v) if pass.c_direct && s + 1 == p.t => at(&v, 0),
                        _ => at(&pass.c_all, s + 1),
                    },
                    c_precision: p.c_precision,
                    h,
                    ws_gates,
                    ws_gate_stride: p.dhc,
                    linear: self.linear,
                };
                unsafe { lstm::postgemm_tile(self.isa, &t) };
            }
            CellKind::VanillaRnn => {
                let t = vanilla::VanillaTile {
                    rows: rows.len(),
                    valid,
                    gates,
                    activation: p.activation.expect("vanilla RNN has an activation"),
                    h,
                    ws_gates,
                    linear: self.linear,
                };
                unsafe { vanilla::postgemm_tile(self.isa, &t) };
            }
            CellKind::Gru | CellKind::Augru | CellKind::LbrGru | CellKind::LbrAugru => {
                let lbr = matches!(p.cell, CellKind::LbrGru | CellKind::LbrAugru);
                let aux = if lbr {
                    unsafe { self.rec_tile(pass.d, n0, panel) }
                } else if h_prev.is_none() {
                    TileRows::NONE
                } else {
                    at(&unsafe { self.rh_view(pass.d) }, 0)
                };
                let t = gru::GruTile {
                    rows: rows.len(),
                    valid,
                    gates,
                    h_prev,
                    attention: pass.attention.map_or(TileRows::NONE, |v| TileRows {
                        ptr: v.row(s, n0),
                        stride: v.n_stride,
                    }),
                    h,
                    ws_gates,
                    ws_gate_stride: p.dhc,
                    aux,
                    ws_lbr: opt(pass.ws_lbr, s),
                    linear: self.linear,
                };
                unsafe {
                    match (lbr, phase) {
                        (true, _) => lbr_gru::postgemm_tile(self.isa, &t),
                        (false, Phase::First) => gru::part1_tile(self.isa, &t),
                        (false, Phase::Second) => gru::part2_tile(self.isa, &t),
                    }
                }
            }
        }
    }

    /// `dst_iter` / `dst_iter_c` of this layer and direction (this member's batch rows): the
    /// states after the last step (with sequence lengths, each sample's last valid step, to
    /// the sample's row).
    unsafe fn final_states(&self, team: &Team, pass: &Pass) {
        let p = self.problem;
        let (l, d) = (pass.l, pass.d);
        // Row `i`'s sample and steps.
        let of = |i| self.order.map_or((i, p.t), |o| (o.sample(i), o.len(i)));
        unsafe {
            if let Some(di) = self.tensors.dst_iter {
                for i in team.share(p.n) {
                    let (n, steps) = of(i);
                    let dst = di.at([l, d, n, 0]);
                    if steps > 0 {
                        let h = pass.h_seq.row(steps - 1, i).cast_const();
                        copy_or_zero(dst, Some(h), p.dic);
                    } else {
                        // No step: the initial state (its first DIC channels; zeros beyond SIC).
                        let k = p.sic.min(p.dic);
                        copy_or_zero(dst, pass.h_init.map(|v| v.row(0, i).cast_const()), k);
                        copy_or_zero(dst.add(k), None, p.dic - k);
                    }
                }
            }
            if let Some(dc) = self
                .tensors
                .dst_iter_c
                .filter(|_| !(pass.c_direct && p.t > 0))
            {
                for i in team.share(p.n) {
                    let (n, steps) = of(i);
                    let c = pass.c_all.row(steps, i).cast_const();
                    copy_or_zero(dc.at([l, d, n, 0]), Some(c), p.dhc);
                }
            }
        }
    }
}
