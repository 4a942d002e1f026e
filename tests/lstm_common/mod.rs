//! Shared helpers of the RNN integration tests (every cell; named after the first one): building
//! and running a primitive through the Rust API, filling and reading tensors by logical index,
//! and benchdnn's comparison rule.
#![allow(dead_code)]

use oxidnn::args;
use oxidnn::attr::{Attr, RnnTestParams};
use oxidnn::engine::Engine;
use oxidnn::memory::{Memory, MemoryDesc};
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::rnn::cells::vanilla::Activation;
use oxidnn::rnn::cells::Linear;
use oxidnn::rnn::precision::Precision;
use oxidnn::rnn::reference::{self, RefInputs, RefOutputs, RefProblem};
use oxidnn::rnn::{CellKind, RnnDesc, RnnPd};
use oxidnn::types::{AlgKind, DataType, Direction, PropKind, ScratchpadMode};
use oxidnn::Result;

/// `dnnl_format_tag_any`.
pub const ANY: i32 = 1;
/// `dnnl_tnc`.
pub const TNC: i32 = 4;
/// `dnnl_ldnc` / `dnnl_ldgo`.
pub const LDNC: i32 = 5;
/// `dnnl_ldigo`.
pub const LDIGO: i32 = 6;
/// `dnnl_ntc`.
pub const NTC: i32 = 16;
/// `dnnl_ldgoi`.
pub const LDGOI: i32 = 31;
/// `dnnl_ldio` (= `ldnc`, `abcd`).
pub const LDIO: i32 = 5;
/// `dnnl_ldoi` (`abdc`).
pub const LDOI: i32 = 20;

/// Every direction.
pub const DIRECTIONS: [Direction; 4] = [
    Direction::Left2Right,
    Direction::Right2Left,
    Direction::BidirectionalConcat,
    Direction::BidirectionalSum,
];

/// Every cell kind.
pub const CELLS: [CellKind; 6] = [
    CellKind::VanillaRnn,
    CellKind::Lstm,
    CellKind::Gru,
    CellKind::LbrGru,
    CellKind::Augru,
    CellKind::LbrAugru,
];

/// Deterministic values in [−0.5, 0.5).
pub fn fill(len: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        })
        .collect()
}

/// Deterministic values in [0, scale).
pub fn fill_positive(len: usize, seed: u64, scale: f32) -> Vec<f32> {
    fill(len, seed)
        .into_iter()
        .map(|v| (v + 0.5) * scale)
        .collect()
}

