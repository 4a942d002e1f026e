/*
 * test_lstm_example.c - an LSTM written the way oneDNN's own LSTM example
 * (examples/primitives/lstm.cpp) does it, through the C API only, checked
 * against a naive C reference (lstm_ref.h).
 *
 * The flow, for every case:
 *   1. engine + stream;
 *   2. user memories in plain layouts: src_layer tnc, src_iter/src_iter_c
 *      ldnc, weights ldigo, bias ldgo, dst_layer tnc, dst_iter(_c) ldnc;
 *   3. an LSTM forward primitive descriptor with weights given as `any`;
 *   4. the weights memory descriptors the pd chose are queried
 *      (exec_arg_md) and, when they differ from the user's ldigo, the
 *      weights are reordered into them;
 *   5. forward_training: a workspace memory is created from the pd's
 *      workspace md; forward_inference: the (empty) workspace memory made
 *      from the pd's zero md is passed anyway, as the C++ API would;
 *   6. execute, wait, compare dst_layer / dst_iter / dst_iter_c with the
 *      reference (rel 1e-5, abs 1e-6 near zero).
 * Cases: all four directions × L = 1, 2 (and one case without src_iter),
 * each in forward_training and forward_inference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lstm_ref.h"

typedef struct {
    dnnl_rnn_direction_t dir;
    int L, T, N, SLC, DHC;
    int with_src_iter; /* give src_iter + src_iter_c */
} lstm_case_t;

static const char *dir_name(dnnl_rnn_direction_t d) {
    switch (d) {
        case dnnl_unidirectional_left2right: return "left2right";
        case dnnl_unidirectional_right2left: return "right2left";
        case dnnl_bidirectional_concat: return "bidirectional_concat";
        case dnnl_bidirectional_sum: return "bidirectional_sum";
        default: return "?";
    }
}

static dnnl_memory_desc_t make_md(int ndims, const dnnl_dim_t *dims,
        dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t d;
    memcpy(d, dims, sizeof(dnnl_dim_t) * (size_t)ndims);
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, ndims, d, dnnl_f32, tag));
    return md;
}

/* Creates a memory for md (library-allocated) and copies `data` into it. */
static dnnl_memory_t make_mem(dnnl_engine_t eng, const_dnnl_memory_desc_t md,
        const float *data) {
    dnnl_memory_t mem = NULL;
    REQUIRE_OK(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_ALLOCATE));
    if (data) {
        void *p = NULL;
        REQUIRE_OK(dnnl_memory_map_data(mem, &p));
        memcpy(p, data, dnnl_memory_desc_get_size(md));
        REQUIRE_OK(dnnl_memory_unmap_data(mem, p));
    }
    return mem;
}

static void read_mem(dnnl_memory_t mem, float *out, size_t bytes) {
    void *p = NULL;
    REQUIRE_OK(dnnl_memory_map_data(mem, &p));
    memcpy(out, p, bytes);
    REQUIRE_OK(dnnl_memory_unmap_data(mem, p));
}

/*
 * Returns `user` itself when the pd wants exactly the user's layout, else a
 * new memory in the pd's layout filled by a reorder (*reordered = 1).
 */
