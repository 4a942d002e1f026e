/*
 * test_runtime_dims.c - memory descriptors with DNNL_RUNTIME_DIM_VAL dims or
 * strides are created (strides that depend on a runtime dim are runtime
 * too, the size is DNNL_RUNTIME_SIZE_VAL); memories and primitives cannot be
 * made from them.
 */
#include <stdio.h>

#include "check.h"

int main(void) {
    const dnnl_dims_t dims = {2, DNNL_RUNTIME_DIM_VAL, 4}, plain = {2, 3, 4};
    const dnnl_dims_t rt_strides = {DNNL_RUNTIME_DIM_VAL, 4, 1};
    const dnnl_dims_t *strides = NULL;
    const dnnl_dims_t *got = NULL;
    dnnl_memory_desc_t md = NULL, md2 = NULL, out = NULL;
    dnnl_memory_t mem = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_engine_t eng = NULL;

    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK_OK(dnnl_memory_desc_create_with_tag(&md, 3, dims, dnnl_f32, dnnl_abc));
    REQUIRE(md != NULL, "no descriptor");
    CHECK(dnnl_memory_desc_get_size(md) == DNNL_RUNTIME_SIZE_VAL, "size %zu",
            dnnl_memory_desc_get_size(md));
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_dims, &got));
    CHECK(got && (*got)[1] == DNNL_RUNTIME_DIM_VAL, "runtime dim not kept");
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_strides, &strides));
    CHECK(strides && (*strides)[0] == DNNL_RUNTIME_DIM_VAL && (*strides)[1] == 4
                    && (*strides)[2] == 1,
            "strides");
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&out, 3, dims, dnnl_f32,
                         dnnl_format_tag_any),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_NONE), dnnl_invalid_arguments);

    CHECK_OK(dnnl_memory_desc_create_with_strides(&md2, 3, plain, dnnl_f32, rt_strides));
    CHECK(dnnl_memory_desc_get_size(md2) == DNNL_RUNTIME_SIZE_VAL, "size with runtime strides");

#if defined(OXIDNN_H)
    /* oneDNN implements reorders on runtime dims (resolved at execution); oxidnn does not */
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&pd, md, eng, md, eng, NULL),
            dnnl_unimplemented);
#endif
    (void)pd;
    dnnl_memory_desc_destroy(md);
    dnnl_memory_desc_destroy(md2);
    dnnl_engine_destroy(eng);
    return check_summary();
}
