/*
 * test_verbose.c - ONEDNN_VERBOSE / dnnl_set_verbose output in oneDNN v3's format.
 *
 * With ONEDNN_VERBOSE=all set before the first library call, stdout is captured
 * (fd 1 redirected to a temporary file) while an LSTM forward_training, its
 * backward, a weights reorder and a primitive descriptor with bad dimensions
 * are made and run. The captured lines are then checked field by field: the
 * `info` header first (version, CPU runtime, ISA, GPU runtime, the primitive
 * line template), then `primitive,create:cache_miss` / `primitive,exec` lines
 * with oneDNN's memory descriptor, auxiliary and problem spellings (only the
 * implementation name and the time are not compared), and a
 * `primitive,create:check,rnn,...` line for the bad descriptor. Then
 * dnnl_set_verbose: 0 prints nothing, 1 execution lines only, 2 creation lines
 * too, 3 is invalid. On oxidnn, a primitive with per-sample sequence lengths
 * shows `attr-oxidnn-seq-lengths:true` in its attributes field.
 *
 * `test_verbose --workload` only runs the workload (no capture, no checks):
 * scripts/verbose-vs-onednn.sh runs it with ONEDNN_VERBOSE=all on the real
 * oneDNN 3.13 and on oxidnn and compares the lines' fields.
 */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno, setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

enum { T = 10, N = 2, C = 32, G = 4 };

static dnnl_memory_desc_t md_of(int ndims, dnnl_dim_t a, dnnl_dim_t b,
        dnnl_dim_t c, dnnl_dim_t d, dnnl_dim_t e, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {a, b, c, d, e};
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dnnl_f32, tag));
    return md;
}

static dnnl_memory_t mem_for(dnnl_engine_t eng, const_dnnl_primitive_desc_t pd,
        int arg) {
    dnnl_memory_t m = NULL;
    const_dnnl_memory_desc_t md
            = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    REQUIRE_OK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    return m;
}

/* Creates a primitive for pd, runs it once with a fresh memory for each of
 * the n arguments, and destroys everything (pd included). */
static void run(dnnl_engine_t eng, dnnl_stream_t s, dnnl_primitive_desc_t pd,
        const int *args, int n) {
    dnnl_primitive_t p = NULL;
    dnnl_exec_arg_t ea[32];
    int i;
    REQUIRE_OK(dnnl_primitive_create(&p, pd));
    for (i = 0; i < n; i++) {
        ea[i].arg = args[i];
        ea[i].memory = mem_for(eng, pd, args[i]);
    }
    REQUIRE_OK(dnnl_primitive_execute(p, s, n, ea));
    REQUIRE_OK(dnnl_stream_wait(s));
    for (i = 0; i < n; i++) dnnl_memory_destroy(ea[i].memory);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
}

static const int FWD_ARGS[] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER,
        DNNL_ARG_SRC_ITER_C, DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER,
        DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER,
        DNNL_ARG_DST_ITER_C, DNNL_ARG_WORKSPACE};

/* The LSTM forward pd (lengths: oxidnn's per-sample sequence lengths). */
static dnnl_primitive_desc_t lstm_fwd(dnnl_engine_t eng, dnnl_prop_kind_t prop,
        int lengths) {
    dnnl_memory_desc_t src = md_of(3, T, N, C, 0, 0, dnnl_tnc);
    dnnl_memory_desc_t iter = md_of(4, 1, 1, N, C, 0, dnnl_ldnc);
    dnnl_memory_desc_t w = md_of(5, 1, 1, C, G, C, dnnl_ldigo);
    dnnl_memory_desc_t b = md_of(4, 1, 1, G, C, 0, dnnl_ldgo);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t attr = NULL;
    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
#if defined(OXIDNN_H)
    REQUIRE_OK(oxidnn_primitive_attr_set_rnn_seq_lengths(attr, lengths));
#else
    (void)lengths;
#endif
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, prop,
            dnnl_unidirectional_left2right, src, iter, iter, w, w, NULL, NULL,
            b, src, iter, iter, 0, attr));
    dnnl_primitive_attr_destroy(attr);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(iter);
    dnnl_memory_desc_destroy(w);
    dnnl_memory_desc_destroy(b);
    return pd;
}

/* LSTM forward_training + backward (plain weights), a weights reorder
 * (ldigo -> ldgoi) and a descriptor with a bad dst_layer. */
