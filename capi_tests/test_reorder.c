/*
 * test_reorder.c - f32 reorder round trips between the layouts RNN users
 * meet: tnc <-> ntc, ldigo <-> ldgoi, ldigo -> (the weights layout an LSTM
 * pd resolves `any` to) -> ldigo, padded/strided views and sub-memories.
 * Reorders move values; every check here is exact (bit for bit).
 */
#include <string.h>

#include "check.h"
#include "lstm_ref.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static dnnl_memory_desc_t mk_tag(int ndims, const dnnl_dim_t *d,
        dnnl_format_tag_t tag) {
    dnnl_dims_t dims;
    dnnl_memory_desc_t md = NULL;
    memcpy(dims, d, sizeof(dnnl_dim_t) * (size_t)ndims);
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dnnl_f32, tag));
    return md;
}

static dnnl_memory_desc_t mk_strides(int ndims, const dnnl_dim_t *d,
        const dnnl_dim_t *s) {
    dnnl_dims_t dims, strides;
    dnnl_memory_desc_t md = NULL;
    memcpy(dims, d, sizeof(dnnl_dim_t) * (size_t)ndims);
    memcpy(strides, s, sizeof(dnnl_dim_t) * (size_t)ndims);
    REQUIRE_OK(dnnl_memory_desc_create_with_strides(
            &md, ndims, dims, dnnl_f32, strides));
    return md;
}

/* Reorders src -> dst (memories); returns 1 on success. */
static int run_reorder(dnnl_memory_t src, dnnl_memory_t dst, const char *what) {
    const_dnnl_memory_desc_t smd = NULL, dmd = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_exec_arg_t args[2];
    int ok;

    REQUIRE_OK(dnnl_memory_get_memory_desc(src, &smd));
    REQUIRE_OK(dnnl_memory_get_memory_desc(dst, &dmd));
    ok = CHECK_OK(dnnl_reorder_primitive_desc_create(
            &pd, smd, eng, dmd, eng, NULL));
    if (!ok) {
        CHECK(0, "%s: no reorder", what);
        return 0;
    }
    REQUIRE_OK(dnnl_primitive_create(&prim, pd));
    args[0].arg = DNNL_ARG_FROM;
    args[0].memory = src;
    args[1].arg = DNNL_ARG_TO;
    args[1].memory = dst;
    ok = CHECK_OK(dnnl_primitive_execute(prim, strm, 2, args))
            && CHECK_OK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    return ok;
}

/* Reorders a user buffer (md a) into a user buffer (md b). */
static int reorder_buffers(const_dnnl_memory_desc_t a, void *pa,
        const_dnnl_memory_desc_t b, void *pb, const char *what) {
    dnnl_memory_t ma = NULL, mb = NULL;
    int ok;
    REQUIRE_OK(dnnl_memory_create(&ma, a, eng, pa));
    REQUIRE_OK(dnnl_memory_create(&mb, b, eng, pb));
    ok = run_reorder(ma, mb, what);
    dnnl_memory_destroy(ma);
    dnnl_memory_destroy(mb);
    return ok;
}

/* ------------------------------------------------------------------------ */

static void test_tnc_ntc(void) {
    enum { T = 4, N = 3, C = 5, n = T * N * C };
    const dnnl_dim_t d[3] = {T, N, C};
    dnnl_memory_desc_t tnc = mk_tag(3, d, dnnl_tnc), ntc = mk_tag(3, d, dnnl_ntc);
    float a[n], b[n], back[n], want[n];
    int t, i, c;

    ref_fill(a, n, 11, 2.0f);
    for (t = 0; t < T; t++)
        for (i = 0; i < N; i++)
            for (c = 0; c < C; c++)
                want[(i * T + t) * C + c] = a[(t * N + i) * C + c];
    memset(b, 0, sizeof b);
    if (reorder_buffers(tnc, a, ntc, b, "tnc -> ntc"))
        CHECK_FLOATS_EXACT(b, want, n, "tnc -> ntc");
    memset(back, 0, sizeof back);
    if (reorder_buffers(ntc, b, tnc, back, "ntc -> tnc"))
        CHECK_FLOATS_EXACT(back, a, n, "tnc -> ntc -> tnc");
    dnnl_memory_desc_destroy(tnc);
    dnnl_memory_desc_destroy(ntc);
}

