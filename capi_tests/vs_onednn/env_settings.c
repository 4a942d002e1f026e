/*
 * env_settings.c - oneDNN's environment variables for its library-wide
 * settings: ONEDNN_MAX_CPU_ISA, ONEDNN_CPU_ISA_HINTS,
 * ONEDNN_DEFAULT_FPMATH_MODE, ONEDNN_PRIMITIVE_CACHE_CAPACITY and their older
 * DNNL_ spellings, with well-formed, odd and malformed values; the setters
 * overriding them; and the effective ISA under every cap
 * dnnl_set_max_cpu_isa takes. A library reads each setting once, so every
 * case runs in a child process of its own, whose environment has exactly the
 * case's variables. Prints "<case>.<setting> <number>" lines, compared with
 * the real oneDNN's (compare_outputs.py): the effective ISA depends on the
 * CPU, so this program has no fixed expected output.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oneapi/dnnl/dnnl.h"

static const char *const SETTINGS[] = {"MAX_CPU_ISA", "CPU_ISA_HINTS",
        "DEFAULT_FPMATH_MODE", "PRIMITIVE_CACHE_CAPACITY"};
#define N_SETTINGS (sizeof(SETTINGS) / sizeof(SETTINGS[0]))

/* Every value dnnl_set_max_cpu_isa takes (the names oneDNN 3.2 has too). */
static const struct {
    const char *name;
    dnnl_cpu_isa_t isa;
} CAPS[] = {
        {"default", dnnl_cpu_isa_default},
        {"sse41", dnnl_cpu_isa_sse41},
        {"avx", dnnl_cpu_isa_avx},
        {"avx2", dnnl_cpu_isa_avx2},
        {"avx2_vnni", dnnl_cpu_isa_avx2_vnni},
        {"avx2_vnni_2", dnnl_cpu_isa_avx2_vnni_2},
        {"avx512_core", dnnl_cpu_isa_avx512_core},
        {"avx512_core_vnni", dnnl_cpu_isa_avx512_core_vnni},
        {"avx512_core_bf16", dnnl_cpu_isa_avx512_core_bf16},
        {"avx512_core_fp16", dnnl_cpu_isa_avx512_core_fp16},
        {"avx512_core_amx", dnnl_cpu_isa_avx512_core_amx},
        {"avx512_core_amx_fp16", dnnl_cpu_isa_avx512_core_amx_fp16},
};
#define N_CAPS (sizeof(CAPS) / sizeof(CAPS[0]))

/* What the getters answer (the default fpmath mode also as a new attribute
 * starts with it). */
static void report(const char *label) {
    dnnl_fpmath_mode_t mode = (dnnl_fpmath_mode_t)-1, attr_mode = (dnnl_fpmath_mode_t)-1;
    dnnl_primitive_attr_t attr = NULL;
    int capacity = -12345;
    dnnl_get_default_fpmath_mode(&mode);
    if (dnnl_primitive_attr_create(&attr) == dnnl_success) {
        dnnl_primitive_attr_get_fpmath_mode(attr, &attr_mode);
        dnnl_primitive_attr_destroy(attr);
    }
    dnnl_get_primitive_cache_capacity(&capacity);
    printf("%s.fpmath %d\n", label, (int)mode);
    printf("%s.attr_fpmath %d\n", label, (int)attr_mode);
    printf("%s.cache_capacity %d\n", label, capacity);
    printf("%s.isa_hints %d\n", label, (int)dnnl_get_cpu_isa_hints());
    printf("%s.effective_isa %d\n", label, (int)dnnl_get_effective_cpu_isa());
}

/* The setters after the environment: each overrides it. */
static void set_then_report(const char *label) {
    char name[256];
    snprintf(name, sizeof(name), "%s.set_max_cpu_isa", label);
    printf("%s %d\n", name, (int)dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx512_core));
    snprintf(name, sizeof(name), "%s.set_isa_hints", label);
    printf("%s %d\n", name, (int)dnnl_set_cpu_isa_hints(dnnl_cpu_isa_no_hints));
    snprintf(name, sizeof(name), "%s.set_fpmath", label);
    printf("%s %d\n", name, (int)dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_strict));
    snprintf(name, sizeof(name), "%s.set_cache_capacity", label);
    printf("%s %d\n", name, (int)dnnl_set_primitive_cache_capacity(9));
    snprintf(name, sizeof(name), "%s.after_setters", label);
    report(name);
}

static int failures = 0;

/* Runs `body(label)` in a child whose environment has none of the settings'
 * variables but the `n` NAME=VALUE assignments. */
static void in_child(const char *label, const char *const *assign, int n,
        void (*body)(const char *)) {
    pid_t pid;
    int status = 0;
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        failures++;
        return;
    }
    if (pid == 0) {
        unsigned i;
        int a;
        char var[64];
        for (i = 0; i < N_SETTINGS; i++) {
            snprintf(var, sizeof(var), "ONEDNN_%s", SETTINGS[i]);
            unsetenv(var);
            snprintf(var, sizeof(var), "DNNL_%s", SETTINGS[i]);
            unsetenv(var);
        }
        for (a = 0; a < n; a++) {
            const char *eq = strchr(assign[a], '=');
            size_t len = eq ? (size_t)(eq - assign[a]) : 0;
            if (!eq || len >= sizeof(var)) _exit(3);
            memcpy(var, assign[a], len);
            var[len] = '\0';
            if (setenv(var, eq + 1, 1) != 0) _exit(3);
        }
        body(label);
        fflush(stdout);
        _exit(0);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "case %s: the child failed (status %#x)\n", label, status);
        failures++;
    }
}