static void workload(dnnl_engine_t eng, dnnl_stream_t s) {
    static const int bwd_args[] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER,
            DNNL_ARG_SRC_ITER_C, DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER,
            DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER,
            DNNL_ARG_DST_ITER_C, DNNL_ARG_WORKSPACE, DNNL_ARG_DIFF_SRC_LAYER,
            DNNL_ARG_DIFF_SRC_ITER, DNNL_ARG_DIFF_SRC_ITER_C,
            DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER,
            DNNL_ARG_DIFF_BIAS, DNNL_ARG_DIFF_DST_LAYER,
            DNNL_ARG_DIFF_DST_ITER, DNNL_ARG_DIFF_DST_ITER_C};
    static const int reorder_args[] = {DNNL_ARG_FROM, DNNL_ARG_TO};
    dnnl_memory_desc_t src = md_of(3, T, N, C, 0, 0, dnnl_tnc);
    dnnl_memory_desc_t bad = md_of(3, T, N + 1, C, 0, 0, dnnl_tnc);
    dnnl_memory_desc_t iter = md_of(4, 1, 1, N, C, 0, dnnl_ldnc);
    dnnl_memory_desc_t w = md_of(5, 1, 1, C, G, C, dnnl_ldigo);
    dnnl_memory_desc_t wt = md_of(5, 1, 1, C, G, C, dnnl_ldgoi);
    dnnl_memory_desc_t b = md_of(4, 1, 1, G, C, 0, dnnl_ldgo);
    dnnl_primitive_desc_t fwd = lstm_fwd(eng, dnnl_forward_training, 0);
    dnnl_primitive_desc_t bwd = NULL, reorder = NULL, failed = NULL;

    REQUIRE_OK(dnnl_lstm_backward_primitive_desc_create(&bwd, eng,
            dnnl_backward, dnnl_unidirectional_left2right, src, iter, iter, wt,
            wt, NULL, NULL, b, src, iter, iter, src, iter, iter, w, w, NULL,
            NULL, b, src, iter, iter, dnnl_rnn_flags_diff_weights_overwrite,
            fwd, NULL));
    run(eng, s, fwd, FWD_ARGS, 10);
    REQUIRE_OK(dnnl_reorder_primitive_desc_create(
            &reorder, w, eng, wt, eng, NULL));
    run(eng, s, reorder, reorder_args, 2);
    run(eng, s, bwd, bwd_args, 19);
    CHECK_STATUS(dnnl_lstm_forward_primitive_desc_create(&failed, eng,
                         dnnl_forward_inference,
                         dnnl_unidirectional_left2right, src, NULL, NULL, w, w,
                         NULL, NULL, b, bad, NULL, NULL, 0, NULL),
            dnnl_invalid_arguments);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(bad);
    dnnl_memory_desc_destroy(iter);
    dnnl_memory_desc_destroy(w);
    dnnl_memory_desc_destroy(wt);
    dnnl_memory_desc_destroy(b);
}

/* ---- capture ------------------------------------------------------------- */

static int saved_fd = -1;
static FILE *capture_file = NULL;

static void capture_begin(void) {
    fflush(stdout);
    capture_file = tmpfile();
    REQUIRE(capture_file != NULL, "tmpfile");
    saved_fd = dup(1);
    REQUIRE(saved_fd >= 0, "dup");
    REQUIRE(dup2(fileno(capture_file), 1) == 1, "dup2");
}

/* Ends the capture; returns the captured text (malloc'd, caller frees). */
static char *capture_end(void) {
    long n;
    char *text;
    fflush(stdout);
    REQUIRE(dup2(saved_fd, 1) == 1, "dup2 back");
    close(saved_fd);
    n = ftell(capture_file);
    REQUIRE(n >= 0, "ftell");
    text = malloc((size_t)n + 1);
    REQUIRE(text != NULL, "oom");
    rewind(capture_file);
    REQUIRE(fread(text, 1, (size_t)n, capture_file) == (size_t)n, "fread");
    text[n] = '\0';
    fclose(capture_file);
    return text;
}

/* ---- line checks ----------------------------------------------------------- */

enum { MAX_LINES = 256, MAX_FIELDS = 32 };

typedef struct {
    char *line[MAX_LINES];
    int n;
} lines_t;

