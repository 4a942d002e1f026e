/* oxidnn: oneDNN's <oneapi/dnnl/dnnl_debug.h>. Everything is declared in oxidnn.h. */
#ifndef OXIDNN_SHIM_ONEAPI_DNNL_DEBUG_H
#define OXIDNN_SHIM_ONEAPI_DNNL_DEBUG_H
#include "../../oxidnn.h"
#endif
