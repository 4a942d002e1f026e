/*
 * test_rnn_sizes.c - RNN problems whose buffer sizes (weights, states,
 * workspace, scratchpad, gates) are at the edges of size_t / int64.
 *
 * A primitive descriptor computes every buffer size with checked arithmetic
 * before it walks layers or steps: a size that does not fit in int64 (nor in
 * ssize_t) is invalid_arguments, a size that fits but cannot be allocated is
 * out_of_memory when the library allocates it (library scratchpad, memory
 * created with DNNL_MEMORY_ALLOCATE). Nothing crashes, hangs, or runs on
 * buffers smaller than the problem.
 *
 * Regressions (security review, issue 30):
 *  item 2: T = 2^62+1, N = 4, C = 1 (vanilla RNN, GRU, LSTM; inference,
 *          training, backward): the pd and primitive were accepted, the
 *          buffers made from the pd's own descriptors were 16 bytes, execute
 *          crashed in the GEMM (vanilla training returned success having done
 *          nothing). Now src_layer's descriptor is rejected (3.13 too).
 *  item 3: L = 2^40: pd creation never returned (a per-layer loop ran before
 *          any size check). Now it returns at once (an alarm fails the test
 *          after ALARM_SECONDS).
 *
 * Only the first check (the src_layer descriptor) is asserted on the real
 * oneDNN; the rest runs on oxidnn (check_running_on_oxidnn()).
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#define P(k) ((int64_t)1 << (k))
#define ALARM_SECONDS 120

typedef enum { VANILLA, GRU, LSTM } cell_t;
static const char *const cell_names[] = {"vanilla", "gru", "lstm"};

/* One problem: left2right, L layers; DIC != DHC means an LSTM projection. */
typedef struct {
    cell_t cell;
    dnnl_prop_kind_t prop;
    int64_t L, T, N, SLC, SIC, DHC, DIC;
    int with_states;
    dnnl_format_tag_t weights_tag; /* dnnl_format_tag_any or dnnl_ldigo */
    dnnl_scratchpad_mode_t scratchpad;
} problem_t;

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static void on_alarm(int sig) {
    static const char msg[] = "FAIL: timed out (a loop over a huge L or T before any size check?)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) _exit(2);
    _exit(1);
}

static int gates(cell_t c) { return c == VANILLA ? 1 : c == GRU ? 3 : 4; }

static problem_t base(cell_t cell, dnnl_prop_kind_t prop, int64_t L, int64_t T, int64_t N) {
    problem_t p = {cell, prop, L, T, N, 1, 1, 1, 1, 1, dnnl_format_tag_any,
            dnnl_scratchpad_mode_library};
    return p;
}

/* The descriptors of a problem; `status` is the first failing creation. */
typedef struct {
    dnnl_memory_desc_t src, dst, state, state_c, w_layer, w_iter, bias, proj, dst_state;
    dnnl_status_t status;
} mds_t;

static void md_create(mds_t *m, dnnl_memory_desc_t *out, int nd, const int64_t *d,
        dnnl_format_tag_t tag) {
    dnnl_dims_t dims = {0};
    dnnl_status_t s;
    for (int k = 0; k < nd; k++) dims[k] = d[k];
    *out = NULL;
    if (m->status != dnnl_success) return;
    s = dnnl_memory_desc_create_with_tag(out, nd, dims, dnnl_f32, tag);
    if (s != dnnl_success) m->status = s;
}

static mds_t mds_create(const problem_t *p) {
    const int projection = p->DIC != p->DHC;
    const int64_t G = gates(p->cell);
    const int64_t src[] = {p->T, p->N, p->SLC}, dst[] = {p->T, p->N, p->DIC};
    const int64_t state[] = {p->L, 1, p->N, p->SIC}, dst_state[] = {p->L, 1, p->N, p->DIC};
    const int64_t state_c[] = {p->L, 1, p->N, p->DHC};
    const int64_t wl[] = {p->L, 1, p->SLC, G, p->DHC}, wi[] = {p->L, 1, p->SIC, G, p->DHC};
    const int64_t bias[] = {p->L, 1, G, p->DHC}, proj[] = {p->L, 1, p->DHC, p->DIC};
    mds_t m;
    memset(&m, 0, sizeof m);
    m.status = dnnl_success;
    md_create(&m, &m.src, 3, src, dnnl_tnc);
    md_create(&m, &m.dst, 3, dst, dnnl_tnc);
    md_create(&m, &m.w_layer, 5, wl, p->weights_tag);
    md_create(&m, &m.w_iter, 5, wi, p->weights_tag);
    md_create(&m, &m.bias, 4, bias, dnnl_ldgo);
    if (projection) md_create(&m, &m.proj, 4, proj, dnnl_format_tag_any);
    if (p->with_states) {
        md_create(&m, &m.state, 4, state, dnnl_ldnc);
        md_create(&m, &m.dst_state, 4, dst_state, dnnl_ldnc);
        if (p->cell == LSTM) md_create(&m, &m.state_c, 4, state_c, dnnl_ldnc);
    }
    return m;
}

