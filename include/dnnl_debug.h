/* oxidnn: oneDNN's C API debug header name (the `*2str` helpers). Everything is declared in
 * oxidnn.h. */
#ifndef OXIDNN_SHIM_DNNL_DEBUG_H
#define OXIDNN_SHIM_DNNL_DEBUG_H
#include "oxidnn.h"
#endif
