/*
 * test_bad_input.c - wrong input everywhere, and the exact status the real
 * oneDNN returns for it: NULL out-params and handles, malformed memory
 * descriptors, every LSTM dims rule (reference notes §a.6), mismatched data
 * types, unknown enum values, wrong propagation kinds, bad reorders, and
 * bad execute calls (nargs < 0, args NULL, missing / NULL / duplicate
 * arguments).
 *
 * Every expected status was measured on the real oneDNN 3.13 (cases that
 * return something else on 3.2 use CHECK_STATUS_V and say so). Calls that
 * crash the real oneDNN (it does not check those NULLs) are asserted only
 * when built against oxidnn, whose generated header defines OXIDNN_H; there
 * the answer must be dnnl_invalid_arguments.
 */
#include <string.h>

#include "check.h"
#include "md_pool.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;

/* ------------------------------------------------------------------------ */
/* the LSTM creation matrix                                                 */

/*
 * Base problem: left2right, L = 1, D = 1, T = 3, N = 2, SLC = 5,
 * SIC = DHC = 4, forward_training, every state given, weights ldigo.
 */
typedef struct {
    dnnl_prop_kind_t prop;
    dnnl_rnn_direction_t dir;
    const_dnnl_memory_desc_t src, si, sic, wl, wi, peephole, projection, bias,
            dst, di, dic;
} lstm_args_t;

static lstm_args_t base_args(void) {
    lstm_args_t a;
    a.prop = dnnl_forward_training;
    a.dir = dnnl_unidirectional_left2right;
    a.src = MD3(3, 2, 5, dnnl_tnc);
    a.si = MD4(1, 1, 2, 4, dnnl_ldnc);
    a.sic = MD4(1, 1, 2, 4, dnnl_ldnc);
    a.wl = MD5(1, 1, 5, 4, 4, dnnl_ldigo);
    a.wi = MD5(1, 1, 4, 4, 4, dnnl_ldigo);
    a.peephole = NULL;
    a.projection = NULL;
    a.bias = MD4(1, 1, 4, 4, dnnl_ldgo);
    a.dst = MD3(3, 2, 4, dnnl_tnc);
    a.di = MD4(1, 1, 2, 4, dnnl_ldnc);
    a.dic = MD4(1, 1, 2, 4, dnnl_ldnc);
    return a;
}

/* The same problem with L layers, D directions, SLC = DHC = C. */
static lstm_args_t multi_args(int L, dnnl_rnn_direction_t dir, int D, int C,
        int DLC) {
    lstm_args_t a = base_args();
    a.dir = dir;
    a.src = MD3(3, 2, C, dnnl_tnc);
    a.si = MD4(L, D, 2, C, dnnl_ldnc);
    a.sic = MD4(L, D, 2, C, dnnl_ldnc);
    a.wl = MD5(L, D, C, 4, C, dnnl_ldigo);
    a.wi = MD5(L, D, C, 4, C, dnnl_ldigo);
    a.bias = MD4(L, D, 4, C, dnnl_ldgo);
    a.dst = MD3(3, 2, DLC, dnnl_tnc);
    a.di = MD4(L, D, 2, C, dnnl_ldnc);
    a.dic = MD4(L, D, 2, C, dnnl_ldnc);
    return a;
}

static dnnl_status_t create_lstm(const lstm_args_t *a) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_lstm_forward_primitive_desc_create(&pd, eng,
            a->prop, a->dir, a->src, a->si, a->sic, a->wl, a->wi, a->peephole,
            a->projection, a->bias, a->dst, a->di, a->dic, 0, NULL);
    if (st != dnnl_success)
        CHECK(pd == NULL, "failed creation returned a pd");
    dnnl_primitive_desc_destroy(pd);
    pool_free();
    return st;
}

/* CASE(name, statements modifying `a`, expected status) */
#define LSTM_CASE(name, modify, expected) \
    do { \
        lstm_args_t a = base_args(); \
        modify; \
        if (!CHECK_STATUS(create_lstm(&a), (expected))) \
            fprintf(stderr, "  in case: %s\n", (name)); \
    } while (0)

#define LSTM_CASE_V(name, modify, expected_313, expected_32) \
    do { \
        lstm_args_t a = base_args(); \
        modify; \
        if (!CHECK_STATUS_V(create_lstm(&a), (expected_313), (expected_32))) \
            fprintf(stderr, "  in case: %s\n", (name)); \
    } while (0)

