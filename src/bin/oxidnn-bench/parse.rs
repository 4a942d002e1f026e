//! Reads benchdnn input: the command line and batch files as one token stream (SYNTAX.md §1).
//! Options are sticky, `--reset` restores the driver defaults, `--batch=FILE` inlines a file
//! (found next to the including file, then in the inputs directory), and every descriptor is
//! expanded into its cases at once, so a file is fully checked before anything runs.

use crate::case::{expand, Case};
use crate::descriptor::Descriptor;
use crate::options::Settings;
use std::path::{Path, PathBuf};

/// What the driver does with each case (`--mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Correctness: run and compare against the reference.
    Correctness,
    /// Performance: time the primitive.
    Performance,
    /// Both.
    Both,
    /// List the cases without running them.
    List,
}

/// Options of this program that `--reset` does not touch.
#[derive(Clone, Debug)]
pub struct Global {
    /// `--mode=C|P|CP|L`.
    pub mode: Mode,
    /// `--fix-times-per-prb=N`: timed executions per case in performance mode.
    pub times: usize,
    /// `--inputs-dir=DIR`: where `--batch` files are looked up last.
    pub inputs_dir: PathBuf,
    /// `--inject-error=X` (hidden, for tests): added to the library's first dst_layer value
    /// before comparing, to show that the comparison can fail.
    pub inject_error: f32,
}

/// The default inputs directory: `$OXIDNN_BENCH_INPUTS`, else the shared folder next to this
/// repository (`../shared/conformance/benchdnn-rnn`), else `/work/shared/...`.
fn default_inputs_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("OXIDNN_BENCH_INPUTS") {
        return dir.into();
    }
    let beside_repo =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/benchdnn-rnn");
    if beside_repo.is_dir() {
        beside_repo
    } else {
        "/work/shared/conformance/benchdnn-rnn".into()
    }
}

impl Default for Global {
    fn default() -> Self {
        Self {
            mode: Mode::Correctness,
            times: 10,
            inputs_dir: default_inputs_dir(),
            inject_error: 0.0,
        }
    }
}

/// Everything read from the input: global options and the cases in order.
#[derive(Debug, Default)]
pub struct Input {
    /// Global options.
    pub global: Global,
    /// Driver options in effect (sticky).
    settings: Settings,
    /// The cases, in the order they were read.
    pub cases: Vec<Case>,
    /// Nesting depth of `--batch`, to stop include cycles.
    depth: usize,
}

/// Global options benchdnn accepts that do not change what this driver does.
const IGNORED_GLOBALS: [&str; 3] = ["allow-enum-tags-only", "cpu-isa-hints", "engine"];

impl Input {
    /// Reads command-line arguments (each one a token).
    pub fn from_args(args: &[String]) -> Result<Self, String> {
        let mut input = Self::default();
        let cwd = PathBuf::from(".");
        for (i, a) in args.iter().enumerate() {
            input
                .token(a, &cwd)
                .map_err(|e| format!("argument {}: {e}", i + 1))?;
        }
        Ok(input)
    }

    /// Handles one token; `dir` is where relative batch files are looked up first.
    fn token(&mut self, tok: &str, dir: &Path) -> Result<(), String> {
        let Some(opt) = tok.strip_prefix("--") else {
            let desc = Descriptor::parse(tok)?;
            self.cases.extend(expand(&self.settings, &desc));
            return Ok(());
        };
        let (name, value) = opt.split_once('=').unwrap_or((opt, ""));
        match name {
            "reset" => self.settings = Settings::default(),
            "rnn" => {}
            "batch" => self.batch(value, dir)?,
            "mode" => {
                self.global.mode = match value {
                    "C" | "c" => Mode::Correctness,
                    "P" | "p" => Mode::Performance,
                    "CP" | "PC" | "cp" | "pc" => Mode::Both,
                    "L" | "l" => Mode::List,
                    _ => return Err(format!("unknown mode '{value}' (C, P, CP or L)")),
                }
            }
            "fix-times-per-prb" => {
                self.global.times = match value.parse() {
                    Ok(n) if n > 0 => n,
                    _ => return Err("--fix-times-per-prb needs a positive integer".into()),
                }
            }
            "inputs-dir" => self.global.inputs_dir = value.into(),
            "inject-error" => {
                self.global.inject_error = value
                    .parse()
                    .map_err(|_| format!("--inject-error needs a number, got '{value}'"))?
            }
            _ if IGNORED_GLOBALS.contains(&name) => {}
            _ => {
                if !self.settings.apply(name, value)? {
                    return Err(format!("unknown option '--{name}'"));
                }
            }
        }
        Ok(())
    }

