//! int8 RNN inference (reference §a.5, §a.9, §a.14): u8 (or s8) activations, s8 weights, f32
//! bias and c-states, s32 accumulation. Which data-type combinations are int8 problems
//! ([`Int8Config`]), the attribute checks, the scratchpad plan ([`Int8Plan`]) and the driver
//! ([`forward`]).

pub mod exec;
pub mod forward;
#[cfg(target_arch = "x86_64")]
mod lstm_avx512;
pub mod postgemm;

use super::arena::{Arena, Region};
use super::cells::CellKind;
use super::desc::RnnDesc;
use super::problem::RnnProblem;
use super::scratch;
use super::seq_lengths;
use crate::args;
use crate::attr::{Attr, WeightsQParams};
use crate::error::Result;
use crate::kernels::int8_gemm::Int8Kernel;
use crate::kernels::Isa;
use crate::memory::packed_int8::{Int8Layout, PANEL};
use crate::memory::PackedLayout;
use crate::threading;
use crate::types::{DataType, PropKind};
use crate::{ensure_args, size, unimplemented_err};

/// The data types of an int8 problem (oneDNN's `u8u8u8u8`, `u8u8u8f32`, `f32u8f32f32`,
/// `f32u8f32u8` and their s8 twins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int8Config {
    /// Activations: `src_layer` and every quantized state (u8 or s8).
    pub act: DataType,
    /// `src_iter` / `dst_iter`: `act` or f32 (then quantized on entry, dequantized on exit).
    pub iter: DataType,
    /// `dst_layer`: `act` or f32 (dequantized).
    pub dst_layer: DataType,
}

impl Int8Config {
    /// The int8 configuration of a descriptor: `None` when its weights are not s8 (not an
    /// int8 problem); `unimplemented` for s8 weights with any combination, propagation kind or
    /// cell oneDNN's CPU engine does not run in int8 (GRU with s8 activations: [`Self::check_cell`]).
    pub fn of(desc: &RnnDesc, cell: CellKind) -> Result<Option<Self>> {
        let dt = |arg| desc.md(arg).map(|m| m.data_type());
        let weights = [dt(args::WEIGHTS_LAYER), dt(args::WEIGHTS_ITER)];
        if !weights.contains(&Some(DataType::S8)) {
            return Ok(None);
        }
        let act = dt(args::SRC_LAYER).unwrap_or(DataType::Undef);
        let iters: Vec<DataType> = [args::SRC_ITER, args::DST_ITER]
            .into_iter()
            .filter_map(dt)
            .collect();
        let iter = iters.first().copied().unwrap_or(act);
        let dst_layer = dt(args::DST_LAYER).unwrap_or(DataType::Undef);
        let f32_or_absent = |arg| matches!(dt(arg), None | Some(DataType::F32));
        let ok = matches!(act, DataType::U8 | DataType::S8)
            && weights == [Some(DataType::S8); 2]
            && iters.iter().all(|&d| d == iter)
            && (iter == act || iter == DataType::F32)
            && (dst_layer == act || dst_layer == DataType::F32)
            && f32_or_absent(args::BIAS)
            && f32_or_absent(args::SRC_ITER_C)
            && f32_or_absent(args::DST_ITER_C)
            && dt(args::WEIGHTS_PEEPHOLE).is_none()
            && matches!(dt(args::WEIGHTS_PROJECTION), None | Some(DataType::S8));
        if !ok {
            let names: Vec<String> = desc
                .mds
                .iter()
                .map(|(&a, m)| format!("{}:{}", args::rnn_name(a), m.data_type()))
                .collect();
            unimplemented_err!(
                "int8 RNN with data types {}: oneDNN's int8 configurations are u8 (or s8) \
                 activations, s8 weights (and projection), f32 bias and c-states, states in \
                 the activations' type or f32, no peephole",
                names.join(" ")
            );
        }
        if desc.prop != PropKind::ForwardInference {
            unimplemented_err!("int8 RNN: forward inference only");
        }
        if !matches!(cell, CellKind::Lstm | CellKind::Gru) {
            unimplemented_err!(
                "int8 RNN: {} is not implemented (LSTM and GRU)",
                cell.name()
            );
        }
        Ok(Some(Self {
            act,
            iter,
            dst_layer,
        }))
    }