static void test_lstm_creation(void) {
    const dnnl_status_t ok = dnnl_success, inv = dnnl_invalid_arguments,
                        unimp = dnnl_unimplemented;

    /* the base problem and its valid variants are accepted */
    LSTM_CASE("baseline", (void)0, ok);
    LSTM_CASE("baseline inference", a.prop = dnnl_forward_inference, ok);
    LSTM_CASE("no states (NULL)", a.si = a.sic = a.di = a.dic = NULL, ok);
    LSTM_CASE("no states (zero md)",
            a.si = a.sic = a.di = a.dic = zero_md(), ok);
    LSTM_CASE("L=2 with SLC == DIC", a = multi_args(2, a.dir, 1, 4, 4), ok);
    LSTM_CASE("bidirectional_concat, D=2, DLC=2*DHC",
            a = multi_args(1, dnnl_bidirectional_concat, 2, 4, 8), ok);
    LSTM_CASE("SIC != DHC allowed when T == 1",
            (a.src = MD3(1, 2, 5, dnnl_tnc), a.dst = MD3(1, 2, 4, dnnl_tnc),
                    a.si = MD4(1, 1, 2, 3, dnnl_ldnc),
                    a.wi = MD5(1, 1, 3, 4, 4, dnnl_ldigo)),
            ok);

    /* mandatory tensors (§a.6) */
    LSTM_CASE("src_layer NULL", a.src = NULL, inv);
    LSTM_CASE("weights_layer NULL", a.wl = NULL, inv);
    LSTM_CASE("weights_iter NULL", a.wi = NULL, inv);
    LSTM_CASE("dst_layer NULL", a.dst = NULL, inv);
    LSTM_CASE("src_layer zero md", a.src = zero_md(), unimp);
    /* oneDNN's CPU LSTM needs a bias; oxidnn accepts an absent bias as zeros
     * (a documented superset) */
    const dnnl_status_t no_bias = check_running_on_oxidnn() ? ok : unimp;
    LSTM_CASE("bias NULL", a.bias = NULL, no_bias);
    LSTM_CASE("bias zero md", a.bias = zero_md(), no_bias);

    /* LSTM states come in pairs */
    LSTM_CASE("src_iter without src_iter_c", a.sic = NULL, inv);
    LSTM_CASE("src_iter_c without src_iter", a.si = NULL, inv);
    LSTM_CASE("dst_iter without dst_iter_c", a.dic = NULL, inv);
    LSTM_CASE("dst_iter_c without dst_iter", a.di = NULL, inv);
    LSTM_CASE("src_iter with zero-md src_iter_c", a.sic = zero_md(), inv);

    /* SLC: src_layer C vs weights_layer I */
    LSTM_CASE("SLC mismatch (src_layer C 6, weights_layer I 5)",
            a.src = MD3(3, 2, 6, dnnl_tnc), inv);
    LSTM_CASE("SLC mismatch (weights_layer I 6, src_layer C 5)",
            a.wl = MD5(1, 1, 6, 4, 4, dnnl_ldigo), inv);
    /* SIC: src_iter C vs weights_iter I, and T > 1 needs SIC == DIC */
    LSTM_CASE("SIC mismatch (src_iter C 3, weights_iter I 4)",
            a.si = MD4(1, 1, 2, 3, dnnl_ldnc), inv);
    LSTM_CASE("SIC 3 != DIC 4 with T > 1",
            (a.si = MD4(1, 1, 2, 3, dnnl_ldnc),
                    a.wi = MD5(1, 1, 3, 4, 4, dnnl_ldigo)),
            inv);
    /* DHC: every tensor carrying the hidden size must agree */
    LSTM_CASE("DHC mismatch (weights_iter O 5)",
            a.wi = MD5(1, 1, 4, 4, 5, dnnl_ldigo), inv);
    LSTM_CASE("DHC mismatch (bias O 5)", a.bias = MD4(1, 1, 4, 5, dnnl_ldgo), inv);
    LSTM_CASE("DHC mismatch (src_iter_c C 5)",
            a.sic = MD4(1, 1, 2, 5, dnnl_ldnc), inv);
    LSTM_CASE("DLC mismatch (dst_layer C 5, DIC 4)",
            a.dst = MD3(3, 2, 5, dnnl_tnc), inv);
    /* L > 1 needs SLC == DIC */
    LSTM_CASE("L=2 with SLC 5 != DIC 4",
            (a.si = MD4(2, 1, 2, 4, dnnl_ldnc), a.sic = MD4(2, 1, 2, 4, dnnl_ldnc),
                    a.wl = MD5(2, 1, 5, 4, 4, dnnl_ldigo),
                    a.wi = MD5(2, 1, 4, 4, 4, dnnl_ldigo),
                    a.bias = MD4(2, 1, 4, 4, dnnl_ldgo),
                    a.di = MD4(2, 1, 2, 4, dnnl_ldnc),
                    a.dic = MD4(2, 1, 2, 4, dnnl_ldnc)),
            inv);
    /* T and N agree between src and dst */
    LSTM_CASE("T mismatch (src 3, dst 4)", a.dst = MD3(4, 2, 4, dnnl_tnc), inv);
    LSTM_CASE("N mismatch (src 2, dst 3)", a.dst = MD3(3, 3, 4, dnnl_tnc), inv);
    LSTM_CASE("N mismatch (src_iter N 3)", a.si = MD4(1, 1, 3, 4, dnnl_ldnc), inv);
    /* D must match the direction */
    LSTM_CASE("D=2 with left2right",
            a = multi_args(1, dnnl_unidirectional_left2right, 2, 4, 4), inv);
    LSTM_CASE("D=2 with right2left",
            a = multi_args(1, dnnl_unidirectional_right2left, 2, 4, 4), inv);
    LSTM_CASE("D=1 with bidirectional_concat",
            a = multi_args(1, dnnl_bidirectional_concat, 1, 4, 8), inv);
    LSTM_CASE("D=1 with bidirectional_sum",
            a = multi_args(1, dnnl_bidirectional_sum, 1, 4, 4), inv);
    LSTM_CASE("D=3", a = multi_args(1, dnnl_bidirectional_concat, 3, 4, 8), inv);
    LSTM_CASE("bidirectional_concat with dst_layer C = DHC",
            a = multi_args(1, dnnl_bidirectional_concat, 2, 4, 4), inv);
    LSTM_CASE("bidirectional_sum with dst_layer C = 2*DHC",
            a = multi_args(1, dnnl_bidirectional_sum, 2, 4, 8), inv);
    /* bias dims {L, D, 4, DHC} */
    LSTM_CASE("bias G=3", a.bias = MD4(1, 1, 3, 4, dnnl_ldgo), inv);
    LSTM_CASE("bias L=2", a.bias = MD4(2, 1, 4, 4, dnnl_ldgo), inv);
    LSTM_CASE("bias D=2", a.bias = MD4(1, 2, 4, 4, dnnl_ldgo), inv);
    LSTM_CASE("bias 3-D", a.bias = MD3(1, 4, 4, dnnl_abc), inv);
    /* weights dims {L, D, I, 4, DHC} */
    LSTM_CASE("weights G=3",
            (a.wl = MD5(1, 1, 5, 3, 4, dnnl_ldigo),
                    a.wi = MD5(1, 1, 4, 3, 4, dnnl_ldigo),
                    a.bias = MD4(1, 1, 3, 4, dnnl_ldgo)),
            inv);
    LSTM_CASE("weights_layer G=3 only", a.wl = MD5(1, 1, 5, 3, 4, dnnl_ldigo), inv);
    LSTM_CASE("weights_layer L=2 only", a.wl = MD5(2, 1, 5, 4, 4, dnnl_ldigo), inv);
    LSTM_CASE("weights_iter L=2 only", a.wi = MD5(2, 1, 4, 4, 4, dnnl_ldigo), inv);
    LSTM_CASE("weights_layer 4-D", a.wl = MD4(1, 5, 4, 4, dnnl_abcd), inv);
    LSTM_CASE("src_layer 4-D", a.src = MD4(3, 2, 5, 1, dnnl_abcd), inv);
    LSTM_CASE("src_layer 2-D",
            a.src = md_dt(2, 3, 10, 0, 0, 0, dnnl_f32, dnnl_ab), inv);
    /* dst_iter / dst_iter_c dims {L, D, N, DIC / DHC} */
    LSTM_CASE("dst_iter N 3", a.di = MD4(1, 1, 3, 4, dnnl_ldnc), inv);
    LSTM_CASE("dst_iter C 5", a.di = MD4(1, 1, 2, 5, dnnl_ldnc), inv);
    LSTM_CASE("dst_iter L 2", a.di = MD4(2, 1, 2, 4, dnnl_ldnc), inv);
    LSTM_CASE("dst_iter 5-D",
            a.di = md_dt(5, 1, 1, 1, 2, 4, dnnl_f32, dnnl_abcde), inv);
    LSTM_CASE("dst_iter_c C 5", a.dic = MD4(1, 1, 2, 5, dnnl_ldnc), inv);
    LSTM_CASE("src_iter L 2", a.si = MD4(2, 1, 2, 4, dnnl_ldnc), inv);
    /* peephole dims {L, D, 3, DHC} */
    LSTM_CASE("peephole G=4", a.peephole = MD4(1, 1, 4, 4, dnnl_ldgo), inv);

    /* data types: mixes no implementation supports */
    LSTM_CASE("s8 weights with f32 data",
            (a.wl = md_dt(5, 1, 1, 5, 4, 4, dnnl_s8, dnnl_ldigo),
                    a.wi = md_dt(5, 1, 1, 4, 4, 4, dnnl_s8, dnnl_ldigo)),
            unimp);
    LSTM_CASE("s8 weights (any) with f32 data",
            (a.wl = md_dt(5, 1, 1, 5, 4, 4, dnnl_s8, dnnl_format_tag_any),
                    a.wi = md_dt(5, 1, 1, 4, 4, 4, dnnl_s8, dnnl_format_tag_any)),
            unimp);
    LSTM_CASE("s8 weights_layer, f32 weights_iter",
            a.wl = md_dt(5, 1, 1, 5, 4, 4, dnnl_s8, dnnl_ldigo), unimp);
    LSTM_CASE("u8 src/dst layer with f32 weights, no int8 attr",
            (a.src = md_dt(3, 3, 2, 5, 0, 0, dnnl_u8, dnnl_tnc),
                    a.dst = md_dt(3, 3, 2, 4, 0, 0, dnnl_u8, dnnl_tnc)),
            unimp);
    LSTM_CASE("u8 src_layer, f32 everything else",
            a.src = md_dt(3, 3, 2, 5, 0, 0, dnnl_u8, dnnl_tnc), unimp);
    LSTM_CASE("f16 dst_layer, f32 everything else",
            a.dst = md_dt(3, 3, 2, 4, 0, 0, dnnl_f16, dnnl_tnc), unimp);
    LSTM_CASE("s32 src/dst layer",
            (a.src = md_dt(3, 3, 2, 5, 0, 0, dnnl_s32, dnnl_tnc),
                    a.dst = md_dt(3, 3, 2, 4, 0, 0, dnnl_s32, dnnl_tnc)),
            unimp);
    LSTM_CASE("f16 bias", a.bias = md_dt(4, 1, 1, 4, 4, 0, dnnl_f16, dnnl_ldgo),
            unimp);
    LSTM_CASE("s32 bias", a.bias = md_dt(4, 1, 1, 4, 4, 0, dnnl_s32, dnnl_ldgo),
            unimp);
    LSTM_CASE("f16 src_iter",
            a.si = md_dt(4, 1, 1, 2, 4, 0, dnnl_f16, dnnl_ldnc), unimp);
    LSTM_CASE("bf16 src_iter_c",
            a.sic = md_dt(4, 1, 1, 2, 4, 0, dnnl_bf16, dnnl_ldnc), unimp);
    LSTM_CASE("s8 dst_iter_c",
            a.dic = md_dt(4, 1, 1, 2, 4, 0, dnnl_s8, dnnl_ldnc), unimp);

    /* enum values: unknown ones, and kinds a forward creator does not take.
     * oneDNN 3.2 answered dnnl_unimplemented for these props; 3.13 answers
     * dnnl_invalid_arguments. */
    LSTM_CASE_V("prop 12345", a.prop = (dnnl_prop_kind_t)12345, inv, unimp);
    LSTM_CASE_V("prop undef", a.prop = dnnl_prop_kind_undef, inv, unimp);
    LSTM_CASE_V("prop backward_data", a.prop = dnnl_backward_data, inv, unimp);
    LSTM_CASE_V("prop backward_weights", a.prop = dnnl_backward_weights, inv,
            unimp);
    LSTM_CASE("prop backward", a.prop = dnnl_backward, inv);
    LSTM_CASE("direction 99", a.dir = (dnnl_rnn_direction_t)99, inv);
    LSTM_CASE("direction undef", a.dir = dnnl_rnn_direction_undef, inv);

    /* NULL out-param */
    {
        lstm_args_t a = base_args();
        CHECK_STATUS(dnnl_lstm_forward_primitive_desc_create(NULL, eng, a.prop,
                             a.dir, a.src, a.si, a.sic, a.wl, a.wi, NULL, NULL,
                             a.bias, a.dst, a.di, a.dic, 0, NULL),
                inv);
        pool_free();
    }
}

