//! Shared by the graph tests: the OpenVINO cases of `tests/ov_cases/` and output comparison.

use std::path::{Path, PathBuf};

use oxidnn::graph::npy::read_npy_file;
use oxidnn::graph::tensor::Scalar;
use oxidnn::graph::{Model, Tensor};

/// One `tests/ov_cases/<case>/` directory, as listed by its `case.txt`.
pub struct Case {
    /// The case directory.
    pub dir: PathBuf,
    /// `(input name, .npy file)` pairs.
    pub inputs: Vec<(String, PathBuf)>,
    /// `(output name, expected .npy file)` pairs.
    pub outputs: Vec<(String, PathBuf)>,
    /// `openvino` or `spec`: where the expected outputs come from.
    pub source: String,
    /// How the model was made (`made`, corpus cases only).
    pub made: String,
    /// How many sequence ops the passes fuse (`fused`, corpus cases only).
    pub fused: Option<usize>,
}

impl Case {
    /// The case's directory name.
    pub fn name(&self) -> String {
        self.dir.file_name().unwrap().to_string_lossy().to_string()
    }
}

fn read_case(dir: &Path) -> Case {
    let text = std::fs::read_to_string(dir.join("case.txt")).expect("case.txt");
    let mut case = Case {
        dir: dir.to_path_buf(),
        inputs: vec![],
        outputs: vec![],
        source: String::new(),
        made: String::new(),
        fused: None,
    };
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            ["input", name, file] => case.inputs.push((name.to_string(), dir.join(file))),
            ["output", name, file] => case.outputs.push((name.to_string(), dir.join(file))),
            ["source", s] => case.source = s.to_string(),
            ["made", s] => case.made = s.to_string(),
            ["fused", n] => case.fused = n.parse().ok(),
            _ => {}
        }
    }
    case
}

/// Every case of `tests/ov_cases/`, sorted by name.
#[allow(dead_code)] // graph_ov_corpus reads another directory
pub fn cases() -> Vec<Case> {
    cases_in("tests/ov_cases")
}

/// Every case of `dir` (relative to the repository root), sorted by name.
pub fn cases_in(dir: &str) -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect(dir)
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.txt").exists())
        .collect();
    dirs.sort();
    dirs.iter().map(|d| read_case(d)).collect()
}

/// Compares one output: exact for integers and booleans, `|got − want| ≤ 1e-5 · max(1, |want|)`
/// for floats; `Err` describes the first mismatch.
pub fn compare(got: &Tensor, want: &Tensor) -> Result<(), String> {
    if got.element_type() != want.element_type() {
        return Err(format!(
            "type {} vs expected {}",
            got.element_type(),
            want.element_type()
        ));
    }
    if got.shape() != want.shape() {
        return Err(format!(
            "shape {:?} vs expected {:?}",
            got.shape(),
            want.shape()
        ));
    }
    for (i, (g, w)) in got.scalars().into_iter().zip(want.scalars()).enumerate() {
        let ok = match (g, w) {
            (Scalar::Float(g), Scalar::Float(w)) => (g - w).abs() <= 1e-5 * w.abs().max(1.0),
            (g, w) => g == w,
        };
        if !ok {
            return Err(format!("element {i}: {g:?} vs expected {w:?}"));
        }
    }
    Ok(())
}

/// Runs `model` on `case`'s inputs (by name) and compares every output the case lists with
/// [`compare`]; the outputs.
#[allow(dead_code)] // graph_ov_cases and graph_ov_corpus run cases
pub fn run_case_on(model: &Model, case: &Case) -> Result<Vec<Tensor>, String> {
    let mut inputs: Vec<Option<Tensor>> = vec![None; model.inputs().len()];
    for (name, file) in &case.inputs {
        let i = model
            .input_index(name)
            .ok_or_else(|| format!("no input named {name}"))?;
        inputs[i] = Some(read_npy_file(file).map_err(|e| e.to_string())?);
    }
    let inputs: Vec<Tensor> = inputs
        .into_iter()
        .enumerate()
        .map(|(i, t)| t.ok_or_else(|| format!("input {} not given", model.inputs()[i].name)))
        .collect::<Result<_, _>>()?;
    let outputs = model.infer(&inputs).map_err(|e| format!("infer: {e}"))?;
    for (name, file) in &case.outputs {
        let i = model
            .output_index(name)
            .ok_or_else(|| format!("no output named {name}"))?;
        let want = read_npy_file(file).map_err(|e| e.to_string())?;
        compare(&outputs[i], &want).map_err(|e| format!("output {name}: {e}"))?;
    }
    Ok(outputs)
}
