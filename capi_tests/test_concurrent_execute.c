/*
 * test_concurrent_execute.c - one primitive executed from 8 threads at once
 * gives, bit for bit, what a serial run gives.
 *
 * oneDNN lets a primitive execute on several threads at the same time (each
 * with its own stream and its own output memory). For LSTM forward inference,
 * forward training and backward (a training pass then a backward pass per
 * thread, on that thread's workspace), with plain weights (ldigo forward,
 * ldgoi backward, as oneDNN takes them; oxidnn packs plain weights into the
 * scratchpad at every execution), in library scratchpad mode (the
 * library's per-execution scratchpads) and in user mode (each thread passes
 * its own DNNL_ARG_SCRATCHPAD), 8 pthreads start together at a barrier and
 * run ROUNDS rounds (one under valgrind); every output of every round (dst,
 * workspace, diff src, diff weights, diff bias) must equal the serial run's
 * bytes. Two problems: a small one that runs on the calling threads (long
 * enough for executions to overlap: a library scratchpad shared by all
 * executions failed 16 runs of 16), a larger bidirectional one whose
 * executions use the library's thread pool.
 *
 * The inputs (src, weights, bias, diff dst) are memory objects shared by all
 * threads; every thread creates its own stream and output memories.
 *
 * Passes on oxidnn and oneDNN 3.13. oneDNN 3.2 crashes executing one
 * primitive from several threads in library scratchpad mode and gives other
 * bits on one of the threads in user mode: there only user mode runs and
 * only the executions' statuses are asserted.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

#include <pthread.h>
#include <stdint.h>

enum { THREADS = 8, ROUNDS = 6, G = 4 };

typedef struct {
    const char *name;
    dnnl_rnn_direction_t dir;
    int64_t L, D, T, N, C;
} problem_t;

static const problem_t problems[] = {
        {"small", dnnl_unidirectional_left2right, 2, 1, 24, 8, 32},
        {"pooled", dnnl_bidirectional_sum, 1, 2, 3, 16, 48},
};

/* Every argument the LSTM primitives take (one slot each). */
static const int all_args[] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C,
        DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER,
        DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C, DNNL_ARG_WORKSPACE, DNNL_ARG_SCRATCHPAD,
        DNNL_ARG_DIFF_SRC_LAYER, DNNL_ARG_DIFF_SRC_ITER, DNNL_ARG_DIFF_SRC_ITER_C,
        DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER, DNNL_ARG_DIFF_BIAS,
        DNNL_ARG_DIFF_DST_LAYER, DNNL_ARG_DIFF_DST_ITER, DNNL_ARG_DIFF_DST_ITER_C};
enum { SLOTS = sizeof all_args / sizeof *all_args };

/* Inputs every thread shares (never written by the primitives). */
static int is_shared(int arg) {
    switch (arg) {
    case DNNL_ARG_SRC_LAYER: case DNNL_ARG_SRC_ITER: case DNNL_ARG_SRC_ITER_C:
    case DNNL_ARG_WEIGHTS_LAYER: case DNNL_ARG_WEIGHTS_ITER: case DNNL_ARG_BIAS:
    case DNNL_ARG_DIFF_DST_LAYER: case DNNL_ARG_DIFF_DST_ITER: case DNNL_ARG_DIFF_DST_ITER_C:
        return 1;
    default: return 0;
    }
}

/* Backward reads these from the thread's own training pass. */
static int from_training(int arg) {
    return arg == DNNL_ARG_DST_LAYER || arg == DNNL_ARG_DST_ITER || arg == DNNL_ARG_DST_ITER_C
            || arg == DNNL_ARG_WORKSPACE;
}

/* Backward adds into these: zeroed before every pass. */
static int accumulates(int arg) {
    return arg == DNNL_ARG_DIFF_WEIGHTS_LAYER || arg == DNNL_ARG_DIFF_WEIGHTS_ITER
            || arg == DNNL_ARG_DIFF_BIAS;
}

enum { INFERENCE, TRAINING, BACKWARD, PASSES };

