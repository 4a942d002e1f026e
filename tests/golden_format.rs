//! Sanity checks of the oneDNN golden files in `tests/goldens/lstm` and of
//! their parser. Deliberately does not use the `oxidnn` crate, so it builds
//! and runs even while the library is being reworked.

#[path = "common/golden.rs"]
mod golden;

use golden::{load_dir, lstm_dir, parse, GoldenCase};

const KNOWN_TENSORS: [&str; 11] = [
    "src_layer",
    "src_iter",
    "src_iter_c",
    "weights_layer",
    "weights_iter",
    "weights_peephole",
    "weights_projection",
    "bias",
    "dst_layer",
    "dst_iter",
    "dst_iter_c",
];

/// The logical dims tensor `name` must have for the case's sizes.
fn expected_shape(c: &GoldenCase, name: &str) -> Vec<i64> {
    let (l, d, t, n) = (c.dim("L"), c.dim("D"), c.dim("T"), c.dim("N"));
    let (slc, sic, dhc, dic, g) = (
        c.dim("SLC"),
        c.dim("SIC"),
        c.dim("DHC"),
        c.dim("DIC"),
        c.dim("G"),
    );
    let dlc = if c.direction == "bidirectional_concat" {
        2 * dic
    } else {
        dic
    };
    match name {
        "src_layer" => vec![t, n, slc],
        "src_iter" => vec![l, d, n, sic],
        "src_iter_c" => vec![l, d, n, dhc],
        "weights_layer" => vec![l, d, slc, g, dhc],
        "weights_iter" => vec![l, d, sic, g, dhc],
        "weights_peephole" => vec![l, d, 3, dhc],
        "weights_projection" => vec![l, d, dhc, dic],
        "bias" => vec![l, d, g, dhc],
        "dst_layer" => vec![t, n, dlc],
        "dst_iter" => vec![l, d, n, dic],
        "dst_iter_c" => vec![l, d, n, dhc],
        _ => unreachable!(),
    }
}

fn check_case(c: &GoldenCase) {
    let who = &c.name;
    assert_eq!(c.cell, "lstm", "{}: cell", who);
    assert_eq!(c.prop, "forward_inference", "{}: prop", who);
    let want_d = match c.direction.as_str() {
        "left2right" | "right2left" => 1,
        "bidirectional_concat" | "bidirectional_sum" => 2,
        other => panic!("{}: unknown direction {}", who, other),
    };
    for key in ["L", "D", "T", "N", "SLC", "SIC", "DHC", "DIC", "G"] {
        assert!(c.dim(key) > 0, "{}: dim {} must be positive", who, key);
    }
    assert_eq!(c.dim("D"), want_d, "{}: D vs direction", who);
    assert_eq!(c.dim("G"), 4, "{}: LSTM has 4 gates", who);
    let projection = c.tensors.contains_key("weights_projection");
    if !projection {
        assert_eq!(
            c.dim("DIC"),
            c.dim("DHC"),
            "{}: DIC == DHC (no projection)",
            who
        );
    }
    assert_eq!(c.dim("SIC"), c.dim("DIC"), "{}: SIC == DIC", who);
    if c.dim("L") > 1 {
        assert_eq!(
            c.dim("SLC"),
            c.dim("DIC"),
            "{}: multi-layer needs SLC == DIC",
            who
        );
    }

    for name in c.tensors.keys() {
        assert!(
            KNOWN_TENSORS.contains(&name.as_str()),
            "{}: unknown tensor {}",
            who,
            name
        );
    }
    for name in [
        "src_layer",
        "weights_layer",
        "weights_iter",
        "bias",
        "dst_layer",
    ] {
        assert!(c.tensors.contains_key(name), "{}: missing {}", who, name);
    }
    assert_eq!(
        c.tensors.contains_key("src_iter"),
        c.tensors.contains_key("src_iter_c"),
        "{}: src_iter and src_iter_c come together",
        who
    );
    assert_eq!(
        c.tensors.contains_key("dst_iter"),
        c.tensors.contains_key("dst_iter_c"),
        "{}: dst_iter and dst_iter_c come together",
        who
    );

    for (name, (dims, values)) in &c.tensors {
        assert_eq!(dims, &expected_shape(c, name), "{}: {} dims", who, name);
        let count: i64 = dims.iter().product();
        assert_eq!(
            count as usize,
            values.len(),
            "{}: {} value count",
            who,
            name
        );
        assert!(
            values.iter().all(|v| v.is_finite()),
            "{}: {} has non-finite values",
            who,
            name
        );
    }

    // LSTM outputs: |h̃| < 1 always; projected, |h| < DHC·max|R| = DHC/2 (scale 1 weights).
    let h_bound = if projection {
        c.dim("DHC") as f32 / 2.0
    } else {
        1.0
    };
    for name in ["dst_layer", "dst_iter"] {
        if let Some(v) = c.values(name) {
            let bound = if name == "dst_layer" && c.direction == "bidirectional_sum" {
                2.0 * h_bound
            } else {
                h_bound
            };
            assert!(
                v.iter().all(|x| x.abs() < bound),
                "{}: {} out of range",
                who,
                name
            );
        }
    }
}

