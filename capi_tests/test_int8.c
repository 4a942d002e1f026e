/*
 * test_int8.c - int8 RNN through the C API, with the statuses measured on the
 * real oneDNN 3.13.2 and 3.2.0:
 *   - the RNN qparams setters: a negative mask, a count of 0 or NULL scales
 *     are invalid_arguments; the count is not checked against the mask;
 *   - pd creation: LSTM with u8 / s8 activations (shift 0 for s8) and GRU
 *     with u8 in forward inference are created; training, LBR-GRU, the
 *     vanilla RNN, peephole, f32 weights with u8 data, u8 src_iter with f32
 *     dst_iter, s8 bias, u8 c-states, s8 dst_layer with u8 src_layer, and
 *     qparams on an f32 primitive are unimplemented;
 *   - an LSTM u8u8u8u8 run the way oneDNN's int8 example runs it (f32 data
 *     and weights reordered with the attribute, weights into `any`): its u8
 *     outputs equal those oneDNN 3.13.2 and 3.2.0 print (build with
 *     -DPRINT_INT8_OUTPUTS to print them), and those of the same run with the
 *     data quantized by hand (round half to even, saturated).
 */
#include <stdint.h>

#include "check.h"

enum { L = 1, D = 1, T = 3, N = 2, C = 8 };

/* The u8 outputs of lstm_u8() on oneDNN 3.13.2 and 3.2.0. */
static const uint8_t onednn_dst_layer[T * N * C] = {
    87, 105, 90, 105, 90, 102, 100, 99, 103, 101, 99, 109, 103, 99, 93, 103,
    95, 110, 104, 105, 102, 92, 103, 87, 105, 97, 104, 105, 105, 91, 99, 95,
    103, 98, 103, 107, 104, 96, 103, 98, 103, 93, 102, 113, 106, 105, 94, 103};
static const uint8_t onednn_dst_iter[L * D * N * C] = {
    103, 98, 103, 107, 104, 96, 103, 98, 103, 93, 102, 113, 106, 105, 94, 103};

static dnnl_memory_desc_t md(int nd, const dnnl_dims_t dims, dnnl_data_type_t dt,
        dnnl_format_tag_t tag) {
    dnnl_memory_desc_t m = NULL;
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&m, nd, dims, dt, tag));
    return m;
}

typedef struct {
    const char *name;
    int cell; /* 0 LSTM, 1 GRU, 2 LBR-GRU, 3 vanilla RNN */
    dnnl_prop_kind_t prop;
    dnnl_data_type_t sl, si, w, b, dl, di, c;
    int peephole;
    dnnl_status_t want;
} creation_t;

