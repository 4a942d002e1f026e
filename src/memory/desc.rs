//! Memory descriptors: logical dims, data type and layout of a tensor.

use super::packed::PackedLayout;
use super::packed_transposed::TransposedLayout;
use super::tag::{dense_strides, strides_for_tag, TAG_ANY, TAG_UNDEF};
use crate::ensure_args;
use crate::error::{Error, Result};
use crate::types::{CEnum, DataType, FormatKind};

/// Maximum number of dimensions (`DNNL_MAX_NDIMS`).
pub const MAX_NDIMS: usize = 12;

/// `DNNL_RUNTIME_DIM_VAL`: a dimension (or stride) only known at execution time. Descriptors
/// may hold it; memories and primitives cannot be made from them.
pub const RUNTIME_DIM: i64 = i64::MIN;

/// `DNNL_RUNTIME_SIZE_VAL`: the size of a descriptor with runtime dims or strides.
pub const RUNTIME_SIZE: usize = 1 << 63;

/// How the elements of a tensor are placed in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// No layout: the zero descriptor (also what `format_tag_undef` gives).
    Undef,
    /// "Let the primitive choose" — only valid while creating a primitive descriptor.
    Any,
    /// Plain strided layout (`dnnl_blocked` without inner blocks); `offset0` is the element
    /// offset of the first element (non-zero for sub-memory views).
    Strided {
        /// Stride of each dimension, in elements.
        strides: Vec<i64>,
        /// Offset of element (0, …, 0), in elements.
        offset0: i64,
    },
    /// Our packed weights layout (reported as `dnnl_format_kind_opaque`).
    Packed(PackedLayout),
    /// Our packed transposed weights layout for backward (reported as
    /// `dnnl_format_kind_opaque`).
    PackedTransposed(TransposedLayout),
}

/// A memory descriptor (`dnnl_memory_desc_t`).
///
/// Dims (and, for strided layouts, strides) are also kept as fixed `[i64; MAX_NDIMS]` arrays,
/// zero past `ndims`: oneDNN's C API hands out `const dnnl_dims_t *` pointers into the
/// descriptor, so the C layer needs 12-element arrays that live exactly as long as the
/// descriptor. Both arrays are derived from the other fields when the descriptor is built.
#[derive(Clone, PartialEq, Eq)]
pub struct MemoryDesc {
    ndims: usize,
    dims: [i64; MAX_NDIMS],
    data_type: DataType,
    layout: Layout,
    strides: [i64; MAX_NDIMS],
}

impl std::fmt::Debug for MemoryDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryDesc")
            .field("dims", &self.dims())
            .field("data_type", &self.data_type)
            .field("layout", &self.layout)
            .finish()
    }
}

fn check_dims(dims: &[i64]) -> Result<()> {
    ensure_args!(
        dims.len() <= MAX_NDIMS,
        "ndims {} exceeds {MAX_NDIMS}",
        dims.len()
    );
    for (i, &d) in dims.iter().enumerate() {
        ensure_args!(
            d >= 0 || d == RUNTIME_DIM,
            "dimension {i} is negative ({d})"
        );
    }
    Ok(())
}

/// oneDNN's rule for explicit strides: taken in order of stride, every dimension of size > 1
/// with a non-zero stride must start past the end of the previous one, so no two elements share
/// an address. Zero strides (broadcast), size-1 dimensions and empty tensors are exempt.
fn strides_overlap(dims: &[i64], strides: &[i64]) -> bool {
    if dims.contains(&0) {
        return false;
    }
    let mut by_stride: Vec<(i64, i64)> = dims
        .iter()
        .zip(strides)
        .filter(|&(&d, &s)| d > 1 && s != 0)
        .map(|(&d, &s)| (s, d))
        .collect();
    by_stride.sort_unstable();
    by_stride
        .windows(2)
        .any(|w| w[1].0 < w[0].0.saturating_mul(w[0].1))
}

impl MemoryDesc {
    /// The zero descriptor (ndims 0): describes "no tensor"; memory made from it is empty.
    pub fn zero() -> Self {
        Self::build(&[], DataType::Undef, Layout::Undef)
    }

