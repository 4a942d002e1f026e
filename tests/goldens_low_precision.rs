//! bf16 and f16 RNN primitives against the real oneDNN 3.13's goldens
//! (`tests/goldens/low_precision/`, made by `tools/goldens/gen_bwd_goldens.c`): bf16 forward
//! training + backward and inference, f16 inference, every cell, with benchdnn's thresholds
//! (reference §b: `4·(2 if backward)·(2 if sum)·ceil(log2(acc·T))·eps`, eps 2⁻⁷ for bf16 and
//! 2⁻¹⁰ for f16, relative to each value or absolute for backward, else the tensor's L2 relative
//! error). The forward outputs are also compared with the reference rounding as oneDNN does
//! (`RefProblem::precision`), to a few units of the type's last place, and the f32 ↔ bf16/f16
//! reorders with the packed layouts. Every kernel instruction set runs.

#[path = "common/golden.rs"]
mod golden;
mod lstm_common;

use lstm_common::{cell_named, direction_named, read_logical, reorder_into, ANY};
use oxidnn::args;
use oxidnn::attr::Attr;
use oxidnn::engine::Engine;
use oxidnn::kernels::Isa;
use oxidnn::memory::{Memory, MemoryDesc};
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::rnn::reference::{self, RefInputs, RefProblem};
use oxidnn::rnn::{CellKind, RnnDesc, RnnPd};
use oxidnn::types::{AlgKind, DataType, PropKind};
use std::collections::BTreeMap;

/// Forward tensors: golden name, argument.
const FORWARD: [(&str, i32); 12] = [
    ("src_layer", args::SRC_LAYER),
    ("src_iter", args::SRC_ITER),
    ("src_iter_c", args::SRC_ITER_C),
    ("attention", args::AUGRU_ATTENTION),
    ("weights_layer", args::WEIGHTS_LAYER),
    ("weights_iter", args::WEIGHTS_ITER),
    ("weights_peephole", args::WEIGHTS_PEEPHOLE),
    ("weights_projection", args::WEIGHTS_PROJECTION),
    ("bias", args::BIAS),
    ("dst_layer", args::DST_LAYER),
    ("dst_iter", args::DST_ITER),
    ("dst_iter_c", args::DST_ITER_C),
];

fn is_output(arg: i32) -> bool {
    matches!(arg, args::DST_LAYER | args::DST_ITER | args::DST_ITER_C)
}

fn is_gate_weights(arg: i32) -> bool {
    matches!(
        arg,
        args::WEIGHTS_LAYER | args::WEIGHTS_ITER | args::WEIGHTS_PROJECTION
    )
}

fn data_type(name: &str) -> DataType {
    match name {
        "bf16" => DataType::Bf16,
        "f16" => DataType::F16,
        _ => DataType::F32,
    }
}

/// The type of tensor `name` of a case.
fn type_of(g: &golden::GoldenCase, name: &str) -> DataType {
    let role = match name {
        "weights_peephole" => return DataType::F32,
        n if n.starts_with("diff_") => return DataType::F32,
        "bias" => "bias",
        "src_iter_c" | "dst_iter_c" => "c",
        _ => "data",
    };
    data_type(g.types.get(role).map_or("f32", String::as_str))
}

/// The dense plain descriptor of `dims` (`tnc`, `ldnc`/`ldgo`/`ldio`, `ldigo`).
fn plain(dims: &[i64], dt: DataType) -> MemoryDesc {
    MemoryDesc::with_tag(dims, dt, dims.len() as i32 + 1).unwrap()
}

/// User memory of the pd's descriptor for `arg` holding `values` (f32, converted and packed by
/// a reorder).
fn input(pd: &RnnPd, arg: i32, dims: &[i64], values: &[f32]) -> Memory {
    let f32_mem = Memory::allocate(&plain(dims, DataType::F32)).unwrap();
    lstm_common::write_logical(&f32_mem, values);
    reorder_into(&f32_mem, pd.arg_md(arg).unwrap())
}

