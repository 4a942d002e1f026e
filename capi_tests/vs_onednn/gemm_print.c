/*
 * gemm_print.c - run deterministic dnnl_gemm_u8s8s32 / dnnl_gemm_s8s8s32 calls
 * through oneDNN's C API and print what each leaves in C, so that two runs (the
 * real oneDNN, oxidnn) can be compared bit for bit with compare_outputs.py:
 *
 *     <case>.hash_hi <n>   <case>.hash_lo <n>   (FNV-1a of every s32 of C, padding
 *                                                 included, split in 16-bit halves)
 *     <case>.first_hi ...  <case>.last_lo ...   (C[0] and the last element, as halves)
 *
 * The halves keep every printed value below 2^16, where compare_outputs.py's
 * default tolerance (rel 1e-5) is exact for integers.
 *
 * Cases: shapes from 1 x 1 x 1 through M = 1, N = 1, K not a multiple of 4 and
 * sizes past the kernels' tiles and thread blocks; every transa x transb x
 * offsetc for both calls, padded leading dimensions, zero points ao / bo zero
 * and not, alpha / beta among 1/0, 1/1, -1/0, -2/3, and for K <= 64 also
 * 1.5/0.5, 1.5/0 (halves to round) and a scale large enough to saturate.
 * Inputs span the whole u8 / s8 ranges.
 *
 * Why K <= 64 for those: oneDNN scales, rounds and saturates each of its K
 * blocks in turn (64 long on AMX machines), so for a non-integer alpha, or a
 * sum that saturates, its result depends on its blocking; oxidnn rounds once,
 * which is oneDNN's result whenever K fits one block.
 *
 * Exit status: 0 when every call succeeded, 1 otherwise (message on stderr).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

#include "../gen_hash.h"

static void print_halves(const char *label, const char *what, uint32_t v) {
    printf("%s.%s_hi %u\n%s.%s_lo %u\n", label, what, (unsigned)(v >> 16), label, what,
            (unsigned)(v & 0xFFFFu));
}

static const struct {
    float alpha, beta;
    int ao, bo;
} params[] = {
        /* any K */
        {1.0f, 0.0f, 0, 0},
        {1.0f, 1.0f, 7, -3},
        {-1.0f, 0.0f, 0, 5},
        {-2.0f, 3.0f, 1, 1},
        /* K <= 64 (one oneDNN K block) */
        {1.5f, 0.5f, 200, -128},
        {1.5f, 0.0f, 0, 0},
        {3.0e6f, 2.0f, 1, 1}, /* saturates */
};
enum { NPARAMS = sizeof(params) / sizeof(params[0]), NPARAMS_ANY_K = 4, SHORT_K = 64 };

static int run_case(int s8, char ta, char tb, char off, int m, int n, int k, int pi,
        int pad) {
    const dnnl_dim_t lda = (ta == 'N' ? k : m) + pad, ldb = (tb == 'N' ? n : k) + pad,
                     ldc = n + pad;
    const size_t alen = (size_t)lda * (ta == 'N' ? m : k),
                 blen = (size_t)ldb * (tb == 'N' ? k : n), clen = (size_t)ldc * m;
    uint8_t *a = malloc(alen ? alen : 1);
    int8_t *b = malloc(blen ? blen : 1);
    int32_t *c = malloc(sizeof(int32_t) * (clen ? clen : 1));
    int32_t *co = malloc(sizeof(int32_t) * (size_t)(m + n + 1));
    const float alpha = params[pi].alpha, beta = params[pi].beta;
    char label[96];
    uint32_t h = 2166136261u;
    dnnl_status_t st;
    size_t i;
    if (!a || !b || !c || !co) {
        fprintf(stderr, "gemm_print: out of memory\n");
        return 1;
    }
    for (i = 0; i < alen; i++) a[i] = (uint8_t)ref_hash((uint32_t)i, 1);
    for (i = 0; i < blen; i++) b[i] = (int8_t)(uint8_t)ref_hash((uint32_t)i, 2);
    for (i = 0; i < clen; i++) c[i] = (int32_t)(ref_hash((uint32_t)i, 3) % 2000001u) - 1000000;
    for (i = 0; i < (size_t)(m + n + 1); i++)
        co[i] = (int32_t)(ref_hash((uint32_t)i, 4) % 20001u) - 10000;
    snprintf(label, sizeof(label), "%s_%c%c%c_%dx%dx%d_p%d_ld%d", s8 ? "s8s8s32" : "u8s8s32",
            ta, tb, off, m, n, k, pi, pad);
    if (s8)
        st = dnnl_gemm_s8s8s32(ta, tb, off, m, n, k, alpha, (const int8_t *)a, lda,
                (int8_t)params[pi].ao, b, ldb, (int8_t)params[pi].bo, beta, c, ldc, co);
    else
        st = dnnl_gemm_u8s8s32(ta, tb, off, m, n, k, alpha, a, lda, (uint8_t)params[pi].ao, b,
                ldb, (int8_t)params[pi].bo, beta, c, ldc, co);
    if (st != dnnl_success) {
        fprintf(stderr, "gemm_print: %s returned %d\n", label, (int)st);
        return 1;
    }
    for (i = 0; i < clen; i++) {
        uint32_t v = (uint32_t)c[i];
        int byte;
        for (byte = 0; byte < 4; byte++) {
            h ^= (v >> (8 * byte)) & 0xFFu;
            h *= 16777619u;
        }
    }
    print_halves(label, "hash", h);
    if (clen) {
        print_halves(label, "first", (uint32_t)c[0]);
        print_halves(label, "last", (uint32_t)c[(size_t)(m - 1) * ldc + (size_t)(n - 1)]);
    }
    free(a);
    free(b);
    free(c);
    free(co);
    return 0;
}

int main(void) {
    static const int shapes[][3] = {{1, 1, 1}, {1, 1, 7}, {3, 5, 7}, {1, 67, 13}, {29, 1, 33},
            {17, 33, 4}, {16, 48, 64}, {100, 301, 67}, {1, 512, 1023}, {64, 130, 259},
            {257, 96, 130}, {130, 515, 64}, {3, 1100, 260}};
    static const char flags[2] = {'N', 'T'}, offs[3] = {'F', 'C', 'R'};
    const int nshapes = (int)(sizeof(shapes) / sizeof(shapes[0]));
    const dnnl_version_t *v = dnnl_version();
    int s8, ta, tb, o, sh, p, fails = 0, cases = 0;
    printf("# gemm_print: library version %d.%d.%d\n", v->major, v->minor, v->patch);
    for (sh = 0; sh < nshapes; sh++)
        for (s8 = 0; s8 < 2; s8++)
            for (ta = 0; ta < 2; ta++)
                for (tb = 0; tb < 2; tb++)
                    for (o = 0; o < 3; o++) {
                        /* every parameter set for each shape, spread over the flags */
                        p = (sh + 2 * s8 + 3 * ta + 5 * tb + 7 * o)
                                % (shapes[sh][2] <= SHORT_K ? NPARAMS : NPARAMS_ANY_K);
                        fails += run_case(s8, flags[ta], flags[tb], offs[o], shapes[sh][0],
                                shapes[sh][1], shapes[sh][2], p, (sh + o) % 3);
                        cases++;
                    }
    /* every parameter set on one shape with all flags 'N' (K <= 64) */
    for (p = 0; p < NPARAMS; p++)
        for (s8 = 0; s8 < 2; s8++) {
            fails += run_case(s8, 'N', 'N', 'R', 37, 70, 45, p, 1);
            cases++;
        }
    printf("# %d cases\n", cases);
    return fails ? 1 : 0;
}
