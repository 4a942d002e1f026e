//! The backward pass's GEMMs: `C = beta·C + A·B` on strided matrices (any row and column
//! strides, so transposed operands and the user's weights layouts are read in place), with
//! `matrixmultiply`, split over the library's threads when large; and the weight gradients
//! `C_p += A_pᵀ·B` ([`gemm_tn`]), with AVX-512 through the blocked kernel
//! [`kernels::gemm_tn`](crate::kernels::gemm_tn).

use crate::error::Result;
use crate::kernels::Isa;
use crate::rnn::views::SyncPtr;
use crate::{size, threading};

/// Floating-point work below which a GEMM runs on the calling thread.
const PARALLEL_MIN_FLOPS: usize = 1 << 20;
/// Smallest slice of rows (or columns) of `C` given to one thread.
const MIN_SPLIT: usize = 16;

/// A strided matrix: element `(r, c)` at `ptr + r·rs + c·cs`.
#[derive(Clone, Copy, Debug)]
pub struct Mat {
    /// Element `(0, 0)`.
    pub ptr: *const f32,
    /// Row stride (elements).
    pub rs: isize,
    /// Column stride (elements).
    pub cs: isize,
}

impl Mat {
    /// A row-major matrix with rows of `ld` elements.
    pub fn rows(ptr: *const f32, ld: usize) -> Self {
        Self {
            ptr,
            rs: ld as isize,
            cs: 1,
        }
    }

    /// The transposed view.
    pub fn t(self) -> Self {
        Self {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }

    /// The view starting at element `(r, c)`.
    pub fn at(self, r: usize, c: usize) -> Self {
        Self {
            ptr: self
                .ptr
                .wrapping_offset(r as isize * self.rs + c as isize * self.cs),
            ..self
        }
    }
}

/// `C[m × n] = beta·C + A[m × k]·B[k × n]` (with `beta = 0`, `C` is not read).
///
/// # Safety
/// Every element of the three matrices addressed by the dims must be valid; `C`'s elements
/// must be distinct and not overlap `A` or `B`.
pub unsafe fn gemm(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: Mat) {
    if m == 0 || n == 0 {
        return;
    }
    let parallel = 2 * m * n * k >= PARALLEL_MIN_FLOPS && threading::num_threads() > 1;
    // Split the larger dimension of C.
    let split_rows = m >= n;
    let extent = if split_rows { m } else { n };
    let parts = if parallel {
        (extent / MIN_SPLIT).clamp(1, threading::num_threads())
    } else {
        1
    };
    let cp = SyncPtr(c.ptr.cast_mut());
    let (ap, bp) = (SyncPtr(a.ptr.cast_mut()), SyncPtr(b.ptr.cast_mut()));
    threading::crew_for_each(parts, parts > 1, 2 * m * n * k, move |i| {
        let (r0, r1) = (i * extent / parts, (i + 1) * extent / parts);
        let a = Mat { ptr: ap.get(), ..a };
        let b = Mat { ptr: bp.get(), ..b };
        let c = Mat { ptr: cp.get(), ..c };
        let (a, b, c, mm, nn) = if split_rows {
            (a.at(r0, 0), b, c.at(r0, 0), r1 - r0, n)
        } else {
            (a, b.at(0, r0), c.at(0, r0), m, r1 - r0)
        };
        // SAFETY: each part writes its own rows (or columns) of C; the caller's contract covers
        // every address.
        unsafe {
            matrixmultiply::sgemm(
                mm,
                k,
                nn,
                1.0,
                a.ptr,
                a.rs,
                a.cs,
                b.ptr,
                b.rs,
                b.cs,
                beta,
                c.ptr.cast_mut(),
                c.rs,
                c.cs,
            );
        }
    });
}

/// One product of [`gemm_tn`]: `C[m × n] += Aᵀ·B`, `A` being `[k × m]`.
#[derive(Clone, Copy, Debug)]
pub struct TnPart {
    /// Columns of `A`, rows of `C`.
    pub m: usize,
    /// `A` `[k × m]`.
    pub a: Mat,
    /// `C` `[m × n]`.
    pub c: Mat,
}

/// Floats of packing buffer [`gemm_tn`] needs for products of `k` rows, at most `m` columns of
/// `A` and `n` of `B`: one blocked-kernel buffer per thread of the library.
pub fn tn_pack_floats(k: usize, m: usize, n: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let (a, b) = crate::kernels::gemm_tn::pack_floats(k, m, n);
        (a + b).next_multiple_of(16) * threading::num_threads()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (k, m, n);
        0
    }
}