/* Splits text into its onednn_verbose lines (in place). */
static lines_t verbose_lines(char *text) {
    lines_t l;
    char *p = text;
    l.n = 0;
    while (p && *p && l.n < MAX_LINES) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        if (strncmp(p, "onednn_verbose,", 15) == 0) l.line[l.n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    return l;
}

/* Splits a copy of line on ','; returns the number of fields. */
static int fields_of(const char *line, char *buf, size_t cap, char **f) {
    int n = 0;
    char *p;
    REQUIRE(strlen(line) < cap, "line too long");
    strcpy(buf, line);
    p = buf;
    while (n < MAX_FIELDS) {
        char *c = strchr(p, ',');
        f[n++] = p;
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static int count_prefix(const lines_t *l, const char *prefix) {
    int i, k = 0;
    for (i = 0; i < l->n; i++)
        if (strncmp(l->line[i], prefix, strlen(prefix)) == 0) k++;
    return k;
}

/* The primitive line `op` of kind/prop: checks its 13 fields; returns 1 if found. */
static int check_primitive_line(const lines_t *l, const char *op,
        const char *kind, const char *prop, const char *mds, const char *attrs,
        const char *aux, const char *problem) {
    char buf[4096], *f[MAX_FIELDS];
    int i;
    for (i = 0; i < l->n; i++) {
        int n = fields_of(l->line[i], buf, sizeof buf, f);
        char *end = NULL;
        double ms;
        if (n < 8 || strcmp(f[2], "primitive") != 0 || strcmp(f[3], op) != 0
                || strcmp(f[5], kind) != 0 || strcmp(f[7], prop) != 0
                || strcmp(f[11 < n ? 11 : 0], problem) != 0)
            continue;
        CHECK(n == 13, "%s %s line has %d fields, not 13: %s", op, kind, n,
                l->line[i]);
        if (n != 13) return 1;
        CHECK(strcmp(f[1], "v1") == 0 && strcmp(f[4], "cpu") == 0,
                "marker/engine: %s", l->line[i]);
        CHECK(strlen(f[6]) > 0, "implementation name empty: %s", l->line[i]);
        CHECK(strcmp(f[8], mds) == 0, "%s %s mds\n  got  %s\n  want %s", op,
                prop, f[8], mds);
        CHECK(strcmp(f[9], attrs) == 0, "%s %s attrs: got '%s' want '%s'", op,
                prop, f[9], attrs);
        CHECK(strcmp(f[10], aux) == 0, "%s %s aux: got '%s' want '%s'", op,
                prop, f[10], aux);
        ms = strtod(f[12], &end);
        CHECK(end != f[12] && *end == '\0' && ms >= 0.0, "time '%s'", f[12]);
        return 1;
    }
    return 0;
}

#define FWD_MDS \
    "src_layer:f32::blocked:abc::f0 src_iter:f32::blocked:abcd::f0 " \
    "wei_layer:f32::blocked:abcde::f0 wei_iter:f32::blocked:abcde::f0 " \
    "bias:f32::blocked:abcd::f0 dst_layer:f32::blocked:abc::f0 " \
    "dst_iter:f32::blocked:abcd::f0"
#define BWD_MDS \
    "src_layer:f32::blocked:abc::f0 src_iter:f32::blocked:abcd::f0 " \
    "wei_layer:f32::blocked:abdec::f0 wei_iter:f32::blocked:abdec::f0 " \
    "bias:f32::blocked:abcd::f0 dst_layer:f32::blocked:abc::f0 " \
    "dst_iter:f32::blocked:abcd::f0 diff_src_layer:f32::blocked:abc::f0 " \
    "diff_src_iter:f32::blocked:abcd::f0 " \
    "diff_wei_layer:f32::blocked:abcde::f0 " \
    "diff_wei_iter:f32::blocked:abcde::f0 diff_bias:f32::blocked:abcd::f0 " \
    "diff_dst_layer:f32::blocked:abc::f0 diff_dst_iter:f32::blocked:abcd::f0"
#define AUX(flags) \
    "alg:vanilla_lstm direction:unidirectional_left2right activation:undef " \
    "flags:" flags
#define PROBLEM "l1t10mb2sic32slc32dhc32dic32"

static void check_all_level(char *text) {
    lines_t l = verbose_lines(text);
    char buf[4096], *f[MAX_FIELDS];
    int i, n, found_check = 0;
    static const char *header[] = {
            "onednn_verbose,v1,info,oneDNN v",
            "onednn_verbose,v1,info,cpu,runtime:",
            "onednn_verbose,v1,info,cpu,isa:",
            "onednn_verbose,v1,info,gpu,runtime:",
            "onednn_verbose,v1,primitive,info,template:operation,engine,"
            "primitive,implementation,prop_kind,memory_descriptors,attributes,"
            "auxiliary,problem_desc,exec_time"};

    REQUIRE(l.n >= 5, "only %d verbose lines", l.n);
    for (i = 0; i < 5; i++)
        CHECK(strncmp(l.line[i], header[i], strlen(header[i])) == 0,
                "header line %d: '%s' does not start with '%s'", i, l.line[i],
                header[i]);
    CHECK(strstr(l.line[0], " (commit ") != NULL, "version line: %s",
            l.line[0]);
    CHECK(count_prefix(&l, "onednn_verbose,v1,info,") == 4,
            "the info lines appear once");
    CHECK(check_primitive_line(&l, "create:cache_miss", "rnn",
                  "forward_training", FWD_MDS, "", AUX(""), PROBLEM),
            "no create line for forward_training");
    CHECK(check_primitive_line(&l, "exec", "rnn", "forward_training", FWD_MDS,
                  "", AUX(""), PROBLEM),
            "no exec line for forward_training");
    CHECK(check_primitive_line(&l, "exec", "rnn", "backward", BWD_MDS, "",
                  AUX("O"), PROBLEM),
            "no exec line for backward");
    CHECK(check_primitive_line(&l, "exec", "reorder", "undef",
                  "src:f32::blocked:abcde::f0 dst:f32::blocked:abdec::f0", "",
                  "", "1x1x32x4x32"),
            "no exec line for the reorder");
    for (i = 0; i < l.n; i++) {
        n = fields_of(l.line[i], buf, sizeof buf, f);
        if (n >= 6 && strcmp(f[3], "create:check") == 0) {
            found_check = 1;
            CHECK(strcmp(f[2], "primitive") == 0 && strcmp(f[4], "rnn") == 0,
                    "check line: %s", l.line[i]);
            CHECK(n == 7, "check line has %d fields, not 7: %s", n,
                    l.line[i]);
        }
    }
    CHECK(found_check, "no create:check line for the bad dst_layer");
}

/* Runs the forward pd once at the given dnnl_set_verbose level; returns the
 * numbers of create and exec lines printed. */
static void at_level(dnnl_engine_t eng, dnnl_stream_t s, int level,
        int *creates, int *execs) {
    char *text;
    lines_t l;
    CHECK_OK(dnnl_set_verbose(level));
    capture_begin();
    run(eng, s, lstm_fwd(eng, dnnl_forward_inference, 0), FWD_ARGS, 9);
    text = capture_end();
    l = verbose_lines(text);
    *creates = count_prefix(&l, "onednn_verbose,v1,primitive,create:");
    *execs = count_prefix(&l, "onednn_verbose,v1,primitive,exec,");
    free(text);
}

int main(int argc, char **argv) {
    dnnl_engine_t eng = NULL;
    dnnl_stream_t s = NULL;
    char *text;
    int creates, execs;

    if (argc > 1 && strcmp(argv[1], "--workload") == 0) {
        REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        REQUIRE_OK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));
        workload(eng, s);
        dnnl_stream_destroy(s);
        dnnl_engine_destroy(eng);
        return 0;
    }
    if (!check_running_on_oxidnn()) {
        /* the real oneDNN's own lines are compared by verbose-vs-onednn.sh */
        printf("not oxidnn: nothing checked\n");
        return 0;
    }
    REQUIRE(setenv("ONEDNN_VERBOSE", "all", 1) == 0, "setenv");
    capture_begin();
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));
    workload(eng, s);
    text = capture_end();
    check_all_level(text);
    free(text);

    at_level(eng, s, 0, &creates, &execs);
    CHECK(creates == 0 && execs == 0, "level 0: %d create, %d exec lines",
            creates, execs);
    at_level(eng, s, 1, &creates, &execs);
    CHECK(creates == 0 && execs == 1, "level 1: %d create, %d exec lines",
            creates, execs);
    at_level(eng, s, 2, &creates, &execs);
    CHECK(creates == 1 && execs == 1, "level 2: %d create, %d exec lines",
            creates, execs);
    CHECK_STATUS(dnnl_set_verbose(3), dnnl_invalid_arguments);

