//! `dnnl_sgemm`, `dnnl_gemm_u8s8s32`, `dnnl_gemm_s8s8s32`: oneDNN's row-major BLAS-like GEMM
//! calls, computed by `kernels::sgemm` (f32) and `kernels::gemm_s32` (integers).

use super::boundary::{slice, status};
use super::types::*;
use crate::ensure_args;
use crate::error::Result;
use crate::kernels::blas::{COffset, GemmShape};
use crate::kernels::gemm_s32::{gemm_s32, IntA};
use crate::kernels::int8_gemm::Int8Kernel;
use crate::kernels::sgemm::sgemm;
use crate::kernels::Isa;
use libc::c_char;

/// The `len` elements of a matrix argument a call reads; NULL → `invalid_arguments`, even
/// when nothing is read (as in oneDNN).
///
/// # Safety
/// `p` is NULL or valid for reading `len` values.
unsafe fn matrix<'a, T>(p: *const T, len: usize, name: &str) -> Result<&'a [T]> {
    ensure_args!(!p.is_null(), "{name} is NULL");
    slice(p, len, name)
}

/// As [`matrix`], for the output `C`.
///
/// # Safety
/// `p` is NULL or valid for reading and writing `len` values.
unsafe fn matrix_mut<'a, T>(p: *mut T, len: usize, name: &str) -> Result<&'a mut [T]> {
    matrix(p.cast_const(), len, name)?;
    Ok(if len == 0 {
        &mut []
    } else {
        std::slice::from_raw_parts_mut(p, len)
    })
}

/// `C = alpha·op(A)·op(B) + beta·C` on row-major f32 matrices; `transa`/`transb` are `'N'` or
/// `'T'`. Bad flags, negative sizes, a leading dimension below the row length, or a NULL
/// matrix → `dnnl_invalid_arguments`.
///
/// # Safety
/// `A`, `B`, `C` are NULL or hold the matrices their sizes and leading dimensions describe.
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn dnnl_sgemm(
    transa: c_char,
    transb: c_char,
    M: dnnl_dim_t,
    N: dnnl_dim_t,
    K: dnnl_dim_t,
    alpha: f32,
    A: *const f32,
    lda: dnnl_dim_t,
    B: *const f32,
    ldb: dnnl_dim_t,
    beta: f32,
    C: *mut f32,
    ldc: dnnl_dim_t,
) -> dnnl_status_t {
    status("dnnl_sgemm", || {
        let s = GemmShape::new(transa as u8, transb as u8, [M, N, K], [lda, ldb, ldc])?;
        let (a, b) = (matrix(A, s.a_len(), "A")?, matrix(B, s.b_len(), "B")?);
        sgemm(&s, alpha, a, b, beta, matrix_mut(C, s.c_len(), "C")?)
    })
}

/// The shared body of the two integer GEMMs.
///
/// # Safety
/// As [`dnnl_gemm_u8s8s32`].
#[allow(non_snake_case, clippy::too_many_arguments)]
unsafe fn gemm_int<T: IntA>(
    (transa, transb, offsetc): (c_char, c_char, c_char),
    mnk: [dnnl_dim_t; 3],
    alpha: f32,
    (A, lda, ao): (*const T, dnnl_dim_t, i32),
    (B, ldb, bo): (*const i8, dnnl_dim_t, i8),
    beta: f32,
    (C, ldc, co): (*mut i32, dnnl_dim_t, *const i32),
) -> Result<()> {
    let s = GemmShape::new(transa as u8, transb as u8, mnk, [lda, ldb, ldc])?;
    let offset = COffset::parse(offsetc as u8)?;
    let (a, b) = (matrix(A, s.a_len(), "A")?, matrix(B, s.b_len(), "B")?);
    let c = matrix_mut(C, s.c_len(), "C")?;
    let co_len = if s.c_len() > 0 { offset.len(&s) } else { 0 };
    let co = matrix(co, co_len, "co")?;
    gemm_s32(
        Int8Kernel::for_isa(Isa::detected()),
        &s,
        alpha,
        (a, ao),
        (b, i32::from(bo)),
        beta,
        c,
        (co, offset),
    )
}

/// `C = alpha·(op(A) − ao)·(op(B) − bo) + beta·C + co` with u8 `A`, s8 `B` and s32 `C`
/// (row-major); `offsetc` `'F'` adds `co[0]` everywhere, `'C'` `co[i]` to row `i` (an offset
/// column), `'R'` `co[j]` to column `j` (an offset row). As in oneDNN, sums wrap in s32; unless
/// `alpha` is 1 and `beta` 0 or 1, `alpha·product + beta·C` is rounded half away from zero and
/// saturated to s32, then the offset added.
///
/// # Safety
/// `A`, `B`, `C`, `co` are NULL or hold what the sizes, leading dimensions and `offsetc`
/// describe.
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn dnnl_gemm_u8s8s32(
    transa: c_char,
    transb: c_char,
    offsetc: c_char,
    M: dnnl_dim_t,
    N: dnnl_dim_t,
    K: dnnl_dim_t,
    alpha: f32,
    A: *const u8,
    lda: dnnl_dim_t,
    ao: u8,
    B: *const i8,
    ldb: dnnl_dim_t,
    bo: i8,
    beta: f32,
    C: *mut i32,
    ldc: dnnl_dim_t,
    co: *const i32,
) -> dnnl_status_t {
    status("dnnl_gemm_u8s8s32", || {
        gemm_int(
            (transa, transb, offsetc),
            [M, N, K],
            alpha,
            (A, lda, i32::from(ao)),
            (B, ldb, bo),
            beta,
            (C, ldc, co),
        )
    })
}

/// As [`dnnl_gemm_u8s8s32`] with s8 `A` and `ao`.
///
/// # Safety
/// As [`dnnl_gemm_u8s8s32`].
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn dnnl_gemm_s8s8s32(
    transa: c_char,
    transb: c_char,
    offsetc: c_char,
    M: dnnl_dim_t,
    N: dnnl_dim_t,
    K: dnnl_dim_t,
    alpha: f32,
    A: *const i8,
    lda: dnnl_dim_t,
    ao: i8,
    B: *const i8,
    ldb: dnnl_dim_t,
    bo: i8,
    beta: f32,
    C: *mut i32,
    ldc: dnnl_dim_t,
    co: *const i32,
) -> dnnl_status_t {
    status("dnnl_gemm_s8s8s32", || {
        gemm_int(
            (transa, transb, offsetc),
            [M, N, K],
            alpha,
            (A, lda, i32::from(ao)),
            (B, ldb, bo),
            beta,
            (C, ldc, co),
        )
    })
}