static void creation(dnnl_engine_t eng) {
    dnnl_primitive_attr_t attr = NULL;
    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
    REQUIRE_OK(dnnl_primitive_attr_set_rnn_data_qparams(attr, 10.f, 0.f));
    const dnnl_data_type_t u8 = dnnl_u8, s8 = dnnl_s8, f32 = dnnl_f32;
    const creation_t cases[] = {
        {"lstm u8u8u8u8", 0, dnnl_forward_inference, u8, u8, s8, f32, u8, u8, f32, 0, dnnl_success},
        {"lstm s8s8s8s8", 0, dnnl_forward_inference, s8, s8, s8, f32, s8, s8, f32, 0, dnnl_success},
        {"lstm f32s8f32f32", 0, dnnl_forward_inference, s8, f32, s8, f32, f32, f32, f32, 0, dnnl_success},
        {"gru u8u8u8f32", 1, dnnl_forward_inference, u8, u8, s8, f32, f32, u8, f32, 0, dnnl_success},
        {"lstm u8 training", 0, dnnl_forward_training, u8, u8, s8, f32, u8, u8, f32, 0, dnnl_unimplemented},
        {"gru u8 training", 1, dnnl_forward_training, u8, u8, s8, f32, u8, u8, f32, 0, dnnl_unimplemented},
        {"lbr_gru u8", 2, dnnl_forward_inference, u8, u8, s8, f32, u8, u8, f32, 0, dnnl_unimplemented},
        {"rnn u8", 3, dnnl_forward_inference, u8, u8, s8, f32, u8, u8, f32, 0, dnnl_unimplemented},
        {"lstm u8 peephole", 0, dnnl_forward_inference, u8, u8, s8, f32, u8, u8, f32, 1, dnnl_unimplemented},
        {"lstm u8 f32 weights", 0, dnnl_forward_inference, u8, u8, f32, f32, u8, u8, f32, 0, dnnl_unimplemented},
        {"lstm u8 src_iter, f32 dst_iter", 0, dnnl_forward_inference, u8, u8, s8, f32, u8, f32, f32, 0, dnnl_unimplemented},
        {"lstm u8 s8 bias", 0, dnnl_forward_inference, u8, u8, s8, s8, u8, u8, f32, 0, dnnl_unimplemented},
        {"lstm u8 u8 c-state", 0, dnnl_forward_inference, u8, u8, s8, f32, u8, u8, u8, 0, dnnl_unimplemented},
        {"lstm u8 src, s8 dst", 0, dnnl_forward_inference, u8, u8, s8, f32, s8, u8, f32, 0, dnnl_unimplemented},
        {"lstm f32 with qparams", 0, dnnl_forward_inference, f32, f32, f32, f32, f32, f32, f32, 0, dnnl_unimplemented},
    };
    const dnnl_dims_t dsl = {T, N, C}, dst = {L, D, N, C}, dw4 = {L, D, C, 4, C},
                      dw3 = {L, D, C, 3, C}, dw1 = {L, D, C, 1, C}, db4 = {L, D, 4, C},
                      db3 = {L, D, 3, C}, db1 = {L, D, 1, C}, dp = {L, D, 3, C};
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k) {
        const creation_t *c = &cases[k];
        const int64_t *dw = c->cell == 0 ? dw4 : c->cell == 3 ? dw1 : dw3;
        const int64_t *db = c->cell == 0 || c->cell == 2 ? db4 : c->cell == 3 ? db1 : db3;
        dnnl_memory_desc_t sl = md(3, dsl, c->sl, dnnl_tnc), si = md(4, dst, c->si, dnnl_ldnc),
                           sc = md(4, dst, c->c, dnnl_ldnc),
                           wl = md(5, dw, c->w, dnnl_format_tag_any),
                           wi = md(5, dw, c->w, dnnl_format_tag_any),
                           b = md(4, db, c->b, dnnl_ldgo), dl = md(3, dsl, c->dl, dnnl_tnc),
                           di = md(4, dst, c->di, dnnl_ldnc), pp = md(4, dp, f32, dnnl_ldgo);
        dnnl_primitive_desc_t pd = NULL;
        const dnnl_rnn_direction_t l2r = dnnl_unidirectional_left2right;
        dnnl_status_t s;
        switch (c->cell) {
            case 0:
                s = dnnl_lstm_forward_primitive_desc_create(&pd, eng, c->prop, l2r, sl, si, sc,
                        wl, wi, c->peephole ? pp : NULL, NULL, b, dl, di, sc,
                        dnnl_rnn_flags_undef, attr);
                break;
            case 1:
                s = dnnl_gru_forward_primitive_desc_create(&pd, eng, c->prop, l2r, sl, si, wl,
                        wi, b, dl, di, dnnl_rnn_flags_undef, attr);
                break;
            case 2:
                s = dnnl_lbr_gru_forward_primitive_desc_create(&pd, eng, c->prop, l2r, sl, si,
                        wl, wi, b, dl, di, dnnl_rnn_flags_undef, attr);
                break;
            default:
                s = dnnl_vanilla_rnn_forward_primitive_desc_create(&pd, eng, c->prop,
                        dnnl_eltwise_tanh, l2r, sl, si, wl, wi, b, dl, di,
                        dnnl_rnn_flags_undef, 0.f, 0.f, attr);
        }
        CHECK(s == c->want, "%s: status %d (%s), expected %d (%s)", c->name, (int)s,
                dnnl_status2str(s), (int)c->want, dnnl_status2str(c->want));
        if (pd) dnnl_primitive_desc_destroy(pd);
        dnnl_memory_desc_t all[] = {sl, si, sc, wl, wi, b, dl, di, pp};
        for (size_t j = 0; j < sizeof(all) / sizeof(all[0]); ++j) dnnl_memory_desc_destroy(all[j]);
    }
    dnnl_primitive_attr_destroy(attr);
}

