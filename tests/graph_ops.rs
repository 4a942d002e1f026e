//! Focused checks of graph semantics that the OpenVINO cases cannot cover (OpenVINO refuses a
//! TensorIterator nested in a TensorIterator and has no Python API for the legacy 5-input
//! LSTMCell of the TensorIterator specification's example 2).

use oxidnn::graph::ops::lstm_cell::LstmCell;
use oxidnn::graph::ops::rnn_common::CellAttrs;
use oxidnn::graph::ops::subgraph::SliceSpec;
use oxidnn::graph::ops::{activation::ActivationKind, Op};
use oxidnn::graph::{Model, Tensor};

fn ramp(shape: &[usize], scale: f32) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_vec(
        shape,
        (0..n)
            .map(|i| ((i * 7 % 11) as f32 - 5.0) * scale)
            .collect(),
    )
    .unwrap()
}

#[test]
fn legacy_lstm_cell_with_concatenated_weights_matches_six_inputs() {
    let (n, input, h) = (2, 3, 4);
    let cell = LstmCell {
        attrs: CellAttrs {
            hidden_size: h,
            activations: vec![
                ActivationKind::Sigmoid,
                ActivationKind::Tanh,
                ActivationKind::Tanh,
            ],
            clip: 0.0,
        },
        input_forget: false,
    };
    let (x, hh, c) = (
        ramp(&[n, input], 0.1),
        ramp(&[n, h], 0.2),
        ramp(&[n, h], 0.3),
    );
    let (w, r, b) = (
        ramp(&[4 * h, input], 0.05),
        ramp(&[4 * h, h], 0.07),
        ramp(&[4 * h], 0.1),
    );
    let six = cell.execute(&[&x, &hh, &c, &w, &r, &b]).unwrap();
    let wa = w.as_f32().unwrap();
    let ra = r.as_f32().unwrap();
    let wr = ndarray::concatenate(ndarray::Axis(1), &[wa.view(), ra.view()]).unwrap();
    let five = cell.execute(&[&x, &hh, &c, &Tensor::F32(wr), &b]).unwrap();
    assert_eq!(six, five);
}

#[test]
fn slice_spec_follows_start_end_stride() {
    let spec = |start, end, stride, part_size| SliceSpec {
        axis: 0,
        start,
        end,
        stride,
        part_size,
    };
    assert_eq!(spec(0, -1, 1, 1).range(5).unwrap(), (0, 5));
    assert_eq!(spec(-1, 0, -1, 1).range(5).unwrap(), (0, 5));
    assert_eq!(spec(2, -1, 1, 1).range(6).unwrap(), (2, 4));
    assert_eq!(spec(0, -1, 2, 2).range(6).unwrap(), (0, 3));
    assert_eq!(spec(-3, -1, 1, 1).range(5).unwrap(), (3, 2));
    assert!(spec(4, 2, 1, 1).range(5).is_err());
    let t = Tensor::from_vec(&[5], vec![0i32, 1, 2, 3, 4]).unwrap();
    let rev = spec(-1, 0, -1, 1);
    let firsts: Vec<i64> = (0..5)
        .map(|i| rev.slice(&t, i).unwrap().to_i64_vec("x").unwrap()[0])
        .collect();
    assert_eq!(firsts, [4, 3, 2, 1, 0]);
}

/// A TensorIterator over the columns of X whose body is itself a TensorIterator (reversed)
/// running Relu; the result is Relu(X).
const NESTED_TI: &str = r#"<?xml version="1.0"?>
<net name="nested" version="11">
 <layers>
  <layer id="0" name="X" type="Parameter" version="opset1">
   <data shape="2,3" element_type="f32"/>
   <output><port id="0" precision="FP32" names="X"><dim>2</dim><dim>3</dim></port></output>
  </layer>
  <layer id="1" name="outer" type="TensorIterator" version="opset1">
   <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
   <output><port id="1" precision="FP32" names="Y"><dim>2</dim><dim>3</dim></port></output>
   <port_map>
    <input axis="1" external_port_id="0" internal_layer_id="0"/>
    <output axis="1" external_port_id="1" internal_layer_id="2"/>
   </port_map>
   <body>
    <layers>
     <layer id="0" name="col" type="Parameter" version="opset1">
      <data shape="2,1" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>2</dim><dim>1</dim></port></output>
     </layer>
     <layer id="1" name="inner" type="TensorIterator" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>1</dim></port></input>
      <output><port id="1" precision="FP32"><dim>2</dim><dim>1</dim></port></output>
      <port_map>
       <input axis="0" external_port_id="0" internal_layer_id="0" start="-1" end="0" stride="-1"/>
       <output axis="0" external_port_id="1" internal_layer_id="2" start="-1" end="0" stride="-1"/>
      </port_map>
      <body>
       <layers>
        <layer id="0" name="cell" type="Parameter" version="opset1">
         <data shape="1,1" element_type="f32"/>
         <output><port id="0" precision="FP32"><dim>1</dim><dim>1</dim></port></output>
        </layer>
        <layer id="1" name="relu" type="Relu" version="opset1">
         <input><port id="0" precision="FP32"><dim>1</dim><dim>1</dim></port></input>
         <output><port id="1" precision="FP32"><dim>1</dim><dim>1</dim></port></output>
        </layer>
        <layer id="2" name="r" type="Result" version="opset1">
         <input><port id="0" precision="FP32"><dim>1</dim><dim>1</dim></port></input>
        </layer>
       </layers>
       <edges>
        <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
        <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
       </edges>
      </body>
     </layer>
     <layer id="2" name="r" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>1</dim></port></input>
     </layer>
    </layers>
    <edges>
     <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
     <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
    </edges>
   </body>
  </layer>
  <layer id="2" name="out" type="Result" version="opset1">
   <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
  </layer>
 </layers>
 <edges>
  <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
  <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
 </edges>
