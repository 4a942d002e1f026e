/*
 * peak.c - measured f32 peak of this machine, the yardstick for the RNN
 * benchmark's "% of peak" columns.
 *
 *   peak fma THREADS     FMA throughput: each thread runs a register-only
 *                        loop of independent vfmadd (24 accumulators: 2 FMA
 *                        ports x 4-cycle latency needs >= 8 in flight, 24
 *                        leaves room for slower FMA units) on 512-bit
 *                        vectors (256-bit when the CPU has no AVX-512F).
 *                        Prints  PEAK fma <threads> <gflops> <isa>
 *   peak sgemm [SIZE]    (only when built with -DPEAK_WITH_SGEMM and linked
 *                        with the real oneDNN) dnnl_sgemm, row-major
 *                        C = A*B, SIZE^3 (default 1024), threads as the
 *                        library's runtime decides (OMP_NUM_THREADS).
 *                        Prints  PEAK sgemm <size> <gflops>
 *   peak sgemm M N K     the same for C[M x N] = A[M x K] * B[K x N] (an RNN's
 *                        merged GEMM: M = T*N, N = gates*DHC, K = SLC).
 *                        Prints  PEAK sgemm <M>x<N>x<K> <gflops>
 *
 * Each figure is the best of 5 timed repetitions of ~0.2 s.
 *
 * Build: cc -std=c99 -O2 -Wall -Wextra -Werror -pthread benchmarks/peak.c -o peak
 *        (add -DPEAK_WITH_SGEMM -I<onednn>/include -L<onednn>/lib -ldnnl for sgemm)
 */
#define _POSIX_C_SOURCE 200112L

#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PEAK_WITH_SGEMM
#include "oneapi/dnnl/dnnl.h"
#endif

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* FMA loop. a <- a*m + c converges to c/(1-m) = 1: no overflow, no denormals. */

#define NACC 24
#define REP24(X) \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) \
    X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)

__attribute__((target("avx512f"), noinline)) static float fma_loop_512(long iters) {
    const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(0.000001f);
#define DECL(i) __m512 a##i = _mm512_set1_ps(0.5f + 0.01f * (float)(i));
    REP24(DECL)
#undef DECL
    for (long it = 0; it < iters; it++) {
#define STEP(i) a##i = _mm512_fmadd_ps(a##i, m, c);
        REP24(STEP)
#undef STEP
    }
    __m512 s = _mm512_setzero_ps();
#define SUM(i) s = _mm512_add_ps(s, a##i);
    REP24(SUM)
#undef SUM
    return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"), noinline)) static float fma_loop_256(long iters) {
    const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(0.000001f);
#define DECL(i) __m256 a##i = _mm256_set1_ps(0.5f + 0.01f * (float)(i));
    REP24(DECL)
#undef DECL
    for (long it = 0; it < iters; it++) {
#define STEP(i) a##i = _mm256_fmadd_ps(a##i, m, c);
        REP24(STEP)
#undef STEP
    }
    __m256 s = _mm256_setzero_ps();
#define SUM(i) s = _mm256_add_ps(s, a##i);
    REP24(SUM)
#undef SUM
    float out[8];
    _mm256_storeu_ps(out, s);
    return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}

static int g_avx512 = 0;
static volatile float g_sink = 0.0f;

static int lanes(void) { return g_avx512 ? 16 : 8; }

static float fma_loop(long iters) {
    return g_avx512 ? fma_loop_512(iters) : fma_loop_256(iters);
}

typedef struct {
    long iters;
    pthread_barrier_t *barrier;
    float result;
} job_t;

static void *worker(void *arg) {
    job_t *j = arg;
    pthread_barrier_wait(j->barrier);
    j->result = fma_loop(j->iters);
    return NULL;
}

/* Seconds for `threads` threads each running `iters` iterations at once. */
static double run_threads(int threads, long iters) {
    pthread_t tid[64];
    job_t jobs[64];
    pthread_barrier_t barrier;
    double t0, t1;
    pthread_barrier_init(&barrier, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) {
        jobs[i].iters = iters;
        jobs[i].barrier = &barrier;
        if (pthread_create(&tid[i], NULL, worker, &jobs[i]) != 0) {
            fprintf(stderr, "peak: pthread_create failed\n");
            exit(1);
        }
    }
    pthread_barrier_wait(&barrier);
    t0 = now_s();
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        g_sink += jobs[i].result;
    }
    t1 = now_s();
    pthread_barrier_destroy(&barrier);
    return t1 - t0;
}

