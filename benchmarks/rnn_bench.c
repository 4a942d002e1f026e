/*
 * rnn_bench.c - time oneDNN v3 RNN primitives on the oxidnn benchmark
 * workloads (W1..W10 of issue 5, and X1..X9 beyond its list: training of every
 * cell, bidirectional and projection training, batch-1 GRU, a large batch,
 * batch-1 training; see
 * BENCHMARKS.md and benchmarks/README.md).
 *
 * Written only against oneDNN's C API, so the same file builds against oxidnn
 * and against the real oneDNN:
 *   cc -std=c99 -O2 -Wall -Wextra -Werror -Iinclude benchmarks/rnn_bench.c \
 *      -Ltarget/release -loxidnn -lm -ldl -o rnn_bench-oxidnn
 *   cc -std=c99 -O2 -Wall -Wextra -Werror -I<onednn>/include benchmarks/rnn_bench.c \
 *      -L<onednn>/lib -ldnnl -lm -ldl -o rnn_bench-onednn
 * (benchmarks/run.sh does both and runs them side by side.)
 *
 * Usage: rnn_bench [options] [all | W1 W2 ...]        (default: all)
 *   --iters N      at least N timed executions per workload      (default 10)
 *   --min-time S   ... and keep timing until S seconds are spent  (default 0.5)
 *   --max-time S   stop after S seconds once 3 samples exist      (default 5)
 *   --warmup N     untimed executions before timing               (default 3)
 *   --list         print the workloads (and the --shape ones before it) and exit
 *   --variants L   paired A/B of code variants in one oxidnn build (below)
 *   --shape SPEC   a workload of one's own, "[name=]cell,dir,prop,dims" with
 *                  benchdnn's dims syntax (repeatable; --help lists the words),
 *                  e.g. --shape ds2=rnn,l2r,inf,t50mb1sic1760
 *   --dt DT        data type of the workloads named without one, of `all` and of
 *                  the --shape ones: f32 (default), bf16 or int8 (below); a
 *                  workload name can carry its own: W2-bf16, W8-int8
 *
 * Data types (oneDNN's usual configurations; the name of a non-f32 row ends
 * in -bf16 / -int8):
 *   f32   every tensor f32.
 *   bf16  src/dst layer and iter (and the AUGRU attention) bf16, weights bf16
 *         (the user's ldigo/ldio in bf16, reordered into `any`), bias f32, LSTM
 *         c-state f32; training: forward_training + backward with every diff_*
 *         tensor f32.
 *   int8  oneDNN's u8u8u8u8 (forward inference; LSTM, LSTMP and GRU): src/dst
 *         layer and iter u8 (x -> round(x * 127 + 128), by hand), weights s8 in
 *         `any`, reordered from f32 ldigo/ldio with the primitive's attribute
 *         (dnnl_primitive_attr_set_rnn_data_qparams(127, 128),
 *         _rnn_weights_qparams per output channel, mask 24 = 127 / max|w| of
 *         the channel over weights_layer and weights_iter, and for LSTMP
 *         _rnn_weights_projection_qparams, mask 8), bias and c-state f32.
 *
 * Per workload the program creates the primitive descriptor (weights as
 * `any`), reorders the user's ldigo/ldio weights into the layout the primitive
 * asked for, fills every input with deterministic values (uniform in +-0.1 for
 * weights, bias and diff_dst -- +-min(0.1, 1/sqrt(SIC)) for the vanilla RNN's
 * weights_iter, see rnn_iter_half_width --, +-0.5 for data and states, [0,1]
 * for the AUGRU attention), runs the warm-up, then times each execution on its own
 * (execute + stream wait, clock_gettime(CLOCK_MONOTONIC)). None of the set-up
 * is timed. It prints one line per workload on stdout:
 *
 *   RESULT <name> <median_ms> <min_ms> <gflops> <samples> <checksum> [<abs_sum>]
 *   SKIPPED <name> <status>          (primitive descriptor creation returned
 *                                     dnnl_unimplemented: cell / data type not
 *                                     available)
 *
 * gflops = FLOPs / median time. FLOPs, summed over layers and directions:
 *   2*T*N*G*DHC*(SLC_l + SIC)            the layer and iteration GEMMs
 *   + 2*T*N*DHC*DIC                      the projection GEMM (LSTMP only)
 * with G = 4 (LSTM), 3 (GRU, LBR-GRU, AUGRU), 1 (vanilla RNN), SIC = DIC,
 * SLC_l = SLC for layer 0 and DIC above it (oneDNN requires SLC == DIC when
 * L > 1; each direction's layer reads its own direction's output). The
 * element-wise work is not counted. Training (forward + backward) counts
 * 3x the forward FLOPs (backward = data gradients + weight gradients, each
 * the size of the forward GEMMs).
 *
 * checksum = sum of dst_layer (inference) or of diff_src_layer (training)
 * after the last execution: the inputs are identical for every library, so
 * the checksums of two libraries agree to a few significant digits. bf16 and
 * int8 rows sum the values the tensor stands for (bf16 widened, u8
 * dequantized: (q - 128) / 127) and add abs_sum, the sum of their absolute
 * values, to scale the difference of two libraries' checksums by.
 *
 * --variants "0 1 ..." (oxidnn scratch builds only): instead of RESULT, time
 * the variants in turn, ABBA order, --iters rounds (after --warmup), calling
 * oxidnn_experiment_set_variant(v) before each execution -- a function a
 * scratch build of oxidnn exports and its code under test branches on
 * (benchmarks/README.md). Each execution is paired with the first variant's in
 * the same round, so the host's drift cancels. One line per variant:
 *
 *   PAIRED <name> <variant> <median_ms> <median ratio to the first> <faster>/<rounds>
 *
 * Lines starting with '#' are comments (library version, implementation
 * name). Errors go to stderr; the exit status is 1 if any workload failed
 * (SKIPPED is not a failure).
 */
#define _POSIX_C_SOURCE 200112L

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"

/* ------------------------------------------------------------------------ */
/* Workloads                                                                 */

typedef enum { CELL_RNN_TANH, CELL_LSTM, CELL_GRU, CELL_LBR_GRU, CELL_AUGRU } cell_t;

typedef struct {
    const char *name;
    const char *what;
    cell_t cell;
    dnnl_rnn_direction_t dir;
    int L, T, N;
    int SLC, DHC, DIC; /* SIC = DIC; DIC != DHC only with a projection */
    int projection;
    int training; /* forward_training + backward, timed together */
} workload_t;

#define L2R dnnl_unidirectional_left2right
#define BICAT dnnl_bidirectional_concat

