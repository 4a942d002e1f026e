/*
 * gen_bwd_goldens.c - golden outputs of the RNN f32 backward pass of every
 * cell from the real oneDNN (public C API only): forward training, then
 * backward from its workspace, into diff weights pre-filled with non-zero
 * values (oneDNN accumulates into them).
 *
 * Usage:   gen_bwd_goldens OUT_DIR     (writes OUT_DIR/<case>.txt)
 * Build:   see tools/goldens/make_goldens.sh.
 *
 * Cases: vanilla RNN (relu with alpha 0.1, tanh, logistic), LSTM, LSTM with
 * peephole, with projection, with both, GRU, LBR-GRU, AUGRU, LBR-AUGRU x
 * direction x L in {1, 2}; T = 3, N = 2, DHC = 4, SIC = DIC = 4 (3 with
 * projection), SLC = 5 (L = 1) or DIC (L = 2); src_iter, bias and dst_iter
 * given. Test mode (`_lin` files, golden_common.h's tparams) for the vanilla
 * RNN (tanh) and each other cell variant: one-way directions with L = 1,
 * bidirectional ones with L = 2. Other states (normal mode, file-name
 * suffixes: states_t): neither src_iter nor dst_iter (`_nostates`, every
 * case above), only src_iter (`_srciter`) or only dst_iter (`_dstiter`;
 * both with L = 1 one-way and L = 2 bidirectional), src_iter all zeros and
 * no dst_iter (`_zerosrciter`, left2right), dst_iter without diff_dst_iter
 * (oneDNN rejects it). Combinations oneDNN rejects (AUGRU: L = 1,
 * left2right only) are reported on stderr and skipped.
 *
 * Layouts: weights `any` for both passes, reordered from the user's ldigo
 * (the forward and backward layouts differ: this is what oneDNN's training
 * example does); every other tensor plain (tnc, ldnc, ldigo diff weights,
 * ldgo bias and peephole and their diffs).
 *
 * Inputs: the generator of golden_common.h; seeds src_layer 1, src_iter 2,
 * src_iter_c 3, weights_layer 4, weights_iter 5, bias 6, peephole 8,
 * projection 9 (`any` in both passes, reordered from ldio),
 * diff_dst_layer 11, diff_dst_iter 12, diff_dst_iter_c 13, and the initial
 * diff weights (`<name>_init` tensors) 21-25; attention gen_value(7, i, 1) +
 * 0.5, in [0, 1).
 *
 * File format: that of tests/goldens/README.md with `prop backward`; the
 * tensors are the forward inputs, the forward outputs (dst_*), the output
 * gradients (diff_dst_*), the initial diff weights (diff_weights_layer_init,
 * diff_weights_iter_init, diff_bias_init, diff_weights_peephole_init,
 * diff_weights_projection_init) and oneDNN's results: diff_src_layer,
 * diff_src_iter, diff_src_iter_c, diff_attention, diff_weights_layer,
 * diff_weights_iter, diff_bias, diff_weights_peephole, diff_weights_projection
 * (ldio).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

#include "golden_common.h"

typedef enum { C_RNN, C_LSTM, C_GRU, C_LBR_GRU, C_AUGRU, C_LBR_AUGRU } cell_t;

static const char *cell_name[]
        = {"vanilla_rnn", "lstm", "gru", "lbr_gru", "augru", "lbr_augru"};
static const char *cell_short[]
        = {"rnn", "lstm", "gru", "lbrgru", "augru", "lbraugru"};

/* Tensors: forward inputs, forward outputs, backward inputs, backward
 * outputs. Absent ones (by cell) are not created. */
enum {
    T_SRC_LAYER, T_SRC_ITER, T_SRC_ITER_C, T_ATT, T_WL, T_WI, T_WP, T_WPROJ,
    T_BIAS, T_DST_LAYER, T_DST_ITER, T_DST_ITER_C,
    T_DDST_LAYER, T_DDST_ITER, T_DDST_ITER_C,
    T_DSRC_LAYER, T_DSRC_ITER, T_DSRC_ITER_C, T_DATT, T_DWL, T_DWI, T_DWP,
    T_DWPROJ, T_DBIAS,
    T_COUNT
};

static const char *t_name[T_COUNT] = {"src_layer", "src_iter", "src_iter_c",
        "attention", "weights_layer", "weights_iter", "weights_peephole",
        "weights_projection", "bias",
        "dst_layer", "dst_iter", "dst_iter_c", "diff_dst_layer", "diff_dst_iter",
        "diff_dst_iter_c", "diff_src_layer", "diff_src_iter", "diff_src_iter_c",
        "diff_attention", "diff_weights_layer", "diff_weights_iter",
        "diff_weights_peephole", "diff_weights_projection", "diff_bias"};