static void mds_destroy(mds_t *m) {
    dnnl_memory_desc_t *all[] = {&m->src, &m->dst, &m->state, &m->state_c, &m->w_layer,
            &m->w_iter, &m->bias, &m->proj, &m->dst_state};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) dnnl_memory_desc_destroy(*all[k]);
}

/* A forward (hint == NULL and prop forward) or backward pd of the problem. */
static dnnl_status_t pd_create(dnnl_primitive_desc_t *pd, const problem_t *p, const mds_t *m,
        const_dnnl_primitive_attr_t attr) {
    const dnnl_rnn_direction_t dir = dnnl_unidirectional_left2right;
    *pd = NULL;
    if (p->prop != dnnl_backward) {
        switch (p->cell) {
        case VANILLA:
            return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, p->prop,
                    dnnl_eltwise_tanh, dir, m->src, m->state, m->w_layer, m->w_iter, m->bias,
                    m->dst, m->dst_state, 0, 0.f, 0.f, attr);
        case GRU:
            return dnnl_gru_forward_primitive_desc_create(pd, eng, p->prop, dir, m->src,
                    m->state, m->w_layer, m->w_iter, m->bias, m->dst, m->dst_state, 0, attr);
        default:
            return dnnl_lstm_forward_primitive_desc_create(pd, eng, p->prop, dir, m->src,
                    m->state, m->state_c, m->w_layer, m->w_iter, NULL, m->proj, m->bias, m->dst,
                    m->dst_state, m->state_c, 0, attr);
        }
    }
    switch (p->cell) {
    case VANILLA:
        return dnnl_vanilla_rnn_backward_primitive_desc_create(pd, eng, dnnl_backward,
                dnnl_eltwise_tanh, dir, m->src, m->state, m->w_layer, m->w_iter, m->bias, m->dst,
                m->dst_state, m->src, m->state, m->w_layer, m->w_iter, m->bias, m->dst,
                m->dst_state, 0, 0.f, 0.f, NULL, attr);
    case GRU:
        return dnnl_gru_backward_primitive_desc_create(pd, eng, dnnl_backward, dir, m->src,
                m->state, m->w_layer, m->w_iter, m->bias, m->dst, m->dst_state, m->src,
                m->state, m->w_layer, m->w_iter, m->bias, m->dst, m->dst_state, 0, NULL, attr);
    default:
        return dnnl_lstm_backward_primitive_desc_create(pd, eng, dnnl_backward, dir, m->src,
                m->state, m->state_c, m->w_layer, m->w_iter, NULL, m->proj, m->bias, m->dst,
                m->dst_state, m->state_c, m->src, m->state, m->state_c, m->w_layer, m->w_iter,
                NULL, m->proj, m->bias, m->dst, m->dst_state, m->state_c, 0, NULL, attr);
    }
}

/* Every argument an RNN pd may take. */
static const int all_args[] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C,
        DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_WEIGHTS_PROJECTION,
        DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C,
        DNNL_ARG_WORKSPACE, DNNL_ARG_SCRATCHPAD, DNNL_ARG_DIFF_SRC_LAYER, DNNL_ARG_DIFF_SRC_ITER,
        DNNL_ARG_DIFF_SRC_ITER_C, DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER,
        DNNL_ARG_DIFF_WEIGHTS_PROJECTION, DNNL_ARG_DIFF_BIAS, DNNL_ARG_DIFF_DST_LAYER,
        DNNL_ARG_DIFF_DST_ITER, DNNL_ARG_DIFF_DST_ITER_C};
enum { MAX_ARGS = sizeof all_args / sizeof *all_args };

/*
 * Creates the pd, the primitive and library-allocated memory for every
 * argument the pd reports, then executes: the first status that is not
 * success (success when everything ran).
 */
static dnnl_status_t run(const problem_t *p) {
    dnnl_exec_arg_t args[MAX_ARGS];
    int nargs = 0;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    mds_t m = mds_create(p);
    dnnl_status_t s = m.status;
    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
    REQUIRE_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, p->scratchpad));
    if (s == dnnl_success) s = pd_create(&pd, p, &m, attr);
    if (s == dnnl_success) s = dnnl_primitive_create(&prim, pd);
    for (int k = 0; k < MAX_ARGS && s == dnnl_success; k++) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, all_args[k]);
        int nd = 0;
        if (!md || dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd) != dnnl_success || nd == 0)
            continue;
        args[nargs].arg = all_args[k];
        args[nargs].memory = NULL;
        s = dnnl_memory_create(&args[nargs].memory, md, eng, DNNL_MEMORY_ALLOCATE);
        if (s == dnnl_success) nargs++;
    }
    if (s == dnnl_success) s = dnnl_primitive_execute(prim, strm, nargs, args);
    if (s == dnnl_success) s = dnnl_stream_wait(strm);
    while (nargs > 0) dnnl_memory_destroy(args[--nargs].memory);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    mds_destroy(&m);
    return s;
}

#define CHECK_RUN(p, expected) \
    check_status_(run(&(p)), (expected), "run(cell, prop, L, T, N, ...)", __FILE__, __LINE__)

