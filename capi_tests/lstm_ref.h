/*
 * lstm_ref.h - a naive, readable LSTM forward reference in plain C (double
 * accumulation), plus the deterministic input generator the C tests use.
 *
 * Header-only, C99, libc + libm only. Used by test_lstm_example.c as the
 * oracle; it follows the oneDNN equations (reference notes §a.12) and
 * multi-layer / bidirectional composition (§a.15):
 *
 *   gates  = x·W[l][d] + h_prev·U[l][d] + b[l][d]     (gate order i, f, c~, o)
 *   i = σ(g_i)  f = σ(g_f)  c~ = tanh(g_c)  o = σ(g_o)
 *   c = f·c_prev + i·c~     h = o·tanh(c)
 *
 * - layer 0 of every direction reads src_layer; layer l > 0 reads layer l-1
 *   of the SAME direction;
 * - left2right walks t = 0..T-1, right2left walks t = T-1..0;
 * - dst_layer = last layer's h (l2r / r2l), [h_l2r | h_r2l] (concat) or
 *   h_l2r + h_r2l (sum);
 * - dst_iter[l][d] / dst_iter_c[l][d] = final h / c of that layer/direction.
 *
 * All tensors are dense plain layouts:
 *   src_layer, dst_layer         tnc   {T, N, C}
 *   src_iter(_c), dst_iter(_c)   ldnc  {L, D, N, DHC}
 *   weights_layer                ldigo {L, D, SLC, 4, DHC}
 *   weights_iter                 ldigo {L, D, DHC, 4, DHC}
 *   bias                         ldgo  {L, D, 4, DHC}
 * No projection, no peephole (SIC == DIC == DHC).
 */
#ifndef CAPI_TESTS_LSTM_REF_H
#define CAPI_TESTS_LSTM_REF_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

#include "gen_hash.h"

static inline void ref_fill(float *p, size_t n, uint32_t seed, float scale) {
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = ref_gen_value(seed, (uint32_t)i, scale);
}

static inline double ref_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* Number of directions (the D dimension) for a direction enum. */
static inline int ref_num_dirs(dnnl_rnn_direction_t dir) {
    return dir == dnnl_bidirectional_concat || dir == dnnl_bidirectional_sum
            ? 2
            : 1;
}

/*
 * Runs the LSTM. src_iter / src_iter_c may be NULL (zero initial state);
 * dst_iter / dst_iter_c may be NULL (not wanted). Returns 0 on success,
 * -1 when out of memory.
 */
