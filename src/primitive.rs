//! Primitive descriptors and primitives: the objects behind `dnnl_primitive_desc_t` and
//! `dnnl_primitive_t`, for the two primitive kinds this library implements (RNN, reorder).

use crate::attr::Attr;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::memory::{Memory, MemoryDesc, Reorder};
use crate::rnn::{RnnPd, RnnPrimitive};
use crate::types::{PrimitiveKind, PropKind};
use crate::{args, ensure_args};

/// Which family of memory descriptors a `dnnl_primitive_desc_query_md` call asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MdQuery {
    /// `dnnl_query_src_md`.
    Src,
    /// `dnnl_query_diff_src_md`.
    DiffSrc,
    /// `dnnl_query_weights_md`.
    Weights,
    /// `dnnl_query_diff_weights_md`.
    DiffWeights,
    /// `dnnl_query_dst_md`.
    Dst,
    /// `dnnl_query_diff_dst_md`.
    DiffDst,
    /// `dnnl_query_workspace_md`.
    Workspace,
    /// `dnnl_query_scratchpad_md`.
    Scratchpad,
}

/// The memory objects passed to one execution, by `DNNL_ARG_*`.
pub struct ExecArgs<'a> {
    list: Vec<(i32, &'a Memory)>,
}

impl<'a> ExecArgs<'a> {
    /// Builds the argument map; an argument given twice is an error, as in oneDNN.
    pub fn new(list: Vec<(i32, &'a Memory)>) -> Result<Self> {
        for (i, (a, _)) in list.iter().enumerate() {
            ensure_args!(
                !list[..i].iter().any(|(b, _)| b == a),
                "execution argument {} given twice",
                args::name(*a, None)
            );
        }
        Ok(Self { list })
    }

    /// The memory for an argument, if given and not empty.
    pub fn get(&self, arg: i32) -> Option<&'a Memory> {
        self.list
            .iter()
            .find(|(a, m)| *a == arg && !m.is_empty())
            .map(|(_, m)| *m)
    }

    /// The memory for an argument of a `kind` primitive with descriptor `md`; `None` when the
    /// argument is absent or empty. As in oneDNN, `md` decides how the buffer is read and the
    /// memory supplies the handle (a primitive made on a sub-memory view runs on the whole
    /// memory); a memory whose own descriptor spans fewer bytes than `md` reads is refused.
    pub fn get_checked(
        &self,
        arg: i32,
        md: &MemoryDesc,
        kind: PrimitiveKind,
    ) -> Result<Option<&'a Memory>> {
        let aliases = match kind {
            PrimitiveKind::Rnn => args::rnn_tag_aliases(arg),
            _ => &[],
        };
        match self.get(arg) {
            None => Ok(None),
            Some(m) if m.desc() == md => Ok(Some(m)),
            Some(m) => {
                m.check_spans(md, &args::name(arg, Some(kind)), aliases)?;
                Ok(Some(m))
            }
        }
    }

    /// Like [`get_checked`](Self::get_checked) but the argument must be present.
    pub fn require(&self, arg: i32, md: &MemoryDesc, kind: PrimitiveKind) -> Result<&'a Memory> {
        self.get_checked(arg, md, kind)?.ok_or_else(|| {
            Error::InvalidArguments(format!(
                "execution argument {} is missing",
                args::name(arg, Some(kind))
            ))
        })
    }
}

/// A reorder primitive descriptor.
#[derive(Clone, Debug)]
pub struct ReorderPd {
    reorder: Reorder,
    engine: Engine,
    attr: Attr,
}

/// A primitive descriptor.
#[derive(Clone)]
pub enum PrimitiveDesc {
    /// Any RNN cell, forward or backward.
    Rnn(Box<RnnPd>),
    /// A reorder.
    Reorder(Box<ReorderPd>),
}

impl PrimitiveDesc {
    /// A reorder pd from `src` to `dst`.
    pub fn reorder(
        src: &MemoryDesc,
        dst: &MemoryDesc,
        engine: Engine,
        attr: &Attr,
    ) -> Result<Self> {
        Ok(Self::Reorder(Box::new(ReorderPd {
            reorder: Reorder::with_attr(src, dst, attr)?,
            engine,
            attr: attr.clone(),
        })))
    }

    /// The primitive kind.
    pub fn kind(&self) -> PrimitiveKind {
        match self {
            Self::Rnn(_) => PrimitiveKind::Rnn,
            Self::Reorder(_) => PrimitiveKind::Reorder,
        }
    }

