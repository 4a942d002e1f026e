//! Plain f32 tensors for the driver: descriptors with benchdnn's (non-)trivial strides, values
//! written and read in logical order through any strided layout, and input memories in the
//! layout a primitive descriptor chose (packed weights are reordered from plain ldigo / ldio).

use oxidnn::args;
use oxidnn::attr::Attr;
use oxidnn::engine::Engine;
use oxidnn::memory::reorder::next_index;
use oxidnn::memory::tag::{strides_for_tag, TAG_ANY};
use oxidnn::memory::{Layout, Memory, MemoryDesc};
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::types::DataType;
use oxidnn::Error;

/// `dnnl_ldnc` / `dnnl_ldgo` / `dnnl_ldio` (`abcd`).
pub const TAG_LDNC: i32 = 5;
/// `dnnl_ldigo` (`abcde`).
/// `dnnl_tnc` (`abc`).
pub const TAG_TNC: i32 = 4;

fn dims_i64(dims: &[usize]) -> Vec<i64> {
    dims.iter().map(|&d| d as i64).collect()
}

/// A plain f32 descriptor; `padded` adds one element to the largest stride (layer tensors).
pub fn layer_md(dims: &[usize], tag: i32, padded: bool) -> Result<MemoryDesc, Error> {
    let dims = dims_i64(dims);
    if tag == TAG_ANY || !padded {
        return MemoryDesc::with_tag(&dims, DataType::F32, tag);
    }
    let mut strides = strides_for_tag(&dims, tag)?;
    if let Some(s) = strides.iter_mut().max() {
        *s += 1;
    }
    MemoryDesc::with_strides(&dims, DataType::F32, Some(&strides))
}

/// An `ldnc` state descriptor; `padded` makes the N stride channels + 1.
pub fn state_md(dims: &[usize], padded: bool) -> Result<MemoryDesc, Error> {
    let d = dims_i64(dims);
    if !padded {
        return MemoryDesc::with_tag(&d, DataType::F32, TAG_LDNC);
    }
    let mut big = d.clone();
    big[3] += 1;
    MemoryDesc::with_tag(&big, DataType::F32, TAG_LDNC)?.submemory(&d, &[0; 4])
}

/// Writes logical row-major `values` into `mem` through its descriptor.
fn write_logical(mem: &Memory, values: &[f32]) {
    let md = mem.desc();
    let p = mem.data_ptr().cast::<f32>();
    if md.nelems() == 0 || p.is_null() {
        return;
    }
    let mut idx = vec![0i64; md.ndims()];
    for &v in values {
        // SAFETY: the offset of a logical index is inside the memory's buffer.
        unsafe { *p.add(md.element_offset(&idx)) = v };
        next_index(&mut idx, md.dims());
    }
}

/// Reads `mem` in logical row-major order.
pub fn read_logical(mem: &Memory) -> Vec<f32> {
    let md = mem.desc();
    let p = mem.data_ptr().cast::<f32>();
    let mut out = Vec::with_capacity(md.nelems());
    if md.nelems() == 0 || p.is_null() {
        return out;
    }
    let mut idx = vec![0i64; md.ndims()];
    loop {
        // SAFETY: as in `write_logical`.
        out.push(unsafe { *p.add(md.element_offset(&idx)) });
        if !next_index(&mut idx, md.dims()) {
            return out;
        }
    }
}

/// The dense plain f32 descriptor of `dims` (`tnc`, `ldnc`, `ldigo`, …).
fn dense_f32(dims: &[i64]) -> Result<MemoryDesc, Error> {
    MemoryDesc::with_tag(dims, DataType::F32, dims.len() as i32 + 1)
}

/// `md` with its elements of type `dt` (same dims and strides; plain layouts only).
pub fn retyped(md: &MemoryDesc, dt: DataType) -> Result<MemoryDesc, Error> {
    match md.layout() {
        Layout::Strided { strides, .. } => MemoryDesc::with_strides(md.dims(), dt, Some(strides)),
        _ => MemoryDesc::with_tag(md.dims(), dt, TAG_ANY),
    }
}

fn reorder(from: &Memory, to: &Memory) -> Result<(), Error> {
    let pd = PrimitiveDesc::reorder(from.desc(), to.desc(), Engine::cpu(), &Attr::new())?;
    Primitive::new(&pd)?.execute(&ExecArgs::new(vec![(args::FROM, from), (args::TO, to)])?)
}

/// Memory for `md` holding `values`: packed weights and bf16/f16 tensors are reordered from
/// plain f32, as benchdnn reorders its f32 buffers into what the primitive asks for.
pub fn input_memory(md: &MemoryDesc, values: &[f32]) -> Result<Memory, Error> {
    let mem = Memory::allocate(md)?;
    let packed = matches!(md.layout(), Layout::Packed(_) | Layout::PackedTransposed(_));
    if !packed && md.data_type() == DataType::F32 {
        write_logical(&mem, values);
        return Ok(mem);
    }
    let plain = Memory::allocate(&dense_f32(md.dims())?)?;
    write_logical(&plain, values);
    reorder(&plain, &mem)?;
    Ok(mem)
}

/// A memory's values in logical row-major order, as f32.
pub fn read_values(mem: &Memory) -> Result<Vec<f32>, Error> {
    if mem.desc().data_type() == DataType::F32 {
        return Ok(read_logical(mem));
    }
    let plain = Memory::allocate(&dense_f32(mem.desc().dims())?)?;
    reorder(mem, &plain)?;
    Ok(read_logical(&plain))
}

/// Memory whose every byte reads as NaN, so unwritten outputs cannot pass.
pub fn poisoned(md: &MemoryDesc) -> Result<Memory, Error> {
    let mem = Memory::allocate(md)?;
    let n = md.size_bytes() / 4;
    if n > 0 {
        // SAFETY: the buffer holds size_bytes() bytes.
        unsafe { std::slice::from_raw_parts_mut(mem.data_ptr().cast::<f32>(), n) }.fill(f32::NAN);
    }
    Ok(mem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_trivial_strides_pad_the_largest_stride_and_the_state_rows() {
        let strides = |md: MemoryDesc| md.strides().unwrap().to_vec();
        let tnc = layer_md(&[2, 3, 4], TAG_TNC, true).unwrap();
        assert_eq!(strides(tnc), [13, 4, 1]);
        let ntc = layer_md(&[2, 3, 4], 16, true).unwrap();
        assert_eq!(strides(ntc), [4, 9, 1]);
        assert_eq!(
            strides(layer_md(&[2, 3, 4], TAG_TNC, false).unwrap()),
            [12, 4, 1]
        );
        assert!(layer_md(&[2, 3, 4], TAG_ANY, true).unwrap().is_any());
        assert_eq!(
            strides(state_md(&[2, 1, 3, 4], true).unwrap()),
            [15, 15, 5, 1]
        );
        assert_eq!(
            strides(state_md(&[2, 1, 3, 4], false).unwrap()),
            [12, 12, 4, 1]
        );
    }

    #[test]
    fn logical_values_round_trip_through_a_padded_memory() {
        let md = state_md(&[1, 2, 3, 2], true).unwrap();
        let mem = poisoned(&md).unwrap();
        let values: Vec<f32> = (0..12).map(|v| v as f32).collect();
        write_logical(&mem, &values);
        assert_eq!(read_logical(&mem), values);
    }
}
