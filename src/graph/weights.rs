//! Where the Consts' bytes come from: a `.bin` in memory, or a `.bin` file read only in the
//! byte ranges the Consts name. A file must be a regular one, and its size (known before any
//! read) bounds every Const's `offset + size`: a device or a pipe (`/dev/urandom`) would
//! otherwise be read forever.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The weights of an IR.
#[derive(Debug)]
pub enum Weights<'a> {
    /// The whole `.bin` in memory.
    Memory(&'a [u8]),
    /// An open regular file of `len` bytes.
    File {
        /// The open file.
        file: File,
        /// Its size when opened.
        len: u64,
        /// Its path, for messages.
        path: PathBuf,
    },
}

impl Weights<'_> {
    /// Opens a `.bin` file (a regular file).
    pub fn open(path: &Path) -> Result<Weights<'static>> {
        let (file, len) = open_regular_file(path)?;
        Ok(Weights::File {
            file,
            len,
            path: path.to_path_buf(),
        })
    }

    /// The size in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Weights::Memory(b) => b.len() as u64,
            Weights::File { len, .. } => *len,
        }
    }

    /// True when there are no weights.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `size` bytes at `offset`; the range must lie within [`Weights::len`] (the caller
    /// checks it, to name the layer).
    pub fn read(&self, offset: u64, size: u64) -> Result<Cow<'_, [u8]>> {
        let end = offset.checked_add(size).filter(|&e| e <= self.len());
        let Some(end) = end else {
            return Err(Error::InvalidArguments(format!(
                "bytes {offset}..+{size} are beyond the end of the weights ({} bytes)",
                self.len()
            )));
        };
        match self {
            // Within `len`, which is a slice length: both fit in usize.
            Weights::Memory(b) => Ok(Cow::Borrowed(&b[offset as usize..end as usize])),
            Weights::File { file, path, .. } => {
                let io = |e: std::io::Error| {
                    Error::InvalidArguments(format!("cannot read {}: {e}", path.display()))
                };
                let mut f = file;
                f.seek(SeekFrom::Start(offset)).map_err(io)?;
                read_exactly(f, size, path).map(Cow::Owned)
            }
        }
    }
}

/// Opens `path`, which must be a regular file, and returns it with its size.
pub fn open_regular_file(path: &Path) -> Result<(File, u64)> {
    let io =
        |e: std::io::Error| Error::InvalidArguments(format!("cannot read {}: {e}", path.display()));
    let file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(Error::InvalidArguments(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    Ok((file, meta.len()))
}

/// Reads a whole regular file (its size when opened, in a fallibly reserved buffer).
pub fn read_regular_file(path: &Path) -> Result<Vec<u8>> {
    let (file, len) = open_regular_file(path)?;
    read_exactly(&file, len, path)
}

/// Reads exactly `size` bytes from `f` into a new buffer, reserved fallibly.
fn read_exactly(f: &File, size: u64, path: &Path) -> Result<Vec<u8>> {
    let oom = || Error::OutOfMemory(format!("no memory for {size} bytes of {}", path.display()));
    let n = usize::try_from(size).map_err(|_| oom())?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(n).map_err(|_| oom())?;
    f.take(size)
        .read_to_end(&mut buf)
        .map_err(|e| Error::InvalidArguments(format!("cannot read {}: {e}", path.display())))?;
    if buf.len() != n {
        return Err(Error::InvalidArguments(format!(
            "{} ended after {} of {size} bytes (changed while loading?)",
            path.display(),
            buf.len()
        )));
    }
    Ok(buf)
}
