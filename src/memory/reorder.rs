//! Reorder: copies a tensor between two layouts of the same dims (plain ↔ plain, plain ↔ packed,
//! plain ↔ packed transposed), quantizing with the RNN int8 attributes (`memory::quantize`).

use super::desc::{Layout, MemoryDesc, MAX_NDIMS};
use super::memory::Memory;
use super::packed_int8::Int8Layout;
use super::quantize::{self, Quantization};
use crate::attr::Attr;
use crate::error::Result;
use crate::kernels::gemm_bf16::bf16_bits;
use crate::kernels::isa::isa_dispatch;
use crate::kernels::Isa;
use crate::rnn::backward::pack_gate_weights;
use crate::rnn::precision::Precision;
use crate::rnn::weights;
use crate::types::DataType;
use crate::{ensure_args, unimplemented_err};

/// A validated reorder between two descriptors.
#[derive(Clone, Debug, PartialEq)]
pub struct Reorder {
    src: MemoryDesc,
    dst: MemoryDesc,
    quantization: Quantization,
}

impl Reorder {
    /// Checks that `src` can be reordered into `dst` (default attributes).
    pub fn new(src: &MemoryDesc, dst: &MemoryDesc) -> Result<Self> {
        Self::with_attr(src, dst, &Attr::new())
    }

    /// Checks that `src` can be reordered into `dst` with `attr` (its RNN quantization
    /// parameters).
    pub fn with_attr(src: &MemoryDesc, dst: &MemoryDesc, attr: &Attr) -> Result<Self> {
        src.no_runtime_dims("a reorder")?;
        dst.no_runtime_dims("a reorder")?;
        ensure_args!(
            !src.is_any() && !dst.is_any(),
            "reorder descriptors must not be format_tag::any"
        );
        ensure_args!(
            src.dims() == dst.dims(),
            "reorder dims differ: {:?} vs {:?}",
            src.dims(),
            dst.dims()
        );
        ensure_args!(
            *src.layout() != Layout::Undef && *dst.layout() != Layout::Undef || src.is_zero(),
            "reorder descriptors need a layout"
        );
        if src.is_host_scalar() || dst.is_host_scalar() {
            crate::unimplemented_err!("reorder of a host scalar");
        }
        let convertible = |dt: DataType| {
            matches!(
                dt,
                DataType::F32
                    | DataType::Bf16
                    | DataType::F16
                    | DataType::S32
                    | DataType::S8
                    | DataType::U8
            )
        };
        let (sdt, ddt) = (src.data_type(), dst.data_type());
        let f32_side = sdt == DataType::F32 || ddt == DataType::F32 || sdt == ddt;
        if !(f32_side && convertible(sdt) && convertible(ddt)) {
            unimplemented_err!(
                "reorder {sdt} -> {ddt}: only f32 to/from f32, bf16, f16, s32, s8, u8 and \
                 between tensors of one type is implemented"
            );
        }
        let int8_packed = |md: &MemoryDesc| {
            matches!(md.layout(), Layout::Packed(_)) && md.data_type() == DataType::S8
        };
        if (int8_packed(src) || int8_packed(dst)) && !src.is_zero() {
            ensure_args!(
                matches!(src.data_type(), DataType::F32 | DataType::S8)
                    && matches!(dst.data_type(), DataType::F32 | DataType::S8),
                "packed s8 weights reorder to and from f32 or s8 only"
            );
        }
        Ok(Self {
            quantization: Quantization::of(src, dst, attr)?,
            src: src.clone(),
            dst: dst.clone(),
        })
    }

    /// Source descriptor.
    pub fn src(&self) -> &MemoryDesc {
        &self.src
    }

    /// Destination descriptor.
    pub fn dst(&self) -> &MemoryDesc {
        &self.dst
    }

