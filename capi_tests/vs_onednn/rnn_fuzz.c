/*
 * rnn_fuzz.c - random RNN problems through oneDNN's C API: every cell, direction, propagation
 * kind, data-type configuration (f32, bf16, f16, int8, f32 with the bf16 fpmath mode) and
 * layout, with valid and (one case in eight) deliberately inconsistent descriptors; training
 * cases in f32 and bf16 also run the backward pass. For each case it prints the status of the
 * primitive descriptor's creation and, when that succeeds, every output value:
 *
 *     # c<i>: <description>
 *     c<i>.status <dnnl_status_t>
 *     c<i>.<class>.<tensor>.<dt>[<k>] <value printed with %.9g>
 *
 * then, for the backward pass, `c<i>.bwd_status` and the diff_* tensors the same way
 * (`c<i>.exec_status` / `c<i>.bwd_exec_status` instead of the values when an execution fails).
 *
 * <class> is the case's data-type configuration (f32, bf16, f16, i8; bf32 for f32 with the
 * bf16 fpmath mode), which sets the tolerance rnn_fuzz.compare.py applies; <k> is the
 * element's index in the logical order of the tensor's dims, whatever its layout (tnc or ntc,
 * rows of src/dst_layer padded in one case in four). One case in four gives the forward
 * primitive a user scratchpad filled with junk; one in eight executes it twice; one in eight
 * gives the data tensors as `any` and prints the strides they resolve to
 * (`c<i>.<class>.layout_<tensor>.s64[d]`). A problem without bias that a library answers
 * `unimplemented` (oneDNN's CPU engine needs a bias) is created again with a bias of zeros
 * (`c<i>.zero_bias_status`), its outputs printed as the bias-less problem's; f16 inference a
 * library does not implement (oneDNN without avx512_fp16) is run again with f32 stand-ins
 * holding the f16 values (`c<i>.f32_status`), its outputs rounded to f16; every bf16 problem a
 * library runs is run again so too (`c<i>.w32_*`, class w32): its exact result on the same
 * bf16 values, which the comparison holds oxidnn's bf16 to where oneDNN's bf16 is wrong.
 *
 * One case in six gives each sample its own sequence length (0 to T): on oxidnn, with its
 * extension (oxidnn_primitive_attr_set_rnn_seq_lengths, found at run time); on a library
 * without it (or with RNN_FUZZ_ALONE=1 in the environment), by running each sample alone
 * (N = 1, T = its length) on the same inputs and assembling the outputs the extension defines:
 * the sample's rows, the zero of the type past its length, its initial state for length 0;
 * backward, the diff weights, bias and peephole summed over the samples, diff_dst_iter passed
 * through for length 0. So oxidnn's lengths are compared with oneDNN's samples, and (ctest
 * capi_vs_rnn_fuzz_lengths) with oxidnn's own samples.
 *
 * Built against oneDNN and run on both the real oneDNN and oxidnn (as libdnnl.so.3), the two
 * listings must agree: the same status (oxidnn may implement what oneDNN answers
 * `unimplemented`), and the same outputs within the class's tolerance. Run on oxidnn alone it
 * checks that nothing crashes (ctest also runs it under valgrind).
 *
 * Usage: rnn_fuzz [--cases N] [--first K] [--seed S]
 *        (cases K to K + N - 1 of seed S; defaults 1000 cases from case 0, seed 1)
 *
 * Inputs are drawn from the case's own generator (xorshift64*), so a case does not depend on
 * the others: data in [-1, 1] (u8 data in [0, 255]), weights in [-1, 1]/sqrt(DHC) as PyTorch
 * scales them, int8 weights quantized by the library's reorder with the case's qparams.
 *
 * Exit status: 0 when every case ran (whatever its status), 1 when a call that must succeed
 * for an accepted problem failed (message on stderr).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

#define OK(call) \
    do { \
        dnnl_status_t st_ = (call); \
        if (st_ != dnnl_success) { \
            fprintf(stderr, "rnn_fuzz: case %d: %s:%d: %s failed: status %d\n", g_case, \
                    __FILE__, __LINE__, #call, (int)st_); \
            exit(1); \
        } \
    } while (0)

static int g_case;
static dnnl_engine_t eng;
static dnnl_stream_t strm;
/* The f16 or bf16 tensors of a problem are given to the library as f32 stand-ins holding the
 * same values: f16 inference a library does not implement is retried so, and every bf16
 * problem is run so too (its exact result on the same values). */
static int g_widen;

/* oxidnn's per-sample sequence lengths (an extension oneDNN lacks): its attribute setter, found
 * at run time; NULL on other libraries, where rnn_fuzz runs each sample alone instead. */
typedef dnnl_status_t (*set_lengths_fn)(dnnl_primitive_attr_t, int);
static set_lengths_fn set_lengths;
#ifndef OXIDNN_ARG_SEQ_LENGTHS
#define OXIDNN_ARG_SEQ_LENGTHS (1 << 30)
#endif

/* The type the library is given for a tensor of type `dt`. */
static dnnl_data_type_t as_given(dnnl_data_type_t dt) {
    return g_widen && (dt == dnnl_f16 || dt == dnnl_bf16) ? dnnl_f32 : dt;
}

/* ---- random numbers ------------------------------------------------------------------------ */

