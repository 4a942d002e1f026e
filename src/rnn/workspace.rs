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
use crate::error::Result;
use crate::size;

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
    /// The layout for a training problem; `invalid_arguments` when a region does not fit.
    pub fn new(p: &RnnProblem) -> Result<Self> {
        let mut arena = Arena::new("RNN workspace");
        let steps = size::add("RNN workspace", p.t, 1)?;
        let hc = p.sic.max(p.dic);
        let lbr = usize::from(matches!(p.cell, CellKind::LbrGru | CellKind::LbrAugru));
        let gates = arena.push(&[p.l, p.d, p.t, p.n, p.g, p.dhc])?;
        let h = arena.push(&[p.l, p.d, steps, p.n, hc])?;
        let c = arena.push(&[
            usize::from(p.cell.has_c_state()),
            p.l,
            p.d,
            steps,
            p.n,
            p.dhc,
        ])?;
        let lbr = arena.push(&[lbr, p.l, p.d, p.t, p.n, p.dhc])?;
        let ht = arena.push(&[usize::from(p.with_projection), p.l, p.d, p.t, p.n, p.dhc])?;
        Ok(Self {
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
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args;
    use crate::error::Error;
    use crate::memory::MemoryDesc;
    use crate::rnn::desc::RnnDesc;
    use crate::types::{AlgKind, DataType, Direction, PropKind};

    /// A vanilla RNN training problem, one layer, every channel count 1.
    fn vanilla(t: i64, n: i64) -> RnnProblem {
        let md = |dims: &[i64], tag| MemoryDesc::with_tag(dims, DataType::F32, tag).unwrap();
        let mut desc = RnnDesc::new(
            PropKind::ForwardTraining,
            AlgKind::VanillaRnn,
            Direction::Left2Right,
        )
        .with(args::SRC_LAYER, Some(&md(&[t, n, 1], 4)))
        .with(args::WEIGHTS_LAYER, Some(&md(&[1, 1, 1, 1, 1], 6)))
        .with(args::WEIGHTS_ITER, Some(&md(&[1, 1, 1, 1, 1], 6)))
        .with(args::DST_LAYER, Some(&md(&[t, n, 1], 4)));
        desc.activation = AlgKind::EltwiseTanh;
        RnnProblem::new(&desc).unwrap()
    }

    #[test]
    fn sizes_are_checked() {
        let ws = WorkspaceLayout::new(&vanilla(3, 2)).unwrap();
        assert_eq!((ws.gates.len, ws.h.len, ws.c.len), (6, 8, 0));
        // T·N = 2^60: the gates (2^62 bytes) and h (2^62 + 2^32 bytes) fit alone, not together.
        let e = WorkspaceLayout::new(&vanilla(1 << 30, 1 << 30)).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidArguments(m) if m.starts_with("RNN workspace")),
            "{e}"
        );
    }
}