static const int t_arg[T_COUNT] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER,
        DNNL_ARG_SRC_ITER_C, DNNL_ARG_AUGRU_ATTENTION, DNNL_ARG_WEIGHTS_LAYER,
        DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_WEIGHTS_PEEPHOLE,
        DNNL_ARG_WEIGHTS_PROJECTION, DNNL_ARG_BIAS,
        DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C,
        DNNL_ARG_DIFF_DST_LAYER, DNNL_ARG_DIFF_DST_ITER, DNNL_ARG_DIFF_DST_ITER_C,
        DNNL_ARG_DIFF_SRC_LAYER, DNNL_ARG_DIFF_SRC_ITER, DNNL_ARG_DIFF_SRC_ITER_C,
        DNNL_ARG_DIFF_AUGRU_ATTENTION, DNNL_ARG_DIFF_WEIGHTS_LAYER,
        DNNL_ARG_DIFF_WEIGHTS_ITER, DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE,
        DNNL_ARG_DIFF_WEIGHTS_PROJECTION, DNNL_ARG_DIFF_BIAS};

/* Which recurrent states a case gives: src_iter and dst_iter with their
 * diffs (the default), neither, only src_iter, only dst_iter, dst_iter
 * without diff_dst_iter (oneDNN rejects it), or src_iter all zeros without
 * dst_iter (what `_nostates` means by definition). The names are the
 * file-name suffixes. */
typedef enum {
    S_BOTH, S_NONE, S_SRC, S_DST, S_DST_NO_DIFF, S_ZERO_SRC, S_COUNT
} states_t;

static const char *states_suffix[S_COUNT] = {"", "_nostates", "_srciter",
        "_dstiter", "_nodiffdstiter", "_zerosrciter"};

typedef struct {
    cell_t cell;
    states_t states;
    dnnl_data_type_t dt;      /* activations and weights */
    dnnl_data_type_t bias_dt; /* bias */
    dnnl_data_type_t c_dt;    /* src_iter_c, dst_iter_c */
    int inference;            /* forward inference only (no backward) */
    int peephole;
    int projection; /* LSTM projection (DIC = 3 < DHC) */
    int linear;     /* test mode (golden_common.h's tparams) */
    dnnl_alg_kind_t act;
    float alpha;
    dnnl_rnn_direction_t dir;
    int L;
    tensor_t t[T_COUNT];
    int present[T_COUNT];
    float *init[T_COUNT]; /* initial values of the diff weights */
} bwd_case_t;

static const_dnnl_memory_desc_t md_of(const bwd_case_t *c, int k) {
    return c->present[k] ? c->t[k].md : NULL;
}

/* Forward training (hint == NULL and prop forward) or backward pd; `wl`/`wi`
 * are the weights descriptors (`any`). */