/// Visits every logical index of `dims` in row-major order.
pub fn for_each_index(dims: &[i64], mut f: impl FnMut(&[i64])) {
    if dims.contains(&0) {
        return;
    }
    let mut idx = vec![0i64; dims.len()];
    loop {
        f(&idx);
        let mut k = dims.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < dims[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

/// Writes logical row-major `values` into `mem` through its descriptor.
pub fn write_logical(mem: &Memory, values: &[f32]) {
    let md = mem.desc();
    assert_eq!(values.len(), md.nelems());
    let p = mem.data_ptr().cast::<f32>();
    let mut i = 0;
    for_each_index(md.dims(), |idx| {
        // SAFETY: the offset is inside the memory's extent.
        unsafe { *p.add(md.element_offset(idx)) = values[i] };
        i += 1;
    });
}

/// Reads `mem` into logical row-major order.
pub fn read_logical(mem: &Memory) -> Vec<f32> {
    let md = mem.desc();
    let p = mem.data_ptr().cast::<f32>();
    let mut v = Vec::with_capacity(md.nelems());
    for_each_index(md.dims(), |idx| {
        // SAFETY: the offset is inside the memory's extent.
        v.push(unsafe { *p.add(md.element_offset(idx)) });
    });
    v
}

/// Library-allocated memory with the given contents (logical order).
pub fn memory_with(md: &MemoryDesc, values: &[f32]) -> Memory {
    let m = Memory::allocate(md).expect("allocate");
    write_logical(&m, values);
    m
}

/// A sequence lengths memory (`s32` `{N}`) holding `v`.
pub fn lengths_memory(md: &MemoryDesc, v: &[i32]) -> Memory {
    let m = Memory::allocate(md).expect("allocate");
    assert_eq!(md.nelems(), v.len());
    // SAFETY: the memory holds N s32 values.
    unsafe { std::slice::from_raw_parts_mut(m.data_ptr().cast::<i32>(), v.len()) }
        .copy_from_slice(v);
    m
}

/// Memory filled with a recognisable garbage value (outputs must overwrite it).
pub fn poisoned(md: &MemoryDesc) -> Memory {
    let m = Memory::allocate(md).expect("allocate");
    let n = md.size_bytes() / 4;
    if n > 0 {
        // SAFETY: the buffer holds size_bytes() bytes.
        unsafe { std::slice::from_raw_parts_mut(m.data_ptr().cast::<f32>(), n).fill(f32::NAN) };
    }
    m
}

/// Reorders plain user memory into `dst_md` (e.g. the packed layout a pd chose).
pub fn reorder_into(src: &Memory, dst_md: &MemoryDesc) -> Memory {
    let pd = PrimitiveDesc::reorder(src.desc(), dst_md, Engine::cpu(), &Attr::new())
        .expect("reorder pd");
    let prim = Primitive::new(&pd).expect("reorder primitive");
    let dst = Memory::allocate(dst_md).expect("allocate");
    prim.execute(&ExecArgs::new(vec![(args::FROM, src), (args::TO, &dst)]).unwrap())
        .expect("reorder");
    dst
}

/// A plain descriptor.
pub fn md(dims: &[usize], tag: i32) -> MemoryDesc {
    let d: Vec<i64> = dims.iter().map(|&v| v as i64).collect();
    MemoryDesc::with_tag(&d, DataType::F32, tag).expect("md")
}

/// One RNN test case.
#[derive(Clone, Debug)]
pub struct Case {
    /// Cell kind (LSTM unless set).
    pub cell: CellKind,
    /// Vanilla RNN activation (ignored by the other cells).
    pub activation: Activation,
    /// LSTM: pass peephole weights (`any` or ldgo, following `weights_any`).
    pub peephole: bool,
    /// Direction.
    pub direction: Direction,
    /// Inference or training.
    pub prop: PropKind,
    /// Layers.
    pub l: usize,
    /// Time steps.
    pub t: usize,
    /// Batch.
    pub n: usize,
    /// Input channels.
    pub slc: usize,
    /// Hidden channels.
    pub dhc: usize,
    /// Output state channels (DHC unless `projection`).
    pub dic: usize,
    /// Recurrent input channels when they differ from DIC (allowed at T ≤ 1 only).
    pub sic_override: Option<usize>,
    /// LSTM: pass projection weights `[L][D][DHC][DIC]` (`any`, or `projection_tag`, following
    /// `weights_any`).
    pub projection: bool,
    /// Plain projection weights tag when not `any` (ldio or ldoi).
    pub projection_tag: i32,
    /// Test mode (the `rnn_tparams` attribute): linear activations.
    pub linear: Option<Linear>,
    /// Pass src_iter and src_iter_c.
    pub src_iter: bool,
    /// Pass the bias.
    pub bias: bool,
    /// Ask for dst_iter and dst_iter_c.
    pub dst_iter: bool,
    /// Weights as `any` (then reordered from ldigo) instead of plain.
    pub weights_any: bool,
    /// Plain weights tag when not `any` (ldigo or ldgoi).
    pub weights_tag: i32,
    /// src_layer / dst_layer tag (tnc or ntc).
    pub layer_tag: i32,
    /// Pad every data tensor's rows (strided layout with extra space, as a sub-memory view).
    pub padded: bool,
    /// User scratchpad mode.
    pub user_scratchpad: bool,
    /// Kernels to force (default: the best the CPU has).
    pub isa: Option<oxidnn::kernels::Isa>,
    /// Seed of the inputs.
    pub seed: u64,
    /// Inputs of both signs in [−0.5, 0.5) instead of benchdnn-like non-negative ones. The
    /// LSTM cell state `f·c_prev + i·c̃` may then cancel, which amplifies rounding differences
    /// beyond benchdnn's relative threshold (benchdnn's own fill avoids that), so these cases are
    /// compared with the threshold relative to max(|expected|, 1).
    pub signed: bool,
}

impl Case {
    /// An LSTM inference case with every option at its simplest.
    pub fn new(direction: Direction, l: usize, t: usize, n: usize, slc: usize, dhc: usize) -> Self {
        Self {
            cell: CellKind::Lstm,
            activation: Activation::Tanh,
            peephole: false,
            direction,
            prop: PropKind::ForwardInference,
            l,
            t,
            n,
            slc,
            dhc,
            dic: dhc,
            sic_override: None,
            projection: false,
            projection_tag: LDIO,
            linear: None,
            src_iter: true,
            bias: true,
            dst_iter: true,
            weights_any: true,
            weights_tag: LDIGO,
            layer_tag: TNC,
            padded: false,
            user_scratchpad: false,
            isa: None,
            seed: 1,
            signed: false,
        }
    }

    /// The same case with projection weights to `dic` output channels (layers above the first
    /// then take DIC inputs: set `slc = dic` for L > 1).
    pub fn with_projection(mut self, dic: usize) -> Self {
        self.projection = true;
        self.dic = dic;
        self
    }

    /// The same case for another cell.
    pub fn with_cell(mut self, cell: CellKind) -> Self {
        self.cell = cell;
        self
    }

    /// Gates.
    pub fn g(&self) -> usize {
        self.cell.gates()
    }

    /// oneDNN's cell algorithm kind.
    pub fn alg(&self) -> AlgKind {
        match self.cell {
            CellKind::VanillaRnn => AlgKind::VanillaRnn,
            CellKind::Lstm => AlgKind::VanillaLstm,
            CellKind::Gru => AlgKind::VanillaGru,
            CellKind::LbrGru => AlgKind::LbrGru,
            CellKind::Augru => AlgKind::VanillaAugru,
            CellKind::LbrAugru => AlgKind::LbrAugru,
        }
    }

    /// Recurrent input channels: DIC unless overridden.
    pub fn sic(&self) -> usize {
        self.sic_override.unwrap_or(self.dic)
    }

    /// Directions.
    pub fn d(&self) -> usize {
        self.direction.num_directions()
    }

    /// dst_layer channels.
    pub fn dlc(&self) -> usize {
        if self.direction == Direction::BidirectionalConcat {
            2 * self.dic
        } else {
            self.dic
        }
    }

    /// The reference problem.
    pub fn ref_problem(&self) -> RefProblem {
        RefProblem {
            cell: self.cell,
            activation: (self.cell == CellKind::VanillaRnn).then_some(self.activation),
            direction: self.direction,
            l: self.l,
            t: self.t,
            n: self.n,
            slc: self.slc,
            sic: self.sic(),
            dhc: self.dhc,
            dic: self.dic,
            with_projection: self.projection,
            linear: self.linear,
            precision: Precision::F32,
            c_precision: Precision::F32,
        }
    }
}

/// Inputs of a case in canonical layouts.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// `[T][N][SLC]`.
    pub src_layer: Vec<f32>,
    /// `[L][D][N][SIC]`.
    pub src_iter: Option<Vec<f32>>,
    /// `[L][D][N][DHC]`.
    pub src_iter_c: Option<Vec<f32>>,
    /// `[L][D][SLC][G][DHC]`.
    pub weights_layer: Vec<f32>,
    /// `[L][D][SIC][G][DHC]`.
    pub weights_iter: Vec<f32>,
    /// `[L][D][B][DHC]`.
    pub bias: Option<Vec<f32>>,
    /// AUGRU: `[T][N]` in [0, 1).
    pub attention: Option<Vec<f32>>,
    /// LSTM peephole `[L][D][3][DHC]`.
    pub peephole: Option<Vec<f32>>,
    /// LSTM projection `[L][D][DHC][DIC]`.
    pub projection: Option<Vec<f32>>,
    /// Per-sample sequence lengths `[N]` (the pd then takes them: `Attr::rnn_seq_lengths`).
    pub lengths: Option<Vec<i32>>,
}

impl Inputs {
    /// Random inputs for a case: non-negative, with weights scaled by 1/K so that every gate
    /// pre-activation is O(1) (like benchdnn's fill, but with dense weights); or of both signs
    /// for `signed` cases.
    pub fn random(c: &Case) -> Self {
        let (l, d, n, dhc, dic, g) = (c.l, c.d(), c.n, c.dhc, c.dic, c.g());
        let sic = c.sic();
        let f = |len: usize, seed: u64, scale: f32| {
            if c.signed {
                fill(len, c.seed * 16 + seed)
            } else {
                fill_positive(len, c.seed * 16 + seed, scale)
            }
        };
        Self {
            src_layer: f(c.t * n * c.slc, 0, 1.0),
            src_iter: c.src_iter.then(|| f(l * d * n * sic, 1, 1.0)),
            src_iter_c: (c.src_iter && c.cell.has_c_state()).then(|| f(l * d * n * dhc, 2, 1.0)),
            weights_layer: f(l * d * c.slc * g * dhc, 3, 1.0 / c.slc.max(1) as f32),
            weights_iter: f(l * d * sic * g * dhc, 4, 1.0 / sic.max(1) as f32),
            bias: c.bias.then(|| f(l * d * c.cell.bias_gates() * dhc, 5, 0.5)),
            attention: c
                .cell
                .has_attention()
                .then(|| fill_positive(c.t * n, c.seed * 16 + 6, 1.0)),
            peephole: c.peephole.then(|| f(l * d * 3 * dhc, 7, 0.5)),
            projection: c
                .projection
                .then(|| f(l * d * dhc * dic, 8, 1.0 / dhc.max(1) as f32)),
            lengths: None,
        }
    }

    /// The same inputs with benchdnn's sparse weights: exactly one non-zero per output column
    /// `(l, d, g, o)`, at input row `(19o + 7g + 11d + 13l) mod I`, value 1/G (projection: 1).
    /// Every gate pre-activation is then one input value plus bias, so long linear chains (test
    /// mode) stay within benchdnn's thresholds whatever the GEMM's summation order.
    pub fn with_sparse_weights(mut self, c: &Case) -> Self {
        let (l, d, dhc, g) = (c.l, c.d(), c.dhc, c.g());
        let sparse = |k: usize, g: usize, o_n: usize, value: f32| {
            let mut w = vec![0f32; l * d * k * g * o_n];
            for li in 0..l {
                for di in 0..d {
                    for gi in 0..g {
                        for o in 0..o_n {
                            let i = (19 * o + 7 * gi + 11 * di + 13 * li) % k.max(1);
                            w[((((li * d + di) * k + i) * g) + gi) * o_n + o] = value;
                        }
                    }
                }
            }
            w
        };
        let inv_g = 1.0 / g as f32;
        self.weights_layer = sparse(c.slc, g, dhc, inv_g);
        self.weights_iter = sparse(c.sic(), g, dhc, inv_g);
        if self.projection.is_some() {
            self.projection = Some(sparse(dhc, 1, c.dic, 1.0));
        }
        self
    }

    /// benchdnn's ReLU fill: the first batch row of `src_layer` and `src_iter` negated, and the
    /// bias zeroed (benchdnn's is 95 % zeros): with non-negative weights every pre-activation of
    /// that row is then negative, exercising alpha, with no cancellation between terms.
    pub fn flip_first_batch_row(mut self, c: &Case) -> Self {
        let negate = |v: &mut [f32], row: usize, ch: usize| {
            for chunk in v.chunks_mut(row) {
                chunk[..ch].iter_mut().for_each(|x| *x = -*x);
            }
        };
        if c.n > 0 {
            negate(&mut self.src_layer, c.n * c.slc, c.slc);
            if let Some(v) = self.src_iter.as_mut() {
                negate(v, c.n * c.sic(), c.sic());
            }
        }
        if let Some(b) = self.bias.as_mut() {
            b.fill(0.0);
        }
        self
    }

    /// The reference's view of these inputs.
    pub fn as_ref_inputs(&self) -> RefInputs<'_> {
        RefInputs {
            src_layer: &self.src_layer,
            src_iter: self.src_iter.as_deref(),
            src_iter_c: self.src_iter_c.as_deref(),
            weights_layer: &self.weights_layer,
            weights_iter: &self.weights_iter,
            bias: self.bias.as_deref(),
            attention: self.attention.as_deref(),
            peephole: self.peephole.as_deref(),
            projection: self.projection.as_deref(),
            lengths: self.lengths.as_deref(),
        }
    }
}

/// What one execution produced (logical canonical order).
#[derive(Clone, Debug)]
pub struct Outputs {
    /// `[T][N][DLC]`.
    pub dst_layer: Vec<f32>,
    /// `[L][D][N][DIC]` (empty if not asked).
    pub dst_iter: Vec<f32>,
    /// `[L][D][N][DHC]` (empty if not asked).
    pub dst_iter_c: Vec<f32>,
    /// Workspace bytes (training).
    pub workspace: Vec<u8>,
    /// The pd, for layout queries.
    pub pd: RnnPd,
}

impl Outputs {
    /// The f32 values of one region of the training workspace.
    pub fn workspace_floats(&self, region: oxidnn::rnn::arena::Region) -> Vec<f32> {
        self.workspace[region.offset..][..region.len * 4]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    }
}

/// A descriptor with the rows of its innermost dim padded by 3 elements, as a sub-memory of a
/// larger plain tensor.
fn padded_md(dims: &[usize], tag: i32) -> MemoryDesc {
    let mut big = dims.to_vec();
    *big.last_mut().unwrap() += 3;
    let parent = md(&big, tag);
    let d: Vec<i64> = dims.iter().map(|&v| v as i64).collect();
    let mut offs = vec![0i64; dims.len()];
    *offs.last_mut().unwrap() = 2;
    parent.submemory(&d, &offs).expect("submemory")
}

/// Builds the pd of a case.
pub fn make_pd(c: &Case) -> Result<RnnPd> {
    make_pd_with(c, false)
}

/// Builds the pd of a case, taking sequence lengths or not.
pub fn make_pd_with(c: &Case, seq_lengths: bool) -> Result<RnnPd> {
    let (l, d, n, dhc, dic, g) = (c.l, c.d(), c.n, c.dhc, c.dic, c.g());
    let lstm = c.cell.has_c_state();
    let data = |dims: &[usize], tag: i32| {
        if c.padded {
            padded_md(dims, tag)
        } else {
            md(dims, tag)
        }
    };
    let wtag = if c.weights_any { ANY } else { c.weights_tag };
    let mut desc = RnnDesc::new(c.prop, c.alg(), c.direction)
        .with(args::SRC_LAYER, Some(&data(&[c.t, n, c.slc], c.layer_tag)))
        .with(args::WEIGHTS_LAYER, Some(&md(&[l, d, c.slc, g, dhc], wtag)))
        .with(
            args::WEIGHTS_ITER,
            Some(&md(&[l, d, c.sic(), g, dhc], wtag)),
        )
        .with(
            args::DST_LAYER,
            Some(&data(&[c.t, n, c.dlc()], c.layer_tag)),
        );
    let state = data(&[l, d, n, dic], LDNC);
    let src_state = data(&[l, d, n, c.sic()], LDNC);
    let cell_state = data(&[l, d, n, dhc], LDNC);
    let c_state = lstm.then_some(&cell_state);
    if c.src_iter {
        desc = desc
            .with(args::SRC_ITER, Some(&src_state))
            .with(args::SRC_ITER_C, c_state);
    }
    if c.bias {
        let bg = c.cell.bias_gates();
        desc = desc.with(args::BIAS, Some(&md(&[l, d, bg, dhc], LDNC)));
    }
    if c.dst_iter {
        desc = desc
            .with(args::DST_ITER, Some(&state))
            .with(args::DST_ITER_C, c_state);
    }
    if c.peephole {
        let tag = if c.weights_any { ANY } else { LDNC };
        desc = desc.with(args::WEIGHTS_PEEPHOLE, Some(&md(&[l, d, 3, dhc], tag)));
    }
    if c.projection {
        let tag = if c.weights_any { ANY } else { c.projection_tag };
        desc = desc.with(args::WEIGHTS_PROJECTION, Some(&md(&[l, d, dhc, dic], tag)));
    }
    if c.cell.has_attention() {
        desc = desc.with(args::AUGRU_ATTENTION, Some(&data(&[c.t, n, 1], TNC)));
    }
    if c.cell == CellKind::VanillaRnn {
        (desc.activation, desc.alpha) = match c.activation {
            Activation::Relu(alpha) => (AlgKind::EltwiseRelu, alpha),
            Activation::Tanh => (AlgKind::EltwiseTanh, 0.0),
            Activation::Logistic => (AlgKind::EltwiseLogistic, 0.0),
        };
    }
    let mut attr = Attr::new();
    attr.rnn_seq_lengths = seq_lengths;
    if c.user_scratchpad {
        attr.scratchpad_mode = ScratchpadMode::User;
    }
    if let Some(lin) = c.linear {
        attr.rnn_tparams = RnnTestParams {
            test_mode: true,
            scales: lin.scales[..g].to_vec(),
            cscale: lin.cscale,
        };
    }
    let pd = RnnPd::new(Engine::cpu(), desc, &attr, None)?;
    match c.isa {
        Some(isa) => pd.with_isa(isa),
        None => Ok(pd),
    }
}

/// Runs a case through the primitive (pd → primitive → execute); with `x.lengths`, a pd
/// taking sequence lengths.
pub fn run_primitive(c: &Case, x: &Inputs) -> Outputs {
    let pd = make_pd_with(c, x.lengths.is_some())
        .unwrap_or_else(|e| panic!("{c:?}: pd creation failed: {e}"));
    let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone()))).expect("primitive");
    run_with(c, x, &pd, &prim)
}

