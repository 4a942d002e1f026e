/*
 * smoke.c - a minimal oneDNN v3 C program for the ABI proof.
 *
 * It is compiled against the REAL oneDNN headers and linked against the real libdnnl.so.3, then
 * run with oxidnn's library standing in for libdnnl.so.3 (tests/abi_onednn.rs, ctest label
 * vs_onednn). It uses only oneDNN's API: version, engine, stream, memory descriptor create /
 * query / size, and the status strings. It prints what it sees and exits 0 when every result is
 * the one oneDNN documents.
 */
#include <stdio.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"

static int failures = 0;

#define EXPECT(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "FAIL line %d: %s\n", __LINE__, #cond); \
            failures++; \
        } \
    } while (0)

#define EXPECT_STATUS(call, want) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != (want)) { \
            fprintf(stderr, "FAIL line %d: %s returned %s, expected %s\n", __LINE__, \
                    #call, dnnl_status2str(s_), dnnl_status2str(want)); \
            failures++; \
        } \
    } while (0)

int main(void) {
    const dnnl_version_t *v = dnnl_version();
    dnnl_engine_t engine = NULL;
    dnnl_engine_kind_t kind = dnnl_any_engine;
    dnnl_stream_t stream = NULL;
    dnnl_engine_t stream_engine = NULL;
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {2, 3, 4};
    const dnnl_dim_t *qdims = NULL;
    const dnnl_dim_t *qstrides = NULL;
    int ndims = 0;
    dnnl_data_type_t dt = dnnl_data_type_undef;
    dnnl_format_kind_t fk = dnnl_format_kind_undef;

    EXPECT(v != NULL);
    if (v) printf("version: %d.x (runtime flags cpu=%u)\n", v->major, v->cpu_runtime);
    EXPECT(v && v->major == 3);

    printf("cpu engines: %zu\n", dnnl_engine_get_count(dnnl_cpu));
    EXPECT(dnnl_engine_get_count(dnnl_cpu) == 1);
    EXPECT_STATUS(dnnl_engine_create(NULL, dnnl_cpu, 0), dnnl_invalid_arguments);
    EXPECT_STATUS(dnnl_engine_create(&engine, dnnl_cpu, 0), dnnl_success);
    EXPECT_STATUS(dnnl_engine_get_kind(engine, &kind), dnnl_success);
    EXPECT(kind == dnnl_cpu);

    EXPECT_STATUS(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags), dnnl_success);
    EXPECT_STATUS(dnnl_stream_get_engine(stream, &stream_engine), dnnl_success);
    EXPECT(stream_engine == engine);
    EXPECT_STATUS(dnnl_stream_wait(stream), dnnl_success);

    EXPECT_STATUS(dnnl_memory_desc_create_with_tag(&md, 3, dims, dnnl_f32, dnnl_abc), dnnl_success);
    EXPECT_STATUS(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &ndims), dnnl_success);
    EXPECT_STATUS(dnnl_memory_desc_query(md, dnnl_query_dims, &qdims), dnnl_success);
    EXPECT_STATUS(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt), dnnl_success);
    EXPECT_STATUS(dnnl_memory_desc_query(md, dnnl_query_format_kind, &fk), dnnl_success);
    EXPECT_STATUS(dnnl_memory_desc_query(md, dnnl_query_strides, &qstrides), dnnl_success);
    EXPECT(ndims == 3);
    EXPECT(qdims && qdims[0] == 2 && qdims[1] == 3 && qdims[2] == 4);
    EXPECT(qstrides && qstrides[0] == 12 && qstrides[1] == 4 && qstrides[2] == 1);
    EXPECT(dt == dnnl_f32);
    EXPECT(fk == dnnl_blocked);
    EXPECT(dnnl_memory_desc_get_size(md) == 2 * 3 * 4 * sizeof(float));
    printf("memory desc: ndims %d, dims %lld x %lld x %lld, %s, size %zu bytes\n", ndims,
            qdims ? (long long)qdims[0] : -1LL, qdims ? (long long)qdims[1] : -1LL,
            qdims ? (long long)qdims[2] : -1LL, dnnl_dt2str(dt), dnnl_memory_desc_get_size(md));

    printf("status strings: %s %s %s\n", dnnl_status2str(dnnl_success),
            dnnl_status2str(dnnl_invalid_arguments), dnnl_status2str(dnnl_unimplemented));
    EXPECT(strcmp(dnnl_status2str(dnnl_success), "success") == 0);
    EXPECT(strcmp(dnnl_status2str(dnnl_invalid_arguments), "invalid_arguments") == 0);

    EXPECT_STATUS(dnnl_memory_desc_destroy(md), dnnl_success);
    EXPECT_STATUS(dnnl_stream_destroy(stream), dnnl_success);
    EXPECT_STATUS(dnnl_engine_destroy(engine), dnnl_success);
    EXPECT_STATUS(dnnl_engine_destroy(NULL), dnnl_success);

    printf("%s (%d failures)\n", failures ? "FAILED" : "OK", failures);
    return failures ? 1 : 0;
}