    /// Copies `from` into `to`, read and written through the reorder's descriptors (the
    /// memories supply the handles and must span as much). Padding of a packed destination is
    /// zeroed.
    pub fn execute(&self, from: &Memory, to: &Memory) -> Result<()> {
        from.check_spans(&self.src, "reorder source", &[])?;
        to.check_spans(&self.dst, "reorder destination", &[])?;
        if self.src.nelems() == 0 {
            return Ok(());
        }
        ensure_args!(
            !from.data_ptr().is_null() && !to.data_ptr().is_null(),
            "reorder memory has no buffer"
        );
        let (src, dst) = (from.data_ptr().cast_const(), to.data_ptr());
        let (sdt, ddt) = (self.src.storage_type(), self.dst.storage_type());
        // Values stored as f32 in a packed layout of a narrower type are rounded to it.
        let narrow = Precision::of_type(self.dst.data_type());
        let plain_f32 = matches!(
            (self.src.layout(), sdt, ddt),
            (Layout::Strided { .. }, DataType::F32, DataType::F32)
        );
        // Into bf16 pairs, the packer rounds.
        let plain_f32_to_pairs = matches!(
            (self.src.layout(), sdt, self.dst.layout()),
            (Layout::Strided { .. }, DataType::F32, Layout::Packed(lay)) if lay.pairs
        );
        // SAFETY (both packers' callers): a packed destination holds `size_bytes()` bytes of
        // f32 values.
        let round_packed = || unsafe {
            if narrow != Precision::F32 {
                let n = self.dst.size_bytes() / std::mem::size_of::<f32>();
                for v in std::slice::from_raw_parts_mut(dst.cast::<f32>(), n) {
                    *v = narrow.round(*v);
                }
            }
        };
        // Plain f32 weights into a packed layout take the RNN primitive's own packers (whole
        // panel rows at once, padding included, in parallel), not the element-wise copy.
        match self.dst.layout() {
            Layout::Packed(lay) if ddt == DataType::S8 => {
                let lay = Int8Layout::new(lay)?;
                let dims = self.src.dims();
                let value = |[l, d, i, g, o]: [usize; 5]| {
                    let idx = [l, d, i, g, o].map(|v| v as i64);
                    let idx: &[i64] = if dims.len() == 5 {
                        &idx
                    } else {
                        &[idx[0], idx[1], idx[2], idx[4]]
                    };
                    // SAFETY: the index is inside the dims of the validated descriptor.
                    let v = unsafe { load(sdt, src, self.src.element_offset(idx)) };
                    let mut q = 0i8;
                    let v = self.quantization.apply(v, idx, dims);
                    // SAFETY: `q` is one s8 value.
                    unsafe { store(DataType::S8, (&mut q as *mut i8).cast(), 0, v) };
                    q
                };
                // SAFETY: `dst` holds the packed layout; the source is read only through its
                // descriptor.
                unsafe { quantize::pack_s8(&lay, dst, value) };
                return Ok(());
            }
            Layout::Packed(lay) if plain_f32 || plain_f32_to_pairs => {
                let w = weights::ldigo_view(src.cast_mut(), &self.src);
                // SAFETY: `src` addresses every element of its (validated) descriptor, whose
                // dims are the layout's; `dst` holds the packed layout; they do not overlap.
                unsafe { weights::pack(w, dst.cast(), lay) };
                if plain_f32 {
                    round_packed();
                }
                return Ok(());
            }
            Layout::PackedTransposed(lay) if plain_f32 => {
                let w = weights::ldigo_view(src.cast_mut(), &self.src);
                for (l, d) in (0..lay.l).flat_map(|l| (0..lay.d).map(move |d| (l, d))) {
                    let at = dst.cast::<f32>().wrapping_add(lay.matrix_offset(l, d));
                    // SAFETY: `src` addresses every element of its (validated) descriptor, whose
                    // dims are the layout's; matrix `(l, d)` of `dst` holds `matrix_len()`
                    // floats; they do not overlap.
                    unsafe { pack_gate_weights(&w, (l, d), (lay.i, lay.g, lay.o), at) };
                }
                round_packed();
                return Ok(());
            }
            // The element-wise copy leaves the padding of a packed layout: zero it first.
            // SAFETY: a packed buffer holds size_bytes() bytes.
            Layout::Packed(_) | Layout::PackedTransposed(_) => unsafe {
                std::ptr::write_bytes(dst, 0, self.dst.size_bytes())
            },
            _ => {}
        }
        if !matches!(self.quantization, Quantization::None) {
            // Quantizing (RNN qparams): element by element, the scale chosen by the index.
            let dims = self.src.dims();
            let mut idx = vec![0i64; dims.len()];
            loop {
                let s = self.src.element_offset(&idx);
                let d = self.dst.element_offset(&idx);
                // SAFETY: both offsets are within the extents of their descriptors, which the
                // memory objects' buffers cover (the user's contract for user buffers).
                unsafe {
                    let v = self.quantization.apply(load(sdt, src, s), &idx, dims);
                    store(ddt, dst, d, v)
                };
                if !next_index(&mut idx, dims) {
                    return Ok(());
                }
            }
        }
        // SAFETY: the memory objects' buffers cover their descriptors (the user's contract for
        // user buffers).
        unsafe { convert(&self.src, src, &self.dst, dst) };
        Ok(())
    }
}

