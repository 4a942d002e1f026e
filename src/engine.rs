//! Engines (`dnnl_engine_t`): only the CPU engine exists.

use crate::error::{Error, Result};
use crate::types::EngineKind;

/// A CPU engine. Cheap to copy; all CPU engines are the same device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Engine {
    kind: EngineKind,
}

impl Engine {
    /// Number of engines of a kind: 1 for CPU, 0 otherwise.
    pub fn count(kind: EngineKind) -> usize {
        usize::from(kind == EngineKind::Cpu)
    }

    /// Creates the engine `index` of `kind`; only `(cpu, 0)` exists.
    pub fn new(kind: EngineKind, index: usize) -> Result<Self> {
        if kind != EngineKind::Cpu {
            return Err(Error::InvalidArguments(format!(
                "no {} engine is available",
                kind_name(kind)
            )));
        }
        if index != 0 {
            return Err(Error::InvalidArguments(format!(
                "cpu engine index {index} out of range (1 device)"
            )));
        }
        Ok(Self { kind })
    }

    /// The CPU engine.
    pub fn cpu() -> Self {
        Self {
            kind: EngineKind::Cpu,
        }
    }

    /// The engine's kind.
    pub fn kind(&self) -> EngineKind {
        self.kind
    }
}

fn kind_name(kind: EngineKind) -> &'static str {
    use crate::types::CEnum;
    kind.name()
}
