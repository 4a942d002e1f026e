//! Fuzzes the OpenVINO IR loader: arbitrary bytes as the XML (and an optional `.bin` after the
//! separator `\xff\xffBIN`, which valid UTF-8 never contains) go through `Model::from_ir` (parse,
//! build, shape inference, constant folding, the fusion pass); a model whose inputs and outputs
//! are all static and small is also run on zeros, within small [`Limits`] (a Loop whose trip
//! count is −1 and whose condition stays true stops at the iteration limit with an error).
//! Errors are fine; a panic (or an abort) is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use oxidnn::graph::{Limits, Model, Tensor};

/// The bounds of an execution: few iterations, little memory.
const LIMITS: Limits = Limits {
    max_iterations: 64,
    max_bytes: 16 << 20,
};

/// Between the XML and the `.bin`.
const SEPARATOR: &[u8] = b"\xff\xffBIN";
/// Largest input or output (elements) of a model that is also executed.
const MAX_ELEMENTS: usize = 1 << 14;

fn split(data: &[u8]) -> (&[u8], &[u8]) {
    match data.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) {
        Some(i) => (&data[..i], &data[i + SEPARATOR.len()..]),
        None => (data, &[]),
    }
}

/// Zeros for every input when all inputs and outputs are static and small.
fn small_inputs(model: &Model) -> Option<Vec<Tensor>> {
    let small = |shape: &oxidnn::graph::shape::PartialShape| {
        shape.to_static().filter(|s| {
            s.iter()
                .try_fold(1usize, |a, &d| a.checked_mul(d))
                .is_some_and(|n| n <= MAX_ELEMENTS)
        })
    };
    if !model.outputs().iter().all(|o| small(&o.shape).is_some()) {
        return None;
    }
    model
        .inputs()
        .iter()
        .map(|i| Some(Tensor::zeros(i.element_type, &small(&i.shape)?)))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let (xml, bin) = split(data);
    if let Ok(model) = Model::from_ir(xml, bin) {
        if let Some(inputs) = small_inputs(&model) {
            let _ = model.infer_with(&inputs, &LIMITS);
        }
    }
});
