/*
 * sgemm_bench.c - times dnnl_sgemm (row-major C = A * B, 'N','N' and 'T','T')
 * on a few shapes: best of R runs after a warm-up, in ms and GFLOP/s. Built
 * against oneDNN's headers, it runs on the real oneDNN or, with oxidnn as
 * libdnnl.so.3, on oxidnn. Not built by CMake:
 *
 *   cc -O2 -I<onednn>/include sgemm_bench.c -L<onednn>/lib -ldnnl -o sgemm_bench
 *   (. <onednn>/env.sh; ./sgemm_bench [runs])                # the real oneDNN
 *   ln -s <repo>/target/release/liboxidnn.so <dir>/libdnnl.so.3
 *   LD_LIBRARY_PATH=<dir> ./sgemm_bench [runs]                # oxidnn
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "oneapi/dnnl/dnnl.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    static const int shapes[][3] = {{512, 512, 512}, {64, 2048, 512}, {1000, 1000, 1000}, {32, 4096, 1024}};
    static const char trans[][2] = {{'N', 'N'}, {'T', 'T'}};
    int runs = argc > 1 ? atoi(argv[1]) : 20, s, t, r;
    for (s = 0; s < 4; s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
        float *c = malloc(sizeof(float) * M * N);
        long i;
        for (i = 0; i < (long)M * K; i++) a[i] = (float)(i % 17) * 0.01f;
        for (i = 0; i < (long)K * N; i++) b[i] = (float)(i % 13) * 0.01f;
        for (t = 0; t < 2; t++) {
            char ta = trans[t][0], tb = trans[t][1];
            double best = 1e30;
            for (r = 0; r <= runs; r++) {
                double t0 = now_ms(), ms;
                if (dnnl_sgemm(ta, tb, M, N, K, 1.0f, a, ta == 'N' ? K : M, b,
                            tb == 'N' ? N : K, 0.0f, c, N) != dnnl_success) {
                    fprintf(stderr, "dnnl_sgemm failed\n");
                    return 1;
                }
                ms = now_ms() - t0;
                if (r > 0 && ms < best) best = ms;
            }
            printf("M=%d N=%d K=%d %c%c: %.3f ms  %.1f GFLOP/s\n", M, N, K, ta, tb, best,
                    2.0 * M * N * K / best / 1e6);
        }
        free(a);
        free(b);
        free(c);
    }
    return 0;
}
