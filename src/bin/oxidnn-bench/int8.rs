//! benchdnn's int8 configurations (SYNTAX.md §3.1): `u8u8u8u8`, `u8u8u8f32`, `f32u8f32u8`,
//! `f32u8f32f32` and their s8 twins, as benchdnn runs them: data qparams `(63.5, 28)` (s8:
//! `(32, 0)`), weights scales `64·(1 + i/n)` (`--scaling=per_oc`: mask 24, else one) and the same
//! for the projection (`--scaling-proj`, mask 8); integer activations from benchdnn's int8
//! distributions, given as f32 and quantized by the reorders with the attribute; sparse f32
//! weights quantized by the reorder into the packed layout. The expected outputs come from the
//! int8 simulation (`rnn::reference_int8`) on the same integers.
//!
//! Rules (reference §b): `dst_layer` exact (quantized, or dequantized f32); `dst_iter` within
//! one quantization step; `dst_iter_c` within benchdnn's f32 threshold (no norm fallback).

use crate::case::{Case, Skip};
use crate::check::Outcome;
use crate::compare::Rule;
use crate::fill::{self, Kind};
use crate::options::{tag_value, Alg, Dir, Prop};
use crate::run::NotRun;
use oxidnn::args;
use oxidnn::attr::Attr;
use oxidnn::engine::Engine;
use oxidnn::memory::{Memory, MemoryDesc};
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::rnn::precision::Precision;
use oxidnn::rnn::reference::RefProblem;
use oxidnn::rnn::reference_int8::{self, Int8RefInputs, Int8RefOutputs, Int8RefProblem};
use oxidnn::rnn::{CellKind, RnnDesc, RnnPd};
use oxidnn::types::{AlgKind, DataType, Direction, PropKind};
use oxidnn::Error;

const TAG_ANY: i32 = 1;
const TAG_TNC: i32 = 4;
const TAG_LDNC: i32 = 5;
const TAG_LDIGO: i32 = 6;

/// The data types of an int8 configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// s8 activations (else u8).
    pub s8: bool,
    /// src_iter / dst_iter f32.
    pub iter_f32: bool,
    /// dst_layer f32.
    pub dst_f32: bool,
}

impl Config {
    /// The configuration named `cfg`, if it is an int8 one.
    pub fn of(cfg: &str) -> Option<Self> {
        let (s8, rest) = match cfg {
            "u8u8u8u8" | "u8u8u8f32" | "f32u8f32u8" | "f32u8f32f32" => (false, cfg),
            "s8s8s8s8" | "s8s8s8f32" | "f32s8f32s8" | "f32s8f32f32" => (true, cfg),
            _ => return None,
        };
        Some(Self {
            s8,
            iter_f32: rest.starts_with("f32"),
            dst_f32: rest.ends_with("f32"),
        })
    }

    fn act(&self) -> DataType {
        if self.s8 {
            DataType::S8
        } else {
            DataType::U8
        }
    }

    /// benchdnn's data qparams `(scale, shift)`.
    fn qparams(&self) -> (f32, f32) {
        if self.s8 {
            (32.0, 0.0)
        } else {
            (63.5, 28.0)
        }
    }

    /// benchdnn's int8 activation distribution: mean, standard deviation, range.
    fn distribution(&self) -> (f32, f32, f32, f32) {
        if self.s8 {
            (8.0, 32.0, 0.0, 64.0)
        } else {
            (28.0, 16.0, 0.0, 127.0)
        }
    }
}

/// benchdnn's own int8 skips: trivial strides, LSTM or GRU, forward inference, `any` weights.
pub fn skip_reason(c: &Case) -> Option<Skip> {
    let why = if !c.trivial_strides {
        "int8 with non-trivial strides"
    } else if !matches!(c.alg, Alg::VanillaLstm | Alg::VanillaGru) {
        "int8 cells other than LSTM and GRU"
    } else if c.prop != Prop::FwdI {
        "int8 other than forward inference"
    } else if c.tag.wei != "any"
        || [&c.tag.src, &c.tag.dst]
            .iter()
            .any(|t| !matches!(tag_value(t), Some(TAG_ANY | TAG_TNC)))
    {
        "int8 with tags other than abc:any:abc"
    } else {
        return None;
    };
    Some(Skip::Unsupported(format!(
        "{why} (benchdnn skips it on CPU)"
    )))
}

/// Integers from benchdnn's int8 activation distribution (per-chunk seeded normals).
fn integers(cfg: &Config, len: usize, kind: Kind) -> Vec<i32> {
    let (mean, std, lo, hi) = cfg.distribution();
    // The f32 fill is normal(0.5, 0.01): rescale it to the int8 distribution.
    fill::activations(len, kind)
        .into_iter()
        .map(|v| (mean + std * (v - 0.5) / 0.01).clamp(lo, hi).round() as i32)
        .collect()
}

