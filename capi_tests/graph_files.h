/*
 * graph_files.h - finds the repository's test models for the graph C API tests.
 *
 * repo_path() returns the first of "OXIDNN_SOURCE_DIR/<rel>" (the repository, defined by CMake),
 * "<rel>", "../<rel>", "../../<rel>" (ctest runs a test in its build directory) that opens, or
 * NULL.
 */
#ifndef CAPI_TESTS_GRAPH_FILES_H
#define CAPI_TESTS_GRAPH_FILES_H

#include <stdio.h>

#ifndef OXIDNN_SOURCE_DIR
#define OXIDNN_SOURCE_DIR "."
#endif

static inline const char *repo_path(const char *rel, char *buf, size_t size) {
    static const char *const prefixes[] = {OXIDNN_SOURCE_DIR "/", "", "../", "../../"};
    size_t i;
    for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        FILE *f;
        snprintf(buf, size, "%s%s", prefixes[i], rel);
        f = fopen(buf, "rb");
        if (f) {
            fclose(f);
            return buf;
        }
    }
    return NULL;
}

#endif