static dnnl_status_t create_pd(dnnl_primitive_desc_t *pd, dnnl_engine_t eng,
        const bwd_case_t *c, int backward, const_dnnl_memory_desc_t wl,
        const_dnnl_memory_desc_t wi, const_dnnl_memory_desc_t wproj,
        const_dnnl_primitive_desc_t hint, const_dnnl_primitive_attr_t attr) {
#define M(k) md_of(c, k)
    if (!backward) {
        const dnnl_prop_kind_t p = c->inference ? dnnl_forward_inference : dnnl_forward_training;
        switch (c->cell) {
            case C_RNN:
                return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, p,
                        c->act, c->dir, M(T_SRC_LAYER), M(T_SRC_ITER), wl, wi,
                        M(T_BIAS), M(T_DST_LAYER), M(T_DST_ITER), 0, c->alpha,
                        0.0f, attr);
            case C_LSTM:
                return dnnl_lstm_forward_primitive_desc_create(pd, eng, p, c->dir,
                        M(T_SRC_LAYER), M(T_SRC_ITER), M(T_SRC_ITER_C), wl, wi,
                        M(T_WP), wproj, M(T_BIAS), M(T_DST_LAYER), M(T_DST_ITER),
                        M(T_DST_ITER_C), 0, attr);
            case C_GRU:
                return dnnl_gru_forward_primitive_desc_create(pd, eng, p, c->dir,
                        M(T_SRC_LAYER), M(T_SRC_ITER), wl, wi, M(T_BIAS),
                        M(T_DST_LAYER), M(T_DST_ITER), 0, attr);
            case C_LBR_GRU:
                return dnnl_lbr_gru_forward_primitive_desc_create(pd, eng, p,
                        c->dir, M(T_SRC_LAYER), M(T_SRC_ITER), wl, wi, M(T_BIAS),
                        M(T_DST_LAYER), M(T_DST_ITER), 0, attr);
            case C_AUGRU:
                return dnnl_augru_forward_primitive_desc_create(pd, eng, p,
                        c->dir, M(T_SRC_LAYER), M(T_SRC_ITER), M(T_ATT), wl, wi,
                        M(T_BIAS), M(T_DST_LAYER), M(T_DST_ITER), 0, attr);
            case C_LBR_AUGRU:
                return dnnl_lbr_augru_forward_primitive_desc_create(pd, eng, p,
                        c->dir, M(T_SRC_LAYER), M(T_SRC_ITER), M(T_ATT), wl, wi,
                        M(T_BIAS), M(T_DST_LAYER), M(T_DST_ITER), 0, attr);
        }
        return dnnl_invalid_arguments;
    }
    const dnnl_prop_kind_t p = dnnl_backward;
    switch (c->cell) {
        case C_RNN:
            return dnnl_vanilla_rnn_backward_primitive_desc_create(pd, eng, p,
                    c->act, c->dir, M(T_SRC_LAYER), M(T_SRC_ITER), wl, wi,
                    M(T_BIAS), M(T_DST_LAYER), M(T_DST_ITER), M(T_DSRC_LAYER),
                    M(T_DSRC_ITER), M(T_DWL), M(T_DWI), M(T_DBIAS),
                    M(T_DDST_LAYER), M(T_DDST_ITER), 0, c->alpha, 0.0f, hint,
                    attr);
        case C_LSTM:
            return dnnl_lstm_backward_primitive_desc_create(pd, eng, p, c->dir,
                    M(T_SRC_LAYER), M(T_SRC_ITER), M(T_SRC_ITER_C), wl, wi,
                    M(T_WP), wproj, M(T_BIAS), M(T_DST_LAYER), M(T_DST_ITER),
                    M(T_DST_ITER_C), M(T_DSRC_LAYER), M(T_DSRC_ITER),
                    M(T_DSRC_ITER_C), M(T_DWL), M(T_DWI), M(T_DWP), M(T_DWPROJ),
                    M(T_DBIAS), M(T_DDST_LAYER), M(T_DDST_ITER),
                    M(T_DDST_ITER_C), 0, hint, attr);
        case C_GRU:
            return dnnl_gru_backward_primitive_desc_create(pd, eng, p, c->dir,
                    M(T_SRC_LAYER), M(T_SRC_ITER), wl, wi, M(T_BIAS),
                    M(T_DST_LAYER), M(T_DST_ITER), M(T_DSRC_LAYER),
                    M(T_DSRC_ITER), M(T_DWL), M(T_DWI), M(T_DBIAS),
                    M(T_DDST_LAYER), M(T_DDST_ITER), 0, hint, attr);
        case C_LBR_GRU:
            return dnnl_lbr_gru_backward_primitive_desc_create(pd, eng, p, c->dir,
                    M(T_SRC_LAYER), M(T_SRC_ITER), wl, wi, M(T_BIAS),
                    M(T_DST_LAYER), M(T_DST_ITER), M(T_DSRC_LAYER),
                    M(T_DSRC_ITER), M(T_DWL), M(T_DWI), M(T_DBIAS),
                    M(T_DDST_LAYER), M(T_DDST_ITER), 0, hint, attr);
        case C_AUGRU:
            return dnnl_augru_backward_primitive_desc_create(pd, eng, p, c->dir,
                    M(T_SRC_LAYER), M(T_SRC_ITER), M(T_ATT), wl, wi, M(T_BIAS),
                    M(T_DST_LAYER), M(T_DST_ITER), M(T_DSRC_LAYER),
                    M(T_DSRC_ITER), M(T_DATT), M(T_DWL), M(T_DWI), M(T_DBIAS),
                    M(T_DDST_LAYER), M(T_DDST_ITER), 0, hint, attr);
        case C_LBR_AUGRU:
            return dnnl_lbr_augru_backward_primitive_desc_create(pd, eng, p,
                    c->dir, M(T_SRC_LAYER), M(T_SRC_ITER), M(T_ATT), wl, wi,
                    M(T_BIAS), M(T_DST_LAYER), M(T_DST_ITER), M(T_DSRC_LAYER),
                    M(T_DSRC_ITER), M(T_DATT), M(T_DWL), M(T_DWI), M(T_DBIAS),
                    M(T_DDST_LAYER), M(T_DDST_ITER), 0, hint, attr);
    }
