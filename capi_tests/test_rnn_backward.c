/*
 * test_rnn_backward.c - LSTM backward primitive descriptors and execution
 * through the C API, as measured on the real oneDNN 3.13 (and 3.2, where it
 * differs: the prop kind checks).
 *
 * Statuses of dnnl_lstm_backward_primitive_desc_create: the valid problem
 * (also with a NULL, an inference or a mismatching hint: oneDNN does not check
 * it), prop kinds other than backward, every optional tensor without its diff
 * (and the reverse), a bf16 diff, diff dims different from the tensor's, NULL
 * and zero required diffs, flags. Resolved layouts: `any` weights -> ldgoi
 * (oxidnn, known by its impl_info_str: its opaque packed transposed layout),
 * `any` diff weights -> ldigo, the workspace md equal to the forward pd's,
 * the diff_* md queries by index, 13 inputs / 6 outputs. LSTM with projection:
 * the projection or its diff alone, `any` projection -> ldoi, its diff -> ldio,
 * 14 inputs / 7 outputs.
 *
 * Execution (library-agnostic checks): diff weights accumulate into what the
 * user passed — a second backward pass (after a new forward pass) doubles
 * them — unless dnnl_rnn_flags_diff_weights_overwrite is given.
 */
#include "check.h"

enum { T = 3, N = 2, C = 4, G = 4 };

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static dnnl_memory_desc_t md(int nd, const int64_t *dims, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t m = NULL;
    dnnl_dims_t d;
    for (int k = 0; k < nd; k++) d[k] = dims[k];
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&m, nd, d, dt, tag));
    return m;
}

/* The descriptors of one backward problem (left2right, L = D = 1). */
typedef struct {
    dnnl_memory_desc_t layer, state, w_any, bias;
    const_dnnl_memory_desc_t sl, si, sic, wl, wi, b, dl, di, dic;
    const_dnnl_memory_desc_t dsl, dsi, dsic, dwl, dwi, db, ddl, ddi, ddic;
    dnnl_prop_kind_t prop;
    unsigned flags;
} problem_t;

static problem_t problem(void) {
    const int64_t layer[] = {T, N, C}, state[] = {1, 1, N, C}, w[] = {1, 1, C, G, C},
                  bias[] = {1, 1, G, C};
    problem_t p;
    p.layer = md(3, layer, dnnl_f32, dnnl_tnc);
    p.state = md(4, state, dnnl_f32, dnnl_ldnc);
    p.w_any = md(5, w, dnnl_f32, dnnl_format_tag_any);
    p.bias = md(4, bias, dnnl_f32, dnnl_ldgo);
    p.sl = p.dl = p.dsl = p.ddl = p.layer;
    p.si = p.sic = p.di = p.dic = p.dsi = p.dsic = p.ddi = p.ddic = p.state;
    p.wl = p.wi = p.dwl = p.dwi = p.w_any;
    p.b = p.db = p.bias;
    p.prop = dnnl_backward;
    p.flags = 0;
    return p;
}

static void problem_free(problem_t *p) {
    dnnl_memory_desc_destroy(p->layer);
    dnnl_memory_desc_destroy(p->state);
    dnnl_memory_desc_destroy(p->w_any);
    dnnl_memory_desc_destroy(p->bias);
}

static dnnl_status_t forward_pd(dnnl_primitive_desc_t *pd, const problem_t *p, dnnl_prop_kind_t prop) {
    return dnnl_lstm_forward_primitive_desc_create(pd, eng, prop,
            dnnl_unidirectional_left2right, p->sl, p->si, p->sic, p->wl, p->wi, NULL, NULL,
            p->b, p->dl, p->di, p->dic, 0, NULL);
}

static dnnl_status_t backward_pd(dnnl_primitive_desc_t *pd, const problem_t *p,
        const_dnnl_primitive_desc_t hint) {
    return dnnl_lstm_backward_primitive_desc_create(pd, eng, p->prop,
            dnnl_unidirectional_left2right, p->sl, p->si, p->sic, p->wl, p->wi, NULL, NULL,
            p->b, p->dl, p->di, p->dic, p->dsl, p->dsi, p->dsic, p->dwl, p->dwi, NULL, NULL,
            p->db, p->ddl, p->ddi, p->ddic, p->flags, hint, NULL);
}

/* The status of a backward pd of a modified problem (the pd is destroyed). */
static dnnl_status_t status_of(const problem_t *p, const_dnnl_primitive_desc_t hint) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t s = backward_pd(&pd, p, hint);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return s;
}

