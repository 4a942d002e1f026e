//! Compute kernels: GEMM over packed weight panels and vectorized activations, each with an
//! AVX-512, an AVX2/FMA and a portable version chosen at run time ([`isa`]); the int8 and bf16
//! GEMMs also on AMX tiles ([`amx`]).

pub mod activations;
#[cfg(target_arch = "x86_64")]
pub mod amx;
#[cfg(target_arch = "x86_64")]
pub mod amx_gemm;
#[cfg(target_arch = "x86_64")]
pub mod amx_gemm_row;
pub mod blas;
pub mod cpu_isa;
#[cfg(target_arch = "x86_64")]
pub mod dot_gemm_bf16;
pub mod gemm;
pub mod gemm_bf16;
#[cfg(target_arch = "x86_64")]
pub mod gemm_bf16_tn;
pub mod gemm_s32;
pub mod gemm_s32_few_rows;
mod gemm_s32_pack;
#[cfg(target_arch = "x86_64")]
pub mod gemm_tn;
pub mod int8_gemm;
pub mod isa;
pub mod scratch;
pub mod sgemm;
#[cfg(target_arch = "x86_64")]
pub mod sgemm_stream;
#[cfg(target_arch = "x86_64")]
pub mod sgemm_strips;
pub mod start;
#[cfg(target_arch = "x86_64")]
pub mod transpose;
pub mod vector;

pub use isa::Isa;
