/*
 * gen_int8_goldens.c - golden outputs of int8 LSTM, LSTM with projection
 * (LSTMP) and GRU forward inference from the real oneDNN (public C API only).
 *
 * Usage:   gen_int8_goldens OUT_DIR     (writes OUT_DIR/int8/<case>.txt)
 * Build:   see tools/goldens/make_goldens.sh.
 *
 * Every case starts from f32 tensors (golden_common.h's generator) and goes
 * the way an int8 user goes: one attribute with the data qparams (scale 40,
 * shift 100), the weights qparams (mask 0: one scale 250; mask 24: 200 + 3k
 * for k = g*DHC + o) and for LSTMP the projection qparams (mask 0: 240; mask
 * 8: 230 + 5k); src_layer (and src_iter in the u8-state configurations) are
 * reordered f32 -> u8 with it, the weights f32 ldigo (projection ldio) -> s8
 * `any` with it, and the primitive is created with it. The reorders f32 ->
 * s8 plain ldigo / ldio are recorded too (`*_s8` tensors) where oneDNN has
 * them (3.13 has not: it refuses the RNN attributes on plain reorders).
 *
 * Configurations (benchdnn's names: src_iter, src_layer, dst_iter,
 * dst_layer): u8u8u8u8, u8u8u8f32, f32u8f32f32, f32u8f32u8, cycled over the
 * cases; and the s8-activation twins (s8s8s8s8, s8s8s8f32, f32s8f32f32,
 * f32s8f32s8, data shift 0) once per cell and configuration. Cases: cell (lstm, lstmp, gru) x direction x L in {1, 2}, T = 5, and
 * every configuration at T = 1 (decoder step) left2right L = 1; N = 3, DHC =
 * 6, DIC = 6 (LSTMP: 5), SLC = 7 (L = 1) or DIC, src_iter (and src_iter_c)
 * given, dst_iter (and dst_iter_c) requested. Combinations oneDNN rejects are
 * reported on stderr and skipped.
 *
 * File format: tests/goldens/README.md, with `cell lstm|gru`, int8 data as
 * tensors: `int8_config` (3 values: src/dst_iter f32, dst_layer f32, s8
 * activations; 1 = yes), `data_qparams` (scale, shift), `weights_scales`,
 * `projection_scales` (their count gives the mask), `src_layer_q` (the
 * quantized src_layer); inputs as f32 values, outputs as oneDNN wrote them
 * (u8/s8 as integers).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oneapi/dnnl/dnnl.h"

#include "golden_common.h"

typedef enum { C_LSTM, C_LSTMP, C_GRU } cell_t;
static const char *cell_short[] = {"lstm", "lstmp", "gru"};

static const float DATA_SCALE = 40.0f;

/* A memory of any data type with a plain tag. */
static dnnl_memory_t new_mem(dnnl_engine_t eng, int nd, const int64_t *dims,
        dnnl_data_type_t dt, dnnl_format_tag_t tag, dnnl_memory_desc_t *md_out) {
    dnnl_memory_desc_t md = NULL;
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, nd, dims, dt, tag));
    CHECK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    if (md_out) *md_out = md;
    else CHECK(dnnl_memory_desc_destroy(md));
    return m;
}

static void read_as_f32(dnnl_memory_t m, dnnl_data_type_t dt, float *dst, size_t n) {
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    for (size_t i = 0; i < n; ++i)
        dst[i] = dt == dnnl_u8 ? (float)((uint8_t *)p)[i]
                : dt == dnnl_s8 ? (float)((int8_t *)p)[i] : ((float *)p)[i];
    CHECK(dnnl_memory_unmap_data(m, p));
}

/* Reorders `from` into `to` with `attr`; returns 0 when oneDNN has no such
 * reorder (only where `optional`), else 1. */