static void check_statuses(const_dnnl_primitive_desc_t fwd, const_dnnl_primitive_desc_t inf) {
    problem_t base = problem();
    problem_t p;
    CHECK_OK(status_of(&base, fwd));
    CHECK_OK(status_of(&base, NULL));
    CHECK_OK(status_of(&base, inf));
    /* oneDNN 3.2 built a forward pd from a backward creator given a forward prop kind */
    p = base, p.prop = dnnl_forward_training;
    CHECK_STATUS_V(status_of(&p, fwd), dnnl_invalid_arguments, dnnl_success);
    p = base, p.prop = dnnl_backward_data;
    CHECK_STATUS_V(status_of(&p, fwd), dnnl_invalid_arguments, dnnl_unimplemented);
    p = base, p.dsi = p.dsic = NULL;
    CHECK_STATUS(status_of(&p, fwd), dnnl_invalid_arguments);
    p = base, p.dsic = NULL;
    CHECK_STATUS(status_of(&p, fwd), dnnl_invalid_arguments);
    p = base, p.si = p.sic = NULL;
    CHECK_STATUS(status_of(&p, fwd), dnnl_invalid_arguments);
    p = base, p.db = NULL;
    CHECK_STATUS(status_of(&p, fwd), dnnl_invalid_arguments);
    p = base, p.ddi = p.ddic = NULL;
    CHECK_STATUS(status_of(&p, fwd), dnnl_invalid_arguments);
    p = base, p.dwl = NULL;
    CHECK_STATUS(status_of(&p, fwd), dnnl_invalid_arguments);
    p = base, p.flags = dnnl_rnn_flags_diff_weights_overwrite;
    CHECK_OK(status_of(&p, fwd));
    {
        const int64_t longer[] = {T + 1, N, C}, layer[] = {T, N, C};
        dnnl_memory_desc_t bad = md(3, longer, dnnl_f32, dnnl_tnc);
        dnnl_memory_desc_t bf16 = md(3, layer, dnnl_bf16, dnnl_tnc);
        dnnl_memory_desc_t zero = NULL;
        REQUIRE_OK(dnnl_memory_desc_create_with_tag(&zero, 0, NULL, dnnl_f32, dnnl_format_tag_undef));
        p = base, p.dsl = bad;
        CHECK_STATUS(status_of(&p, fwd), dnnl_invalid_arguments);
        p = base, p.dsl = bf16;
        CHECK_STATUS(status_of(&p, fwd), dnnl_unimplemented);
        p = base, p.dwl = zero;
        CHECK_STATUS(status_of(&p, fwd), dnnl_unimplemented);
        dnnl_memory_desc_destroy(bad);
        dnnl_memory_desc_destroy(bf16);
        dnnl_memory_desc_destroy(zero);
    }
    problem_free(&base);
}

/* Strides of a 5-D md (all five). */
static void strides_of(const_dnnl_memory_desc_t m, int64_t *out) {
    dnnl_dims_t *s = NULL;
    REQUIRE_OK(dnnl_memory_desc_query(m, dnnl_query_strides, &s));
    for (int k = 0; k < 5; k++) out[k] = (*s)[k];
}