    /// `--batch=FILE`: next to the including file, else in the inputs directory.
    fn batch(&mut self, file: &str, dir: &Path) -> Result<(), String> {
        if file.is_empty() {
            return Err("--batch needs a file name".into());
        }
        let path = [dir.join(file), self.global.inputs_dir.join(file)]
            .into_iter()
            .find(|p| p.is_file())
            .ok_or_else(|| {
                format!(
                    "batch file '{file}' not found in {} or {}",
                    dir.display(),
                    self.global.inputs_dir.display()
                )
            })?;
        if self.depth >= 32 {
            return Err(format!("--batch nesting too deep at '{}'", path.display()));
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        let parent = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        self.depth += 1;
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("");
            for tok in line.split_whitespace() {
                self.token(tok, &parent)
                    .map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
            }
        }
        self.depth -= 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{Alg, Dir, Prop};

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::write(dir.join(name), text).unwrap();
    }

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("oxidnn-bench-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn read(args: &[&str]) -> Result<Input, String> {
        Input::from_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn sticky_options_reset_and_nested_batches() {
        let dir = temp_dir("sticky");
        write(
            &dir,
            "shapes",
            "# shapes\nl1t2mb3sic4 # first\n\nsic8_n\"second\"\n",
        );
        write(
            &dir,
            "top",
            "--reset --alg=VANILLA_LSTM\n--direction=left2right,sum\n--batch=shapes\n\
             --prop=FWD_D --batch=shapes\n--reset\nsic5\n",
        );
        let top = dir.join("top");
        let input = read(&["--alg=VANILLA_GRU", &format!("--batch={}", top.display())]).unwrap();
        let c = &input.cases;
        // 2 directions × 2 shapes, twice (the second time training), then one default case.
        assert_eq!(c.len(), 9);
        assert!(c[..8].iter().all(|c| c.alg == Alg::VanillaLstm));
        assert_eq!(
            (c[0].direction, c[1].direction),
            (Dir::Left2Right, Dir::Sum)
        );
        assert_eq!((c[0].dims.t, c[2].dims.name.as_str()), (2, "second"));
        assert!(c[..4].iter().all(|c| c.prop == Prop::FwdI));
        assert!(c[4..8].iter().all(|c| c.prop == Prop::FwdD));
        assert_eq!(
            (c[8].alg, c[8].prop, c[8].dims.sic),
            (Alg::VanillaRnn, Prop::FwdI, 5)
        );
    }

    #[test]
    fn errors_name_file_and_line() {
        let dir = temp_dir("errors");
        write(&dir, "bad", "--reset\n\nsic4 --no-such=1\n");
        write(&dir, "inc", "--batch=bad\n");
        let e = read(&[&format!("--batch={}", dir.join("inc").display())]).unwrap_err();
        assert!(e.contains("bad:3: unknown option '--no-such'"), "{e}");
        let e = read(&["--direction=up"]).unwrap_err();
        assert!(e.contains("argument 1: unknown direction 'up'"), "{e}");
        assert!(read(&["--batch=does-not-exist"]).is_err());
        assert!(read(&["l1t1"]).is_err());
    }
}