static int reorder_opt(dnnl_engine_t eng, dnnl_stream_t strm, dnnl_memory_t from,
        dnnl_memory_t to, const_dnnl_primitive_attr_t attr, int optional) {
    const_dnnl_memory_desc_t s = NULL, d = NULL;
    CHECK(dnnl_memory_get_memory_desc(from, &s));
    CHECK(dnnl_memory_get_memory_desc(to, &d));
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t r = NULL;
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&rpd, s, eng, d, eng, attr);
    if (st == dnnl_unimplemented && optional) return 0;
    CHECK(st);
    CHECK(dnnl_primitive_create(&r, rpd));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    CHECK(dnnl_primitive_execute(r, strm, 2, args));
    CHECK(dnnl_stream_wait(strm));
    CHECK(dnnl_primitive_destroy(r));
    CHECK(dnnl_primitive_desc_destroy(rpd));
    return 1;
}

static void reorder(dnnl_engine_t eng, dnnl_stream_t strm, dnnl_memory_t from,
        dnnl_memory_t to, const_dnnl_primitive_attr_t attr) {
    reorder_opt(eng, strm, from, to, attr, 0);
}

/* A plain tensor of logical dims for the file. */
typedef struct {
    const char *name;
    int nd;
    int64_t dims[5];
    size_t n;
    float *v;
} host_t;

static void host_init(host_t *h, const char *name, int nd, const int64_t *dims) {
    h->name = name;
    h->nd = nd;
    h->n = 1;
    for (int k = 0; k < nd; ++k) {
        h->dims[k] = dims[k];
        h->n *= (size_t)dims[k];
    }
    h->v = (float *)xmalloc(h->n * sizeof(float));
}

static void host_write(FILE *f, const host_t *h) {
    tensor_t t;
    memset(&t, 0, sizeof(t));
    t.name = h->name;
    t.ndims = h->nd;
    for (int k = 0; k < h->nd; ++k) t.dims[k] = h->dims[k];
    t.nelems = h->n;
    write_tensor(f, &t, h->v);
}

enum { H_SL, H_SI, H_SIC, H_WL, H_WI, H_WP, H_B, H_WS, H_PS, H_DL, H_DI, H_DIC,
    H_WL8, H_WI8, H_WP8, H_SL8, H_CFG, H_QP, H_COUNT };

