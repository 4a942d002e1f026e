//! How oneDNN's enumerations and integer macros (the table in `onednn_names.rs`) become Rust
//! items.
//!
//! An enumeration is an integer typedef plus one constant per enumerator, never a Rust `enum`:
//! any integer a C caller passes is then a valid Rust value, and the core validates it. The C
//! header declares the same names as a real `typedef enum` (tests/header.rs reads these
//! invocations and writes them out), so C++ sees distinct enum types, as with oneDNN.

/// `c_enum! { /// doc \n name: repr { a = 0, b = 1, } }`: `pub type name = repr;` and one
/// `pub const` per enumerator.
macro_rules! c_enum {
    ($(#[$m:meta])* $ty:ident: $repr:ty { $($name:ident = $v:expr,)* }) => {
        $(#[$m])*
        pub type $ty = $repr;
        $(
            #[doc = concat!("`", stringify!($name), "`.")]
            pub const $name: $ty = $v;
        )*
    };
}

/// `c_defines! { NAME: type = value; ... }`: one `pub const` per oneDNN integer macro.
macro_rules! c_defines {
    ($($name:ident: $ty:ty = $v:expr;)*) => {
        $(
            #[doc = concat!("`", stringify!($name), "`.")]
            pub const $name: $ty = $v;
        )*
    };
}