    /// `unimplemented` for a cell these activations do not run: GRU takes u8 only. oneDNN
    /// answers this after the dimensions (inconsistent ones are `invalid_arguments` first), so
    /// the caller checks it after them.
    pub fn check_cell(&self, cell: CellKind) -> Result<()> {
        if cell == CellKind::Gru && self.act != DataType::U8 {
            unimplemented_err!("int8 RNN with {} activations: GRU takes u8 only", self.act);
        }
        Ok(())
    }

    /// Checks the quantization attributes against the problem: weights scales with mask 0
    /// (one) or 24 (`G·DHC`), projection scales with mask 0 or 8 (`DIC`); s8 activations need
    /// a zero shift (`unimplemented` otherwise, as oneDNN).
    pub fn check_attr(&self, p: &RnnProblem, attr: &Attr) -> Result<()> {
        let check = |name: &str, q: &WeightsQParams, per_channel_mask: i32, count: usize| {
            let want = match q.mask {
                0 => 1,
                m if m == per_channel_mask => count,
                m => unimplemented_err!(
                    "{name} scales mask {m}: 0 or {per_channel_mask} is implemented"
                ),
            };
            ensure_args!(
                q.scales.len() == want,
                "{name} scales: mask {} takes {want} scales, {} given",
                q.mask,
                q.scales.len()
            );
            Ok(())
        };
        check("weights", &attr.rnn_weights_qparams, 24, p.g * p.dhc)?;
        if p.with_projection {
            check(
                "projection weights",
                &attr.rnn_weights_projection_qparams,
                8,
                p.dic,
            )?;
        }
        if self.act == DataType::S8 && attr.rnn_data_qparams.1 != 0.0 {
            unimplemented_err!("int8 RNN with s8 activations needs a zero data shift");
        }
        if attr.rnn_tparams.test_mode {
            unimplemented_err!("int8 RNN in test mode (linear activations)");
        }
        Ok(())
    }
}

/// The scratchpad of an int8 execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Int8Plan {
    /// Bytes per row of layer 0's input (`SLC` rounded up to 4).
    pub slc4: usize,
    /// Bytes per row of every layer's output (`DIC` rounded up to 4).
    pub dic4: usize,
    /// Bytes per row of the initial state (`SIC` rounded up to 4).
    pub sic4: usize,
    /// Bytes per row of the requantized `h` before the projection / GRU's `r⊙h` (`DHC`
    /// rounded up to 4).
    pub dhc4: usize,
    /// Panels of hidden units.
    pub panels: usize,
    /// Panels of projection outputs.
    pub proj_panels: usize,
    /// Layer 0's quantized input `[T][N][slc4]`; with sequence lengths, gathered by step in
    /// the batch order for each direction, `[D][T][N][slc4]`
    /// (see [`seq_lengths`]).
    pub input: Region,
    /// Sequence lengths: the batch order ([`seq_lengths::order_floats`]), and a row of
    /// `dic4` stored quantized zeros (a direction's output past a sample's length).
    pub seq: Option<(Region, Region)>,
    /// Each direction's two layer outputs (ping-pong) `[D][2][T][N][dic4]`.
    pub outputs: Region,
    /// The initial state of the current layer `[N][sic4]` (per lane).
    pub h0: Region,
    /// Steps per layer-GEMM chunk (`scratch::layer_gemm_steps`, `long_chunks`).
    pub t_chunk: usize,
    /// The layer GEMM runs in each step's items, on the step's rows, just before the
    /// iteration GEMM (`t_chunk` is 1): when the batch is large and each member's share of
    /// `W` + `U` is small enough (`fuses`), so that a step's gates never leave the core's
    /// caches.
    pub fused_layer_gemm: bool,
    /// Row stride of `gates`: `panels·G·32` values and a cache line (rows a multiple of 4 KiB
    /// apart share one L1 set: a 16-row tile would overflow its ways).
    pub gates_ld: usize,
    /// Gate accumulators of a chunk's steps `[t_chunk·N][gates_ld]` (s32, per lane).
    pub gates: Region,
    /// Row stride of `c`: DHC and a cache line (as `gates_ld`).
    pub c_ld: usize,
    /// The c-state `[N][c_ld]` (f32, LSTM, per lane).
    pub c: Region,
    /// Requantized `h` (LSTMP) or `r⊙h` (GRU) `[N][dhc4]` (per lane).
    pub hq: Region,
    /// Projection accumulators `[N][proj_panels·32]` (s32).
    pub proj: Region,
    /// Directions running at the same time (1 or 2, [`scratch::concurrent_directions`]): the
    /// regions a pass writes (`h0`, `gates`, `c`, `hq`, `proj`) then have one copy each
    /// ([`Int8Plan::lane`]). Only when the weights a step of one direction reads fit in half
    /// a core's L2: a half team of one member keeps them there, while larger ones are better
    /// shared by panel over the whole team, each member's part in its L2 (2 threads, on a
    /// loaded Xeon: bidirectional LSTM N=16 C=512, 2 MiB of `W` + `U` fused, 1.35 times
    /// slower on half teams; N=1 C=512, 1 MiB of `U`, 0.9 times).
    pub lanes: usize,
    /// Compensated bias `[L][D][G][DHC]` (f32).
    pub bias: Region,
    /// Dequantization factors `1/(ws·scale)` `[G][DHC]` and projection ones `[DIC]`.
    pub deq: Region,
    /// Plain weights packed at execution (layer, iter, projection).
    pub packed: [Option<Region>; 3],
    /// Total bytes.
    pub bytes: usize,
}

