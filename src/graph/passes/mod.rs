//! Graph passes: rewrites of a loaded [`Model`](super::model::Model) before it runs.
//!
//! None exists yet. The planned one replaces a TensorIterator whose body is a single
//! LSTMCell / GRUCell / RNNCell (with the Squeeze / Reshape / Unsqueeze converters put around
//! it) by a node running the RNN primitive over the whole sequence: it finds the node, downcasts
//! its op (`node.op.as_any().downcast_ref::<TensorIterator>()`), inspects `body`, `inputs` and
//! `outputs`, and swaps the op with [`Model::replace_op`](super::model::Model::replace_op).
