//! Reorders end to end through the C API, and the primitive-descriptor queries as oneDNN 3.13
//! answers them for a reorder (see `rnn.rs` for the RNN answers).

use super::super::memory::*;
use super::super::primitive::*;
use super::super::primitive_desc::*;
use super::super::reorder::*;
use super::super::types::*;
use super::{c_str, engine, md, stream, zero_md};
use crate::memory::MemoryDesc;
use libc::{c_int, c_void};
use std::ptr::{null, null_mut};

fn reorder_pd(src: dnnl_memory_desc_t, dst: dnnl_memory_desc_t) -> dnnl_primitive_desc_t {
    let (e, mut pd) = (engine(), null_mut());
    assert_eq!(
        unsafe { dnnl_reorder_primitive_desc_create(&mut pd, src, e, dst, e, null()) },
        dnnl_success
    );
    pd
}

fn query<T: Copy>(
    pd: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    init: T,
) -> Result<T, dnnl_status_t> {
    let mut v = init;
    match unsafe { dnnl_primitive_desc_query(pd, what, 0, (&mut v as *mut T).cast::<c_void>()) } {
        dnnl_success => Ok(v),
        s => Err(s),
    }
}

fn same(a: const_dnnl_memory_desc_t, b: const_dnnl_memory_desc_t) -> bool {
    unsafe { *a.cast::<MemoryDesc>() == *b.cast::<MemoryDesc>() }
}

#[test]
fn reorder_pd_creation_validates() {
    let (e, src, dst) = (engine(), md(&[2, 3, 4], dnnl_tnc), md(&[2, 3, 4], dnnl_ntc));
    let mut pd = null_mut();
    unsafe {
        assert_eq!(
            dnnl_reorder_primitive_desc_create(null_mut(), src, e, dst, e, null()),
            2
        );
        assert_eq!(
            dnnl_reorder_primitive_desc_create(&mut pd, null(), e, dst, e, null()),
            2
        );
        assert_eq!(
            dnnl_reorder_primitive_desc_create(&mut pd, src, e, null(), e, null()),
            2
        );
        assert_eq!(
            dnnl_reorder_primitive_desc_create(&mut pd, src, null_mut(), dst, e, null()),
            2
        );
        assert_eq!(
            dnnl_reorder_primitive_desc_create(&mut pd, src, e, dst, null_mut(), null()),
            2
        );
        assert_eq!(
            dnnl_reorder_primitive_desc_create(&mut pd, src, e, md(&[2, 3], dnnl_ab), e, null()),
            2
        );
        assert_eq!(
            dnnl_reorder_primitive_desc_create(
                &mut pd,
                src,
                e,
                md(&[2, 3, 4], dnnl_format_tag_any),
                e,
                null()
            ),
            2
        );
        assert_eq!(
            dnnl_reorder_primitive_desc_create(&mut pd, zero_md(), e, zero_md(), e, null()),
            dnnl_unimplemented
        );
        assert_eq!(dnnl_primitive_desc_destroy(null_mut()), dnnl_success);
    }
}

