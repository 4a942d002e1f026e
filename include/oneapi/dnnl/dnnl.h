/* oxidnn: oneDNN's <oneapi/dnnl/dnnl.h>. Everything is declared in oxidnn.h. */
#ifndef OXIDNN_SHIM_ONEAPI_DNNL_H
#define OXIDNN_SHIM_ONEAPI_DNNL_H
#include "../../oxidnn.h"
#endif