static void test_ldigo_ldgoi(void) {
    enum { L = 2, D = 2, I = 3, G = 4, O = 5, n = L * D * I * G * O };
    const dnnl_dim_t d[5] = {L, D, I, G, O};
    dnnl_memory_desc_t ldigo = mk_tag(5, d, dnnl_ldigo);
    dnnl_memory_desc_t ldgoi = mk_tag(5, d, dnnl_ldgoi);
    float a[n], b[n], back[n], want[n];
    int ld, i, g, o;

    ref_fill(a, n, 12, 1.0f);
    /* ldgoi stores [l][d][g][o][i] */
    for (ld = 0; ld < L * D; ld++)
        for (i = 0; i < I; i++)
            for (g = 0; g < G; g++)
                for (o = 0; o < O; o++)
                    want[((ld * G + g) * O + o) * I + i]
                            = a[((ld * I + i) * G + g) * O + o];
    memset(b, 0, sizeof b);
    if (reorder_buffers(ldigo, a, ldgoi, b, "ldigo -> ldgoi"))
        CHECK_FLOATS_EXACT(b, want, n, "ldigo -> ldgoi");
    memset(back, 0, sizeof back);
    if (reorder_buffers(ldgoi, b, ldigo, back, "ldgoi -> ldigo"))
        CHECK_FLOATS_EXACT(back, a, n, "ldigo -> ldgoi -> ldigo");
    dnnl_memory_desc_destroy(ldigo);
    dnnl_memory_desc_destroy(ldgoi);
}

/*
 * ldigo -> whatever the LSTM pd chose for `any` weights -> ldigo, for
 * weights_layer and weights_iter, in training and inference (which may
 * resolve to different layouts).
 */
static void test_resolved_weights(dnnl_rnn_direction_t dir, int L, int T,
        int N, int SLC, int DHC, dnnl_prop_kind_t prop) {
    const int G = 4, D = ref_num_dirs(dir);
    const int DLC = dir == dnnl_bidirectional_concat ? 2 * DHC : DHC;
    const dnnl_dim_t src_d[3] = {T, N, SLC}, dst_d[3] = {T, N, DLC};
    const dnnl_dim_t wl_d[5] = {L, D, SLC, G, DHC}, wi_d[5] = {L, D, DHC, G, DHC};
    const dnnl_dim_t b_d[4] = {L, D, G, DHC};
    dnnl_memory_desc_t src = mk_tag(3, src_d, dnnl_tnc);
    dnnl_memory_desc_t dst = mk_tag(3, dst_d, dnnl_tnc);
    dnnl_memory_desc_t wl_any = mk_tag(5, wl_d, dnnl_format_tag_any);
    dnnl_memory_desc_t wi_any = mk_tag(5, wi_d, dnnl_format_tag_any);
    dnnl_memory_desc_t bias = mk_tag(4, b_d, dnnl_ldgo);
    dnnl_memory_desc_t user[2];
    dnnl_primitive_desc_t pd = NULL;
    const int args[2] = {DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER};
    int k;

    user[0] = mk_tag(5, wl_d, dnnl_ldigo);
    user[1] = mk_tag(5, wi_d, dnnl_ldigo);
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, prop, dir,
            src, NULL, NULL, wl_any, wi_any, NULL, NULL, bias, dst, NULL, NULL,
            0, NULL));

    for (k = 0; k < 2; k++) {
        const_dnnl_memory_desc_t want
                = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, args[k]);
        const size_t n = dnnl_memory_desc_get_size(user[k]) / sizeof(float);
        float *a = malloc(n * sizeof(float));
        float *back = malloc(n * sizeof(float));
        dnnl_memory_t ma = NULL, mw = NULL, mb = NULL;
        char what[128];

        snprintf(what, sizeof what, "%s weights_%s L=%d dir=%d -> pd layout -> ldigo",
                prop == dnnl_forward_training ? "training" : "inference",
                k == 0 ? "layer" : "iter", L, (int)dir);
        REQUIRE(a && back, "out of memory");
        ref_fill(a, n, 13 + (uint32_t)k, 1.0f);
        memset(back, 0, n * sizeof(float));
        if (CHECK(want != NULL && dnnl_memory_desc_get_size(want) > 0,
                    "%s: the pd resolved the weights md", what)) {
            dnnl_data_type_t dt = dnnl_data_type_undef;
            const dnnl_dims_t *dims = NULL;
            CHECK_OK(dnnl_memory_desc_query(want, dnnl_query_data_type, &dt));
            CHECK(dt == dnnl_f32, "%s: resolved weights are f32", what);
            CHECK_OK(dnnl_memory_desc_query(want, dnnl_query_dims, &dims));
            CHECK(dims && (*dims)[2] == (k == 0 ? SLC : DHC) && (*dims)[3] == G,
                    "%s: resolved weights keep the logical dims", what);
            REQUIRE_OK(dnnl_memory_create(&ma, user[k], eng, a));
            REQUIRE_OK(dnnl_memory_create(&mw, want, eng, DNNL_MEMORY_ALLOCATE));
            REQUIRE_OK(dnnl_memory_create(&mb, user[k], eng, back));
            if (run_reorder(ma, mw, what) && run_reorder(mw, mb, what))
                CHECK_FLOATS_EXACT(back, a, n, what);
            dnnl_memory_destroy(ma);
            dnnl_memory_destroy(mw);
            dnnl_memory_destroy(mb);
        }
        free(a);
        free(back);
    }

    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(user[0]);
    dnnl_memory_desc_destroy(user[1]);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(dst);
    dnnl_memory_desc_destroy(wl_any);
    dnnl_memory_desc_destroy(wi_any);
    dnnl_memory_desc_destroy(bias);
}