static void check_queries(const_dnnl_primitive_desc_t bwd, const_dnnl_primitive_desc_t fwd) {
    int64_t s[5];
    strides_of(dnnl_primitive_desc_query_md(bwd, dnnl_query_exec_arg_md, DNNL_ARG_DIFF_WEIGHTS_LAYER), s);
    CHECK(s[2] == G * C && s[3] == C && s[4] == 1, "diff weights are ldigo (%lld %lld %lld)",
            (long long)s[2], (long long)s[3], (long long)s[4]);
    const_dnnl_memory_desc_t w = dnnl_primitive_desc_query_md(bwd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_ITER);
    dnnl_format_kind_t kind = dnnl_format_kind_undef;
    CHECK_OK(dnnl_memory_desc_query(w, dnnl_query_format_kind, &kind));
    const char *impl = NULL;
    CHECK_OK(dnnl_primitive_desc_query(bwd, dnnl_query_impl_info_str, 0, &impl));
    if (impl && strncmp(impl, "oxidnn", 6) == 0) {
        /* oxidnn packs backward weights its own way (transposed panels), as forward ones. */
        CHECK(kind == dnnl_format_kind_opaque, "backward weights are opaque (format kind %d)", (int)kind);
    } else {
        strides_of(w, s);
        CHECK(kind == dnnl_blocked && s[2] == 1 && s[3] > s[4] && s[4] >= C,
                "backward weights are ldgoi (%lld %lld %lld)", (long long)s[2], (long long)s[3],
                (long long)s[4]);
    }
    CHECK(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(bwd, dnnl_query_workspace_md, 0),
                  dnnl_primitive_desc_query_md(fwd, dnnl_query_workspace_md, 0)),
            "backward takes the forward workspace");
    CHECK(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(bwd, dnnl_query_diff_src_md, 2),
                  dnnl_primitive_desc_query_md(bwd, dnnl_query_exec_arg_md, DNNL_ARG_DIFF_SRC_ITER_C)),
            "diff_src_md(2) is diff_src_iter_c");
    CHECK(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(bwd, dnnl_query_diff_weights_md, 2),
                  dnnl_primitive_desc_query_md(bwd, dnnl_query_exec_arg_md, DNNL_ARG_DIFF_BIAS)),
            "diff_weights_md(2) is diff_bias");
    int ni = 0, no = 0;
    dnnl_prop_kind_t prop = dnnl_prop_kind_undef;
    CHECK_OK(dnnl_primitive_desc_query(bwd, dnnl_query_num_of_inputs_s32, 0, &ni));
    CHECK_OK(dnnl_primitive_desc_query(bwd, dnnl_query_num_of_outputs_s32, 0, &no));
    CHECK_OK(dnnl_primitive_desc_query(bwd, dnnl_query_prop_kind, 0, &prop));
    CHECK(ni == 13 && no == 6, "13 inputs and 6 outputs (got %d, %d)", ni, no);
    CHECK(prop == dnnl_backward, "prop kind backward (got %d)", (int)prop);
}

/* LSTM with projection (DHC = C = 4, DIC = 3, SIC = DIC): the backward pd with `any` weights
 * and projection and their diffs; the projection or its diff alone -> invalid_arguments.
 * Layouts: projection weights -> ldoi, their diff -> ldio; diff_weights_md(2) is the diff
 * projection (no peephole); 14 inputs, 7 outputs. */
static void check_projection(void) {
    enum { DIC = 3 };
    const int64_t sl[] = {T, N, C}, dl[] = {T, N, DIC}, st[] = {1, 1, N, DIC},
                  stc[] = {1, 1, N, C}, wl[] = {1, 1, C, G, C}, wi[] = {1, 1, DIC, G, C},
                  wp[] = {1, 1, C, DIC}, b[] = {1, 1, G, C};
    dnnl_memory_desc_t msl = md(3, sl, dnnl_f32, dnnl_tnc), mdl = md(3, dl, dnnl_f32, dnnl_tnc),
                       mst = md(4, st, dnnl_f32, dnnl_ldnc), mstc = md(4, stc, dnnl_f32, dnnl_ldnc),
                       mwl = md(5, wl, dnnl_f32, dnnl_format_tag_any),
                       mwi = md(5, wi, dnnl_f32, dnnl_format_tag_any),
                       mwp = md(4, wp, dnnl_f32, dnnl_format_tag_any),
                       mb = md(4, b, dnnl_f32, dnnl_ldgo);
    dnnl_primitive_desc_t fwd = NULL, bwd = NULL;
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&fwd, eng, dnnl_forward_training,
            dnnl_unidirectional_left2right, msl, mst, mstc, mwl, mwi, NULL, mwp, mb, mdl, mst,
            mstc, 0, NULL));
    /* {projection, its diff}: both, the projection alone, the diff alone */
    const_dnnl_memory_desc_t cases[3][2] = {{mwp, mwp}, {mwp, NULL}, {NULL, mwp}};
    for (int k = 0; k < 3; k++) {
        dnnl_status_t s = dnnl_lstm_backward_primitive_desc_create(&bwd, eng, dnnl_backward,
                dnnl_unidirectional_left2right, msl, mst, mstc, mwl, mwi, NULL, cases[k][0], mb,
                mdl, mst, mstc, msl, mst, mstc, mwl, mwi, NULL, cases[k][1], mb, mdl, mst, mstc, 0,
                fwd, NULL);
        CHECK_STATUS(s, k == 0 ? dnnl_success : dnnl_invalid_arguments);
        if (k == 0 && s == dnnl_success) {
            const_dnnl_memory_desc_t w = dnnl_primitive_desc_query_md(
                    bwd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_PROJECTION);
            const_dnnl_memory_desc_t dw = dnnl_primitive_desc_query_md(
                    bwd, dnnl_query_exec_arg_md, DNNL_ARG_DIFF_WEIGHTS_PROJECTION);
            dnnl_memory_desc_t ldoi = md(4, wp, dnnl_f32, dnnl_ldoi);
            dnnl_memory_desc_t ldio = md(4, wp, dnnl_f32, dnnl_ldio);
            CHECK(dnnl_memory_desc_equal(w, ldoi), "backward projection weights are ldoi");
            CHECK(dnnl_memory_desc_equal(dw, ldio), "diff projection weights are ldio");
            CHECK(dnnl_memory_desc_equal(
                          dnnl_primitive_desc_query_md(bwd, dnnl_query_diff_weights_md, 2), dw),
                    "diff_weights_md(2) is the diff projection");
            int ni = 0, no = 0;
            CHECK_OK(dnnl_primitive_desc_query(bwd, dnnl_query_num_of_inputs_s32, 0, &ni));
            CHECK_OK(dnnl_primitive_desc_query(bwd, dnnl_query_num_of_outputs_s32, 0, &no));
            CHECK(ni == 14 && no == 7, "14 inputs and 7 outputs (got %d, %d)", ni, no);
            dnnl_memory_desc_destroy(ldoi);
            dnnl_memory_desc_destroy(ldio);
        }
        if (bwd) dnnl_primitive_desc_destroy(bwd);
        bwd = NULL;
    }
    dnnl_primitive_desc_destroy(fwd);
    dnnl_memory_desc_t all[] = {msl, mdl, mst, mstc, mwl, mwi, mwp, mb};
    for (int k = 0; k < 8; k++) dnnl_memory_desc_destroy(all[k]);
}

