//! The graph C API (`oxidnn_model_*`) on the committed OpenVINO cases (`tests/ov_cases/`):
//! every case loads from files and from memory, its inputs and outputs are described, it runs
//! with user input buffers and both user-provided and library-owned outputs, and the results
//! match the expected `.npy` files (same tolerance as `tests/graph_ov_cases.rs`).

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

/// Name, data type and shape of input (`output == false`) or output `i`.
unsafe fn describe(m: oxidnn_model_t, output: bool, i: c_int) -> (String, ElementType, Vec<i64>) {
    let (mut name, mut dt, mut nd, mut dims): (*const c_char, _, c_int, *const i64) =
        (ptr::null(), 0, 0, ptr::null());
    if output {
        assert_eq!(oxidnn_model_get_output_name(m, i, &mut name), OK);
        assert_eq!(oxidnn_model_get_output_type(m, i, &mut dt), OK);
        assert_eq!(oxidnn_model_get_output_shape(m, i, &mut nd, &mut dims), OK);
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
    // Inputs in Parameter order, matched by name.
    let mut buffers = Vec::new();
    for i in 0..n_in {
        let (name, et, dims) = describe(m, false, i);
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
            let st = oxidnn_model_set_input_shape(m, i, shape.len() as c_int, shape.as_ptr());
            assert_eq!(st, OK, "{}", last_error());
        }
        buffers.push(t.to_le_bytes());
    }
    let in_ptrs: Vec<*const c_void> = buffers.iter().map(|b| b.as_ptr().cast()).collect();
    // User output buffers, sized from the declared shapes; none (NULL) for a dynamic one.
    let mut outs: Vec<Option<Vec<u8>>> = Vec::new();
    for i in 0..n_out {
        let (_, et, dims) = describe(m, true, i);
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
    let st = oxidnn_model_execute(
        m,
        n_in,
        in_ptrs.as_ptr(),
        if user_outputs { n_out } else { 0 },
        if user_outputs {
            out_ptrs.as_ptr()
        } else {
            ptr::null()
        },
    );
    if st != OK {
        return Err(format!("execute: {}", last_error()));
    }
    for i in 0..n_out {
        let (name, et, dims) = describe(m, true, i);
        let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        let (mut data, mut size) = (ptr::null(), 0usize);
        assert_eq!(oxidnn_model_get_output_data(m, i, &mut data, &mut size), OK);
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
        let mut data = ptr::null();
        assert_eq!(
            oxidnn_model_get_output_data(m, 0, &mut data, ptr::null_mut()),
            dnnl_invalid_arguments
        );
        assert!(
            last_error().contains("not been executed"),
            "{}",
            last_error()
        );
        assert_eq!(
            oxidnn_model_execute(m, 2, ptr::null(), 0, ptr::null()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            oxidnn_model_execute(m, 3, ptr::null(), 0, ptr::null()),
            dnnl_invalid_arguments
        );
        let wrong = [1i64, 2];
        assert_eq!(
            oxidnn_model_set_input_shape(m, 1, 2, wrong.as_ptr()),
            dnnl_invalid_arguments
        );
        assert!(last_error().contains("does not fit"), "{}", last_error());
        assert_eq!(oxidnn_model_destroy(m), OK);
        assert_eq!(oxidnn_model_destroy(ptr::null_mut()), OK);
    }
}
