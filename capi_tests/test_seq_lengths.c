/*
 * test_seq_lengths.c - per-sample sequence lengths, an oxidnn extension
 * (oxidnn_primitive_attr_set_rnn_seq_lengths + OXIDNN_ARG_SEQ_LENGTHS).
 *
 * An LSTM with lengths {T, 0, 3, 1, T, 2} (T = 5) is checked, sample by
 * sample, against the naive C reference (lstm_ref.h) run on that sample
 * alone with T = its length: dst_layer rows (zeros past the length),
 * dst_iter and dst_iter_c. All four directions x L = 1, 2, inference and
 * training, with and without src_iter. Also: the attribute's getter/setter,
 * the lengths descriptor (exec_arg_md: s32 {N}), lengths out of 0..=T, a
 * missing lengths argument, lengths given to a primitive created without the
 * attribute (all invalid_arguments), and the input count.
 *
 * int8: an LSTM u8u8u8u8 (u8 data and states, s8 weights reordered from f32
 * into `any` with the RNN quantization attribute, f32 c-states) with the same
 * lengths, left-to-right, right-to-left (L = 1, 2) and bidirectional concat:
 * each sample's dst_layer rows, dst_iter and dst_iter_c equal those of that
 * sample run alone with T = its length (src_iter / src_iter_c for length 0),
 * its dst_layer rows past the length hold the quantized zero (the data shift).
 *
 * Built against the real oneDNN (which has no such extension) it checks
 * nothing and passes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lstm_ref.h"

#if defined(OXIDNN_H)

enum { T = 5, N = 6, SLC = 8, DHC = 8, G = 4 };
static const int32_t LENGTHS[N] = {T, 0, 3, 1, T, 2};

static dnnl_memory_desc_t md_of(int ndims, const dnnl_dim_t *dims,
        dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t d;
    memcpy(d, dims, sizeof(dnnl_dim_t) * (size_t)ndims);
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, ndims, d, dt, tag));
    return md;
}

static dnnl_memory_t mem_of(dnnl_engine_t eng, const_dnnl_memory_desc_t md,
        void *data) {
    dnnl_memory_t m = NULL;
    REQUIRE_OK(dnnl_memory_create(&m, md, eng, data));
    return m;
}

/* Rows of sample b of a [outer][N][ch] tensor, as [outer][1][ch]. */
static void rows_of(const float *v, int outer, int ch, int b, float *out) {
    int o;
    for (o = 0; o < outer; o++)
        memcpy(out + (size_t)o * ch, v + ((size_t)o * N + b) * ch,
                sizeof(float) * (size_t)ch);
}

/* The LSTM forward pd of a case, with or without lengths. */
static dnnl_primitive_desc_t make_pd(dnnl_engine_t eng, dnnl_prop_kind_t prop,
        dnnl_rnn_direction_t dir, int L, int with_src_iter, int lengths) {
    const int D = ref_num_dirs(dir);
    const int DLC = dir == dnnl_bidirectional_concat ? 2 * DHC : DHC;
    const dnnl_dim_t src[3] = {T, N, SLC}, dst[3] = {T, N, DLC};
    const dnnl_dim_t iter[4] = {L, D, N, DHC}, bias[4] = {L, D, G, DHC};
    const dnnl_dim_t wl[5] = {L, D, SLC, G, DHC}, wi[5] = {L, D, DHC, G, DHC};
    dnnl_memory_desc_t src_md = md_of(3, src, dnnl_f32, dnnl_tnc);
    dnnl_memory_desc_t dst_md = md_of(3, dst, dnnl_f32, dnnl_tnc);
    dnnl_memory_desc_t iter_md = md_of(4, iter, dnnl_f32, dnnl_ldnc);
    dnnl_memory_desc_t bias_md = md_of(4, bias, dnnl_f32, dnnl_ldgo);
    dnnl_memory_desc_t wl_md = md_of(5, wl, dnnl_f32, dnnl_ldigo);
    dnnl_memory_desc_t wi_md = md_of(5, wi, dnnl_f32, dnnl_ldigo);
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
    REQUIRE_OK(oxidnn_primitive_attr_set_rnn_seq_lengths(attr, lengths));
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, prop, dir,
            src_md, with_src_iter ? iter_md : NULL,
            with_src_iter ? iter_md : NULL, wl_md, wi_md, NULL, NULL, bias_md,
            dst_md, iter_md, iter_md, 0, attr));
    dnnl_primitive_attr_destroy(attr);
    dnnl_memory_desc_destroy(src_md);
    dnnl_memory_desc_destroy(dst_md);
    dnnl_memory_desc_destroy(iter_md);
    dnnl_memory_desc_destroy(bias_md);
    dnnl_memory_desc_destroy(wl_md);
    dnnl_memory_desc_destroy(wi_md);
    return pd;
}