static uint64_t rng_state;
static uint64_t next_u64(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
/* uniform in [0, n) */
static int pick(int n) { return (int)((next_u64() >> 33) % (uint64_t)n); }
/* 1 with probability 1/n */
static int one_in(int n) { return pick(n) == 0; }
/* uniform in [-1, 1] */
static float unit(void) {
    return (float)((double)(next_u64() >> 11) / 9007199254740992.0) * 2.f - 1.f;
}

/* ---- element conversions ------------------------------------------------------------------- */

static uint16_t to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even (no NaNs here) */
    return (uint16_t)(u >> 16);
}
static float from_bf16(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint16_t to_f16(float f) { /* normal range only: the inputs are in [-1, 1] */
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000u;
    int e = (int)((u >> 23) & 0xff) - 127 + 15;
    if (e <= 0) return (uint16_t)sign; /* below the f16 normals: zero */
    uint32_t m = u & 0x7fffffu, r = m >> 13, rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (r & 1u))) r++;
    return (uint16_t)(sign | (((uint32_t)e << 10) + r));
}
static float from_f16(uint16_t h) {
    int e = (h >> 10) & 0x1f;
    float m = (float)(h & 0x3ff);
    float v = e == 0 ? ldexpf(m, -24) : e == 31 ? INFINITY : ldexpf(1024.f + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* ---- one case ------------------------------------------------------------------------------ */

enum cell { VANILLA, LSTM, GRU, LBR_GRU, AUGRU, LBR_AUGRU, CELLS };
static const char *cell_name[] = {"vanilla", "lstm", "gru", "lbr_gru", "augru", "lbr_augru"};
enum cls { F32, BF16, F16, I8, CLASSES };
static const char *cls_name[] = {"f32", "bf16", "f16", "i8"};

enum { MAX_N = 80 };

typedef struct {
    enum cell cell;
    enum cls cls;
    dnnl_alg_kind_t act;
    dnnl_prop_kind_t prop;
    dnnl_rnn_direction_t dir;
    int64_t L, D, T, N, SLC, SIC, DHC, DIC, G;
    int peephole, projection, bias, src_iter, dst_iter, weights_any;
    dnnl_format_tag_t layer_tag;
    int64_t layer_pad; /* channels of padding in src/dst_layer rows (a strided layout) */
    int fpmath; /* f32 with the bf16 fpmath mode */
    int user_scratchpad; /* the forward primitive's scratchpad given by the caller, junk-filled */
    int twice; /* the forward primitive executed twice (the outputs of the second) */
    int data_any; /* the data tensors (layer, iter, bias) given as `any` (forward only) */
    /* data types: src/dst layer, src/dst iter, c-states, weights (and projection), bias,
     * peephole */
    dnnl_data_type_t src_layer_dt, src_iter_dt, dst_layer_dt, dst_iter_dt, c_dt, w_dt, b_dt,
            pp_dt;
    float data_scale, data_shift;
    int per_channel;
    int backward; /* f32 / bf16 training: the backward pass too */
    int overwrite; /* backward with dnnl_rnn_flags_diff_weights_overwrite */
    const char *broken; /* the inconsistency introduced, or NULL */
    int lengths; /* per-sample sequence lengths: `len` */
    int32_t len[MAX_N];
} case_t;

static dnnl_data_type_t one_of2(dnnl_data_type_t a, dnnl_data_type_t b) {
    return one_in(2) ? a : b;
}

static case_t draw_case(void) {
    case_t c;
    memset(&c, 0, sizeof c);
    c.cell = (enum cell)pick(CELLS);
    c.cls = (enum cls)pick(CLASSES);
    const dnnl_alg_kind_t acts[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_logistic};
    c.act = c.cell != VANILLA ? dnnl_alg_kind_undef : acts[pick(3)];
    c.prop = one_in(3) ? dnnl_forward_training : dnnl_forward_inference;
    int augru = c.cell == AUGRU || c.cell == LBR_AUGRU;
    c.dir = augru ? dnnl_unidirectional_left2right
                  : (dnnl_rnn_direction_t[]) {dnnl_unidirectional_left2right,
                          dnnl_unidirectional_right2left, dnnl_bidirectional_concat,
                          dnnl_bidirectional_sum}[pick(4)];
    c.D = c.dir == dnnl_bidirectional_concat || c.dir == dnnl_bidirectional_sum ? 2 : 1;
    c.L = augru ? 1 : 1 + pick(3);
    /* T up to 4, or (one case in ten) 40; N up to 3, or (one in ten, T up to 4) 70: the
     * batch-split and fused-layer-GEMM schedules, several row tiles */
    c.T = one_in(10) ? 1 + pick(40) : 1 + pick(4);
    c.N = one_in(10) ? 1 + pick(MAX_N - 10) : 1 + pick(3);
    if (c.N > 4 && c.T > 4) c.T = 1 + c.T % 4;
    /* channels up to 9, or (one case in ten) up to 80: several panels of the kernels, the
     * last one partial; or (one in forty, with T and N up to 4) up to 300: several K blocks */
    const int wide = one_in(40);
    const int channels = wide ? 300 : one_in(10) ? 80 : 9;
    if (wide) {
        c.T = 1 + c.T % 4;
        c.N = 1 + c.N % 4;
    }
    c.DHC = 1 + pick(channels);
    c.G = c.cell == VANILLA ? 1 : c.cell == LSTM ? 4 : 3;
    c.peephole = c.cell == LSTM && one_in(4);
    c.projection = c.cell == LSTM && one_in(4);
    c.DIC = c.projection ? 1 + pick(channels) : c.DHC;
    c.SIC = c.DIC;
    c.SLC = c.L > 1 ? c.DIC : 1 + pick(channels);
    c.bias = !one_in(6);
    c.src_iter = !one_in(3);
    c.dst_iter = !one_in(3);
    c.weights_any = c.cls == I8 || !one_in(3);
    c.layer_tag = one_in(3) ? dnnl_ntc : dnnl_tnc;
    c.layer_pad = one_in(4) ? 1 + pick(3) : 0;
    c.data_scale = 1.f;
    c.data_shift = 0.f;
    switch (c.cls) {
    case F32:
        c.src_layer_dt = c.src_iter_dt = c.dst_layer_dt = c.dst_iter_dt = c.c_dt = c.w_dt
                = c.b_dt = c.pp_dt = dnnl_f32;
        break;
    case BF16:
    case F16: {
        dnnl_data_type_t lp = c.cls == BF16 ? dnnl_bf16 : dnnl_f16;
        c.src_layer_dt = c.src_iter_dt = c.dst_layer_dt = c.dst_iter_dt = c.w_dt = lp;
        c.b_dt = one_of2(dnnl_f32, lp);
        c.c_dt = one_of2(dnnl_f32, lp);
        c.pp_dt = one_of2(dnnl_f32, lp);
        break;
    }
    case I8:
        /* oneDNN's int8 configurations: u8 src_layer, s8 weights, f32 bias and c-states;
         * src_iter / dst_iter / dst_layer u8 or f32 (u8u8u8u8, u8u8u8f32, f32u8f32f32,
         * f32u8f32u8), now and then s8 activations */
        c.src_layer_dt = one_in(6) ? dnnl_s8 : dnnl_u8;
        c.src_iter_dt = one_of2(c.src_layer_dt, dnnl_f32);
        c.dst_iter_dt = c.src_iter_dt;
        c.dst_layer_dt = one_of2(c.src_layer_dt, dnnl_f32);
        c.c_dt = c.b_dt = dnnl_f32;
        c.w_dt = c.pp_dt = dnnl_s8;
        c.prop = one_in(8) ? dnnl_forward_training : dnnl_forward_inference;
        c.data_scale = c.src_layer_dt == dnnl_u8 ? 63.f : 100.f;
        c.data_shift = c.src_layer_dt == dnnl_u8 ? 64.f : 0.f;
        c.per_channel = one_in(2);
        break;
    default: break;
    }
    c.fpmath = c.cls == F32 && one_in(4);
    c.user_scratchpad = one_in(4);
    c.twice = one_in(8);
    c.data_any = one_in(8);
    /* the backward pass: not after `any` data (the forward's resolved descriptors would be
     * needed) nor after the bf16 fpmath mode (which a library may use or not in the forward
     * pass: the gradients of two precisions differ beyond what compares), nor for more than 80
     * channels (diff weights of up to a million values to print) */
    c.backward = c.prop == dnnl_forward_training && (c.cls == F32 || c.cls == BF16)
            && !c.data_any && !c.fpmath && !wide;
    c.overwrite = one_in(2);
    /* per-sample sequence lengths, each in 0..T; not for `any` data (which the samples run
     * alone would resolve their own way) */
    c.lengths = one_in(6) && !c.data_any;
    for (int64_t b = 0; c.lengths && b < c.N; b++) c.len[b] = pick((int)c.T + 1);
    if (one_in(8)) {
        switch (pick(5)) {
        case 0:
            c.SIC = c.DIC + 1;
            c.broken = "SIC != DIC";
            break;
        case 1:
            if (c.L > 1) {
                c.SLC = c.DIC + 1;
                c.broken = "SLC != DIC at L > 1";
            }
            break;
        case 2:
            c.dst_layer_dt = c.dst_layer_dt == dnnl_f32 ? dnnl_bf16 : dnnl_f32;
            c.broken = "dst_layer data type";
            break;
        case 3:
            c.w_dt = c.w_dt == dnnl_s8 ? dnnl_u8 : dnnl_s8;
            c.broken = "weights data type";
            break;
        default:
            c.src_iter_dt = dnnl_s32;
            c.broken = "s32 src_iter";
            break;
        }
    }
    return c;
}

static const char *dt_name(dnnl_data_type_t dt) {
    switch (dt) {
    case dnnl_f32: return "f32";
    case dnnl_bf16: return "bf16";
    case dnnl_f16: return "f16";
    case dnnl_u8: return "u8";
    case dnnl_s8: return "s8";
    case dnnl_s32: return "s32";
    default: return "dt?";
    }
}

static const char *dir_name(dnnl_rnn_direction_t d) {
    switch (d) {
    case dnnl_unidirectional_left2right: return "l2r";
    case dnnl_unidirectional_right2left: return "r2l";
    case dnnl_bidirectional_concat: return "concat";
    default: return "sum";
    }
}

static dnnl_memory_desc_t md(
        int nd, const int64_t *dims, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t m = NULL;
    OK(dnnl_memory_desc_create_with_tag(&m, nd, dims, dt, tag));
    return m;
}

/* A src/dst_layer-like {T, N, C} descriptor in `tag` (tnc or ntc), each row of C channels
 * followed by `pad` unused ones. */
static dnnl_memory_desc_t layer_md(
        const int64_t *dims, dnnl_data_type_t dt, dnnl_format_tag_t tag, int64_t pad) {
    if (!pad) return md(3, dims, dt, tag);
    const int64_t row = dims[2] + pad;
    const dnnl_dims_t tnc = {dims[1] * row, row, 1}, ntc = {row, dims[0] * row, 1};
    dnnl_memory_desc_t m = NULL;
    OK(dnnl_memory_desc_create_with_strides(&m, 3, dims, dt, tag == dnnl_ntc ? ntc : tnc));
    return m;
}

/* The memory for argument `arg` of `pd`. */
static dnnl_memory_t arg_memory(const_dnnl_primitive_desc_t pd, int arg) {
    const_dnnl_memory_desc_t m = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    dnnl_memory_t mem = NULL;
    OK(dnnl_memory_create(&mem, m, eng, DNNL_MEMORY_ALLOCATE));
    return mem;
}

/* Fills a plain memory holding a tensor of type `dt` with values in [-1, 1] times `scale` (u8
 * in [0, 255], s8 in [-128, 127]); the f32 stand-in of an f16 or bf16 tensor (g_widen) gets
 * the f16 / bf16 values, converted here (oneDNN 3.2 has no f16 reorder on CPUs without
 * avx512_fp16). */
static void fill(dnnl_memory_t mem, dnnl_data_type_t dt, float scale) {
    const_dnnl_memory_desc_t m;
    OK(dnnl_memory_get_memory_desc(mem, &m));
    size_t bytes = dnnl_memory_desc_get_size(m);
    void *p = NULL;
    OK(dnnl_memory_map_data(mem, &p));
    const dnnl_data_type_t stored = as_given(dt);
    size_t n = bytes / dnnl_data_type_size(stored);
    for (size_t k = 0; k < n; k++) {
        float v = unit() * scale;
        switch (stored) {
        case dnnl_f32:
            ((float *)p)[k] = dt == dnnl_f16 ? from_f16(to_f16(v))
                    : dt == dnnl_bf16        ? from_bf16(to_bf16(v))
                                             : v;
            break;
        case dnnl_bf16: ((uint16_t *)p)[k] = to_bf16(v); break;
        case dnnl_f16: ((uint16_t *)p)[k] = to_f16(v); break;
        case dnnl_u8: ((uint8_t *)p)[k] = (uint8_t)pick(256); break;
        case dnnl_s8: ((int8_t *)p)[k] = (int8_t)(pick(256) - 128); break;
        default: memset(p, 0, bytes); k = n; break;
        }
    }
    OK(dnnl_memory_unmap_data(mem, p));
}

/* A memory of `m` (plain) filled as `fill` does. */
static dnnl_memory_t filled(const_dnnl_memory_desc_t m, dnnl_data_type_t dt, float scale) {
    dnnl_memory_t mem = NULL;
    OK(dnnl_memory_create(&mem, m, eng, DNNL_MEMORY_ALLOCATE));
    fill(mem, dt, scale);
    return mem;
}

/* Reorders `from` into `to` (with `attr`: the int8 quantization, or NULL). */
static void reorder(dnnl_memory_t from, dnnl_memory_t to, const_dnnl_primitive_attr_t attr) {
    const_dnnl_memory_desc_t fm = NULL, tm = NULL;
    OK(dnnl_memory_get_memory_desc(from, &fm));
    OK(dnnl_memory_get_memory_desc(to, &tm));
    dnnl_primitive_desc_t rpd = NULL;
    OK(dnnl_reorder_primitive_desc_create(&rpd, fm, eng, tm, eng, attr));
    dnnl_primitive_t r = NULL;
    OK(dnnl_primitive_create(&r, rpd));
    dnnl_exec_arg_t rargs[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    OK(dnnl_primitive_execute(r, strm, 2, rargs));
    OK(dnnl_stream_wait(strm));
    OK(dnnl_primitive_destroy(r));
    OK(dnnl_primitive_desc_destroy(rpd));
}

/* A memory of `m` filled with zeros (drawing nothing: the case's other inputs stay the same). */
static dnnl_memory_t zeroed(const_dnnl_memory_desc_t m) {
    dnnl_memory_t mem = NULL;
    OK(dnnl_memory_create(&mem, m, eng, DNNL_MEMORY_ALLOCATE));
    void *p = NULL;
    OK(dnnl_memory_map_data(mem, &p));
    memset(p, 0, dnnl_memory_desc_get_size(m));
    OK(dnnl_memory_unmap_data(mem, p));
    return mem;
}

/* The label of case `c`'s outputs: its class (bf32 for f32 with the bf16 fpmath mode), w32 for
 * the f32 run of a bf16 problem. */
static const char *label(const case_t *c) {
    return g_widen && c->cls == BF16 ? "w32" : c->fpmath ? "bf32" : cls_name[c->cls];
}

/* The prefix of the status lines of an execution or a backward pass: w32_ in the f32 run of a
 * bf16 problem. */
static const char *run_prefix(const case_t *c) { return g_widen && c->cls == BF16 ? "w32_" : ""; }

/* Prints every element of a plain (strided) memory as `c<i>.<class>.<tensor>.<dt>[k]`, k its
 * index in the logical (row-major) order of its dims, whatever the strides. */
static void print_memory(
        int i, const case_t *c, const char *tensor, dnnl_memory_t mem, dnnl_data_type_t dt) {
    const_dnnl_memory_desc_t m;
    OK(dnnl_memory_get_memory_desc(mem, &m));
    int nd = 0;
    const dnnl_dims_t *dims = NULL, *strides = NULL;
    OK(dnnl_memory_desc_query(m, dnnl_query_ndims_s32, &nd));
    OK(dnnl_memory_desc_query(m, dnnl_query_dims, &dims));
    OK(dnnl_memory_desc_query(m, dnnl_query_strides, &strides));
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= (*dims)[d];
    const char *cls = label(c);
    void *p = NULL;
    OK(dnnl_memory_map_data(mem, &p));
    for (int64_t k = 0; k < n; k++) {
        int64_t off = 0, rest = k;
        for (int d = nd - 1; d >= 0; d--) {
            off += (rest % (*dims)[d]) * (*strides)[d];
            rest /= (*dims)[d];
        }
        double v;
        switch (as_given(dt)) {
        case dnnl_f32:
            v = ((float *)p)[off];
            /* the f32 stand-in of an f16 / bf16 output: rounded, as the problem's output is */
            if (dt == dnnl_f16) v = from_f16(to_f16((float)v));
            if (dt == dnnl_bf16) v = from_bf16(to_bf16((float)v));
            break;
        case dnnl_bf16: v = from_bf16(((uint16_t *)p)[off]); break;
        case dnnl_f16: v = from_f16(((uint16_t *)p)[off]); break;
        case dnnl_u8: v = ((uint8_t *)p)[off]; break;
        case dnnl_s8: v = ((int8_t *)p)[off]; break;
        default: v = 0; break;
        }
        printf("c%d.%s.%s.%s[%lld] %.9g\n", i, cls, tensor, dt_name(dt), (long long)k, v);
    }
    OK(dnnl_memory_unmap_data(mem, p));
}

/* Executes `prim` and waits: its status (a library may accept a descriptor, then refuse to
 * run it: printed, not fatal). */
static dnnl_status_t execute(dnnl_primitive_t prim, int n, const dnnl_exec_arg_t *args) {
    dnnl_status_t st = dnnl_primitive_execute(prim, strm, n, args);
    return st == dnnl_success ? dnnl_stream_wait(strm) : st;
}

/* The dims of a case's tensors. */
typedef struct {
    int64_t sl[3], si[4], sc[4], wl[5], wi[5], pp[4], wp[4], b[4], dl[3], di[4], at[3];
} dims_t;

static dims_t dims_of(const case_t *c) {
    const int64_t lbr = c->cell == LBR_GRU || c->cell == LBR_AUGRU;
    const int64_t DLC = c->DIC * (c->dir == dnnl_bidirectional_concat ? 2 : 1);
    const dims_t d = {{c->T, c->N, c->SLC}, {c->L, c->D, c->N, c->SIC},
            {c->L, c->D, c->N, c->DHC}, {c->L, c->D, c->SLC, c->G, c->DHC},
            {c->L, c->D, c->SIC, c->G, c->DHC}, {c->L, c->D, 3, c->DHC},
            {c->L, c->D, c->DHC, c->DIC}, {c->L, c->D, c->G + lbr, c->DHC}, {c->T, c->N, DLC},
            {c->L, c->D, c->N, c->DIC}, {c->T, c->N, 1}};
    return d;
}

/* The descriptors of a forward problem, NULL for the tensors it has not. */
typedef struct {
    dnnl_memory_desc_t sl, si, sc, wl, wi, pp, wp, b, dl, di, dc, at;
} mds_t;

/* The forward descriptors of case `c` (in the types the library is given: f32 stand-ins for
 * f16 in a retry); `bias` forces a bias descriptor (the zero bias of a retry). */
static mds_t mds_of(const case_t *c, const dims_t *d, int bias) {
    const int has_c = c->cell == LSTM;
    const int augru = c->cell == AUGRU || c->cell == LBR_AUGRU;
    const dnnl_format_tag_t wtag = c->weights_any ? dnnl_format_tag_any : dnnl_ldigo,
                            ptag = c->weights_any ? dnnl_format_tag_any : dnnl_ldio,
                            ltag = c->data_any ? dnnl_format_tag_any : c->layer_tag,
                            itag = c->data_any ? dnnl_format_tag_any : dnnl_ldnc,
                            btag = c->data_any ? dnnl_format_tag_any : dnnl_ldgo;
    const int64_t pad = c->data_any ? 0 : c->layer_pad;
    /* the attention in the activations' type (f32 for int8, which no AUGRU runs) */
    const dnnl_data_type_t at_dt = c->cls == I8 ? dnnl_f32 : c->src_layer_dt;
    mds_t m;
    m.sl = layer_md(d->sl, as_given(c->src_layer_dt), ltag, pad);
    m.si = c->src_iter ? md(4, d->si, as_given(c->src_iter_dt), itag) : NULL;
    m.sc = c->src_iter && has_c ? md(4, d->sc, as_given(c->c_dt), itag) : NULL;
    m.wl = md(5, d->wl, as_given(c->w_dt), wtag);
    m.wi = md(5, d->wi, as_given(c->w_dt), wtag);
    m.pp = c->peephole ? md(4, d->pp, as_given(c->pp_dt), dnnl_ldgo) : NULL;
    m.wp = c->projection ? md(4, d->wp, as_given(c->w_dt), ptag) : NULL;
    m.b = c->bias || bias ? md(4, d->b, as_given(c->b_dt), btag) : NULL;
    m.dl = layer_md(d->dl, as_given(c->dst_layer_dt), ltag, pad);
    m.di = c->dst_iter ? md(4, d->di, as_given(c->dst_iter_dt), itag) : NULL;
    m.dc = c->dst_iter && has_c ? md(4, d->sc, as_given(c->c_dt), itag) : NULL;
    m.at = augru ? md(3, d->at, as_given(at_dt), dnnl_tnc) : NULL;
    return m;
}

static void destroy_mds(mds_t *m) {
    dnnl_memory_desc_t all[]
            = {m->sl, m->si, m->sc, m->wl, m->wi, m->pp, m->wp, m->b, m->dl, m->di, m->dc, m->at};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        if (all[k]) OK(dnnl_memory_desc_destroy(all[k]));
}

/* Creates the forward primitive descriptor of case `c` on descriptors `m`. */
static dnnl_status_t create_forward(dnnl_primitive_desc_t *pd, const case_t *c, const mds_t *m,
        const_dnnl_primitive_attr_t attr) {
    const unsigned flags = dnnl_rnn_flags_undef;
    switch (c->cell) {
    case VANILLA:
        return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, c->prop, c->act, c->dir,
                m->sl, m->si, m->wl, m->wi, m->b, m->dl, m->di, flags, 0.f, 0.f, attr);
    case LSTM:
        return dnnl_lstm_forward_primitive_desc_create(pd, eng, c->prop, c->dir, m->sl, m->si,
                m->sc, m->wl, m->wi, m->pp, m->wp, m->b, m->dl, m->di, m->dc, flags, attr);
    case GRU:
        return dnnl_gru_forward_primitive_desc_create(pd, eng, c->prop, c->dir, m->sl, m->si,
                m->wl, m->wi, m->b, m->dl, m->di, flags, attr);
    case LBR_GRU:
        return dnnl_lbr_gru_forward_primitive_desc_create(pd, eng, c->prop, c->dir, m->sl, m->si,
                m->wl, m->wi, m->b, m->dl, m->di, flags, attr);
    case AUGRU:
        return dnnl_augru_forward_primitive_desc_create(pd, eng, c->prop, c->dir, m->sl, m->si,
                m->at, m->wl, m->wi, m->b, m->dl, m->di, flags, attr);
    default:
        return dnnl_lbr_augru_forward_primitive_desc_create(pd, eng, c->prop, c->dir, m->sl,
                m->si, m->at, m->wl, m->wi, m->b, m->dl, m->di, flags, attr);
    }
}

/* Copies sample `fb` of memory `from` to sample `tb` of `to` (the same tensor's type and rank,
 * `ax` its batch axis): the elements of the dims both have, in logical order. */
static void copy_sample(dnnl_memory_t from, int64_t fb, dnnl_memory_t to, int64_t tb, int ax) {
    const_dnnl_memory_desc_t m[2];
    dnnl_memory_t mem[2] = {from, to};
    int nd = 0;
    const dnnl_dims_t *dims[2], *strides[2];
    dnnl_data_type_t dt[2];
    char *p[2];
    for (int s = 0; s < 2; s++) {
        OK(dnnl_memory_get_memory_desc(mem[s], &m[s]));
        OK(dnnl_memory_desc_query(m[s], dnnl_query_ndims_s32, &nd));
        OK(dnnl_memory_desc_query(m[s], dnnl_query_dims, &dims[s]));
        OK(dnnl_memory_desc_query(m[s], dnnl_query_strides, &strides[s]));
        OK(dnnl_memory_desc_query(m[s], dnnl_query_data_type, &dt[s]));
        OK(dnnl_memory_map_data(mem[s], (void **)&p[s]));
    }
    if (dt[0] != dt[1]) OK(dnnl_invalid_arguments);
    const size_t size = dnnl_data_type_size(dt[0]);
    int64_t n = 1, extent[DNNL_MAX_NDIMS];
    for (int k = 0; k < nd; k++) {
        extent[k] = k == ax ? 1 : (*dims[0])[k] < (*dims[1])[k] ? (*dims[0])[k] : (*dims[1])[k];
        n *= extent[k];
    }
    for (int64_t e = 0; e < n; e++) {
        int64_t off[2] = {fb * (*strides[0])[ax], tb * (*strides[1])[ax]}, rest = e;
        for (int k = nd - 1; k >= 0; k--) {
            for (int s = 0; s < 2; s++) off[s] += (rest % extent[k]) * (*strides[s])[k];
            rest /= extent[k];
        }
        memcpy(p[1] + off[1] * (int64_t)size, p[0] + off[0] * (int64_t)size, size);
    }
    for (int s = 0; s < 2; s++) OK(dnnl_memory_unmap_data(mem[s], p[s]));
}

/* Sets every element of a plain memory to `v`, converted to its type. */
static void set_all(dnnl_memory_t mem, float v) {
    const_dnnl_memory_desc_t m;
    dnnl_data_type_t dt;
    OK(dnnl_memory_get_memory_desc(mem, &m));
    OK(dnnl_memory_desc_query(m, dnnl_query_data_type, &dt));
    const size_t n = dnnl_memory_desc_get_size(m) / dnnl_data_type_size(dt);
    void *p = NULL;
    OK(dnnl_memory_map_data(mem, &p));
    for (size_t k = 0; k < n; k++) {
        switch (dt) {
        case dnnl_f32: ((float *)p)[k] = v; break;
        case dnnl_bf16: ((uint16_t *)p)[k] = to_bf16(v); break;
        case dnnl_f16: ((uint16_t *)p)[k] = to_f16(v); break;
        case dnnl_u8: ((uint8_t *)p)[k] = (uint8_t)v; break;
        case dnnl_s8: ((int8_t *)p)[k] = (int8_t)v; break;
        default: break;
        }
    }
    OK(dnnl_memory_unmap_data(mem, p));
}

/* A primitive's execution arguments, and those of their memories this case created. */
typedef struct {
    dnnl_exec_arg_t arg[32];
    int n;
    dnnl_memory_t owned[32];
    int n_owned;
} args_t;

/* `mem` as argument `arg`. */
static void add(args_t *a, int arg, dnnl_memory_t mem) {
    a->arg[a->n].arg = arg;
    a->arg[a->n++].memory = mem;
}

/* `mem`, created by the case, as argument `arg`; destroyed by `release`. */
static dnnl_memory_t own(args_t *a, int arg, dnnl_memory_t mem) {
    add(a, arg, mem);
    a->owned[a->n_owned++] = mem;
    return mem;
}

/* Destroys the memories the case created. */
static void release(args_t *a) {
    for (int k = 0; k < a->n_owned; k++) OK(dnnl_memory_destroy(a->owned[k]));
}

/* The memory given as `arg`, or NULL. */
static dnnl_memory_t find(const args_t *a, int arg) {
    for (int k = 0; k < a->n; k++)
        if (a->arg[k].arg == arg) return a->arg[k].memory;
    return NULL;
}

/* The weights arguments, in the order of a case's plain weights (`user_w`). */
static const int weights_arg[3]
        = {DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_WEIGHTS_PROJECTION};

/* The weights of `pd` (case `c`), reordered from its plain `user_w` (with `attr`: the int8
 * quantization, or NULL), as new memories of `a`. */
static void add_weights(args_t *a, const_dnnl_primitive_desc_t pd, const case_t *c,
        const dnnl_memory_t *user_w, const_dnnl_primitive_attr_t attr) {
    for (int w = 0; w < (c->projection ? 3 : 2); w++)
        reorder(user_w[w], own(a, weights_arg[w], arg_memory(pd, weights_arg[w])), attr);
}

/* The outputs of forward pass `pd` (case `c` on descriptors `m`): dst_layer, the dst states
 * it has, the workspace of a training pass; new memories of `a`. */
static void add_forward_outputs(
        args_t *a, const_dnnl_primitive_desc_t pd, const case_t *c, const mds_t *m) {
    own(a, DNNL_ARG_DST_LAYER, arg_memory(pd, DNNL_ARG_DST_LAYER));
    if (m->di) own(a, DNNL_ARG_DST_ITER, arg_memory(pd, DNNL_ARG_DST_ITER));
    if (m->dc) own(a, DNNL_ARG_DST_ITER_C, arg_memory(pd, DNNL_ARG_DST_ITER_C));
    if (c->prop == dnnl_forward_training)
        own(a, DNNL_ARG_WORKSPACE, arg_memory(pd, DNNL_ARG_WORKSPACE));
}

/* The zero of an output of type `dt` in case `c`: int8's quantized zero is the data shift,
 * and a bidirectional sum's dst_layer (`summed`) adds both directions' (saturated). */
static float zero_of(const case_t *c, dnnl_data_type_t dt, int summed) {
    if (dt != dnnl_u8 && dt != dnnl_s8) return 0.f;
    const float z = c->data_shift * (summed ? 2.f : 1.f);
    return z > 255.f ? 255.f : z;
}

/* Replaces every f32 value v of a plain memory by the int8 state it stands for, as the int8
 * arithmetic keeps an f32 src_iter: v quantized (round half to even, saturated to the
 * activations' type) and dequantized. */
static void quantize_round_trip(const case_t *c, dnnl_memory_t mem) {
    const_dnnl_memory_desc_t m;
    OK(dnnl_memory_get_memory_desc(mem, &m));
    const size_t n = dnnl_memory_desc_get_size(m) / sizeof(float);
    const float lo = c->src_layer_dt == dnnl_u8 ? 0.f : -128.f, hi = lo + 255.f;
    float *p = NULL;
    OK(dnnl_memory_map_data(mem, (void **)&p));
    for (size_t k = 0; k < n; k++) {
        const float q = rintf(p[k] * c->data_scale + c->data_shift);
        p[k] = ((q < lo ? lo : q > hi ? hi : q) - c->data_shift) / c->data_scale;
    }
    OK(dnnl_memory_unmap_data(mem, p));
}

/* Sample `b` of case `c` as a problem of its own: N = 1, T = its length. */
static case_t sample_case(const case_t *c, int64_t b) {
    case_t one = *c;
    one.N = 1;
    one.T = c->len[b];
    one.layer_pad = 0;
    one.lengths = 0;
    one.overwrite = 0;
    return one;
}

/* Sample `b` of case `c` run alone (`one` = sample_case(c, b)): creates its forward primitive
 * descriptor `*pd` on descriptors `*m` and executes it with the sample's inputs sliced from
 * `fa` (the full problem's), the weights reordered again from `user_w`, new outputs (and
 * workspace), all in `*a`. The creation's or the execution's status. */
static dnnl_status_t forward_alone(const case_t *one, int64_t b, const args_t *fa,
        const dnnl_memory_t *user_w, const_dnnl_primitive_attr_t attr, int zero_bias, mds_t *m,
        dnnl_primitive_desc_t *pd, args_t *a) {
    const dims_t d = dims_of(one);
    *m = mds_of(one, &d, zero_bias);
    dnnl_status_t st = create_forward(pd, one, m, attr);
    if (st != dnnl_success) return st;
    /* the sample's inputs (batch axis 1 of layer tensors, 2 of states), the others as they
     * are */
    const int in[] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C,
            DNNL_ARG_AUGRU_ATTENTION};
    for (int k = 0; k < 4; k++)
        if (find(fa, in[k]))
            copy_sample(find(fa, in[k]), b, own(a, in[k], arg_memory(*pd, in[k])), 0,
                    k == 1 || k == 2 ? 2 : 1);
    const int same[] = {DNNL_ARG_WEIGHTS_PEEPHOLE, DNNL_ARG_BIAS};
    for (int k = 0; k < 2; k++)
        if (find(fa, same[k])) add(a, same[k], find(fa, same[k]));
    add_weights(a, *pd, one, user_w, one->cls == I8 ? attr : NULL);
    add_forward_outputs(a, *pd, one, m);
    dnnl_primitive_t prim = NULL;
    OK(dnnl_primitive_create(&prim, *pd));
    st = execute(prim, a->n, a->arg);
    OK(dnnl_primitive_destroy(prim));
    return st;
}

/* What case `c`'s forward pass gives with its sequence lengths, from each sample run alone on
 * the same inputs (`fa`: the full problem's), for a library without oxidnn's extension: the
 * sample's dst_layer rows (the zero of the type past its length), dst_iter and dst_iter_c (its
 * initial state for length 0: src_iter, or zeros; an int8 problem's f32 src_iter as the
 * quantized state it holds) written into the full problem's outputs. The status of the first
 * sample a library refuses, else success. */
static dnnl_status_t run_alone(const case_t *c, const args_t *fa, const dnnl_memory_t *user_w,
        const_dnnl_primitive_attr_t attr, int zero_bias) {
    const int out[] = {DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C};
    const dnnl_memory_t full[]
            = {find(fa, out[0]), find(fa, DNNL_ARG_DST_ITER), find(fa, DNNL_ARG_DST_ITER_C)};
    const dnnl_memory_t si = find(fa, DNNL_ARG_SRC_ITER), sc = find(fa, DNNL_ARG_SRC_ITER_C);
    set_all(full[0], zero_of(c, c->dst_layer_dt, c->dir == dnnl_bidirectional_sum));
    if (full[1]) set_all(full[1], zero_of(c, c->dst_iter_dt, 0));
    if (full[2]) set_all(full[2], 0.f);
    for (int64_t b = 0; b < c->N; b++) {
        if (c->len[b] > 0) continue;
        if (full[1] && si) copy_sample(si, b, full[1], b, 2);
        if (full[2] && sc) copy_sample(sc, b, full[2], b, 2);
    }
    if (full[1] && c->cls == I8 && c->dst_iter_dt == dnnl_f32) quantize_round_trip(c, full[1]);
    for (int64_t b = 0; b < c->N; b++) {
        if (c->len[b] == 0) continue;
        const case_t one = sample_case(c, b);
        mds_t m;
        dnnl_primitive_desc_t pd = NULL;
        args_t a = {0};
        dnnl_status_t st = forward_alone(&one, b, fa, user_w, attr, zero_bias, &m, &pd, &a);
        for (int k = 0; k < 3 && st == dnnl_success; k++)
            if (full[k]) copy_sample(find(&a, out[k]), 0, full[k], b, k ? 2 : 1);
        release(&a);
        if (pd) OK(dnnl_primitive_desc_destroy(pd));
        destroy_mds(&m);
        if (st != dnnl_success) return st;
    }
    return dnnl_success;
}

/* The descriptors of a backward pass, NULL for the tensors it has not: weights in its own
 * layouts (`any`, or the plain ldgoi / ldoi), every diff_* f32, diff weights `any` or (`plain`:
 * for a sample run alone, whose gradients rnn_fuzz sums) ldigo / ldio. `diff[k]` is the
 * diff_* tensor of `diff_arg[k]`. */
typedef struct {
    dnnl_memory_desc_t wl, wi, wp, ddl, ddi, ddc, diff[9];
} bwd_mds_t;

static const int diff_arg[9] = {DNNL_ARG_DIFF_SRC_LAYER, DNNL_ARG_DIFF_SRC_ITER,
        DNNL_ARG_DIFF_SRC_ITER_C, DNNL_ARG_DIFF_AUGRU_ATTENTION, DNNL_ARG_DIFF_WEIGHTS_LAYER,
        DNNL_ARG_DIFF_WEIGHTS_ITER, DNNL_ARG_DIFF_WEIGHTS_PROJECTION,
        DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE, DNNL_ARG_DIFF_BIAS};
static const char *diff_name[9] = {"diff_src_layer", "diff_src_iter", "diff_src_iter_c",
        "diff_attention", "diff_weights_layer", "diff_weights_iter", "diff_weights_projection",
        "diff_weights_peephole", "diff_bias"};
/* the batch axis of the per-sample diff_* tensors (0..3), -1 for the summed ones */
static const int diff_axis[9] = {1, 2, 2, 1, -1, -1, -1, -1, -1};
enum { DIFF_WEIGHTS = 4 }; /* diff[4..6]: the diff weights */

static bwd_mds_t bwd_mds_of(const case_t *c, const mds_t *f, const dims_t *d, int plain) {
    const dnnl_data_type_t f32 = dnnl_f32;
    const dnnl_format_tag_t any = dnnl_format_tag_any,
                            wtag = c->weights_any ? any : dnnl_ldgoi,
                            ptag = c->weights_any ? any : dnnl_ldoi,
                            dwtag = plain ? dnnl_ldigo : any, dptag = plain ? dnnl_ldio : any;
    bwd_mds_t m;
    m.wl = md(5, d->wl, as_given(c->w_dt), wtag);
    m.wi = md(5, d->wi, as_given(c->w_dt), wtag);
    m.wp = f->wp ? md(4, d->wp, as_given(c->w_dt), ptag) : NULL;
    m.ddl = layer_md(d->dl, f32, c->layer_tag, c->layer_pad);
    m.ddi = f->di ? md(4, d->di, f32, dnnl_ldnc) : NULL;
    m.ddc = f->dc ? md(4, d->sc, f32, dnnl_ldnc) : NULL;
    m.diff[0] = layer_md(d->sl, f32, c->layer_tag, c->layer_pad);
    m.diff[1] = f->si ? md(4, d->si, f32, dnnl_ldnc) : NULL;
    m.diff[2] = f->sc ? md(4, d->sc, f32, dnnl_ldnc) : NULL;
    m.diff[3] = f->at ? md(3, d->at, f32, dnnl_tnc) : NULL;
    m.diff[4] = md(5, d->wl, f32, dwtag);
    m.diff[5] = md(5, d->wi, f32, dwtag);
    m.diff[6] = f->wp ? md(4, d->wp, f32, dptag) : NULL;
    m.diff[7] = f->pp ? md(4, d->pp, f32, dnnl_ldgo) : NULL;
    m.diff[8] = f->b ? md(4, d->b, f32, dnnl_ldgo) : NULL;
    return m;
}

static void destroy_bwd_mds(bwd_mds_t *m) {
    dnnl_memory_desc_t all[] = {m->wl, m->wi, m->wp, m->ddl, m->ddi, m->ddc};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        if (all[k]) OK(dnnl_memory_desc_destroy(all[k]));
    for (int k = 0; k < 9; k++)
        if (m->diff[k]) OK(dnnl_memory_desc_destroy(m->diff[k]));
}

/* Creates the backward primitive descriptor of case `c` (forward descriptors `f`, forward
 * primitive descriptor `fwd`) on descriptors `m`. */
static dnnl_status_t create_backward(dnnl_primitive_desc_t *pd, const case_t *c, const mds_t *f,
        const bwd_mds_t *m, const_dnnl_primitive_desc_t fwd, const_dnnl_primitive_attr_t attr) {
    const unsigned flags
            = c->overwrite ? dnnl_rnn_flags_diff_weights_overwrite : dnnl_rnn_flags_undef;
    const dnnl_prop_kind_t bwd = dnnl_backward;
    const dnnl_memory_desc_t *x = m->diff;
    switch (c->cell) {
    case VANILLA:
        return dnnl_vanilla_rnn_backward_primitive_desc_create(pd, eng, bwd, c->act, c->dir,
                f->sl, f->si, m->wl, m->wi, f->b, f->dl, f->di, x[0], x[1], x[4], x[5], x[8],
                m->ddl, m->ddi, flags, 0.f, 0.f, fwd, attr);
    case LSTM:
        return dnnl_lstm_backward_primitive_desc_create(pd, eng, bwd, c->dir, f->sl, f->si,
                f->sc, m->wl, m->wi, f->pp, m->wp, f->b, f->dl, f->di, f->dc, x[0], x[1], x[2],
                x[4], x[5], x[7], x[6], x[8], m->ddl, m->ddi, m->ddc, flags, fwd, attr);
    case GRU:
        return dnnl_gru_backward_primitive_desc_create(pd, eng, bwd, c->dir, f->sl, f->si, m->wl,
                m->wi, f->b, f->dl, f->di, x[0], x[1], x[4], x[5], x[8], m->ddl, m->ddi, flags,
                fwd, attr);
    case LBR_GRU:
        return dnnl_lbr_gru_backward_primitive_desc_create(pd, eng, bwd, c->dir, f->sl, f->si,
                m->wl, m->wi, f->b, f->dl, f->di, x[0], x[1], x[4], x[5], x[8], m->ddl, m->ddi,
                flags, fwd, attr);
    case AUGRU:
        return dnnl_augru_backward_primitive_desc_create(pd, eng, bwd, c->dir, f->sl, f->si,
                f->at, m->wl, m->wi, f->b, f->dl, f->di, x[0], x[1], x[3], x[4], x[5], x[8],
                m->ddl, m->ddi, flags, fwd, attr);
    default:
        return dnnl_lbr_augru_backward_primitive_desc_create(pd, eng, bwd, c->dir, f->sl, f->si,
                f->at, m->wl, m->wi, f->b, f->dl, f->di, x[0], x[1], x[3], x[4], x[5], x[8],
                m->ddl, m->ddi, flags, fwd, attr);
    }
}

/* The inputs backward pass `pd` takes from its forward pass (args `fa`): the forward's
 * inputs, outputs, workspace and lengths, the weights reordered from `user_w` into the pass's
 * layouts. */
static void backward_inputs(args_t *ba, const_dnnl_primitive_desc_t pd, const case_t *c,
        const args_t *fa, const dnnl_memory_t *user_w) {
    const int same[] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C,
            DNNL_ARG_WEIGHTS_PEEPHOLE, DNNL_ARG_BIAS, DNNL_ARG_AUGRU_ATTENTION, DNNL_ARG_DST_LAYER,
            DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C, DNNL_ARG_WORKSPACE, OXIDNN_ARG_SEQ_LENGTHS};
    for (size_t k = 0; k < sizeof same / sizeof *same; k++)
        if (find(fa, same[k])) add(ba, same[k], find(fa, same[k]));
    add_weights(ba, pd, c, user_w, NULL);
}

