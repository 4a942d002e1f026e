/* oxidnn: oneDNN's C API types header name. Everything is declared in oxidnn.h. */
#ifndef OXIDNN_SHIM_DNNL_TYPES_H
#define OXIDNN_SHIM_DNNL_TYPES_H
#include "oxidnn.h"
#endif
