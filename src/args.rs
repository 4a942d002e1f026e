//! Execution argument indices (`DNNL_ARG_*`), with oneDNN's values.

/// `DNNL_ARG_SRC_LAYER` (= `DNNL_ARG_SRC`, `DNNL_ARG_FROM`).
pub const SRC_LAYER: i32 = 1;
/// `DNNL_ARG_SRC_ITER`.
pub const SRC_ITER: i32 = 2;
/// `DNNL_ARG_SRC_ITER_C`.
pub const SRC_ITER_C: i32 = 3;
/// `DNNL_ARG_AUGRU_ATTENTION`.
pub const AUGRU_ATTENTION: i32 = 4;
/// `DNNL_ARG_DST_LAYER` (= `DNNL_ARG_DST`, `DNNL_ARG_TO`).
pub const DST_LAYER: i32 = 17;
/// `DNNL_ARG_DST_ITER`.
pub const DST_ITER: i32 = 18;
/// `DNNL_ARG_DST_ITER_C`.
pub const DST_ITER_C: i32 = 19;
/// `DNNL_ARG_WEIGHTS_LAYER`.
pub const WEIGHTS_LAYER: i32 = 33;
/// `DNNL_ARG_WEIGHTS_ITER`.
pub const WEIGHTS_ITER: i32 = 34;
/// `DNNL_ARG_WEIGHTS_PEEPHOLE`.
pub const WEIGHTS_PEEPHOLE: i32 = 35;
/// `DNNL_ARG_WEIGHTS_PROJECTION`.
pub const WEIGHTS_PROJECTION: i32 = 36;
/// `DNNL_ARG_BIAS`.
pub const BIAS: i32 = 41;
/// `DNNL_ARG_WORKSPACE`.
pub const WORKSPACE: i32 = 64;
/// `DNNL_ARG_SCRATCHPAD`.
pub const SCRATCHPAD: i32 = 80;
/// `OXIDNN_ARG_SEQ_LENGTHS`: an RNN's per-sample sequence lengths, `s32` `{N}` (an `oxidnn_`
/// extension, see [`rnn::seq_lengths`](crate::rnn::seq_lengths)). Bit 30: above every
/// `DNNL_ARG_*` (oneDNN's use bits up to 20, post-op arguments included), so no oneDNN
/// argument can collide with it.
pub const SEQ_LENGTHS: i32 = 1 << 30;
/// Offset of every `DNNL_ARG_DIFF_*` from its forward counterpart.
pub const DIFF: i32 = 128;
/// `DNNL_ARG_FROM` (reorder source).
pub const FROM: i32 = 1;
/// `DNNL_ARG_TO` (reorder destination).
pub const TO: i32 = 17;
