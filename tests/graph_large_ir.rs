//! Loading a large IR costs time linear in its size: a chain of 20,000 layers loads about 4 times
//! slower than one of 5,000 (4–6 measured), not 16 times (as when every layer's line number
//! rescanned the document: 103 times from 2,500 to 20,000 layers, 88 s for the larger). The
//! bound compares the best of a few runs of each size, so a loaded machine slows both alike.

use std::fmt::Write;
use std::time::{Duration, Instant};

use oxidnn::graph::Model;

/// A Parameter, `n - 2` Relus in a chain, and a Result: `n` layers, `n - 1` edges.
fn chain_ir(n: usize) -> String {
    let port = |id: usize| format!("<port id=\"{id}\" precision=\"FP32\"><dim>2</dim></port>");
    let mut xml =
        String::from("<?xml version=\"1.0\"?>\n<net name=\"chain\" version=\"11\">\n<layers>\n");
    let _ = writeln!(
        xml,
        "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\">\n\
         <data shape=\"2\" element_type=\"f32\"/>\n<output>\n{}\n</output>\n</layer>",
        port(0)
    );
    for i in 1..n - 1 {
        let _ = writeln!(
            xml,
            "<layer id=\"{i}\" name=\"relu{i}\" type=\"Relu\" version=\"opset1\">\n\
             <input>\n{}\n</input>\n<output>\n{}\n</output>\n</layer>",
            port(0),
            port(1)
        );
    }
    let _ = writeln!(
        xml,
        "<layer id=\"{}\" name=\"y\" type=\"Result\" version=\"opset1\">\n<input>\n{}\n</input>\n</layer>",
        n - 1,
        port(0)
    );
    xml.push_str("</layers>\n<edges>\n");
    for i in 1..n {
        let from_port = usize::from(i > 1);
        let _ = writeln!(
            xml,
            "<edge from-layer=\"{}\" from-port=\"{from_port}\" to-layer=\"{i}\" to-port=\"0\"/>",
            i - 1
        );
    }
    xml.push_str("</edges>\n</net>\n");
    xml
}

/// The shortest of `runs` loads of `xml`.
fn best_load_time(xml: &str, runs: usize) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            let model = Model::from_ir(xml.as_bytes(), &[]).expect("the chain loads");
            let elapsed = t.elapsed();
            assert_eq!(model.nodes().len(), xml.matches("<layer ").count());
            elapsed
        })
        .min()
        .unwrap()
}

#[test]
fn loading_time_grows_linearly_with_the_layer_count() {
    let (small, large) = (chain_ir(5_000), chain_ir(20_000));
    let t_small = best_load_time(&small, 3);
    let t_large = best_load_time(&large, 3);
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
    println!("5,000 layers: {t_small:?}; 20,000 layers: {t_large:?}; ratio {ratio:.1}");
    // Linear: 4; quadratic: 16.
    assert!(
        ratio < 10.0,
        "4x the layers took {ratio:.1}x the time ({t_small:?} → {t_large:?})"
    );
}