/* ------------------------------------------------------------------------ */
/* LSTM with projection (LSTMP)                                             */

/*
 * Base LSTMP problem: left2right, L = 1, D = 1, T = 3, N = 2, SLC = 5,
 * DHC = 4, DIC = SIC = 3, forward_training, every state given: h states
 * {L, D, N, DIC}, c states {L, D, N, DHC}, projection {L, D, DHC, DIC} ldio.
 * (The other cells' creators take no projection argument, so "projection on a
 * non-LSTM cell" cannot be expressed through the C API.)
 */
static lstm_args_t proj_args(int dic) {
    lstm_args_t a = base_args();
    a.si = MD4(1, 1, 2, dic, dnnl_ldnc);
    a.wi = MD5(1, 1, dic, 4, 4, dnnl_ldigo);
    a.projection = MD4(1, 1, 4, dic, dnnl_ldio);
    a.dst = MD3(3, 2, dic, dnnl_tnc);
    a.di = MD4(1, 1, 2, dic, dnnl_ldnc);
    return a;
}

/* The LSTMP problem with L layers and D directions, SLC = DIC (C channels of
 * dst_layer: DLC). */
static lstm_args_t proj_multi_args(int L, dnnl_rnn_direction_t dir, int D,
        int dic, int DLC) {
    lstm_args_t a = base_args();
    a.dir = dir;
    a.src = MD3(3, 2, dic, dnnl_tnc);
    a.si = MD4(L, D, 2, dic, dnnl_ldnc);
    a.sic = MD4(L, D, 2, 4, dnnl_ldnc);
    a.wl = MD5(L, D, dic, 4, 4, dnnl_ldigo);
    a.wi = MD5(L, D, dic, 4, 4, dnnl_ldigo);
    a.projection = MD4(L, D, 4, dic, dnnl_ldio);
    a.bias = MD4(L, D, 4, 4, dnnl_ldgo);
    a.dst = MD3(3, 2, DLC, dnnl_tnc);
    a.di = MD4(L, D, 2, dic, dnnl_ldnc);
    a.dic = MD4(L, D, 2, 4, dnnl_ldnc);
    return a;
}