static dnnl_memory_t to_pd_layout(dnnl_engine_t eng, dnnl_stream_t s,
        const_dnnl_primitive_desc_t pd, int arg, dnnl_memory_t user,
        int *reordered) {
    const_dnnl_memory_desc_t want
            = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    const_dnnl_memory_desc_t have = NULL;
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t r = NULL;
    dnnl_memory_t out = NULL;
    dnnl_exec_arg_t args[2];

    REQUIRE(want != NULL, "pd has no md for arg %d", arg);
    REQUIRE_OK(dnnl_memory_get_memory_desc(user, &have));
    *reordered = 0;
    if (dnnl_memory_desc_equal(want, have)) return user;

    *reordered = 1;
    REQUIRE_OK(dnnl_memory_create(&out, want, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_reorder_primitive_desc_create(
            &rpd, have, eng, want, eng, NULL));
    REQUIRE_OK(dnnl_primitive_create(&r, rpd));
    args[0].arg = DNNL_ARG_FROM;
    args[0].memory = user;
    args[1].arg = DNNL_ARG_TO;
    args[1].memory = out;
    REQUIRE_OK(dnnl_primitive_execute(r, s, 2, args));
    REQUIRE_OK(dnnl_stream_wait(s));
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
    return out;
}

static void run_case(dnnl_engine_t eng, dnnl_stream_t s, const lstm_case_t *c,
        dnnl_prop_kind_t prop) {
    const int G = 4, D = ref_num_dirs(c->dir);
    const int DLC = c->dir == dnnl_bidirectional_concat ? 2 * c->DHC : c->DHC;
    const dnnl_dim_t src_dims[3] = {c->T, c->N, c->SLC};
    const dnnl_dim_t dst_dims[3] = {c->T, c->N, DLC};
    const dnnl_dim_t iter_dims[4] = {c->L, D, c->N, c->DHC};
    const dnnl_dim_t wl_dims[5] = {c->L, D, c->SLC, G, c->DHC};
    const dnnl_dim_t wi_dims[5] = {c->L, D, c->DHC, G, c->DHC};
    const dnnl_dim_t b_dims[4] = {c->L, D, G, c->DHC};
    const size_t n_src = (size_t)c->T * c->N * c->SLC;
    const size_t n_dst = (size_t)c->T * c->N * DLC;
    const size_t n_iter = (size_t)c->L * D * c->N * c->DHC;
    const size_t n_wl = (size_t)c->L * D * c->SLC * G * c->DHC;
    const size_t n_wi = (size_t)c->L * D * c->DHC * G * c->DHC;
    const size_t n_b = (size_t)c->L * D * G * c->DHC;
    char what[160];
    int reordered_l = 0, reordered_i = 0;

    float *src = malloc(n_src * sizeof(float));
    float *si = malloc(n_iter * sizeof(float));
    float *sic = malloc(n_iter * sizeof(float));
    float *wl = malloc(n_wl * sizeof(float));
    float *wi = malloc(n_wi * sizeof(float));
    float *b = malloc(n_b * sizeof(float));
    float *dst = malloc(n_dst * sizeof(float));
    float *di = malloc(n_iter * sizeof(float));
    float *dic = malloc(n_iter * sizeof(float));
    float *ref_dst = malloc(n_dst * sizeof(float));
    float *ref_di = malloc(n_iter * sizeof(float));
    float *ref_dic = malloc(n_iter * sizeof(float));
    REQUIRE(src && si && sic && wl && wi && b && dst && di && dic && ref_dst
                    && ref_di && ref_dic,
            "out of memory");

    ref_fill(src, n_src, 1, 2.0f);
    ref_fill(si, n_iter, 2, 2.0f);
    ref_fill(sic, n_iter, 3, 2.0f);
    ref_fill(wl, n_wl, 4, 1.0f);
    ref_fill(wi, n_wi, 5, 1.0f);
    ref_fill(b, n_b, 6, 1.0f);

    {
        /* user memory descriptors (plain layouts) */
        dnnl_memory_desc_t src_md = make_md(3, src_dims, dnnl_tnc);
        dnnl_memory_desc_t dst_md = make_md(3, dst_dims, dnnl_tnc);
        dnnl_memory_desc_t iter_md = make_md(4, iter_dims, dnnl_ldnc);
        dnnl_memory_desc_t wl_user_md = make_md(5, wl_dims, dnnl_ldigo);
        dnnl_memory_desc_t wi_user_md = make_md(5, wi_dims, dnnl_ldigo);
        dnnl_memory_desc_t b_md = make_md(4, b_dims, dnnl_ldgo);
        /* weights as `any`: let the primitive choose */
        dnnl_memory_desc_t wl_any_md = make_md(5, wl_dims, dnnl_format_tag_any);
        dnnl_memory_desc_t wi_any_md = make_md(5, wi_dims, dnnl_format_tag_any);
        dnnl_memory_desc_t zero_md = NULL;
        dnnl_primitive_desc_t pd = NULL;
        dnnl_primitive_t prim = NULL;
        dnnl_memory_t src_m, si_m, sic_m, wl_user_m, wi_user_m, b_m, dst_m,
                di_m, dic_m, ws_m, wl_m, wi_m;
        const_dnnl_memory_desc_t ws_md;
        dnnl_exec_arg_t args[11];
        int nargs = 0;

        /* the C++ API's memory::desc(): an empty (zero) descriptor */
        REQUIRE_OK(dnnl_memory_desc_create_with_tag(&zero_md, 0, NULL,
                dnnl_data_type_undef, dnnl_format_tag_undef));

        REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, prop,
                c->dir, src_md, c->with_src_iter ? iter_md : zero_md,
                c->with_src_iter ? iter_md : zero_md, wl_any_md, wi_any_md,
                NULL, NULL, b_md, dst_md, iter_md, iter_md, 0, NULL));

        /* user memories */
        src_m = make_mem(eng, src_md, src);
        si_m = make_mem(eng,
                dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC_ITER),
                c->with_src_iter ? si : NULL);
        sic_m = make_mem(eng,
                dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC_ITER_C),
                c->with_src_iter ? sic : NULL);
        wl_user_m = make_mem(eng, wl_user_md, wl);
        wi_user_m = make_mem(eng, wi_user_md, wi);
        b_m = make_mem(eng, b_md, b);
        dst_m = make_mem(eng, dst_md, NULL);
        di_m = make_mem(eng, iter_md, NULL);
        dic_m = make_mem(eng, iter_md, NULL);

        /* weights into the layout the primitive wants */
        wl_m = to_pd_layout(
                eng, s, pd, DNNL_ARG_WEIGHTS_LAYER, wl_user_m, &reordered_l);
        wi_m = to_pd_layout(
                eng, s, pd, DNNL_ARG_WEIGHTS_ITER, wi_user_m, &reordered_i);

        /* workspace: a real buffer for training, an empty memory otherwise */
        ws_md = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
        REQUIRE(ws_md != NULL, "workspace md query returned NULL");
        ws_m = make_mem(eng, ws_md, NULL);

        REQUIRE_OK(dnnl_primitive_create(&prim, pd));

