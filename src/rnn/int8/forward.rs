//! The int8 forward driver: for each direction and layer, the layer GEMM over a chunk of steps
//! at a time (or, [`Int8Plan::fused_layer_gemm`], on each step's rows in its items), then per
//! step the iteration GEMM on the u8 state and the post-GEMM of each 32-unit panel
//! ([`postgemm`]: the cells' shared gate math between int8 loads and stores), with oneDNN's
//! int8 arithmetic (reference §a.14); GRU requantizes `r⊙h` before its second iteration GEMM;
//! LSTMP quantizes `h`, projects, dequantizes with the projection scales and compensation,
//! and requantizes.
//!
//! The schedule is the f32 driver's ([`schedule`]): both directions at once on half teams
//! ([`Int8Plan::lanes`]), steps split by batch ([`items::split_by_batch`]), phases balanced
//! where a member's weights overflow its L2 ([`items::balanced`]), per-sample sequence lengths
//! on the active rows ([`SeqOrder`]).
//!
//! States are stored as u8: s8 activations as `q + 128` (the GEMM multiplies u8 by s8), the
//! offset folded into the compensation like a shift.

use super::postgemm::{self, AccRows, Dequant, Quant, U8Rows};
use super::{Int8Config, Int8Plan};
use crate::attr::{Attr, WeightsQParams};
use crate::kernels::int8_gemm::{self, Int8Gemm, Int8Kernel};
use crate::kernels::start::Start;
use crate::kernels::Isa;
use crate::memory::packed_int8::{Int8Layout, PANEL};
use crate::memory::MemoryDesc;
use crate::rnn::arena::Region;
use crate::rnn::cells::TileRows;
use crate::rnn::items::{self, PhaseItems};
use crate::rnn::problem::RnnProblem;
use crate::rnn::schedule;
use crate::rnn::scratch;
use crate::rnn::seq_lengths::SeqOrder;
use crate::threading::{self, Team};
use crate::types::{DataType, Direction};

/// Rows of one layer-GEMM work item (16 register tiles of 6 rows; 6 AMX tiles of 16).
const LAYER_ROW_BLOCK: usize = 96;
/// Fewest batch rows per member for steps split by batch ([`items::split_by_batch`]): two
/// AMX tiles of rows. A tile of 16 rows or fewer reads every weight for as few rows, and the
/// weights a member reads twice cost more than the barriers saved (2 threads, on a Xeon with
/// AMX, split against by panel: GRU N=32 C=512 1.37, LSTM N=16 C=128 1.16, N=32 C=256 1.06;
/// N=64 C=128 0.80).
const BATCH_SPLIT_MIN_ROWS: usize = 32;

/// Whether the GEMMs of a phase fetch their weights ahead ([`Int8Gemm::ahead`]): when a
/// member's share, `member_bytes`, overflows its L2, each panel comes from L3 (W3-int8, LSTM
/// N=32 C=1024, 2 threads: 0.95 of the time).
fn fetch_ahead(member_bytes: usize) -> bool {
    member_bytes > scratch::l2_bytes()
}

/// A plain user tensor of `R` dims: element `idx` at `ptr + Σ idx·strides` bytes.
#[derive(Clone, Copy, Debug)]
pub struct View<const R: usize> {
    ptr: *mut u8,
    strides: [isize; R],
    dt: DataType,
}

impl<const R: usize> View<R> {
    /// The view of a buffer through a strided descriptor.
    pub fn new(base: *mut u8, md: &MemoryDesc) -> Self {
        let e = md.data_type().size() as isize;
        let s = md.strides().expect("strided descriptor");
        Self {
            ptr: base.wrapping_offset(md.offset0() as isize * e),
            strides: std::array::from_fn(|k| s[k] as isize * e),
            dt: md.data_type(),
        }
    }

    fn at(&self, idx: [usize; R]) -> *mut u8 {
        let off: isize = idx
            .iter()
            .zip(&self.strides)
            .map(|(&i, &s)| i as isize * s)
            .sum();
        self.ptr.wrapping_offset(off)
    }

    /// Reads element `idx` as f32 (integers as their value).
    ///
    /// # Safety
    /// `idx` inside the dims of the descriptor the view was made from.
    pub unsafe fn get(&self, idx: [usize; R]) -> f32 {
        let p = self.at(idx);
        unsafe {
            match self.dt {
                DataType::U8 => *p as f32,
                DataType::S8 => *p.cast::<i8>() as f32,
                _ => p.cast::<f32>().read_unaligned(),
            }
        }
    }

    /// Writes element `idx`: an f32 tensor takes `f`, an integer one `q`.
    ///
    /// # Safety
    /// As [`Self::get`].
    unsafe fn put(&self, idx: [usize; R], q: i32, f: f32) {
        let p = self.at(idx);
        unsafe {
            match self.dt {
                DataType::U8 => *p = q as u8,
                DataType::S8 => *p.cast::<i8>() = q as i8,
                _ => p.cast::<f32>().write_unaligned(f),
            }
        }
    }
}

/// A GEMM over columns `cols` of panel `panel` `(l, d, p)` of packed int8 weights: `op` holds
/// everything but B (`b`, `ldb`, `block_bytes` and `vectors`, which [`Int8Weights::block_ops`]
/// sets per run of column blocks), its C at column `cols.start`.
#[derive(Clone, Debug)]
pub struct PanelGemm {
    /// The GEMM but B.
    pub op: Int8Gemm,
    /// The panel `(l, d, p)`.
    pub panel: (usize, usize, usize),
    /// Its columns (block-aligned).
    pub cols: std::ops::Range<usize>,
}

