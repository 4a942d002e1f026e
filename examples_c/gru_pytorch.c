/*
 * gru_pytorch.c - a PyTorch-style GRU (torch.nn.GRU, 1 layer, batch_first=False)
 * run through oneDNN's linear-before-reset GRU, with oneDNN's v3 C API only,
 * and checked against a naive C implementation of PyTorch's equations.
 *
 * PyTorch's GRU (weight_ih [3H, in] and weight_hh [3H, H], rows r, z, n;
 * b_ih and b_hh [3H]):
 *   r  = sigma(W_ir x + b_ir + W_hr h + b_hr)
 *   z  = sigma(W_iz x + b_iz + W_hz h + b_hz)
 *   n  = tanh(W_in x + b_in + r * (W_hn h + b_hn))
 *   h' = (1 - z) * n + z * h
 * oneDNN's LBR-GRU (gates u, r, o; bias rows u, r, o, u'):
 *   u  = sigma(x W_u + h U_u + b_u)
 *   r  = sigma(x W_r + h U_r + b_r)
 *   o  = tanh(x W_o + r * (h U_o + b_u') + b_o)
 *   h' = u * h + (1 - u) * o
 * These are the same cell once u <- z, r <- r, o <- n (see convert_weights
 * and convert_bias below).
 *
 * Build (from examples_c/):
 *   cc gru_pytorch.c -I../include -L../target/release -loxidnn -lm
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

/* T steps, batch N, IN input channels, H hidden channels, G = 3 GRU gates. */
enum { L = 1, D = 1, T = 6, N = 2, IN = 5, H = 4, G = 3 };

/* PyTorch's row blocks in weight_ih / weight_hh / b_ih / b_hh. */
enum { PT_R = 0, PT_Z = 1, PT_N = 2 };
/* oneDNN's gate index g -> the PyTorch block it takes: u <- z, r <- r, o <- n. */
static const int pt_block_of_gate[G] = {PT_Z, PT_R, PT_N};

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
 * PyTorch weight [3H][cols] (rows r, z, n; y = W x) -> oneDNN ldigo
 * [1][1][cols][3][H] (y = x W): transpose, and put PyTorch's block
 * pt_block_of_gate[g] into oneDNN's gate g.
 */
static void convert_weights(const float *pt, int cols, float *ldigo) {
    for (int i = 0; i < cols; i++)
        for (int g = 0; g < G; g++)
            for (int h = 0; h < H; h++)
                ldigo[(i * G + g) * H + h] = pt[(pt_block_of_gate[g] * H + h) * cols + i];
}

/*
 * PyTorch's two biases -> oneDNN's LBR bias ldgo [1][1][4][H]:
 *   b_u  = b_iz + b_hz   (z only ever sees the sum)
 *   b_r  = b_ir + b_hr   (same for r)
 *   b_o  = b_in          (outside the reset product)
 *   b_u' = b_hn          (inside the reset product: r * (W_hn h + b_hn))
 */
static void convert_bias(const float *b_ih, const float *b_hh, float *ldgo) {
    for (int h = 0; h < H; h++) {
        ldgo[0 * H + h] = b_ih[PT_Z * H + h] + b_hh[PT_Z * H + h];
        ldgo[1 * H + h] = b_ih[PT_R * H + h] + b_hh[PT_R * H + h];
        ldgo[2 * H + h] = b_ih[PT_N * H + h];
        ldgo[3 * H + h] = b_hh[PT_N * H + h];
    }
}

/* Row j of PyTorch weight [3H][cols] times vector v. */
static float dot(const float *w, int row, int cols, const float *v) {
    float s = 0.0f;
    for (int i = 0; i < cols; i++) s += w[row * cols + i] * v[i];
    return s;
}

