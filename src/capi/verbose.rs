//! oneDNN-style verbose output: `ONEDNN_VERBOSE` / `OXIDNN_VERBOSE` or `dnnl_set_verbose`.
//! Level 1 prints executions with their time, level 2 adds primitive creation; errors are
//! printed at any level ≥ 1.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

static LEVEL: AtomicI32 = AtomicI32::new(-1);
static ENV_LEVEL: OnceLock<i32> = OnceLock::new();

fn env_level() -> i32 {
    *ENV_LEVEL.get_or_init(|| {
        ["ONEDNN_VERBOSE", "OXIDNN_VERBOSE", "DNNL_VERBOSE"]
            .iter()
            .find_map(|k| std::env::var(k).ok())
            .map(|v| match v.as_str() {
                "all" => 2,
                "error" | "exec" => 1,
                _ => v.parse().unwrap_or(0),
            })
            .unwrap_or(0)
    })
}

/// Current verbose level (set explicitly, else from the environment).
pub fn level() -> i32 {
    match LEVEL.load(Ordering::Relaxed) {
        l if l >= 0 => l,
        _ => env_level(),
    }
}

/// Sets the verbose level (0 off, 1 executions, 2 creation too).
pub fn set_level(level: i32) {
    LEVEL.store(level, Ordering::Relaxed);
}

/// Prints an error line when verbose output is on.
pub fn log_error(msg: &str) {
    if level() >= 1 {
        eprintln!("onednn_verbose,oxidnn,error,{msg}");
    }
}

/// Prints a primitive line (`exec` with time in ms, or `create`).
pub fn log_primitive(what: &str, min_level: i32, info: &str, ms: f64) {
    if level() >= min_level {
        println!("onednn_verbose,oxidnn,primitive,{what},cpu,{info},{ms:.4}");
    }
}

/// Prints a primitive line for a primitive descriptor (`kind,implementation,propagation kind`
/// and, for RNN, the cell and direction) when the level is at least `min_level`.
pub fn log_pd(what: &str, min_level: i32, pd: &crate::primitive::PrimitiveDesc, ms: f64) {
    use crate::types::CEnum;
    if level() < min_level {
        return;
    }
    let prop = pd.prop_kind().map_or("undef", |p| p.name());
    let mut info = format!("{},{},{prop}", pd.kind().name(), pd.impl_info());
    if let crate::primitive::PrimitiveDesc::Rnn(p) = pd {
        let d = p.desc();
        info += &format!(",alg:{} direction:{}", d.cell.name(), d.direction.name());
    }
    log_primitive(what, min_level, &info, ms);
}
