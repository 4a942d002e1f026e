//! Corner cases of the element-wise, shape and reduction ops that the OpenVINO cases cannot
//! cover (OpenVINO refuses the input, or its Python API cannot build the attribute): errors
//! instead of panics, empty tensors, f16, pdpd broadcasting from the right, attribute errors
//! naming the layer.

use half::f16;
use oxidnn::graph::ops::auto_broadcast::AutoBroadcast;
use oxidnn::graph::ops::binary::{Binary, BinaryKind};
use oxidnn::graph::ops::reduce::{Reduce, ReduceKind};
use oxidnn::graph::ops::{
    one_hot::OneHot, range::Range, scatter_nd_update::ScatterNdUpdate,
    scatter_update::ScatterUpdate, select::Select, slice::Slice, softmax::Softmax, split::Split,
    strided_slice::StridedSlice, tile::Tile, topk::TopK, transpose::Transpose, unary::Unary,
    unary::UnaryKind, Op,
};
use oxidnn::graph::{ElementType, Model, Tensor};

fn t<T: oxidnn::graph::tensor::Element>(shape: &[usize], v: Vec<T>) -> Tensor {
    Tensor::from_vec(shape, v).unwrap()
}

fn i64s(v: &[i64]) -> Tensor {
    t(&[v.len()], v.to_vec())
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.as_f32().unwrap().iter().copied().collect()
}

fn err(r: oxidnn::error::Result<Vec<Tensor>>) -> String {
    r.expect_err("an error").to_string()
}

#[test]
fn pdpd_axis_minus_one_aligns_from_the_right_after_dropping_trailing_ones() {
    let add = Binary {
        kind: BinaryKind::Add,
        broadcast: AutoBroadcast::Pdpd { axis: -1 },
        python_division: true,
    };
    let a = t(&[2, 3, 2], vec![0f32; 12]);
    // [3, 1]: axis -1 = 3 - 2 = 1, trailing 1 dropped → [1, 3, 1].
    let b = t(&[3, 1], vec![1f32, 2.0, 3.0]);
    let y = add.execute(&[&a, &b]).unwrap().remove(0);
    assert_eq!(y.shape(), &[2, 3, 2]);
    assert_eq!(f32s(&y), [1., 1., 2., 2., 3., 3., 1., 1., 2., 2., 3., 3.]);
    // The second input never grows the output.
    assert!(add.execute(&[&b, &a]).is_err());
}

#[test]
fn select_pdpd_and_type_errors() {
    let s = Select {
        broadcast: AutoBroadcast::Pdpd { axis: 0 },
    };
    let c = t(&[2], vec![true, false]);
    let then = t(&[2, 2], vec![1i64, 2, 3, 4]);
    let els = t(&[2], vec![-1i64, -2]);
    let y = s.execute(&[&c, &then, &els]).unwrap().remove(0);
    assert_eq!(y.to_i64_vec("y").unwrap(), [1, 2, -2, -2]);
    let wrong = t(&[2], vec![1i32, 2]);
    assert!(s.execute(&[&c, &then, &wrong]).is_err());
    assert!(s.execute(&[&then, &then, &then]).is_err());
}

#[test]
fn reductions_without_axes_copy_and_empty_axes_give_identities() {
    let r = |kind| Reduce {
        kind,
        keep_dims: false,
    };
    let x = t(&[2, 2], vec![1f32, -2.0, 3.0, 4.0]);
    let none = Tensor::from_vec(&[0], Vec::<i64>::new()).unwrap();
    let y = r(ReduceKind::Sum).execute(&[&x, &none]).unwrap().remove(0);
    assert_eq!(y, x);
    let e = t(&[0, 3], Vec::<i32>::new());
    let axis0 = i64s(&[0]);
    let out = |kind| r(kind).execute(&[&e, &axis0]).unwrap().remove(0);
    assert_eq!(out(ReduceKind::Prod).to_i64_vec("p").unwrap(), [1, 1, 1]);
    assert_eq!(
        out(ReduceKind::Max).to_i64_vec("m").unwrap(),
        [i32::MIN as i64; 3]
    );
    assert_eq!(out(ReduceKind::Mean).to_i64_vec("m").unwrap(), [0; 3]);
    assert!(r(ReduceKind::Sum).execute(&[&x, &i64s(&[2])]).is_err());
    assert!(r(ReduceKind::LogicalAnd).execute(&[&x, &axis0]).is_err());
}