/// Batch from which the layer GEMM may be fused into the steps ([`Int8Plan::fused_layer_gemm`]).
const FUSED_LAYER_GEMM_MIN_BATCH: usize = 16;

/// Whether the layer GEMM is fused into the steps for a member's share `member_bytes` of
/// `W` + `U`. A fused step reads both; what overflows the L2 streams from the last-level
/// cache at every step, against the merged layer GEMM's round trip of a chunk's gates
/// through it. AMX tiles multiply so fast that the stream costs more: up to half the L2.
/// The vector kernels hide it behind their products up to a share somewhat above the L2
/// (LSTM and GRU C=512–640 at 2 threads, 1–1.7 MiB a member on 1 MiB L2s, were 3–10 %
/// faster fused; 2.25 MiB and more slower): below twice the L2.
fn fuses(member_bytes: usize, kernel: Int8Kernel) -> bool {
    let l2 = scratch::l2_bytes();
    if kernel == Int8Kernel::Amx {
        member_bytes <= l2 / 2
    } else {
        member_bytes < 2 * l2
    }
}

/// Whether the merged layer GEMM runs in long chunks ([`scratch::layer_gemm_steps`]) for a
/// member's share `member_w_bytes` of `W` (`weight_bytes` of `W` + `U` in all). With the
/// vector kernels, when that share overflows the L2: every chunk streams it from the
/// last-level cache again, which costs more than gates that leave it (LSTM N=32 C=1024 at 2
/// threads, one chunk of 25 steps rather than four: 3 % faster; LSTM N=64 C=768 and GRU N=16
/// C=1024 2–5 %). AMX tiles keep the f32 driver's rule.
fn long_chunks(member_w_bytes: usize, weight_bytes: usize, kernel: Int8Kernel) -> bool {
    if kernel == Int8Kernel::Amx {
        scratch::weights_leave_llc(weight_bytes)
    } else {
        member_w_bytes > scratch::l2_bytes()
    }
}

/// Pushes a region of the product of `factors` bytes.
fn push_bytes(a: &mut Arena, factors: &[usize]) -> Result<Region> {
    push_lanes(a, 1, factors)
}

/// Pushes `lanes` copies of a region of the product of `factors` bytes, each a whole number
/// of cache lines.
fn push_lanes(a: &mut Arena, lanes: usize, factors: &[usize]) -> Result<Region> {
    let bytes = size::product("RNN int8 scratchpad", factors)?;
    a.push(&[lanes, bytes.div_ceil(64) * 16])
}