    /// The one constructor: fills the fixed-size dims and strides arrays. `dims` has at most
    /// `MAX_NDIMS` entries (callers check first).
    fn build(dims: &[i64], data_type: DataType, layout: Layout) -> Self {
        let mut d = [0i64; MAX_NDIMS];
        d[..dims.len()].copy_from_slice(dims);
        let mut strides = [0i64; MAX_NDIMS];
        if let Layout::Strided { strides: s, .. } = &layout {
            let n = s.len().min(MAX_NDIMS);
            strides[..n].copy_from_slice(&s[..n]);
        }
        Self {
            ndims: dims.len(),
            dims: d,
            data_type,
            layout,
            strides,
        }
    }

    /// A descriptor from dims, data type and a format tag value (plain tag or `any`).
    /// `dims` empty or the tag `undef` give the zero descriptor, as oneDNN does.
    pub fn with_tag(dims: &[i64], data_type: DataType, tag: i32) -> Result<Self> {
        if dims.is_empty() || tag == TAG_UNDEF {
            return Ok(Self::zero());
        }
        check_dims(dims)?;
        ensure_args!(data_type != DataType::Undef, "data type is undef");
        let layout = match tag {
            TAG_ANY => {
                ensure_args!(
                    !dims.contains(&RUNTIME_DIM),
                    "format_tag::any with runtime dimensions"
                );
                Layout::Any
            }
            _ => Layout::Strided {
                strides: strides_for_tag(dims, tag)?,
                offset0: 0,
            },
        };
        Ok(Self::build(dims, data_type, layout))
    }

    /// A plain descriptor with explicit strides (`None`: dense row-major).
    pub fn with_strides(
        dims: &[i64],
        data_type: DataType,
        strides: Option<&[i64]>,
    ) -> Result<Self> {
        if dims.is_empty() {
            return Ok(Self::zero());
        }
        check_dims(dims)?;
        ensure_args!(data_type != DataType::Undef, "data type is undef");
        let strides = match strides {
            None => dense_strides(dims),
            Some(s) => {
                ensure_args!(s.len() == dims.len(), "strides count differs from ndims");
                for (i, &st) in s.iter().enumerate() {
                    ensure_args!(
                        st >= 0 || st == RUNTIME_DIM,
                        "stride {i} is negative ({st})"
                    );
                }
                let runtime = s.contains(&RUNTIME_DIM) || dims.contains(&RUNTIME_DIM);
                ensure_args!(
                    runtime || !strides_overlap(dims, s),
                    "strides {s:?} make elements of {dims:?} overlap"
                );
                s.to_vec()
            }
        };
        Ok(Self::build(
            dims,
            data_type,
            Layout::Strided {
                strides,
                offset0: 0,
            },
        ))
    }

    /// Our packed weights descriptor for 5-D `ldigo` (or 4-D `ldio`) logical dims, panels in
    /// blocks of `block_gates` gates (see `memory::packed`).
    pub fn packed(dims: &[i64], data_type: DataType, block_gates: usize) -> Result<Self> {
        check_dims(dims)?;
        let p = PackedLayout::from_dims(dims)
            .ok_or_else(|| Error::InvalidArguments("packed weights need 4 or 5 dims".into()))?;
        let p = p.with_block_gates(block_gates);
        Ok(Self::build(dims, data_type, Layout::Packed(p)))
    }

    /// Our packed transposed weights descriptor for 5-D `ldigo` logical dims (see
    /// `memory::packed_transposed`).
    pub fn packed_transposed(dims: &[i64], data_type: DataType) -> Result<Self> {
        check_dims(dims)?;
        let t = TransposedLayout::from_dims(dims).ok_or_else(|| {
            Error::InvalidArguments("packed transposed weights need 5 dims".into())
        })?;
        Ok(Self::build(dims, data_type, Layout::PackedTransposed(t)))
    }

