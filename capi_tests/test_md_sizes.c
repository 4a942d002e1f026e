/*
 * test_md_sizes.c - memory descriptor sizes at the edges of size_t / int64:
 * every descriptor whose byte size (or the extent an access through it
 * reaches) does not fit is rejected at creation, so get_size never lies and
 * no buffer the library allocates is smaller than what it writes.
 *
 * Statuses measured on the real oneDNN: 3.13 rejects element counts and
 * strides·dims whose byte size wraps (invalid_arguments), 3.2 accepted them
 * (and reported wrapped sizes). oxidnn is stricter than both where oneDNN
 * accepts a size no process can address: every byte size must fit in int64
 * (and ssize_t), sub-memory offsets + dims must not wrap, and a library
 * allocation covers the whole extent of a sub-memory (oneDNN allocates
 * get_size bytes, which omits the sub-memory's offset). Those checks run
 * only on oxidnn (check_running_on_oxidnn()).
 *
 * Regressions (security review, issue 30 item 1): {2^62+1, 4, 1} f32 was
 * accepted with get_size 16 (tnc) / 4 (ntc) and a reorder into the allocated
 * memory wrote past it; dims {2, 1, 1} with strides {2^61+1, 1, 1} gave size
 * 8 and a SIGSEGV. Where the library still accepts such a descriptor, the
 * test goes on to the reorder that used to overflow, so valgrind / a crash
 * shows it.
 */
#include "check.h"

#include <stdint.h>

#define P(k) ((int64_t)1 << (k))

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static dnnl_status_t with_tag(dnnl_memory_desc_t *md, int nd, const int64_t *d,
        dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_dims_t dims = {0};
    for (int k = 0; k < nd; k++) dims[k] = d[k];
    *md = NULL;
    return dnnl_memory_desc_create_with_tag(md, nd, dims, dt, tag);
}

static dnnl_status_t with_strides(dnnl_memory_desc_t *md, int nd,
        const int64_t *d, const int64_t *s, dnnl_data_type_t dt) {
    dnnl_dims_t dims = {0}, strides = {0};
    for (int k = 0; k < nd; k++) dims[k] = d[k], strides[k] = s[k];
    *md = NULL;
    return dnnl_memory_desc_create_with_strides(md, nd, dims, dt, strides);
}

/* The status of creating a descriptor with a tag (the descriptor is destroyed). */
static dnnl_status_t tag_status(int nd, const int64_t *d, dnnl_data_type_t dt,
        dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md;
    dnnl_status_t s = with_tag(&md, nd, d, dt, tag);
    dnnl_memory_desc_destroy(md);
    return s;
}

static dnnl_status_t strides_status(
        int nd, const int64_t *d, const int64_t *s, dnnl_data_type_t dt) {
    dnnl_memory_desc_t md;
    dnnl_status_t st = with_strides(&md, nd, d, s, dt);
    dnnl_memory_desc_destroy(md);
    return st;
}

/*
 * What used to overflow the heap: library-allocated memory for `dst` filled
 * by a reorder from a dense source of the same dims (only reached while the
 * library accepts such a descriptor). Returns the reorder's status.
 */
static dnnl_status_t reorder_into_allocated(const_dnnl_memory_desc_t dst) {
    const dnnl_dims_t *dims = NULL;
    int nd = 0;
    dnnl_memory_desc_t src_md = NULL;
    dnnl_memory_t src = NULL, out = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_status_t s;
    REQUIRE_OK(dnnl_memory_desc_query(dst, dnnl_query_ndims_s32, &nd));
    REQUIRE_OK(dnnl_memory_desc_query(dst, dnnl_query_dims, &dims));
    REQUIRE_OK(dnnl_memory_desc_create_with_strides(&src_md, nd, *dims, dnnl_f32, NULL));
    s = dnnl_memory_create(&src, src_md, eng, DNNL_MEMORY_ALLOCATE);
    if (s == dnnl_success) s = dnnl_memory_create(&out, dst, eng, DNNL_MEMORY_ALLOCATE);
    if (s == dnnl_success) s = dnnl_reorder_primitive_desc_create(&pd, src_md, eng, dst, eng, NULL);
    if (s == dnnl_success) s = dnnl_primitive_create(&prim, pd);
    if (s == dnnl_success) {
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, out}};
        s = dnnl_primitive_execute(prim, strm, 2, args);
        if (s == dnnl_success) s = dnnl_stream_wait(strm);
    }
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(out);
    dnnl_memory_destroy(src);
    dnnl_memory_desc_destroy(src_md);
    return s;
}