/// Executes an existing primitive of a case on inputs `x`.
pub fn run_with(c: &Case, x: &Inputs, pd: &RnnPd, prim: &Primitive) -> Outputs {
    let (l, d, dhc, g) = (c.l, c.d(), c.dhc, c.g());
    let arg = |a| pd.arg_md(a).expect("pd takes the argument").clone();
    // Weights given as `any` are reordered from their canonical plain layout.
    let from_plain = |a: i32, v: &[f32], plain: &MemoryDesc| {
        let want = arg(a);
        if c.weights_any {
            reorder_into(&memory_with(plain, v), &want)
        } else {
            memory_with(&want, v)
        }
    };
    let src_layer = memory_with(&arg(args::SRC_LAYER), &x.src_layer);
    let weights = |a: i32, v: &[f32], k: usize| from_plain(a, v, &md(&[l, d, k, g, dhc], LDIGO));
    let wl = weights(args::WEIGHTS_LAYER, &x.weights_layer, c.slc);
    let wi = weights(args::WEIGHTS_ITER, &x.weights_iter, c.sic());
    let wp = x
        .projection
        .as_ref()
        .map(|v| from_plain(args::WEIGHTS_PROJECTION, v, &md(&[l, d, dhc, c.dic], LDIO)));
    let dst_layer = poisoned(&arg(args::DST_LAYER));
    let mut list: Vec<(i32, &Memory)> = vec![
        (args::SRC_LAYER, &src_layer),
        (args::WEIGHTS_LAYER, &wl),
        (args::WEIGHTS_ITER, &wi),
        (args::DST_LAYER, &dst_layer),
    ];
    // Optional inputs given by the case.
    let optional: Vec<(i32, Memory)> = [
        (args::SRC_ITER, &x.src_iter),
        (args::SRC_ITER_C, &x.src_iter_c),
        (args::BIAS, &x.bias),
        (args::AUGRU_ATTENTION, &x.attention),
        (args::WEIGHTS_PEEPHOLE, &x.peephole),
    ]
    .into_iter()
    .filter_map(|(a, v)| v.as_ref().map(|v| (a, memory_with(&arg(a), v))))
    .collect();
    list.extend(optional.iter().map(|(a, m)| (*a, m)));
    if let Some(m) = &wp {
        list.push((args::WEIGHTS_PROJECTION, m));
    }
    let dst_iter = c.dst_iter.then(|| poisoned(&arg(args::DST_ITER)));
    let dst_iter_c = (c.dst_iter && c.cell.has_c_state()).then(|| poisoned(&arg(args::DST_ITER_C)));
    let ws_md = arg(args::WORKSPACE);
    // With sequence lengths the buffers start as NaN: rows no step computes must not leak
    // into the results (nor into a backward pass reading the workspace).
    let fresh = |md: &MemoryDesc| match x.lengths {
        Some(_) => poisoned(md),
        None => Memory::allocate(md).unwrap(),
    };
    let workspace = (!ws_md.is_zero()).then(|| fresh(&ws_md));
    let sp_md = arg(args::SCRATCHPAD);
    let scratchpad = (!sp_md.is_zero()).then(|| fresh(&sp_md));
    let lengths = x
        .lengths
        .as_ref()
        .map(|v| lengths_memory(&arg(args::SEQ_LENGTHS), v));
    for (a, m) in [
        (args::DST_ITER, &dst_iter),
        (args::DST_ITER_C, &dst_iter_c),
        (args::WORKSPACE, &workspace),
        (args::SCRATCHPAD, &scratchpad),
        (args::SEQ_LENGTHS, &lengths),
    ] {
        if let Some(m) = m {
            list.push((a, m));
        }
    }
    prim.execute(&ExecArgs::new(list).unwrap())
        .unwrap_or_else(|e| panic!("{c:?}: execute failed: {e}"));
    let ws_bytes = workspace.map_or(Vec::new(), |w| {
        // SAFETY: the workspace buffer holds size_bytes() bytes.
        unsafe { std::slice::from_raw_parts(w.data_ptr(), w.desc().size_bytes()).to_vec() }
    });
    Outputs {
        dst_layer: read_logical(&dst_layer),
        dst_iter: dst_iter.as_ref().map_or(Vec::new(), read_logical),
        dst_iter_c: dst_iter_c.as_ref().map_or(Vec::new(), read_logical),
        workspace: ws_bytes,
        pd: pd.clone(),
    }
}

