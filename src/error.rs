//! Errors of the core and their mapping onto oneDNN's `dnnl_status_t` values.

/// oneDNN's status codes, with oneDNN's numeric values.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The operation succeeded.
    Success = 0,
    /// Memory could not be allocated.
    OutOfMemory = 1,
    /// An argument is invalid or inconsistent with the others.
    InvalidArguments = 2,
    /// The request is valid but not implemented.
    Unimplemented = 3,
    /// `next_impl` walked past the last implementation.
    LastImplReached = 4,
    /// Execution failed (or a panic was caught at the C boundary).
    RuntimeError = 5,
    /// The queried object does not exist (e.g. no workspace).
    NotRequired = 6,
}

/// An error of the core library. Every variant carries a human-readable reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Inconsistent or malformed arguments (`dnnl_invalid_arguments`).
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
    /// Valid, but not supported by this library (`dnnl_unimplemented`).
    #[error("unimplemented: {0}")]
    Unimplemented(String),
    /// An allocation failed (`dnnl_out_of_memory`).
    #[error("out of memory: {0}")]
    OutOfMemory(String),
    /// A failure while running (`dnnl_runtime_error`).
    #[error("runtime error: {0}")]
    Runtime(String),
    /// The requested item does not exist (`dnnl_not_required`).
    #[error("not required: {0}")]
    NotRequired(String),
    /// `next_impl` has no further implementation (`dnnl_last_impl_reached`).
    #[error("last implementation reached")]
    LastImplReached,
}

impl Error {
    /// The oneDNN status this error maps to.
    pub fn status(&self) -> Status {
        match self {
            Error::InvalidArguments(_) => Status::InvalidArguments,
            Error::Unimplemented(_) => Status::Unimplemented,
            Error::OutOfMemory(_) => Status::OutOfMemory,
            Error::Runtime(_) => Status::RuntimeError,
            Error::NotRequired(_) => Status::NotRequired,
            Error::LastImplReached => Status::LastImplReached,
        }
    }
}

/// Result type of the core library.
pub type Result<T> = std::result::Result<T, Error>;

/// Returns `Err(Error::InvalidArguments(format!(...)))` from the current function.
#[macro_export]
macro_rules! invalid {
    ($($arg:tt)*) => { return Err($crate::error::Error::InvalidArguments(format!($($arg)*))) };
}

/// Returns `Err(Error::Unimplemented(format!(...)))` from the current function.
#[macro_export]
macro_rules! unimplemented_err {
    ($($arg:tt)*) => { return Err($crate::error::Error::Unimplemented(format!($($arg)*))) };
}

/// Checks a condition; on failure returns `Error::InvalidArguments` with the message.
#[macro_export]
macro_rules! ensure_args {
    ($cond:expr, $($arg:tt)*) => { if !$cond { $crate::invalid!($($arg)*); } };
}
