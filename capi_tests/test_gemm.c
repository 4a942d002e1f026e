/*
 * test_gemm.c - oneDNN's BLAS-like calls: dnnl_sgemm, dnnl_gemm_u8s8s32 and
 * dnnl_gemm_s8s8s32 (row-major C = alpha * op(A) * op(B) + beta * C, the
 * integer ones with zero points ao / bo and the offsetc 'F' / 'C' / 'R'
 * offsets co). Every transposition with padded leading dimensions, checked
 * against a naive double-precision product; the statuses of bad arguments.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { M = 3, N = 4, K = 5, PAD = 2, LD = 8 };

/* Element (i, p) of op(X) for a row-major X stored with leading dimension ld. */
#define AT(x, trans, i, p, ld) ((trans) == 'N' ? (x)[(i) * (ld) + (p)] : (x)[(p) * (ld) + (i)])

static void test_sgemm(void) {
    static const char flags[2] = {'N', 'T'};
    float a[LD * LD], b[LD * LD], c[M * (N + PAD)], c0[M * (N + PAD)];
    int ta, tb, i, j, p, idx;

    for (idx = 0; idx < LD * LD; idx++) {
        a[idx] = (float)((idx * 7) % 11) - 5.0f;
        b[idx] = (float)((idx * 5) % 13) * 0.25f - 1.5f;
    }
    for (idx = 0; idx < M * (N + PAD); idx++) c0[idx] = (float)(idx % 7) - 3.0f;

    for (ta = 0; ta < 2; ta++) {
        for (tb = 0; tb < 2; tb++) {
            const char transa = flags[ta], transb = flags[tb];
            /* stored rows are padded: lda / ldb / ldc exceed the row length */
            const dnnl_dim_t lda = (transa == 'N' ? K : M) + PAD;
            const dnnl_dim_t ldb = (transb == 'N' ? N : K) + PAD;
            const dnnl_dim_t ldc = N + PAD;
            float want[M * (N + PAD)];
            memcpy(c, c0, sizeof(c));
            memcpy(want, c0, sizeof(c));
            for (i = 0; i < M; i++)
                for (j = 0; j < N; j++) {
                    double acc = 0;
                    for (p = 0; p < K; p++)
                        acc += (double)AT(a, transa, i, p, lda) * AT(b, transb, p, j, ldb);
                    want[i * ldc + j] = (float)(0.5 * acc + 2.0 * c0[i * ldc + j]);
                }
            CHECK_OK(dnnl_sgemm(transa, transb, M, N, K, 0.5f, a, lda, b, ldb, 2.0f, c, ldc));
            /* the padding columns of C stay as they were */
            CHECK_FLOATS(c, want, (size_t)(M * ldc), "sgemm");
        }
    }
    /* lower-case flags; beta 0 does not read C (a NaN there does not propagate) */
    for (idx = 0; idx < M * N; idx++) c[idx] = NAN;
    CHECK_OK(dnnl_sgemm('n', 't', M, N, K, 1.0f, a, K, b, K, 0.0f, c, N));
    CHECK(!isnan(c[0]) && !isnan(c[M * N - 1]), "beta = 0 read C");
    /* K = 0 leaves C alone, even with beta 0 (oneDNN) */
    memcpy(c, c0, sizeof(c));
    CHECK_OK(dnnl_sgemm('N', 'N', M, N, 0, 1.0f, a, 1, b, N, 0.0f, c, N));
    CHECK_FLOATS(c, c0, (size_t)(M * N), "sgemm K = 0");
    /* nothing to compute; NULL matrices are refused even then */
    CHECK_OK(dnnl_sgemm('N', 'N', 0, N, K, 1.0f, a, K, b, N, 1.0f, c, N));
    CHECK_STATUS(dnnl_sgemm('N', 'N', 0, N, K, 1.0f, NULL, K, b, N, 1.0f, NULL, N),
            dnnl_invalid_arguments);
    /* bad arguments */
    CHECK_STATUS(dnnl_sgemm('X', 'N', M, N, K, 1.0f, a, K, b, N, 0.0f, c, N),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_sgemm('N', 'N', -1, N, K, 1.0f, a, K, b, N, 0.0f, c, N),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_sgemm('N', 'N', M, N, K, 1.0f, a, K - 1, b, N, 0.0f, c, N),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_sgemm('N', 'N', M, N, K, 1.0f, a, K, b, N - 1, 0.0f, c, N),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_sgemm('N', 'N', M, N, K, 1.0f, a, K, b, N, 0.0f, c, N - 1),
            dnnl_invalid_arguments);
}

