/*
 * Loads an OpenVINO IR holding a TensorIterator over an LSTMCell (the TensorIterator-1
 * specification's example 2, committed as tests/ov_cases/ti_lstm_seed_example), describes its
 * inputs and outputs, runs it and prints the results.
 *
 *     graph_tensor_iterator [MODEL.xml [MODEL.bin]]
 *
 * When the model's directory holds a case.txt (as every tests/ov_cases/<case>/ does), the
 * inputs come from the case's .npy files and each output is checked against OpenVINO's expected
 * .npy (|got - want| <= 1e-5 * max(1, |want|)); otherwise the inputs are deterministic and the
 * outputs only printed. Without arguments the model is looked up relative to the current
 * directory: the repository root, a build directory inside it (where ctest runs the example)
 * or one level deeper. Uses the oxidnn_model_* / oxidnn_request_* extension of the C API
 * (include "oxidnn.h"): the model is loaded once (and could be shared by threads), a request
 * holds one thread's executions, and every buffer is passed with its size in bytes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The whole file, NUL-terminated; NULL when it cannot be read. */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
            && (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = 0;
            *len = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

/* The f32 values of a little-endian C-order .npy file (format 1.0 to 3.0) holding `count`
 * elements; exits on anything else. */
static float *read_npy_f32(const char *path, size_t count) {
    size_t len, header, data, n = 1;
    char *buf = read_file(path, &len), *dict, *shape;
    float *values;
    if (!buf || len < 12 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        fprintf(stderr, "%s: not a .npy file\n", path);
        exit(1);
    }
    header = buf[6] == 1 ? (unsigned char)buf[8] | (size_t)(unsigned char)buf[9] << 8
                         : (unsigned char)buf[8] | (size_t)(unsigned char)buf[9] << 8
                    | (size_t)(unsigned char)buf[10] << 16 | (size_t)(unsigned char)buf[11] << 24;
    dict = buf + (buf[6] == 1 ? 10 : 12);
    data = (size_t)(dict - buf) + header;
    if (data > len || !strstr(dict, "'descr': '<f4'") || !strstr(dict, "'fortran_order': False")
            || !(shape = strstr(dict, "'shape': ("))) {
        fprintf(stderr, "%s: not a little-endian C-order f32 array\n", path);
        exit(1);
    }
    for (shape += 10; *shape != ')';) {
        char *end;
        long d = strtol(shape, &end, 10);
        if (end == shape) break;
        n *= (size_t)d;
        shape = end + strspn(end, ", ");
    }
    if (n != count || len - data != n * sizeof(float)) {
        fprintf(stderr, "%s: %lu values, expected %lu\n", path, (unsigned long)n,
                (unsigned long)count);
        exit(1);
    }
    values = malloc(n * sizeof(float));
    if (!values) exit(1);
    memcpy(values, buf + data, n * sizeof(float));
    free(buf);
    return values;
}

/* The .npy file of the case.txt line "<kind>\t<name>\t<file>", as a path next to case.txt in
 * `dir` (written to `path`); 0 when there is no such line. */
static int case_file(const char *manifest, const char *dir, const char *kind, const char *name,
                     char *path, size_t size) {
    size_t kl = strlen(kind), nl = strlen(name);
    const char *line;
    for (line = manifest; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, kind, kl) == 0 && line[kl] == '\t' && strncmp(line + kl + 1, name, nl) == 0
                && line[kl + 1 + nl] == '\t') {
            const char *file = line + kl + 2 + nl;
            int flen = (int)strcspn(file, "\r\n");
            snprintf(path, size, "%s%.*s", dir, flen, file);
            return 1;
        }
    }
    return 0;
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
    oxidnn_request_t request;
    int n_in, n_out, i;
    float *in[8], *out[8];
    size_t in_len[8], out_len[8], in_bytes[8], out_bytes[8], k, manifest_len;
    const void *in_ptrs[8];
    void *out_ptrs[8];
    char dir[2048], manifest_path[4096], path[4096], *manifest;
    const char *slash;
    int mismatches = 0;

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
    /* The case manifest next to the model, if any. */
    slash = strrchr(xml, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - xml + 1) : 0, xml);
    snprintf(manifest_path, sizeof manifest_path, "%scase.txt", dir);
    manifest = read_file(manifest_path, &manifest_len);

    /* Inputs: the case's .npy files, else deterministic values in [-0.5, 0.5]. */
    for (i = 0; i < n_in; i++) {
        const char *name;
        in_len[i] = describe(model, 0, i);
        CHECK(oxidnn_model_get_input_name(model, i, &name));
        if (manifest && case_file(manifest, dir, "input", name, path, sizeof path)) {
            in[i] = read_npy_f32(path, in_len[i]);
        } else {
            in[i] = malloc(in_len[i] * sizeof(float));
            if (!in[i]) return 1;
            for (k = 0; k < in_len[i]; k++) in[i][k] = 0.5f * sinf(0.37f * (float)k + (float)i);
        }
        in_ptrs[i] = in[i];
        in_bytes[i] = in_len[i] * sizeof(float);
    }
    /* The outputs' shapes are static here, so user buffers can be sized before running. */
    for (i = 0; i < n_out; i++) {
        out_len[i] = describe(model, 1, i);
        out[i] = malloc(out_len[i] * sizeof(float));
        if (!out[i]) return 1;
        out_ptrs[i] = out[i];
        out_bytes[i] = out_len[i] * sizeof(float);
    }

    /* A request holds this thread's executions; too small a buffer would be an error. */
    CHECK(oxidnn_request_create(&request, model));
    CHECK(oxidnn_request_execute(request, n_in, in_ptrs, in_bytes, n_out, out_ptrs, out_bytes));

    for (i = 0; i < n_out; i++) {
        const char *name;
        const void *owned;
        size_t bytes;
        float lo = out[i][0], hi = out[i][0];
        double sum = 0.0;
        CHECK(oxidnn_model_get_output_name(model, i, &name));
        /* The library keeps a copy of each output too: it must equal the user buffer. */
        CHECK(oxidnn_request_get_output_data(request, i, &owned, &bytes));
        if (bytes != out_bytes[i]) {
            fprintf(stderr, "output %s: %lu bytes, expected %lu\n", name, (unsigned long)bytes,
                    (unsigned long)out_bytes[i]);
            return 1;
        }
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
        if (manifest && case_file(manifest, dir, "output", name, path, sizeof path)) {
            float *want = read_npy_f32(path, out_len[i]);
            double worst = 0.0;
            for (k = 0; k < out_len[i]; k++) {
                double err = fabs((double)out[i][k] - want[k]) / fmax(1.0, fabs((double)want[k]));
                worst = fmax(worst, err);
                if (err > 1e-5) mismatches++;
            }
            printf("  vs OpenVINO's expected %s: max error %.3g (relative to max(1, |want|))%s\n",
                   path, worst, worst > 1e-5 ? " MISMATCH" : "");
            free(want);
        }
    }
    free(manifest);
    if (mismatches) {
        fprintf(stderr, "%d values differ from OpenVINO's expected outputs\n", mismatches);
        return 1;
    }

    for (i = 0; i < n_in; i++) free(in[i]);
    for (i = 0; i < n_out; i++) free(out[i]);
    CHECK(oxidnn_request_destroy(request));
    CHECK(oxidnn_model_destroy(model));
    return 0;
}