/// Floats of scratch [`gemm_tn_bf16`] needs for products of `k` rows, `m_sum` columns of `A`
/// over a group of products and `n` of `B`; `invalid_arguments` when they do not fit.
pub fn tn_bf16_floats(k: usize, m_sum: usize, n: usize) -> Result<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::kernels::gemm_bf16_tn::K_ALIGN;
        let what = "RNN backward scratchpad";
        let kp = size::round_up(what, k, K_ALIGN)?;
        // A_pᵀ: m_sum rows of kp bf16; B: kp/2 pair rows.
        let a = size::product(what, &[m_sum, kp / 2])?;
        let b = size::product(what, &[kp / 2, size::round_up(what, n, 16)?])?;
        size::add(what, a, b)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (k, m_sum, n);
        Ok(0)
    }
}

/// [`gemm_tn`] for a bf16 primitive on bf16 instructions (`kernels::gemm_bf16_tn`): the
/// operands rounded to bf16 — the gradients `B` too, where oneDNN's bf16 backward rounds them
/// for its GEMMs — products and sums in f32; `sums` of the f32 values of `B`. Returns false
/// (nothing done) where it does not apply: no AMX-BF16 or full-rate `vdpbf16ps` under `isa`
/// (`Bf16Kernel::multiplies_in_bf16`), strides other than unit columns,
/// `n` not a multiple of 16 or `pack_len` floats too few ([`tn_bf16_floats`]).
///
/// # Safety
/// As [`gemm_tn`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_tn_bf16(
    isa: Isa,
    k: usize,
    n: usize,
    b: Mat,
    parts: &[TnPart],
    pack: *mut f32,
    pack_len: usize,
    sums: Option<&mut [f32]>,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::kernels::gemm_bf16::Bf16Kernel;
        use crate::kernels::gemm_bf16_tn::{convert_b, multiply, padded_k, transpose_a};
        let unit = |x: &Mat| x.cs == 1 && x.rs >= 0;
        let m_sum: usize = parts.iter().map(|p| p.m).sum();
        let fits = tn_bf16_floats(k, m_sum, n).is_ok_and(|f| f <= pack_len);
        let kernel = Bf16Kernel::for_isa(isa);
        let applies = kernel.multiplies_in_bf16()
            && n.is_multiple_of(16)
            && unit(&b)
            && parts.iter().all(|p| unit(&p.a) && unit(&p.c))
            && fits;
        if !applies {
            return false;
        }
        if k == 0 || n == 0 {
            return true;
        }
        let kp = padded_k(k);
        // Per product: A (f32), its transpose in the buffer (every A_pᵀ, m_p rows of kp bf16,
        // then B's pair rows), C.
        struct Op {
            a: SyncPtr<f32>,
            lda: usize,
            m: usize,
            at: SyncPtr<u16>,
            c: SyncPtr<f32>,
            ldc: usize,
        }
        let ops: Vec<Op> = parts
            .iter()
            .scan(0usize, |rows, p| {
                let at = SyncPtr(pack.cast::<u16>().wrapping_add(*rows * kp));
                *rows += p.m;
                Some(Op {
                    a: SyncPtr(p.a.ptr.cast_mut()),
                    lda: p.a.rs as usize,
                    m: p.m,
                    at,
                    c: SyncPtr(p.c.ptr.cast_mut()),
                    ldc: p.c.rs as usize,
                })
            })
            .collect();
        let bp = SyncPtr(pack.cast::<u32>().wrapping_add(m_sum * kp / 2));
        let blocks = crate::kernels::gemm_bf16_tn::blocks(n);
        let flops = 2 * m_sum * n * k;
        let threads = if flops >= PARALLEL_MIN_FLOPS {
            threading::num_threads().min(blocks)
        } else {
            1
        };
        let sums = sums.map(|s| SyncPtr(s.as_mut_ptr()));
        let bptr = SyncPtr(b.ptr.cast_mut());
        let join = (threads > 1).then(|| threading::join_wait(flops));
        threading::team(join, |team| {
            let (i, size) = (team.index(), team.size().min(threads));
            if i < size {
                // Each member: its share of K of every A_pᵀ (in whole pairs), then, once all
                // are done, its column blocks of B converted and multiplied.
                let share = threading::share_of(i, size, kp / 2);
                let ks = 2 * share.start..2 * share.end;
                for o in &ops {
                    let a = o.a.get().cast_const();
                    unsafe { transpose_a(isa, a, o.lda, k, o.m, ks.clone(), o.at.get(), kp) };
                }
            }
            team.barrier();
            if i < size {
                // Block by block: each converted, then multiplied while in cache.
                for j in threading::share_of(i, size, blocks) {
                    let (b, ldb) = (bptr.get().cast_const(), b.rs as usize);
                    let s = sums.map(SyncPtr::get);
                    unsafe { convert_b(isa, b, ldb, k, n, j..j + 1, bp.get(), s) };
                    for o in &ops {
                        let (a, bp) = (o.at.get().cast_const(), bp.get().cast_const());
                        let (c, ldc) = (o.c.get(), o.ldc);
                        let blocks = j..j + 1;
                        unsafe { multiply(kernel, a, kp, o.m, bp, n, kp / 2, blocks, c, ldc) };
                    }
                }
            }
        });
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, k, n, b, parts, pack, pack_len, sums);
        false
    }
}

