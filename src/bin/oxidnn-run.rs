//! `oxidnn-run`: runs an OpenVINO IR model on `.npy` inputs and writes one `.npy` per output.
//!
//! ```text
//! oxidnn-run MODEL.xml [--bin MODEL.bin] --input NAME=FILE.npy ... --output-dir DIR [--bench N] [--no-fuse] [--verbose]
//! ```
//! Each output is written to `DIR/<name>.npy`, `<name>` being the output tensor's first name
//! (the Result layer's name when the producing port has none), with `/` and `\` replaced by
//! `_`. `--bench N` also runs the model N more times and prints the median and minimum time.
//! `--no-fuse` skips the graph passes (a TensorIterator over an LSTM / GRU / RNN cell then runs
//! step by step). `--verbose` prints the load time and, for every RNN node, whether it runs
//! fused onto one RNN primitive (which) or step by step. A model with an op the library does
//! not know fails at load, naming the op's type, opset and layer.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use oxidnn::graph::npy::{read_npy_file, write_npy_file};
use oxidnn::graph::{Model, Tensor};

const USAGE: &str = "usage: oxidnn-run MODEL.xml [--bin MODEL.bin] --input NAME=FILE.npy ... --output-dir DIR [--bench N] [--no-fuse] [--verbose]

  MODEL.xml            OpenVINO IR (v10 or v11)
  --bin MODEL.bin      weights (default: MODEL.bin next to MODEL.xml, if present)
  --input NAME=FILE    a model input (by tensor or Parameter name) from a .npy file; one per input
  --output-dir DIR     where DIR/<output name>.npy files are written (created if missing)
  --bench N            run N more times and print the median and minimum time in ms
  --no-fuse            run every op as the IR spells it (no fusion onto RNN primitives)
  --verbose            print the load time and which RNN nodes run on which RNN primitive";

/// The parsed command line.
#[derive(Debug, Default)]
struct Args {
    model: PathBuf,
    bin: Option<PathBuf>,
    inputs: Vec<(String, PathBuf)>,
    output_dir: PathBuf,
    bench: Option<usize>,
    no_fuse: bool,
    verbose: bool,
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut args = Args::default();
    let mut model = None;
    let mut output_dir = None;
    while let Some(a) = argv.next() {
        let mut value = |flag: &str| argv.next().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--bin" => args.bin = Some(PathBuf::from(value("--bin")?)),
            "--input" => {
                let v = value("--input")?;
                let (name, file) = v
                    .split_once('=')
                    .filter(|(n, f)| !n.is_empty() && !f.is_empty())
                    .ok_or_else(|| format!("--input expects NAME=FILE.npy, got '{v}'"))?;
                args.inputs.push((name.to_string(), PathBuf::from(file)));
            }
            "--no-fuse" => args.no_fuse = true,
            "--verbose" | "-v" => args.verbose = true,
            "--output-dir" => output_dir = Some(PathBuf::from(value("--output-dir")?)),
            "--bench" => {
                let v = value("--bench")?;
                let n = v.parse().ok().filter(|&n: &usize| n > 0);
                args.bench =
                    Some(n.ok_or_else(|| format!("--bench expects a positive count, got '{v}'"))?);
            }
            s if s.starts_with('-') => return Err(format!("unknown option '{s}'")),
            s => {
                if model.replace(PathBuf::from(s)).is_some() {
                    return Err(format!("more than one model given ('{s}')"));
                }
            }
        }
    }
    args.model = model.ok_or("no MODEL.xml given")?;
    args.output_dir = output_dir.ok_or("no --output-dir given")?;
    Ok(args)
}

/// The model inputs in order, read from the files named on the command line.
fn load_inputs(model: &Model, given: &[(String, PathBuf)]) -> Result<Vec<Tensor>, String> {
    let mut inputs: Vec<Option<Tensor>> = vec![None; model.inputs().len()];
    let known = || {
        model
            .inputs()
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (name, file) in given {
        let i = model
            .input_index(name)
            .ok_or_else(|| format!("the model has no input '{name}' (inputs: {})", known()))?;
        if inputs[i].is_some() {
            return Err(format!("input '{name}' is given twice"));
        }
        inputs[i] = Some(read_npy_file(file).map_err(|e| e.to_string())?);
    }
    inputs
        .into_iter()
        .zip(model.inputs())
        .map(|(t, info)| {
            t.ok_or_else(|| {
                format!(
                    "input '{}' ({} {}) is not given",
                    info.name, info.element_type, info.shape
                )
            })
        })
        .collect()
}

fn run(args: &Args) -> Result<(), String> {
    let load = if args.no_fuse {
        Model::load_unfused
    } else {
        Model::load
    };
    let start = Instant::now();
    let model = load(&args.model, args.bin.as_deref()).map_err(|e| e.to_string())?;
    if args.verbose {
        let report = model.rnn_report();
        eprintln!(
            "loaded {} in {:.1} ms: {} of {} RNN nodes fused",
            args.model.display(),
            start.elapsed().as_secs_f64() * 1e3,
            model.fused_node_count(),
            report.len()
        );
        for line in report {
            eprintln!("  {line}");
        }
    }
    let inputs = load_inputs(&model, &args.inputs)?;
    let outputs = model.infer(&inputs).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&args.output_dir)
        .map_err(|e| format!("cannot create {}: {e}", args.output_dir.display()))?;
    for (info, t) in model.outputs().iter().zip(&outputs) {
        let file = args
            .output_dir
            .join(format!("{}.npy", info.name.replace(['/', '\\'], "_")));
        write_npy_file(&file, t).map_err(|e| e.to_string())?;
        println!(
            "{}: {} {:?} -> {}",
            info.name,
            t.element_type(),
            t.shape(),
            file.display()
        );
    }
    if let Some(n) = args.bench {
        let mut ms: Vec<f64> = Vec::with_capacity(n);
        for _ in 0..n {
            let start = Instant::now();
            model.infer(&inputs).map_err(|e| e.to_string())?;
            ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
        ms.sort_by(f64::total_cmp);
        println!(
            "bench: {n} runs, median {:.3} ms, min {:.3} ms",
            ms[n / 2],
            ms[0]
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("oxidnn-run: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("oxidnn-run: {e}");
            ExitCode::FAILURE
        }
    }
}
