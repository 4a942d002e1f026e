//! Builds a case through the library's core API the way the C API does (descriptor → primitive
//! descriptor → primitive; memories from the pd's descriptors; `any` weights reordered from
//! ldigo), fills it, executes it, and computes the reference on the same inputs.

use crate::case::{Case, Skip};
use crate::fill::{self, Kind};
use crate::options::{Act, Alg, Dir, Prop};
use crate::tensor::{
    input_memory, layer_md, poisoned, read_values, retyped, state_md, TAG_LDNC, TAG_TNC,
};
use oxidnn::args;
use oxidnn::attr::{Attr, RnnTestParams};
use oxidnn::engine::Engine;
use oxidnn::memory::tag::TAG_ANY;
use oxidnn::memory::{Memory, MemoryDesc};
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::rnn::precision::Precision;
use oxidnn::rnn::reference::{self, RefInputs, RefOutputs, RefProblem};
use oxidnn::rnn::{RnnDesc, RnnPd};
use oxidnn::types::{AlgKind, DataType, Direction, FpmathMode, PropKind, ScratchpadMode};
use oxidnn::Error;

/// benchdnn's ReLU negative slope.
const RELU_ALPHA: f32 = 0.9;

/// Why a case could not be prepared.
#[derive(Debug)]
pub enum NotRun {
    /// The library does not implement it (`unimplemented`).
    Skipped(Skip),
    /// The library failed where it should not have.
    Failed(String),
}

impl From<Error> for NotRun {
    fn from(e: Error) -> Self {
        match e {
            Error::Unimplemented(m) => {
                NotRun::Skipped(Skip::Unsupported(format!("unimplemented: {m}")))
            }
            e => NotRun::Failed(e.to_string()),
        }
    }
}

/// The inputs of a case, dense in the reference's canonical layouts.
struct Inputs {
    /// Values by argument.
    values: Vec<(i32, Vec<f32>)>,
}

impl Inputs {
    fn get(&self, arg: i32) -> Option<&[f32]> {
        self.values
            .iter()
            .find(|(a, _)| *a == arg)
            .map(|(_, v)| v.as_slice())
    }
}

