//! The op a MatMul with a constant f32 matrix B becomes (see [`super::pack_matmul`]): B is
//! packed once, when the model loads, into the RNN GEMM's panel layout (`K` rows of the `N`
//! columns rounded up to [`CHUNK`], zeros past `N`), and every product runs that GEMM over the
//! rows of A — no packing per call. A of rank 1 or `transpose_a` runs the plain MatMul.

use std::any::Any;

use crate::error::{Error, Result};
use crate::graph::ops::matmul::MatMul;
use crate::graph::ops::{check_arity, Op, OutputInfo, ValueInfo};
use crate::graph::tensor::Tensor;
use crate::kernels::gemm::{gemm, Fetch, Init, Panel, RowsA, CHUNK};
use crate::kernels::Isa;
use crate::threading;

/// Rows of A per work item.
const ROW_BLOCK: usize = 64;
/// Fewest multiply-adds for which a product runs on several threads.
const PARALLEL_MACS: usize = 1 << 20;

/// A MatMul by a constant, pre-packed B.
#[derive(Debug)]
pub struct PackedMatMul {
    reference: MatMul,
    k: usize,
    n: usize,
    /// `N` rounded up to [`CHUNK`]: the packed row length.
    width: usize,
    /// B as `K` rows of `width` floats.
    packed: Vec<f32>,
}

impl PackedMatMul {
    /// Packs `b` (`[K, N]`, or `[N, K]` with `transpose_b`) for `reference`; `None` when `b`
    /// is not a 2-D f32 matrix or `reference` transposes A.
    pub fn new(reference: &MatMul, b: &Tensor) -> Option<Self> {
        let b = b.as_f32()?;
        let &[rows, cols] = b.shape() else {
            return None;
        };
        if reference.transpose_a {
            return None;
        }
        let b = b.view().into_dimensionality::<ndarray::Ix2>().ok()?;
        let b = if reference.transpose_b {
            b.reversed_axes()
        } else {
            b
        };
        let (k, n) = if reference.transpose_b {
            (cols, rows)
        } else {
            (rows, cols)
        };
        let width = n.checked_next_multiple_of(CHUNK)?;
        let mut packed = Vec::new();
        packed.try_reserve_exact(k.checked_mul(width)?).ok()?;
        for row in b.rows() {
            packed.extend(row.iter().copied());
            packed.resize(packed.len() + width - n, 0.0);
        }
        Some(Self {
            reference: reference.clone(),
            k,
            n,
            width,
            packed,
        })
    }

    /// The output shape for A of shape `a` (`[…, M, K]`), when this op's GEMM runs it.
    fn output_shape(&self, a: &Tensor) -> Option<Vec<usize>> {
        let s = a.as_f32()?.shape();
        if s.len() < 2 || s[s.len() - 1] != self.k {
            return None;
        }
        let mut out = s.to_vec();
        *out.last_mut()? = self.n;
        Some(out)
    }

    /// `out = A · B` for row-major A of `rows` rows (`out`: `rows × N`).
    fn multiply(&self, a: &[f32], rows: usize, out: &mut [f32]) -> Result<()> {
        let (k, n, width) = (self.k, self.n, self.width);
        if a.len() != rows * k || out.len() != rows * n {
            return Err(Error::Runtime(format!(
                "MatMul: {} values of A and {} of the output for K={k} N={n}",
                a.len(),
                out.len()
            )));
        }
        let isa = Isa::detected();
        let rows_a = RowsA {
            base: a.as_ptr(),
            outer_stride: 0,
            inner_stride: k as isize,
            inner: rows.max(1),
        };
        let blocks = rows.div_ceil(ROW_BLOCK);
        let parallel = rows.saturating_mul(k).saturating_mul(n) >= PARALLEL_MACS;
        let c = out.as_mut_ptr() as usize;
        threading::for_each(blocks, parallel, |blk| {
            let r = blk * ROW_BLOCK..rows.min((blk + 1) * ROW_BLOCK);
            let c = (c as *mut f32).wrapping_add(r.start * n);
            let panel = Panel::dense(self.packed.as_ptr(), width, width);
            // SAFETY: A has `rows` rows of `k` floats, the panel `k` rows of `width`; each
            // block writes its own rows of `out` (or of its own buffer, `width` wide).
            unsafe {
                if width == n {
                    gemm(
                        isa,
                        &rows_a,
                        r,
                        k,
                        &panel,
                        c,
                        n,
                        Init::Zero,
                        Fetch::default(),
                    );
                } else {
                    let mut wide = vec![0f32; r.len() * width];
                    let m = r.len();
                    let w = wide.as_mut_ptr();
                    gemm(
                        isa,
                        &rows_a,
                        r,
                        k,
                        &panel,
                        w,
                        width,
                        Init::Zero,
                        Fetch::default(),
                    );
                    for i in 0..m {
                        std::ptr::copy_nonoverlapping(w.add(i * width), c.add(i * n), n);
                    }
                }
            }
        });
        Ok(())
    }
}

