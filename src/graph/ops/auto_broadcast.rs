//! The `auto_broadcast` attribute of the element-wise ops (arithmetic, comparisons, logical
//! ops, Select): `numpy` (the default: dims aligned from the right, each pair equal or one of
//! them 1), `none` (equal shapes) and `pdpd` (the second input, its trailing 1s dropped, aligned
//! to the first from `axis` — `-1`: from the right — and broadcast to the first's shape).

use ndarray::{ArrayD, CowArray, IxDyn, Zip};

use super::invalid;
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{broadcast_partial, broadcast_static, PartialShape};

/// How the inputs of an element-wise op broadcast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoBroadcast {
    /// Equal shapes only.
    None,
    /// Numpy rules, both ways.
    Numpy,
    /// PaddlePaddle rules: the second shape broadcast onto the first from `axis`.
    Pdpd {
        /// First axis of the first input the second input aligns with (-1: from the right).
        axis: i64,
    },
}

impl AutoBroadcast {
    /// Reads `<data auto_broadcast [axis]/>` (default `numpy`; `axis` of `pdpd` defaults to -1,
    /// OpenVINO serializes it as `auto_broadcast.auto_broadcast_axis`).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        match layer.attr("auto_broadcast").unwrap_or("numpy") {
            "numpy" => Ok(Self::Numpy),
            "none" | "explicit" => Ok(Self::None),
            "pdpd" => {
                let key = if layer.attr("auto_broadcast.auto_broadcast_axis").is_some() {
                    "auto_broadcast.auto_broadcast_axis"
                } else {
                    "axis"
                };
                let axis = layer.attr_i64_or(key, -1)?;
                if axis < -1 {
                    return Err(layer.err(format!("pdpd broadcast axis {axis} must be ≥ -1")));
                }
                Ok(Self::Pdpd { axis })
            }
            other => Err(layer.err(format!(
                "auto_broadcast=\"{other}\" is not supported (numpy, pdpd or none)"
            ))),
        }
    }

    /// The second shape aligned to the rank of the first (pdpd rules).
    fn pdpd_aligned(axis: i64, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
        let start = if axis == -1 {
            a.len().checked_sub(b.len())
        } else {
            usize::try_from(axis).ok()
        };
        let trimmed = b.len() - b.iter().rev().take_while(|&&d| d == 1).count();
        let fits = start.filter(|s| b.len() <= a.len() && s + trimmed <= a.len());
        let Some(start) = fits else {
            return Err(invalid(format!(
                "shape {b:?} does not broadcast onto {a:?} from axis {axis} (pdpd rules)"
            )));
        };
        let mut out = vec![1; a.len()];
        out[start..start + trimmed].copy_from_slice(&b[..trimmed]);
        Ok(out)
    }

    /// The output shape for inputs of partial shapes `a` and `b`.
    pub fn infer(&self, a: &PartialShape, b: &PartialShape) -> Result<PartialShape> {
        match *self {
            Self::Numpy => broadcast_partial(a, b),
            Self::None if a.compatible(b) => Ok(a.refine(b)),
            Self::None => Err(invalid(format!(
                "auto_broadcast=none needs equal shapes, got {a} and {b}"
            ))),
            Self::Pdpd { .. } => match (a.to_static(), b.to_static()) {
                (Some(sa), Some(sb)) => Ok(PartialShape::from_static(&self.shape(&sa, &sb)?)),
                _ => Ok(a.clone()),
            },
        }
    }

    /// The output shape for inputs of shapes `a` and `b`.
    pub fn shape(&self, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
        match *self {
            Self::Numpy => broadcast_static(a, b),
            Self::None if a == b => Ok(a.to_vec()),
            Self::None => Err(invalid(format!(
                "auto_broadcast=none needs equal shapes, got {a:?} and {b:?}"
            ))),
            Self::Pdpd { axis } => {
                let aligned = Self::pdpd_aligned(axis, a, b)?;
                if aligned.iter().zip(a).any(|(&x, &y)| x != 1 && x != y) {
                    return Err(invalid(format!(
                        "shape {b:?} does not broadcast onto {a:?} from axis {axis} (pdpd rules)"
                    )));
                }
                Ok(a.to_vec())
            }
        }
    }

    /// `x` (the first input when `first`) reshaped to the output rank, ready to broadcast.
    fn aligned<'a, T: Clone>(
        &self,
        x: &'a ArrayD<T>,
        out: &[usize],
        first: bool,
    ) -> Result<CowArray<'a, T, IxDyn>> {
        let shape = match *self {
            Self::Pdpd { axis } if !first => Self::pdpd_aligned(axis, out, x.shape())?,
            _ => {
                let mut s = vec![1; out.len().saturating_sub(x.ndim())];
                s.extend_from_slice(x.shape());
                s
            }
        };
        x.to_shape(IxDyn(&shape))
            .map_err(|e| invalid(format!("cannot align shape {:?}: {e}", x.shape())))
    }

    /// Applies `f` element-wise to `a` and `b` broadcast against each other.
    pub fn zip<A: Clone, B: Clone, O>(
        &self,
        a: &ArrayD<A>,
        b: &ArrayD<B>,
        f: impl Fn(A, B) -> O,
    ) -> Result<ArrayD<O>> {
        let out = self.shape(a.shape(), b.shape())?;
        let (ax, bx) = (self.aligned(a, &out, true)?, self.aligned(b, &out, false)?);
        let bad = || {
            invalid(format!(
                "shapes {:?} and {:?} do not broadcast",
                a.shape(),
                b.shape()
            ))
        };
        let av = ax.broadcast(IxDyn(&out)).ok_or_else(bad)?;
        let bv = bx.broadcast(IxDyn(&out)).ok_or_else(bad)?;
        Ok(Zip::from(&av)
            .and(&bv)
            .map_collect(|x, y| f(x.clone(), y.clone())))
    }

    /// Applies `f` element-wise to three inputs (Select's condition, then and else): with numpy
    /// rules all three broadcast together; with pdpd rules the first and third broadcast onto
    /// the second; with none all shapes are equal.
    pub fn zip3<A: Clone, B: Clone, C: Clone, O>(
        &self,
        a: &ArrayD<A>,
        b: &ArrayD<B>,
        c: &ArrayD<C>,
        f: impl Fn(A, B, C) -> O,
    ) -> Result<ArrayD<O>> {
        let out = match self {
            Self::Pdpd { .. } => {
                self.shape(b.shape(), c.shape())?;
                self.shape(b.shape(), a.shape())?
            }
            _ => self.shape(a.shape(), &self.shape(b.shape(), c.shape())?)?,
        };
        let first = !matches!(self, Self::Pdpd { .. });
        let (ax, bx, cx) = (
            self.aligned(a, &out, first)?,
            self.aligned(b, &out, true)?,
            self.aligned(c, &out, first)?,
        );
        let bad = || {
            invalid(format!(
                "shapes {:?}, {:?} and {:?} do not broadcast",
                a.shape(),
                b.shape(),
                c.shape()
            ))
        };
        let av = ax.broadcast(IxDyn(&out)).ok_or_else(bad)?;
        let bv = bx.broadcast(IxDyn(&out)).ok_or_else(bad)?;
        let cv = cx.broadcast(IxDyn(&out)).ok_or_else(bad)?;
        Ok(Zip::from(&av)
            .and(&bv)
            .and(&cv)
            .map_collect(|x, y, z| f(x.clone(), y.clone(), z.clone())))
    }
}
