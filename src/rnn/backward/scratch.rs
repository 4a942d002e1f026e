//! The scratchpad of a backward execution, sized when the pd is created.
//!
//! Regions (f32, 64-byte aligned); a lane processes one layer and direction at a time, so every
//! region is reused by the next. With two directions and at least two threads the directions
//! run at the same time, each in a lane of its own (`lanes` = 2: the whole layout twice,
//! `lane_bytes` apart); else there is one lane.
//!
//! | region    | dims               | use |
//! |-----------|--------------------|-----|
//! | `da`      | `[T][N][G·DHC]`    | gradient of the gate pre-activations of every step (what `x·W + b` receives) |
//! | `da_iter` | `[T][N][G·DHC]`    | linear-before-reset cells: what the recurrent product receives (`o` column × r) |
//! | `rh`      | `[T][N][DHC]`      | GRU / AUGRU: `r ⊙ h_prev` of every step (operand of `dU_o`) |
//! | `ut`      | `[G·DHC][SICP]`    | `Uᵀ` of the current layer and direction, packed for the GEMM kernel in 64-column panels (`transposed.rs`; `SICP`: SIC rounded up to 32); empty when `weights_iter` is given packed (bf16: never; with AMX-BF16 as bf16 pairs, `[G·DHC/2]` rows) |
//! | `wt`      | `[G·DHC][XC]`      | `Wᵀ` of the current layer and direction, packed likewise (the layer's input channels rounded up to 32); empty when `weights_layer` is given packed; bf16: as `ut` |
//! | `g`       | `[N][SICP]`        | GRU / AUGRU: `dA_o·U_oᵀ` of one step |
//! | `dh`      | `[N][DHC]`         | gradient reaching the h of the current step (with projection: h̃) |
//! | `dhp`     | `[T][N][DIC]`      | LSTM with projection: gradient reaching the (projected) h of every step |
//! | `wpt`     | `[DIC][DHC]`       | LSTM with projection, `DHC` a multiple of 32: `W_projᵀ` packed likewise |
//! | `dh_next` | `[N][HC]`          | gradient reaching the previous state (`HC = max(SIC, DIC)` rounded up to 32) |
//! | `dc`      | `[N][DHC]`         | LSTM: gradient of the cell state, updated step by step |
//! | `above`   | `[T][N][DIC]`      | gradient reaching each step's h from above (`diff_dst_layer` or the layer above) |
//! | `below`   | `[T][N][XC]`       | gradient of this layer's input (`XC = max(SLC, DIC)` rounded up to 32) |
//! | `x`       | `[T][N][SLC]`      | `src_layer` in step order (layer-0 input of the merged GEMMs) |
//! | `att`     | `[T][N]`           | AUGRU: attention in step order |
//! | `d_att`   | `[N]`              | AUGRU: attention gradient of one step |
//! | `pack`    | per thread         | packed blocks of the weight-gradient GEMMs ([`gemm_tn`](super::gemm::gemm_tn)); bf16: at least their bf16 operands ([`tn_bf16_floats`]) |
//! | `order`   | `2N + T`           | sequence lengths: the batch order (`seq_lengths::SeqOrder`; lane 0's serves both) |

use super::gemm::{tn_bf16_floats, tn_pack_floats};
use super::transposed::Transposed;
use crate::error::Result;
use crate::kernels::gemm::CHUNK;
use crate::rnn::arena::{Arena, Region};
use crate::rnn::cells::CellKind;
use crate::rnn::problem::RnnProblem;
use crate::rnn::scratch::concurrent_directions;
use crate::rnn::seq_lengths::order_floats;
use crate::size;

/// Offsets of the backward scratchpad regions for one problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackwardScratch {
    /// See the module table.
    pub da: Region,
    /// See the module table.
    pub da_iter: Region,
    /// See the module table.
    pub rh: Region,
    /// See the module table.
    pub ut: Region,
    /// See the module table.
    pub wt: Region,
    /// Row length of `ut` and `g` (`SICP`).
    pub ut_ld: usize,
    /// See the module table.
    pub g: Region,
    /// See the module table.
    pub dh: Region,
    /// See the module table.
    pub dhp: Region,
    /// See the module table.
    pub wpt: Region,
    /// See the module table.
    pub dh_next: Region,
    /// Floats of a `dh_next` row: `max(SIC, DIC)` rounded up to 32 (≥ `ut_ld`).
    pub hc: usize,
    /// See the module table.
    pub dc: Region,
    /// See the module table.
    pub above: Region,
    /// See the module table.
    pub below: Region,
    /// Channels of a `below` row: `max(SLC, DIC)` rounded up to 32.
    pub xc: usize,
    /// See the module table.
    pub x: Region,
    /// See the module table.
    pub att: Region,
    /// See the module table.
    pub d_att: Region,
    /// See the module table.
    pub pack: Region,
    /// Sequence lengths: the batch order (empty without).
    pub order: Region,
    /// Lanes: 2 when the directions run at the same time, else 1.
    pub lanes: usize,
    /// Bytes of one lane.
    pub lane_bytes: usize,
    /// Total size in bytes.
    pub bytes: usize,
}

