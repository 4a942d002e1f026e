/*
 * gen_cells_goldens.c - golden outputs of the vanilla RNN, GRU, LBR-GRU, AUGRU
 * and LBR-AUGRU f32 forward inference from the real oneDNN (public C API only).
 *
 * Usage:   gen_cells_goldens OUT_DIR     (writes OUT_DIR/<cell>/<case>.txt)
 * Build:   see tools/goldens/make_goldens.sh.
 *
 * Cases: every cell (the vanilla RNN once per activation: relu with alpha
 * 0.1, tanh, logistic) x direction x L in {1, 2} x T in {1, 5}, N = 3,
 * DHC = SIC = 4, SLC = 5 (L = 1) or 4 (L = 2), src_iter given, dst_iter
 * requested. Combinations oneDNN rejects are reported (with the status) on
 * stderr and skipped. Weights are given as `any` and reordered from ldigo.
 *
 * Inputs: the generator of golden_common.h with the seeds of
 * gen_lstm_goldens.c (src_layer 1, src_iter 2, weights_layer 4, weights_iter
 * 5, bias 6); AUGRU's attention {T, N, 1} (tnc) is gen_value(7, i, 1) + 0.5,
 * in [0, 1). Bias has G rows, G + 1 for the linear-before-reset cells.
 *
 * Test-mode cases (`_linear`): every cell (the vanilla RNN with tanh), left2right
 * L = 1 and, except AUGRU, bidirectional_sum L = 2, T = 5, with oneDNN's hidden
 * rnn_tparams attribute (golden_common.h).
 *
 * File format: that of tests/goldens/README.md, with `cell vanilla_rnn|gru|
 * lbr_gru|augru|lbr_augru`, for the vanilla RNN two more lines
 * `activation relu|tanh|logistic` and `alpha <%.9g>`, for AUGRU the
 * tensor `attention`, and for test-mode cases `tparams <cscale> <scales...>`.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oneapi/dnnl/dnnl.h"

#include "golden_common.h"

typedef enum { C_RNN, C_GRU, C_LBR_GRU, C_AUGRU, C_LBR_AUGRU } cell_t;

static const char *cell_name[] = {"vanilla_rnn", "gru", "lbr_gru", "augru", "lbr_augru"};
static const char *cell_short[] = {"rnn", "gru", "lbrgru", "augru", "lbraugru"};

enum { T_SRC_LAYER, T_SRC_ITER, T_ATT, T_WEI_LAYER, T_WEI_ITER, T_BIAS,
    T_DST_LAYER, T_DST_ITER, T_COUNT };

static const int t_arg[T_COUNT] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER,
        DNNL_ARG_AUGRU_ATTENTION, DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER,
        DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER};

typedef struct {
    cell_t cell;
    dnnl_alg_kind_t act;
    float alpha;
    dnnl_rnn_direction_t dir;
    int L, T;
    int linear; /* test mode */
    tensor_t t[T_COUNT];
    int present[T_COUNT];
} cells_case_t;

static const_dnnl_memory_desc_t md_or_null(const cells_case_t *c, int k) {
    return c->present[k] ? c->t[k].md : NULL;
}

static dnnl_status_t create_pd(dnnl_primitive_desc_t *pd, dnnl_engine_t eng,
        const cells_case_t *c, const_dnnl_memory_desc_t wl,
        const_dnnl_memory_desc_t wi, const_dnnl_primitive_attr_t attr) {
    const dnnl_prop_kind_t prop = dnnl_forward_inference;
    const_dnnl_memory_desc_t sl = c->t[T_SRC_LAYER].md, si = md_or_null(c, T_SRC_ITER),
            b = c->t[T_BIAS].md, dl = c->t[T_DST_LAYER].md,
            di = md_or_null(c, T_DST_ITER), att = c->t[T_ATT].md;
    switch (c->cell) {
        case C_RNN:
            return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, prop,
                    c->act, c->dir, sl, si, wl, wi, b, dl, di,
                    dnnl_rnn_flags_undef, c->alpha, 0.0f, attr);
        case C_GRU:
            return dnnl_gru_forward_primitive_desc_create(pd, eng, prop, c->dir,
                    sl, si, wl, wi, b, dl, di, dnnl_rnn_flags_undef, attr);
        case C_LBR_GRU:
            return dnnl_lbr_gru_forward_primitive_desc_create(pd, eng, prop,
                    c->dir, sl, si, wl, wi, b, dl, di, dnnl_rnn_flags_undef, attr);
        case C_AUGRU:
            return dnnl_augru_forward_primitive_desc_create(pd, eng, prop,
                    c->dir, sl, si, att, wl, wi, b, dl, di,
                    dnnl_rnn_flags_undef, attr);
        case C_LBR_AUGRU:
            return dnnl_lbr_augru_forward_primitive_desc_create(pd, eng, prop,
                    c->dir, sl, si, att, wl, wi, b, dl, di,
                    dnnl_rnn_flags_undef, attr);
    }
    return dnnl_invalid_arguments;
}

