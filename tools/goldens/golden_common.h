/*
 * golden_common.h - helpers shared by the golden generators (gen_lstm_goldens.c,
 * gen_cells_goldens.c): error checks, the deterministic input generator, plain
 * tensors, memory access, reorders and the text writer. Static functions only;
 * include once per program. Public oneDNN C API only.
 */
#ifndef OXIDNN_GOLDEN_COMMON_H
#define OXIDNN_GOLDEN_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

/* ------------------------------------------------------------------------ */
/* error handling                                                            */

static const char *status_str(dnnl_status_t s) {
    switch ((int)s) {
        case 0: return "success";
        case 1: return "out_of_memory";
        case 2: return "invalid_arguments";
        case 3: return "unimplemented";
        case 4: return "last_impl_reached";
        case 5: return "runtime_error";
        case 6: return "not_required";
        case 7: return "invalid_graph";
        case 8: return "invalid_graph_op";
        case 9: return "invalid_shape";
        case 10: return "invalid_data_type";
        default: return "unknown status";
    }
}

#define CHECK(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s:%d: %s failed: status %d (%s)\n", __FILE__, \
                    __LINE__, #call, (int)s_, status_str(s_)); \
            exit(2); \
        } \
    } while (0)

#define FAIL(...) \
    do { \
        fprintf(stderr, "error: " __VA_ARGS__); \
        fputc('\n', stderr); \
        exit(3); \
    } while (0)

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) FAIL("out of memory (%zu bytes)", n);
    return p;
}

/* ------------------------------------------------------------------------ */
/* deterministic generator (see header comment)                              */

static float gen_value(uint32_t seed, uint32_t i, float scale) {
    uint32_t h = i * 2654435761u ^ (seed * 40503u + 0x9E3779B9u);
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return ((float)(h & 0xFFFFu) / 65535.0f - 0.5f) * scale;
}

static void gen_fill(float *buf, size_t n, uint32_t seed, float scale) {
    for (size_t i = 0; i < n; ++i)
        buf[i] = gen_value(seed, (uint32_t)i, scale);
}

/* ------------------------------------------------------------------------ */
/* a plain tensor: logical dims, host values, oneDNN desc and memory          */

#define MAX_ND 5

typedef struct {
    const char *name;
    dnnl_data_type_t dt;    /* f32, bf16 or f16 */
    int ndims;
    dnnl_dims_t dims;
    dnnl_format_tag_t tag;
    size_t nelems;
    float *host;            /* host copy, canonical plain order */
    dnnl_memory_desc_t md;  /* plain user md */
    dnnl_memory_t mem;      /* user memory (plain) */
} tensor_t;

static size_t dt_size(dnnl_data_type_t dt) {
    return dt == dnnl_f32 ? 4 : 2;
}

/* A plain tensor of type `dt` (f32, bf16 or f16); host values stay f32. */
static void tensor_init_dt(tensor_t *t, const char *name, int ndims,
        const int64_t *dims, dnnl_format_tag_t tag, dnnl_data_type_t dt,
        dnnl_engine_t eng) {
    memset(t, 0, sizeof(*t));
    t->name = name;
    t->dt = dt;
    t->ndims = ndims;
    t->tag = tag;
    t->nelems = 1;
    for (int k = 0; k < ndims; ++k) {
        t->dims[k] = dims[k];
        t->nelems *= (size_t)dims[k];
    }
    t->host = (float *)xmalloc(t->nelems * sizeof(float));
    memset(t->host, 0, t->nelems * sizeof(float));
    CHECK(dnnl_memory_desc_create_with_tag(&t->md, ndims, t->dims, dt, tag));
    if (dnnl_memory_desc_get_size(t->md) != t->nelems * dt_size(dt))
        FAIL("%s: unexpected plain size", name);
    CHECK(dnnl_memory_create(&t->mem, t->md, eng, DNNL_MEMORY_ALLOCATE));
}

static void tensor_init(tensor_t *t, const char *name, int ndims,
        const int64_t *dims, dnnl_format_tag_t tag, dnnl_engine_t eng) {
    tensor_init_dt(t, name, ndims, dims, tag, dnnl_f32, eng);
}

static void tensor_fini(tensor_t *t) {
    if (t->mem) CHECK(dnnl_memory_destroy(t->mem));
    if (t->md) CHECK(dnnl_memory_desc_destroy(t->md));
    free(t->host);
    memset(t, 0, sizeof(*t));
}

static void mem_write(dnnl_memory_t mem, const float *src, size_t n) {
    void *p = NULL;
    CHECK(dnnl_memory_map_data(mem, &p));
    memcpy(p, src, n * sizeof(float));
    CHECK(dnnl_memory_unmap_data(mem, p));
}

static void mem_read(dnnl_memory_t mem, float *dst, size_t n) {
    void *p = NULL;
    CHECK(dnnl_memory_map_data(mem, &p));
    memcpy(dst, p, n * sizeof(float));
    CHECK(dnnl_memory_unmap_data(mem, p));
}