static int peak_fma(int threads) {
    long iters = 100000;
    double best = 0.0;
    if (threads < 1 || threads > 64) {
        fprintf(stderr, "peak: threads must be 1..64\n");
        return 2;
    }
    __builtin_cpu_init();
    g_avx512 = __builtin_cpu_supports("avx512f");
    if (!g_avx512 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
        fprintf(stderr, "peak: the CPU has neither AVX-512F nor AVX2+FMA\n");
        return 1;
    }
    /* Calibrate to ~0.2 s per repetition. */
    for (;;) {
        const double t = run_threads(threads, iters);
        if (t > 0.05) {
            iters = (long)((double)iters * 0.2 / t) + 1;
            break;
        }
        iters *= 4;
    }
    for (int r = 0; r < 5; r++) {
        const double t = run_threads(threads, iters);
        const double flops = 2.0 * NACC * lanes() * (double)iters * threads;
        if (flops / t > best) best = flops / t;
    }
    printf("PEAK fma %d %.1f %s\n", threads, best * 1e-9, g_avx512 ? "avx512" : "avx2");
    return 0;
}

/* ------------------------------------------------------------------------ */

#ifdef PEAK_WITH_SGEMM
/* dnnl_sgemm C[m x n] = A[m x k] * B[k x n], row-major; `label` is printed as the shape. */
static int peak_sgemm(long m, long n, long k, const char *label) {
    const size_t sa = (size_t)m * (size_t)k, sb = (size_t)k * (size_t)n, sc = (size_t)m * (size_t)n;
    float *a = malloc(sa * sizeof *a), *b = malloc(sb * sizeof *b), *c = malloc(sc * sizeof *c);
    double best = 0.0;
    int reps = 1;
    if (!a || !b || !c) {
        fprintf(stderr, "peak: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < sa; i++) a[i] = (float)((i * 7u) % 13u) * 0.01f - 0.06f;
    for (size_t i = 0; i < sb; i++) b[i] = (float)((i * 5u) % 11u) * 0.01f - 0.05f;
    for (size_t i = 0; i < sc; i++) c[i] = 0.0f;
    /* warm-up + calibration */
    for (;;) {
        const double t0 = now_s();
        for (int r = 0; r < reps; r++) {
            dnnl_status_t st = dnnl_sgemm('N', 'N', m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
            if (st != dnnl_success) {
                fprintf(stderr, "peak: dnnl_sgemm failed (%d)\n", (int)st);
                return 1;
            }
        }
        const double t = now_s() - t0;
        if (t > 0.05) {
            reps = (int)((double)reps * 0.2 / t) + 1;
            break;
        }
        reps *= 2;
    }
    for (int r5 = 0; r5 < 5; r5++) {
        const double t0 = now_s();
        for (int r = 0; r < reps; r++)
            if (dnnl_sgemm('N', 'N', m, n, k, 1.0f, a, k, b, n, 0.0f, c, n) != dnnl_success)
                return 1;
        const double t = now_s() - t0;
        const double gf = 2.0 * (double)m * (double)n * (double)k * reps / t * 1e-9;
        if (gf > best) best = gf;
    }
    printf("PEAK sgemm %s %.1f\n", label, best);
    free(a);
    free(b);
    free(c);
    return 0;
}
#endif

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "fma"))
        return peak_fma(argc >= 3 ? atoi(argv[2]) : 1);
#ifdef PEAK_WITH_SGEMM
    if (argc >= 2 && !strcmp(argv[1], "sgemm")) {
        const long m = argc >= 3 ? atol(argv[2]) : 1024;
        char label[64];
        if (argc >= 5) {
            snprintf(label, sizeof label, "%ldx%ldx%ld", m, atol(argv[3]), atol(argv[4]));
            return peak_sgemm(m, atol(argv[3]), atol(argv[4]), label);
        }
        snprintf(label, sizeof label, "%ld", m);
        return peak_sgemm(m, m, m, label);
    }
#endif
    fprintf(stderr, "usage: peak fma THREADS"
#ifdef PEAK_WITH_SGEMM
                    " | peak sgemm [SIZE | M N K]"
#endif
                    "\n");
    return 2;
}