static const workload_t workloads[] = {
        {"W1", "LSTM l2r L1 T50 N1 C512", CELL_LSTM, L2R, 1, 50, 1, 512, 512, 512, 0, 0},
        {"W2", "LSTM T50 N64 C512", CELL_LSTM, L2R, 1, 50, 64, 512, 512, 512, 0, 0},
        {"W3", "LSTM T25 N32 C1024", CELL_LSTM, L2R, 1, 25, 32, 1024, 1024, 1024, 0, 0},
        {"W4", "GRU T50 N32 C512", CELL_GRU, L2R, 1, 50, 32, 512, 512, 512, 0, 0},
        {"W5", "LBR-GRU T50 N32 C512", CELL_LBR_GRU, L2R, 1, 50, 32, 512, 512, 512, 0, 0},
        {"W6", "vanilla tanh T50 N32 C512", CELL_RNN_TANH, L2R, 1, 50, 32, 512, 512, 512, 0, 0},
        {"W7", "LSTM bidir_concat L2 T50 N16 C256", CELL_LSTM, BICAT, 2, 50, 16, 256, 256, 256, 0,
                0},
        {"W8", "LSTMP T50 N16 DHC1024 DIC256 SLC256", CELL_LSTM, L2R, 1, 50, 16, 256, 1024, 256, 1,
                0},
        {"W9", "AUGRU T50 N32 C256", CELL_AUGRU, L2R, 1, 50, 32, 256, 256, 256, 0, 0},
        {"W10", "LSTM training fwd+bwd T50 N32 C512", CELL_LSTM, L2R, 1, 50, 32, 512, 512, 512, 0,
                1},
        /* Beyond issue 5's list. */
        {"X1", "GRU training T50 N32 C512", CELL_GRU, L2R, 1, 50, 32, 512, 512, 512, 0, 1},
        {"X2", "LBR-GRU training T50 N32 C512", CELL_LBR_GRU, L2R, 1, 50, 32, 512, 512, 512, 0,
                1},
        {"X3", "vanilla tanh training T50 N32 C512", CELL_RNN_TANH, L2R, 1, 50, 32, 512, 512, 512,
                0, 1},
        {"X4", "AUGRU training T50 N32 C256", CELL_AUGRU, L2R, 1, 50, 32, 256, 256, 256, 0, 1},
        {"X5", "LSTM bidir_concat L2 training T50 N16 C256", CELL_LSTM, BICAT, 2, 50, 16, 256, 256,
                256, 0, 1},
        {"X6", "LSTMP training T50 N16 DHC1024 DIC256", CELL_LSTM, L2R, 1, 50, 16, 256, 1024, 256,
                1, 1},
        {"X7", "GRU l2r T50 N1 C512", CELL_GRU, L2R, 1, 50, 1, 512, 512, 512, 0, 0},
        {"X8", "LSTM T50 N128 C256", CELL_LSTM, L2R, 1, 50, 128, 256, 256, 256, 0, 0},
        {"X9", "LSTM training T50 N1 C512", CELL_LSTM, L2R, 1, 50, 1, 512, 512, 512, 0, 1},
};
#define N_WORKLOADS ((int)(sizeof workloads / sizeof workloads[0]))

/* The data type a workload runs in (the top of this file). */
typedef enum { DT_F32, DT_BF16, DT_INT8, N_DTS } prec_t;
static const char *const prec_names[N_DTS] = {"f32", "bf16", "int8"};

/* int8: u8 = round(x * DATA_SCALE + DATA_SHIFT), clamped to [0, 255]. */
#define DATA_SCALE 127.0f
#define DATA_SHIFT 128.0f

static int n_gates(cell_t c) {
    switch (c) {
        case CELL_RNN_TANH: return 1;
        case CELL_LSTM: return 4;
        default: return 3;
    }
}

static int n_dirs(const workload_t *w) {
    return w->dir == BICAT || w->dir == dnnl_bidirectional_sum ? 2 : 1;
}

static int is_lstm(const workload_t *w) { return w->cell == CELL_LSTM; }

/* Output channels of dst_layer. */
static int dlc(const workload_t *w) {
    return w->dir == BICAT ? 2 * w->DIC : w->DIC;
}

/* The FLOP count described at the top of this file. */
static double workload_flops(const workload_t *w) {
    const double T = w->T, N = w->N, G = n_gates(w->cell), DHC = w->DHC, DIC = w->DIC;
    double total = 0.0;
    for (int l = 0; l < w->L; l++) {
        const double slc = l == 0 ? w->SLC : w->DIC; /* equal when L > 1 */
        double per_dir = 2.0 * T * N * G * DHC * (slc + DIC);
        if (w->projection) per_dir += 2.0 * T * N * DHC * DIC;
        total += per_dir * n_dirs(w);
    }
    return w->training ? 3.0 * total : total;
}

/* --shape: a workload given on the command line (see the usage text). */
#define MAX_SHAPES 64
static workload_t shapes[MAX_SHAPES];
static char shape_text[MAX_SHAPES][2][128];

static int parse_word(const char *w, const char *const *names, int n) {
    for (int i = 0; i < n; i++)
        if (!strcmp(w, names[i])) return i;
    return -1;
}

