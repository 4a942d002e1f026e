/* oxidnn: oneDNN's C++ API header name. Everything is declared in oneapi/dnnl/dnnl.hpp. */
#ifndef OXIDNN_SHIM_DNNL_HPP
#define OXIDNN_SHIM_DNNL_HPP
#include "oneapi/dnnl/dnnl.hpp"
#endif