static void run_case(dnnl_engine_t eng, dnnl_stream_t s, dnnl_prop_kind_t prop,
        dnnl_rnn_direction_t dir, int L, int with_src_iter) {
    const int D = ref_num_dirs(dir);
    const int DLC = dir == dnnl_bidirectional_concat ? 2 * DHC : DHC;
    const size_t n_src = (size_t)T * N * SLC, n_dst = (size_t)T * N * DLC;
    const size_t n_iter = (size_t)L * D * N * DHC;
    const size_t n_wl = (size_t)L * D * SLC * G * DHC;
    const size_t n_wi = (size_t)L * D * DHC * G * DHC;
    const size_t n_b = (size_t)L * D * G * DHC;
    float *src = malloc(n_src * 4), *si = malloc(n_iter * 4);
    float *sic = malloc(n_iter * 4), *wl = malloc(n_wl * 4);
    float *wi = malloc(n_wi * 4), *b = malloc(n_b * 4);
    float *dst = malloc(n_dst * 4), *di = malloc(n_iter * 4);
    float *dic = malloc(n_iter * 4);
    float one_src[T * SLC], one_si[4 * DHC], one_sic[4 * DHC];
    float one_dst[T * 2 * DHC], one_di[4 * DHC], one_dic[4 * DHC];
    int32_t lengths[N];
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim = NULL;
    const_dnnl_memory_desc_t md;
    dnnl_memory_t m[11];
    int args_idx[11] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER,
            DNNL_ARG_SRC_ITER_C, DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER,
            DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER,
            DNNL_ARG_DST_ITER_C, DNNL_ARG_WORKSPACE, OXIDNN_ARG_SEQ_LENGTHS};
    void *data[11];
    dnnl_exec_arg_t args[11];
    void *ws = NULL;
    int i, bb, t, ld;
    char what[128];

    REQUIRE(src && si && sic && wl && wi && b && dst && di && dic, "oom");
    ref_fill(src, n_src, 1, 2.0f);
    ref_fill(si, n_iter, 2, 2.0f);
    ref_fill(sic, n_iter, 3, 2.0f);
    ref_fill(wl, n_wl, 4, 1.0f);
    ref_fill(wi, n_wi, 5, 1.0f);
    ref_fill(b, n_b, 6, 1.0f);
    memcpy(lengths, LENGTHS, sizeof lengths);
    for (i = 0; i < (int)n_dst; i++)
        dst[i] = 12345.0f; /* must be overwritten, zeros past the lengths */

    pd = make_pd(eng, prop, dir, L, with_src_iter, 1);
    REQUIRE_OK(dnnl_primitive_create(&prim, pd));
    md = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
    if (dnnl_memory_desc_get_size(md) > 0) {
        ws = malloc(dnnl_memory_desc_get_size(md));
        REQUIRE(ws != NULL, "oom");
    }
    data[0] = src, data[1] = si, data[2] = sic, data[3] = wl, data[4] = wi;
    data[5] = b, data[6] = dst, data[7] = di, data[8] = dic, data[9] = ws;
    data[10] = lengths;
    for (i = 0; i < 11; i++) {
        md = dnnl_primitive_desc_query_md(
                pd, dnnl_query_exec_arg_md, args_idx[i]);
        REQUIRE(md != NULL, "no md for argument %d", args_idx[i]);
        m[i] = mem_of(eng, md, dnnl_memory_desc_get_size(md) ? data[i] : NULL);
        args[i].arg = args_idx[i];
        args[i].memory = m[i];
    }
    CHECK_OK(dnnl_primitive_execute(prim, s, 11, args));

    for (bb = 0; bb < N; bb++) {
        const int len = lengths[bb];
        rows_of(src, len, SLC, bb, one_src);
        rows_of(si, L * D, DHC, bb, one_si);
        rows_of(sic, L * D, DHC, bb, one_sic);
        REQUIRE(ref_lstm_forward(dir, L, len, 1, SLC, DHC, one_src,
                        with_src_iter ? one_si : NULL,
                        with_src_iter ? one_sic : NULL, wl, wi, b, one_dst,
                        one_di, one_dic)
                        == 0,
                "reference");
        for (t = 0; t < T; t++) {
            const float *got = dst + ((size_t)t * N + bb) * DLC;
            snprintf(what, sizeof what,
                    "dir %d L%d prop %d src_iter %d: dst_layer t %d sample %d "
                    "(len %d)",
                    (int)dir, L, (int)prop, with_src_iter, t, bb, len);
            if (t < len) {
                CHECK_FLOATS(got, one_dst + (size_t)t * DLC, (size_t)DLC, what);
            } else {
                static const float zeros[2 * DHC];
                CHECK_FLOATS_EXACT(got, zeros, (size_t)DLC, what);
            }
        }
        for (ld = 0; ld < L * D; ld++) {
            snprintf(what, sizeof what, "dir %d L%d: dst_iter(_c) %d sample %d",
                    (int)dir, L, ld, bb);
            CHECK_FLOATS(di + ((size_t)ld * N + bb) * DHC, one_di + ld * DHC,
                    (size_t)DHC, what);
            CHECK_FLOATS(dic + ((size_t)ld * N + bb) * DHC, one_dic + ld * DHC,
                    (size_t)DHC, what);
        }
    }

    /* Lengths out of 0..=T, and the argument missing: invalid_arguments. */
    lengths[2] = T + 1;
    CHECK_STATUS(dnnl_primitive_execute(prim, s, 11, args),
            dnnl_invalid_arguments);
    lengths[2] = -1;
    CHECK_STATUS(dnnl_primitive_execute(prim, s, 11, args),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_primitive_execute(prim, s, 10, args),
            dnnl_invalid_arguments);

    for (i = 0; i < 11; i++)
        dnnl_memory_destroy(m[i]);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    free(src), free(si), free(sic), free(wl), free(wi), free(b);
    free(dst), free(di), free(dic), free(ws);
}

