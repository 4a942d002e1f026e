//! The RNN operation descriptor: what a `dnnl_*_primitive_desc_create` call asked for.

use crate::args;
use crate::memory::MemoryDesc;
use crate::types::{AlgKind, Direction, PropKind};
use std::collections::BTreeMap;

/// One RNN operation as requested by the user, before any validation or format resolution.
#[derive(Clone, Debug, PartialEq)]
pub struct RnnDesc {
    /// Propagation kind.
    pub prop: PropKind,
    /// Cell kind (`dnnl_vanilla_lstm`, ...).
    pub cell: AlgKind,
    /// Activation of a vanilla RNN (`Undef` for the other cells).
    pub activation: AlgKind,
    /// Direction.
    pub direction: Direction,
    /// `dnnl_rnn_flags_t` bits.
    pub flags: u32,
    /// Vanilla RNN ReLU negative slope.
    pub alpha: f32,
    /// Vanilla RNN beta (stored, unused — as in oneDNN).
    pub beta: f32,
    /// Tensor descriptors by `DNNL_ARG_*` (forward and diff); absent tensors have no entry.
    /// NULL pointers and zero descriptors from C both mean "absent".
    pub mds: BTreeMap<i32, MemoryDesc>,
}

impl RnnDesc {
    /// An empty descriptor for a cell, direction and propagation kind.
    pub fn new(prop: PropKind, cell: AlgKind, direction: Direction) -> Self {
        Self {
            prop,
            cell,
            activation: AlgKind::Undef,
            direction,
            flags: 0,
            alpha: 0.0,
            beta: 0.0,
            mds: BTreeMap::new(),
        }
    }

    /// Adds a tensor unless it is absent (`None` or the zero descriptor).
    pub fn with(mut self, arg: i32, md: Option<&MemoryDesc>) -> Self {
        if let Some(md) = md.filter(|m| !m.is_zero()) {
            self.mds.insert(arg, md.clone());
        }
        self
    }

    /// The descriptor of an argument, if present.
    pub fn md(&self, arg: i32) -> Option<&MemoryDesc> {
        self.mds.get(&arg)
    }

    /// True for the backward propagation kind.
    pub fn is_backward(&self) -> bool {
        self.prop == PropKind::Backward
    }

    /// The forward arguments an RNN may take, in oneDNN's order.
    pub const FORWARD_ARGS: [i32; 12] = [
        args::SRC_LAYER,
        args::SRC_ITER,
        args::SRC_ITER_C,
        args::AUGRU_ATTENTION,
        args::WEIGHTS_LAYER,
        args::WEIGHTS_ITER,
        args::WEIGHTS_PEEPHOLE,
        args::WEIGHTS_PROJECTION,
        args::BIAS,
        args::DST_LAYER,
        args::DST_ITER,
        args::DST_ITER_C,
    ];
}
