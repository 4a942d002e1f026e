//! Criterion benchmarks of the compute kernels alone, one thread: the GEMM on the shapes the
//! LSTM driver gives it, the post-GEMM activations, the LSTM post-GEMM tile, and the backward
//! pass's weight-gradient GEMM. Throughput in FLOP or elements per second.
//!
//! `cargo bench --bench kernels`; instruction set capped with `OXIDNN_ISA=avx512|avx2|portable` (`avx512`: without the AMX tiles).

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use oxidnn::kernels::activations::{apply, Activation};
use oxidnn::kernels::gemm::{gemm, gemm_sum, Fetch, Init, Packing, Panel, RowsA, Term};
use oxidnn::kernels::Isa;
use oxidnn::memory::buffer::AlignedBuf;
use oxidnn::rnn::cells::lstm::{self, LstmTile};
use oxidnn::rnn::cells::{HDest, TileRows};
use oxidnn::rnn::precision::Precision;
use std::hint::black_box;
use std::ops::{Deref, DerefMut};
use std::time::Duration;

/// Floats in a 64-byte aligned buffer, as the library's own operands are (on a Xeon, the GEMM
/// read `B` rows from unaligned `Vec`s, each vector straddling two cache lines, 10 % slower).
struct Aligned(AlignedBuf);

impl Aligned {
    /// `len` floats, `f(i)` at `i`.
    fn new(len: usize, f: impl Fn(usize) -> f32) -> Self {
        let mut buf = AlignedBuf::zeroed(len * 4).expect("benchmark buffer");
        for (i, x) in buf.as_f32_mut().iter_mut().enumerate() {
            *x = f(i);
        }
        Self(buf)
    }
}

impl Deref for Aligned {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        // SAFETY: the buffer holds `len / 4` initialized floats, 64-byte aligned, and is only
        // written through `&mut self`.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast(), self.0.len() / 4) }
    }
}

impl DerefMut for Aligned {
    fn deref_mut(&mut self) -> &mut [f32] {
        self.0.as_f32_mut()
    }
}

/// Rows of `k` floats, one after another.
fn dense_rows(a: &[f32], k: usize) -> RowsA {
    RowsA {
        base: a.as_ptr(),
        outer_stride: 0,
        inner_stride: k as isize,
        inner: usize::MAX,
    }
}

/// Panel `p` of `b` as an LSTM panel is packed: `k` rows of gates i, f (64 floats), then `k`
/// rows of gates c̃, o.
fn lstm_panel(b: &[f32], p: usize, k: usize) -> Panel {
    let width = 128;
    let base = &b[p * k * width..];
    Panel {
        ptr: base.as_ptr(),
        ld: 64,
        width,
        block: 64,
        stride: k * 64,
        packing: Packing::F32,
    }
}

/// What a step's GEMM knows of its weights: the next panel, and that the 4 MiB of panels a
/// benchmark cycles through (a thread's share of a step's weights) stream from beyond L2.
fn streamed(next: Option<(Panel, usize)>) -> Fetch {
    Fetch {
        next,
        streamed: true,
    }
}

/// A GEMM benchmark group: 30 samples of 3 s after 1 s of warm-up.
fn gemm_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(30)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    g
}

/// `C[m × 128] (+)= A[m × 512] · B[512 × 128]` over 16 panels (an LSTM step with DHC = 512), one
/// thread.
fn gemm_shapes(c: &mut Criterion) {
    let (k, width, panels) = (512usize, 128usize, 16usize);
    let mut g = gemm_group(c, "gemm_lstm_panels_k512");
    let isa = Isa::detected();
    for m in [1usize, 13, 16, 32, 64, 104] {
        let a = Aligned::new(m * k, |i| (i % 13) as f32 * 0.01);
        let b = Aligned::new(panels * k * width, |i| (i % 7) as f32 * 0.01);
        let mut out = Aligned::new(m * width * panels, |_| 0.0);
        let rows = dense_rows(&a, k);
        g.throughput(Throughput::Elements((2 * m * k * width * panels) as u64));
        let panel_at = |p: usize| lstm_panel(&b, p, k);
        g.bench_function(format!("m{m}_{}", isa.name()), |bch| {
            bch.iter(|| {
                for p in 0..panels {
                    // The next panel is fetched while this one's tiles run, as in the steps.
                    let next = (p + 1 < panels).then(|| (panel_at(p + 1), k));
                    // SAFETY: a, b and out hold the addressed rows and columns.
                    unsafe {
                        gemm(
                            isa,
                            &rows,
                            0..m,
                            k,
                            &panel_at(p),
                            out[p * width..].as_mut_ptr(),
                            width * panels,
                            Init::Accumulate,
                            streamed(next),
                        )
                    };
                }
                black_box(&mut out);
            })
        });
    }
    g.finish();
}