static const char *act_name(dnnl_alg_kind_t a) {
    return a == dnnl_eltwise_relu ? "relu" : a == dnnl_eltwise_tanh ? "tanh" : "logistic";
}

static void run_case(cells_case_t *c, dnnl_engine_t eng, dnnl_stream_t strm,
        const char *out_dir, const char *version) {
    const int64_t L = c->L, T = c->T, N = 3, DHC = 4, SIC = 4;
    const int64_t SLC = L == 1 ? 5 : 4;
    const int64_t G = c->cell == C_RNN ? 1 : 3;
    const int64_t B = (c->cell == C_LBR_GRU || c->cell == C_LBR_AUGRU) ? G + 1 : G;
    const int64_t D = (c->dir == dnnl_bidirectional_concat || c->dir == dnnl_bidirectional_sum) ? 2 : 1;
    const int64_t DLC = c->dir == dnnl_bidirectional_concat ? 2 * DHC : DHC;
    const int att = c->cell == C_AUGRU || c->cell == C_LBR_AUGRU;

    char name[128];
    snprintf(name, sizeof(name), "%s%s_%s_l%d_t%d%s", cell_short[c->cell],
            c->cell == C_RNN ? act_name(c->act) : "",
            c->dir == dnnl_unidirectional_left2right ? "l2r"
            : c->dir == dnnl_unidirectional_right2left ? "r2l"
            : c->dir == dnnl_bidirectional_concat ? "bicat" : "bisum",
            c->L, c->T, c->linear ? "_linear" : "");
    {
        const int64_t d_sl[] = {T, N, SLC}, d_st[] = {L, D, N, DHC},
                      d_att[] = {T, N, 1}, d_wl[] = {L, D, SLC, G, DHC},
                      d_wi[] = {L, D, SIC, G, DHC}, d_b[] = {L, D, B, DHC},
                      d_dl[] = {T, N, DLC};
        tensor_init(&c->t[T_SRC_LAYER], "src_layer", 3, d_sl, dnnl_tnc, eng);
        tensor_init(&c->t[T_SRC_ITER], "src_iter", 4, d_st, dnnl_ldnc, eng);
        tensor_init(&c->t[T_ATT], "attention", 3, d_att, dnnl_tnc, eng);
        tensor_init(&c->t[T_WEI_LAYER], "weights_layer", 5, d_wl, dnnl_ldigo, eng);
        tensor_init(&c->t[T_WEI_ITER], "weights_iter", 5, d_wi, dnnl_ldigo, eng);
        tensor_init(&c->t[T_BIAS], "bias", 4, d_b, dnnl_ldgo, eng);
        tensor_init(&c->t[T_DST_LAYER], "dst_layer", 3, d_dl, dnnl_tnc, eng);
        tensor_init(&c->t[T_DST_ITER], "dst_iter", 4, d_st, dnnl_ldnc, eng);
    }
    for (int k = 0; k < T_COUNT; ++k)
        c->present[k] = k != T_ATT || att;
    gen_fill(c->t[T_SRC_LAYER].host, c->t[T_SRC_LAYER].nelems, 1, 2.0f);
    gen_fill(c->t[T_SRC_ITER].host, c->t[T_SRC_ITER].nelems, 2, 2.0f);
    for (size_t i = 0; i < c->t[T_ATT].nelems; ++i)
        c->t[T_ATT].host[i] = gen_value(7, (uint32_t)i, 1.0f) + 0.5f;
    gen_fill(c->t[T_WEI_LAYER].host, c->t[T_WEI_LAYER].nelems, 4, 1.0f);
    gen_fill(c->t[T_WEI_ITER].host, c->t[T_WEI_ITER].nelems, 5, 1.0f);
    gen_fill(c->t[T_BIAS].host, c->t[T_BIAS].nelems, 6, 1.0f);

    dnnl_memory_desc_t wl_any = NULL, wi_any = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&wl_any, 5, c->t[T_WEI_LAYER].dims, dnnl_f32, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&wi_any, 5, c->t[T_WEI_ITER].dims, dnnl_f32, dnnl_format_tag_any));
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t attr = test_mode_attr(c->linear, (int)G);
    dnnl_status_t st = create_pd(&pd, eng, c, wl_any, wi_any, attr);
    if (attr) CHECK(dnnl_primitive_attr_destroy(attr));
    if (st != dnnl_success) {
        fprintf(stderr, "%s: not accepted: status %d (%s)\n", name, (int)st, status_str(st));
    } else {
        float *out[T_COUNT];
        for (int k = 0; k < T_COUNT; ++k) out[k] = c->t[k].host;
        run_pd(pd, eng, strm, c->t, c->present, t_arg, T_COUNT, T_DST_LAYER, out, 0);
        CHECK(dnnl_primitive_desc_destroy(pd));
        for (int k = T_DST_LAYER; k < T_COUNT; ++k) {
            for (size_t i = 0; i < c->t[k].nelems; ++i)
                if (!isfinite(c->t[k].host[i])) FAIL("%s: %s not finite", name, c->t[k].name);
        }

        char path[512];
        snprintf(path, sizeof(path), "%s/%s", out_dir, cell_name[c->cell]);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/%s/%s.txt", out_dir, cell_name[c->cell], name);
        FILE *f = fopen(path, "w");
        if (!f) FAIL("cannot open %s", path);
        fprintf(f, "# generated by tools/goldens/gen_cells_goldens.c against oneDNN %s\n", version);
        fprintf(f, "case %s\ncell %s\n", name, cell_name[c->cell]);
        if (c->cell == C_RNN)
            fprintf(f, "activation %s\nalpha %.9g\n", act_name(c->act), (double)c->alpha);
        fprintf(f, "prop forward_inference\ndirection %s\n", dir_name(c->dir));
        if (c->linear) write_tparams(f, (int)G);
        fprintf(f, "dims L=%lld D=%lld T=%lld N=%lld SLC=%lld SIC=%lld DHC=%lld DIC=%lld G=%lld\n",
                (long long)L, (long long)D, (long long)T, (long long)N, (long long)SLC,
                (long long)SIC, (long long)DHC, (long long)DHC, (long long)G);
        for (int k = 0; k < T_COUNT; ++k)
            if (c->present[k]) write_tensor(f, &c->t[k], c->t[k].host);
        fprintf(f, "end\n");
        if (fclose(f) != 0) FAIL("error writing %s", path);
        fprintf(stderr, "%s: wrote %s\n", name, path);
    }
    CHECK(dnnl_memory_desc_destroy(wl_any));
    CHECK(dnnl_memory_desc_destroy(wi_any));
    for (int k = 0; k < T_COUNT; ++k) tensor_fini(&c->t[k]);
}

