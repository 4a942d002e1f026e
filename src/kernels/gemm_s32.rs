//! `dnnl_gemm_u8s8s32` / `dnnl_gemm_s8s8s32` on the int8 GEMM kernel ([`super::int8_gemm`]):
//! row-major `C = alpha·(op(A) − ao)·(op(B) − bo) + beta·C + co`, with oneDNN's arithmetic.
//!
//! The kernel multiplies u8 rows by s8 columns packed in 4-row groups, so each call packs
//! `op(B)` (zero-padded to whole groups and 16-column vectors, in column blocks each thread
//! reads alone) and, unless `A` is read as it is, not transposed and `K` a multiple of 4,
//! copies `op(A)` into rows of whole groups. One or two rows of `A` by a not transposed `B`
//! read `B` in place instead ([`super::gemm_s32_few_rows`]). An s8 `A` is shifted by 128 into
//! u8, as oneDNN does, except on the AMX tiles, which multiply s8 by s8 (`tdpbssd`); the shift
//! and the zero points are folded afterwards through the column sums of `B` and the row sums
//! of `A`:
//!
//! `Σ (a − ao)(b − bo) = Σ (a + s)·b − (s + ao)·Σ b − bo·Σ a + K·ao·bo` (`s` 128 or 0),
//!
//! all in wrapping s32, as oneDNN's kernels accumulate. Then, as oneDNN: with `alpha` 1 and
//! `beta` 0 or 1 the result is `t + beta·C + co` in wrapping s32; otherwise
//! `alpha·t + beta·C` is formed in f64 (`−t` in wrapping s32 for `alpha` −1 and `beta` 0), rounded half away from zero and saturated to s32, and
//! `co` added (wrapping). oneDNN applies `alpha` to each of its `K` blocks separately (64 on
//! AMX machines), so for a non-integer `alpha` and a longer `K` its result can differ from
//! this single rounding by one.
//!
//! Threads: one team packs (column blocks of `B`, row blocks of `A`), then computes blocks of
//! rows × columns, each into a scratch tile that the epilogue writes to `C` — or, with `alpha`
//! 1, `beta` 0 and no row terms (no `bo`, no offset column), a block of whole vectors straight
//! into `C`, its accumulators starting from the column terms. With `B` packed whole, the
//! blocks go row block by row block while `B` fits in L2, else column block by column block. With a large `B`,
//! few rows and at least two column blocks per thread, a member packs each of its column
//! blocks just before multiplying it by every row block, into a buffer of its own that stays
//! in L1/L2. A member that finishes its products early takes blocks the others have not
//! started (`Team::for_each_balanced`).
//! The packed operands live in the calling thread's scratch (`kernels::scratch`).

use super::blas::{COffset, GemmShape};
use super::gemm_s32_few_rows::{self as few_rows, FEW_ROWS};
use super::gemm_s32_pack::{pack_b_block, pack_groups, PackedB, COL_BLOCK, VECTOR_BYTES};
use super::int8_gemm::{self, Int8Gemm, Int8Kernel, VECTOR};
use super::scratch::with_scratch;
use super::start::Start;
use crate::error::{Error, Result};
use crate::memory::buffer::AlignedBuf;
use crate::size;
use crate::threading;

/// Rows per block: two 16-row tiles, which the AMX kernel multiplies as 2 × 2 tile blocks (one
/// tile load per tile product; taller blocks go 4 × 1, reloading `A` for each vector).
const ROW_BLOCK: usize = 32;
/// Smallest packed `B` (bytes) packed block by block beside the products: a smaller one
/// packed whole stays in L2 (at 256 KiB whole was ~5 % faster, from 512 KiB on per block
/// 10–25 % faster, one thread).
const FUSED_MIN_BYTES: usize = 512 << 10;
/// Most row blocks for packing `B` block by block: with more, each packed block is reused
/// enough that packing it whole first was faster (M 256, N 2048: ~10 %, one thread).
const FUSED_MAX_ROW_BLOCKS: usize = 4;
/// Largest packed `B` (bytes, packed whole) whose products go row block by row block on Intel:
/// a member's consecutive items share a block of `A`'s rows while all of `B` stays in L2. A
/// larger one, and any off Intel, goes column block by column block, a member's items sharing
/// a panel of `B` — the blocks it packed itself (each member reads its part of `B` once). In
/// row order every member reads every block, and the next call's packing must take each line
/// back from the other cores' caches: on Zen 4 that made two threads slower than one.
const ROW_ORDER_MAX_BYTES: usize = 1 << 20;
/// Products smaller than this many multiply-adds at the f32 kernels' speed
/// ([`speed_over_f32`]) run on the calling thread.
const PARALLEL_MIN: usize = 1 << 18;

