//! Memory descriptors: logical dims, data type and layout of a tensor.

use super::packed::PackedLayout;
use super::packed_int8::Int8Layout;
use super::packed_transposed::TransposedLayout;
use super::tag::{dense_strides, strides_for_tag, TAG_ANY, TAG_UNDEF};
use crate::ensure_args;
use crate::error::{Error, Result};
use crate::size;
use crate::types::{CEnum, DataType, FormatKind};
use std::fmt;

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
    /// One value kept by the memory object itself, not a tensor in a buffer (oneDNN 3.13's
    /// `dnnl_format_kind_host_scalar`; dims `[1]`).
    HostScalar,
}

/// A memory descriptor (`dnnl_memory_desc_t`).
///
/// Dims (and, for strided layouts, strides) are also kept as fixed `[i64; MAX_NDIMS]` arrays,
/// zero past `ndims`: oneDNN's C API hands out `const dnnl_dims_t *` pointers into the
/// descriptor, so the C layer needs 12-element arrays that live exactly as long as the
/// descriptor. Both arrays, and the sizes, are derived from the other fields when the
/// descriptor is built.
#[derive(Clone, PartialEq, Eq)]
pub struct MemoryDesc {
    ndims: usize,
    dims: [i64; MAX_NDIMS],
    data_type: DataType,
    layout: Layout,
    strides: [i64; MAX_NDIMS],
    sizes: Sizes,
}

/// Element count and byte sizes of a descriptor, computed with checked arithmetic when it is
/// built: a descriptor exists only when all of them fit (`size::MAX_BYTES`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sizes {
    nelems: usize,
    /// oneDNN's `get_size`.
    bytes: usize,
    /// Bytes from the buffer start that an access may reach.
    extent: usize,
}

/// Names a descriptor in size errors (formatted only when one occurs).
struct Described<'a>(&'a [i64], DataType);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "memory descriptor {:?} {}", self.0, self.1.name())
    }
}

impl Sizes {
    /// Every layout holds at least its elements; a strided layout needs `max_d(dims[d]·strides[d])`
    /// elements (oneDNN's `get_size`; a dim of 1 counts 1 whatever its stride) and reaches
    /// `offset0 + Σ_d (dims[d] − 1)·strides[d] + 1`; packed layouts their padded length.
    /// With runtime dims or strides nothing is known: no elements, `get_size` is
    /// `DNNL_RUNTIME_SIZE_VAL` (such descriptors never get memory or a primitive).
    fn of(dims: &[i64], data_type: DataType, layout: &Layout) -> Result<Self> {
        let runtime_strides =
            matches!(layout, Layout::Strided { strides, .. } if strides.contains(&RUNTIME_DIM));
        if dims.contains(&RUNTIME_DIM) || runtime_strides {
            return Ok(Self {
                bytes: RUNTIME_SIZE,
                ..Self::default()
            });
        }
        let what = Described(dims, data_type);
        let udims = dims
            .iter()
            .map(|&d| size::from_dim(&what, d))
            .collect::<Result<Vec<_>>>()?;
        let nelems = size::product(&what, &udims)?;
        let elem = storage_type(data_type, layout).size();
        size::bytes(&what, nelems, elem)?;
        if nelems == 0 {
            return Ok(Self::default());
        }
        let (len, extent) = match layout {
            Layout::Undef | Layout::Any => (0, 0),
            Layout::HostScalar => (1, 1),
            Layout::Strided { strides, offset0 } => {
                let (mut len, mut last) = (0, size::from_dim(&what, *offset0)?);
                for (&d, &s) in udims.iter().zip(strides) {
                    let s = size::from_dim(&what, s)?;
                    len = len.max(if d == 1 {
                        1
                    } else {
                        size::product(&what, &[d, s])?
                    });
                    last = size::add(&what, last, size::product(&what, &[d - 1, s])?)?;
                }
                (len, size::add(&what, last, 1)?)
            }
            // s8 weights: the int8 layout, in bytes (`memory::packed_int8`).
            Layout::Packed(p) if data_type == DataType::S8 => {
                let b = Int8Layout::new(p)?.bytes();
                (b, b)
            }
            // bf16 pairs: two elements per word (checked: the layout checked its words).
            Layout::Packed(p) => {
                let n = size::product(&what, &[1 + usize::from(p.pairs), p.len()])?;
                (n, n)
            }
            Layout::PackedTransposed(t) => (t.len(), t.len()),
        };
        Ok(Self {
            nelems,
            bytes: size::bytes(&what, len, elem)?,
            extent: size::bytes(&what, extent, elem)?,
        })
    }
}