/* The backward pass of case `c` with its sequence lengths, from each sample run alone (its
 * forward training pass again, then its backward) on the same inputs (`fa`, `ba`: the full
 * problem's forward and backward arguments), for a library without oxidnn's extension: the
 * sample's diff_src_layer / diff_attention rows (zeros past its length) and diff_src_iter /
 * diff_src_iter_c (diff_dst_iter / diff_dst_iter_c for length 0) written into `out` (the full
 * problem's), its diff weights summed into `plain` (ldigo / ldio f32, zeros before), diff
 * peephole and bias summed into `out`. The status of the first sample a library refuses, else
 * success. */
static dnnl_status_t backward_alone(const case_t *c, const args_t *fa, const args_t *ba,
        const dnnl_memory_t *out, const dnnl_memory_t *plain, const dnnl_memory_t *user_w,
        const_dnnl_primitive_attr_t attr, int zero_bias) {
    const int ddarg[] = {DNNL_ARG_DIFF_DST_LAYER, DNNL_ARG_DIFF_DST_ITER, DNNL_ARG_DIFF_DST_ITER_C};
    for (int k = 0; k < 9; k++)
        if (out[k] && k != DIFF_WEIGHTS && k != DIFF_WEIGHTS + 1 && k != DIFF_WEIGHTS + 2)
            set_all(out[k], 0.f);
    for (int64_t b = 0; b < c->N; b++)
        for (int k = 1; k <= 2 && c->len[b] == 0; k++)
            if (out[k] && find(ba, ddarg[k])) copy_sample(find(ba, ddarg[k]), b, out[k], b, 2);
    for (int64_t b = 0; b < c->N; b++) {
        if (c->len[b] == 0) continue;
        const case_t one = sample_case(c, b);
        const dims_t d = dims_of(&one);
        mds_t fm;
        dnnl_primitive_desc_t fpd = NULL, pd = NULL;
        args_t fa1 = {0}, ba1 = {0};
        dnnl_status_t st = forward_alone(&one, b, fa, user_w, attr, zero_bias, &fm, &fpd, &fa1);
        bwd_mds_t m = bwd_mds_of(&one, &fm, &d, 1);
        if (st == dnnl_success) st = create_backward(&pd, &one, &fm, &m, fpd, NULL);
        if (st == dnnl_success) {
            backward_inputs(&ba1, pd, &one, &fa1, user_w);
            for (int k = 0; k < 3; k++) {
                if (!find(ba, ddarg[k])) continue;
                dnnl_memory_t mem = own(&ba1, ddarg[k], arg_memory(pd, ddarg[k]));
                copy_sample(find(ba, ddarg[k]), b, mem, 0, k ? 2 : 1);
            }
            /* the sample's own diff_src_*; the summed ones accumulate where they are */
            for (int k = 0; k < 9; k++) {
                if (!out[k]) continue;
                if (diff_axis[k] >= 0) own(&ba1, diff_arg[k], arg_memory(pd, diff_arg[k]));
                else if (k < DIFF_WEIGHTS + 3) add(&ba1, diff_arg[k], plain[k - DIFF_WEIGHTS]);
                else add(&ba1, diff_arg[k], out[k]);
            }
            dnnl_primitive_t prim = NULL;
            OK(dnnl_primitive_create(&prim, pd));
            st = execute(prim, ba1.n, ba1.arg);
            OK(dnnl_primitive_destroy(prim));
            for (int k = 0; k < 9 && st == dnnl_success; k++)
                if (out[k] && diff_axis[k] >= 0)
                    copy_sample(find(&ba1, diff_arg[k]), 0, out[k], b, diff_axis[k]);
            release(&ba1);
        }
        if (pd) OK(dnnl_primitive_desc_destroy(pd));
        destroy_bwd_mds(&m);
        release(&fa1);
        if (fpd) OK(dnnl_primitive_desc_destroy(fpd));
        destroy_mds(&fm);
        if (st != dnnl_success) return st;
    }
    return dnnl_success;
}

