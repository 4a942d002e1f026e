//! Compute kernels: GEMM over packed weights, vectorized activations.