/// A memory's values as f32 in logical order.
fn read(m: &Memory) -> Vec<f32> {
    read_logical(&reorder_into(m, &plain(m.desc().dims(), DataType::F32)))
}

fn alg(cell: CellKind) -> AlgKind {
    match cell {
        CellKind::VanillaRnn => AlgKind::VanillaRnn,
        CellKind::Lstm => AlgKind::VanillaLstm,
        CellKind::Gru => AlgKind::VanillaGru,
        CellKind::LbrGru => AlgKind::LbrGru,
        CellKind::Augru => AlgKind::VanillaAugru,
        CellKind::LbrAugru => AlgKind::LbrAugru,
    }
}

/// The forward descriptor of a case (gate weights `any`).
fn forward_desc(g: &golden::GoldenCase, prop: PropKind) -> RnnDesc {
    let cell = cell_named(&g.cell);
    let mut desc = RnnDesc::new(prop, alg(cell), direction_named(&g.direction));
    if let Some(act) = &g.activation {
        desc.activation = match act.as_str() {
            "relu" => AlgKind::EltwiseRelu,
            "tanh" => AlgKind::EltwiseTanh,
            _ => AlgKind::EltwiseLogistic,
        };
        desc.alpha = g.alpha.as_deref().unwrap_or("0").parse().unwrap();
    }
    for (name, arg) in FORWARD {
        if let Some(dims) = g.shape(name) {
            let dt = type_of(g, name);
            let m = if is_gate_weights(arg) {
                MemoryDesc::with_tag(dims, dt, ANY).unwrap()
            } else {
                plain(dims, dt)
            };
            desc = desc.with(arg, Some(&m));
        }
    }
    desc
}

fn create(desc: RnnDesc, hint: Option<&RnnPd>, isa: Isa, attr: &Attr) -> (RnnPd, Primitive) {
    let pd = RnnPd::new(Engine::cpu(), desc, attr, hint)
        .unwrap()
        .with_isa(isa)
        .unwrap();
    let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone()))).unwrap();
    (pd, prim)
}