/* Parses "[name=]cell,dir,prop,dims" into shapes[k]; returns 0 on success. */
static int parse_shape(const char *spec, int k) {
    static const char *const cells[] = {"rnn", "lstm", "gru", "lbr_gru", "augru"};
    static const cell_t cell_of[] = {CELL_RNN_TANH, CELL_LSTM, CELL_GRU, CELL_LBR_GRU, CELL_AUGRU};
    static const char *const dirs[] = {"l2r", "r2l", "concat", "sum"};
    static const dnnl_rnn_direction_t dir_of[] = {L2R, dnnl_unidirectional_right2left, BICAT,
            dnnl_bidirectional_sum};
    static const char *const props[] = {"inf", "train"};
    char buf[128], *name = shape_text[k][0], *f[4];
    workload_t *w = &shapes[k];
    if (strlen(spec) >= sizeof buf) return 1;
    strcpy(buf, spec);
    char *body = strchr(buf, '=');
    if (body) {
        *body++ = '\0';
        snprintf(name, 128, "%s", buf);
    } else {
        body = buf;
        snprintf(name, 128, "S%d", k + 1);
    }
    snprintf(shape_text[k][1], 128, "%s", body);
    for (int i = 0; i < 4; i++) {
        f[i] = body;
        body = strchr(body, ',');
        if (!body != (i == 3)) return 1;
        if (body) *body++ = '\0';
    }
    const int c = parse_word(f[0], cells, 5), d = parse_word(f[1], dirs, 4),
              pr = parse_word(f[2], props, 2);
    if (c < 0 || d < 0 || pr < 0) return 1;
    long l = 1, t = 0, mb = 0, sic = 0, slc = 0, dhc = 0, dic = 0;
    for (const char *q = f[3]; *q;) {
        if (*q == '_') {
            q++;
            continue;
        }
        static const char *const keys[] = {"mb", "sic", "slc", "dhc", "dic", "l", "t"};
        long *vals[] = {&mb, &sic, &slc, &dhc, &dic, &l, &t};
        int key = -1;
        for (int i = 0; i < 7 && key < 0; i++)
            if (!strncmp(q, keys[i], strlen(keys[i]))) key = i;
        if (key < 0) return 1;
        char *end;
        *vals[key] = strtol(q + strlen(keys[key]), &end, 10);
        if (end == q + strlen(keys[key])) return 1;
        q = end;
    }
    /* benchdnn's defaults: slc = sic, dhc = sic, dic = dhc. */
    if (!slc) slc = sic;
    if (!dhc) dhc = sic;
    if (!dic) dic = dhc;
    if (l < 1 || t < 1 || mb < 1 || sic < 1 || sic != dic) return 1;
    if (dic != dhc && cell_of[c] != CELL_LSTM) return 1;
    *w = (workload_t){name, shape_text[k][1], cell_of[c], dir_of[d], (int)l, (int)t, (int)mb,
            (int)slc, (int)dhc, (int)dic, dic != dhc, pr == 1};
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Handle bookkeeping: everything created for one workload is destroyed at
 * the end of it, whichever way it ends. */

#define POOL_MAX 64

typedef struct {
    dnnl_memory_desc_t mds[POOL_MAX];
    dnnl_memory_t mems[POOL_MAX];
    dnnl_primitive_desc_t pds[POOL_MAX];
    dnnl_primitive_t prims[POOL_MAX];
    dnnl_primitive_attr_t attr; /* int8: the quantization attribute */
    float *scales[2];           /* ... and its weights / projection scales */
    int n_mds, n_mems, n_pds, n_prims;
} pool_t;

static void pool_free(pool_t *p) {
    if (p->attr) dnnl_primitive_attr_destroy(p->attr);
    free(p->scales[0]);
    free(p->scales[1]);
    for (int i = p->n_prims - 1; i >= 0; i--) dnnl_primitive_destroy(p->prims[i]);
    for (int i = p->n_pds - 1; i >= 0; i--) dnnl_primitive_desc_destroy(p->pds[i]);
    for (int i = p->n_mems - 1; i >= 0; i--) dnnl_memory_destroy(p->mems[i]);
    for (int i = p->n_mds - 1; i >= 0; i--) dnnl_memory_desc_destroy(p->mds[i]);
    memset(p, 0, sizeof *p);
}

static const char *status_str(dnnl_status_t s) {
    const char *str = dnnl_status2str(s);
    return str ? str : "unknown_status";
}

/* Current workload name, for error messages. */
static const char *g_current = "-";

/* Evaluate a call returning dnnl_status_t; on failure report it and jump to
 * the enclosing function's `done:` label with `st` set. */
#define TRY(call) \
    do { \
        st = (call); \
        if (st != dnnl_success) { \
            fprintf(stderr, "rnn_bench: %s: %s:%d: %s failed: %s\n", g_current, __FILE__, \
                    __LINE__, #call, status_str(st)); \
            goto done; \
        } \
    } while (0)

/* A failed requirement that is not a dnnl call. */
#define FAIL(msg) \
    do { \
        fprintf(stderr, "rnn_bench: %s: %s:%d: %s\n", g_current, __FILE__, __LINE__, msg); \
        st = dnnl_runtime_error; \
        goto done; \
    } while (0)

static dnnl_status_t pool_md(pool_t *p, dnnl_memory_desc_t *out, int ndims,
        const dnnl_dim_t *dims, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_status_t st = dnnl_success;
    dnnl_dims_t d;
    if (p->n_mds == POOL_MAX) FAIL("too many memory descriptors");
    for (int i = 0; i < ndims; i++) d[i] = dims[i];
    TRY(dnnl_memory_desc_create_with_tag(out, ndims, d, dt, tag));
    p->mds[p->n_mds++] = *out;
done:
    return st;
}

/* A zero-filled memory the library allocates for `md`. */
static dnnl_status_t pool_mem(pool_t *p, dnnl_memory_t *out, const_dnnl_memory_desc_t md,
        dnnl_engine_t eng) {
    dnnl_status_t st = dnnl_success;
    void *ptr = NULL;
    if (p->n_mems == POOL_MAX) FAIL("too many memories");
    TRY(dnnl_memory_create(out, md, eng, DNNL_MEMORY_ALLOCATE));
    p->mems[p->n_mems++] = *out;
    TRY(dnnl_memory_get_data_handle(*out, &ptr));
    if (dnnl_memory_desc_get_size(md) > 0) {
        if (!ptr) FAIL("memory without a data handle");
        memset(ptr, 0, dnnl_memory_desc_get_size(md));
    }
done:
    return st;
}

static void pool_pd(pool_t *p, dnnl_primitive_desc_t pd) {
    if (p->n_pds < POOL_MAX) p->pds[p->n_pds++] = pd;
    else dnnl_primitive_desc_destroy(pd);
}

static dnnl_status_t pool_prim(pool_t *p, dnnl_primitive_t *out,
        const_dnnl_primitive_desc_t pd) {
    dnnl_status_t st = dnnl_success;
    if (p->n_prims == POOL_MAX) FAIL("too many primitives");
    TRY(dnnl_primitive_create(out, pd));
    p->prims[p->n_prims++] = *out;
done:
    return st;
}

/* ------------------------------------------------------------------------ */
/* Data                                                                      */

/* Deterministic uniform numbers in [lo, hi): a 32-bit LCG per tensor. */
static void fill(float *x, size_t n, unsigned seed, float lo, float hi) {
    unsigned s = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = lo + (hi - lo) * (float)(s >> 8) * (1.0f / 16777216.0f);
    }
}

/* Half-width of the vanilla RNN's weights_iter fill: min(0.1, 1/sqrt(SIC)). With
 * uniform +-a entries the recurrence's gain is about a*sqrt(SIC/3); at 0.1 and
 * SIC 1760 (DeepSpeech2) it is 2.4, tanh(h*U + ...) is chaotic, and a rounding
 * difference of 1e-7 between two libraries' GEMMs grows ~3x per step to O(1)
 * after 50 steps, so the checksums cannot agree. 1/sqrt(SIC) makes the gain
 * 0.58 (contractive). The gated cells keep the ordinary +-0.1. */
static float rnn_iter_half_width(const workload_t *w) {
    const float a = 1.0f / sqrtf((float)w->DIC);
    return a < 0.1f ? a : 0.1f;
}

static dnnl_data_type_t md_dt(const_dnnl_memory_desc_t md) {
    dnnl_data_type_t dt = dnnl_data_type_undef;
    if (dnnl_memory_desc_query(md, dnnl_query_data_type, &dt) != dnnl_success)
        return dnnl_data_type_undef;
    return dt;
}

static size_t dt_size(dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_bf16:
        case dnnl_f16: return 2;
        case dnnl_s8:
        case dnnl_u8: return 1;
        default: return 4;
    }
}

/* f32 -> bf16, round to nearest even (as vcvtneps2bf16). */
static uint16_t to_bf16(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static float from_bf16(uint16_t b) {
    const uint32_t u = (uint32_t)b << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The value element i of a plain memory of type dt stands for (u8: dequantized). */
static double value_at(const void *ptr, dnnl_data_type_t dt, size_t i) {
    switch (dt) {
        case dnnl_bf16: return from_bf16(((const uint16_t *)ptr)[i]);
        case dnnl_u8: return (((const uint8_t *)ptr)[i] - DATA_SHIFT) / DATA_SCALE;
        case dnnl_s8: return ((const int8_t *)ptr)[i] / DATA_SCALE;
        default: return ((const float *)ptr)[i];
    }
}

/* A user memory in plain layout `md` filled with uniform [lo, hi), stored in md's data type
 * (bf16: rounded to nearest even; u8: quantized with DATA_SCALE and DATA_SHIFT). */
static dnnl_status_t user_mem(pool_t *p, dnnl_memory_t *out, const_dnnl_memory_desc_t md,
        dnnl_engine_t eng, unsigned seed, float lo, float hi) {
    dnnl_status_t st = dnnl_success;
    void *ptr = NULL;
    float *tmp = NULL;
    const dnnl_data_type_t dt = md_dt(md);
    const size_t n = dnnl_memory_desc_get_size(md) / dt_size(dt);
    TRY(pool_mem(p, out, md, eng));
    TRY(dnnl_memory_get_data_handle(*out, &ptr));
    if (dt == dnnl_f32) {
        fill((float *)ptr, n, seed, lo, hi);
        goto done;
    }
    tmp = malloc(n * sizeof *tmp);
    if (!tmp) FAIL("out of memory");
    fill(tmp, n, seed, lo, hi);
    for (size_t i = 0; i < n; i++) {
        if (dt == dnnl_bf16) {
            ((uint16_t *)ptr)[i] = to_bf16(tmp[i]);
        } else if (dt == dnnl_u8) {
            const float q = nearbyintf(tmp[i] * DATA_SCALE + DATA_SHIFT);
            ((uint8_t *)ptr)[i] = (uint8_t)(q < 0.0f ? 0.0f : q > 255.0f ? 255.0f : q);
        } else {
            FAIL("user_mem: unexpected data type");
        }
    }
done:
    free(tmp);
    return st;
}

/* The memory descriptor the primitive wants for `arg` (NULL if none). */
static const_dnnl_memory_desc_t arg_md(const_dnnl_primitive_desc_t pd, int arg) {
    const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    if (md && dnnl_memory_desc_get_size(md) == 0) md = NULL;
    return md;
}

/* Give the primitive `user` for input `arg`: as it is when the layouts match,
 * else reordered (untimed) into a new memory of the primitive's layout, with
 * `attr` (int8 weights: the quantization attribute; else NULL). */
static dnnl_status_t adapt_in_attr(pool_t *p, dnnl_memory_t *out,
        const_dnnl_primitive_desc_t pd, int arg, dnnl_memory_t user, dnnl_engine_t eng,
        dnnl_stream_t strm, const_dnnl_primitive_attr_t attr) {
    dnnl_status_t st = dnnl_success;
    const_dnnl_memory_desc_t want = arg_md(pd, arg), have = NULL;
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t reorder = NULL;
    if (!want) {
        fprintf(stderr, "rnn_bench: %s: the primitive has no argument %d\n", g_current, arg);
        st = dnnl_invalid_arguments;
        goto done;
    }
    TRY(dnnl_memory_get_memory_desc(user, &have));
    if (dnnl_memory_desc_equal(want, have)) {
        *out = user;
        goto done;
    }
    TRY(pool_mem(p, out, want, eng));
    TRY(dnnl_reorder_primitive_desc_create(&rpd, have, eng, want, eng, attr));
    pool_pd(p, rpd);
    TRY(pool_prim(p, &reorder, rpd));
    {
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, *out}};
        TRY(dnnl_primitive_execute(reorder, strm, 2, args));
    }
    TRY(dnnl_stream_wait(strm));
done:
    return st;
}