impl Op for PackedMatMul {
    fn type_name(&self) -> &'static str {
        "MatMul"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        self.reference.infer(inputs)
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("MatMul", inputs, 2..=2)?;
        let Some(shape) = self.output_shape(inputs[0]) else {
            return self.reference.execute(inputs);
        };
        let mut out = Tensor::try_zeros(inputs[0].element_type(), &shape)?;
        self.execute_into(inputs, std::slice::from_mut(&mut out))?;
        Ok(vec![out])
    }
    fn execute_into(&self, inputs: &[&Tensor], outputs: &mut [Tensor]) -> Result<bool> {
        check_arity("MatMul", inputs, 2..=2)?;
        let ([Tensor::F32(out)], Some(a)) = (outputs, inputs[0].as_f32()) else {
            return Ok(false);
        };
        if self.output_shape(inputs[0]).as_deref() != Some(out.shape()) {
            return Ok(false);
        }
        let rows = a.shape()[..a.ndim() - 1].iter().product();
        let a = a.as_standard_layout();
        match (a.as_slice(), out.as_slice_mut()) {
            (Some(a), Some(out)) => self.multiply(a, rows, out)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| {
                ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 1000) as f32 / 500.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn matches_the_plain_matmul_for_any_width_and_rank() {
        for (k, n, transpose_b) in [
            (5, 1, false),
            (33, 32, true),
            (16, 37, false),
            (7, 70, true),
            (0, 3, false),
        ] {
            let reference = MatMul {
                transpose_a: false,
                transpose_b,
            };
            let b_shape = if transpose_b { [n, k] } else { [k, n] };
            let b = Tensor::from_vec(&b_shape, values(k * n, 1)).unwrap();
            let packed = PackedMatMul::new(&reference, &b).unwrap();
            for a_shape in [vec![3, k], vec![2, 70, k]] {
                let a = Tensor::from_vec(&a_shape, values(a_shape.iter().product(), 2)).unwrap();
                let want = reference.execute(&[&a, &b]).unwrap().remove(0);
                let got = packed.execute(&[&a, &b]).unwrap().remove(0);
                assert_eq!(got.shape(), want.shape(), "K={k} N={n}");
                let (g, w) = (got.as_f32().unwrap(), want.as_f32().unwrap());
                for (x, y) in g.iter().zip(w) {
                    assert!(
                        (x - y).abs() <= 1e-5 * (1.0 + y.abs()),
                        "K={k} N={n}: {x} vs {y}"
                    );
                }
                let mut reused = Tensor::from_vec(want.shape(), vec![9f32; want.len()]).unwrap();
                assert!(packed
                    .execute_into(&[&a, &b], std::slice::from_mut(&mut reused))
                    .unwrap());
                assert_eq!(reused, got);
            }
        }
        let transposed_a = MatMul {
            transpose_a: true,
            transpose_b: false,
        };
        let b = Tensor::from_vec(&[2, 2], values(4, 3)).unwrap();
        assert!(PackedMatMul::new(&transposed_a, &b).is_none());
    }
}
