/*
 * lstm_print.c - run a few deterministic LSTM forward problems through the
 * oneDNN v3 C API and print every output value, one per line:
 *
 *     <case>.<tensor>[<i>] <value printed with %.9g>
 *
 * <i> is the flat index in the tensor's logical order ({T, N, C} for
 * dst_layer, {L, D, N, C} for dst_iter / dst_iter_c) whatever the memory
 * layout. Lines starting with '#' are comments (the library version goes
 * there). Compare two runs with compare_outputs.py.
 *
 * It is the proof that a program written against oneDNN prints the same
 * numbers with oxidnn: build it once against the real oneDNN and once against
 * oxidnn (or run the real-oneDNN build with oxidnn renamed libdnnl.so.3: it
 * calls only functions oneDNN itself exports), then compare the outputs.
 *
 * The flow is oneDNN's LSTM example's: user memories in plain layouts,
 * weights given to the primitive descriptor as `any` and reordered into the
 * layout it picked, a workspace for forward_training, execute, wait.
 *
 * Inputs: element i of the tensor with id `seed` is
 *     h = i * 2654435761u ^ (seed * 40503u + 0x9E3779B9u);
 *     h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu;
 *     h ^= h >> 16;
 *     v = ((h & 0xFFFF) / 65535.0f - 0.5f) * scale
 * with seeds src_layer 1, src_iter 2, src_iter_c 3, weights_layer 4,
 * weights_iter 5, bias 6 (+ 10 * case number), scale 2 for data and 1 for
 * weights and bias (i in logical order, as above).
 *
 * Exit status: 0 when every case ran, 1 otherwise (message on stderr).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"

#include "../gen_hash.h"

#define OK(call) \
    do { \
        dnnl_status_t st_ = (call); \
        if (st_ != dnnl_success) { \
            fprintf(stderr, "lstm_print: %s:%d: %s failed: %s\n", __FILE__, \
                    __LINE__, #call, dnnl_status2str(st_)); \
            exit(1); \
        } \
    } while (0)

typedef struct {
    const char *name;
    dnnl_prop_kind_t prop;
    dnnl_rnn_direction_t dir;
    int L, T, N, SLC, DHC;
    int src_iter; /* give src_iter + src_iter_c */
    int dst_iter; /* ask for dst_iter + dst_iter_c */
    dnnl_format_tag_t layer_tag; /* tnc or ntc for src/dst layer */
} lstm_case_t;

static const lstm_case_t cases[] = {
    {"l2r_L1_T5_N3_SLC5_DHC4_states", dnnl_forward_inference,
            dnnl_unidirectional_left2right, 1, 5, 3, 5, 4, 1, 1, dnnl_tnc},
    {"r2l_L2_T4_N2_C6_srciter_training", dnnl_forward_training,
            dnnl_unidirectional_right2left, 2, 4, 2, 6, 6, 1, 0, dnnl_tnc},
    {"bicat_L1_T3_N4_SLC3_DHC5_nostates", dnnl_forward_inference,
            dnnl_bidirectional_concat, 1, 3, 4, 3, 5, 0, 0, dnnl_tnc},
    {"bisum_L2_T6_N1_C4_states_training", dnnl_forward_training,
            dnnl_bidirectional_sum, 2, 6, 1, 4, 4, 1, 1, dnnl_tnc},
    {"l2r_L3_T1_N13_C8_dstiter", dnnl_forward_inference,
            dnnl_unidirectional_left2right, 3, 1, 13, 8, 8, 0, 1, dnnl_tnc},
    {"l2r_L2_T20_N2_C16_states", dnnl_forward_inference,
            dnnl_unidirectional_left2right, 2, 20, 2, 16, 16, 1, 1, dnnl_tnc},
    {"l2r_L1_T7_N2_SLC4_DHC3_ntc", dnnl_forward_inference,
            dnnl_unidirectional_left2right, 1, 7, 2, 4, 3, 1, 1, dnnl_ntc},
};

