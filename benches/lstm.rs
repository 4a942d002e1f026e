//! Criterion benchmarks: LSTM forward inference on the reference workloads (the kernels alone:
//! `benches/kernels.rs`). Throughput is reported in FLOP ("elements"/s).
//!
//! `cargo bench --bench lstm`; threads from `OXIDNN_NUM_THREADS` (the workloads are specified
//! for 2), instruction set capped with `OXIDNN_ISA=avx512|avx2|portable` (`avx512`: without the AMX tiles).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use oxidnn::args;
use oxidnn::attr::Attr;
use oxidnn::engine::Engine;
use oxidnn::memory::{Memory, MemoryDesc};
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::rnn::{RnnDesc, RnnPd};
use oxidnn::types::{AlgKind, DataType, Direction, PropKind};
use std::time::Duration;

const ANY: i32 = 1;
const TNC: i32 = 4;
const LDNC: i32 = 5;

fn md(dims: &[i64], tag: i32) -> MemoryDesc {
    MemoryDesc::with_tag(dims, DataType::F32, tag).unwrap()
}

/// A left-to-right one-layer LSTM (SLC = SIC = DHC = `c`), weights `any`, all states given,
/// with its memories filled with small values.
struct Lstm {
    prim: Primitive,
    mems: Vec<(i32, Memory)>,
    flops: u64,
}

impl Lstm {
    fn new(t: i64, n: i64, c: i64) -> Self {
        let desc = RnnDesc::new(
            PropKind::ForwardInference,
            AlgKind::VanillaLstm,
            Direction::Left2Right,
        )
        .with(args::SRC_LAYER, Some(&md(&[t, n, c], TNC)))
        .with(args::SRC_ITER, Some(&md(&[1, 1, n, c], LDNC)))
        .with(args::SRC_ITER_C, Some(&md(&[1, 1, n, c], LDNC)))
        .with(args::WEIGHTS_LAYER, Some(&md(&[1, 1, c, 4, c], ANY)))
        .with(args::WEIGHTS_ITER, Some(&md(&[1, 1, c, 4, c], ANY)))
        .with(args::BIAS, Some(&md(&[1, 1, 4, c], LDNC)))
        .with(args::DST_LAYER, Some(&md(&[t, n, c], TNC)))
        .with(args::DST_ITER, Some(&md(&[1, 1, n, c], LDNC)))
        .with(args::DST_ITER_C, Some(&md(&[1, 1, n, c], LDNC)));
        let pd = RnnPd::new(Engine::cpu(), desc, &Attr::new(), None).unwrap();
        let mems = [
            args::SRC_LAYER,
            args::SRC_ITER,
            args::SRC_ITER_C,
            args::WEIGHTS_LAYER,
            args::WEIGHTS_ITER,
            args::BIAS,
            args::DST_LAYER,
            args::DST_ITER,
            args::DST_ITER_C,
        ]
        .into_iter()
        .map(|a| {
            let m = Memory::allocate(pd.arg_md(a).unwrap()).unwrap();
            let len = m.desc().size_bytes() / 4;
            // SAFETY: the buffer holds size_bytes() bytes.
            let v = unsafe { std::slice::from_raw_parts_mut(m.data_ptr().cast::<f32>(), len) };
            v.iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = ((i * 7919) % 1000) as f32 * 1e-4 - 0.05);
            (a, m)
        })
        .collect();
        let flops = pd.problem().forward_flops() as u64;
        let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd))).unwrap();
        Self { prim, mems, flops }
    }

    fn run(&self) {
        let list = self.mems.iter().map(|(a, m)| (*a, m)).collect();
        self.prim.execute(&ExecArgs::new(list).unwrap()).unwrap();
    }
}

fn lstm_forward(c: &mut Criterion) {
    let mut g = c.benchmark_group("lstm_fwd_inference");
    g.sample_size(20)
        .measurement_time(Duration::from_secs(6))
        .warm_up_time(Duration::from_secs(2));
    for (name, t, n, ch) in [
        ("W1_l2r_T50_N1_C512", 50, 1, 512),
        ("W2_l2r_T50_N64_C512", 50, 64, 512),
    ] {
        let w = Lstm::new(t, n, ch);
        g.throughput(Throughput::Elements(w.flops));
        g.bench_function(name, |b| b.iter(|| w.run()));
    }
    g.finish();
}

criterion_group!(benches, lstm_forward);
criterion_main!(benches);