impl PanelGemm {
    /// `C (+)= A·B` over columns `cols` of panel `panel`: `m` rows of A (`lda` bytes apart,
    /// `groups` groups of 4 bytes), C at column `cols.start` (`ldc` values apart), starting
    /// from `start`.
    pub fn new(
        panel: (usize, usize, usize),
        cols: std::ops::Range<usize>,
        (a, lda, m, groups): (*const u8, usize, usize, usize),
        (c, ldc): (*mut i32, usize),
        start: Start,
    ) -> Self {
        let op = Int8Gemm {
            m,
            a,
            lda,
            b: std::ptr::null(),
            ldb: 0,
            block_bytes: 0,
            groups,
            vectors: 0,
            c,
            ldc,
            start,
            ahead: None,
        };
        Self { op, panel, cols }
    }
}

/// Packed int8 weights (the user's, or packed into the scratchpad).
#[derive(Clone, Copy, Debug)]
pub struct Int8Weights {
    /// Start of the packed tensor.
    pub ptr: *const u8,
    /// Its geometry.
    pub layout: Int8Layout,
}

impl Int8Weights {
    fn panel(&self, l: usize, d: usize, p: usize) -> *const i8 {
        self.ptr
            .wrapping_add(self.layout.panel_offset(l, d, p))
            .cast()
    }

    /// GEMM `g` as one GEMM per run of column blocks of its panel's columns, in order
    /// (`Int8Layout::runs`). With `g.op.ahead` = `Some(next)`, each fetches the next run ahead,
    /// and the last `next`.
    pub fn block_ops(&self, g: &PanelGemm) -> impl Iterator<Item = Int8Gemm> {
        let (l, d, p) = g.panel;
        let panel = self.panel(l, d, p);
        let (op, col0) = (g.op, g.cols.start);
        let mut runs = self.layout.runs(g.cols.clone()).peekable();
        std::iter::from_fn(move || {
            let run = runs.next()?;
            let ahead = op
                .ahead
                .map(|next| runs.peek().map_or(next, |n| panel.wrapping_add(n.offset)));
            Some(Int8Gemm {
                ahead,
                ..op.on_run(panel, col0, &run)
            })
        })
    }

    /// Where panel `p` of `(l, d)`'s column `col` starts (its block's first group), for
    /// fetching ahead.
    fn column(&self, l: usize, d: usize, p: usize, col: usize) -> *const i8 {
        self.panel(l, d, p).wrapping_add(self.layout.block(col).0)
    }

    /// # Safety
    /// Indices inside the layout; the tensor holds its compensation.
    unsafe fn comp(&self, l: usize, d: usize, g: usize, o: usize) -> i32 {
        let at = self.layout.weights_bytes() + 4 * self.layout.comp_index(l, d, g, o);
        unsafe { self.ptr.add(at).cast::<i32>().read_unaligned() }
    }
}

/// The tensors of one int8 execution.
#[derive(Clone, Copy, Debug)]
pub struct Int8Tensors {
    /// `src_layer` `[T][N][SLC]`.
    pub src_layer: View<3>,
    /// `src_iter` `[L][D][N][SIC]`.
    pub src_iter: Option<View<4>>,
    /// `src_iter_c` (LSTM).
    pub src_iter_c: Option<View<4>>,
    /// `dst_layer` `[T][N][DLC]`.
    pub dst_layer: View<3>,
    /// `dst_iter`.
    pub dst_iter: Option<View<4>>,
    /// `dst_iter_c` (LSTM).
    pub dst_iter_c: Option<View<4>>,
    /// `bias` `[L][D][G][DHC]` (absent: zeros).
    pub bias: Option<View<4>>,
    /// Layer and iteration weights.
    pub weights: [Int8Weights; 2],
    /// Projection weights (LSTMP).
    pub projection: Option<Int8Weights>,
    /// The scratchpad, laid out by the plan.
    pub scratch: *mut u8,
}

/// Everything the members of the team share.
struct Run<'a> {
    p: &'a RnnProblem,
    plan: &'a Int8Plan,
    kernel: Int8Kernel,
    /// Instruction set of the post-GEMM's activations.
    isa: Isa,
    t: Int8Tensors,
    /// The activations' quantization.
    q: Quant,
    /// The GEMMs read layer 0's input from `src_layer` itself ([`dense_u8_rows`]).
    input_direct: bool,
    /// The last layer writes its outputs into `dst_layer` itself ([`dense_u8_rows`]; not for
    /// a bidirectional sum).
    output_direct: bool,
    /// Per-sample sequence lengths: the batch order. Layer 0's input is then gathered by step
    /// for each direction (each sample time-reversed for reversed directions), every state
    /// is kept by step in sorted rows, and each step runs on its active rows only.
    order: Option<SeqOrder>,
}

/// Whether a `[T][N][C]` tensor holds u8 rows the GEMMs can read and the post-GEMM write in
/// place, `channels` of them per row (a multiple of 4: whole groups of K), row `t·N + n` at
/// `n`-stride intervals: u8 activations stored as themselves (no s8 offset), channels
/// contiguous, time steps N rows apart.
fn dense_u8_rows(v: &View<3>, n: usize, channels: usize, q: &Quant) -> bool {
    let [st, sn, sc] = v.strides;
    v.dt == DataType::U8
        && q.offset == 0
        && channels.is_multiple_of(4)
        && sc == 1
        && sn >= channels as isize
        && st == n as isize * sn
}

