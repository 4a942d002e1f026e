//! Criterion benchmarks of the compute kernels alone, one thread: the GEMM on the shapes the
//! LSTM driver gives it, and the post-GEMM activations. Throughput in FLOP or elements per second.
//!
//! `cargo bench --bench kernels`; instruction set capped with `OXIDNN_ISA=avx2|portable`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use oxidnn::kernels::activations::{apply, Activation};
use oxidnn::kernels::gemm::{gemm, Init, Panel, RowsA};
use oxidnn::kernels::Isa;
use std::hint::black_box;
use std::time::Duration;

/// `C[m × 128] (+)= A[m × 512] · B[512 × 128]` over 16 panels (an LSTM step with DHC = 512), one
/// thread.
fn gemm_shapes(c: &mut Criterion) {
    let (k, width, panels) = (512usize, 128usize, 16usize);
    let mut g = c.benchmark_group("gemm_lstm_panels_k512");
    g.sample_size(30)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    let isa = Isa::detected();
    for m in [1usize, 13, 64, 104] {
        let a: Vec<f32> = (0..m * k).map(|i| (i % 13) as f32 * 0.01).collect();
        let b: Vec<f32> = (0..panels * k * width)
            .map(|i| (i % 7) as f32 * 0.01)
            .collect();
        let mut out = vec![0f32; m * width * panels];
        let rows = RowsA {
            base: a.as_ptr(),
            outer_stride: 0,
            inner_stride: k as isize,
            inner: usize::MAX,
        };
        g.throughput(Throughput::Elements((2 * m * k * width * panels) as u64));
        g.bench_function(format!("m{m}_{}", isa.name()), |bch| {
            bch.iter(|| {
                for p in 0..panels {
                    // An LSTM panel as packed: rows of gates i, f, c̃, then rows of gate o.
                    let base = &b[p * k * width..];
                    let panel = Panel {
                        ptr: base.as_ptr(),
                        ld: 96,
                        width,
                        split: 96,
                        tail: base[k * 96..].as_ptr(),
                    };
                    // SAFETY: a, b and out hold the addressed rows and columns.
                    unsafe {
                        gemm(
                            isa,
                            &rows,
                            0..m,
                            k,
                            &panel,
                            out[p * width..].as_mut_ptr(),
                            width * panels,
                            Init::Accumulate,
                        )
                    };
                }
                black_box(&mut out);
            })
        });
    }
    g.finish();
}

/// Sigmoid and tanh over 64 Ki floats (an LSTM step of N = 32, DHC = 512 has 64 Ki gate values).
fn activations(c: &mut Criterion) {
    let mut g = c.benchmark_group("activations_64k");
    g.sample_size(50)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_secs(1));
    let isa = Isa::detected();
    let xs: Vec<f32> = (0..65536)
        .map(|i| (i % 2001) as f32 * 0.005 - 5.0)
        .collect();
    g.throughput(Throughput::Elements(xs.len() as u64));
    for (name, f) in [("sigmoid", Activation::Sigmoid), ("tanh", Activation::Tanh)] {
        let mut ys = xs.clone();
        g.bench_function(format!("{name}_{}", isa.name()), |b| {
            b.iter(|| {
                ys.copy_from_slice(&xs);
                apply(isa, f, &mut ys);
                black_box(&mut ys);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, gemm_shapes, activations);
criterion_main!(benches);