static void run_case(cell_t cell, dnnl_rnn_direction_t dir, int L, int T, int cfg,
        int per_channel, dnnl_engine_t eng, dnnl_stream_t strm, const char *out_dir,
        const char *version) {
    const int s8 = cfg >= 4, iter_f32 = cfg % 4 >= 2, dst_f32 = cfg % 4 == 1 || cfg % 4 == 2;
    const dnnl_data_type_t act = s8 ? dnnl_s8 : dnnl_u8;
    const dnnl_data_type_t iter_dt = iter_f32 ? dnnl_f32 : act, dl_dt = dst_f32 ? dnnl_f32 : act;
    const float DATA_SHIFT = s8 ? 0.0f : 100.0f;
    static const char *cfg_name[] = {"u8u8u8u8", "u8u8u8f32", "f32u8f32f32", "f32u8f32u8",
            "s8s8s8s8", "s8s8s8f32", "f32s8f32f32", "f32s8f32s8"};
    const int64_t N = 3, DHC = 6, DIC = cell == C_LSTMP ? 5 : 6, SIC = DIC;
    const int64_t SLC = L == 1 ? 7 : DIC;
    const int64_t G = cell == C_GRU ? 3 : 4;
    const int64_t D = (dir == dnnl_bidirectional_concat || dir == dnnl_bidirectional_sum) ? 2 : 1;
    const int64_t DLC = dir == dnnl_bidirectional_concat ? 2 * DIC : DIC;
    const int lstm = cell != C_GRU, proj = cell == C_LSTMP;

    char name[128];
    snprintf(name, sizeof(name), "%s_%s_l%d_t%d_%s_%s", cell_short[cell],
            dir == dnnl_unidirectional_left2right ? "l2r"
            : dir == dnnl_unidirectional_right2left ? "r2l"
            : dir == dnnl_bidirectional_concat ? "bicat" : "bisum",
            L, T, cfg_name[cfg], per_channel ? "perchannel" : "common");

    const int64_t d_sl[] = {T, N, SLC}, d_si[] = {L, D, N, SIC}, d_sc[] = {L, D, N, DHC},
                  d_wl[] = {L, D, SLC, G, DHC}, d_wi[] = {L, D, SIC, G, DHC},
                  d_wp[] = {L, D, DHC, DIC}, d_b[] = {L, D, G, DHC}, d_dl[] = {T, N, DLC},
                  d_di[] = {L, D, N, DIC};
    const int64_t nws = per_channel ? G * DHC : 1, nps = per_channel ? DIC : 1;
    const int64_t d_ws[] = {nws}, d_ps[] = {nps}, d_cfg[] = {3}, d_qp[] = {2};
    host_t h[H_COUNT];
    memset(h, 0, sizeof(h));
    host_init(&h[H_SL], "src_layer", 3, d_sl);
    host_init(&h[H_SI], "src_iter", 4, d_si);
    host_init(&h[H_SIC], "src_iter_c", 4, d_sc);
    host_init(&h[H_WL], "weights_layer", 5, d_wl);
    host_init(&h[H_WI], "weights_iter", 5, d_wi);
    host_init(&h[H_WP], "weights_projection", 4, d_wp);
    host_init(&h[H_B], "bias", 4, d_b);
    host_init(&h[H_WS], "weights_scales", 1, d_ws);
    host_init(&h[H_PS], "projection_scales", 1, d_ps);
    host_init(&h[H_DL], "dst_layer", 3, d_dl);
    host_init(&h[H_DI], "dst_iter", 4, d_di);
    host_init(&h[H_DIC], "dst_iter_c", 4, d_sc);
    host_init(&h[H_WL8], "weights_layer_s8", 5, d_wl);
    host_init(&h[H_WI8], "weights_iter_s8", 5, d_wi);
    host_init(&h[H_WP8], "weights_projection_s8", 4, d_wp);
    host_init(&h[H_SL8], "src_layer_q", 3, d_sl);
    host_init(&h[H_CFG], "int8_config", 1, d_cfg);
    host_init(&h[H_QP], "data_qparams", 1, d_qp);

    /* inputs: data around 0.5 (quantized mostly inside [0, 255]) */
    for (size_t i = 0; i < h[H_SL].n; ++i) h[H_SL].v[i] = gen_value(1, (uint32_t)i, 4.0f) + 0.5f;
    for (size_t i = 0; i < h[H_SI].n; ++i) h[H_SI].v[i] = gen_value(2, (uint32_t)i, 4.0f) + 0.5f;
    gen_fill(h[H_SIC].v, h[H_SIC].n, 3, 2.0f);
    gen_fill(h[H_WL].v, h[H_WL].n, 4, 0.9f);
    gen_fill(h[H_WI].v, h[H_WI].n, 5, 0.9f);
    gen_fill(h[H_WP].v, h[H_WP].n, 8, 0.9f);
    gen_fill(h[H_B].v, h[H_B].n, 6, 1.0f);
    for (int64_t k = 0; k < nws; ++k) h[H_WS].v[k] = per_channel ? 200.0f + 3.0f * (float)k : 250.0f;
    for (int64_t k = 0; k < nps; ++k) h[H_PS].v[k] = per_channel ? 230.0f + 5.0f * (float)k : 240.0f;
    h[H_CFG].v[0] = (float)iter_f32;
    h[H_CFG].v[1] = (float)dst_f32;
    h[H_CFG].v[2] = (float)s8;
    h[H_QP].v[0] = DATA_SCALE;
    h[H_QP].v[1] = DATA_SHIFT;

    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_rnn_data_qparams(attr, DATA_SCALE, DATA_SHIFT));
    CHECK(dnnl_primitive_attr_set_rnn_weights_qparams(attr, nws, per_channel ? 24 : 0, h[H_WS].v));
    if (proj)
        CHECK(dnnl_primitive_attr_set_rnn_weights_projection_qparams(
                attr, nps, per_channel ? 8 : 0, h[H_PS].v));

    /* descriptors of the primitive */
    dnnl_memory_desc_t sl_md, si_md, sc_md, wl_md, wi_md, wp_md = NULL, b_md, dl_md, di_md, dc_md;
    CHECK(dnnl_memory_desc_create_with_tag(&sl_md, 3, d_sl, act, dnnl_tnc));
    CHECK(dnnl_memory_desc_create_with_tag(&si_md, 4, d_si, iter_dt, dnnl_ldnc));
    CHECK(dnnl_memory_desc_create_with_tag(&sc_md, 4, d_sc, dnnl_f32, dnnl_ldnc));
    CHECK(dnnl_memory_desc_create_with_tag(&wl_md, 5, d_wl, dnnl_s8, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&wi_md, 5, d_wi, dnnl_s8, dnnl_format_tag_any));
    if (proj) CHECK(dnnl_memory_desc_create_with_tag(&wp_md, 4, d_wp, dnnl_s8, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&b_md, 4, d_b, dnnl_f32, dnnl_ldgo));
    CHECK(dnnl_memory_desc_create_with_tag(&dl_md, 3, d_dl, dl_dt, dnnl_tnc));
    CHECK(dnnl_memory_desc_create_with_tag(&di_md, 4, d_di, iter_dt, dnnl_ldnc));
    CHECK(dnnl_memory_desc_create_with_tag(&dc_md, 4, d_sc, dnnl_f32, dnnl_ldnc));

    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = lstm
            ? dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, dir,
                    sl_md, si_md, sc_md, wl_md, wi_md, NULL, wp_md, b_md, dl_md, di_md, dc_md,
                    dnnl_rnn_flags_undef, attr)
            : dnnl_gru_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, dir,
                    sl_md, si_md, wl_md, wi_md, b_md, dl_md, di_md, dnnl_rnn_flags_undef, attr);
    if (st != dnnl_success) {
        fprintf(stderr, "%s: not accepted: status %d (%s)\n", name, (int)st, status_str(st));
    } else {
        /* f32 sources */
        dnnl_memory_t f_sl = new_mem(eng, 3, d_sl, dnnl_f32, dnnl_tnc, NULL);
        dnnl_memory_t f_si = new_mem(eng, 4, d_si, dnnl_f32, dnnl_ldnc, NULL);
        dnnl_memory_t f_wl = new_mem(eng, 5, d_wl, dnnl_f32, dnnl_ldigo, NULL);
        dnnl_memory_t f_wi = new_mem(eng, 5, d_wi, dnnl_f32, dnnl_ldigo, NULL);
        dnnl_memory_t f_wp = new_mem(eng, 4, d_wp, dnnl_f32, dnnl_ldio, NULL);
        mem_write(f_sl, h[H_SL].v, h[H_SL].n);
        mem_write(f_si, h[H_SI].v, h[H_SI].n);
        mem_write(f_wl, h[H_WL].v, h[H_WL].n);
        mem_write(f_wi, h[H_WI].v, h[H_WI].n);
        mem_write(f_wp, h[H_WP].v, h[H_WP].n);
        /* primitive memories */
        dnnl_memory_t sl, si, sc, wl, wi, wp = NULL, b, dl, di, dc;
        CHECK(dnnl_memory_create(&sl, sl_md, eng, DNNL_MEMORY_ALLOCATE));
        CHECK(dnnl_memory_create(&si, si_md, eng, DNNL_MEMORY_ALLOCATE));
        CHECK(dnnl_memory_create(&sc, sc_md, eng, DNNL_MEMORY_ALLOCATE));
        CHECK(dnnl_memory_create(&wl, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md,
                DNNL_ARG_WEIGHTS_LAYER), eng, DNNL_MEMORY_ALLOCATE));
        CHECK(dnnl_memory_create(&wi, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md,
                DNNL_ARG_WEIGHTS_ITER), eng, DNNL_MEMORY_ALLOCATE));
        if (proj)
            CHECK(dnnl_memory_create(&wp, dnnl_primitive_desc_query_md(pd,
                    dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_PROJECTION), eng,
                    DNNL_MEMORY_ALLOCATE));
        CHECK(dnnl_memory_create(&b, b_md, eng, DNNL_MEMORY_ALLOCATE));
        CHECK(dnnl_memory_create(&dl, dl_md, eng, DNNL_MEMORY_ALLOCATE));
        CHECK(dnnl_memory_create(&di, di_md, eng, DNNL_MEMORY_ALLOCATE));
        CHECK(dnnl_memory_create(&dc, dc_md, eng, DNNL_MEMORY_ALLOCATE));

        reorder(eng, strm, f_sl, sl, attr);
        if (iter_f32) mem_write(si, h[H_SI].v, h[H_SI].n);
        else reorder(eng, strm, f_si, si, attr);
        mem_write(sc, h[H_SIC].v, h[H_SIC].n);
        reorder(eng, strm, f_wl, wl, attr);
        reorder(eng, strm, f_wi, wi, attr);
        if (proj) reorder(eng, strm, f_wp, wp, attr);
        mem_write(b, h[H_B].v, h[H_B].n);

        dnnl_exec_arg_t args[12];
        int na = 0;
