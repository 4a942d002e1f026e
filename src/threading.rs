//! The library-owned thread pool.
