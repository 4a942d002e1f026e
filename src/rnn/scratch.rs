//! The scratchpad: temporary buffers of one execution, sized when the pd is created.
//!
//! Regions (f32, 64-byte aligned), see [`ScratchLayout`]:
//!
//! | region          | dims                    | use |
//! |-----------------|-------------------------|-----|
//! | `gates`         | `[Tc][N][P·G·32 + 16]`  | gate pre-activations of `Tc` consecutive steps (1 when the layer GEMM is fused into the steps), in packed panel order (`P` = ⌈DHC/32⌉) |
//! | `h_slots`       | `[S][T][N][DIC]`        | inference only: hidden states of layers whose output is not `dst_layer` (S ≤ 2, alternating) |
//! | `c`             | `[N][DHC]`              | inference only: cell state, updated in place step by step |
//! | `ht`            | `[N][DHC]`              | LSTMP inference: h̃ = o ⊙ tanh(c) of one step, before projection (training keeps it in the workspace) |
//! | `proj`          | `[N][Q·32]`             | LSTMP: the projection GEMM's output of one step, in 32-channel panels (`Q` = ⌈DIC/32⌉), copied from there to where h goes |
//! | `bias`          | `[L][D][P·G·32]`        | bias in panel order, zero-padded (zeros when absent) |
//! | `seq_lengths`   | see `SeqLengthsLayout`  | per-sample sequence lengths only: the batch order, the gathered inputs |
//! | `weights_layer` | packed, as `memory::packed` | only when the user's weights are plain: packed at each execution |
//! | `weights_iter`  | packed                  | same for the recurrent weights |
//! | `weights_projection` | packed             | same for the projection weights (LSTMP) |
//!
//! Rows of `gates` (and of LBR's `rec`) carry 16 floats of padding: with a row length of a
//! multiple of 4 KiB (e.g. 4·1024 gates) every row of a tile would fall in the same L1 set.
//!
//! With two directions and at least two threads, the directions run at the same time
//! (`lanes` = 2): every region a pass writes (`gates` to `proj` above) is then allocated twice,
//! one copy per direction ([`ScratchLayout::lane`]). With sequence lengths `h_slots` has a copy
//! per direction even when they take turns: the last layer's outputs of both wait there to be
//! scattered to `dst_layer` ([`ScratchLayout::h_slots_of`]).
//!
//! Weights must be re-read at every execution (the user may change them between executions, as a
//! training loop does), so plain weights are packed into the scratchpad each time — one pass over
//! the weights; `format_tag::any` weights (packed once by a reorder) skip it.

use super::arena::{Arena, Region};
use super::cells::CellKind;
use super::problem::RnnProblem;
use super::seq_lengths::SeqLengthsLayout;
use super::weights;
use crate::error::Result;
use crate::memory::packed::PANEL;
use crate::size;
use crate::threading;
use crate::types::Direction;

/// Floats added to the rows of scratch matrices read and written by tiles (see
/// [`ScratchLayout::gates_ld`]): one cache line.
pub const ROW_PAD: usize = 16;
/// Bytes of gate pre-activations kept at once; the merged layer GEMM runs over that many steps.
const GATES_BUDGET_BYTES: usize = 4 << 20;
/// The same when `W` + `U` do not stay in the last-level cache
/// ([`FUSED_LAYER_GEMM_MAX_WEIGHT_BYTES`]): each chunk's layer GEMM then evicts `U`, and the
/// first step after it reads `U` from memory, so fewer, longer chunks pay off.
const GATES_BUDGET_LARGE_WEIGHTS_BYTES: usize = 16 << 20;
/// Batch from which the layer GEMM may be fused into each step's tiles (see [`ScratchLayout`]):
/// enough rows for the fused tiles to be as fast as the merged GEMM's.
const FUSED_LAYER_GEMM_MIN_BATCH: usize = 32;
/// The same when a thread's share of the weights every step reads (`U`, and `R` with a
/// projection) is larger than [`L2_BYTES`]: merged, the steps would stream them from the
/// last-level cache anyway, so streaming `W` beside them costs little, and the gates no longer
/// go through memory. Below it, even a single step stays merged (a decoder step of a few beams
/// is faster so).
const FUSED_LAYER_GEMM_MIN_BATCH_STREAMED_U: usize = 16;
/// Bytes of the per-core cache that keeps a thread's share of `U` between steps (L2 of Zen 4/5).
pub const L2_BYTES: usize = 1 << 20;

