//! Helpers of the int8 integration tests: plain memories of any data type read and written in
//! logical order, and reorders with attributes. (The test crate declares `lstm_common` too.)
#![allow(dead_code)]

use super::lstm_common::for_each_index;
use oxidnn::args;
use oxidnn::attr::Attr;
use oxidnn::engine::Engine;
use oxidnn::memory::{Memory, MemoryDesc};
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::types::DataType;

/// `dnnl_format_tag_any`.
pub const ANY: i32 = 1;
/// `dnnl_tnc`.
pub const TNC: i32 = 4;
/// `dnnl_ldnc` / `dnnl_ldgo` / `dnnl_ldio`.
pub const LDNC: i32 = 5;
/// `dnnl_ldigo`.
pub const LDIGO: i32 = 6;

/// A plain descriptor.
pub fn md(dims: &[i64], dt: DataType, tag: i32) -> MemoryDesc {
    MemoryDesc::with_tag(dims, dt, tag).expect("md")
}

/// Writes logical values (integers for u8/s8) through a plain descriptor.
pub fn write(mem: &Memory, values: &[f32]) {
    let d = mem.desc();
    let (p, mut i) = (mem.data_ptr(), 0);
    for_each_index(d.dims(), |idx| {
        let off = d.element_offset(idx);
        // SAFETY: the offset is inside the memory.
        unsafe {
            match d.data_type() {
                DataType::U8 => *p.add(off) = values[i] as u8,
                DataType::S8 => *p.add(off) = values[i] as i8 as u8,
                _ => *p.cast::<f32>().add(off) = values[i],
            }
        }
        i += 1;
    });
}

/// Reads a plain memory in logical order.
pub fn read(mem: &Memory) -> Vec<f32> {
    let d = mem.desc();
    let p = mem.data_ptr();
    let mut v = Vec::new();
    for_each_index(d.dims(), |idx| {
        let off = d.element_offset(idx);
        // SAFETY: the offset is inside the memory.
        v.push(unsafe {
            match d.data_type() {
                DataType::U8 => *p.add(off) as f32,
                DataType::S8 => *p.add(off) as i8 as f32,
                _ => *p.cast::<f32>().add(off),
            }
        });
    });
    v
}

pub fn with(d: &MemoryDesc, values: &[f32]) -> Memory {
    let m = Memory::allocate(d).expect("allocate");
    write(&m, values);
    m
}

pub fn reorder(src: &Memory, dst: &MemoryDesc, attr: &Attr) -> Memory {
    let pd = PrimitiveDesc::reorder(src.desc(), dst, Engine::cpu(), attr).expect("reorder pd");
    let out = Memory::allocate(dst).expect("allocate");
    Primitive::new(&pd)
        .expect("reorder")
        .execute(&ExecArgs::new(vec![(args::FROM, src), (args::TO, &out)]).unwrap())
        .expect("reorder runs");
    out
}

pub fn bytes(m: &Memory) -> Vec<u8> {
    // SAFETY: the memory owns size_bytes() bytes.
    unsafe { std::slice::from_raw_parts(m.data_ptr(), m.desc().size_bytes()) }.to_vec()
}