/* The naive reference: PyTorch's GRU equations, step by step. */
static void pytorch_gru(const float *x, const float *h0, const float *w_ih,
        const float *w_hh, const float *b_ih, const float *b_hh, float *y, float *h_n) {
    float h[N][H], hn[H];
    for (int n = 0; n < N; n++)
        for (int j = 0; j < H; j++) h[n][j] = h0[n * H + j];
    for (int t = 0; t < T; t++)
        for (int n = 0; n < N; n++) {
            const float *xt = &x[(t * N + n) * IN];
            for (int j = 0; j < H; j++) {
                int jr = PT_R * H + j, jz = PT_Z * H + j, jn = PT_N * H + j;
                float r = sigmoid(dot(w_ih, jr, IN, xt) + b_ih[jr]
                        + dot(w_hh, jr, H, h[n]) + b_hh[jr]);
                float z = sigmoid(dot(w_ih, jz, IN, xt) + b_ih[jz]
                        + dot(w_hh, jz, H, h[n]) + b_hh[jz]);
                float nn = tanhf(dot(w_ih, jn, IN, xt) + b_ih[jn]
                        + r * (dot(w_hh, jn, H, h[n]) + b_hh[jn]));
                hn[j] = (1.0f - z) * nn + z * h[n][j];
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

    /* 1. The PyTorch model and input: weights, biases, x [T][N][IN], h0 [N][H]. */
    static float w_ih[G * H * IN], w_hh[G * H * H], b_ih[G * H], b_hh[G * H];
    static float x[T * N * IN], h0[N * H];
    for (int i = 0; i < G * H * IN; i++) w_ih[i] = rnd(0.5f);
    for (int i = 0; i < G * H * H; i++) w_hh[i] = rnd(0.5f);
    for (int i = 0; i < G * H; i++) b_ih[i] = rnd(0.2f), b_hh[i] = rnd(0.2f);
    for (int t = 0; t < T; t++)
        for (int n = 0; n < N; n++)
            for (int c = 0; c < IN; c++)
                x[(t * N + n) * IN + c] = sinf(0.4f * (float)t + 0.7f * (float)c + (float)n);
    for (int i = 0; i < N * H; i++) h0[i] = rnd(0.3f);

    /* 2. Describe the oneDNN tensors in plain layouts. */
    dnnl_dims_t src_dims = {T, N, IN};        /* src_layer: tnc */
    dnnl_dims_t dst_dims = {T, N, H};         /* dst_layer: tnc */
    dnnl_dims_t state_dims = {L, D, N, H};    /* src_iter/dst_iter: ldnc */
    dnnl_dims_t wl_dims = {L, D, IN, G, H};   /* weights_layer: ldigo */
    dnnl_dims_t wi_dims = {L, D, H, G, H};    /* weights_iter: ldigo */
    dnnl_dims_t bias_dims = {L, D, G + 1, H}; /* LBR bias: ldgo, rows u, r, o, u' */
    dnnl_memory_desc_t src_md = md(3, src_dims, dnnl_tnc);
    dnnl_memory_desc_t dst_md = md(3, dst_dims, dnnl_tnc);
    dnnl_memory_desc_t state_md = md(4, state_dims, dnnl_ldnc);
    dnnl_memory_desc_t user_wl_md = md(5, wl_dims, dnnl_ldigo);
    dnnl_memory_desc_t user_wi_md = md(5, wi_dims, dnnl_ldigo);
    dnnl_memory_desc_t bias_md = md(4, bias_dims, dnnl_ldgo);
    /* weights as `any`: the primitive picks the layout it runs fastest with */
    dnnl_memory_desc_t any_wl_md = md(5, wl_dims, dnnl_format_tag_any);
    dnnl_memory_desc_t any_wi_md = md(5, wi_dims, dnnl_format_tag_any);

    /* 3. The primitive descriptor: initial state h0 given, final state wanted. */
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_lbr_gru_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_unidirectional_left2right, src_md, state_md, any_wl_md, any_wi_md,
            bias_md, dst_md, state_md, 0, NULL));

    /* 4. oneDNN's data: the PyTorch tensors converted (mapping above). */
    float *src, *src_iter, *wl, *wi, *bias, *dst, *h_last;
    dnnl_memory_t src_m = mem(src_md, eng, &src);
    dnnl_memory_t src_iter_m = mem(state_md, eng, &src_iter);
    dnnl_memory_t wl_user = mem(user_wl_md, eng, &wl);
    dnnl_memory_t wi_user = mem(user_wi_md, eng, &wi);
    dnnl_memory_t bias_m = mem(bias_md, eng, &bias);
    dnnl_memory_t dst_m = mem(dst_md, eng, &dst);
    dnnl_memory_t h_m = mem(state_md, eng, &h_last);
    for (int i = 0; i < T * N * IN; i++) src[i] = x[i];    /* PyTorch (T, N, in) = tnc */
    for (int i = 0; i < N * H; i++) src_iter[i] = h0[i];   /* (1, N, H) = ldnc, L=D=1 */
    convert_weights(w_ih, IN, wl);
    convert_weights(w_hh, H, wi);
    convert_bias(b_ih, b_hh, bias);

    /* 5. Reorder the weights if the primitive wants another layout than ldigo. */
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

    /* 6. Run the LBR-GRU. */
    dnnl_primitive_t gru;
    CHECK(dnnl_primitive_create(&gru, pd));
    dnnl_exec_arg_t args[] = {
            {DNNL_ARG_SRC_LAYER, src_m}, {DNNL_ARG_SRC_ITER, src_iter_m},
            {DNNL_ARG_WEIGHTS_LAYER, w[0]}, {DNNL_ARG_WEIGHTS_ITER, w[1]},
            {DNNL_ARG_BIAS, bias_m}, {DNNL_ARG_DST_LAYER, dst_m}, {DNNL_ARG_DST_ITER, h_m}};
    CHECK(dnnl_primitive_execute(gru, strm, (int)(sizeof args / sizeof args[0]), args));
    CHECK(dnnl_stream_wait(strm));

    /* 7. The same GRU the PyTorch way, and the comparison. */
    static float y_ref[T * N * H], h_ref[N * H];
    pytorch_gru(x, h0, w_ih, w_hh, b_ih, b_hh, y_ref, h_ref);
    double max_diff = 0.0;
    for (int i = 0; i < T * N * H; i++) {
        double d = fabs((double)dst[i] - (double)y_ref[i]);
        max_diff = d > max_diff ? d : max_diff;
    }
    for (int i = 0; i < N * H; i++) {
        double d = fabs((double)h_last[i] - (double)h_ref[i]);
        max_diff = d > max_diff ? d : max_diff;
    }

    const dnnl_version_t *v = dnnl_version();
    printf("PyTorch-style GRU as a oneDNN LBR-GRU (library %d.%d.%d)\n",
            v->major, v->minor, v->patch);
    printf("config: 1 layer, left2right, T=%d steps, batch N=%d, input %d, hidden %d, f32\n",
            T, N, IN, H);
    printf("mapping: gates u<-z, r<-r, o<-n; bias u=b_iz+b_hz, r=b_ir+b_hr, o=b_in, u'=b_hn\n");
    printf("weights: %s\n", reordered ? "reordered from ldigo into the primitive's layout"
                                      : "used as given (ldigo)");
    for (int t = 0; t < T; t += T - 1)
        for (int n = 0; n < N; n++)
            printf("output[t=%d][n=%d]: oneDNN %9.6f %9.6f %9.6f %9.6f\n"
                   "                 PyTorch %9.6f %9.6f %9.6f %9.6f\n", t, n,
                    dst[(t * N + n) * H + 0], dst[(t * N + n) * H + 1],
                    dst[(t * N + n) * H + 2], dst[(t * N + n) * H + 3],
                    y_ref[(t * N + n) * H + 0], y_ref[(t * N + n) * H + 1],
                    y_ref[(t * N + n) * H + 2], y_ref[(t * N + n) * H + 3]);
    printf("max |oneDNN - PyTorch reference| over output and h_n: %.3g\n", max_diff);
    int ok = max_diff <= 1e-5;
    printf("%s\n", ok ? "OK" : "MISMATCH (tolerance 1e-5)");

    /* 8. Clean up. */
    for (int k = 0; k < 2; k++)
        if (w[k] != user_w[k]) dnnl_memory_destroy(w[k]);
    dnnl_memory_destroy(src_m);
    dnnl_memory_destroy(src_iter_m);
    dnnl_memory_destroy(wl_user);
    dnnl_memory_destroy(wi_user);
    dnnl_memory_destroy(bias_m);
    dnnl_memory_destroy(dst_m);
    dnnl_memory_destroy(h_m);
    dnnl_primitive_destroy(gru);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(src_md);
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