#define PROJ_CASE(name, dic, modify, expected) \
    do { \
        lstm_args_t a = proj_args(dic); \
        modify; \
        if (!CHECK_STATUS(create_lstm(&a), (expected))) \
            fprintf(stderr, "  in case: %s\n", (name)); \
    } while (0)

static void test_lstm_projection_creation(void) {
    const dnnl_status_t ok = dnnl_success, inv = dnnl_invalid_arguments,
                        unimp = dnnl_unimplemented;

    /* valid LSTMP problems */
    PROJ_CASE("projection DIC 3 < DHC 4", 3, (void)0, ok);
    PROJ_CASE("projection inference", 3, a.prop = dnnl_forward_inference, ok);
    PROJ_CASE("projection DIC 6 > DHC 4", 6, (void)0, ok);
    PROJ_CASE("projection DIC == DHC", 4, (void)0, ok);
    PROJ_CASE("projection with peephole", 3,
            a.peephole = MD4(1, 1, 3, 4, dnnl_ldgo), ok);
    PROJ_CASE("projection format any", 3,
            a.projection = MD4(1, 1, 4, 3, dnnl_format_tag_any), ok);
    /* oneDNN's CPU forward takes projection weights as ldio (or `any`) only;
     * oxidnn packs any strided layout (a documented superset) */
    const dnnl_status_t strided_proj = check_running_on_oxidnn() ? ok : unimp;
    PROJ_CASE("projection ldoi", 3,
            a.projection = MD4(1, 1, 4, 3, dnnl_ldoi), strided_proj);
    PROJ_CASE("projection ldoi, inference", 3,
            (a.prop = dnnl_forward_inference,
                    a.projection = MD4(1, 1, 4, 3, dnnl_ldoi)),
            strided_proj);
    PROJ_CASE("projection, no states", 3,
            a.si = a.sic = a.di = a.dic = NULL, ok);
    PROJ_CASE("projection L=2, SLC == DIC", 3,
            a = proj_multi_args(2, dnnl_unidirectional_left2right, 1, 3, 3), ok);
    PROJ_CASE("projection bidirectional_concat, DLC = 2*DIC", 3,
            a = proj_multi_args(1, dnnl_bidirectional_concat, 2, 3, 6), ok);
    PROJ_CASE("projection bidirectional_sum, DLC = DIC", 3,
            a = proj_multi_args(2, dnnl_bidirectional_sum, 2, 3, 3), ok);
    PROJ_CASE("projection T=1 with SIC 5 != DIC 3", 3,
            (a.src = MD3(1, 2, 5, dnnl_tnc), a.dst = MD3(1, 2, 3, dnnl_tnc),
                    a.si = MD4(1, 1, 2, 5, dnnl_ldnc),
                    a.wi = MD5(1, 1, 5, 4, 4, dnnl_ldigo)),
            ok);

    /* dims rules (§a.6) with DIC != DHC */
    PROJ_CASE("projection I 5 != DHC 4", 3,
            a.projection = MD4(1, 1, 5, 3, dnnl_ldio), inv);
    PROJ_CASE("projection O 2 != dst_layer C 3", 3,
            a.projection = MD4(1, 1, 4, 2, dnnl_ldio), inv);
    PROJ_CASE("dst_layer C = DHC instead of DIC", 3,
            a.dst = MD3(3, 2, 4, dnnl_tnc), inv);
    PROJ_CASE("dst_iter C = DHC instead of DIC", 3,
            a.di = MD4(1, 1, 2, 4, dnnl_ldnc), inv);
    PROJ_CASE("dst_iter_c C = DIC instead of DHC", 3,
            a.dic = MD4(1, 1, 2, 3, dnnl_ldnc), inv);
    PROJ_CASE("src_iter_c C = DIC instead of DHC", 3,
            a.sic = MD4(1, 1, 2, 3, dnnl_ldnc), inv);
    PROJ_CASE("T > 1 with SIC = DHC 4 != DIC 3", 3,
            (a.si = MD4(1, 1, 2, 4, dnnl_ldnc),
                    a.wi = MD5(1, 1, 4, 4, 4, dnnl_ldigo)),
            inv);
    PROJ_CASE("L=2 with SLC 5 != DIC 3", 3,
            (a = proj_multi_args(2, dnnl_unidirectional_left2right, 1, 3, 3),
                    a.src = MD3(3, 2, 5, dnnl_tnc),
                    a.wl = MD5(2, 1, 5, 4, 4, dnnl_ldigo)),
            inv);
    PROJ_CASE("bidirectional_concat with dst_layer C = DIC", 3,
            a = proj_multi_args(1, dnnl_bidirectional_concat, 2, 3, 3), inv);
    PROJ_CASE("projection L=2 only", 3,
            a.projection = MD4(2, 1, 4, 3, dnnl_ldio), inv);
    PROJ_CASE("projection D=2 with left2right", 3,
            a.projection = MD4(1, 2, 4, 3, dnnl_ldio), inv);
    PROJ_CASE("projection 5-D", 3,
            a.projection = md_dt(5, 1, 1, 4, 1, 3, dnnl_f32, dnnl_abcde), inv);
    PROJ_CASE("projection 3-D", 3,
            a.projection = MD3(1, 4, 3, dnnl_abc), inv);
    PROJ_CASE("projection zero md (then DIC = DHC 4 != 3)", 3,
            a.projection = zero_md(), inv);

    /* data types */
    PROJ_CASE("bf16 projection, f32 everything else", 3,
            a.projection = md_dt(4, 1, 1, 4, 3, 0, dnnl_bf16, dnnl_ldio), unimp);
    PROJ_CASE("s8 projection, f32 everything else", 3,
            a.projection = md_dt(4, 1, 1, 4, 3, 0, dnnl_s8, dnnl_ldio), unimp);
}

