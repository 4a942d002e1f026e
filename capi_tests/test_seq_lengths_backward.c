/*
 * test_seq_lengths_backward.c - backward with per-sample sequence lengths, an
 * oxidnn extension (oxidnn_primitive_attr_set_rnn_seq_lengths +
 * OXIDNN_ARG_SEQ_LENGTHS on the forward_training and the backward pd).
 *
 * An LSTM batch with lengths {T, 2, 0, 1, T - 1} (T = 5) runs forward_training
 * and backward; every sample is then run alone (N = 1, T = its length, no
 * lengths) through the same primitives with its own rows of the inputs and of
 * the output gradients. Checked to 1e-5: diff_src_layer rows of the valid
 * steps equal the sample's own (the rows past its length are zeros),
 * diff_src_iter / diff_src_iter_c equal its own (for length 0: the diff_dst
 * states passed through), and diff_weights_layer / _iter / diff_bias equal the
 * sums of the samples' own. Directions left2right (L 1, 2), right2left,
 * bidirectional concat and sum (L 2); diff_dst_layer rows past a sample's
 * length hold values that must be ignored.
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

enum { T = 5, N = 5, SLC = 6, DHC = 6, G = 4 };
static const int32_t LENGTHS[N] = {T, 2, 0, 1, T - 1};

/* The problem of one case. */
typedef struct {
    dnnl_rnn_direction_t dir;
    int L, D, DLC;
} shape_t;

/* The tensors of one run of `t` steps and `n` samples: forward inputs and
 * outputs, the output gradients given, and the gradients computed. */
typedef struct {
    int t, n;
    float *src, *si, *sic, *dst, *di, *dic;
    float *ddst, *ddi, *ddic;
    float *dsrc, *dsi, *dsic, *dwl, *dwi, *db;
} run_t;

static size_t n_wl(const shape_t *s) { return (size_t)s->L * s->D * SLC * G * DHC; }
static size_t n_wi(const shape_t *s) { return (size_t)s->L * s->D * DHC * G * DHC; }
static size_t n_b(const shape_t *s) { return (size_t)s->L * s->D * G * DHC; }

static float *alloc_floats(size_t n) {
    float *p = calloc(n ? n : 1, sizeof(float));
    REQUIRE(p != NULL, "out of memory");
    return p;
}

static run_t run_alloc(const shape_t *s, int t, int n) {
    run_t r;
    const size_t src = (size_t)t * n * SLC, dst = (size_t)t * n * s->DLC;
    const size_t iter = (size_t)s->L * s->D * n * DHC;
    r.t = t;
    r.n = n;
    r.src = alloc_floats(src), r.dsrc = alloc_floats(src);
    r.dst = alloc_floats(dst), r.ddst = alloc_floats(dst);
    r.si = alloc_floats(iter), r.sic = alloc_floats(iter);
    r.di = alloc_floats(iter), r.dic = alloc_floats(iter);
    r.ddi = alloc_floats(iter), r.ddic = alloc_floats(iter);
    r.dsi = alloc_floats(iter), r.dsic = alloc_floats(iter);
    r.dwl = alloc_floats(n_wl(s)), r.dwi = alloc_floats(n_wi(s));
    r.db = alloc_floats(n_b(s));
    return r;
}

static void run_free(run_t *r) {
    free(r->src), free(r->dsrc), free(r->dst), free(r->ddst);
    free(r->si), free(r->sic), free(r->di), free(r->dic);
    free(r->ddi), free(r->ddic), free(r->dsi), free(r->dsic);
    free(r->dwl), free(r->dwi), free(r->db);
}

static dnnl_memory_desc_t md_of(int ndims, dnnl_dim_t a, dnnl_dim_t b,
        dnnl_dim_t c, dnnl_dim_t d, dnnl_dim_t e, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {a, b, c, d, e};
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dnnl_f32, tag));
    return md;
}

