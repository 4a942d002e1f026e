//! `.npy` files ↔ [`Tensor`] (via the `npyz` crate), for `oxidnn-run` and the tests.

use std::io::{Read, Write};
use std::path::Path;

use npyz::{DType, Order, WriterBuilder};

use super::tensor::{ElementType, Tensor};
use crate::error::{Error, Result};

fn io_err(what: impl std::fmt::Display, e: impl std::fmt::Display) -> Error {
    Error::InvalidArguments(format!("{what}: {e}"))
}

/// A read failure; data that ends too early is called truncated.
fn read_err(what: &str, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        io_err(what, "truncated .npy data (the file ends early)")
    } else {
        io_err(what, e)
    }
}

/// Reads a C-order `.npy` array of a supported element type (`f4`, `f2`, `i4`, `i8`, `u1`,
/// `i1`, `b1`, either byte order).
pub fn read_npy(reader: impl Read, what: &str) -> Result<Tensor> {
    let file = npyz::NpyFile::new(reader).map_err(|e| read_err(what, e))?;
    if file.order() == Order::Fortran {
        return Err(io_err(what, "Fortran-order arrays are not supported"));
    }
    let shape: Vec<usize> = file.shape().iter().map(|&d| d as usize).collect();
    let DType::Plain(ts) = file.dtype() else {
        return Err(io_err(what, "structured or array dtypes are not supported"));
    };
    let code = ts.to_string();
    let et = match code.trim_start_matches(['<', '>', '|', '=']) {
        "f4" => ElementType::F32,
        "f2" => ElementType::F16,
        "i4" => ElementType::I32,
        "i8" => ElementType::I64,
        "u1" => ElementType::U8,
        "i1" => ElementType::I8,
        "b1" => ElementType::Boolean,
        _ => return Err(io_err(what, format!("dtype '{code}' is not supported"))),
    };
    crate::dispatch_type!(et, T => Tensor::from_vec(&shape, file.into_vec::<T>().map_err(|e| read_err(what, e))?))
}

/// Reads a `.npy` file.
pub fn read_npy_file(path: &Path) -> Result<Tensor> {
    let what = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| io_err(&what, e))?;
    read_npy(std::io::BufReader::new(f), &what)
}

/// Writes a tensor as a little-endian C-order `.npy` array.
pub fn write_npy(writer: impl Write, t: &Tensor) -> Result<()> {
    let shape: Vec<u64> = t.shape().iter().map(|&d| d as u64).collect();
    crate::with_tensor!(t, a => {
        let mut w = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&shape)
            .writer(writer)
            .begin_nd()
            .map_err(|e| io_err("npy", e))?;
        w.extend(a.iter().copied()).map_err(|e| io_err("npy", e))?;
        w.finish().map_err(|e| io_err("npy", e))
    })
}

/// Writes a tensor to a `.npy` file.
pub fn write_npy_file(path: &Path, t: &Tensor) -> Result<()> {
    let f = std::fs::File::create(path).map_err(|e| io_err(path.display(), e))?;
    let mut w = std::io::BufWriter::new(f);
    write_npy(&mut w, t)?;
    w.flush().map_err(|e| io_err(path.display(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_type() {
        for et in ElementType::ALL {
            let t = Tensor::zeros(et, &[2, 3]);
            let mut buf = Vec::new();
            write_npy(&mut buf, &t).unwrap();
            assert_eq!(read_npy(&buf[..], "buf").unwrap(), t);
        }
        let s = Tensor::scalar(5i64);
        let mut buf = Vec::new();
        write_npy(&mut buf, &s).unwrap();
        assert_eq!(read_npy(&buf[..], "buf").unwrap(), s);
    }

    #[test]
    fn truncated_data_says_so() {
        let mut buf = Vec::new();
        write_npy(&mut buf, &Tensor::zeros(ElementType::F32, &[2, 3])).unwrap();
        // cut in the data, and in the header
        for len in [buf.len() - 1, 20] {
            assert_eq!(
                read_npy(&buf[..len], "x.npy").unwrap_err().to_string(),
                "invalid arguments: x.npy: truncated .npy data (the file ends early)"
            );
        }
    }
}
