//! A stable-toolchain mutation fuzzer for the IR loader and the graph C API (`oxidnn_model_*`,
//! `oxidnn_request_*`), run by `cargo test` for a bounded time over the committed corpus:
//! every `tests/ov_cases/*/model.xml` and `tests/ov_corpus/*/model.xml` + `.bin`,
//! `tests/ir_malformed/*` and `tests/graph_support/*.xml`. Each mutant (byte edits, numbers and attribute values replaced
//! by edge values, ranges deleted, duplicated or spliced from another IR, `.bin` edits) is
//! loaded from memory; a model that loads is described, and run through a request with small
//! limits on inputs of its declared (or small chosen) shapes and random values, including with
//! too-small output buffers. Errors are fine; a panic caught at the C boundary (status
//! `dnnl_runtime_error`, "internal error (panic)"), an output whose size disagrees with its
//! shape, or an abort is a finding.
//!
//! `OXIDNN_FUZZ_SECONDS` (default 5; CI's `scripts/test.sh` sets 90) bounds the time and
//! `OXIDNN_FUZZ_SEED` (default 1) picks the deterministic mutation sequence. The cargo-fuzz
//! target `fuzz/fuzz_targets/ir_loader.rs` (nightly) is for deeper, coverage-guided runs.

use std::ffi::CStr;
use std::os::raw::c_int;
use std::path::Path;
use std::ptr;
use std::time::{Duration, Instant};

use oxidnn::capi::debug::oxidnn_get_last_error_message;
use oxidnn::capi::graph::*;
use oxidnn::capi::types::*;

/// One IR: XML and weights.
#[derive(Clone)]
struct Sample {
    name: String,
    xml: Vec<u8>,
    bin: Vec<u8>,
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn corpus() -> Vec<Sample> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut samples = Vec::new();
    let mut add = |name: String, xml: &Path| {
        let bin = std::fs::read(xml.with_extension("bin")).unwrap_or_default();
        samples.push(Sample {
            name,
            xml: std::fs::read(xml).unwrap(),
            bin,
        });
    };
    for dir in ["ir_malformed", "graph_support"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "xml") {
                add(
                    format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()),
                    &p,
                );
            }
        }
    }
    for dir in ["ov_cases", "ov_corpus"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path().join("model.xml");
            if let Some(case) = p.exists().then(|| p.parent()).flatten() {
                let name = case.file_name().unwrap().to_string_lossy().into_owned();
                add(name, &p);
            }
        }
    }
    samples.sort_by(|a, b| a.name.cmp(&b.name));
    samples
}

const NUMBERS: &[&[u8]] = &[
    b"-1",
    b"0",
    b"1",
    b"2",
    b"3",
    b"-2",
    b"64",
    b"65535",
    b"2147483647",
    b"-2147483648",
    b"4294967296",
    b"9223372036854775807",
    b"-9223372036854775808",
    b"18446744073709551616",
];

const VALUES: &[&[u8]] = &[
    b"",
    b"?",
    b"-1",
    b"0",
    b"1,2",
    b"2,-1",
    b"?,?",
    b"...",
    b"f32",
    b"i64",
    b"i32",
    b"boolean",
    b"u8",
    b"f16",
    b"numpy",
    b"none",
    b"pdpd",
    b"bidirectional",
    b"true",
    b"false",
    b"execution_condition",
    b"current_iteration",
    b"99999999999999999999",
];

const BYTES: &[u8] = b"0123456789-<>\"/ =,?x";

/// A random range of `v` (possibly empty) of at most `max` bytes.
fn range(rng: &mut Rng, len: usize, max: usize) -> (usize, usize) {
    let start = rng.below(len + 1);
    let n = rng.below(max.min(len - start) + 1);
    (start, start + n)
}

/// The byte range of the ASCII digit run (with a leading '-') around a random position.
fn number_at(rng: &mut Rng, v: &[u8]) -> Option<(usize, usize)> {
    let digits: Vec<usize> = (0..v.len()).filter(|&i| v[i].is_ascii_digit()).collect();
    let &i = digits.get(rng.below(digits.len()))?;
    let mut s = i;
    while s > 0 && (v[s - 1].is_ascii_digit() || v[s - 1] == b'-') {
        s -= 1;
    }
    let mut e = i;
    while e < v.len() && v[e].is_ascii_digit() {
        e += 1;
    }
    Some((s, e))
}