/* ---- int8 ---------------------------------------------------------------- */

enum { I8_SCALE = 40, I8_SHIFT = 100 };
static const float I8_WSCALE = 120.f;

/* Runs `from` into `to` through a reorder with `attr`. */
static void reorder_with(dnnl_engine_t eng, dnnl_stream_t s, dnnl_memory_t from,
        dnnl_memory_t to, const_dnnl_primitive_attr_t attr) {
    const_dnnl_memory_desc_t a = NULL, b = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t r = NULL;
    dnnl_exec_arg_t args[2];
    REQUIRE_OK(dnnl_memory_get_memory_desc(from, &a));
    REQUIRE_OK(dnnl_memory_get_memory_desc(to, &b));
    REQUIRE_OK(dnnl_reorder_primitive_desc_create(&pd, a, eng, b, eng, attr));
    REQUIRE_OK(dnnl_primitive_create(&r, pd));
    args[0].arg = DNNL_ARG_FROM, args[0].memory = from;
    args[1].arg = DNNL_ARG_TO, args[1].memory = to;
    REQUIRE_OK(dnnl_primitive_execute(r, s, 2, args));
    REQUIRE_OK(dnnl_stream_wait(s));
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(pd);
}

/* One u8 LSTM forward inference of `t` steps and `n` samples (with `lengths`
 * when not NULL): f32 weights wl / wi ([L][D][DHC][G][DHC], ldigo) reordered
 * into the pd's s8 `any` layout, u8 src / src_iter, f32 src_iter_c and bias;
 * writes u8 dst / dst_iter and f32 dst_iter_c. */