#[test]
fn shape_ops_refuse_bad_arguments_with_errors() {
    let x = t(&[2, 3], vec![0f32; 6]);
    let bad_order = Transpose.execute(&[&x, &i64s(&[0, 0])]);
    assert!(err(bad_order).contains("not a permutation"));
    let split = Split {
        num_splits: Some(4),
        outputs: 4,
    };
    assert!(err(split.execute(&[&x, &i64s(&[1])])).contains("equal parts"));
    let vsplit = Split {
        num_splits: None,
        outputs: 2,
    };
    let v = vsplit.execute(&[&x, &i64s(&[1]), &i64s(&[1, 1])]);
    assert!(err(v).contains("add up"));
    let s = Slice.execute(&[&x, &i64s(&[0]), &i64s(&[2]), &i64s(&[0])]);
    assert!(err(s).contains("step"));
    let shrink = StridedSlice {
        begin_mask: vec![],
        end_mask: vec![],
        new_axis_mask: vec![],
        shrink_axis_mask: vec![true],
        ellipsis_mask: vec![],
    };
    let ss = shrink.execute(&[&x, &i64s(&[5]), &i64s(&[6]), &i64s(&[1])]);
    assert!(err(ss).contains("out of range"));
    assert!(err(Tile.execute(&[&x, &i64s(&[-1, 1])])).contains("negative"));
    let range = Range { output_type: None };
    let z = Tensor::scalar(0i64);
    assert!(err(range.execute(&[&z, &Tensor::scalar(5i64), &z])).contains("step"));
    let huge = range.execute(&[&z, &Tensor::scalar(i64::MAX), &Tensor::scalar(1i64)]);
    assert!(err(huge).contains("2^32"));
    let topk = TopK {
        axis: 1,
        largest: true,
        by_index: false,
        index_type: ElementType::I32,
    };
    assert!(err(topk.execute(&[&x, &i64s(&[-1])])).contains("negative"));
    let one_hot = OneHot { axis: -1 };
    let idx = i64s(&[0, 1]);
    let (on, off) = (Tensor::scalar(1f32), Tensor::scalar(0f32));
    let oh = one_hot.execute(&[&idx, &Tensor::scalar(-3i64), &on, &off]);
    assert!(err(oh).contains("negative"));
    let upd = t(&[1, 3], vec![1f32; 3]);
    let su = ScatterUpdate.execute(&[&x, &i64s(&[2]), &upd, &Tensor::scalar(0i64)]);
    assert!(err(su).contains("out of range"));
    let nd = ScatterNdUpdate.execute(&[&x, &t(&[1, 3], vec![0i64, 0, 0]), &t(&[1], vec![1f32])]);
    assert!(err(nd).contains("exceed"));
}

#[test]
fn empty_tensors_flow_through() {
    let e = t(&[2, 0, 3], Vec::<f32>::new());
    let sm = Softmax {
        axis: -1,
        log: false,
    };
    assert_eq!(sm.execute(&[&e]).unwrap()[0].shape(), &[2, 0, 3]);
    let tr = Transpose.execute(&[&e, &i64s(&[2, 0, 1])]).unwrap();
    assert_eq!(tr[0].shape(), &[3, 2, 0]);
    let topk = TopK {
        axis: 2,
        largest: false,
        by_index: false,
        index_type: ElementType::I64,
    };
    let out = topk.execute(&[&e, &i64s(&[2])]).unwrap();
    assert_eq!(
        (out[0].shape(), out[1].element_type()),
        (&[2, 0, 2][..], ElementType::I64)
    );
    let tile = Tile.execute(&[&e, &i64s(&[2, 1, 1])]).unwrap();
    assert_eq!(tile[0].shape(), &[4, 0, 3]);
    let sl = Slice
        .execute(&[&e, &i64s(&[1]), &i64s(&[0]), &i64s(&[1]), &i64s(&[2])])
        .unwrap();
    assert_eq!(sl[0].shape(), &[2, 0, 0]);
}

