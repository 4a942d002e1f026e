//! RNN primitives: problem validation, primitive descriptor, execution and the reference.
//!
//! Flow: [`RnnDesc`] (what the user asked) → [`RnnProblem`] (validated sizes) → [`RnnPd`]
//! (resolved formats, buffer layouts, queries) → [`RnnPrimitive`] (execution: weights and bias
//! preparation, then the [`forward`] driver with the cell post-GEMMs of [`cells`]; backward
//! pds run the [`backward`] driver on the forward training workspace).
//! [`reference`](mod@reference) and [`reference_backward`] are independent plain
//! implementations used as test oracles.

pub mod arena;
pub mod backward;
pub mod cells;
pub mod desc;
pub mod forward;
pub mod int8;
pub mod items;
pub mod pd;
pub mod precision;
pub mod primitive;
pub mod problem;
pub mod reference;
pub mod reference_backward;
pub mod reference_int8;
pub mod schedule;
pub mod scratch;
pub mod seq_lengths;
pub mod staging;
pub mod views;
pub mod weights;
pub mod workspace;

pub use cells::CellKind;
pub use desc::RnnDesc;
pub use pd::RnnPd;
pub use primitive::RnnPrimitive;
pub use problem::RnnProblem;
