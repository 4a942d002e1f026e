//! oxidnn: oneDNN's RNN primitives (vanilla RNN, LSTM, GRU, LBR-GRU, AUGRU) in Rust, exported
//! through oneDNN v3's C API.
//!
//! The Rust API below is the core; [`capi`] is a thin `extern "C"` translation of it. See
//! `DESIGN.md` in the repository for the architecture.

pub mod args;
pub mod attr;
pub mod capi;
pub mod engine;
pub mod environment;
pub mod error;
pub mod graph;
pub mod kernels;
pub mod memory;
pub mod primitive;
pub mod rnn;
pub mod size;
pub mod stream;
pub mod threading;
pub mod types;

pub use error::{Error, Result, Status};