static dnnl_status_t adapt_in(pool_t *p, dnnl_memory_t *out, const_dnnl_primitive_desc_t pd,
        int arg, dnnl_memory_t user, dnnl_engine_t eng, dnnl_stream_t strm) {
    return adapt_in_attr(p, out, pd, arg, user, eng, strm, NULL);
}

/* A zero-filled output memory in the primitive's layout for `arg`. */
static dnnl_status_t alloc_out(pool_t *p, dnnl_memory_t *out, const_dnnl_primitive_desc_t pd,
        int arg, dnnl_engine_t eng) {
    dnnl_status_t st = dnnl_success;
    const_dnnl_memory_desc_t want = arg_md(pd, arg);
    if (!want) {
        fprintf(stderr, "rnn_bench: %s: the primitive has no argument %d\n", g_current, arg);
        st = dnnl_invalid_arguments;
        goto done;
    }
    TRY(pool_mem(p, out, want, eng));
done:
    return st;
}

/* The sum of the values a plain memory stands for; *abs_sum: of their absolute values. */
static double checksum(dnnl_memory_t m, double *abs_sum) {
    const_dnnl_memory_desc_t md = NULL;
    void *ptr = NULL;
    double s = 0.0, a = 0.0;
    *abs_sum = NAN;
    if (dnnl_memory_get_memory_desc(m, &md) != dnnl_success) return NAN;
    if (dnnl_memory_get_data_handle(m, &ptr) != dnnl_success || !ptr) return NAN;
    const dnnl_data_type_t dt = md_dt(md);
    size_t n = dnnl_memory_desc_get_size(md) / dt_size(dt);
    for (size_t i = 0; i < n; i++) {
        const double v = value_at(ptr, dt, i);
        s += v;
        a += fabs(v);
    }
    *abs_sum = a;
    return s;
}

/* ------------------------------------------------------------------------ */
/* Primitive descriptors                                                     */

/* The user's plain descriptors (tnc, ldnc, ldigo, ldio, ldgo) and the
 * `any` weights descriptors handed to the primitive descriptors, in the
 * workload's data types; the backward's diff tensors (d_*: f32, the same
 * descriptors as the forward ones for f32). */
typedef struct {
    dnnl_memory_desc_t src_layer, src_iter, src_iter_c, attention;
    dnnl_memory_desc_t wl, wi, wp, bias;
    dnnl_memory_desc_t dst_layer, dst_iter, dst_iter_c;
    dnnl_memory_desc_t wl_any, wi_any, wp_any;
    dnnl_memory_desc_t d_src_layer, d_src_iter, d_src_iter_c, d_attention;
    dnnl_memory_desc_t d_wl_any, d_wi_any, d_wp_any, d_bias;
    dnnl_memory_desc_t d_dst_layer, d_dst_iter, d_dst_iter_c;
} descs_t;

static dnnl_status_t make_descs(pool_t *p, const workload_t *w, prec_t prec, descs_t *d) {
    dnnl_status_t st = dnnl_success;
    const dnnl_dim_t L = w->L, D = n_dirs(w), T = w->T, N = w->N, G = n_gates(w->cell);
    const dnnl_dim_t SLC = w->SLC, DHC = w->DHC, DIC = w->DIC, SIC = w->DIC;
    const dnnl_dim_t GB = w->cell == CELL_LBR_GRU ? G + 1 : G;
    /* act: src/dst layer and iter, attention; wu: the user's weights; wa: `any` weights */
    const dnnl_data_type_t f32 = dnnl_f32,
                           act = prec == DT_BF16 ? dnnl_bf16 : prec == DT_INT8 ? dnnl_u8 : f32,
                           wu = prec == DT_BF16 ? dnnl_bf16 : f32,
                           wa = prec == DT_BF16 ? dnnl_bf16 : prec == DT_INT8 ? dnnl_s8 : f32;
    memset(d, 0, sizeof *d);
    {
        const dnnl_dim_t src_layer[] = {T, N, SLC}, dst_layer[] = {T, N, dlc(w)};
        const dnnl_dim_t iter[] = {L, D, N, DIC}, iter_c[] = {L, D, N, DHC};
        const dnnl_dim_t wl[] = {L, D, SLC, G, DHC}, wi[] = {L, D, SIC, G, DHC};
        const dnnl_dim_t wp[] = {L, D, DHC, DIC}, bias[] = {L, D, GB, DHC};
        const dnnl_dim_t attention[] = {T, N, 1};
        const dnnl_format_tag_t any = dnnl_format_tag_any;
        TRY(pool_md(p, &d->src_layer, 3, src_layer, act, dnnl_tnc));
        TRY(pool_md(p, &d->dst_layer, 3, dst_layer, act, dnnl_tnc));
        TRY(pool_md(p, &d->src_iter, 4, iter, act, dnnl_ldnc));
        TRY(pool_md(p, &d->dst_iter, 4, iter, act, dnnl_ldnc));
        TRY(pool_md(p, &d->wl, 5, wl, wu, dnnl_ldigo));
        TRY(pool_md(p, &d->wi, 5, wi, wu, dnnl_ldigo));
        TRY(pool_md(p, &d->wl_any, 5, wl, wa, any));
        TRY(pool_md(p, &d->wi_any, 5, wi, wa, any));
        TRY(pool_md(p, &d->bias, 4, bias, f32, dnnl_ldgo));
        if (is_lstm(w)) {
            TRY(pool_md(p, &d->src_iter_c, 4, iter_c, f32, dnnl_ldnc));
            TRY(pool_md(p, &d->dst_iter_c, 4, iter_c, f32, dnnl_ldnc));
        }
        if (w->projection) {
            TRY(pool_md(p, &d->wp, 4, wp, wu, dnnl_ldio));
            TRY(pool_md(p, &d->wp_any, 4, wp, wa, any));
        }
        if (w->cell == CELL_AUGRU) TRY(pool_md(p, &d->attention, 3, attention, act, dnnl_tnc));
        /* The diff tensors: f32 whatever the forward's type. */
        d->d_src_layer = d->src_layer;
        d->d_src_iter = d->src_iter;
        d->d_src_iter_c = d->src_iter_c;
        d->d_attention = d->attention;
        d->d_wl_any = d->wl_any;
        d->d_wi_any = d->wi_any;
        d->d_wp_any = d->wp_any;
        d->d_bias = d->bias;
        d->d_dst_layer = d->dst_layer;
        d->d_dst_iter = d->dst_iter;
        d->d_dst_iter_c = d->dst_iter_c;
        if (prec != DT_F32 && w->training) {
            TRY(pool_md(p, &d->d_src_layer, 3, src_layer, f32, dnnl_tnc));
            TRY(pool_md(p, &d->d_dst_layer, 3, dst_layer, f32, dnnl_tnc));
            TRY(pool_md(p, &d->d_src_iter, 4, iter, f32, dnnl_ldnc));
            TRY(pool_md(p, &d->d_dst_iter, 4, iter, f32, dnnl_ldnc));
            TRY(pool_md(p, &d->d_wl_any, 5, wl, f32, any));
            TRY(pool_md(p, &d->d_wi_any, 5, wi, f32, any));
            if (w->projection) TRY(pool_md(p, &d->d_wp_any, 4, wp, f32, any));
            if (w->cell == CELL_AUGRU)
                TRY(pool_md(p, &d->d_attention, 3, attention, f32, dnnl_tnc));
        }
    }
done:
    return st;
}

