//! `dnnl_memory_*`: creation with the three handle kinds, the `_v2` index rule, handles,
//! mapping and NULL handling (oneDNN 3.13 answers).

use super::super::memory::*;
use super::super::types::*;
use super::{engine, md, zero_md};
use crate::memory::MemoryDesc;
use libc::c_void;
use std::ptr::{null, null_mut};

const ALLOCATE: *mut c_void = usize::MAX as *mut c_void;

fn handle(m: const_dnnl_memory_t) -> *mut c_void {
    let mut h = 8usize as *mut c_void;
    assert_eq!(
        unsafe { dnnl_memory_get_data_handle(m, &mut h) },
        dnnl_success
    );
    h
}

#[test]
fn create_with_each_handle_kind() {
    let (e, a) = (engine(), md(&[5, 3, 4], dnnl_ntc));
    let mut m = null_mut();
    unsafe {
        assert_eq!(dnnl_memory_create(&mut m, a, e, ALLOCATE), dnnl_success);
        let h = handle(m);
        assert!(
            !h.is_null() && (h as usize).is_multiple_of(64),
            "library buffers are 64-byte aligned"
        );
        assert!(
            std::slice::from_raw_parts(h.cast::<u8>(), 240)
                .iter()
                .all(|&b| b == 0),
            "zeroed"
        );
        assert_eq!(dnnl_memory_destroy(m), dnnl_success);

        assert_eq!(dnnl_memory_create(&mut m, a, e, null_mut()), dnnl_success);
        assert!(handle(m).is_null(), "DNNL_MEMORY_NONE: no buffer");
        assert_eq!(dnnl_memory_destroy(m), dnnl_success);

        let mut buf = vec![0f32; 60];
        assert_eq!(
            dnnl_memory_create(&mut m, a, e, buf.as_mut_ptr().cast()),
            dnnl_success
        );
        assert_eq!(handle(m), buf.as_mut_ptr().cast());
        assert_eq!(dnnl_memory_destroy(m), dnnl_success);

        // zero descriptor: an empty memory, NULL handle even when asked to allocate
        assert_eq!(
            dnnl_memory_create(&mut m, zero_md(), e, ALLOCATE),
            dnnl_success
        );
        assert!(handle(m).is_null());
        assert_eq!(dnnl_memory_destroy(m), dnnl_success);
        // a user pointer is kept even for a zero descriptor
        assert_eq!(
            dnnl_memory_create(&mut m, zero_md(), e, buf.as_mut_ptr().cast()),
            dnnl_success
        );
        assert_eq!(handle(m), buf.as_mut_ptr().cast());
        assert_eq!(dnnl_memory_destroy(m), dnnl_success);

        assert_eq!(
            dnnl_memory_create(&mut m, md(&[5, 3, 4], dnnl_format_tag_any), e, ALLOCATE),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_create(null_mut(), a, e, ALLOCATE),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_create(&mut m, null(), e, ALLOCATE),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_create(&mut m, a, null_mut(), ALLOCATE),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_memory_destroy(null_mut()), dnnl_success);
    }
}

