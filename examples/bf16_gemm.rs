//! Times the bf16 GEMM alone on one thread, as a merged layer GEMM runs it: `C = bias + A·B`
//! with `A` f32 rows rounded to bf16, `B` packed in bf16 pairs as 96-column GRU panels, `C` rows
//! padded like the gates scratch, work items of `ROWS` rows × one panel, panel after panel, in
//! one scope that converts `A` once. The default shape is W5's layer GEMM (LBR-GRU T=50 N=32
//! C=512): M = 1600, N = 1536, K = 512; `benchmarks/onednn_bf16_matmul.c` times the same
//! product with oneDNN's matmul.
//!
//! `cargo run --release --example bf16_gemm [M N K [ROWS]]` (N a multiple of 96; `ROWS`
//! default 112, the AMX layer-GEMM item); `OXIDNN_ISA` caps the kernels. Prints
//! `bf16_gemm M N K rows=R isa=I median_ms min_ms gflops`.

use oxidnn::kernels::gemm::{gemm, Fetch, Init, Packing, Panel, RowsA};
use oxidnn::kernels::gemm_bf16::{bf16_bits, reusing_converted};
use oxidnn::kernels::Isa;
use oxidnn::memory::buffer::AlignedBuf;
use std::time::Instant;

/// Columns of one packed panel: three gates of 32 units.
const WIDTH: usize = 96;
/// Floats of padding after each row of `C`, as the gates scratch has.
const ROW_PAD: usize = 16;
/// Timed products (after as many untimed ones as `WARMUP`).
const REPS: usize = 50;
const WARMUP: usize = 5;

/// A 64-byte aligned buffer of `len` 4-byte words, `f(i)` at `i`.
fn words(len: usize, f: impl Fn(usize) -> f32) -> AlignedBuf {
    let mut buf = AlignedBuf::zeroed(len * 4).expect("benchmark buffer");
    for (i, x) in buf.as_f32_mut().iter_mut().enumerate() {
        *x = f(i);
    }
    buf
}

/// A small value exact in bf16.
fn value(i: usize) -> f32 {
    f32::from_bits(bf16_bits((i % 61) as f32 / 64.0 - 0.45) << 16)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: bf16_gemm [M N K [ROWS]]"))
        .collect();
    let (m, n, k) = match args[..] {
        [m, n, k, ..] => (m, n, k),
        _ => (1600, 1536, 512),
    };
    let rows_per_item = args.get(3).copied().unwrap_or(112);
    assert!(n % WIDTH == 0, "N must be a multiple of {WIDTH}");
    let (panels, pairs) = (n / WIDTH, k.div_ceil(2));
    let ldc = n + ROW_PAD;
    let a = words(m * k, value);
    // Word (q, j) of a panel: rows 2q and 2q + 1 of `B` in the low and high half.
    let b = words(panels * pairs * WIDTH, |i| {
        let (lo, hi) = (bf16_bits(value(2 * i)), bf16_bits(value(2 * i + 7)));
        f32::from_bits(lo | hi << 16)
    });
    let bias = words(n, |i| value(i + 3));
    let mut c = words(m * ldc, |_| 0.0);
    let isa = Isa::detected();
    let rows = RowsA {
        base: a.as_ptr().cast(),
        outer_stride: 0,
        inner_stride: k as isize,
        inner: usize::MAX,
    };
    let panel = |p: usize| Panel {
        ptr: b.as_ptr().cast::<f32>().wrapping_add(p * pairs * WIDTH),
        ld: WIDTH,
        width: WIDTH,
        block: WIDTH,
        stride: pairs * WIDTH,
        packing: Packing::Bf16Pairs,
    };
    let c_ptr = c.as_f32_mut().as_mut_ptr();
    let product = || {
        // SAFETY: `A`, `B`, the bias and `C` hold every row and column addressed, and `A` does
        // not change while the scope runs.
        unsafe {
            reusing_converted(|| {
                for p in 0..panels {
                    for r0 in (0..m).step_by(rows_per_item) {
                        let next =
                            (r0 + rows_per_item >= m && p + 1 < panels).then(|| (panel(p + 1), k));
                        gemm(
                            isa,
                            &rows,
                            r0..m.min(r0 + rows_per_item),
                            k,
                            &panel(p),
                            c_ptr.add(r0 * ldc + p * WIDTH),
                            ldc,
                            Init::Row(bias.as_ptr().cast::<f32>().add(p * WIDTH)),
                            Fetch {
                                next,
                                streamed: false,
                            },
                        );
                    }
                }
            })
        }
    };
    for _ in 0..WARMUP {
        product();
    }
    let mut ms: Vec<f64> = (0..REPS)
        .map(|_| {
            let t = Instant::now();
            product();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    let median = ms[REPS / 2];
    let checksum: f64 = c.as_f32_mut().iter().map(|&x| f64::from(x)).sum();
    println!(
        "bf16_gemm {m} {n} {k} rows={rows_per_item} isa={} {median:.3} {:.3} {:.1} checksum={checksum:e}",
        isa.name(),
        ms[0],
        2.0 * (m * n * k) as f64 / median * 1e-6,
    );
}