static inline int ref_lstm_forward(dnnl_rnn_direction_t dir, int L, int T,
        int N, int SLC, int DHC, const float *src_layer, const float *src_iter,
        const float *src_iter_c, const float *weights_layer,
        const float *weights_iter, const float *bias, float *dst_layer,
        float *dst_iter, float *dst_iter_c) {
    const int G = 4;
    const int D = ref_num_dirs(dir);
    /* weights_layer has I = SLC for every layer (L > 1 requires SLC == DHC) */
    const size_t wl_slice = (size_t)SLC * G * DHC;
    const size_t wi_slice = (size_t)DHC * G * DHC;
    const size_t b_slice = (size_t)G * DHC;
    const size_t st_slice = (size_t)N * DHC;
    /* seq[d]: the h sequence [T][N][DHC] of the last computed layer of
     * direction d; x: the input sequence of the layer being computed. */
    double *seq[2] = {NULL, NULL};
    double *x = malloc(sizeof(double) * (size_t)T * N * SLC);
    double *gates = malloc(sizeof(double) * (size_t)G * DHC);
    double *h = malloc(sizeof(double) * (size_t)N * DHC);
    double *c = malloc(sizeof(double) * (size_t)N * DHC);
    double *h_new = malloc(sizeof(double) * (size_t)N * DHC);
    int d, l, t, n, g, o, k, step, ok = x && gates && h && c && h_new;

    for (d = 0; d < D; d++) {
        seq[d] = malloc(sizeof(double) * (size_t)T * N * DHC);
        if (!seq[d]) ok = 0;
    }
    if (!ok) {
        free(x), free(gates), free(h), free(c), free(h_new);
        free(seq[0]), free(seq[1]);
        return -1;
    }

    for (d = 0; d < D; d++) {
        /* d == 1 of a bidirectional run, or a right2left run, walks back */
        const int reverse = dir == dnnl_unidirectional_right2left || d == 1;
        for (l = 0; l < L; l++) {
            const size_t ld = (size_t)l * D + d; /* the (l, d) slice */
            const float *W = weights_layer + ld * wl_slice;
            const float *U = weights_iter + ld * wi_slice;
            const float *B = bias + ld * b_slice;

            /* input sequence: src_layer for layer 0, else layer l-1 (same d) */
            for (k = 0; k < T * N * SLC; k++)
                x[k] = l == 0 ? (double)src_layer[k] : seq[d][k];

            /* initial state */
            for (k = 0; k < N * DHC; k++) {
                h[k] = src_iter ? src_iter[ld * st_slice + k] : 0.0;
                c[k] = src_iter_c ? src_iter_c[ld * st_slice + k] : 0.0;
            }

            for (step = 0; step < T; step++) {
                t = reverse ? T - 1 - step : step;
                for (n = 0; n < N; n++) {
                    const double *xr = x + ((size_t)t * N + n) * SLC;
                    const double *hr = h + (size_t)n * DHC;
                    double *cr = c + (size_t)n * DHC;
                    /* gates = x·W + h·U + b */
                    for (g = 0; g < G; g++)
                        for (o = 0; o < DHC; o++) {
                            double acc = B[g * DHC + o];
                            for (k = 0; k < SLC; k++)
                                acc += xr[k] * W[((size_t)k * G + g) * DHC + o];
                            for (k = 0; k < DHC; k++)
                                acc += hr[k] * U[((size_t)k * G + g) * DHC + o];
                            gates[g * DHC + o] = acc;
                        }
                    for (o = 0; o < DHC; o++) {
                        const double gi = ref_sigmoid(gates[0 * DHC + o]);
                        const double gf = ref_sigmoid(gates[1 * DHC + o]);
                        const double gc = tanh(gates[2 * DHC + o]);
                        const double go = ref_sigmoid(gates[3 * DHC + o]);
                        cr[o] = gf * cr[o] + gi * gc;
                        h_new[(size_t)n * DHC + o] = go * tanh(cr[o]);
                    }
                }
                /* h_prev of the next step and this layer's output at t */
                for (k = 0; k < N * DHC; k++) {
                    h[k] = h_new[k];
                    seq[d][(size_t)t * N * DHC + k] = h_new[k];
                }
            }
            for (k = 0; k < N * DHC; k++) {
                if (dst_iter) dst_iter[ld * st_slice + k] = (float)h[k];
                if (dst_iter_c) dst_iter_c[ld * st_slice + k] = (float)c[k];
            }
        }
    }

    /* dst_layer from the last layer of each direction */
    for (t = 0; t < T; t++)
        for (n = 0; n < N; n++)
            for (o = 0; o < DHC; o++) {
                const size_t i = ((size_t)t * N + n) * DHC + o;
                if (dir == dnnl_bidirectional_concat) {
                    float *row = dst_layer + ((size_t)t * N + n) * 2 * DHC;
                    row[o] = (float)seq[0][i];
                    row[DHC + o] = (float)seq[1][i];
                } else if (dir == dnnl_bidirectional_sum) {
                    dst_layer[i] = (float)(seq[0][i] + seq[1][i]);
                } else {
                    dst_layer[i] = (float)seq[0][i];
                }
            }

    free(x), free(gates), free(h), free(c), free(h_new);
    free(seq[0]), free(seq[1]);
    return 0;
}

#endif /* CAPI_TESTS_LSTM_REF_H */