/// Roughly how many times the f32 kernels' speed a product runs at: the team threshold and
/// the join wait (`threading::join_wait` counts f32 time) scale by it, so a worker that misses
/// the start does not keep the caller waiting longer than the work. The few-rows kernel
/// streams `B` from memory.
fn speed_over_f32(kernel: Int8Kernel, few: bool) -> usize {
    match kernel {
        _ if few => 2,
        Int8Kernel::Amx => 8,
        Int8Kernel::Avx512Vnni => 4,
        Int8Kernel::AvxVnni | Int8Kernel::Avx512 => 2,
        Int8Kernel::Avx2 | Int8Kernel::Portable => 1,
    }
}

/// The element type of `A`: u8, or s8 read shifted by 128.
pub trait IntA: Copy + Send + Sync {
    /// What the u8 image adds to the value (128 for s8).
    const SHIFT: i32;
    /// The value.
    fn value(self) -> i32;
    /// The u8 image: `value + SHIFT`.
    fn image(self) -> u8;
}

impl IntA for u8 {
    const SHIFT: i32 = 0;
    fn value(self) -> i32 {
        i32::from(self)
    }
    fn image(self) -> u8 {
        self
    }
}

impl IntA for i8 {
    const SHIFT: i32 = 128;
    fn value(self) -> i32 {
        i32::from(self)
    }
    fn image(self) -> u8 {
        (self as u8) ^ 0x80
    }
}

/// oneDNN's rounding of a scaled result: half away from zero, saturated to s32 (NaN as the
/// x86 conversion gives it, `i32::MIN`).
fn round_s32(v: f64) -> i32 {
    if v.is_nan() {
        i32::MIN
    } else if v >= 0.0 {
        (v + 0.5) as i32
    } else {
        (v - 0.5) as i32
    }
}

/// A pointer the team's members write through, each its own part.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);
// SAFETY: members write disjoint parts (see `gemm_s32`) and read them after a barrier.
unsafe impl<T> Send for Shared<T> {}
unsafe impl<T> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// The pointer `offset` elements on (a method, so closures capture the wrapper).
    fn at(self, offset: usize) -> *mut T {
        self.0.wrapping_add(offset)
    }
}

/// A zeroed buffer of `len` elements of `size` bytes, or `out_of_memory`.
fn buffer(len: usize, size: usize, what: &str) -> Result<AlignedBuf> {
    let bytes = len
        .checked_mul(size)
        .ok_or_else(|| Error::OutOfMemory(format!("gemm: {what} of {len} elements")))?;
    AlignedBuf::zeroed(bytes)
}

/// Copies rows `rows` of `op(A)` into `dst` (rows of `kp` bytes, zero-padded), as u8 images
/// when `shifted` (else as they are), and adds their sums (of the values) to `sums` (zeros).
fn pack_a_rows<T: IntA>(
    s: &GemmShape,
    (a, shifted): (&[T], bool),
    rows: std::ops::Range<usize>,
    kp: usize,
    dst: &mut [u8],
    sums: &mut [i32],
) {
    let image = |x: T| if shifted { x.image() } else { x.value() as u8 };
    let (k, lda) = (s.k, s.ld[0]);
    if k == 0 {
        return; // nothing is read, the sums stay 0
    }
    for r in 0..rows.len() {
        dst[r * kp + k..(r + 1) * kp].fill(0);
    }
    if s.trans_a {
        for q in 0..k {
            let src = &a[q * lda + rows.start..q * lda + rows.end];
            for (r, (&x, sum)) in src.iter().zip(sums.iter_mut()).enumerate() {
                dst[r * kp + q] = image(x);
                *sum = sum.wrapping_add(x.value());
            }
        }
    } else {
        for (r, i) in rows.enumerate() {
            let src = &a[i * lda..i * lda + k];
            for (d, &x) in dst[r * kp..r * kp + k].iter_mut().zip(src) {
                *d = image(x);
            }
            sums[r] = src.iter().fold(0i32, |acc, &x| acc.wrapping_add(x.value()));
        }
    }
}