/// `K·(1 + i/n)` for `n` scales, `K = 64`.
fn scales(n: usize) -> Vec<f32> {
    (0..n).map(|i| 64.0 * (1.0 + i as f32 / n as f32)).collect()
}

/// A case ready to execute.
pub struct Prepared {
    pd: RnnPd,
    prim: Primitive,
    memories: Vec<(i32, Memory)>,
    problem: Int8RefProblem,
    inputs: Inputs,
    cfg: Config,
}

/// The simulation's inputs.
struct Inputs {
    src_layer: Vec<i32>,
    src_iter: Vec<i32>,
    src_iter_c: Vec<f32>,
    weights: [Vec<i32>; 3],
    bias: Vec<f32>,
    scales: [Vec<f32>; 2],
}

fn md(dims: &[usize], dt: DataType, tag: i32) -> Result<MemoryDesc, Error> {
    let d: Vec<i64> = dims.iter().map(|&v| v as i64).collect();
    MemoryDesc::with_tag(&d, dt, tag)
}

/// Memory of `dst` made by a reorder of f32 `values` (plain `tag`) with `attr`.
fn reordered(dst: &MemoryDesc, tag: i32, values: &[f32], attr: &Attr) -> Result<Memory, Error> {
    let plain_md = MemoryDesc::with_tag(dst.dims(), DataType::F32, tag)?;
    let plain = Memory::allocate(&plain_md)?;
    // SAFETY: a dense f32 memory of `values.len()` elements.
    unsafe { std::slice::from_raw_parts_mut(plain.data_ptr().cast::<f32>(), values.len()) }
        .copy_from_slice(values);
    let out = Memory::allocate(dst)?;
    let pd = PrimitiveDesc::reorder(&plain_md, dst, Engine::cpu(), attr)?;
    Primitive::new(&pd)?.execute(&ExecArgs::new(vec![
        (args::FROM, &plain),
        (args::TO, &out),
    ])?)?;
    Ok(out)
}