/* bf16 and f16 conversions, rounding to nearest even (NaN stays NaN). */
static uint16_t f32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static float bf16_to_f32(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

__extension__ typedef _Float16 golden_f16_t;

/* `v` rounded to type `dt`. */
static float round_to(dnnl_data_type_t dt, float v) {
    if (dt == dnnl_bf16) return bf16_to_f32(f32_to_bf16(v));
    if (dt == dnnl_f16) return (float)(golden_f16_t)v;
    return v;
}

static void round_all(dnnl_data_type_t dt, float *v, size_t n) {
    for (size_t i = 0; i < n; ++i)
        v[i] = round_to(dt, v[i]);
}

/* Writes f32 host values into a tensor's memory of its type. */
static void tensor_write(const tensor_t *t, const float *src) {
    void *p = NULL;
    CHECK(dnnl_memory_map_data(t->mem, &p));
    for (size_t i = 0; i < t->nelems; ++i) {
        if (t->dt == dnnl_bf16) ((uint16_t *)p)[i] = f32_to_bf16(src[i]);
        else if (t->dt == dnnl_f16) ((golden_f16_t *)p)[i] = (golden_f16_t)src[i];
        else ((float *)p)[i] = src[i];
    }
    CHECK(dnnl_memory_unmap_data(t->mem, p));
}

/* Reads a tensor's memory of its type into f32 host values. */
static void tensor_read(const tensor_t *t, float *dst) {
    void *p = NULL;
    CHECK(dnnl_memory_map_data(t->mem, &p));
    for (size_t i = 0; i < t->nelems; ++i) {
        if (t->dt == dnnl_bf16) dst[i] = bf16_to_f32(((uint16_t *)p)[i]);
        else if (t->dt == dnnl_f16) dst[i] = (float)((golden_f16_t *)p)[i];
        else dst[i] = ((float *)p)[i];
    }
    CHECK(dnnl_memory_unmap_data(t->mem, p));
}

/* Fills a tensor's memory with NaN (catches unwritten outputs). */
static void tensor_fill_nan(const tensor_t *t) {
    float *nan = (float *)xmalloc(t->nelems * sizeof(float));
    for (size_t i = 0; i < t->nelems; ++i)
        nan[i] = NAN;
    tensor_write(t, nan);
    free(nan);
}

static void mem_fill_nan(dnnl_memory_t mem, size_t n) {
    void *p = NULL;
    CHECK(dnnl_memory_map_data(mem, &p));
    float *f = (float *)p;
    for (size_t i = 0; i < n; ++i)
        f[i] = NAN;
    CHECK(dnnl_memory_unmap_data(mem, p));
}

/* Reorders user memory into a memory with layout `want` (as the oneDNN
 * examples do for weights given as `any`). Returns the user memory itself
 * when no reorder is needed; *owned tells whether the caller must free. */
static dnnl_memory_t reorder_to(dnnl_engine_t eng, dnnl_stream_t strm,
        const tensor_t *t, const_dnnl_memory_desc_t want, int *owned) {
    if (dnnl_memory_desc_equal(t->md, want)) {
        *owned = 0;
        return t->mem;
    }
    dnnl_memory_t out = NULL;
    CHECK(dnnl_memory_create(&out, want, eng, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t r = NULL;
    CHECK(dnnl_reorder_primitive_desc_create(&rpd, t->md, eng, want, eng, NULL));
    CHECK(dnnl_primitive_create(&r, rpd));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, t->mem}, {DNNL_ARG_TO, out}};
    CHECK(dnnl_primitive_execute(r, strm, 2, args));
    CHECK(dnnl_stream_wait(strm));
    CHECK(dnnl_primitive_destroy(r));
    CHECK(dnnl_primitive_desc_destroy(rpd));
    *owned = 1;
    return out;
}

static const char *format_kind_name(const_dnnl_memory_desc_t md) {
    dnnl_format_kind_t fk = dnnl_format_kind_undef;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_format_kind, &fk));
    switch (fk) {
        case dnnl_blocked: return "blocked";
        case dnnl_format_kind_opaque: return "opaque";
        case dnnl_format_kind_any: return "any";
        default: return "other (e.g. rnn_packed)";
    }
}

#define MAX_TENSORS 16

/* Executes `pd` on tensors t[0..count): each t[k] with present[k] is passed
 * as argument arg[k]. Inputs (k < first_out) are written from their host
 * values and reordered into the layouts the pd wants (a no-op for plain
 * ones); outputs (plain; the pd must keep them) are poisoned with NaN, then
 * read into out[k] (host buffers sized like t[k]). With `verbose`, prints the
 * layouts the pd picked for the weights. */