/// `C_p += A_pᵀ·B` for every part, all sharing `B[k × n]`, and `sums[j] += Σ_k B[k][j]` when
/// given: with AVX-512 and unit column strides, the blocked kernel on each thread's slice of
/// the columns of `B` or, when `B` is the narrower operand, of the rows of every `C`
/// (`split_by_rows`) (buffers in `pack`, `pack_len` floats, at least [`tn_pack_floats`]);
/// else [`gemm`] per part.
///
/// # Safety
/// As [`gemm`] for each part; `pack` valid for `pack_len` writes and not otherwise accessed.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_tn(
    isa: Isa,
    k: usize,
    n: usize,
    b: Mat,
    parts: &[TnPart],
    pack: *mut f32,
    pack_len: usize,
    sums: Option<&mut [f32]>,
) {
    if let Some(s) = &sums {
        assert!(
            s.len() >= n,
            "gemm_tn: {} column sums for {n} columns",
            s.len()
        );
    }
    let m = parts.iter().map(|p| p.m).max().unwrap_or(0);
    #[cfg(target_arch = "x86_64")]
    {
        use crate::kernels::gemm_tn::{gemm_tn as kernel, TnProduct, MR, NR};
        let unit = |x: &Mat| x.cs == 1 && x.rs >= 0;
        let fast = isa >= Isa::Avx512
            && unit(&b)
            && parts.iter().all(|p| unit(&p.a) && unit(&p.c))
            && pack_len >= tn_pack_floats(k, m, n);
        if fast {
            if k == 0 || n == 0 {
                return;
            }
            let flops: usize = parts.iter().map(|p| 2 * p.m * n * k).sum();
            let m_total = parts.iter().map(|p| p.m).sum();
            let by_rows = split_by_rows(k, n, m_total);
            // The units the threads share: MR-row tiles of the products, or NR-column panels.
            let units = if by_rows {
                m.div_ceil(MR)
            } else {
                n.div_ceil(NR)
            };
            let threads = if flops >= PARALLEL_MIN_FLOPS {
                threading::num_threads().min(units)
            } else {
                1
            };
            let per_thread = tn_pack_floats(k, m, n) / threading::num_threads();
            let products: Vec<TnProduct> = parts
                .iter()
                .map(|p| TnProduct {
                    a: p.a.ptr,
                    lda: p.a.rs as usize,
                    m: p.m,
                    c: p.c.ptr.cast_mut(),
                    ldc: p.c.rs as usize,
                })
                .collect();
            let (bp, ldb, pack) = (SyncPtr(b.ptr.cast_mut()), b.rs as usize, SyncPtr(pack));
            let sums = sums.map(|s| SyncPtr(s.as_mut_ptr()));
            let products = SyncProducts(&products);
            threading::crew_for_each(threads, threads > 1, flops, move |i| {
                let share = |units: usize| (i * units / threads)..((i + 1) * units / threads);
                let pack = pack.get().wrapping_add(i * per_thread);
                if by_rows {
                    // This thread's MR-row tiles of every product, all columns; the column
                    // sums once, by the first thread.
                    let mine: Vec<TnProduct> = products
                        .get()
                        .iter()
                        .filter_map(|p| {
                            let tiles = share(p.m.div_ceil(MR));
                            let rows = tiles.start * MR..(tiles.end * MR).min(p.m);
                            (!rows.is_empty()).then(|| TnProduct {
                                a: p.a.wrapping_add(rows.start),
                                m: rows.len(),
                                c: p.c.wrapping_add(rows.start * p.ldc),
                                ..*p
                            })
                        })
                        .collect();
                    let sums = sums.filter(|_| i == 0).map(SyncPtr::get);
                    // SAFETY: each thread writes its own rows of every C and its own packing
                    // buffer; the caller's contract covers every address; `isa` is AVX-512.
                    unsafe { kernel(k, bp.get(), ldb, 0..n, &mine, pack, sums) };
                } else {
                    let panels = share(n.div_ceil(NR));
                    let cols = panels.start * NR..(panels.end * NR).min(n);
                    // SAFETY: each thread writes its own columns of every C and its own
                    // packing buffer; as above otherwise.
                    let sums = sums.map(SyncPtr::get);
                    unsafe { kernel(k, bp.get(), ldb, cols, products.get(), pack, sums) };
                }
            });
            return;
        }
    }
    let _ = (isa, pack, pack_len);
    for p in parts {
        unsafe { gemm(p.m, n, k, p.a.t(), b, 1.0, p.c) };
    }
    if let Some(s) = sums {
        for q in 0..k {
            for (j, s) in s[..n].iter_mut().enumerate() {
                *s += unsafe { *b.at(q, j).ptr };
            }
        }
    }
}