impl BackwardScratch {
    /// The layout for a backward problem; `ut` / `wt` only for plain `weights_iter` /
    /// `weights_layer` (packed transposed ones are read in place). `invalid_arguments` when a
    /// region does not fit.
    pub fn new(p: &RnnProblem, plain_layer: bool, plain_iter: bool) -> Result<Self> {
        let what = "RNN backward scratchpad";
        let (t, n, dhc) = (p.t, p.n, p.dhc);
        let rows = size::product(what, &[t, n])?;
        let cols = size::product(what, &[p.g, dhc])?;
        let lbr = usize::from(matches!(p.cell, CellKind::LbrGru | CellKind::LbrAugru));
        let gru = usize::from(matches!(p.cell, CellKind::Gru | CellKind::Augru));
        let lstm = usize::from(p.cell.has_c_state());
        let projection = usize::from(p.with_projection);
        let attention = usize::from(p.cell.has_attention());
        let ut_ld = size::round_up(what, p.sic, CHUNK)?;
        let hc = size::round_up(what, p.sic.max(p.dic), CHUNK)?;
        let xc = size::round_up(what, p.slc.max(p.dic), CHUNK)?;
        let lanes = concurrent_directions(p);
        let mut a = Arena::new(what);
        let da = a.push(&[rows, cols])?;
        let da_iter = a.push(&[lbr, rows, cols])?;
        let rh = a.push(&[gru, rows, dhc])?;
        // bf16: the gate weights are packed whatever their layout (as bf16 pairs with AMX-BF16:
        // half the room).
        let bf16 = p.bf16_math;
        let transposed = |on: bool, rows, k| -> Result<usize> {
            if on {
                Transposed::floats(what, rows, k)
            } else {
                Ok(0)
            }
        };
        let ut = a.push(&[transposed(plain_iter || bf16, cols, p.sic)?])?;
        let wt = a.push(&[usize::from(plain_layer || bf16), cols, xc])?;
        let g = a.push(&[gru, n, ut_ld])?;
        let dh = a.push(&[n, dhc])?;
        let dhp = a.push(&[projection, rows, p.dic])?;
        let wpt = a.push(&[transposed(
            p.with_projection && dhc.is_multiple_of(CHUNK),
            p.dic,
            dhc,
        )?])?;
        let dh_next = a.push(&[n, hc])?;
        let dc = a.push(&[lstm, n, dhc])?;
        let above = a.push(&[rows, p.dic])?;
        let below = a.push(&[rows, xc])?;
        let x = a.push(&[rows, p.slc])?;
        let att = a.push(&[attention, rows])?;
        let d_att = a.push(&[attention, n])?;
        // Widest A: the input channels, or DHC for the projection's gradient `h̃ᵀ·dh`.
        let m = p.slc.max(p.sic).max(p.dic).max(projection * dhc);
        let mut pack_floats = tn_pack_floats(rows, m, cols);
        if bf16 {
            // The bf16 weight gradients' operands: every A of a group of products (at most
            // the layer input, the state and r ⊙ h_prev) and B.
            let m_sum = size::add(what, p.slc.max(p.dic), size::add(what, p.sic, dhc)?)?;
            let bf16_floats = tn_bf16_floats(rows, m_sum, cols)?;
            pack_floats = pack_floats.max(bf16_floats);
        }
        let pack = a.push(&[pack_floats])?;
        let order = a.push(&[if p.seq_lengths { order_floats(p)? } else { 0 }])?;
        let lane_bytes = a.bytes();
        let bytes = size::product(what, &[lanes, lane_bytes])?;
        size::bytes(what, bytes, 1)?;
        Ok(Self {
            da,
            da_iter,
            rh,
            ut,
            wt,
            ut_ld,
            g,
            dh,
            dhp,
            wpt,
            dh_next,
            hc,
            dc,
            above,
            below,
            xc,
            x,
            att,
            d_att,
            pack,
            order,
            lanes,
            lane_bytes,
            bytes,
        })
    }
}