</net>"#;

#[test]
fn tensor_iterator_nested_in_tensor_iterator() {
    let model = Model::from_ir(NESTED_TI.as_bytes(), &[]).unwrap();
    let x = Tensor::from_vec(&[2, 3], vec![-1.0f32, 2.0, -3.0, 4.0, -5.0, 6.0]).unwrap();
    let y = model.infer(&[x]).unwrap();
    assert_eq!(model.outputs()[0].name, "Y");
    assert_eq!(
        y[0],
        Tensor::from_vec(&[2, 3], vec![0.0f32, 2.0, 0.0, 4.0, 0.0, 6.0]).unwrap()
    );
}

#[test]
fn wrong_input_type_or_shape_is_an_error() {
    let model = Model::from_ir(NESTED_TI.as_bytes(), &[]).unwrap();
    let e = model
        .infer(&[Tensor::zeros(oxidnn::graph::ElementType::I32, &[2, 3])])
        .unwrap_err();
    assert!(e.to_string().contains("input 'X' must be f32"), "{e}");
    let e = model
        .infer(&[Tensor::zeros(oxidnn::graph::ElementType::F32, &[3, 3])])
        .unwrap_err();
    assert!(e.to_string().contains("must have shape [2,3]"), "{e}");
    assert!(model.infer(&[]).is_err());
}

/// `loop5_trip_count_input_zero` without its back edge: with zero iterations, the last value of
/// a Result on no back edge is undefined (an error naming the Loop), while a positive trip
/// count still runs (x ← 0.5·x + i with x invariant: the last value is 0.5·x + 1).
#[test]
fn zero_iteration_loop_output_without_back_edge_is_an_error() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ov_cases/loop5_trip_count_input_zero");
    let xml = std::fs::read_to_string(dir.join("model.xml")).unwrap();
    let bin = std::fs::read(dir.join("model.bin")).unwrap();
    let edited = xml.replacen("<edge from-layer=\"10\" to-layer=\"0\" />", "", 1);
    assert_ne!(edited, xml);
    let model = Model::from_ir(edited.as_bytes(), &bin).unwrap();
    let x = Tensor::from_vec(&[3], vec![1.0f32, -2.0, 4.0]).unwrap();
    let e = model
        .infer(&[x.clone(), Tensor::scalar(0i64)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("(Loop)") && e.contains("is on no back edge"),
        "{e}"
    );
    let out = model.infer(&[x, Tensor::scalar(2i64)]).unwrap();
    assert_eq!(
        out[0],
        Tensor::from_vec(&[3], vec![1.5f32, 0.0, 3.0]).unwrap()
    );
    assert_eq!(out[1].shape(), [2, 3]);
}

/// A Loop over constants only, with trip count −1 and a condition that stays true: it would
/// run forever, so loading must not evaluate it (sub-graph ops are never folded at load time).
#[test]
fn a_loop_over_constants_is_not_run_at_load_time() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/graph_support");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let loaded = Model::load(&dir.join("loop_forever.xml"), None);
        let _ = tx.send(loaded.map(|m| m.outputs()[0].name.clone()));
    });
    let name = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("loading did not finish in 60 s: the Loop ran at load time")
        .unwrap();
    assert_eq!(name, "y");
}

/// A Broadcast whose target shape is a model input: the size is only known when the model
/// runs, and an absurd one is an error there, not an abort on allocation.
#[test]
fn a_huge_output_known_only_at_run_time_is_an_error() {
    let xml = br#"<?xml version="1.0"?>
<net name="broadcast_input_shape" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="1" element_type="f32" />
      <output><port id="0" precision="FP32" names="x"><dim>1</dim></port></output>
    </layer>
    <layer id="1" name="shape" type="Parameter" version="opset1">
      <data shape="2" element_type="i64" />
      <output><port id="0" precision="I64" names="shape"><dim>2</dim></port></output>
    </layer>
    <layer id="2" name="bcast" type="Broadcast" version="opset3">
      <data mode="numpy" />
      <input>
        <port id="0" precision="FP32"><dim>1</dim></port>
        <port id="1" precision="I64"><dim>2</dim></port>
      </input>
      <output><port id="2" precision="FP32" names="y"><dim>-1</dim><dim>-1</dim></port></output>
    </layer>
    <layer id="3" name="y" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>-1</dim><dim>-1</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0" />
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1" />
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0" />
  </edges>
</net>"#;
    let model = Model::from_ir(xml, &[]).unwrap();
    let x = Tensor::from_vec(&[1], vec![2.0f32]).unwrap();
    let run =
        |dims: [i64; 2]| model.infer(&[x.clone(), Tensor::from_vec(&[2], dims.to_vec()).unwrap()]);
    let small = run([2, 3]).unwrap();
    assert_eq!(small[0].shape(), &[2, 3]);
    let err = run([1 << 20, 1 << 20]).unwrap_err().to_string();
    assert!(err.contains("bcast") && err.contains("2^32"), "{err}");
}
