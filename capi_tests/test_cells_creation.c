/*
 * test_cells_creation.c - primitive descriptor creation for the non-LSTM
 * cells: vanilla RNN, GRU, LBR GRU, AUGRU and LBR AUGRU (forward). Valid
 * baselines (every direction, L = 2 where allowed, forward_training and
 * forward_inference, the vanilla activations) and the dims rules of the
 * reference notes §a.6 for each cell, with the exact status the real oneDNN
 * 3.13 returns.
 *
 * Every expected status was measured on the real oneDNN 3.13 (cases that
 * return something else on 3.2 use CHECK_STATUS_V and say so). Where oxidnn
 * intentionally accepts more (an absent bias), check_running_on_oxidnn()
 * picks the expectation, as in test_bad_input.c.
 */
#include <string.h>

#include "check.h"
#include "md_pool.h"

/* oneDNN's hidden test-mode setter (benchdnn --skip-nonlinear): oxidnn's header
 * declares it; the real oneDNN exports it under its C++ name only (declared in
 * no public header), bound here through an assembler label (x86-64 Linux). */
#if defined(OXIDNN_H)
#define set_rnn_tparams dnnl_primitive_attr_set_rnn_tparams
#else
#include <stdbool.h>
extern dnnl_status_t set_rnn_tparams(dnnl_primitive_attr_t attr, bool mode,
        dnnl_dim_t ngates, const float *scales, float cscale)
        __asm__("_Z35dnnl_primitive_attr_set_rnn_tparamsP19dnnl_primitive_attrblPKff");
#endif

static dnnl_engine_t eng;

/* ------------------------------------------------------------------------ */
/* the cells and their creation arguments                                   */

typedef enum { VANILLA, GRU, LBR_GRU, AUGRU, LBR_AUGRU, N_CELLS } cell_t;

static const char *cell_names[N_CELLS]
        = {"vanilla_rnn", "gru", "lbr_gru", "augru", "lbr_augru"};

/* gates per cell; LBR bias has one row more */
static int cell_gates(cell_t c) { return c == VANILLA ? 1 : 3; }
static int cell_lbr(cell_t c) { return c == LBR_GRU || c == LBR_AUGRU; }
static int cell_augru(cell_t c) { return c == AUGRU || c == LBR_AUGRU; }
static int cell_bias_rows(cell_t c) { return cell_gates(c) + cell_lbr(c); }

/*
 * Base problem: left2right, L = 1, D = 1, T = 3, N = 2, SLC = 5,
 * SIC = DHC = 4, forward_training, src_iter and dst_iter given, attention
 * {T, N, 1} for AUGRU, weights ldigo, vanilla activation tanh.
 */
typedef struct {
    cell_t cell;
    dnnl_prop_kind_t prop;
    dnnl_alg_kind_t act;
    dnnl_rnn_direction_t dir;
    const_dnnl_memory_desc_t src, si, att, wl, wi, bias, dst, di;
    const_dnnl_primitive_attr_t attr; /* NULL: default attributes */
} cell_args_t;

static cell_args_t base_args(cell_t cell) {
    const int G = cell_gates(cell);
    cell_args_t a;
    a.cell = cell;
    a.prop = dnnl_forward_training;
    a.act = dnnl_eltwise_tanh;
    a.dir = dnnl_unidirectional_left2right;
    a.src = MD3(3, 2, 5, dnnl_tnc);
    a.si = MD4(1, 1, 2, 4, dnnl_ldnc);
    a.att = cell_augru(cell) ? MD3(3, 2, 1, dnnl_tnc) : NULL;
    a.wl = MD5(1, 1, 5, G, 4, dnnl_ldigo);
    a.wi = MD5(1, 1, 4, G, 4, dnnl_ldigo);
    a.bias = MD4(1, 1, cell_bias_rows(cell), 4, dnnl_ldgo);
    a.dst = MD3(3, 2, 4, dnnl_tnc);
    a.di = MD4(1, 1, 2, 4, dnnl_ldnc);
    a.attr = NULL;
    return a;
}

