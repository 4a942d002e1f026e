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
 * Built against the real oneDNN (which has no such extension) it checks
 * nothing and passes.
 */
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
