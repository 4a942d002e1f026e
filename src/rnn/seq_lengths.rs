//! Per-sample sequence lengths, an `oxidnn_` extension (oneDNN has none): the attribute
//! [`Attr::rnn_seq_lengths`](crate::attr::Attr::rnn_seq_lengths) switches it on, the execution
//! argument [`args::SEQ_LENGTHS`](crate::args::SEQ_LENGTHS) (`s32`, dims `{N}`, each in `0..=T`) gives the lengths.
//!
//! Semantics (ONNX / OpenVINO `sequence_lens`): sample `b` of length `len_b` runs steps
//! `0..len_b` only — a reversed direction reads times `len_b−1, …, 0` — in every layer;
//! `dst_layer` rows at times `≥ len_b` are zeros; `dst_iter` / `dst_iter_c` hold each layer's
//! state after the sample's last valid step (the initial state when `len_b = 0`: `src_iter`, or
//! zeros). The two directions of a bidirectional layer are concatenated or summed on the
//! valid times, like the full-length ones.
//!
//! How (DESIGN §8): the batch is ordered by decreasing length once per execution
//! ([`SeqOrder`]), so the samples still running at step `s` are the first `active(s)` rows.
//! `src_layer` is gathered in that order into a step-ordered copy per direction (each sample
//! time-reversed for reversed directions), the initial states and the attention likewise; the
//! forward driver then runs each step on its active rows only — a batch costs what its valid
//! steps cost — and the top layer's states are scattered back to `dst_layer`. Everything lives
//! in the scratchpad ([`SeqLengthsLayout`]), planned with the pd.
//!
//! The int8 driver (`rnn::int8`) does the same on its quantized rows: layer 0's input
//! quantized and gathered per direction, each step on its active rows, the states scattered
//! back; past a sample's length its `dst_layer` rows hold the quantized zero.
//!
//! Training keeps the workspace in that order, with zeros in the rows no step computed; the
//! backward driver orders the batch the same way (the same lengths are given to it), runs each
//! step's element-wise part and recurrent GEMMs on the active rows (the others' state gradients
//! pass through untouched), and its merged GEMMs over all `T·N` rows see zero gradients in
//! the inactive ones.

use super::arena::{Arena, Region};
use super::problem::RnnProblem;
use super::views::{SeqView, Strided};
use crate::error::Result;
use crate::invalid;
use crate::memory::MemoryDesc;
use crate::size;
use crate::threading::Team;
use crate::types::{DataType, Direction};

/// `dnnl_a`.
const TAG_A: i32 = 2;

/// The descriptor of the lengths argument: `s32`, dims `{N}`.
pub fn lengths_md(p: &RnnProblem) -> Result<MemoryDesc> {
    MemoryDesc::with_tag(&[p.n as i64], DataType::S32, TAG_A)
}

/// Floats of the scratchpad region holding the batch order ([`SeqOrder`]): `2·N + T`.
pub fn order_floats(p: &RnnProblem) -> Result<usize> {
    let what = "RNN scratchpad sequence order";
    size::add(what, size::product(what, &[2, p.n])?, p.t)
}

/// The scratchpad regions of a forward execution with sequence lengths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqLengthsLayout {
    /// `u32` values (in f32 slots): the sorted batch `[N]`, their lengths `[N]`, the active
    /// rows of each step `[T]`.
    pub order: Region,
    /// `src_layer` gathered in step order, `[D][T][N][SLC]`.
    x: Region,
    /// AUGRU: the attention gathered, `[T][N]`.
    attention: Region,
    /// `src_iter` gathered, `[L][D][N][SIC]`.
    src_iter: Region,
    /// `src_iter_c` gathered, `[L][D][N][DHC]`.
    src_iter_c: Region,
}

impl SeqLengthsLayout {
    /// The gathered `src_layer` of direction `d` by step, in the scratchpad at `scratch`.
    ///
    /// # Safety
    /// `scratch` points to a scratchpad this layout is part of.
    pub unsafe fn x_view(&self, p: &RnnProblem, scratch: *mut u8, d: usize) -> SeqView {
        let base = unsafe { self.x.ptr(scratch) };
        SeqView::dense(base.wrapping_add(d * p.t * p.n * p.slc), p.n, p.slc)
    }

    /// Pushes the regions a problem needs onto a scratchpad arena (sizes checked).
    pub fn new(p: &RnnProblem, a: &mut Arena) -> Result<Self> {
        let on = |b: bool| usize::from(b);
        Ok(Self {
            order: a.push(&[order_floats(p)?])?,
            x: a.push(&[p.d, p.t, p.n, p.slc])?,
            attention: a.push(&[on(p.cell.has_attention()), p.t, p.n])?,
            src_iter: a.push(&[on(p.with_src_iter), p.l, p.d, p.n, p.sic])?,
            src_iter_c: a.push(&[on(p.with_src_iter_c), p.l, p.d, p.n, p.dhc])?,
        })
    }
}

