//! `oxidnn-bound`: the batch-1 bound of a unidirectional RNN (issue 34), measured on this
//! machine with the library's own threads, split and GEMM kernel.
//!
//! A batch-1 step is a matrix-vector product: it has to read the recurrent weights `U` (at C512
//! LSTM, 4 MiB of f32) from whichever cache level they live in, at every step. The bound is
//! - **(a)** a streaming read of `U`'s packed panels, each member of a library team reading the
//!   contiguous share of the 32-unit panels the forward driver gives it at batch 1
//!   (`Team::share` of the panels; walked backwards at odd steps, as the driver does), with the
//!   team's spin barrier after every step (a step needs all of the previous step's h), for
//!   `T·L` steps; plus
//! - **(b)** the merged layer GEMM `x·W + b` over all `T·N` rows, once per layer, as the driver
//!   runs it: the library's `kernels::gemm` on packed `W`, in (row block × panel) items shared
//!   by the team.
//!
//! The element-wise work of the cell is not counted. Each part is timed on its own with its
//! weights warm (the best case for either), `--reps` times: (a) as `T·L` times the median step
//! (a step is tens of microseconds, so most steps run uninterrupted even on a shared machine),
//! (b) as its fastest repetition (what the machine can do: one that another process interrupted
//! is only slower). The bound is their sum.
//!
//! ```text
//! oxidnn-bound [--steps T] [--layers L] [--batch N] [--channels C] [--gates G] [--reps R]
//! ```
//! Defaults: W1 of `benchmarks/rnn_bench.c` (LSTM, G = 4, L = 1, T = 50, N = 1, C = 512),
//! R = 200. Threads: `OXIDNN_NUM_THREADS`, as for the library. Prints `#` comment lines, then
//! `BOUND <threads> <read_ms> <gemm_ms> <bound_ms> <step_gemm_ms>`, the last (not part of the
//! bound) the same steps running the step GEMM `h·U` with the library's kernel instead of the
//! plain read: how close the kernel itself comes to (a).

use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use oxidnn::kernels::gemm::{self, Fetch, Init, RowsA};
use oxidnn::kernels::Isa;
use oxidnn::memory::buffer::AlignedBuf;
use oxidnn::memory::packed::{PackedLayout, PANEL};
use oxidnn::rnn::items::PhaseItems;
use oxidnn::rnn::scratch::l2_bytes;
use oxidnn::rnn::weights::PackedWeights;
use oxidnn::threading::{self, Team};

const USAGE: &str =
    "usage: oxidnn-bound [--steps T] [--layers L] [--batch N] [--channels C] [--gates G] [--reps R]
  defaults: W1 (T=50 L=1 N=1 C=512 G=4 LSTM), R=200; threads from OXIDNN_NUM_THREADS";

/// Rows of one layer-GEMM work item in the forward driver (`LAYER_ROW_BLOCK`).
const LAYER_ROW_BLOCK: usize = 104;
/// Largest batch this tool models: below the driver's one-gate blocks (`block_gates`, 5–13
/// rows), so the packed layout is the default one.
const MAX_BATCH: usize = 4;
/// Row padding of the gates scratch (`ScratchLayout::gates_ld`).
const ROW_PAD: usize = 16;
/// Floats each step of the read adds per loop: 8 independent 16-lane sums.
const READ_CHUNK: usize = 128;

