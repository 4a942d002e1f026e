//! The validated RNN problem: sizes, kinds and which optional tensors are present, derived from
//! an [`RnnDesc`] with oneDNN's rules (reference §a.6) and statuses:
//! inconsistent requests are `invalid_arguments`, valid ones this library cannot run yet are
//! `unimplemented` — the split oneDNN makes (checked against oneDNN 3.2 and 3.13).
//!
//! Deliberate superset of oneDNN's CPU engine: an absent bias is accepted and means zeros.

use super::cells::vanilla::Activation;
use super::cells::CellKind;
use super::desc::RnnDesc;
use super::int8::Int8Config;
use super::precision::Precision;
use crate::args;
use crate::error::{Error, Result};
use crate::memory::MemoryDesc;
use crate::types::{AlgKind, CEnum, DataType, Direction, PropKind, RnnFlags};
use crate::{ensure_args, invalid, unimplemented_err};

/// An RNN problem with every size resolved and every consistency rule checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RnnProblem {
    /// Cell kind.
    pub cell: CellKind,
    /// Propagation kind (forward training or inference).
    pub prop: PropKind,
    /// Direction.
    pub direction: Direction,
    /// `dnnl_rnn_flags_t` bits (unused by forward, kept for backward).
    pub flags: u32,
    /// Layers.
    pub l: usize,
    /// Directions (1 or 2).
    pub d: usize,
    /// Time steps.
    pub t: usize,
    /// Batch.
    pub n: usize,
    /// Input channels of layer 0 (`src_layer`).
    pub slc: usize,
    /// Input channels of the recurrent weights (state size fed back).
    pub sic: usize,
    /// Hidden channels per gate.
    pub dhc: usize,
    /// Output state channels (DHC, or the projection size).
    pub dic: usize,
    /// Channels of `dst_layer` (DIC, or 2·DIC for concat).
    pub dlc: usize,
    /// Gates.
    pub g: usize,
    /// The vanilla RNN activation (`None` for the other cells).
    pub activation: Option<Activation>,
    /// `augru_attention` given (AUGRU cells: a pd without it is created, as by oneDNN, but
    /// cannot execute).
    pub with_attention: bool,
    /// `src_iter` given.
    pub with_src_iter: bool,
    /// `src_iter_c` given (LSTM).
    pub with_src_iter_c: bool,
    /// `dst_iter` given.
    pub with_dst_iter: bool,
    /// `dst_iter_c` given (LSTM).
    pub with_dst_iter_c: bool,
    /// `bias` given (absent means zeros).
    pub with_bias: bool,
    /// LSTM peephole weights given.
    pub with_peephole: bool,
    /// LSTM projection weights given.
    pub with_projection: bool,
    /// Precision of the activations and weights (chosen from the tensors' data types).
    pub precision: Precision,
    /// Precision of the LSTM c-state (the type of `src_iter_c` / `dst_iter_c`; f32 without).
    pub c_precision: Precision,
    /// The forward GEMMs multiply bf16 (weights packed as bf16 pairs, activations rounded to
    /// bf16 where the GEMM reads them): bf16 primitives, and f32 ones whose fpmath mode allows
    /// bf16 (oneDNN's "bf32"; the pd sets it from the attributes).
    pub bf16_math: bool,
    /// Per-sample sequence lengths are given at execution (the pd sets it from the
    /// attributes; see [`seq_lengths`](super::seq_lengths)).
    pub seq_lengths: bool,
    /// The int8 data types (`None`: f32).
    pub int8: Option<Int8Config>,
}

fn dims_of(md: &MemoryDesc) -> Vec<usize> {
    md.dims().iter().map(|&d| d as usize).collect()
}

fn check_shape(name: &str, md: &MemoryDesc, expected: &[usize]) -> Result<()> {
    ensure_args!(
        dims_of(md) == expected,
        "{name} dims {:?} differ from the expected {:?}",
        md.dims(),
        expected
    );
    Ok(())
}