/// Copies every element of a tensor described by `src_md` at `src` into the one described by
/// `dst_md` at `dst` (same dims), converting the type — rounding half to even, saturating
/// integers — element by element; large tensors split by their outermost index over the
/// library's crew.
///
/// # Safety
/// Both buffers must cover every element of their descriptors (concrete layouts), and not
/// overlap.
pub unsafe fn convert(src_md: &MemoryDesc, src: *const u8, dst_md: &MemoryDesc, dst: *mut u8) {
    let (sdt, ddt) = (src_md.storage_type(), dst_md.storage_type());
    let narrow = Precision::of_type(dst_md.data_type());
    let dims = src_md.dims();
    if dims.contains(&0) {
        return;
    }
    // Rows of the innermost dim at once when it is contiguous on both sides.
    let inner_unit = |md: &MemoryDesc| matches!(md.layout(), Layout::Strided { strides, .. } if strides[dims.len() - 1] == 1);
    let last = dims.len() - 1;
    let run = if inner_unit(src_md) && inner_unit(dst_md) {
        dims[last] as usize
    } else {
        1
    };
    // The outermost index splits the work when there is an index below it.
    let outer = if last > 0 { dims[0] as usize } else { 1 };
    let elements = dims.iter().map(|&d| d as usize).product::<usize>();
    let (src, dst) = (src as usize, dst as usize);
    let work = elements.saturating_mul(FLOPS_PER_ELEMENT);
    crate::threading::crew_for_each(outer, elements >= PARALLEL_ELEMENTS, work, |i| {
        let mut all = [0i64; MAX_NDIMS];
        let idx = &mut all[..dims.len()];
        idx[0] = i as i64;
        let inner = if last > 0 { 1 } else { 0 };
        loop {
            let s = src_md.element_offset(idx);
            let d = dst_md.element_offset(idx);
            // SAFETY: both offsets (and the `run` elements from them) are within the extents
            // of their descriptors; items write disjoint elements.
            unsafe {
                convert_run(
                    sdt,
                    src as *const u8,
                    s,
                    ddt,
                    dst as *mut u8,
                    d,
                    run,
                    narrow,
                )
            };
            if run > 1 {
                idx[last] = dims[last] - 1;
            }
            if !next_index(&mut idx[inner..], &dims[inner..]) {
                return;
            }
        }
    });
}

/// Elements from which [`convert`] runs on the crew.
const PARALLEL_ELEMENTS: usize = 1 << 16;
/// An element's conversion in the crew's unit of work (flops at 200 GFLOP/s: ~0.5 ns).
const FLOPS_PER_ELEMENT: usize = 100;

/// Converts `n` consecutive elements from element `s` of `src` (type `sdt`) to element `d`
/// of `dst` (type `ddt`), values rounded to `narrow`; the f32 ↔ bf16 / f16 runs the RNN
/// primitives stage take loops the compiler vectorizes.
///
/// # Safety
/// Both runs valid for their types, not overlapping.
#[allow(clippy::too_many_arguments)]
unsafe fn convert_run(
    sdt: DataType,
    src: *const u8,
    s: usize,
    ddt: DataType,
    dst: *mut u8,
    d: usize,
    n: usize,
    narrow: Precision,
) {
    unsafe {
        match (sdt, ddt) {
            (DataType::Bf16 | DataType::F16, DataType::F32) => {
                let from = std::slice::from_raw_parts(src.cast::<u16>().add(s), n);
                let to = std::slice::from_raw_parts_mut(dst.cast::<f32>().add(d), n);
                if sdt == DataType::Bf16 {
                    widen_bf16(Isa::detected(), from, to);
                } else {
                    half::slice::HalfFloatSliceExt::convert_to_f32_slice(
                        &*(from as *const [u16] as *const [half::f16]),
                        to,
                    );
                }
            }
            (DataType::F32, DataType::Bf16) => {
                let from = std::slice::from_raw_parts(src.cast::<f32>().add(s), n);
                let to = std::slice::from_raw_parts_mut(dst.cast::<u16>().add(d), n);
                narrow_bf16(Isa::detected(), from, to);
            }
            _ => {
                for k in 0..n {
                    store(ddt, dst, d + k, narrow.round(load(sdt, src, s + k)));
                }
            }
        }
    }
}

#[inline(always)]
unsafe fn widen_bf16_body<const FMA: bool>(from: &[u16], to: &mut [f32]) {
    for (t, &f) in to.iter_mut().zip(from) {
        *t = f32::from_bits(u32::from(f) << 16);
    }
}