typedef struct {
    dnnl_engine_t eng;
    const problem_t *p;
    dnnl_primitive_desc_t pd[PASSES];
    dnnl_primitive_t prim[PASSES];
    dnnl_memory_t shared[SLOTS];
    dnnl_memory_t bwd_weights[SLOTS]; /* backward's ldgoi copies of the shared ldigo weights */
} setup_t;

/* One thread's memories: mem[pass][slot] (NULL where the pass does not take the argument). */
typedef struct {
    const setup_t *s;
    dnnl_memory_t mem[PASSES][SLOTS];
} ctx_t;

static const_dnnl_memory_desc_t arg_md(const_dnnl_primitive_desc_t pd, int arg) {
    const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    int nd = 0;
    if (!md || dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd) != dnnl_success || nd == 0)
        return NULL;
    return md;
}

static void *data_of(dnnl_memory_t m) {
    void *h = NULL;
    REQUIRE_OK(dnnl_memory_get_data_handle(m, &h));
    return h;
}

static size_t size_of(dnnl_memory_t m) {
    const_dnnl_memory_desc_t md = NULL;
    REQUIRE_OK(dnnl_memory_get_memory_desc(m, &md));
    return dnnl_memory_desc_get_size(md);
}

static dnnl_memory_desc_t md_tag(int nd, const int64_t *d, dnnl_format_tag_t tag) {
    dnnl_dims_t dims = {0};
    dnnl_memory_desc_t md = NULL;
    for (int k = 0; k < nd; k++) dims[k] = d[k];
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, nd, dims, dnnl_f32, tag));
    return md;
}

/* A copy of `src` in the layout of `md` (a reorder on a stream of its own). */
static dnnl_memory_t reordered(dnnl_engine_t eng, dnnl_memory_t src, const_dnnl_memory_desc_t md) {
    const_dnnl_memory_desc_t src_md = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_stream_t strm = NULL;
    dnnl_memory_t dst = NULL;
    REQUIRE_OK(dnnl_memory_get_memory_desc(src, &src_md));
    REQUIRE_OK(dnnl_memory_create(&dst, md, eng, DNNL_MEMORY_ALLOCATE));
    REQUIRE_OK(dnnl_reorder_primitive_desc_create(&pd, src_md, eng, md, eng, NULL));
    REQUIRE_OK(dnnl_primitive_create(&prim, pd));
    REQUIRE_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    {
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
        REQUIRE_OK(dnnl_primitive_execute(prim, strm, 2, args));
        REQUIRE_OK(dnnl_stream_wait(strm));
    }
    dnnl_stream_destroy(strm);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    return dst;
}