impl Prepared {
    /// Creates the pd, primitive and memories of an int8 case.
    pub fn new(c: &Case) -> Result<Self, NotRun> {
        let cfg = Config::of(&c.cfg).expect("an int8 cfg");
        let d = &c.dims;
        let (l, dn, t, n, g) = (d.l, c.d(), d.t, d.mb, c.gates());
        let lstm = c.alg == Alg::VanillaLstm;
        let (scale, shift) = cfg.qparams();
        let direction = match c.direction {
            Dir::Left2Right => Direction::Left2Right,
            Dir::Right2Left => Direction::Right2Left,
            Dir::Concat => Direction::BidirectionalConcat,
            Dir::Sum => Direction::BidirectionalSum,
        };
        let problem = Int8RefProblem {
            shape: RefProblem {
                cell: if lstm { CellKind::Lstm } else { CellKind::Gru },
                direction,
                l,
                t,
                n,
                slc: d.slc,
                sic: d.sic,
                dhc: d.dhc,
                dic: d.dic,
                with_projection: c.with_projection,
                activation: None,
                linear: None,
                precision: Precision::F32,
                c_precision: Precision::F32,
            },
            s8: cfg.s8,
            scale,
            shift,
        };
        let ws = scales(if c.scaling == "per_oc" { g * d.dhc } else { 1 });
        let ps = scales(if c.scaling_proj == "per_oc" { d.dic } else { 1 });
        let mut attr = Attr::new();
        attr.rnn_data_qparams = (scale, shift);
        attr.set_rnn_weights_qparams(if ws.len() > 1 { 24 } else { 0 }, &ws)?;
        if c.with_projection {
            attr.set_rnn_weights_projection_qparams(if ps.len() > 1 { 8 } else { 0 }, &ps)?;
        }
        if c.scratchpad == "user" {
            attr.scratchpad_mode = oxidnn::types::ScratchpadMode::User;
        }
        if c.skip_nonlinear {
            attr.rnn_tparams = crate::run::test_params(c);
        }

        let act = cfg.act();
        let iter_dt = if cfg.iter_f32 { DataType::F32 } else { act };
        let dst_dt = if cfg.dst_f32 { DataType::F32 } else { act };
        let dlc = c.dlc();
        let wl_dims = [l, dn, d.slc, g, d.dhc];
        let wi_dims = [l, dn, d.sic, g, d.dhc];
        let wp_dims = [l, dn, d.dhc, d.dic];
        let mut tensors = vec![
            (args::SRC_LAYER, md(&[t, n, d.slc], act, TAG_TNC)?),
            (args::SRC_ITER, md(&[l, dn, n, d.sic], iter_dt, TAG_LDNC)?),
            (args::WEIGHTS_LAYER, md(&wl_dims, DataType::S8, TAG_ANY)?),
            (args::WEIGHTS_ITER, md(&wi_dims, DataType::S8, TAG_ANY)?),
            (args::BIAS, md(&[l, dn, g, d.dhc], DataType::F32, TAG_LDNC)?),
            (args::DST_LAYER, md(&[t, n, dlc], dst_dt, TAG_TNC)?),
            (args::DST_ITER, md(&[l, dn, n, d.dic], iter_dt, TAG_LDNC)?),
        ];
        if lstm {
            let c_md = md(&[l, dn, n, d.dhc], DataType::F32, TAG_LDNC)?;
            tensors.push((args::SRC_ITER_C, c_md.clone()));
            tensors.push((args::DST_ITER_C, c_md));
        }
        if c.with_projection {
            tensors.push((
                args::WEIGHTS_PROJECTION,
                md(&wp_dims, DataType::S8, TAG_ANY)?,
            ));
        }
        let prop = PropKind::ForwardInference;
        let cell = if lstm {
            AlgKind::VanillaLstm
        } else {
            AlgKind::VanillaGru
        };
        let mut desc = RnnDesc::new(prop, cell, direction);
        for (arg, m) in &tensors {
            desc = desc.with(*arg, Some(m));
        }
        let pd = RnnPd::new(Engine::cpu(), desc, &attr, None)?;
        let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone())))?;
        let arg_md = |a| pd.arg_md(a).cloned().unwrap_or_else(MemoryDesc::zero);

        // Inputs: integers, given as the f32 values that quantize to them.
        let src_layer = integers(&cfg, t * n * d.slc, Kind::SrcLayer);
        let src_iter = integers(&cfg, l * dn * n * d.sic, Kind::SrcIter);
        let deq =
            |v: &[i32]| -> Vec<f32> { v.iter().map(|&q| (q as f32 - shift) / scale).collect() };
        let src_iter_c = fill::activations(l * dn * n * d.dhc, Kind::SrcIterC);
        let bias = fill::sparse_bias(l * dn * g * d.dhc);
        let wf = [
            fill::sparse_weights(l, dn, d.slc, g, d.dhc, 1.0 / g as f32),
            fill::sparse_weights(l, dn, d.sic, g, d.dhc, 1.0 / g as f32),
            fill::sparse_weights(l, dn, d.dhc, 1, d.dic, 1.0),
        ];
        let quantized = |w: &[f32], s: &[f32], per: usize| -> Vec<i32> {
            w.iter()
                .enumerate()
                .map(|(i, &v)| {
                    let k = if s.len() == 1 { 0 } else { i % per };
                    (s[k] * v).round_ties_even().clamp(-128.0, 127.0) as i32
                })
                .collect()
        };
        let weights = [
            quantized(&wf[0], &ws, g * d.dhc),
            quantized(&wf[1], &ws, g * d.dhc),
            quantized(&wf[2], &ps, d.dic),
        ];
        let mut memories = vec![
            (
                args::SRC_LAYER,
                reordered(&arg_md(args::SRC_LAYER), TAG_TNC, &deq(&src_layer), &attr)?,
            ),
            (
                args::SRC_ITER,
                reordered(&arg_md(args::SRC_ITER), TAG_LDNC, &deq(&src_iter), &attr)?,
            ),
            (
                args::WEIGHTS_LAYER,
                reordered(&arg_md(args::WEIGHTS_LAYER), TAG_LDIGO, &wf[0], &attr)?,
            ),
            (
                args::WEIGHTS_ITER,
                reordered(&arg_md(args::WEIGHTS_ITER), TAG_LDIGO, &wf[1], &attr)?,
            ),
            (
                args::BIAS,
                reordered(&arg_md(args::BIAS), TAG_LDNC, &bias, &Attr::new())?,
            ),
        ];
        if lstm {
            memories.push((
                args::SRC_ITER_C,
                reordered(
                    &arg_md(args::SRC_ITER_C),
                    TAG_LDNC,
                    &src_iter_c,
                    &Attr::new(),
                )?,
            ));
        }
        if c.with_projection {
            memories.push((
                args::WEIGHTS_PROJECTION,
                reordered(&arg_md(args::WEIGHTS_PROJECTION), TAG_LDNC, &wf[2], &attr)?,
            ));
        }
        for arg in [
            args::DST_LAYER,
            args::DST_ITER,
            args::DST_ITER_C,
            args::SCRATCHPAD,
        ] {
            if let Some(m) = pd.arg_md(arg).filter(|m| !m.is_zero()) {
                memories.push((arg, Memory::allocate(m)?));
            }
        }
        Ok(Self {
            pd,
            prim,
            memories,
            problem,
            inputs: Inputs {
                src_layer,
                src_iter,
                src_iter_c,
                weights,
                bias,
                scales: [ws, ps],
            },
            cfg,
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

    fn output(&self, arg: i32) -> Vec<f32> {
        let mem = &self
            .memories
            .iter()
            .find(|(a, _)| *a == arg)
            .expect("output")
            .1;
        let md = mem.desc();
        let p = mem.data_ptr();
        let mut out = Vec::with_capacity(md.nelems());
        let mut idx = vec![0i64; md.ndims()];
        if md.nelems() == 0 {
            return out;
        }
        loop {
            let off = md.element_offset(&idx);
            // SAFETY: the offset of a logical index is inside the memory's buffer.
            out.push(unsafe {
                match md.data_type() {
                    DataType::U8 => *p.add(off) as f32,
                    DataType::S8 => *p.add(off) as i8 as f32,
                    _ => *p.cast::<f32>().add(off),
                }
            });
            if !oxidnn::memory::reorder::next_index(&mut idx, md.dims()) {
                return out;
            }
        }
    }

    fn reference(&self) -> Int8RefOutputs {
        let x = &self.inputs;
        reference_int8::forward(
            &self.problem,
            &Int8RefInputs {
                src_layer: &x.src_layer,
                src_iter: Some(&x.src_iter),
                src_iter_c: Some(&x.src_iter_c),
                weights_layer: &x.weights[0],
                weights_iter: &x.weights[1],
                weights_projection: self
                    .problem
                    .shape
                    .with_projection
                    .then_some(&x.weights[2][..]),
                bias: &x.bias,
                weights_scales: &x.scales[0],
                projection_scales: &x.scales[1],
                lengths: None,
            },
        )
    }
}

/// Compares one quantized output: `got` as the library wrote it (integers, or dequantized
/// f32), `want` the simulation's integers; `slack` steps allowed.
fn compare(
    name: &str,
    got: &[f32],
    want: &[i32],
    f32_out: bool,
    deq: impl Fn(i32) -> f32,
    slack: f32,
    step: f32,
) -> Option<String> {
    got.iter()
        .zip(want)
        .enumerate()
        .map(|(i, (&a, &q))| {
            let (diff, limit) = if f32_out {
                ((a - deq(q)).abs(), slack * step + 1e-5)
            } else {
                ((a - q as f32).abs(), slack)
            };
            (i, a, q, diff, limit)
        })
        .find(|&(.., diff, limit)| diff.is_nan() || diff > limit)
        .map(|(i, a, q, diff, _)| {
            format!("{name}[{i}]: got {a}, expected {q} (quantized), diff {diff}")
        })
}

/// Checks an int8 case.
pub fn check(c: &Case, inject_error: f32) -> Outcome {
    let prepared = match Prepared::new(c) {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    if let Err(e) = prepared.execute() {
        return Outcome::Failed(vec![format!("execute: {e}")]);
    }
    let exp = prepared.reference();
    let p = &prepared.problem;
    let cfg = prepared.cfg;
    let step = 1.0 / p.scale;
    let sum = p.shape.direction == Direction::BidirectionalSum;
    let mut failed = Vec::new();
    let mut dst_layer = prepared.output(args::DST_LAYER);
    if let Some(v) = dst_layer.first_mut() {
        *v += inject_error;
    }
    let layer_shift = if sum { 2.0 * p.shift } else { p.shift };
    failed.extend(compare(
        "dst_layer",
        &dst_layer,
        &exp.dst_layer,
        cfg.dst_f32,
        |q| (q as f32 - layer_shift) / p.scale,
        0.0,
        step,
    ));
    failed.extend(compare(
        "dst_iter",
        &prepared.output(args::DST_ITER),
        &exp.dst_iter,
        cfg.iter_f32,
        |q| (q as f32 - p.shift) / p.scale,
        1.0,
        step,
    ));
    if c.alg == Alg::VanillaLstm {
        let rule = Rule {
            norm_fallback: false,
            ..Rule::forward(c)
        };
        if let crate::compare::Verdict::Failed(m) = rule.check(
            "dst_iter_c",
            &prepared.output(args::DST_ITER_C),
            &exp.dst_iter_c,
        ) {
            failed.push(m);
        }
    }
    if failed.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed(failed)
    }
}
