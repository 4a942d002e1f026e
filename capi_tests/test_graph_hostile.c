/*
 * Graph C API calls that once crashed or hung the host, now errors with a message:
 *   - an output buffer sized after one run (trip count 3: 36 bytes) given to a run whose output
 *     is larger (trip count 64: 768 bytes): dnnl_invalid_arguments, nothing written;
 *   - a Loop whose trip count -1 comes from an input: stops at the request's limits
 *     (iterations: dnnl_invalid_arguments; bytes: dnnl_out_of_memory) instead of aborting;
 *   - a Loop slicing an input shorter than its trip count: an error naming the layer;
 *   - a device as the weights file (/dev/urandom): refused at once, not read forever.
 */
#include "check.h"
#include "graph_files.h"

static int error_contains(const char *text) {
    return strstr(oxidnn_get_last_error_message(), text) != NULL;
}

/* tests/ov_cases/loop5_trip_count_input: X [3] f32, trip () i64 -> last [3], all [trip, 3]. */
static dnnl_status_t run_trip(oxidnn_request_t req, int64_t trip, unsigned char *all,
                              size_t all_size) {
    static const float x[3] = {1.f, 2.f, 3.f};
    float last[3];
    const void *in[2];
    void *out[2];
    size_t in_sizes[2], out_sizes[2];
    in[0] = x;
    in[1] = &trip;
    in_sizes[0] = sizeof x;
    in_sizes[1] = sizeof trip;
    out[0] = last;
    out[1] = all;
    out_sizes[0] = sizeof last;
    out_sizes[1] = all_size;
    return oxidnn_request_execute(req, 2, in, in_sizes, 2, out, out_sizes);
}

static void output_buffer_too_small(const char *xml) {
    oxidnn_model_t model;
    oxidnn_request_t req;
    unsigned char all[36 + 4];
    const void *data;
    const int64_t *dims;
    size_t size, k;
    int ndims, untouched = 1;
    REQUIRE_OK(oxidnn_model_load(&model, xml, NULL));
    REQUIRE_OK(oxidnn_request_create(&req, model));
    memset(all, 0xAB, sizeof all);
    CHECK_OK(run_trip(req, 3, all, 36));
    CHECK_OK(oxidnn_request_get_output_shape(req, 1, &ndims, &dims));
    CHECK(ndims == 2 && dims[0] == 3 && dims[1] == 3, "shape of all after trip 3");
    memset(all, 0xCD, 36);
    CHECK_STATUS(run_trip(req, 64, all, 36), dnnl_invalid_arguments);
    CHECK(error_contains("output 1 \"all\" of shape [64, 3] needs 768 bytes, output_sizes[1] is 36"),
          "message: %s", oxidnn_get_last_error_message());
    for (k = 0; k < 36; k++) untouched &= all[k] == 0xCD;
    for (k = 36; k < sizeof all; k++) untouched &= all[k] == 0xAB;
    CHECK(untouched, "the too-small buffer (or past it) was written");
    CHECK_OK(oxidnn_request_get_output_data(req, 1, &data, &size));
    CHECK(size == 768, "all holds %lu bytes, expected 768", (unsigned long)size);

    /* trip count -1: the condition stays true; the limits end it. */
    CHECK_OK(oxidnn_request_set_limits(req, 1000, (size_t)1 << 30));
    CHECK_STATUS(run_trip(req, -1, all, 36), dnnl_invalid_arguments);
    CHECK(error_contains("more than 1000 iterations"), "message: %s",
          oxidnn_get_last_error_message());
    CHECK_OK(oxidnn_request_set_limits(req, (size_t)1 << 20, 65536));
    CHECK_STATUS(run_trip(req, -1, all, 36), dnnl_out_of_memory);
    CHECK(error_contains("more than 65536 bytes"), "message: %s", oxidnn_get_last_error_message());
    CHECK_STATUS(oxidnn_request_get_output_data(req, 1, &data, &size), dnnl_invalid_arguments);
    CHECK_OK(oxidnn_request_destroy(req));
    CHECK_OK(oxidnn_model_destroy(model));
}

/* tests/graph_support/loop_sliced_input: X [?, 3] sliced along axis 0, trip count from input. */
static void slice_past_the_input(const char *xml) {
    static const float x[6] = {-1.f, 2.f, -3.f, 4.f, -5.f, 6.f};
    static const int64_t shape[2] = {2, 3};
    oxidnn_model_t model;
    oxidnn_request_t req;
    int64_t trip = 3;
    float y[9];
    const void *in[2];
    void *out[1];
    size_t in_sizes[2], out_sizes[1];
    in[0] = x;
    in[1] = &trip;
    in_sizes[0] = sizeof x;
    in_sizes[1] = sizeof trip;
    out[0] = y;
    out_sizes[0] = sizeof y;
    REQUIRE_OK(oxidnn_model_load(&model, xml, NULL));
    REQUIRE_OK(oxidnn_request_create(&req, model));
    CHECK_OK(oxidnn_request_set_input_shape(req, 0, 2, shape));
    CHECK_STATUS(oxidnn_request_execute(req, 2, in, in_sizes, 1, out, out_sizes),
                 dnnl_invalid_arguments);
    CHECK(error_contains("layer 3 \"loop\" (Loop)") && error_contains("which has 2 slices"),
          "message: %s", oxidnn_get_last_error_message());
    trip = 2;
    CHECK_OK(oxidnn_request_execute(req, 2, in, in_sizes, 1, out, out_sizes));
    CHECK(y[0] == 0.f && y[1] == 2.f && y[5] == 6.f, "relu of the two slices");
    CHECK_OK(oxidnn_request_destroy(req));
    CHECK_OK(oxidnn_model_destroy(model));
}

static void device_as_weights(const char *xml) {
    oxidnn_model_t model = NULL;
    CHECK_STATUS(oxidnn_model_load(&model, xml, "/dev/urandom"), dnnl_invalid_arguments);
    CHECK(error_contains("/dev/urandom is not a regular file"), "message: %s",
          oxidnn_get_last_error_message());
    CHECK(model == NULL, "no model on failure");
}

int main(void) {
    char trip_path[4096], sliced_path[4096];
    const char *trip_xml
            = repo_path("tests/ov_cases/loop5_trip_count_input/model.xml", trip_path, sizeof trip_path);
    const char *sliced_xml = repo_path("tests/graph_support/loop_sliced_input.xml", sliced_path,
                                       sizeof sliced_path);
    REQUIRE(trip_xml && sliced_xml, "cannot find the test models under tests/");
    output_buffer_too_small(trip_xml);
    slice_past_the_input(sliced_xml);
    device_as_weights(trip_xml);
    return check_summary();
}
