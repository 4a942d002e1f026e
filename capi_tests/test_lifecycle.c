/*
 * test_lifecycle.c - create / use / destroy every object of the C API:
 * engine, stream, memory descriptor, memory (library-allocated, user
 * pointer, DNNL_MEMORY_NONE, zero descriptor), data handles, map/unmap,
 * primitive attributes (scratchpad mode, RNN qparams), primitive desc and
 * primitive lifetimes, and `*_destroy(NULL)`.
 *
 * Every expectation was measured on the real oneDNN 3.13 (and 3.2; where
 * they differ the 3.13 value is expected, see CHECK_STATUS_V).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"

static void test_engine(void) {
    dnnl_engine_t eng = NULL, bad = NULL;
    dnnl_engine_kind_t kind = dnnl_any_engine;

    CHECK(dnnl_engine_get_count(dnnl_cpu) == 1, "one cpu engine");
    CHECK(dnnl_engine_get_count(dnnl_gpu) == 0, "no gpu engine");
    CHECK(dnnl_engine_get_count(dnnl_any_engine) == 0, "count(any) == 0");
    CHECK(dnnl_engine_get_count((dnnl_engine_kind_t)7) == 0,
            "count(unknown kind) == 0");

    CHECK_STATUS(dnnl_engine_create(&bad, dnnl_gpu, 0), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_create(&bad, (dnnl_engine_kind_t)7, 0),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_create(&bad, dnnl_any_engine, 0),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_create(&bad, dnnl_cpu, 1), dnnl_invalid_arguments);

    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(eng != NULL, "engine handle set");
    CHECK_OK(dnnl_engine_get_kind(eng, &kind));
    CHECK(kind == dnnl_cpu, "engine kind %d, expected cpu", (int)kind);
    CHECK_OK(dnnl_engine_destroy(eng));

    /* several engines may live at once */
    {
        dnnl_engine_t a = NULL, b = NULL;
        CHECK_OK(dnnl_engine_create(&a, dnnl_cpu, 0));
        CHECK_OK(dnnl_engine_create(&b, dnnl_cpu, 0));
        CHECK_OK(dnnl_engine_destroy(a));
        CHECK_OK(dnnl_engine_destroy(b));
    }
}

static void test_stream(dnnl_engine_t eng) {
    dnnl_stream_t s = NULL;
    dnnl_engine_t se = NULL;

    REQUIRE_OK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));
    CHECK_OK(dnnl_stream_get_engine(s, &se));
    CHECK(se == eng, "stream engine is the engine it was created with");
    CHECK_OK(dnnl_stream_wait(s));
    CHECK_OK(dnnl_stream_wait(s));
    CHECK_OK(dnnl_stream_destroy(s));

    s = NULL;
    CHECK_OK(dnnl_stream_create(&s, eng, dnnl_stream_in_order));
    CHECK_OK(dnnl_stream_destroy(s));
    s = NULL;
    CHECK_OK(dnnl_stream_create(&s, eng, dnnl_stream_out_of_order));
    CHECK_OK(dnnl_stream_wait(s));
    CHECK_OK(dnnl_stream_destroy(s));

    /* flags without a known bit: 3.13 rejects them, 3.2 accepted them */
    s = NULL;
    if (!CHECK_STATUS_V(dnnl_stream_create(&s, eng, 0), dnnl_invalid_arguments,
                dnnl_success)
            || s)
        dnnl_stream_destroy(s);
    s = NULL;
    if (!CHECK_STATUS_V(dnnl_stream_create(&s, eng, 0x100),
                dnnl_invalid_arguments, dnnl_success)
            || s)
        dnnl_stream_destroy(s);
}

