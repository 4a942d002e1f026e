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
 * The integer reference, as oneDNN computes it: sat(round(alpha * (A - ao)(B - bo) + beta * C))
 * + co, halves rounded away from zero; offsetc 'C' is an offset column (co[i] for row i), 'R'
 * an offset row (co[j] for column j).
 */
static void int_ref(char transa, char transb, char offsetc, float alpha, const int *a,
        dnnl_dim_t lda, int ao, const int8_t *b, dnnl_dim_t ldb, int bo, float beta,
        const int32_t *c0, dnnl_dim_t ldc, const int32_t *co, int32_t *want) {
    int i, j, p;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            long long acc = 0;
            double v;
            for (p = 0; p < K; p++)
                acc += (long long)(AT(a, transa, i, p, lda) - ao)
                        * (AT(b, transb, p, j, ldb) - bo);
            v = round((double)alpha * (double)acc + (double)beta * c0[i * ldc + j]);
            want[i * ldc + j] = (v > 2147483647.0 ? 2147483647
                                        : v < -2147483648.0 ? (int32_t)-2147483647 - 1
                                                            : (int32_t)v)
                    + co[offsetc == 'F' ? 0 : offsetc == 'C' ? i : j];
        }
}

static void test_gemm_int(void) {
    static const char flags[2] = {'N', 'T'}, offs[3] = {'F', 'C', 'R'};
    uint8_t au[LD * LD];
    int8_t as[LD * LD], b[LD * LD];
    int a_u[LD * LD], a_s[LD * LD];
    int32_t c[M * (N + PAD)], c0[M * (N + PAD)], want[M * (N + PAD)];
    const int32_t co[N + M] = {5, -7, 11, 100, -3, 2, 9};
    int ta, tb, o, idx, s;

    for (idx = 0; idx < LD * LD; idx++) {
        au[idx] = (uint8_t)((idx * 37) % 251);
        as[idx] = (int8_t)((idx * 29) % 255 - 127);
        b[idx] = (int8_t)((idx * 53) % 255 - 127);
        a_u[idx] = au[idx];
        a_s[idx] = as[idx];
    }
    for (idx = 0; idx < M * (N + PAD); idx++) c0[idx] = idx * 1000 - 7000;

    for (ta = 0; ta < 2; ta++)
        for (tb = 0; tb < 2; tb++)
            for (o = 0; o < 3; o++)
                for (s = 0; s < 2; s++) {
                    const char transa = flags[ta], transb = flags[tb], off = offs[o];
                    const dnnl_dim_t lda = (transa == 'N' ? K : M) + PAD;
                    const dnnl_dim_t ldb = (transb == 'N' ? N : K) + PAD;
                    const dnnl_dim_t ldc = N + PAD;
                    /* alpha 1.5 makes halves: the rounding is exercised */
                    memcpy(c, c0, sizeof(c));
                    memcpy(want, c0, sizeof(c));
                    if (s == 0) {
                        int_ref(transa, transb, off, 1.5f, a_u, lda, 3, b, ldb, -2, 1.0f, c0,
                                ldc, co, want);
                        CHECK_OK(dnnl_gemm_u8s8s32(transa, transb, off, M, N, K, 1.5f, au,
                                lda, 3, b, ldb, -2, 1.0f, c, ldc, co));
                    } else {
                        int_ref(transa, transb, off, 1.5f, a_s, lda, -4, b, ldb, 5, 1.0f, c0,
                                ldc, co, want);
                        CHECK_OK(dnnl_gemm_s8s8s32(transa, transb, off, M, N, K, 1.5f, as,
                                lda, -4, b, ldb, 5, 1.0f, c, ldc, co));
                    }
                    CHECK(memcmp(c, want, sizeof(c)) == 0,
                            "%s gemm %c%c offsetc %c: C[0] %d (want %d), C[last] %d (want %d)",
                            s ? "s8s8s32" : "u8s8s32", transa, transb, off, c[0], want[0],
                            c[M * ldc - PAD - 1], want[M * ldc - PAD - 1]);
                }
    /* saturation before the offset: C = INT_MIN + 5 (the A·B of element 0 is negative) */
    memset(c, 0, sizeof(c));
    CHECK_OK(dnnl_gemm_u8s8s32('N', 'N', 'F', M, N, K, 1e9f, au, K, 0, b, N, 0, 0.0f, c, N,
            co));
    CHECK(c[0] == (int32_t)-2147483647 - 1 + 5, "not saturated: %d", c[0]);
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
    return check_summary();
}