static void run_u8(dnnl_engine_t eng, dnnl_stream_t s, dnnl_rnn_direction_t dir,
        int L, int t, int n, const int32_t *lengths, const uint8_t *src,
        const uint8_t *si, const float *sic, const float *wl, const float *wi,
        const float *b, uint8_t *dst, uint8_t *di, float *dic) {
    const int D = ref_num_dirs(dir);
    const int DLC = dir == dnnl_bidirectional_concat ? 2 * DHC : DHC;
    const dnnl_dim_t dsrc[3] = {t, n, DHC}, ddst[3] = {t, n, DLC};
    const dnnl_dim_t diter[4] = {L, D, n, DHC}, dbias[4] = {L, D, G, DHC};
    const dnnl_dim_t dw[5] = {L, D, DHC, G, DHC}, dlen[1] = {n};
    dnnl_memory_desc_t src_md = md_of(3, dsrc, dnnl_u8, dnnl_tnc);
    dnnl_memory_desc_t dst_md = md_of(3, ddst, dnnl_u8, dnnl_tnc);
    dnnl_memory_desc_t h_md = md_of(4, diter, dnnl_u8, dnnl_ldnc);
    dnnl_memory_desc_t c_md = md_of(4, diter, dnnl_f32, dnnl_ldnc);
    dnnl_memory_desc_t b_md = md_of(4, dbias, dnnl_f32, dnnl_ldgo);
    dnnl_memory_desc_t w_any = md_of(5, dw, dnnl_s8, dnnl_format_tag_any);
    dnnl_memory_desc_t w_f32 = md_of(5, dw, dnnl_f32, dnnl_ldigo);
    dnnl_memory_desc_t len_md = md_of(1, dlen, dnnl_s32, dnnl_a);
    const size_t n_h = (size_t)L * D * n * DHC;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_memory_t m[12];
    dnnl_exec_arg_t args[11];
    int i;

    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
    REQUIRE_OK(dnnl_primitive_attr_set_rnn_data_qparams(
            attr, (float)I8_SCALE, (float)I8_SHIFT));
    REQUIRE_OK(dnnl_primitive_attr_set_rnn_weights_qparams(
            attr, 1, 0, &I8_WSCALE));
    REQUIRE_OK(oxidnn_primitive_attr_set_rnn_seq_lengths(attr, lengths != NULL));
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng,
            dnnl_forward_inference, dir, src_md, h_md, c_md, w_any, w_any, NULL,
            NULL, b_md, dst_md, h_md, c_md, 0, attr));
    REQUIRE_OK(dnnl_primitive_create(&prim, pd));
    m[0] = mem_of(eng, src_md, (void *)src);
    m[1] = mem_of(eng, h_md, (void *)si);
    m[2] = mem_of(eng, c_md, (void *)sic);
    for (i = 3; i < 5; i++) {
        dnnl_memory_t f = mem_of(eng, w_f32, (void *)(i == 3 ? wl : wi));
        m[i] = mem_of(eng,
                dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md,
                        i == 3 ? DNNL_ARG_WEIGHTS_LAYER : DNNL_ARG_WEIGHTS_ITER),
                DNNL_MEMORY_ALLOCATE);
        reorder_with(eng, s, f, m[i], attr);
        dnnl_memory_destroy(f);
    }
    m[5] = mem_of(eng, b_md, (void *)b);
    m[6] = mem_of(eng, dst_md, dst);
    m[7] = mem_of(eng, h_md, di);
    m[8] = mem_of(eng, c_md, dic);
    m[9] = mem_of(eng, len_md, (void *)lengths);
    {
        const int idx[10] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER,
                DNNL_ARG_SRC_ITER_C, DNNL_ARG_WEIGHTS_LAYER,
                DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER,
                DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C, OXIDNN_ARG_SEQ_LENGTHS};
        for (i = 0; i < 10; i++)
            args[i].arg = idx[i], args[i].memory = m[i];
    }
    memset(di, 0xEE, n_h);
    CHECK_OK(dnnl_primitive_execute(prim, s, lengths ? 10 : 9, args));
    REQUIRE_OK(dnnl_stream_wait(s));
    for (i = 0; i < 10; i++)
        dnnl_memory_destroy(m[i]);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_memory_desc_destroy(src_md);
    dnnl_memory_desc_destroy(dst_md);
    dnnl_memory_desc_destroy(h_md);
    dnnl_memory_desc_destroy(c_md);
    dnnl_memory_desc_destroy(b_md);
    dnnl_memory_desc_destroy(w_any);
    dnnl_memory_desc_destroy(w_f32);
    dnnl_memory_desc_destroy(len_md);
}