static void setup_create(setup_t *s, dnnl_engine_t eng, const problem_t *p, dnnl_scratchpad_mode_t mode) {
    const int64_t layer[] = {p->T, p->N, p->C}, state[] = {p->L, p->D, p->N, p->C},
                  w[] = {p->L, p->D, p->C, G, p->C}, b[] = {p->L, p->D, G, p->C};
    dnnl_memory_desc_t ml = md_tag(3, layer, dnnl_tnc), ms = md_tag(4, state, dnnl_ldnc),
                       mw = md_tag(5, w, dnnl_ldigo), mwb = md_tag(5, w, dnnl_ldgoi),
                       mb = md_tag(4, b, dnnl_ldgo);
    dnnl_primitive_attr_t attr = NULL;
    const dnnl_prop_kind_t fwd[] = {dnnl_forward_inference, dnnl_forward_training};
    uint32_t seed = 12345u;
    memset(s, 0, sizeof *s);
    s->eng = eng;
    s->p = p;
    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
    REQUIRE_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, mode));
    for (int k = 0; k < 2; k++)
        REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&s->pd[k], eng, fwd[k], p->dir, ml, ms,
                ms, mw, mw, NULL, NULL, mb, ml, ms, ms, 0, attr));
    REQUIRE_OK(dnnl_lstm_backward_primitive_desc_create(&s->pd[BACKWARD], eng, dnnl_backward,
            p->dir, ml, ms, ms, mwb, mwb, NULL, NULL, mb, ml, ms, ms, ml, ms, ms, mw, mw, NULL,
            NULL, mb, ml, ms, ms, 0, s->pd[TRAINING], attr));
    for (int k = 0; k < PASSES; k++) REQUIRE_OK(dnnl_primitive_create(&s->prim[k], s->pd[k]));
    /* shared inputs, filled with values in [-0.5, 0.5) */
    for (int slot = 0; slot < SLOTS; slot++) {
        const int arg = all_args[slot];
        const_dnnl_memory_desc_t md = arg_md(s->pd[TRAINING], arg);
        float *f;
        size_t n;
        if (!md) md = arg_md(s->pd[BACKWARD], arg);
        if (!is_shared(arg) || !md) continue;
        REQUIRE_OK(dnnl_memory_create(&s->shared[slot], md, eng, DNNL_MEMORY_ALLOCATE));
        f = data_of(s->shared[slot]);
        n = dnnl_memory_desc_get_size(md) / sizeof(float);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1664525u + 1013904223u;
            f[i] = (float)(seed >> 8) / 16777216.f - 0.5f;
        }
    }
    for (int slot = 0; slot < SLOTS; slot++)
        if (all_args[slot] == DNNL_ARG_WEIGHTS_LAYER || all_args[slot] == DNNL_ARG_WEIGHTS_ITER)
            s->bwd_weights[slot] = reordered(eng, s->shared[slot], mwb);
    dnnl_primitive_attr_destroy(attr);
    dnnl_memory_desc_destroy(mwb);
    dnnl_memory_desc_destroy(ml);
    dnnl_memory_desc_destroy(ms);
    dnnl_memory_desc_destroy(mw);
    dnnl_memory_desc_destroy(mb);
}

static void setup_destroy(setup_t *s) {
    for (int k = 0; k < PASSES; k++) {
        dnnl_primitive_destroy(s->prim[k]);
        dnnl_primitive_desc_destroy(s->pd[k]);
    }
    for (int slot = 0; slot < SLOTS; slot++) {
        dnnl_memory_destroy(s->shared[slot]);
        dnnl_memory_destroy(s->bwd_weights[slot]);
    }
}

/* A thread's own memories for every argument that is neither shared nor from training. */
static void ctx_create(ctx_t *c, const setup_t *s) {
    memset(c, 0, sizeof *c);
    c->s = s;
    for (int k = 0; k < PASSES; k++)
        for (int slot = 0; slot < SLOTS; slot++) {
            const int arg = all_args[slot];
            const_dnnl_memory_desc_t md = arg_md(s->pd[k], arg);
            if (!md || is_shared(arg) || (k == BACKWARD && from_training(arg))) continue;
            REQUIRE_OK(dnnl_memory_create(&c->mem[k][slot], md, s->eng, DNNL_MEMORY_ALLOCATE));
        }
}

static void ctx_destroy(ctx_t *c) {
    for (int k = 0; k < PASSES; k++)
        for (int slot = 0; slot < SLOTS; slot++) dnnl_memory_destroy(c->mem[k][slot]);
}

/* The memory a pass uses for an argument slot (NULL: the pass does not take it). */
static dnnl_memory_t memory_for(const ctx_t *c, int pass, int slot) {
    const int arg = all_args[slot];
    if (!arg_md(c->s->pd[pass], arg)) return NULL;
    if (pass == BACKWARD && c->s->bwd_weights[slot]) return c->s->bwd_weights[slot];
    if (is_shared(arg)) return c->s->shared[slot];
    if (pass == BACKWARD && from_training(arg)) return c->mem[TRAINING][slot];
    return c->mem[pass][slot];
}

/* Inference, training, then backward on the training pass's outputs. */
static int run_passes(ctx_t *c, dnnl_stream_t strm) {
    for (int k = 0; k < PASSES; k++) {
        dnnl_exec_arg_t args[SLOTS];
        int nargs = 0;
        for (int slot = 0; slot < SLOTS; slot++) {
            dnnl_memory_t m = memory_for(c, k, slot);
            if (!m) continue;
            if (k == BACKWARD && accumulates(all_args[slot])) memset(data_of(m), 0, size_of(m));
            args[nargs].arg = all_args[slot];
            args[nargs].memory = m;
            nargs++;
        }
        if (dnnl_primitive_execute(c->s->prim[k], strm, nargs, args) != dnnl_success
                || dnnl_stream_wait(strm) != dnnl_success)
            return 0;
    }
    return 1;
}