/* Executes pd with the n (argument, buffer) pairs; buffers are the user's. */
static void execute(dnnl_engine_t eng, dnnl_stream_t s,
        const_dnnl_primitive_desc_t pd, const int *args, void *const *data,
        int n) {
    dnnl_primitive_t p = NULL;
    dnnl_exec_arg_t ea[24];
    int i;
    REQUIRE(n <= 24, "too many arguments");
    REQUIRE_OK(dnnl_primitive_create(&p, pd));
    for (i = 0; i < n; i++) {
        const_dnnl_memory_desc_t md
                = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, args[i]);
        ea[i].arg = args[i];
        REQUIRE_OK(dnnl_memory_create(&ea[i].memory, md, eng, data[i]));
    }
    REQUIRE_OK(dnnl_primitive_execute(p, s, n, ea));
    REQUIRE_OK(dnnl_stream_wait(s));
    for (i = 0; i < n; i++) dnnl_memory_destroy(ea[i].memory);
    dnnl_primitive_destroy(p);
}

/* forward_training then backward of r (lengths: NULL, or r->n of them). */
static void run_fwd_bwd(dnnl_engine_t eng, dnnl_stream_t s, const shape_t *sh,
        const float *wl, const float *wi, const float *b, run_t *r,
        int32_t *lengths) {
    dnnl_memory_desc_t src = md_of(3, r->t, r->n, SLC, 0, 0, dnnl_tnc);
    dnnl_memory_desc_t dst = md_of(3, r->t, r->n, sh->DLC, 0, 0, dnnl_tnc);
    dnnl_memory_desc_t iter = md_of(4, sh->L, sh->D, r->n, DHC, 0, dnnl_ldnc);
    dnnl_memory_desc_t wl_md = md_of(5, sh->L, sh->D, SLC, G, DHC, dnnl_ldigo);
    dnnl_memory_desc_t wi_md = md_of(5, sh->L, sh->D, DHC, G, DHC, dnnl_ldigo);
    dnnl_memory_desc_t b_md = md_of(4, sh->L, sh->D, G, DHC, 0, dnnl_ldgo);
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t fwd = NULL, bwd = NULL;
    const_dnnl_memory_desc_t ws_md;
    void *ws = NULL;
    const int fwd_args[11] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER,
            DNNL_ARG_SRC_ITER_C, DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER,
            DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER,
            DNNL_ARG_DST_ITER_C, DNNL_ARG_WORKSPACE, OXIDNN_ARG_SEQ_LENGTHS};
    const int bwd_args[20] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER,
            DNNL_ARG_SRC_ITER_C, DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER,
            DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER,
            DNNL_ARG_DST_ITER_C, DNNL_ARG_WORKSPACE, DNNL_ARG_DIFF_SRC_LAYER,
            DNNL_ARG_DIFF_SRC_ITER, DNNL_ARG_DIFF_SRC_ITER_C,
            DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER,
            DNNL_ARG_DIFF_BIAS, DNNL_ARG_DIFF_DST_LAYER,
            DNNL_ARG_DIFF_DST_ITER, DNNL_ARG_DIFF_DST_ITER_C,
            OXIDNN_ARG_SEQ_LENGTHS};
    void *data[20];
    const int with_lengths = lengths != NULL;

    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
    REQUIRE_OK(oxidnn_primitive_attr_set_rnn_seq_lengths(attr, with_lengths));
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&fwd, eng,
            dnnl_forward_training, sh->dir, src, iter, iter, wl_md, wi_md, NULL,
            NULL, b_md, dst, iter, iter, 0, attr));
    REQUIRE_OK(dnnl_lstm_backward_primitive_desc_create(&bwd, eng,
            dnnl_backward, sh->dir, src, iter, iter, wl_md, wi_md, NULL, NULL,
            b_md, dst, iter, iter, src, iter, iter, wl_md, wi_md, NULL, NULL,
            b_md, dst, iter, iter, dnnl_rnn_flags_diff_weights_overwrite, fwd,
            attr));
    ws_md = dnnl_primitive_desc_query_md(fwd, dnnl_query_workspace_md, 0);
    ws = malloc(dnnl_memory_desc_get_size(ws_md));
    REQUIRE(ws != NULL, "out of memory");

    data[0] = r->src, data[1] = r->si, data[2] = r->sic;
    data[3] = (void *)wl, data[4] = (void *)wi, data[5] = (void *)b;
    data[6] = r->dst, data[7] = r->di, data[8] = r->dic, data[9] = ws;
    data[10] = lengths;
    execute(eng, s, fwd, fwd_args, data, 10 + with_lengths);
    data[10] = r->dsrc, data[11] = r->dsi, data[12] = r->dsic;
    data[13] = r->dwl, data[14] = r->dwi, data[15] = r->db;
    data[16] = r->ddst, data[17] = r->ddi, data[18] = r->ddic;
    data[19] = lengths;
    execute(eng, s, bwd, bwd_args, data, 19 + with_lengths);

    free(ws);
    dnnl_primitive_desc_destroy(bwd);
    dnnl_primitive_desc_destroy(fwd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(dst);
    dnnl_memory_desc_destroy(iter);
    dnnl_memory_desc_destroy(wl_md);
    dnnl_memory_desc_destroy(wi_md);
    dnnl_memory_desc_destroy(b_md);
}