#[test]
fn create_v2_takes_at_least_one_handle() {
    let (e, a) = (engine(), md(&[2, 3], dnnl_ab));
    let mut m = null_mut();
    let mut hs = [ALLOCATE, ALLOCATE];
    unsafe {
        assert_eq!(
            dnnl_memory_create_v2(&mut m, a, e, 0, hs.as_mut_ptr()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_create_v2(&mut m, a, e, -1, hs.as_mut_ptr()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_create_v2(&mut m, a, e, 1, null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_create_v2(&mut m, a, e, 1, hs.as_mut_ptr()),
            dnnl_success
        );
        assert!(!handle(m).is_null());
        assert_eq!(dnnl_memory_destroy(m), dnnl_success);
        assert_eq!(
            dnnl_memory_create_v2(&mut m, a, e, 2, hs.as_mut_ptr()),
            dnnl_success,
            "as oneDNN"
        );
        assert_eq!(dnnl_memory_destroy(m), dnnl_success);
        assert_eq!(
            dnnl_memory_create_v2(null_mut(), a, e, 1, hs.as_mut_ptr()),
            dnnl_invalid_arguments
        );
    }
}

#[test]
fn getters_setters_and_mapping() {
    let (e, a) = (engine(), md(&[2, 3], dnnl_ab));
    let mut m = null_mut();
    unsafe {
        assert_eq!(dnnl_memory_create(&mut m, a, e, ALLOCATE), dnnl_success);
        let mut d = null();
        assert_eq!(dnnl_memory_get_memory_desc(m, &mut d), dnnl_success);
        assert_ne!(d, a.cast_const(), "a descriptor owned by the memory");
        assert_eq!(*d.cast::<MemoryDesc>(), *a.cast::<MemoryDesc>());
        assert_eq!(
            dnnl_memory_get_memory_desc(m, null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_get_memory_desc(null(), &mut d),
            dnnl_invalid_arguments
        );

        let mut e2 = null_mut();
        assert_eq!(dnnl_memory_get_engine(m, &mut e2), dnnl_success);
        assert_eq!(e2, e);
        assert_eq!(
            dnnl_memory_get_engine(m, null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_get_engine(null(), &mut e2),
            dnnl_invalid_arguments
        );

        // get: NULL memory gives a NULL handle (oneDNN), NULL output is an error
        let mut h = 8usize as *mut c_void;
        assert_eq!(dnnl_memory_get_data_handle(null(), &mut h), dnnl_success);
        assert!(h.is_null());
        assert_eq!(
            dnnl_memory_get_data_handle(m, null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_memory_get_data_handle_v2(m, &mut h, 0), dnnl_success);
        assert_eq!(
            dnnl_memory_get_data_handle_v2(m, &mut h, 1),
            dnnl_invalid_arguments
        );

        let mut buf = [1f32; 6];
        assert_eq!(
            dnnl_memory_set_data_handle(m, buf.as_mut_ptr().cast()),
            dnnl_success
        );
        assert_eq!(handle(m), buf.as_mut_ptr().cast());
        assert_eq!(
            dnnl_memory_set_data_handle_v2(m, null_mut(), 0),
            dnnl_success
        );
        assert!(handle(m).is_null());
        assert_eq!(
            dnnl_memory_set_data_handle_v2(m, null_mut(), 1),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_set_data_handle(null_mut(), buf.as_mut_ptr().cast()),
            dnnl_invalid_arguments
        );

        assert_eq!(
            dnnl_memory_set_data_handle(m, buf.as_mut_ptr().cast()),
            dnnl_success
        );
        let mut p = null_mut();
        assert_eq!(dnnl_memory_map_data(m, &mut p), dnnl_success);
        assert_eq!(p, buf.as_mut_ptr().cast());
        assert_eq!(dnnl_memory_map_data_v2(m, &mut p, 0), dnnl_success);
        assert_eq!(
            dnnl_memory_map_data_v2(m, &mut p, 1),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_memory_map_data(m, null_mut()), dnnl_invalid_arguments);
        assert_eq!(dnnl_memory_map_data(null(), &mut p), dnnl_invalid_arguments);
        assert_eq!(dnnl_memory_unmap_data(m, p), dnnl_success);
        assert_eq!(dnnl_memory_unmap_data(m, null_mut()), dnnl_success);
        assert_eq!(dnnl_memory_unmap_data(null(), p), dnnl_invalid_arguments);
        assert_eq!(dnnl_memory_unmap_data_v2(m, p, 0), dnnl_success);
        assert_eq!(dnnl_memory_unmap_data_v2(m, p, 1), dnnl_invalid_arguments);
        assert_eq!(dnnl_memory_destroy(m), dnnl_success);
    }
}
