//! One oneDNN RNN primitive over a whole sequence, as the fused ops run it: the weights are
//! converted into oneDNN's gate order and packed into the primitive's layout once, when the op
//! is made; a primitive is made per sequence shape (T, N, with or without per-sample lengths,
//! `Attr::rnn_seq_lengths`) the op meets, and the last [`CACHED`] are kept.
//!
//! Every primitive reads the same packed weights: the first shape's (the static shape, or
//! T = N = 1 for a dynamic one) chooses their layout, later ones are handed it.

use std::sync::{Arc, Mutex};

use super::sequence_cell::{CellKind, SequenceCell, Weights};
use crate::args;
use crate::attr::Attr;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::memory::{Handle, Memory, MemoryDesc, Reorder};
use crate::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use crate::rnn::{RnnDesc, RnnPd};
use crate::types::{CEnum, DataType, Direction, PropKind};

/// `dnnl_format_tag_any`.
const ANY: i32 = 1;
/// `dnnl_tnc`.
pub const TNC: i32 = 4;
/// `dnnl_ldnc` (= `dnnl_ldgo`).
const LDNC: i32 = 5;
/// `dnnl_ldigo`.
const LDIGO: i32 = 6;
/// `dnnl_ntc`.
pub const NTC: i32 = 16;

/// Primitives kept per op (one per sequence shape; the oldest goes first).
pub const CACHED: usize = 8;

/// The iteration-state arguments, per state (h, c).
const SRC_ITER: [i32; 2] = [args::SRC_ITER, args::SRC_ITER_C];
const DST_ITER: [i32; 2] = [args::DST_ITER, args::DST_ITER_C];

fn md(dims: &[usize], tag: i32) -> Result<MemoryDesc> {
    let d: Vec<i64> = dims.iter().map(|&v| v as i64).collect();
    MemoryDesc::with_tag(&d, DataType::F32, tag)
}

/// Memory in the layout `want`, filled from plain values of layout `tag`.
fn prepared(values: &mut [f32], dims: &[usize], tag: i32, want: &MemoryDesc) -> Result<Memory> {
    let plain_md = md(dims, tag)?;
    let plain = Memory::new(
        &plain_md,
        Engine::cpu(),
        Handle::User(values.as_mut_ptr().cast()),
    )?;
    let out = Memory::allocate(want)?;
    Reorder::new(&plain_md, want)?.execute(&plain, &out)?;
    Ok(out)
}

/// A sequence shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    t: usize,
    n: usize,
    lengths: bool,
}

/// The primitive of one shape.
struct Compiled {
    shape: Shape,
    pd: RnnPd,
    primitive: Primitive,
}

/// What one run of the primitive gives: `dst_layer` `[T, N, D·H]` in the layer layout, and the
/// last states in `ldnc` `[1, D, N, H]` (h, then c for LSTM).
pub struct RunOutput {
    /// The hidden sequence.
    pub layer: Vec<f32>,
    /// The last states.
    pub states: Vec<Vec<f32>>,
}

/// What every primitive of an op shares.
struct Spec {
    kind: CellKind,
    direction: Direction,
    layer_tag: i32,
    k: usize,
    hidden: usize,
}

impl Spec {
    /// The pd of shape `s` with weights `wl`, `wi` and bias `b`.
    fn pd(&self, s: Shape, wl: &MemoryDesc, wi: &MemoryDesc, b: &MemoryDesc) -> Result<RnnPd> {
        let (d, h) = (self.direction.num_directions(), self.hidden);
        let state = md(&[1, d, s.n, h], LDNC)?;
        let mut desc = RnnDesc::new(PropKind::ForwardInference, self.kind.alg, self.direction)
            .with(
                args::SRC_LAYER,
                Some(&md(&[s.t, s.n, self.k], self.layer_tag)?),
            )
            .with(args::WEIGHTS_LAYER, Some(wl))
            .with(args::WEIGHTS_ITER, Some(wi))
            .with(args::BIAS, Some(b))
            .with(
                args::DST_LAYER,
                Some(&md(&[s.t, s.n, d * h], self.layer_tag)?),
            );
        for k in 0..self.kind.states {
            desc = desc
                .with(SRC_ITER[k], Some(&state))
                .with(DST_ITER[k], Some(&state));
        }
        desc.activation = self.kind.activation;
        let mut attr = Attr::new();
        attr.rnn_seq_lengths = s.lengths;
        RnnPd::new(Engine::cpu(), desc, &attr, None)
    }
}

