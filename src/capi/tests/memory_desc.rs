//! `dnnl_memory_desc_*`: creation, NULL handling and query answers (statuses and values as
//! oneDNN 3.13 gives them for zero, `any`, plain, strided and sub-memory descriptors).

use super::super::memory_desc::*;
use super::super::types::*;
use super::{last_error, md, md_dt, zero_md};
use crate::memory::MemoryDesc;
use libc::c_void;
use std::ptr::{null, null_mut};

/// Queries an `int` (or enum).
fn q_i32(m: const_dnnl_memory_desc_t, what: dnnl_query_t) -> Result<i32, dnnl_status_t> {
    let mut v = -77i32;
    match unsafe { dnnl_memory_desc_query(m, what, (&mut v as *mut i32).cast()) } {
        dnnl_success => Ok(v),
        s => Err(s),
    }
}

/// Queries a `const dnnl_dims_t *` and returns the 12 values and the pointer.
fn q_dims(
    m: const_dnnl_memory_desc_t,
    what: dnnl_query_t,
) -> Result<([i64; 12], *const dnnl_dims_t), dnnl_status_t> {
    let mut p: *const dnnl_dims_t = null();
    match unsafe { dnnl_memory_desc_query(m, what, (&mut p as *mut *const dnnl_dims_t).cast()) } {
        dnnl_success => Ok((unsafe { *p }, p)),
        s => Err(s),
    }
}

fn arr(v: &[i64]) -> [i64; 12] {
    let mut a = [0; 12];
    a[..v.len()].copy_from_slice(v);
    a
}

#[test]
fn create_with_tag_validates_its_arguments() {
    let d = [5i64, 3, 4];
    let mut m = null_mut();
    unsafe {
        assert_eq!(
            dnnl_memory_desc_create_with_tag(null_mut(), 3, d.as_ptr(), dnnl_f32, dnnl_abc),
            dnnl_invalid_arguments
        );
        assert!(last_error().contains("dnnl_memory_desc_create_with_tag"));
        for nd in [-1, 13] {
            assert_eq!(
                dnnl_memory_desc_create_with_tag(&mut m, nd, d.as_ptr(), dnnl_f32, dnnl_abc),
                dnnl_invalid_arguments
            );
        }
        assert_eq!(
            dnnl_memory_desc_create_with_tag(&mut m, 3, null(), dnnl_f32, dnnl_abc),
            dnnl_invalid_arguments
        );
        for (dt, tag, st) in [
            (99, dnnl_abc, dnnl_invalid_arguments),
            (dnnl_data_type_undef, dnnl_abc, dnnl_invalid_arguments),
            (
                dnnl_data_type_undef,
                dnnl_format_tag_any,
                dnnl_invalid_arguments,
            ),
            (dnnl_f64, dnnl_abc, dnnl_unimplemented),
            (dnnl_f32, 9999, dnnl_invalid_arguments),
            (dnnl_f32, dnnl_abcd, dnnl_invalid_arguments),
        ] {
            assert_eq!(
                dnnl_memory_desc_create_with_tag(&mut m, 3, d.as_ptr(), dt, tag),
                st,
                "dt {dt} tag {tag}"
            );
        }
        let neg = [5i64, -2, 4];
        assert_eq!(
            dnnl_memory_desc_create_with_tag(&mut m, 3, neg.as_ptr(), dnnl_f32, dnnl_abc),
            dnnl_invalid_arguments
        );
        // ndims 0 (dims ignored) and the undef tag give the zero descriptor
        assert_eq!(
            dnnl_memory_desc_create_with_tag(&mut m, 0, d.as_ptr(), dnnl_f32, dnnl_abc),
            dnnl_success
        );
        assert_eq!(*(m as *const MemoryDesc), MemoryDesc::zero());
        assert_eq!(dnnl_memory_desc_destroy(m), dnnl_success);
        assert_eq!(
            dnnl_memory_desc_create_with_tag(
                &mut m,
                3,
                d.as_ptr(),
                dnnl_f32,
                dnnl_format_tag_undef
            ),
            dnnl_success
        );
        assert_eq!(*(m as *const MemoryDesc), MemoryDesc::zero());
        assert_eq!(dnnl_memory_desc_destroy(m), dnnl_success);
        assert_eq!(dnnl_memory_desc_destroy(null_mut()), dnnl_success);
    }
}