/* dense tnc <-> tnc with padded rows (C = 5 stored in rows of 8) */
static void test_padded_view(void) {
    enum { T = 3, N = 2, C = 5, CP = 8, n = T * N * C, np = T * N * CP };
    const dnnl_dim_t d[3] = {T, N, C};
    const dnnl_dim_t s[3] = {N * CP, CP, 1};
    dnnl_memory_desc_t dense = mk_tag(3, d, dnnl_tnc);
    dnnl_memory_desc_t padded = mk_strides(3, d, s);
    float a[n], p[np], back[n], want[np];
    int i, c;

    CHECK(dnnl_memory_desc_get_size(padded) == np * sizeof(float),
            "padded md size");
    ref_fill(a, n, 14, 2.0f);
    for (i = 0; i < np; i++) p[i] = want[i] = 1234.5f; /* padding sentinel */
    for (i = 0; i < T * N; i++)
        for (c = 0; c < C; c++) want[i * CP + c] = a[i * C + c];
    if (reorder_buffers(dense, a, padded, p, "tnc -> padded tnc"))
        CHECK_FLOATS_EXACT(p, want, np, "tnc -> padded tnc (padding untouched)");
    memset(back, 0, sizeof back);
    if (reorder_buffers(padded, p, dense, back, "padded tnc -> tnc"))
        CHECK_FLOATS_EXACT(back, a, n, "tnc -> padded -> tnc");

    /* padded ldigo (I-stride larger than G*O), as get_good_ld would make */
    {
        enum { L = 1, D = 1, I = 3, G = 4, O = 3, LDI = 16 };
        const dnnl_dim_t wd[5] = {L, D, I, G, O};
        const dnnl_dim_t ws[5] = {D * I * LDI, I * LDI, LDI, O, 1};
        dnnl_memory_desc_t w = mk_tag(5, wd, dnnl_ldigo);
        dnnl_memory_desc_t wp = mk_strides(5, wd, ws);
        float wa[I * G * O], wpad[I * LDI], wwant[I * LDI], wback[I * G * O];
        int k;
        ref_fill(wa, I * G * O, 15, 1.0f);
        for (k = 0; k < I * LDI; k++) wpad[k] = wwant[k] = -7.f;
        for (i = 0; i < I; i++)
            for (k = 0; k < G * O; k++) wwant[i * LDI + k] = wa[i * G * O + k];
        if (reorder_buffers(w, wa, wp, wpad, "ldigo -> padded ldigo"))
            CHECK_FLOATS_EXACT(wpad, wwant, I * LDI, "ldigo -> padded ldigo");
        memset(wback, 0, sizeof wback);
        if (reorder_buffers(wp, wpad, w, wback, "padded ldigo -> ldigo"))
            CHECK_FLOATS_EXACT(wback, wa, I * G * O, "ldigo -> padded -> ldigo");
        dnnl_memory_desc_destroy(w);
        dnnl_memory_desc_destroy(wp);
    }
    dnnl_memory_desc_destroy(dense);
    dnnl_memory_desc_destroy(padded);
}