/// The integer GEMM (see the module doc) on `kernel` (one this CPU runs:
/// `Int8Kernel::for_isa`). Slices hold at least `s.a_len()`, `s.b_len()`, `s.c_len()` and
/// `offset.len(s)` elements; `out_of_memory` when a copy cannot be allocated.
#[allow(clippy::too_many_arguments)]
pub fn gemm_s32<T: IntA>(
    kernel: Int8Kernel,
    s: &GemmShape,
    alpha: f32,
    (a, ao): (&[T], i32),
    (b, bo): (&[i8], i32),
    beta: f32,
    c: &mut [i32],
    (co, offset): (&[i32], COffset),
) -> Result<()> {
    let (m, n, k) = (s.m, s.n, s.k);
    // oneDNN leaves C alone when K is 0, whatever alpha, beta and co
    if m == 0 || n == 0 || k == 0 {
        return Ok(());
    }
    // One or two rows read a not transposed B in place (`gemm_s32_few_rows`), else B is packed.
    let few = m <= FEW_ROWS
        && !s.trans_b
        && matches!(kernel, Int8Kernel::Amx | Int8Kernel::Avx512Vnni)
        && few_rows::available();
    // An s8 A enters the AMX tiles as it is (`tdpbssd`), elsewhere shifted into u8.
    let signed = T::SHIFT != 0 && kernel == Int8Kernel::Amx && !few;
    let shift = if signed { 0 } else { T::SHIFT };
    let scale = (shift + ao).wrapping_neg();
    let groups = k.div_ceil(4);
    let kp = groups * 4;
    let pb = PackedB {
        groups,
        vectors: n.div_ceil(VECTOR),
    };
    let col_blocks = pb.blocks();
    let row_blocks = m.div_ceil(ROW_BLOCK);
    // the zero-point corrections: −(s + ao)·Σ b of each column, K·ao·bo − bo·Σ a of each row
    let mut zp_cols = size::filled("gemm: column corrections", pb.vectors * VECTOR, 0i32)?;
    // A is read in place when the kernel can: not shifted, rows of K, K a multiple of 4.
    let in_place = !s.trans_a && shift == 0 && k % 4 == 0;
    let mut zp_rows = size::filled("gemm: row corrections", m, 0i32)?;
    let too_big = || Error::OutOfMemory(format!("gemm: packing {m}x{n}x{k}"));
    let all_bytes = (pb.vectors * VECTOR_BYTES)
        .checked_mul(groups)
        .ok_or_else(too_big)?
        .next_multiple_of(64);
    // A large B, few row blocks and enough column blocks for every member: each packs a block
    // just before multiplying it, into a buffer of its own that stays in L1/L2, instead of all
    // of B before the products.
    let fused = !few
        && all_bytes >= FUSED_MIN_BYTES
        && row_blocks <= FUSED_MAX_ROW_BLOCKS
        && col_blocks >= 2 * threading::num_threads();
    let row_order = all_bytes <= ROW_ORDER_MAX_BYTES && super::isa::intel_cpu();
    let block_bytes = (COL_BLOCK * 4).checked_mul(groups).ok_or_else(too_big)?;
    let b_bytes = if few {
        0
    } else if fused {
        block_bytes
            .checked_mul(threading::num_threads())
            .ok_or_else(too_big)?
    } else {
        all_bytes
    };
    let a_bytes = if in_place {
        0
    } else {
        m.checked_mul(kp).ok_or_else(too_big)?
    };
    let ones_buf = if scale != 0 {
        let buf = buffer(kp, 1, "row of ones")?;
        // SAFETY: the buffer has kp bytes.
        unsafe { std::ptr::write_bytes(buf.as_ptr(), 1, kp) };
        buf
    } else {
        buffer(0, 1, "row of ones")?
    };
    let ones = Shared(ones_buf.as_ptr());
    let zp_cols_out = Shared(zp_cols.as_mut_ptr());
    let zp_rows_out = Shared(zp_rows.as_mut_ptr());
    let c_out = Shared(c.as_mut_ptr());
    let (ldc, kw) = (s.ld[2], k as i32);
    // oneDNN's exact paths: alpha 1 with beta 0 or 1, alpha −1 with beta 0
    let fast = alpha == 1.0 && (beta == 0.0 || beta == 1.0);
    let negate = alpha == -1.0 && beta == 0.0;
    // On the fast path `co` joins the corrections (all terms are added in wrapping s32): an
    // offset column into the rows', the others into the columns'.
    let co_in_cols = fast && offset != COffset::Column;
    let co_in_rows = fast && offset == COffset::Column;
    // Without row corrections a block of whole vectors goes straight into C, its accumulators
    // starting from the column corrections.
    let straight = fast && beta == 0.0 && bo == 0 && !co_in_rows;
    // the offsets of columns j0.. added to their corrections
    let add_co = |sums: &mut [i32], j0: usize| {
        for (jj, x) in sums.iter_mut().enumerate() {
            *x = x.wrapping_add(co_term(offset, co, 0, j0 + jj));
        }
    };
    #[cfg(target_arch = "x86_64")]
    let wide = matches!(kernel, Int8Kernel::Amx | Int8Kernel::Avx512Vnni)
        && is_x86_feature_detected!("avx512bw");
    #[cfg(not(target_arch = "x86_64"))]
    let wide = false;
    let macs = m.saturating_mul(n).saturating_mul(k);
    let speed = speed_over_f32(kernel, few);
    let parallel = macs >= PARALLEL_MIN * speed;
    let join = parallel.then(|| threading::join_wait(macs.saturating_mul(2) / speed));
    let bytes = b_bytes.checked_add(a_bytes).ok_or_else(too_big)?;
    with_scratch(bytes, |scratch| {
        let b_out = Shared(scratch.cast::<i8>());
        let a_out = Shared(scratch.wrapping_add(b_bytes));
        let (a_rows, a_ld) = if in_place {
            (Shared(a.as_ptr().cast::<u8>().cast_mut()), s.ld[0])
        } else {
            (a_out, kp)
        };
        threading::team(join, |t| {
            let mine = if few || fused {
                0..0
            } else {
                t.share(col_blocks)
            };
            // the member's blocks of B, a few rows across all of them at a time
            let step = if s.trans_b {
                groups
            } else {
                pack_groups(mine.len() * COL_BLOCK)
            };
            for g0 in (0..groups).step_by(step) {
                for cb in mine.clone() {
                    let len = pb.block_vectors(cb) * VECTOR_BYTES * groups;
                    // SAFETY: block cb's bytes are this member's alone.
                    let dst = unsafe {
                        std::slice::from_raw_parts_mut(b_out.at(pb.block_offset(cb)), len)
                    };
                    pack_b_block(s, b, &pb, cb, g0..groups.min(g0 + step), dst, wide, None);
                }
            }
            // block cb's column corrections, from its packing at `packed` (its column sums
            // already there when `summed`)
            let column_sums = |cb: usize, packed: *const i8, summed: bool| {
                let cols = pb.block_vectors(cb) * VECTOR;
                let j0 = cb * COL_BLOCK;
                // SAFETY: block cb's column sums are this member's alone.
                let sums = unsafe { std::slice::from_raw_parts_mut(zp_cols_out.at(j0), cols) };
                if scale != 0 && !summed {
                    // the column sums: a row of ones times the packed block, on the kernel
                    let op = Int8Gemm {
                        m: 1,
                        a: ones.at(0).cast_const(),
                        lda: kp,
                        b: packed,
                        ldb: cols * 4,
                        block_bytes: int8_gemm::SIDE_BY_SIDE,
                        groups,
                        vectors: cols / VECTOR,
                        c: sums.as_mut_ptr(),
                        ldc: cols,
                        start: Start::Zero,
                        ahead: None,
                    };
                    // SAFETY: `ones` has `kp` bytes, the block `groups` groups of `cols` columns,
                    // `sums` `cols` values.
                    unsafe { int8_gemm::gemm(kernel, &op) };
                }
                if scale != 0 {
                    sums.iter_mut().for_each(|x| *x = x.wrapping_mul(scale));
                }
                if co_in_cols {
                    add_co(&mut sums[..cols.min(n - j0)], j0);
                }
            };
            for cb in mine {
                column_sums(cb, b_out.at(pb.block_offset(cb)).cast_const(), false);
            }
            t.for_each(row_blocks, false, |rb| {
                let rows = rb * ROW_BLOCK..m.min((rb + 1) * ROW_BLOCK);
                // SAFETY: these rows' copy and sums are this item's alone.
                let sums = unsafe {
                    std::slice::from_raw_parts_mut(zp_rows_out.at(rows.start), rows.len())
                };
                if in_place {
                    if bo != 0 {
                        for (sum, i) in sums.iter_mut().zip(rows.clone()) {
                            let row = &a[i * s.ld[0]..i * s.ld[0] + k];
                            *sum = row.iter().fold(0i32, |acc, &x| acc.wrapping_add(x.value()));
                        }
                    }
                } else {
                    // SAFETY: as above.
                    let dst = unsafe {
                        std::slice::from_raw_parts_mut(a_out.at(rows.start * kp), rows.len() * kp)
                    };
                    pack_a_rows(s, (a, shift != 0), rows.clone(), kp, dst, sums);
                }
                let base = kw.wrapping_mul(ao).wrapping_mul(bo);
                for (x, i) in sums.iter_mut().zip(rows) {
                    *x = base.wrapping_sub(bo.wrapping_mul(*x));
                    if co_in_rows {
                        *x = x.wrapping_add(co_term(offset, co, i, 0));
                    }
                }
            });
            t.barrier();
            let mut tile = vec![0i32; ROW_BLOCK * COL_BLOCK];
            // Few rows: column blocks of up to `few_rows::COLUMNS` (at least one per member)
            let few_block = n
                .div_ceil(t.size())
                .next_multiple_of(COL_BLOCK)
                .clamp(COL_BLOCK, few_rows::COLUMNS);
            const _: () = assert!((FEW_ROWS + 1) * few_rows::COLUMNS <= ROW_BLOCK * COL_BLOCK);
            // row block rb of column block cb, packed at `packed`
            let mut product = |cb: usize, rb: usize, packed: *const i8| {
                let rows = rb * ROW_BLOCK..m.min((rb + 1) * ROW_BLOCK);
                // (first column, columns, the tile's row length)
                let (j0, cols, tld) = if few {
                    let j0 = cb * few_block;
                    let cols = few_block.min(n - j0);
                    (j0, cols, cols.next_multiple_of(VECTOR))
                } else {
                    let (j0, vb) = (cb * COL_BLOCK, pb.block_vectors(cb));
                    (j0, (vb * VECTOR).min(n - j0), vb * VECTOR)
                };
                let direct = straight && !few && cols == tld;
                if few {
                    // A's rows (and a row of ones for the column sums) by B in place; the
                    // column corrections of this block from those sums
                    let mut ptrs = [std::ptr::null::<u8>(); FEW_ROWS + 1];
                    for (r, p) in ptrs.iter_mut().enumerate().take(m) {
                        *p = a_rows.at(r * a_ld).cast_const();
                    }
                    let n_ptrs = if scale != 0 {
                        ptrs[m] = ones.at(0).cast_const();
                        m + 1
                    } else {
                        m
                    };
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: A's rows have `kp` bytes, zero past K (the copy) or K = `kp`
                    // (in place), as has the row of ones; B has K rows of N bytes at stride
                    // ldb (GemmShape), of which this block reads columns j0..j0 + cols; the
                    // tile holds `n_ptrs` ≤ ROW_BLOCK rows of `tld` values.
                    unsafe {
                        few_rows::columns(
                            &ptrs[..n_ptrs],
                            k,
                            b.as_ptr().add(j0),
                            s.ld[1],
                            cols,
                            tile.as_mut_ptr(),
                            tld,
                        )
                    };
                    // SAFETY: block cb's column corrections are this item's alone (one row
                    // block).
                    let zp = unsafe { std::slice::from_raw_parts_mut(zp_cols_out.at(j0), cols) };
                    if scale != 0 {
                        for (x, &sum) in zp.iter_mut().zip(&tile[m * tld..]) {
                            *x = sum.wrapping_mul(scale);
                        }
                    }
                    if co_in_cols {
                        add_co(zp, j0);
                    }
                } else {
                    // Straight into C, the accumulators start from the block's column corrections
                    // (zeros where there are none: a row load costs what zeroing does).
                    let (c, ldc, start) = if direct {
                        let row = zp_cols_out.at(j0).cast_const().cast();
                        (c_out.at(rows.start * ldc + j0), ldc, Start::Row(row))
                    } else {
                        (tile.as_mut_ptr(), tld, Start::Zero)
                    };
                    let vb = tld / VECTOR;
                    let op = Int8Gemm {
                        m: rows.len(),
                        a: a_rows.at(rows.start * a_ld).cast_const(),
                        lda: a_ld,
                        b: packed,
                        ldb: vb * VECTOR_BYTES,
                        block_bytes: int8_gemm::SIDE_BY_SIDE,
                        groups,
                        vectors: vb,
                        c,
                        ldc,
                        start,
                        ahead: None,
                    };
                    // SAFETY: A has `rows` rows of `kp` bytes (the copy) or `k` = `kp` bytes
                    // (in place, checked by GemmShape); the block of B was packed before the
                    // barrier (or just now, by this member); the tile holds rows × `tld`
                    // values, or rows i, columns j0..j0 + tld of C are this item's alone; the
                    // block's `tld` column corrections were written before.
                    unsafe { block_product(kernel, signed, &op) };
                }
                if direct {
                    return;
                }
                for (r, i) in rows.enumerate() {
                    let tile_row = &tile[r * tld..r * tld + cols];
                    // SAFETY: row i, columns j0..j0 + cols of C are this item's alone; the
                    // corrections were written before the barrier.
                    let (c_row, zp_cols, zp_row) = unsafe {
                        (
                            std::slice::from_raw_parts_mut(c_out.at(i * ldc + j0), cols),
                            std::slice::from_raw_parts(zp_cols_out.at(j0), cols),
                            *zp_rows_out.at(i),
                        )
                    };
                    let terms = c_row.iter_mut().zip(tile_row).zip(zp_cols);
                    if fast && beta == 0.0 {
                        for ((d, &acc), &zp_col) in terms {
                            *d = acc.wrapping_add(zp_col).wrapping_add(zp_row);
                        }
                    } else if fast {
                        for ((d, &acc), &zp_col) in terms {
                            *d = acc
                                .wrapping_add(zp_col)
                                .wrapping_add(zp_row)
                                .wrapping_add(*d);
                        }
                    } else {
                        for (jj, ((d, &acc), &zp_col)) in terms.enumerate() {
                            let t = acc.wrapping_add(zp_col).wrapping_add(zp_row);
                            let o = co_term(offset, co, i, j0 + jj);
                            // (C is not read when beta is 0, as in BLAS)
                            let old =
                                |d: i32| (beta != 0.0).then(|| f64::from(beta) * f64::from(d));
                            let scaled =
                                || f64::from(alpha) * f64::from(t) + old(*d).unwrap_or(0.0);
                            *d = if negate {
                                t.wrapping_neg()
                            } else {
                                round_s32(scaled())
                            }
                            .wrapping_add(o);
                        }
                    }
                }
            };
            if fused {
                // SAFETY: the member's own buffer of `block_bytes`.
                let dst = unsafe {
                    std::slice::from_raw_parts_mut(b_out.at(t.index() * block_bytes), block_bytes)
                };
                t.for_each_balanced(col_blocks, false, |cb| {
                    let len = pb.block_vectors(cb) * VECTOR_BYTES * groups;
                    let cols = pb.block_vectors(cb) * VECTOR;
                    // SAFETY: block cb's column sums (zeros until now) are this item's alone.
                    let sums = (scale != 0).then(|| unsafe {
                        std::slice::from_raw_parts_mut(zp_cols_out.at(cb * COL_BLOCK), cols)
                    });
                    let summed =
                        pack_b_block(s, b, &pb, cb, 0..groups, &mut dst[..len], wide, sums);
                    let packed = dst.as_ptr();
                    column_sums(cb, packed, summed);
                    for rb in 0..row_blocks {
                        product(cb, rb, packed);
                    }
                });
            } else {
                let col_blocks = if few {
                    n.div_ceil(few_block)
                } else {
                    col_blocks
                };
                t.for_each_balanced(row_blocks * col_blocks, false, |item| {
                    let (cb, rb) = if row_order {
                        (item % col_blocks, item / col_blocks)
                    } else {
                        (item / row_blocks, item % row_blocks)
                    };
                    product(cb, rb, b_out.at(pb.block_offset(cb)).cast_const());
                });
            }
        });
    })?;
    drop(ones_buf);
    Ok(())
}