/// Bytes of a core's L2 (from CPUID; [`L2_BYTES`] where it does not say).
pub fn l2_bytes() -> usize {
    crate::kernels::isa::l2_cache_bytes(L2_BYTES)
}
/// Largest `W` + `U` of one layer and direction for a fused layer GEMM: both are read at every
/// step then, so they must stay in the last-level cache.
const FUSED_LAYER_GEMM_MAX_WEIGHT_BYTES: usize = 16 << 20;

/// Whether a thread's share of the weights every step reads (`step_bytes`: `U`, and `R` with
/// a projection) stays in its L2 between steps while its share of `W` + `U` (`weight_bytes`)
/// does not — up to ¾ of the L2, the rest left to the gates, `h` and the converted `A`. bf16
/// inference steps then stay merged: fused, every step would stream `W` and evict `U`;
/// merged, the layer GEMM reads `W` once per chunk (one big AMX product) and the steps find
/// `U` in L2. Training keeps the fused steps (merged, they were not faster).
fn u_stays_only(step_bytes: usize, weight_bytes: usize) -> bool {
    let kept = l2_bytes() / 4 * 3;
    step_bytes <= kept && weight_bytes > kept
}

/// Bytes of `W` + `U` of one layer and direction (saturated: compared with cache sizes).
fn layer_weight_bytes(p: &RnnProblem, weight_size: usize, gates_width: usize) -> usize {
    (p.slc.saturating_add(p.sic))
        .saturating_mul(gates_width)
        .saturating_mul(weight_size)
}

/// Whether the steps of `p` fuse the layer GEMM into their tiles (see [`ScratchLayout`]), with
/// `members` threads per direction and packed weights of `weight_size` bytes, `gates_width`
/// columns.
fn fuses_layer_gemm(
    p: &RnnProblem,
    members: usize,
    weight_size: usize,
    gates_width: usize,
) -> bool {
    let weight_bytes = layer_weight_bytes(p, weight_size, gates_width);
    // A thread's share of the weights every step reads: `U`, and `R` with a projection.
    let projection_bytes = if p.with_projection {
        p.dhc
            .saturating_mul(p.dic.div_ceil(PANEL).saturating_mul(PANEL))
            .saturating_mul(weight_size)
    } else {
        0
    };
    let step_bytes = p
        .sic
        .saturating_mul(gates_width)
        .saturating_mul(weight_size)
        .saturating_add(projection_bytes)
        / members;
    let min_batch = if step_bytes > L2_BYTES {
        FUSED_LAYER_GEMM_MIN_BATCH_STREAMED_U
    } else {
        FUSED_LAYER_GEMM_MIN_BATCH
    };
    p.n >= min_batch
        && weight_bytes <= FUSED_LAYER_GEMM_MAX_WEIGHT_BYTES
        && !(weights::pairs(p)
            && !p.is_training()
            && u_stays_only(step_bytes, weight_bytes / members))
}

/// Directions that run at the same time for a problem: both of a bidirectional one when the
/// library's pool has at least two threads.
pub fn concurrent_directions(p: &RnnProblem) -> usize {
    if p.d == 2 && threading::num_threads() >= 2 {
        2
    } else {
        1
    }
}

/// Whether `weight_bytes` of `W` + `U` overflow what stays in the last-level cache.
pub fn weights_leave_llc(weight_bytes: usize) -> bool {
    weight_bytes > FUSED_LAYER_GEMM_MAX_WEIGHT_BYTES
}

thread_local! {
    /// Test seam ([`with_gates_budget`]).
    static GATES_BUDGET_OVERRIDE: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

/// Test seam: runs `f` with [`layer_gemm_steps`] sizing the chunks of the primitive
/// descriptors this thread creates for `bytes` of gates (1: one step per chunk), so that
/// small problems run their steps in several chunks.
#[doc(hidden)]
pub fn with_gates_budget<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    let before = GATES_BUDGET_OVERRIDE.replace(Some(bytes));
    let out = f();
    GATES_BUDGET_OVERRIDE.set(before);
    out
}