/// benchdnn's f32 threshold for an LSTM forward output (see [`cell_threshold`]).
pub fn threshold(direction: Direction, t: usize) -> f32 {
    cell_threshold(CellKind::Lstm, 0, direction, t)
}

/// benchdnn's f32 threshold for a forward output: `4·ceil(log2(acc·T))·eps`, acc = 2G+1 (×SIC
/// for GRU and AUGRU), doubled for bidirectional sum.
pub fn cell_threshold(cell: CellKind, sic: usize, direction: Direction, t: usize) -> f32 {
    let mut acc = 2.0 * cell.gates() as f64 + 1.0;
    if matches!(cell, CellKind::Gru | CellKind::Augru) {
        acc *= sic.max(1) as f64;
    }
    let k = (acc * t.max(1) as f64).log2().ceil() as f32;
    let sum = if direction == Direction::BidirectionalSum {
        2.0
    } else {
        1.0
    };
    4.0 * sum * k * f32::EPSILON
}

/// benchdnn's point-wise comparison (relative when |exp| > 1e−5, else absolute), with its L2
/// norm fallback when `norm_ok` (not allowed at L = T = 1).
pub fn compare(
    what: &str,
    got: &[f32],
    exp: &[f32],
    trh: f32,
    norm_ok: bool,
) -> std::result::Result<(), String> {
    if got.len() != exp.len() {
        return Err(format!(
            "{what}: {} values, expected {}",
            got.len(),
            exp.len()
        ));
    }
    let mut worst = (0f32, 0usize);
    let mut fails = 0;
    let (mut num, mut den) = (0f64, 0f64);
    for (i, (&g, &e)) in got.iter().zip(exp).enumerate() {
        let diff = (g - e).abs();
        let rel = if e.abs() > 1e-5 { diff / e.abs() } else { diff };
        num += (diff as f64).powi(2);
        den += (e as f64).powi(2);
        let ok = g == e || rel <= trh;
        if !ok || g.is_nan() {
            fails += 1;
            if rel.is_nan() || rel > worst.0 {
                worst = (rel, i);
            }
        }
    }
    if fails == 0 {
        return Ok(());
    }
    let norm = (num / den.max(f64::MIN_POSITIVE)).sqrt();
    if norm_ok && norm <= trh as f64 && got.iter().all(|v| !v.is_nan()) {
        return Ok(());
    }
    let i = worst.1;
    Err(format!(
        "{what}: {fails}/{} points above {trh:e}; worst at {i}: got {} expected {} (rel {:e}); L2 rel {norm:e}",
        got.len(),
        got[i],
        exp[i],
        worst.0
    ))
}

