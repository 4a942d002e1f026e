//! oneDNN's execute-time rule through the Rust API: a primitive's descriptor decides how an
//! argument's buffer is read, the memory supplies the handle. A reorder made on a sub-memory
//! view runs on the whole memory; a memory whose own descriptor spans less than the view
//! reaches is refused.

use oxidnn::attr::Attr;
use oxidnn::engine::Engine;
use oxidnn::memory::{Handle, Memory, MemoryDesc};
use oxidnn::primitive::{ExecArgs, Primitive, PrimitiveDesc};
use oxidnn::types::DataType;
use oxidnn::Status;

const FROM: i32 = 1;
const TO: i32 = 17;

fn dense(dims: &[i64]) -> MemoryDesc {
    MemoryDesc::with_strides(dims, DataType::F32, None).unwrap()
}

fn user(md: &MemoryDesc, buf: &mut [f32]) -> Memory {
    Memory::new(md, Engine::cpu(), Handle::User(buf.as_mut_ptr().cast())).unwrap()
}

#[test]
fn a_primitive_made_on_a_view_runs_on_the_whole_memory() {
    let whole = dense(&[4, 3]);
    let rows_1_2 = whole.submemory(&[2, 3], &[1, 0]).unwrap();
    let out = dense(&[2, 3]);
    let pd = PrimitiveDesc::reorder(&rows_1_2, &out, Engine::cpu(), &Attr::default()).unwrap();
    let prim = Primitive::new(&pd).unwrap();

    let mut src: Vec<f32> = (0..12).map(|v| v as f32).collect();
    let mut dst = vec![-1.0f32; 6];
    let (m_src, m_dst) = (user(&whole, &mut src), user(&out, &mut dst));
    prim.execute(&ExecArgs::new(vec![(FROM, &m_src), (TO, &m_dst)]).unwrap())
        .unwrap();
    drop((m_src, m_dst));
    assert_eq!(dst, [3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);

    // the view reaches 36 bytes from the handle; a 2 x 3 memory spans 24
    let mut short = vec![0.0f32; 6];
    let m_short = user(&out, &mut short);
    let m_dst = user(&out, &mut dst);
    let err = prim
        .execute(&ExecArgs::new(vec![(FROM, &m_short), (TO, &m_dst)]).unwrap())
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArguments);
    assert!(
        err.to_string().contains("reaches 36 bytes") && err.to_string().contains("only 24"),
        "{err}"
    );
}