#[test]
fn f16_follows_f32() {
    let xs = [-2.0f32, -0.5, 0.0, 0.75, 3.0];
    let x32 = t(&[5], xs.to_vec());
    let x16 = t(&[5], xs.iter().map(|&v| f16::from_f32(v)).collect());
    let ops: Vec<Box<dyn Op>> = vec![
        Box::new(Softmax { axis: 0, log: true }),
        Box::new(Unary {
            kind: UnaryKind::Gelu { tanh: false },
        }),
        Box::new(Unary {
            kind: UnaryKind::Exp,
        }),
    ];
    for op in ops {
        let a = f32s(&op.execute(&[&x32]).unwrap()[0]);
        let b = op
            .execute(&[&x16])
            .unwrap()
            .remove(0)
            .convert(ElementType::F32);
        for (p, q) in a.iter().zip(f32s(&b)) {
            assert!(
                (p - q).abs() <= 2e-3 * p.abs().max(1.0),
                "{}: {p} vs {q}",
                op.type_name()
            );
        }
    }
}

/// A model of one op between a Parameter `x` (f32, `dims`) and a Result, with `data` attributes.
fn one_op_model(op: &str, version: &str, data: &str, dims: &str) -> Vec<u8> {
    let dim_xml: String = dims.split(',').map(|d| format!("<dim>{d}</dim>")).collect();
    format!(
        r#"<?xml version="1.0"?>
<net name="t" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{dims}" element_type="f32"/>
<output><port id="0" precision="FP32">{dim_xml}</port></output></layer>
<layer id="1" name="op" type="{op}" version="{version}"><data {data}/>
<input><port id="0" precision="FP32">{dim_xml}</port></input>
<output><port id="1" precision="FP32">{dim_xml}</port></output></layer>
<layer id="2" name="y" type="Result" version="opset1">
<input><port id="0" precision="FP32">{dim_xml}</port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges></net>"#
    )
    .into_bytes()
}

#[test]
fn bad_attributes_name_the_layer() {
    for (op, version, data, want) in [
        ("Clamp", "opset1", r#"min="2" max="1""#, "greater than max"),
        ("Clamp", "opset1", r#"min="x" max="1""#, "min"),
        ("SoftMax", "opset1", r#"axis="-1""#, "Softmax-1"),
        ("Round", "opset5", r#"mode="up""#, "mode"),
        (
            "Gelu",
            "opset7",
            r#"approximation_mode="fast""#,
            "approximation_mode",
        ),
        ("Elu", "opset1", "", "alpha"),
    ] {
        let xml = one_op_model(op, version, data, "2,3");
        let m = Model::from_ir(&xml, &[]).expect_err(op).to_string();
        assert!(m.contains("\"op\"") && m.contains(want), "{op} {data}: {m}");
    }
}

#[test]
fn softmax_of_a_one_op_model_matches_the_formula() {
    let xml = one_op_model("SoftMax", "opset8", r#"axis="-1""#, "2,3");
    let model = Model::from_ir(&xml, &[]).unwrap();
    let x = t(&[2, 3], vec![1f32, 2.0, 3.0, 0.0, 0.0, 0.0]);
    let y = f32s(&model.infer(&[x]).unwrap()[0]);
    let s: f32 = [1f32, 2.0, 3.0].iter().map(|v| v.exp()).sum();
    let want = [
        1f32.exp() / s,
        2f32.exp() / s,
        3f32.exp() / s,
        1. / 3.,
        1. / 3.,
        1. / 3.,
    ];
    for (a, b) in y.iter().zip(want) {
        assert!((a - b).abs() < 1e-6);
    }
}