static dnnl_status_t create_fwd_pd(dnnl_primitive_desc_t *pd, const workload_t *w,
        const descs_t *d, dnnl_engine_t eng, const_dnnl_primitive_attr_t attr) {
    const dnnl_prop_kind_t prop = w->training ? dnnl_forward_training : dnnl_forward_inference;
    switch (w->cell) {
        case CELL_LSTM:
            return dnnl_lstm_forward_primitive_desc_create(pd, eng, prop, w->dir, d->src_layer,
                    d->src_iter, d->src_iter_c, d->wl_any, d->wi_any, NULL, d->wp_any, d->bias,
                    d->dst_layer, d->dst_iter, d->dst_iter_c, 0, attr);
        case CELL_GRU:
            return dnnl_gru_forward_primitive_desc_create(pd, eng, prop, w->dir, d->src_layer,
                    d->src_iter, d->wl_any, d->wi_any, d->bias, d->dst_layer, d->dst_iter, 0,
                    attr);
        case CELL_LBR_GRU:
            return dnnl_lbr_gru_forward_primitive_desc_create(pd, eng, prop, w->dir,
                    d->src_layer, d->src_iter, d->wl_any, d->wi_any, d->bias, d->dst_layer,
                    d->dst_iter, 0, attr);
        case CELL_AUGRU:
            return dnnl_augru_forward_primitive_desc_create(pd, eng, prop, w->dir, d->src_layer,
                    d->src_iter, d->attention, d->wl_any, d->wi_any, d->bias, d->dst_layer,
                    d->dst_iter, 0, attr);
        case CELL_RNN_TANH:
            return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, prop,
                    dnnl_eltwise_tanh, w->dir, d->src_layer, d->src_iter, d->wl_any, d->wi_any,
                    d->bias, d->dst_layer, d->dst_iter, 0, 0.0f, 0.0f, attr);
    }
    return dnnl_invalid_arguments;
}

/* Backward: the diff tensors have the shapes (and plain layouts) of their
 * forward counterparts, in f32; weights and diff weights are `any`. */
static dnnl_status_t create_bwd_pd(dnnl_primitive_desc_t *pd, const workload_t *w,
        const descs_t *d, dnnl_engine_t eng, const_dnnl_primitive_desc_t hint) {
    const dnnl_prop_kind_t prop = dnnl_backward;
    switch (w->cell) {
        case CELL_LSTM:
            return dnnl_lstm_backward_primitive_desc_create(pd, eng, prop, w->dir, d->src_layer,
                    d->src_iter, d->src_iter_c, d->wl_any, d->wi_any, NULL, d->wp_any, d->bias,
                    d->dst_layer, d->dst_iter, d->dst_iter_c, d->d_src_layer, d->d_src_iter,
                    d->d_src_iter_c, d->d_wl_any, d->d_wi_any, NULL, d->d_wp_any, d->d_bias,
                    d->d_dst_layer, d->d_dst_iter, d->d_dst_iter_c, 0, hint, NULL);
        case CELL_GRU:
            return dnnl_gru_backward_primitive_desc_create(pd, eng, prop, w->dir, d->src_layer,
                    d->src_iter, d->wl_any, d->wi_any, d->bias, d->dst_layer, d->dst_iter,
                    d->d_src_layer, d->d_src_iter, d->d_wl_any, d->d_wi_any, d->d_bias,
                    d->d_dst_layer, d->d_dst_iter, 0, hint, NULL);
        case CELL_LBR_GRU:
            return dnnl_lbr_gru_backward_primitive_desc_create(pd, eng, prop, w->dir,
                    d->src_layer, d->src_iter, d->wl_any, d->wi_any, d->bias, d->dst_layer,
                    d->dst_iter, d->d_src_layer, d->d_src_iter, d->d_wl_any, d->d_wi_any,
                    d->d_bias, d->d_dst_layer, d->d_dst_iter, 0, hint, NULL);
        case CELL_AUGRU:
            return dnnl_augru_backward_primitive_desc_create(pd, eng, prop, w->dir,
                    d->src_layer, d->src_iter, d->attention, d->wl_any, d->wi_any, d->bias,
                    d->dst_layer, d->dst_iter, d->d_src_layer, d->d_src_iter, d->d_attention,
                    d->d_wl_any, d->d_wi_any, d->d_bias, d->d_dst_layer, d->d_dst_iter, 0, hint,
                    NULL);
        case CELL_RNN_TANH:
            return dnnl_vanilla_rnn_backward_primitive_desc_create(pd, eng, prop,
                    dnnl_eltwise_tanh, w->dir, d->src_layer, d->src_iter, d->wl_any, d->wi_any,
                    d->bias, d->dst_layer, d->dst_iter, d->d_src_layer, d->d_src_iter,
                    d->d_wl_any, d->d_wi_any, d->d_bias, d->d_dst_layer, d->d_dst_iter, 0, 0.0f,
                    0.0f, hint, NULL);
    }
    return dnnl_invalid_arguments;
}

/* ------------------------------------------------------------------------ */
/* Timing                                                                    */

#define MAX_VARIANTS 8

typedef struct {
    int iters, warmup;
    double min_time, max_time;
    int n_variants; /* --variants: paired timing of these (0: plain timing) */
    int variants[MAX_VARIANTS];
} opts_t;

#define MAX_SAMPLES 100000

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One step of the timed region: every primitive in order, then a wait. */
typedef struct {
    dnnl_primitive_t prim[2];
    dnnl_exec_arg_t *args[2];
    int nargs[2];
    int n;
} plan_t;

static dnnl_status_t run_plan(const plan_t *pl, dnnl_stream_t strm) {
    dnnl_status_t st = dnnl_success;
    for (int i = 0; i < pl->n; i++)
        TRY(dnnl_primitive_execute(pl->prim[i], strm, pl->nargs[i], pl->args[i]));
    TRY(dnnl_stream_wait(strm));
done:
    return st;
}

/* Time the plan; on success *median and *min are in seconds. */
static dnnl_status_t time_plan(const plan_t *pl, dnnl_stream_t strm, const opts_t *o,
        double *median, double *min, int *count) {
    dnnl_status_t st = dnnl_success;
    double *samples = malloc(MAX_SAMPLES * sizeof *samples);
    int n = 0;
    if (!samples) FAIL("out of memory");
    for (int i = 0; i < o->warmup; i++) TRY(run_plan(pl, strm));
    const double start = now_s();
    for (;;) {
        const double t0 = now_s();
        TRY(run_plan(pl, strm));
        const double t1 = now_s();
        samples[n++] = t1 - t0;
        const double spent = t1 - start;
        if (n >= MAX_SAMPLES) break;
        if (n >= o->iters && spent >= o->min_time) break;
        if (n >= 3 && spent >= o->max_time) break;
    }
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    *median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    *min = samples[0];
    *count = n;
done:
    free(samples);
    return st;
}

/* oxidnn_experiment_set_variant of the running program (a scratch oxidnn build), or NULL. */
typedef dnnl_status_t (*set_variant_fn)(int);
static set_variant_fn find_set_variant(void) {
    void *self = dlopen(NULL, RTLD_NOW);
    void *sym = self ? dlsym(self, "oxidnn_experiment_set_variant") : NULL;
    set_variant_fn f = NULL;
    memcpy(&f, &sym, sizeof f); /* object pointer to function pointer, as POSIX allows */
    return f;
}

