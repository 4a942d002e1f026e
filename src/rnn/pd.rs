//! The RNN primitive descriptor: validation, format resolution, queries.
//!
//! Format resolution (`format_tag::any`): `src_layer`/`dst_layer` → `tnc`, state tensors →
//! `ldnc`, bias → `ldgo`, weights → our packed layout (`memory::packed`, reported as opaque).
//! User layouts accepted: data tensors in any plain strided layout whose channels are contiguous
//! (tnc, ntc, padded strides, sub-memory views) — as oneDNN's CPU engine, a non-unit channel
//! stride is `unimplemented`; output tensors must not overlap themselves; weights and bias in any
//! strided layout (ldigo, ldgoi, …) or, for weights, the packed layout.
//!
//! Backward pds take every forward tensor and its diff (`DNNL_ARG_DIFF_*`): `any` weights resolve
//! to the packed transposed layout (`memory::packed_transposed`, opaque, where oneDNN chooses
//! plain `ldgoi`) and diff weights to `ldigo`, projection weights to `ldoi` and their diff to
//! `ldio` (oneDNN's CPU choices; any plain layout is accepted, the packed forward one is not), diff data
//! tensors like their counterparts; the workspace descriptor is the forward training pd's (same
//! problem, same layout).
//!
//! Test mode (the hidden `rnn_tparams` attribute) needs a scale per gate: with fewer,
//! `invalid_arguments` — oneDNN 3.13 creates such a pd and would read past its scales at
//! execution.

use super::backward::scratch::BackwardScratch;
use super::cells::CellKind;
use super::desc::RnnDesc;
use super::int8::Int8Plan;
use super::precision::Precision;
use super::problem::RnnProblem;
use super::scratch::ScratchLayout;
use super::seq_lengths;
use super::staging::Staging;
use super::weights;
use super::workspace::WorkspaceLayout;
use crate::args;
use crate::attr::Attr;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::kernels::gemm_bf16::Bf16Kernel;
use crate::kernels::int8_gemm::Int8Kernel;
use crate::kernels::Isa;
use crate::memory::{describe, Layout, MemoryDesc};
use crate::primitive::MdQuery;
use crate::size;
use crate::types::{DataType, FpmathMode, ScratchpadMode};
use crate::{invalid, unimplemented_err};
use std::collections::BTreeMap;

/// `dnnl_a`, the tag of 1-D byte buffers (workspace, scratchpad).
const TAG_A: i32 = 2;
/// `dnnl_tnc` (= `abc`).
const TAG_TNC: i32 = 4;
/// `dnnl_ldnc` / `dnnl_ldgo` (= `abcd`).
const TAG_LDNC: i32 = 5;
/// `dnnl_ldigo` (= `abcde`).
const TAG_LDIGO: i32 = 6;
/// `dnnl_ldoi` (= `abdc`).
const TAG_LDOI: i32 = 20;

/// An RNN primitive descriptor: the validated problem, resolved descriptors and buffer layouts.
#[derive(Clone, Debug)]
pub struct RnnPd {
    engine: Engine,
    desc: RnnDesc,
    attr: Attr,
    problem: RnnProblem,
    /// Every argument the primitive takes, resolved; zero descriptors for absent optional ones.
    mds: BTreeMap<i32, MemoryDesc>,
    scratch: ScratchLayout,
    /// Backward: the scratchpad layout (`scratch` is then unused).
    backward_scratch: Option<BackwardScratch>,
    workspace: Option<WorkspaceLayout>,
    /// int8 problems: the scratchpad plan (`scratch` is then unused).
    int8: Option<Int8Plan>,
    /// Low-precision user tensors widened or narrowed around the drivers.
    staging: Staging,
    isa: Isa,
    impl_info: String,
}

/// What a tensor is, for format resolution.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Activations read by the primitive.
    DataIn,
    /// Activations written by the primitive.
    DataOut,
    /// Weights (packed when `any`).
    Weights,
    /// Bias.
    Bias,
    /// Backward: diff weights (plain `ldigo` when `any`, like oneDNN's CPU engine).
    DiffWeights,
}

fn default_tag(arg: i32) -> i32 {
    match arg % args::DIFF {
        args::SRC_LAYER | args::DST_LAYER | args::AUGRU_ATTENTION => TAG_TNC,
        _ => TAG_LDNC,
    }
}