    /// A view of a part of this (strided) tensor: `dims` elements starting at `offsets`.
    /// Zero, `any` and packed parents give `unimplemented`, as oneDNN does for layouts it
    /// cannot take a view of.
    pub fn submemory(&self, dims: &[i64], offsets: &[i64]) -> Result<Self> {
        self.no_runtime_dims("a sub-memory")?;
        let Layout::Strided { strides, offset0 } = &self.layout else {
            return Err(Error::Unimplemented(format!(
                "sub-memory of a {} memory descriptor",
                if self.is_zero() {
                    "zero"
                } else {
                    self.format_kind().name()
                }
            )));
        };
        ensure_args!(
            dims.len() == self.ndims() && offsets.len() == self.ndims(),
            "ndims mismatch"
        );
        let mut off = *offset0;
        for d in 0..self.ndims() {
            ensure_args!(
                dims[d] >= 0 && offsets[d] >= 0 && dims[d] + offsets[d] <= self.dims[d],
                "sub-memory dim {d}: offset {} + size {} exceeds parent {}",
                offsets[d],
                dims[d],
                self.dims[d]
            );
            off += offsets[d] * strides[d];
        }
        Ok(Self::build(
            dims,
            self.data_type,
            Layout::Strided {
                strides: strides.clone(),
                offset0: off,
            },
        ))
    }

    /// The same tensor with its axes renamed: logical axis `i` becomes axis `perm[i]`
    /// (oneDNN's `permute_axes`). Only strided and `any` descriptors can be permuted.
    pub fn permute_axes(&self, perm: &[i32]) -> Result<Self> {
        self.no_runtime_dims("permuting the axes")?;
        ensure_args!(
            !self.is_zero(),
            "cannot permute the axes of a zero memory descriptor"
        );
        let n = self.ndims();
        ensure_args!(
            perm.len() == n,
            "permutation has {} entries for {n} dims",
            perm.len()
        );
        let mut seen = [false; MAX_NDIMS];
        for &p in perm {
            ensure_args!(
                (0..n as i32).contains(&p) && !seen[p as usize],
                "{perm:?} is not a permutation of 0..{n}"
            );
            seen[p as usize] = true;
        }
        let permute = |v: &[i64]| {
            let mut out = vec![0i64; n];
            for (i, &p) in perm.iter().enumerate() {
                out[p as usize] = v[i];
            }
            out
        };
        let layout = match &self.layout {
            Layout::Any => Layout::Any,
            Layout::Strided { strides, offset0 } => Layout::Strided {
                strides: permute(strides),
                offset0: *offset0,
            },
            Layout::Undef | Layout::Packed(_) | Layout::PackedTransposed(_) => {
                return Err(Error::Unimplemented(format!(
                    "permuting the axes of a {} memory descriptor",
                    self.format_kind().name()
                )))
            }
        };
        Ok(Self::build(&permute(self.dims()), self.data_type, layout))
    }

    /// Same descriptor with another layout (used when a primitive resolves `any`).
    pub fn with_layout(&self, layout: Layout) -> Self {
        Self::build(self.dims(), self.data_type, layout)
    }

    /// Same dims and type, dense in the order of the given plain tag.
    pub fn with_plain_tag(&self, tag: i32) -> Result<Self> {
        Self::with_tag(self.dims(), self.data_type, tag)
    }

    /// Number of dimensions.
    pub fn ndims(&self) -> usize {
        self.ndims
    }

    /// Logical dims.
    pub fn dims(&self) -> &[i64] {
        &self.dims[..self.ndims]
    }

    /// Logical dims as a `dnnl_dims_t`-shaped array, zero past `ndims`.
    pub fn dims_array(&self) -> &[i64; MAX_NDIMS] {
        &self.dims
    }

    /// Element data type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// True for the zero descriptor (ndims 0).
    pub fn is_zero(&self) -> bool {
        self.ndims == 0
    }

    /// True while the layout is still `any`.
    pub fn is_any(&self) -> bool {
        self.layout == Layout::Any
    }

    /// The format kind users see.
    pub fn format_kind(&self) -> FormatKind {
        match self.layout {
            Layout::Undef => FormatKind::Undef,
            Layout::Any => FormatKind::Any,
            Layout::Strided { .. } => FormatKind::Blocked,
            Layout::Packed(_) | Layout::PackedTransposed(_) => FormatKind::Opaque,
        }
    }