/* ------------------------------------------------------------------------ */
/* memory descriptors                                                       */

static void test_memory_desc(void) {
    dnnl_memory_desc_t md = NULL, tnc = NULL, any = NULL, zero = NULL;
    dnnl_dims_t d = {3, 2, 5}, neg = {3, -2, 5}, strides = {10, 5, 1},
                neg_strides = {-10, 5, 1}, overlap = {1, 1, 1},
                ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    dnnl_dims_t sub_d = {2, 2, 3}, sub_off = {1, 0, 2}, off_oob = {2, 0, 3},
                big = {4, 2, 5}, off_neg = {-1, 0, 0};
    const dnnl_status_t inv = dnnl_invalid_arguments;
    int nd = 0;

#define MD_FAILS(call, expected) \
    do { \
        md = NULL; \
        CHECK_STATUS(call, expected); \
        dnnl_memory_desc_destroy(md); \
    } while (0)

    /* create_with_tag */
    MD_FAILS(dnnl_memory_desc_create_with_tag(NULL, 3, d, dnnl_f32, dnnl_tnc), inv);
    MD_FAILS(dnnl_memory_desc_create_with_tag(&md, 3, NULL, dnnl_f32, dnnl_tnc),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_tag(&md, -1, d, dnnl_f32, dnnl_tnc), inv);
    MD_FAILS(dnnl_memory_desc_create_with_tag(
                     &md, 13, ones, dnnl_f32, dnnl_format_tag_any),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_tag(&md, 3, neg, dnnl_f32, dnnl_tnc),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_tag(
                     &md, 3, d, (dnnl_data_type_t)99, dnnl_tnc),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_tag(
                     &md, 3, d, dnnl_data_type_undef, dnnl_tnc),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_tag(
                     &md, 3, d, dnnl_f32, (dnnl_format_tag_t)9999),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_tag(
                     &md, 3, d, dnnl_f32, (dnnl_format_tag_t)-1),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_tag(&md, 4, ones, dnnl_f32, dnnl_tnc),
            inv); /* tnc is 3-D */
    MD_FAILS(dnnl_memory_desc_create_with_tag(&md, 3, d, dnnl_f32, dnnl_ldigo),
            inv); /* ldigo is 5-D */
    MD_FAILS(dnnl_memory_desc_create_with_tag(&md, 4, ones, dnnl_f32, dnnl_ldigo),
            inv);
    /* create_with_strides */
    MD_FAILS(dnnl_memory_desc_create_with_strides(NULL, 3, d, dnnl_f32, strides),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_strides(&md, 3, NULL, dnnl_f32, strides),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_strides(
                     &md, 3, d, dnnl_f32, neg_strides),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_strides(&md, 3, d, dnnl_f32, overlap),
            inv); /* elements would overlap */
    MD_FAILS(dnnl_memory_desc_create_with_strides(
                     &md, 3, d, (dnnl_data_type_t)99, strides),
            inv);
    MD_FAILS(dnnl_memory_desc_create_with_strides(&md, 13, ones, dnnl_f32, ones),
            inv);

    /* sub-memories */
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&tnc, 3, d, dnnl_f32, dnnl_tnc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &any, 3, d, dnnl_f32, dnnl_format_tag_any));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &zero, 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    MD_FAILS(dnnl_memory_desc_create_submemory(NULL, tnc, sub_d, sub_off), inv);
    MD_FAILS(dnnl_memory_desc_create_submemory(&md, NULL, sub_d, sub_off), inv);
    MD_FAILS(dnnl_memory_desc_create_submemory(&md, tnc, sub_d, off_oob), inv);
    MD_FAILS(dnnl_memory_desc_create_submemory(&md, tnc, big, sub_off), inv);
    MD_FAILS(dnnl_memory_desc_create_submemory(&md, tnc, sub_d, off_neg), inv);
    MD_FAILS(dnnl_memory_desc_create_submemory(&md, any, sub_d, sub_off),
            dnnl_unimplemented);
    MD_FAILS(dnnl_memory_desc_create_submemory(&md, zero, sub_d, sub_off),
            dnnl_unimplemented);

    /* queries */
    CHECK_STATUS(dnnl_memory_desc_query(tnc, dnnl_query_ndims_s32, NULL), inv);
    CHECK_STATUS(dnnl_memory_desc_query(NULL, dnnl_query_ndims_s32, &nd), inv);
    CHECK_STATUS(dnnl_memory_desc_query(tnc, (dnnl_query_t)9999, &nd),
            dnnl_unimplemented);
    CHECK(dnnl_memory_desc_get_size(NULL) == 0, "get_size(NULL) == 0");
    CHECK(dnnl_memory_desc_equal(tnc, NULL) == 0, "equal(md, NULL) == 0");

    dnnl_memory_desc_destroy(tnc);
    dnnl_memory_desc_destroy(any);
    dnnl_memory_desc_destroy(zero);
#undef MD_FAILS
}

/* ------------------------------------------------------------------------ */
/* NULL handles and out-params of the object API                            */

