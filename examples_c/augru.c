/*
 * augru.c - an AUGRU (GRU with attentional update gate, as in DIEN) over a
 * short sequence, written the way a oneDNN user writes it, with oneDNN's v3
 * C API only, and checked against a naive C implementation.
 *
 * AUGRU cell (gates u, r, o; attention a = attention[t][n], one scalar per
 * step and batch row, shared by all channels):
 *   u  = sigma(x W_u + h U_u + b_u)
 *   r  = sigma(x W_r + h U_r + b_r)
 *   o  = tanh(x W_o + (r * h) U_o + b_o)
 *   u~ = (1 - a) * u
 *   h' = u~ * h + (1 - u~) * o
 * a = 0 gives the plain GRU; a = 1 replaces the state by o.
 *
 * Build (from examples_c/):
 *   cc augru.c -I../include -L../target/release -loxidnn -lm
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

/* T steps, batch N, SLC input channels, H hidden channels, G = 3 GRU gates. */
enum { L = 1, D = 1, T = 5, N = 2, SLC = 6, H = 8, G = 3 };

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

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/*
 * The naive reference. wl: ldigo [SLC][G][H], wi: ldigo [H][G][H],
 * bias: ldgo [G][H]; zero initial state (no src_iter), like the primitive.
 */
static void naive_augru(const float *x, const float *att, const float *wl,
        const float *wi, const float *bias, float *y, float *h_n) {
    float h[N][H] = {{0}};
    for (int t = 0; t < T; t++)
        for (int n = 0; n < N; n++) {
            const float *xt = &x[(t * N + n) * SLC];
            float a = att[t * N + n], pre[G][H], rh[H], hn[H];
            /* pre_g = x W_g + b_g (+ h U_g for u and r) */
            for (int g = 0; g < G; g++)
                for (int j = 0; j < H; j++) {
                    float s = bias[g * H + j];
                    for (int i = 0; i < SLC; i++) s += xt[i] * wl[(i * G + g) * H + j];
                    if (g < 2)
                        for (int i = 0; i < H; i++) s += h[n][i] * wi[(i * G + g) * H + j];
                    pre[g][j] = s;
                }
            for (int j = 0; j < H; j++) rh[j] = sigmoid(pre[1][j]) * h[n][j];
            for (int j = 0; j < H; j++) {
                float o = pre[2][j];
                for (int i = 0; i < H; i++) o += rh[i] * wi[(i * G + 2) * H + j];
                o = tanhf(o);
                float u = (1.0f - a) * sigmoid(pre[0][j]);
                hn[j] = u * h[n][j] + (1.0f - u) * o;
            }
            for (int j = 0; j < H; j++) h[n][j] = y[(t * N + n) * H + j] = hn[j];
        }
    for (int n = 0; n < N; n++)
        for (int j = 0; j < H; j++) h_n[n * H + j] = h[n][j];
}