/* Outputs of `c` that differ (in any byte) from the serial run's `ref` (scratchpads excluded). */
static int count_mismatches(const ctx_t *c, const ctx_t *ref) {
    int bad = 0;
    for (int k = 0; k < PASSES; k++)
        for (int slot = 0; slot < SLOTS; slot++) {
            dnnl_memory_t m = c->mem[k][slot], r = ref->mem[k][slot];
            if (!m || all_args[slot] == DNNL_ARG_SCRATCHPAD) continue;
            if (memcmp(data_of(m), data_of(r), size_of(m)) != 0) bad++;
        }
    return bad;
}

typedef struct {
    ctx_t ctx;
    const ctx_t *ref;
    pthread_barrier_t *barrier;
    int failures, mismatches;
} worker_t;

/*
 * Rounds per thread. Valgrind runs one thread at a time, so races cannot show
 * there (its LD_PRELOAD names vgpreload): one round keeps its memory checks
 * of every path within the test's time budget.
 */
static int rounds(void) {
    const char *preload = getenv("LD_PRELOAD");
    return preload && strstr(preload, "vgpreload") ? 1 : ROUNDS;
}

static void *worker(void *arg) {
    worker_t *w = arg;
    dnnl_stream_t strm = NULL;
    if (dnnl_stream_create(&strm, w->ctx.s->eng, dnnl_stream_default_flags) != dnnl_success)
        w->failures++;
    pthread_barrier_wait(w->barrier);
    for (int r = 0; r < rounds() && strm; r++) {
        if (!run_passes(&w->ctx, strm)) w->failures++;
        w->mismatches += count_mismatches(&w->ctx, w->ref);
    }
    dnnl_stream_destroy(strm);
    return NULL;
}

static void check_concurrent(dnnl_engine_t eng, dnnl_stream_t strm, const problem_t *p,
        dnnl_scratchpad_mode_t mode) {
    const char *mode_name = mode == dnnl_scratchpad_mode_user ? "user" : "library";
    setup_t s;
    ctx_t ref;
    worker_t w[THREADS];
    pthread_t th[THREADS];
    pthread_barrier_t barrier;
    setup_create(&s, eng, p, mode);
    ctx_create(&ref, &s);
    REQUIRE(run_passes(&ref, strm), "%s problem, %s scratchpad: the serial run failed", p->name, mode_name);
    REQUIRE(pthread_barrier_init(&barrier, NULL, THREADS) == 0, "pthread_barrier_init");
    for (int t = 0; t < THREADS; t++) {
        ctx_create(&w[t].ctx, &s);
        w[t].ref = &ref;
        w[t].barrier = &barrier;
        w[t].failures = w[t].mismatches = 0;
    }
    for (int t = 0; t < THREADS; t++)
        REQUIRE(pthread_create(&th[t], NULL, worker, &w[t]) == 0, "pthread_create");
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        CHECK(w[t].failures == 0, "%s problem, %s scratchpad, thread %d: %d failed executions",
                p->name, mode_name, t, w[t].failures);
        if (check_new_onednn_() != 1)
            CHECK(w[t].mismatches == 0,
                    "%s problem, %s scratchpad, thread %d: %d outputs differ from the serial run",
                    p->name, mode_name, t, w[t].mismatches);
        ctx_destroy(&w[t].ctx);
    }
    pthread_barrier_destroy(&barrier);
    ctx_destroy(&ref);
    setup_destroy(&s);
}

int main(void) {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    for (size_t k = 0; k < sizeof problems / sizeof *problems; k++) {
        if (check_new_onednn_() != 1)
            check_concurrent(eng, strm, &problems[k], dnnl_scratchpad_mode_library);
        check_concurrent(eng, strm, &problems[k], dnnl_scratchpad_mode_user);
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return check_summary();
}