/// Steps per merged layer-GEMM chunk (≥ 1 unless `t` = 0), for gate rows of `row_bytes` per
/// step: as many as `GATES_BUDGET_BYTES` of gates hold (`GATES_BUDGET_LARGE_WEIGHTS_BYTES`
/// when `long`: each chunk's layer GEMM costs more than the gates' trips to memory, e.g. the
/// weights do not stay in the last-level cache), in chunks of nearly equal length (T = 25 at
/// most 8 per chunk: 7, 7, 7, 4 rather than 8, 8, 8, 1 — a 1-step chunk reads all of W for N
/// rows).
pub fn layer_gemm_steps(t: usize, row_bytes: usize, long: bool) -> usize {
    let budget = GATES_BUDGET_OVERRIDE.get().unwrap_or(if long {
        GATES_BUDGET_LARGE_WEIGHTS_BYTES
    } else {
        GATES_BUDGET_BYTES
    });
    let most = (budget / row_bytes.max(1)).clamp(1, t.max(1));
    t.div_ceil(t.div_ceil(most).max(1)).min(t)
}

/// Offsets of the scratchpad regions for one problem, and where the layer GEMM runs.
///
/// The layer GEMM `x·W` either runs **merged**, once for `t_chunk` steps at a time (rows
/// `t_chunk·N`: each weight panel is read once for many rows — what small batches and weights
/// larger than the cache need), or **fused** into each step's tiles just before `h·U` (large
/// batches with cache-resident weights, or moderate ones whose `U` is streamed at each step
/// anyway: a tile's gates never leave the core's caches, and a step has no separate layer
/// phase).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScratchLayout {
    /// Directions running at the same time (1 or 2): per-pass regions have one copy each.
    pub lanes: usize,
    /// Gate pre-activations `[t_chunk][N][gates_ld]` (the first `gates_width` floats of a row
    /// used).
    pub gates: Region,
    /// Width of one row of gate pre-activations: `P·G·32`.
    pub gates_width: usize,
    /// Row stride of `gates` and `rec`: `P·G·32` + 16 floats, so that consecutive rows fall in
    /// different L1 sets (a stride of a multiple of 4 KiB puts every row of a tile in the same
    /// set: 16 rows overflow its 12 ways).
    pub gates_ld: usize,
    /// Layer GEMM fused into the steps (then `t_chunk` is 1).
    pub fused_layer_gemm: bool,
    /// Packed 32-unit panels per work item of a pass: two for a vanilla RNN whose weights stay
    /// in the members' L2s — its one-gate panels are 32 columns wide, and two side by side make
    /// 6 × 4 register tiles instead of 13 × 2 (on a Xeon, one thread, 32 rows, `B` in L2: 1.038
    /// times the throughput; streamed, where the wide tiles lose the next column's fetch, 0.99;
    /// X3 16.6 → 16.1 ms) — else one.
    pub panel_run: usize,
    /// Steps per layer-GEMM chunk (≥ 1 unless T = 0).
    pub t_chunk: usize,
    /// Inference hidden-state slots `[copies][n_slots][T][N][DIC]`: a copy per lane, or per
    /// direction with sequence lengths (the last layer's outputs of both directions are
    /// kept until they are scattered to `dst_layer`, even when the directions take turns).
    pub h_slots: Region,
    /// Copies of `h_slots` ([`Self::h_slots_of`]).
    h_slot_copies: usize,
    /// Inference cell state `[N][DHC]`.
    pub c: Region,
    /// Staged bias `[L][D][P·G·32]`.
    pub bias: Region,
    /// GRU / AUGRU: `r ⊙ h_prev` of one step, `[N][DHC]` (empty for the other cells).
    pub rh: Region,
    /// Linear-before-reset cells: the recurrent product of one step, `[N][P·G·32]`, and its
    /// staged bias (`b_u'` on the `o` gate, zeros elsewhere) `[L][D][P·G·32]` (empty otherwise).
    pub rec: Region,
    /// See `rec`.
    pub bias_rec: Region,
    /// LSTM peephole weights staged like the bias, `[L][D][P·3·32]` (empty without them).
    pub peephole: Region,
    /// LSTMP inference: pre-projection h̃ of one step `[N][DHC]` (else empty).
    pub ht: Region,
    /// LSTMP: projection output of one step `[N][Q·32]` (else empty).
    pub proj: Region,
    /// Per-sample sequence lengths: the batch order and the gathered inputs.
    pub seq_lengths: Option<SeqLengthsLayout>,
    /// Packed copy of plain `weights_layer`.
    pub weights_layer: Option<Region>,
    /// Packed copy of plain `weights_iter`.
    pub weights_iter: Option<Region>,
    /// Packed copy of plain `weights_projection`.
    pub weights_projection: Option<Region>,
    /// Total size in bytes.
    pub bytes: usize,
}