static void test_memory_desc(void) {
    const dnnl_dim_t d[3] = {5, 3, 4};
    dnnl_dims_t dims;
    dnnl_memory_desc_t zero = NULL, tnc = NULL, ntc = NULL, copy = NULL,
                       zero_copy = NULL;

    memcpy(dims, d, sizeof d);
    /* the C++ API's memory::desc(): ndims 0, dims NULL, undef, undef */
    CHECK_OK(dnnl_memory_desc_create_with_tag(
            &zero, 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    CHECK_OK(dnnl_memory_desc_create_with_tag(&tnc, 3, dims, dnnl_f32, dnnl_tnc));
    CHECK_OK(dnnl_memory_desc_create_with_tag(&ntc, 3, dims, dnnl_f32, dnnl_ntc));
    REQUIRE(zero && tnc && ntc, "descriptors created");

    CHECK_OK(dnnl_memory_desc_clone(&copy, tnc));
    CHECK_OK(dnnl_memory_desc_clone(&zero_copy, zero));
    CHECK(copy != NULL && copy != tnc, "clone is a new object");
    CHECK(dnnl_memory_desc_equal(copy, tnc) == 1, "clone equals original");
    CHECK(dnnl_memory_desc_equal(tnc, ntc) == 0, "tnc != ntc");
    CHECK(dnnl_memory_desc_equal(tnc, zero) == 0, "tnc != zero md");
    CHECK(dnnl_memory_desc_equal(zero, zero_copy) == 1, "zero md == zero md");

    /* a clone outlives its original */
    CHECK_OK(dnnl_memory_desc_destroy(tnc));
    CHECK(dnnl_memory_desc_get_size(copy) == 5 * 3 * 4 * sizeof(float),
            "clone usable after the original is destroyed");
    CHECK(dnnl_memory_desc_get_size(zero) == 0, "zero md has size 0");

    CHECK_OK(dnnl_memory_desc_destroy(copy));
    CHECK_OK(dnnl_memory_desc_destroy(zero_copy));
    CHECK_OK(dnnl_memory_desc_destroy(ntc));
    CHECK_OK(dnnl_memory_desc_destroy(zero));
}

static void test_memory(dnnl_engine_t eng) {
    const dnnl_dim_t d[3] = {2, 3, 4};
    const size_t n = 2 * 3 * 4;
    dnnl_dims_t dims;
    dnnl_memory_desc_t md = NULL, zero = NULL, any = NULL;
    dnnl_memory_t mem = NULL;
    void *h = NULL, *mapped = NULL;
    float user[2 * 3 * 4], other[2 * 3 * 4];
    size_t i;

    memcpy(dims, d, sizeof d);
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, 3, dims, dnnl_f32, dnnl_tnc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &zero, 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &any, 3, dims, dnnl_f32, dnnl_format_tag_any));

    /* library-allocated: a non-NULL, 64-byte aligned buffer */
    REQUIRE_OK(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_ALLOCATE));
    CHECK_OK(dnnl_memory_get_data_handle(mem, &h));
    CHECK(h != NULL, "allocated memory has a buffer");
    CHECK(((uintptr_t)h % 64) == 0, "buffer %p is 64-byte aligned", h);
    {
        const_dnnl_memory_desc_t q = NULL;
        dnnl_engine_t qe = NULL;
        CHECK_OK(dnnl_memory_get_memory_desc(mem, &q));
        CHECK(q != NULL && dnnl_memory_desc_equal(q, md) == 1,
                "memory desc of the memory equals the one it was made from");
        CHECK_OK(dnnl_memory_get_engine(mem, &qe));
        CHECK(qe == eng, "memory engine");
    }
    /* map gives the buffer; writes through it are seen through the handle */
    CHECK_OK(dnnl_memory_map_data(mem, &mapped));
    CHECK(mapped == h, "mapped pointer == data handle");
    if (mapped) {
        for (i = 0; i < n; i++) ((float *)mapped)[i] = (float)i;
        CHECK_OK(dnnl_memory_unmap_data(mem, mapped));
        CHECK(((float *)h)[n - 1] == (float)(n - 1), "write through map");
    }
    /* set_data_handle to a user buffer and back */
    for (i = 0; i < n; i++) other[i] = -(float)i;
    CHECK_OK(dnnl_memory_set_data_handle(mem, other));
    CHECK_OK(dnnl_memory_get_data_handle(mem, &h));
    CHECK(h == (void *)other, "set_data_handle took the user buffer");
    CHECK_OK(dnnl_memory_map_data(mem, &mapped));
    CHECK(mapped == (void *)other && ((float *)mapped)[3] == -3.0f,
            "map after set_data_handle");
    CHECK_OK(dnnl_memory_unmap_data(mem, mapped));
    CHECK_OK(dnnl_memory_set_data_handle(mem, NULL));
    CHECK_OK(dnnl_memory_get_data_handle(mem, &h));
    CHECK(h == NULL, "set_data_handle(NULL) leaves no buffer");
    CHECK_OK(dnnl_memory_destroy(mem));

    /* user pointer: used as is, never copied */
    mem = NULL;
    for (i = 0; i < n; i++) user[i] = 0.5f * (float)i;
    CHECK_OK(dnnl_memory_create(&mem, md, eng, user));
    CHECK_OK(dnnl_memory_get_data_handle(mem, &h));
    CHECK(h == (void *)user, "user pointer kept");
    CHECK_OK(dnnl_memory_map_data(mem, &mapped));
    CHECK(mapped == (void *)user && ((float *)mapped)[5] == 2.5f,
            "map returns the user buffer");
    CHECK_OK(dnnl_memory_unmap_data(mem, mapped));
    CHECK_OK(dnnl_memory_destroy(mem));
    CHECK(user[5] == 2.5f, "user buffer untouched by destroy");

    /* DNNL_MEMORY_NONE: no buffer until one is set */
    mem = NULL;
    CHECK_OK(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_NONE));
    h = (void *)1;
    CHECK_OK(dnnl_memory_get_data_handle(mem, &h));
    CHECK(h == NULL, "DNNL_MEMORY_NONE: NULL handle");
    mapped = (void *)1;
    CHECK_OK(dnnl_memory_map_data(mem, &mapped));
    CHECK(mapped == NULL, "DNNL_MEMORY_NONE: map gives NULL");
    CHECK_OK(dnnl_memory_unmap_data(mem, mapped));
    CHECK_OK(dnnl_memory_set_data_handle(mem, user));
    CHECK_OK(dnnl_memory_get_data_handle(mem, &h));
    CHECK(h == (void *)user, "DNNL_MEMORY_NONE then set_data_handle");
    CHECK_OK(dnnl_memory_destroy(mem));

    /* zero md: an empty memory with a NULL handle, however it is made */
    mem = NULL;
    CHECK_OK(dnnl_memory_create(&mem, zero, eng, DNNL_MEMORY_ALLOCATE));
    h = (void *)1;
    CHECK_OK(dnnl_memory_get_data_handle(mem, &h));
    CHECK(h == NULL, "empty memory: NULL handle");
    mapped = (void *)1;
    CHECK_OK(dnnl_memory_map_data(mem, &mapped));
    CHECK(mapped == NULL, "empty memory: map gives NULL");
    CHECK_OK(dnnl_memory_unmap_data(mem, mapped));
    {
        const_dnnl_memory_desc_t q = NULL;
        int nd = -1;
        CHECK_OK(dnnl_memory_get_memory_desc(mem, &q));
        CHECK_OK(dnnl_memory_desc_query(q, dnnl_query_ndims_s32, &nd));
        CHECK(nd == 0, "empty memory has a zero md (ndims %d)", nd);
    }
    CHECK_OK(dnnl_memory_destroy(mem));
    mem = NULL;
    CHECK_OK(dnnl_memory_create(&mem, zero, eng, DNNL_MEMORY_NONE));
    CHECK_OK(dnnl_memory_destroy(mem));
    mem = NULL;
    CHECK_OK(dnnl_memory_create(&mem, zero, eng, user));
    CHECK_OK(dnnl_memory_destroy(mem));

    /* `any` is not a layout: no memory can be made from it */
    mem = NULL;
    CHECK_STATUS(dnnl_memory_create(&mem, any, eng, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);

    /* the memory keeps its own copy of the md */
    mem = NULL;
    {
        dnnl_memory_desc_t tmp = NULL;
        const_dnnl_memory_desc_t q = NULL;
        CHECK_OK(dnnl_memory_desc_clone(&tmp, md));
        CHECK_OK(dnnl_memory_create(&mem, tmp, eng, DNNL_MEMORY_ALLOCATE));
        CHECK_OK(dnnl_memory_desc_destroy(tmp));
        CHECK_OK(dnnl_memory_get_memory_desc(mem, &q));
        CHECK(q && dnnl_memory_desc_equal(q, md) == 1,
                "memory md valid after the creating md is destroyed");
        CHECK_OK(dnnl_memory_destroy(mem));
    }

    dnnl_memory_desc_destroy(any);
    dnnl_memory_desc_destroy(zero);
    dnnl_memory_desc_destroy(md);
    (void)other;
}

