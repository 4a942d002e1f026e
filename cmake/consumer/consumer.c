/* A oneDNN-style program built against an installed oxidnn (cmake/test_install.sh). */
#include <stdio.h>

#include <dnnl.h>
#include <oneapi/dnnl/dnnl.h>

int main(void) {
    dnnl_engine_t engine = NULL;
    dnnl_engine_kind_t kind = dnnl_any_engine;
    if (dnnl_engine_get_count(dnnl_cpu) != 1) {
        puts("consumer: expected one CPU engine");
        return 1;
    }
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success
            || dnnl_engine_get_kind(engine, &kind) != dnnl_success || kind != dnnl_cpu
            || dnnl_engine_destroy(engine) != dnnl_success) {
        puts("consumer: engine calls failed");
        return 1;
    }
    printf("consumer: ok (oneDNN API %d.%d)\n", DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR);
    return 0;
}