impl Int8Plan {
    /// The plan of problem `p`; `plain[k]` tells which of weights layer, iter, projection are
    /// given in a plain layout (packed at every execution).
    pub fn new(p: &RnnProblem, plain: [bool; 3]) -> Result<Self> {
        let r4 = |v: usize| v.div_ceil(4) * 4;
        let (slc4, dic4, sic4, dhc4) = (r4(p.slc), r4(p.dic), r4(p.sic), r4(p.dhc));
        let panels = p.dhc.div_ceil(PANEL);
        let proj_panels = p.dic.div_ceil(PANEL);
        let mut a = Arena::new("RNN int8 scratchpad");
        let input_dirs = if p.seq_lengths { p.d } else { 1 };
        let input = push_bytes(&mut a, &[input_dirs, p.t, p.n, slc4])?;
        let seq = p
            .seq_lengths
            .then(|| -> Result<_> {
                let order = a.push(&[seq_lengths::order_floats(p)?])?;
                Ok((order, push_bytes(&mut a, &[dic4])?))
            })
            .transpose()?;
        let outputs = push_bytes(&mut a, &[p.d, 2, p.t, p.n, dic4])?;
        // Byte counts compared with cache sizes, where saturating is exact.
        let gates_ld = size::add(
            "RNN int8 scratchpad",
            panels * p.g * PANEL,
            scratch::ROW_PAD,
        )?;
        let row_bytes = (p.n * gates_ld).saturating_mul(4);
        let weight_bytes = (p.slc.saturating_add(p.sic)).saturating_mul(p.g * p.dhc);
        let members = threading::num_threads().max(1);
        let kernel = Int8Kernel::for_isa(Isa::detected());
        let fused_layer_gemm =
            p.n >= FUSED_LAYER_GEMM_MIN_BATCH && fuses(weight_bytes / members, kernel);
        let t_chunk = if fused_layer_gemm {
            1.min(p.t)
        } else {
            let w_bytes = p.slc.max(p.dic).saturating_mul(p.g * p.dhc);
            let long = long_chunks(w_bytes / members, weight_bytes, kernel);
            scratch::layer_gemm_steps(p.t, row_bytes, long)
        };
        // The weights a step of one direction reads (`U`, `W` when fused, the projection).
        let fused_k = if fused_layer_gemm {
            p.slc.max(p.dic)
        } else {
            0
        };
        let step_bytes = (p.sic.saturating_add(fused_k))
            .saturating_mul(p.g * p.dhc)
            .saturating_add(p.dhc.saturating_mul(p.dic) * usize::from(p.with_projection));
        let lanes = if step_bytes <= scratch::l2_bytes() / 2 {
            scratch::concurrent_directions(p)
        } else {
            1
        };
        let h0 = push_lanes(&mut a, lanes, &[p.n, sic4])?;
        let gates = push_lanes(&mut a, lanes, &[t_chunk, p.n, gates_ld, 4])?;
        let c_ld = size::add("RNN int8 scratchpad", p.dhc, scratch::ROW_PAD)?;
        let c = push_lanes(&mut a, lanes, &[p.n, c_ld, 4])?;
        let hq = push_lanes(&mut a, lanes, &[p.n, dhc4])?;
        let proj = push_lanes(&mut a, lanes, &[p.n, proj_panels, PANEL, 4])?;
        let bias = a.push(&[p.l, p.d, p.g, p.dhc])?;
        let deq = a.push(&[size::add("RNN int8 scratchpad", p.g * p.dhc, p.dic)?])?;
        let dims = [
            [p.l, p.d, p.slc, p.g, p.dhc],
            [p.l, p.d, p.sic, p.g, p.dhc],
            [p.l, p.d, p.dhc, 1, p.dic],
        ];
        let mut packed = [None; 3];
        for k in 0..3 {
            if plain[k] && (k < 2 || p.with_projection) {
                let [l, d, i, g, o] = dims[k].map(|v| v as i64);
                let lay = Int8Layout::new(&PackedLayout::from_dims(&[l, d, i, g, o])?)?;
                packed[k] = Some(push_bytes(&mut a, &[lay.bytes()])?);
            }
        }
        Ok(Self {
            slc4,
            dic4,
            sic4,
            dhc4,
            panels,
            proj_panels,
            t_chunk,
            fused_layer_gemm,
            gates_ld,
            c_ld,
            input,
            seq,
            outputs,
            h0,
            gates,
            c,
            hq,
            proj,
            lanes,
            bias,
            deq,
            packed,
            bytes: a.bytes(),
        })
    }

    /// Direction `d`'s copy of a per-pass region inside the scratchpad at `base`.
    pub fn lane<T>(&self, region: Region, base: *mut u8, d: usize) -> *mut T {
        let per_lane = region.len / self.lanes;
        base.wrapping_add(region.offset + 4 * (d % self.lanes * per_lane))
            .cast()
    }
}
