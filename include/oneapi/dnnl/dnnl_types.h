/* oxidnn: oneDNN's <oneapi/dnnl/dnnl_types.h>. Everything is declared in oxidnn.h. */
#ifndef OXIDNN_SHIM_ONEAPI_DNNL_TYPES_H
#define OXIDNN_SHIM_ONEAPI_DNNL_TYPES_H
#include "../../oxidnn.h"
#endif
