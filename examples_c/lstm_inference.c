/*
 * lstm_inference.c - a 2-layer LSTM over a 20-step sequence, written the way
 * a oneDNN user writes it, with oneDNN's v3 C API only.
 *
 * Build (from examples_c/):
 *   cc lstm_inference.c -I../include -L../target/release -loxidnn -lm
 * The same source builds unchanged against the real oneDNN (-ldnnl).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h" /* dnnl_status2str */

/* Stop with a readable message when a call fails. */
#define CHECK(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s failed: %s\n", #call, dnnl_status2str(s_)); \
            exit(1); \
        } \
    } while (0)

enum { L = 2, D = 1, T = 20, N = 2, C = 16, G = 4 }; /* G: LSTM gates */

/* A memory descriptor with plain f32 layout `tag`. */
static dnnl_memory_desc_t md(int ndims, dnnl_dims_t dims, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t d;
    CHECK(dnnl_memory_desc_create_with_tag(&d, ndims, dims, dnnl_f32, tag));
    return d;
}

/* A memory the library allocates; *data (if not NULL) gets its pointer. */
static dnnl_memory_t mem(const_dnnl_memory_desc_t d, dnnl_engine_t eng, float **data) {
    dnnl_memory_t m;
    void *p;
    CHECK(dnnl_memory_create(&m, d, eng, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_get_data_handle(m, &p));
    if (data) *data = p;
    return m;
}

/* Deterministic "random" numbers in [-scale, scale]. */
static float rnd(float scale) {
    static unsigned state = 12345u;
    state = state * 1103515245u + 12345u;
    return ((float)((state >> 8) & 0xFFFF) / 32767.5f - 1.0f) * scale;
}

int main(void) {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    /* 1. Describe the user's tensors in plain layouts. */
    dnnl_dims_t layer_dims = {T, N, C};          /* src/dst_layer: tnc */
    dnnl_dims_t state_dims = {L, D, N, C};       /* dst_iter(_c): ldnc */
    dnnl_dims_t weights_dims = {L, D, C, G, C};  /* weights: ldigo */
    dnnl_dims_t bias_dims = {L, D, G, C};        /* bias: ldgo */
    dnnl_memory_desc_t layer_md = md(3, layer_dims, dnnl_tnc);
    dnnl_memory_desc_t state_md = md(4, state_dims, dnnl_ldnc);
    dnnl_memory_desc_t user_w_md = md(5, weights_dims, dnnl_ldigo);
    dnnl_memory_desc_t bias_md = md(4, bias_dims, dnnl_ldgo);
    /* weights as `any`: the primitive picks the layout it runs fastest with */
    dnnl_memory_desc_t any_w_md = md(5, weights_dims, dnnl_format_tag_any);

    /* 2. The primitive descriptor: no initial state (zeros), final states wanted. */
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_unidirectional_left2right, layer_md, NULL, NULL, any_w_md,
            any_w_md, NULL, NULL, bias_md, layer_md, state_md, state_md, 0, NULL));

    /* 3. User data: a smooth input signal, small random weights and bias. */
    float *src, *wl, *wi, *bias, *dst, *h_last, *c_last;
    dnnl_memory_t src_m = mem(layer_md, eng, &src);
    dnnl_memory_t wl_user = mem(user_w_md, eng, &wl);
    dnnl_memory_t wi_user = mem(user_w_md, eng, &wi);
    dnnl_memory_t bias_m = mem(bias_md, eng, &bias);
    dnnl_memory_t dst_m = mem(layer_md, eng, &dst);
    dnnl_memory_t h_m = mem(state_md, eng, &h_last);
    dnnl_memory_t c_m = mem(state_md, eng, &c_last);
    for (int t = 0; t < T; t++)
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++)
                src[(t * N + n) * C + c] = sinf(0.3f * (float)t + 0.5f * (float)c + (float)n);
    for (int i = 0; i < L * D * C * G * C; i++) wl[i] = rnd(0.5f), wi[i] = rnd(0.5f);
    for (int i = 0; i < L * D * G * C; i++) bias[i] = rnd(0.2f);

    /* 4. Reorder the weights if the primitive wants another layout than ldigo. */
    const_dnnl_memory_desc_t want_w_md[2] = {
            dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_LAYER),
            dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_ITER)};
    dnnl_memory_t user_w[2] = {wl_user, wi_user}, w[2];
    int reordered = 0;
    for (int k = 0; k < 2; k++) {
        if (dnnl_memory_desc_equal(want_w_md[k], user_w_md)) {
            w[k] = user_w[k];
            continue;
        }
        dnnl_primitive_desc_t rpd;
        dnnl_primitive_t reorder;
        w[k] = mem(want_w_md[k], eng, NULL);
        CHECK(dnnl_reorder_primitive_desc_create(&rpd, user_w_md, eng, want_w_md[k], eng, NULL));
        CHECK(dnnl_primitive_create(&reorder, rpd));
        dnnl_exec_arg_t rargs[2] = {{DNNL_ARG_FROM, user_w[k]}, {DNNL_ARG_TO, w[k]}};
        CHECK(dnnl_primitive_execute(reorder, strm, 2, rargs));
        dnnl_primitive_destroy(reorder);
        dnnl_primitive_desc_destroy(rpd);
        reordered = 1;
    }

    /* 5. Run the LSTM. */
    dnnl_primitive_t lstm;
    CHECK(dnnl_primitive_create(&lstm, pd));
    dnnl_exec_arg_t args[] = {
            {DNNL_ARG_SRC_LAYER, src_m}, {DNNL_ARG_WEIGHTS_LAYER, w[0]},
            {DNNL_ARG_WEIGHTS_ITER, w[1]}, {DNNL_ARG_BIAS, bias_m},
            {DNNL_ARG_DST_LAYER, dst_m}, {DNNL_ARG_DST_ITER, h_m},
            {DNNL_ARG_DST_ITER_C, c_m}};
    CHECK(dnnl_primitive_execute(lstm, strm, (int)(sizeof args / sizeof args[0]), args));
    CHECK(dnnl_stream_wait(strm));

    /* 6. A short summary of the outputs. */
    const dnnl_version_t *v = dnnl_version();
    printf("LSTM inference through the oneDNN v3 C API (library %d.%d.%d)\n",
            v->major, v->minor, v->patch);
    printf("config: %d layers, left2right, T=%d steps, batch N=%d, C=%d channels, f32\n",
            L, T, N, C);
    printf("weights: %s\n", reordered ? "reordered from ldigo into the primitive's layout"
                                      : "used as given (ldigo)");
    for (int t = 0; t < T; t += T - 1)
        for (int n = 0; n < N; n++)
            printf("dst_layer[t=%2d][n=%d][0..3]: %9.6f %9.6f %9.6f %9.6f\n", t, n,
                    dst[(t * N + n) * C + 0], dst[(t * N + n) * C + 1],
                    dst[(t * N + n) * C + 2], dst[(t * N + n) * C + 3]);
    double sum = 0.0, lo = dst[0], hi = dst[0];
    for (int i = 0; i < T * N * C; i++) {
        sum += dst[i];
        lo = dst[i] < lo ? dst[i] : lo;
        hi = dst[i] > hi ? dst[i] : hi;
    }
    printf("dst_layer: mean %.6f, min %.6f, max %.6f over %d values\n",
            sum / (T * N * C), lo, hi, T * N * C);
    printf("last hidden state, layer 1, batch 0 (dst_iter[1][0][0][:]):\n ");
    for (int c = 0; c < C; c++)
        printf(" %.4f%s", h_last[((1 * D + 0) * N + 0) * C + c], c == C / 2 - 1 ? "\n " : "");
    printf("\n");

    /* 7. Clean up. */
    for (int k = 0; k < 2; k++)
        if (w[k] != user_w[k]) dnnl_memory_destroy(w[k]);
    dnnl_memory_destroy(src_m);
    dnnl_memory_destroy(wl_user);
    dnnl_memory_destroy(wi_user);
    dnnl_memory_destroy(bias_m);
    dnnl_memory_destroy(dst_m);
    dnnl_memory_destroy(h_m);
    dnnl_memory_destroy(c_m);
    dnnl_primitive_destroy(lstm);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(layer_md);
    dnnl_memory_desc_destroy(state_md);
    dnnl_memory_desc_destroy(user_w_md);
    dnnl_memory_desc_destroy(bias_md);
    dnnl_memory_desc_destroy(any_w_md);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