/* Issue 30 item 1: element counts past 2^64 with a tag. */
static void check_wrapping_element_counts(void) {
    const int64_t d[] = {P(62) + 1, 4, 1};
    const dnnl_format_tag_t tags[] = {dnnl_tnc, dnnl_ntc};
    for (int k = 0; k < 2; k++) {
        dnnl_memory_desc_t md;
        dnnl_status_t s = with_tag(&md, 3, d, dnnl_f32, tags[k]);
        CHECK_STATUS_V(s, dnnl_invalid_arguments, dnnl_success);
        if (s == dnnl_success && check_running_on_oxidnn()) {
            CHECK(0, "{2^62+1, 4, 1} accepted with get_size %zu", dnnl_memory_desc_get_size(md));
            CHECK_OK(reorder_into_allocated(md));
        }
        dnnl_memory_desc_destroy(md);
    }
    {
        /* with explicit dense strides, and with NULL strides (dense row-major) */
        const int64_t s[] = {4, 1, 1};
        dnnl_dims_t dims = {P(62) + 1, 4, 1};
        dnnl_memory_desc_t md = NULL;
        CHECK_STATUS_V(strides_status(3, d, s, dnnl_f32), dnnl_invalid_arguments, dnnl_success);
        CHECK_STATUS_V(dnnl_memory_desc_create_with_strides(&md, 3, dims, dnnl_f32, NULL),
                dnnl_invalid_arguments, dnnl_success);
        dnnl_memory_desc_destroy(md);
    }
}

/* Issue 30 item 1: strides·dims past 2^64. */
static void check_wrapping_strides(void) {
    const int64_t d[] = {2, 1, 1}, s[] = {P(61) + 1, 1, 1};
    dnnl_memory_desc_t md;
    dnnl_status_t st = with_strides(&md, 3, d, s, dnnl_f32);
    CHECK_STATUS_V(st, dnnl_invalid_arguments, dnnl_success);
    if (st == dnnl_success && check_running_on_oxidnn()) {
        CHECK(0, "strides {2^61+1, 1, 1} accepted with get_size %zu", dnnl_memory_desc_get_size(md));
        CHECK_OK(reorder_into_allocated(md));
    }
    dnnl_memory_desc_destroy(md);
    {
        const int64_t d1[] = {2}, s1[] = {P(62)};
        CHECK_STATUS_V(strides_status(1, d1, s1, dnnl_f32), dnnl_invalid_arguments, dnnl_success);
    }
}

/* Element counts that fit in int64 whose byte sizes do not. */
static void check_bytes_past_int64(void) {
    const int64_t a[] = {P(61), 2}, b[] = {P(31), P(31)}, z[] = {0, P(40), P(40)};
    CHECK_STATUS_V(tag_status(2, a, dnnl_f32, dnnl_ab), dnnl_invalid_arguments, dnnl_success);
    CHECK_STATUS_V(tag_status(2, b, dnnl_f32, dnnl_ab), dnnl_invalid_arguments, dnnl_success);
    CHECK_STATUS_V(tag_status(2, b, dnnl_f32, dnnl_ba), dnnl_invalid_arguments, dnnl_success);
    /* an empty tensor whose tag strides (zero dims count as 1) do not fit */
    CHECK_STATUS_V(tag_status(3, z, dnnl_f32, dnnl_abc), dnnl_invalid_arguments, dnnl_success);
    {
        const int64_t u[] = {P(62)};
        dnnl_memory_desc_t md;
        REQUIRE_OK(with_tag(&md, 1, u, dnnl_u8, dnnl_a));
        CHECK(dnnl_memory_desc_get_size(md) == (size_t)P(62), "2^62 u8: get_size %zu",
                dnnl_memory_desc_get_size(md));
        dnnl_memory_desc_destroy(md);
    }
    {
        /* size-1 dims do not count their stride (oneDNN's get_size) */
        const int64_t d[] = {1}, s[] = {P(62)};
        dnnl_memory_desc_t md;
        REQUIRE_OK(with_strides(&md, 1, d, s, dnnl_f32));
        CHECK(dnnl_memory_desc_get_size(md) == 4, "{1} stride 2^62: get_size %zu",
                dnnl_memory_desc_get_size(md));
        dnnl_memory_desc_destroy(md);
    }
    if (!check_running_on_oxidnn()) return;
    /* oneDNN accepts these byte sizes of 2^63 (past int64 / ssize_t); oxidnn does not */
    {
        const int64_t f[] = {P(61)}, g[] = {P(60), 2}, s[] = {P(60)}, d2[] = {2};
        CHECK_STATUS(tag_status(1, f, dnnl_f32, dnnl_a), dnnl_invalid_arguments);
        CHECK_STATUS(tag_status(2, g, dnnl_f32, dnnl_ab), dnnl_invalid_arguments);
        CHECK_STATUS(strides_status(1, d2, s, dnnl_f32), dnnl_invalid_arguments);
    }
    {
        /* 3.13 rejects this 2-D size (6.9e18 bytes); it fits in int64 */
        const int64_t f[] = {P(59), 3};
        dnnl_memory_desc_t md;
        REQUIRE_OK(with_tag(&md, 2, f, dnnl_f32, dnnl_ab));
        CHECK(dnnl_memory_desc_get_size(md) == (size_t)3 * (size_t)P(61),
                "{2^59, 3} f32: get_size %zu", dnnl_memory_desc_get_size(md));
        dnnl_memory_desc_destroy(md);
    }
}