#if defined(OXIDNN_H)
    {
        dnnl_primitive_desc_t pd = lstm_fwd(eng, dnnl_forward_inference, 1);
        dnnl_primitive_t p = NULL;
        dnnl_exec_arg_t ea[10];
        void *h = NULL;
        lines_t l;
        int i;
        CHECK_OK(dnnl_set_verbose(1)); /* no create line */
        REQUIRE_OK(dnnl_primitive_create(&p, pd));
        for (i = 0; i < 10; i++) {
            ea[i].arg = i < 9 ? FWD_ARGS[i] : OXIDNN_ARG_SEQ_LENGTHS;
            ea[i].memory = mem_for(eng, pd, ea[i].arg);
        }
        REQUIRE_OK(dnnl_memory_get_data_handle(ea[9].memory, &h));
        ((int32_t *)h)[0] = T;
        ((int32_t *)h)[1] = 3;
        capture_begin();
        REQUIRE_OK(dnnl_primitive_execute(p, s, 10, ea));
        text = capture_end();
        l = verbose_lines(text);
        CHECK(check_primitive_line(&l, "exec", "rnn", "forward_inference",
                      FWD_MDS, "attr-oxidnn-seq-lengths:true", AUX(""),
                      PROBLEM),
                "no exec line with the sequence lengths attribute");
        free(text);
        for (i = 0; i < 10; i++) dnnl_memory_destroy(ea[i].memory);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    }
#endif
    CHECK_OK(dnnl_set_verbose(0));
    dnnl_stream_destroy(s);
    dnnl_engine_destroy(eng);
    return check_summary();
}