/// Whether the threads of a weight-gradient product split the rows of `C` (the columns of the
/// `A`s, `m_total` of them over all products) rather than the columns of `B` (`n`): each
/// thread then packs its share of every `A` and the whole of `B`, instead of every `A` whole
/// and its share of `B` — less to pack when `n < m_total` (a vanilla RNN: `x` and `h` against
/// `dA`, `m_total = 2n`), as long as a packed `K` block of the whole `B` stays well inside L2
/// (a 1 MiB block no longer gains).
#[cfg(target_arch = "x86_64")]
fn split_by_rows(k: usize, n: usize, m_total: usize) -> bool {
    use crate::kernels::gemm_tn::KC;
    let b_block_bytes = KC.min(k) * n * std::mem::size_of::<f32>();
    n < m_total && 4 * b_block_bytes <= crate::rnn::scratch::l2_bytes()
}

/// The kernel's products, shared by the threads (they only read the descriptions).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct SyncProducts<'a>(&'a [crate::kernels::gemm_tn::TnProduct]);
// SAFETY: read-only descriptions; each thread writes disjoint columns through them.
#[cfg(target_arch = "x86_64")]
unsafe impl Send for SyncProducts<'_> {}
#[cfg(target_arch = "x86_64")]
unsafe impl Sync for SyncProducts<'_> {}