/// An RNN primitive over a sequence with its packed weights (see the module doc).
pub struct RnnPrimitive {
    spec: Spec,
    weights_layer: Memory,
    weights_iter: Memory,
    bias: Memory,
    compiled: Mutex<Vec<Arc<Compiled>>>,
}

impl std::fmt::Debug for RnnPrimitive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl RnnPrimitive {
    /// Converts and packs `cell`'s weights for input channels `k`, sequences in layout
    /// `layer_tag` ([`TNC`] or [`NTC`]) walked in `direction` (`cell.directions` must match),
    /// and makes the primitive of `first` (T, N), the shape the packed layout is chosen for.
    pub fn new(
        cell: &SequenceCell,
        direction: Direction,
        layer_tag: i32,
        k: usize,
        first: (usize, usize),
    ) -> Result<Self> {
        let (d, h) = (cell.directions, cell.hidden);
        if direction.num_directions() != d {
            return Err(Error::InvalidArguments(format!(
                "{}: {d} directions of weights for a {} primitive",
                cell.kind.type_name,
                direction.name()
            )));
        }
        let (gates, bias_gates) = (cell.gates(), cell.bias_gates());
        let wl_dims = [1, d, k, gates, h];
        let wi_dims = [1, d, h, gates, h];
        let b_dims = [1, d, bias_gates, h];
        let spec = Spec {
            kind: cell.kind,
            direction,
            layer_tag,
            k,
            hidden: h,
        };
        let shape = Shape {
            t: first.0,
            n: first.1,
            lengths: false,
        };
        let pd = spec.pd(
            shape,
            &md(&wl_dims, ANY)?,
            &md(&wi_dims, ANY)?,
            &md(&b_dims, LDNC)?,
        )?;
        let arg = |a: i32| arg_md(&pd, a, cell.kind.type_name);
        let weights_layer = prepared(
            &mut cell.ldigo(Weights::Layer, k)?,
            &wl_dims,
            LDIGO,
            arg(args::WEIGHTS_LAYER)?,
        )?;
        let weights_iter = prepared(
            &mut cell.ldigo(Weights::Iter, h)?,
            &wi_dims,
            LDIGO,
            arg(args::WEIGHTS_ITER)?,
        )?;
        let bias = prepared(&mut cell.ldgo_bias()?, &b_dims, LDNC, arg(args::BIAS)?)?;
        let primitive = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone())))?;
        Ok(Self {
            spec,
            weights_layer,
            weights_iter,
            bias,
            compiled: Mutex::new(vec![Arc::new(Compiled {
                shape,
                pd,
                primitive,
            })]),
        })
    }

    /// D.
    pub fn directions(&self) -> usize {
        self.spec.direction.num_directions()
    }

    /// `vanilla_lstm bidirectional_concat K=… H=… (oxidnn:packed:avx2)`, for `--verbose`.
    pub fn describe(&self) -> String {
        let cell = match self.spec.kind.activation.name() {
            "undef" => self.spec.kind.alg.name().to_string(),
            act => format!("{} ({act})", self.spec.kind.alg.name()),
        };
        let imp = self
            .compiled
            .lock()
            .ok()
            .and_then(|c| c.first().map(|c| c.pd.impl_info().to_string()))
            .unwrap_or_default();
        format!(
            "{cell} {} K={} H={} ({imp})",
            self.spec.direction.name(),
            self.spec.k,
            self.spec.hidden
        )
    }

    /// The primitive of `shape`, made (and cached) on first use.
    fn compiled(&self, shape: Shape) -> Result<Arc<Compiled>> {
        let poisoned = || {
            Error::Runtime(format!(
                "{}: primitive cache poisoned",
                self.spec.kind.type_name
            ))
        };
        if let Some(c) = self
            .compiled
            .lock()
            .map_err(|_| poisoned())?
            .iter()
            .find(|c| c.shape == shape)
        {
            return Ok(c.clone());
        }
        let pd = self.spec.pd(
            shape,
            self.weights_layer.desc(),
            self.weights_iter.desc(),
            self.bias.desc(),
        )?;
        let primitive = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone())))?;
        let c = Arc::new(Compiled {
            shape,
            pd,
            primitive,
        });
        let mut cache = self.compiled.lock().map_err(|_| poisoned())?;
        if cache.len() >= CACHED {
            cache.remove(0);
        }
        cache.push(c.clone());
        Ok(c)
    }

    /// Runs the primitive over `src_layer` (`[T, N, K]` in the layer layout) from the states
    /// `src_iter` (`ldnc` `[1, D, N, H]` each), with per-sample `lengths` (each in `0..=T`)
    /// when given: then `dst_layer` is zero past each sample's length and the last states are
    /// those after its last valid step (`src_iter` for a length 0).
    pub fn run(
        &self,
        t: usize,
        n: usize,
        src_layer: &[f32],
        src_iter: &mut [Vec<f32>],
        lengths: Option<&mut [i32]>,
    ) -> Result<RunOutput> {
        let (d, h) = (self.directions(), self.spec.hidden);
        let c = self.compiled(Shape {
            t,
            n,
            lengths: lengths.is_some(),
        })?;
        let arg = |a: i32| arg_md(&c.pd, a, self.spec.kind.type_name);
        if src_layer.len() != t * n * self.spec.k || src_iter.len() != self.spec.kind.states {
            return Err(Error::InvalidArguments(format!(
                "{}: {} input values and {} states for T={t} N={n} K={}",
                self.spec.kind.type_name,
                src_layer.len(),
                src_iter.len(),
                self.spec.k
            )));
        }
        let mut layer = vec![0f32; t * n * d * h];
        let mut states: Vec<Vec<f32>> = (0..self.spec.kind.states)
            .map(|_| vec![0f32; d * n * h])
            .collect();
        let user = |a: i32, v: &mut [f32]| -> Result<Memory> {
            let m = arg(a)?;
            if v.len() * 4 < m.size_bytes() {
                return Err(Error::InvalidArguments(format!(
                    "{}: argument {a} has {} values, the primitive reads {} bytes",
                    self.spec.kind.type_name,
                    v.len(),
                    m.size_bytes()
                )));
            }
            Memory::new(m, Engine::cpu(), Handle::User(v.as_mut_ptr().cast()))
        };
        // SAFETY of the cast: the primitive only reads SRC_LAYER.
        let src = Memory::new(
            arg(args::SRC_LAYER)?,
            Engine::cpu(),
            Handle::User(src_layer.as_ptr().cast_mut().cast()),
        )?;
        let mut owned: Vec<(i32, Memory)> = vec![
            (args::SRC_LAYER, src),
            (args::DST_LAYER, user(args::DST_LAYER, &mut layer)?),
        ];
        for (k, v) in src_iter.iter_mut().enumerate() {
            owned.push((SRC_ITER[k], user(SRC_ITER[k], v)?));
        }
        for (k, v) in states.iter_mut().enumerate() {
            owned.push((DST_ITER[k], user(DST_ITER[k], v)?));
        }
        if let Some(l) = lengths {
            if l.len() != n || l.iter().any(|&v| v < 0 || v as usize > t) {
                return Err(Error::InvalidArguments(format!(
                    "{}: {} sequence lengths for N={n}, each in 0..={t}",
                    self.spec.kind.type_name,
                    l.len()
                )));
            }
            owned.push((
                args::SEQ_LENGTHS,
                Memory::new(
                    arg(args::SEQ_LENGTHS)?,
                    Engine::cpu(),
                    Handle::User(l.as_mut_ptr().cast()),
                )?,
            ));
        }
        if let Some(md) = c.pd.arg_md(args::SCRATCHPAD).filter(|m| !m.is_zero()) {
            owned.push((args::SCRATCHPAD, Memory::allocate(md)?));
        }
        let mut list: Vec<(i32, &Memory)> = vec![
            (args::WEIGHTS_LAYER, &self.weights_layer),
            (args::WEIGHTS_ITER, &self.weights_iter),
            (args::BIAS, &self.bias),
        ];
        list.extend(owned.iter().map(|(a, m)| (*a, m)));
        c.primitive.execute(&ExecArgs::new(list)?)?;
        drop(owned);
        Ok(RunOutput { layer, states })
    }
}

fn arg_md<'a>(pd: &'a RnnPd, a: i32, what: &str) -> Result<&'a MemoryDesc> {
    pd.arg_md(a)
        .ok_or_else(|| Error::Runtime(format!("the {what} primitive has no argument {a}")))
}