static void test_null_handles(void) {
    const dnnl_status_t inv = dnnl_invalid_arguments;
    dnnl_dims_t d = {3, 2, 5};
    dnnl_memory_desc_t md = NULL;
    dnnl_memory_t mem = NULL, m2 = NULL;
    dnnl_engine_t e = NULL;
    dnnl_engine_kind_t kind;
    dnnl_stream_t s = NULL;
    dnnl_primitive_attr_t attr = NULL, a2 = NULL;
    dnnl_scratchpad_mode_t mode;
    float scale, shift, one = 1.f;
    dnnl_dim_t count;
    int mask;
    const float *scales;
    const_dnnl_memory_desc_t cmd = NULL;
    void *h = NULL;

    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, 3, d, dnnl_f32, dnnl_tnc));
    REQUIRE_OK(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_primitive_attr_create(&attr));

    /* engine, stream */
    CHECK_STATUS(dnnl_engine_create(NULL, dnnl_cpu, 0), inv);
    CHECK_STATUS(dnnl_engine_get_kind(NULL, &kind), inv);
    CHECK_STATUS(dnnl_stream_create(NULL, eng, dnnl_stream_default_flags), inv);
    CHECK_STATUS(dnnl_stream_create(&s, NULL, dnnl_stream_default_flags), inv);
    CHECK_STATUS(dnnl_stream_get_engine(strm, NULL), inv);
    CHECK_STATUS(dnnl_stream_get_engine(NULL, &e), inv);
    CHECK_STATUS(dnnl_stream_wait(NULL), inv);

    /* memory */
    CHECK_STATUS(dnnl_memory_create(NULL, md, eng, DNNL_MEMORY_ALLOCATE), inv);
    CHECK_STATUS(dnnl_memory_create(&m2, md, NULL, DNNL_MEMORY_ALLOCATE), inv);
    /* a NULL md: 3.13 rejects it, 3.2 made an empty memory */
    m2 = NULL;
    CHECK_STATUS_V(dnnl_memory_create(&m2, NULL, eng, DNNL_MEMORY_ALLOCATE),
            inv, dnnl_success);
    dnnl_memory_destroy(m2);
    CHECK_STATUS(dnnl_memory_get_memory_desc(mem, NULL), inv);
    CHECK_STATUS(dnnl_memory_get_memory_desc(NULL, &cmd), inv);
    CHECK_STATUS(dnnl_memory_get_engine(NULL, &e), inv);
    CHECK_STATUS(dnnl_memory_get_engine(mem, NULL), inv);
    CHECK_STATUS(dnnl_memory_get_data_handle(mem, NULL), inv);
    /* oneDNN answers a NULL memory with success and a NULL handle */
    h = (void *)1;
    CHECK_OK(dnnl_memory_get_data_handle(NULL, &h));
    CHECK(h == NULL, "get_data_handle(NULL memory) gives a NULL handle");
    CHECK_STATUS(dnnl_memory_set_data_handle(NULL, &one), inv);
    CHECK_STATUS(dnnl_memory_map_data(mem, NULL), inv);
    CHECK_STATUS(dnnl_memory_map_data(NULL, &h), inv);
    CHECK_STATUS(dnnl_memory_unmap_data(NULL, h), inv);

    /* attributes */
    CHECK_STATUS(dnnl_primitive_attr_create(NULL), inv);
    CHECK_STATUS(dnnl_primitive_attr_clone(NULL, attr), inv);
    CHECK_STATUS(dnnl_primitive_attr_clone(&a2, NULL), inv);
    CHECK_STATUS(dnnl_primitive_attr_set_scratchpad_mode(
                         NULL, dnnl_scratchpad_mode_user),
            inv);
    CHECK_STATUS(dnnl_primitive_attr_get_scratchpad_mode(attr, NULL), inv);
    CHECK_STATUS(dnnl_primitive_attr_get_scratchpad_mode(NULL, &mode), inv);
    CHECK_STATUS(dnnl_primitive_attr_set_rnn_data_qparams(NULL, 1.f, 0.f), inv);
    CHECK_STATUS(dnnl_primitive_attr_get_rnn_data_qparams(NULL, &scale, &shift),
            inv);
    CHECK_STATUS(dnnl_primitive_attr_set_rnn_weights_qparams(NULL, 1, 0, &one),
            inv);
    CHECK_STATUS(dnnl_primitive_attr_get_rnn_weights_qparams(
                         NULL, &count, &mask, &scales),
            inv);
    /* NULL out-params of the qparams getters are skipped, not errors */
    CHECK_OK(dnnl_primitive_attr_get_rnn_data_qparams(attr, NULL, &shift));
    CHECK_OK(dnnl_primitive_attr_get_rnn_data_qparams(attr, &scale, NULL));
    CHECK_OK(dnnl_primitive_attr_get_rnn_weights_qparams(attr, NULL, NULL, NULL));
    CHECK_OK(dnnl_primitive_attr_get_rnn_weights_qparams(
            attr, &count, NULL, NULL));

    dnnl_primitive_attr_destroy(attr);
    dnnl_memory_destroy(mem);
    dnnl_memory_desc_destroy(md);
}

/* ------------------------------------------------------------------------ */
/* primitive descriptors, primitives, reorders                              */

static void test_pd_and_reorder(void) {
    const dnnl_status_t inv = dnnl_invalid_arguments;
    dnnl_dims_t d = {3, 2, 5}, d2 = {3, 2, 6}, d4 = {3, 2, 5, 1};
    dnnl_memory_desc_t tnc, ntc, tnc2, any, zero, four, s8;
    dnnl_primitive_desc_t pd = NULL, p2 = NULL;
    dnnl_primitive_t prim = NULL, pr2 = NULL;
    const_dnnl_primitive_desc_t cpd = NULL;
    const_dnnl_primitive_attr_t cattr = NULL;
    dnnl_primitive_kind_t kind;
    dnnl_memory_t a, b;
    dnnl_exec_arg_t args[3];

    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&tnc, 3, d, dnnl_f32, dnnl_tnc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&ntc, 3, d, dnnl_f32, dnnl_ntc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&tnc2, 3, d2, dnnl_f32, dnnl_tnc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&s8, 3, d, dnnl_s8, dnnl_tnc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &any, 3, d, dnnl_f32, dnnl_format_tag_any));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &zero, 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&four, 4, d4, dnnl_f32, dnnl_abcd));