#define ARG(a, m) do { args[na].arg = (a); args[na].memory = (m); ++na; } while (0)
        ARG(DNNL_ARG_SRC_LAYER, sl);
        ARG(DNNL_ARG_SRC_ITER, si);
        ARG(DNNL_ARG_WEIGHTS_LAYER, wl);
        ARG(DNNL_ARG_WEIGHTS_ITER, wi);
        ARG(DNNL_ARG_BIAS, b);
        ARG(DNNL_ARG_DST_LAYER, dl);
        ARG(DNNL_ARG_DST_ITER, di);
        if (lstm) {
            ARG(DNNL_ARG_SRC_ITER_C, sc);
            ARG(DNNL_ARG_DST_ITER_C, dc);
        }
        if (proj) ARG(DNNL_ARG_WEIGHTS_PROJECTION, wp);
#undef ARG
        dnnl_primitive_t prim = NULL;
        CHECK(dnnl_primitive_create(&prim, pd));
        CHECK(dnnl_primitive_execute(prim, strm, na, args));
        CHECK(dnnl_stream_wait(strm));
        CHECK(dnnl_primitive_destroy(prim));
        read_as_f32(dl, dl_dt, h[H_DL].v, h[H_DL].n);
        read_as_f32(di, iter_dt, h[H_DI].v, h[H_DI].n);
        read_as_f32(dc, dnnl_f32, h[H_DIC].v, h[H_DIC].n);
        read_as_f32(sl, act, h[H_SL8].v, h[H_SL8].n);

        /* the plain s8 weights the reorders make */
        dnnl_memory_t p_wl = new_mem(eng, 5, d_wl, dnnl_s8, dnnl_ldigo, NULL);
        dnnl_memory_t p_wi = new_mem(eng, 5, d_wi, dnnl_s8, dnnl_ldigo, NULL);
        dnnl_memory_t p_wp = new_mem(eng, 4, d_wp, dnnl_s8, dnnl_ldio, NULL);
        int plain_s8 = reorder_opt(eng, strm, f_wl, p_wl, attr, 1)
                && reorder_opt(eng, strm, f_wi, p_wi, attr, 1)
                && (!proj || reorder_opt(eng, strm, f_wp, p_wp, attr, 1));
        if (plain_s8) {
            read_as_f32(p_wl, dnnl_s8, h[H_WL8].v, h[H_WL8].n);
            read_as_f32(p_wi, dnnl_s8, h[H_WI8].v, h[H_WI8].n);
            if (proj) read_as_f32(p_wp, dnnl_s8, h[H_WP8].v, h[H_WP8].n);
        }

        char path[512];
        snprintf(path, sizeof(path), "%s/int8", out_dir);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/int8/%s.txt", out_dir, name);
        FILE *f = fopen(path, "w");
        if (!f) FAIL("cannot open %s", path);
        fprintf(f, "# generated by tools/goldens/gen_int8_goldens.c against oneDNN %s\n", version);
        fprintf(f, "case %s\ncell %s\nprop forward_inference\ndirection %s\n", name,
                lstm ? "lstm" : "gru", dir_name(dir));
        fprintf(f, "dims L=%d D=%lld T=%d N=%lld SLC=%lld SIC=%lld DHC=%lld DIC=%lld G=%lld\n",
                L, (long long)D, T, (long long)N, (long long)SLC, (long long)SIC,
                (long long)DHC, (long long)DIC, (long long)G);
        for (int k = 0; k < H_COUNT; ++k) {
            if (!lstm && (k == H_SIC || k == H_DIC)) continue;
            if (!proj && (k == H_WP || k == H_PS || k == H_WP8)) continue;
            if (!plain_s8 && (k == H_WL8 || k == H_WI8 || k == H_WP8)) continue;
            host_write(f, &h[k]);
        }
        fprintf(f, "end\n");
        if (fclose(f) != 0) FAIL("error writing %s", path);
        fprintf(stderr, "%s: wrote %s\n", name, path);

        dnnl_memory_t all[] = {f_sl, f_si, f_wl, f_wi, f_wp, sl, si, sc, wl, wi, wp, b, dl,
                di, dc, p_wl, p_wi, p_wp};
        for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); ++k)
            if (all[k]) CHECK(dnnl_memory_destroy(all[k]));
        CHECK(dnnl_primitive_desc_destroy(pd));
    }
    dnnl_memory_desc_t mds[] = {sl_md, si_md, sc_md, wl_md, wi_md, wp_md, b_md, dl_md, di_md, dc_md};
    for (size_t k = 0; k < sizeof(mds) / sizeof(mds[0]); ++k)
        if (mds[k]) CHECK(dnnl_memory_desc_destroy(mds[k]));
    CHECK(dnnl_primitive_attr_destroy(attr));
    for (int k = 0; k < H_COUNT; ++k) free(h[k].v);
}