/* Bytes of sample b of a [outer][N][ch] u8 tensor, as [outer][1][ch]. */
static void bytes_of(const uint8_t *v, int outer, int ch, int b, uint8_t *out) {
    int o;
    for (o = 0; o < outer; o++)
        memcpy(out + (size_t)o * ch, v + ((size_t)o * N + b) * ch, (size_t)ch);
}

static void run_int8_case(dnnl_engine_t eng, dnnl_stream_t s,
        dnnl_rnn_direction_t dir, int L) {
    const int D = ref_num_dirs(dir);
    const int DLC = dir == dnnl_bidirectional_concat ? 2 * DHC : DHC;
    const size_t n_src = (size_t)T * N * DHC, n_dst = (size_t)T * N * DLC;
    const size_t n_h = (size_t)L * D * N * DHC, n_w = (size_t)L * D * DHC * G * DHC;
    uint8_t src[T * N * DHC], si[2 * 2 * N * DHC], dst[T * N * 2 * DHC];
    uint8_t di[2 * 2 * N * DHC];
    float sic[2 * 2 * N * DHC], dic[2 * 2 * N * DHC];
    float wl[2 * 2 * DHC * G * DHC], wi[2 * 2 * DHC * G * DHC], b[2 * 2 * G * DHC];
    uint8_t one_src[T * DHC], one_si[4 * DHC], one_dst[T * 2 * DHC], one_di[4 * DHC];
    float one_sic[4 * DHC], one_dic[4 * DHC];
    int i, bb, t, ld, levels = 0;
    int seen[256] = {0};
    char what[128];

    for (i = 0; i < (int)n_src; i++)
        src[i] = (uint8_t)((i * 37 + 11) % 251);
    for (i = 0; i < (int)n_h; i++)
        si[i] = (uint8_t)((i * 53 + 7) % 241);
    ref_fill(sic, n_h, 3, 1.0f);
    ref_fill(wl, n_w, 4, 0.5f);
    ref_fill(wi, n_w, 5, 0.5f);
    ref_fill(b, (size_t)L * D * G * DHC, 6, 0.5f);
    memset(dst, 0xEE, n_dst);
    run_u8(eng, s, dir, L, T, N, LENGTHS, src, si, sic, wl, wi, b, dst, di, dic);

    for (bb = 0; bb < N; bb++) {
        const int len = LENGTHS[bb];
        bytes_of(si, L * D, DHC, bb, one_si);
        rows_of(sic, L * D, DHC, bb, one_sic);
        if (len > 0) {
            bytes_of(src, len, DHC, bb, one_src);
            run_u8(eng, s, dir, L, len, 1, NULL, one_src, one_si, one_sic, wl, wi,
                    b, one_dst, one_di, one_dic);
        } else {
            memcpy(one_di, one_si, (size_t)L * D * DHC);
            memcpy(one_dic, one_sic, sizeof(float) * (size_t)L * D * DHC);
        }
        for (t = 0; t < T; t++) {
            const uint8_t *got = dst + ((size_t)t * N + bb) * DLC;
            snprintf(what, sizeof what,
                    "int8 dir %d L%d: dst_layer t %d sample %d (len %d)",
                    (int)dir, L, t, bb, len);
            for (i = 0; i < DLC; i++) {
                const int want = t < len ? one_dst[t * DLC + i] : I8_SHIFT;
                if (!CHECK(got[i] == want, "%s [%d]: %d, want %d", what, i,
                            got[i], want))
                    break;
                if (t < len && !seen[got[i]]++)
                    levels++;
            }
        }
        for (ld = 0; ld < L * D; ld++) {
            const uint8_t *h = di + ((size_t)ld * N + bb) * DHC;
            snprintf(what, sizeof what, "int8 dir %d L%d: dst_iter_c %d sample %d",
                    (int)dir, L, ld, bb);
            CHECK(memcmp(h, one_di + ld * DHC, DHC) == 0,
                    "int8 dir %d L%d: dst_iter %d sample %d (len %d): %d..., want "
                    "%d...",
                    (int)dir, L, ld, bb, len, h[0], one_di[ld * DHC]);
            CHECK_FLOATS_EXACT(dic + ((size_t)ld * N + bb) * DHC,
                    one_dic + ld * DHC, (size_t)DHC, what);
        }
    }
    /* Real outputs: many levels, none of them only the quantized zero. */
    CHECK(levels >= 20, "int8 dir %d L%d: %d distinct dst_layer levels",
            (int)dir, L, levels);
}