fn role(arg: i32) -> Role {
    if arg > args::DIFF {
        return match role(arg - args::DIFF) {
            Role::Weights => Role::DiffWeights,
            Role::Bias => Role::Bias,
            // diff_src_* are written, diff_dst_* read.
            Role::DataOut => Role::DataIn,
            _ => Role::DataOut,
        };
    }
    match arg {
        args::WEIGHTS_LAYER
        | args::WEIGHTS_ITER
        | args::WEIGHTS_PEEPHOLE
        | args::WEIGHTS_PROJECTION => Role::Weights,
        args::BIAS => Role::Bias,
        args::DST_LAYER | args::DST_ITER | args::DST_ITER_C => Role::DataOut,
        _ => Role::DataIn,
    }
}

/// True when no two elements of a strided layout share an address (dense or padded strides in
/// some dimension order).
fn non_overlapping(dims: &[i64], strides: &[i64]) -> bool {
    let mut v: Vec<(i64, i64)> = strides
        .iter()
        .copied()
        .zip(dims.iter().copied())
        .filter(|&(_, d)| d > 1)
        .collect();
    v.sort_unstable();
    let mut extent = 1;
    for (s, d) in v {
        if s < extent {
            return false;
        }
        extent = s * d;
    }
    true
}

/// Resolves one argument's descriptor; `any` forward weights become the packed layout with
/// blocks of `block_gates` gates, `any` backward `weights_layer` / `weights_iter` the packed
/// transposed layout (`memory::packed_transposed`), read in place where plain weights are
/// packed at every execution. Backward projection weights resolve to `ldoi`, their diff to
/// `ldio`, as oneDNN's CPU engine chooses. Backward accepts any plain layout for every weights
/// tensor (a superset: oneDNN takes only its own), but not the packed forward layout.
///
/// `packing`: the gates per block and whether rows are bf16 pairs of the forward layout; given
/// packed weights of bf16 pairs need bf16 math (`pairs`).
fn resolve(
    arg: i32,
    md: &MemoryDesc,
    backward: bool,
    (block_gates, pairs): (usize, bool),
) -> Result<MemoryDesc> {
    let role = role(arg);
    let name = args::rnn_name(arg);
    let given = || describe(md, args::rnn_tag_aliases(arg));
    let peephole = arg % args::DIFF == args::WEIGHTS_PEEPHOLE;
    let projection = arg % args::DIFF == args::WEIGHTS_PROJECTION;
    let gate_weights = role == Role::Weights && !peephole && !projection;
    match md.layout() {
        Layout::Undef => {
            invalid!("{name}: the memory descriptor has no layout (format_tag undef)")
        }
        Layout::HostScalar => invalid!("{name}: unsupported format kind (host scalar)"),
        Layout::Any => match role {
            // Peephole weights are a few rows per layer: plain ldgo, as oneDNN resolves them.
            Role::Weights | Role::DiffWeights if peephole => md.with_plain_tag(TAG_LDNC),
            // Backward projection weights `ldoi`, their diff `ldio` (oneDNN 3.13's choices).
            Role::Weights if backward && projection => md.with_plain_tag(TAG_LDOI),
            Role::DiffWeights if projection => md.with_plain_tag(TAG_LDNC),
            Role::Weights if backward => MemoryDesc::packed_transposed(md.dims(), md.data_type()),
            Role::Weights => MemoryDesc::packed_as(md.dims(), md.data_type(), block_gates, pairs),
            Role::DiffWeights => md.with_plain_tag(TAG_LDIGO),
            _ => md.with_plain_tag(default_tag(arg)),
        },
        Layout::Packed(_) if role == Role::Weights && backward => unimplemented_err!(
            "{name}: backward takes plain weights (reorder the packed forward weights)"
        ),
        Layout::Packed(p) if role == Role::Weights && p.pairs && !pairs => unimplemented_err!(
            "{name}: weights packed as bf16 need bf16 math (a bf16 primitive, or fpmath mode bf16)"
        ),
        Layout::Packed(_) if role == Role::Weights => Ok(md.clone()),
        Layout::Packed(_) => {
            unimplemented_err!("{name}: the packed layout is only for weights")
        }
        Layout::PackedTransposed(_) if gate_weights && backward => Ok(md.clone()),
        Layout::PackedTransposed(_) => unimplemented_err!(
            "{name}: the packed transposed layout is only for backward weights_layer and \
             weights_iter"
        ),
        Layout::Strided { strides, .. } => {
            if matches!(role, Role::DataIn | Role::DataOut) {
                let c = md.ndims() - 1;
                if md.dims()[c] > 1 && strides[c] != 1 {
                    unimplemented_err!(
                        "{name} is {}: channels must be contiguous (innermost stride 1)",
                        given()
                    );
                }
            }
            if role == Role::DataOut && !non_overlapping(md.dims(), strides) {
                unimplemented_err!("{name} is {}: an output whose elements overlap", given());
            }
            Ok(md.clone())
        }
    }
}

