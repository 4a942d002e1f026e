/*
 * check.h - tiny assertion helpers for the C API tests in capi_tests/.
 *
 * Header-only, C99, no dependency beyond libc/libm and the oneDNN C API
 * headers (ours or the real oneDNN's: the tests compile against both).
 *
 *   CHECK(cond, fmt, ...)         record a check; print the message on failure
 *   CHECK_OK(call)                the call must return dnnl_success
 *   CHECK_STATUS(call, expected)  the call must return `expected`
 *   CHECK_STATUS_V(call, s313, s32) a status that differs between oneDNN
 *                                 versions: 3.13 (and oxidnn) vs 3.2
 *   CHECK_CLOSE(got, want, what)  float compare, benchdnn-like tolerance
 *                                 (rel 1e-5, abs 1e-6; -DCHECK_RTOL=.. to change)
 *   CHECK_FLOATS(got, want, n, what)        n floats, one check, same tolerance
 *   CHECK_FLOATS_EXACT(got, want, n, what)  n floats, bit-exact
 *   REQUIRE(cond, fmt, ...)       a set-up step: a failure ends the program
 *   REQUIRE_OK(call)              (REQUIREs count in the summary only when
 *                                 they fail)
 *   check_summary()               prints "N passed, M failed" on its own line
 *                                 and returns the process exit code
 *
 * The CHECK_* macros are expressions that evaluate to 1 (pass) or 0 (fail),
 * so `if (!CHECK_OK(x)) goto cleanup;` works. Failures are printed to stderr
 * with file:line, the call text and (for statuses) dnnl_status2str of both
 * the expected and the returned status.
 *
 * The summary line format `N passed, M failed` is read by CI parsers: keep it
 * exactly so.
 */
#ifndef CAPI_TESTS_CHECK_H
#define CAPI_TESTS_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"

/* Counters live in the one translation unit of each test program. */
static int check_passed_ = 0;
static int check_failed_ = 0;

/* Default tolerance for float results (benchdnn-like for f32 RNN). */
#ifndef CHECK_RTOL
#define CHECK_RTOL 1e-5
#endif
#ifndef CHECK_ATOL
#define CHECK_ATOL 1e-6
#endif