#[test]
fn queries_of_a_plain_descriptor() {
    let m = md(&[5, 3, 4], dnnl_ntc);
    assert_eq!(q_i32(m, dnnl_query_ndims_s32), Ok(3));
    assert_eq!(q_i32(m, dnnl_query_data_type), Ok(dnnl_f32));
    assert_eq!(q_i32(m, dnnl_query_format_kind), Ok(dnnl_blocked));
    assert_eq!(q_i32(m, dnnl_query_inner_nblks_s32), Ok(0));
    let (dims, p) = q_dims(m, dnnl_query_dims).unwrap();
    assert_eq!(dims, arr(&[5, 3, 4]));
    let inside =
        p as usize >= m as usize && (p as usize) < m as usize + std::mem::size_of::<MemoryDesc>();
    assert!(inside, "dims point into the descriptor");
    assert_eq!(
        q_dims(m, dnnl_query_padded_dims).unwrap().0,
        arr(&[5, 3, 4])
    );
    assert_eq!(q_dims(m, dnnl_query_padded_offsets).unwrap().0, [0; 12]);
    assert_eq!(q_dims(m, dnnl_query_strides).unwrap().0, arr(&[4, 20, 1]));
    assert_eq!(q_dims(m, dnnl_query_inner_blks).unwrap().0, [0; 12]);
    assert_eq!(q_dims(m, dnnl_query_inner_idxs).unwrap().0, [0; 12]);
    let mut off = -1i64;
    assert_eq!(
        unsafe {
            dnnl_memory_desc_query(
                m,
                dnnl_query_submemory_offset_s64,
                (&mut off as *mut i64).cast(),
            )
        },
        0
    );
    assert_eq!(off, 0);
    // num_handles only through _v2 (oneDNN's v1 query does not know it)
    assert_eq!(
        q_i32(m, dnnl_query_num_handles_s32),
        Err(dnnl_unimplemented)
    );
    let mut n = 0i32;
    let np = (&mut n as *mut i32).cast::<c_void>();
    unsafe {
        assert_eq!(
            dnnl_memory_desc_query_v2(m, dnnl_query_num_handles_s32, 0, np),
            dnnl_success
        );
        assert_eq!(n, 1);
        assert_eq!(
            dnnl_memory_desc_query_v2(m, dnnl_query_ndims_s32, 0, np),
            dnnl_success
        );
        assert_eq!(n, 3);
        assert_eq!(
            dnnl_memory_desc_query_v2(m, dnnl_query_ndims_s32, 1, np),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_query_v2(m, dnnl_query_num_handles_s32, 1, np),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_query(m, dnnl_query_ndims_s32, null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_query(null(), dnnl_query_ndims_s32, np),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_query_v2(null(), dnnl_query_ndims_s32, 0, np),
            dnnl_invalid_arguments
        );
    }
    for q in [
        0,
        dnnl_query_engine,
        dnnl_query_src_md,
        dnnl_query_exec_arg_md,
        266,
        999,
    ] {
        assert_eq!(q_i32(m, q), Err(dnnl_unimplemented), "query {q}");
    }
    assert_eq!(unsafe { dnnl_memory_desc_get_size(m) }, 240);
    assert_eq!(unsafe { dnnl_memory_desc_get_size_v2(m, 0) }, 240);
    assert_eq!(unsafe { dnnl_memory_desc_get_size_v2(m, 1) }, 0);
    assert_eq!(unsafe { dnnl_memory_desc_get_size_v2(m, -1) }, 0);
    assert_eq!(unsafe { dnnl_memory_desc_get_size(null()) }, 0);
}

#[test]
fn zero_and_any_descriptors_answer_like_onednn() {
    for (m, fk, nd) in [
        (zero_md(), dnnl_format_kind_undef, 0),
        (md(&[5, 3, 4], dnnl_format_tag_any), dnnl_format_kind_any, 3),
    ] {
        assert_eq!(q_i32(m, dnnl_query_ndims_s32), Ok(nd));
        assert_eq!(q_i32(m, dnnl_query_format_kind), Ok(fk));
        assert!(q_dims(m, dnnl_query_dims).is_ok());
        assert!(q_dims(m, dnnl_query_padded_dims).is_ok());
        assert!(q_dims(m, dnnl_query_padded_offsets).is_ok());
        assert_eq!(
            q_i32(m, dnnl_query_inner_nblks_s32),
            Err(dnnl_invalid_arguments)
        );
        assert_eq!(
            q_dims(m, dnnl_query_strides).map(|r| r.0),
            Err(dnnl_invalid_arguments)
        );
        assert_eq!(
            q_dims(m, dnnl_query_inner_blks).map(|r| r.0),
            Err(dnnl_invalid_arguments)
        );
        assert_eq!(
            q_dims(m, dnnl_query_inner_idxs).map(|r| r.0),
            Err(dnnl_invalid_arguments)
        );
        assert_eq!(unsafe { dnnl_memory_desc_get_size(m) }, 0);
    }
    assert_eq!(
        q_i32(zero_md(), dnnl_query_data_type),
        Ok(dnnl_data_type_undef)
    );
}

#[test]
fn opaque_descriptors_have_no_strides() {
    let packed = MemoryDesc::packed(&[1, 1, 4, 4, 4], crate::types::DataType::F32, 2).unwrap();
    let m: const_dnnl_memory_desc_t = super::super::handle::borrowed(&packed);
    assert_eq!(
        q_i32(m, dnnl_query_format_kind),
        Ok(dnnl_format_kind_opaque)
    );
    assert_eq!(q_dims(m, dnnl_query_dims).unwrap().0, arr(&[1, 1, 4, 4, 4]));
    assert_eq!(
        q_dims(m, dnnl_query_strides).map(|r| r.0),
        Err(dnnl_invalid_arguments)
    );
    assert_eq!(
        q_i32(m, dnnl_query_inner_nblks_s32),
        Err(dnnl_invalid_arguments)
    );
    assert_eq!(unsafe { dnnl_memory_desc_get_size(m) }, packed.size_bytes());
}

#[test]
fn strides_and_submemory() {
    let d = [5i64, 3, 4];
    let mut m = null_mut();
    unsafe {
        let st = [100i64, 20, 1];
        assert_eq!(
            dnnl_memory_desc_create_with_strides(&mut m, 3, d.as_ptr(), dnnl_f32, st.as_ptr()),
            0
        );
        assert_eq!(q_dims(m, dnnl_query_strides).unwrap().0, arr(&st));
        assert_eq!(dnnl_memory_desc_get_size(m), 2000);
        assert_eq!(
            dnnl_memory_desc_create_with_strides(&mut m, 3, d.as_ptr(), dnnl_f32, null()),
            0
        );
        assert_eq!(q_dims(m, dnnl_query_strides).unwrap().0, arr(&[12, 4, 1]));
        assert_eq!(
            dnnl_memory_desc_create_with_strides(&mut m, 0, null(), 0, null()),
            0
        );
        assert_eq!(q_i32(m, dnnl_query_ndims_s32), Ok(0));
        let neg = [-1i64, 20, 1];
        assert_eq!(
            dnnl_memory_desc_create_with_strides(&mut m, 3, d.as_ptr(), dnnl_f32, neg.as_ptr()),
            2
        );
        assert_eq!(
            dnnl_memory_desc_create_with_strides(&mut m, 3, null(), dnnl_f32, st.as_ptr()),
            2
        );
        assert_eq!(
            dnnl_memory_desc_create_with_strides(null_mut(), 3, d.as_ptr(), dnnl_f32, st.as_ptr()),
            2
        );

        let parent = md(&d, dnnl_ntc);
        let (sd, so) = ([2i64, 3, 4], [1i64, 0, 0]);
        assert_eq!(
            dnnl_memory_desc_create_submemory(&mut m, parent, sd.as_ptr(), so.as_ptr()),
            0
        );
        let mut off = 0i64;
        assert_eq!(
            dnnl_memory_desc_query(
                m,
                dnnl_query_submemory_offset_s64,
                (&mut off as *mut i64).cast()
            ),
            0
        );
        assert_eq!(off, 4);
        assert_eq!(q_dims(m, dnnl_query_dims).unwrap().0, arr(&sd));
        assert_eq!(q_dims(m, dnnl_query_strides).unwrap().0, arr(&[4, 20, 1]));
        assert_eq!(
            dnnl_memory_desc_get_size(m),
            240,
            "oneDNN 3.13 reports the parent's extent"
        );
        let oob = [4i64, 0, 0];
        assert_eq!(
            dnnl_memory_desc_create_submemory(&mut m, parent, sd.as_ptr(), oob.as_ptr()),
            dnnl_invalid_arguments
        );
        let any = md(&d, dnnl_format_tag_any);
        assert_eq!(
            dnnl_memory_desc_create_submemory(&mut m, any, sd.as_ptr(), so.as_ptr()),
            dnnl_unimplemented
        );
        assert_eq!(
            dnnl_memory_desc_create_submemory(&mut m, zero_md(), sd.as_ptr(), so.as_ptr()),
            dnnl_unimplemented
        );
        assert_eq!(
            dnnl_memory_desc_create_submemory(&mut m, null(), sd.as_ptr(), so.as_ptr()),
            2
        );
        assert_eq!(
            dnnl_memory_desc_create_submemory(&mut m, parent, null(), so.as_ptr()),
            2
        );
        assert_eq!(
            dnnl_memory_desc_create_submemory(&mut m, parent, sd.as_ptr(), null()),
            2
        );
        assert_eq!(
            dnnl_memory_desc_create_submemory(null_mut(), parent, sd.as_ptr(), so.as_ptr()),
            2
        );
    }
}

#[test]
fn permute_axes_renames_axes() {
    let a = md(&[5, 3, 4], dnnl_ntc);
    let mut m = null_mut();
    unsafe {
        let p = [1, 2, 0];
        assert_eq!(dnnl_memory_desc_permute_axes(&mut m, a, p.as_ptr()), 0);
        // oneDNN 3.13: dims (4, 5, 3), strides (1, 4, 20)
        assert_eq!(q_dims(m, dnnl_query_dims).unwrap().0, arr(&[4, 5, 3]));
        assert_eq!(q_dims(m, dnnl_query_strides).unwrap().0, arr(&[1, 4, 20]));
        let any = md(&[5, 3, 4], dnnl_format_tag_any);
        assert_eq!(
            dnnl_memory_desc_permute_axes(&mut m, any, [1, 0, 2].as_ptr()),
            0
        );
        assert_eq!(q_i32(m, dnnl_query_format_kind), Ok(dnnl_format_kind_any));
        assert_eq!(q_dims(m, dnnl_query_dims).unwrap().0, arr(&[3, 5, 4]));
        for bad in [[0, 0, 1], [0, 1, 3], [-1, 0, 1]] {
            assert_eq!(
                dnnl_memory_desc_permute_axes(&mut m, a, bad.as_ptr()),
                dnnl_invalid_arguments
            );
        }
        assert_eq!(
            dnnl_memory_desc_permute_axes(&mut m, zero_md(), p.as_ptr()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_permute_axes(&mut m, a, null()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_permute_axes(&mut m, null(), p.as_ptr()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_permute_axes(null_mut(), a, p.as_ptr()),
            dnnl_invalid_arguments
        );
    }
}

#[test]
fn clone_and_equal() {
    let a = md(&[5, 3, 4], dnnl_ntc);
    let mut c = null_mut();
    unsafe {
        assert_eq!(dnnl_memory_desc_clone(&mut c, a), 0);
        assert_ne!(c, a);
        assert_eq!(dnnl_memory_desc_equal(a, c), 1);
        assert_eq!(dnnl_memory_desc_equal(a, md(&[5, 3, 4], dnnl_tnc)), 0);
        assert_eq!(
            dnnl_memory_desc_equal(a, md(&[5, 3, 4], dnnl_format_tag_any)),
            0
        );
        assert_eq!(
            dnnl_memory_desc_equal(a, md_dt(&[5, 3, 4], dnnl_bf16, dnnl_ntc)),
            0
        );
        assert_eq!(dnnl_memory_desc_equal(null(), null()), 1);
        assert_eq!(dnnl_memory_desc_equal(a, null()), 0);
        assert_eq!(dnnl_memory_desc_equal(null(), a), 0);
        assert_eq!(dnnl_memory_desc_equal(zero_md(), null()), 0);
        assert_eq!(dnnl_memory_desc_equal(zero_md(), zero_md()), 1);
        assert_eq!(
            dnnl_memory_desc_clone(&mut c, null()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_clone(null_mut(), a),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_memory_desc_destroy(c), 0);
    }
}
