//! The functions of primitives and features the library does not implement: exported, and
//! answering `dnnl_unimplemented` (or their documented value) with a last-error text.

use super::super::unimplemented::*;
use super::*;

#[test]
fn unimplemented_functions_answer_unimplemented_with_a_text() {
    let mut pd = null_mut();
    let st = dnnl_matmul_primitive_desc_create(
        &mut pd,
        engine(),
        md(&[2, 3], dnnl_ab),
        md(&[3, 4], dnnl_ab),
        null_mut(),
        md(&[2, 4], dnnl_ab),
        null_mut(),
    );
    assert_eq!((st, pd), (dnnl_unimplemented, null_mut()));
    assert_eq!(
        last_error(),
        "dnnl_matmul_primitive_desc_create: unimplemented: not implemented: oxidnn implements \
         oneDNN's RNN primitives, reorder and GEMM only"
    );
    let mut post_ops = null_mut();
    assert_eq!(dnnl_post_ops_create(&mut post_ops), dnnl_unimplemented);
    assert_eq!(dnnl_post_ops_len(null_mut()), -1);
    assert!(last_error().starts_with("dnnl_post_ops_len: unimplemented"));
    assert_eq!(
        dnnl_post_ops_get_kind(null_mut(), 0),
        dnnl_undefined_primitive
    );
}