/// The problem.
#[derive(Clone, Copy, Debug)]
struct Shape {
    t: usize,
    l: usize,
    n: usize,
    c: usize,
    g: usize,
    reps: usize,
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Shape, String> {
    let mut s = Shape {
        t: 50,
        l: 1,
        n: 1,
        c: 512,
        g: 4,
        reps: 200,
    };
    while let Some(a) = argv.next() {
        if a == "-h" || a == "--help" {
            return Err(String::new());
        }
        let v: usize = argv
            .next()
            .ok_or_else(|| format!("{a} needs a value"))?
            .parse()
            .map_err(|e| format!("{a}: {e}"))?;
        match a.as_str() {
            "--steps" => s.t = v,
            "--layers" => s.l = v,
            "--batch" => s.n = v,
            "--channels" => s.c = v,
            "--gates" => s.g = v,
            "--reps" => s.reps = v,
            _ => return Err(format!("unknown argument '{a}'")),
        }
    }
    if [s.t, s.l, s.n, s.c, s.g, s.reps].contains(&0) {
        return Err("every size must be at least 1".into());
    }
    if s.n > MAX_BATCH {
        return Err(format!(
            "--batch {}: this bound models batches of 1–{MAX_BATCH}",
            s.n
        ));
    }
    Ok(s)
}

/// `len` floats of `f(i)`, 64-byte aligned like the library's operands.
fn filled(len: usize, f: impl Fn(usize) -> f32) -> Result<AlignedBuf, String> {
    let bytes = len
        .checked_mul(4)
        .ok_or_else(|| format!("{len} floats overflow"))?;
    let mut buf = AlignedBuf::zeroed(bytes).map_err(|e| e.to_string())?;
    for (i, x) in buf.as_f32_mut().iter_mut().enumerate() {
        *x = f(i);
    }
    Ok(buf)
}

/// Sum of `x` in [`READ_CHUNK`] independent lanes (the compiler keeps them in vector
/// registers): a read at the rate the caches deliver, not bound by add latency.
#[inline(always)]
fn sum_body(x: &[f32]) -> f32 {
    let mut acc = [0.0f32; READ_CHUNK];
    let chunks = x.chunks_exact(READ_CHUNK);
    let tail: f32 = chunks.remainder().iter().sum();
    for c in chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            *a += v;
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn sum_avx512(x: &[f32]) -> f32 {
    sum_body(x)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_avx2(x: &[f32]) -> f32 {
    sum_body(x)
}

/// [`sum_body`] with the widest vectors of `isa` (the instruction set the GEMM uses).
fn sum(isa: Isa, x: &[f32]) -> f32 {
    match isa {
        // SAFETY: `Isa::detected` only returns instruction sets the CPU supports.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 | Isa::Amx => unsafe { sum_avx512(x) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { sum_avx2(x) },
        _ => sum_body(x),
    }
}

/// The minimum and the median of `v` (0 when empty).
fn min_median(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |i: usize| v.get(i).copied().unwrap_or(0.0);
    (at(0), at(v.len() / 2))
}

/// A raw pointer the team's members share (each writes its own part).
#[derive(Clone, Copy)]
struct Shared(*mut f32);
// SAFETY: members write disjoint parts (see the uses); the buffers outlive the team.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// The pointer (a method, so closures capture the `Sync` wrapper, not its field).
    fn get(self) -> *mut f32 {
        self.0
    }
}

/// Everything one measurement touches.
struct Buffers {
    /// Packed `U` of every layer.
    u: AlignedBuf,
    /// Packed `W` of every layer.
    w: AlignedBuf,
    /// `x`, `[T][N][C]`.
    x: AlignedBuf,
    /// h of the step GEMMs, `[T + 1][N][C]`.
    h: AlignedBuf,
    /// Gates `[T·N][gld]`.
    gates: AlignedBuf,
    /// Bias `[P·G·32]`.
    bias: AlignedBuf,
}

/// `T·L` steps of this member's share of the panels of `U`, as the forward driver walks them at
/// batch 1 (backwards at odd steps), each step ending at the team barrier: `per_panel(layer,
/// step, panel, the next panel of the step)` for each. Member 0 pushes the time each step took (from
/// the previous barrier) onto `times`.
fn steps(
    team: &Team,
    s: &Shape,
    lay: &PackedLayout,
    times: &mut Vec<f64>,
    mut per_panel: impl FnMut(usize, usize, usize, Option<usize>),
) {
    let share = team.share(lay.panels());
    let at = |i: usize, reverse: bool| {
        if reverse {
            share.end - 1 - i
        } else {
            share.start + i
        }
    };
    let mut t = Instant::now();
    for layer in 0..s.l {
        for step in 0..s.t {
            let reverse = step % 2 == 1;
            for i in 0..share.len() {
                let next = (i + 1 < share.len()).then(|| at(i + 1, reverse));
                per_panel(layer, step, at(i, reverse), next);
            }
            team.barrier();
            if team.index() == 0 {
                let now = Instant::now();
                times.push((now - t).as_secs_f64() * 1e3);
                t = now;
            }
        }
    }
}

/// (a): [`steps`] reading each panel of `U`; returns the sum of what was read.
fn read_steps(
    team: &Team,
    isa: Isa,
    s: &Shape,
    lay: &PackedLayout,
    u: *const f32,
    times: &mut Vec<f64>,
) -> f32 {
    let mut total = 0.0;
    steps(team, s, lay, times, |layer, _, p, _| {
        let off = lay.offset(layer, 0, 0, 0, p * PANEL);
        // SAFETY: panel `p` of layer `layer` is inside the packed buffer.
        let panel = unsafe { std::slice::from_raw_parts(u.add(off), lay.panel_len()) };
        total += sum(isa, panel);
    });
    total
}

/// For comparison with (a): [`steps`] running the step GEMM `gates += h·U` of each panel with
/// the library's kernel, each member then writing its panels' units of this step's h (a
/// constant instead of the cell's element-wise work), which every member reads at the next
/// step: the h exchange between cores the driver has too.
fn gemm_steps(
    team: &Team,
    isa: Isa,
    s: &Shape,
    lay: &PackedLayout,
    b: &Buffers,
    times: &mut Vec<f64>,
) {
    let width = s.g * PANEL;
    let gld = lay.panels() * width + ROW_PAD;
    let streamed = s.c * lay.panels() * width * 4 > team.size() * l2_bytes();
    // h of step `t` is row `t + 1` of `b.h` (`[T + 1][N][C]`, row 0 the initial state).
    let h_all = Shared(b.h.as_ptr().cast::<f32>());
    let gates = Shared(b.gates.as_ptr().cast::<f32>());
    let u = PackedWeights {
        ptr: b.u.as_ptr().cast::<f32>().cast_const(),
        layout: *lay,
    };
    steps(team, s, lay, times, |layer, step, p, next| {
        let h_prev = RowsA {
            base: h_all.get().wrapping_add(step * s.n * s.c),
            outer_stride: 0,
            inner_stride: s.c as isize,
            inner: usize::MAX,
        };
        // SAFETY: panels are inside the layout; a member writes its own panels' columns of the
        // first `N` rows of `gates` and its own panels' units of row `step + 1` of `b.h`, which
        // has `T + 1` rows of `N × C` floats; no member reads row `step + 1` before the barrier.
        unsafe {
            gemm::gemm(
                isa,
                &h_prev,
                0..s.n,
                s.c,
                &u.panel(layer, 0, p),
                gates.get().add(p * width),
                gld,
                Init::Accumulate,
                Fetch {
                    next: next.map(|q| (u.panel(layer, 0, q), s.c)),
                    streamed,
                },
            );
            let units = p * PANEL..s.c.min((p + 1) * PANEL);
            for n in 0..s.n {
                let row = h_all.get().add(((step + 1) * s.n + n) * s.c);
                for u in units.clone() {
                    *row.add(u) = 0.5;
                }
            }
        }
    });
}

/// (b): the merged layer GEMM of every layer, as the forward driver runs it.
fn layer_gemms(team: &Team, isa: Isa, s: &Shape, lay: &PackedLayout, b: &Buffers) {
    let rows = s.t * s.n;
    let width = s.g * PANEL;
    let total = lay.panels() * width;
    let gld = total + ROW_PAD;
    let items = PhaseItems::by_panel(rows, LAYER_ROW_BLOCK.min(rows), lay.panels());
    let share = team.share(items.count());
    let streamed = s.c * total * 4 > team.size() * l2_bytes();
    let a = RowsA {
        base: b.x.as_ptr().cast::<f32>(),
        outer_stride: (s.n * s.c) as isize,
        inner_stride: s.c as isize,
        inner: s.n,
    };
    let gates = Shared(b.gates.as_ptr().cast::<f32>());
    let bias = b.bias.as_ptr().cast::<f32>().cast_const();
    for layer in 0..s.l {
        let w = PackedWeights {
            ptr: b
                .w
                .as_ptr()
                .cast::<f32>()
                .cast_const()
                .wrapping_add(layer * lay.matrix_len()),
            layout: PackedLayout { l: 1, ..*lay },
        };
        team.for_each(items.count(), false, |it| {
            let (r, panel) = items.tile(it);
            let next = items.next_panel(&share, it, false);
            // SAFETY: panels are inside the layout; each item writes its own rows × panel of
            // `gates` (`T·N` rows of `gld` floats); `x` has `T·N` rows of `C` floats.
            unsafe {
                let c = gates.get().add(r.start * gld + panel * width);
                gemm::gemm(
                    isa,
                    &a,
                    r,
                    s.c,
                    &w.panel(0, 0, panel),
                    c,
                    gld,
                    Init::Row(bias.add(panel * width)),
                    Fetch {
                        next: next.map(|q| (w.panel(0, 0, q), s.c)),
                        streamed,
                    },
                );
            }
        });
        team.barrier();
    }
}

fn run(s: Shape) -> Result<(), String> {
    let c = i64::try_from(s.c).map_err(|e| e.to_string())?;
    let dims = [s.l as i64, 1, c, s.g as i64, c];
    let lay = PackedLayout::from_dims(&dims).map_err(|e| e.to_string())?;
    let width = s.g * PANEL;
    let gld = lay.panels() * width + ROW_PAD;
    let b = Buffers {
        u: filled(lay.len(), |i| ((i % 7) as f32 - 3.0) * 0.01)?,
        w: filled(lay.len(), |i| ((i % 5) as f32 - 2.0) * 0.01)?,
        x: filled(s.t * s.n * s.c, |i| ((i % 3) as f32 - 1.0) * 0.5)?,
        h: filled((s.t + 1) * s.n * s.c, |_| 0.5)?,
        gates: filled(s.t * s.n * gld, |_| 0.0)?,
        bias: filled(lay.panels() * width, |_| 0.1)?,
    };
    let isa = Isa::detected();
    let u = Shared(b.u.as_ptr().cast::<f32>());
    // Member 0's times in ms: of every step of (a), of every repetition of (b), and of every
    // step of the step GEMMs.
    let times = Mutex::new((Vec::new(), Vec::new(), Vec::new()));
    let members = AtomicUsize::new(0);
    let sink = AtomicU32::new(0);
    // A join wait long enough for every worker to check in (the bound assumes the whole team).
    threading::team(Some(Duration::from_millis(50)), |team| {
        let u = u.get().cast_const();
        let one = Shape { t: 1, l: 1, ..s };
        let n_steps = s.reps * s.t * s.l;
        let (mut steps, mut gemms) = (Vec::with_capacity(n_steps), Vec::new());
        let mut step_gemms = Vec::with_capacity(n_steps);
        let mut warm = Vec::with_capacity(2 * s.reps);
        let mut check = 0.0;
        layer_gemms(team, isa, &s, &lay, &b);
        for _ in 0..s.reps {
            // Warm: the first layer's U back in the caches its steps read it from.
            check += read_steps(team, isa, &one, &lay, u, &mut warm);
            check += read_steps(team, isa, &s, &lay, u, &mut steps);
            let t0 = Instant::now();
            layer_gemms(team, isa, &s, &lay, &b);
            gemms.push((Instant::now() - t0).as_secs_f64() * 1e3);
            gemm_steps(team, isa, &one, &lay, &b, &mut warm);
            gemm_steps(team, isa, &s, &lay, &b, &mut step_gemms);
        }
        if team.index() == 0 {
            members.store(team.size(), Ordering::Relaxed);
            if let Ok(mut t) = times.lock() {
                *t = (steps, gemms, step_gemms);
            }
        }
        sink.fetch_add(check.to_bits() & 1, Ordering::Relaxed);
    });
    let members = members.load(Ordering::Relaxed);
    let (steps, gemms, step_gemms) = times.into_inner().map_err(|e| e.to_string())?;
    let (step_min, step_med) = min_median(steps);
    let (step_gemm_min, step_gemm_med) = min_median(step_gemms);
    let (gemm_min, gemm_med) = min_median(gemms);
    let n_steps = s.t * s.l;
    let read = step_med * n_steps as f64;
    let u_bytes = lay.matrix_len() * 4;
    let mib = |b: usize| b as f64 / f64::from(1 << 20);
    let flops = 2.0 * (s.l * s.t * s.n * s.c * lay.panels() * width) as f64;
    println!(
        "# oxidnn-bound: L{} T{} N{} C{} G{}, {} team member(s) of {} threads, isa {}, L2 {} KiB/core, {} repetitions",
        s.l,
        s.t,
        s.n,
        s.c,
        s.g,
        members,
        threading::num_threads(),
        isa.name(),
        l2_bytes() >> 10,
        s.reps
    );
    println!(
        "# (a) read U ({:.2} MiB per layer, {:.2} MiB per member) at {} steps: {n_steps} x {:.2} us (median step; fastest {:.2} us) = {:.3} ms, {:.1} GB/s",
        mib(u_bytes),
        mib(u_bytes / members.max(1)),
        n_steps,
        step_med * 1e3,
        step_min * 1e3,
        read,
        u_bytes as f64 / (step_med * 1e-3) / 1e9
    );
    println!(
        "# (b) layer GEMM {}x{}x{} x {} layer(s): {:.3} ms (fastest repetition; median {:.3}), {:.1} GFLOP/s",
        s.t * s.n,
        lay.panels() * width,
        s.c,
        s.l,
        gemm_min,
        gemm_med,
        flops / (gemm_min * 1e-3) / 1e9
    );
    let step_gemm = step_gemm_med * n_steps as f64;
    println!(
        "# for comparison, the step GEMM h·U (the library's kernel, same split, h exchanged): {n_steps} x {:.2} us (median step; fastest {:.2} us) = {step_gemm:.3} ms, {:.2}x (a)",
        step_gemm_med * 1e3,
        step_gemm_min * 1e3,
        step_gemm / read
    );
    println!(
        "BOUND {members} {read:.4} {gemm_min:.4} {:.4} {step_gemm:.4}",
        read + gemm_min
    );
    Ok(())
}

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)).and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("oxidnn-bound: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