    /// Strides of a strided layout.
    pub fn strides(&self) -> Option<&[i64]> {
        match &self.layout {
            Layout::Strided { strides, .. } => Some(strides),
            _ => None,
        }
    }

    /// Strides of a strided layout as a `dnnl_dims_t`-shaped array, zero past `ndims`.
    pub fn strides_array(&self) -> Option<&[i64; MAX_NDIMS]> {
        matches!(self.layout, Layout::Strided { .. }).then_some(&self.strides)
    }

    /// Element offset of the first element (sub-memory views).
    pub fn offset0(&self) -> i64 {
        match &self.layout {
            Layout::Strided { offset0, .. } => *offset0,
            _ => 0,
        }
    }

    /// Whether a dim or stride is `DNNL_RUNTIME_DIM_VAL`.
    pub fn has_runtime_dims(&self) -> bool {
        self.dims().contains(&RUNTIME_DIM)
            || self.strides().is_some_and(|s| s.contains(&RUNTIME_DIM))
    }

    /// `unimplemented` naming `what` when the descriptor has runtime dims or strides.
    pub fn no_runtime_dims(&self, what: &str) -> Result<()> {
        if self.has_runtime_dims() {
            return Err(Error::Unimplemented(format!(
                "{what} from a memory descriptor with runtime dimensions or strides"
            )));
        }
        Ok(())
    }

    /// Number of logical elements (0 with runtime dims: none is known).
    pub fn nelems(&self) -> usize {
        if self.is_zero() || self.has_runtime_dims() {
            0
        } else {
            self.dims().iter().map(|&d| d as usize).product()
        }
    }

    /// Bytes a buffer for this descriptor needs (oneDNN's `get_size`): for strided layouts
    /// `max_d(dims[d]·strides[d])` elements — a sub-memory view reports its parent's extent
    /// reachable from its own strides, as oneDNN 3.13 does; 0 for zero, `any` or empty tensors.
    pub fn size_bytes(&self) -> usize {
        if self.has_runtime_dims() {
            return RUNTIME_SIZE;
        }
        if self.nelems() == 0 {
            return 0;
        }
        let elems = match &self.layout {
            Layout::Undef | Layout::Any => 0,
            Layout::Strided { strides, .. } => self
                .dims()
                .iter()
                .zip(strides)
                .map(|(&d, &s)| (d * s) as usize)
                .max()
                .unwrap_or(0),
            Layout::Packed(p) => p.len(),
            Layout::PackedTransposed(t) => t.len(),
        };
        elems * self.data_type.size()
    }

    /// Bytes from the buffer start that an access through this descriptor may touch:
    /// `offset0` plus the last element, plus one.
    pub fn extent_bytes(&self) -> usize {
        if self.nelems() == 0 {
            return 0;
        }
        match &self.layout {
            Layout::Strided { strides, offset0 } => {
                let last: i64 = self
                    .dims()
                    .iter()
                    .zip(strides)
                    .map(|(&d, &s)| (d - 1) * s)
                    .sum();
                (offset0 + last + 1) as usize * self.data_type.size()
            }
            _ => self.size_bytes(),
        }
    }

    /// Element offset (from the buffer start) of the element at logical index `idx`.
    /// Only for concrete layouts (strided or packed); panics otherwise (callers check first).
    pub fn element_offset(&self, idx: &[i64]) -> usize {
        match &self.layout {
            Layout::Strided { strides, offset0 } => {
                (offset0 + idx.iter().zip(strides).map(|(i, s)| i * s).sum::<i64>()) as usize
            }
            Layout::Packed(p) => {
                let u = |k: usize| idx[k] as usize;
                if idx.len() == 5 {
                    p.offset(u(0), u(1), u(2), u(3), u(4))
                } else {
                    p.offset(u(0), u(1), u(2), 0, u(3))
                }
            }
            Layout::PackedTransposed(t) => {
                let u = |k: usize| idx[k] as usize;
                t.offset(u(0), u(1), u(2), u(3), u(4))
            }
            Layout::Undef | Layout::Any => panic!("element_offset on a descriptor without layout"),
        }
    }