#[cfg(target_arch = "x86_64")]
impl<'a> SyncProducts<'a> {
    /// The products (a method, so closures capture the wrapper rather than the field).
    fn get(self) -> &'a [crate::kernels::gemm_tn::TnProduct] {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposed_and_split_products_match_a_naive_loop() {
        let (m, n, k) = (70, 90, 130);
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..n * k).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
        // A row-major [m][k]; B stored transposed ([n][k]).
        let mut c = vec![1f32; m * n];
        unsafe {
            gemm(
                m,
                n,
                k,
                Mat::rows(a.as_ptr(), k),
                Mat::rows(b.as_ptr(), k).t(),
                1.0,
                Mat::rows(c.as_mut_ptr().cast_const(), n),
            )
        };
        for r in 0..m {
            for j in 0..n {
                let e: f32 = 1.0 + (0..k).map(|q| a[r * k + q] * b[j * k + q]).sum::<f32>();
                assert_eq!(c[r * n + j], e, "({r}, {j})");
            }
        }
    }

    #[test]
    fn weight_gradients_and_column_sums_match_a_naive_loop_on_every_isa() {
        // Two products sharing B (k × n), large enough to be split over threads: by the rows
        // of C (n < 70 + 45), then by the columns of B.
        #[cfg(target_arch = "x86_64")]
        assert!(split_by_rows(300, 100, 115) && !split_by_rows(300, 200, 115));
        for n in [100usize, 200] {
            weight_gradients_match(n);
        }
    }

    /// The weight gradients and column sums of two products with `n` columns against a naive
    /// loop, on every instruction set.
    fn weight_gradients_match(n: usize) {
        let (k, ms) = (300usize, [70usize, 45]);
        let ldb = n + 3;
        let b: Vec<f32> = (0..k * ldb).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
        let a: Vec<Vec<f32>> = ms
            .iter()
            .map(|&m| {
                (0..k * m)
                    .map(|i| ((i * 7 + m) % 13) as f32 - 6.0)
                    .collect()
            })
            .collect();
        for isa in Isa::all_supported() {
            let mut c: Vec<Vec<f32>> = ms.iter().map(|&m| vec![2f32; m * n]).collect();
            let parts: Vec<TnPart> = ms
                .iter()
                .zip(&a)
                .zip(&mut c)
                .map(|((&m, a), c)| TnPart {
                    m,
                    a: Mat::rows(a.as_ptr(), m),
                    c: Mat::rows(c.as_mut_ptr(), n),
                })
                .collect();
            let len = tn_pack_floats(k, 70, n);
            let mut pack = vec![0f32; len];
            let mut sums = vec![1f32; n];
            let b_mat = Mat::rows(b.as_ptr(), ldb);
            let sums_arg = Some(&mut sums[..]);
            unsafe { gemm_tn(isa, k, n, b_mat, &parts, pack.as_mut_ptr(), len, sums_arg) };
            for (p, &m) in ms.iter().enumerate() {
                for i in 0..m {
                    for j in 0..n {
                        let e: f32 = 2.0
                            + (0..k)
                                .map(|q| a[p][q * m + i] * b[q * ldb + j])
                                .sum::<f32>();
                        assert_eq!(c[p][i * n + j], e, "{isa:?} product {p} ({i}, {j})");
                    }
                }
            }
            for (j, &got) in sums.iter().enumerate() {
                let e: f32 = 1.0 + (0..k).map(|q| b[q * ldb + j]).sum::<f32>();
                assert_eq!(got, e, "{isa:?} sum {j}");
            }
        }
    }
}
