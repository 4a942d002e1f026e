//! Times the int8 GEMM kernel alone on one thread (`int8_gemm::gemm`): `M` rows of `A` by
//! `VECTORS` packed 16-column vectors of `B` with `K` rows, groups `LDB` vectors apart (the RNN
//! weights' panels: 8 vectors of 4 gates × 32 units), as one call — the RNN layer GEMM's work
//! item (96 rows) or the step GEMM's (the batch).
//!
//! `cargo run --release --example int8_gemm [M VECTORS K [LDB [CALLS [PANELS]]]]` (default 96 8
//! 1024 8 1 1) with `CALLS` items over consecutive rows of `A` and one panel of `B` that stays
//! in cache; with `PANELS` > 1, call `i` reads panel `i % PANELS` and the same rows of `A` (a
//! step's items over weights that may not fit the cache). `OXIDNN_ISA` caps the kernels. Prints
//! `int8_gemm M VECTORS K kernel median_us gops` and the fastest repetition's GOP/s.

use oxidnn::kernels::int8_gemm::{gemm, Int8Gemm, Int8Kernel, VECTOR};
use oxidnn::kernels::start::Start;
use oxidnn::kernels::Isa;
use std::time::Instant;

/// Timed repetitions: `OXIDNN_BENCH_REPEATS` (default 9; a noisy host wants more, and the
/// fastest).
fn repeats() -> usize {
    std::env::var("OXIDNN_BENCH_REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(9)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse()
                .expect("usage: int8_gemm [M VECTORS K [LDB [CALLS [PANELS]]]]")
        })
        .collect();
    let (m, vectors, k) = match args[..] {
        [m, v, k, ..] => (m, v, k),
        _ => (96, 8, 1024),
    };
    let ldb_vectors = args.get(3).copied().unwrap_or(vectors);
    let calls = args.get(4).copied().unwrap_or(1);
    let panels = args.get(5).copied().unwrap_or(1).max(1);
    let groups = k.div_ceil(4);
    let rows = m * calls;
    let a: Vec<u8> = (0..rows * groups * 4)
        .map(|i| (i * 37 % 251) as u8)
        .collect();
    let panel_bytes = groups * ldb_vectors * 64;
    let b: Vec<i8> = (0..panels * panel_bytes)
        .map(|i| (i * 53 % 241) as u8 as i8)
        .collect();
    let ldc = vectors * VECTOR + 16;
    let mut c = vec![0i32; rows * ldc];
    let kernel = Int8Kernel::for_isa(Isa::detected());
    let run = |c: &mut [i32]| {
        for call in 0..calls {
            let op = Int8Gemm {
                m,
                a: a[if panels > 1 { 0 } else { call * m * groups * 4 }..].as_ptr(),
                lda: groups * 4,
                b: b[call % panels * panel_bytes..].as_ptr(),
                ldb: ldb_vectors * 64,
                block_bytes: oxidnn::kernels::int8_gemm::SIDE_BY_SIDE,
                groups,
                vectors,
                c: c[call * m * ldc..].as_mut_ptr(),
                ldc,
                start: Start::Zero,
                ahead: None,
            };
            // SAFETY: the buffers hold what the operands describe.
            unsafe { gemm(kernel, &op) };
        }
    };
    let mut times = Vec::new();
    let reps = (2e9 as usize / (rows * vectors * 16 * k)).clamp(5, 2000);
    for _ in 0..repeats() {
        let t = Instant::now();
        for _ in 0..reps {
            run(&mut c);
        }
        times.push(t.elapsed().as_secs_f64() / reps as f64);
    }
    times.sort_by(f64::total_cmp);
    let (med, min) = (times[times.len() / 2], times[0]);
    let ops = 2.0 * (rows * vectors * 16 * k) as f64;
    println!(
        "int8_gemm {m} {vectors} {k} calls={calls} {} {:.2} us {:.1} GOP/s (fastest {:.1})",
        kernel.name(),
        med * 1e6,
        ops / med / 1e9,
        ops / min / 1e9
    );
}