fn check_ndims(name: &str, md: Option<&MemoryDesc>, ndims: usize) -> Result<()> {
    if let Some(md) = md {
        ensure_args!(
            md.ndims() == ndims,
            "{name} must have {ndims} dims, has {}",
            md.ndims()
        );
        ensure_args!(
            md.dims().iter().all(|&d| d >= 0),
            "{name} has a negative dimension"
        );
    }
    Ok(())
}

/// Backward: every forward tensor of the cell and its diff are both given or both absent, the
/// diff has the same dims, and is f32 (else `unimplemented`, as oneDNN 3.13 answers).
fn check_diff_tensors(desc: &RnnDesc, cell: CellKind) -> Result<()> {
    for arg in cell.forward_args() {
        let (fwd, diff) = (desc.md(arg), desc.md(args::DIFF + arg));
        match (fwd, diff) {
            (None, None) => {}
            (Some(f), Some(d)) => {
                if d.data_type() != DataType::F32 {
                    unimplemented_err!(
                        "{} is {}: diff tensors must be f32",
                        args::rnn_name(args::DIFF + arg),
                        d.data_type()
                    );
                }
                ensure_args!(
                    d.ndims() == f.ndims() && d.dims() == f.dims(),
                    "{} has dims {:?}, {} {:?}",
                    args::rnn_name(args::DIFF + arg),
                    d.dims(),
                    args::rnn_name(arg),
                    f.dims()
                );
            }
            _ => invalid!(
                "{} and {} must be both given or both absent in backward",
                args::rnn_name(arg),
                args::rnn_name(args::DIFF + arg)
            ),
        }
    }
    Ok(())
}