/* The same problem with L layers, D directions, SLC = DHC = C. */
static cell_args_t multi_args(cell_t cell, int L, dnnl_rnn_direction_t dir,
        int D, int C, int DLC) {
    const int G = cell_gates(cell);
    cell_args_t a = base_args(cell);
    a.dir = dir;
    a.src = MD3(3, 2, C, dnnl_tnc);
    a.si = MD4(L, D, 2, C, dnnl_ldnc);
    a.wl = MD5(L, D, C, G, C, dnnl_ldigo);
    a.wi = MD5(L, D, C, G, C, dnnl_ldigo);
    a.bias = MD4(L, D, cell_bias_rows(cell), C, dnnl_ldgo);
    a.dst = MD3(3, 2, DLC, dnnl_tnc);
    a.di = MD4(L, D, 2, C, dnnl_ldnc);
    return a;
}

static dnnl_status_t call_create(dnnl_primitive_desc_t *pd,
        const cell_args_t *a) {
    switch (a->cell) {
        case VANILLA:
            return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng,
                    a->prop, a->act, a->dir, a->src, a->si, a->wl, a->wi,
                    a->bias, a->dst, a->di, 0, 0.f, 0.f, a->attr);
        case GRU:
            return dnnl_gru_forward_primitive_desc_create(pd, eng, a->prop,
                    a->dir, a->src, a->si, a->wl, a->wi, a->bias, a->dst,
                    a->di, 0, a->attr);
        case LBR_GRU:
            return dnnl_lbr_gru_forward_primitive_desc_create(pd, eng,
                    a->prop, a->dir, a->src, a->si, a->wl, a->wi, a->bias,
                    a->dst, a->di, 0, a->attr);
        case AUGRU:
            return dnnl_augru_forward_primitive_desc_create(pd, eng, a->prop,
                    a->dir, a->src, a->si, a->att, a->wl, a->wi, a->bias,
                    a->dst, a->di, 0, a->attr);
        case LBR_AUGRU:
            return dnnl_lbr_augru_forward_primitive_desc_create(pd, eng,
                    a->prop, a->dir, a->src, a->si, a->att, a->wl, a->wi,
                    a->bias, a->dst, a->di, 0, a->attr);
        default: break;
    }
    return dnnl_runtime_error;
}

static dnnl_status_t create_cell(const cell_args_t *a) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = call_create(&pd, a);
    if (st != dnnl_success)
        CHECK(pd == NULL, "failed creation returned a pd");
    dnnl_primitive_desc_destroy(pd);
    pool_free();
    return st;
}

/* CELL_CASE(name, statements modifying `a`, expected status); uses `cell` */
#define CELL_CASE(name, modify, expected) \
    do { \
        cell_args_t a = base_args(cell); \
        modify; \
        if (!CHECK_STATUS(create_cell(&a), (expected))) \
            fprintf(stderr, "  in case: %s: %s\n", cell_names[cell], (name)); \
    } while (0)

#define CELL_CASE_V(name, modify, expected_313, expected_32) \
    do { \
        cell_args_t a = base_args(cell); \
        modify; \
        if (!CHECK_STATUS_V(create_cell(&a), (expected_313), (expected_32))) \
            fprintf(stderr, "  in case: %s: %s\n", cell_names[cell], (name)); \
    } while (0)