#undef M
    return dnnl_invalid_arguments;
}

/* Executes `pd` with tensors [first, last) of kinds: weights reordered from
 * the user's ldigo into what the pd wants, the others plain (the pd must keep
 * them), plus the workspace. */
static void execute(const_dnnl_primitive_desc_t pd, dnnl_engine_t eng,
        dnnl_stream_t strm, bwd_case_t *c, int last, dnnl_memory_t ws) {
    dnnl_exec_arg_t args[T_COUNT + 1];
    dnnl_memory_t owned[3];
    int nargs = 0, nowned = 0;
    for (int k = 0; k < last; ++k) {
        if (!c->present[k]) continue;
        const_dnnl_memory_desc_t want
                = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, t_arg[k]);
        if (!want) FAIL("%s: the pd has no md", t_name[k]);
        dnnl_memory_t m = c->t[k].mem;
        if (k == T_WL || k == T_WI || k == T_WPROJ) {
            int own = 0;
            m = reorder_to(eng, strm, &c->t[k], want, &own);
            if (own) owned[nowned++] = m;
        } else if (!dnnl_memory_desc_equal(c->t[k].md, want)) {
            FAIL("%s: the pd changed the plain layout", t_name[k]);
        }
        args[nargs].arg = t_arg[k];
        args[nargs].memory = m;
        ++nargs;
    }
    if (ws) {
        args[nargs].arg = DNNL_ARG_WORKSPACE;
        args[nargs].memory = ws;
        ++nargs;
    }
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    CHECK(dnnl_primitive_execute(prim, strm, nargs, args));
    CHECK(dnnl_stream_wait(strm));
    CHECK(dnnl_primitive_destroy(prim));
    for (int j = 0; j < nowned; ++j)
        CHECK(dnnl_memory_destroy(owned[j]));
}

static const char *act_name(dnnl_alg_kind_t a) {
    return a == dnnl_eltwise_relu ? "relu" : a == dnnl_eltwise_tanh ? "tanh" : "logistic";
}

static const char *type_name(dnnl_data_type_t dt) {
    return dt == dnnl_bf16 ? "bf16" : dt == dnnl_f16 ? "f16" : "f32";
}

/* The file-name suffix of a case's types and prop: `_bf16` (training and
 * backward), `_bf16_inf` (inference), `_f16_inf`, plus `_bias<type>` and
 * `_c<type>` where those differ from f32; nothing for f32. */
static const char *type_suffix(const bwd_case_t *c) {
    static char buf[64];
    if (c->dt == dnnl_f32) return "";
    snprintf(buf, sizeof(buf), "_%s%s%s%s%s%s", type_name(c->dt), c->inference ? "_inf" : "",
            c->bias_dt != dnnl_f32 ? "_bias" : "", c->bias_dt != dnnl_f32 ? type_name(c->bias_dt) : "",
            c->c_dt != dnnl_f32 && c->cell == C_LSTM ? "_c" : "",
            c->c_dt != dnnl_f32 && c->cell == C_LSTM ? type_name(c->c_dt) : "");
    return buf;
}