/// The batch of one execution ordered by decreasing length (ties in batch order), in the
/// scratchpad: sorted row `i` is sample [`sample(i)`](Self::sample).
#[derive(Clone, Copy, Debug)]
pub struct SeqOrder {
    perm: *mut u32,
    len: *mut u32,
    active: *mut u32,
    n: usize,
}

// SAFETY: the order is written once before the driver runs and only read afterwards.
unsafe impl Send for SeqOrder {}
unsafe impl Sync for SeqOrder {}

/// Rows of a dense `[..][N][C]` matrix set in sorted order: row `i` ← the user's row
/// `sample(i)` of every `[N][C]` matrix of a 4-D state tensor.
///
/// # Safety
/// `src` valid for the problem's state dims, `dst` for `L·D·N·c` floats.
unsafe fn gather_state(
    o: &SeqOrder,
    p: &RnnProblem,
    src: Strided<4>,
    dst: *mut f32,
    c: usize,
) -> Strided<4> {
    unsafe {
        for l in 0..p.l {
            for d in 0..p.d {
                for i in 0..p.n {
                    let to = dst.add(((l * p.d + d) * p.n + i) * c);
                    std::ptr::copy_nonoverlapping(src.at([l, d, o.sample(i), 0]), to, c);
                }
            }
        }
    }
    Strided {
        ptr: dst,
        strides: [(p.d * p.n * c) as isize, (p.n * c) as isize, c as isize, 1],
    }
}

impl SeqOrder {
    /// Checks the lengths (each in `0..=T`) and orders the batch, in `region` (`2N + T` floats,
    /// see [`order_floats`]) of the scratchpad at `scratch`.
    ///
    /// # Safety
    /// `region` lies inside the scratchpad at `scratch`.
    pub unsafe fn new(
        p: &RnnProblem,
        region: Region,
        scratch: *mut u8,
        lengths: &[i32],
    ) -> Result<Self> {
        if lengths.len() != p.n {
            invalid!("{} sequence lengths for a batch of {}", lengths.len(), p.n);
        }
        if let Some((b, &v)) = lengths
            .iter()
            .enumerate()
            .find(|&(_, &v)| usize::try_from(v).map_or(true, |v| v > p.t))
        {
            invalid!("sequence length {v} of sample {b} is not in 0..={}", p.t);
        }
        let base = unsafe { region.ptr(scratch).cast::<u32>() };
        let o = Self {
            perm: base,
            len: base.wrapping_add(p.n),
            active: base.wrapping_add(2 * p.n),
            n: p.n,
        };
        // SAFETY: the three arrays are disjoint parts of the `order` region.
        let (perm, len, active) = unsafe {
            (
                std::slice::from_raw_parts_mut(o.perm, p.n),
                std::slice::from_raw_parts_mut(o.len, p.n),
                std::slice::from_raw_parts_mut(o.active, p.t),
            )
        };
        for (b, v) in perm.iter_mut().enumerate() {
            *v = b as u32;
        }
        // Unstable (allocation-free) but deterministic: ties ordered by sample.
        perm.sort_unstable_by_key(|&b| (std::cmp::Reverse(lengths[b as usize]), b));
        for (v, &b) in len.iter_mut().zip(perm.iter()) {
            *v = lengths[b as usize] as u32;
        }
        let mut rows = p.n;
        for (s, a) in active.iter_mut().enumerate() {
            while rows > 0 && len[rows - 1] as usize <= s {
                rows -= 1;
            }
            *a = rows as u32;
        }
        Ok(o)
    }

    /// The sample at sorted row `i`.
    #[inline]
    pub fn sample(&self, i: usize) -> usize {
        unsafe { *self.perm.add(i) as usize }
    }

    /// The length of the sample at sorted row `i`.
    #[inline]
    pub fn len(&self, i: usize) -> usize {
        unsafe { *self.len.add(i) as usize }
    }

    /// Rows still running at step `s`: the samples longer than `s`.
    #[inline]
    pub fn active(&self, s: usize) -> usize {
        unsafe { *self.active.add(s) as usize }
    }

    /// Steps any sample runs: the longest length.
    pub fn steps(&self) -> usize {
        if self.n == 0 {
            0
        } else {
            self.len(0)
        }
    }

