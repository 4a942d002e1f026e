/*
 * test_settings.c - oneDNN's library-wide calls: CPU ISA cap (set once,
 * before first use) and ISA hints, default fpmath mode (new attributes start
 * with it), primitive cache capacity, cache blobs (not on the CPU engine),
 * verbose and JIT switches, dnnl_data_type_size, dnnl_memory_desc_reshape.
 * The ISA calls come first: the cap is taken only before the library first
 * used it.
 */
#include <stdint.h>
#include <stdio.h>

#include "check.h"

#define NEW_API (DNNL_VERSION_MAJOR > 3 || DNNL_VERSION_MINOR >= 13)

static void test_isa(void) {
    CHECK_STATUS(dnnl_set_max_cpu_isa((dnnl_cpu_isa_t)12345), dnnl_invalid_arguments);
    CHECK_OK(dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2));
    CHECK_STATUS(dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_set_max_cpu_isa(dnnl_cpu_isa_sse41), dnnl_invalid_arguments);
    CHECK(dnnl_get_effective_cpu_isa() == dnnl_cpu_isa_avx2
                    || dnnl_get_effective_cpu_isa() == dnnl_cpu_isa_avx
                    || dnnl_get_effective_cpu_isa() == dnnl_cpu_isa_sse41,
            "effective ISA %#x above the avx2 cap", (unsigned)dnnl_get_effective_cpu_isa());
    /* any value is taken once; afterwards runtime_error */
    CHECK_OK(dnnl_set_cpu_isa_hints(dnnl_cpu_isa_prefer_ymm));
    CHECK(dnnl_get_cpu_isa_hints() == dnnl_cpu_isa_prefer_ymm, "hints");
    CHECK_STATUS(dnnl_set_cpu_isa_hints(dnnl_cpu_isa_no_hints), dnnl_runtime_error);
    CHECK(dnnl_get_cpu_isa_hints() == dnnl_cpu_isa_prefer_ymm, "hints changed");
}

static void test_fpmath(void) {
    dnnl_fpmath_mode_t mode = (dnnl_fpmath_mode_t)-1;
    dnnl_primitive_attr_t attr = NULL;
    CHECK_OK(dnnl_get_default_fpmath_mode(&mode));
    CHECK(mode == dnnl_fpmath_mode_strict, "default fpmath %d", (int)mode);
    CHECK_STATUS(dnnl_get_default_fpmath_mode(NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_set_default_fpmath_mode((dnnl_fpmath_mode_t)99),
            dnnl_invalid_arguments);
    CHECK_OK(dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_bf16));
    CHECK_OK(dnnl_get_default_fpmath_mode(&mode));
    CHECK(mode == dnnl_fpmath_mode_bf16, "fpmath after set %d", (int)mode);
    /* a new attribute starts with the default */
    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
    CHECK_OK(dnnl_primitive_attr_get_fpmath_mode(attr, &mode));
    CHECK(mode == dnnl_fpmath_mode_bf16, "new attr fpmath %d", (int)mode);
    dnnl_primitive_attr_destroy(attr);
    CHECK_OK(dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_strict));
}