/// Runs a case's forward pass (training for backward cases, keeping the workspace) and, for
/// backward cases, its backward pass: every output by golden name.
fn run(g: &golden::GoldenCase, isa: Isa, attr: &Attr) -> BTreeMap<String, Vec<f32>> {
    let backward = g.prop == "backward";
    let prop = if backward {
        PropKind::ForwardTraining
    } else {
        PropKind::ForwardInference
    };
    let fdesc = forward_desc(g, prop);
    let (fpd, fprim) = create(fdesc.clone(), None, isa, attr);
    let mut mems: Vec<(i32, Memory)> = Vec::new();
    for (name, arg) in FORWARD {
        if let Some(dims) = g.shape(name) {
            let m = if is_output(arg) {
                Memory::allocate(fpd.arg_md(arg).unwrap()).unwrap()
            } else {
                input(&fpd, arg, dims, g.values(name).unwrap())
            };
            mems.push((arg, m));
        }
    }
    let ws_md = fpd.arg_md(args::WORKSPACE).unwrap().clone();
    let ws = (!ws_md.is_zero()).then(|| Memory::allocate(&ws_md).unwrap());
    let mut list: Vec<(i32, &Memory)> = mems.iter().map(|(a, m)| (*a, m)).collect();
    if let Some(w) = &ws {
        list.push((args::WORKSPACE, w));
    }
    fprim.execute(&ExecArgs::new(list).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for (name, arg) in FORWARD {
        if let Some((_, m)) = mems.iter().find(|(a, _)| *a == arg && is_output(arg)) {
            out.insert(name.to_string(), read(m));
        }
    }
    if !backward {
        return out;
    }

    // Backward: the forward tensors (gate weights `any`: packed transposed), f32 diffs.
    let mut bdesc = fdesc;
    bdesc.prop = PropKind::Backward;
    for (name, arg) in FORWARD {
        if let Some(dims) = g.shape(name) {
            bdesc = bdesc.with(args::DIFF + arg, Some(&plain(dims, DataType::F32)));
        }
    }
    let (bpd, bprim) = create(bdesc, Some(&fpd), isa, attr);
    // The forward memories but the gate weights, which are reordered again, plus the diffs.
    let mut bmems: Vec<(i32, Memory)> = Vec::new();
    for (name, arg) in FORWARD {
        let Some(dims) = g.shape(name) else { continue };
        if is_gate_weights(arg) {
            bmems.push((arg, input(&bpd, arg, dims, g.values(name).unwrap())));
        }
        let diff = args::DIFF + arg;
        let dm = if is_output(arg) {
            g.values(&format!("diff_{name}"))
                .map(|v| input(&bpd, diff, dims, v))
        } else {
            // Diff weights accumulate into their initial values; diff data is written.
            Some(match g.values(&format!("diff_{name}_init")) {
                Some(v) => input(&bpd, diff, dims, v),
                None => Memory::allocate(bpd.arg_md(diff).unwrap()).unwrap(),
            })
        };
        if let Some(dm) = dm {
            bmems.push((diff, dm));
        }
    }
    let mut list: Vec<(i32, &Memory)> = mems
        .iter()
        .filter(|(a, _)| !is_gate_weights(*a))
        .chain(&bmems)
        .map(|(a, m)| (*a, m))
        .collect();
    list.push((args::WORKSPACE, ws.as_ref().unwrap()));
    bprim.execute(&ExecArgs::new(list).unwrap()).unwrap();
    for (name, arg) in FORWARD {
        let diff = args::DIFF + arg;
        if is_output(arg) {
            continue;
        }
        if let Some((_, m)) = bmems.iter().find(|(a, _)| *a == diff) {
            out.insert(format!("diff_{name}"), read(m));
        }
    }
    out
}

/// benchdnn's threshold for a case's tensors.
fn threshold(g: &golden::GoldenCase) -> f32 {
    let cell = cell_named(&g.cell);
    let dim = |k: &str| g.dim(k) as f32;
    let gates = dim("G");
    let mut acc = 2.0 * gates + 1.0;
    if matches!(cell, CellKind::Gru | CellKind::Augru) {
        acc *= dim("SIC");
    }
    let backward = g.prop == "backward";
    if backward {
        acc *= (gates * dim("DHC")).max(dim("N"));
    }
    let eps = match type_of(g, "src_layer") {
        DataType::F16 => 2f32.powi(-10),
        _ => 2f32.powi(-7),
    };
    let sum = g.direction == "bidirectional_sum";
    4.0 * if backward { 2.0 } else { 1.0 }
        * if sum { 2.0 } else { 1.0 }
        * (acc * dim("T")).log2().ceil()
        * eps
}

/// benchdnn's comparison of one tensor: every point within `trh` (relative, or absolute for
/// small values and for backward), or the L2 relative error within it. `None` when it passes.
fn mismatch(got: &[f32], exp: &[f32], trh: f32, backward: bool) -> Option<String> {
    assert_eq!(got.len(), exp.len());
    let point = |(&a, &e): (&f32, &f32)| {
        let diff = (a - e).abs();
        let rel = if e.abs() > 1e-5 { diff / e.abs() } else { diff };
        a == e || rel <= trh || (backward && diff < trh)
    };
    if got.iter().zip(exp).all(point) {
        return None;
    }
    let num: f64 = got
        .iter()
        .zip(exp)
        .map(|(&a, &e)| ((a - e) as f64).powi(2))
        .sum();
    let den: f64 = exp.iter().map(|&e| (e as f64).powi(2)).sum();
    let norm = (num / den.max(f64::MIN_POSITIVE)).sqrt();
    (norm.is_nan() || norm > trh as f64)
        .then(|| format!("L2 relative error {norm:.3e} > {trh:.3e}"))
}

fn isas() -> Vec<Isa> {
    Isa::all_supported()
}

#[test]
fn goldens_of_the_real_onednn() {
    let cases = golden::load_dir(&golden::cell_dir("low_precision"));
    assert!(cases.len() >= 42, "{} low-precision goldens", cases.len());
    let (failures, checked) = mismatches(&cases, &isas());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 200, "{checked}");
}

