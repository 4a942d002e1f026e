//! Input values that once killed the host: a Loop whose trip count (−1) comes from an input ran
//! until the allocator aborted, and a Loop slicing an input shorter than its trip count
//! panicked. Both must be errors naming the layer, within the execution's [`Limits`].

use std::path::Path;

use oxidnn::graph::{Limits, Model, Tensor};
use oxidnn::Error;

fn load(path: &str) -> Model {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    Model::load(&dir.join(path), None).unwrap()
}

/// `X` [3] and the trip count; the body adds the iteration number, `all` concatenates every
/// iteration's value ([trip, 3]) and the condition stays true.
fn trip_count_model() -> Model {
    load("ov_cases/loop5_trip_count_input/model.xml")
}

#[test]
fn an_endless_loop_from_an_input_stops_at_the_iteration_limit() {
    let model = trip_count_model();
    let x = Tensor::from_vec(&[3], vec![1f32, 2.0, 3.0]).unwrap();
    let limits = Limits {
        max_iterations: 1000,
        ..Limits::default()
    };
    let e = model
        .infer_with(&[x.clone(), Tensor::scalar(-1i64)], &limits)
        .unwrap_err();
    assert!(matches!(e, Error::InvalidArguments(_)), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("\"Loop_725\" (Loop)") && msg.contains("more than 1000 iterations"),
        "{msg}"
    );
    // Within the limit the same model still runs: 1000 iterations exactly; the body computes
    // v·0.5 + i, so the last value is 2·999 − 2 (the initial value has vanished).
    let out = model
        .infer_with(&[x, Tensor::scalar(1000i64)], &limits)
        .unwrap();
    assert_eq!(out[1].shape(), [1000, 3]);
    assert_eq!(out[0], Tensor::from_vec(&[3], vec![1996f32; 3]).unwrap());
}

#[test]
fn an_endless_loop_from_an_input_stops_at_the_byte_limit() {
    let model = trip_count_model();
    let x = Tensor::from_vec(&[3], vec![0f32; 3]).unwrap();
    let limits = Limits {
        max_bytes: 1 << 20,
        ..Limits::default()
    };
    let e = model
        .infer_with(&[x, Tensor::scalar(-1i64)], &limits)
        .unwrap_err();
    assert!(matches!(e, Error::OutOfMemory(_)), "{e:?}");
    assert!(e.to_string().contains("more than 1048576 bytes"), "{e}");
}

#[test]
fn an_endless_loop_from_an_input_ends_within_the_default_limits() {
    let model = trip_count_model();
    let x = Tensor::from_vec(&[3], vec![0f32; 3]).unwrap();
    let e = model.infer(&[x, Tensor::scalar(-1i64)]).unwrap_err();
    assert!(
        e.to_string().contains(&format!(
            "more than {} iterations",
            Limits::default().max_iterations
        )),
        "{e}"
    );
}

#[test]
fn a_loop_slicing_an_input_shorter_than_its_trip_count_is_an_error() {
    let model = load("graph_support/loop_sliced_input.xml");
    let x = Tensor::from_vec(&[2, 3], vec![-1f32, 2.0, -3.0, 4.0, -5.0, 6.0]).unwrap();
    let out = model.infer(&[x.clone(), Tensor::scalar(2i64)]).unwrap();
    assert_eq!(
        out[0],
        Tensor::from_vec(&[2, 3], vec![0f32, 2.0, 0.0, 4.0, 0.0, 6.0]).unwrap()
    );
    let e = model.infer(&[x, Tensor::scalar(3i64)]).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("layer 3 \"loop\" (Loop)")
            && msg.contains(
                "iteration 2 needs slice 2 of an input of shape [2, 3], which has 2 slices"
            ),
        "{msg}"
    );
}