impl ScratchLayout {
    /// The layout for a problem; `pack_layer` / `pack_iter` / `pack_projection` when that weights
    /// tensor is plain. Every region's size is checked (`invalid_arguments` when one does not
    /// fit) and nothing walks the layers or steps, whatever L and T are.
    pub fn new(
        p: &RnnProblem,
        pack_layer: bool,
        pack_iter: bool,
        pack_projection: bool,
    ) -> Result<Self> {
        let mut a = Arena::new("RNN scratchpad");
        let f32s = std::mem::size_of::<f32>();
        // Bytes of a weight: bf16 pairs hold two per 4-byte word.
        let pairs = weights::pairs(p);
        let weight_size = if pairs { f32s / 2 } else { f32s };
        // Stored rows of weights with `k` input rows (`memory::packed`).
        let stored = |k: usize| if pairs { k.div_ceil(2) } else { k };
        let gates_width =
            size::product("RNN scratchpad gates", &[p.dhc.div_ceil(PANEL), p.g, PANEL])?;
        let gates_ld = size::add("RNN scratchpad gates", gates_width, ROW_PAD)?;
        // Heuristics: byte counts compared with cache sizes, where saturating is exact.
        let row_bytes = p.n.saturating_mul(gates_ld).saturating_mul(f32s).max(1);
        let weight_bytes = layer_weight_bytes(p, weight_size, gates_width);
        let lanes = concurrent_directions(p);
        let members = (threading::num_threads() / lanes).max(1);
        let fused_layer_gemm = fuses_layer_gemm(p, members, weight_size, gates_width);
        let vanilla_bytes = (p.slc.max(p.dic).saturating_add(p.sic))
            .saturating_mul(p.dhc)
            .saturating_mul(weight_size);
        let panel_run = if p.cell == CellKind::VanillaRnn
            && vanilla_bytes <= members.saturating_mul(l2_bytes())
        {
            2
        } else {
            1
        };
        let t_chunk = if fused_layer_gemm {
            1.min(p.t)
        } else {
            layer_gemm_steps(p.t, row_bytes, weights_leave_llc(weight_bytes))
        };
        let training = p.is_training();
        let inference = usize::from(!training);
        let gru = usize::from(matches!(p.cell, CellKind::Gru | CellKind::Augru));
        let lbr = usize::from(matches!(p.cell, CellKind::LbrGru | CellKind::LbrAugru));
        let proj_width = size::round_up("RNN scratchpad projection", p.dic, PANEL)?;
        let projection = usize::from(p.with_projection);
        let gates = a.push(&[lanes, t_chunk, p.n, gates_ld])?;
        let h_slot_copies = if p.seq_lengths { p.d } else { lanes };
        let h_slots = a.push(&[
            inference,
            h_slot_copies,
            Self::inference_slots(p),
            p.t,
            p.n,
            p.dic,
        ])?;
        let c = a.push(&[
            inference * usize::from(p.cell.has_c_state()),
            lanes,
            p.n,
            p.dhc,
        ])?;
        let bias = a.push(&[p.l, p.d, gates_width])?;
        let rh = a.push(&[gru, lanes, p.n, p.dhc])?;
        let rec = a.push(&[lbr, lanes, p.n, gates_ld])?;
        let bias_rec = a.push(&[lbr, p.l, p.d, gates_width])?;
        let peephole = a.push(&[
            usize::from(p.with_peephole),
            p.l,
            p.d,
            p.dhc.div_ceil(PANEL),
            3,
            PANEL,
        ])?;
        let ht = a.push(&[projection * inference, lanes, p.n, p.dhc])?;
        let proj = a.push(&[projection, lanes, p.n, proj_width])?;
        let seq_lengths = p
            .seq_lengths
            .then(|| SeqLengthsLayout::new(p, &mut a))
            .transpose()?;
        let weights_layer = pack_layer
            .then(|| a.push(&[p.l, p.d, stored(p.slc), gates_width]))
            .transpose()?;
        let weights_iter = pack_iter
            .then(|| a.push(&[p.l, p.d, stored(p.sic), gates_width]))
            .transpose()?;
        let weights_projection = (pack_projection && p.with_projection)
            .then(|| a.push(&[p.l, p.d, stored(p.dhc), proj_width]))
            .transpose()?;
        Ok(Self {
            lanes,
            gates,
            gates_width,
            gates_ld,
            fused_layer_gemm,
            panel_run,
            t_chunk,
            h_slots,
            h_slot_copies,
            c,
            bias,
            rh,
            rec,
            bias_rec,
            peephole,
            ht,
            proj,
            seq_lengths,
            weights_layer,
            weights_iter,
            weights_projection,
            bytes: a.bytes(),
        })
    }