static void run_pd(const_dnnl_primitive_desc_t pd, dnnl_engine_t eng,
        dnnl_stream_t strm, tensor_t *t, const int *present, const int *arg,
        int count, int first_out, float **out, int verbose) {
    dnnl_exec_arg_t args[MAX_TENSORS];
    dnnl_memory_t owned_mem[MAX_TENSORS];
    int nargs = 0, nowned = 0;
    if (count > MAX_TENSORS) FAIL("too many tensors (%d)", count);

    for (int k = 0; k < count; ++k) {
        if (!present[k]) continue;
        const_dnnl_memory_desc_t want
                = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg[k]);
        if (!want) FAIL("%s: primitive descriptor has no md", t[k].name);
        dnnl_memory_t m = t[k].mem;
        if (k >= first_out) {
            if (!dnnl_memory_desc_equal(t[k].md, want))
                FAIL("%s: pd changed the plain output layout", t[k].name);
            mem_fill_nan(m, t[k].nelems); /* catch unwritten outputs */
        } else {
            mem_write(t[k].mem, t[k].host, t[k].nelems);
            int owned = 0;
            m = reorder_to(eng, strm, &t[k], want, &owned);
            if (owned) owned_mem[nowned++] = m;
            if (verbose && (arg[k] == DNNL_ARG_WEIGHTS_LAYER || arg[k] == DNNL_ARG_WEIGHTS_ITER
                                || arg[k] == DNNL_ARG_WEIGHTS_PROJECTION))
                fprintf(stderr, "    %s: pd wants %s layout%s\n", t[k].name,
                        format_kind_name(want),
                        owned ? " (reordered from plain)" : " (= plain)");
        }
        args[nargs].arg = arg[k];
        args[nargs].memory = m;
        ++nargs;
    }

    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    CHECK(dnnl_primitive_execute(prim, strm, nargs, args));
    CHECK(dnnl_stream_wait(strm));
    CHECK(dnnl_primitive_destroy(prim));

    for (int k = first_out; k < count; ++k)
        if (present[k]) mem_read(t[k].mem, out[k], t[k].nelems);
    for (int j = 0; j < nowned; ++j)
        CHECK(dnnl_memory_destroy(owned_mem[j]));
}

/* A generator's start: checks the command line (OUT_DIR, and for
 * gen_bwd_goldens an optional directory of the low-precision cases),
 * writes oneDNN's "major.minor.patch" into version (reported on stderr) and
 * creates the CPU engine and stream. */
static void golden_setup(int argc, char **argv, char *version, size_t n,
        dnnl_engine_t *eng, dnnl_stream_t *strm) {
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s OUT_DIR [LOW_PRECISION_OUT_DIR]\n", argv[0]);
        exit(1);
    }
    const dnnl_version_t *v = dnnl_version();
    snprintf(version, n, "%d.%d.%d", v->major, v->minor, v->patch);
    fprintf(stderr, "oneDNN %s (hash %s)\n", version, v->hash ? v->hash : "?");
    CHECK(dnnl_engine_create(eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(strm, *eng, dnnl_stream_default_flags));
}

/* ------------------------------------------------------------------------ */
/* test mode (oneDNN's hidden rnn_tparams attribute, benchdnn --skip-nonlinear) */

/* oneDNN exports the setter under its C++ name only (declared without
 * extern "C", in no public header): bound here through an assembler label
 * (x86-64 Linux, where dnnl_dim_t is long). */
extern dnnl_status_t golden_set_rnn_tparams(dnnl_primitive_attr_t attr,
        bool mode, dnnl_dim_t ngates, const float *scales, float cscale)
        __asm__("_Z35dnnl_primitive_attr_set_rnn_tparamsP19dnnl_primitive_attrblPKff");

/* The test-mode scales of every linear case: gate g's activation becomes
 * tparams_scales[g]·x, LSTM's tanh(c) becomes tparams_cscale·c. */
static const float tparams_scales[4] = {0.5f, 0.75f, 0.625f, 0.875f};
static const float tparams_cscale = 0.8125f;

/* NULL, or (linear) an attribute with test mode on for `ngates` gates. */
static dnnl_primitive_attr_t test_mode_attr(int linear, int ngates) {
    if (!linear) return NULL;
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(golden_set_rnn_tparams(attr, true, ngates, tparams_scales, tparams_cscale));
    return attr;
}

/* The file line of a linear case: `tparams <cscale> <scale 0> ... <scale G-1>`. */
static void write_tparams(FILE *f, int ngates) {
    fprintf(f, "tparams %.9g", (double)tparams_cscale);
    for (int g = 0; g < ngates; ++g)
        fprintf(f, " %.9g", (double)tparams_scales[g]);
    fputc('\n', f);
}

static const char *dir_name(dnnl_rnn_direction_t d) {
    switch (d) {
        case dnnl_unidirectional_left2right: return "left2right";
        case dnnl_unidirectional_right2left: return "right2left";
        case dnnl_bidirectional_concat: return "bidirectional_concat";
        case dnnl_bidirectional_sum: return "bidirectional_sum";
        default: return "undef";
    }
}

static void write_tensor(FILE *f, const tensor_t *t, const float *v) {
    fprintf(f, "tensor %s %d", t->name, t->ndims);
    for (int k = 0; k < t->ndims; ++k)
        fprintf(f, " %lld", (long long)t->dims[k]);
    fputc('\n', f);
    const size_t per_line = (size_t)t->dims[t->ndims - 1];
    for (size_t i = 0; i < t->nelems; ++i) {
        fprintf(f, "%.9g", (double)v[i]);
        fputc((i + 1) % per_line == 0 || i + 1 == t->nelems ? '\n' : ' ', f);
    }
}


#endif
