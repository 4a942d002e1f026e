/*
 * md_pool.h - memory descriptors for the C API creation tests, kept in a
 * small pool that each case frees at its end (so a test can build a
 * descriptor inline, in the argument list of the call it checks).
 *
 * Header-only, C99; include after check.h.
 *
 *   md_dt(ndims, d0..d4, data_type, tag)   a descriptor with a tag
 *   MD3 / MD4 / MD5(dims..., tag)          f32 shorthands
 *   zero_md()                              the zero descriptor
 *   pool_free()                            destroys every pooled descriptor
 */
#ifndef CAPI_TESTS_MD_POOL_H
#define CAPI_TESTS_MD_POOL_H

#include "check.h"

#define MD_POOL_MAX 64
static dnnl_memory_desc_t md_pool[MD_POOL_MAX];
static int md_pool_n = 0;

static dnnl_memory_desc_t pool_add(dnnl_memory_desc_t md) {
    REQUIRE(md_pool_n < MD_POOL_MAX, "md pool full");
    md_pool[md_pool_n++] = md;
    return md;
}

static void pool_free(void) {
    while (md_pool_n > 0) dnnl_memory_desc_destroy(md_pool[--md_pool_n]);
}

static dnnl_memory_desc_t md_dt(int ndims, dnnl_dim_t a, dnnl_dim_t b,
        dnnl_dim_t c, dnnl_dim_t d, dnnl_dim_t e, dnnl_data_type_t dt,
        dnnl_format_tag_t tag) {
    dnnl_dims_t dims = {a, b, c, d, e};
    dnnl_memory_desc_t md = NULL;
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dt, tag));
    return pool_add(md);
}

#define MD3(a, b, c, tag) md_dt(3, a, b, c, 0, 0, dnnl_f32, tag)
#define MD4(a, b, c, d, tag) md_dt(4, a, b, c, d, 0, dnnl_f32, tag)
#define MD5(a, b, c, d, e, tag) md_dt(5, a, b, c, d, e, dnnl_f32, tag)

static dnnl_memory_desc_t zero_md(void) {
    dnnl_memory_desc_t md = NULL;
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &md, 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    return pool_add(md);
}

#endif