/// The goldens again, on the best kernels, with the layer GEMM in chunks of one step
/// (`scratch::with_gates_budget`: each step's `x·W` after the step before).
#[test]
fn goldens_with_the_layer_gemm_in_chunks() {
    let cases = golden::load_dir(&golden::cell_dir("low_precision"));
    let isa = Isa::detected();
    let (failures, checked) =
        oxidnn::rnn::scratch::with_gates_budget(1, || mismatches(&cases, &[isa]));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 100, "{checked}");
}

/// Every case on every kernel set of `isas` against its golden: the tensors beyond
/// benchdnn's threshold, and how many were compared.
fn mismatches(cases: &[golden::GoldenCase], isas: &[Isa]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for &isa in isas {
        for g in cases {
            let got = run(g, isa, &Attr::new());
            let trh = threshold(g);
            let backward = g.prop == "backward";
            for (name, v) in &got {
                let exp = g
                    .values(name)
                    .unwrap_or_else(|| panic!("{}: no {name}", g.name));
                if let Some(m) = mismatch(v, exp, trh, backward) {
                    failures.push(format!("{} [{}] {name}: {m}", g.name, isa.name()));
                }
                checked += 1;
            }
        }
    }
    (failures, checked)
}

/// The forward outputs equal the reference's with oneDNN's rounding to one unit of the type's
/// last place (the GEMMs sum in another order; a stored h may round the other way).
#[test]
fn forward_matches_the_rounding_reference() {
    let mut cases = golden::load_dir(&golden::cell_dir("low_precision"));
    // LSTM projection (no goldens: see tests/goldens/README.md): every LSTM case with
    // projection weights of DIC = DHC.
    let projected: Vec<_> = cases
        .iter()
        .filter(|g| g.cell == "lstm")
        .map(|g| {
            let mut g = g.clone();
            let (l, d, dhc) = (g.dim("L"), g.dim("D"), g.dim("DHC"));
            let dt = type_of(&g, "src_layer");
            let values = (0..l * d * dhc * dhc)
                .map(|i| {
                    let v = ((i * 37 % 23) as f32 - 11.0) / 16.0;
                    if dt == DataType::F16 {
                        half::f16::from_f32(v).to_f32()
                    } else {
                        half::bf16::from_f32(v).to_f32()
                    }
                })
                .collect();
            g.tensors
                .insert("weights_projection".into(), (vec![l, d, dhc, dhc], values));
            g.name += "_proj";
            g.prop = "forward_inference".into();
            g
        })
        .collect();
    assert!(projected.len() >= 8);
    cases.extend(projected);
    for g in cases {
        let got = run(&g, Isa::detected(), &Attr::new());
        let fdesc = forward_desc(&g, PropKind::ForwardInference);
        let pd = RnnPd::new(Engine::cpu(), fdesc, &Attr::new(), None).unwrap();
        let p = RefProblem::from_pd(&pd);
        let t = |n: &str| g.values(n);
        let x = RefInputs {
            src_layer: t("src_layer").unwrap(),
            src_iter: t("src_iter"),
            src_iter_c: t("src_iter_c"),
            weights_layer: t("weights_layer").unwrap(),
            weights_iter: t("weights_iter").unwrap(),
            bias: t("bias"),
            attention: t("attention"),
            peephole: t("weights_peephole"),
            projection: t("weights_projection"),
            lengths: None,
        };
        let r = reference::forward(&p, &x).unwrap();
        let ulp = match type_of(&g, "src_layer") {
            DataType::F16 => 2f32.powi(-10),
            _ => 2f32.powi(-7),
        };
        for (name, exp) in [
            ("dst_layer", &r.dst_layer),
            ("dst_iter", &r.dst_iter),
            ("dst_iter_c", &r.dst_iter_c),
        ] {
            if let Some(v) = got.get(name) {
                for (i, (a, e)) in v.iter().zip(exp.iter()).enumerate() {
                    assert!(
                        (a - e).abs() <= ulp * e.abs() + 1e-6,
                        "{} {name}[{i}]: {a} vs reference {e}",
                        g.name
                    );
                }
            }
        }
    }
}