static void run_case(bwd_case_t *c, dnnl_engine_t eng, dnnl_stream_t strm,
        const char *out_dir, const char *version) {
    const int64_t L = c->L, T = 3, N = 2, DHC = 4;
    const int64_t DIC = c->projection ? 3 : DHC, SIC = DIC;
    const int64_t SLC = L == 1 ? 5 : DIC;
    const int64_t G = c->cell == C_RNN ? 1 : c->cell == C_LSTM ? 4 : 3;
    const int64_t B = (c->cell == C_LBR_GRU || c->cell == C_LBR_AUGRU) ? G + 1 : G;
    const int64_t D = (c->dir == dnnl_bidirectional_concat || c->dir == dnnl_bidirectional_sum) ? 2 : 1;
    const int64_t DLC = c->dir == dnnl_bidirectional_concat ? 2 * DIC : DIC;
    const int lstm = c->cell == C_LSTM;
    const int att = c->cell == C_AUGRU || c->cell == C_LBR_AUGRU;

    char name[160];
    snprintf(name, sizeof(name), "%s%s%s%s_%s_l%d%s%s%s", cell_short[c->cell],
            c->cell == C_RNN ? act_name(c->act) : "", c->peephole ? "peephole" : "",
            c->projection ? "proj" : "",
            c->dir == dnnl_unidirectional_left2right ? "l2r"
            : c->dir == dnnl_unidirectional_right2left ? "r2l"
            : c->dir == dnnl_bidirectional_concat ? "bicat" : "bisum",
            c->L, c->linear ? "_lin" : "", states_suffix[c->states], type_suffix(c));
    const int64_t d_sl[] = {T, N, SLC}, d_st[] = {L, D, N, DIC}, d_stc[] = {L, D, N, DHC},
                  d_att[] = {T, N, 1}, d_wl[] = {L, D, SLC, G, DHC},
                  d_wi[] = {L, D, SIC, G, DHC}, d_wp[] = {L, D, 3, DHC},
                  d_wproj[] = {L, D, DHC, DIC}, d_b[] = {L, D, B, DHC},
                  d_dl[] = {T, N, DLC};
    struct { int k; int nd; const int64_t *dims; dnnl_format_tag_t tag; } shape[] = {
        {T_SRC_LAYER, 3, d_sl, dnnl_tnc}, {T_SRC_ITER, 4, d_st, dnnl_ldnc},
        {T_SRC_ITER_C, 4, d_stc, dnnl_ldnc}, {T_ATT, 3, d_att, dnnl_tnc},
        {T_WL, 5, d_wl, dnnl_ldigo}, {T_WI, 5, d_wi, dnnl_ldigo},
        {T_WP, 4, d_wp, dnnl_ldgo}, {T_WPROJ, 4, d_wproj, dnnl_ldio},
        {T_BIAS, 4, d_b, dnnl_ldgo}, {T_DST_LAYER, 3, d_dl, dnnl_tnc},
        {T_DST_ITER, 4, d_st, dnnl_ldnc}, {T_DST_ITER_C, 4, d_stc, dnnl_ldnc}};
    for (int s = 0; s < (int)(sizeof(shape) / sizeof(shape[0])); ++s) {
        const int k = shape[s].k;
        /* diff tensor of forward tensor k: same shape */
        const int dk = k <= T_BIAS ? T_DSRC_LAYER + k : T_DDST_LAYER + (k - T_DST_LAYER);
        const dnnl_data_type_t dt = k == T_WP ? dnnl_f32
                : k == T_BIAS ? c->bias_dt
                : k == T_SRC_ITER_C || k == T_DST_ITER_C ? c->c_dt : c->dt;
        tensor_init_dt(&c->t[k], t_name[k], shape[s].nd, shape[s].dims, shape[s].tag, dt, eng);
        tensor_init(&c->t[dk], t_name[dk], shape[s].nd, shape[s].dims, shape[s].tag, eng);
        const int used = (k != T_SRC_ITER_C && k != T_DST_ITER_C && k != T_WP && k != T_WPROJ
                                 && k != T_ATT)
                || ((k == T_SRC_ITER_C || k == T_DST_ITER_C) && lstm)
                || (k == T_WP && c->peephole) || (k == T_WPROJ && c->projection)
                || (k == T_ATT && att);
        c->present[k] = c->present[dk] = used;
    }
    const int src_iter = c->states == S_BOTH || c->states == S_SRC || c->states == S_ZERO_SRC;
    const int dst_iter = c->states == S_BOTH || c->states == S_DST || c->states == S_DST_NO_DIFF;
    c->present[T_SRC_ITER] = c->present[T_DSRC_ITER] = src_iter;
    c->present[T_SRC_ITER_C] = c->present[T_DSRC_ITER_C] = src_iter && lstm;
    c->present[T_DST_ITER] = dst_iter;
    c->present[T_DST_ITER_C] = dst_iter && lstm;
    c->present[T_DDST_ITER] = dst_iter && c->states != S_DST_NO_DIFF;
    c->present[T_DDST_ITER_C] = c->present[T_DDST_ITER] && lstm;
    gen_fill(c->t[T_SRC_LAYER].host, c->t[T_SRC_LAYER].nelems, 1, 2.0f);
    if (c->states != S_ZERO_SRC) {
        gen_fill(c->t[T_SRC_ITER].host, c->t[T_SRC_ITER].nelems, 2, 2.0f);
        gen_fill(c->t[T_SRC_ITER_C].host, c->t[T_SRC_ITER_C].nelems, 3, 2.0f);
    }
    for (size_t i = 0; i < c->t[T_ATT].nelems; ++i)
        c->t[T_ATT].host[i] = gen_value(7, (uint32_t)i, 1.0f) + 0.5f;
    gen_fill(c->t[T_WL].host, c->t[T_WL].nelems, 4, 1.0f);
    gen_fill(c->t[T_WI].host, c->t[T_WI].nelems, 5, 1.0f);
    gen_fill(c->t[T_BIAS].host, c->t[T_BIAS].nelems, 6, 1.0f);
    gen_fill(c->t[T_WP].host, c->t[T_WP].nelems, 8, 1.0f);
    gen_fill(c->t[T_WPROJ].host, c->t[T_WPROJ].nelems, 9, 1.0f);
    gen_fill(c->t[T_DDST_LAYER].host, c->t[T_DDST_LAYER].nelems, 11, 2.0f);
    gen_fill(c->t[T_DDST_ITER].host, c->t[T_DDST_ITER].nelems, 12, 2.0f);
    gen_fill(c->t[T_DDST_ITER_C].host, c->t[T_DDST_ITER_C].nelems, 13, 2.0f);
    for (int k = 0; k <= T_BIAS; ++k)
        round_all(c->t[k].dt, c->t[k].host, c->t[k].nelems);
    const int diff_w[] = {T_DWL, T_DWI, T_DBIAS, T_DWP, T_DWPROJ};
    for (int j = 0; j < 5; ++j) {
        tensor_t *t = &c->t[diff_w[j]];
        c->init[diff_w[j]] = (float *)xmalloc(t->nelems * sizeof(float));
        gen_fill(c->init[diff_w[j]], t->nelems, 21 + (uint32_t)j, 1.0f);
    }

    dnnl_memory_desc_t wl_any = NULL, wi_any = NULL, wproj_any = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&wl_any, 5, c->t[T_WL].dims, c->dt, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&wi_any, 5, c->t[T_WI].dims, c->dt, dnnl_format_tag_any));
    if (c->projection)
        CHECK(dnnl_memory_desc_create_with_tag(
                &wproj_any, 4, c->t[T_WPROJ].dims, c->dt, dnnl_format_tag_any));
    dnnl_primitive_attr_t attr = test_mode_attr(c->linear, (int)G);
    dnnl_primitive_desc_t fpd = NULL, bpd = NULL;
    dnnl_status_t st = create_pd(&fpd, eng, c, 0, wl_any, wi_any, wproj_any, NULL, attr);
    if (st == dnnl_success && !c->inference)
        st = create_pd(&bpd, eng, c, 1, wl_any, wi_any, wproj_any, fpd, attr);
    if (st != dnnl_success) {
        fprintf(stderr, "%s: not accepted: status %d (%s)\n", name, (int)st, status_str(st));
    } else {
        /* forward training (or inference) */
        for (int k = 0; k <= T_BIAS; ++k)
            if (c->present[k]) tensor_write(&c->t[k], c->t[k].host);
        dnnl_memory_t ws = NULL;
        if (!c->inference)
            CHECK(dnnl_memory_create(&ws,
                    dnnl_primitive_desc_query_md(fpd, dnnl_query_workspace_md, 0), eng,
                    DNNL_MEMORY_ALLOCATE));
        for (int k = T_DST_LAYER; k <= T_DST_ITER_C; ++k)
            if (c->present[k]) tensor_fill_nan(&c->t[k]);
        execute(fpd, eng, strm, c, T_DDST_LAYER, ws);
        for (int k = T_DST_LAYER; k <= T_DST_ITER_C; ++k)
            if (c->present[k]) {
                tensor_read(&c->t[k], c->t[k].host);
                for (size_t i = 0; i < c->t[k].nelems; ++i)
                    if (!isfinite(c->t[k].host[i])) FAIL("%s: %s not finite", name, t_name[k]);
            }
        if (c->inference) /* only the forward tensors go to the file */
            for (int k = T_DDST_LAYER; k < T_COUNT; ++k)
                c->present[k] = 0;
        /* backward */
        for (int k = T_DDST_LAYER; k <= T_DDST_ITER_C; ++k)
            if (c->present[k]) tensor_write(&c->t[k], c->t[k].host);
        for (int k = T_DSRC_LAYER; k < T_COUNT; ++k)
            if (c->present[k]) {
                if (c->init[k]) tensor_write(&c->t[k], c->init[k]);
                else tensor_fill_nan(&c->t[k]);
            }
        if (!c->inference) execute(bpd, eng, strm, c, T_COUNT, ws);
        for (int k = T_DSRC_LAYER; k < T_COUNT; ++k)
            if (c->present[k]) {
                tensor_read(&c->t[k], c->t[k].host);
                for (size_t i = 0; i < c->t[k].nelems; ++i)
                    if (!isfinite(c->t[k].host[i])) FAIL("%s: %s not finite", name, t_name[k]);
            }
        if (ws) CHECK(dnnl_memory_destroy(ws));

        char path[512];
        snprintf(path, sizeof(path), "%s/%s.txt", out_dir, name);
        FILE *f = fopen(path, "w");
        if (!f) FAIL("cannot open %s", path);
        fprintf(f, "# generated by tools/goldens/gen_bwd_goldens.c against oneDNN %s\n", version);
        fprintf(f, "case %s\ncell %s\n", name, cell_name[c->cell]);
        if (c->cell == C_RNN)
            fprintf(f, "activation %s\nalpha %.9g\n", act_name(c->act), (double)c->alpha);
        fprintf(f, "prop %s\ndirection %s\n", c->inference ? "forward_inference" : "backward",
                dir_name(c->dir));
        if (c->dt != dnnl_f32)
            fprintf(f, "types data=%s bias=%s c=%s\n", type_name(c->dt), type_name(c->bias_dt),
                    type_name(c->c_dt));
        if (c->linear) write_tparams(f, (int)G);
        fprintf(f, "dims L=%lld D=%lld T=%lld N=%lld SLC=%lld SIC=%lld DHC=%lld DIC=%lld G=%lld\n",
                (long long)L, (long long)D, (long long)T, (long long)N, (long long)SLC,
                (long long)SIC, (long long)DHC, (long long)DIC, (long long)G);
        for (int k = 0; k < T_COUNT; ++k) {
            if (!c->present[k]) continue;
            if (c->init[k]) {
                char init_name[64];
                tensor_t tmp = c->t[k];
                snprintf(init_name, sizeof(init_name), "%s_init", t_name[k]);
                tmp.name = init_name;
                write_tensor(f, &tmp, c->init[k]);
            }
            write_tensor(f, &c->t[k], c->t[k].host);
        }
        fprintf(f, "end\n");
        if (fclose(f) != 0) FAIL("error writing %s", path);
        fprintf(stderr, "%s: wrote %s\n", name, path);
    }
    if (bpd) CHECK(dnnl_primitive_desc_destroy(bpd));
    if (fpd) CHECK(dnnl_primitive_desc_destroy(fpd));
    CHECK(dnnl_memory_desc_destroy(wl_any));
    CHECK(dnnl_memory_desc_destroy(wi_any));
    if (wproj_any) CHECK(dnnl_memory_desc_destroy(wproj_any));
    if (attr) CHECK(dnnl_primitive_attr_destroy(attr));
    for (int k = 0; k < T_COUNT; ++k) {
        free(c->init[k]);
        if (c->t[k].md) tensor_fini(&c->t[k]);
    }
}