static void test_attr(void) {
    dnnl_primitive_attr_t attr = NULL, copy = NULL;
    dnnl_scratchpad_mode_t mode = (dnnl_scratchpad_mode_t)-1;
    float scale = 0.f, shift = 0.f;
    dnnl_dim_t count = -1;
    int mask = -1;
    const float *scales = NULL;
    const float wscales[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const float pscales[4] = {0.5f, 0.25f, 2.f, 4.f};

    REQUIRE_OK(dnnl_primitive_attr_create(&attr));

    /* scratchpad mode: library by default */
    CHECK_OK(dnnl_primitive_attr_get_scratchpad_mode(attr, &mode));
    CHECK(mode == dnnl_scratchpad_mode_library, "default scratchpad mode");
    CHECK_OK(dnnl_primitive_attr_set_scratchpad_mode(
            attr, dnnl_scratchpad_mode_user));
    CHECK_OK(dnnl_primitive_attr_get_scratchpad_mode(attr, &mode));
    CHECK(mode == dnnl_scratchpad_mode_user, "scratchpad mode user");
    CHECK_STATUS(dnnl_primitive_attr_set_scratchpad_mode(
                         attr, (dnnl_scratchpad_mode_t)5),
            dnnl_invalid_arguments);
    CHECK_OK(dnnl_primitive_attr_get_scratchpad_mode(attr, &mode));
    CHECK(mode == dnnl_scratchpad_mode_user, "rejected mode left no trace");

    /* RNN data qparams: default (1, 0) */
    CHECK_OK(dnnl_primitive_attr_get_rnn_data_qparams(attr, &scale, &shift));
    CHECK(scale == 1.f && shift == 0.f, "default data qparams (%g, %g)",
            (double)scale, (double)shift);
    CHECK_OK(dnnl_primitive_attr_set_rnn_data_qparams(attr, 63.f, 64.f));
    CHECK_OK(dnnl_primitive_attr_get_rnn_data_qparams(attr, &scale, &shift));
    CHECK(scale == 63.f && shift == 64.f, "data qparams (%g, %g)",
            (double)scale, (double)shift);

    /* RNN weights qparams: default count 1, mask 0, scale 1 */
    CHECK_OK(dnnl_primitive_attr_get_rnn_weights_qparams(
            attr, &count, &mask, &scales));
    CHECK(count == 1 && mask == 0 && scales && scales[0] == 1.f,
            "default weights qparams");
    CHECK_OK(dnnl_primitive_attr_set_rnn_weights_qparams(attr, 8, 24, wscales));
    count = -1, mask = -1, scales = NULL;
    CHECK_OK(dnnl_primitive_attr_get_rnn_weights_qparams(
            attr, &count, &mask, &scales));
    CHECK(count == 8 && mask == 24, "weights qparams count %ld mask %d",
            (long)count, mask);
    CHECK(scales && scales[0] == 1.f && scales[7] == 8.f,
            "weights scales stored");
    CHECK_STATUS(dnnl_primitive_attr_set_rnn_weights_qparams(attr, 8, 24, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_primitive_attr_set_rnn_weights_qparams(attr, 0, 0, wscales),
            dnnl_invalid_arguments);
    CHECK_STATUS(
            dnnl_primitive_attr_set_rnn_weights_qparams(attr, -1, 0, wscales),
            dnnl_invalid_arguments);
    CHECK_STATUS(
            dnnl_primitive_attr_set_rnn_weights_qparams(attr, 1, -1, wscales),
            dnnl_invalid_arguments);

    /* RNN projection weights qparams */
    CHECK_OK(dnnl_primitive_attr_set_rnn_weights_projection_qparams(
            attr, 4, 8, pscales));
    count = -1, mask = -1, scales = NULL;
    CHECK_OK(dnnl_primitive_attr_get_rnn_weights_projection_qparams(
            attr, &count, &mask, &scales));
    CHECK(count == 4 && mask == 8 && scales && scales[3] == 4.f,
            "projection qparams");

    /* a clone carries everything and outlives the original */
    CHECK_OK(dnnl_primitive_attr_clone(&copy, attr));
    CHECK_OK(dnnl_primitive_attr_destroy(attr));
    REQUIRE(copy != NULL, "attr clone");
    CHECK_OK(dnnl_primitive_attr_get_scratchpad_mode(copy, &mode));
    CHECK(mode == dnnl_scratchpad_mode_user, "clone: scratchpad mode");
    CHECK_OK(dnnl_primitive_attr_get_rnn_data_qparams(copy, &scale, &shift));
    CHECK(scale == 63.f && shift == 64.f, "clone: data qparams");
    count = -1, mask = -1, scales = NULL;
    CHECK_OK(dnnl_primitive_attr_get_rnn_weights_qparams(
            copy, &count, &mask, &scales));
    CHECK(count == 8 && mask == 24 && scales && scales[7] == 8.f,
            "clone: weights qparams");
    count = -1, mask = -1, scales = NULL;
    CHECK_OK(dnnl_primitive_attr_get_rnn_weights_projection_qparams(
            copy, &count, &mask, &scales));
    CHECK(count == 4 && mask == 8 && scales && scales[0] == 0.5f,
            "clone: projection qparams");
    CHECK_OK(dnnl_primitive_attr_destroy(copy));
}

/* A primitive keeps what it needs: its pd may be destroyed first. */
static void test_primitive_lifetime(dnnl_engine_t eng) {
    const dnnl_dim_t d[3] = {3, 2, 4};
    dnnl_dims_t dims;
    dnnl_memory_desc_t tnc = NULL, ntc = NULL;
    dnnl_primitive_desc_t pd = NULL, pd_copy = NULL;
    dnnl_primitive_t prim = NULL;
    const_dnnl_primitive_desc_t prim_pd = NULL;
    dnnl_stream_t s = NULL;
    dnnl_memory_t a = NULL, b = NULL;
    float src[24], dst[24];
    dnnl_exec_arg_t args[2];
    int i;

    memcpy(dims, d, sizeof d);
    for (i = 0; i < 24; i++) src[i] = (float)i, dst[i] = -1.f;
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&tnc, 3, dims, dnnl_f32, dnnl_tnc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&ntc, 3, dims, dnnl_f32, dnnl_ntc));
    REQUIRE_OK(dnnl_reorder_primitive_desc_create(&pd, tnc, eng, ntc, eng, NULL));
    CHECK_OK(dnnl_primitive_desc_clone(&pd_copy, pd));
    REQUIRE_OK(dnnl_primitive_create(&prim, pd));
    CHECK_OK(dnnl_primitive_desc_destroy(pd));
    CHECK_OK(dnnl_primitive_get_primitive_desc(prim, &prim_pd));
    CHECK(prim_pd != NULL
                    && dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(
                                                      prim_pd, dnnl_query_dst_md, 0),
                               ntc) == 1,
            "primitive's pd usable after the creating pd is destroyed");
    CHECK(pd_copy != NULL
                    && dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(
                                                      pd_copy, dnnl_query_src_md, 0),
                               tnc) == 1,
            "pd clone usable after the original is destroyed");

    REQUIRE_OK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));
    REQUIRE_OK(dnnl_memory_create(&a, tnc, eng, src));
    REQUIRE_OK(dnnl_memory_create(&b, ntc, eng, dst));
    args[0].arg = DNNL_ARG_FROM, args[0].memory = a;
    args[1].arg = DNNL_ARG_TO, args[1].memory = b;
    CHECK_OK(dnnl_primitive_execute(prim, s, 2, args));
    CHECK_OK(dnnl_stream_wait(s));
    /* tnc (t, n, c) -> ntc: element (t, n, c) moves to (n * 3 + t) * 4 + c */
    CHECK(dst[(1 * 3 + 2) * 4 + 3] == src[(2 * 2 + 1) * 4 + 3],
            "reorder ran after its pd was destroyed");

    CHECK_OK(dnnl_primitive_destroy(prim));
    CHECK_OK(dnnl_primitive_desc_destroy(pd_copy));
    CHECK_OK(dnnl_memory_destroy(a));
    CHECK_OK(dnnl_memory_destroy(b));
    CHECK_OK(dnnl_stream_destroy(s));
    dnnl_memory_desc_destroy(tnc);
    dnnl_memory_desc_destroy(ntc);
}

