//! GatherND-5 / GatherND-8: slices of `data` addressed by the `k`-tuples of the last axis of
//! `indices`, the first `batch_dims` axes shared by data and indices. GatherND-8's output is
//! `indices.shape[:-1] + data.shape[batch_dims + k:]`; GatherND-5 merges the batch axes into one.
//! Negative indices count from the end; out-of-range ones are errors.

use std::any::Any;

use super::{
    check_arity, expect_inputs, invalid, opset_number, require_integer, Op, OutputInfo, ValueInfo,
};
use crate::error::Result;
use crate::graph::ir::IrLayer;
use crate::graph::shape::{Dim, PartialShape};
use crate::graph::tensor::{Element, Tensor};

/// N-dimensional gather.
#[derive(Clone, Debug)]
pub struct GatherNd {
    /// Leading axes shared by data and indices.
    pub batch_dims: usize,
    /// GatherND-5: the batch axes merge into one output axis.
    pub merge_batch: bool,
}

impl GatherNd {
    /// Reads `<data batch_dims/>` (default 0).
    pub fn from_ir(layer: &IrLayer) -> Result<Self> {
        expect_inputs(layer, 2..=2)?;
        let b = layer.attr_i64_or("batch_dims", 0)?;
        Ok(Self {
            batch_dims: usize::try_from(b)
                .map_err(|_| layer.err(format!("batch_dims {b} is negative")))?,
            merge_batch: opset_number(layer) < 8,
        })
    }

    /// The output dims from data and indices dims; checks ranks and the tuple length.
    fn output_dims(&self, data: &[Dim], idx: &[Dim]) -> Result<Vec<Dim>> {
        let b = self.batch_dims;
        let Some((&k, lead)) = idx.split_last() else {
            return Err(invalid("indices must have rank ≥ 1"));
        };
        if b >= idx.len() || b > data.len() {
            return Err(invalid(format!(
                "batch_dims {b} must be below the indices rank {} and at most the data rank {}",
                idx.len(),
                data.len()
            )));
        }
        let Some(k) = k else {
            return Err(invalid("the last dim of indices must be known"));
        };
        if b + k > data.len() {
            return Err(invalid(format!(
                "index tuples of {k} after {b} batch dims exceed the data rank {}",
                data.len()
            )));
        }
        let mut out: Vec<Dim> = if self.merge_batch && b > 0 {
            let batch = lead[..b]
                .iter()
                .try_fold(1usize, |a, d| d.and_then(|d| a.checked_mul(d)));
            std::iter::once(batch)
                .chain(lead[b..].iter().copied())
                .collect()
        } else {
            lead.to_vec()
        };
        out.extend_from_slice(&data[b + k..]);
        Ok(out)
    }
}

fn gather<T: Element>(
    op: &GatherNd,
    data: &Tensor,
    idx: &[i64],
    ishape: &[usize],
    out: &[usize],
) -> Result<Tensor> {
    let shape = data.shape();
    let b = op.batch_dims;
    let k = ishape[ishape.len() - 1];
    let src: Vec<T> = data.typed::<T>("data")?.iter().copied().collect();
    let slice: usize = shape[b + k..].iter().product();
    let per_batch_data: usize = shape[b..].iter().product();
    let batches: usize = shape[..b].iter().product();
    let tuples_per_batch: usize = ishape[b..ishape.len() - 1].iter().product();
    let mut values = Vec::with_capacity(batches * tuples_per_batch * slice);
    for bi in 0..batches {
        for t in 0..tuples_per_batch {
            let tuple = &idx[(bi * tuples_per_batch + t) * k..][..k];
            let mut offset = 0usize;
            for (d, &raw) in tuple.iter().enumerate() {
                let n = shape[b + d] as i64;
                let i = if raw < 0 { raw + n } else { raw };
                if !(0..n).contains(&i) {
                    return Err(invalid(format!(
                        "index {raw} is out of range for a dim of {n}"
                    )));
                }
                offset = offset * shape[b + d] + i as usize;
            }
            let start = bi * per_batch_data + offset * slice;
            values.extend_from_slice(&src[start..start + slice]);
        }
    }
    Tensor::from_vec(out, values)
}

impl Op for GatherNd {
    fn type_name(&self) -> &'static str {
        "GatherND"
    }
    fn infer(&self, inputs: &[ValueInfo]) -> Result<Vec<OutputInfo>> {
        let (d, i) = (&inputs[0], &inputs[1]);
        require_integer("indices", i)?;
        let shape = match (d.shape.dims(), i.shape.dims()) {
            (Some(dd), Some(id)) if id.last().is_some_and(Option::is_some) => {
                PartialShape::new(self.output_dims(dd, id)?)
            }
            _ => PartialShape::dynamic(),
        };
        Ok(vec![OutputInfo::new(d.element_type, shape)])
    }
    fn execute(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        check_arity("GatherND", inputs, 2..=2)?;
        let (data, indices) = (inputs[0], inputs[1]);
        let (shape, ishape) = (data.shape(), indices.shape());
        let known = |s: &[usize]| s.iter().map(|&d| Some(d)).collect::<Vec<Dim>>();
        let out: Vec<usize> = self
            .output_dims(&known(shape), &known(ishape))?
            .into_iter()
            .flatten()
            .collect();
        if shape[..self.batch_dims] != ishape[..self.batch_dims] {
            return Err(invalid(format!(
                "the first {} dims of data {shape:?} and indices {ishape:?} must be equal",
                self.batch_dims
            )));
        }
        let idx = indices.to_i64_vec("indices")?;
        let t = crate::dispatch_type!(data.element_type(), T => gather::<T>(self, data, &idx, ishape, &out))?;
        Ok(vec![t])
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