/*
 * Sub-memories: a window of a tnc tensor (time steps 1..2, batch rows 1..2)
 * read out into a dense tensor, and written back into a fresh parent buffer
 * without touching anything outside the window. Also an ldnc slice (one
 * layer of dst_iter), as the RNN training example uses.
 */
static void test_submemory(void) {
    enum { T = 4, N = 3, C = 5, n = T * N * C };
    enum { ST = 2, SN = 2, sn = ST * SN * C };
    const dnnl_dim_t d[3] = {T, N, C};
    const dnnl_dim_t sd[3] = {ST, SN, C};
    dnnl_dims_t sub_dims = {ST, SN, C}, sub_offs = {1, 1, 0};
    dnnl_memory_desc_t parent = mk_tag(3, d, dnnl_tnc);
    dnnl_memory_desc_t dense = mk_tag(3, sd, dnnl_tnc);
    dnnl_memory_desc_t sub = NULL;
    float a[n], win[sn], want_win[sn], fresh[n], want_fresh[n];
    int t, i, c;

    REQUIRE_OK(dnnl_memory_desc_create_submemory(&sub, parent, sub_dims, sub_offs));
    ref_fill(a, n, 16, 2.0f);
    for (t = 0; t < ST; t++)
        for (i = 0; i < SN; i++)
            for (c = 0; c < C; c++)
                want_win[(t * SN + i) * C + c]
                        = a[((t + 1) * N + (i + 1)) * C + c];
    /* the sub-memory's memory takes the PARENT's buffer; the md has the offset */
    memset(win, 0, sizeof win);
    if (reorder_buffers(sub, a, dense, win, "sub-memory -> dense"))
        CHECK_FLOATS_EXACT(win, want_win, sn, "tnc sub-memory -> dense");

    for (i = 0; i < n; i++) fresh[i] = want_fresh[i] = 99.f;
    for (t = 0; t < ST; t++)
        for (i = 0; i < SN; i++)
            for (c = 0; c < C; c++)
                want_fresh[((t + 1) * N + (i + 1)) * C + c]
                        = want_win[(t * SN + i) * C + c];
    if (reorder_buffers(dense, want_win, sub, fresh, "dense -> sub-memory"))
        CHECK_FLOATS_EXACT(fresh, want_fresh, n,
                "dense -> tnc sub-memory (outside the window untouched)");

    /* sub-memory -> sub-memory of another parent (tnc -> ntc window) */
    {
        dnnl_memory_desc_t ntc_parent = mk_tag(3, d, dnnl_ntc);
        dnnl_memory_desc_t ntc_sub = NULL;
        float b[n], want_b[n];
        REQUIRE_OK(dnnl_memory_desc_create_submemory(
                &ntc_sub, ntc_parent, sub_dims, sub_offs));
        for (i = 0; i < n; i++) b[i] = want_b[i] = -1.f;
        for (t = 0; t < ST; t++)
            for (i = 0; i < SN; i++)
                for (c = 0; c < C; c++)
                    want_b[((i + 1) * T + (t + 1)) * C + c]
                            = a[((t + 1) * N + (i + 1)) * C + c];
        if (reorder_buffers(sub, a, ntc_sub, b, "tnc window -> ntc window"))
            CHECK_FLOATS_EXACT(b, want_b, n, "tnc sub-memory -> ntc sub-memory");
        dnnl_memory_desc_destroy(ntc_sub);
        dnnl_memory_desc_destroy(ntc_parent);
    }

    /* one layer of an ldnc state tensor {L=3, D=1, N=2, C=4}: layer 1 */
    {
        enum { L = 3, NN = 2, CC = 4, ln = L * NN * CC, sl = NN * CC };
        const dnnl_dim_t ld[4] = {L, 1, NN, CC}, one[4] = {1, 1, NN, CC};
        dnnl_dims_t ldims = {1, 1, NN, CC}, loffs = {1, 0, 0, 0};
        dnnl_memory_desc_t ldnc = NULL, layer = NULL, dense1 = NULL;
        float st[ln], out[sl];
        ldnc = mk_tag(4, ld, dnnl_ldnc);
        dense1 = mk_tag(4, one, dnnl_ldnc);
        REQUIRE_OK(dnnl_memory_desc_create_submemory(&layer, ldnc, ldims, loffs));
        ref_fill(st, ln, 17, 2.0f);
        memset(out, 0, sizeof out);
        if (reorder_buffers(layer, st, dense1, out, "ldnc layer 1 -> dense"))
            CHECK_FLOATS_EXACT(out, st + sl, sl, "ldnc sub-memory (layer 1)");
        dnnl_memory_desc_destroy(layer);
        dnnl_memory_desc_destroy(dense1);
        dnnl_memory_desc_destroy(ldnc);
    }

    dnnl_memory_desc_destroy(sub);
    dnnl_memory_desc_destroy(dense);
    dnnl_memory_desc_destroy(parent);
}

