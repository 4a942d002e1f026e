//! `oxidnn-bound`: the batch-1 bound of a unidirectional RNN (issue 34), measured on this
//! machine with the library's own threads, split and GEMM kernel.
//!
//! A batch-1 step is a matrix-vector product: it has to read the recurrent weights `U` (at C512
//! LSTM, 4 MiB of f32, 2 MiB of bf16, 1 MiB of s8) from whichever cache level they live in, at
//! every step. The bound is
//! - **(a)** a streaming read of `U`'s packed panels, each member of a library team reading the
//!   contiguous share of the 32-unit panels the forward driver gives it at batch 1
//!   (`Team::share` of the panels; walked backwards at odd steps, as the driver does), with the
//!   team's spin barrier after every step (a step needs all of the previous step's h), for
//!   `T·L` steps; plus
//! - **(b)** the merged layer GEMM `x·W + b` over all `T·N` rows, once per layer, as the driver
//!   runs it: the library's GEMM of the data type on packed `W` (`kernels::gemm`: f32, or bf16
//!   pairs converting `A` once per member and phase; `kernels::int8_gemm`: u8 × s8 groups into
//!   s32), in (row block × panel) items shared by the team.
//!
//! `--dt` picks the weights' data type: `f32`, `bf16` (the bf16-pair layout of
//! `memory::packed`) or `int8` (`memory::packed_int8`), as the RNN primitives of that type pack
//! them.
//!
//! The element-wise work of the cell is not counted. Each part is timed on its own with its
//! weights warm (the best case for either), `--reps` times: (a) as `T·L` times the median step
//! (a step is tens of microseconds, so most steps run uninterrupted even on a shared machine),
//! (b) as its fastest repetition (what the machine can do: one that another process interrupted
//! is only slower). The bound is their sum.
//!
//! ```text
//! oxidnn-bound [--dt f32|bf16|int8] [--steps T] [--layers L] [--batch N] [--channels C]
//!              [--gates G] [--reps R]
//! ```
//! Defaults: W1 of `benchmarks/rnn_bench.c` (LSTM, G = 4, L = 1, T = 50, N = 1, C = 512),
//! f32, R = 200. Threads: `OXIDNN_NUM_THREADS`, as for the library. Prints `#` comment lines, then
//! `BOUND <threads> <read_ms> <gemm_ms> <bound_ms> <step_gemm_ms>`, the last (not part of the
//! bound) the same steps running the step GEMM `h·U` with the library's kernel instead of the
//! plain read: how close the kernel itself comes to (a).

use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use oxidnn::kernels::gemm::{self, Fetch, Init, RowsA};
use oxidnn::kernels::gemm_bf16::{self, bf16_bits};
use oxidnn::kernels::int8_gemm::{self, Int8Gemm, Int8Kernel};
use oxidnn::kernels::start::Start;
use oxidnn::kernels::Isa;
use oxidnn::memory::buffer::AlignedBuf;
use oxidnn::memory::packed::{PackedLayout, PANEL};
use oxidnn::memory::packed_int8::Int8Layout;
use oxidnn::rnn::int8::forward::{Int8Weights, PanelGemm};
use oxidnn::rnn::items::PhaseItems;
use oxidnn::rnn::scratch::l2_bytes;
use oxidnn::rnn::weights::PackedWeights;
use oxidnn::threading::{self, Team};

const USAGE: &str = "usage: oxidnn-bound [--dt f32|bf16|int8] [--steps T] [--layers L] [--batch N]
                    [--channels C] [--gates G] [--reps R]
  defaults: W1 (T=50 L=1 N=1 C=512 G=4 LSTM), f32, R=200; threads from OXIDNN_NUM_THREADS";

/// Rows of one layer-GEMM work item in the forward driver (`LAYER_ROW_BLOCK`).
const LAYER_ROW_BLOCK: usize = 104;
/// Largest batch this tool models: below the driver's one-gate blocks (`block_gates`, 5–13
/// rows), so the packed layout is the default one.
const MAX_BATCH: usize = 4;
/// Row padding of the gates scratch (`ScratchLayout::gates_ld`).
const ROW_PAD: usize = 16;
/// Words each step of the read adds per loop: 8 independent 16-lane sums.
const READ_CHUNK: usize = 128;

/// The weights' data type, and with it the GEMM kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dt {
    F32,
    Bf16,
    Int8,
}

impl Dt {
    fn name(self) -> &'static str {
        match self {
            Dt::F32 => "f32",
            Dt::Bf16 => "bf16",
            Dt::Int8 => "int8",
        }
    }
}

