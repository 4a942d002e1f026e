//! Raw views of the tensors one execution works on: user memory with its strides, and
//! step-indexed sequences of `[N × C]` matrices (user tensors, workspace or scratch alike).
//!
//! Views carry raw pointers: the driver hands disjoint rows to different threads, which the
//! borrow checker cannot express. Address computations wrap, so computing an address is safe;
//! dereferencing it is the caller's `unsafe` business, within the dims the pd validated.

use crate::kernels::gemm::RowsA;
use crate::memory::MemoryDesc;
use crate::types::DataType;

/// A plain tensor of `R` dims in user memory: element `(i0, …)` at `ptr + Σ i_k·strides[k]`.
#[derive(Clone, Copy, Debug)]
pub struct Strided<const R: usize> {
    /// Element `(0, …, 0)` (the descriptor's `offset0` applied).
    pub ptr: *mut f32,
    /// Strides in elements.
    pub strides: [isize; R],
}

// SAFETY: a view is an address; all accesses through it are unsafe and synchronised by the
// driver (disjoint writes, reads of data not written in the same phase).
unsafe impl<const R: usize> Send for Strided<R> {}
unsafe impl<const R: usize> Sync for Strided<R> {}

impl<const R: usize> Strided<R> {
    /// The view of a buffer through a strided `R`-dim descriptor (panics if not strided).
    pub fn new(base: *mut u8, md: &MemoryDesc) -> Self {
        let s = md.strides().expect("strided descriptor");
        let mut strides = [0isize; R];
        for (d, v) in strides.iter_mut().zip(s) {
            *d = *v as isize;
        }
        Self {
            ptr: base.cast::<f32>().wrapping_offset(md.offset0() as isize),
            strides,
        }
    }

    /// The view of a bf16 buffer as pairs: counting 4-byte words, word `q` of a row holding
    /// elements `2q` and `2q + 1` of the last dim. `None` unless the descriptor is strided,
    /// bf16, its last dim even and dense, every other stride and the first element's offset
    /// even, and that element's address 4-byte aligned.
    pub fn pairs(base: *mut u8, md: &MemoryDesc) -> Option<Self> {
        let s = md.strides()?;
        let last = *md.dims().last()?;
        let even = |v: i64| v % 2 == 0;
        let first = base.wrapping_add((2 * md.offset0()) as usize);
        let fits = md.data_type() == DataType::Bf16
            && md.ndims() == R
            && s[R - 1] == 1
            && even(last)
            && s[..R - 1].iter().all(|&v| even(v))
            && even(md.offset0())
            && first.addr().is_multiple_of(4);
        fits.then(|| {
            // Whole words between rows; the words of a row contiguous.
            let strides = std::array::from_fn(|d| if d + 1 < R { (s[d] / 2) as isize } else { 1 });
            Self {
                ptr: first.cast(),
                strides,
            }
        })
    }

    /// Address of element `idx`.
    #[inline]
    pub fn at(&self, idx: [usize; R]) -> *mut f32 {
        let off: isize = idx
            .iter()
            .zip(&self.strides)
            .map(|(&i, &s)| i as isize * s)
            .sum();
        self.ptr.wrapping_offset(off)
    }
}

/// A sequence of row sets: row `(s, n)` (step `s`, batch row `n`) starts at
/// `base + s·s_stride + n·n_stride`, with its channels contiguous.
#[derive(Clone, Copy, Debug)]
pub struct SeqView {
    /// Row `(0, 0)`.
    pub base: *mut f32,
    /// Stride between steps (negative for time-reversed directions, 0 for a state updated in
    /// place).
    pub s_stride: isize,
    /// Stride between batch rows.
    pub n_stride: isize,
}

// SAFETY: as for `Strided`.
unsafe impl Send for SeqView {}
unsafe impl Sync for SeqView {}

impl SeqView {
    /// A view of a dense `[steps][N][C]` block starting at `base`.
    pub fn dense(base: *mut f32, n: usize, c: usize) -> Self {
        Self {
            base,
            s_stride: (n * c) as isize,
            n_stride: c as isize,
        }
    }

    /// A single `[N][C]` matrix of a 4-D `[L][D][N][C]` state tensor, at every step.
    pub fn state(t: &Strided<4>, l: usize, d: usize) -> Self {
        Self {
            base: t.at([l, d, 0, 0]),
            s_stride: 0,
            n_stride: t.strides[2],
        }
    }

    /// Address of row `(s, n)`.
    #[inline]
    pub fn row(&self, s: usize, n: usize) -> *mut f32 {
        self.base
            .wrapping_offset(s as isize * self.s_stride + n as isize * self.n_stride)
    }

    /// The same rows with step `s` renumbered as step 0.
    pub fn from_step(&self, s: usize) -> Self {
        Self {
            base: self.row(s, 0),
            ..*self
        }
    }

    /// The rows of steps `s0..` as GEMM rows, step-major (`n` rows per step).
    pub fn gemm_rows(&self, s0: usize, n: usize) -> RowsA {
        RowsA {
            base: self.row(s0, 0),
            outer_stride: self.s_stride,
            inner_stride: self.n_stride,
            inner: n.max(1),
        }
    }
}

/// A raw pointer that may be shared by the work items of a parallel loop, which write disjoint
/// parts of what it points to. Read it with [`SyncPtr::get`] (a method, so closures capture the
/// wrapper rather than the bare pointer).
#[derive(Clone, Copy, Debug)]
pub struct SyncPtr<T>(pub *mut T);

// SAFETY: the users of a SyncPtr only write disjoint elements and read data not written
// concurrently (see the call sites).
unsafe impl<T> Send for SyncPtr<T> {}
unsafe impl<T> Sync for SyncPtr<T> {}

impl<T> SyncPtr<T> {
    /// The pointer.
    #[inline]
    pub fn get(self) -> *mut T {
        self.0
    }
}
