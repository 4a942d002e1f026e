/*
 * onednn_bf16_matmul.c - times oneDNN's bf16 matmul on the product of an RNN's merged layer
 * GEMM, beside `examples/bf16_gemm.rs` (oxidnn's bf16 GEMM alone on the same shape):
 * dst f32 [M x N] = src bf16 [M x K] . weights bf16 [K x N] + bias f32 [N], weights in the
 * layout the primitive asks for (`any`, reordered from `ab` once, untimed). Default shape:
 * W5's layer GEMM (LBR-GRU T=50 N=32 C=512), M = 1600, N = 1536, K = 512.
 *
 *   . ~/.cache/onednn-oracle/3.13/env.sh
 *   D=$HOME/.cache/onednn-oracle/3.13
 *   cc -std=c99 -O2 -Wall -Wextra -Werror -I$D/include benchmarks/onednn_bf16_matmul.c \
 *      -L$D/lib -Wl,-rpath-link,$D/lib -Wl,-rpath,$D/lib -ldnnl -o onednn_bf16_matmul
 *   taskset -c 0 ./onednn_bf16_matmul [M N K]      (1 thread: oneDNN 3.13 runs on TBB)
 *
 * Prints `onednn_bf16_matmul M N K <impl> median_ms min_ms gflops`.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oneapi/dnnl/dnnl.h"

#define REPS 50
#define WARMUP 5

#define TRY(call)                                                                  \
    do {                                                                           \
        dnnl_status_t st_ = (call);                                                \
        if (st_ != dnnl_success) {                                                 \
            fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #call,  \
                    (int)st_);                                                     \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* The bf16 of a small value exact in bf16, as examples/bf16_gemm.rs fills its operands. */
static uint16_t value_bf16(size_t i) {
    float x = (float)(i % 61) / 64.0f - 0.45f;
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (uint16_t)((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

static void *data_of(dnnl_memory_t m) {
    void *ptr = NULL;
    TRY(dnnl_memory_get_data_handle(m, &ptr));
    return ptr;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int64_t m = 1600, n = 1536, k = 512;
    if (argc == 4) {
        m = atoll(argv[1]);
        n = atoll(argv[2]);
        k = atoll(argv[3]);
    } else if (argc != 1) {
        fprintf(stderr, "usage: onednn_bf16_matmul [M N K]\n");
        return 2;
    }
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    TRY(dnnl_engine_create(&eng, dnnl_cpu, 0));
    TRY(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    dnnl_memory_desc_t src_md, wei_md, wei_any_md, bias_md, dst_md;
    dnnl_dims_t src_dims = {m, k}, wei_dims = {k, n}, bias_dims = {1, n}, dst_dims = {m, n};
    TRY(dnnl_memory_desc_create_with_tag(&src_md, 2, src_dims, dnnl_bf16, dnnl_ab));
    TRY(dnnl_memory_desc_create_with_tag(&wei_md, 2, wei_dims, dnnl_bf16, dnnl_ab));
    TRY(dnnl_memory_desc_create_with_tag(&wei_any_md, 2, wei_dims, dnnl_bf16,
                                         dnnl_format_tag_any));
    TRY(dnnl_memory_desc_create_with_tag(&bias_md, 2, bias_dims, dnnl_f32, dnnl_ab));
    TRY(dnnl_memory_desc_create_with_tag(&dst_md, 2, dst_dims, dnnl_f32, dnnl_ab));

    dnnl_primitive_desc_t pd;
    TRY(dnnl_matmul_primitive_desc_create(&pd, eng, src_md, wei_any_md, bias_md, dst_md, NULL));
    const char *impl = NULL;
    TRY(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    const_dnnl_memory_desc_t wei_packed_md = dnnl_primitive_desc_query_md(pd,
                                                                          dnnl_query_weights_md, 0);

    dnnl_memory_t src, wei, wei_packed, bias, dst;
    TRY(dnnl_memory_create(&src, src_md, eng, DNNL_MEMORY_ALLOCATE));
    TRY(dnnl_memory_create(&wei, wei_md, eng, DNNL_MEMORY_ALLOCATE));
    TRY(dnnl_memory_create(&wei_packed, wei_packed_md, eng, DNNL_MEMORY_ALLOCATE));
    TRY(dnnl_memory_create(&bias, bias_md, eng, DNNL_MEMORY_ALLOCATE));
    TRY(dnnl_memory_create(&dst, dst_md, eng, DNNL_MEMORY_ALLOCATE));
    uint16_t *s = data_of(src), *w = data_of(wei);
    float *b = data_of(bias);
    for (int64_t i = 0; i < m * k; i++) s[i] = value_bf16((size_t)i);
    for (int64_t i = 0; i < k * n; i++) w[i] = value_bf16((size_t)i * 2);
    for (int64_t i = 0; i < n; i++) {
        uint32_t bits = (uint32_t)value_bf16((size_t)i + 3) << 16;
        memcpy(&b[i], &bits, sizeof bits);
    }

    /* The weights reordered into the primitive's layout once, as an RNN's are. */
    dnnl_primitive_desc_t rpd;
    dnnl_primitive_t reorder;
    TRY(dnnl_reorder_primitive_desc_create(&rpd, wei_md, eng, wei_packed_md, eng, NULL));
    TRY(dnnl_primitive_create(&reorder, rpd));
    dnnl_exec_arg_t rargs[] = {{DNNL_ARG_FROM, wei}, {DNNL_ARG_TO, wei_packed}};
    TRY(dnnl_primitive_execute(reorder, strm, 2, rargs));
    TRY(dnnl_stream_wait(strm));

    dnnl_primitive_t mm;
    TRY(dnnl_primitive_create(&mm, pd));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src},
                              {DNNL_ARG_WEIGHTS, wei_packed},
                              {DNNL_ARG_BIAS, bias},
                              {DNNL_ARG_DST, dst}};
    double ms[REPS];
    for (int r = 0; r < WARMUP + REPS; r++) {
        double t = now_ms();
        TRY(dnnl_primitive_execute(mm, strm, 4, args));
        TRY(dnnl_stream_wait(strm));
        if (r >= WARMUP) ms[r - WARMUP] = now_ms() - t;
    }
    qsort(ms, REPS, sizeof ms[0], cmp_double);
    double median = ms[REPS / 2];
    printf("onednn_bf16_matmul %lld %lld %lld %s %.3f %.3f %.1f\n", (long long)m, (long long)n,
           (long long)k, impl, median, ms[0], 2.0 * (double)(m * n * k) / median * 1e-6);

    dnnl_primitive_destroy(mm);
    dnnl_primitive_destroy(reorder);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(src);
    dnnl_memory_destroy(wei);
    dnnl_memory_destroy(wei_packed);
    dnnl_memory_destroy(bias);
    dnnl_memory_destroy(dst);
    dnnl_memory_desc_destroy(src_md);
    dnnl_memory_desc_destroy(wei_md);
    dnnl_memory_desc_destroy(wei_any_md);
    dnnl_memory_desc_destroy(bias_md);
    dnnl_memory_desc_destroy(dst_md);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