    /// Time of step `s` of the sample at sorted row `i` in direction `d`.
    pub fn time(&self, p: &RnnProblem, d: usize, i: usize, s: usize) -> usize {
        if p.is_reversed(d) {
            self.len(i) - 1 - s
        } else {
            s
        }
    }

    /// Copies of `src_iter`, `src_iter_c` and the attention (`[T][N][1]`, read by step) in
    /// sorted order, in the scratchpad; what the driver reads in place of the user's.
    ///
    /// # Safety
    /// As [`new`](Self::new); the tensors valid for the problem.
    pub unsafe fn gather_small(
        &self,
        p: &RnnProblem,
        layout: &SeqLengthsLayout,
        scratch: *mut u8,
        states: [Option<Strided<4>>; 2],
        attention: Option<Strided<3>>,
    ) -> ([Option<Strided<4>>; 2], Option<Strided<3>>) {
        unsafe {
            let [h, c] = states;
            let h = h.map(|v| gather_state(self, p, v, layout.src_iter.ptr(scratch), p.sic));
            let c = c.map(|v| gather_state(self, p, v, layout.src_iter_c.ptr(scratch), p.dhc));
            let attention = attention.map(|a| {
                let dst = layout.attention.ptr(scratch);
                for i in 0..p.n {
                    for s in 0..self.len(i) {
                        *dst.add(s * p.n + i) = *a.at([self.time(p, 0, i, s), self.sample(i), 0]);
                    }
                }
                Strided {
                    ptr: dst,
                    strides: [p.n as isize, 1, 1],
                }
            });
            ([h, c], attention)
        }
    }

    /// This member's sorted rows of every direction's gathered `src_layer`
    /// ([`SeqLengthsLayout::x_view`]): row `(s, i)` of direction `d` ←
    /// `src_layer[time(d, i, s)][sample(i)]`, for the steps the sample runs.
    ///
    /// # Safety
    /// `src_layer` valid for the problem; `x(d)` for `[T][N][SLC]`.
    pub unsafe fn gather_input(
        &self,
        team: &Team,
        p: &RnnProblem,
        src_layer: Strided<3>,
        x: impl Fn(usize) -> SeqView,
    ) {
        for d in 0..p.d {
            let x = x(d);
            for i in team.share(p.n) {
                for s in 0..self.len(i) {
                    let from = src_layer.at([self.time(p, d, i, s), self.sample(i), 0]);
                    unsafe { std::ptr::copy_nonoverlapping(from, x.row(s, i), p.slc) };
                }
            }
        }
    }

    /// Zeroes this member's share of the rows `(s + slot, i)` of `v` (`width` floats) that no
    /// step computed — `i ≥ active(s)`, `s < T` — so that a backward pass reading whole steps
    /// (its merged GEMMs over `T·N` rows, with zero gradients there) reads finite values.
    ///
    /// # Safety
    /// `v` valid for those rows.
    pub unsafe fn zero_inactive(
        &self,
        team: &Team,
        p: &RnnProblem,
        v: SeqView,
        slot: usize,
        width: usize,
    ) {
        for s in team.share(p.t) {
            for i in self.active(s)..p.n {
                unsafe { std::ptr::write_bytes(v.row(s + slot, i), 0, width) };
            }
        }
    }

    /// This member's samples of `dst_layer` from the top layer's states `h(d)` (by step, in
    /// sorted rows): valid times concatenated or summed over the directions, zeros past each
    /// sample's length.
    ///
    /// # Safety
    /// `dst_layer` valid for the problem; `h(d)` holds every valid step of every sample.
    pub unsafe fn scatter_output(
        &self,
        team: &Team,
        p: &RnnProblem,
        h: impl Fn(usize) -> SeqView,
        dst_layer: Strided<3>,
    ) {
        let concat = p.direction == Direction::BidirectionalConcat;
        for i in team.share(p.n) {
            let b = self.sample(i);
            unsafe {
                for t in self.len(i)..p.t {
                    std::ptr::write_bytes(dst_layer.at([t, b, 0]), 0, p.dlc);
                }
                for d in 0..p.d {
                    let (col, add) = (if concat { d * p.dic } else { 0 }, !concat && d == 1);
                    let h = h(d);
                    for s in 0..self.len(i) {
                        let (from, to) =
                            (h.row(s, i), dst_layer.at([self.time(p, d, i, s), b, col]));
                        if add {
                            for c in 0..p.dic {
                                *to.add(c) += *from.add(c);
                            }
                        } else {
                            std::ptr::copy_nonoverlapping(from, to, p.dic);
                        }
                    }
                }
            }
        }
    }
}