#define ADD_ARG(a, m) (args[nargs].arg = (a), args[nargs].memory = (m), nargs++)
        ADD_ARG(DNNL_ARG_SRC_LAYER, src_m);
        ADD_ARG(DNNL_ARG_SRC_ITER, si_m);
        ADD_ARG(DNNL_ARG_SRC_ITER_C, sic_m);
        ADD_ARG(DNNL_ARG_WEIGHTS_LAYER, wl_m);
        ADD_ARG(DNNL_ARG_WEIGHTS_ITER, wi_m);
        ADD_ARG(DNNL_ARG_BIAS, b_m);
        ADD_ARG(DNNL_ARG_DST_LAYER, dst_m);
        ADD_ARG(DNNL_ARG_DST_ITER, di_m);
        ADD_ARG(DNNL_ARG_DST_ITER_C, dic_m);
        ADD_ARG(DNNL_ARG_WORKSPACE, ws_m);
#undef ADD_ARG

        snprintf(what, sizeof what, "%s %s L=%d T=%d N=%d SLC=%d DHC=%d%s",
                prop == dnnl_forward_training ? "training" : "inference",
                dir_name(c->dir), c->L, c->T, c->N, c->SLC, c->DHC,
                c->with_src_iter ? "" : " (no src_iter)");

        if (CHECK_OK(dnnl_primitive_execute(prim, s, nargs, args))
                && CHECK_OK(dnnl_stream_wait(s))) {
            read_mem(dst_m, dst, n_dst * sizeof(float));
            read_mem(di_m, di, n_iter * sizeof(float));
            read_mem(dic_m, dic, n_iter * sizeof(float));

            REQUIRE(ref_lstm_forward(c->dir, c->L, c->T, c->N, c->SLC, c->DHC,
                            src, c->with_src_iter ? si : NULL,
                            c->with_src_iter ? sic : NULL, wl, wi, b, ref_dst,
                            ref_di, ref_dic)
                            == 0,
                    "reference out of memory");
            {
                char w2[200];
                snprintf(w2, sizeof w2, "%s dst_layer", what);
                CHECK_FLOATS(dst, ref_dst, n_dst, w2);
                snprintf(w2, sizeof w2, "%s dst_iter", what);
                CHECK_FLOATS(di, ref_di, n_iter, w2);
                snprintf(w2, sizeof w2, "%s dst_iter_c", what);
                CHECK_FLOATS(dic, ref_dic, n_iter, w2);
            }
        }

        if (reordered_l) dnnl_memory_destroy(wl_m);
        if (reordered_i) dnnl_memory_destroy(wi_m);
        dnnl_memory_destroy(src_m);
        dnnl_memory_destroy(si_m);
        dnnl_memory_destroy(sic_m);
        dnnl_memory_destroy(wl_user_m);
        dnnl_memory_destroy(wi_user_m);
        dnnl_memory_destroy(b_m);
        dnnl_memory_destroy(dst_m);
        dnnl_memory_destroy(di_m);
        dnnl_memory_destroy(dic_m);
        dnnl_memory_destroy(ws_m);
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_desc_destroy(src_md);
        dnnl_memory_desc_destroy(dst_md);
        dnnl_memory_desc_destroy(iter_md);
        dnnl_memory_desc_destroy(wl_user_md);
        dnnl_memory_desc_destroy(wi_user_md);
        dnnl_memory_desc_destroy(b_md);
        dnnl_memory_desc_destroy(wl_any_md);
        dnnl_memory_desc_destroy(wi_any_md);
        dnnl_memory_desc_destroy(zero_md);
    }

    free(src), free(si), free(sic), free(wl), free(wi), free(b);
    free(dst), free(di), free(dic), free(ref_dst), free(ref_di), free(ref_dic);
}