    /// Slots of `h_slots` in inference: one past the largest [`Self::inference_h_slot`] of any
    /// layer and direction, in closed form (L may be huge: no loop over the layers).
    fn inference_slots(p: &RnnProblem) -> usize {
        // Layers below the last use slot l % 2; the last layer keeps its states in slot
        // (L − 1) % 2 too with sequence lengths (scattered from there) and in the second
        // direction of a bidirectional sum.
        let below_last = p.l.saturating_sub(1).min(2);
        let kept = p.seq_lengths || p.direction == Direction::BidirectionalSum;
        let summed_last = if p.l > 0 && kept {
            (p.l - 1) % 2 + 1
        } else {
            0
        };
        below_last.max(summed_last)
    }

    /// Direction `d`'s copy of a per-pass region inside the scratchpad at `base`.
    ///
    /// # Safety
    /// `base` must point to a scratchpad of this layout; `region` must be one of its per-pass
    /// regions.
    pub unsafe fn lane(&self, region: &Region, base: *mut u8, d: usize) -> *mut f32 {
        unsafe { copy_of(region, self.lanes, base, d) }
    }

    /// Direction `d`'s copy of `h_slots` inside the scratchpad at `base`.
    ///
    /// # Safety
    /// `base` must point to a scratchpad of this layout.
    pub unsafe fn h_slots_of(&self, base: *mut u8, d: usize) -> *mut f32 {
        unsafe { copy_of(&self.h_slots, self.h_slot_copies, base, d) }
    }

    /// In inference, the `h_slots` slot holding the output of layer `l`, direction `d`; `None`
    /// when that output goes straight to `dst_layer` (the last layer, except the second
    /// direction of a bidirectional sum, which adds itself to `dst_layer` but needs its own
    /// states for the recurrence, and except with sequence lengths, whose last layer is
    /// scattered to `dst_layer` from its slot).
    pub fn inference_h_slot(p: &RnnProblem, l: usize, d: usize) -> Option<usize> {
        let last = l + 1 == p.l;
        let summed = p.direction == Direction::BidirectionalSum && d == 1;
        if last && !summed && !p.seq_lengths {
            None
        } else {
            Some(l % 2)
        }
    }
}