static void setters(void) {
    dnnl_primitive_attr_t a = NULL;
    REQUIRE_OK(dnnl_primitive_attr_create(&a));
    const float sc[4] = {1, 2, 3, 4};
    CHECK_STATUS(dnnl_primitive_attr_set_rnn_weights_qparams(a, 0, 0, sc), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_primitive_attr_set_rnn_weights_qparams(a, 1, 0, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_primitive_attr_set_rnn_weights_qparams(a, 1, -1, sc), dnnl_invalid_arguments);
    CHECK_OK(dnnl_primitive_attr_set_rnn_weights_qparams(a, 2, 0, sc));
    CHECK_OK(dnnl_primitive_attr_set_rnn_weights_qparams(a, 1, 24, sc));
    CHECK_OK(dnnl_primitive_attr_set_rnn_weights_projection_qparams(a, 4, 8, sc));
    dnnl_dim_t count = 0;
    int mask = 0;
    const float *s = NULL;
    CHECK_OK(dnnl_primitive_attr_get_rnn_weights_projection_qparams(a, &count, &mask, &s));
    CHECK(count == 4 && mask == 8 && s && s != sc && s[3] == 4.f, "projection qparams read back");
    /* One scale is kept as mask 0 whatever the mask given. */
    CHECK_OK(dnnl_primitive_attr_get_rnn_weights_qparams(a, NULL, &mask, &s));
    CHECK(mask == 0 && s[0] == 1.f, "weights qparams read back");
    CHECK_OK(dnnl_primitive_attr_set_rnn_weights_qparams(a, 3, 24, sc));
    CHECK_OK(dnnl_primitive_attr_get_rnn_weights_qparams(a, &count, &mask, &s));
    CHECK(count == 3 && mask == 24 && s[2] == 3.f, "per-channel weights qparams read back");
    dnnl_primitive_attr_destroy(a);
}

/* Runs a reorder of `from` into `to` with `attr`. */
static void reorder(dnnl_engine_t eng, dnnl_stream_t strm, dnnl_memory_t from, dnnl_memory_t to,
        const_dnnl_primitive_attr_t attr) {
    const_dnnl_memory_desc_t s = NULL, d = NULL;
    REQUIRE_OK(dnnl_memory_get_memory_desc(from, &s));
    REQUIRE_OK(dnnl_memory_get_memory_desc(to, &d));
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t r = NULL;
    REQUIRE_OK(dnnl_reorder_primitive_desc_create(&pd, s, eng, d, eng, attr));
    REQUIRE_OK(dnnl_primitive_create(&r, pd));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    REQUIRE_OK(dnnl_primitive_execute(r, strm, 2, args));
    REQUIRE_OK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(pd);
}

static void *handle(dnnl_memory_t m) {
    void *p = NULL;
    REQUIRE_OK(dnnl_memory_get_data_handle(m, &p));
    return p;
}

/* One LSTM u8u8u8u8 pass; `by_reorder`: src_layer / src_iter quantized by
 * reorders with the attribute, else by hand. Writes dst_layer and dst_iter. */
static void lstm_u8(dnnl_engine_t eng, dnnl_stream_t strm, int by_reorder, uint8_t *dl_out,
        uint8_t *di_out) {
    const float scale = 40.f, shift = 100.f, wscale = 120.f;
    dnnl_primitive_attr_t attr = NULL;
    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
    REQUIRE_OK(dnnl_primitive_attr_set_rnn_data_qparams(attr, scale, shift));
    REQUIRE_OK(dnnl_primitive_attr_set_rnn_weights_qparams(attr, 1, 0, &wscale));
    const dnnl_dims_t dsl = {T, N, C}, dst = {L, D, N, C}, dw = {L, D, C, 4, C}, db = {L, D, 4, C};
    dnnl_memory_desc_t sl = md(3, dsl, dnnl_u8, dnnl_tnc), si = md(4, dst, dnnl_u8, dnnl_ldnc),
                       sc = md(4, dst, dnnl_f32, dnnl_ldnc),
                       wany = md(5, dw, dnnl_s8, dnnl_format_tag_any),
                       b = md(4, db, dnnl_f32, dnnl_ldgo);
    dnnl_primitive_desc_t pd = NULL;
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_unidirectional_left2right, sl, si, sc, wany, wany, NULL, NULL, b, sl, si, sc,
            dnnl_rnn_flags_undef, attr));
    dnnl_memory_t f_sl, f_si, f_w, m_sl, m_si, m_sc, m_wl, m_wi, m_b, m_dl, m_di, m_dc;
    dnnl_memory_desc_t f_sl_md = md(3, dsl, dnnl_f32, dnnl_tnc),
                       f_si_md = md(4, dst, dnnl_f32, dnnl_ldnc),
                       f_w_md = md(5, dw, dnnl_f32, dnnl_ldigo);
    REQUIRE_OK(dnnl_memory_create(&f_sl, f_sl_md, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&f_si, f_si_md, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&f_w, f_w_md, eng, DNNL_MEMORY_ALLOCATE));
    const_dnnl_memory_desc_t want = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md,
            DNNL_ARG_WEIGHTS_LAYER);
    REQUIRE_OK(dnnl_memory_create(&m_wl, want, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&m_wi, want, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&m_sl, sl, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&m_si, si, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&m_sc, sc, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&m_b, b, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&m_dl, sl, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&m_di, si, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&m_dc, sc, eng, DNNL_MEMORY_ALLOCATE));
    float *x = handle(f_sl), *h = handle(f_si), *w = handle(f_w), *bias = handle(m_b),
          *c0 = handle(m_sc);
    for (int i = 0; i < T * N * C; ++i) x[i] = (float)((i * 37) % 23) / 10.f - 1.f;
    for (int i = 0; i < L * D * N * C; ++i) h[i] = (float)((i * 11) % 17) / 8.f - 1.f;
    for (int i = 0; i < L * D * N * C; ++i) c0[i] = (float)((i * 5) % 7) / 7.f - 0.5f;
    for (int i = 0; i < L * D * C * 4 * C; ++i) w[i] = (float)((i * 13) % 29) / 29.f - 0.5f;
    for (int i = 0; i < L * D * 4 * C; ++i) bias[i] = (float)(i % 5) / 10.f - 0.2f;
    reorder(eng, strm, f_w, m_wl, attr);
    reorder(eng, strm, f_w, m_wi, attr);
    if (by_reorder) {
        reorder(eng, strm, f_sl, m_sl, attr);
        reorder(eng, strm, f_si, m_si, attr);
    } else {
        uint8_t *q = handle(m_sl), *qh = handle(m_si);
        for (int i = 0; i < T * N * C; ++i) {
            float v = nearbyintf(x[i] * scale + shift);
            q[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
        for (int i = 0; i < L * D * N * C; ++i) {
            float v = nearbyintf(h[i] * scale + shift);
            qh[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC_LAYER, m_sl}, {DNNL_ARG_SRC_ITER, m_si},
            {DNNL_ARG_SRC_ITER_C, m_sc}, {DNNL_ARG_WEIGHTS_LAYER, m_wl},
            {DNNL_ARG_WEIGHTS_ITER, m_wi}, {DNNL_ARG_BIAS, m_b}, {DNNL_ARG_DST_LAYER, m_dl},
            {DNNL_ARG_DST_ITER, m_di}, {DNNL_ARG_DST_ITER_C, m_dc}};
    dnnl_primitive_t prim = NULL;
    REQUIRE_OK(dnnl_primitive_create(&prim, pd));
    REQUIRE_OK(dnnl_primitive_execute(prim, strm, 9, args));
    REQUIRE_OK(dnnl_stream_wait(strm));
    memcpy(dl_out, handle(m_dl), T * N * C);
    memcpy(di_out, handle(m_di), L * D * N * C);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_t mems[] = {f_sl, f_si, f_w, m_sl, m_si, m_sc, m_wl, m_wi, m_b, m_dl, m_di, m_dc};
    for (size_t k = 0; k < sizeof(mems) / sizeof(mems[0]); ++k) dnnl_memory_destroy(mems[k]);
    dnnl_memory_desc_t mds[] = {sl, si, sc, wany, b, f_sl_md, f_si_md, f_w_md};
    for (size_t k = 0; k < sizeof(mds) / sizeof(mds[0]); ++k) dnnl_memory_desc_destroy(mds[k]);
    dnnl_primitive_attr_destroy(attr);
}

int main(void) {
    dnnl_engine_t eng = NULL;
    dnnl_stream_t strm = NULL;
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    setters();
    creation(eng);
    uint8_t dl[2][T * N * C], di[2][L * D * N * C];
    lstm_u8(eng, strm, 1, dl[0], di[0]);
    lstm_u8(eng, strm, 0, dl[1], di[1]);
    CHECK(memcmp(dl[0], dl[1], sizeof(dl[0])) == 0, "dst_layer: reorder vs hand quantization");
    CHECK(memcmp(di[0], di[1], sizeof(di[0])) == 0, "dst_iter: reorder vs hand quantization");
#ifdef PRINT_INT8_OUTPUTS
    for (int i = 0; i < T * N * C; ++i) printf("%d,%s", dl[0][i], (i + 1) % 16 ? " " : "\n");
    for (int i = 0; i < L * D * N * C; ++i) printf("%d,%s", di[0][i], (i + 1) % 16 ? " " : "\n");
#endif
    CHECK(memcmp(dl[0], onednn_dst_layer, sizeof(dl[0])) == 0, "dst_layer equals oneDNN's");
    CHECK(memcmp(di[0], onednn_dst_iter, sizeof(di[0])) == 0, "dst_iter equals oneDNN's");
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return check_summary();
}