/*
 * Shapes across the kernels' tiles, 32-column chunks and row / column blocks
 * (M 100, N 301, K 67; padded leading dimensions), every transposition, against
 * the naive double product (tolerance scaled by sqrt(K)).
 */
static void test_sgemm_large(void) {
    enum { BM = 100, BN = 301, BK = 67, BP = 3 };
    static const char flags[2] = {'N', 'T'};
    const dnnl_dim_t ldc = BN + BP;
    float *a = malloc(sizeof(float) * (BM + BP) * (BK + BP));
    float *b = malloc(sizeof(float) * (BN + BP) * (BK + BP));
    float *c = malloc(sizeof(float) * BM * ldc), *want = malloc(sizeof(float) * BM * ldc);
    int ta, tb, i, j, p, bad;
    size_t idx;
    REQUIRE(a && b && c && want, "out of memory");
    for (idx = 0; idx < (size_t)(BM + BP) * (BK + BP); idx++)
        a[idx] = (float)((idx * 7) % 23) * 0.1f - 1.1f;
    for (idx = 0; idx < (size_t)(BN + BP) * (BK + BP); idx++)
        b[idx] = (float)((idx * 5) % 19) * 0.1f - 0.9f;
    for (ta = 0; ta < 2; ta++)
        for (tb = 0; tb < 2; tb++) {
            const char transa = flags[ta], transb = flags[tb];
            const dnnl_dim_t lda = (transa == 'N' ? BK : BM) + BP;
            const dnnl_dim_t ldb = (transb == 'N' ? BN : BK) + BP;
            for (idx = 0; idx < (size_t)(BM * ldc); idx++) c[idx] = want[idx] = (float)(idx % 5);
            for (i = 0; i < BM; i++)
                for (j = 0; j < BN; j++) {
                    double acc = 0;
                    for (p = 0; p < BK; p++)
                        acc += (double)AT(a, transa, i, p, lda) * AT(b, transb, p, j, ldb);
                    want[i * ldc + j] = (float)(-1.5 * acc + 0.5 * want[i * ldc + j]);
                }
            CHECK_OK(dnnl_sgemm(transa, transb, BM, BN, BK, -1.5f, a, lda, b, ldb, 0.5f, c,
                    ldc));
            bad = 0;
            for (idx = 0; idx < (size_t)(BM * ldc); idx++)
                if (fabs(c[idx] - want[idx]) > 1e-5 * sqrt((double)BK) * (1 + fabs(want[idx])))
                    bad++;
            CHECK(bad == 0, "sgemm %c%c %dx%dx%d: %d values differ", transa, transb, BM, BN,
                    BK, bad);
        }
    free(a);
    free(b);
    free(c);
    free(want);
}

/*
 * The integer reference, as oneDNN computes it: t = (A - ao)(B - bo) wrapped to s32; with
 * alpha 1 and beta 0 or 1 (and alpha -1 with beta 0) C = t + beta * C + co in wrapping s32,
 * else sat(round(alpha * t + beta * C)) + co, halves rounded away from zero. offsetc 'C' is an
 * offset column (co[i] for row i), 'R' an offset row (co[j] for column j). K = 0 leaves C as
 * it is.
 */
static int32_t wrap32(long long v) {
    return (int32_t)(uint32_t)(unsigned long long)v;
}