static void test_cache(void) {
    int cap = -5;
    CHECK_OK(dnnl_get_primitive_cache_capacity(&cap));
    CHECK(cap == 1024, "default capacity %d", cap);
    CHECK_STATUS(dnnl_get_primitive_cache_capacity(NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_set_primitive_cache_capacity(-1), dnnl_invalid_arguments);
    CHECK_OK(dnnl_set_primitive_cache_capacity(0));
    CHECK_OK(dnnl_get_primitive_cache_capacity(&cap));
    CHECK(cap == 0, "capacity %d", cap);
    CHECK_OK(dnnl_set_primitive_cache_capacity(1024));
    CHECK_STATUS(dnnl_primitive_create_from_cache_blob(NULL, NULL, 0, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_primitive_get_cache_blob(NULL, NULL, NULL), dnnl_invalid_arguments);
}

static void test_switches(void) {
    CHECK_OK(dnnl_set_verbose(0));
    CHECK_STATUS(dnnl_set_verbose(-1), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_set_verbose(5), dnnl_invalid_arguments);
    CHECK_OK(dnnl_set_jit_dump(0));
    CHECK_OK(dnnl_set_jit_dump(7));
    CHECK_OK(dnnl_set_jit_dump(0));
    CHECK_OK(dnnl_set_jit_profiling_flags(0));
    CHECK_OK(dnnl_set_jit_profiling_flags(1));
    CHECK_STATUS(dnnl_set_jit_profiling_flags(0x99), dnnl_invalid_arguments);
    CHECK_OK(dnnl_set_jit_profiling_flags(0));
    CHECK_OK(dnnl_set_jit_profiling_jitdumpdir("/tmp"));
#if NEW_API
    {
        int on = -1;
        CHECK_OK(dnnl_verbose_profiling_enabled(&on));
        CHECK(on == 0, "verbose profiling %d", on);
        CHECK_STATUS(dnnl_verbose_profiling_enabled(NULL), dnnl_invalid_arguments);
    }
#endif
}

static void test_data_type_size(void) {
    CHECK(dnnl_data_type_size(dnnl_f16) == 2 && dnnl_data_type_size(dnnl_bf16) == 2,
            "16-bit sizes");
    CHECK(dnnl_data_type_size(dnnl_f32) == 4 && dnnl_data_type_size(dnnl_s32) == 4,
            "32-bit sizes");
    CHECK(dnnl_data_type_size(dnnl_s8) == 1 && dnnl_data_type_size(dnnl_u8) == 1,
            "8-bit sizes");
    CHECK(dnnl_data_type_size(dnnl_f64) == 8 && dnnl_data_type_size(dnnl_boolean) == 1,
            "f64 / boolean sizes");
    CHECK(dnnl_data_type_size(dnnl_data_type_undef) == (size_t)-1, "undef size");
    CHECK(dnnl_data_type_size((dnnl_data_type_t)99) == (size_t)-1, "unknown size");
}

static void strides_are(const_dnnl_memory_desc_t md, int n, const dnnl_dim_t *want,
        const char *what) {
    const dnnl_dims_t *st = NULL;
    int i, same = 1;
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_strides, &st));
    for (i = 0; st && i < n; i++) same &= (*st)[i] == want[i];
    CHECK(st && same, "%s: strides differ", what);
}

static void test_reshape(void) {
    /* oneDNN's prototypes take whole dnnl_dims_t arrays */
    const dnnl_dims_t d = {2, 3, 4}, d2 = {6, 4}, d3 = {5, 4}, d4 = {2, 1, 3, 4}, d5 = {2, 12};
    const dnnl_dim_t s2[2] = {4, 1}, s4[4] = {12, 12, 4, 1};
    dnnl_memory_desc_t abc = NULL, acb = NULL, out = NULL;
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&abc, 3, d, dnnl_f32, dnnl_abc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&acb, 3, d, dnnl_f32, dnnl_acb));
    CHECK_OK(dnnl_memory_desc_reshape(&out, abc, 2, d2));
    if (out) strides_are(out, 2, s2, "abc -> {6, 4}");
    dnnl_memory_desc_destroy(out);
    out = NULL;
    CHECK_OK(dnnl_memory_desc_reshape(&out, abc, 4, d4));
    if (out) strides_are(out, 4, s4, "abc -> {2, 1, 3, 4}");
    dnnl_memory_desc_destroy(out);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, abc, 2, d3), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, acb, 2, d2), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, acb, 2, d5), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, abc, 0, d2), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_reshape(NULL, abc, 2, d2), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, NULL, 2, d2), dnnl_invalid_arguments);
    dnnl_memory_desc_destroy(abc);
    dnnl_memory_desc_destroy(acb);
}

int main(void) {
    test_isa();
    test_fpmath();
    test_cache();
    test_switches();
    test_data_type_size();
    test_reshape();
    return check_summary();
}