#define REORDER_FAILS(src_md, src_eng, dst_md, dst_eng, expected) \
    do { \
        p2 = NULL; \
        CHECK_STATUS(dnnl_reorder_primitive_desc_create( \
                             &p2, src_md, src_eng, dst_md, dst_eng, NULL), \
                expected); \
        dnnl_primitive_desc_destroy(p2); \
    } while (0)

    CHECK_STATUS(dnnl_reorder_primitive_desc_create(NULL, tnc, eng, ntc, eng, NULL),
            inv);
    REORDER_FAILS(NULL, eng, ntc, eng, inv);
    REORDER_FAILS(tnc, eng, NULL, eng, inv);
    REORDER_FAILS(tnc, NULL, ntc, eng, inv);
    REORDER_FAILS(tnc, eng, ntc, NULL, inv);
    REORDER_FAILS(tnc, eng, tnc2, eng, inv);  /* dims differ */
    REORDER_FAILS(tnc, eng, four, eng, inv);  /* ndims differ */
    REORDER_FAILS(any, eng, ntc, eng, inv);   /* `any` is no layout */
    REORDER_FAILS(tnc, eng, any, eng, inv);
    REORDER_FAILS(zero, eng, tnc, eng, inv);
    REORDER_FAILS(zero, eng, zero, eng, dnnl_unimplemented);
    REORDER_FAILS(tnc, eng, s8, eng, dnnl_success); /* f32 -> s8 is a reorder */

    /* a valid reorder pd and primitive for the NULL checks below */
    REQUIRE_OK(dnnl_reorder_primitive_desc_create(&pd, tnc, eng, ntc, eng, NULL));
    REQUIRE_OK(dnnl_primitive_create(&prim, pd));

    CHECK_STATUS(dnnl_primitive_desc_query(NULL, dnnl_query_primitive_kind, 0, &kind),
            inv);
    CHECK_STATUS(dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, NULL),
            inv);
    CHECK(dnnl_primitive_desc_query_md(NULL, dnnl_query_src_md, 0) == NULL,
            "query_md(NULL pd) == NULL");
    CHECK(dnnl_primitive_desc_query_s32(NULL, dnnl_query_num_of_inputs_s32, 0) == 0,
            "query_s32(NULL pd) == 0");
    CHECK_STATUS(dnnl_primitive_desc_get_attr(pd, NULL), inv);
    CHECK_STATUS(dnnl_primitive_desc_get_attr(NULL, &cattr), inv);
    CHECK_STATUS(dnnl_primitive_desc_clone(NULL, pd), inv);
    CHECK_STATUS(dnnl_primitive_desc_clone(&p2, NULL), inv);
    CHECK_STATUS(dnnl_primitive_desc_next_impl(NULL), inv);
    CHECK_STATUS(dnnl_primitive_create(NULL, pd), inv);
    CHECK_STATUS(dnnl_primitive_create(&pr2, NULL), inv);
    CHECK_STATUS(dnnl_primitive_get_primitive_desc(prim, NULL), inv);
    CHECK_STATUS(dnnl_primitive_get_primitive_desc(NULL, &cpd), inv);

    /* reorder execution: FROM and TO are required, once each */
    REQUIRE_OK(dnnl_memory_create(&a, tnc, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_memory_create(&b, ntc, eng, DNNL_MEMORY_ALLOCATE));
    args[0].arg = DNNL_ARG_FROM, args[0].memory = a;
    args[1].arg = DNNL_ARG_TO, args[1].memory = b;
    args[2].arg = DNNL_ARG_FROM, args[2].memory = a;
    CHECK_OK(dnnl_primitive_execute(prim, strm, 2, args));
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, -1, args), inv);
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, 2, NULL), inv);
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, 0, NULL), inv);
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, 0, args), inv);
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, 1, args), inv);     /* no TO */
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, 1, args + 1), inv); /* no FROM */
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, 3, args), inv);     /* FROM twice */
    CHECK_STATUS(dnnl_primitive_execute(NULL, strm, 2, args), inv);
    CHECK_STATUS(dnnl_primitive_execute(prim, NULL, 2, args), inv);
    args[1].memory = NULL;
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, 2, args), inv); /* TO NULL */
    CHECK_OK(dnnl_stream_wait(strm));

    dnnl_memory_destroy(a);
    dnnl_memory_destroy(b);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(tnc);
    dnnl_memory_desc_destroy(ntc);
    dnnl_memory_desc_destroy(tnc2);
    dnnl_memory_desc_destroy(s8);
    dnnl_memory_desc_destroy(any);
    dnnl_memory_desc_destroy(zero);
    dnnl_memory_desc_destroy(four);
#undef REORDER_FAILS
}

/* ------------------------------------------------------------------------ */
/* LSTM execution                                                           */

enum { N_ARGS = 10 };
static const char *arg_names[N_ARGS] = {"src_layer", "src_iter", "src_iter_c",
        "weights_layer", "weights_iter", "bias", "dst_layer", "dst_iter",
        "dst_iter_c", "workspace"};