/// The problem.
#[derive(Clone, Copy, Debug)]
struct Shape {
    dt: Dt,
    t: usize,
    l: usize,
    n: usize,
    c: usize,
    g: usize,
    reps: usize,
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Shape, String> {
    let mut s = Shape {
        dt: Dt::F32,
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
        let v = argv.next().ok_or_else(|| format!("{a} needs a value"))?;
        if a == "--dt" {
            s.dt = match v.as_str() {
                "f32" => Dt::F32,
                "bf16" => Dt::Bf16,
                "int8" => Dt::Int8,
                _ => return Err(format!("--dt {v}: f32, bf16 or int8")),
            };
            continue;
        }
        let v: usize = v.parse().map_err(|e| format!("{a}: {e}"))?;
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

/// `bytes` (rounded up to whole 4-byte words) of 4-byte words `f(i)`, 64-byte aligned like the
/// library's operands.
fn filled(bytes: usize, f: impl Fn(usize) -> u32) -> Result<AlignedBuf, String> {
    let words = bytes.div_ceil(4);
    let mut buf = AlignedBuf::zeroed(words * 4).map_err(|e| e.to_string())?;
    for (i, x) in buf.as_f32_mut().iter_mut().enumerate() {
        *x = f32::from_bits(f(i));
    }
    Ok(buf)
}

/// Word `i` of weights of data type `dt` whose elements are `v(j)`: an f32, two bf16 (a
/// pair) or four s8.
fn weight_word(dt: Dt, i: usize, v: impl Fn(usize) -> f32) -> u32 {
    match dt {
        Dt::F32 => v(i).to_bits(),
        Dt::Bf16 => bf16_bits(v(2 * i)) | bf16_bits(v(2 * i + 1)) << 16,
        Dt::Int8 => u32::from_le_bytes(std::array::from_fn(|q| (v(4 * i + q) * 100.0) as i8 as u8)),
    }
}

/// Sum of `x` in [`READ_CHUNK`] independent lanes (the compiler keeps them in vector
/// registers): a read at the rate the caches deliver, not bound by add latency. Integer adds,
/// whatever the words hold.
#[inline(always)]
fn sum_body(x: &[u32]) -> u32 {
    let mut acc = [0u32; READ_CHUNK];
    let chunks = x.chunks_exact(READ_CHUNK);
    let tail = chunks
        .remainder()
        .iter()
        .fold(0u32, |a, &v| a.wrapping_add(v));
    for c in chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            *a = a.wrapping_add(*v);
        }
    }
    acc.iter().fold(tail, |a, &v| a.wrapping_add(v))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn sum_avx512(x: &[u32]) -> u32 {
    sum_body(x)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_avx2(x: &[u32]) -> u32 {
    sum_body(x)
}

/// [`sum_body`] with the widest vectors of `isa` (the instruction set the GEMM uses).
fn sum(isa: Isa, x: &[u32]) -> u32 {
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
struct Shared(*mut u8);
// SAFETY: members write disjoint parts (see the uses); the buffers outlive the team.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// The pointer as `*mut T` (a method, so closures capture the `Sync` wrapper, not its
    /// field).
    fn get<T>(self) -> *mut T {
        self.0.cast()
    }
}

/// Where the packed panels of one weights matrix (`W` or `U`, of every layer) are, in bytes.
#[derive(Clone, Copy)]
struct Weights {
    /// The f32 or bf16-pair layout (the geometry the panels of both share).
    lay: PackedLayout,
    /// The int8 layout, for `Dt::Int8`.
    int8: Option<Int8Layout>,
}

impl Weights {
    fn new(s: &Shape) -> Result<Self, String> {
        let c = i64::try_from(s.c).map_err(|e| e.to_string())?;
        let dims = [s.l as i64, 1, c, s.g as i64, c];
        let lay = PackedLayout::from_dims(&dims)
            .map_err(|e| e.to_string())?
            .with_pairs(s.dt == Dt::Bf16);
        let int8 = match s.dt {
            Dt::Int8 => Some(Int8Layout::new(&lay).map_err(|e| e.to_string())?),
            _ => None,
        };
        Ok(Self { lay, int8 })
    }

    fn panels(&self) -> usize {
        self.lay.panels()
    }

    /// Bytes of one panel.
    fn panel_bytes(&self) -> usize {
        self.int8
            .map_or(4 * self.lay.panel_len(), |q| q.panel_bytes())
    }

    /// Bytes of one layer's matrix.
    fn matrix_bytes(&self) -> usize {
        self.panels() * self.panel_bytes()
    }

    /// Bytes of the whole tensor (the int8 compensation included).
    fn bytes(&self) -> usize {
        self.int8.map_or(4 * self.lay.len(), |q| q.bytes())
    }

    /// Byte offset of panel `p` of layer `layer`.
    fn panel_offset(&self, layer: usize, p: usize) -> usize {
        match self.int8 {
            Some(q) => q.panel_offset(layer, 0, p),
            None => 4 * self.lay.offset(layer, 0, 0, 0, p * PANEL),
        }
    }

    /// Panel `p` of layer `layer` of the f32 / bf16 weights at `base`.
    fn panel(&self, base: *mut u8, layer: usize, p: usize) -> gemm::Panel {
        let w = PackedWeights {
            ptr: base.cast::<f32>().cast_const(),
            layout: self.lay,
        };
        // SAFETY: `layer` and `p` are inside the layout (the callers' loops).
        unsafe { w.panel(layer, 0, p) }
    }

    /// The int8 GEMMs (one per column block) of `m` rows of u8 `a` (`lda` bytes apart) by
    /// panel `p` of layer `layer` of the s8 weights at `base` into the s32 `c`.
    fn int8_ops(
        &self,
        base: *mut u8,
        layer: usize,
        p: usize,
        (a, lda, m): (*const u8, usize, usize),
        (c, ldc): (*mut i32, usize),
        start: Start,
    ) -> impl Iterator<Item = Int8Gemm> {
        let layout = self.int8.expect("int8 weights");
        let weights = Int8Weights {
            ptr: base.cast_const(),
            layout,
        };
        let g = PanelGemm::new(
            (layer, 0, p),
            0..layout.g * PANEL,
            (a, lda, m, layout.groups()),
            (c, ldc),
            start,
        );
        weights.block_ops(&g)
    }
}

/// Everything one measurement touches.
struct Buffers {
    /// Packed `U` of every layer.
    u: AlignedBuf,
    /// Packed `W` of every layer.
    w: AlignedBuf,
    /// `x`, `[T][N][C]`: f32, or u8 rows of `C4` bytes for int8.
    x: AlignedBuf,
    /// h of the step GEMMs, `[T + 1][N][C]`: f32, or u8 rows of `C4` bytes for int8.
    h: AlignedBuf,
    /// Gates `[T·N][gld]`: f32, or s32 for int8.
    gates: AlignedBuf,
    /// Bias `[P·G·32]`.
    bias: AlignedBuf,
}

/// Bytes of one row of activations: `C` f32, or `C` u8 padded to whole 4-row groups.
fn act_row_bytes(s: &Shape) -> usize {
    match s.dt {
        Dt::Int8 => s.c.next_multiple_of(4),
        _ => 4 * s.c,
    }
}

/// `T·L` steps of this member's share of the panels of `U`, as the forward driver walks them at
/// batch 1 (backwards at odd steps), each step ending at the team barrier: `per_panel(layer,
/// step, panel, the next panel of the step)` for each, inside a scope where a bf16 GEMM converts
/// each `A` once (as the driver's phases). Member 0 pushes the time each step took (from the
/// previous barrier) onto `times`.
fn steps(
    team: &Team,
    s: &Shape,
    w: &Weights,
    times: &mut Vec<f64>,
    mut per_panel: impl FnMut(usize, usize, usize, Option<usize>),
) {
    let share = team.share(w.panels());
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
            let mut run = || {
                for i in 0..share.len() {
                    let next = (i + 1 < share.len()).then(|| at(i + 1, reverse));
                    per_panel(layer, step, at(i, reverse), next);
                }
            };
            // SAFETY: a step's GEMMs read the previous step's h, complete (barrier) and not
            // written during the step.
            unsafe { gemm_bf16::reusing_converted(&mut run) };
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
    w: &Weights,
    u: Shared,
    times: &mut Vec<f64>,
) -> u32 {
    let mut total = 0u32;
    steps(team, s, w, times, |layer, _, p, _| {
        let at = u.get::<u8>().wrapping_add(w.panel_offset(layer, p));
        // SAFETY: panel `p` of layer `layer` is inside the packed buffer, 4-byte aligned.
        let panel = unsafe { std::slice::from_raw_parts(at.cast::<u32>(), w.panel_bytes() / 4) };
        total = total.wrapping_add(sum(isa, panel));
    });
    total
}

/// For comparison with (a): [`steps`] running the step GEMM `gates += h·U` of each panel with
/// the library's kernel, each member then writing its panels' units of this step's h (a
/// constant instead of the cell's element-wise work), which every member reads at the next
/// step: the h exchange between cores the driver has too.
fn gemm_steps(team: &Team, isa: Isa, s: &Shape, w: &Weights, b: &Buffers, times: &mut Vec<f64>) {
    let width = s.g * PANEL;
    let gld = w.panels() * width + ROW_PAD;
    let streamed = w.matrix_bytes() > team.size() * l2_bytes();
    let row = act_row_bytes(s);
    // h of step `t` is row `t + 1` of `b.h` (`[T + 1][N]` rows, row 0 the initial state).
    let (h_all, gates, u) = (Shared(b.h.as_ptr()), Shared(b.gates.as_ptr()), b.u.as_ptr());
    let kernel = Int8Kernel::for_isa(isa);
    steps(team, s, w, times, |layer, step, p, next| {
        let h_prev = h_all.get::<u8>().wrapping_add(step * s.n * row);
        let c = gates.get::<f32>().wrapping_add(p * width);
        // SAFETY: panels are inside the layout; a member writes its own panels' columns of the
        // first `N` rows of `gates` and its own panels' units of row `step + 1` of `b.h`, which
        // has `T + 1` rows of `N` activation rows; no member reads row `step + 1` before the
        // barrier.
        unsafe {
            match s.dt {
                Dt::Int8 => {
                    let ops = w.int8_ops(
                        u,
                        layer,
                        p,
                        (h_prev, row, s.n),
                        (c.cast(), gld),
                        Start::Accumulate,
                    );
                    for op in ops {
                        int8_gemm::gemm(kernel, &op);
                    }
                }
                Dt::F32 | Dt::Bf16 => {
                    let a = RowsA {
                        base: h_prev.cast::<f32>(),
                        outer_stride: 0,
                        inner_stride: s.c as isize,
                        inner: usize::MAX,
                    };
                    let fetch = Fetch {
                        next: next.map(|q| (w.panel(u, layer, q), s.c)),
                        streamed,
                    };
                    let panel = w.panel(u, layer, p);
                    gemm::gemm(
                        isa,
                        &a,
                        0..s.n,
                        s.c,
                        &panel,
                        c,
                        gld,
                        Init::Accumulate,
                        fetch,
                    );
                }
            }
            let units = p * PANEL..s.c.min((p + 1) * PANEL);
            for n in 0..s.n {
                let h = h_all.get::<u8>().add(((step + 1) * s.n + n) * row);
                for u in units.clone() {
                    match s.dt {
                        Dt::Int8 => *h.add(u) = 128,
                        _ => *h.cast::<f32>().add(u) = 0.5,
                    }
                }
            }
        }
    });
}

/// (b): the merged layer GEMM of every layer, as the forward driver runs it.
fn layer_gemms(team: &Team, isa: Isa, s: &Shape, w: &Weights, b: &Buffers) {
    let rows = s.t * s.n;
    let width = s.g * PANEL;
    let total = w.panels() * width;
    let gld = total + ROW_PAD;
    let items = PhaseItems::by_panel(rows, LAYER_ROW_BLOCK.min(rows), w.panels());
    let share = team.share(items.count());
    let streamed = w.matrix_bytes() > team.size() * l2_bytes();
    let row = act_row_bytes(s);
    let a = RowsA {
        base: b.x.as_ptr().cast::<f32>(),
        outer_stride: (s.n * s.c) as isize,
        inner_stride: s.c as isize,
        inner: s.n,
    };
    let (gates, wp) = (Shared(b.gates.as_ptr()), b.w.as_ptr());
    let bias = b.bias.as_ptr().cast::<f32>().cast_const();
    let kernel = Int8Kernel::for_isa(isa);
    for layer in 0..s.l {
        let run = || {
            team.for_each(items.count(), false, |it| {
                let (r, panel) = items.tile(it);
                let next = items.next_panel(&share, it, false);
                // SAFETY: panels are inside the layout; each item writes its own rows × panel
                // of `gates` (`T·N` rows of `gld` values); `x` has `T·N` rows.
                unsafe {
                    let c = gates.get::<f32>().add(r.start * gld + panel * width);
                    match s.dt {
                        Dt::Int8 => {
                            let x = b.x.as_ptr().add(r.start * row).cast_const();
                            let ops = w.int8_ops(
                                wp,
                                layer,
                                panel,
                                (x, row, r.len()),
                                (c.cast(), gld),
                                Start::Zero,
                            );
                            for op in ops {
                                int8_gemm::gemm(kernel, &op);
                            }
                        }
                        Dt::F32 | Dt::Bf16 => {
                            let fetch = Fetch {
                                next: next.map(|q| (w.panel(wp, layer, q), s.c)),
                                streamed,
                            };
                            let init = Init::Row(bias.add(panel * width));
                            let p = w.panel(wp, layer, panel);
                            gemm::gemm(isa, &a, r, s.c, &p, c, gld, init, fetch);
                        }
                    }
                }
            });
        };
        // SAFETY: `x` is not written while the GEMMs read it.
        unsafe { gemm_bf16::reusing_converted(run) };
        team.barrier();
    }
}

fn run(s: Shape) -> Result<(), String> {
    let wl = Weights::new(&s)?;
    let width = s.g * PANEL;
    let gld = wl.panels() * width + ROW_PAD;
    let x = |j: usize| ((j % 3) as f32 - 1.0) * 0.5;
    let row = act_row_bytes(&s);
    let b = Buffers {
        u: filled(wl.bytes(), |i| {
            weight_word(s.dt, i, |j| ((j % 7) as f32 - 3.0) * 0.01)
        })?,
        w: filled(wl.bytes(), |i| {
            weight_word(s.dt, i, |j| ((j % 5) as f32 - 2.0) * 0.01)
        })?,
        x: filled(s.t * s.n * row, |i| match s.dt {
            Dt::Int8 => 0x8040_c020,
            _ => x(i).to_bits(),
        })?,
        h: filled((s.t + 1) * s.n * row, |_| match s.dt {
            Dt::Int8 => 0x8080_8080,
            _ => 0.5f32.to_bits(),
        })?,
        gates: filled(4 * s.t * s.n * gld, |_| 0)?,
        bias: filled(4 * wl.panels() * width, |_| 0.1f32.to_bits())?,
    };
    let isa = Isa::detected();
    let u = Shared(b.u.as_ptr());
    // Member 0's times in ms: of every step of (a), of every repetition of (b), and of every
    // step of the step GEMMs.
    let times = Mutex::new((Vec::new(), Vec::new(), Vec::new()));
    let members = AtomicUsize::new(0);
    let sink = AtomicU32::new(0);
    // A join wait long enough for every worker to check in (the bound assumes the whole team).
    threading::team(Some(Duration::from_millis(50)), |team| {
        let one = Shape { t: 1, l: 1, ..s };
        let n_steps = s.reps * s.t * s.l;
        let (mut steps, mut gemms) = (Vec::with_capacity(n_steps), Vec::new());
        let mut step_gemms = Vec::with_capacity(n_steps);
        let mut warm = Vec::with_capacity(2 * s.reps);
        let mut check = 0u32;
        layer_gemms(team, isa, &s, &wl, &b);
        for _ in 0..s.reps {
            // Warm: the first layer's U back in the caches its steps read it from.
            check = check.wrapping_add(read_steps(team, isa, &one, &wl, u, &mut warm));
            check = check.wrapping_add(read_steps(team, isa, &s, &wl, u, &mut steps));
            let t0 = Instant::now();
            layer_gemms(team, isa, &s, &wl, &b);
            gemms.push((Instant::now() - t0).as_secs_f64() * 1e3);
            gemm_steps(team, isa, &one, &wl, &b, &mut warm);
            gemm_steps(team, isa, &s, &wl, &b, &mut step_gemms);
        }
        if team.index() == 0 {
            members.store(team.size(), Ordering::Relaxed);
            if let Ok(mut t) = times.lock() {
                *t = (steps, gemms, step_gemms);
            }
        }
        sink.fetch_add(check & 1, Ordering::Relaxed);
    });
    let members = members.load(Ordering::Relaxed);
    let (steps, gemms, step_gemms) = times.into_inner().map_err(|e| e.to_string())?;
    let (step_min, step_med) = min_median(steps);
    let (step_gemm_min, step_gemm_med) = min_median(step_gemms);
    let (gemm_min, gemm_med) = min_median(gemms);
    let n_steps = s.t * s.l;
    let read = step_med * n_steps as f64;
    let u_bytes = wl.matrix_bytes();
    let mib = |b: usize| b as f64 / f64::from(1 << 20);
    let flops = 2.0 * (s.l * s.t * s.n * s.c * wl.panels() * width) as f64;
    let unit = if s.dt == Dt::Int8 { "GOP/s" } else { "GFLOP/s" };
    println!(
        "# oxidnn-bound: L{} T{} N{} C{} G{} {}, {} team member(s) of {} threads, isa {}, L2 {} KiB/core, {} repetitions",
        s.l,
        s.t,
        s.n,
        s.c,
        s.g,
        s.dt.name(),
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
        "# (b) layer GEMM {}x{}x{} x {} layer(s): {:.3} ms (fastest repetition; median {:.3}), {:.1} {unit}",
        s.t * s.n,
        wl.panels() * width,
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