/// The byte range inside a random pair of double quotes.
fn quoted_at(rng: &mut Rng, v: &[u8]) -> Option<(usize, usize)> {
    let quotes: Vec<usize> = (0..v.len()).filter(|&i| v[i] == b'"').collect();
    if quotes.len() < 2 {
        return None;
    }
    let k = rng.below(quotes.len() / 2) * 2;
    Some((quotes[k] + 1, quotes[k + 1]))
}

fn mutate(rng: &mut Rng, base: &Sample, corpus: &[Sample]) -> Sample {
    let mut s = base.clone();
    let edits = if rng.below(2) == 0 {
        1
    } else {
        1 + rng.below(4)
    };
    for _ in 0..edits {
        let xml = &mut s.xml;
        match rng.below(10) {
            0 => {
                if !xml.is_empty() {
                    let i = rng.below(xml.len());
                    xml[i] = *rng.pick(BYTES);
                }
            }
            1 | 2 => {
                if let Some((a, b)) = number_at(rng, xml) {
                    xml.splice(a..b, rng.pick(NUMBERS).iter().copied());
                }
            }
            3 => {
                if let Some((a, b)) = quoted_at(rng, xml) {
                    xml.splice(a..b, rng.pick(VALUES).iter().copied());
                }
            }
            4 => {
                let (a, b) = range(rng, xml.len(), 256);
                xml.drain(a..b);
            }
            5 => {
                let (a, b) = range(rng, xml.len(), 512);
                let chunk = xml[a..b].to_vec();
                let at = rng.below(xml.len() + 1);
                xml.splice(at..at, chunk);
            }
            6 => {
                let other = &rng.pick(corpus).xml;
                let (a, b) = range(rng, other.len(), 1024);
                let chunk = other[a..b].to_vec();
                let at = rng.below(xml.len() + 1);
                xml.splice(at..at, chunk);
            }
            7 => {
                let cut = rng.below(xml.len() + 1);
                xml.truncate(cut);
            }
            8 => {
                let bin = &mut s.bin;
                if !bin.is_empty() && rng.below(2) == 0 {
                    let i = rng.below(bin.len());
                    bin[i] = rng.next() as u8;
                } else {
                    let cut = rng.below(bin.len() + 1);
                    bin.truncate(cut);
                }
            }
            _ => {
                // A whole element duplicated: layers, ports and edges twice.
                let starts: Vec<usize> = (0..xml.len()).filter(|&i| xml[i] == b'<').collect();
                if let (Some(&a), true) = (starts.get(rng.below(starts.len())), starts.len() > 1) {
                    let b = xml[a..]
                        .iter()
                        .position(|&c| c == b'>')
                        .map_or(xml.len(), |p| a + p + 1);
                    let chunk = xml[a..b].to_vec();
                    xml.splice(b..b, chunk);
                }
            }
        }
        xml.truncate(1 << 18);
    }
    s
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(oxidnn_get_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

/// `Err` for a status that reveals a panic caught at the C boundary.
fn check(st: dnnl_status_t, call: &str) -> Result<bool, String> {
    if st == dnnl_runtime_error && last_error().contains("panic") {
        return Err(format!("{call}: {}", last_error()));
    }
    Ok(st == dnnl_success)
}

fn element_size(dt: dnnl_data_type_t) -> usize {
    match dt {
        x if x == oxidnn_s64 => 8,
        x if x == dnnl_f32 || x == dnnl_s32 => 4,
        x if x == dnnl_f16 => 2,
        _ => 1,
    }
}

/// Random values of type `dt` for `n` elements, as bytes.
fn values(rng: &mut Rng, dt: dnnl_data_type_t, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * element_size(dt));
    for _ in 0..n {
        let small = rng.below(6) as i64 - 1; // -1 ..= 4
        match dt {
            x if x == dnnl_f32 => {
                let v = (rng.next() % 4001) as f32 / 1000.0 - 2.0;
                out.extend_from_slice(&v.to_ne_bytes());
            }
            x if x == oxidnn_s64 => out.extend_from_slice(&small.to_ne_bytes()),
            x if x == dnnl_s32 => out.extend_from_slice(&(small as i32).to_ne_bytes()),
            x if x == dnnl_f16 => out.extend_from_slice(&0x3C00u16.to_ne_bytes()),
            x if x == dnnl_boolean => out.push(u8::from(rng.below(4) != 0)),
            _ => out.push(small as u8),
        }
    }
    out
}

/// Most elements of an input the fuzzer feeds, or of an output buffer it allocates.
const MAX_ELEMENTS: usize = 1 << 16;

/// How far one IR got.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Refused by the loader.
    Refused,
    /// Loaded; not run, or its execution failed.
    Loaded,
    /// Loaded and ran.
    Ran,
}