int main(void) {
    static const dnnl_rnn_direction_t dirs[4] = {
            dnnl_unidirectional_left2right, dnnl_unidirectional_right2left,
            dnnl_bidirectional_concat, dnnl_bidirectional_sum};
    dnnl_engine_t eng = NULL;
    dnnl_stream_t s = NULL;
    int di, L;

    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));

    for (di = 0; di < 4; di++) {
        for (L = 1; L <= 2; L++) {
            /* L = 1: SLC != DHC is allowed; L > 1 needs SLC == DHC */
            lstm_case_t c;
            c.dir = dirs[di];
            c.L = L;
            c.T = L == 1 ? 5 : 4;
            c.N = L == 1 ? 3 : 2;
            c.SLC = L == 1 ? 7 : 6;
            c.DHC = L == 1 ? 5 : 6;
            c.with_src_iter = 1;
            run_case(eng, s, &c, dnnl_forward_training);
            run_case(eng, s, &c, dnnl_forward_inference);
        }
    }
    {
        /* no src_iter / src_iter_c: zero initial states */
        lstm_case_t c = {dnnl_unidirectional_left2right, 2, 3, 2, 4, 4, 0};
        run_case(eng, s, &c, dnnl_forward_training);
        run_case(eng, s, &c, dnnl_forward_inference);
        c.dir = dnnl_bidirectional_concat;
        run_case(eng, s, &c, dnnl_forward_inference);
    }

    dnnl_stream_destroy(s);
    dnnl_engine_destroy(eng);
    return check_summary();
}