impl RnnProblem {
    /// Validates a descriptor and derives the problem.
    pub fn new(desc: &RnnDesc) -> Result<Self> {
        match desc.prop {
            PropKind::ForwardTraining | PropKind::ForwardInference | PropKind::Backward => {}
            other => invalid!("propagation kind {other} is not valid for an RNN"),
        }
        let cell = CellKind::from_alg(desc.cell).ok_or_else(|| {
            Error::InvalidArguments(format!("{} is not an RNN cell kind", desc.cell))
        })?;
        ensure_args!(desc.direction != Direction::Undef, "RNN direction is undef");
        if cell == CellKind::VanillaRnn {
            ensure_args!(
                matches!(
                    desc.activation,
                    AlgKind::EltwiseRelu | AlgKind::EltwiseTanh | AlgKind::EltwiseLogistic
                ),
                "vanilla RNN activation {} is not eltwise_relu, eltwise_tanh or eltwise_logistic",
                desc.activation
            );
        }

        let md = |arg| desc.md(arg);
        let (src_layer, weights_layer, weights_iter, dst_layer) = match (
            md(args::SRC_LAYER),
            md(args::WEIGHTS_LAYER),
            md(args::WEIGHTS_ITER),
            md(args::DST_LAYER),
        ) {
            (Some(a), Some(b), Some(c), Some(d)) => (a, b, c, d),
            _ => invalid!("src_layer, weights_layer, weights_iter and dst_layer are required"),
        };
        let src_iter = md(args::SRC_ITER);
        let dst_iter = md(args::DST_ITER);
        let bias = md(args::BIAS);
        let (src_iter_c, dst_iter_c, peephole, projection) = if cell == CellKind::Lstm {
            (
                md(args::SRC_ITER_C),
                md(args::DST_ITER_C),
                md(args::WEIGHTS_PEEPHOLE),
                md(args::WEIGHTS_PROJECTION),
            )
        } else {
            (None, None, None, None)
        };
        let attention = if cell.has_attention() {
            md(args::AUGRU_ATTENTION)
        } else {
            None
        };

        for (name, m, nd) in [
            ("src_layer", Some(src_layer), 3),
            ("src_iter", src_iter, 4),
            ("src_iter_c", src_iter_c, 4),
            ("weights_layer", Some(weights_layer), 5),
            ("weights_iter", Some(weights_iter), 5),
            ("weights_peephole", peephole, 4),
            ("weights_projection", projection, 4),
            ("bias", bias, 4),
            ("dst_layer", Some(dst_layer), 3),
            ("dst_iter", dst_iter, 4),
            ("dst_iter_c", dst_iter_c, 4),
            ("attention", attention, 3),
        ] {
            check_ndims(name, m, nd)?;
        }

        // Data types: oneDNN reports unsupported combinations as unimplemented before it looks
        // at dimensions (but for f16 training and GRU with s8 activations: below). int8
        // problems (s8 weights) are checked by `int8` and run on its own driver; every other
        // combination is one of the float precisions.
        let int8 = Int8Config::of(desc, cell)?;
        let precision = match int8 {
            Some(_) => Precision::F32,
            None => Precision::of_request(|arg| desc.md(arg).map(MemoryDesc::data_type))?,
        };

        let [l, d, slc, g, dhc] =
            <[usize; 5]>::try_from(dims_of(weights_layer)).expect("5 dims checked");
        let [t, n, src_c] = <[usize; 3]>::try_from(dims_of(src_layer)).expect("3 dims checked");
        let sic = dims_of(weights_iter)[2];
        let dlc = dims_of(dst_layer)[2];
        let dic = projection.map_or(dhc, |p| dims_of(p)[3]);
        let concat = desc.direction == Direction::BidirectionalConcat;

        ensure_args!(
            d == desc.direction.num_directions(),
            "weights have {d} directions but {} needs {}",
            desc.direction,
            desc.direction.num_directions()
        );
        ensure_args!(
            g == cell.gates(),
            "{} has {} gates, weights have {g}",
            cell.name(),
            cell.gates()
        );
        ensure_args!(
            src_c == slc,
            "src_layer has {src_c} channels, weights_layer expects {slc}"
        );
        check_shape("weights_iter", weights_iter, &[l, d, sic, g, dhc])?;
        if cell.is_gru_family() {
            ensure_args!(sic == dhc, "GRU cells need SIC ({sic}) == DHC ({dhc})");
        }
        ensure_args!(
            dlc == dic * if concat { 2 } else { 1 },
            "dst_layer has {dlc} channels, expected DIC·{}",
            if concat { 2 } else { 1 }
        );
        ensure_args!(
            l <= 1 || slc == dic,
            "with several layers SLC ({slc}) must equal DIC ({dic})"
        );
        ensure_args!(
            t <= 1 || sic == dic,
            "with several time steps SIC ({sic}) must equal DIC ({dic})"
        );
        check_shape("dst_layer", dst_layer, &[t, n, dlc])?;
        if let Some(m) = src_iter {
            check_shape("src_iter", m, &[l, d, n, sic])?;
        }
        if let Some(m) = src_iter_c {
            check_shape("src_iter_c", m, &[l, d, n, dhc])?;
        }
        if let Some(m) = bias {
            check_shape("bias", m, &[l, d, cell.bias_gates(), dhc])?;
        }
        if let Some(m) = dst_iter {
            check_shape("dst_iter", m, &[l, d, n, dic])?;
        }
        if let Some(m) = dst_iter_c {
            check_shape("dst_iter_c", m, &[l, d, n, dhc])?;
        }
        if let Some(m) = peephole {
            check_shape("weights_peephole", m, &[l, d, 3, dhc])?;
        }
        if let Some(m) = projection {
            check_shape("weights_projection", m, &[l, d, dhc, dic])?;
        }
        if cell.has_c_state() {
            ensure_args!(
                src_iter.is_some() == src_iter_c.is_some(),
                "src_iter and src_iter_c must be both given or both absent"
            );
            ensure_args!(
                dst_iter.is_some() == dst_iter_c.is_some(),
                "dst_iter and dst_iter_c must be both given or both absent"
            );
        }
        if cell.has_attention() {
            ensure_args!(
                l == 1 && desc.direction == Direction::Left2Right,
                "AUGRU needs one layer, left2right"
            );
            // Like oneDNN, a pd without attention is created; executing it is refused.
            if let Some(m) = attention {
                check_shape("attention", m, &[t, n, 1])?;
            }
        }

        // What oneDNN leaves unimplemented only after the dimensions pass.
        precision.check_prop(desc.prop)?;
        if let Some(c) = &int8 {
            c.check_cell(cell)?;
        }
        if desc.is_backward() {
            check_diff_tensors(desc, cell)?;
        }

        Ok(Self {
            cell,
            prop: desc.prop,
            direction: desc.direction,
            flags: desc.flags,
            l,
            d,
            t,
            n,
            slc,
            sic,
            dhc,
            dic,
            dlc,
            g,
            activation: (cell == CellKind::VanillaRnn).then_some(match desc.activation {
                AlgKind::EltwiseRelu => Activation::Relu(desc.alpha),
                AlgKind::EltwiseTanh => Activation::Tanh,
                _ => Activation::Logistic,
            }),
            with_attention: attention.is_some(),
            with_src_iter: src_iter.is_some(),
            with_src_iter_c: src_iter_c.is_some(),
            with_dst_iter: dst_iter.is_some(),
            with_dst_iter_c: dst_iter_c.is_some(),
            with_bias: bias.is_some(),
            with_peephole: peephole.is_some(),
            with_projection: projection.is_some(),
            precision,
            c_precision: src_iter_c
                .or(dst_iter_c)
                .map_or(Precision::F32, |m| Precision::of_type(m.data_type())),
            bf16_math: precision == Precision::Bf16,
            seq_lengths: false,
            int8,
        })
    }