/// Loads one IR through the C API and, when it loads, describes and runs it.
unsafe fn exercise(rng: &mut Rng, s: &Sample) -> Result<Outcome, String> {
    let mut m: oxidnn_model_t = ptr::null_mut();
    let st = oxidnn_model_load_from_memory(
        &mut m,
        s.xml.as_ptr().cast(),
        s.xml.len(),
        s.bin.as_ptr(),
        s.bin.len(),
    );
    if !check(st, "load")? {
        return Ok(Outcome::Refused);
    }
    let mut r: oxidnn_request_t = ptr::null_mut();
    let result = (|| {
        check(oxidnn_request_create(&mut r, m), "request_create")?;
        check(
            oxidnn_request_set_limits(r, 64, 16 << 20),
            "request_set_limits",
        )?;
        run(rng, m, r)
    })();
    oxidnn_request_destroy(r);
    oxidnn_model_destroy(m);
    result
}

unsafe fn run(rng: &mut Rng, m: oxidnn_model_t, r: oxidnn_request_t) -> Result<Outcome, String> {
    let (mut n_in, mut n_out) = (0 as c_int, 0 as c_int);
    check(oxidnn_model_get_num_inputs(m, &mut n_in), "num_inputs")?;
    check(oxidnn_model_get_num_outputs(m, &mut n_out), "num_outputs")?;
    let mut inputs = Vec::new();
    for i in 0..n_in {
        let (mut name, mut dt, mut nd, mut dims) = (ptr::null(), 0, 0 as c_int, ptr::null());
        check(oxidnn_model_get_input_name(m, i, &mut name), "input_name")?;
        check(oxidnn_model_get_input_type(m, i, &mut dt), "input_type")?;
        check(
            oxidnn_model_get_input_shape(m, i, &mut nd, &mut dims),
            "input_shape",
        )?;
        let declared: Vec<i64> = if nd > 0 {
            std::slice::from_raw_parts(dims, nd as usize).to_vec()
        } else {
            Vec::new()
        };
        let shape: Vec<i64> = if nd < 0 {
            vec![1 + rng.below(3) as i64]
        } else {
            declared
                .iter()
                .map(|&d| if d < 0 { 1 + rng.below(3) as i64 } else { d })
                .collect()
        };
        if nd < 0 || declared.iter().any(|&d| d < 0) {
            let st = oxidnn_request_set_input_shape(r, i, shape.len() as c_int, shape.as_ptr());
            if !check(st, "set_input_shape")? {
                return Ok(Outcome::Loaded);
            }
        }
        let n = shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d as usize))
            .filter(|&n| n <= MAX_ELEMENTS);
        let Some(n) = n else {
            return Ok(Outcome::Loaded);
        };
        inputs.push(values(rng, dt, n));
    }
    let in_ptrs: Vec<*const std::ffi::c_void> = inputs.iter().map(|b| b.as_ptr().cast()).collect();
    let in_sizes: Vec<usize> = inputs.iter().map(Vec::len).collect();
    let mut outs: Vec<Vec<u8>> = Vec::new();
    let mut out_sizes = Vec::new();
    for i in 0..n_out {
        let (mut dt, mut nd, mut dims) = (0, 0 as c_int, ptr::null());
        check(oxidnn_model_get_output_type(m, i, &mut dt), "output_type")?;
        check(
            oxidnn_model_get_output_shape(m, i, &mut nd, &mut dims),
            "output_shape",
        )?;
        let n = if nd > 0 {
            std::slice::from_raw_parts(dims, nd as usize)
                .iter()
                .try_fold(1usize, |a, &d| a.checked_mul(usize::try_from(d).ok()?))
        } else {
            Some(1)
        };
        let bytes = n
            .filter(|&n| n <= MAX_ELEMENTS)
            .map_or(0, |n| n * element_size(dt));
        // Sometimes a buffer one byte short: an error, never a write past it.
        let size = if rng.below(8) == 0 {
            bytes.saturating_sub(1)
        } else {
            bytes
        };
        outs.push(vec![0u8; size + 1]);
        out_sizes.push(size);
    }
    let out_ptrs: Vec<*mut std::ffi::c_void> =
        outs.iter_mut().map(|b| b.as_mut_ptr().cast()).collect();
    let user_outputs = rng.below(2) == 0;
    let st = oxidnn_request_execute(
        r,
        n_in,
        in_ptrs.as_ptr(),
        in_sizes.as_ptr(),
        n_out,
        if user_outputs {
            out_ptrs.as_ptr()
        } else {
            ptr::null()
        },
        out_sizes.as_ptr(),
    );
    if !check(st, "execute")? {
        return Ok(Outcome::Loaded);
    }
    for i in 0..n_out {
        let (mut nd, mut dims, mut data, mut size) = (0 as c_int, ptr::null(), ptr::null(), 0);
        let mut dt = 0;
        check(oxidnn_model_get_output_type(m, i, &mut dt), "output_type")?;
        check(
            oxidnn_request_get_output_shape(r, i, &mut nd, &mut dims),
            "request_output_shape",
        )?;
        check(
            oxidnn_request_get_output_data(r, i, &mut data, &mut size),
            "request_output_data",
        )?;
        let n: usize = std::slice::from_raw_parts(dims, nd.max(0) as usize)
            .iter()
            .map(|&d| d as usize)
            .product();
        if n * element_size(dt) != size {
            return Err(format!("output {i}: {size} bytes for {n} elements"));
        }
        if user_outputs
            && out_sizes[i as usize] >= size
            && outs[i as usize][out_sizes[i as usize]] != 0
        {
            return Err(format!("output {i}: written past its buffer"));
        }
    }
    Ok(Outcome::Ran)
}