static const dnnl_prop_kind_t props[] = {dnnl_forward_inference, dnnl_forward_training, dnnl_backward};

/* Issue 30 item 2: T = 2^62 + 1, N = 4, C = 1 for every cell and prop kind. */
static void check_time_steps_past_2_62(void) {
    for (int c = VANILLA; c <= LSTM; c++)
        for (int k = 0; k < 3; k++) {
            problem_t p = base((cell_t)c, props[k], 1, P(62) + 1, 4);
            if (!CHECK_RUN(p, dnnl_invalid_arguments))
                fprintf(stderr, "  (%s, prop %d)\n", cell_names[c], (int)props[k]);
            p.with_states = 1;
            CHECK_RUN(p, dnnl_invalid_arguments);
        }
}

/*
 * Issue 30 item 3: L = 2^40 (weights 2^44 bytes and more): the pd is created
 * at once with its true sizes; what the library then allocates (its
 * scratchpad, memory from the pd's descriptors) is out_of_memory.
 */
static void check_layers_2_40(void) {
    alarm(ALARM_SECONDS);
    for (int c = VANILLA; c <= LSTM; c++)
        for (int k = 0; k < 3; k++) {
            problem_t p = base((cell_t)c, props[k], P(40), 1, 1);
            dnnl_primitive_desc_t pd = NULL;
            dnnl_primitive_attr_t attr = NULL;
            mds_t m;
            if (!CHECK_RUN(p, dnnl_out_of_memory))
                fprintf(stderr, "  (%s, prop %d)\n", cell_names[c], (int)props[k]);
            p.weights_tag = dnnl_ldigo;
            CHECK_RUN(p, dnnl_out_of_memory);
            p.scratchpad = dnnl_scratchpad_mode_user;
            CHECK_RUN(p, dnnl_out_of_memory);
            /* the sizes the pd reports are not wrapped: forward scratchpads stage the bias
             * (L·G·DHC floats at least), workspaces hold the gates of every layer */
            m = mds_create(&p);
            REQUIRE_OK(m.status);
            REQUIRE_OK(dnnl_primitive_attr_create(&attr));
            REQUIRE_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
            if (CHECK_OK(pd_create(&pd, &p, &m, attr))) {
                const_dnnl_memory_desc_t sp = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
                const_dnnl_memory_desc_t ws = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
                size_t g = (size_t)gates(p.cell);
                if (props[k] != dnnl_backward)
                    CHECK(dnnl_memory_desc_get_size(sp) >= (size_t)P(40) * g * 4,
                            "L = 2^40 %s: scratchpad of %zu bytes", cell_names[c],
                            dnnl_memory_desc_get_size(sp));
                if (props[k] != dnnl_forward_inference)
                    CHECK(dnnl_memory_desc_get_size(ws) >= (size_t)P(40) * g * 4,
                            "L = 2^40 %s: workspace of %zu bytes", cell_names[c],
                            dnnl_memory_desc_get_size(ws));
            }
            dnnl_primitive_desc_destroy(pd);
            dnnl_primitive_attr_destroy(attr);
            mds_destroy(&m);
        }
    alarm(0);
}

/*
 * Products of valid descriptors' dims that do not fit: the pd is
 * invalid_arguments before anything is allocated.
 */
static void check_products_past_int64(void) {
    alarm(ALARM_SECONDS);
    for (int c = VANILLA; c <= LSTM; c++) {
        /* L = 2^58: weights of 2^60 floats fit; packed (hidden units padded to 32) they do not */
        problem_t p = base((cell_t)c, dnnl_forward_inference, P(58), 1, 1);
        CHECK_RUN(p, dnnl_invalid_arguments);
        p.weights_tag = dnnl_ldigo; /* packed into the scratchpad at execution */
        CHECK_RUN(p, dnnl_invalid_arguments);
        /* T·N = 2^60 rows (src_layer 2^62 bytes): the workspace's gates of every step */
        for (int k = 1; k < 3; k++) {
            p = base((cell_t)c, props[k], 1, P(30), P(30));
            if (!CHECK_RUN(p, dnnl_invalid_arguments))
                fprintf(stderr, "  (%s, prop %d)\n", cell_names[c], (int)props[k]);
        }
    }
    {
        /* N·G·DHC: LSTM with projection (DIC = 1), N = DHC = 2^31: the gates of one step */
        problem_t p = base(LSTM, dnnl_forward_inference, 1, 1, P(31));
        p.DHC = P(31);
        CHECK_RUN(p, dnnl_invalid_arguments);
    }
    alarm(0);
}

int main(void) {
    const dnnl_dims_t src = {P(62) + 1, 4, 1};
    dnnl_memory_desc_t md = NULL;
    signal(SIGALRM, on_alarm);
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    CHECK_STATUS_V(dnnl_memory_desc_create_with_tag(&md, 3, src, dnnl_f32, dnnl_tnc),
            dnnl_invalid_arguments, dnnl_success);
    dnnl_memory_desc_destroy(md);
    if (check_running_on_oxidnn()) {
        check_time_steps_past_2_62();
        check_layers_2_40();
        check_products_past_int64();
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return check_summary();
}