/// An LSTM step with the layer GEMM fused, one thread's share: `C[m × 128] = b + x·W + h·U` over
/// 16 panels, `K` = 256 for each product (LSTMP N = 16, SLC = DIC = 256), as one sum of two
/// terms and as two GEMMs (the second adding onto the first's tiles).
fn gemm_two_terms(c: &mut Criterion) {
    let (k, width, panels) = (256usize, 128usize, 16usize);
    let mut g = gemm_group(c, "gemm_two_terms_k256");
    let isa = Isa::detected();
    let bias = Aligned::new(width * panels, |_| 0.5);
    for m in [16usize, 32] {
        let a: Vec<Aligned> = (0..2)
            .map(|t| Aligned::new(m * k, |i| ((i + t) % 13) as f32 * 0.01))
            .collect();
        let b: Vec<Aligned> = (0..2)
            .map(|t| Aligned::new(panels * k * width, |i| ((i + t) % 7) as f32 * 0.01))
            .collect();
        let mut out = Aligned::new(m * width * panels, |_| 0.0);
        g.throughput(Throughput::Elements(
            (2 * 2 * m * k * width * panels) as u64,
        ));
        // Term `t` for panel `p`.
        let term = |t: usize, p: usize| Term {
            a: dense_rows(&a[t], k),
            k,
            b: lstm_panel(&b[t], p, k),
            a_pairs: false,
        };
        for summed in [true, false] {
            let name = if summed { "summed" } else { "separate" };
            g.bench_function(format!("m{m}_{name}_{}", isa.name()), |bch| {
                bch.iter(|| {
                    for p in 0..panels {
                        let c = out[p * width..].as_mut_ptr();
                        let ldc = width * panels;
                        let init = Init::Row(bias[p * width..].as_ptr());
                        let (x, h) = (term(0, p), term(1, p));
                        let next = (p + 1 < panels).then(|| (term(0, p + 1).b, k));
                        // SAFETY: a, b and out hold the addressed rows and columns.
                        unsafe {
                            if summed {
                                gemm_sum(isa, &[x, h], 0..m, c, ldc, init, streamed(next));
                            } else {
                                let f = streamed(Some((h.b, k)));
                                gemm_sum(isa, &[x], 0..m, c, ldc, init, f);
                                gemm_sum(isa, &[h], 0..m, c, ldc, Init::Accumulate, streamed(next));
                            }
                        }
                    }
                    black_box(&mut out);
                })
            });
        }
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

/// The LSTM post-GEMM alone (inference, no peephole): one thread's share of a step with
/// N = 16, DHC = 1024 (16 rows × 16 panels of 32 units), everything in cache.
fn lstm_postgemm(c: &mut Criterion) {
    let (rows, panels, dhc) = (16usize, 16usize, 1024usize);
    let width = lstm::GATES * 32;
    let mut g = c.benchmark_group("lstm_postgemm_n16");
    g.sample_size(50)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements((rows * panels * 32) as u64));
    let isa = Isa::detected();
    let gates = Aligned::new(rows * panels * width, |i| (i as f32 * 0.37).sin() * 3.0);
    let mut c_state = Aligned::new(rows * dhc, |i| (i as f32 * 0.11).cos());
    let mut h = Aligned::new(rows * dhc, |_| 0.0);
    let rows_of = |ptr: *mut f32, stride: usize| TileRows {
        ptr,
        stride: stride as isize,
    };
    g.bench_function(format!("16x512_{}", isa.name()), |b| {
        b.iter(|| {
            for p in 0..panels {
                let c = rows_of(c_state[p * 32..].as_mut_ptr(), dhc);
                let tile = LstmTile {
                    rows,
                    valid: 32,
                    gates: rows_of(gates[p * width..].as_ptr().cast_mut(), panels * width),
                    peephole: std::ptr::null(),
                    c_prev: c,
                    c_out: c,
                    c_precision: Precision::F32,
                    h: HDest {
                        h_out: rows_of(h[p * 32..].as_mut_ptr(), dhc),
                        h_extra: TileRows::NONE,
                        extra_add: false,
                        precision: Precision::F32,
                    },
                    ws_gates: TileRows::NONE,
                    ws_gate_stride: dhc,
                    linear: None,
                };
                // SAFETY: every row pointer stays inside its vector (16 rows of the strides).
                unsafe { lstm::postgemm_tile(isa, &tile) };
            }
            black_box(&mut h);
        })
    });
    g.finish();
}

/// The weight gradients of an LSTM layer (T·N = 1600 rows, 512 input and 512 state channels,
/// 4·512 gate columns), one thread's half of the columns: `dW += xᵀ·dA` and `dU += h_prevᵀ·dA`
/// through the blocked AVX-512 kernel, and through `matrixmultiply` for comparison.
#[cfg(target_arch = "x86_64")]
fn weight_gradients(c: &mut Criterion) {
    use oxidnn::kernels::gemm_tn::{gemm_tn, pack_floats, TnProduct};
    if !Isa::all_supported().contains(&Isa::Avx512) {
        return;
    }
    let (k, m, cols) = (1600usize, 512usize, 2048usize);
    let n = cols / 2;
    let x = Aligned::new(k * m, |i| (i % 13) as f32 * 0.01);
    let h = Aligned::new(k * m, |i| (i % 11) as f32 * 0.01);
    let da = Aligned::new(k * cols, |i| (i % 7) as f32 * 0.01);
    let mut dw = Aligned::new(m * cols, |_| 0.0);
    let mut du = Aligned::new(m * cols, |_| 0.0);
    let (pa, pb) = pack_floats(k, m, n);
    let mut pack = Aligned::new(pa + pb, |_| 0.0);
    let mut g = c.benchmark_group("weight_gradients_lstm_t50_n32_c512");
    g.sample_size(20)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements((2 * 2 * m * n * k) as u64));
    g.bench_function("gemm_tn_avx512", |bch| {
        bch.iter(|| {
            let products = [
                TnProduct {
                    a: x.as_ptr(),
                    lda: m,
                    m,
                    c: dw.as_mut_ptr(),
                    ldc: cols,
                },
                TnProduct {
                    a: h.as_ptr(),
                    lda: m,
                    m,
                    c: du.as_mut_ptr(),
                    ldc: cols,
                },
            ];
            // SAFETY: the operands hold the addressed rows; AVX-512 checked above.
            unsafe {
                gemm_tn(
                    k,
                    da.as_ptr(),
                    cols,
                    0..n,
                    &products,
                    pack.as_mut_ptr(),
                    None,
                )
            };
            black_box(&mut dw);
        })
    });
    g.bench_function("matrixmultiply", |bch| {
        bch.iter(|| {
            for (a, out) in [(&x, &mut dw), (&h, &mut du)] {
                // SAFETY: as above; A read transposed through its strides.
                unsafe {
                    matrixmultiply::sgemm(
                        m,
                        k,
                        n,
                        1.0,
                        a.as_ptr(),
                        1,
                        m as isize,
                        da.as_ptr(),
                        cols as isize,
                        1,
                        1.0,
                        out.as_mut_ptr(),
                        cols as isize,
                        1,
                    )
                };
            }
            black_box(&mut dw);
        })
    });
    g.finish();
}

#[cfg(target_arch = "x86_64")]
criterion_group!(
    benches,
    gemm_shapes,
    gemm_two_terms,
    activations,
    lstm_postgemm,
    weight_gradients
);
#[cfg(not(target_arch = "x86_64"))]
criterion_group!(
    benches,
    gemm_shapes,
    gemm_two_terms,
    activations,
    lstm_postgemm
);
criterion_main!(benches);