    /// True for forward training (a workspace is produced).
    pub fn is_training(&self) -> bool {
        self.prop == PropKind::ForwardTraining
    }

    /// True for backward propagation (the workspace of a forward training pass is read).
    pub fn is_backward(&self) -> bool {
        self.prop == PropKind::Backward
    }

    /// True when backward writes the diff weights and bias instead of adding to them
    /// (`dnnl_rnn_flags_diff_weights_overwrite`).
    pub fn overwrites_diff_weights(&self) -> bool {
        self.flags & RnnFlags::DiffWeightsOverwrite.raw() as u32 != 0
    }

    /// True when direction `dir` (0 or 1) walks time from T−1 down to 0.
    pub fn is_reversed(&self, dir: usize) -> bool {
        match self.direction {
            Direction::Right2Left => true,
            Direction::BidirectionalConcat | Direction::BidirectionalSum => dir == 1,
            _ => false,
        }
    }

    /// Input channels of layer `layer` (SLC for layer 0, DIC above).
    pub fn layer_input_channels(&self, layer: usize) -> usize {
        if layer == 0 {
            self.slc
        } else {
            self.dic
        }
    }

    /// Floating-point operations of one forward pass (GEMMs only): for every layer and
    /// direction `2·T·N·G·DHC·(in + SIC)`, plus `2·T·N·DHC·DIC` with projection.
    pub fn forward_flops(&self) -> f64 {
        let proj = if self.with_projection { self.dic } else { 0 };
        let per = |inp: usize| {
            2.0 * (self.t * self.n * self.dhc) as f64
                * ((self.g * (inp + self.sic)) as f64 + proj as f64)
        };
        (0..self.l)
            .map(|l| per(self.layer_input_channels(l)))
            .sum::<f64>()
            * self.d as f64
    }

    /// True when no output has an element (no layer, batch or hidden unit). With T = 0 the
    /// final states are still produced (they equal the initial ones).
    pub fn is_empty(&self) -> bool {
        self.l == 0 || self.n == 0 || self.dhc == 0
    }
}