/// `op`'s product. `signed`: `A` holds s8 for the AMX tiles (`tdpbssd`).
///
/// # Safety
/// As [`int8_gemm::gemm`]; `signed` only with [`Int8Kernel::Amx`].
unsafe fn block_product(kernel: Int8Kernel, signed: bool, op: &Int8Gemm) {
    #[cfg(target_arch = "x86_64")]
    if kernel == Int8Kernel::Amx && (signed || op.m >= int8_gemm::AMX_MIN_ROWS) {
        use super::amx::{Int8, Int8Signed};
        use super::amx_gemm::gemm_runs;
        let t = op.tiles();
        let run = [t.run()];
        // SAFETY: the caller's contract; `Int8Kernel::Amx` only where AMX-INT8 runs.
        unsafe {
            if signed {
                gemm_runs::<Int8Signed>(&run, t.m, t.vectors, t.c, t.ldc, t.start);
            } else {
                gemm_runs::<Int8>(&run, t.m, t.vectors, t.c, t.ldc, t.start);
            }
        }
        return;
    }
    // SAFETY: the caller's contract.
    unsafe { int8_gemm::gemm(kernel, op) };
}

/// The `co` value element `(i, j)` receives.
fn co_term(offset: COffset, co: &[i32], i: usize, j: usize) -> i32 {
    match offset {
        COffset::Fixed => co[0],
        COffset::Column => co[i],
        COffset::Row => co[j],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Isa;

    /// oneDNN's integer GEMM written out: the exact sum wrapped to s32, then the epilogue.
    #[allow(clippy::too_many_arguments)]
    fn reference<T: IntA>(
        s: &GemmShape,
        alpha: f32,
        (a, ao): (&[T], i32),
        (b, bo): (&[i8], i32),
        beta: f32,
        c: &mut [i32],
        (co, offset): (&[i32], COffset),
    ) {
        let [lda, ldb, ldc] = s.ld;
        if s.k == 0 {
            return;
        }
        for i in 0..s.m {
            for j in 0..s.n {
                let mut acc = 0i64;
                for q in 0..s.k {
                    let x = if s.trans_a {
                        a[q * lda + i]
                    } else {
                        a[i * lda + q]
                    };
                    let y = if s.trans_b {
                        b[j * ldb + q]
                    } else {
                        b[q * ldb + j]
                    };
                    acc += i64::from(x.value() - ao) * i64::from(i32::from(y) - bo);
                }
                let t = acc as i32;
                let o = co_term(offset, co, i, j);
                let d = &mut c[i * ldc + j];
                *d = if alpha == 1.0 && beta == 0.0 {
                    t.wrapping_add(o)
                } else if alpha == 1.0 && beta == 1.0 {
                    t.wrapping_add(*d).wrapping_add(o)
                } else if alpha == -1.0 && beta == 0.0 {
                    t.wrapping_neg().wrapping_add(o)
                } else {
                    let old = if beta == 0.0 {
                        0.0
                    } else {
                        f64::from(beta) * f64::from(*d)
                    };
                    let v = f64::from(alpha) * f64::from(t) + old;
                    let r = if v >= 0.0 { v + 0.5 } else { v - 0.5 };
                    (r.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32).wrapping_add(o)
                };
            }
        }
    }

    fn bytes(len: usize, seed: u32) -> Vec<u8> {
        (0..len as u32)
            .map(|i| (i.wrapping_mul(2654435761) ^ seed.wrapping_mul(40503)).rotate_right(13) as u8)
            .collect()
    }

    /// Every kernel, transposition and offset kind, u8 and s8 `A`, zero points, the exact and
    /// the rounding paths, shapes around the vectors, groups and blocks (M 1, N 1, K not a
    /// multiple of 4), enough column blocks to pack each just before its products, padded
    /// leading dimensions: equal to the reference, padding untouched.
    #[test]
    fn matches_onednns_arithmetic() {
        let kernels: Vec<Int8Kernel> = Isa::all_supported()
            .into_iter()
            .map(Int8Kernel::for_isa)
            .collect();
        let shapes = [
            (1, 1, 1),
            (1, 70, 13),
            (29, 1, 33),
            (5, 17, 4),
            (67, 65, 130),
            (2, 130, 67),
            (18, 40, 96),
            (3, 16, 0),
            (18, 1040, 517),
            // packed block by block, K a multiple of 4: the column sums from the packing
            (18, 1040, 520),
            // few rows: strips of up to 256 columns, a partial last one
            (1, 700, 37),
            (2, 600, 130),
        ];
        let params = [
            (1.0, 0.0, 0, 0),
            (1.0, 1.0, 7, -3),
            (-1.0, 0.0, 0, 5),
            (1.5, 0.5, 200, -128),
            (-2.0, 3.0, 1, 1),
        ];
        let mut case = 0usize;
        for &kernel in &kernels {
            for &(m, n, k) in &shapes {
                for (ta, tb) in [(b'N', b'N'), (b'T', b'N'), (b'N', b'T'), (b'T', b'T')] {
                    for offset in [COffset::Fixed, COffset::Column, COffset::Row] {
                        case += 1;
                        let (alpha, beta, ao, bo) = params[case % params.len()];
                        let pad = case % 3;
                        let lda = if ta == b'N' { k } else { m }.max(1) + pad;
                        let ldb = if tb == b'N' { n } else { k }.max(1) + pad;
                        let ldc = n + pad;
                        let dims = [m as i64, n as i64, k as i64];
                        let s = GemmShape::new(ta, tb, dims, [lda as i64, ldb as i64, ldc as i64])
                            .unwrap();
                        let a = bytes(s.a_len(), 1);
                        let b: Vec<i8> = bytes(s.b_len(), 2).into_iter().map(|x| x as i8).collect();
                        let c0: Vec<i32> = bytes(s.c_len() * 4, 3)
                            .chunks(4)
                            .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]) >> 8)
                            .collect();
                        let co: Vec<i32> = (0..m + n).map(|x| 1000 - 37 * x as i32).collect();
                        let co = (&co[..], offset);
                        let (mut c, mut want) = (c0.clone(), c0.clone());
                        let a8: Vec<i8> = a.iter().map(|&x| x as i8).collect();
                        if case.is_multiple_of(2) {
                            reference(&s, alpha, (&a[..], ao), (&b[..], bo), beta, &mut want, co);
                            gemm_s32(kernel, &s, alpha, (&a[..], ao), (&b, bo), beta, &mut c, co)
                                .unwrap();
                        } else {
                            let ao = ao as i8 as i32;
                            reference(&s, alpha, (&a8[..], ao), (&b[..], bo), beta, &mut want, co);
                            gemm_s32(kernel, &s, alpha, (&a8[..], ao), (&b, bo), beta, &mut c, co)
                                .unwrap();
                        }
                        assert_eq!(
                            c, want,
                            "{kernel:?} {m}x{n}x{k} {}{} {offset:?} alpha {alpha} beta {beta}",
                            ta as char, tb as char
                        );
                    }
                }
            }
        }
    }

    /// The blocks stored straight into C (alpha 1, beta 0, no `B` zero point, no offset
    /// column): `A` zero points and offsets as column terms the accumulators start from, a
    /// last column block of a partial vector and row blocks of a few rows (through the
    /// scratch tile), `B` packed whole and block by block, all-zero column terms (no copy of
    /// them); every kernel, u8 and s8 `A`.
    #[test]
    fn straight_into_c() {
        let mut case = 0usize;
        for kernel in Isa::all_supported().into_iter().map(Int8Kernel::for_isa) {
            for (m, n, k) in [(100usize, 200usize, 300usize), (34, 1040, 517)] {
                for (ta, tb) in [(b'N', b'N'), (b'T', b'N'), (b'N', b'T'), (b'T', b'T')] {
                    for offset in [COffset::Fixed, COffset::Row] {
                        case += 1;
                        if n > 1000 && ta == b'T' {
                            continue;
                        }
                        let ao = [0, 7, -3][case % 3];
                        let lda = if ta == b'N' { k } else { m };
                        let ldb = if tb == b'N' { n } else { k };
                        let dims = [m as i64, n as i64, k as i64];
                        let s = GemmShape::new(ta, tb, dims, [lda as i64, ldb as i64, n as i64])
                            .unwrap();
                        let a = bytes(s.a_len(), 4);
                        let a8: Vec<i8> = a.iter().map(|&x| x as i8).collect();
                        let b: Vec<i8> = bytes(s.b_len(), 5).into_iter().map(|x| x as i8).collect();
                        // (every fourth case without offsets: with a u8 A and no zero point
                        // the column terms are all zero)
                        let co: Vec<i32> = (0..n)
                            .map(|x| i32::from(!case.is_multiple_of(4)) * (17 * x as i32 - 900))
                            .collect();
                        let co = (&co[..], offset);
                        let mut want = vec![-1; s.c_len()];
                        let mut c = want.clone();
                        if case.is_multiple_of(2) {
                            reference(&s, 1.0, (&a[..], ao), (&b[..], 0), 0.0, &mut want, co);
                            gemm_s32(kernel, &s, 1.0, (&a[..], ao), (&b, 0), 0.0, &mut c, co)
                                .unwrap();
                        } else {
                            reference(&s, 1.0, (&a8[..], ao), (&b[..], 0), 0.0, &mut want, co);
                            gemm_s32(kernel, &s, 1.0, (&a8[..], ao), (&b, 0), 0.0, &mut c, co)
                                .unwrap();
                        }
                        assert_eq!(
                            c, want,
                            "{kernel:?} {m}x{n}x{k} {}{} {offset:?} ao {ao} case {case}",
                            ta as char, tb as char
                        );
                    }
                }
            }
        }
    }

    /// A packed `B` too large to go row block by row block, and too many row blocks to pack it
    /// block by block: the products go column block by column block.
    #[test]
    fn column_block_order() {
        let (m, n, k) = (129usize, 100usize, 10500usize);
        let s = GemmShape::new(
            b'N',
            b'N',
            [m, n, k].map(|x| x as i64),
            [k, n, n].map(|x| x as i64),
        )
        .unwrap();
        assert!(n.div_ceil(VECTOR) * VECTOR_BYTES * k.div_ceil(4) > ROW_ORDER_MAX_BYTES);
        let a = bytes(s.a_len(), 6);
        let b: Vec<i8> = bytes(s.b_len(), 7).into_iter().map(|x| x as i8).collect();
        let co = (&[5][..], COffset::Fixed);
        for kernel in Isa::all_supported().into_iter().map(Int8Kernel::for_isa) {
            let mut want = vec![3; s.c_len()];
            let mut c = want.clone();
            reference(&s, 1.0, (&a[..], 9), (&b[..], -2), 1.0, &mut want, co);
            gemm_s32(kernel, &s, 1.0, (&a[..], 9), (&b, -2), 1.0, &mut c, co).unwrap();
            assert_eq!(c, want, "{kernel:?}");
        }
    }

    #[test]
    fn hand_computed_zero_points_offsets_rounding_and_saturation() {
        let s = GemmShape::new(b'N', b'N', [2, 2, 2], [2, 2, 2]).unwrap();
        let a: [u8; 4] = [10, 20, 30, 40];
        let b: [i8; 4] = [1, -2, 3, 4];
        // (A − 10)·(B − 1) = [[0,10],[20,30]]·[[0,-3],[2,3]] = [[20,30],[60,30]]
        let mut c = [100, 100, 100, 100];
        let co = [1, 2];
        gemm_s32(
            Int8Kernel::for_isa(Isa::detected()),
            &s,
            1.5,
            (&a, 10),
            (&b, 1),
            1.0,
            &mut c,
            (&co, COffset::Column),
        )
        .unwrap();
        assert_eq!(c, [131, 146, 192, 147]);
        // A·B = [[70,60],[150,100]]; /4 = 17.5, 15, 37.5, 25 → halves away from zero
        let mut c = [0; 4];
        gemm_s32(
            Int8Kernel::for_isa(Isa::detected()),
            &s,
            0.25,
            (&a, 0),
            (&b, 0),
            0.0,
            &mut c,
            (&[5, -5], COffset::Row),
        )
        .unwrap();
        assert_eq!(c, [23, 10, 43, 20]);
        // saturated, then the offset added (wrapping)
        let mut c = [0; 4];
        gemm_s32(
            Int8Kernel::for_isa(Isa::detected()),
            &s,
            -1e9,
            (&a, 0),
            (&b, 0),
            0.0,
            &mut c,
            (&[-5], COffset::Fixed),
        )
        .unwrap();
        assert_eq!(c, [i32::MAX - 4; 4]);
        // alpha 1, beta 1: wrapping s32, no saturation
        let mut c = [i32::MAX; 4];
        gemm_s32(
            Int8Kernel::for_isa(Isa::detected()),
            &s,
            1.0,
            (&a, 0),
            (&b, 0),
            1.0,
            &mut c,
            (&[0], COffset::Fixed),
        )
        .unwrap();
        assert_eq!(
            c,
            [
                i32::MAX.wrapping_add(70),
                i32::MAX.wrapping_add(60),
                i32::MAX.wrapping_add(150),
                i32::MAX.wrapping_add(100)
            ]
        );
    }
}