/* The backward pass of a forward_training case (`fwd` on descriptors `f`, executed with `fa`):
 * every diff_* tensor f32, diff weights `any`, weights `any` (else the plain backward layouts,
 * ldgoi / ldoi); diff_dst random; diff weights and bias start from zeros, or from junk with
 * `overwrite`; the case's sequence lengths as the forward pass took them (or each sample run
 * alone). Prints `c<i>.bwd_status` and, when it ran, every diff output (diff weights in plain
 * ldigo / ldio f32; not diff_bias when the bias is the zeros of a retry, which the bias-less
 * problem does not have). */
static void run_backward(int i, const case_t *c, const mds_t *f, const dims_t *d,
        const_dnnl_primitive_desc_t fwd, const args_t *fa, const dnnl_memory_t *user_w,
        const_dnnl_primitive_attr_t attr, int zero_bias) {
    const dnnl_data_type_t f32 = dnnl_f32;
    bwd_mds_t m = bwd_mds_of(c, f, d, 0);
    const int native_lengths = c->lengths && set_lengths;
    dnnl_primitive_attr_t battr = NULL;
    if (native_lengths) {
        OK(dnnl_primitive_attr_create(&battr));
        OK(set_lengths(battr, 1));
    }
    dnnl_primitive_desc_t pd = NULL;
    const dnnl_status_t st = create_backward(&pd, c, f, &m, fwd, battr);
    printf("c%d.%sbwd_status %d\n", i, run_prefix(c), (int)st);
    if (st == dnnl_success) {
        args_t ba = {0};
        backward_inputs(&ba, pd, c, fa, user_w);
        own(&ba, DNNL_ARG_DIFF_DST_LAYER, filled(m.ddl, f32, 1.f));
        if (m.ddi) own(&ba, DNNL_ARG_DIFF_DST_ITER, filled(m.ddi, f32, 1.f));
        if (m.ddc) own(&ba, DNNL_ARG_DIFF_DST_ITER_C, filled(m.ddc, f32, 1.f));
        /* outputs: the diff weights and bias accumulate (from zeros), or are overwritten
         * (junk before); the diff weights printed from plain ldigo / ldio f32 copies */
        dnnl_memory_t out[9] = {NULL}, plain[3] = {NULL};
        for (int k = 0; k < 9; k++) {
            if (!m.diff[k]) continue;
            out[k] = own(&ba, diff_arg[k], arg_memory(pd, diff_arg[k]));
            if (diff_axis[k] >= 0) continue;
            if (c->overwrite) fill(out[k], f32, 100.f);
            else set_all(out[k], 0.f);
        }
        for (int w = 0; w < 3; w++) {
            if (!out[DIFF_WEIGHTS + w]) continue;
            dnnl_memory_desc_t pm = md(w == 2 ? 4 : 5, w == 0 ? d->wl : w == 1 ? d->wi : d->wp,
                    f32, w == 2 ? dnnl_ldio : dnnl_ldigo);
            plain[w] = zeroed(pm);
            OK(dnnl_memory_desc_destroy(pm));
        }
        dnnl_status_t xs;
        if (c->lengths && !native_lengths) {
            xs = backward_alone(c, fa, &ba, out, plain, user_w, attr, zero_bias);
        } else {
            dnnl_primitive_t prim = NULL;
            OK(dnnl_primitive_create(&prim, pd));
            xs = execute(prim, ba.n, ba.arg);
            OK(dnnl_primitive_destroy(prim));
            for (int w = 0; w < 3 && xs == dnnl_success; w++)
                if (plain[w]) reorder(out[DIFF_WEIGHTS + w], plain[w], NULL);
        }
        if (xs != dnnl_success) printf("c%d.%sbwd_exec_status %d\n", i, run_prefix(c), (int)xs);
        for (int k = 0; k < 9 && xs == dnnl_success; k++) {
            if (!out[k] || (k == 8 && zero_bias)) continue;
            const int w = k - DIFF_WEIGHTS;
            print_memory(i, c, diff_name[k], w >= 0 && w < 3 ? plain[w] : out[k], f32);
        }
        for (int w = 0; w < 3; w++)
            if (plain[w]) OK(dnnl_memory_destroy(plain[w]));
        release(&ba);
        OK(dnnl_primitive_desc_destroy(pd));
    }
    if (battr) OK(dnnl_primitive_attr_destroy(battr));
    destroy_bwd_mds(&m);
}

