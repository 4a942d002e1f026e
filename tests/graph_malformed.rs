//! The malformed-IR corpus (`tests/ir_malformed/`, made by `tools/ov_cases/make_malformed.py`):
//! every variant must fail to load — with an error, never a panic — and the message must name
//! the layer and the problem (the substrings listed in `expect.tsv`).

use std::path::Path;

use oxidnn::graph::Model;

#[test]
fn every_malformed_ir_gives_a_clear_error() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ir_malformed");
    let expect = std::fs::read_to_string(dir.join("expect.tsv")).expect("expect.tsv");
    let mut failures = Vec::new();
    let mut count = 0;
    for line in expect.lines().filter(|l| !l.is_empty()) {
        let mut fields = line.split('\t');
        let name = fields.next().unwrap();
        let xml = std::fs::read(dir.join(format!("{name}.xml"))).unwrap();
        let bin = std::fs::read(dir.join(format!("{name}.bin"))).unwrap_or_default();
        count += 1;
        let result = std::panic::catch_unwind(|| Model::from_ir(&xml, &bin));
        let message = match result {
            Err(_) => {
                failures.push(format!("{name}: PANICKED"));
                continue;
            }
            Ok(Ok(_)) => {
                failures.push(format!("{name}: loaded without error"));
                continue;
            }
            Ok(Err(e)) => e.to_string(),
        };
        println!("{name}: {message}");
        for want in fields {
            if !message.contains(want) {
                failures.push(format!("{name}: message lacks '{want}': {message}"));
            }
        }
    }
    assert!(count >= 20, "only {count} variants");
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn truncations_and_byte_flips_never_panic() {
    // Every prefix of a valid IR, and every single-byte corruption of its attribute digits,
    // must load or fail cleanly.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ov_cases/ti_lstm_reverse");
    let xml = std::fs::read(dir.join("model.xml")).unwrap();
    let bin = std::fs::read(dir.join("model.bin")).unwrap();
    for cut in (0..xml.len()).step_by(97) {
        let _ = Model::from_ir(&xml[..cut], &bin);
    }
    for cut in (0..bin.len()).step_by(61) {
        let _ = Model::from_ir(&xml, &bin[..cut]);
    }
    for i in (0..xml.len()).filter(|&i| xml[i].is_ascii_digit()) {
        for b in [b'0', b'9', b'-'] {
            let mut x = xml.clone();
            x[i] = b;
            let _ = Model::from_ir(&x, &bin);
        }
    }
}