static inline const char *check_status_str_(dnnl_status_t s) {
    const char *str = dnnl_status2str(s);
    return str ? str : "(null)";
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static inline int check_record_(int ok, const char *file, int line,
        const char *fmt, ...) {
    if (ok) {
        check_passed_++;
        return 1;
    }
    check_failed_++;
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
    fflush(stderr);
    return 0;
}

static inline int check_status_(dnnl_status_t got, dnnl_status_t want,
        const char *expr, const char *file, int line) {
    return check_record_(got == want, file, line,
            "%s returned %s (%d), expected %s (%d)", expr,
            check_status_str_(got), (int)got, check_status_str_(want),
            (int)want);
}

/* 1 when `got` is within the tolerance of `want`. */
static inline int check_close_(double got, double want, double rtol,
        double atol) {
    double diff;
    if (isnan(got) || isnan(want)) return 0;
    diff = fabs(got - want);
    return diff <= atol || diff <= rtol * fabs(want);
}

/* Prints the summary line and returns the exit code for main(). */
static inline int check_summary(void) {
    fflush(stderr);
    printf("%d passed, %d failed\n", check_passed_, check_failed_);
    fflush(stdout);
    return check_failed_ == 0 && check_passed_ > 0 ? 0 : 1;
}

/* Ends the program after a failed REQUIRE (the summary is still printed). */
static inline void check_abort_(void) {
    fprintf(stderr, "aborting: a required step failed\n");
    check_summary();
    exit(1);
}

/*
 * Under AddressSanitizer (the `sanitize` build) an allocation larger than the
 * allocator supports aborts the program; with this default it returns NULL, as
 * malloc does, so a library reports out_of_memory (test_md_sizes.c and
 * test_rnn_sizes.c ask for 2^62-byte buffers). Read by ASan at start-up only.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

/*
 * True when the library loaded at run time is oxidnn (its dnnl_version() hash starts with
 * "oxidnn"), also for a binary compiled against the real oneDNN headers and run with oxidnn
 * in place of libdnnl.so.3.
 */
static inline int check_running_on_oxidnn(void) {
    const dnnl_version_t *v = dnnl_version();
    return v && v->hash && strncmp(v->hash, "oxidnn", 6) == 0;
}

/*
 * Where real oneDNN 3.2 and 3.13 return different statuses, the tests expect
 * the 3.13 value. check_new_onednn_() says which behaviour to expect:
 *   2  oxidnn (its header defines OXIDNN_H), or oneDNN >= 3.13: the new value
 *   1  oneDNN <= 3.2: the old value
 *   0  a version in between: either value is accepted
 */
static inline int check_new_onednn_(void) {
#if defined(OXIDNN_H)
    return 2;
#else
    const dnnl_version_t *v = dnnl_version();
    int ver;
    if (!v) return 2;
    ver = v->major * 100 + v->minor;
    return ver >= 313 ? 2 : ver <= 302 ? 1 : 0;
#endif
}

static inline int check_status_v_(dnnl_status_t got, dnnl_status_t want_new,
        dnnl_status_t want_old, const char *expr, const char *file,
        int line) {
    int era = check_new_onednn_();
    if (era == 0 && got == want_old) want_new = want_old;
    return check_status_(
            got, era == 1 ? want_old : want_new, expr, file, line);
}

#define CHECK(cond, ...) \
    check_record_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define CHECK_STATUS(call, expected) \
    check_status_((call), (expected), #call, __FILE__, __LINE__)

#define CHECK_OK(call) CHECK_STATUS(call, dnnl_success)

/* Status that differs between versions: 3.13 (and oxidnn) vs 3.2. */
#define CHECK_STATUS_V(call, expected_313, expected_32) \
    check_status_v_((call), (expected_313), (expected_32), #call, __FILE__, \
            __LINE__)

#define CHECK_CLOSE(got, want, what) \
    check_record_(check_close_((double)(got), (double)(want), CHECK_RTOL, \
                          CHECK_ATOL), \
            __FILE__, __LINE__, "%s: got %.9g, expected %.9g", (what), \
            (double)(got), (double)(want))

/* REQUIREs are set-up steps: they count only when they fail. */
#define REQUIRE(cond, ...) \
    do { \
        if (!(cond)) { \
            check_record_(0, __FILE__, __LINE__, __VA_ARGS__); \
            check_abort_(); \
        } \
    } while (0)

#define REQUIRE_OK(call) \
    do { \
        dnnl_status_t require_st_ = (call); \
        if (require_st_ != dnnl_success) { \
            check_status_(require_st_, dnnl_success, #call, __FILE__, \
                    __LINE__); \
            check_abort_(); \
        } \
    } while (0)

/*
 * Compares n floats; counts as ONE check. Prints up to 5 mismatches
 * (index, got, expected) and the number of mismatching values.
 */
static inline int check_floats_(const float *got, const float *want, size_t n,
        double rtol, double atol, const char *what, const char *file,
        int line) {
    size_t i, bad = 0;
    for (i = 0; i < n; i++) {
        if (!check_close_(got[i], want[i], rtol, atol)) {
            if (bad < 5)
                fprintf(stderr, "  %s[%zu]: got %.9g, expected %.9g\n", what,
                        i, (double)got[i], (double)want[i]);
            bad++;
        }
    }
    return check_record_(bad == 0, file, line,
            "%s: %zu of %zu values outside rtol %g / atol %g", what, bad, n,
            rtol, atol);
}

#define CHECK_FLOATS(got, want, n, what) \
    check_floats_((got), (want), (n), CHECK_RTOL, CHECK_ATOL, (what), \
            __FILE__, __LINE__)

/* Bit-exact compare of n floats (reorders must not change values). */
#define CHECK_FLOATS_EXACT(got, want, n, what) \
    check_floats_((got), (want), (n), 0.0, 0.0, (what), __FILE__, __LINE__)

#endif /* CAPI_TESTS_CHECK_H */
