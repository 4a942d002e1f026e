//! The graph C API (`oxidnn_model_*`) on the committed OpenVINO cases (`tests/ov_cases/`):
//! every case loads from files and from memory, its inputs and outputs are described, it runs
//! (through a request) with user input buffers and both user-provided and library-owned
//! outputs, and the results match the expected `.npy` files (same tolerance as
//! `tests/graph_ov_cases.rs`). Buffers too small for this execution's shapes are errors that
//! write nothing.

#[path = "graph_support/mod.rs"]
mod support;

use std::ffi::{c_void, CStr, CString};
use std::os::raw::{c_char, c_int};
use std::ptr;

use oxidnn::capi::debug::oxidnn_get_last_error_message;
use oxidnn::capi::graph::*;
use oxidnn::capi::types::*;
use oxidnn::graph::npy::read_npy_file;
use oxidnn::graph::{ElementType, Tensor};
use support::{cases, compare, Case};

const OK: dnnl_status_t = dnnl_success;

fn last_error() -> String {
    unsafe { CStr::from_ptr(oxidnn_get_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn element_type(dt: dnnl_data_type_t) -> ElementType {
    match dt {
        x if x == dnnl_f32 => ElementType::F32,
        x if x == dnnl_f16 => ElementType::F16,
        x if x == dnnl_s32 => ElementType::I32,
        x if x == oxidnn_s64 => ElementType::I64,
        x if x == dnnl_u8 => ElementType::U8,
        x if x == dnnl_s8 => ElementType::I8,
        x if x == dnnl_boolean => ElementType::Boolean,
        other => panic!("unexpected data type {other}"),
    }
}

/// Name, data type and shape of input (`output == false`) or output `i`; an output's shape is
/// the request's (its last execution's) when one is given.
unsafe fn describe(
    m: oxidnn_model_t,
    r: oxidnn_request_t,
    output: bool,
    i: c_int,
) -> (String, ElementType, Vec<i64>) {
    let (mut name, mut dt, mut nd, mut dims): (*const c_char, _, c_int, *const i64) =
        (ptr::null(), 0, 0, ptr::null());
    if output {
        assert_eq!(oxidnn_model_get_output_name(m, i, &mut name), OK);
        assert_eq!(oxidnn_model_get_output_type(m, i, &mut dt), OK);
        if r.is_null() {
            assert_eq!(oxidnn_model_get_output_shape(m, i, &mut nd, &mut dims), OK);
        } else {
            assert_eq!(
                oxidnn_request_get_output_shape(r, i, &mut nd, &mut dims),
                OK
            );
        }
    } else {
        assert_eq!(oxidnn_model_get_input_name(m, i, &mut name), OK);
        assert_eq!(oxidnn_model_get_input_type(m, i, &mut dt), OK);
        assert_eq!(oxidnn_model_get_input_shape(m, i, &mut nd, &mut dims), OK);
    }
    let dims = if nd <= 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(dims, nd as usize).to_vec()
    };
    let name = CStr::from_ptr(name).to_string_lossy().into_owned();
    (name, element_type(dt), dims)
}

unsafe fn load_from_memory(case: &Case) -> oxidnn_model_t {
    let xml = std::fs::read(case.dir.join("model.xml")).unwrap();
    let bin = std::fs::read(case.dir.join("model.bin")).unwrap_or_default();
    let mut m: oxidnn_model_t = ptr::null_mut();
    let st = oxidnn_model_load_from_memory(
        &mut m,
        xml.as_ptr().cast(),
        xml.len(),
        bin.as_ptr(),
        bin.len(),
    );
    assert_eq!(st, OK, "{}: {}", case.name(), last_error());
    m
}

unsafe fn load_from_files(case: &Case) -> oxidnn_model_t {
    let xml = CString::new(case.dir.join("model.xml").to_str().unwrap()).unwrap();
    let mut m: oxidnn_model_t = ptr::null_mut();
    let st = oxidnn_model_load(&mut m, xml.as_ptr(), ptr::null());
    assert_eq!(st, OK, "{}: {}", case.name(), last_error());
    m
}

/// Runs one case through the C API; `user_outputs` selects where outputs go.
unsafe fn run_case(case: &Case, m: oxidnn_model_t, user_outputs: bool) -> Result<(), String> {
    let (mut n_in, mut n_out) = (0, 0);
    assert_eq!(oxidnn_model_get_num_inputs(m, &mut n_in), OK);
    assert_eq!(oxidnn_model_get_num_outputs(m, &mut n_out), OK);
    let mut r: oxidnn_request_t = ptr::null_mut();
    assert_eq!(oxidnn_request_create(&mut r, m), OK);
    let result = run_request(case, m, r, n_in, n_out, user_outputs);
    assert_eq!(oxidnn_request_destroy(r), OK);
    result
}

unsafe fn run_request(
    case: &Case,
    m: oxidnn_model_t,
    r: oxidnn_request_t,
    n_in: c_int,
    n_out: c_int,
    user_outputs: bool,
) -> Result<(), String> {
    // Inputs in Parameter order, matched by name.
    let mut buffers = Vec::new();
    for i in 0..n_in {
        let (name, et, dims) = describe(m, ptr::null_mut(), false, i);
        let file = case
            .inputs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| f)
            .ok_or_else(|| format!("no data for input {name}"))?;
        let t = read_npy_file(file).map_err(|e| e.to_string())?;
        assert_eq!(t.element_type(), et, "input {name} type");
        let shape: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
        if dims.iter().any(|&d| d < 0) || dims.len() != shape.len() {
            let st = oxidnn_request_set_input_shape(r, i, shape.len() as c_int, shape.as_ptr());
            assert_eq!(st, OK, "{}", last_error());
        }
        buffers.push(t.to_le_bytes());
    }
    let in_ptrs: Vec<*const c_void> = buffers.iter().map(|b| b.as_ptr().cast()).collect();
    let in_sizes: Vec<usize> = buffers.iter().map(Vec::len).collect();
    // User output buffers, sized from the declared shapes; none (NULL) for a dynamic one.
    let mut outs: Vec<Option<Vec<u8>>> = Vec::new();
    for i in 0..n_out {
        let (_, et, dims) = describe(m, r, true, i);
        let n: usize = dims.iter().map(|&d| d.max(0) as usize).product();
        let is_static = dims.iter().all(|&d| d >= 0);
        outs.push(is_static.then(|| vec![0u8; n * et.size_bytes()]));
    }
    let out_ptrs: Vec<*mut c_void> = outs
        .iter_mut()
        .map(|b| {
            b.as_mut()
                .map_or(ptr::null_mut(), |b| b.as_mut_ptr().cast())
        })
        .collect();
    let out_sizes: Vec<usize> = outs
        .iter()
        .map(|b| b.as_ref().map_or(0, Vec::len))
        .collect();
    let st = oxidnn_request_execute(
        r,
        n_in,
        in_ptrs.as_ptr(),
        in_sizes.as_ptr(),
        if user_outputs { n_out } else { 0 },
        if user_outputs {
            out_ptrs.as_ptr()
        } else {
            ptr::null()
        },
        out_sizes.as_ptr(),
    );
    if st != OK {
        return Err(format!("execute: {}", last_error()));
    }
    for i in 0..n_out {
        let (name, et, dims) = describe(m, r, true, i);
        let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        let (mut data, mut size) = (ptr::null(), 0usize);
        assert_eq!(
            oxidnn_request_get_output_data(r, i, &mut data, &mut size),
            OK
        );
        let owned = std::slice::from_raw_parts(data.cast::<u8>(), size);
        let got = Tensor::from_le_bytes(et, &shape, owned).map_err(|e| e.to_string())?;
        if let (true, Some(copy)) = (user_outputs, &outs[i as usize]) {
            assert_eq!(copy.as_slice(), owned, "output {name}: user copy differs");
        }
        let file = case
            .outputs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| f)
            .ok_or_else(|| format!("no expected data for output {name}"))?;
        let want = read_npy_file(file).map_err(|e| e.to_string())?;
        compare(&got, &want).map_err(|e| format!("output {name}: {e}"))?;
    }
    Ok(())
}

