/* oxidnn: oneDNN's C API header name. Everything is declared in oxidnn.h. */
#ifndef OXIDNN_SHIM_DNNL_H
#define OXIDNN_SHIM_DNNL_H
#include "oxidnn.h"
#endif
