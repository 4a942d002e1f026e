//! int8 goldens (`tests/goldens/int8`, made by `tools/goldens/gen_int8_goldens.c` with the real
//! oneDNN): each case goes the way an int8 user goes — f32 inputs reordered into u8 and packed
//! s8 weights with the RNN quantization attribute, the primitive created with it — on every
//! kernel this CPU runs (`OXIDNN_ISA` caps apply through `Isa::all_supported`).
//!
//! Cases: LSTM, LSTMP and GRU with u8 activations in oneDNN's four configurations, LSTM and
//! LSTMP with s8 activations (oneDNN 3.13 refuses GRU with s8 activations on these shapes).
//!
//! Tolerances (issue 33): u8/s8 outputs at most one step off, and only a few elements differing at
//! all; f32 outputs dequantized from u8 within one quantization step; f32 c-states within what
//! a one-step difference of `h` moves them. The quantized `src_layer` must be exact, and the
//! packed weights the same bytes whether reordered from f32 at once or through plain s8.

#[path = "common/golden.rs"]
mod golden;
mod int8_common;
mod lstm_common;

use golden::GoldenCase;
use int8_common::*;
use oxidnn::args;
use oxidnn::attr::Attr;
use oxidnn::engine::Engine;
use oxidnn::kernels::Isa;
use oxidnn::memory::Memory;
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::rnn::{RnnDesc, RnnPd};
use oxidnn::types::{AlgKind, DataType, Direction, PropKind};
use std::path::PathBuf;

fn int8_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/goldens/int8")
}

fn direction(name: &str) -> Direction {
    match name {
        "left2right" => Direction::Left2Right,
        "right2left" => Direction::Right2Left,
        "bidirectional_concat" => Direction::BidirectionalConcat,
        _ => Direction::BidirectionalSum,
    }
}

/// Differences of one output: elements differing, largest difference.
fn diff(got: &[f32], want: &[f32]) -> (usize, f32) {
    assert_eq!(got.len(), want.len());
    let d = got.iter().zip(want).map(|(a, b)| (a - b).abs());
    (
        d.clone().filter(|&x| x > 0.0).count(),
        d.fold(0.0, f32::max),
    )
}