/// A dense bf16 `src_layer` with an even channel count is read by the layer GEMM as it is
/// (bf16 pairs); one with an odd row stride is widened into an f32 copy first. Both give the
/// same bits: every cell kind with gates summed in one GEMM or not, both directions of time,
/// one and two layers, inference and training, batches with the layer GEMM merged over steps
/// (N = 2) and fused into each step's GEMM (N = 40), on every kernel instruction set.
#[test]
fn bf16_src_layer_read_in_place_gives_the_bits_of_a_copy() {
    use oxidnn::types::Direction;
    let (t, c) = (3i64, 32i64);
    let cases = [
        (CellKind::Lstm, Direction::Left2Right, 2),
        (CellKind::Gru, Direction::Right2Left, 2),
        (CellKind::LbrGru, Direction::BidirectionalSum, 1),
        (CellKind::Lstm, Direction::BidirectionalConcat, 1),
        (CellKind::VanillaRnn, Direction::Left2Right, 1),
    ];
    let mut checked = 0;
    for isa in isas() {
        for (cell, direction, l) in cases {
            for n in [2i64, 40] {
                for prop in [PropKind::ForwardInference, PropKind::ForwardTraining] {
                    let d = direction.num_directions() as i64;
                    let g = match cell {
                        CellKind::Lstm => 4,
                        CellKind::VanillaRnn => 1,
                        _ => 3,
                    };
                    let dlc = if direction == Direction::BidirectionalConcat {
                        2 * c
                    } else {
                        c
                    };
                    let src = [t, n, c];
                    let mut tensors = vec![
                        (args::SRC_ITER, vec![l, d, n, c]),
                        (args::WEIGHTS_LAYER, vec![l, d, c, g, c]),
                        (args::WEIGHTS_ITER, vec![l, d, c, g, c]),
                        (
                            args::BIAS,
                            vec![l, d, g + i64::from(cell == CellKind::LbrGru), c],
                        ),
                        (args::DST_LAYER, vec![t, n, dlc]),
                        (args::DST_ITER, vec![l, d, n, c]),
                    ];
                    if cell == CellKind::Lstm {
                        tensors.push((args::SRC_ITER_C, vec![l, d, n, c]));
                        tensors.push((args::DST_ITER_C, vec![l, d, n, c]));
                    }
                    let bf16 = DataType::Bf16;
                    let outputs = |src_md: MemoryDesc| {
                        let mut desc = RnnDesc::new(prop, alg(cell), direction)
                            .with(args::SRC_LAYER, Some(&src_md));
                        for (arg, dims) in &tensors {
                            let m = if is_gate_weights(*arg) {
                                MemoryDesc::with_tag(dims, bf16, ANY).unwrap()
                            } else {
                                plain(dims, bf16)
                            };
                            desc = desc.with(*arg, Some(&m));
                        }
                        if cell == CellKind::VanillaRnn {
                            desc.activation = AlgKind::EltwiseTanh;
                        }
                        let (pd, prim) = create(desc, None, isa, &Attr::new());
                        let values = |dims: &[i64], seed| {
                            let len = dims.iter().product::<i64>() as usize;
                            let scale = if dims.len() == 5 { 0.35 } else { 1.0 };
                            let v = lstm_common::fill(len, seed);
                            v.into_iter().map(|x| x * scale).collect::<Vec<_>>()
                        };
                        let mut mems = vec![(
                            args::SRC_LAYER,
                            input(&pd, args::SRC_LAYER, &src, &values(&src, 1)),
                        )];
                        for (i, (arg, dims)) in tensors.iter().enumerate() {
                            let m = if is_output(*arg) {
                                Memory::allocate(pd.arg_md(*arg).unwrap()).unwrap()
                            } else {
                                input(&pd, *arg, dims, &values(dims, i as u64 + 2))
                            };
                            mems.push((*arg, m));
                        }
                        let ws_md = pd.arg_md(args::WORKSPACE).unwrap().clone();
                        let ws = (!ws_md.is_zero()).then(|| Memory::allocate(&ws_md).unwrap());
                        let mut list: Vec<(i32, &Memory)> =
                            mems.iter().map(|(a, m)| (*a, m)).collect();
                        if let Some(w) = &ws {
                            list.push((args::WORKSPACE, w));
                        }
                        prim.execute(&ExecArgs::new(list).unwrap()).unwrap();
                        mems.iter()
                            .filter(|(a, _)| is_output(*a))
                            .map(|(_, m)| read(m))
                            .collect::<Vec<_>>()
                    };
                    let dense = outputs(plain(&src, bf16));
                    let strides = [n * (c + 1), c + 1, 1];
                    let padded = MemoryDesc::with_strides(&src, bf16, Some(&strides)).unwrap();
                    let copied = outputs(padded);
                    let what =
                        format!("{cell:?} {direction:?} L{l} N{n} {prop:?} [{}]", isa.name());
                    assert!(dense.iter().flatten().any(|&v| v != 0.0), "{what}");
                    for (a, b) in dense.iter().zip(&copied) {
                        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        assert_eq!(bits(a), bits(b), "{what}");
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 20, "{checked}");
}

/// f32 primitives with fpmath mode bf16 (oneDNN's "bf32") multiply in bf16: their `any` gate
/// weights are bf16 pairs (half the bytes), which a strict f32 primitive refuses, and their
/// outputs meet the bf16 goldens' thresholds on every kernel instruction set.
#[test]
fn bf32_multiplies_in_bf16() {
    let cases = golden::load_dir(&golden::cell_dir("low_precision"));
    let mut bf32 = Attr::new();
    bf32.fpmath_mode = oxidnn::types::FpmathMode::Bf16;
    let mut checked = 0;
    for g in cases
        .iter()
        .filter(|g| g.prop == "forward_inference" && type_of(g, "src_layer") == DataType::Bf16)
    {
        let mut f32_case = g.clone();
        for t in f32_case.types.values_mut() {
            *t = "f32".into();
        }
        let desc = forward_desc(&f32_case, PropKind::ForwardInference);
        let pd = RnnPd::new(Engine::cpu(), desc.clone(), &bf32, None).unwrap();
        let strict = RnnPd::new(Engine::cpu(), desc.clone(), &Attr::new(), None).unwrap();
        for arg in [args::WEIGHTS_LAYER, args::WEIGHTS_ITER] {
            let (md, f32_md) = (pd.arg_md(arg).unwrap(), strict.arg_md(arg).unwrap());
            assert_eq!(md.data_type(), DataType::F32);
            // ceil(I/2) rows of bf16 pairs where f32 stores I rows, 4 bytes per column each.
            let i = md.dims()[2] as usize;
            assert_eq!(
                md.size_bytes(),
                f32_md.size_bytes() / i * i.div_ceil(2),
                "{}",
                g.name
            );
            let e = RnnPd::new(
                Engine::cpu(),
                desc.clone().with(arg, Some(md)),
                &Attr::new(),
                None,
            )
            .unwrap_err();
            assert!(matches!(e, oxidnn::Error::Unimplemented(_)), "{e:?}");
        }
        for isa in isas() {
            let got = run(&f32_case, isa, &bf32);
            for (name, v) in &got {
                if let Some(m) = mismatch(v, g.values(name).unwrap(), threshold(g), false) {
                    panic!("{} [{}] {name}: {m}", g.name, isa.name());
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 12, "{checked}");
}

/// f32 → bf16 / f16 → f32 through the reorder rounds to nearest even; into the packed layout
/// and back gives the rounded values.
#[test]
fn reorders_round_to_the_type() {
    let dims = [1i64, 1, 3, 4, 5];
    let values: Vec<f32> = (0..60).map(|i| 1.0 + i as f32 * 2f32.powi(-12)).collect();
    let src = Memory::allocate(&plain(&dims, DataType::F32)).unwrap();
    lstm_common::write_logical(&src, &values);
    for (dt, round) in [
        (
            DataType::Bf16,
            (|x| half::bf16::from_f32(x).to_f32()) as fn(f32) -> f32,
        ),
        (DataType::F16, |x| half::f16::from_f32(x).to_f32()),
    ] {
        let expected: Vec<f32> = values.iter().map(|&v| round(v)).collect();
        assert!(expected.iter().zip(&values).any(|(a, b)| a != b));
        let low = reorder_into(&src, &plain(&dims, dt));
        assert_eq!(low.desc().size_bytes(), 60 * 2);
        assert_eq!(read(&low), expected, "{dt}");
        let packed = MemoryDesc::packed(&dims, dt, 2).unwrap();
        // bf16: 2 stored rows of bf16 pairs (4 bytes per pair); f16: 3 rows of f32 values.
        let bytes = if dt == DataType::Bf16 { 2 * 4 } else { 3 * 4 };
        assert_eq!(packed.size_bytes(), bytes * 4 * 32, "{dt}");
        for from in [&src, &low] {
            assert_eq!(read(&reorder_into(from, &packed)), expected, "{dt} packed");
        }
    }
}

/// oneDNN 3.13's acceptance of the data types (probed with its C API): everything it rejects
/// is `unimplemented`.
#[test]
fn data_type_statuses_as_onednn() {
    let g = golden::load_dir(&golden::cell_dir("low_precision"))
        .into_iter()
        .find(|g| g.name == "lstmpeephole_l2r_l1_bf16")
        .unwrap();
    let with = |prop: PropKind, changes: &[(&str, DataType)]| {
        let mut desc = forward_desc(&g, prop);
        for (name, dt) in changes {
            let arg = FORWARD.iter().find(|(n, _)| n == name).unwrap().1;
            let dims = g.shape(name).unwrap();
            desc = desc.with(arg, Some(&plain(dims, *dt)));
        }
        RnnPd::new(Engine::cpu(), desc, &Attr::new(), None).map(|_| ())
    };
    let (bf, h, f) = (DataType::Bf16, DataType::F16, DataType::F32);
    let train = PropKind::ForwardTraining;
    let inf = PropKind::ForwardInference;
    assert!(with(train, &[]).is_ok());
    assert!(with(
        train,
        &[("bias", bf), ("src_iter_c", bf), ("dst_iter_c", bf)]
    )
    .is_ok());
    for bad in [
        vec![("bias", h)],
        vec![("src_iter_c", h), ("dst_iter_c", h)],
        vec![("src_iter_c", bf)],
        vec![("dst_layer", f)],
        vec![("src_iter", f)],
        vec![("weights_peephole", bf)],
    ] {
        let e = with(inf, &bad).unwrap_err();
        assert!(
            matches!(e, oxidnn::Error::Unimplemented(_)),
            "{bad:?}: {e:?}"
        );
    }
    // f16: forward inference only.
    let all_f16: Vec<(&str, DataType)> = FORWARD
        .iter()
        .filter(|(n, _)| g.shape(n).is_some() && type_of(&g, n) == bf)
        .map(|(n, _)| (*n, h))
        .collect();
    assert!(with(inf, &all_f16).is_ok());
    let e = with(train, &all_f16).unwrap_err();
    assert!(matches!(e, oxidnn::Error::Unimplemented(_)), "{e:?}");
}

#[test]
fn every_cell_and_direction_is_covered() {
    let cases = golden::load_dir(&golden::cell_dir("low_precision"));
    for cell in [
        "vanilla_rnn",
        "lstm",
        "gru",
        "lbr_gru",
        "augru",
        "lbr_augru",
    ] {
        for (prop, data) in [
            ("backward", "bf16"),
            ("forward_inference", "bf16"),
            ("forward_inference", "f16"),
        ] {
            assert!(
                cases.iter().any(|g| g.cell == cell
                    && g.prop == prop
                    && g.types.get("data").map(String::as_str) == Some(data)),
                "{cell} {prop} {data}"
            );
        }
    }
}