/// The element type stored for `data_type` in `layout`: the packed layout of bf16 pairs stores
/// bf16 (`memory::packed`); otherwise the packed weights layouts keep bf16 and f16 weights as
/// f32 values rounded to that type (what the f32 GEMM kernels read); every other layout stores
/// the data type itself.
pub fn storage_type(data_type: DataType, layout: &Layout) -> DataType {
    match (layout, data_type) {
        (Layout::Packed(p), _) if p.pairs => DataType::Bf16,
        (Layout::Packed(_) | Layout::PackedTransposed(_), DataType::Bf16 | DataType::F16) => {
            DataType::F32
        }
        _ => data_type,
    }
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
/// Called once the descriptor's sizes are checked, so every `stride · dim` here fits.
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
    by_stride.windows(2).any(|w| w[1].0 < w[0].0 * w[0].1)
}

impl MemoryDesc {
    /// The zero descriptor (ndims 0): describes "no tensor"; memory made from it is empty.
    pub fn zero() -> Self {
        Self {
            ndims: 0,
            dims: [0; MAX_NDIMS],
            data_type: DataType::Undef,
            layout: Layout::Undef,
            strides: [0; MAX_NDIMS],
            sizes: Sizes::default(),
        }
    }

    /// The one constructor: fills the fixed-size dims and strides arrays and computes the sizes
    /// (`invalid_arguments` when one does not fit). `dims` has at most `MAX_NDIMS` entries
    /// (callers check first).
    fn build(dims: &[i64], data_type: DataType, layout: Layout) -> Result<Self> {
        let sizes = Sizes::of(dims, data_type, &layout)?;
        let mut d = [0i64; MAX_NDIMS];
        d[..dims.len()].copy_from_slice(dims);
        let mut strides = [0i64; MAX_NDIMS];
        if let Layout::Strided { strides: s, .. } = &layout {
            let n = s.len().min(MAX_NDIMS);
            strides[..n].copy_from_slice(&s[..n]);
        }
        Ok(Self {
            ndims: dims.len(),
            dims: d,
            data_type,
            layout,
            strides,
            sizes,
        })
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
        Self::build(dims, data_type, layout)
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
        let strides_given = strides;
        let strides = match strides {
            None => dense_strides(dims)?,
            Some(s) => {
                ensure_args!(s.len() == dims.len(), "strides count differs from ndims");
                for (i, &st) in s.iter().enumerate() {
                    ensure_args!(
                        st >= 0 || st == RUNTIME_DIM,
                        "stride {i} is negative ({st})"
                    );
                }
                s.to_vec()
            }
        };
        let layout = Layout::Strided {
            strides,
            offset0: 0,
        };
        // Sizes first: overlap is judged on strides·dims that fit.
        let md = Self::build(dims, data_type, layout)?;
        if let Some(s) = strides_given {
            let runtime = s.contains(&RUNTIME_DIM) || dims.contains(&RUNTIME_DIM);
            ensure_args!(
                runtime || !strides_overlap(dims, s),
                "strides {s:?} make elements of {dims:?} overlap"
            );
        }
        Ok(md)
    }

    /// Our packed weights descriptor for 5-D `ldigo` (or 4-D `ldio`) logical dims, panels in
    /// blocks of `block_gates` gates (see `memory::packed`); bf16 weights as bf16 pairs.
    pub fn packed(dims: &[i64], data_type: DataType, block_gates: usize) -> Result<Self> {
        Self::packed_as(dims, data_type, block_gates, data_type == DataType::Bf16)
    }

    /// [`Self::packed`] with rows of bf16 pairs or not (`pairs`: f32 weights of a primitive
    /// with bf16 math are stored rounded to bf16 pairs).
    pub fn packed_as(
        dims: &[i64],
        data_type: DataType,
        block_gates: usize,
        pairs: bool,
    ) -> Result<Self> {
        check_dims(dims)?;
        let p = PackedLayout::from_dims(dims)?
            .with_block_gates(block_gates)
            .with_pairs(pairs);
        Self::build(dims, data_type, Layout::Packed(p))
    }

    /// Our packed transposed weights descriptor for 5-D `ldigo` logical dims (see
    /// `memory::packed_transposed`).
    pub fn packed_transposed(dims: &[i64], data_type: DataType) -> Result<Self> {
        check_dims(dims)?;
        let t = TransposedLayout::from_dims(dims)?;
        Self::build(dims, data_type, Layout::PackedTransposed(t))
    }