/// Runs one golden case on kernel set `isa`; returns (elements compared, elements differing)
/// over the quantized outputs.
fn run_case(g: &GoldenCase, isa: Isa) -> (usize, usize) {
    let dim = |k: &str| g.dim(k);
    let (l, d, t, n) = (dim("L"), dim("D"), dim("T"), dim("N"));
    let (slc, sic, dhc, dic, gates) = (dim("SLC"), dim("SIC"), dim("DHC"), dim("DIC"), dim("G"));
    let v = |name: &str| {
        g.values(name)
            .unwrap_or_else(|| panic!("{}: no {name}", g.name))
    };
    let cfg = v("int8_config");
    let act = if cfg[2] == 1.0 {
        DataType::S8
    } else {
        DataType::U8
    };
    let of = |f32: bool| if f32 { DataType::F32 } else { act };
    let (iter_dt, dl_dt) = (of(cfg[0] == 1.0), of(cfg[1] == 1.0));
    let qp = v("data_qparams");
    let (scale, shift) = (qp[0], qp[1]);
    let lstm = g.cell == "lstm";
    let proj = g.values("weights_projection").is_some();
    let dir = direction(&g.direction);
    let dlc = if dir == Direction::BidirectionalConcat {
        2 * dic
    } else {
        dic
    };

    let mut attr = Attr::new();
    attr.rnn_data_qparams = (scale, shift);
    let ws = v("weights_scales");
    attr.set_rnn_weights_qparams(if ws.len() > 1 { 24 } else { 0 }, ws)
        .unwrap();
    if proj {
        let ps = v("projection_scales");
        attr.set_rnn_weights_projection_qparams(if ps.len() > 1 { 8 } else { 0 }, ps)
            .unwrap();
    }

    let sl_md = md(&[t, n, slc], act, TNC);
    let si_md = md(&[l, d, n, sic], iter_dt, LDNC);
    let c_md = md(&[l, d, n, dhc], DataType::F32, LDNC);
    let wl_dims = [l, d, slc, gates, dhc];
    let wi_dims = [l, d, sic, gates, dhc];
    let wp_dims = [l, d, dhc, dic];
    let dl_md = md(&[t, n, dlc], dl_dt, TNC);
    let di_md = md(&[l, d, n, dic], iter_dt, LDNC);
    let (alg, cell_args) = if lstm {
        (AlgKind::VanillaLstm, true)
    } else {
        (AlgKind::VanillaGru, false)
    };
    let mut desc = RnnDesc::new(PropKind::ForwardInference, alg, dir)
        .with(args::SRC_LAYER, Some(&sl_md))
        .with(args::SRC_ITER, Some(&si_md))
        .with(args::WEIGHTS_LAYER, Some(&md(&wl_dims, DataType::S8, ANY)))
        .with(args::WEIGHTS_ITER, Some(&md(&wi_dims, DataType::S8, ANY)))
        .with(
            args::BIAS,
            Some(&md(&[l, d, gates, dhc], DataType::F32, LDNC)),
        )
        .with(args::DST_LAYER, Some(&dl_md))
        .with(args::DST_ITER, Some(&di_md));
    if cell_args {
        desc = desc
            .with(args::SRC_ITER_C, Some(&c_md))
            .with(args::DST_ITER_C, Some(&c_md));
    }
    if proj {
        desc = desc.with(
            args::WEIGHTS_PROJECTION,
            Some(&md(&wp_dims, DataType::S8, ANY)),
        );
    }
    let pd = RnnPd::new(Engine::cpu(), desc, &attr, None)
        .unwrap_or_else(|e| panic!("{}: pd: {e}", g.name))
        .with_isa(isa)
        .unwrap();
    let arg = |a| pd.arg_md(a).unwrap().clone();

    // Quantized inputs through the reorders.
    let f32_of = |dims: &[i64], tag: i32, name: &str| with(&md(dims, DataType::F32, tag), v(name));
    let src_layer = reorder(&f32_of(&[t, n, slc], TNC, "src_layer"), &sl_md, &attr);
    assert_eq!(
        read(&src_layer),
        v("src_layer_q"),
        "{}: quantized src_layer",
        g.name
    );
    let src_iter = if iter_dt != DataType::F32 {
        reorder(&f32_of(&[l, d, n, sic], LDNC, "src_iter"), &si_md, &attr)
    } else {
        with(&si_md, v("src_iter"))
    };
    let weights = |a: i32, dims: &[i64], name: &str| {
        let tag = if dims.len() == 5 { LDIGO } else { LDNC };
        let plain = f32_of(dims, tag, name);
        let packed = reorder(&plain, &arg(a), &attr);
        // benchdnn's rule: f32 → packed s8 equals f32 → plain s8 → packed s8, bit for bit.
        // A plain 4-D f32 → s8 reorder is a data reorder when data qparams are set (src_iter
        // has the same dims and tag): the projection's plain route takes its scales alone.
        let mut weights_only = attr.clone();
        weights_only.rnn_data_qparams = (1.0, 0.0);
        let s8 = reorder(&plain, &md(dims, DataType::S8, tag), &weights_only);
        if let Some(want) = g.values(&format!("{name}_s8")) {
            assert_eq!(read(&s8), want, "{}: {name} s8", g.name);
        }
        let again = reorder(&s8, &arg(a), &Attr::new());
        assert!(
            bytes(&packed) == bytes(&again),
            "{}: {name} packed twice",
            g.name
        );
        packed
    };
    let wl = weights(args::WEIGHTS_LAYER, &wl_dims, "weights_layer");
    let wi = weights(args::WEIGHTS_ITER, &wi_dims, "weights_iter");
    let wp = proj.then(|| weights(args::WEIGHTS_PROJECTION, &wp_dims, "weights_projection"));
    let bias = with(&arg(args::BIAS), v("bias"));
    let zeros = vec![0.0; c_md.nelems()];
    let src_iter_c = with(&c_md, g.values("src_iter_c").unwrap_or(&zeros));
    let dst_layer = Memory::allocate(&dl_md).unwrap();
    let dst_iter = Memory::allocate(&di_md).unwrap();
    let dst_iter_c = Memory::allocate(&c_md).unwrap();
    let mut list: Vec<(i32, &Memory)> = vec![
        (args::SRC_LAYER, &src_layer),
        (args::SRC_ITER, &src_iter),
        (args::WEIGHTS_LAYER, &wl),
        (args::WEIGHTS_ITER, &wi),
        (args::BIAS, &bias),
        (args::DST_LAYER, &dst_layer),
        (args::DST_ITER, &dst_iter),
    ];
    if cell_args {
        list.push((args::SRC_ITER_C, &src_iter_c));
        list.push((args::DST_ITER_C, &dst_iter_c));
    }
    if let Some(wp) = &wp {
        list.push((args::WEIGHTS_PROJECTION, wp));
    }
    let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone()))).unwrap();
    prim.execute(&ExecArgs::new(list).unwrap())
        .unwrap_or_else(|e| panic!("{}: execute: {e}", g.name));

    let step = 1.0 / scale;
    let mut compared = 0;
    let mut differing = 0;
    for (name, mem, dt) in [
        ("dst_layer", &dst_layer, dl_dt),
        ("dst_iter", &dst_iter, iter_dt),
    ] {
        let (got, want) = (read(mem), v(name));
        let (count, max) = diff(&got, want);
        // Quantized values: one step; dequantized ones: one step of 1/scale (bidirectional
        // sums: two).
        let limit = if dt != DataType::F32 {
            1.0
        } else {
            2.0 * step + 1e-5
        };
        assert!(
            max <= limit,
            "{} {isa:?}: {name} differs by {max} (limit {limit})\n got {got:?}\nwant {want:?}",
            g.name
        );
        compared += got.len();
        differing += count;
    }
    if cell_args {
        let (got, want) = (read(&dst_iter_c), v("dst_iter_c"));
        let (_, max) = diff(&got, want);
        assert!(
            max <= 0.05,
            "{} {isa:?}: dst_iter_c differs by {max}",
            g.name
        );
    }
    (compared, differing)
}

#[test]
fn int8_goldens_match_onednn_on_every_kernel() {
    let cases = golden::load_dir(&int8_dir());
    assert!(cases.len() >= 44, "{} int8 goldens", cases.len());
    for isa in Isa::all_supported() {
        let (mut compared, mut differing) = (0, 0);
        for g in &cases {
            let (c, d) = run_case(g, isa);
            compared += c;
            differing += d;
        }
        eprintln!("{isa:?}: {differing} of {compared} quantized outputs differ by one step");
        assert!(
            differing * 100 <= 3 * compared,
            "{isa:?}: {differing} of {compared} quantized outputs differ"
        );
    }
}