/* A size that fits but no process can allocate: out_of_memory, not a crash. */
static void check_huge_allocation(void) {
    const int64_t d[] = {P(62)}, m[] = {INT64_MAX};
    dnnl_memory_desc_t md;
    dnnl_memory_t mem = NULL;
    if (!check_running_on_oxidnn()) return;
    REQUIRE_OK(with_tag(&md, 1, d, dnnl_u8, dnnl_a));
    CHECK_STATUS(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_ALLOCATE), dnnl_out_of_memory);
    CHECK(mem == NULL, "no memory object after out_of_memory");
    dnnl_memory_desc_destroy(md);
    REQUIRE_OK(with_tag(&md, 1, m, dnnl_u8, dnnl_a));
    CHECK(dnnl_memory_desc_get_size(md) == (size_t)INT64_MAX, "2^63-1 u8: get_size %zu",
            dnnl_memory_desc_get_size(md));
    CHECK_STATUS(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_ALLOCATE), dnnl_out_of_memory);
    dnnl_memory_desc_destroy(md);
}

/* Sub-memory offsets and offset + dims that wrap. */
static void check_submemory_offsets(void) {
    const int64_t pd[] = {4, 4};
    dnnl_memory_desc_t parent, sub = NULL;
    REQUIRE_OK(with_tag(&parent, 2, pd, dnnl_f32, dnnl_ab));
    {
        dnnl_dims_t ok_dims = {2, 2}, ok_off = {2, 2};
        CHECK_OK(dnnl_memory_desc_create_submemory(&sub, parent, ok_dims, ok_off));
        dnnl_memory_desc_destroy(sub);
        sub = NULL;
    }
    if (check_running_on_oxidnn()) {
        /* oneDNN (3.2 and 3.13) accepts these: offset + dims wraps below the parent's dim */
        dnnl_dims_t d1 = {2, 2}, o1 = {INT64_MAX, 0}, o2 = {INT64_MAX - 1, 1};
        dnnl_dims_t d3 = {INT64_MAX, 2}, o3 = {2, 0};
        dnnl_status_t s = dnnl_memory_desc_create_submemory(&sub, parent, d1, o1);
        CHECK_STATUS(s, dnnl_invalid_arguments);
        if (s == dnnl_success) CHECK_OK(reorder_into_allocated(sub));
        dnnl_memory_desc_destroy(sub);
        sub = NULL;
        CHECK_STATUS(dnnl_memory_desc_create_submemory(&sub, parent, d1, o2), dnnl_invalid_arguments);
        dnnl_memory_desc_destroy(sub);
        sub = NULL;
        CHECK_STATUS(dnnl_memory_desc_create_submemory(&sub, parent, d3, o3), dnnl_invalid_arguments);
        dnnl_memory_desc_destroy(sub);
        sub = NULL;
    }
    dnnl_memory_desc_destroy(parent);
}

/*
 * Library memory for a sub-memory descriptor covers its offset: a window at
 * the end of a tnc {5, 3, 4} has get_size 96 bytes (oneDNN's formula) but is
 * written up to byte 240.
 */
static void check_submemory_allocation(void) {
    const int64_t pd[] = {5, 3, 4};
    dnnl_dims_t dims = {2, 3, 4}, off = {3, 0, 0};
    dnnl_memory_desc_t parent, sub = NULL;
    if (!check_running_on_oxidnn()) return;
    REQUIRE_OK(with_tag(&parent, 3, pd, dnnl_f32, dnnl_tnc));
    REQUIRE_OK(dnnl_memory_desc_create_submemory(&sub, parent, dims, off));
    CHECK(dnnl_memory_desc_get_size(sub) == 96, "window get_size %zu", dnnl_memory_desc_get_size(sub));
    CHECK_OK(reorder_into_allocated(sub));
    dnnl_memory_desc_destroy(sub);
    dnnl_memory_desc_destroy(parent);
}

int main(void) {
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    check_wrapping_element_counts();
    check_wrapping_strides();
    check_bytes_past_int64();
    check_huge_allocation();
    check_submemory_offsets();
    check_submemory_allocation();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return check_summary();
}