static dnnl_memory_desc_t make_md(int ndims, const dnnl_dim_t *dims,
        dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md;
    dnnl_dims_t d;
    memcpy(d, dims, sizeof(dnnl_dim_t) * (size_t)ndims);
    OK(dnnl_memory_desc_create_with_tag(&md, ndims, d, dnnl_f32, tag));
    return md;
}

/* offset of the element with logical index (a, b, c) for a 3-D md */
static size_t offset3(const_dnnl_memory_desc_t md, dnnl_dim_t a, dnnl_dim_t b,
        dnnl_dim_t c) {
    const dnnl_dims_t *s;
    OK(dnnl_memory_desc_query(md, dnnl_query_strides, &s));
    return (size_t)(a * (*s)[0] + b * (*s)[1] + c * (*s)[2]);
}

/* a memory with the user's layout, filled from the generator */
static dnnl_memory_t user_mem(dnnl_engine_t eng, const_dnnl_memory_desc_t md,
        int ndims, const dnnl_dim_t *dims, uint32_t seed, float scale) {
    dnnl_memory_t mem;
    float *p;
    size_t n = 1, i;
    int k;
    void *vp;
    OK(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_ALLOCATE));
    OK(dnnl_memory_map_data(mem, &vp));
    p = vp;
    for (k = 0; k < ndims; k++) n *= (size_t)dims[k];
    if (ndims == 3) { /* tnc or ntc: logical order (t, n, c) */
        dnnl_dim_t t, b, c;
        i = 0;
        for (t = 0; t < dims[0]; t++)
            for (b = 0; b < dims[1]; b++)
                for (c = 0; c < dims[2]; c++, i++)
                    p[offset3(md, t, b, c)] = ref_gen_value(seed, (uint32_t)i, scale);
    } else { /* ldnc / ldigo / ldgo: dense, logical order */
        for (i = 0; i < n; i++) p[i] = ref_gen_value(seed, (uint32_t)i, scale);
    }
    OK(dnnl_memory_unmap_data(mem, p));
    return mem;
}

/* the memory the primitive wants for `arg`: user's own, or a reorder of it */
static dnnl_memory_t for_primitive(dnnl_engine_t eng, dnnl_stream_t s,
        const_dnnl_primitive_desc_t pd, int arg, dnnl_memory_t user) {
    const_dnnl_memory_desc_t want, have;
    dnnl_primitive_desc_t rpd;
    dnnl_primitive_t r;
    dnnl_memory_t out;
    dnnl_exec_arg_t args[2];

    want = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    OK(dnnl_memory_get_memory_desc(user, &have));
    if (dnnl_memory_desc_equal(want, have)) return user;
    OK(dnnl_memory_create(&out, want, eng, DNNL_MEMORY_ALLOCATE));
    OK(dnnl_reorder_primitive_desc_create(&rpd, have, eng, want, eng, NULL));
    OK(dnnl_primitive_create(&r, rpd));
    args[0].arg = DNNL_ARG_FROM;
    args[0].memory = user;
    args[1].arg = DNNL_ARG_TO;
    args[1].memory = out;
    OK(dnnl_primitive_execute(r, s, 2, args));
    OK(dnnl_stream_wait(s));
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
    return out;
}

static void print_layer(const char *cname, const char *tname, dnnl_memory_t m) {
    const_dnnl_memory_desc_t md;
    const dnnl_dims_t *dims;
    float *p;
    dnnl_dim_t t, n, c;
    size_t i = 0;
    OK(dnnl_memory_get_memory_desc(m, &md));
    void *vp;
    OK(dnnl_memory_desc_query(md, dnnl_query_dims, &dims));
    OK(dnnl_memory_map_data(m, &vp));
    p = vp;
    for (t = 0; t < (*dims)[0]; t++)
        for (n = 0; n < (*dims)[1]; n++)
            for (c = 0; c < (*dims)[2]; c++, i++)
                printf("%s.%s[%zu] %.9g\n", cname, tname, i,
                        (double)p[offset3(md, t, n, c)]);
    OK(dnnl_memory_unmap_data(m, p));
}