/* Whether to run a case with states other than S_BOTH (direction index d:
 * l2r, r2l, bicat, bisum): normal mode only; no states in every direction
 * with L 1-2; one state in one L per direction (1 for the one-way directions,
 * 2 for the others); diff_dst_iter missing at L = 1 in l2r; explicit zero
 * states in l2r. */
static int wanted(states_t s, int d, int L, int linear) {
    switch (s) {
        case S_BOTH: return 1;
        case S_NONE: return !linear;
        case S_SRC:
        case S_DST: return !linear && (d < 2) == (L == 1);
        case S_DST_NO_DIFF: return !linear && d == 0 && L == 1;
        case S_ZERO_SRC: return !linear && d == 0;
        default: return 0;
    }
}

/* The low-precision cases (OUT_DIR of the second argument), every cell and
 * variant (vanilla RNN: tanh and relu; LSTM plain and peephole; no
 * projection: oneDNN 3.13 accepts bf16 and f16 LSTMP but its outputs are NaN
 * or zeros), src_iter and dst_iter given: bf16 training + backward in l2r L = 1
 * and bidirectional concat L = 2 (AUGRU: l2r L = 1 only); bf16
 * inference with
 * bias and c-state bf16 in r2l L = 1 and bidirectional sum L = 2; f16
 * inference (bias and c-state f32) in l2r L = 1 and bidirectional concat
 * L = 2. */
