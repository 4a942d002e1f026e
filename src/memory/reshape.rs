//! `dnnl_memory_desc_reshape`: the same bytes seen with other dims. Dims are grouped so that
//! each group of input dims and its group of output dims have the same number of elements; a
//! group must be contiguous in memory (each dim's stride = the next dim's stride × its size,
//! size-1 dims aside), and its output dims then get the strides of a dense split of it.
//! Inserted size-1 dims take the stride of the next dim times its size, as oneDNN does.

use super::tag::dense_strides;
use super::{Layout, MemoryDesc};
use crate::ensure_args;
use crate::error::{Error, Result};

/// Output strides for `out` dims over the `(dim, stride)` pairs of the input's dims larger
/// than 1; `None` when some group is not contiguous or the element counts differ.
fn regroup(input: &[(i64, i64)], out: &[i64]) -> Option<Vec<i64>> {
    let mut strides = vec![0i64; out.len()];
    let big: Vec<usize> = (0..out.len()).filter(|&o| out[o] != 1).collect();
    let (mut i, mut o) = (0usize, 0usize);
    while i < input.len() || o < big.len() {
        // one group: input[i0..i] and big[o0..o] with equal products (every size here is > 1)
        if i == input.len() || o == big.len() {
            return None;
        }
        let (i0, o0) = (i, o);
        let (mut pi, mut po) = (input[i].0, out[big[o]]);
        (i, o) = (i + 1, o + 1);
        while pi != po {
            if pi < po {
                pi = pi.checked_mul(input.get(i)?.0)?;
                i += 1;
            } else {
                po = po.checked_mul(out[*big.get(o)?])?;
                o += 1;
            }
        }
        let group = &input[i0..i];
        if group
            .windows(2)
            .any(|w| w[0].1 != w[1].1.checked_mul(w[1].0).unwrap_or(-1))
        {
            return None;
        }
        let mut s = group[group.len() - 1].1;
        for &b in big[o0..o].iter().rev() {
            strides[b] = s;
            s = s.checked_mul(out[b])?;
        }
    }
    // size-1 output dims, from the innermost out
    for k in (0..out.len()).rev() {
        if out[k] == 1 {
            strides[k] = match k + 1 < out.len() {
                true => strides[k + 1].checked_mul(out[k + 1])?,
                false => 1,
            };
        }
    }
    Some(strides)
}

impl MemoryDesc {
    /// This descriptor with `dims` (same number of elements, same data type and offset).
    /// `any` descriptors take the new dims; plain ones need the regrouping to be contiguous
    /// (else `invalid_arguments`, as in oneDNN); packed ones are `unimplemented`.
    pub fn reshape(&self, dims: &[i64]) -> Result<Self> {
        ensure_args!(!self.is_zero(), "cannot reshape the zero memory descriptor");
        self.no_runtime_dims("a reshape")?;
        ensure_args!(!dims.is_empty(), "reshape to 0 dimensions");
        for (i, &d) in dims.iter().enumerate() {
            ensure_args!(d >= 0, "dimension {i} is negative ({d})");
        }
        let count = |d: &[i64]| d.iter().try_fold(1i64, |a, &x| a.checked_mul(x));
        ensure_args!(
            count(dims).is_some() && count(dims) == count(self.dims()),
            "reshape from {:?} to {dims:?} changes the number of elements",
            self.dims()
        );
        match self.layout() {
            Layout::HostScalar => {
                crate::invalid!("cannot reshape a host scalar memory descriptor")
            }
            Layout::Any => Ok(Self::with_tag(dims, self.data_type(), super::tag::TAG_ANY)?),
            Layout::Strided { strides, offset0 } => {
                let strides = if self.nelems() == 0 {
                    dense_strides(dims)?
                } else {
                    let input: Vec<(i64, i64)> = self
                        .dims()
                        .iter()
                        .zip(strides)
                        .filter(|&(&d, _)| d != 1)
                        .map(|(&d, &s)| (d, s))
                        .collect();
                    regroup(&input, dims).ok_or_else(|| {
                        Error::InvalidArguments(format!(
                            "cannot reshape {:?} with strides {strides:?} to {dims:?}: the \
                             merged or split dimensions are not contiguous",
                            self.dims()
                        ))
                    })?
                };
                Self::with_strides(dims, self.data_type(), Some(&strides))?.with_offset0(*offset0)
            }
            _ => Err(Error::Unimplemented(
                "reshape of a packed (opaque) memory descriptor".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DataType;

    fn strided(dims: &[i64], strides: &[i64]) -> MemoryDesc {
        MemoryDesc::with_strides(dims, DataType::F32, Some(strides)).unwrap()
    }

    fn strides_of(md: &MemoryDesc) -> Vec<i64> {
        md.strides().unwrap().to_vec()
    }

    #[test]
    fn merges_splits_and_inserts_like_onednn() {
        let abc = strided(&[2, 3, 4], &[12, 4, 1]);
        assert_eq!(strides_of(&abc.reshape(&[6, 4]).unwrap()), [4, 1]);
        assert_eq!(
            strides_of(&abc.reshape(&[2, 1, 3, 4]).unwrap()),
            [12, 12, 4, 1]
        );
        assert_eq!(strides_of(&abc.reshape(&[24]).unwrap()), [1]);
        assert_eq!(
            strides_of(&abc.reshape(&[2, 3, 2, 2]).unwrap()),
            [12, 4, 2, 1]
        );
        assert_eq!(
            strides_of(&abc.reshape(&[2, 3, 4, 1]).unwrap()),
            [12, 4, 1, 1]
        );
        // padded rows (stride 5 for 4 columns): the rows cannot merge with the columns
        let padded = strided(&[3, 4], &[5, 1]);
        assert_eq!(strides_of(&padded.reshape(&[3, 2, 2]).unwrap()), [5, 2, 1]);
        assert!(padded.reshape(&[12]).is_err());
    }

    #[test]
    fn refuses_what_onednn_refuses() {
        let abc = strided(&[2, 3, 4], &[12, 4, 1]);
        assert!(abc.reshape(&[5, 4]).is_err());
        assert!(abc.reshape(&[]).is_err());
        let acb = strided(&[2, 3, 4], &[12, 1, 3]);
        assert!(acb.reshape(&[6, 4]).is_err());
        assert!(acb.reshape(&[2, 12]).is_err());
        assert!(MemoryDesc::zero().reshape(&[1]).is_err());
    }

    #[test]
    fn keeps_the_sub_memory_offset_and_any() {
        let parent = strided(&[4, 6], &[6, 1]);
        let sub = parent.submemory(&[2, 6], &[1, 0]).unwrap();
        let r = sub.reshape(&[2, 2, 3]).unwrap();
        assert_eq!((strides_of(&r), r.offset0()), (vec![6, 3, 1], 6));
        let any = MemoryDesc::with_tag(&[2, 3], DataType::F32, crate::memory::tag::TAG_ANY);
        assert!(any.unwrap().reshape(&[6]).unwrap().is_any());
    }
}
