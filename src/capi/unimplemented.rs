//! The functions of oneDNN's C API for what this library does not implement: the non-RNN
//! primitives (convolution, matmul, eltwise, ...), post-ops, quantization and other attributes
//! the RNN primitives do not take, sparse and serialized memory descriptors. Each is exported
//! with oneDNN's prototype, so programs built against oneDNN link and run; each returns `dnnl_unimplemented` (or the value noted in its line) and records a
//! last-error text, as a oneDNN build without those primitives would.
//!
//! One line per function. cbindgen cannot expand macros: tests/header.rs reads these lines
//! (`name(params);` or `name(params) -> type = value;`) and declares them in the header.

use super::boundary::{status, value};
use super::types::*;
use crate::error::{Error, Result};
use libc::{c_int, c_uint};

/// The failure every function here reports.
fn unimplemented() -> Result<()> {
    Err(Error::Unimplemented(
        "not implemented: oxidnn implements oneDNN's RNN primitives, reorder and GEMM only".into(),
    ))
}

/// `name(params);` → a function returning `dnnl_unimplemented`; `name(params) -> T = v;` → a
/// function returning `v` (after recording the same error text).
macro_rules! unimplemented_fns {
    ($($name:ident($($p:ident: $t:ty),*);)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: not implemented, returns `dnnl_unimplemented`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name($($p: $t),*) -> dnnl_status_t {
            let _ = ($($p,)*);
            status(stringify!($name), unimplemented)
        }
    )*};
    ($($name:ident($($p:ident: $t:ty),*) -> $ret:ty = $v:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: not implemented, returns `", stringify!($v), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name($($p: $t),*) -> $ret {
            let _ = ($($p,)*);
            value(stringify!($name), $v, || unimplemented().map(|()| $v))
        }
    )*};
}

unimplemented_fns! {
    dnnl_batch_normalization_backward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, diff_src_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, src_desc: const_dnnl_memory_desc_t, epsilon: f32, flags: c_uint, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_batch_normalization_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, epsilon: f32, flags: c_uint, attr: const_dnnl_primitive_attr_t);
    dnnl_binary_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, src0_desc: const_dnnl_memory_desc_t, src1_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_binary_primitive_desc_create_v2(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, src0_desc: const_dnnl_memory_desc_t, src1_desc: const_dnnl_memory_desc_t, src2_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_concat_primitive_desc_create(concat_primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, dst_desc: const_dnnl_memory_desc_t, n: c_int, concat_dimension: c_int, src_descs: *const const_dnnl_memory_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_convolution_backward_data_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, diff_src_desc: const_dnnl_memory_desc_t, weights_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, strides: *const dnnl_dim_t, dilates: *const dnnl_dim_t, padding_l: *const dnnl_dim_t, padding_r: *const dnnl_dim_t, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_convolution_backward_weights_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, src_desc: const_dnnl_memory_desc_t, diff_weights_desc: const_dnnl_memory_desc_t, diff_bias_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, strides: *const dnnl_dim_t, dilates: *const dnnl_dim_t, padding_l: *const dnnl_dim_t, padding_r: *const dnnl_dim_t, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_convolution_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, alg_kind: dnnl_alg_kind_t, src_desc: const_dnnl_memory_desc_t, weights_desc: const_dnnl_memory_desc_t, bias_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, strides: *const dnnl_dim_t, dilates: *const dnnl_dim_t, padding_l: *const dnnl_dim_t, padding_r: *const dnnl_dim_t, attr: const_dnnl_primitive_attr_t);
    dnnl_deconvolution_backward_data_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, diff_src_desc: const_dnnl_memory_desc_t, weights_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, strides: *const dnnl_dim_t, dilates: *const dnnl_dim_t, padding_l: *const dnnl_dim_t, padding_r: *const dnnl_dim_t, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_deconvolution_backward_weights_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, src_desc: const_dnnl_memory_desc_t, diff_weights_desc: const_dnnl_memory_desc_t, diff_bias_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, strides: *const dnnl_dim_t, dilates: *const dnnl_dim_t, padding_l: *const dnnl_dim_t, padding_r: *const dnnl_dim_t, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_deconvolution_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, alg_kind: dnnl_alg_kind_t, src_desc: const_dnnl_memory_desc_t, weights_desc: const_dnnl_memory_desc_t, bias_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, strides: *const dnnl_dim_t, dilates: *const dnnl_dim_t, padding_l: *const dnnl_dim_t, padding_r: *const dnnl_dim_t, attr: const_dnnl_primitive_attr_t);
    dnnl_eltwise_backward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, diff_src_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, data_desc: const_dnnl_memory_desc_t, alpha: f32, beta: f32, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_eltwise_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, alg_kind: dnnl_alg_kind_t, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, alpha: f32, beta: f32, attr: const_dnnl_primitive_attr_t);
    dnnl_group_normalization_backward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, diff_src_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, src_desc: const_dnnl_memory_desc_t, groups: dnnl_dim_t, epsilon: f32, flags: c_uint, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_group_normalization_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, groups: dnnl_dim_t, epsilon: f32, flags: c_uint, attr: const_dnnl_primitive_attr_t);
    dnnl_inner_product_backward_data_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, diff_src_desc: const_dnnl_memory_desc_t, weights_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_inner_product_backward_weights_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, src_desc: const_dnnl_memory_desc_t, diff_weights_desc: const_dnnl_memory_desc_t, diff_bias_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_inner_product_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, src_desc: const_dnnl_memory_desc_t, weights_desc: const_dnnl_memory_desc_t, bias_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_layer_normalization_backward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, diff_src_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, src_desc: const_dnnl_memory_desc_t, stat_desc: const_dnnl_memory_desc_t, epsilon: f32, flags: c_uint, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_layer_normalization_backward_primitive_desc_create_v2(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, diff_src_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, src_desc: const_dnnl_memory_desc_t, stat_desc: const_dnnl_memory_desc_t, diff_scale_shift_data_type: dnnl_data_type_t, scale_shift_data_type: dnnl_data_type_t, epsilon: f32, flags: c_uint, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_layer_normalization_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, stat_desc: const_dnnl_memory_desc_t, epsilon: f32, flags: c_uint, attr: const_dnnl_primitive_attr_t);
    dnnl_layer_normalization_forward_primitive_desc_create_v2(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, stat_desc: const_dnnl_memory_desc_t, scale_shift_data_type: dnnl_data_type_t, epsilon: f32, flags: c_uint, attr: const_dnnl_primitive_attr_t);
    dnnl_lrn_backward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, diff_src_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, src_desc: const_dnnl_memory_desc_t, local_size: dnnl_dim_t, alpha: f32, beta: f32, k: f32, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_lrn_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, alg_kind: dnnl_alg_kind_t, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, local_size: dnnl_dim_t, alpha: f32, beta: f32, k: f32, attr: const_dnnl_primitive_attr_t);
    dnnl_matmul_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, src_desc: const_dnnl_memory_desc_t, weights_desc: const_dnnl_memory_desc_t, bias_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_memory_desc_create_with_blob(memory_desc: *mut dnnl_memory_desc_t, blob: *const u8);
    dnnl_memory_desc_create_with_coo_encoding(memory_desc: *mut dnnl_memory_desc_t, ndims: c_int, dims: *const dnnl_dim_t, data_type: dnnl_data_type_t, nnz: dnnl_dim_t, indices_dt: dnnl_data_type_t);
    dnnl_memory_desc_create_with_csr_encoding(memory_desc: *mut dnnl_memory_desc_t, ndims: c_int, dims: *const dnnl_dim_t, data_type: dnnl_data_type_t, nnz: dnnl_dim_t, indices_dt: dnnl_data_type_t, pointers_dt: dnnl_data_type_t);
    dnnl_memory_desc_create_with_packed_encoding(memory_desc: *mut dnnl_memory_desc_t, ndims: c_int, dims: *const dnnl_dim_t, data_type: dnnl_data_type_t, nnz: dnnl_dim_t);
    dnnl_memory_desc_get_blob(blob: *mut u8, size: *mut usize, memory_desc: const_dnnl_memory_desc_t);
    dnnl_pooling_backward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, diff_src_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, strides: *const dnnl_dim_t, kernel: *const dnnl_dim_t, dilation: *const dnnl_dim_t, padding_l: *const dnnl_dim_t, padding_r: *const dnnl_dim_t, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_pooling_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, alg_kind: dnnl_alg_kind_t, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, strides: *const dnnl_dim_t, kernel: *const dnnl_dim_t, dilation: *const dnnl_dim_t, padding_l: *const dnnl_dim_t, padding_r: *const dnnl_dim_t, attr: const_dnnl_primitive_attr_t);
    dnnl_post_ops_append_binary(post_ops: dnnl_post_ops_t, alg_kind: dnnl_alg_kind_t, src1_desc: const_dnnl_memory_desc_t);
    dnnl_post_ops_append_binary_v2(post_ops: dnnl_post_ops_t, alg_kind: dnnl_alg_kind_t, src1_desc: const_dnnl_memory_desc_t, src2_desc: const_dnnl_memory_desc_t);
    dnnl_post_ops_append_dw(post_ops: dnnl_post_ops_t, weights_data_type: dnnl_data_type_t, bias_data_type: dnnl_data_type_t, dst_data_type: dnnl_data_type_t, kernel_size: dnnl_dim_t, stride_size: dnnl_dim_t, padding_l_size: dnnl_dim_t);
    dnnl_post_ops_append_eltwise(post_ops: dnnl_post_ops_t, alg_kind: dnnl_alg_kind_t, alpha: f32, beta: f32);
    dnnl_post_ops_append_prelu(post_ops: dnnl_post_ops_t, mask: c_int);
    dnnl_post_ops_append_sum(post_ops: dnnl_post_ops_t, scale: f32, zero_point: i32, data_type: dnnl_data_type_t);
    dnnl_post_ops_clone(post_ops: *mut dnnl_post_ops_t, existing_post_ops: const_dnnl_post_ops_t);
    dnnl_post_ops_create(post_ops: *mut dnnl_post_ops_t);
    dnnl_post_ops_destroy(post_ops: dnnl_post_ops_t);
    dnnl_post_ops_get_params_binary(post_ops: const_dnnl_post_ops_t, index: c_int, alg_kind: *mut dnnl_alg_kind_t, src1_desc: *mut const_dnnl_memory_desc_t);
    dnnl_post_ops_get_params_binary_v2(post_ops: const_dnnl_post_ops_t, index: c_int, alg_kind: *mut dnnl_alg_kind_t, src1_desc: *mut const_dnnl_memory_desc_t, src2_desc: *mut const_dnnl_memory_desc_t);
    dnnl_post_ops_get_params_dw(post_ops: const_dnnl_post_ops_t, index: c_int, weights_data_type: *mut dnnl_data_type_t, bias_data_type: *mut dnnl_data_type_t, dst_data_type: *mut dnnl_data_type_t, kernel_size: *mut dnnl_dim_t, stride_size: *mut dnnl_dim_t, padding_l_size: *mut dnnl_dim_t);
    dnnl_post_ops_get_params_eltwise(post_ops: const_dnnl_post_ops_t, index: c_int, alg_kind: *mut dnnl_alg_kind_t, alpha: *mut f32, beta: *mut f32);
    dnnl_post_ops_get_params_prelu(post_ops: const_dnnl_post_ops_t, index: c_int, mask: *mut c_int);
    dnnl_post_ops_get_params_sum(post_ops: const_dnnl_post_ops_t, index: c_int, scale: *mut f32, zero_point: *mut i32, data_type: *mut dnnl_data_type_t);
    dnnl_prelu_backward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, src_desc: const_dnnl_memory_desc_t, weights_desc: const_dnnl_memory_desc_t, diff_src_desc: const_dnnl_memory_desc_t, diff_weights_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_prelu_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, src_desc: const_dnnl_memory_desc_t, weights_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_primitive_attr_get_accumulation_mode(attr: const_dnnl_primitive_attr_t, mode: *mut dnnl_accumulation_mode_t);
    dnnl_primitive_attr_get_dropout(attr: const_dnnl_primitive_attr_t, mask_desc: *mut const_dnnl_memory_desc_t);
    dnnl_primitive_attr_get_dropout_v2(attr: const_dnnl_primitive_attr_t, mask_desc: *mut const_dnnl_memory_desc_t, seed_dt: *mut dnnl_data_type_t, use_offset: *mut c_int, use_host_scalars: *mut c_int);
    dnnl_primitive_attr_get_post_ops(attr: const_dnnl_primitive_attr_t, post_ops: *mut const_dnnl_post_ops_t);
    dnnl_primitive_attr_get_rounding(attr: dnnl_primitive_attr_t, arg: c_int, mode: *mut dnnl_rounding_mode_t);
    dnnl_primitive_attr_set_accumulation_mode(attr: dnnl_primitive_attr_t, mode: dnnl_accumulation_mode_t);
    dnnl_primitive_attr_set_dropout(attr: dnnl_primitive_attr_t, mask_desc: const_dnnl_memory_desc_t);
    dnnl_primitive_attr_set_dropout_v2(attr: dnnl_primitive_attr_t, mask_desc: const_dnnl_memory_desc_t, seed_dt: dnnl_data_type_t, use_offset: c_int, use_host_scalars: c_int);
    dnnl_primitive_attr_set_post_ops(attr: dnnl_primitive_attr_t, post_ops: const_dnnl_post_ops_t);
    dnnl_primitive_attr_set_precomputed_reductions(attr: dnnl_primitive_attr_t, arg: c_int, mask: c_int, group_ndims: c_int, group_dims: *const dnnl_dim_t, data_type: dnnl_data_type_t);
    dnnl_primitive_attr_set_rounding(attr: dnnl_primitive_attr_t, arg: c_int, mode: dnnl_rounding_mode_t);
    dnnl_primitive_attr_set_scales(attr: dnnl_primitive_attr_t, arg: c_int, mask: c_int, group_ndims: c_int, group_dims: *const dnnl_dim_t, data_type: dnnl_data_type_t);
    dnnl_primitive_attr_set_scales_mask(attr: dnnl_primitive_attr_t, arg: c_int, mask: c_int);
    dnnl_primitive_attr_set_scales_v2(attr: dnnl_primitive_attr_t, arg: c_int, mask: c_int, ndims: c_int, group_dims: *const dnnl_dim_t, data_type: dnnl_data_type_t, is_on_host: c_int);
    dnnl_primitive_attr_set_scales_v3(attr: dnnl_primitive_attr_t, arg: c_int, mask: c_int, ndims: c_int, group_dims: *const dnnl_dim_t, data_type: dnnl_data_type_t, is_on_host: c_int, qmode: dnnl_quantization_mode_t);
    dnnl_primitive_attr_set_zero_points(attr: dnnl_primitive_attr_t, arg: c_int, mask: c_int, group_ndims: c_int, group_dims: *const dnnl_dim_t, data_type: dnnl_data_type_t);
    dnnl_primitive_attr_set_zero_points_mask(attr: dnnl_primitive_attr_t, arg: c_int, mask: c_int);
    dnnl_primitive_attr_set_zero_points_v2(attr: dnnl_primitive_attr_t, arg: c_int, mask: c_int, ndims: c_int, group_dims: *const dnnl_dim_t, data_type: dnnl_data_type_t, is_on_host: c_int);
    dnnl_reduction_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, p: f32, eps: f32, attr: const_dnnl_primitive_attr_t);
    dnnl_resampling_backward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, factors: *const f32, diff_src_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_resampling_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, alg_kind: dnnl_alg_kind_t, factors: *const f32, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_shuffle_backward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, diff_src_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, axis: c_int, group_size: dnnl_dim_t, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_shuffle_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, axis: c_int, group_size: dnnl_dim_t, attr: const_dnnl_primitive_attr_t);
    dnnl_softmax_backward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, alg_kind: dnnl_alg_kind_t, diff_src_desc: const_dnnl_memory_desc_t, diff_dst_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, softmax_axis: c_int, hint_fwd_pd: const_dnnl_primitive_desc_t, attr: const_dnnl_primitive_attr_t);
    dnnl_softmax_forward_primitive_desc_create(primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, prop_kind: dnnl_prop_kind_t, alg_kind: dnnl_alg_kind_t, src_desc: const_dnnl_memory_desc_t, dst_desc: const_dnnl_memory_desc_t, softmax_axis: c_int, attr: const_dnnl_primitive_attr_t);
    dnnl_sum_primitive_desc_create(sum_primitive_desc: *mut dnnl_primitive_desc_t, engine: dnnl_engine_t, dst_desc: const_dnnl_memory_desc_t, n: c_int, scales: *const f32, src_descs: *const const_dnnl_memory_desc_t, attr: const_dnnl_primitive_attr_t);
}

unimplemented_fns! {
    dnnl_post_ops_get_kind(post_ops: const_dnnl_post_ops_t, index: c_int) -> dnnl_primitive_kind_t = dnnl_undefined_primitive;
    dnnl_post_ops_len(post_ops: const_dnnl_post_ops_t) -> c_int = -1;
}