/// Writes a finding's IR to `<temp dir>/oxidnn-graph-fuzz/<i>.xml` and `.bin` (to be kept as a
/// regression case) and returns where it went.
fn save(s: &Sample, i: usize) -> String {
    let dir = std::env::temp_dir().join("oxidnn-graph-fuzz");
    let xml = dir.join(format!("{i}.xml"));
    let saved = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&xml, &s.xml))
        .and_then(|()| std::fs::write(xml.with_extension("bin"), &s.bin));
    match saved {
        Ok(()) => format!("mutant {i} of {} (saved as {})", s.name, xml.display()),
        Err(e) => format!("mutant {i} of {} (not saved: {e})", s.name),
    }
}

#[test]
fn mutated_irs_never_panic_through_the_c_api() {
    let seconds = env_u64("OXIDNN_FUZZ_SECONDS", 5);
    let seed = env_u64("OXIDNN_FUZZ_SEED", 1);
    let corpus = corpus();
    assert!(corpus.len() >= 100, "only {} corpus files", corpus.len());
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut runs = 0u64;
    let (mut loaded, mut ran) = (0u64, 0u64);
    let mut findings = Vec::new();
    let mut slowest = (Duration::ZERO, String::new());
    // Every corpus file once as it is, then mutants until the deadline, mostly of the files
    // that load (a mutant of a refused file is refused too, usually).
    let mut loadable = Vec::new();
    let mut i = 0usize;
    while i < corpus.len() || Instant::now() < deadline {
        let sample = if i < corpus.len() {
            corpus[i].clone()
        } else {
            let base = match rng.below(8) {
                0 => rng.below(corpus.len()),
                _ => *rng.pick(&loadable),
            };
            mutate(&mut rng, &corpus[base], &corpus)
        };
        i += 1;
        let t = Instant::now();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
            exercise(&mut rng, &sample)
        }));
        let took = t.elapsed();
        if took > slowest.0 {
            slowest = (took, sample.name.clone());
        }
        runs += 1;
        match result {
            Ok(Ok(outcome)) => {
                if i <= corpus.len() && outcome != Outcome::Refused {
                    loadable.push(i - 1);
                }
                loaded += u64::from(outcome != Outcome::Refused);
                ran += u64::from(outcome == Outcome::Ran);
            }
            Ok(Err(e)) => findings.push(format!("{}: {e}", save(&sample, i))),
            Err(_) => findings.push(format!("{}: the harness panicked", save(&sample, i))),
        }
        if findings.len() >= 5 {
            break;
        }
    }
    println!(
        "graph fuzz: seed {seed}, {seconds} s: {runs} executions ({} corpus files + {} mutants; \
         {loaded} loaded, {ran} ran), slowest {:?} ({}), {} findings",
        corpus.len(),
        runs.saturating_sub(corpus.len() as u64),
        slowest.0,
        slowest.1,
        findings.len()
    );
    assert!(findings.is_empty(), "findings:\n{}", findings.join("\n"));
}