#[test]
fn every_openvino_case_runs_through_the_c_api() {
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases found", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        unsafe {
            let from_files = load_from_files(case);
            let from_memory = load_from_memory(case);
            for (m, user) in [(from_files, true), (from_memory, false)] {
                if let Err(e) = run_case(case, m, user) {
                    failures.push(format!("{} (user outputs: {user}): {e}", case.name()));
                }
                assert_eq!(oxidnn_model_destroy(m), OK);
            }
        }
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}

#[test]
fn bad_arguments_give_invalid_arguments_with_a_message() {
    unsafe {
        let mut m: oxidnn_model_t = ptr::null_mut();
        let missing = CString::new("/nonexistent/model.xml").unwrap();
        assert_eq!(
            oxidnn_model_load(&mut m, missing.as_ptr(), ptr::null()),
            dnnl_invalid_arguments
        );
        assert!(
            last_error().contains("/nonexistent/model.xml"),
            "{}",
            last_error()
        );
        assert!(m.is_null());
        let bad = b"<net><layers>";
        assert_ne!(
            oxidnn_model_load_from_memory(&mut m, bad.as_ptr().cast(), bad.len(), ptr::null(), 0),
            OK
        );
        assert!(last_error().starts_with("oxidnn_model_load_from_memory"));
        assert_eq!(
            oxidnn_model_load(ptr::null_mut(), missing.as_ptr(), ptr::null()),
            dnnl_invalid_arguments
        );

        let case = cases()
            .into_iter()
            .find(|c| c.name() == "ti_lstm_seed_example")
            .expect("ti_lstm_seed_example");
        let m = load_from_files(&case);
        let mut n = 0;
        assert_eq!(
            oxidnn_model_get_num_inputs(ptr::null(), &mut n),
            dnnl_invalid_arguments
        );
        assert!(
            last_error().contains("oxidnn_model_t is NULL"),
            "{}",
            last_error()
        );
        let mut name = ptr::null();
        assert_eq!(
            oxidnn_model_get_input_name(m, 3, &mut name),
            dnnl_invalid_arguments
        );
        assert!(last_error().contains("out of range"), "{}", last_error());
        assert_eq!(
            oxidnn_model_get_output_name(m, -1, &mut name),
            dnnl_invalid_arguments
        );
        let mut r: oxidnn_request_t = ptr::null_mut();
        assert_eq!(
            oxidnn_request_create(ptr::null_mut(), m),
            dnnl_invalid_arguments
        );
        assert_eq!(
            oxidnn_request_create(&mut r, ptr::null()),
            dnnl_invalid_arguments
        );
        assert_eq!(oxidnn_request_create(&mut r, m), OK);
        let mut data = ptr::null();
        assert_eq!(
            oxidnn_request_get_output_data(r, 0, &mut data, ptr::null_mut()),
            dnnl_invalid_arguments
        );
        assert!(
            last_error().contains("not been executed"),
            "{}",
            last_error()
        );
        assert_eq!(
            oxidnn_request_execute(r, 2, ptr::null(), ptr::null(), 0, ptr::null(), ptr::null()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            oxidnn_request_execute(r, 3, ptr::null(), ptr::null(), 0, ptr::null(), ptr::null()),
            dnnl_invalid_arguments
        );
        let wrong = [1i64, 2];
        assert_eq!(
            oxidnn_request_set_input_shape(r, 1, 2, wrong.as_ptr()),
            dnnl_invalid_arguments
        );
        assert!(last_error().contains("does not fit"), "{}", last_error());
        // The request outlives the model it was made from.
        assert_eq!(oxidnn_model_destroy(m), OK);
        assert_eq!(
            oxidnn_request_get_output_data(r, 5, &mut data, ptr::null_mut()),
            dnnl_invalid_arguments
        );
        assert!(last_error().contains("out of range"), "{}", last_error());
        assert_eq!(oxidnn_request_destroy(r), OK);
        assert_eq!(oxidnn_model_destroy(ptr::null_mut()), OK);
        assert_eq!(oxidnn_request_destroy(ptr::null_mut()), OK);
    }
}

/// `loop5_trip_count_input`: output `all` is [trip, 3] f32. Sized after a run with trip 3 (36
/// bytes), a buffer must not receive the 768 bytes of a run with trip 64: that run fails,
/// naming the output and both sizes, writes nothing, and leaves its outputs readable.
#[test]
fn an_output_buffer_too_small_for_this_execution_is_an_error_not_a_write() {
    let case = cases()
        .into_iter()
        .find(|c| c.name() == "loop5_trip_count_input")
        .expect("loop5_trip_count_input");
    unsafe {
        let m = load_from_files(&case);
        let mut r: oxidnn_request_t = ptr::null_mut();
        assert_eq!(oxidnn_request_create(&mut r, m), OK);
        let x = [1f32, 2.0, 3.0];
        let run = |trip: i64, all: &mut [u8], x_size: usize| {
            let mut last = [0u8; 12];
            let inputs: [*const c_void; 2] = [x.as_ptr().cast(), (&trip as *const i64).cast()];
            let in_sizes = [x_size, 8];
            let outputs: [*mut c_void; 2] = [last.as_mut_ptr().cast(), all.as_mut_ptr().cast()];
            let out_sizes = [last.len(), all.len()];
            oxidnn_request_execute(
                r,
                2,
                inputs.as_ptr(),
                in_sizes.as_ptr(),
                2,
                outputs.as_ptr(),
                out_sizes.as_ptr(),
            )
        };
        let mut all = [0xABu8; 36 + 4];
        assert_eq!(run(3, &mut all[..36], 12), OK, "{}", last_error());
        let (mut nd, mut dims) = (0, ptr::null());
        assert_eq!(
            oxidnn_request_get_output_shape(r, 1, &mut nd, &mut dims),
            OK
        );
        assert_eq!(std::slice::from_raw_parts(dims, nd as usize), [3, 3]);
        assert_eq!(all[36..], [0xAB; 4]);

        all[..36].fill(0xCD);
        assert_eq!(run(64, &mut all[..36], 12), dnnl_invalid_arguments);
        let e = last_error();
        assert!(
            e.contains("output 1 \"all\" of shape [64, 3] needs 768 bytes, output_sizes[1] is 36"),
            "{e}"
        );
        assert!(
            all.iter().take(36).all(|&b| b == 0xCD),
            "the buffer was written"
        );
        assert_eq!(all[36..], [0xAB; 4]);
        // The outputs of that run are still readable from the request.
        assert_eq!(
            oxidnn_request_get_output_shape(r, 1, &mut nd, &mut dims),
            OK
        );
        assert_eq!(std::slice::from_raw_parts(dims, nd as usize), [64, 3]);
        let (mut data, mut size) = (ptr::null(), 0usize);
        assert_eq!(
            oxidnn_request_get_output_data(r, 1, &mut data, &mut size),
            OK
        );
        assert_eq!(size, 768);

        // An input buffer shorter than the input's shape needs.
        assert_eq!(run(3, &mut all[..36], 8), dnnl_invalid_arguments);
        let e = last_error();
        assert!(
            e.contains("input 0 \"X\" of shape [3] needs 12 bytes, input_sizes[0] is 8"),
            "{e}"
        );
        assert_eq!(
            oxidnn_request_get_output_data(r, 1, &mut data, &mut size),
            dnnl_invalid_arguments
        );

        // A trip count of -1 stops at the request's limits.
        assert_eq!(oxidnn_request_set_limits(r, 100, 1 << 30), OK);
        assert_eq!(run(-1, &mut all[..36], 12), dnnl_invalid_arguments);
        assert!(
            last_error().contains("more than 100 iterations"),
            "{}",
            last_error()
        );
        assert_eq!(oxidnn_request_set_limits(r, 1 << 20, 4096), OK);
        assert_eq!(run(-1, &mut all[..36], 12), dnnl_out_of_memory);
        assert!(
            last_error().contains("more than 4096 bytes"),
            "{}",
            last_error()
        );
        assert_eq!(oxidnn_request_destroy(r), OK);
        assert_eq!(oxidnn_model_destroy(m), OK);
    }
}

/// A request serves one thread at a time: while one thread runs a long execution on it (a Loop
/// with trip count -1, stopped by the iteration limit), another thread's call on the same
/// request is refused with an error rather than racing on its state.
#[test]
fn a_request_in_use_by_another_thread_is_refused() {
    let case = cases()
        .into_iter()
        .find(|c| c.name() == "loop5_trip_count_input")
        .expect("loop5_trip_count_input");
    unsafe {
        let m = load_from_files(&case);
        let mut r: oxidnn_request_t = ptr::null_mut();
        assert_eq!(oxidnn_request_create(&mut r, m), OK);
        assert_eq!(oxidnn_request_set_limits(r, 300_000, 1 << 30), OK);
        let shared = r as usize;
        let busy = std::thread::spawn(move || {
            let x = [0f32; 3];
            let trip = -1i64;
            let inputs: [*const c_void; 2] = [x.as_ptr().cast(), (&trip as *const i64).cast()];
            let sizes = [12usize, 8];
            // The main thread's calls may hold the request for an instant: retry until this
            // execution gets it.
            loop {
                let st = oxidnn_request_execute(
                    shared as oxidnn_request_t,
                    2,
                    inputs.as_ptr(),
                    sizes.as_ptr(),
                    0,
                    ptr::null(),
                    ptr::null(),
                );
                let e = last_error();
                if st != dnnl_invalid_arguments || !e.contains("in use by another thread") {
                    return (st, e);
                }
            }
        });
        let mut refused = None;
        while !busy.is_finished() && refused.is_none() {
            let (mut nd, mut dims) = (0, ptr::null());
            if oxidnn_request_get_output_shape(r, 0, &mut nd, &mut dims) != OK {
                refused = Some(last_error());
            }
        }
        let (st, e) = busy.join().unwrap();
        assert_eq!(st, dnnl_invalid_arguments, "{e}");
        assert!(e.contains("more than 300000 iterations"), "{e}");
        let refused = refused.expect("no call was refused while the request ran");
        assert!(refused.contains("in use by another thread"), "{refused}");
        assert_eq!(oxidnn_request_destroy(r), OK);
        assert_eq!(oxidnn_model_destroy(m), OK);
    }
}
