/*
 * lstm_training.c - one training step of an LSTM, written the way a oneDNN
 * user writes it, with oneDNN's v3 C API only: forward training over a short
 * sequence, the loss, backward (diff weights and bias), one SGD step on the
 * user's weights, and the loss again, which must have decreased (exit 1 if
 * not).
 *
 * The task: from a sine wave over C channels, predict the same wave a quarter
 * period later (mean squared error over dst_layer).
 *
 * Weights live in the user's plain layout (ldigo); the forward and backward
 * primitives ask for `any`, so each gets its own reordered copy (the layouts
 * the two passes prefer differ), and the diff weights come back in the
 * backward primitive's layout and are reordered to ldigo for the update.
 *
 * Build (from examples_c/):
 *   cc lstm_training.c -I../include -L../target/release -loxidnn -lm
 * The same source builds unchanged against the real oneDNN (-ldnnl).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h" /* dnnl_status2str */

#define CHECK(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s failed: %s\n", #call, dnnl_status2str(s_)); \
            exit(1); \
        } \
    } while (0)

enum { L = 1, D = 1, T = 10, N = 4, C = 8, G = 4 }; /* G: LSTM gates */
static const float learning_rate = 0.5f;

static dnnl_memory_desc_t md(int ndims, dnnl_dims_t dims, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t d;
    CHECK(dnnl_memory_desc_create_with_tag(&d, ndims, dims, dnnl_f32, tag));
    return d;
}