static void test_destroy_null(void) {
    CHECK_OK(dnnl_engine_destroy(NULL));
    CHECK_OK(dnnl_stream_destroy(NULL));
    CHECK_OK(dnnl_memory_desc_destroy(NULL));
    CHECK_OK(dnnl_memory_destroy(NULL));
    CHECK_OK(dnnl_primitive_attr_destroy(NULL));
    CHECK_OK(dnnl_primitive_desc_destroy(NULL));
    CHECK_OK(dnnl_primitive_destroy(NULL));
}

int main(void) {
    dnnl_engine_t eng = NULL;

    CHECK(dnnl_version() != NULL, "dnnl_version() is not NULL");
    /* the header's runtime is the one the library reports (oxidnn: SEQ, see dnnl_config.h);
     * only with the library's own headers (built against oneDNN's, the values differ) */
#if defined(OXIDNN_H)
    if (dnnl_version())
        CHECK(dnnl_version()->cpu_runtime == DNNL_CPU_RUNTIME
                        && DNNL_CPU_THREADING_RUNTIME == DNNL_CPU_RUNTIME,
                "cpu_runtime %u, DNNL_CPU_RUNTIME %u", dnnl_version()->cpu_runtime,
                (unsigned)DNNL_CPU_RUNTIME);
#endif
    test_engine();
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    test_stream(eng);
    test_memory_desc();
    test_memory(eng);
    test_attr();
    test_primitive_lifetime(eng);
    test_destroy_null();
    CHECK_OK(dnnl_engine_destroy(eng));
    return check_summary();
}
