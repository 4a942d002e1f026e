//! RNN primitives: problem validation, primitive descriptor, execution and the reference.

pub mod desc;
pub mod pd;

pub use desc::RnnDesc;
pub use pd::{RnnPd, RnnPrimitive};
