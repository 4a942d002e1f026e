//! The C-visible types and constants of oneDNN's v3 API, with oneDNN's names and values.
//!
//! Enumerations are `int` typedefs plus one constant per value (not Rust enums), so any
//! integer a C caller passes is a valid Rust value; the core validates it. cbindgen turns this
//! file into the types part of `include/oxidnn.h`.
#![allow(non_camel_case_types, non_upper_case_globals)]

use crate::capi::handle::Castable;
use libc::{c_char, c_int, c_uint};

macro_rules! opaque {
    ($(#[$m:meta])* $c:ident, $t:ident, $ct:ident => $rust:ty) => {
        $(#[$m])*
        pub struct $c {
            _private: [u8; 0],
        }
        impl Castable for $c {
            type Rust = $rust;
            const NAME: &'static str = stringify!($t);
        }
        #[doc = concat!("Handle to a `", stringify!($c), "`.")]
        pub type $t = *mut $c;
        #[doc = concat!("Read-only handle to a `", stringify!($c), "`.")]
        pub type $ct = *const $c;
    };
}

opaque!(
    /// A CPU engine.
    dnnl_engine, dnnl_engine_t, const_dnnl_engine_t => crate::engine::Engine);
opaque!(
    /// An execution stream.
    dnnl_stream, dnnl_stream_t, const_dnnl_stream_t => super::objects::CStream);
opaque!(
    /// A memory descriptor.
    dnnl_memory_desc, dnnl_memory_desc_t, const_dnnl_memory_desc_t => crate::memory::MemoryDesc);
opaque!(
    /// A memory object.
    dnnl_memory, dnnl_memory_t, const_dnnl_memory_t => super::objects::CMemory);
opaque!(
    /// Primitive attributes.
    dnnl_primitive_attr, dnnl_primitive_attr_t, const_dnnl_primitive_attr_t => crate::attr::Attr);
opaque!(
    /// A primitive descriptor.
    dnnl_primitive_desc, dnnl_primitive_desc_t, const_dnnl_primitive_desc_t => super::objects::CPrimitiveDesc);
opaque!(
    /// A primitive.
    dnnl_primitive, dnnl_primitive_t, const_dnnl_primitive_t => super::objects::CPrimitive);
opaque!(
    /// A loaded OpenVINO IR model (`oxidnn_model_*`).
    oxidnn_model, oxidnn_model_t, const_oxidnn_model_t => super::graph::CModel);
opaque!(
    /// The state of executions of a model: input shapes, limits, last outputs
    /// (`oxidnn_request_*`).
    oxidnn_request, oxidnn_request_t, const_oxidnn_request_t => super::graph::CRequest);

/// A dimension size.
pub type dnnl_dim_t = i64;
/// Maximum number of dimensions of a tensor.
pub const DNNL_MAX_NDIMS: usize = 12;
/// A dims array (`DNNL_MAX_NDIMS` dimensions).
pub type dnnl_dims_t = [dnnl_dim_t; DNNL_MAX_NDIMS];
/// A dimension known only at execution time (not supported: gives `dnnl_unimplemented`).
pub const DNNL_RUNTIME_DIM_VAL: dnnl_dim_t = i64::MIN;

/// One execution argument: an argument index and the memory bound to it.
#[repr(C)]
pub struct dnnl_exec_arg_t {
    /// `DNNL_ARG_*` index.
    pub arg: c_int,
    /// The memory (may be an empty memory).
    pub memory: dnnl_memory_t,
}

/// Library version.
#[repr(C)]
pub struct dnnl_version_t {
    /// Major version.
    pub major: c_int,
    /// Minor version.
    pub minor: c_int,
    /// Patch version.
    pub patch: c_int,
    /// Build hash.
    pub hash: *const c_char,
    /// CPU threading runtime (`DNNL_RUNTIME_*`).
    pub cpu_runtime: c_uint,
    /// GPU runtime (`DNNL_RUNTIME_NONE`).
    pub gpu_runtime: c_uint,
}

/// Status of a call.
pub type dnnl_status_t = c_int;
/// `dnnl_success`.
pub const dnnl_success: dnnl_status_t = 0;
/// `dnnl_out_of_memory`.
pub const dnnl_out_of_memory: dnnl_status_t = 1;
/// `dnnl_invalid_arguments`.
pub const dnnl_invalid_arguments: dnnl_status_t = 2;
/// `dnnl_unimplemented`.
pub const dnnl_unimplemented: dnnl_status_t = 3;
/// `dnnl_last_impl_reached`.
pub const dnnl_last_impl_reached: dnnl_status_t = 4;
/// `dnnl_runtime_error`.
pub const dnnl_runtime_error: dnnl_status_t = 5;
/// `dnnl_not_required`.
pub const dnnl_not_required: dnnl_status_t = 6;
/// `dnnl_invalid_graph`.
pub const dnnl_invalid_graph: dnnl_status_t = 7;
/// `dnnl_invalid_graph_op`.
pub const dnnl_invalid_graph_op: dnnl_status_t = 8;
/// `dnnl_invalid_shape`.
pub const dnnl_invalid_shape: dnnl_status_t = 9;
/// `dnnl_invalid_data_type`.
pub const dnnl_invalid_data_type: dnnl_status_t = 10;

/// Element data type.
pub type dnnl_data_type_t = c_int;
/// `dnnl_data_type_undef`.
pub const dnnl_data_type_undef: dnnl_data_type_t = 0;
/// `dnnl_f16`.
pub const dnnl_f16: dnnl_data_type_t = 1;
/// `dnnl_bf16`.
pub const dnnl_bf16: dnnl_data_type_t = 2;
/// `dnnl_f32`.
pub const dnnl_f32: dnnl_data_type_t = 3;
/// `dnnl_s32`.
pub const dnnl_s32: dnnl_data_type_t = 4;
/// `dnnl_s8`.
pub const dnnl_s8: dnnl_data_type_t = 5;
/// `dnnl_u8`.
pub const dnnl_u8: dnnl_data_type_t = 6;
/// `dnnl_f64`.
pub const dnnl_f64: dnnl_data_type_t = 7;
/// `dnnl_boolean`.
pub const dnnl_boolean: dnnl_data_type_t = 8;
/// 64-bit signed integer, which oneDNN has no data type for: reported by the
/// `oxidnn_model_get_*_type` functions for `i64` tensors.
pub const oxidnn_s64: dnnl_data_type_t = 0x7000_0001;

/// Engine kind.
pub type dnnl_engine_kind_t = c_int;
/// `dnnl_any_engine`.
pub const dnnl_any_engine: dnnl_engine_kind_t = 0;
/// `dnnl_cpu`.
pub const dnnl_cpu: dnnl_engine_kind_t = 1;
/// `dnnl_gpu`.
pub const dnnl_gpu: dnnl_engine_kind_t = 2;

/// Memory format kind.
pub type dnnl_format_kind_t = c_int;
/// `dnnl_format_kind_undef`.
pub const dnnl_format_kind_undef: dnnl_format_kind_t = 0;
/// `dnnl_format_kind_any`.
pub const dnnl_format_kind_any: dnnl_format_kind_t = 1;
/// `dnnl_blocked`.
pub const dnnl_blocked: dnnl_format_kind_t = 2;
/// `dnnl_format_kind_opaque`.
pub const dnnl_format_kind_opaque: dnnl_format_kind_t = 3;

/// Memory format tag.
pub type dnnl_format_tag_t = c_int;
/// `dnnl_format_tag_undef`.
pub const dnnl_format_tag_undef: dnnl_format_tag_t = 0;
/// `dnnl_format_tag_any`: let the primitive choose.
pub const dnnl_format_tag_any: dnnl_format_tag_t = 1;
/// `dnnl_a`.
pub const dnnl_a: dnnl_format_tag_t = 2;
/// `dnnl_ab`.
pub const dnnl_ab: dnnl_format_tag_t = 3;
/// `dnnl_abc`.
pub const dnnl_abc: dnnl_format_tag_t = 4;
/// `dnnl_abcd`.
pub const dnnl_abcd: dnnl_format_tag_t = 5;
/// `dnnl_abcde`.
pub const dnnl_abcde: dnnl_format_tag_t = 6;
/// `dnnl_abcdef`.
pub const dnnl_abcdef: dnnl_format_tag_t = 7;
/// `dnnl_ba`.
pub const dnnl_ba: dnnl_format_tag_t = 14;
/// `dnnl_acb`.
pub const dnnl_acb: dnnl_format_tag_t = 15;
/// `dnnl_bac`.
pub const dnnl_bac: dnnl_format_tag_t = 16;
/// `dnnl_bca`.
pub const dnnl_bca: dnnl_format_tag_t = 17;
/// `dnnl_cab`.
pub const dnnl_cab: dnnl_format_tag_t = 18;
/// `dnnl_cba`.
pub const dnnl_cba: dnnl_format_tag_t = 19;
/// `dnnl_abdc`.
pub const dnnl_abdc: dnnl_format_tag_t = 20;
/// `dnnl_acbd`.
pub const dnnl_acbd: dnnl_format_tag_t = 21;
/// `dnnl_acdb`.
pub const dnnl_acdb: dnnl_format_tag_t = 22;
/// `dnnl_adbc`.
pub const dnnl_adbc: dnnl_format_tag_t = 23;
/// `dnnl_adcb`.
pub const dnnl_adcb: dnnl_format_tag_t = 24;
/// `dnnl_bacd`.
pub const dnnl_bacd: dnnl_format_tag_t = 25;
/// `dnnl_bcda`.
pub const dnnl_bcda: dnnl_format_tag_t = 26;
/// `dnnl_cdab`.
pub const dnnl_cdab: dnnl_format_tag_t = 27;
/// `dnnl_cdba`.
pub const dnnl_cdba: dnnl_format_tag_t = 28;
/// `dnnl_dcab`.
pub const dnnl_dcab: dnnl_format_tag_t = 29;
/// `dnnl_abced`.
pub const dnnl_abced: dnnl_format_tag_t = 30;
/// `dnnl_abdec`.
pub const dnnl_abdec: dnnl_format_tag_t = 31;
/// `dnnl_acbde`.
pub const dnnl_acbde: dnnl_format_tag_t = 32;
/// `dnnl_acdeb`.
pub const dnnl_acdeb: dnnl_format_tag_t = 33;
/// `dnnl_adecb`.
pub const dnnl_adecb: dnnl_format_tag_t = 34;
/// `dnnl_bacde`.
pub const dnnl_bacde: dnnl_format_tag_t = 35;
/// `dnnl_bcdea`.
pub const dnnl_bcdea: dnnl_format_tag_t = 36;
/// `dnnl_cdeab`.
pub const dnnl_cdeab: dnnl_format_tag_t = 37;
/// `dnnl_cdeba`.
pub const dnnl_cdeba: dnnl_format_tag_t = 38;
/// `dnnl_decab`.
pub const dnnl_decab: dnnl_format_tag_t = 39;
/// `dnnl_abcdfe`.
pub const dnnl_abcdfe: dnnl_format_tag_t = 40;
/// `dnnl_abdefc`.
pub const dnnl_abdefc: dnnl_format_tag_t = 41;
/// `dnnl_abdfce`.
pub const dnnl_abdfce: dnnl_format_tag_t = 42;
/// `dnnl_acbdef`.
pub const dnnl_acbdef: dnnl_format_tag_t = 43;
/// `dnnl_adefcb`.
pub const dnnl_adefcb: dnnl_format_tag_t = 44;
/// `dnnl_defcab`.
pub const dnnl_defcab: dnnl_format_tag_t = 45;
/// `dnnl_x` (alias of a plain tag).
pub const dnnl_x: dnnl_format_tag_t = 2;
/// `dnnl_nc` (alias of a plain tag).
pub const dnnl_nc: dnnl_format_tag_t = 3;
/// `dnnl_cn` (alias of a plain tag).
pub const dnnl_cn: dnnl_format_tag_t = 14;
/// `dnnl_tn` (alias of a plain tag).
pub const dnnl_tn: dnnl_format_tag_t = 3;
/// `dnnl_nt` (alias of a plain tag).
pub const dnnl_nt: dnnl_format_tag_t = 14;
/// `dnnl_tnc` (alias of a plain tag).
pub const dnnl_tnc: dnnl_format_tag_t = 4;
/// `dnnl_ntc` (alias of a plain tag).
pub const dnnl_ntc: dnnl_format_tag_t = 16;
/// `dnnl_ldnc` (alias of a plain tag).
pub const dnnl_ldnc: dnnl_format_tag_t = 5;
/// `dnnl_ldigo` (alias of a plain tag).
pub const dnnl_ldigo: dnnl_format_tag_t = 6;
/// `dnnl_ldgoi` (alias of a plain tag).
pub const dnnl_ldgoi: dnnl_format_tag_t = 31;
/// `dnnl_ldio` (alias of a plain tag).
pub const dnnl_ldio: dnnl_format_tag_t = 5;
/// `dnnl_ldoi` (alias of a plain tag).
pub const dnnl_ldoi: dnnl_format_tag_t = 20;
/// `dnnl_ldgo` (alias of a plain tag).
pub const dnnl_ldgo: dnnl_format_tag_t = 5;

/// Propagation kind.
pub type dnnl_prop_kind_t = c_int;
/// `dnnl_prop_kind_undef`.
pub const dnnl_prop_kind_undef: dnnl_prop_kind_t = 0;
/// `dnnl_forward_training`.
pub const dnnl_forward_training: dnnl_prop_kind_t = 64;
/// `dnnl_forward_inference`.
pub const dnnl_forward_inference: dnnl_prop_kind_t = 96;
/// `dnnl_forward`.
pub const dnnl_forward: dnnl_prop_kind_t = 64;
/// `dnnl_backward`.
pub const dnnl_backward: dnnl_prop_kind_t = 128;
/// `dnnl_backward_data`.
pub const dnnl_backward_data: dnnl_prop_kind_t = 160;
/// `dnnl_backward_weights`.
pub const dnnl_backward_weights: dnnl_prop_kind_t = 192;
/// `dnnl_backward_bias`.
pub const dnnl_backward_bias: dnnl_prop_kind_t = 193;

/// Primitive kind.
pub type dnnl_primitive_kind_t = c_int;
/// `dnnl_undefined_primitive`.
pub const dnnl_undefined_primitive: dnnl_primitive_kind_t = 0;
/// `dnnl_reorder`.
pub const dnnl_reorder: dnnl_primitive_kind_t = 1;
/// `dnnl_rnn`.
pub const dnnl_rnn: dnnl_primitive_kind_t = 11;

/// Algorithm kind.
pub type dnnl_alg_kind_t = c_int;
/// `dnnl_alg_kind_undef`.
pub const dnnl_alg_kind_undef: dnnl_alg_kind_t = 0;
/// `dnnl_eltwise_relu`.
pub const dnnl_eltwise_relu: dnnl_alg_kind_t = 32;
/// `dnnl_eltwise_tanh`.
pub const dnnl_eltwise_tanh: dnnl_alg_kind_t = 33;
/// `dnnl_eltwise_logistic`.
pub const dnnl_eltwise_logistic: dnnl_alg_kind_t = 41;
/// `dnnl_vanilla_rnn`.
pub const dnnl_vanilla_rnn: dnnl_alg_kind_t = 8191;
/// `dnnl_vanilla_lstm`.
pub const dnnl_vanilla_lstm: dnnl_alg_kind_t = 12287;
/// `dnnl_vanilla_gru`.
pub const dnnl_vanilla_gru: dnnl_alg_kind_t = 16383;
/// `dnnl_lbr_gru`.
pub const dnnl_lbr_gru: dnnl_alg_kind_t = 20479;
/// `dnnl_vanilla_augru`.
pub const dnnl_vanilla_augru: dnnl_alg_kind_t = 24575;
/// `dnnl_lbr_augru`.
pub const dnnl_lbr_augru: dnnl_alg_kind_t = 28671;

/// RNN direction.
pub type dnnl_rnn_direction_t = c_int;
/// `dnnl_unidirectional_left2right`.
pub const dnnl_unidirectional_left2right: dnnl_rnn_direction_t = 1;
/// `dnnl_unidirectional_right2left`.
pub const dnnl_unidirectional_right2left: dnnl_rnn_direction_t = 2;
/// `dnnl_bidirectional_concat`.
pub const dnnl_bidirectional_concat: dnnl_rnn_direction_t = 3;
/// `dnnl_bidirectional_sum`.
pub const dnnl_bidirectional_sum: dnnl_rnn_direction_t = 4;
/// `dnnl_rnn_direction_undef`.
pub const dnnl_rnn_direction_undef: dnnl_rnn_direction_t = 0;

/// RNN flags.
pub type dnnl_rnn_flags_t = c_int;
/// `dnnl_rnn_flags_undef`.
pub const dnnl_rnn_flags_undef: dnnl_rnn_flags_t = 0;
/// `dnnl_rnn_flags_diff_weights_overwrite`.
pub const dnnl_rnn_flags_diff_weights_overwrite: dnnl_rnn_flags_t = 1;

/// What a query asks for.
pub type dnnl_query_t = c_int;
/// `dnnl_query_undef`.
pub const dnnl_query_undef: dnnl_query_t = 0;
/// `dnnl_query_engine`.
pub const dnnl_query_engine: dnnl_query_t = 1;
/// `dnnl_query_primitive_kind`.
pub const dnnl_query_primitive_kind: dnnl_query_t = 2;
/// `dnnl_query_num_of_inputs_s32`.
pub const dnnl_query_num_of_inputs_s32: dnnl_query_t = 3;
/// `dnnl_query_num_of_outputs_s32`.
pub const dnnl_query_num_of_outputs_s32: dnnl_query_t = 4;
/// `dnnl_query_time_estimate_f64`.
pub const dnnl_query_time_estimate_f64: dnnl_query_t = 5;
/// `dnnl_query_memory_consumption_s64`.
pub const dnnl_query_memory_consumption_s64: dnnl_query_t = 6;
/// `dnnl_query_scratchpad_engine`.
pub const dnnl_query_scratchpad_engine: dnnl_query_t = 7;
/// `dnnl_query_impl_info_str`.
pub const dnnl_query_impl_info_str: dnnl_query_t = 8;
/// `dnnl_query_reorder_src_engine`.
pub const dnnl_query_reorder_src_engine: dnnl_query_t = 9;
/// `dnnl_query_reorder_dst_engine`.
pub const dnnl_query_reorder_dst_engine: dnnl_query_t = 10;
/// `dnnl_query_prop_kind`.
pub const dnnl_query_prop_kind: dnnl_query_t = 11;
/// `dnnl_query_cache_blob_id_size_s64`.
pub const dnnl_query_cache_blob_id_size_s64: dnnl_query_t = 12;
/// `dnnl_query_cache_blob_id`.
pub const dnnl_query_cache_blob_id: dnnl_query_t = 13;
/// `dnnl_query_strides`.
pub const dnnl_query_strides: dnnl_query_t = 14;
/// `dnnl_query_dilations`.
pub const dnnl_query_dilations: dnnl_query_t = 15;
/// `dnnl_query_padding_l`.
pub const dnnl_query_padding_l: dnnl_query_t = 16;
/// `dnnl_query_padding_r`.
pub const dnnl_query_padding_r: dnnl_query_t = 17;
/// `dnnl_query_epsilon_f32`.
pub const dnnl_query_epsilon_f32: dnnl_query_t = 18;
/// `dnnl_query_flags`.
pub const dnnl_query_flags: dnnl_query_t = 19;
/// `dnnl_query_alg_kind`.
pub const dnnl_query_alg_kind: dnnl_query_t = 20;
/// `dnnl_query_alpha_f32`.
pub const dnnl_query_alpha_f32: dnnl_query_t = 21;
/// `dnnl_query_beta_f32`.
pub const dnnl_query_beta_f32: dnnl_query_t = 22;
/// `dnnl_query_axis_s32`.
pub const dnnl_query_axis_s32: dnnl_query_t = 23;
/// `dnnl_query_local_size_s64`.
pub const dnnl_query_local_size_s64: dnnl_query_t = 24;
/// `dnnl_query_k_f32`.
pub const dnnl_query_k_f32: dnnl_query_t = 25;
/// `dnnl_query_p_f32`.
pub const dnnl_query_p_f32: dnnl_query_t = 26;
/// `dnnl_query_factors`.
pub const dnnl_query_factors: dnnl_query_t = 27;
/// `dnnl_query_cell_kind`.
pub const dnnl_query_cell_kind: dnnl_query_t = 28;
/// `dnnl_query_direction`.
pub const dnnl_query_direction: dnnl_query_t = 29;
/// `dnnl_query_activation_kind`.
pub const dnnl_query_activation_kind: dnnl_query_t = 30;
/// `dnnl_query_kernel`.
pub const dnnl_query_kernel: dnnl_query_t = 31;
/// `dnnl_query_group_size_s64`.
pub const dnnl_query_group_size_s64: dnnl_query_t = 32;
/// `dnnl_query_some_md`.
pub const dnnl_query_some_md: dnnl_query_t = 128;
/// `dnnl_query_src_md`.
pub const dnnl_query_src_md: dnnl_query_t = 129;
/// `dnnl_query_diff_src_md`.
pub const dnnl_query_diff_src_md: dnnl_query_t = 130;
/// `dnnl_query_weights_md`.
pub const dnnl_query_weights_md: dnnl_query_t = 131;
/// `dnnl_query_diff_weights_md`.
pub const dnnl_query_diff_weights_md: dnnl_query_t = 132;
/// `dnnl_query_dst_md`.
pub const dnnl_query_dst_md: dnnl_query_t = 133;
/// `dnnl_query_diff_dst_md`.
pub const dnnl_query_diff_dst_md: dnnl_query_t = 134;
/// `dnnl_query_workspace_md`.
pub const dnnl_query_workspace_md: dnnl_query_t = 135;
/// `dnnl_query_scratchpad_md`.
pub const dnnl_query_scratchpad_md: dnnl_query_t = 136;
/// `dnnl_query_exec_arg_md`.
pub const dnnl_query_exec_arg_md: dnnl_query_t = 255;
/// `dnnl_query_ndims_s32`.
pub const dnnl_query_ndims_s32: dnnl_query_t = 256;
/// `dnnl_query_dims`.
pub const dnnl_query_dims: dnnl_query_t = 257;
/// `dnnl_query_data_type`.
pub const dnnl_query_data_type: dnnl_query_t = 258;
/// `dnnl_query_submemory_offset_s64`.
pub const dnnl_query_submemory_offset_s64: dnnl_query_t = 259;
/// `dnnl_query_padded_dims`.
pub const dnnl_query_padded_dims: dnnl_query_t = 260;
/// `dnnl_query_padded_offsets`.
pub const dnnl_query_padded_offsets: dnnl_query_t = 261;
/// `dnnl_query_format_kind`.
pub const dnnl_query_format_kind: dnnl_query_t = 262;
/// `dnnl_query_inner_nblks_s32`.
pub const dnnl_query_inner_nblks_s32: dnnl_query_t = 263;
/// `dnnl_query_inner_blks`.
pub const dnnl_query_inner_blks: dnnl_query_t = 264;
/// `dnnl_query_inner_idxs`.
pub const dnnl_query_inner_idxs: dnnl_query_t = 265;
/// `dnnl_query_num_handles_s32`.
pub const dnnl_query_num_handles_s32: dnnl_query_t = 268;

/// Scratchpad ownership.
pub type dnnl_scratchpad_mode_t = c_int;
/// `dnnl_scratchpad_mode_library`.
pub const dnnl_scratchpad_mode_library: dnnl_scratchpad_mode_t = 0;
/// `dnnl_scratchpad_mode_user`.
pub const dnnl_scratchpad_mode_user: dnnl_scratchpad_mode_t = 1;

/// Floating-point math mode.
pub type dnnl_fpmath_mode_t = c_int;
/// `dnnl_fpmath_mode_strict`.
pub const dnnl_fpmath_mode_strict: dnnl_fpmath_mode_t = 0;
/// `dnnl_fpmath_mode_bf16`.
pub const dnnl_fpmath_mode_bf16: dnnl_fpmath_mode_t = 1;
/// `dnnl_fpmath_mode_f16`.
pub const dnnl_fpmath_mode_f16: dnnl_fpmath_mode_t = 2;
/// `dnnl_fpmath_mode_any`.
pub const dnnl_fpmath_mode_any: dnnl_fpmath_mode_t = 3;
/// `dnnl_fpmath_mode_tf32`.
pub const dnnl_fpmath_mode_tf32: dnnl_fpmath_mode_t = 4;

/// Stream flags.
pub type dnnl_stream_flags_t = c_uint;
/// `dnnl_stream_in_order`.
pub const dnnl_stream_in_order: dnnl_stream_flags_t = 1;
/// `dnnl_stream_out_of_order`.
pub const dnnl_stream_out_of_order: dnnl_stream_flags_t = 2;
/// `dnnl_stream_default_flags`.
pub const dnnl_stream_default_flags: dnnl_stream_flags_t = 1;

/// Threading runtime values of `dnnl_version_t`.
/// `DNNL_RUNTIME_NONE`.
pub const DNNL_RUNTIME_NONE: c_uint = 0;
/// `DNNL_RUNTIME_SEQ`.
pub const DNNL_RUNTIME_SEQ: c_uint = 1;
/// `DNNL_RUNTIME_OMP`.
pub const DNNL_RUNTIME_OMP: c_uint = 2;
/// `DNNL_RUNTIME_TBB`.
pub const DNNL_RUNTIME_TBB: c_uint = 4;
/// `DNNL_RUNTIME_THREADPOOL`.
pub const DNNL_RUNTIME_THREADPOOL: c_uint = 8;
/// `DNNL_RUNTIME_OCL`.
pub const DNNL_RUNTIME_OCL: c_uint = 256;
/// `DNNL_RUNTIME_SYCL`.
pub const DNNL_RUNTIME_SYCL: c_uint = 512;

// Execution argument indices.
/// `DNNL_ARG_SRC_0`.
pub const DNNL_ARG_SRC_0: c_int = 1;
/// `DNNL_ARG_SRC`.
pub const DNNL_ARG_SRC: c_int = 1;
/// `DNNL_ARG_SRC_LAYER`.
pub const DNNL_ARG_SRC_LAYER: c_int = 1;
/// `DNNL_ARG_FROM`.
pub const DNNL_ARG_FROM: c_int = 1;
/// `DNNL_ARG_SRC_1`.
pub const DNNL_ARG_SRC_1: c_int = 2;
/// `DNNL_ARG_SRC_ITER`.
pub const DNNL_ARG_SRC_ITER: c_int = 2;
/// `DNNL_ARG_SRC_2`.
pub const DNNL_ARG_SRC_2: c_int = 3;
/// `DNNL_ARG_SRC_ITER_C`.
pub const DNNL_ARG_SRC_ITER_C: c_int = 3;
/// `DNNL_ARG_SRC_3`.
pub const DNNL_ARG_SRC_3: c_int = 4;
/// `DNNL_ARG_AUGRU_ATTENTION`.
pub const DNNL_ARG_AUGRU_ATTENTION: c_int = 4;
/// `DNNL_ARG_DST_0`.
pub const DNNL_ARG_DST_0: c_int = 17;
/// `DNNL_ARG_DST`.
pub const DNNL_ARG_DST: c_int = 17;
/// `DNNL_ARG_TO`.
pub const DNNL_ARG_TO: c_int = 17;
/// `DNNL_ARG_DST_LAYER`.
pub const DNNL_ARG_DST_LAYER: c_int = 17;
/// `DNNL_ARG_DST_1`.
pub const DNNL_ARG_DST_1: c_int = 18;
/// `DNNL_ARG_DST_ITER`.
pub const DNNL_ARG_DST_ITER: c_int = 18;
/// `DNNL_ARG_DST_2`.
pub const DNNL_ARG_DST_2: c_int = 19;
/// `DNNL_ARG_DST_ITER_C`.
pub const DNNL_ARG_DST_ITER_C: c_int = 19;
/// `DNNL_ARG_WEIGHTS_0`.
pub const DNNL_ARG_WEIGHTS_0: c_int = 33;
/// `DNNL_ARG_WEIGHTS`.
pub const DNNL_ARG_WEIGHTS: c_int = 33;
/// `DNNL_ARG_WEIGHTS_LAYER`.
pub const DNNL_ARG_WEIGHTS_LAYER: c_int = 33;
/// `DNNL_ARG_WEIGHTS_1`.
pub const DNNL_ARG_WEIGHTS_1: c_int = 34;
/// `DNNL_ARG_WEIGHTS_ITER`.
pub const DNNL_ARG_WEIGHTS_ITER: c_int = 34;
/// `DNNL_ARG_WEIGHTS_2`.
pub const DNNL_ARG_WEIGHTS_2: c_int = 35;
/// `DNNL_ARG_WEIGHTS_PEEPHOLE`.
pub const DNNL_ARG_WEIGHTS_PEEPHOLE: c_int = 35;
/// `DNNL_ARG_WEIGHTS_3`.
pub const DNNL_ARG_WEIGHTS_3: c_int = 36;
/// `DNNL_ARG_WEIGHTS_PROJECTION`.
pub const DNNL_ARG_WEIGHTS_PROJECTION: c_int = 36;
/// `DNNL_ARG_BIAS`.
pub const DNNL_ARG_BIAS: c_int = 41;
/// `DNNL_ARG_WORKSPACE`.
pub const DNNL_ARG_WORKSPACE: c_int = 64;
/// `DNNL_ARG_SCRATCHPAD`.
pub const DNNL_ARG_SCRATCHPAD: c_int = 80;
/// oxidnn extension: an RNN's per-sample sequence lengths (`s32`, dims `{N}`), see
/// `oxidnn_primitive_attr_set_rnn_seq_lengths`. Bit 30, above every `DNNL_ARG_*` (oneDNN's
/// indices use bits up to 20, post-op arguments included), so it never collides with one.
pub const OXIDNN_ARG_SEQ_LENGTHS: c_int = 0x4000_0000;
/// `DNNL_ARG_DIFF_SRC_0`.
pub const DNNL_ARG_DIFF_SRC_0: c_int = 129;
/// `DNNL_ARG_DIFF_SRC`.
pub const DNNL_ARG_DIFF_SRC: c_int = 129;
/// `DNNL_ARG_DIFF_SRC_LAYER`.
pub const DNNL_ARG_DIFF_SRC_LAYER: c_int = 129;
/// `DNNL_ARG_DIFF_SRC_1`.
pub const DNNL_ARG_DIFF_SRC_1: c_int = 130;
/// `DNNL_ARG_DIFF_SRC_ITER`.
pub const DNNL_ARG_DIFF_SRC_ITER: c_int = 130;
/// `DNNL_ARG_DIFF_SRC_2`.
pub const DNNL_ARG_DIFF_SRC_2: c_int = 131;
/// `DNNL_ARG_DIFF_SRC_ITER_C`.
pub const DNNL_ARG_DIFF_SRC_ITER_C: c_int = 131;
/// `DNNL_ARG_DIFF_SRC_3`.
pub const DNNL_ARG_DIFF_SRC_3: c_int = 132;
/// `DNNL_ARG_DIFF_AUGRU_ATTENTION`.
pub const DNNL_ARG_DIFF_AUGRU_ATTENTION: c_int = 132;
/// `DNNL_ARG_DIFF_DST_0`.
pub const DNNL_ARG_DIFF_DST_0: c_int = 145;
/// `DNNL_ARG_DIFF_DST`.
pub const DNNL_ARG_DIFF_DST: c_int = 145;
/// `DNNL_ARG_DIFF_DST_LAYER`.
pub const DNNL_ARG_DIFF_DST_LAYER: c_int = 145;
/// `DNNL_ARG_DIFF_DST_1`.
pub const DNNL_ARG_DIFF_DST_1: c_int = 146;
/// `DNNL_ARG_DIFF_DST_ITER`.
pub const DNNL_ARG_DIFF_DST_ITER: c_int = 146;
/// `DNNL_ARG_DIFF_DST_2`.
pub const DNNL_ARG_DIFF_DST_2: c_int = 147;
/// `DNNL_ARG_DIFF_DST_ITER_C`.
pub const DNNL_ARG_DIFF_DST_ITER_C: c_int = 147;
/// `DNNL_ARG_DIFF_WEIGHTS_0`.
pub const DNNL_ARG_DIFF_WEIGHTS_0: c_int = 161;
/// `DNNL_ARG_DIFF_WEIGHTS`.
pub const DNNL_ARG_DIFF_WEIGHTS: c_int = 161;
/// `DNNL_ARG_DIFF_WEIGHTS_LAYER`.
pub const DNNL_ARG_DIFF_WEIGHTS_LAYER: c_int = 161;
/// `DNNL_ARG_DIFF_WEIGHTS_1`.
pub const DNNL_ARG_DIFF_WEIGHTS_1: c_int = 162;
/// `DNNL_ARG_DIFF_WEIGHTS_ITER`.
pub const DNNL_ARG_DIFF_WEIGHTS_ITER: c_int = 162;
/// `DNNL_ARG_DIFF_WEIGHTS_2`.
pub const DNNL_ARG_DIFF_WEIGHTS_2: c_int = 163;
/// `DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE`.
pub const DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE: c_int = 163;
/// `DNNL_ARG_DIFF_WEIGHTS_3`.
pub const DNNL_ARG_DIFF_WEIGHTS_3: c_int = 164;
/// `DNNL_ARG_DIFF_WEIGHTS_PROJECTION`.
pub const DNNL_ARG_DIFF_WEIGHTS_PROJECTION: c_int = 164;
/// `DNNL_ARG_DIFF_BIAS`.
pub const DNNL_ARG_DIFF_BIAS: c_int = 169;