int main(int argc, char **argv) {
    char version[64];
    dnnl_engine_t eng = NULL;
    dnnl_stream_t strm = NULL;
    golden_setup(argc, argv, version, sizeof(version), &eng, &strm);
    const dnnl_rnn_direction_t dirs[] = {dnnl_unidirectional_left2right,
            dnnl_unidirectional_right2left, dnnl_bidirectional_concat, dnnl_bidirectional_sum};
    int k = 0;
    for (int cell = C_LSTM; cell <= C_GRU; ++cell)
        for (int d = 0; d < 4; ++d)
            for (int L = 1; L <= 2; ++L, ++k)
                run_case((cell_t)cell, dirs[d], L, 5, k % 4, (k / 4) % 2, eng, strm, argv[1],
                        version);
    for (int cell = C_LSTM; cell <= C_GRU; ++cell)
        for (int cfg = 0; cfg < 4; ++cfg)
            run_case((cell_t)cell, dirs[0], 1, 1, cfg, cfg % 2, eng, strm, argv[1], version);
    /* s8 activations (shift 0): each configuration once per cell */
    for (int cell = C_LSTM; cell <= C_GRU; ++cell)
        for (int cfg = 4; cfg < 8; ++cfg)
            run_case((cell_t)cell, dirs[(cfg + cell) % 4], 1 + cfg % 2, cfg == 7 ? 1 : 5, cfg,
                    (cfg + cell) % 2, eng, strm, argv[1], version);
    CHECK(dnnl_stream_destroy(strm));
    CHECK(dnnl_engine_destroy(eng));
    return 0;
}