static void test_lstm_execute(dnnl_prop_kind_t prop) {
    const int training = prop == dnnl_forward_training;
    const dnnl_status_t inv = dnnl_invalid_arguments;
    dnnl_dims_t d3 = {3, 2, 4}, d4 = {1, 1, 2, 4}, d5 = {1, 1, 4, 4, 4},
                db = {1, 1, 4, 4};
    dnnl_memory_desc_t src, st, w, b, zero;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_memory_t mems[N_ARGS], mz = NULL;
    dnnl_exec_arg_t args[N_ARGS + 1], tmp[N_ARGS + 1];
    const int ids[N_ARGS] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER,
            DNNL_ARG_SRC_ITER_C, DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER,
            DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER,
            DNNL_ARG_DST_ITER_C, DNNL_ARG_WORKSPACE};
    int i, j, k;

    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&src, 3, d3, dnnl_f32, dnnl_tnc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&st, 4, d4, dnnl_f32, dnnl_ldnc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&w, 5, d5, dnnl_f32, dnnl_ldigo));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&b, 4, db, dnnl_f32, dnnl_ldgo));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &zero, 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, prop,
            dnnl_unidirectional_left2right, src, st, st, w, w, NULL, NULL, b,
            src, st, st, 0, NULL));
    REQUIRE_OK(dnnl_primitive_create(&prim, pd));

    for (i = 0; i < N_ARGS; i++) {
        const_dnnl_memory_desc_t md
                = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, ids[i]);
        void *p = NULL;
        REQUIRE(md != NULL, "exec_arg_md(%s)", arg_names[i]);
        REQUIRE_OK(dnnl_memory_create(&mems[i], md, eng, DNNL_MEMORY_ALLOCATE));
        REQUIRE_OK(dnnl_memory_get_data_handle(mems[i], &p));
        if (p) memset(p, 0, dnnl_memory_desc_get_size(md));
        args[i].arg = ids[i];
        args[i].memory = mems[i];
    }
    REQUIRE_OK(dnnl_memory_create(&mz, zero, eng, DNNL_MEMORY_ALLOCATE));

    CHECK_OK(dnnl_primitive_execute(prim, strm, N_ARGS, args));
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, -1, args), inv);
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, N_ARGS, NULL), inv);
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, 0, NULL), inv);
    CHECK_STATUS(dnnl_primitive_execute(prim, strm, 0, args), inv);
    CHECK_STATUS(dnnl_primitive_execute(NULL, strm, N_ARGS, args), inv);
    CHECK_STATUS(dnnl_primitive_execute(prim, NULL, N_ARGS, args), inv);

    for (i = 0; i < N_ARGS; i++) {
        /* the workspace is required by training only */
        const dnnl_status_t want
                = ids[i] == DNNL_ARG_WORKSPACE && !training ? dnnl_success : inv;

        /* missing */
        for (j = 0, k = 0; j < N_ARGS; j++)
            if (j != i) tmp[k++] = args[j];
        if (!CHECK_STATUS(dnnl_primitive_execute(prim, strm, k, tmp), want))
            fprintf(stderr, "  in case: %s, %s missing\n",
                    training ? "training" : "inference", arg_names[i]);

        /* given with a NULL memory */
        memcpy(tmp, args, sizeof(args[0]) * N_ARGS);
        tmp[i].memory = NULL;
        if (!CHECK_STATUS(dnnl_primitive_execute(prim, strm, N_ARGS, tmp), want))
            fprintf(stderr, "  in case: %s, %s is a NULL memory\n",
                    training ? "training" : "inference", arg_names[i]);

        /* given twice */
        memcpy(tmp, args, sizeof(args[0]) * N_ARGS);
        tmp[N_ARGS] = args[i];
        if (!CHECK_STATUS(dnnl_primitive_execute(prim, strm, N_ARGS + 1, tmp), want))
            fprintf(stderr, "  in case: %s, %s given twice\n",
                    training ? "training" : "inference", arg_names[i]);
    }

    /* arguments the primitive does not use are ignored */
    memcpy(tmp, args, sizeof(args[0]) * N_ARGS);
    tmp[N_ARGS].arg = DNNL_ARG_WEIGHTS_PEEPHOLE;
    tmp[N_ARGS].memory = mz;
    CHECK_OK(dnnl_primitive_execute(prim, strm, N_ARGS + 1, tmp));
    tmp[N_ARGS].arg = 999;
    tmp[N_ARGS].memory = mems[5];
    CHECK_OK(dnnl_primitive_execute(prim, strm, N_ARGS + 1, tmp));
    CHECK_OK(dnnl_stream_wait(strm));

#if defined(OXIDNN_H)
    /* The primitive's descriptor decides how a buffer is read (a memory with
     * another descriptor that spans at least as much is fine, as in oneDNN);
     * the real oneDNN does not check the span and reads out of bounds, oxidnn
     * refuses a memory whose descriptor spans less. */
    {
        dnnl_dims_t big = {3, 2, 8}, small = {3, 2, 2};
        dnnl_memory_desc_t wrong_md = NULL;
        dnnl_memory_t wrong = NULL;
        REQUIRE_OK(dnnl_memory_desc_create_with_tag(
                &wrong_md, 3, big, dnnl_f32, dnnl_tnc));
        REQUIRE_OK(dnnl_memory_create(&wrong, wrong_md, eng, DNNL_MEMORY_ALLOCATE));
        memcpy(tmp, args, sizeof(args[0]) * N_ARGS);
        tmp[0].memory = wrong; /* src_layer {3, 2, 8} for a {3, 2, 4} pd */
        CHECK_OK(dnnl_primitive_execute(prim, strm, N_ARGS, tmp));
        dnnl_memory_destroy(wrong);
        dnnl_memory_desc_destroy(wrong_md);
        REQUIRE_OK(dnnl_memory_desc_create_with_tag(
                &wrong_md, 3, small, dnnl_f32, dnnl_tnc));
        REQUIRE_OK(dnnl_memory_create(&wrong, wrong_md, eng, DNNL_MEMORY_ALLOCATE));
        tmp[0].memory = wrong; /* src_layer {3, 2, 2} for a {3, 2, 4} pd */
        CHECK_STATUS(dnnl_primitive_execute(prim, strm, N_ARGS, tmp), inv);
        dnnl_memory_destroy(wrong);
        dnnl_memory_desc_destroy(wrong_md);
    }
#endif

    for (i = 0; i < N_ARGS; i++) dnnl_memory_destroy(mems[i]);
    dnnl_memory_destroy(mz);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(st);
    dnnl_memory_desc_destroy(w);
    dnnl_memory_desc_destroy(b);
    dnnl_memory_desc_destroy(zero);
}

/* ------------------------------------------------------------------------ */
/* calls that crash the real oneDNN: oxidnn must answer invalid_arguments   */

#if defined(OXIDNN_H)
static void test_oxidnn_strict(void) {
    const dnnl_status_t inv = dnnl_invalid_arguments;
    dnnl_dims_t d = {3, 2, 5}, sub_d = {2, 2, 5}, sub_off = {1, 0, 0};
    dnnl_memory_desc_t md = NULL, out = NULL;
    dnnl_primitive_desc_t pd = NULL;
    lstm_args_t a;

    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, 3, d, dnnl_f32, dnnl_tnc));
    CHECK_STATUS(dnnl_engine_get_kind(eng, NULL), inv);
    CHECK_STATUS(dnnl_memory_desc_clone(&out, NULL), inv);
    CHECK_STATUS(dnnl_memory_desc_clone(NULL, md), inv);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&out, md, NULL, sub_off), inv);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&out, md, sub_d, NULL), inv);

    a = base_args();
    CHECK_STATUS(dnnl_lstm_forward_primitive_desc_create(&pd, NULL, a.prop,
                         a.dir, a.src, a.si, a.sic, a.wl, a.wi, NULL, NULL,
                         a.bias, a.dst, a.di, a.dic, 0, NULL),
            inv);
    dnnl_primitive_desc_destroy(pd);
    pool_free();
    dnnl_memory_desc_destroy(md);
}
#endif

int main(void) {
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    test_memory_desc();
    test_null_handles();
    test_pd_and_reorder();
    test_lstm_creation();
    test_lstm_projection_creation();
    test_lstm_execute(dnnl_forward_training);
    test_lstm_execute(dnnl_forward_inference);
#if defined(OXIDNN_H)
    test_oxidnn_strict();
#endif

    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return check_summary();
}