static void low_precision_cases(dnnl_engine_t eng, dnnl_stream_t strm, const char *out_dir,
        const char *version) {
    struct { dnnl_data_type_t dt, bias_dt, c_dt; int inference; int dir[2]; } kinds[] = {
        {dnnl_bf16, dnnl_f32, dnnl_f32, 0, {0, 2}},
        {dnnl_bf16, dnnl_bf16, dnnl_bf16, 1, {1, 3}},
        {dnnl_f16, dnnl_f32, dnnl_f32, 1, {0, 2}},
    };
    const dnnl_rnn_direction_t dirs[] = {dnnl_unidirectional_left2right,
            dnnl_unidirectional_right2left, dnnl_bidirectional_concat, dnnl_bidirectional_sum};
    const dnnl_alg_kind_t acts[] = {dnnl_eltwise_tanh, dnnl_eltwise_relu};
    for (int kind = 0; kind < 3; ++kind)
        for (int cell = C_RNN; cell <= C_LBR_AUGRU; ++cell)
            for (int v = 0; v < (cell == C_RNN ? 2 : cell == C_LSTM ? 4 : 1); ++v)
                for (int j = 0; j < 2; ++j) {
                    const int augru = cell == C_AUGRU || cell == C_LBR_AUGRU;
                    if (augru && j == 1) continue;
                    /* oneDNN 3.13 creates bf16/f16 LSTMP pds but computes NaN (f16,
                     * bf16 backward) or zeros (bf16 inference) */
                    if (cell == C_LSTM && (v & 2)) continue;
                    bwd_case_t c;
                    memset(&c, 0, sizeof(c));
                    c.states = S_BOTH;
                    c.cell = (cell_t)cell;
                    c.act = cell == C_RNN ? acts[v] : dnnl_eltwise_tanh;
                    c.alpha = c.act == dnnl_eltwise_relu && cell == C_RNN ? 0.1f : 0.0f;
                    c.peephole = cell == C_LSTM && (v & 1);
                    c.projection = cell == C_LSTM && (v & 2);
                    c.dir = augru ? dnnl_unidirectional_left2right : dirs[kinds[kind].dir[j]];
                    c.L = j + 1;
                    c.dt = kinds[kind].dt;
                    c.bias_dt = kinds[kind].bias_dt;
                    c.c_dt = kinds[kind].c_dt;
                    c.inference = kinds[kind].inference;
                    run_case(&c, eng, strm, out_dir, version);
                }
}