/// The outputs the case checks, in logical row-major order.
pub struct Outputs {
    /// `(argument, name, values)` of dst_layer, dst_iter and (LSTM) dst_iter_c.
    pub tensors: Vec<(i32, &'static str, Vec<f32>)>,
}

/// A case ready to execute: its primitive, memories and inputs.
pub struct Prepared {
    pd: RnnPd,
    prim: Primitive,
    memories: Vec<(i32, Memory)>,
    inputs: Inputs,
}

/// The outputs a forward case checks: argument and name.
fn outputs_of(c: &Case) -> Vec<(i32, &'static str)> {
    let mut v = vec![(args::DST_LAYER, "dst_layer"), (args::DST_ITER, "dst_iter")];
    if c.alg == Alg::VanillaLstm {
        v.push((args::DST_ITER_C, "dst_iter_c"));
    }
    v
}

fn tag(name: &str) -> i32 {
    crate::options::tag_value(name).expect("tags are checked when parsed")
}

/// The operation descriptor and inputs of a case (every tensor benchdnn passes).
fn describe(c: &Case) -> Result<(RnnDesc, Inputs), Error> {
    let d = &c.dims;
    let (l, dn, t, n, g) = (d.l, c.d(), d.t, d.mb, c.gates());
    let lstm = c.alg == Alg::VanillaLstm;
    let pad = !c.trivial_strides;
    let prop = match c.prop {
        Prop::FwdI => PropKind::ForwardInference,
        _ => PropKind::ForwardTraining,
    };
    let cell = match c.alg {
        Alg::VanillaRnn => AlgKind::VanillaRnn,
        Alg::VanillaLstm => AlgKind::VanillaLstm,
        Alg::VanillaGru => AlgKind::VanillaGru,
        Alg::LbrGru => AlgKind::LbrGru,
        Alg::VanillaAugru => AlgKind::VanillaAugru,
        Alg::LbrAugru => AlgKind::LbrAugru,
    };
    let direction = match c.direction {
        Dir::Left2Right => Direction::Left2Right,
        Dir::Right2Left => Direction::Right2Left,
        Dir::Concat => Direction::BidirectionalConcat,
        Dir::Sum => Direction::BidirectionalSum,
    };
    let mut desc = RnnDesc::new(prop, cell, direction);
    desc.flags = u32::from(c.flags == "O");
    if c.alg == Alg::VanillaRnn {
        (desc.activation, desc.alpha) = match c.activation {
            Act::Relu => (AlgKind::EltwiseRelu, RELU_ALPHA),
            Act::Tanh => (AlgKind::EltwiseTanh, 0.0),
            _ => (AlgKind::EltwiseLogistic, 0.0),
        };
    }
    let flip = c.alg == Alg::VanillaRnn && c.activation == Act::Relu && !c.skip_nonlinear;
    let mut src_layer = fill::activations(t * n * d.slc, Kind::SrcLayer);
    let mut src_iter = fill::activations(l * dn * n * d.sic, Kind::SrcIter);
    if flip {
        fill::flip_first_batch_row(&mut src_layer, n, d.slc);
        fill::flip_first_batch_row(&mut src_iter, n, d.sic);
    }
    let wei_tag = tag(&c.tag.wei);
    let bias_gates = g + usize::from(matches!(c.alg, Alg::LbrGru | Alg::LbrAugru));
    let mut tensors: Vec<(i32, MemoryDesc, Option<Vec<f32>>)> = vec![
        (
            args::SRC_LAYER,
            layer_md(&[t, n, d.slc], tag(&c.tag.src), pad)?,
            Some(src_layer),
        ),
        (
            args::SRC_ITER,
            state_md(&[l, dn, n, d.sic], pad)?,
            Some(src_iter),
        ),
        (
            args::WEIGHTS_LAYER,
            layer_md(&[l, dn, d.slc, g, d.dhc], wei_tag, false)?,
            Some(fill::sparse_weights(l, dn, d.slc, g, d.dhc, 1.0 / g as f32)),
        ),
        (
            args::WEIGHTS_ITER,
            layer_md(&[l, dn, d.sic, g, d.dhc], wei_tag, false)?,
            Some(fill::sparse_weights(l, dn, d.sic, g, d.dhc, 1.0 / g as f32)),
        ),
        (
            args::BIAS,
            layer_md(&[l, dn, bias_gates, d.dhc], TAG_ANY, false)?,
            Some(fill::sparse_bias(l * dn * bias_gates * d.dhc)),
        ),
        (
            args::DST_LAYER,
            layer_md(&[t, n, c.dlc()], tag(&c.tag.dst), pad)?,
            None,
        ),
        (args::DST_ITER, state_md(&[l, dn, n, d.dic], pad)?, None),
    ];
    if lstm {
        tensors.push((
            args::SRC_ITER_C,
            state_md(&[l, dn, n, d.dhc], pad)?,
            Some(fill::activations(l * dn * n * d.dhc, Kind::SrcIterC)),
        ));
        tensors.push((args::DST_ITER_C, state_md(&[l, dn, n, d.dhc], pad)?, None));
    }
    if c.with_peephole {
        tensors.push((
            args::WEIGHTS_PEEPHOLE,
            layer_md(&[l, dn, 3, d.dhc], TAG_LDNC, false)?,
            Some(fill::activations(l * dn * 3 * d.dhc, Kind::Peephole)),
        ));
    }
    if c.with_projection {
        tensors.push((
            args::WEIGHTS_PROJECTION,
            layer_md(&[l, dn, d.dhc, d.dic], TAG_ANY, false)?,
            Some(fill::sparse_weights(l, dn, d.dhc, 1, d.dic, 1.0)),
        ));
    }
    if c.is_augru() {
        tensors.push((
            args::AUGRU_ATTENTION,
            layer_md(&[t, n, 1], TAG_TNC, false)?,
            Some(fill::activations(t * n, Kind::Attention)),
        ));
    }
    // The cfg's types; the values rounded to them, so the reference reads what the primitive
    // reads.
    let mut values = Vec::new();
    for (arg, md, v) in tensors {
        let dt = c.data_type(arg);
        let md = if dt == DataType::F32 {
            md
        } else {
            retyped(&md, dt)?
        };
        desc = desc.with(arg, Some(&md));
        if let Some(mut v) = v {
            let precision = Precision::of_type(dt);
            v.iter_mut().for_each(|x| *x = precision.round(*x));
            values.push((arg, v));
        }
    }
    Ok((desc, Inputs { values }))
}

/// benchdnn's linear activation scales for `--skip-nonlinear`: powers of two so the linearised
/// chain stays exact, `(i + 1) / next_pow2(acc + is_lstm)` per gate, `acc = G` forward and
/// `G · max(G, DHC, MB)` backward (one set serves both passes).
pub(crate) fn test_params(c: &Case) -> RnnTestParams {
    let lstm = usize::from(c.alg == Alg::VanillaLstm);
    let g = c.gates();
    let acc = match c.prop {
        Prop::FwdI | Prop::FwdD => g,
        Prop::BwdD | Prop::BwdDw => g * g.max(c.dims.dhc).max(c.dims.mb),
    };
    let factor = 1.0 / (acc + lstm).next_power_of_two() as f32;
    RnnTestParams {
        test_mode: true,
        scales: (0..g).map(|i| (i + 1) as f32 * factor).collect(),
        cscale: if lstm == 1 {
            (g + 1) as f32 * factor
        } else {
            0.0
        },
    }
}

fn attr_of(c: &Case) -> Attr {
    let mut attr = Attr::new();
    if c.scratchpad == "user" {
        attr.scratchpad_mode = ScratchpadMode::User;
    }
    attr.deterministic = c.deterministic;
    attr.fpmath_mode = match c.fpmath.mode.as_str() {
        "bf16" => FpmathMode::Bf16,
        "f16" => FpmathMode::F16,
        "any" => FpmathMode::Any,
        "tf32" => FpmathMode::Tf32,
        _ => FpmathMode::Strict,
    };
    attr.fpmath_apply_to_int = c.fpmath.apply_to_int;
    if c.skip_nonlinear {
        attr.rnn_tparams = test_params(c);
    }
    attr
}

impl Prepared {
    /// Creates the pd and primitive of a forward case and its filled memories.
    pub fn new(c: &Case) -> Result<Self, NotRun> {
        let (desc, inputs) = describe(c)?;
        let pd = RnnPd::new(Engine::cpu(), desc, &attr_of(c), None)?;
        let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone())))?;
        let mut memories = Vec::new();
        for (arg, values) in &inputs.values {
            let md = pd
                .arg_md(*arg)
                .ok_or_else(|| NotRun::Failed(format!("the pd does not take argument {arg}")))?;
            memories.push((*arg, input_memory(md, values)?));
        }
        for (arg, _) in outputs_of(c) {
            let md = pd.arg_md(arg).cloned().unwrap_or_else(MemoryDesc::zero);
            memories.push((arg, poisoned(&md)?));
        }
        for arg in [args::WORKSPACE, args::SCRATCHPAD] {
            if let Some(md) = pd.arg_md(arg).filter(|m| !m.is_zero()) {
                memories.push((arg, Memory::allocate(md)?));
            }
        }
        Ok(Self {
            pd,
            prim,
            memories,
            inputs,
        })
    }

    /// The primitive descriptor.
    pub fn pd(&self) -> &RnnPd {
        &self.pd
    }

    /// Executes the primitive once.
    pub fn execute(&self) -> Result<(), Error> {
        let list = self.memories.iter().map(|(a, m)| (*a, m)).collect();
        self.prim.execute(&ExecArgs::new(list)?)
    }

    /// The checked outputs of the last execution.
    pub fn outputs(&self, c: &Case) -> Outputs {
        Outputs {
            tensors: outputs_of(c)
                .into_iter()
                .map(|(arg, name)| {
                    (
                        arg,
                        name,
                        read_values(self.memory(arg).expect("output")).expect("f32 copy"),
                    )
                })
                .collect(),
        }
    }

    /// The memory of an argument, if the case has it.
    pub fn memory(&self, arg: i32) -> Option<&Memory> {
        self.memories
            .iter()
            .find(|(a, _)| *a == arg)
            .map(|(_, m)| m)
    }

    /// The input values of an argument (logical canonical order), if the case has it.
    pub fn values(&self, arg: i32) -> Option<&[f32]> {
        self.inputs.get(arg)
    }

    /// The reference's problem: the pd's, so every field the library's problem and
    /// attributes know reaches the reference.
    pub fn ref_problem(&self) -> RefProblem {
        RefProblem::from_pd(&self.pd)
    }

    /// The reference's view of the inputs.
    pub fn ref_inputs(&self) -> RefInputs<'_> {
        let x = |arg| self.inputs.get(arg);
        RefInputs {
            src_layer: x(args::SRC_LAYER).unwrap_or(&[]),
            src_iter: x(args::SRC_ITER),
            src_iter_c: x(args::SRC_ITER_C),
            weights_layer: x(args::WEIGHTS_LAYER).unwrap_or(&[]),
            weights_iter: x(args::WEIGHTS_ITER).unwrap_or(&[]),
            bias: x(args::BIAS),
            attention: x(args::AUGRU_ATTENTION),
            peephole: x(args::WEIGHTS_PEEPHOLE),
            projection: x(args::WEIGHTS_PROJECTION),
            lengths: None,
        }
    }

    /// The reference outputs (and intermediate states) for the same inputs.
    pub fn reference(&self) -> Result<RefOutputs, Error> {
        reference::forward(&self.ref_problem(), &self.ref_inputs())
    }
}