static void int_ref(char transa, char transb, char offsetc, int m, int n, int k, float alpha,
        const int *a, dnnl_dim_t lda, int ao, const int8_t *b, dnnl_dim_t ldb, int bo,
        float beta, int32_t *c, dnnl_dim_t ldc, const int32_t *co) {
    int i, j, p;
    if (k == 0) return; /* oneDNN leaves C alone */
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            long long acc = 0;
            int32_t t, r, *d = &c[i * ldc + j];
            const int32_t o = co[offsetc == 'F' ? 0 : offsetc == 'C' ? i : j];
            for (p = 0; p < k; p++)
                acc += (long long)(AT(a, transa, i, p, lda) - ao)
                        * (AT(b, transb, p, j, ldb) - bo);
            t = wrap32(acc);
            if (alpha == 1.0f && (beta == 0.0f || beta == 1.0f)) {
                r = wrap32((long long)t + (beta == 1.0f ? *d : 0));
            } else if (alpha == -1.0f && beta == 0.0f) {
                r = wrap32(-(long long)t);
            } else {
                double v = (double)alpha * t + (beta == 0.0f ? 0.0 : (double)beta * *d);
                v = v >= 0 ? v + 0.5 : v - 0.5;
                r = v >= 2147483647.0 ? 2147483647
                        : v <= -2147483648.0 ? (int32_t)-2147483647 - 1 : (int32_t)v;
            }
            *d = wrap32((long long)r + o);
        }
}

/*
 * One integer GEMM call (u8 or s8 A) against int_ref: inputs over the whole u8 / s8 ranges,
 * leading dimensions padded by `pad`, C's padding checked untouched.
 */
static void check_gemm_int(int s8, char transa, char transb, char off, int m, int n, int k,
        float alpha, int ao, int bo, float beta, int pad) {
    const dnnl_dim_t lda = (transa == 'N' ? (k ? k : 1) : m) + pad,
                     ldb = (transb == 'N' ? n : (k ? k : 1)) + pad, ldc = n + pad;
    const size_t alen = (size_t)lda * (transa == 'N' ? m : k) + 1,
                 blen = (size_t)ldb * (transb == 'N' ? k : n) + 1, clen = (size_t)ldc * m;
    uint8_t *au = malloc(alen);
    int *ai = malloc(sizeof(int) * alen);
    int8_t *b = malloc(blen);
    int32_t *c = malloc(sizeof(int32_t) * clen), *want = malloc(sizeof(int32_t) * clen);
    int32_t *co = malloc(sizeof(int32_t) * (size_t)(m + n));
    size_t idx;
    REQUIRE(au && ai && b && c && want && co, "out of memory");
    for (idx = 0; idx < alen; idx++) {
        au[idx] = (uint8_t)((idx * 37 + 11) % 256);
        ai[idx] = s8 ? (int8_t)au[idx] : au[idx];
    }
    for (idx = 0; idx < blen; idx++) b[idx] = (int8_t)((idx * 53 + 5) % 256);
    for (idx = 0; idx < clen; idx++) c[idx] = want[idx] = (int32_t)(idx * 1000) - 7000;
    for (idx = 0; idx < (size_t)(m + n); idx++) co[idx] = (int32_t)(idx * 13 % 41) - 20;
    int_ref(transa, transb, off, m, n, k, alpha, ai, lda, s8 ? (int8_t)ao : (uint8_t)ao, b, ldb,
            bo, beta, want, ldc, co);
    if (s8)
        CHECK_OK(dnnl_gemm_s8s8s32(transa, transb, off, m, n, k, alpha, (const int8_t *)au, lda,
                (int8_t)ao, b, ldb, (int8_t)bo, beta, c, ldc, co));
    else
        CHECK_OK(dnnl_gemm_u8s8s32(transa, transb, off, m, n, k, alpha, au, lda, (uint8_t)ao, b,
                ldb, (int8_t)bo, beta, c, ldc, co));
    for (idx = 0; idx < clen && c[idx] == want[idx]; idx++) continue;
    CHECK(idx == clen, "%s gemm %c%c offsetc %c %dx%dx%d alpha %g beta %g ao %d bo %d: C[%d] %d (want %d)",
            s8 ? "s8s8s32" : "u8s8s32", transa, transb, off, m, n, k, alpha, beta, ao, bo,
            (int)idx, idx < clen ? c[idx] : 0, idx < clen ? want[idx] : 0);
    free(au);
    free(ai);
    free(b);
    free(c);
    free(want);
    free(co);
}

/*
 * Every transposition x offsetc x u8 / s8 A on shapes with M = 1, N = 1, K not a multiple of
 * 4, sizes past the kernels' vectors and blocks, K = 0, with zero points and alpha / beta
 * cases: 1/0, 1/1, -1/0, -2/3 on any K; 1.5/0.5 (halves to round) and a saturating scale only
 * for K <= 64 (oneDNN scales each of its K blocks, 64 long on AMX, in turn: past that its
 * rounding depends on its blocking).
 */