/// Direction `d`'s copy of `region`, made of `copies` equal copies, inside the scratchpad at
/// `base` (one copy serves every direction).
///
/// # Safety
/// `base` must point to the scratchpad `region` is part of; `copies` ≥ 1.
unsafe fn copy_of(region: &Region, copies: usize, base: *mut u8, d: usize) -> *mut f32 {
    let per_copy = region.len / copies;
    unsafe { region.ptr(base).add(d % copies * per_copy) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::types::PropKind;

    /// An LSTM problem with every channel count `c`.
    fn lstm(l: usize, t: usize, n: usize, c: usize, direction: Direction) -> RnnProblem {
        let d = direction.num_directions();
        RnnProblem {
            cell: CellKind::Lstm,
            prop: PropKind::ForwardInference,
            direction,
            flags: 0,
            l,
            d,
            t,
            n,
            slc: c,
            sic: c,
            dhc: c,
            dic: c,
            dlc: c,
            g: 4,
            activation: None,
            with_attention: false,
            with_src_iter: false,
            with_src_iter_c: false,
            with_dst_iter: false,
            with_dst_iter_c: false,
            with_bias: true,
            with_peephole: false,
            with_projection: false,
            precision: Default::default(),
            c_precision: Default::default(),
            bf16_math: false,
            seq_lengths: false,
            int8: None,
        }
    }

    #[test]
    fn inference_slots_match_every_layer_and_direction() {
        for direction in [
            Direction::Left2Right,
            Direction::Right2Left,
            Direction::BidirectionalConcat,
            Direction::BidirectionalSum,
        ] {
            for (l, seq_lengths) in (0..7).flat_map(|l| [(l, false), (l, true)]) {
                let p = RnnProblem {
                    seq_lengths,
                    ..lstm(l, 3, 2, 4, direction)
                };
                let walked = (0..l)
                    .flat_map(|l| (0..p.d).map(move |d| (l, d)))
                    .filter_map(|(l, d)| ScratchLayout::inference_h_slot(&p, l, d))
                    .map(|s| s + 1)
                    .max()
                    .unwrap_or(0);
                assert_eq!(
                    ScratchLayout::inference_slots(&p),
                    walked,
                    "{direction:?} L={l} lengths {seq_lengths}"
                );
            }
        }
    }

    #[test]
    fn u_stays_only_when_u_fits_three_quarters_of_l2_and_w_plus_u_does_not() {
        let kept = l2_bytes() / 4 * 3;
        assert!(u_stays_only(kept, kept + 1));
        assert!(u_stays_only(kept / 2, 4 * kept));
        assert!(!u_stays_only(kept / 2, kept));
        assert!(!u_stays_only(kept + 1, 4 * kept));
    }

    #[test]
    fn a_projection_counts_among_the_weights_every_step_streams() {
        // f32 N=16, 2 threads: `U` (SIC 128 × 4096 columns) is 1 MiB a thread, which a 1 MiB L2
        // could keep; with `R` (DHC 1024 × DIC 128) beside it, 1.25 MiB, so the steps stream
        // both and take `W` in the same pass.
        let p = RnnProblem {
            slc: 128,
            sic: 128,
            dic: 128,
            dlc: 128,
            ..lstm(1, 50, 16, 1024, Direction::Left2Right)
        };
        let projected = RnnProblem {
            with_projection: true,
            ..p
        };
        let width = 4 * 1024;
        assert!(!fuses_layer_gemm(&p, 2, 4, width));
        assert!(fuses_layer_gemm(&projected, 2, 4, width));
        // Fewer rows than streamed steps fuse, and a share that fits, stay merged.
        assert!(!fuses_layer_gemm(
            &RnnProblem { n: 15, ..projected },
            2,
            4,
            width
        ));
        assert!(!fuses_layer_gemm(&projected, 3, 4, width));
        assert!(fuses_layer_gemm(&RnnProblem { n: 32, ..p }, 2, 4, width));
    }

    #[test]
    fn huge_problems_are_sized_at_once_or_rejected() {
        // L = 2^40: representable (bias staged in 2^40 rows of 128 floats), computed without a
        // loop over the layers.
        let p = lstm(1 << 40, 1, 1, 1, Direction::Left2Right);
        let s = ScratchLayout::new(&p, true, true, false).unwrap();
        assert_eq!(s.bias.len, (1 << 40) * 128);
        assert!(s.bytes >= 3 * (1 << 40) * 128 * 4, "{}", s.bytes);
        // L = 2^58: the packed copies (hidden units padded to 32) do not fit.
        let p = lstm(1 << 58, 1, 1, 1, Direction::Left2Right);
        let e = ScratchLayout::new(&p, true, true, false).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidArguments(m) if m.starts_with("RNN scratchpad")),
            "{e}"
        );
        // N · G·DHC: the gates of one step.
        let p = lstm(1, 1, 1 << 31, 1 << 31, Direction::Left2Right);
        assert!(ScratchLayout::new(&p, false, false, false).is_err());
    }
}
