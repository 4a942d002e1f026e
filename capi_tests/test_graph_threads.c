/*
 * One model shared by 8 threads: each thread makes its own request and runs the model
 * (tests/ov_cases/ti_lstm_seed_example: a TensorIterator over an LSTMCell, fused onto the RNN
 * primitive) RUNS times on inputs of its own, while the others do the same; every output must
 * equal, bit for bit, what a serial run on the same inputs gave.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "check.h"
#include "graph_files.h"

#define THREADS 8
#define RUNS 6
#define T 25
#define IN 32
#define HID 16
#define N_X (T * IN)
#define N_Y (T * HID)

struct outputs {
    float y[N_Y], h[HID], c[HID];
};

static oxidnn_model_t model;
static struct outputs serial[THREADS][RUNS];
static struct outputs concurrent[THREADS][RUNS];
static int failures[THREADS];

/* Deterministic inputs of run `r` of thread `t`. */
static void inputs(int t, int r, float *x, float *h, float *c) {
    int k;
    for (k = 0; k < N_X; k++) x[k] = 0.5f * sinf(0.37f * (float)k + 1.3f * (float)t + 0.7f * (float)r);
    for (k = 0; k < HID; k++) {
        h[k] = 0.25f * cosf(0.11f * (float)k + (float)t - (float)r);
        c[k] = 0.25f * sinf(0.23f * (float)k - (float)t + 0.5f * (float)r);
    }
}

static dnnl_status_t run(oxidnn_request_t req, int t, int r, struct outputs *out) {
    static const size_t in_sizes[3] = {N_X * sizeof(float), HID * sizeof(float),
                                       HID * sizeof(float)};
    static const size_t out_sizes[3] = {N_Y * sizeof(float), HID * sizeof(float),
                                        HID * sizeof(float)};
    float x[N_X], h[HID], c[HID];
    const void *in[3];
    void *outs[3];
    in[0] = x;
    in[1] = h;
    in[2] = c;
    outs[0] = out->y;
    outs[1] = out->h;
    outs[2] = out->c;
    inputs(t, r, x, h, c);
    return oxidnn_request_execute(req, 3, in, in_sizes, 3, outs, out_sizes);
}

static void *worker(void *arg) {
    int t = (int)(size_t)arg, r;
    oxidnn_request_t req;
    if (oxidnn_request_create(&req, model) != dnnl_success) {
        failures[t]++;
        return NULL;
    }
    for (r = 0; r < RUNS; r++)
        if (run(req, t, r, &concurrent[t][r]) != dnnl_success) failures[t]++;
    oxidnn_request_destroy(req);
    return NULL;
}

int main(void) {
    char path[4096];
    const char *xml = repo_path("tests/ov_cases/ti_lstm_seed_example/model.xml", path, sizeof path);
    oxidnn_request_t req;
    pthread_t threads[THREADS];
    int t, r;
    REQUIRE(xml != NULL, "cannot find tests/ov_cases/ti_lstm_seed_example/model.xml");
    REQUIRE_OK(oxidnn_model_load(&model, xml, NULL));

    REQUIRE_OK(oxidnn_request_create(&req, model));
    for (t = 0; t < THREADS; t++)
        for (r = 0; r < RUNS; r++) CHECK_OK(run(req, t, r, &serial[t][r]));
    CHECK_OK(oxidnn_request_destroy(req));

    for (t = 0; t < THREADS; t++)
        REQUIRE(pthread_create(&threads[t], NULL, worker, (void *)(size_t)t) == 0,
                "pthread_create");
    for (t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    for (t = 0; t < THREADS; t++) {
        CHECK(failures[t] == 0, "thread %d: %d executions failed", t, failures[t]);
        for (r = 0; r < RUNS; r++) {
            CHECK_FLOATS_EXACT(concurrent[t][r].y, serial[t][r].y, N_Y, "Y");
            CHECK_FLOATS_EXACT(concurrent[t][r].h, serial[t][r].h, HID, "Ho");
            CHECK_FLOATS_EXACT(concurrent[t][r].c, serial[t][r].c, HID, "Co");
        }
    }
    /* Different inputs give different outputs (the comparison is not vacuous). */
    CHECK(memcmp(serial[0][0].y, serial[1][0].y, sizeof serial[0][0].y) != 0,
          "threads 0 and 1 computed the same Y");
    CHECK_OK(oxidnn_model_destroy(model));
    return check_summary();
}