static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* --variants: o->iters rounds over the variants (ABBA order); prints PAIRED lines. */
static dnnl_status_t time_paired(
        const plan_t *pl, dnnl_stream_t strm, const opts_t *o, const char *name) {
    dnnl_status_t st = dnnl_success;
    const int nv = o->n_variants, rounds = o->iters;
    double *t = malloc((size_t)(nv * rounds) * sizeof *t);
    double *col = malloc((size_t)rounds * sizeof *col);
    const set_variant_fn set_variant = find_set_variant(); /* found: checked in main */
    if (!t || !col) FAIL("out of memory");
    for (int r = -o->warmup; r < rounds; r++) {
        for (int j = 0; j < nv; j++) {
            const int v = (r & 1) ? nv - 1 - j : j;
            TRY(set_variant(o->variants[v]));
            const double t0 = now_s();
            TRY(run_plan(pl, strm));
            if (r >= 0) t[v * rounds + r] = now_s() - t0;
        }
    }
    for (int v = 0; v < nv; v++) {
        int faster = 0;
        for (int r = 0; r < rounds; r++) {
            col[r] = t[v * rounds + r] / t[r];
            faster += t[v * rounds + r] < t[r];
        }
        const double ratio = median_of(col, rounds);
        for (int r = 0; r < rounds; r++) col[r] = t[v * rounds + r];
        printf("PAIRED %s %d %.4f %.4f %d/%d\n", name, o->variants[v], 1e3 * median_of(col, rounds),
                ratio, faster, rounds);
    }
    fflush(stdout);
    TRY(set_variant(0));
done:
    free(t);
    free(col);
    return st;
}

/* ------------------------------------------------------------------------ */
/* One workload                                                              */

/* The forward arguments (inputs reordered as needed, outputs allocated). */
typedef struct {
    dnnl_memory_t src_layer, src_iter, src_iter_c, attention, wl, wi, wp, bias;
    dnnl_memory_t dst_layer, dst_iter, dst_iter_c, workspace;
} fwd_mems_t;

static void add_arg(dnnl_exec_arg_t *args, int *n, int arg, dnnl_memory_t m) {
    if (!m) return;
    args[*n].arg = arg;
    args[*n].memory = m;
    (*n)++;
}

/* int8: max |w| of each output channel (g, o) of an ldigo tensor [L][D][I][G][O]
 * (`per` = G * O channels) or of an ldio one (G = 1), into mx[]. */
static dnnl_status_t channel_max(dnnl_memory_t m, size_t outer, size_t per, float *mx) {
    dnnl_status_t st = dnnl_success;
    void *ptr = NULL;
    TRY(dnnl_memory_get_data_handle(m, &ptr));
    for (size_t k = 0; k < outer; k++)
        for (size_t c = 0; c < per; c++) {
            const float v = fabsf(((const float *)ptr)[k * per + c]);
            if (v > mx[c]) mx[c] = v;
        }
done:
    return st;
}

/* int8: the quantization attribute of the primitive and of its weights reorders
 * (the top of this file), from the user's f32 weights; kept in the pool. */
static dnnl_status_t int8_attr(pool_t *p, const workload_t *w, const fwd_mems_t *u) {
    dnnl_status_t st = dnnl_success;
    const size_t LD = (size_t)w->L * (size_t)n_dirs(w), GO = (size_t)n_gates(w->cell) * w->DHC;
    float *sc = calloc(GO, sizeof *sc), *sp = NULL;
    p->scales[0] = sc;
    if (!sc) FAIL("out of memory");
    TRY(channel_max(u->wl, LD * (size_t)w->SLC, GO, sc));
    TRY(channel_max(u->wi, LD * (size_t)w->DIC, GO, sc));
    for (size_t c = 0; c < GO; c++) sc[c] = sc[c] > 0.0f ? 127.0f / sc[c] : 1.0f;
    TRY(dnnl_primitive_attr_create(&p->attr));
    TRY(dnnl_primitive_attr_set_rnn_data_qparams(p->attr, DATA_SCALE, DATA_SHIFT));
    TRY(dnnl_primitive_attr_set_rnn_weights_qparams(p->attr, (dnnl_dim_t)GO, 24, sc));
    if (u->wp) {
        sp = calloc((size_t)w->DIC, sizeof *sp);
        p->scales[1] = sp;
        if (!sp) FAIL("out of memory");
        TRY(channel_max(u->wp, LD * (size_t)w->DHC, (size_t)w->DIC, sp));
        for (int c = 0; c < w->DIC; c++) sp[c] = sp[c] > 0.0f ? 127.0f / sp[c] : 1.0f;
        TRY(dnnl_primitive_attr_set_rnn_weights_projection_qparams(
                p->attr, (dnnl_dim_t)w->DIC, 8, sp));
    }
done:
    return st;
}