    /// True when the layout is strided and equal to the dense layout of the plain tag.
    pub fn is_plain_tag(&self, tag: i32) -> bool {
        match (&self.layout, strides_for_tag(self.dims(), tag)) {
            (
                Layout::Strided {
                    strides,
                    offset0: 0,
                },
                Ok(s),
            ) => *strides == s,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_onednn() {
        let ntc = MemoryDesc::with_tag(&[5, 3, 4], DataType::F32, 16).unwrap();
        assert_eq!(ntc.size_bytes(), 240);
        let sub = ntc.submemory(&[2, 3, 4], &[1, 0, 0]).unwrap();
        assert_eq!(sub.offset0(), 4);
        assert_eq!(sub.size_bytes(), 240);
        let st = MemoryDesc::with_strides(&[5, 3, 4], DataType::F32, Some(&[100, 20, 1])).unwrap();
        assert_eq!(st.size_bytes(), 2000);
        assert!(MemoryDesc::with_tag(&[5, -1, 4], DataType::F32, 4).is_err());
        assert!(ntc.submemory(&[2, 3, 4], &[4, 0, 0]).is_err());
        assert_eq!(
            MemoryDesc::with_tag(&[], DataType::Undef, 0).unwrap(),
            MemoryDesc::zero()
        );
        assert_eq!(
            MemoryDesc::with_tag(&[5, 3, 4], DataType::F32, TAG_UNDEF).unwrap(),
            MemoryDesc::zero()
        );
    }

    #[test]
    fn overlapping_strides_are_rejected_as_onednn_does() {
        // (dims, strides, accepted by oneDNN 3.13)
        let cases: &[(&[i64], &[i64], bool)] = &[
            (&[2, 3, 4], &[12, 4, 1], true),
            (&[2, 3, 4], &[4, 4, 1], false),
            (&[2, 3, 4], &[12, 3, 1], false),
            (&[2, 3, 4], &[0, 0, 0], true),
            (&[2, 3, 4], &[1, 2, 6], true),
            (&[2, 3, 4], &[1, 8, 2], true),
            (&[2, 3, 4], &[12, 4, 0], true),
            (&[2, 3, 4], &[24, 4, 1], true),
            (&[2, 3, 4], &[12, 1, 3], true),
            (&[2, 3, 4], &[12, 1, 4], false),
            (&[2, 3, 4], &[3, 1, 6], true),
            (&[1, 3, 4], &[1, 4, 1], true),
            (&[2, 3, 1], &[1, 1, 1], false),
            (&[2, 0, 4], &[1, 1, 1], true),
            (&[2, 3], &[2, 1], false),
            (&[2, 3], &[6, 2], true),
            (&[3, 2, 5], &[1, 1, 1], false),
        ];
        for &(d, s, ok) in cases {
            assert_eq!(
                MemoryDesc::with_strides(d, DataType::F32, Some(s)).is_ok(),
                ok,
                "{d:?} {s:?}"
            );
        }
    }

    #[test]
    fn permute_axes_moves_dims_and_strides() {
        let ntc = MemoryDesc::with_tag(&[5, 3, 4], DataType::F32, 16).unwrap();
        let p = ntc.permute_axes(&[1, 2, 0]).unwrap();
        assert_eq!(
            (p.dims(), p.strides().unwrap()),
            (&[4, 5, 3][..], &[1, 4, 20][..])
        );
        assert_eq!(p.dims_array()[..4], [4, 5, 3, 0]);
        assert_eq!(p.strides_array().unwrap()[..4], [1, 4, 20, 0]);
        assert!(ntc.permute_axes(&[0, 0, 1]).is_err());
        assert!(ntc.permute_axes(&[0, 1]).is_err());
        assert!(MemoryDesc::zero().permute_axes(&[]).is_err());
        let packed = MemoryDesc::packed(&[1, 1, 2, 4, 3], DataType::F32, 2).unwrap();
        assert!(matches!(
            packed.permute_axes(&[0, 1, 2, 3, 4]),
            Err(Error::Unimplemented(_))
        ));
        assert!(packed.strides_array().is_none());
    }
}
