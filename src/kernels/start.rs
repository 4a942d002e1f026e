//! What the accumulators of a tile GEMM start from: zeros, one row shared by every row of C,
//! or C itself.

/// What a GEMM adds its products to.
#[derive(Clone, Copy, Debug)]
pub enum Start {
    /// Zeros: C is overwritten.
    Zero,
    /// The same row of `16·vectors` 4-byte values for every row of C (e.g. the bias or the
    /// zero-point corrections), loaded into the accumulators with a row stride of 0.
    Row(*const u8),
    /// C: the products are added to it.
    Accumulate,
}
