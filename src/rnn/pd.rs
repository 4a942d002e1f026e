//! STUB — replaced by the RNN implementation.
use super::desc::RnnDesc;
use crate::attr::Attr;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::memory::MemoryDesc;
use crate::primitive::{ExecArgs, MdQuery};

/// An RNN primitive descriptor.
#[derive(Clone, Debug)]
pub struct RnnPd {
    engine: Engine,
    desc: RnnDesc,
    attr: Attr,
}

impl RnnPd {
    /// Validates the descriptor and resolves formats.
    pub fn new(engine: Engine, desc: RnnDesc, attr: &Attr, _hint: Option<&RnnPd>) -> Result<Self> {
        let _ = (engine, desc, attr);
        Err(Error::Unimplemented("rnn".into()))
    }
    /// Engine.
    pub fn engine(&self) -> Engine { self.engine }
    /// Op descriptor.
    pub fn desc(&self) -> &RnnDesc { &self.desc }
    /// Attributes.
    pub fn attr(&self) -> &Attr { &self.attr }
    /// Resolved descriptor of an argument.
    pub fn arg_md(&self, _arg: i32) -> Option<&MemoryDesc> { None }
    /// Argument behind a generic query.
    pub fn arg_for_query(&self, _q: MdQuery, _index: usize) -> Option<i32> { None }
    /// Inputs.
    pub fn num_inputs(&self) -> usize { 0 }
    /// Outputs.
    pub fn num_outputs(&self) -> usize { 0 }
    /// Implementation name.
    pub fn impl_info(&self) -> &str { "stub" }
    /// Memory kept by the primitive.
    pub fn memory_consumption(&self) -> usize { 0 }
}

/// An RNN primitive.
pub struct RnnPrimitive;

impl RnnPrimitive {
    /// Creates it.
    pub fn new(_pd: &RnnPd) -> Result<Self> { Ok(Self) }
    /// Runs it.
    pub fn execute(&self, _pd: &RnnPd, _args: &ExecArgs) -> Result<()> { Err(Error::Unimplemented("rnn".into())) }
}