int main(int argc, char **argv) {
    char version[64];
    dnnl_engine_t eng = NULL;
    dnnl_stream_t strm = NULL;
    (void)run_pd; /* a shared helper this generator does not use */
    golden_setup(argc, argv, version, sizeof(version), &eng, &strm);
    const dnnl_rnn_direction_t dirs[] = {dnnl_unidirectional_left2right,
            dnnl_unidirectional_right2left, dnnl_bidirectional_concat, dnnl_bidirectional_sum};
    const dnnl_alg_kind_t acts[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_logistic};
    /* variants: the activations of the vanilla RNN; LSTM plain, peephole,
     * projection, both; the states of each case (wanted) */
    for (int states = S_BOTH; states < S_COUNT; ++states)
        for (int cell = C_RNN; cell <= C_LBR_AUGRU; ++cell)
            for (int v = 0; v < (cell == C_RNN ? 3 : cell == C_LSTM ? 4 : 1); ++v)
                for (int d = 0; d < 4; ++d)
                    for (int L = 1; L <= 2; ++L)
                        for (int linear = 0; linear <= 1; ++linear) {
                            /* test mode: one activation of the vanilla RNN, L = 1
                             * for the one-way directions, L = 2 for the others */
                            if (linear && ((cell == C_RNN && v != 1) || (d < 2) != (L == 1)))
                                continue;
                            if (!wanted((states_t)states, d, L, linear)) continue;
                            bwd_case_t c;
                            memset(&c, 0, sizeof(c));
                            c.states = (states_t)states;
                            c.cell = (cell_t)cell;
                            c.act = cell == C_RNN ? acts[v] : dnnl_eltwise_tanh;
                            c.alpha = c.act == dnnl_eltwise_relu && cell == C_RNN ? 0.1f : 0.0f;
                            c.peephole = cell == C_LSTM && (v & 1);
                            c.projection = cell == C_LSTM && (v & 2);
                            c.linear = linear;
                            c.dir = dirs[d];
                            c.L = L;
                            c.dt = c.bias_dt = c.c_dt = dnnl_f32;
                            run_case(&c, eng, strm, argv[1], version);
                        }
    if (argc == 3) low_precision_cases(eng, strm, argv[2], version);
    CHECK(dnnl_stream_destroy(strm));
    CHECK(dnnl_engine_destroy(eng));
    return 0;
}