/* A memory of the md the pd wants for `arg`, filled with `value` (plain f32 layouts). */
static dnnl_memory_t arg_mem(const_dnnl_primitive_desc_t pd, int arg, float value) {
    const_dnnl_memory_desc_t m = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    dnnl_memory_t mem = NULL;
    void *p = NULL;
    REQUIRE_OK(dnnl_memory_create(&mem, m, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_get_data_handle(mem, &p));
    size_t n = dnnl_memory_desc_get_size(m) / sizeof(float);
    for (size_t i = 0; i < n; i++) ((float *)p)[i] = value * (float)(1 + i % 7) / 7.0f;
    return mem;
}

static float *data(dnnl_memory_t m) {
    void *p = NULL;
    REQUIRE_OK(dnnl_memory_get_data_handle(m, &p));
    return p;
}

static int is_weights(int arg) {
    return arg == DNNL_ARG_WEIGHTS_LAYER || arg == DNNL_ARG_WEIGHTS_ITER;
}

/* Weights for `arg` in the layout the pd wants, reordered from plain ldigo user values. */
static dnnl_memory_t weights_mem(const_dnnl_primitive_desc_t pd, int arg) {
    const int64_t dims[] = {1, 1, C, G, C};
    dnnl_memory_desc_t user_md = md(5, dims, dnnl_f32, dnnl_ldigo);
    dnnl_memory_t user = NULL, out = NULL;
    REQUIRE_OK(dnnl_memory_create(&user, user_md, eng, DNNL_MEMORY_ALLOCATE));
    float *v = data(user);
    for (int i = 0; i < C * G * C; i++) v[i] = (float)((i * 5) % 11 - 5) / 10.0f;
    const_dnnl_memory_desc_t want = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    REQUIRE_OK(dnnl_memory_create(&out, want, eng, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t r = NULL;
    REQUIRE_OK(dnnl_reorder_primitive_desc_create(&rpd, user_md, eng, want, eng, NULL));
    REQUIRE_OK(dnnl_primitive_create(&r, rpd));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, out}};
    REQUIRE_OK(dnnl_primitive_execute(r, strm, 2, args));
    REQUIRE_OK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(user);
    dnnl_memory_desc_destroy(user_md);
    return out;
}


/* Runs forward training then backward twice (each after a new forward pass); the diff bias and
 * diff weights_iter of the second pass must be twice the first (accumulate) or equal (overwrite). */
static void check_accumulation(unsigned flags) {
    problem_t p = problem();
    p.flags = flags;
    dnnl_primitive_desc_t fpd = NULL, bpd = NULL;
    REQUIRE_OK(forward_pd(&fpd, &p, dnnl_forward_training));
    REQUIRE_OK(backward_pd(&bpd, &p, fpd));
    enum { NF = 10, NB = 19 };
    const int fargs[NF] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C,
            DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER,
            DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C, DNNL_ARG_WORKSPACE};
    const int bargs[NB] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C,
            DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER,
            DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C, DNNL_ARG_WORKSPACE,
            DNNL_ARG_DIFF_DST_LAYER, DNNL_ARG_DIFF_DST_ITER, DNNL_ARG_DIFF_DST_ITER_C,
            DNNL_ARG_DIFF_SRC_LAYER, DNNL_ARG_DIFF_SRC_ITER, DNNL_ARG_DIFF_SRC_ITER_C,
            DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER, DNNL_ARG_DIFF_BIAS};
    /* The backward pass shares the forward memories but the weights, reordered from the same
     * user ldigo values into its own layout; diff weights start at zero. */
    dnnl_exec_arg_t fa[NF], ba[NB];
    for (int k = 0; k < NF; k++) {
        fa[k].arg = fargs[k];
        fa[k].memory = is_weights(fargs[k]) ? weights_mem(fpd, fargs[k]) : arg_mem(fpd, fargs[k], 0.5f);
    }
    const int nb = NB;
    for (int k = 0; k < NB; k++) {
        ba[k].arg = bargs[k];
        if (k < NF && !is_weights(bargs[k]))
            ba[k].memory = fa[k].memory;
        else if (k < NF)
            ba[k].memory = weights_mem(bpd, bargs[k]);
        else
            ba[k].memory = arg_mem(bpd, bargs[k], k >= 16 ? 0.0f : 0.5f);
    }
    dnnl_primitive_t fwd = NULL, bwd = NULL;
    REQUIRE_OK(dnnl_primitive_create(&fwd, fpd));
    REQUIRE_OK(dnnl_primitive_create(&bwd, bpd));
    float first[G * C + C * G * C], second[G * C + C * G * C];
    float *passes[2] = {first, second};
    for (int pass = 0; pass < 2; pass++) {
        CHECK_OK(dnnl_primitive_execute(fwd, strm, NF, fa));
        CHECK_OK(dnnl_primitive_execute(bwd, strm, nb, ba));
        CHECK_OK(dnnl_stream_wait(strm));
        const float *db = data(ba[18].memory), *dwi = data(ba[17].memory);
        for (int i = 0; i < G * C; i++) passes[pass][i] = db[i];
        for (int i = 0; i < C * G * C; i++) passes[pass][G * C + i] = dwi[i];
    }
    float want[G * C + C * G * C];
    for (int i = 0; i < G * C + C * G * C; i++)
        want[i] = flags ? first[i] : 2.0f * first[i];
    CHECK_FLOATS(second, want, G * C + C * G * C,
            flags ? "diff weights overwritten" : "diff weights accumulated");
    float norm = 0.0f;
    for (int i = 0; i < G * C; i++) norm += first[i] * first[i];
    CHECK(norm > 1e-6f, "the diff bias is not zero (%g)", (double)norm);
    for (int k = 0; k < NF; k++) dnnl_memory_destroy(fa[k].memory);
    for (int k = 0; k < nb; k++)
        if (k >= NF || is_weights(bargs[k])) dnnl_memory_destroy(ba[k].memory);
    dnnl_primitive_destroy(fwd);
    dnnl_primitive_destroy(bwd);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_primitive_desc_destroy(bpd);
    problem_free(&p);
}

int main(void) {
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    problem_t p = problem();
    dnnl_primitive_desc_t fwd = NULL, inf = NULL, bwd = NULL;
    REQUIRE_OK(forward_pd(&fwd, &p, dnnl_forward_training));
    REQUIRE_OK(forward_pd(&inf, &p, dnnl_forward_inference));
    REQUIRE_OK(backward_pd(&bwd, &p, fwd));
    check_statuses(fwd, inf);
    check_queries(bwd, fwd);
    check_projection();
    check_accumulation(0);
    check_accumulation(dnnl_rnn_flags_diff_weights_overwrite);
    dnnl_primitive_desc_destroy(bwd);
    dnnl_primitive_desc_destroy(inf);
    dnnl_primitive_desc_destroy(fwd);
    problem_free(&p);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return check_summary();
}