#[inline(always)]
unsafe fn narrow_bf16_body<const FMA: bool>(from: &[f32], to: &mut [u16]) {
    for (t, &f) in to.iter_mut().zip(from) {
        *t = bf16_bits(f) as u16;
    }
}

isa_dispatch!(
    /// bf16 values widened to f32 (exact), with the widest vectors of `isa` (staging of the
    /// RNN primitives' bf16 inputs).
    unsafe fn widen_bf16 => widen_bf16_body, (from: &[u16], to: &mut [f32])
);

isa_dispatch!(
    /// f32 values rounded to bf16 as [`bf16_bits`], with the widest vectors of `isa`.
    unsafe fn narrow_bf16 => narrow_bf16_body, (from: &[f32], to: &mut [u16])
);

/// Reads element `off` of a buffer of type `dt` as f32.
///
/// # Safety
/// `p` must be valid for reading element `off` of type `dt`.
unsafe fn load(dt: DataType, p: *const u8, off: usize) -> f32 {
    match dt {
        DataType::S32 => *p.cast::<i32>().add(off) as f32,
        DataType::S8 => *p.cast::<i8>().add(off) as f32,
        DataType::U8 => *p.add(off) as f32,
        DataType::Bf16 => half::bf16::from_bits(*p.cast::<u16>().add(off)).to_f32(),
        DataType::F16 => half::f16::from_bits(*p.cast::<u16>().add(off)).to_f32(),
        _ => *p.cast::<f32>().add(off),
    }
}

/// Writes `v` as element `off` of a buffer of type `dt`, rounding half to even and saturating
/// for integer types (oneDNN's conversion).
///
/// # Safety
/// `p` must be valid for writing element `off` of type `dt`.
unsafe fn store(dt: DataType, p: *mut u8, off: usize, v: f32) {
    let r = || v.round_ties_even();
    match dt {
        DataType::S32 => {
            *p.cast::<i32>().add(off) = r().clamp(i32::MIN as f32, i32::MAX as f32) as i32
        }
        DataType::S8 => *p.cast::<i8>().add(off) = r().clamp(-128.0, 127.0) as i8,
        DataType::U8 => *p.add(off) = r().clamp(0.0, 255.0) as u8,
        DataType::Bf16 => *p.cast::<u16>().add(off) = half::bf16::from_f32(v).to_bits(),
        DataType::F16 => *p.cast::<u16>().add(off) = half::f16::from_f32(v).to_bits(),
        _ => *p.cast::<f32>().add(off) = v,
    }
}

