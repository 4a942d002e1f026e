/*
 * Loads an OpenVINO IR holding a TensorIterator over an LSTMCell (the TensorIterator-1
 * specification's example 2, committed as tests/ov_cases/ti_lstm_seed_example), describes its
 * inputs and outputs, runs it on deterministic f32 inputs and prints the results.
 *
 *     graph_tensor_iterator [MODEL.xml [MODEL.bin]]
 *
 * Without arguments the model is looked up relative to the current directory: the repository
 * root, a build directory inside it (where ctest runs the example) or one level deeper.
 * Uses the oxidnn_model_* extension of the C API (include "oxidnn.h").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "oxidnn.h"

#define CASE_PATH "tests/ov_cases/ti_lstm_seed_example/model.xml"

#define CHECK(call)                                                                  \
    do {                                                                             \
        dnnl_status_t s_ = (call);                                                   \
        if (s_ != dnnl_success) {                                                    \
            fprintf(stderr, "%s failed (status %d): %s\n", #call, (int)s_,           \
                    oxidnn_get_last_error_message());                                \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static const char *default_model(void) {
    static const char *const candidates[]
            = {CASE_PATH, "../" CASE_PATH, "../../" CASE_PATH};
    size_t i;
    for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        FILE *f = fopen(candidates[i], "rb");
        if (f) {
            fclose(f);
            return candidates[i];
        }
    }
    return NULL;
}

static size_t numel(int ndims, const int64_t *dims) {
    size_t n = 1;
    int d;
    for (d = 0; d < ndims; d++) n *= (size_t)dims[d];
    return n;
}

static void print_shape(int ndims, const int64_t *dims) {
    int d;
    printf("[");
    for (d = 0; d < ndims; d++) printf(d ? ", %lld" : "%lld", (long long)dims[d]);
    printf("]");
}

/* Describes input (output = 0) or output (output = 1) i; returns its element count. */
static size_t describe(oxidnn_model_t model, int output, int i) {
    const char *name;
    dnnl_data_type_t dt;
    int ndims;
    const int64_t *dims;
    if (output) {
        CHECK(oxidnn_model_get_output_name(model, i, &name));
        CHECK(oxidnn_model_get_output_type(model, i, &dt));
        CHECK(oxidnn_model_get_output_shape(model, i, &ndims, &dims));
    } else {
        CHECK(oxidnn_model_get_input_name(model, i, &name));
        CHECK(oxidnn_model_get_input_type(model, i, &dt));
        CHECK(oxidnn_model_get_input_shape(model, i, &ndims, &dims));
    }
    if (dt != dnnl_f32 || ndims < 0) {
        fprintf(stderr, "%s %s: this example handles static f32 tensors only\n",
                output ? "output" : "input", name);
        exit(1);
    }
    printf("  %-6s %-3s f32 ", output ? "output" : "input", name);
    print_shape(ndims, dims);
    printf("\n");
    return numel(ndims, dims);
}

int main(int argc, char **argv) {
    const char *xml = argc > 1 ? argv[1] : default_model();
    const char *bin = argc > 2 ? argv[2] : NULL;
    oxidnn_model_t model;
    int n_in, n_out, i;
    float *in[8], *out[8];
    size_t in_len[8], out_len[8], k;
    const void *in_ptrs[8];
    void *out_ptrs[8];

    if (!xml) {
        fprintf(stderr, "cannot find %s; pass the model path as the first argument\n",
                CASE_PATH);
        return 1;
    }
    CHECK(oxidnn_model_load(&model, xml, bin));
    CHECK(oxidnn_model_get_num_inputs(model, &n_in));
    CHECK(oxidnn_model_get_num_outputs(model, &n_out));
    if (n_in > 8 || n_out > 8) {
        fprintf(stderr, "too many inputs or outputs\n");
        return 1;
    }
    printf("model %s: %d inputs, %d outputs\n", xml, n_in, n_out);

    /* Deterministic inputs in [-0.5, 0.5]. */
    for (i = 0; i < n_in; i++) {
        in_len[i] = describe(model, 0, i);
        in[i] = malloc(in_len[i] * sizeof(float));
        if (!in[i]) return 1;
        for (k = 0; k < in_len[i]; k++) in[i][k] = 0.5f * sinf(0.37f * (float)k + (float)i);
        in_ptrs[i] = in[i];
    }
    /* The outputs' shapes are static here, so user buffers can be sized before running. */
    for (i = 0; i < n_out; i++) {
        out_len[i] = describe(model, 1, i);
        out[i] = malloc(out_len[i] * sizeof(float));
        if (!out[i]) return 1;
        out_ptrs[i] = out[i];
    }

    CHECK(oxidnn_model_execute(model, n_in, in_ptrs, n_out, out_ptrs));

    for (i = 0; i < n_out; i++) {
        const char *name;
        const void *owned;
        size_t bytes;
        float lo = out[i][0], hi = out[i][0];
        double sum = 0.0;
        CHECK(oxidnn_model_get_output_name(model, i, &name));
        /* The library keeps a copy of each output too: it must equal the user buffer. */
        CHECK(oxidnn_model_get_output_data(model, i, &owned, &bytes));
        for (k = 0; k < out_len[i]; k++) {
            float v = out[i][k];
            if (v != ((const float *)owned)[k]) {
                fprintf(stderr, "output %s: library copy differs at %lu\n", name,
                        (unsigned long)k);
                return 1;
            }
            if (!isfinite(v)) {
                fprintf(stderr, "output %s: non-finite value at %lu\n", name, (unsigned long)k);
                return 1;
            }
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            sum += v;
        }
        printf("%s: %lu values, mean %.6f, min %.6f, max %.6f\n  first:", name,
               (unsigned long)out_len[i], sum / (double)out_len[i], lo, hi);
        for (k = 0; k < out_len[i] && k < 6; k++) printf(" %.6f", out[i][k]);
        printf("\n");
    }

    for (i = 0; i < n_in; i++) free(in[i]);
    for (i = 0; i < n_out; i++) free(out[i]);
    CHECK(oxidnn_model_destroy(model));
    return 0;
}