/* Returns 0 ok, 1 failed, 2 skipped (printed). */
static int run_workload(const workload_t *w, prec_t prec, dnnl_engine_t eng,
        dnnl_stream_t strm, const opts_t *o) {
    dnnl_status_t st = dnnl_success;
    pool_t pool;
    descs_t d;
    dnnl_primitive_desc_t fpd = NULL, bpd = NULL;
    dnnl_primitive_t fwd = NULL, bwd = NULL;
    fwd_mems_t u, f; /* user (plain) memories, and what the forward gets */
    dnnl_exec_arg_t fargs[16], bargs[40];
    int nf = 0, nb = 0, skipped = 0;
    dnnl_memory_t out_for_checksum = NULL;
    static char name[160];
    memset(&pool, 0, sizeof pool);
    memset(&u, 0, sizeof u);
    memset(&f, 0, sizeof f);
    if (prec == DT_F32) snprintf(name, sizeof name, "%s", w->name);
    else snprintf(name, sizeof name, "%s-%s", w->name, prec_names[prec]);
    g_current = name;

    TRY(make_descs(&pool, w, prec, &d));

    /* Inputs in the user's plain layouts (adapted to the primitives below). */
    TRY(user_mem(&pool, &u.src_layer, d.src_layer, eng, 1, -0.5f, 0.5f));
    TRY(user_mem(&pool, &u.src_iter, d.src_iter, eng, 2, -0.5f, 0.5f));
    TRY(user_mem(&pool, &u.wl, d.wl, eng, 4, -0.1f, 0.1f));
    const float wi = w->cell == CELL_RNN_TANH ? rnn_iter_half_width(w) : 0.1f;
    TRY(user_mem(&pool, &u.wi, d.wi, eng, 5, -wi, wi));
    TRY(user_mem(&pool, &u.bias, d.bias, eng, 7, -0.1f, 0.1f));
    if (is_lstm(w)) TRY(user_mem(&pool, &u.src_iter_c, d.src_iter_c, eng, 3, -0.5f, 0.5f));
    if (w->projection) TRY(user_mem(&pool, &u.wp, d.wp, eng, 6, -0.1f, 0.1f));
    if (w->cell == CELL_AUGRU)
        TRY(user_mem(&pool, &u.attention, d.attention, eng, 8, 0.0f, 1.0f));
    if (prec == DT_INT8) TRY(int8_attr(&pool, w, &u));

    /* Primitive descriptors: unimplemented means "not available here". */
    st = create_fwd_pd(&fpd, w, &d, eng, pool.attr);
    if (st == dnnl_success) {
        pool_pd(&pool, fpd);
        if (w->training) {
            st = create_bwd_pd(&bpd, w, &d, eng, fpd);
            if (st == dnnl_success) pool_pd(&pool, bpd);
        }
    }
    if (st == dnnl_unimplemented) {
        printf("SKIPPED %s %s\n", name, status_str(st));
        fflush(stdout);
        skipped = 1;
        st = dnnl_success;
        goto done;
    }
    TRY(st);
    {
        const char *impl = NULL;
        if (dnnl_primitive_desc_query(fpd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success
                && impl)
            printf("# %s impl %s", name, impl);
        if (bpd && dnnl_primitive_desc_query(bpd, dnnl_query_impl_info_str, 0, &impl)
                        == dnnl_success
                && impl)
            printf(" / backward %s", impl);
        printf("\n");
    }

    TRY(adapt_in(&pool, &f.src_layer, fpd, DNNL_ARG_SRC_LAYER, u.src_layer, eng, strm));
    TRY(adapt_in(&pool, &f.src_iter, fpd, DNNL_ARG_SRC_ITER, u.src_iter, eng, strm));
    TRY(adapt_in_attr(&pool, &f.wl, fpd, DNNL_ARG_WEIGHTS_LAYER, u.wl, eng, strm, pool.attr));
    TRY(adapt_in_attr(&pool, &f.wi, fpd, DNNL_ARG_WEIGHTS_ITER, u.wi, eng, strm, pool.attr));
    TRY(adapt_in(&pool, &f.bias, fpd, DNNL_ARG_BIAS, u.bias, eng, strm));
    if (u.src_iter_c)
        TRY(adapt_in(&pool, &f.src_iter_c, fpd, DNNL_ARG_SRC_ITER_C, u.src_iter_c, eng, strm));
    if (u.wp)
        TRY(adapt_in_attr(&pool, &f.wp, fpd, DNNL_ARG_WEIGHTS_PROJECTION, u.wp, eng, strm,
                pool.attr));
    if (u.attention)
        TRY(adapt_in(&pool, &f.attention, fpd, DNNL_ARG_AUGRU_ATTENTION, u.attention, eng,
                strm));
    TRY(alloc_out(&pool, &f.dst_layer, fpd, DNNL_ARG_DST_LAYER, eng));
    TRY(alloc_out(&pool, &f.dst_iter, fpd, DNNL_ARG_DST_ITER, eng));
    if (is_lstm(w)) TRY(alloc_out(&pool, &f.dst_iter_c, fpd, DNNL_ARG_DST_ITER_C, eng));
    if (w->training) {
        if (!arg_md(fpd, DNNL_ARG_WORKSPACE)) FAIL("forward_training without a workspace");
        TRY(alloc_out(&pool, &f.workspace, fpd, DNNL_ARG_WORKSPACE, eng));
    }

    add_arg(fargs, &nf, DNNL_ARG_SRC_LAYER, f.src_layer);
    add_arg(fargs, &nf, DNNL_ARG_SRC_ITER, f.src_iter);
    add_arg(fargs, &nf, DNNL_ARG_SRC_ITER_C, f.src_iter_c);
    add_arg(fargs, &nf, DNNL_ARG_AUGRU_ATTENTION, f.attention);
    add_arg(fargs, &nf, DNNL_ARG_WEIGHTS_LAYER, f.wl);
    add_arg(fargs, &nf, DNNL_ARG_WEIGHTS_ITER, f.wi);
    add_arg(fargs, &nf, DNNL_ARG_WEIGHTS_PROJECTION, f.wp);
    add_arg(fargs, &nf, DNNL_ARG_BIAS, f.bias);
    add_arg(fargs, &nf, DNNL_ARG_DST_LAYER, f.dst_layer);
    add_arg(fargs, &nf, DNNL_ARG_DST_ITER, f.dst_iter);
    add_arg(fargs, &nf, DNNL_ARG_DST_ITER_C, f.dst_iter_c);
    add_arg(fargs, &nf, DNNL_ARG_WORKSPACE, f.workspace);
    TRY(pool_prim(&pool, &fwd, fpd));
    out_for_checksum = f.dst_layer;

    if (w->training) {
        /* Backward: forward tensors (weights re-adapted to its own layout),
         * diff_dst inputs, diff outputs (diff weights accumulate: harmless
         * for timing, the values stay small). */
        dnnl_memory_t m;
        struct {
            int arg;
            dnnl_memory_t user;
        } ins[] = {
                {DNNL_ARG_SRC_LAYER, u.src_layer},
                {DNNL_ARG_SRC_ITER, u.src_iter},
                {DNNL_ARG_SRC_ITER_C, u.src_iter_c},
                {DNNL_ARG_AUGRU_ATTENTION, u.attention},
                {DNNL_ARG_WEIGHTS_LAYER, u.wl},
                {DNNL_ARG_WEIGHTS_ITER, u.wi},
                {DNNL_ARG_WEIGHTS_PROJECTION, u.wp},
                {DNNL_ARG_BIAS, u.bias},
                {DNNL_ARG_DST_LAYER, f.dst_layer},
                {DNNL_ARG_DST_ITER, f.dst_iter},
                {DNNL_ARG_DST_ITER_C, f.dst_iter_c},
                {DNNL_ARG_WORKSPACE, f.workspace},
        };
        const struct {
            int arg;
            const_dnnl_memory_desc_t md;
            unsigned seed;
        } diff_dst[] = {
                {DNNL_ARG_DIFF_DST_LAYER, d.d_dst_layer, 11},
                {DNNL_ARG_DIFF_DST_ITER, d.d_dst_iter, 12},
                {DNNL_ARG_DIFF_DST_ITER_C, is_lstm(w) ? d.d_dst_iter_c : NULL, 13},
        };
        const int outs[] = {DNNL_ARG_DIFF_SRC_LAYER, DNNL_ARG_DIFF_SRC_ITER,
                DNNL_ARG_DIFF_SRC_ITER_C, DNNL_ARG_DIFF_AUGRU_ATTENTION,
                DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER,
                DNNL_ARG_DIFF_WEIGHTS_PROJECTION, DNNL_ARG_DIFF_BIAS};
        const int n_ins = (int)(sizeof ins / sizeof ins[0]);
        const int n_outs = (int)(sizeof outs / sizeof outs[0]);
        for (int i = 0; i < n_ins; i++) {
            if (!ins[i].user) continue;
            if (ins[i].arg == DNNL_ARG_DST_LAYER || ins[i].arg == DNNL_ARG_DST_ITER
                    || ins[i].arg == DNNL_ARG_DST_ITER_C || ins[i].arg == DNNL_ARG_WORKSPACE) {
                /* Produced by the forward in its layout: must match as is. */
                const_dnnl_memory_desc_t want = arg_md(bpd, ins[i].arg), have = NULL;
                TRY(dnnl_memory_get_memory_desc(ins[i].user, &have));
                if (!want || !dnnl_memory_desc_equal(want, have))
                    FAIL("backward wants a forward output in another layout");
                m = ins[i].user;
            } else {
                TRY(adapt_in(&pool, &m, bpd, ins[i].arg, ins[i].user, eng, strm));
            }
            add_arg(bargs, &nb, ins[i].arg, m);
        }
        for (int i = 0; i < 3; i++) {
            dnnl_memory_t user;
            if (!diff_dst[i].md) continue;
            TRY(user_mem(&pool, &user, diff_dst[i].md, eng, diff_dst[i].seed, -0.1f, 0.1f));
            TRY(adapt_in(&pool, &m, bpd, diff_dst[i].arg, user, eng, strm));
            add_arg(bargs, &nb, diff_dst[i].arg, m);
        }
        for (int i = 0; i < n_outs; i++) {
            if (!arg_md(bpd, outs[i])) continue;
            TRY(alloc_out(&pool, &m, bpd, outs[i], eng));
            add_arg(bargs, &nb, outs[i], m);
            if (outs[i] == DNNL_ARG_DIFF_SRC_LAYER) out_for_checksum = m;
        }
        TRY(pool_prim(&pool, &bwd, bpd));
    }

    {
        plan_t pl;
        double med = 0.0, mn = 0.0;
        int count = 0;
        memset(&pl, 0, sizeof pl);
        pl.prim[0] = fwd;
        pl.args[0] = fargs;
        pl.nargs[0] = nf;
        pl.n = 1;
        if (bwd) {
            pl.prim[1] = bwd;
            pl.args[1] = bargs;
            pl.nargs[1] = nb;
            pl.n = 2;
        }
        if (o->n_variants) {
            TRY(time_paired(&pl, strm, o, name));
            goto done;
        }
        TRY(time_plan(&pl, strm, o, &med, &mn, &count));
        double abs_sum;
        const double sum = checksum(out_for_checksum, &abs_sum);
        printf("RESULT %s %.4f %.4f %.2f %d %.6e", name, 1e3 * med, 1e3 * mn,
                workload_flops(w) / med * 1e-9, count, sum);
        if (prec != DT_F32) printf(" %.6e", abs_sum);
        printf("\n");
        fflush(stdout);
    }
done:
    pool_free(&pool);
    if (st != dnnl_success) {
        printf("FAILED %s %s\n", name, status_str(st));
        fflush(stdout);
        return 1;
    }
    return skipped ? 2 : 0;
}

/* ------------------------------------------------------------------------ */

static const char *runtime_name(unsigned r) {
    switch (r) {
        case DNNL_RUNTIME_SEQ: return "seq";
        case DNNL_RUNTIME_OMP: return "omp";
        case DNNL_RUNTIME_TBB: return "tbb";
        case DNNL_RUNTIME_THREADPOOL: return "threadpool";
        case DNNL_RUNTIME_SYCL: return "sycl";
        default: return "other";
    }
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: rnn_bench [--iters N] [--min-time S] [--max-time S] [--warmup N] "
            "[--list] [--variants \"0 1 ...\"] [--shape SPEC ...] [--dt f32|bf16|int8] "
            "[all | W1 W2 ... | W2-bf16 W8-int8 ...]\n"
            "  --shape [name=]cell,dir,prop,dims  a workload of one's own (repeatable):\n"
            "      cell rnn (tanh) | lstm | gru | lbr_gru | augru; dir l2r | r2l | concat | sum;\n"
            "      prop inf | train; dims as benchdnn's, e.g. l1t50mb1sic1760 or\n"
            "      t50mb16sic256dhc1024dic256 (LSTM projection: dic != dhc; sic = dic); only the\n"
            "      shapes given run unless workloads are named too\n"
            "  --dt DT  the data type of `all`, of the names without one and of the --shape\n"
            "      workloads: f32 (default) | bf16 | int8; a name may carry its own (W2-bf16)\n");
}