int main(void) {
    static const dnnl_rnn_direction_t dirs[4] = {
            dnnl_unidirectional_left2right, dnnl_unidirectional_right2left,
            dnnl_bidirectional_concat, dnnl_bidirectional_sum};
    dnnl_engine_t eng = NULL;
    dnnl_stream_t s = NULL;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    const_dnnl_memory_desc_t md;
    dnnl_memory_t lm = NULL;
    dnnl_exec_arg_t arg;
    const dnnl_dim_t *dims = NULL;
    int v = -1, d, L, p;
    int32_t lengths[N];

    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));

    /* The attribute. */
    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
    CHECK_OK(oxidnn_primitive_attr_get_rnn_seq_lengths(attr, &v));
    CHECK(v == 0, "default %d", v);
    CHECK_OK(oxidnn_primitive_attr_set_rnn_seq_lengths(attr, 1));
    CHECK_OK(oxidnn_primitive_attr_get_rnn_seq_lengths(attr, &v));
    CHECK(v == 1, "set %d", v);
    CHECK_STATUS(oxidnn_primitive_attr_set_rnn_seq_lengths(attr, 2),
            dnnl_invalid_arguments);
    CHECK_STATUS(oxidnn_primitive_attr_set_rnn_seq_lengths(NULL, 1),
            dnnl_invalid_arguments);
    CHECK_STATUS(oxidnn_primitive_attr_get_rnn_seq_lengths(attr, NULL),
            dnnl_invalid_arguments);
    dnnl_primitive_attr_destroy(attr);

    /* The lengths descriptor: s32 {N}; one more input. */
    pd = make_pd(eng, dnnl_forward_inference, dirs[0], 1, 1, 1);
    md = dnnl_primitive_desc_query_md(
            pd, dnnl_query_exec_arg_md, OXIDNN_ARG_SEQ_LENGTHS);
    REQUIRE(md != NULL, "no lengths md");
    {
        int ndims = 0;
        dnnl_data_type_t dt = dnnl_data_type_undef;
        CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &ndims));
        CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_dims, &dims));
        CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
        CHECK(ndims == 1 && dims[0] == N && dt == dnnl_s32,
                "lengths md: ndims %d dims[0] %ld dt %d", ndims,
                (long)dims[0], (int)dt);
        CHECK(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32,
                      0) == 7,
                "inputs");
    }
    dnnl_primitive_desc_destroy(pd);

    /* Lengths given to a primitive created without the attribute. */
    pd = make_pd(eng, dnnl_forward_inference, dirs[0], 1, 1, 0);
    REQUIRE_OK(dnnl_primitive_create(&prim, pd));
    {
        const dnnl_dim_t n[1] = {N};
        dnnl_memory_desc_t lmd = md_of(1, n, dnnl_s32, dnnl_a);
        memcpy(lengths, LENGTHS, sizeof lengths);
        lm = mem_of(eng, lmd, lengths);
        dnnl_memory_desc_destroy(lmd);
    }
    arg.arg = OXIDNN_ARG_SEQ_LENGTHS;
    arg.memory = lm;
    CHECK_STATUS(dnnl_primitive_execute(prim, s, 1, &arg),
            dnnl_invalid_arguments);
    dnnl_memory_destroy(lm);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);

    for (d = 0; d < 4; d++)
        for (L = 1; L <= 2; L++)
            for (p = 0; p < 2; p++) {
                dnnl_prop_kind_t prop
                        = p ? dnnl_forward_training : dnnl_forward_inference;
                run_case(eng, s, prop, dirs[d], L, 1);
                run_case(eng, s, prop, dirs[d], L, 0);
            }
    for (d = 0; d < 3; d++)
        for (L = 1; L <= (dirs[d] == dnnl_bidirectional_concat ? 1 : 2); L++)
            run_int8_case(eng, s, dirs[d], L);

    dnnl_stream_destroy(s);
    dnnl_engine_destroy(eng);
    return check_summary();
}

#else

int main(void) {
    /* The real oneDNN has no per-sample sequence lengths: only link with it. */
    CHECK(dnnl_version() != NULL, "dnnl_version");
    return check_summary();
}

#endif