/// Bytes of the scratchpad the driver that runs the problem uses (backward, int8 or the forward
/// one), before the staging area.
fn driver_scratch_bytes(
    forward: &ScratchLayout,
    backward: Option<&BackwardScratch>,
    int8: Option<&Int8Plan>,
) -> usize {
    match (backward, int8) {
        (Some(b), _) => b.bytes,
        (_, Some(i)) => i.bytes,
        _ => forward.bytes,
    }
}

/// Largest batch for which an f32 primitive allowed bf16 math (bf32) multiplies in bf16 where
/// the bf16 kernels widen many rows to f32 (with AMX-BF16 or a full-rate `vdpbf16ps`,
/// `Bf16Kernel::multiplies_in_bf16`, every batch): its step GEMMs of a few rows wait on the
/// weights, half as many bytes in bf16; with more rows the f32 kernels are as fast as the
/// widened bf16 ones (measured on a Xeon, LSTM C=512).
const BF32_MAX_BATCH: usize = 3;

/// The implementation name: `oxidnn:gemm` (f32 backward), `oxidnn:int8:<kernel>`,
/// `oxidnn:bf16:<kernel>` (GEMMs in bf16: bf16 forward and backward, bf32 forward),
/// `oxidnn:packed:<isa>` (the vector instruction set: the f32 kernels use no AMX tiles).
fn impl_name(p: &RnnProblem, isa: Isa) -> String {
    if p.is_backward() && !p.bf16_math {
        "oxidnn:gemm".to_string()
    } else if p.int8.is_some() {
        format!("oxidnn:int8:{}", Int8Kernel::for_isa(isa).name())
    } else if p.bf16_math {
        format!("oxidnn:bf16:{}", Bf16Kernel::for_isa(isa).name())
    } else {
        format!("oxidnn:packed:{}", isa.vector().name())
    }
}

impl RnnPd {
    /// Validates the descriptor, resolves `any` formats and sizes the workspace and scratchpad.
    /// `hint` (the forward pd of a backward one) is unused by forward primitives.
    pub fn new(engine: Engine, desc: RnnDesc, attr: &Attr, hint: Option<&RnnPd>) -> Result<Self> {
        let _ = hint;
        for md in desc.mds.values() {
            md.no_runtime_dims("an RNN primitive descriptor")?;
        }
        let mut problem = RnnProblem::new(&desc)?;
        problem.seq_lengths = attr.rnn_seq_lengths;
        // bf32: f32 forward GEMMs in bf16 where the fpmath mode allows it and it pays.
        if problem.precision == Precision::F32
            && problem.int8.is_none()
            && !problem.is_backward()
            && matches!(attr.fpmath_mode, FpmathMode::Bf16 | FpmathMode::Any)
            && (problem.n <= BF32_MAX_BATCH
                || Bf16Kernel::for_isa(Isa::detected()).multiplies_in_bf16())
        {
            problem.bf16_math = true;
        }
        match &problem.int8 {
            Some(cfg) => cfg.check_attr(&problem, attr)?,
            None if !attr.has_default_quantization() => {
                unimplemented_err!("RNN quantization parameters apply to int8 only")
            }
            None => {}
        }
        let tparams = &attr.rnn_tparams;
        if tparams.test_mode && tparams.scales.len() < problem.g {
            invalid!(
                "RNN test mode needs a scale per gate: {} has {} gates, {} scales given",
                problem.cell.name(),
                problem.g,
                tparams.scales.len()
            );
        }
        let backward = problem.is_backward();
        let mut mds = BTreeMap::new();
        let fwd_args = problem.cell.forward_args();
        let diff_args = fwd_args.iter().map(|a| args::DIFF + a);
        let all_args: Vec<i32> = if backward {
            fwd_args.iter().copied().chain(diff_args).collect()
        } else {
            fwd_args
        };
        let packing = (weights::block_gates(&problem), weights::pairs(&problem));
        for arg in all_args {
            let md = match desc.md(arg) {
                Some(md) => resolve(arg, md, backward, packing)?,
                None => MemoryDesc::zero(),
            };
            mds.insert(arg, md);
        }
        let is_plain = |arg| {
            matches!(
                mds.get(&arg).map(MemoryDesc::layout),
                Some(Layout::Strided { .. })
            )
        };
        // Every buffer's size is checked here, before anything walks layers or steps.
        let scratch = ScratchLayout::new(
            &problem,
            is_plain(args::WEIGHTS_LAYER),
            is_plain(args::WEIGHTS_ITER),
            is_plain(args::WEIGHTS_PROJECTION),
        )?;
        let int8 = problem
            .int8
            .map(|_| {
                Int8Plan::new(
                    &problem,
                    [
                        args::WEIGHTS_LAYER,
                        args::WEIGHTS_ITER,
                        args::WEIGHTS_PROJECTION,
                    ]
                    .map(is_plain),
                )
            })
            .transpose()?;
        let workspace = (problem.is_training() || backward)
            .then(|| WorkspaceLayout::new(&problem))
            .transpose()?;
        let backward_scratch = backward
            .then(|| {
                BackwardScratch::new(
                    &problem,
                    is_plain(args::WEIGHTS_LAYER),
                    is_plain(args::WEIGHTS_ITER),
                )
            })
            .transpose()?;
        let driver_bytes = driver_scratch_bytes(&scratch, backward_scratch.as_ref(), int8.as_ref());
        let staging = Staging::new(&mds, backward, driver_bytes)?;
        let scratch_bytes = staging.scratch_bytes(driver_bytes);
        let bytes_md = |bytes: usize| {
            MemoryDesc::with_tag(&[size::to_dim("RNN buffer", bytes)?], DataType::U8, TAG_A)
        };
        mds.insert(
            args::WORKSPACE,
            match &workspace {
                Some(ws) => bytes_md(ws.bytes)?,
                None => MemoryDesc::zero(),
            },
        );
        mds.insert(
            args::SCRATCHPAD,
            match attr.scratchpad_mode {
                ScratchpadMode::User => bytes_md(scratch_bytes)?,
                ScratchpadMode::Library => MemoryDesc::zero(),
            },
        );
        if problem.seq_lengths {
            mds.insert(args::SEQ_LENGTHS, seq_lengths::lengths_md(&problem)?);
        }
        let isa = Isa::detected();
        let impl_info = impl_name(&problem, isa);
        Ok(Self {
            backward_scratch,
            staging,
            engine,
            desc,
            attr: attr.clone(),
            problem,
            mds,
            scratch,
            workspace,
            int8,
            isa,
            impl_info,
        })
    }