#[test]
fn reorder_pd_queries_match_onednn() {
    let (src, dst) = (md(&[2, 3, 4], dnnl_tnc), md(&[2, 3, 4], dnnl_ntc));
    let (e1, e2) = (engine(), engine());
    let mut pd = null_mut();
    unsafe {
        assert_eq!(
            dnnl_reorder_primitive_desc_create(&mut pd, src, e1, dst, e2, null()),
            0
        );
    }
    assert_eq!(
        query(pd, dnnl_query_engine, null_mut::<dnnl_engine>()),
        Ok(e1)
    );
    assert_eq!(
        query(pd, dnnl_query_reorder_src_engine, null_mut::<dnnl_engine>()),
        Ok(e1)
    );
    assert_eq!(
        query(pd, dnnl_query_reorder_dst_engine, null_mut::<dnnl_engine>()),
        Ok(e2)
    );
    assert_eq!(query(pd, dnnl_query_primitive_kind, 0), Ok(dnnl_reorder));
    assert_eq!(query(pd, dnnl_query_num_of_inputs_s32, 0), Ok(1));
    assert_eq!(query(pd, dnnl_query_num_of_outputs_s32, 0), Ok(1));
    assert_eq!(query(pd, dnnl_query_memory_consumption_s64, -1i64), Ok(0));
    assert_eq!(query(pd, dnnl_query_cache_blob_id_size_s64, -1i64), Ok(0));
    assert!(!c_str(query(pd, dnnl_query_impl_info_str, null()).unwrap()).is_empty());
    for q in [
        dnnl_query_prop_kind,
        dnnl_query_cell_kind,
        dnnl_query_direction,
        dnnl_query_alpha_f32,
        dnnl_query_flags,
        0,
        999,
    ] {
        assert_eq!(query(pd, q, 0), Err(dnnl_unimplemented), "query {q}");
    }
    unsafe {
        let mut v = 0;
        assert_eq!(
            dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, null_mut()),
            2
        );
        assert_eq!(
            dnnl_primitive_desc_query(
                null(),
                dnnl_query_primitive_kind,
                0,
                (&mut v as *mut c_int).cast()
            ),
            2
        );
        assert_eq!(
            dnnl_primitive_desc_query(
                pd,
                dnnl_query_primitive_kind,
                5,
                (&mut v as *mut c_int).cast()
            ),
            0
        );
        assert_eq!(
            dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0),
            1
        );
        assert_eq!(
            dnnl_primitive_desc_query_s32(pd, dnnl_query_primitive_kind, 0),
            0,
            "not an s32 query"
        );
        assert_eq!(
            dnnl_primitive_desc_query_s32(null(), dnnl_query_num_of_inputs_s32, 0),
            0
        );

        // memory descriptors: owned by the pd, zero for what it does not have
        let q = |what, i| dnnl_primitive_desc_query_md(pd, what, i);
        assert!(same(q(dnnl_query_src_md, 0), src) && q(dnnl_query_src_md, 0) != src.cast_const());
        assert!(same(q(dnnl_query_dst_md, 0), dst));
        assert!(same(q(dnnl_query_exec_arg_md, DNNL_ARG_FROM), src));
        assert!(same(q(dnnl_query_exec_arg_md, DNNL_ARG_TO), dst));
        for (what, i) in [
            (dnnl_query_src_md, 1),
            (dnnl_query_src_md, -1),
            (dnnl_query_weights_md, 0),
            (dnnl_query_diff_dst_md, 3),
            (dnnl_query_workspace_md, 0),
            (dnnl_query_scratchpad_md, 0),
            (dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS),
            (dnnl_query_exec_arg_md, 999),
        ] {
            assert!(same(q(what, i), zero_md()), "query {what} index {i}");
        }
        for (what, i) in [
            (dnnl_query_workspace_md, 1),
            (dnnl_query_scratchpad_md, -1),
            (dnnl_query_some_md, 0),
            (dnnl_query_engine, 0),
            (dnnl_query_ndims_s32, 0),
        ] {
            assert!(q(what, i).is_null(), "query {what} index {i}");
        }
        assert!(dnnl_primitive_desc_query_md(null(), dnnl_query_src_md, 0).is_null());
        // ... and the same answers through dnnl_primitive_desc_query
        let mut m: const_dnnl_memory_desc_t = null();
        assert_eq!(
            dnnl_primitive_desc_query(
                pd,
                dnnl_query_src_md,
                0,
                (&mut m as *mut const_dnnl_memory_desc_t).cast()
            ),
            0
        );
        assert_eq!(m, q(dnnl_query_src_md, 0));
        assert_eq!(
            dnnl_primitive_desc_query(
                pd,
                dnnl_query_workspace_md,
                1,
                (&mut m as *mut const_dnnl_memory_desc_t).cast()
            ),
            2
        );
        assert_eq!(
            dnnl_primitive_desc_query(
                pd,
                dnnl_query_some_md,
                0,
                (&mut m as *mut const_dnnl_memory_desc_t).cast()
            ),
            3
        );

        let mut attr = null();
        assert_eq!(dnnl_primitive_desc_get_attr(pd, &mut attr), 0);
        assert_eq!(*attr.cast::<crate::attr::Attr>(), crate::attr::Attr::new());
        assert_eq!(dnnl_primitive_desc_get_attr(pd, null_mut()), 2);
        assert_eq!(dnnl_primitive_desc_get_attr(null(), &mut attr), 2);

        let mut c = null_mut();
        assert_eq!(dnnl_primitive_desc_clone(&mut c, pd), 0);
        assert_eq!(
            query(c, dnnl_query_reorder_dst_engine, null_mut::<dnnl_engine>()),
            Ok(e2)
        );
        assert!(same(
            dnnl_primitive_desc_query_md(c, dnnl_query_dst_md, 0),
            dst
        ));
        assert_eq!(dnnl_primitive_desc_clone(&mut c, null()), 2);
        assert_eq!(dnnl_primitive_desc_clone(null_mut(), pd), 2);
        assert_eq!(dnnl_primitive_desc_next_impl(pd), dnnl_last_impl_reached);
        assert_eq!(dnnl_primitive_desc_next_impl(pd), dnnl_last_impl_reached);
        assert_eq!(
            dnnl_primitive_desc_next_impl(null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_primitive_desc_destroy(c), 0);
        assert_eq!(dnnl_primitive_desc_destroy(pd), 0);
    }
}