/// Advances a row-major multi-index; false after the last one.
pub fn next_index(idx: &mut [i64], dims: &[i64]) -> bool {
    for k in (0..dims.len()).rev() {
        idx[k] += 1;
        if idx[k] < dims[k] {
            return true;
        }
        idx[k] = 0;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &[f32], dt: DataType) -> Vec<f32> {
        let n = src.len() as i64;
        let smd = MemoryDesc::with_tag(&[n], DataType::F32, 2).unwrap();
        let dmd = MemoryDesc::with_tag(&[n], dt, 2).unwrap();
        let from = Memory::allocate(&smd).unwrap();
        let to = Memory::allocate(&dmd).unwrap();
        // SAFETY: `from` owns n f32 values.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), from.data_ptr().cast(), src.len()) };
        Reorder::new(&smd, &dmd)
            .unwrap()
            .execute(&from, &to)
            .unwrap();
        let back = Memory::allocate(&smd).unwrap();
        Reorder::new(&dmd, &smd)
            .unwrap()
            .execute(&to, &back)
            .unwrap();
        // SAFETY: `back` owns n f32 values.
        unsafe { back.as_f32_slice().to_vec() }
    }

    /// A tensor large enough for the crew (split by its outermost index) converts every
    /// element to its place: f32 row-major → bf16 with the dims' order reversed (no unit
    /// inner stride, so element by element) and back.
    #[test]
    fn large_strided_conversions_reach_every_element() {
        let dims = [70i64, 33, 40];
        let n = 70 * 33 * 40;
        assert!(n >= PARALLEL_ELEMENTS);
        let plain = MemoryDesc::with_strides(&dims, DataType::F32, None).unwrap();
        let reversed = [1, 70, 70 * 33];
        let bf16 = MemoryDesc::with_strides(&dims, DataType::Bf16, Some(&reversed)).unwrap();
        let values: Vec<f32> = (0..n).map(|i| i as f32 * 1.001 - 5e4).collect();
        let mut mid = vec![0u16; n];
        let mut back = vec![f32::NAN; n];
        // SAFETY: each buffer holds its descriptor's n elements.
        unsafe {
            convert(
                &plain,
                values.as_ptr().cast(),
                &bf16,
                mid.as_mut_ptr().cast(),
            );
            convert(&bf16, mid.as_ptr().cast(), &plain, back.as_mut_ptr().cast());
        }
        let mut idx = [0i64; 3];
        loop {
            let (i, r) = (plain.element_offset(&idx), bf16.element_offset(&idx));
            assert_eq!(mid[r] as u32, bf16_bits(values[i]), "{idx:?}");
            assert_eq!(
                back[i],
                f32::from_bits(bf16_bits(values[i]) << 16),
                "{idx:?}"
            );
            if !next_index(&mut idx, &dims) {
                break;
            }
        }
    }

    /// `dims` from plain `tag` → packed (blocks of `block_gates` gates) → plain `back_tag` gives
    /// back every value, and the packed buffer (`packed_len` floats) holds zeros besides them.
    fn round_trip_through_the_packed_layout(
        dims: &[i64],
        tag: i32,
        back_tag: i32,
        packed_len: usize,
        block_gates: usize,
    ) {
        let plain = MemoryDesc::with_tag(dims, DataType::F32, tag).unwrap();
        let back_md = MemoryDesc::with_tag(dims, DataType::F32, back_tag).unwrap();
        let packed = MemoryDesc::packed(dims, DataType::F32, block_gates).unwrap();
        let n = plain.nelems();
        let from = Memory::allocate(&plain).unwrap();
        let values: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
        // SAFETY: `from` owns n f32 values.
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), from.data_ptr().cast(), n) };
        let mid = Memory::allocate(&packed).unwrap();
        // SAFETY: `mid` owns `packed.size_bytes()` bytes; all-ones floats are NaN, so padding
        // the reorder leaves unwritten fails the count below.
        unsafe { std::ptr::write_bytes(mid.data_ptr(), 0xff, packed.size_bytes()) };
        let back = Memory::allocate(&back_md).unwrap();
        Reorder::new(&plain, &packed)
            .unwrap()
            .execute(&from, &mid)
            .unwrap();
        Reorder::new(&packed, &back_md)
            .unwrap()
            .execute(&mid, &back)
            .unwrap();
        // SAFETY: both buffers hold their descriptors' sizes.
        let (mid, back) = unsafe { (mid.as_f32_slice().to_vec(), back.as_f32_slice().to_vec()) };
        assert_eq!(mid.len(), packed_len);
        assert_eq!(mid.iter().filter(|&&v| v != 0.0).count(), n);
        let mut idx = vec![0i64; dims.len()];
        loop {
            let v = values[plain.element_offset(&idx)];
            assert_eq!(back[back_md.element_offset(&idx)], v, "{idx:?}");
            if !next_index(&mut idx, dims) {
                break;
            }
        }
    }

    /// 4-D projection weights: ldio → packed (one gate, DIC in 32-channel panels) → ldoi.
    #[test]
    fn projection_weights_round_trip_through_the_packed_layout() {
        round_trip_through_the_packed_layout(&[2, 1, 5, 37], 5, 20, 2 * 5 * 2 * 32, 2);
    }

    /// 5-D weights with gates: ldgoi (`O` not innermost) → packed (two-gate and one-gate
    /// blocks) → ldigo.
    #[test]
    fn gate_weights_round_trip_through_the_packed_layout() {
        for gates in [1, 2] {
            let len = 2 * 2 * 7 * 4 * 2 * 32;
            round_trip_through_the_packed_layout(&[2, 2, 7, 4, 37], 31, 6, len, gates);
        }
    }

    #[test]
    fn integer_conversions_round_half_even_and_saturate() {
        let x = [-1.5, 0.5, 2.5, 300.0, -300.0, 1.4];
        assert_eq!(
            run(&x, DataType::S8),
            vec![-2.0, 0.0, 2.0, 127.0, -128.0, 1.0]
        );
        assert_eq!(run(&x, DataType::U8), vec![0.0, 0.0, 2.0, 255.0, 0.0, 1.0]);
        assert_eq!(
            run(&x, DataType::S32),
            vec![-2.0, 0.0, 2.0, 300.0, -300.0, 1.0]
        );
        assert_eq!(run(&x, DataType::F32), x.to_vec());
    }
}
