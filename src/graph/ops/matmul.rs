//! MatMul-1: (batched) matrix product with `transpose_a` / `transpose_b`, numpy broadcasting
//! of the batch dims, and rank-1 operands treated as a row (A) or column (B) vector.

use std::any::Any;

use half::f16;
use ndarray::{linalg::general_mat_mul, Array2, ArrayD, ArrayView2, Ix2, IxDyn, LinalgScalar};

use super::{check_arity, expect_inputs, invalid, Op, OutputInfo, ValueInfo};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{broadcast_partial, broadcast_static, Dim, PartialShape};
use crate::graph::tensor::Tensor;

/// Matrix multiplication.
#[derive(Clone, Debug, Default)]
pub struct MatMul {
    /// Transpose the last two dims of A first.
    pub transpose_a: bool,
    /// Transpose the last two dims of B first.
    pub transpose_b: bool,
}

impl MatMul {
    /// Reads `<data transpose_a transpose_b/>`.
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        Ok(Self {
            transpose_a: layer.attr_bool_or("transpose_a", false)?,
            transpose_b: layer.attr_bool_or("transpose_b", false)?,
        })
    }

    /// The output dims for input dims `a` and `b` (after rank-1 promotion and transposition);
    /// checks that the inner dims agree.
    fn dims(&self, a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>> {
        if a.is_empty() || b.is_empty() {
            return Err(invalid("MatMul inputs must have rank ≥ 1"));
        }
        let (pa, pb) = (
            promote(a, true, self.transpose_a),
            promote(b, false, self.transpose_b),
        );
        let (m, ka) = (pa[pa.len() - 2], pa[pa.len() - 1]);
        let (kb, n) = (pb[pb.len() - 2], pb[pb.len() - 1]);
        if let (Some(x), Some(y)) = (ka, kb) {
            if x != y {
                return Err(invalid(format!(
                    "inner dims differ: A {} gives K={x}, B {} gives K={y}",
                    PartialShape::new(a.to_vec()),
                    PartialShape::new(b.to_vec())
                )));
            }
        }
        let batch = broadcast_partial(
            &PartialShape::new(pa[..pa.len() - 2].to_vec()),
            &PartialShape::new(pb[..pb.len() - 2].to_vec()),
        )?;
        let mut out: Vec<Dim> = batch.dims().unwrap_or(&[]).to_vec();
        if a.len() > 1 {
            out.push(m);
        }
        if b.len() > 1 {
            out.push(n);
        }
        Ok(out)
    }
}

/// Rank-1 promotion (A → [1, K], B → [K, 1]) and transposition of the last two dims.
fn promote(s: &[Dim], is_a: bool, transpose: bool) -> Vec<Dim> {
    let mut v = s.to_vec();
    if v.len() == 1 {
        if is_a {
            v.insert(0, Some(1));
        } else {
            v.push(Some(1));
        }
    } else if transpose {
        let r = v.len();
        v.swap(r - 1, r - 2);
    }
    v
}

fn matmul<T: LinalgScalar>(op: &MatMul, a: &ArrayD<T>, b: &ArrayD<T>) -> Result<ArrayD<T>> {
    let (a_rank, b_rank) = (a.ndim(), b.ndim());
    let out_dims = op.dims(
        &a.shape().iter().map(|&d| Some(d)).collect::<Vec<_>>(),
        &b.shape().iter().map(|&d| Some(d)).collect::<Vec<_>>(),
    )?;
    let promote_static = |x: &ArrayD<T>, is_a: bool| -> Vec<usize> {
        let mut v = x.shape().to_vec();
        if v.len() == 1 {
            if is_a {
                v.insert(0, 1)
            } else {
                v.push(1)
            }
        }
        v
    };
    let (sa, sb) = (promote_static(a, true), promote_static(b, false));
    let a = a.to_shape(IxDyn(&sa)).map_err(|e| invalid(e.to_string()))?;
    let b = b.to_shape(IxDyn(&sb)).map_err(|e| invalid(e.to_string()))?;
    let batch = broadcast_static(&sa[..sa.len() - 2], &sb[..sb.len() - 2])?;
    let full =
        |s: &[usize]| -> Vec<usize> { batch.iter().chain(&s[s.len() - 2..]).copied().collect() };
    let av = a
        .broadcast(IxDyn(&full(&sa)))
        .ok_or_else(|| invalid("batch broadcast failed"))?;
    let bv = b
        .broadcast(IxDyn(&full(&sb)))
        .ok_or_else(|| invalid("batch broadcast failed"))?;
    let nb: usize = batch.iter().product();
    let a3 = av
        .to_shape((nb, sa[sa.len() - 2], sa[sa.len() - 1]))
        .map_err(|e| invalid(e.to_string()))?;
    let b3 = bv
        .to_shape((nb, sb[sb.len() - 2], sb[sb.len() - 1]))
        .map_err(|e| invalid(e.to_string()))?;
    let mut out = Vec::new();
    for i in 0..nb {
        let mut x: ArrayView2<T> = a3
            .index_axis(ndarray::Axis(0), i)
            .into_dimensionality::<Ix2>()
            .map_err(|e| invalid(e.to_string()))?;
        let mut y: ArrayView2<T> = b3
            .index_axis(ndarray::Axis(0), i)
            .into_dimensionality::<Ix2>()
            .map_err(|e| invalid(e.to_string()))?;
        if op.transpose_a && a_rank > 1 {
            x = x.reversed_axes();
        }
        if op.transpose_b && b_rank > 1 {
            y = y.reversed_axes();
        }
        let mut c = Array2::<T>::zeros((x.nrows(), y.ncols()));
        general_mat_mul(T::one(), &x, &y, T::zero(), &mut c);
        out.extend(c.iter().copied());
    }
    let shape: Vec<usize> = out_dims.iter().map(|d| d.unwrap_or(0)).collect();
    ArrayD::from_shape_vec(IxDyn(&shape), out).map_err(|e| invalid(e.to_string()))
}

impl Op for MatMul {
    fn type_name(&self) -> &'static str {
        "MatMul"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (a, b) = (&inputs[0], &inputs[1]);
        if a.element_type != b.element_type {
            return Err(invalid(format!(
                "inputs have different element types ({} and {})",
                a.element_type, b.element_type
            )));
        }
        let shape = match (a.shape.dims(), b.shape.dims()) {
            (Some(x), Some(y)) => PartialShape::new(self.dims(x, y)?),
            _ => PartialShape::dynamic(),
        };
        Ok(vec![OutputInfo::new(a.element_type, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("MatMul", inputs, 2..=2)?;
        let out = match (inputs[0], inputs[1]) {
            (Tensor::F32(a), Tensor::F32(b)) => Tensor::F32(matmul(self, a, b)?),
            (Tensor::F16(a), Tensor::F16(b)) => {
                let r = matmul(self, &a.mapv(f16::to_f32), &b.mapv(f16::to_f32))?;
                Tensor::F16(r.mapv(f16::from_f32))
            }
            (Tensor::I32(a), Tensor::I32(b)) => Tensor::I32(matmul(self, a, b)?),
            (Tensor::I64(a), Tensor::I64(b)) => Tensor::I64(matmul(self, a, b)?),
            (a, b) => {
                return Err(invalid(format!(
                    "MatMul is not defined for {} and {} inputs",
                    a.element_type(),
                    b.element_type()
                )))
            }
        };
        Ok(vec![out])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