    /// The engine.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The operation descriptor as given by the user.
    pub fn desc(&self) -> &RnnDesc {
        &self.desc
    }

    /// The attributes.
    pub fn attr(&self) -> &Attr {
        &self.attr
    }

    /// The validated problem.
    pub fn problem(&self) -> &RnnProblem {
        &self.problem
    }

    /// Scratchpad layout.
    pub fn scratch_layout(&self) -> &ScratchLayout {
        &self.scratch
    }

    /// Backward scratchpad layout (backward only).
    pub fn backward_scratch(&self) -> Option<&BackwardScratch> {
        self.backward_scratch.as_ref()
    }

    /// Bytes of the scratchpad of one execution.
    pub fn scratch_bytes(&self) -> usize {
        let driver = driver_scratch_bytes(
            &self.scratch,
            self.backward_scratch.as_ref(),
            self.int8.as_ref(),
        );
        self.staging.scratch_bytes(driver)
    }

    /// int8 problems: the scratchpad plan.
    pub fn int8_plan(&self) -> Option<&Int8Plan> {
        self.int8.as_ref()
    }

    /// The staged (low-precision) tensors.
    pub fn staging(&self) -> &Staging {
        &self.staging
    }

    /// Workspace layout (forward training and backward).
    pub fn workspace_layout(&self) -> Option<&WorkspaceLayout> {
        self.workspace.as_ref()
    }

    /// Instruction set the kernels use.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The same pd with its kernels forced to another instruction set (for tests and
    /// comparisons); `unimplemented` if this CPU cannot run it.
    pub fn with_isa(mut self, isa: Isa) -> Result<Self> {
        if !Isa::all_supported().contains(&isa) {
            unimplemented_err!("this CPU cannot run {} kernels", isa.name());
        }
        self.isa = isa;
        self.impl_info = impl_name(&self.problem, isa);
        Ok(self)
    }

    /// The resolved descriptor of an execution argument: the zero descriptor for optional
    /// tensors the cell takes but were not given (and for the workspace in inference, the
    /// scratchpad in library mode); `None` for arguments the primitive never takes.
    pub fn arg_md(&self, arg: i32) -> Option<&MemoryDesc> {
        self.mds.get(&arg)
    }