    /// The engine.
    pub fn engine(&self) -> Engine {
        match self {
            Self::Rnn(p) => p.engine(),
            Self::Reorder(r) => r.engine,
        }
    }

    /// The attributes the pd was created with.
    pub fn attr(&self) -> &Attr {
        match self {
            Self::Rnn(p) => p.attr(),
            Self::Reorder(r) => &r.attr,
        }
    }

    /// The propagation kind (`None` for reorders, which have none).
    pub fn prop_kind(&self) -> Option<PropKind> {
        match self {
            Self::Rnn(p) => Some(p.desc().prop),
            Self::Reorder(_) => None,
        }
    }

    /// The implementation name (`impl_info_str`).
    pub fn impl_info(&self) -> &str {
        match self {
            Self::Rnn(p) => p.impl_info(),
            Self::Reorder(_) => "oxidnn:simple:any",
        }
    }

    /// Number of input tensors.
    pub fn num_inputs(&self) -> usize {
        match self {
            Self::Rnn(p) => p.num_inputs(),
            Self::Reorder(_) => 1,
        }
    }

    /// Number of output tensors.
    pub fn num_outputs(&self) -> usize {
        match self {
            Self::Rnn(p) => p.num_outputs(),
            Self::Reorder(_) => 1,
        }
    }

    /// Bytes the primitive keeps besides user memory (packed weights caches etc.).
    pub fn memory_consumption(&self) -> usize {
        match self {
            Self::Rnn(p) => p.memory_consumption(),
            Self::Reorder(_) => 0,
        }
    }

    /// The descriptor of an execution argument (`dnnl_query_exec_arg_md`); `None` for
    /// arguments the primitive does not take.
    pub fn arg_md(&self, arg: i32) -> Option<&MemoryDesc> {
        match self {
            Self::Rnn(p) => p.arg_md(arg),
            Self::Reorder(r) => match arg {
                args::FROM => Some(r.reorder.src()),
                args::TO => Some(r.reorder.dst()),
                _ => None,
            },
        }
    }

    /// The execution argument behind a generic md query and index, if any.
    pub fn arg_for_query(&self, q: MdQuery, index: usize) -> Option<i32> {
        match self {
            Self::Rnn(p) => p.arg_for_query(q, index),
            Self::Reorder(_) => match (q, index) {
                (MdQuery::Src, 0) => Some(args::FROM),
                (MdQuery::Dst, 0) => Some(args::TO),
                (MdQuery::Scratchpad, 0) => Some(args::SCRATCHPAD),
                _ => None,
            },
        }
    }

    /// Moves to the next implementation: this library has one per problem.
    pub fn next_impl(&mut self) -> Result<()> {
        Err(Error::LastImplReached)
    }
}

enum Impl {
    Rnn(RnnPrimitive),
    Reorder,
}

/// A primitive, ready to execute.
pub struct Primitive {
    pd: PrimitiveDesc,
    imp: Impl,
}

impl Primitive {
    /// Creates the primitive (packs weights given in plain layouts, sizes scratch buffers).
    pub fn new(pd: &PrimitiveDesc) -> Result<Self> {
        let imp = match pd {
            PrimitiveDesc::Rnn(p) => Impl::Rnn(RnnPrimitive::new(p)?),
            PrimitiveDesc::Reorder(_) => Impl::Reorder,
        };
        Ok(Self {
            pd: pd.clone(),
            imp,
        })
    }

    /// The descriptor the primitive was created from.
    pub fn pd(&self) -> &PrimitiveDesc {
        &self.pd
    }

    /// Runs the primitive on the given arguments, synchronously.
    pub fn execute(&self, args: &ExecArgs) -> Result<()> {
        match (&self.imp, &self.pd) {
            (Impl::Rnn(prim), PrimitiveDesc::Rnn(pd)) => prim.execute(pd, args),
            (Impl::Reorder, PrimitiveDesc::Reorder(r)) => {
                let from = args.require(args::FROM, r.reorder.src(), PrimitiveKind::Reorder)?;
                let to = args.require(args::TO, r.reorder.dst(), PrimitiveKind::Reorder)?;
                r.reorder.execute(from, to)
            }
            _ => Err(Error::Runtime(
                "primitive and descriptor kinds differ".into(),
            )),
        }
    }
}