static void test_cell_creation(cell_t cell) {
    const dnnl_status_t ok = dnnl_success, inv = dnnl_invalid_arguments,
                        unimp = dnnl_unimplemented;
    const int G = cell_gates(cell), R = cell_bias_rows(cell);
    const int gru = cell != VANILLA, augru = cell_augru(cell);
    /* AUGRU is left2right with L == 1 only (§a.6) */
    const dnnl_status_t not_augru = augru ? inv : ok;
    /* oneDNN's CPU RNNs need a bias; oxidnn accepts an absent bias as zeros
     * (a documented superset) */
    const dnnl_status_t no_bias = check_running_on_oxidnn() ? ok : unimp;

    /* valid problems */
    CELL_CASE("baseline", (void)0, ok);
    CELL_CASE("baseline inference", a.prop = dnnl_forward_inference, ok);
    CELL_CASE("no states (NULL)", a.si = a.di = NULL, ok);
    CELL_CASE("no states (zero md)", a.si = a.di = zero_md(), ok);
    CELL_CASE("no states, inference",
            (a.prop = dnnl_forward_inference, a.si = a.di = NULL), ok);
    CELL_CASE("right2left",
            a = multi_args(cell, 1, dnnl_unidirectional_right2left, 1, 4, 4),
            not_augru);
    CELL_CASE("right2left inference",
            (a = multi_args(cell, 1, dnnl_unidirectional_right2left, 1, 4, 4),
                    a.prop = dnnl_forward_inference),
            not_augru);
    CELL_CASE("bidirectional_concat, D=2, DLC=2*DHC",
            a = multi_args(cell, 1, dnnl_bidirectional_concat, 2, 4, 8),
            not_augru);
    CELL_CASE("bidirectional_concat inference",
            (a = multi_args(cell, 1, dnnl_bidirectional_concat, 2, 4, 8),
                    a.prop = dnnl_forward_inference),
            not_augru);
    CELL_CASE("bidirectional_sum, D=2, DLC=DHC",
            a = multi_args(cell, 1, dnnl_bidirectional_sum, 2, 4, 4),
            not_augru);
    CELL_CASE("bidirectional_sum inference",
            (a = multi_args(cell, 1, dnnl_bidirectional_sum, 2, 4, 4),
                    a.prop = dnnl_forward_inference),
            not_augru);
    CELL_CASE("L=2 left2right with SLC == DIC",
            a = multi_args(cell, 2, dnnl_unidirectional_left2right, 1, 4, 4),
            not_augru);
    CELL_CASE("L=2 left2right inference",
            (a = multi_args(cell, 2, dnnl_unidirectional_left2right, 1, 4, 4),
                    a.prop = dnnl_forward_inference),
            not_augru);
    CELL_CASE("L=2 bidirectional_concat",
            a = multi_args(cell, 2, dnnl_bidirectional_concat, 2, 4, 8),
            not_augru);
    CELL_CASE("L=2 bidirectional_sum",
            a = multi_args(cell, 2, dnnl_bidirectional_sum, 2, 4, 4),
            not_augru);
    CELL_CASE("L=1 left2right, SLC == DHC",
            a = multi_args(cell, 1, dnnl_unidirectional_left2right, 1, 4, 4),
            ok);

    /* mandatory tensors (§a.6) */
    CELL_CASE("src_layer NULL", a.src = NULL, inv);
    CELL_CASE("weights_layer NULL", a.wl = NULL, inv);
    CELL_CASE("weights_iter NULL", a.wi = NULL, inv);
    CELL_CASE("dst_layer NULL", a.dst = NULL, inv);
    CELL_CASE("bias NULL", a.bias = NULL, no_bias);
    CELL_CASE("bias zero md", a.bias = zero_md(), no_bias);

    /* SIC: GRU family needs SIC == DHC (even with T == 1) */
    CELL_CASE("SIC 3 != DHC 4 with T == 1",
            (a.src = MD3(1, 2, 5, dnnl_tnc), a.dst = MD3(1, 2, 4, dnnl_tnc),
                    a.att = augru ? MD3(1, 2, 1, dnnl_tnc) : NULL,
                    a.si = MD4(1, 1, 2, 3, dnnl_ldnc),
                    a.wi = MD5(1, 1, 3, G, 4, dnnl_ldigo)),
            gru ? inv : ok);
    CELL_CASE("SIC 3 != DIC 4 with T > 1",
            (a.si = MD4(1, 1, 2, 3, dnnl_ldnc),
                    a.wi = MD5(1, 1, 3, G, 4, dnnl_ldigo)),
            inv);
    CELL_CASE("SIC mismatch (src_iter C 3, weights_iter I 4)",
            a.si = MD4(1, 1, 2, 3, dnnl_ldnc), inv);

    /* wrong gate count in the weights */
    CELL_CASE("weights G wrong (vanilla 2, GRU 4), bias to match",
            (a.wl = MD5(1, 1, 5, G + 1, 4, dnnl_ldigo),
                    a.wi = MD5(1, 1, 4, G + 1, 4, dnnl_ldigo),
                    a.bias = MD4(1, 1, R + 1, 4, dnnl_ldgo)),
            inv);
    CELL_CASE("weights_layer G wrong only",
            a.wl = MD5(1, 1, 5, G + 1, 4, dnnl_ldigo), inv);
    CELL_CASE("weights_iter G wrong only",
            a.wi = MD5(1, 1, 4, G + 1, 4, dnnl_ldigo), inv);
    /* bias rows: G, or G + 1 for LBR */
    CELL_CASE("bias rows G + 1 - LBR (LBR 3 rows, others 4)",
            a.bias = MD4(1, 1, cell_lbr(cell) ? G : G + 1, 4, dnnl_ldgo), inv);
    CELL_CASE("bias rows + 1", a.bias = MD4(1, 1, R + 1, 4, dnnl_ldgo), inv);
    CELL_CASE("bias O 5", a.bias = MD4(1, 1, R, 5, dnnl_ldgo), inv);

    /* DLC */
    CELL_CASE("DLC mismatch (dst_layer C 5, DIC 4)",
            a.dst = MD3(3, 2, 5, dnnl_tnc), inv);
    CELL_CASE("bidirectional_concat with dst_layer C = DHC",
            a = multi_args(cell, 1, dnnl_bidirectional_concat, 2, 4, 4), inv);
    CELL_CASE("bidirectional_sum with dst_layer C = 2*DHC",
            a = multi_args(cell, 1, dnnl_bidirectional_sum, 2, 4, 8), inv);
    /* L > 1 needs SLC == DIC */
    CELL_CASE("L=2 with SLC 5 != DIC 4",
            (a.si = MD4(2, 1, 2, 4, dnnl_ldnc),
                    a.wl = MD5(2, 1, 5, G, 4, dnnl_ldigo),
                    a.wi = MD5(2, 1, 4, G, 4, dnnl_ldigo),
                    a.bias = MD4(2, 1, R, 4, dnnl_ldgo),
                    a.di = MD4(2, 1, 2, 4, dnnl_ldnc)),
            inv);
    /* T and N agree between src and dst */
    CELL_CASE("T mismatch (src 3, dst 4)", a.dst = MD3(4, 2, 4, dnnl_tnc), inv);
    CELL_CASE("N mismatch (src 2, dst 3)", a.dst = MD3(3, 3, 4, dnnl_tnc), inv);
    CELL_CASE("dst_iter C 5", a.di = MD4(1, 1, 2, 5, dnnl_ldnc), inv);
    /* D must match the direction */
    CELL_CASE("D=2 with left2right",
            a = multi_args(cell, 1, dnnl_unidirectional_left2right, 2, 4, 4),
            inv);
    CELL_CASE("D=2 with right2left",
            a = multi_args(cell, 1, dnnl_unidirectional_right2left, 2, 4, 4),
            inv);
    CELL_CASE("D=1 with bidirectional_concat",
            a = multi_args(cell, 1, dnnl_bidirectional_concat, 1, 4, 8), inv);
    CELL_CASE("D=1 with bidirectional_sum",
            a = multi_args(cell, 1, dnnl_bidirectional_sum, 1, 4, 4), inv);

    /* AUGRU attention {T, N, 1} */
    if (augru) {
        /* oneDNN creates a pd without attention; executing it is refused
         * (see test_augru_without_attention) */
        CELL_CASE("attention NULL", a.att = NULL, ok);
        CELL_CASE("attention zero md", a.att = zero_md(), ok);
        CELL_CASE("attention C 2", a.att = MD3(3, 2, 2, dnnl_tnc), inv);
        CELL_CASE("attention T 4", a.att = MD3(4, 2, 1, dnnl_tnc), inv);
        CELL_CASE("attention N 3", a.att = MD3(3, 3, 1, dnnl_tnc), inv);
        CELL_CASE("attention 2-D",
                a.att = md_dt(2, 3, 2, 0, 0, 0, dnnl_f32, dnnl_ab), inv);
    }

    /* enum values. oneDNN 3.2 answered dnnl_unimplemented for these props;
     * 3.13 answers dnnl_invalid_arguments. */
    CELL_CASE_V("prop 12345", a.prop = (dnnl_prop_kind_t)12345, inv, unimp);
    CELL_CASE_V("prop undef", a.prop = dnnl_prop_kind_undef, inv, unimp);
    CELL_CASE("prop backward", a.prop = dnnl_backward, inv);
    CELL_CASE("direction 99", a.dir = (dnnl_rnn_direction_t)99, inv);
    CELL_CASE("direction undef", a.dir = dnnl_rnn_direction_undef, inv);

    /* NULL out-param */
    {
        cell_args_t a = base_args(cell);
        if (!CHECK_STATUS(call_create(NULL, &a), inv))
            fprintf(stderr, "  in case: %s: NULL out-param\n",
                    cell_names[cell]);
        pool_free();
    }
}