static void print_dense(const char *cname, const char *tname, dnnl_memory_t m) {
    const_dnnl_memory_desc_t md;
    float *p;
    size_t i, n;
    OK(dnnl_memory_get_memory_desc(m, &md));
    void *vp;
    n = dnnl_memory_desc_get_size(md) / sizeof(float);
    OK(dnnl_memory_map_data(m, &vp));
    p = vp;
    for (i = 0; i < n; i++)
        printf("%s.%s[%zu] %.9g\n", cname, tname, i, (double)p[i]);
    OK(dnnl_memory_unmap_data(m, p));
}

static void run(dnnl_engine_t eng, dnnl_stream_t s, const lstm_case_t *c,
        uint32_t seed0) {
    const int G = 4;
    const int D = c->dir == dnnl_bidirectional_concat
                    || c->dir == dnnl_bidirectional_sum
            ? 2
            : 1;
    const int DLC = c->dir == dnnl_bidirectional_concat ? 2 * c->DHC : c->DHC;
    const dnnl_dim_t src_d[3] = {c->T, c->N, c->SLC};
    const dnnl_dim_t dst_d[3] = {c->T, c->N, DLC};
    const dnnl_dim_t iter_d[4] = {c->L, D, c->N, c->DHC};
    const dnnl_dim_t wl_d[5] = {c->L, D, c->SLC, G, c->DHC};
    const dnnl_dim_t wi_d[5] = {c->L, D, c->DHC, G, c->DHC};
    const dnnl_dim_t b_d[4] = {c->L, D, G, c->DHC};
    dnnl_memory_desc_t src_md = make_md(3, src_d, c->layer_tag);
    dnnl_memory_desc_t dst_md = make_md(3, dst_d, c->layer_tag);
    dnnl_memory_desc_t iter_md = make_md(4, iter_d, dnnl_ldnc);
    dnnl_memory_desc_t wl_md = make_md(5, wl_d, dnnl_ldigo);
    dnnl_memory_desc_t wi_md = make_md(5, wi_d, dnnl_ldigo);
    dnnl_memory_desc_t wl_any = make_md(5, wl_d, dnnl_format_tag_any);
    dnnl_memory_desc_t wi_any = make_md(5, wi_d, dnnl_format_tag_any);
    dnnl_memory_desc_t b_md = make_md(4, b_d, dnnl_ldgo);
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    dnnl_memory_t src, si = NULL, sic = NULL, wl_user, wi_user, wl, wi, bias,
                       dst, di = NULL, dic = NULL, ws = NULL;
    const_dnnl_memory_desc_t ws_md;
    dnnl_exec_arg_t args[10];
    int n = 0;

    OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, c->prop, c->dir,
            src_md, c->src_iter ? iter_md : NULL,
            c->src_iter ? iter_md : NULL, wl_any, wi_any, NULL, NULL, b_md,
            dst_md, c->dst_iter ? iter_md : NULL, c->dst_iter ? iter_md : NULL,
            0, NULL));

    src = user_mem(eng, src_md, 3, src_d, seed0 + 1, 2.f);
    wl_user = user_mem(eng, wl_md, 5, wl_d, seed0 + 4, 1.f);
    wi_user = user_mem(eng, wi_md, 5, wi_d, seed0 + 5, 1.f);
    bias = user_mem(eng, b_md, 4, b_d, seed0 + 6, 1.f);
    OK(dnnl_memory_create(&dst, dst_md, eng, DNNL_MEMORY_ALLOCATE));
    wl = for_primitive(eng, s, pd, DNNL_ARG_WEIGHTS_LAYER, wl_user);
    wi = for_primitive(eng, s, pd, DNNL_ARG_WEIGHTS_ITER, wi_user);

    args[n].arg = DNNL_ARG_SRC_LAYER, args[n++].memory = src;
    args[n].arg = DNNL_ARG_WEIGHTS_LAYER, args[n++].memory = wl;
    args[n].arg = DNNL_ARG_WEIGHTS_ITER, args[n++].memory = wi;
    args[n].arg = DNNL_ARG_BIAS, args[n++].memory = bias;
    args[n].arg = DNNL_ARG_DST_LAYER, args[n++].memory = dst;
    if (c->src_iter) {
        si = user_mem(eng, iter_md, 4, iter_d, seed0 + 2, 2.f);
        sic = user_mem(eng, iter_md, 4, iter_d, seed0 + 3, 2.f);
        args[n].arg = DNNL_ARG_SRC_ITER, args[n++].memory = si;
        args[n].arg = DNNL_ARG_SRC_ITER_C, args[n++].memory = sic;
    }
    if (c->dst_iter) {
        OK(dnnl_memory_create(&di, iter_md, eng, DNNL_MEMORY_ALLOCATE));
        OK(dnnl_memory_create(&dic, iter_md, eng, DNNL_MEMORY_ALLOCATE));
        args[n].arg = DNNL_ARG_DST_ITER, args[n++].memory = di;
        args[n].arg = DNNL_ARG_DST_ITER_C, args[n++].memory = dic;
    }
    if (c->prop == dnnl_forward_training) {
        ws_md = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
        OK(dnnl_memory_create(&ws, ws_md, eng, DNNL_MEMORY_ALLOCATE));
        args[n].arg = DNNL_ARG_WORKSPACE, args[n++].memory = ws;
    }

    OK(dnnl_primitive_create(&prim, pd));
    OK(dnnl_primitive_execute(prim, s, n, args));
    OK(dnnl_stream_wait(s));

    printf("# case %s: %s, L=%d D=%d T=%d N=%d SLC=%d DHC=%d\n", c->name,
            c->prop == dnnl_forward_training ? "forward_training"
                                             : "forward_inference",
            c->L, D, c->T, c->N, c->SLC, c->DHC);
    print_layer(c->name, "dst_layer", dst);
    if (di) print_dense(c->name, "dst_iter", di);
    if (dic) print_dense(c->name, "dst_iter_c", dic);

    if (wl != wl_user) dnnl_memory_destroy(wl);
    if (wi != wi_user) dnnl_memory_destroy(wi);
    dnnl_memory_destroy(src);
    dnnl_memory_destroy(si);
    dnnl_memory_destroy(sic);
    dnnl_memory_destroy(wl_user);
    dnnl_memory_destroy(wi_user);
    dnnl_memory_destroy(bias);
    dnnl_memory_destroy(dst);
    dnnl_memory_destroy(di);
    dnnl_memory_destroy(dic);
    dnnl_memory_destroy(ws);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(src_md);
    dnnl_memory_desc_destroy(dst_md);
    dnnl_memory_desc_destroy(iter_md);
    dnnl_memory_desc_destroy(wl_md);
    dnnl_memory_desc_destroy(wi_md);
    dnnl_memory_desc_destroy(wl_any);
    dnnl_memory_desc_destroy(wi_any);
    dnnl_memory_desc_destroy(b_md);
}

int main(void) {
    const dnnl_version_t *v = dnnl_version();
    dnnl_engine_t eng;
    dnnl_stream_t s;
    size_t i;

    printf("# lstm_print: %d cases, library version %d.%d.%d\n",
            (int)(sizeof cases / sizeof cases[0]), v ? v->major : -1,
            v ? v->minor : -1, v ? v->patch : -1);
    OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    OK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run(eng, s, &cases[i], (uint32_t)(10 * i));
    dnnl_stream_destroy(s);
    dnnl_engine_destroy(eng);
    return 0;
}