#[test]
fn reorder_executes_and_execute_validates() {
    let (e, s) = (engine(), stream());
    let (src, dst) = (md(&[2, 3, 4], dnnl_tnc), md(&[2, 3, 4], dnnl_ntc));
    let pd = reorder_pd(src, dst);
    let mut prim = null_mut();
    unsafe {
        assert_eq!(dnnl_primitive_create(null_mut(), pd), 2);
        assert_eq!(dnnl_primitive_create(&mut prim, null()), 2);
        assert_eq!(dnnl_primitive_create(&mut prim, pd), 0);
        let mut ppd = null();
        assert_eq!(dnnl_primitive_get_primitive_desc(prim, &mut ppd), 0);
        assert_eq!(query(ppd, dnnl_query_primitive_kind, 0), Ok(dnnl_reorder));
        assert_eq!(dnnl_primitive_get_primitive_desc(prim, null_mut()), 2);
        assert_eq!(dnnl_primitive_get_primitive_desc(null(), &mut ppd), 2);
        assert_eq!(
            dnnl_primitive_desc_destroy(pd),
            0,
            "the primitive keeps its own copy"
        );

        let mut x: Vec<f32> = (0..24).map(|v| v as f32).collect();
        let mut y = vec![0f32; 24];
        let (mut mx, mut my, mut mz) = (null_mut(), null_mut(), null_mut());
        assert_eq!(
            dnnl_memory_create(&mut mx, src, e, x.as_mut_ptr().cast()),
            0
        );
        assert_eq!(
            dnnl_memory_create(&mut my, dst, e, y.as_mut_ptr().cast()),
            0
        );
        assert_eq!(dnnl_memory_create(&mut mz, zero_md(), e, null_mut()), 0);
        let args = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_FROM,
                memory: mx,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_TO,
                memory: my,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_SRC_ITER,
                memory: null_mut(),
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_WEIGHTS,
                memory: mz,
            },
            dnnl_exec_arg_t {
                arg: 999,
                memory: mz,
            },
        ];
        assert_eq!(
            dnnl_primitive_execute(prim, s, 5, args.as_ptr()),
            dnnl_success
        );
        // tnc (t, n, c) → ntc: y[n][t][c] = x[t][n][c]
        for t in 0..2 {
            for n in 0..3 {
                for c in 0..4 {
                    assert_eq!(y[(n * 2 + t) * 4 + c], x[(t * 3 + n) * 4 + c]);
                }
            }
        }
        assert_eq!(
            dnnl_primitive_execute(prim, null_mut(), 2, args.as_ptr()),
            2
        );
        assert_eq!(dnnl_primitive_execute(null(), s, 2, args.as_ptr()), 2);
        assert_eq!(dnnl_primitive_execute(prim, s, -1, args.as_ptr()), 2);
        assert_eq!(dnnl_primitive_execute(prim, s, 2, null()), 2);
        assert_eq!(
            dnnl_primitive_execute(prim, s, 0, null()),
            2,
            "FROM and TO are required"
        );
        assert_eq!(dnnl_primitive_execute(prim, s, 1, args.as_ptr()), 2);
        let dup = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_FROM,
                memory: mx,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_TO,
                memory: my,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_FROM,
                memory: mx,
            },
        ];
        assert_eq!(dnnl_primitive_execute(prim, s, 3, dup.as_ptr()), 2);
        // arguments the primitive does not use may even be given twice (oneDNN 3.13)
        let unused_twice = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_FROM,
                memory: mx,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_TO,
                memory: my,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_SRC_ITER,
                memory: mx,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_SRC_ITER,
                memory: mx,
            },
        ];
        assert_eq!(dnnl_primitive_execute(prim, s, 4, unused_twice.as_ptr()), 0);
        let swapped = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_FROM,
                memory: my,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_TO,
                memory: mx,
            },
        ];
        // oneDNN's rule: the pd's descriptors decide how the buffers are read; memories of
        // another layout spanning as much are taken, a shorter one is refused
        assert_eq!(dnnl_primitive_execute(prim, s, 2, swapped.as_ptr()), 0);
        let mut short = null_mut();
        assert_eq!(
            dnnl_memory_create(
                &mut short,
                md(&[2, 3, 2], dnnl_tnc),
                e,
                y.as_mut_ptr().cast()
            ),
            0
        );
        let too_short = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_FROM,
                memory: short,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_TO,
                memory: my,
            },
        ];
        assert_eq!(
            dnnl_primitive_execute(prim, s, 2, too_short.as_ptr()),
            2,
            "a source spanning 48 of 96 bytes"
        );
        assert_eq!(dnnl_memory_destroy(short), 0);
        for m in [mx, my, mz] {
            assert_eq!(dnnl_memory_destroy(m), 0);
        }
        assert_eq!(dnnl_primitive_destroy(prim), 0);
        assert_eq!(dnnl_primitive_destroy(null_mut()), 0);
    }
}