#[test]
fn lstm_goldens_are_well_formed() {
    let dir = lstm_dir();
    let cases = load_dir(&dir);
    assert!(
        cases.len() >= 12,
        "expected >= 12 golden cases in {}, found {}",
        dir.display(),
        cases.len()
    );
    for c in &cases {
        let file = dir.join(format!("{}.txt", c.name));
        assert!(file.is_file(), "{}: file name must be <case>.txt", c.name);
        check_case(c);
    }
    for d in [
        "left2right",
        "right2left",
        "bidirectional_concat",
        "bidirectional_sum",
    ] {
        assert!(
            cases.iter().any(|c| c.direction == d),
            "no golden case for direction {}",
            d
        );
    }
}

const SMALL: &str = "\
# comment
case tiny
cell lstm
prop forward_inference
direction left2right
dims L=1 D=1 T=1 N=1 SLC=1 SIC=1 DHC=1 DIC=1 G=4
tensor src_layer 3 1 1 1
0.5
tensor bias 4 1 1 4 1
0.1 -0.2
0.300000012 4e-3
end
";

#[test]
fn parser_reads_a_small_file() {
    let c = parse(SMALL).expect("parses");
    assert_eq!(c.name, "tiny");
    assert_eq!(c.direction, "left2right");
    assert_eq!(c.dim("G"), 4);
    assert_eq!(c.shape("bias"), Some(&[1i64, 1, 4, 1][..]));
    assert_eq!(c.values("bias"), Some(&[0.1f32, -0.2, 0.3, 0.004][..]));
    assert_eq!(c.values("src_layer"), Some(&[0.5f32][..]));
    assert!(c.values("dst_iter").is_none());
}

#[test]
fn parser_round_trips_9_digit_floats() {
    // "%.9g" of these f32 values must parse back bit-exactly.
    for v in [
        0.1f32,
        1.0 / 3.0,
        -7.654321e-5,
        0.99999994,
        f32::MIN_POSITIVE,
    ] {
        let text = SMALL.replace("0.5\n", &format!("{:.8e}\n", v));
        let c = parse(&text).unwrap();
        assert_eq!(c.values("src_layer").unwrap()[0].to_bits(), v.to_bits());
    }
}

#[test]
fn parser_rejects_malformed_files() {
    let bad = [
        SMALL.replace("end\n", ""),                       // missing end
        SMALL.replace("0.300000012 4e-3\n", "0.3\n"),     // too few values
        SMALL.replace("4e-3\n", "4e-3 5\n"),              // too many values
        SMALL.replace("0.5\n", "x\n"),                    // bad number
        SMALL.replace("cell lstm\n", ""),                 // missing header field
        SMALL.replace("dims L=1", "dims L1"),             // bad dims
        SMALL.replace("tensor bias 4", "tensor bias 3"),  // ndims mismatch
        SMALL.replace("end\n", "end\nextra\n"),           // content after end
        SMALL.replace("tensor bias", "tensor src_layer"), // duplicate tensor
        SMALL.replace("cell lstm\n", "cell lstm\nbogus 1\n"),
    ];
    for (i, text) in bad.iter().enumerate() {
        assert!(parse(text).is_err(), "malformed file #{} was accepted", i);
    }
}