static dnnl_memory_t mem(const_dnnl_memory_desc_t d, dnnl_engine_t eng, float **data) {
    dnnl_memory_t m;
    void *p;
    CHECK(dnnl_memory_create(&m, d, eng, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_get_data_handle(m, &p));
    if (data) *data = p;
    return m;
}

static float rnd(float scale) {
    static unsigned state = 2024u;
    state = state * 1103515245u + 12345u;
    return ((float)((state >> 8) & 0xFFFF) / 32767.5f - 1.0f) * scale;
}

/* Copies `from` into `to` through a reorder (layouts may differ). */
static void reorder(dnnl_memory_t from, dnnl_memory_t to, dnnl_engine_t eng, dnnl_stream_t strm) {
    const_dnnl_memory_desc_t from_md, to_md;
    CHECK(dnnl_memory_get_memory_desc(from, &from_md));
    CHECK(dnnl_memory_get_memory_desc(to, &to_md));
    dnnl_primitive_desc_t rpd;
    dnnl_primitive_t r;
    CHECK(dnnl_reorder_primitive_desc_create(&rpd, from_md, eng, to_md, eng, NULL));
    CHECK(dnnl_primitive_create(&r, rpd));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    CHECK(dnnl_primitive_execute(r, strm, 2, args));
    CHECK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
}

/* The memory a primitive wants for argument `arg`. */
static const_dnnl_memory_desc_t want(const_dnnl_primitive_desc_t pd, int arg) {
    return dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
}

/* Mean squared error of dst against target; its gradient into diff (may be NULL). */
static double mse(const float *dst, const float *target, float *diff) {
    double sum = 0.0;
    for (int i = 0; i < T * N * C; i++) {
        double e = (double)dst[i] - (double)target[i];
        sum += e * e;
        if (diff) diff[i] = (float)(2.0 * e / (T * N * C));
    }
    return sum / (T * N * C);
}

int main(void) {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    /* 1. Tensors in the user's plain layouts; weights as `any` for the primitives. */
    dnnl_dims_t layer_dims = {T, N, C}, weights_dims = {L, D, C, G, C}, bias_dims = {L, D, G, C};
    dnnl_memory_desc_t layer_md = md(3, layer_dims, dnnl_tnc);
    dnnl_memory_desc_t user_w_md = md(5, weights_dims, dnnl_ldigo);
    dnnl_memory_desc_t bias_md = md(4, bias_dims, dnnl_ldgo);
    dnnl_memory_desc_t any_w_md = md(5, weights_dims, dnnl_format_tag_any);

    /* 2. Forward training and backward primitive descriptors (the forward one is the hint).
     * The diff weights are overwritten (not accumulated) by each backward pass. */
    dnnl_primitive_desc_t fwd_pd, bwd_pd;
    CHECK(dnnl_lstm_forward_primitive_desc_create(&fwd_pd, eng, dnnl_forward_training,
            dnnl_unidirectional_left2right, layer_md, NULL, NULL, any_w_md, any_w_md, NULL,
            NULL, bias_md, layer_md, NULL, NULL, 0, NULL));
    CHECK(dnnl_lstm_backward_primitive_desc_create(&bwd_pd, eng, dnnl_backward,
            dnnl_unidirectional_left2right, layer_md, NULL, NULL, any_w_md, any_w_md, NULL,
            NULL, bias_md, layer_md, NULL, NULL, layer_md, NULL, NULL, any_w_md, any_w_md,
            NULL, NULL, bias_md, layer_md, NULL, NULL, dnnl_rnn_flags_diff_weights_overwrite,
            fwd_pd, NULL));

    /* 3. User data: the input wave, the target (a quarter period later), small weights. */
    float *src, *target, *wl, *wi, *bias, *dst, *diff_dst, *diff_src, *dwl, *dwi, *dbias;
    dnnl_memory_t src_m = mem(layer_md, eng, &src);
    dnnl_memory_t dst_m = mem(layer_md, eng, &dst);
    dnnl_memory_t diff_dst_m = mem(layer_md, eng, &diff_dst);
    dnnl_memory_t diff_src_m = mem(layer_md, eng, &diff_src);
    dnnl_memory_t bias_m = mem(bias_md, eng, &bias);
    dnnl_memory_t diff_bias_m = mem(bias_md, eng, &dbias);
    dnnl_memory_t user_w[2] = {mem(user_w_md, eng, &wl), mem(user_w_md, eng, &wi)};
    dnnl_memory_t user_dw[2] = {mem(user_w_md, eng, &dwl), mem(user_w_md, eng, &dwi)};
    target = malloc(sizeof(float) * T * N * C);
    if (!target) return 1;
    for (int t = 0; t < T; t++)
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++) {
                float phase = 0.6f * (float)t + 0.8f * (float)c + 1.3f * (float)n;
                src[(t * N + n) * C + c] = sinf(phase);
                target[(t * N + n) * C + c] = 0.8f * sinf(phase + 1.5708f);
            }
    for (int i = 0; i < L * D * C * G * C; i++) wl[i] = rnd(0.3f), wi[i] = rnd(0.3f);
    for (int i = 0; i < L * D * G * C; i++) bias[i] = rnd(0.1f);

    /* 4. Memories in the layouts each primitive wants (weights, diff weights, workspace). */
    const int w_args[2] = {DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER};
    const int dw_args[2] = {DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER};
    dnnl_memory_t fwd_w[2], bwd_w[2], bwd_dw[2];
    for (int k = 0; k < 2; k++) {
        fwd_w[k] = mem(want(fwd_pd, w_args[k]), eng, NULL);
        bwd_w[k] = mem(want(bwd_pd, w_args[k]), eng, NULL);
        bwd_dw[k] = mem(want(bwd_pd, dw_args[k]), eng, NULL);
    }
    dnnl_memory_t ws_m = mem(want(fwd_pd, DNNL_ARG_WORKSPACE), eng, NULL);

    dnnl_primitive_t fwd, bwd;
    CHECK(dnnl_primitive_create(&fwd, fwd_pd));
    CHECK(dnnl_primitive_create(&bwd, bwd_pd));
    dnnl_exec_arg_t fwd_args[] = {{DNNL_ARG_SRC_LAYER, src_m}, {DNNL_ARG_WEIGHTS_LAYER, fwd_w[0]},
            {DNNL_ARG_WEIGHTS_ITER, fwd_w[1]}, {DNNL_ARG_BIAS, bias_m},
            {DNNL_ARG_DST_LAYER, dst_m}, {DNNL_ARG_WORKSPACE, ws_m}};
    dnnl_exec_arg_t bwd_args[] = {{DNNL_ARG_SRC_LAYER, src_m},
            {DNNL_ARG_WEIGHTS_LAYER, bwd_w[0]}, {DNNL_ARG_WEIGHTS_ITER, bwd_w[1]},
            {DNNL_ARG_BIAS, bias_m}, {DNNL_ARG_DST_LAYER, dst_m},
            {DNNL_ARG_DIFF_DST_LAYER, diff_dst_m}, {DNNL_ARG_WORKSPACE, ws_m},
            {DNNL_ARG_DIFF_SRC_LAYER, diff_src_m}, {DNNL_ARG_DIFF_WEIGHTS_LAYER, bwd_dw[0]},
            {DNNL_ARG_DIFF_WEIGHTS_ITER, bwd_dw[1]}, {DNNL_ARG_DIFF_BIAS, diff_bias_m}};

    /* 5. Forward training, loss and its gradient. */
    for (int k = 0; k < 2; k++) reorder(user_w[k], fwd_w[k], eng, strm);
    CHECK(dnnl_primitive_execute(fwd, strm, (int)(sizeof fwd_args / sizeof fwd_args[0]), fwd_args));
    CHECK(dnnl_stream_wait(strm));
    double loss_before = mse(dst, target, diff_dst);

    /* 6. Backward: diff weights and bias (and diff_src_layer, unused here). */
    for (int k = 0; k < 2; k++) reorder(user_w[k], bwd_w[k], eng, strm);
    CHECK(dnnl_primitive_execute(bwd, strm, (int)(sizeof bwd_args / sizeof bwd_args[0]), bwd_args));
    CHECK(dnnl_stream_wait(strm));

    /* 7. One SGD step on the user's weights (diff weights reordered to ldigo first). */
    for (int k = 0; k < 2; k++) reorder(bwd_dw[k], user_dw[k], eng, strm);
    for (int i = 0; i < L * D * C * G * C; i++) {
        wl[i] -= learning_rate * dwl[i];
        wi[i] -= learning_rate * dwi[i];
    }
    for (int i = 0; i < L * D * G * C; i++) bias[i] -= learning_rate * dbias[i];

    /* 8. The loss with the updated weights. */
    for (int k = 0; k < 2; k++) reorder(user_w[k], fwd_w[k], eng, strm);
    CHECK(dnnl_primitive_execute(fwd, strm, (int)(sizeof fwd_args / sizeof fwd_args[0]), fwd_args));
    CHECK(dnnl_stream_wait(strm));
    double loss_after = mse(dst, target, NULL);

    printf("LSTM training step through the oneDNN v3 C API\n");
    printf("config: %d layer, left2right, T=%d, batch N=%d, C=%d channels, f32, SGD lr %.2f\n",
            L, T, N, C, (double)learning_rate);
    printf("diff_bias[0][0][gate][0], gates i f c o: %.6f %.6f %.6f %.6f\n", dbias[0],
            dbias[C], dbias[2 * C], dbias[3 * C]);
    printf("loss before: %.6f\n", loss_before);
    printf("loss after:  %.6f\n", loss_after);
    int ok = loss_after < loss_before;
    printf("%s\n", ok ? "the loss decreased" : "ERROR: the loss did not decrease");

    /* 9. Clean up. */
    for (int k = 0; k < 2; k++) {
        dnnl_memory_destroy(fwd_w[k]);
        dnnl_memory_destroy(bwd_w[k]);
        dnnl_memory_destroy(bwd_dw[k]);
        dnnl_memory_destroy(user_w[k]);
        dnnl_memory_destroy(user_dw[k]);
    }
    dnnl_memory_destroy(ws_m);
    dnnl_memory_destroy(src_m);
    dnnl_memory_destroy(dst_m);
    dnnl_memory_destroy(diff_dst_m);
    dnnl_memory_destroy(diff_src_m);
    dnnl_memory_destroy(bias_m);
    dnnl_memory_destroy(diff_bias_m);
    free(target);
    dnnl_primitive_destroy(fwd);
    dnnl_primitive_destroy(bwd);
    dnnl_primitive_desc_destroy(fwd_pd);
    dnnl_primitive_desc_destroy(bwd_pd);
    dnnl_memory_desc_destroy(layer_md);
    dnnl_memory_desc_destroy(user_w_md);
    dnnl_memory_desc_destroy(bias_md);
    dnnl_memory_desc_destroy(any_w_md);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return ok ? 0 : 1;
}
