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

/// Loads on another thread and gives up after 60 s (a hang is a failure, not a stuck test).
fn load_within_a_minute(xml: &Path, bin: &Path) -> oxidnn::Result<Model> {
    let (xml, bin) = (xml.to_path_buf(), bin.to_path_buf());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(Model::load(&xml, Some(&bin)));
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("loading did not finish in 60 s")
}

#[test]
fn weights_must_be_a_regular_file() {
    let xml = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ov_cases/loop5_trip_count_input/model.xml");
    for device in ["/dev/urandom", "/dev/zero", "/"] {
        let e = load_within_a_minute(&xml, Path::new(device)).unwrap_err();
        assert!(matches!(e, Error::InvalidArguments(_)), "{e:?}");
        assert!(
            e.to_string()
                .contains(&format!("{device} is not a regular file")),
            "{e}"
        );
        let e = load_within_a_minute(Path::new(device), Path::new(device)).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("{device} is not a regular file")),
            "{e}"
        );
    }
}

/// Only the bytes the Consts name are read: a .bin with a large tail loads, and its size (not
/// its readable bytes) bounds every Const.
#[test]
fn weights_are_read_by_range_and_bounded_by_the_file_size() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ov_cases/loop5_trip_count_input");
    let dir = std::env::temp_dir().join(format!("oxidnn_weights_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut bin = std::fs::read(case.join("model.bin")).unwrap();
    bin.resize(bin.len() + (1 << 20), 0xAB);
    let big = dir.join("big.bin");
    std::fs::write(&big, &bin).unwrap();
    let model = load_within_a_minute(&case.join("model.xml"), &big).unwrap();
    let x = Tensor::from_vec(&[3], vec![0f32; 3]).unwrap();
    assert_eq!(
        model.infer(&[x, Tensor::scalar(2i64)]).unwrap()[1].shape(),
        [2, 3]
    );
    let short = dir.join("short.bin");
    std::fs::write(&short, &bin[..9]).unwrap();
    let e = load_within_a_minute(&case.join("model.xml"), &short).unwrap_err();
    assert!(
        e.to_string()
            .contains("beyond the end of the .bin (9 bytes)"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Found by `tests/graph_fuzz.rs` (seed 2): a TensorIterator over an LSTMCell whose sliced
/// input is a rank-2 state ([1, 16]) instead of the [1, 25, 32] sequence made the fusion pass
/// index a third dim that is not there (a panic at load: index out of bounds). It now stays unfused, and running it
/// reports the mismatch.
#[test]
fn a_sequence_input_of_the_wrong_rank_is_not_fused() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ov_cases/ti_lstm_seed_example");
    let xml = std::fs::read_to_string(case.join("model.xml")).unwrap();
    let bin = std::fs::read(case.join("model.bin")).unwrap();
    // The sequence slices C ([1, 16]) instead of X; the outputs' 25 steps become C's 16.
    let swapped: String = xml
        .replace(
            "<input axis=\"1\" external_port_id=\"0\"",
            "<input axis=\"1\" external_port_id=\"2\"",
        )
        .lines()
        .enumerate()
        .map(|(i, l)| match i + 1 {
            63 | 271 => l.replace("<dim>25</dim>", "<dim>16</dim>") + "\n",
            _ => format!("{l}\n"),
        })
        .collect();
    assert_ne!(swapped, xml);
    let result = std::panic::catch_unwind(|| Model::from_ir(swapped.as_bytes(), &bin));
    let loaded = result.expect("loading panicked");
    if let Ok(model) = loaded {
        assert_eq!(model.fused_node_count(), 0);
        let inputs: Vec<Tensor> = model
            .inputs()
            .iter()
            .map(|i| Tensor::zeros(i.element_type, &i.shape.to_static().unwrap()))
            .collect();
        assert!(model.infer(&inputs).is_err());
    }
}