int main(void) {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    /* 1. Describe the user's tensors in plain layouts. */
    dnnl_dims_t src_dims = {T, N, SLC};      /* src_layer: tnc */
    dnnl_dims_t att_dims = {T, N, 1};        /* attention: tnc, one value per (t, n) */
    dnnl_dims_t dst_dims = {T, N, H};        /* dst_layer: tnc */
    dnnl_dims_t state_dims = {L, D, N, H};   /* dst_iter: ldnc */
    dnnl_dims_t wl_dims = {L, D, SLC, G, H}; /* weights_layer: ldigo */
    dnnl_dims_t wi_dims = {L, D, H, G, H};   /* weights_iter: ldigo */
    dnnl_dims_t bias_dims = {L, D, G, H};    /* bias: ldgo */
    dnnl_memory_desc_t src_md = md(3, src_dims, dnnl_tnc);
    dnnl_memory_desc_t att_md = md(3, att_dims, dnnl_tnc);
    dnnl_memory_desc_t dst_md = md(3, dst_dims, dnnl_tnc);
    dnnl_memory_desc_t state_md = md(4, state_dims, dnnl_ldnc);
    dnnl_memory_desc_t user_wl_md = md(5, wl_dims, dnnl_ldigo);
    dnnl_memory_desc_t user_wi_md = md(5, wi_dims, dnnl_ldigo);
    dnnl_memory_desc_t bias_md = md(4, bias_dims, dnnl_ldgo);
    /* weights as `any`: the primitive picks the layout it runs fastest with */
    dnnl_memory_desc_t any_wl_md = md(5, wl_dims, dnnl_format_tag_any);
    dnnl_memory_desc_t any_wi_md = md(5, wi_dims, dnnl_format_tag_any);

    /* 2. The primitive descriptor: no initial state (zeros), final state wanted. */
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_augru_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_unidirectional_left2right, src_md, NULL, att_md, any_wl_md, any_wi_md,
            bias_md, dst_md, state_md, 0, NULL));

    /* 3. User data: a smooth input signal, attention, small random weights and bias. */
    float *src, *att, *wl, *wi, *bias, *dst, *h_last;
    dnnl_memory_t src_m = mem(src_md, eng, &src);
    dnnl_memory_t att_m = mem(att_md, eng, &att);
    dnnl_memory_t wl_user = mem(user_wl_md, eng, &wl);
    dnnl_memory_t wi_user = mem(user_wi_md, eng, &wi);
    dnnl_memory_t bias_m = mem(bias_md, eng, &bias);
    dnnl_memory_t dst_m = mem(dst_md, eng, &dst);
    dnnl_memory_t h_m = mem(state_md, eng, &h_last);
    for (int t = 0; t < T; t++)
        for (int n = 0; n < N; n++)
            for (int c = 0; c < SLC; c++)
                src[(t * N + n) * SLC + c] = sinf(0.5f * (float)t + 0.6f * (float)c + (float)n);
    /* batch 0: attention rising 0 -> 1; batch 1: alternating high and low */
    for (int t = 0; t < T; t++) {
        att[t * N + 0] = (float)t / (float)(T - 1);
        att[t * N + 1] = t % 2 ? 0.2f : 0.9f;
    }
    for (int i = 0; i < SLC * G * H; i++) wl[i] = rnd(0.5f);
    for (int i = 0; i < H * G * H; i++) wi[i] = rnd(0.5f);
    for (int i = 0; i < G * H; i++) bias[i] = rnd(0.2f);

    /* 4. Reorder the weights if the primitive wants another layout than ldigo. */
    const_dnnl_memory_desc_t want_w_md[2] = {
            dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_LAYER),
            dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_ITER)};
    const_dnnl_memory_desc_t user_w_md[2] = {user_wl_md, user_wi_md};
    dnnl_memory_t user_w[2] = {wl_user, wi_user}, w[2];
    int reordered = 0;
    for (int k = 0; k < 2; k++) {
        if (dnnl_memory_desc_equal(want_w_md[k], user_w_md[k])) {
            w[k] = user_w[k];
            continue;
        }
        dnnl_primitive_desc_t rpd;
        dnnl_primitive_t reorder;
        w[k] = mem(want_w_md[k], eng, NULL);
        CHECK(dnnl_reorder_primitive_desc_create(&rpd, user_w_md[k], eng, want_w_md[k], eng, NULL));
        CHECK(dnnl_primitive_create(&reorder, rpd));
        dnnl_exec_arg_t rargs[2] = {{DNNL_ARG_FROM, user_w[k]}, {DNNL_ARG_TO, w[k]}};
        CHECK(dnnl_primitive_execute(reorder, strm, 2, rargs));
        dnnl_primitive_destroy(reorder);
        dnnl_primitive_desc_destroy(rpd);
        reordered = 1;
    }

    /* 5. Run the AUGRU. */
    dnnl_primitive_t augru;
    CHECK(dnnl_primitive_create(&augru, pd));
    dnnl_exec_arg_t args[] = {
            {DNNL_ARG_SRC_LAYER, src_m}, {DNNL_ARG_AUGRU_ATTENTION, att_m},
            {DNNL_ARG_WEIGHTS_LAYER, w[0]}, {DNNL_ARG_WEIGHTS_ITER, w[1]},
            {DNNL_ARG_BIAS, bias_m}, {DNNL_ARG_DST_LAYER, dst_m}, {DNNL_ARG_DST_ITER, h_m}};
    CHECK(dnnl_primitive_execute(augru, strm, (int)(sizeof args / sizeof args[0]), args));
    CHECK(dnnl_stream_wait(strm));

    /* 6. The naive reference (from the user's ldigo weights) and the comparison. */
    static float y_ref[T * N * H], h_ref[N * H];
    naive_augru(src, att, wl, wi, bias, y_ref, h_ref);
    double max_diff = 0.0;
    for (int i = 0; i < T * N * H; i++) {
        double d = fabs((double)dst[i] - (double)y_ref[i]);
        max_diff = d > max_diff ? d : max_diff;
    }
    for (int i = 0; i < N * H; i++) {
        double d = fabs((double)h_last[i] - (double)h_ref[i]);
        max_diff = d > max_diff ? d : max_diff;
    }

    /* 7. A short summary of the outputs. */
    const dnnl_version_t *v = dnnl_version();
    printf("AUGRU inference through the oneDNN v3 C API (library %d.%d.%d)\n",
            v->major, v->minor, v->patch);
    printf("config: 1 layer, left2right, T=%d steps, batch N=%d, input %d, hidden %d, f32\n",
            T, N, SLC, H);
    printf("weights: %s\n", reordered ? "reordered from ldigo into the primitive's layout"
                                      : "used as given (ldigo)");
    for (int n = 0; n < N; n++) {
        printf("batch %d:\n", n);
        for (int t = 0; t < T; t++)
            printf("  t=%d  attention %.2f  dst_layer[0..3] %9.6f %9.6f %9.6f %9.6f\n", t,
                    att[t * N + n], dst[(t * N + n) * H + 0], dst[(t * N + n) * H + 1],
                    dst[(t * N + n) * H + 2], dst[(t * N + n) * H + 3]);
    }
    printf("last hidden state, batch 0 (dst_iter[0][0][0][:]):\n ");
    for (int c = 0; c < H; c++) printf(" %.4f", h_last[c]);
    printf("\n");
    printf("max |oneDNN - naive AUGRU| over dst_layer and dst_iter: %.3g\n", max_diff);
    int ok = max_diff <= 1e-5;
    printf("%s\n", ok ? "OK" : "MISMATCH (tolerance 1e-5)");

    /* 8. Clean up. */
    for (int k = 0; k < 2; k++)
        if (w[k] != user_w[k]) dnnl_memory_destroy(w[k]);
    dnnl_memory_destroy(src_m);
    dnnl_memory_destroy(att_m);
    dnnl_memory_destroy(wl_user);
    dnnl_memory_destroy(wi_user);
    dnnl_memory_destroy(bias_m);
    dnnl_memory_destroy(dst_m);
    dnnl_memory_destroy(h_m);
    dnnl_primitive_destroy(augru);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(src_md);
    dnnl_memory_desc_destroy(att_md);
    dnnl_memory_desc_destroy(dst_md);
    dnnl_memory_desc_destroy(state_md);
    dnnl_memory_desc_destroy(user_wl_md);
    dnnl_memory_desc_destroy(user_wi_md);
    dnnl_memory_desc_destroy(bias_md);
    dnnl_memory_desc_destroy(any_wl_md);
    dnnl_memory_desc_destroy(any_wi_md);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return ok ? 0 : 1;
}