/// `|got − exp| ≤ trh·max(|exp|, 1)` point-wise: for data whose values may cancel.
pub fn compare_scaled(
    what: &str,
    got: &[f32],
    exp: &[f32],
    trh: f32,
) -> std::result::Result<(), String> {
    if got.len() != exp.len() {
        return Err(format!(
            "{what}: {} values, expected {}",
            got.len(),
            exp.len()
        ));
    }
    match got.iter().zip(exp).position(|(&g, &e)| {
        let d = (g - e).abs();
        d.is_nan() || d > trh * e.abs().max(1.0)
    }) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: at {i} got {} expected {} (threshold {trh:e})",
            got[i], exp[i]
        )),
    }
}

/// Compares a run against the reference with benchdnn's rule; returns the reference outputs.
pub fn check_against_reference(c: &Case, x: &Inputs, out: &Outputs) -> RefOutputs {
    // The reference problem as a driver builds it, from the pd (its attribute included).
    let p = RefProblem::from_pd(&out.pd);
    let g = c.g();
    assert_eq!(
        p.linear.map(|l| l.scales[..g].to_vec()),
        c.linear.map(|l| l.scales[..g].to_vec())
    );
    assert_eq!(
        RefProblem {
            linear: c.linear,
            ..p.clone()
        },
        c.ref_problem(),
        "{c:?}: RefProblem::from_pd"
    );
    let r = reference::forward(&p, &x.as_ref_inputs()).expect("reference");
    let trh = cell_threshold(c.cell, c.dhc, c.direction, c.t);
    // benchdnn: no L2-norm fallback at L = T = 1 nor in test mode.
    let norm_ok = !(c.l == 1 && c.t == 1) && c.linear.is_none();
    let cmp = |what: &str, got: &[f32], exp: &[f32]| {
        if c.signed {
            compare_scaled(what, got, exp, trh)
        } else {
            compare(what, got, exp, trh, norm_ok)
        }
    };
    let mut errs = Vec::new();
    errs.extend(cmp("dst_layer", &out.dst_layer, &r.dst_layer).err());
    if c.dst_iter {
        errs.extend(cmp("dst_iter", &out.dst_iter, &r.dst_iter).err());
        if c.cell.has_c_state() {
            errs.extend(cmp("dst_iter_c", &out.dst_iter_c, &r.dst_iter_c).err());
        }
    }
    assert!(errs.is_empty(), "{c:?}\n{}", errs.join("\n"));
    r
}

