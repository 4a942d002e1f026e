/*
 * test_host_scalar.c - host-scalar memory descriptors and memories (oneDNN
 * 3.13): dnnl_memory_desc_create_host_scalar, dnnl_memory_create_host_scalar,
 * dnnl_memory_{get,set}_host_scalar_value. Statuses and values as the real
 * oneDNN 3.13 gives them: the descriptor is format kind host_scalar with dims
 * [1] and the size of one element; it cannot be reshaped or permuted
 * (invalid_arguments) nor viewed (unimplemented); dnnl_memory_create refuses
 * it; the scalar memory copies the value, has no data handle, and RNN
 * primitives and reorders refuse the descriptor.
 *
 * Built against headers older than 3.13 (no such functions) it checks nothing.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"

#define NEW_API (DNNL_VERSION_MAJOR > 3 || DNNL_VERSION_MINOR >= 13)

#if defined(OXIDNN_H) && !defined(dnnl_format_kind_host_scalar)
#define dnnl_format_kind_host_scalar 5 /* oneDNN 3.13's value; headers without it */
#endif

#if NEW_API
static void test_desc(void) {
    dnnl_memory_desc_t md = NULL, s32 = NULL, out = NULL;
    int ndims = -1, kind = -1, dt = -1;
    const dnnl_dims_t *dims = NULL;
    dnnl_dims_t one = {1}, zero = {0};
    int perm[1] = {0};

    CHECK_OK(dnnl_memory_desc_create_host_scalar(&md, dnnl_f32));
    CHECK_OK(dnnl_memory_desc_create_host_scalar(&s32, dnnl_s32));
    CHECK_STATUS(dnnl_memory_desc_create_host_scalar(&out, dnnl_data_type_undef),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_create_host_scalar(NULL, dnnl_f32),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_create_host_scalar(&out, (dnnl_data_type_t)77),
            dnnl_invalid_arguments);

    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &ndims));
    CHECK(ndims == 1, "ndims %d", ndims);
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_format_kind, &kind));
    CHECK(kind == dnnl_format_kind_host_scalar, "format kind %d", kind);
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
    CHECK(dt == dnnl_f32, "data type %d", dt);
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_dims, &dims));
    CHECK(dims && (*dims)[0] == 1, "dims");
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_strides, &dims),
            dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_get_size(md) == 4, "size %zu", dnnl_memory_desc_get_size(md));
    CHECK(dnnl_memory_desc_get_size(s32) == 4, "s32 size");
    CHECK(dnnl_memory_desc_equal(md, md) == 1, "equal to itself");
    CHECK(dnnl_memory_desc_equal(md, s32) == 0, "f32 and s32 scalars differ");

    CHECK_STATUS(dnnl_memory_desc_reshape(&out, md, 1, one), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_permute_axes(&out, md, perm), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&out, md, one, zero), dnnl_unimplemented);
    dnnl_memory_desc_destroy(md);
    dnnl_memory_desc_destroy(s32);
}

static void test_memory(dnnl_engine_t eng) {
    dnnl_memory_desc_t md = NULL, plain = NULL;
    dnnl_memory_t m = NULL, pm = NULL;
    dnnl_dims_t d2 = {2, 3};
    float v = 3.5f, w = -2.0f, out = 0.0f;
    void *h = NULL;
    const_dnnl_memory_desc_t got = NULL;

    REQUIRE_OK(dnnl_memory_desc_create_host_scalar(&md, dnnl_f32));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&plain, 2, d2, dnnl_f32, dnnl_ab));
    CHECK_STATUS(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create(&m, md, eng, &v), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create_host_scalar(&m, md, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create_host_scalar(&m, plain, &v), dnnl_invalid_arguments);

    REQUIRE_OK(dnnl_memory_create_host_scalar(&m, md, &v));
    v = 100.0f; /* the value was copied */
    CHECK_OK(dnnl_memory_get_host_scalar_value(m, &out));
    CHECK(out == 3.5f, "value %g, not 3.5", out);
    CHECK_OK(dnnl_memory_set_host_scalar_value(m, &w));
    CHECK_OK(dnnl_memory_get_host_scalar_value(m, &out));
    CHECK(out == -2.0f, "value %g after set, not -2", out);
    CHECK(v == 100.0f, "the user's value changed");
    CHECK_STATUS(dnnl_memory_get_host_scalar_value(m, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_host_scalar_value(m, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_get_data_handle(m, &h), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_data_handle(m, &v), dnnl_invalid_arguments);
    CHECK_OK(dnnl_memory_get_memory_desc(m, &got));
    CHECK(dnnl_memory_desc_equal(got, md) == 1, "the memory's descriptor");

    REQUIRE_OK(dnnl_memory_create(&pm, plain, eng, DNNL_MEMORY_ALLOCATE));
    CHECK_STATUS(dnnl_memory_get_host_scalar_value(pm, &out), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_host_scalar_value(pm, &w), dnnl_invalid_arguments);
    dnnl_memory_destroy(pm);
    dnnl_memory_destroy(m);
    dnnl_memory_desc_destroy(plain);
    dnnl_memory_desc_destroy(md);
}

/* RNN primitives and reorders refuse host scalars. */
static void test_primitives(dnnl_engine_t eng) {
    dnnl_memory_desc_t hs = NULL, wl = NULL, wi = NULL, layer = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_dims_t wl_d = {1, 1, 3, 4, 2}, wi_d = {1, 1, 2, 4, 2}, layer_d = {2, 1, 2};
    REQUIRE_OK(dnnl_memory_desc_create_host_scalar(&hs, dnnl_f32));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&wl, 5, wl_d, dnnl_f32, dnnl_ldigo));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&wi, 5, wi_d, dnnl_f32, dnnl_ldigo));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&layer, 3, layer_d, dnnl_f32, dnnl_tnc));
    CHECK_STATUS(dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                         dnnl_unidirectional_left2right, hs, NULL, NULL, wl, wi, NULL, NULL,
                         NULL, layer, NULL, NULL, 0, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                         dnnl_unidirectional_left2right, layer, hs, NULL, wl, wi, NULL, NULL,
                         NULL, layer, NULL, NULL, 0, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&pd, hs, eng, hs, eng, NULL),
            dnnl_unimplemented);
    dnnl_memory_desc_destroy(hs);
    dnnl_memory_desc_destroy(wl);
    dnnl_memory_desc_destroy(wi);
    dnnl_memory_desc_destroy(layer);
}
#endif

int main(void) {
#if NEW_API
    dnnl_engine_t eng = NULL;
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    test_desc();
    test_memory(eng);
    test_primitives(eng);
    dnnl_engine_destroy(eng);
    return check_summary();
#else
    /* headers older than 3.13 have no host scalars: only link with the library */
    CHECK(dnnl_version() != NULL, "dnnl_version");
    return check_summary();
#endif
}
