/*
 * gemm_bench.c - times oneDNN's BLAS-like calls, dnnl_sgemm, dnnl_gemm_u8s8s32 and
 * dnnl_gemm_s8s8s32 (row-major C = A * B, alpha 1, beta 0), on the shapes RNN users call (M rows of
 * a batch or a batch x time block, N gates x channels, K channels) and a few
 * square ones: the median and the best of the timed runs, in ms, and GFLOP/s
 * (GOP/s for the integers) of the median. Built against oneDNN's headers, it runs
 * on the real oneDNN, or, with oxidnn as libdnnl.so.3, on oxidnn:
 *
 *   cc -O2 -I<onednn>/include gemm_bench.c -L<onednn>/lib -ldnnl -o gemm_bench
 *   (. <onednn>/env.sh; ./gemm_bench)                           # the real oneDNN
 *   ln -s <repo>/target/release/liboxidnn.so <dir>/libdnnl.so.3
 *   LD_LIBRARY_PATH=<dir> ./gemm_bench                           # oxidnn
 *
 * benchmarks/gemm.sh does both, side by side. Arguments:
 *   [--min-time S] [--max-runs N] [--only sgemm|u8s8s32|s8s8s32] [--shape MxNxK] [--trans XY]
 * Each case: 2 warm-up calls, then calls until S seconds (default 0.3) or N runs
 * (default 200) have passed, at least 5. Output, one line per case:
 *   <call> <transa><transb> M=<m> N=<n> K=<k> median_ms=<x> best_ms=<x> gflops=<x> runs=<r>
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oneapi/dnnl/dnnl.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

enum { MAX_RUNS = 10000 };
static double times[MAX_RUNS];

static double min_time_s = 0.3;
static int max_runs = 200;

static const char *const names[] = {"sgemm", "u8s8s32", "s8s8s32"};

/* One case: `call` 0 = sgemm, 1 = u8s8s32, 2 = s8s8s32. Returns 0, or 1 when a call failed. */
static int run(int call, char ta, char tb, int m, int n, int k) {
    const long lda = ta == 'N' ? k : m, ldb = tb == 'N' ? n : k;
    const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    void *a = malloc(na * (call ? 1 : 4)), *b = malloc(nb * (call ? 1 : 4));
    void *c = malloc(nc * 4);
    const int32_t co = 0;
    double t_end, start;
    size_t i;
    int runs = 0, r;
    if (!a || !b || !c) {
        fprintf(stderr, "gemm_bench: out of memory\n");
        return 1;
    }
    for (i = 0; i < na; i++) {
        if (call == 1) ((uint8_t *)a)[i] = (uint8_t)(i % 251);
        else if (call) ((int8_t *)a)[i] = (int8_t)(i % 251 - 125);
        else ((float *)a)[i] = (float)(i % 17) * 0.01f;
    }
    for (i = 0; i < nb; i++) {
        if (call) ((int8_t *)b)[i] = (int8_t)(i % 253 - 126);
        else ((float *)b)[i] = (float)(i % 13) * 0.01f;
    }
    memset(c, 0, nc * 4);
    start = now_ms();
    t_end = start + 1e3 * min_time_s;
    for (r = -2; r < max_runs; r++) {
        double t0 = now_ms();
        dnnl_status_t st =
                call == 2 ? dnnl_gemm_s8s8s32(ta, tb, 'F', m, n, k, 1.0f, a, lda, 0, b, ldb, 0,
                                    0.0f, c, n, &co)
                : call    ? dnnl_gemm_u8s8s32(ta, tb, 'F', m, n, k, 1.0f, a, lda, 0, b, ldb, 0,
                                    0.0f, c, n, &co)
                          : dnnl_sgemm(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, n);
        double t1 = now_ms();
        if (st != dnnl_success) {
            fprintf(stderr, "gemm_bench: %s failed (%d)\n", names[call], (int)st);
            return 1;
        }
        if (r >= 0) times[runs++] = t1 - t0;
        if (runs >= 5 && t1 >= t_end) break;
    }
    qsort(times, runs, sizeof(double), cmp_double);
    printf("%s %c%c M=%d N=%d K=%d median_ms=%.4f best_ms=%.4f gflops=%.1f runs=%d\n",
            names[call], ta, tb, m, n, k, times[runs / 2], times[0],
            2.0 * m * n * k / times[runs / 2] / 1e6, runs);
    fflush(stdout);
    free(a);
    free(b);
    free(c);
    return 0;
}

int main(int argc, char **argv) {
    /* the RNN shapes: M 1/16/64/256 x N 512/2048 x K 512/1024, then square-ish ones */
    static const int square[][3] = {{512, 512, 512}, {1000, 1000, 1000}, {32, 4096, 1024}};
    static const int ms[] = {1, 16, 64, 256}, ns[] = {512, 2048}, ks[] = {512, 1024};
    int only = -1, shape[3] = {0, 0, 0}, call, im, in, ik, s, fails = 0, i;
    const char *trans = NULL;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--min-time") && i + 1 < argc) min_time_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--max-runs") && i + 1 < argc) max_runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = !strcmp(argv[++i], "s8s8s32") ? 2 : !strcmp(argv[i], "u8s8s32");
        else if (!strcmp(argv[i], "--shape") && i + 1 < argc)
            sscanf(argv[++i], "%dx%dx%d", &shape[0], &shape[1], &shape[2]);
        else if (!strcmp(argv[i], "--trans") && i + 1 < argc) trans = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--min-time S] [--max-runs N] "
                            "[--only sgemm|u8s8s32|s8s8s32] "
                            "[--shape MxNxK] [--trans NN|NT|TN|TT]\n", argv[0]);
            return 2;
        }
    }
    if (max_runs > MAX_RUNS) max_runs = MAX_RUNS;
    for (call = 0; call < 3; call++) {
        const char ta = trans ? trans[0] : 'N', tb = trans ? trans[1] : 'N';
        if (only >= 0 && call != only) continue;
        if (shape[0] > 0) {
            fails += run(call, ta, tb, shape[0], shape[1], shape[2]);
            continue;
        }
        for (im = 0; im < 4; im++)
            for (in = 0; in < 2; in++)
                for (ik = 0; ik < 2; ik++) fails += run(call, ta, tb, ms[im], ns[in], ks[ik]);
        for (s = 0; s < 3; s++) fails += run(call, ta, tb, square[s][0], square[s][1], square[s][2]);
        /* the transposed operands RNN weights come in (B stored N x K) */
        if (!trans) fails += run(call, 'N', 'T', 64, 2048, 512);
    }
    return fails ? 1 : 0;
}
