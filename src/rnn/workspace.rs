//! The training workspace: what `forward_training` leaves for a later backward pass.
//!
//! The workspace is a u8 buffer of [`WorkspaceLayout::bytes`] bytes (the pd reports it as a 1-D
//! u8 descriptor). It holds three f32 regions, each starting on a 64-byte boundary:
//!
//! | region  | dims                      | content |
//! |---------|---------------------------|---------|
//! | `gates` | `[L][D][T][N][G][DHC]`    | post-activation gates of every cell (LSTM: σ(i), σ(f), tanh(c̃), σ(o)) |
//! | `h`     | `[L][D][T+1][N][HC]`      | hidden state: slot 0 = initial state (`src_iter`, SIC channels, or zeros), slot s+1 = h after step s (DIC channels: with projection the projected h) |
//! | `c`     | `[L][D][T+1][N][DHC]`     | cell state (LSTM), same slots |
//! | `lbr`   | `[L][D][T][N][DHC]`       | linear-before-reset cells: `h_prev·U_o + b_u'` of every cell |
//! | `ht`    | `[L][D][T][N][DHC]`       | LSTM with projection: h̃ = o ⊙ tanh(c) of every cell, before the projection (the backward pass needs it for the projection's weight gradient) |
//!
//! Regions a problem does not use (`c`, `lbr`, `ht`) are empty.
//!
//! Gates by cell: vanilla RNN: `act(A)` (= h); GRU and LBR-GRU: σ(u), σ(r), tanh(o); AUGRU and
//! LBR-AUGRU: the same, with u *before* the attention factor.
//!
//! `HC = max(SIC, DIC)` (they differ only when T = 1); without projection DIC = DHC. `s` counts steps in the processing order of the direction: for left2right (and direction 0
//! of the bidirectional modes) `s = t`; for right2left (and direction 1) `s = T−1−t`, as in
//! oneDNN's own workspace. The layout is this library's own; only our backward reads it
//! (`rnn::backward`): the gates and `lbr` for the element-wise backward, `h` slots `0..T` as
//! the recurrent operand of `dU` (and slots `1..T+1` of layer l−1 as the input of layer l), `c`
//! slots for the LSTM. A backward pd sizes the same layout from the same problem, so the forward
//! pd's workspace is accepted as is; backward's own temporaries live in its scratchpad.

use super::arena::{Arena, Region};
use super::cells::CellKind;
use super::problem::RnnProblem;

/// Offsets of the workspace regions for one problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspaceLayout {
    /// Post-activation gates `[L][D][T][N][G][DHC]`.
    pub gates: Region,
    /// Hidden states `[L][D][T+1][N][HC]`.
    pub h: Region,
    /// Channels of an `h` row: `max(SIC, DIC)`.
    pub hc: usize,
    /// Cell states `[L][D][T+1][N][DHC]`.
    pub c: Region,
    /// `h_prev·U_o + b_u'` `[L][D][T][N][DHC]` (linear-before-reset cells; else empty).
    pub lbr: Region,
    /// LSTMP: pre-projection hidden states `[L][D][T][N][DHC]` (else empty).
    pub ht: Region,
    /// Total size in bytes.
    pub bytes: usize,
    t: usize,
    n: usize,
    d: usize,
    g: usize,
    dhc: usize,
}

impl WorkspaceLayout {
    /// The layout for a training problem.
    pub fn new(p: &RnnProblem) -> Self {
        let cells = p.l * p.d;
        let mut arena = Arena::new();
        let gates = arena.push(cells * p.t * p.n * p.g * p.dhc);
        let hc = p.sic.max(p.dic);
        let h = arena.push(cells * (p.t + 1) * p.n * hc);
        let c = arena.push(if p.cell.has_c_state() {
            cells * (p.t + 1) * p.n * p.dhc
        } else {
            0
        });
        let lbr = arena.push(if matches!(p.cell, CellKind::LbrGru | CellKind::LbrAugru) {
            cells * p.t * p.n * p.dhc
        } else {
            0
        });
        let ht = arena.push(if p.with_projection {
            cells * p.t * p.n * p.dhc
        } else {
            0
        });
        Self {
            gates,
            lbr,
            ht,
            h,
            hc,
            c,
            bytes: arena.bytes(),
            t: p.t,
            n: p.n,
            d: p.d,
            g: p.g,
            dhc: p.dhc,
        }
    }

    /// Element index, within `gates`, of the row `[G][DHC]` of layer `l`, direction `d`, step
    /// `s`, batch row `n`.
    pub fn gates_index(&self, l: usize, d: usize, s: usize, n: usize) -> usize {
        (((l * self.d + d) * self.t + s) * self.n + n) * self.g * self.dhc
    }

    /// Element index, within `h`, of the row of layer `l`, direction `d`, slot `slot`
    /// (0 = initial state, s+1 = after step s), batch row `n`.
    pub fn h_index(&self, l: usize, d: usize, slot: usize, n: usize) -> usize {
        (((l * self.d + d) * (self.t + 1) + slot) * self.n + n) * self.hc
    }

    /// Element index, within `c`, of the row `[DHC]` of layer `l`, direction `d`, slot `slot`,
    /// batch row `n`.
    pub fn c_index(&self, l: usize, d: usize, slot: usize, n: usize) -> usize {
        (((l * self.d + d) * (self.t + 1) + slot) * self.n + n) * self.dhc
    }

    /// Index (in floats) of `lbr[l][d][s][n][0]`.
    pub fn lbr_index(&self, l: usize, d: usize, s: usize, n: usize) -> usize {
        (((l * self.d + d) * self.t + s) * self.n + n) * self.dhc
    }

    /// Index (in floats) of `ht[l][d][s][n][0]`.
    pub fn ht_index(&self, l: usize, d: usize, s: usize, n: usize) -> usize {
        self.lbr_index(l, d, s, n)
    }
}