// SAFETY: the raw pointers are user and scratch buffers; the phases of the driver write
// disjoint parts of them between barriers.
unsafe impl Sync for Run<'_> {}

/// Runs the int8 forward pass.
///
/// # Safety
/// Every tensor must address its descriptor's dims (the pd's); the scratchpad holds the plan;
/// `isa` runs on this CPU.
pub unsafe fn run(
    p: &RnnProblem,
    cfg: &Int8Config,
    plan: &Int8Plan,
    attr: &Attr,
    isa: Isa,
    t: Int8Tensors,
    order: Option<SeqOrder>,
) {
    let kernel = Int8Kernel::for_isa(isa);
    let (scale, shift) = attr.rnn_data_qparams;
    let s8 = cfg.act == DataType::S8;
    let r = Run {
        p,
        plan,
        kernel,
        isa,
        t,
        q: Quant {
            scale,
            shift,
            lo: if s8 { -128.0 } else { 0.0 },
            hi: if s8 { 127.0 } else { 255.0 },
            cell_lo: 0.0,
            offset: if s8 { 128 } else { 0 },
        },
        input_direct: false,
        output_direct: false,
        order,
    };
    let dlc = p.dic
        * if p.direction == Direction::BidirectionalConcat {
            2
        } else {
            1
        };
    let r = Run {
        input_direct: order.is_none() && dense_u8_rows(&r.t.src_layer, p.n, p.slc, &r.q),
        output_direct: order.is_none()
            && p.direction != Direction::BidirectionalSum
            && dense_u8_rows(&r.t.dst_layer, p.n, dlc, &r.q)
            && p.dic.is_multiple_of(4),
        ..r
    };
    unsafe {
        r.prepare(attr);
        let flops = p.forward_flops() as usize;
        threading::team(Some(threading::join_wait(flops)), |team| r.layers(team));
    }
}