/* One case: a label made of the assignments, then `body` under them. */
static void with_env(const char *const *assign, int n, void (*body)(const char *)) {
    char label[256] = "env";
    int a;
    for (a = 0; a < n; a++) {
        size_t used = strlen(label);
        snprintf(label + used, sizeof(label) - used, ":%s", assign[a]);
    }
    /* labels are one word: blanks become '_' */
    for (a = 0; label[a]; a++)
        if (label[a] == ' ') label[a] = '_';
    in_child(label, assign, n, body);
}

static void one(const char *assign) {
    with_env(&assign, 1, report);
}

static const dnnl_cpu_isa_t *cap_of_child = NULL;

static void cap_then_report(const char *label) {
    char name[256];
    snprintf(name, sizeof(name), "%s.status", label);
    printf("%s %d\n", name, (int)dnnl_set_max_cpu_isa(*cap_of_child));
    snprintf(name, sizeof(name), "%s.effective_isa", label);
    printf("%s %d\n", name, (int)dnnl_get_effective_cpu_isa());
    snprintf(name, sizeof(name), "%s.again", label);
    printf("%s %d\n", name, (int)dnnl_set_max_cpu_isa(*cap_of_child));
}

int main(void) {
    static const char *const isa_values[] = {"SSE41", "AVX", "AVX2", "AVX2_VNNI",
            "AVX2_VNNI_2", "AVX512_CORE", "AVX512_CORE_VNNI", "AVX512_CORE_BF16",
            "AVX512_CORE_FP16", "AVX10_1_512", "AVX512_CORE_AMX", "AVX10_1_512_AMX",
            "AVX512_CORE_AMX_FP16", "AVX10_1_512_AMX_FP16", "ALL", "DEFAULT", "avx2",
            "Avx512_Core", "BOGUS", "", " AVX2"};
    static const char *const hint_values[] = {
            "NO_HINTS", "PREFER_YMM", "prefer_ymm", "BOGUS", ""};
    static const char *const fpmath_values[] = {
            "STRICT", "BF16", "F16", "ANY", "TF32", "bf16", "BOGUS", "", " BF16"};
    static const char *const capacity_values[] = {"7", "0", "-3", "abc", "12abc", " 5",
            "+8", "99999999999", "99999999999999999999999", ""};
    static const char *const pairs[][2] = {
            {"ONEDNN_MAX_CPU_ISA=AVX2", "DNNL_MAX_CPU_ISA=SSE41"},
            {"ONEDNN_MAX_CPU_ISA=", "DNNL_MAX_CPU_ISA=AVX2"},
            {"ONEDNN_DEFAULT_FPMATH_MODE=BOGUS", "DNNL_DEFAULT_FPMATH_MODE=BF16"},
            {"ONEDNN_PRIMITIVE_CACHE_CAPACITY=4", "DNNL_PRIMITIVE_CACHE_CAPACITY=9"},
            {"ONEDNN_CPU_ISA_HINTS=NO_HINTS", "DNNL_CPU_ISA_HINTS=PREFER_YMM"},
    };
    static const char *const all[] = {"ONEDNN_MAX_CPU_ISA=AVX2",
            "ONEDNN_CPU_ISA_HINTS=PREFER_YMM", "ONEDNN_DEFAULT_FPMATH_MODE=BF16",
            "ONEDNN_PRIMITIVE_CACHE_CAPACITY=7"};
    static const struct {
        const char *const *values;
        unsigned n;
        const char *setting;
    } lists[] = {
            {isa_values, sizeof(isa_values) / sizeof(isa_values[0]), "MAX_CPU_ISA"},
            {hint_values, sizeof(hint_values) / sizeof(hint_values[0]), "CPU_ISA_HINTS"},
            {fpmath_values, sizeof(fpmath_values) / sizeof(fpmath_values[0]),
                    "DEFAULT_FPMATH_MODE"},
            {capacity_values, sizeof(capacity_values) / sizeof(capacity_values[0]),
                    "PRIMITIVE_CACHE_CAPACITY"},
    };
    char assign[128];
    unsigned l, v;

    with_env(NULL, 0, report);
    for (l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
        for (v = 0; v < lists[l].n; v++) {
            snprintf(assign, sizeof(assign), "ONEDNN_%s=%s", lists[l].setting,
                    lists[l].values[v]);
            one(assign);
        }
        /* the older spelling alone */
        snprintf(assign, sizeof(assign), "DNNL_%s=%s", lists[l].setting, lists[l].values[1]);
        one(assign);
    }
    for (v = 0; v < sizeof(pairs) / sizeof(pairs[0]); v++)
        with_env(pairs[v], 2, report);
    with_env(all, 4, set_then_report);

    for (v = 0; v < N_CAPS; v++) {
        const char *env_cap[] = {"ONEDNN_MAX_CPU_ISA=SSE41"};
        char label[64];
        cap_of_child = &CAPS[v].isa;
        snprintf(label, sizeof(label), "cap:%s", CAPS[v].name);
        in_child(label, NULL, 0, cap_then_report);
        /* the setter overrides the environment's cap */
        snprintf(label, sizeof(label), "cap_over_env:%s", CAPS[v].name);
        in_child(label, env_cap, 1, cap_then_report);
    }
    printf("# %d children failed\n", failures);
    return failures != 0;
}