/* Test mode (the rnn_tparams attribute) with a scale per gate is accepted by
 * every cell, in training and inference, with test mode on or off. */
static void test_rnn_tparams(cell_t cell) {
    const dnnl_status_t ok = dnnl_success;
    const float scales[3] = {0.5f, 0.75f, 0.625f};
    dnnl_primitive_attr_t on = NULL, off = NULL;
    REQUIRE_OK(dnnl_primitive_attr_create(&on));
    REQUIRE_OK(dnnl_primitive_attr_create(&off));
    CHECK_OK(set_rnn_tparams(on, true, cell_gates(cell), scales, 0.8125f));
    CHECK_OK(set_rnn_tparams(off, false, cell_gates(cell), scales, 0.8125f));
    CELL_CASE("test mode", a.attr = on, ok);
    CELL_CASE("test mode, inference",
            (a.attr = on, a.prop = dnnl_forward_inference), ok);
    CELL_CASE("test mode off", a.attr = off, ok);
    dnnl_primitive_attr_destroy(on);
    dnnl_primitive_attr_destroy(off);
}

static void test_vanilla_activations(void) {
    const dnnl_status_t ok = dnnl_success, inv = dnnl_invalid_arguments;
    const cell_t cell = VANILLA;
    CELL_CASE("activation relu", a.act = dnnl_eltwise_relu, ok);
    CELL_CASE("activation tanh", a.act = dnnl_eltwise_tanh, ok);
    CELL_CASE("activation logistic", a.act = dnnl_eltwise_logistic, ok);
    CELL_CASE("activation relu inference",
            (a.act = dnnl_eltwise_relu, a.prop = dnnl_forward_inference), ok);
    CELL_CASE("activation logistic, bidirectional_concat",
            (a = multi_args(cell, 1, dnnl_bidirectional_concat, 2, 4, 8),
                    a.act = dnnl_eltwise_logistic),
            ok);
    /* other eltwise kinds, by value (oxidnn's header names only the three
     * RNN activations): dnnl_eltwise_elu 0x22, dnnl_eltwise_abs 0x24 */
    CELL_CASE("activation elu (0x22)", a.act = (dnnl_alg_kind_t)0x22, inv);
    CELL_CASE("activation abs (0x24)", a.act = (dnnl_alg_kind_t)0x24, inv);
    CELL_CASE("activation 12345", a.act = (dnnl_alg_kind_t)12345, inv);
    CELL_CASE("activation undef", a.act = dnnl_alg_kind_undef, inv);
}