    /// The execution argument behind a generic md query (`src_md(i)`, `weights_md(i)`, …), with
    /// oneDNN's index mapping: src 0/1/2 = layer/iter/iter_c (AUGRU: attention next); weights 0
    /// layer, 1 iter, then peephole and projection when present, then bias; dst 0/1/2.
    /// Backward pds answer the diff queries with the same mapping on the diff arguments.
    pub fn arg_for_query(&self, q: MdQuery, index: usize) -> Option<i32> {
        let p = &self.problem;
        let cell = p.cell;
        let diff = |q| {
            p.is_backward()
                .then(|| self.arg_for_query(q, index))
                .flatten()
                .map(|a| args::DIFF + a)
        };
        match q {
            MdQuery::DiffSrc => diff(MdQuery::Src),
            MdQuery::DiffWeights => diff(MdQuery::Weights),
            MdQuery::DiffDst => diff(MdQuery::Dst),
            MdQuery::Src => {
                let mut v = vec![args::SRC_LAYER, args::SRC_ITER];
                if cell.has_c_state() {
                    v.push(args::SRC_ITER_C);
                }
                if cell.has_attention() {
                    v.push(args::AUGRU_ATTENTION);
                }
                v.get(index).copied()
            }
            MdQuery::Weights => {
                let mut v = vec![args::WEIGHTS_LAYER, args::WEIGHTS_ITER];
                if p.with_peephole {
                    v.push(args::WEIGHTS_PEEPHOLE);
                }
                if p.with_projection {
                    v.push(args::WEIGHTS_PROJECTION);
                }
                v.push(args::BIAS);
                v.get(index).copied()
            }
            MdQuery::Dst => {
                let mut v = vec![args::DST_LAYER, args::DST_ITER];
                if cell.has_c_state() {
                    v.push(args::DST_ITER_C);
                }
                v.get(index).copied()
            }
            MdQuery::Workspace => (index == 0).then_some(args::WORKSPACE),
            MdQuery::Scratchpad => (index == 0).then_some(args::SCRATCHPAD),
        }
    }

    /// Number of input tensors, counted as oneDNN does: src_layer, both weights, and each
    /// optional input present (the sequence lengths too); backward adds dst_layer, its diff, the workspace, and each
    /// dst_iter(_c) and its diff present.
    pub fn num_inputs(&self) -> usize {
        let p = &self.problem;
        let backward = if p.is_backward() {
            3 + 2 * [p.with_dst_iter, p.with_dst_iter_c]
                .iter()
                .filter(|&&b| b)
                .count()
        } else {
            0
        };
        backward
            + 3
            + usize::from(p.seq_lengths)
            + [
                p.with_peephole,
                p.with_projection,
                p.with_bias,
                p.with_src_iter,
                p.with_src_iter_c,
                p.cell.has_attention(),
            ]
            .iter()
            .filter(|&&b| b)
            .count()
    }

    /// Number of output tensors: dst_layer, dst_iter(_c) when present, the workspace in training;
    /// backward: the diff of every input but dst_*.
    pub fn num_outputs(&self) -> usize {
        let p = &self.problem;
        if p.is_backward() {
            return self.num_inputs()
                - 3
                - 2 * [p.with_dst_iter, p.with_dst_iter_c]
                    .iter()
                    .filter(|&&b| b)
                    .count();
        }
        1 + [p.with_dst_iter, p.with_dst_iter_c, p.is_training()]
            .iter()
            .filter(|&&b| b)
            .count()
    }

    /// The implementation name, e.g. `oxidnn:packed:avx512`.
    pub fn impl_info(&self) -> &str {
        &self.impl_info
    }

    /// Bytes the primitive holds besides user memory: its scratchpad in library mode.
    pub fn memory_consumption(&self) -> usize {
        match self.attr.scratchpad_mode {
            ScratchpadMode::Library => self.scratch_bytes(),
            ScratchpadMode::User => 0,
        }
    }

    /// The cell kind.
    pub fn cell(&self) -> CellKind {
        self.problem.cell
    }

    /// The resolved descriptor of an argument the primitive takes (internal use).
    pub(crate) fn md(&self, arg: i32) -> Result<&MemoryDesc> {
        self.mds
            .get(&arg)
            .ok_or_else(|| Error::Runtime(format!("{} has no descriptor", args::rnn_name(arg))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_detection() {
        assert!(non_overlapping(&[5, 3, 4], &[12, 4, 1]));
        assert!(non_overlapping(&[5, 3, 4], &[4, 20, 1]));
        assert!(non_overlapping(&[5, 3, 4], &[100, 20, 1]));
        assert!(!non_overlapping(&[5, 3, 4], &[4, 2, 1]));
        assert!(non_overlapping(&[1, 1, 3, 4], &[0, 0, 4, 1]));
    }
}