/* Prints the case's description line, `# c<i>: ...`. */
static void describe(int i, const case_t *c) {
    char lengths[16 + 4 * MAX_N] = "";
    for (int64_t b = 0; c->lengths && b < c->N; b++)
        sprintf(lengths + strlen(lengths), "%s%d", b ? "," : " lengths ", (int)c->len[b]);
    printf("# c%d: %s%s%s %s %s L%lld D%lld T%lld N%lld SLC%lld SIC%lld DHC%lld DIC%lld%s%s%s%s%s "
           "%s, layer %s%s%s%s%s%s%s; dt src_layer %s src_iter %s dst_layer %s dst_iter %s c %s "
           "weights %s bias %s%s%s%s\n",
            i, cell_name[c->cell], c->cell == VANILLA ? "/" : "",
            c->cell != VANILLA              ? ""
                    : c->act == dnnl_eltwise_relu ? "relu"
                    : c->act == dnnl_eltwise_tanh ? "tanh"
                                                  : "logistic",
            c->prop == dnnl_forward_training ? "training" : "inference", dir_name(c->dir),
            (long long)c->L, (long long)c->D, (long long)c->T, (long long)c->N, (long long)c->SLC,
            (long long)c->SIC, (long long)c->DHC, (long long)c->DIC, c->peephole ? " peephole" : "",
            c->projection ? " projection" : "", c->bias ? "" : " no-bias",
            c->src_iter ? "" : " no-src_iter", c->dst_iter ? "" : " no-dst_iter",
            c->weights_any ? "weights any" : "weights ldigo",
            c->layer_tag == dnnl_ntc ? "ntc" : "tnc", c->layer_pad ? " padded" : "",
            c->fpmath ? " fpmath bf16" : "", c->user_scratchpad ? " user-scratchpad" : "",
            c->twice ? " twice" : "", c->data_any ? " data any" : "", lengths,
            dt_name(c->src_layer_dt), dt_name(c->src_iter_dt), dt_name(c->dst_layer_dt),
            dt_name(c->dst_iter_dt), dt_name(c->c_dt), dt_name(c->w_dt), dt_name(c->b_dt),
            c->backward ? (c->overwrite ? "; backward, overwrite" : "; backward") : "",
            c->broken ? "; broken: " : "", c->broken ? c->broken : "");
}