/* Rows of sample b of a [outer][n][ch] tensor, copied to/from [outer][1][ch]. */
static void take_rows(const float *v, int outer, int n, int ch, int b, float *out) {
    int o;
    for (o = 0; o < outer; o++)
        memcpy(out + (size_t)o * ch, v + ((size_t)o * n + b) * ch,
                sizeof(float) * (size_t)ch);
}

#define CHECK_1E5(got, want, n, what) \
    check_floats_((got), (want), (n), 1e-5, 1e-5, (what), __FILE__, __LINE__)

static void add(float *sum, const float *v, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) sum[i] += v[i];
}

static void run_case(dnnl_engine_t eng, dnnl_stream_t s, dnnl_rnn_direction_t dir,
        int L) {
    shape_t sh;
    run_t mixed;
    float *wl, *wi, *b, *sum_wl, *sum_wi, *sum_b;
    int32_t lengths[N];
    int bb, t;
    char what[160];

    sh.dir = dir;
    sh.L = L;
    sh.D = ref_num_dirs(dir);
    sh.DLC = dir == dnnl_bidirectional_concat ? 2 * DHC : DHC;
    wl = alloc_floats(n_wl(&sh)), wi = alloc_floats(n_wi(&sh));
    b = alloc_floats(n_b(&sh));
    sum_wl = alloc_floats(n_wl(&sh)), sum_wi = alloc_floats(n_wi(&sh));
    sum_b = alloc_floats(n_b(&sh));
    ref_fill(wl, n_wl(&sh), 4, 1.0f);
    ref_fill(wi, n_wi(&sh), 5, 1.0f);
    ref_fill(b, n_b(&sh), 6, 1.0f);

    mixed = run_alloc(&sh, T, N);
    ref_fill(mixed.src, (size_t)T * N * SLC, 1, 2.0f);
    ref_fill(mixed.si, (size_t)L * sh.D * N * DHC, 2, 2.0f);
    ref_fill(mixed.sic, (size_t)L * sh.D * N * DHC, 3, 2.0f);
    /* rows past a sample's length hold gradients the backward must ignore */
    ref_fill(mixed.ddst, (size_t)T * N * sh.DLC, 7, 2.0f);
    ref_fill(mixed.ddi, (size_t)L * sh.D * N * DHC, 8, 2.0f);
    ref_fill(mixed.ddic, (size_t)L * sh.D * N * DHC, 9, 2.0f);
    memcpy(lengths, LENGTHS, sizeof lengths);
    run_fwd_bwd(eng, s, &sh, wl, wi, b, &mixed, lengths);

    for (bb = 0; bb < N; bb++) {
        const int len = LENGTHS[bb], LD = L * sh.D;
        float *rows = alloc_floats((size_t)T * (SLC > sh.DLC ? SLC : sh.DLC));
        float *si = alloc_floats((size_t)LD * DHC), *sic = alloc_floats((size_t)LD * DHC);
        static const float zeros[SLC];
        snprintf(what, sizeof what, "dir %d L%d sample %d (len %d)", (int)dir, L, bb, len);
        take_rows(mixed.dsrc, T, N, SLC, bb, rows);
        for (t = len; t < T; t++)
            check_floats_(rows + (size_t)t * SLC, zeros, SLC, 0.0, 0.0, what, __FILE__,
                    __LINE__);
        if (len == 0) {
            /* nothing ran: the states' gradients pass through */
            float *ddi = alloc_floats((size_t)LD * DHC), *ddic = alloc_floats((size_t)LD * DHC);
            take_rows(mixed.dsi, LD, N, DHC, bb, si);
            take_rows(mixed.dsic, LD, N, DHC, bb, sic);
            take_rows(mixed.ddi, LD, N, DHC, bb, ddi);
            take_rows(mixed.ddic, LD, N, DHC, bb, ddic);
            CHECK_1E5(si, ddi, (size_t)LD * DHC, what);
            CHECK_1E5(sic, ddic, (size_t)LD * DHC, what);
            free(ddi), free(ddic);
        } else {
            run_t one = run_alloc(&sh, len, 1);
            take_rows(mixed.src, len, N, SLC, bb, one.src);
            take_rows(mixed.si, LD, N, DHC, bb, one.si);
            take_rows(mixed.sic, LD, N, DHC, bb, one.sic);
            take_rows(mixed.ddst, len, N, sh.DLC, bb, one.ddst);
            take_rows(mixed.ddi, LD, N, DHC, bb, one.ddi);
            take_rows(mixed.ddic, LD, N, DHC, bb, one.ddic);
            run_fwd_bwd(eng, s, &sh, wl, wi, b, &one, NULL);
            CHECK_1E5(rows, one.dsrc, (size_t)len * SLC, what);
            take_rows(mixed.dsi, LD, N, DHC, bb, si);
            take_rows(mixed.dsic, LD, N, DHC, bb, sic);
            CHECK_1E5(si, one.dsi, (size_t)LD * DHC, what);
            CHECK_1E5(sic, one.dsic, (size_t)LD * DHC, what);
            add(sum_wl, one.dwl, n_wl(&sh));
            add(sum_wi, one.dwi, n_wi(&sh));
            add(sum_b, one.db, n_b(&sh));
            run_free(&one);
        }
        free(rows), free(si), free(sic);
    }
    snprintf(what, sizeof what, "dir %d L%d diff_weights_layer", (int)dir, L);
    CHECK_1E5(mixed.dwl, sum_wl, n_wl(&sh), what);
    snprintf(what, sizeof what, "dir %d L%d diff_weights_iter", (int)dir, L);
    CHECK_1E5(mixed.dwi, sum_wi, n_wi(&sh), what);
    snprintf(what, sizeof what, "dir %d L%d diff_bias", (int)dir, L);
    CHECK_1E5(mixed.db, sum_b, n_b(&sh), what);

    run_free(&mixed);
    free(wl), free(wi), free(b), free(sum_wl), free(sum_wi), free(sum_b);
}

int main(void) {
    dnnl_engine_t eng = NULL;
    dnnl_stream_t s = NULL;
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));
    run_case(eng, s, dnnl_unidirectional_left2right, 1);
    run_case(eng, s, dnnl_unidirectional_left2right, 2);
    run_case(eng, s, dnnl_unidirectional_right2left, 1);
    run_case(eng, s, dnnl_bidirectional_concat, 1);
    run_case(eng, s, dnnl_bidirectional_sum, 2);
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