static void test_gemm_int(void) {
    static const char flags[2] = {'N', 'T'}, offs[3] = {'F', 'C', 'R'};
    static const int shapes[][3] = {{3, 4, 5}, {1, 1, 1}, {1, 37, 13}, {29, 1, 6}, {7, 33, 64},
            {70, 65, 130}, {4, 3, 0}};
    static const struct {
        float alpha, beta;
        int ao, bo;
    } params[] = {{1.0f, 0.0f, 0, 0}, {1.0f, 1.0f, 3, -2}, {-1.0f, 0.0f, 0, 5},
            {-2.0f, 3.0f, 200, -128}, {1.5f, 0.5f, 3, -2}, {1.5f, 1.0f, 252, 5},
            {1e9f, 0.0f, 0, 0}};
    const int nshapes = (int)(sizeof(shapes) / sizeof(shapes[0]));
    const int nparams = (int)(sizeof(params) / sizeof(params[0]));
    int sh, s8, ta, tb, o, p, count = 0;
    for (sh = 0; sh < nshapes; sh++)
        for (s8 = 0; s8 < 2; s8++)
            for (ta = 0; ta < 2; ta++)
                for (tb = 0; tb < 2; tb++)
                    for (o = 0; o < 3; o++) {
                        const int k = shapes[sh][2];
                        p = count++ % (k <= 64 ? nparams : 4);
                        check_gemm_int(s8, flags[ta], flags[tb], offs[o], shapes[sh][0],
                                shapes[sh][1], k, params[p].alpha, params[p].ao, params[p].bo,
                                params[p].beta, (sh + o) % 3);
                    }
}

/* Saturation, wrapping, statuses of bad arguments. */
static void test_gemm_int_edges(void) {
    uint8_t au[M * K];
    int8_t as[M * K], b[K * N];
    int32_t c[M * N];
    const int32_t co[1] = {5}, co_neg[1] = {-5};
    int idx;
    for (idx = 0; idx < M * K; idx++) {
        au[idx] = (uint8_t)((idx * 37) % 251);
        as[idx] = (int8_t)((idx * 29) % 255 - 127);
    }
    for (idx = 0; idx < K * N; idx++) b[idx] = (int8_t)((idx * 53) % 255 - 127);
    /* saturation before the offset: C = INT_MIN + 5 (the A·B of element 0 is negative) */
    memset(c, 0, sizeof(c));
    CHECK_OK(dnnl_gemm_u8s8s32('N', 'N', 'F', M, N, K, 1e9f, au, K, 0, b, N, 0, 0.0f, c, N,
            co));
    CHECK(c[0] == (int32_t)-2147483647 - 1 + 5, "not saturated: %d", c[0]);
    /* ... and the offset added to the saturated value wraps: INT_MIN - 5 */
    memset(c, 0, sizeof(c));
    CHECK_OK(dnnl_gemm_u8s8s32('N', 'N', 'F', M, N, K, 1e9f, au, K, 0, b, N, 0, 0.0f, c, N,
            co_neg));
    CHECK(c[0] == 2147483647 - 4, "offset after saturation did not wrap: %d", c[0]);
    /* alpha 1, beta 1: s32 arithmetic wraps, nothing saturates */
    for (idx = 0; idx < M * N; idx++) c[idx] = 2147483647;
    CHECK_OK(dnnl_gemm_u8s8s32('N', 'N', 'F', 1, 1, 1, 1.0f, au + 1, 1, 0, b + 1, 1, 0, 1.0f, c,
            1, co));
    CHECK(c[0] == wrap32(2147483647LL + (long long)au[1] * b[1] + 5), "did not wrap: %d", c[0]);
    /* bad arguments */
    CHECK_STATUS(dnnl_gemm_u8s8s32('N', 'N', 'X', M, N, K, 1.0f, au, K, 0, b, N, 0, 0.0f, c, N,
                         co),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_gemm_s8s8s32('N', 'N', 'F', M, N, K, 1.0f, as, K, 0, b, N, 0, 0.0f, c,
                         N - 1, co),
            dnnl_invalid_arguments);
}

int main(void) {
    test_sgemm();
    test_sgemm_large();
    test_gemm_int();
    test_gemm_int_edges();
    return check_summary();
}