int main(int argc, char **argv) {
    opts_t o = {10, 3, 0.5, 5.0, 0, {0}};
    /* plain[k]: named without a data type (or `all`): runs in --dt's; dts[k]: bit p = runs
     * in data type p (named with it) */
    int plain[N_WORKLOADS] = {0}, dts[N_WORKLOADS] = {0}, any = 0, failed = 0, n_shapes = 0;
    prec_t dt = DT_F32;
    dnnl_engine_t eng = NULL;
    dnnl_stream_t strm = NULL;
    dnnl_status_t st;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int has_val = i + 1 < argc;
        if (!strcmp(a, "--iters") && has_val) o.iters = atoi(argv[++i]);
        else if (!strcmp(a, "--warmup") && has_val) o.warmup = atoi(argv[++i]);
        else if (!strcmp(a, "--min-time") && has_val) o.min_time = atof(argv[++i]);
        else if (!strcmp(a, "--max-time") && has_val) o.max_time = atof(argv[++i]);
        else if (!strcmp(a, "--variants") && has_val) {
            const char *p = argv[++i];
            char *end;
            o.n_variants = 0;
            for (long x = strtol(p, &end, 10); end != p; x = strtol(p, &end, 10)) {
                if (o.n_variants == MAX_VARIANTS) {
                    fprintf(stderr, "rnn_bench: at most %d variants\n", MAX_VARIANTS);
                    return 2;
                }
                o.variants[o.n_variants++] = (int)x;
                p = end + (*end == ',');
            }
            if (!o.n_variants) {
                fprintf(stderr, "rnn_bench: --variants wants numbers, e.g. \"0 1\"\n");
                return 2;
            }
        } else if (!strcmp(a, "--shape") && has_val) {
            if (n_shapes == MAX_SHAPES || parse_shape(argv[++i], n_shapes)) {
                fprintf(stderr, "rnn_bench: bad --shape '%s' (or more than %d)\n", argv[i],
                        MAX_SHAPES);
                usage(stderr);
                return 2;
            }
            n_shapes++;
        } else if (!strcmp(a, "--dt") && has_val) {
            const char *v = argv[++i];
            int found = 0;
            for (int p = 0; p < N_DTS; p++)
                if (!strcmp(v, prec_names[p])) dt = (prec_t)p, found = 1;
            if (!found) {
                fprintf(stderr, "rnn_bench: unknown data type '%s' (f32, bf16 or int8)\n", v);
                usage(stderr);
                return 2;
            }
        } else if (!strcmp(a, "--list")) {
            for (int k = 0; k < N_WORKLOADS; k++)
                printf("%s\t%s\t%.6g GFLOP\n", workloads[k].name, workloads[k].what,
                        workload_flops(&workloads[k]) * 1e-9);
            for (int k = 0; k < n_shapes; k++) /* the --shape ones given before --list */
                printf("%s\t%s\t%.6g GFLOP\n", shapes[k].name, shapes[k].what,
                        workload_flops(&shapes[k]) * 1e-9);
            return 0;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "all")) {
            for (int k = 0; k < N_WORKLOADS; k++) plain[k] = 1;
            any = 1;
        } else {
            int found = 0;
            for (int k = 0; k < N_WORKLOADS; k++) {
                const size_t n = strlen(workloads[k].name);
                if (!strcmp(a, workloads[k].name)) plain[k] = found = any = 1;
                else if (!strncmp(a, workloads[k].name, n) && a[n] == '-')
                    for (int p = 0; p < N_DTS; p++)
                        if (!strcmp(a + n + 1, prec_names[p])) dts[k] |= 1 << p, found = any = 1;
            }
            if (!found) {
                fprintf(stderr, "rnn_bench: unknown workload or option '%s'\n", a);
                usage(stderr);
                return 2;
            }
        }
    }
    if (o.n_variants && !find_set_variant()) {
        fprintf(stderr, "rnn_bench: --variants needs an oxidnn build that exports "
                        "oxidnn_experiment_set_variant (benchmarks/README.md)\n");
        return 2;
    }
    if (o.iters < 1) o.iters = 1;
    if (o.warmup < 0) o.warmup = 0;
    if (!any && !n_shapes)
        for (int k = 0; k < N_WORKLOADS; k++) plain[k] = 1;
    for (int k = 0; k < N_WORKLOADS; k++)
        if (plain[k]) dts[k] |= 1 << dt;

    const dnnl_version_t *v = dnnl_version();
    printf("# library %d.%d.%d (%s) cpu_runtime %s\n", v->major, v->minor, v->patch,
            v->hash ? v->hash : "", runtime_name(v->cpu_runtime));
    fflush(stdout);

    st = dnnl_engine_create(&eng, dnnl_cpu, 0);
    if (st != dnnl_success) {
        fprintf(stderr, "rnn_bench: dnnl_engine_create failed: %s\n", status_str(st));
        return 1;
    }
    st = dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    if (st != dnnl_success) {
        fprintf(stderr, "rnn_bench: dnnl_stream_create failed: %s\n", status_str(st));
        dnnl_engine_destroy(eng);
        return 1;
    }
    for (int k = 0; k < N_WORKLOADS; k++)
        for (int p = 0; p < N_DTS; p++)
            if ((dts[k] >> p & 1) && run_workload(&workloads[k], (prec_t)p, eng, strm, &o) == 1)
                failed = 1;
    for (int k = 0; k < n_shapes; k++)
        if (run_workload(&shapes[k], dt, eng, strm, &o) == 1) failed = 1;
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return failed;
}