/* identity reorder and library-allocated memories on both sides */
static void test_allocated(void) {
    enum { T = 2, N = 2, C = 3, n = T * N * C };
    const dnnl_dim_t d[3] = {T, N, C};
    dnnl_memory_desc_t tnc = mk_tag(3, d, dnnl_tnc);
    dnnl_memory_t ma = NULL, mb = NULL;
    float a[n];
    void *p = NULL;

    ref_fill(a, n, 18, 2.0f);
    REQUIRE_OK(dnnl_memory_create(&ma, tnc, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&mb, tnc, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_map_data(ma, &p));
    memcpy(p, a, sizeof a);
    REQUIRE_OK(dnnl_memory_unmap_data(ma, p));
    if (run_reorder(ma, mb, "identity")) {
        REQUIRE_OK(dnnl_memory_map_data(mb, &p));
        CHECK_FLOATS_EXACT((const float *)p, a, n, "identity reorder (tnc -> tnc)");
        REQUIRE_OK(dnnl_memory_unmap_data(mb, p));
    }
    dnnl_memory_destroy(ma);
    dnnl_memory_destroy(mb);
    dnnl_memory_desc_destroy(tnc);
}

int main(void) {
    static const dnnl_rnn_direction_t dirs[4] = {
            dnnl_unidirectional_left2right, dnnl_unidirectional_right2left,
            dnnl_bidirectional_concat, dnnl_bidirectional_sum};
    int k;

    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    test_tnc_ntc();
    test_ldigo_ldgoi();
    for (k = 0; k < 4; k++) {
        test_resolved_weights(dirs[k], 1, 5, 3, 7, 5, dnnl_forward_training);
        test_resolved_weights(dirs[k], 1, 5, 3, 7, 5, dnnl_forward_inference);
    }
    test_resolved_weights(dnnl_bidirectional_concat, 2, 1, 16, 33, 33,
            dnnl_forward_inference);
    test_resolved_weights(dnnl_unidirectional_left2right, 3, 4, 2, 8, 8,
            dnnl_forward_training);
    test_padded_view();
    test_submemory();
    test_allocated();

    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return check_summary();
}