impl Run<'_> {
    fn region<T>(&self, r: Region) -> *mut T {
        self.t.scratch.wrapping_add(r.offset).cast()
    }

    /// Direction `d`'s copy of a per-pass region ([`Int8Plan::lane`]).
    fn lane<T>(&self, r: Region, d: usize) -> *mut T {
        self.plan.lane(r, self.t.scratch, d)
    }

    /// Single-threaded set-up: dequantization factors, compensated bias, layer 0's input, and
    /// zeroed outputs when their rows have padding columns (which stay zero).
    unsafe fn prepare(&self, attr: &Attr) {
        let (p, plan) = (self.p, self.plan);
        let scale_of = |q: &WeightsQParams, k: usize| q.scales[if q.mask == 0 { 0 } else { k }];
        unsafe {
            let deq: *mut f32 = self.region(plan.deq);
            for k in 0..p.g * p.dhc {
                *deq.add(k) = 1.0 / (scale_of(&attr.rnn_weights_qparams, k) * self.q.scale);
            }
            if p.with_projection {
                for k in 0..p.dic {
                    let ps = scale_of(&attr.rnn_weights_projection_qparams, k);
                    *deq.add(p.g * p.dhc + k) = 1.0 / (ps * self.q.scale);
                }
            }
            let bias: *mut f32 = self.region(plan.bias);
            let shift = self.q.stored_shift();
            let [wl, wi] = self.t.weights;
            for l in 0..p.l {
                for d in 0..p.d {
                    for g in 0..p.g {
                        for o in 0..p.dhc {
                            let b = self.t.bias.map_or(0.0, |v| v.get([l, d, g, o]));
                            let comp = wl.comp(l, d, g, o) + wi.comp(l, d, g, o);
                            let ws = scale_of(&attr.rnn_weights_qparams, g * p.dhc + o);
                            *bias.add(((l * p.d + d) * p.g + g) * p.dhc + o) =
                                b - comp as f32 * shift / (ws * self.q.scale);
                        }
                    }
                }
            }
            let input: *mut u8 = self.region(plan.input);
            // Row `row` of direction `d`'s input ← `src_layer[ti][n]`, with the s8 offset.
            let quantize_row = |d: usize, row: usize, ti: usize, n: usize| {
                let at = (d * p.t * p.n + row) * plan.slc4;
                let row = std::slice::from_raw_parts_mut(input.add(at), plan.slc4);
                let src = self.t.src_layer;
                if src.strides[2] == 1 {
                    // Contiguous channels: the bytes, with the s8 offset.
                    let from = std::slice::from_raw_parts(src.at([ti, n, 0]), p.slc);
                    for (r, &b) in row.iter_mut().zip(from) {
                        *r = b.wrapping_add(self.q.offset as u8);
                    }
                } else {
                    for (c, r) in row[..p.slc].iter_mut().enumerate() {
                        *r = self.q.store(src.get([ti, n, c]) as i32);
                    }
                }
                row[p.slc..].fill(0);
            };
            match self.order {
                Some(o) => {
                    for d in 0..p.d {
                        for i in 0..p.n {
                            for s in 0..o.len(i) {
                                quantize_row(d, s * p.n + i, o.time(p, d, i, s), o.sample(i));
                            }
                        }
                    }
                    let (_, zeros) = plan.seq.expect("sequence lengths");
                    let q0 = self.q.store(self.q.quantize(0.0));
                    std::ptr::write_bytes(self.region::<u8>(zeros), q0, plan.dic4);
                }
                None if self.input_direct => {}
                None => {
                    for ti in 0..p.t {
                        for n in 0..p.n {
                            quantize_row(0, ti * p.n + n, ti, n);
                        }
                    }
                }
            }
            if plan.dic4 != p.dic {
                let outputs: *mut u8 = self.region(plan.outputs);
                std::ptr::write_bytes(outputs, 0, p.d * 2 * p.t * p.n * plan.dic4);
            }
            // The padding columns of the requantized h (LSTMP) or `r ⊙ h` (GRU), which the
            // GEMMs read.
            std::ptr::write_bytes(self.region::<u8>(plan.hq), 0, 4 * plan.hq.len);
        }
    }

    /// The whole pass on one team member: each direction's stack of layers (with two lanes,
    /// both at the same time on a half of the team each), then `dst_layer`.
    unsafe fn layers(&self, team: &Team) {
        let p = self.p;
        let stack = |team: &Team, d: usize| {
            for l in 0..p.l {
                unsafe { self.layer(team, l, d) };
            }
        };
        schedule::directions(team, p.d, self.plan.lanes, stack);
        if self.plan.lanes != 2 {
            // The last layer's final states are written by one member.
            team.barrier();
        }
        let last = p.l - 1;
        unsafe {
            match self.order {
                // This member's samples: the top layer's valid steps, the quantized zero past
                // each sample's length.
                Some(o) => {
                    let (_, zeros) = self.plan.seq.expect("sequence lengths");
                    let zeros: *const u8 = self.region(zeros);
                    for i in team.share(p.n) {
                        let len = o.len(i);
                        for ti in 0..p.t {
                            let row = |d: usize| match ti < len {
                                true => {
                                    let s = if p.is_reversed(d) { len - 1 - ti } else { ti };
                                    self.output(last, d).row(s * p.n + i).cast_const()
                                }
                                false => zeros,
                            };
                            self.write_dst_row(ti, o.sample(i), row);
                        }
                    }
                }
                None if self.output_direct => {}
                None => {
                    let (members, mine) = (team.size(), team.index());
                    for ti in (0..p.t).filter(|ti| ti % members == mine) {
                        for n in 0..p.n {
                            let row =
                                |d: usize| self.output(last, d).row(ti * p.n + n).cast_const();
                            self.write_dst_row(ti, n, row);
                        }
                    }
                }
            }
        }
    }

    /// Layer `l` of direction `d`, by every member of the team: the layer GEMM for a chunk of
    /// steps at a time, then those steps (split by batch when [`items::split_by_batch`]: a
    /// member steps its own rows, and only a chunk's last step ends at a barrier).
    unsafe fn layer(&self, team: &Team, l: usize, d: usize) {
        let (p, plan) = (self.p, self.plan);
        let by_batch = items::split_by_batch(
            team.size(),
            p.n,
            BATCH_SPLIT_MIN_ROWS,
            self.step_weight_bytes(l),
            if p.cell.has_c_state() && !p.with_projection {
                1
            } else {
                2
            },
        );
        let steps = self.order.map_or(p.t, |o| o.steps());
        // Time index of the first row of a chunk of steps (the rows are by time).
        let t_lo = |chunk: &std::ops::Range<usize>| {
            if p.is_reversed(d) && self.order.is_none() {
                p.t - chunk.end
            } else {
                chunk.start
            }
        };
        unsafe {
            if team.index() == 0 {
                self.initial_state(l, d);
            }
            team.barrier();
            schedule::chunked_steps(
                team,
                (steps, plan.t_chunk),
                plan.fused_layer_gemm,
                by_batch,
                |chunk| self.layer_gemm(team, l, d, t_lo(&chunk), chunk.len()),
                |s, chunk| self.step(team, l, d, s, t_lo(&chunk), by_batch),
            );
            if team.index() == 0 {
                self.final_state(l, d);
            }
        }
    }

    /// Runs a phase of `items` work items of `item_flops` GEMM work each on the team, the
    /// member's share in order (`reverse`: backwards), or balanced ([`items::balanced`], on
    /// the weights a step of layer `l` reads; never when the steps are split `by_batch`).
    fn for_items(
        &self,
        team: &Team,
        l: usize,
        by_batch: bool,
        (items, item_flops): (usize, usize),
        reverse: bool,
        f: impl FnMut(usize),
    ) {
        if items::balanced(team.size(), by_batch, item_flops, self.step_weight_bytes(l)) {
            team.for_each_balanced(items, reverse, f);
        } else {
            team.for_each(items, reverse, f);
        }
    }

    /// Bytes of the weights a step of layer `l` reads (`U`, `W` too when the layer GEMM is
    /// fused, and the projection's).
    fn step_weight_bytes(&self, l: usize) -> usize {
        let (p, plan) = (self.p, self.plan);
        let fused = if !plan.fused_layer_gemm {
            0
        } else if l == 0 {
            plan.slc4
        } else {
            plan.dic4
        };
        let projection = if p.with_projection {
            plan.dhc4 * plan.proj_panels * PANEL
        } else {
            0
        };
        (plan.sic4 + fused) * plan.panels * p.g * PANEL + projection
    }

    /// Step `s`'s (batch rows × panel) items over `panels` panels, on its active rows: one
    /// block of rows per member when split by batch (the same blocks at every step), else all
    /// the rows of a panel per item.
    fn step_items(&self, team: &Team, s: usize, by_batch: bool, panels: usize) -> PhaseItems {
        let n = self.p.n;
        let active = self.order.map_or(n, |o| o.active(s));
        if by_batch {
            PhaseItems::by_block(n, team.size(), panels).clipped(active)
        } else {
            PhaseItems::by_panel(active, active, panels)
        }
    }

    /// Layer `l`'s outputs of direction `d`, row `t·N + n` for time index `t`, sample `n`:
    /// a ping-pong buffer of the scratchpad, or the last layer's columns of `dst_layer`.
    fn output(&self, l: usize, d: usize) -> U8Rows {
        let (p, plan) = (self.p, self.plan);
        if self.output_direct && l + 1 == p.l {
            let v = &self.t.dst_layer;
            return U8Rows {
                ptr: v.at([0, 0, d * p.dic]),
                ld: v.strides[1] as usize,
            };
        }
        U8Rows {
            ptr: self
                .region::<u8>(plan.outputs)
                .wrapping_add((d * 2 + l % 2) * p.t * p.n * plan.dic4),
            ld: plan.dic4,
        }
    }

    /// Layer 0's quantized input of direction `d`, row `t·N + n`: `src_layer`, or its copy in
    /// the scratchpad (with sequence lengths, gathered by step).
    fn input(&self, d: usize) -> U8Rows {
        if self.input_direct {
            let v = &self.t.src_layer;
            return U8Rows {
                ptr: v.ptr,
                ld: v.strides[1] as usize,
            };
        }
        let gathered = if self.order.is_some() { d } else { 0 };
        U8Rows {
            ptr: self
                .region::<u8>(self.plan.input)
                .wrapping_add(gathered * self.p.t * self.p.n * self.plan.slc4),
            ld: self.plan.slc4,
        }
    }

    /// Time index of step `s` of direction `d` (with sequence lengths, the rows are by step).
    fn time(&self, d: usize, s: usize) -> usize {
        if self.p.is_reversed(d) && self.order.is_none() {
            self.p.t - 1 - s
        } else {
            s
        }
    }

    /// The sample of (sorted) row `i`.
    fn sample(&self, i: usize) -> usize {
        self.order.map_or(i, |o| o.sample(i))
    }

    /// The initial `h` (quantized) and `c` of layer `l`, direction `d` (row `i` of sample
    /// [`Self::sample`]`(i)`).
    unsafe fn initial_state(&self, l: usize, d: usize) {
        let (p, plan) = (self.p, self.plan);
        unsafe {
            let h0: *mut u8 = self.lane(plan.h0, d);
            let act = self.t.src_iter.is_some_and(|v| v.dt != DataType::F32);
            for i in 0..p.n {
                let n = self.sample(i);
                for c in 0..plan.sic4 {
                    let v = if c >= p.sic {
                        0
                    } else {
                        let q = match self.t.src_iter {
                            Some(v) if act => v.get([l, d, n, c]) as i32,
                            Some(v) => self.q.quantize(v.get([l, d, n, c])),
                            None => self.q.quantize(0.0),
                        };
                        self.q.store(q)
                    };
                    *h0.add(i * plan.sic4 + c) = v;
                }
            }
            if p.cell.has_c_state() {
                let c: *mut f32 = self.lane(plan.c, d);
                for i in 0..p.n {
                    let n = self.sample(i);
                    for o in 0..p.dhc {
                        *c.add(i * plan.c_ld + o) =
                            self.t.src_iter_c.map_or(0.0, |v| v.get([l, d, n, o]));
                    }
                }
            }
        }
    }

    /// `dst_iter` and `dst_iter_c` of layer `l`, direction `d`: the states after the last
    /// step (with sequence lengths, each sample's last, the initial state for length 0).
    unsafe fn final_state(&self, l: usize, d: usize) {
        let (p, plan) = (self.p, self.plan);
        unsafe {
            if let Some(v) = self.t.dst_iter {
                for i in 0..p.n {
                    let steps = self.order.map_or(p.t, |o| o.len(i));
                    let row = if steps == 0 {
                        self.lane::<u8>(plan.h0, d).add(i * plan.sic4)
                    } else {
                        self.output(l, d).row(self.time(d, steps - 1) * p.n + i)
                    };
                    let n = self.sample(i);
                    for c in 0..p.dic {
                        let s = *row.add(c);
                        let q = s as i32 - self.q.offset;
                        v.put([l, d, n, c], q, self.q.dequantize(q as f32, self.q.shift));
                    }
                }
            }
            if let Some(v) = self.t.dst_iter_c {
                let c: *mut f32 = self.lane(plan.c, d);
                for i in 0..p.n {
                    let n = self.sample(i);
                    for o in 0..p.dhc {
                        v.put([l, d, n, o], 0, *c.add(i * plan.c_ld + o));
                    }
                }
            }
        }
    }

    /// Row `n` of time index `ti` of `dst_layer` from the stored outputs `src(d)` (`DIC`
    /// bytes) of every direction: concatenated, or summed saturated.
    ///
    /// # Safety
    /// `ti`, `n` inside `dst_layer`; each `src(d)` has `DIC` readable bytes.
    unsafe fn write_dst_row(&self, ti: usize, n: usize, src: impl Fn(usize) -> *const u8) {
        let p = self.p;
        let dst = self.t.dst_layer;
        let offset = self.q.offset;
        unsafe {
            let row = |d: usize| std::slice::from_raw_parts(src(d), p.dic);
            if p.direction == Direction::BidirectionalSum {
                for (c, (&a, &b)) in row(0).iter().zip(row(1)).enumerate() {
                    let v = (a as i32 + b as i32 - 2 * offset) as f32;
                    let s = v.clamp(self.q.lo, self.q.hi);
                    let f = self.q.dequantize(s, 2.0 * self.q.shift);
                    dst.put([ti, n, c], s as i32, f);
                }
                return;
            }
            for d in 0..p.d {
                let (src, c0) = (row(d), d * p.dic);
                let to = dst.at([ti, n, c0]);
                let contiguous = dst.strides[2] == dst.dt.size() as isize;
                match dst.dt {
                    // The stored bytes less the s8 offset.
                    DataType::U8 | DataType::S8 if contiguous => {
                        let out = std::slice::from_raw_parts_mut(to, p.dic);
                        for (o, &s) in out.iter_mut().zip(src) {
                            *o = s.wrapping_sub(offset as u8);
                        }
                    }
                    DataType::F32 if contiguous => {
                        let out = to.cast::<f32>();
                        for (c, &s) in src.iter().enumerate() {
                            let q = (s as i32 - offset) as f32;
                            out.add(c)
                                .write_unaligned(self.q.dequantize(q, self.q.shift));
                        }
                    }
                    _ => {
                        for (c, &s) in src.iter().enumerate() {
                            let q = s as i32 - offset;
                            let f = self.q.dequantize(q as f32, self.q.shift);
                            dst.put([ti, n, c0 + c], q, f);
                        }
                    }
                }
            }
        }
    }

    /// Columns of the gate accumulators per row.
    fn gates_ld(&self) -> usize {
        self.plan.gates_ld
    }

    /// The layer GEMM of the `steps` time indices from `t_lo`: `gates[(t − t_lo)·N + n] = x_t[n]
    /// · W`, per (row block × panel) item ([`PhaseItems`]: a member keeps the same panels).
    /// With sequence lengths, only the rows of the samples running at each step.
    unsafe fn layer_gemm(&self, team: &Team, l: usize, d: usize, t_lo: usize, steps: usize) {
        let n = self.p.n;
        let items = PhaseItems::by_panel(steps * n, LAYER_ROW_BLOCK, self.plan.panels);
        let flops = 2 * items.block * self.t.weights[0].layout.groups() * 4 * self.p.g * PANEL;
        let ahead = fetch_ahead(self.t.weights[0].layout.matrix_bytes() / team.size());
        self.for_items(team, l, false, (items.count(), flops), false, |it| {
            let (rows, panel) = items.tile(it);
            let gemm = |rows| {
                let mut g = self.layer_op(l, d, t_lo, rows, panel);
                g.op.ahead = ahead.then_some(std::ptr::null());
                for op in self.t.weights[0].block_ops(&g) {
                    // SAFETY: each item writes its own rows of this panel's columns.
                    unsafe { int8_gemm::gemm(self.kernel, &op) }
                }
            };
            let Some(o) = self.order else {
                return gemm(rows);
            };
            for k in rows.start / n..rows.end.div_ceil(n) {
                let part = rows.start.max(k * n)..rows.end.min(k * n + o.active(t_lo + k));
                if !part.is_empty() {
                    gemm(part);
                }
            }
        });
    }

    /// Rows `rows` (from time index `t_lo`'s first) of the layer GEMM of panel `panel`, into
    /// the gates from their first row: A holds the chunk's rows of `groups·4` bytes, the panel
    /// its groups, C the rows of this panel's columns.
    fn layer_op(
        &self,
        l: usize,
        d: usize,
        t_lo: usize,
        rows: std::ops::Range<usize>,
        panel: usize,
    ) -> PanelGemm {
        let (p, plan) = (self.p, self.plan);
        let x = if l == 0 {
            self.input(d)
        } else {
            self.output(l - 1, d)
        };
        let (a, lda) = (x.row(t_lo * p.n).cast_const(), x.ld);
        let gates: *mut i32 = self.lane(plan.gates, d);
        let groups = self.t.weights[0].layout.groups();
        PanelGemm::new(
            (l, d, panel),
            0..p.g * PANEL,
            (a.wrapping_add(rows.start * lda), lda, rows.len(), groups),
            (
                gates.wrapping_add(rows.start * self.gates_ld() + panel * p.g * PANEL),
                self.gates_ld(),
            ),
            Start::Zero,
        )
    }

    /// The iteration GEMM of a step onto its gates (slot `slot` of its chunk's), for batch
    /// rows `rows` and `vectors` vectors from vector `v0` of panel `panel`, with `a` as the
    /// state (rows of `groups·4` bytes from row 0); C is this panel's columns.
    #[allow(clippy::too_many_arguments)]
    fn iter_op(
        &self,
        (l, d, slot): (usize, usize, usize),
        rows: std::ops::Range<usize>,
        panel: usize,
        (a, lda): (*const u8, usize),
        v0: usize,
        vectors: usize,
    ) -> PanelGemm {
        let p = self.p;
        let gates: *mut i32 = self.lane(self.plan.gates, d);
        let row = slot * p.n + rows.start;
        let col0 = v0 * int8_gemm::VECTOR;
        let groups = self.t.weights[1].layout.groups();
        PanelGemm::new(
            (l, d, panel),
            col0..(col0 + vectors * int8_gemm::VECTOR).min(p.g * PANEL),
            (a.wrapping_add(rows.start * lda), lda, rows.len(), groups),
            (
                gates.wrapping_add(row * self.gates_ld() + panel * p.g * PANEL + col0),
                self.gates_ld(),
            ),
            Start::Accumulate,
        )
    }

    /// A step's iteration GEMM `iter`, after its panel's fused layer GEMM `layer` when there is
    /// one — block by block, summed in the same tiles on the blocks both cover (the layer
    /// GEMM's blocks start from zero, so those only it covers need not come first).
    ///
    /// # Safety
    /// Both GEMMs' operands address what [`Int8Gemm`] says; this item owns their C.
    unsafe fn step_gemm(&self, layer: Option<&PanelGemm>, iter: &PanelGemm) {
        let k = self.kernel;
        let mut iters = self.t.weights[1].block_ops(iter).peekable();
        // SAFETY (every GEMM): the caller's contract.
        for x in layer
            .into_iter()
            .flat_map(|g| self.t.weights[0].block_ops(g))
        {
            match iters.next_if(|y| y.c == x.c) {
                Some(y) => unsafe { int8_gemm::gemm_pair(k, &x, &y) },
                None => unsafe { int8_gemm::gemm(k, &x) },
            }
        }
        for y in iters {
            unsafe { int8_gemm::gemm(k, &y) }
        }
    }

    /// One step of layer `l`, direction `d`: per (batch rows × panel) item of this member's
    /// share ([`Self::step_items`]), the iteration GEMM onto the step's accumulators, then the
    /// post-GEMM ([`postgemm`]). The caller ends it at a barrier.
    unsafe fn step(&self, team: &Team, l: usize, d: usize, s: usize, t_lo: usize, by_batch: bool) {
        let (p, plan) = (self.p, self.plan);
        let ti = self.time(d, s);
        // The step's accumulators in its chunk's.
        let slot = ti - t_lo;
        let out = self.output(l, d);
        let prev = if s == 0 {
            (self.lane::<u8>(plan.h0, d).cast_const(), plan.sic4)
        } else {
            (out.row(self.time(d, s - 1) * p.n).cast_const(), out.ld)
        };
        let items = self.step_items(team, s, by_batch, plan.panels);
        // Where a member's weights of a step overflow half its L2, odd steps walk its items
        // backwards: the panels the last step read last are still in cache (a cyclic walk
        // over more than the cache misses every time).
        let member_bytes = self.step_weight_bytes(l) / if by_batch { 1 } else { team.size() };
        let reverse = s % 2 == 1 && member_bytes > scratch::l2_bytes() / 2;
        let ahead = fetch_ahead(member_bytes);
        let flops = 2 * items.block * plan.sic4 * p.g * PANEL;
        let phase = |f: &mut dyn FnMut(usize)| {
            self.for_items(team, l, by_batch, (items.count(), flops), reverse, f)
        };
        let gates: *mut i32 = self.lane(plan.gates, d);
        let deq: *const f32 = self.region(plan.deq);
        let bias: *const f32 = self
            .region::<f32>(plan.bias)
            .wrapping_add((l * p.d + d) * p.g * p.dhc);
        let hq: *mut u8 = self.lane(plan.hq, d);
        // The tile of rows from `n0` of panel `panel`: its accumulators, dequantization and
        // valid units.
        let tile = |n0: usize, panel: usize| {
            let o0 = panel * PANEL;
            let acc = AccRows {
                ptr: gates.wrapping_add((slot * p.n + n0) * self.gates_ld() + panel * p.g * PANEL),
                ld: self.gates_ld(),
            };
            let dq = Dequant {
                deq: deq.wrapping_add(o0),
                bias: bias.wrapping_add(o0),
                stride: p.dhc,
            };
            (o0, PANEL.min(p.dhc - o0), acc, dq)
        };
        // Rows from `n0`, from unit `o0`.
        let at = |(ptr, ld): (*mut u8, usize), n0: usize, o0: usize| U8Rows {
            ptr: ptr.wrapping_add(n0 * ld + o0),
            ld,
        };
        let out_rows = (out.row(ti * p.n), out.ld);
        let prev_rows = (prev.0.cast_mut(), prev.1);
        let hq_rows = (hq, plan.dhc4);
        let op = (l, d, slot);
        // SAFETY (every tile): a tile's accumulators, c-state units and output units are
        // this item's own; the previous state is complete (barrier, or this member's own rows
        // when split by batch) and read-only now.
        unsafe {
            // Item `it`'s GEMMs — the fused layer GEMM when `layer` and the plan fuses it,
            // then the iteration GEMM of `vectors` vectors from `v0` with `a` as the state —
            // and its (rows, panel); none for an empty item.
            let gemms =
                |it: usize, a: (*const u8, usize), v0: usize, vectors: usize, layer: bool| {
                    let (rows, panel) = items.tile(it);
                    if rows.is_empty() {
                        return None;
                    }
                    let layer = (layer && plan.fused_layer_gemm)
                        .then(|| self.layer_op(l, d, ti, rows.clone(), panel));
                    let mut iter = self.iter_op(op, rows.clone(), panel, a, v0, vectors);
                    if ahead {
                        // the panel of the member's next item
                        let next = if reverse {
                            panel.checked_sub(1)
                        } else {
                            Some(panel + 1).filter(|&q| q < plan.panels)
                        };
                        let w = self.t.weights[1];
                        iter.op.ahead = Some(
                            next.map_or(std::ptr::null(), |q| w.column(l, d, q, iter.cols.start)),
                        );
                    }
                    self.step_gemm(layer.as_ref(), &iter);
                    Some((rows, panel))
                };
            if p.cell.has_c_state() {
                let c: *mut f32 = self.lane(plan.c, d);
                phase(&mut |it| {
                    let Some((rows, panel)) = gemms(it, prev, 0, p.g * 2, true) else {
                        return;
                    };
                    let (o0, valid, acc, dq) = tile(rows.start, panel);
                    let t = postgemm::LstmTile {
                        rows: rows.len(),
                        valid,
                        acc,
                        dq,
                        c: TileRows {
                            ptr: c.add(rows.start * plan.c_ld + o0),
                            stride: plan.c_ld as isize,
                        },
                        h: if p.with_projection {
                            at(hq_rows, rows.start, o0)
                        } else {
                            at(out_rows, rows.start, o0)
                        },
                    };
                    postgemm::lstm_tile(self.isa, &t, &self.q);
                });
                if p.with_projection {
                    if !by_batch {
                        team.barrier();
                    }
                    let proj = items.with_panels(plan.proj_panels);
                    self.projection(team, (l, d, ti), proj, by_batch);
                }
            } else {
                let gru = |n0: usize, rows: usize, panel: usize, to: (*mut u8, usize)| {
                    let (o0, valid, acc, dq) = tile(n0, panel);
                    postgemm::GruTile {
                        rows,
                        valid,
                        acc,
                        dq,
                        h_prev: at(prev_rows, n0, o0),
                        out: at(to, n0, o0),
                    }
                };
                phase(&mut |it| {
                    let Some((rows, panel)) = gemms(it, prev, 0, 4, true) else {
                        return;
                    };
                    let t = gru(rows.start, rows.len(), panel, hq_rows);
                    postgemm::gru_part1(self.isa, &t, &self.q);
                });
                if !by_batch {
                    team.barrier();
                }
                phase(&mut |it| {
                    let Some((rows, panel)) = gemms(it, (hq, plan.dhc4), 4, 2, false) else {
                        return;
                    };
                    let t = gru(rows.start, rows.len(), panel, out_rows);
                    postgemm::gru_part2(self.isa, &t, &self.q);
                });
            }
        }
    }

    /// LSTMP: the projection of the requantized `h` of one step, per (batch rows × panel of
    /// DIC) item of `items` (`by_batch`: the step's rows are split by batch), requantized into
    /// the step's output rows.
    unsafe fn projection(
        &self,
        team: &Team,
        (l, d, ti): (usize, usize, usize),
        items: PhaseItems,
        by_batch: bool,
    ) {
        let (p, plan) = (self.p, self.plan);
        let out = self.output(l, d);
        let out_row = |n: usize| out.row(ti * p.n + n);
        let w = self.t.projection.expect("LSTMP has projection weights");
        let acc: *mut i32 = self.lane(plan.proj, d);
        let ld = plan.proj_panels * PANEL;
        let deq: *const f32 = self.region::<f32>(plan.deq).wrapping_add(p.g * p.dhc);
        let shift = self.q.stored_shift();
        unsafe {
            let hq: *mut u8 = self.lane(plan.hq, d);
            let flops = 2 * items.block * plan.dhc4 * PANEL;
            self.for_items(team, l, by_batch, (items.count(), flops), false, |it| {
                let (rows, panel) = items.tile(it);
                if rows.is_empty() {
                    return;
                }
                let g = PanelGemm::new(
                    (l, d, panel),
                    0..PANEL,
                    (
                        hq.add(rows.start * plan.dhc4),
                        plan.dhc4,
                        rows.len(),
                        w.layout.groups(),
                    ),
                    (acc.add(rows.start * ld + panel * PANEL), ld),
                    Start::Zero,
                );
                for op in w.block_ops(&g) {
                    int8_gemm::gemm(self.kernel, &op);
                }
                // The panel's compensation and dequantization, then whole rows of it (the
                // columns past DIC are computed and not stored).
                let k0 = panel * PANEL;
                let valid = PANEL.min(p.dic - k0);
                let (mut comp, mut dq) = ([0f32; PANEL], [0f32; PANEL]);
                for u in 0..valid {
                    comp[u] = w.comp(l, d, 0, k0 + u) as f32 * shift;
                    dq[u] = *deq.add(k0 + u);
                }
                let t = postgemm::ProjectionTile {
                    rows: rows.len(),
                    valid,
                    acc: AccRows {
                        ptr: acc.add(rows.start * ld + k0),
                        ld,
                    },
                    comp: &comp,
                    dq: &dq,
                    h: U8Rows {
                        ptr: out_row(rows.start).add(k0),
                        ld: out.ld,
                    },
                };
                postgemm::requantize_projection(self.isa, &t, &self.q);
            });
        }
    }
}
