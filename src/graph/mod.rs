//! The graph layer: loads OpenVINO IR (v10 / v11 XML + `.bin`) and runs it.
//!
//! ```no_run
//! use oxidnn::graph::{Model, Tensor};
//! let model = Model::load("model.xml".as_ref(), None)?;
//! let x = Tensor::from_vec(&[2, 3], vec![0f32; 6])?;
//! let outputs = model.infer(&[x])?;
//! for (info, t) in model.outputs().iter().zip(&outputs) {
//!     println!("{} {:?}", info.name, t.shape());
//! }
//! # Ok::<(), oxidnn::Error>(())
//! ```
//!
//! Layout: [`ir`] parses the XML, `build` turns it into a [`Model`] (edges, topological order,
//! ops, shape inference), [`ops`] holds one file per op, `executor` runs the model,
//! [`passes`] rewrites it at load (a TensorIterator over an LSTMCell becomes one LSTM
//! primitive, a MatMul by a constant packs it once).

mod build;
mod executor;
pub mod ir;
pub mod limits;
pub mod model;
pub mod npy;
pub mod ops;
pub mod passes;
pub mod shape;
pub mod tensor;
pub mod weights;

pub use limits::Limits;
pub use model::{IoInfo, Model, Node, PortInfo, ValueRef};
pub use shape::PartialShape;
pub use tensor::{ElementType, Tensor};
