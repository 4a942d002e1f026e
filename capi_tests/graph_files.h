/*
 * graph_files.h - finds the repository's test models for the graph C API tests.
 *
 * ctest runs the tests in the build directory (inside the repository, or one level deeper);
 * repo_path() returns the first of "<rel>", "../<rel>", "../../<rel>" that opens, or NULL.
 */
#ifndef CAPI_TESTS_GRAPH_FILES_H
#define CAPI_TESTS_GRAPH_FILES_H

#include <stdio.h>

static inline const char *repo_path(const char *rel, char *buf, size_t size) {
    static const char *const prefixes[] = {"", "../", "../../"};
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