static void run_case(int i, const case_t *c) {
    const uint64_t rng_start = rng_state;
    const dims_t d = dims_of(c);
    if (!g_widen) describe(i, c);
    /* the library runs the lengths itself (oxidnn), or rnn_fuzz runs each sample alone */
    const int native_lengths = c->lengths && set_lengths;

    /* the user's plain weights (f32 for int8: the reorder quantizes them), and the plain f32
     * layouts the backward's diff weights are printed in */
    const dnnl_data_type_t plain_dt = as_given(c->cls == I8 ? dnnl_f32 : c->w_dt);
    dnnl_memory_desc_t w_plain[3] = {md(5, d.wl, plain_dt, dnnl_ldigo),
            md(5, d.wi, plain_dt, dnnl_ldigo), md(4, d.wp, plain_dt, dnnl_ldio)};
    /* weights scales: 127 over the largest |weight| (1/sqrt(DHC)), some channels' 1.25 or 1.5
     * times that, so that the reorder saturates some weights */
    const int64_t nws = c->per_channel ? c->G * c->DHC : 1, nps = c->per_channel ? c->DIC : 1;
    float *ws = malloc(sizeof(float) * (size_t)nws), *ps = malloc(sizeof(float) * (size_t)nps);
    for (int64_t k = 0; k < nws; k++)
        ws[k] = 127.f * sqrtf((float)c->DHC) * (1.f + 0.25f * (float)(k % 3));
    for (int64_t k = 0; k < nps; k++)
        ps[k] = 127.f * sqrtf((float)c->DIC) * (1.f + 0.25f * (float)(k % 2));
    dnnl_primitive_attr_t attr = NULL;
    OK(dnnl_primitive_attr_create(&attr));
    if (c->fpmath) OK(dnnl_primitive_attr_set_fpmath_mode(attr, dnnl_fpmath_mode_bf16));
    if (c->cls == I8) {
        OK(dnnl_primitive_attr_set_rnn_data_qparams(attr, c->data_scale, c->data_shift));
        OK(dnnl_primitive_attr_set_rnn_weights_qparams(attr, nws, c->per_channel ? 24 : 0, ws));
        if (c->projection)
            OK(dnnl_primitive_attr_set_rnn_weights_projection_qparams(
                    attr, nps, c->per_channel ? 8 : 0, ps));
    }

    /* the primitive's attributes: `attr` (which the weights' reorders take too), the
     * scratchpad mode and the sequence lengths */
    dnnl_primitive_attr_t pattr = NULL;
    OK(dnnl_primitive_attr_clone(&pattr, attr));
    if (c->user_scratchpad)
        OK(dnnl_primitive_attr_set_scratchpad_mode(pattr, dnnl_scratchpad_mode_user));
    if (native_lengths) OK(set_lengths(pattr, 1));
    /* A problem without bias that the library leaves unimplemented is retried with a bias of
     * zeros (what oneDNN's CPU engine needs): its outputs are then those of the bias-less
     * problem, which the other library may run as it is. */
    int zero_bias = 0;
    mds_t m = mds_of(c, &d, 0);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = create_forward(&pd, c, &m, pattr);
    const char *widened = !g_widen ? "" : c->cls == BF16 ? "w32_" : "f32_";
    printf("c%d.%sstatus %d\n", i, widened, (int)st);
    if (st == dnnl_unimplemented && !m.b) {
        zero_bias = 1;
        destroy_mds(&m);
        m = mds_of(c, &d, 1);
        st = create_forward(&pd, c, &m, pattr);
        printf("c%d.%szero_bias_status %d\n", i, widened, (int)st);
    }

    if (st == dnnl_success) {
        /* inputs: in the primitive's own descriptors, weights through a reorder from a plain
         * ldigo / ldio memory (f32 for int8, quantized by the reorder with the attribute) */
        const float wscale = 1.f / sqrtf((float)c->DHC);
        const dnnl_data_type_t at_dt = c->cls == I8 ? dnnl_f32 : c->src_layer_dt;
        args_t fa = {0};
#define QMD(a) dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, (a))
        own(&fa, DNNL_ARG_SRC_LAYER, filled(QMD(DNNL_ARG_SRC_LAYER), c->src_layer_dt, 1.f));
        if (m.si)
            own(&fa, DNNL_ARG_SRC_ITER, filled(QMD(DNNL_ARG_SRC_ITER), c->src_iter_dt, 1.f));
        if (m.sc) own(&fa, DNNL_ARG_SRC_ITER_C, filled(QMD(DNNL_ARG_SRC_ITER_C), c->c_dt, 1.f));
        if (m.pp) own(&fa, DNNL_ARG_WEIGHTS_PEEPHOLE, filled(m.pp, c->pp_dt, wscale));
        if (m.b)
            own(&fa, DNNL_ARG_BIAS,
                    zero_bias ? zeroed(QMD(DNNL_ARG_BIAS))
                              : filled(QMD(DNNL_ARG_BIAS), c->b_dt, wscale));
        if (m.at) own(&fa, DNNL_ARG_AUGRU_ATTENTION, filled(m.at, at_dt, 1.f));
        if (native_lengths) {
            dnnl_memory_t lm = NULL;
            OK(dnnl_memory_create(&lm, QMD(OXIDNN_ARG_SEQ_LENGTHS), eng, (void *)c->len));
            own(&fa, OXIDNN_ARG_SEQ_LENGTHS, lm);
        }
#undef QMD
        if (c->data_any) {
            /* the layouts `any` resolved to, as strides */
            const int darg[] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C,
                    DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C};
            const char *dname[] = {"src_layer", "src_iter", "src_iter_c", "bias", "dst_layer",
                    "dst_iter", "dst_iter_c"};
            for (int k = 0; k < 7; k++) {
                const_dnnl_memory_desc_t qm
                        = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, darg[k]);
                int nd = 0;
                const dnnl_dims_t *strides = NULL;
                if (!qm || dnnl_memory_desc_query(qm, dnnl_query_ndims_s32, &nd) || !nd) continue;
                if (darg[k] == DNNL_ARG_BIAS && zero_bias) continue; /* not the problem's */
                OK(dnnl_memory_desc_query(qm, dnnl_query_strides, &strides));
                for (int k2 = 0; k2 < nd; k2++)
                    printf("c%d.%s.layout_%s.s64[%d] %lld\n", i, label(c), dname[k], k2,
                            (long long)(*strides)[k2]);
            }
        }
        const int nw = c->projection ? 3 : 2;
        const dnnl_data_type_t user_dt = c->cls == I8 ? dnnl_f32 : c->w_dt;
        dnnl_memory_t user_w[3] = {NULL, NULL, NULL};
        for (int w = 0; w < nw; w++) user_w[w] = filled(w_plain[w], user_dt, wscale);
        add_weights(&fa, pd, c, user_w, c->cls == I8 ? attr : NULL);
        add_forward_outputs(&fa, pd, c, &m);
        const dnnl_memory_t out_dl = find(&fa, DNNL_ARG_DST_LAYER),
                            out_di = find(&fa, DNNL_ARG_DST_ITER),
                            out_dc = find(&fa, DNNL_ARG_DST_ITER_C);
        if (c->user_scratchpad) {
            /* junk in it: a primitive must not read what it has not written */
            dnnl_memory_t sp = own(&fa, DNNL_ARG_SCRATCHPAD, arg_memory(pd, DNNL_ARG_SCRATCHPAD));
            const_dnnl_memory_desc_t spm = NULL;
            void *p = NULL;
            OK(dnnl_memory_get_memory_desc(sp, &spm));
            OK(dnnl_memory_map_data(sp, &p));
            if (p) memset(p, 0xA5, dnnl_memory_desc_get_size(spm));
            OK(dnnl_memory_unmap_data(sp, p));
        }
        dnnl_status_t xs;
        if (c->lengths && !native_lengths) {
            xs = run_alone(c, &fa, user_w, attr, zero_bias);
        } else {
            dnnl_primitive_t prim = NULL;
            OK(dnnl_primitive_create(&prim, pd));
            xs = execute(prim, fa.n, fa.arg);
            if (xs == dnnl_success && c->twice) xs = execute(prim, fa.n, fa.arg);
            OK(dnnl_primitive_destroy(prim));
        }
        if (xs != dnnl_success) {
            printf("c%d.%sexec_status %d\n", i, run_prefix(c), (int)xs);
        } else {
            print_memory(i, c, "dst_layer", out_dl, c->dst_layer_dt);
            if (out_di) print_memory(i, c, "dst_iter", out_di, c->dst_iter_dt);
            if (out_dc) print_memory(i, c, "dst_iter_c", out_dc, c->c_dt);
        }
        if (c->backward && xs == dnnl_success)
            run_backward(i, c, &m, &d, pd, &fa, user_w, attr, zero_bias);
        for (int w = 0; w < nw; w++) OK(dnnl_memory_destroy(user_w[w]));
        release(&fa);
        OK(dnnl_primitive_desc_destroy(pd));
    }
    for (int w = 0; w < 3; w++) OK(dnnl_memory_desc_destroy(w_plain[w]));
    OK(dnnl_primitive_attr_destroy(pattr));
    OK(dnnl_primitive_attr_destroy(attr));
    free(ws);
    free(ps);
    destroy_mds(&m);
    /* f16 inference the library does not implement (oneDNN without avx512_fp16): the same
     * problem with f32 stand-ins for its f16 tensors (`c<i>.f32_status`), whose outputs,
     * rounded to f16, the other library's f16 outputs are compared with */
    if (!g_widen && c->cls == F16 && st == dnnl_unimplemented && !c->broken
            && c->prop == dnnl_forward_inference) {
        g_widen = 1;
        run_case(i, c);
        g_widen = 0;
    }
    /* every bf16 problem a library runs: again with f32 stand-ins holding the same bf16 values
     * and inputs (`c<i>.w32_*`), its outputs rounded to bf16 - the exact result, which the
     * comparison holds the other library's bf16 outputs to where this one's bf16 is wrong */
    if (!g_widen && c->cls == BF16 && st == dnnl_success) {
        rng_state = rng_start;
        g_widen = 1;
        run_case(i, c);
        g_widen = 0;
    }
}

int main(int argc, char **argv) {
    int cases = 1000, first = 0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--first") && i + 1 < argc) first = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: %s [--cases N] [--first K] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    const char *alone = getenv("RNN_FUZZ_ALONE");
    if (!alone || strcmp(alone, "1"))
        set_lengths = (set_lengths_fn)dlsym(
                RTLD_DEFAULT, "oxidnn_primitive_attr_set_rnn_seq_lengths");
    OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    printf("# rnn_fuzz: %d cases, seed %llu\n", cases, (unsigned long long)seed);
    for (g_case = first; g_case < first + cases; g_case++) {
        /* each case from its own stream: (seed, case) */
        rng_state = (seed * 0x9E3779B97F4A7C15ull)
                ^ ((uint64_t)(g_case + 1) * 0xD1B54A32D192ED03ull);
        if (!rng_state) rng_state = 1;
        for (int k = 0; k < 4; k++) next_u64();
        case_t c = draw_case();
        run_case(g_case, &c);
    }
    OK(dnnl_stream_destroy(strm));
    OK(dnnl_engine_destroy(eng));
    return 0;
}