/* An AUGRU pd created without attention cannot run: oxidnn refuses the
 * execution with invalid_arguments (oneDNN would read a NULL attention). */
static void test_augru_without_attention(void) {
    const cell_t cell = AUGRU;
    cell_args_t a = base_args(cell);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_stream_t stream = NULL;
    if (!check_running_on_oxidnn()) return;
    a.att = NULL;
    a.prop = dnnl_forward_inference;
    REQUIRE_OK(call_create(&pd, &a));
    REQUIRE_OK(dnnl_primitive_create(&prim, pd));
    REQUIRE_OK(dnnl_stream_create(&stream, eng, dnnl_stream_default_flags));
    {
        /* every tensor the pd has, with library-allocated buffers */
        const int arg_ids[] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER,
                DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_BIAS,
                DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER};
        const_dnnl_memory_desc_t mds[] = {
                a.src, a.si, a.wl, a.wi, a.bias, a.dst, a.di};
        dnnl_exec_arg_t args[7];
        int i;
        for (i = 0; i < 7; i++) {
            args[i].arg = arg_ids[i];
            REQUIRE_OK(dnnl_memory_create(
                    &args[i].memory, mds[i], eng, DNNL_MEMORY_ALLOCATE));
        }
        CHECK_STATUS(dnnl_primitive_execute(prim, stream, 7, args),
                dnnl_invalid_arguments);
        for (i = 0; i < 7; i++) dnnl_memory_destroy(args[i].memory);
    }
    dnnl_stream_destroy(stream);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    pool_free();
}

int main(void) {
    int c;
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));

    for (c = 0; c < N_CELLS; c++) {
        test_cell_creation((cell_t)c);
        test_rnn_tparams((cell_t)c);
    }
    test_vanilla_activations();
    test_augru_without_attention();

    dnnl_engine_destroy(eng);
    return check_summary();
}