/// The cell named in a golden file's `cell` line.
pub fn cell_named(name: &str) -> CellKind {
    match name {
        "lstm" => CellKind::Lstm,
        "vanilla_rnn" => CellKind::VanillaRnn,
        "gru" => CellKind::Gru,
        "lbr_gru" => CellKind::LbrGru,
        "augru" => CellKind::Augru,
        "lbr_augru" => CellKind::LbrAugru,
        other => panic!("unknown cell {other}"),
    }
}

/// The direction named in a golden file's `direction` line.
pub fn direction_named(name: &str) -> Direction {
    match name {
        "left2right" => Direction::Left2Right,
        "right2left" => Direction::Right2Left,
        "bidirectional_concat" => Direction::BidirectionalConcat,
        "bidirectional_sum" => Direction::BidirectionalSum,
        other => panic!("unknown direction {other}"),
    }
}

/// Mixed lengths in `0..=t` with a 0 and a `t` among them (for `n ≥ 2`), not sorted.
pub fn mixed_lengths(n: usize, t: usize, seed: usize) -> Vec<i32> {
    (0..n)
        .map(|b| match (b + seed) % 5 {
            0 => t,
            1 => 0,
            k => (b * 7 + seed * 3 + k) % (t + 1),
        } as i32)
        .collect()
}