    /// A host scalar of `data_type` (`dnnl_memory_desc_create_host_scalar`): dims `[1]`, one
    /// value. `undef` is `invalid_arguments`, as in oneDNN.
    pub fn host_scalar(data_type: DataType) -> Result<Self> {
        ensure_args!(
            data_type != DataType::Undef,
            "a host scalar needs a data type (not undef)"
        );
        Self::build(&[1], data_type, Layout::HostScalar)
    }

    /// Whether this describes a host scalar.
    pub fn is_host_scalar(&self) -> bool {
        self.layout == Layout::HostScalar
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
        let what = "sub-memory offset";
        let mut off = size::from_dim(what, *offset0)?;
        for d in 0..self.ndims() {
            let (n, o, parent) = (dims[d], offsets[d], self.dims[d]);
            // Written without `n + o`, which may wrap.
            ensure_args!(
                n >= 0 && o >= 0 && n <= parent && o <= parent - n,
                "sub-memory dim {d}: offset {o} + size {n} exceeds parent {parent}"
            );
            let step = size::product(
                what,
                &[size::from_dim(what, o)?, size::from_dim(what, strides[d])?],
            )?;
            off = size::add(what, off, step)?;
        }
        Self::build(
            dims,
            self.data_type,
            Layout::Strided {
                strides: strides.clone(),
                offset0: size::to_dim(what, off)?,
            },
        )
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
            Layout::HostScalar => {
                crate::invalid!("cannot permute the axes of a host scalar memory descriptor")
            }
            Layout::Undef | Layout::Packed(_) | Layout::PackedTransposed(_) => {
                return Err(Error::Unimplemented(format!(
                    "permuting the axes of a {} memory descriptor",
                    self.format_kind().name()
                )))
            }
        };
        Self::build(&permute(self.dims()), self.data_type, layout)
    }

    /// The same strided descriptor with its first element `offset0` elements from the buffer
    /// start (sizes checked again).
    pub fn with_offset0(&self, offset0: i64) -> Result<Self> {
        let Layout::Strided { strides, .. } = &self.layout else {
            return Err(Error::InvalidArguments(
                "an offset needs a strided memory descriptor".into(),
            ));
        };
        let layout = Layout::Strided {
            strides: strides.clone(),
            offset0,
        };
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

    /// The type of the elements in memory: the data type, except in the packed layouts, whose
    /// floating-point elements are f32 holding values of the data type (see
    /// [`storage_type`]).
    pub fn storage_type(&self) -> DataType {
        storage_type(self.data_type, &self.layout)
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
            Layout::HostScalar => FormatKind::HostScalar,
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
        self.sizes.nelems
    }

    /// Bytes a buffer for this descriptor needs (oneDNN's `get_size`): for strided layouts
    /// `max_d(dims[d]·strides[d])` elements (a dim of 1 counts 1) — a sub-memory view reports
    /// its parent's extent reachable from its own strides, as oneDNN 3.13 does; 0 for zero,
    /// `any` or empty tensors.
    pub fn size_bytes(&self) -> usize {
        self.sizes.bytes
    }

    /// Bytes from the buffer start that an access through this descriptor may touch:
    /// `offset0` plus the last element, plus one (the size for packed layouts).
    pub fn extent_bytes(&self) -> usize {
        self.sizes.extent
    }

    /// Bytes of a buffer the library allocates for this descriptor: `get_size`, or the extent
    /// when a sub-memory's offset reaches past it.
    pub fn buffer_bytes(&self) -> usize {
        self.sizes.bytes.max(self.sizes.extent)
    }

    /// Element offset (from the buffer start) of the element at logical index `idx`.
    /// Only for concrete layouts (strided or packed); panics otherwise (callers check first).
    pub fn element_offset(&self, idx: &[i64]) -> usize {
        match &self.layout {
            Layout::Strided { strides, offset0 } => {
                (offset0 + idx.iter().zip(strides).map(|(i, s)| i * s).sum::<i64>()) as usize
            }
            Layout::Packed(p) if self.data_type == DataType::S8 => {
                let u = |k: usize| idx[k] as usize;
                let lay = Int8Layout::new(p).expect("checked when the descriptor was built");
                if idx.len() == 5 {
                    lay.offset(u(0), u(1), u(2), u(3), u(4))
                } else {
                    lay.offset(u(0), u(1), u(2), 0, u(3))
                }
            }
            Layout::Packed(p) => {
                let u = |k: usize| idx[k] as usize;
                if idx.len() == 5 {
                    p.element_offset(u(0), u(1), u(2), u(3), u(4))
                } else {
                    p.element_offset(u(0), u(1), u(2), 0, u(3))
                }
            }
            Layout::PackedTransposed(t) => {
                let u = |k: usize| idx[k] as usize;
                t.offset(u(0), u(1), u(2), u(3), u(4))
            }
            Layout::HostScalar => 0,
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

    fn is_invalid(r: Result<MemoryDesc>) -> bool {
        matches!(r, Err(Error::InvalidArguments(_)))
    }

    #[test]
    fn sizes_that_do_not_fit_are_rejected_at_creation() {
        const P62: i64 = 1 << 62;
        let f32_tag = |dims: &[i64], tag| MemoryDesc::with_tag(dims, DataType::F32, tag);
        let f32_strides =
            |dims: &[i64], s: &[i64]| MemoryDesc::with_strides(dims, DataType::F32, Some(s));
        // Issue 30 item 1: element counts past 2^64 (tnc, ntc) and strides·dims past 2^64.
        assert!(is_invalid(f32_tag(&[P62 + 1, 4, 1], 4)));
        assert!(is_invalid(f32_tag(&[P62 + 1, 4, 1], 16)));
        assert!(is_invalid(f32_strides(&[2, 1, 1], &[(1 << 61) + 1, 1, 1])));
        // Elements that fit, bytes that do not (2^63 bytes: past isize and i64).
        assert!(is_invalid(f32_tag(&[1 << 61], 2)));
        assert!(is_invalid(f32_tag(&[1 << 31, 1 << 31], 3)));
        assert!(is_invalid(f32_strides(&[2], &[1 << 60])));
        let u8s = MemoryDesc::with_tag(&[i64::MAX], DataType::U8, 2).unwrap();
        assert_eq!(u8s.size_bytes(), i64::MAX as usize);
        // Empty tensors: no bytes, but their strides must fit.
        let empty = f32_tag(&[0, 1 << 20, 1 << 20], 4).unwrap();
        assert_eq!((empty.nelems(), empty.size_bytes()), (0, 0));
        assert!(is_invalid(f32_tag(&[0, 1 << 40, 1 << 40], 4)));
        // A dim of 1 counts one element whatever its stride (oneDNN's get_size).
        let one = f32_strides(&[1, 3], &[P62, 1]).unwrap();
        assert_eq!((one.size_bytes(), one.extent_bytes()), (12, 12));
        // Packed layouts: 2^58 layers of 4 gates fit as ldigo, not padded to 32 units.
        assert!(f32_tag(&[1 << 58, 1, 1, 4, 1], 6).is_ok());
        assert!(is_invalid(MemoryDesc::packed(
            &[1 << 58, 1, 1, 4, 1],
            DataType::F32,
            2
        )));
        assert!(is_invalid(MemoryDesc::packed_transposed(
            &[1 << 58, 1, 1, 4, 1],
            DataType::F32
        )));
    }

    #[test]
    fn sub_memory_offsets_are_checked() {
        let parent = MemoryDesc::with_tag(&[4, 4], DataType::F32, 3).unwrap();
        // offset + dims wraps below the parent's dim
        assert!(is_invalid(parent.submemory(&[2, 2], &[i64::MAX, 0])));
        assert!(is_invalid(parent.submemory(&[2, 2], &[i64::MAX - 1, 1])));
        assert!(is_invalid(parent.submemory(&[i64::MAX, 2], &[2, 0])));
        // A window at the end: get_size omits the offset, a library buffer covers it.
        let tnc = MemoryDesc::with_tag(&[5, 3, 4], DataType::F32, 4).unwrap();
        let sub = tnc.submemory(&[2, 3, 4], &[3, 0, 0]).unwrap();
        assert_eq!(
            (sub.size_bytes(), sub.extent_bytes(), sub.buffer_bytes()),
            (96, 240, 240)
        );
        // Offsets of a view whose strides reach past i64 (dims of 1 are free to).
        let wide = MemoryDesc::with_strides(&[1, 2], DataType::U8, Some(&[i64::MAX, 1])).unwrap();
        assert!(wide.submemory(&[0, 2], &[1, 0]).is_ok());
        let sub = wide.submemory(&[1, 1], &[0, 1]).unwrap();
        assert!(is_invalid(sub.submemory(&[0, 1], &[1, 0])));
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