int main(int argc, char **argv) {
    char version[64];
    dnnl_engine_t eng = NULL;
    dnnl_stream_t strm = NULL;
    golden_setup(argc, argv, version, sizeof(version), &eng, &strm);
    const dnnl_rnn_direction_t dirs[] = {dnnl_unidirectional_left2right,
            dnnl_unidirectional_right2left, dnnl_bidirectional_concat, dnnl_bidirectional_sum};
    const dnnl_alg_kind_t acts[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_logistic};
    for (int cell = C_RNN; cell <= C_LBR_AUGRU; ++cell)
        for (int a = 0; a < (cell == C_RNN ? 3 : 1); ++a)
            for (int d = 0; d < 4; ++d)
                for (int L = 1; L <= 2; ++L)
                    for (int T = 1; T <= 5; T += 4) {
                        cells_case_t c;
                        memset(&c, 0, sizeof(c));
                        c.cell = (cell_t)cell;
                        c.act = acts[a];
                        c.alpha = c.act == dnnl_eltwise_relu ? 0.1f : 0.0f;
                        c.dir = dirs[d];
                        c.L = L;
                        c.T = T;
                        run_case(&c, eng, strm, argv[1], version);
                    }
    /* test mode: left2right L = 1 and bidirectional_sum L = 2 (AUGRU: l2r only) */
    for (int cell = C_RNN; cell <= C_LBR_AUGRU; ++cell)
        for (int d = 0; d < 2; ++d) {
            cells_case_t c;
            memset(&c, 0, sizeof(c));
            c.cell = (cell_t)cell;
            c.act = dnnl_eltwise_tanh;
            c.dir = d == 0 ? dnnl_unidirectional_left2right : dnnl_bidirectional_sum;
            c.L = 1 + d;
            c.T = 5;
            c.linear = 1;
            if (d == 1 && (cell == C_AUGRU || cell == C_LBR_AUGRU)) continue;
            run_case(&c, eng, strm, argv[1], version);
        }
    CHECK(dnnl_stream_destroy(strm));
    CHECK(dnnl_engine_destroy(eng));
    return 0;
}
