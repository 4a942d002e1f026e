//! Tile-1: repeats `data` `repeats[i]` times along each axis; the shorter of the data shape and
//! `repeats` is padded with leading 1s.

use std::any::Any;

use super::{
    check_arity, const_i64s, expect_inputs, invalid, require_integer, Op, OutputInfo, ValueInfo,
};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{Dim, PartialShape};
use crate::graph::tensor::{Element, Tensor};

/// Repetition along every axis.
#[derive(Clone, Debug, Default)]
pub struct Tile;

impl Tile {
    /// Checks the input count (data, repeats).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        Ok(Self)
    }

    /// The data dims and the repeats, both padded to the output rank.
    fn align(dims: &[Dim], repeats: &[i64]) -> Result<(Vec<Dim>, Vec<usize>)> {
        let rank = dims.len().max(repeats.len());
        let mut d = vec![Some(1); rank - dims.len()];
        d.extend_from_slice(dims);
        let mut r = vec![1; rank - repeats.len()];
        for &x in repeats {
            r.push(
                usize::try_from(x)
                    .map_err(|_| invalid(format!("repeats {repeats:?} has a negative value")))?,
            );
        }
        Ok((d, r))
    }
}

/// `t` (of the output rank) repeated `reps[i]` times along axis `i`, axes from the innermost:
/// each row of an axis (with its already tiled inner axes) is copied `reps[i]` times.
fn tile<T: Element>(t: &Tensor, reps: &[usize], out: &[usize]) -> Result<Tensor> {
    if out.contains(&0) {
        return Tensor::from_vec(out, Vec::<T>::new());
    }
    let shape = t.shape();
    let mut cur: Vec<T> = t.typed::<T>("data")?.iter().copied().collect();
    let mut inner = 1usize;
    for axis in (0..shape.len()).rev() {
        let row = shape[axis] * inner;
        let mut next = Vec::with_capacity(cur.len() * reps[axis]);
        for chunk in cur.chunks_exact(row) {
            for _ in 0..reps[axis] {
                next.extend_from_slice(chunk);
            }
        }
        cur = next;
        inner = row * reps[axis];
    }
    Tensor::from_vec(out, cur)
}

impl Op for Tile {
    fn type_name(&self) -> &'static str {
        "Tile"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let et = inputs[0].element_type;
        require_integer("repeats", &inputs[1])?;
        let shape = match (inputs[0].shape.dims(), const_i64s(&inputs[1], "repeats")?) {
            (Some(dims), Some(reps)) => {
                let (d, r) = Self::align(dims, &reps)?;
                PartialShape::new(
                    d.iter()
                        .zip(&r)
                        .map(|(d, &r)| {
                            if r == 0 {
                                Some(0)
                            } else {
                                d.and_then(|d| d.checked_mul(r))
                            }
                        })
                        .collect(),
                )
            }
            _ => PartialShape::dynamic(),
        };
        Ok(vec![OutputInfo::new(et, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("Tile", inputs, 2..=2)?;
        let data = inputs[0];
        let reps = inputs[1].to_i64_vec("repeats")?;
        let dims: Vec<Dim> = data.shape().iter().map(|&d| Some(d)).collect();
        let (d, r) = Self::align(&dims, &reps)?;
        let aligned: Vec<usize> = d.into_iter().flatten().collect();
        let out: Vec<usize> = aligned
            .iter()
            .zip(&r)
            .map(|(&d, &r)| d.checked_mul(r))
            .collect::<Option<_>>()
            .ok_or_else(|| invalid(format!("tiling {:?} by {reps:?} overflows", data.shape())))?;
        crate::graph::build::allocatable(0, &out).map_err(invalid)?;
        let t = data.reshaped(&aligned)?;
        let tiled = crate::dispatch_type!(t.element_type(), T => tile::<T>(&t, &r, &out))?;
        Ok(vec![tiled])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
