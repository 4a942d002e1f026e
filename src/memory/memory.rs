//! Memory objects (`dnnl_memory_t`): a descriptor plus a data handle, owned or borrowed.

use super::buffer::AlignedBuf;
use super::desc::MemoryDesc;
use crate::engine::Engine;
use crate::ensure_args;
use crate::error::Result;

/// Where a memory object's data comes from.
pub enum Handle {
    /// The library allocates (`DNNL_MEMORY_ALLOCATE`).
    Allocate,
    /// No buffer yet (`DNNL_MEMORY_NONE`); set one later with `set_data_handle`.
    None,
    /// The user's buffer; it must outlive the memory object and hold `desc.size_bytes()` bytes.
    User(*mut u8),
}

/// A tensor: descriptor, engine and data pointer.
pub struct Memory {
    desc: MemoryDesc,
    engine: Engine,
    owned: Option<AlignedBuf>,
    data: *mut u8,
}

// SAFETY: the data pointer is either our own allocation or a user buffer whose sharing across
// threads the user controls, as in oneDNN; the Memory object itself holds no thread-bound state.
unsafe impl Send for Memory {}
unsafe impl Sync for Memory {}

impl Memory {
    /// Creates a memory object. A zero descriptor gives an empty object with a NULL handle.
    pub fn new(desc: &MemoryDesc, engine: Engine, handle: Handle) -> Result<Self> {
        ensure_args!(
            !desc.is_any(),
            "cannot create memory for a format_tag::any descriptor"
        );
        ensure_args!(
            !desc.is_host_scalar(),
            "unsupported format kind: a host scalar memory is made with its value \
             (dnnl_memory_create_host_scalar)"
        );
        ensure_args!(
            !desc.has_runtime_dims(),
            "cannot create memory for a descriptor with runtime dimensions or strides"
        );
        let (owned, data) = match handle {
            Handle::Allocate if desc.buffer_bytes() > 0 => {
                let buf = AlignedBuf::zeroed(desc.buffer_bytes())?;
                let p = buf.as_ptr();
                (Some(buf), p)
            }
            Handle::Allocate | Handle::None => (None, std::ptr::null_mut()),
            Handle::User(p) => (None, p),
        };
        Ok(Self {
            desc: desc.clone(),
            engine,
            owned,
            data,
        })
    }

    /// A host scalar memory holding a copy of `value` (the bytes of one element of the
    /// descriptor's data type).
    pub fn host_scalar(desc: &MemoryDesc, value: &[u8]) -> Result<Self> {
        ensure_args!(
            desc.is_host_scalar(),
            "unsupported format kind: not a host scalar memory descriptor"
        );
        let buf = AlignedBuf::zeroed(desc.size_bytes())?;
        let data = buf.as_ptr();
        // SAFETY: the buffer holds size_bytes() = one element's bytes, as many as `value`.
        unsafe { std::ptr::copy_nonoverlapping(value.as_ptr(), data, desc.size_bytes()) };
        Ok(Self {
            desc: desc.clone(),
            engine: Engine::cpu(),
            owned: Some(buf),
            data,
        })
    }

    /// The value of a host scalar memory (one element's bytes).
    pub fn host_scalar_value(&self) -> Result<&[u8]> {
        ensure_args!(
            self.desc.is_host_scalar(),
            "unsupported format kind: not a host scalar memory"
        );
        // SAFETY: a host scalar memory owns its one-element buffer.
        Ok(unsafe { std::slice::from_raw_parts(self.data, self.desc.size_bytes()) })
    }

    /// Replaces the value of a host scalar memory.
    pub fn set_host_scalar_value(&mut self, value: &[u8]) -> Result<()> {
        let n = self.host_scalar_value()?.len();
        // SAFETY: as in host_scalar_value; `value` has one element's bytes.
        unsafe { std::ptr::copy_nonoverlapping(value.as_ptr(), self.data, n) };
        Ok(())
    }

    /// Library-allocated memory for a descriptor on the CPU engine.
    pub fn allocate(desc: &MemoryDesc) -> Result<Self> {
        Self::new(desc, Engine::cpu(), Handle::Allocate)
    }

    /// The descriptor.
    pub fn desc(&self) -> &MemoryDesc {
        &self.desc
    }

    /// The engine.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The data handle (NULL when none).
    pub fn data_ptr(&self) -> *mut u8 {
        self.data
    }

    /// Replaces the data handle; a library-owned buffer is released.
    pub fn set_data_ptr(&mut self, p: *mut u8) {
        self.owned = None;
        self.data = p;
    }

    /// Checks that reading this memory's buffer through `md` — a primitive's descriptor, which
    /// decides how an argument is read (oneDNN's rule: the memory supplies the handle) — stays
    /// within the bytes the memory's own descriptor spans. `what` names the argument, `aliases`
    /// its plain layouts' names for the message.
    pub fn check_spans(&self, md: &MemoryDesc, what: &str, aliases: &[&str]) -> Result<()> {
        let (need, have) = (md.buffer_bytes(), self.desc.buffer_bytes());
        ensure_args!(
            need <= have,
            "{what}: the primitive descriptor's {} reaches {need} bytes from the data handle, \
             but the memory's descriptor, {}, spans only {have}",
            super::describe(md, aliases),
            super::describe(&self.desc, aliases)
        );
        Ok(())
    }

    /// True when the memory describes no element or has no buffer.
    pub fn is_empty(&self) -> bool {
        self.desc.nelems() == 0 || self.data.is_null()
    }

    /// The f32 contents in the order of the buffer (`extent` elements), for tests and tools.
    ///
    /// # Safety
    /// The handle must point to at least `desc.extent_bytes()` readable bytes not written
    /// concurrently, and the data type must be f32.
    pub unsafe fn as_f32_slice(&self) -> &[f32] {
        if self.data.is_null() {
            return &[];
        }
        std::slice::from_raw_parts(self.data.cast::<f32>(), self.desc.extent_bytes() / 4)
    }
}
