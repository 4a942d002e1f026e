//! Plain format tags (`dnnl_format_tag_t`): oneDNN's numeric value ↔ the order of dimensions
//! from outermost to innermost, written as letters (`"abdec"`: dims a, b, d, e, c, c innermost).

use crate::error::{Error, Result};
use crate::size;

/// `dnnl_format_tag_undef`.
pub const TAG_UNDEF: i32 = 0;
/// `dnnl_format_tag_any`.
pub const TAG_ANY: i32 = 1;

/// Every plain tag oneDNN defines up to 6-D, with its numeric value.
pub const PLAIN_TAGS: &[(i32, &str)] = &[
    (2, "a"),
    (3, "ab"),
    (4, "abc"),
    (5, "abcd"),
    (6, "abcde"),
    (7, "abcdef"),
    (14, "ba"),
    (15, "acb"),
    (16, "bac"),
    (17, "bca"),
    (18, "cab"),
    (19, "cba"),
    (20, "abdc"),
    (21, "acbd"),
    (22, "acdb"),
    (23, "adbc"),
    (24, "adcb"),
    (25, "bacd"),
    (26, "bcda"),
    (27, "cdab"),
    (28, "cdba"),
    (29, "dcab"),
    (30, "abced"),
    (31, "abdec"),
    (32, "acbde"),
    (33, "acdeb"),
    (34, "adecb"),
    (35, "bacde"),
    (36, "bcdea"),
    (37, "cdeab"),
    (38, "cdeba"),
    (39, "decab"),
    (40, "abcdfe"),
    (41, "abdefc"),
    (42, "abdfce"),
    (43, "acbdef"),
    (44, "adefcb"),
    (45, "defcab"),
];

/// oneDNN's RNN names of plain tags, with their letters (`ldigo` = `abcde`).
pub const RNN_TAG_ALIASES: [(&str, &str); 8] = [
    ("tnc", "abc"),
    ("ntc", "bac"),
    ("ldnc", "abcd"),
    ("ldgo", "abcd"),
    ("ldio", "abcd"),
    ("ldoi", "abdc"),
    ("ldigo", "abcde"),
    ("ldgoi", "abdec"),
];

/// The letters of a plain tag value, or `None` if the value is not a plain tag we know.
pub fn tag_letters(tag: i32) -> Option<&'static str> {
    PLAIN_TAGS.iter().find(|(v, _)| *v == tag).map(|(_, s)| *s)
}

/// oneDNN's name of a tag value (`"abc"`, `"any"`, `"undef"`), for `dnnl_fmt_tag2str`.
pub fn tag_name(tag: i32) -> Option<&'static str> {
    match tag {
        TAG_UNDEF => Some("undef"),
        TAG_ANY => Some("any"),
        _ => tag_letters(tag),
    }
}

/// Dense strides (in elements) for `dims` laid out in the order given by a plain tag;
/// `invalid_arguments` when a stride does not fit in a `dnnl_dim_t`.
///
/// A zero-sized dimension counts as 1 when computing the strides of the others, as oneDNN does.
pub fn strides_for_tag(dims: &[i64], tag: i32) -> Result<Vec<i64>> {
    let letters = tag_letters(tag)
        .ok_or_else(|| Error::InvalidArguments(format!("unknown or non-plain format tag {tag}")))?;
    if letters.len() != dims.len() {
        return Err(Error::InvalidArguments(format!(
            "format tag {letters} has {} dims but the descriptor has {}",
            letters.len(),
            dims.len()
        )));
    }
    dense_strides_in_order(dims, letters.bytes().rev().map(|c| (c - b'a') as usize))
}

/// Row-major dense strides (tag `a`, `ab`, `abc`, ... for `dims.len()` dims).
pub fn dense_strides(dims: &[i64]) -> Result<Vec<i64>> {
    dense_strides_in_order(dims, (0..dims.len()).rev())
}

/// Names the strides of `dims` in size errors (formatted only when one occurs).
struct StridesOf<'a>(&'a [i64]);

impl std::fmt::Display for StridesOf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "strides of dims {:?}", self.0)
    }
}

/// Dense strides with the dims visited from innermost to outermost in `order`.
fn dense_strides_in_order(dims: &[i64], order: impl Iterator<Item = usize>) -> Result<Vec<i64>> {
    let what = StridesOf(dims);
    let mut strides = vec![0i64; dims.len()];
    // The product past the outermost dim is never stored: only a stored stride must fit.
    let mut next = Ok(1usize);
    for d in order {
        let stride = next?;
        strides[d] = size::to_dim(&what, stride)?;
        next = size::product(&what, &[stride, size::from_dim(&what, dims[d])?.max(1)]);
    }
    Ok(strides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rnn_tags_give_oned_nn_strides() {
        // ntc = bac over logical (T, N, C): N outermost, then T, C innermost.
        assert_eq!(strides_for_tag(&[5, 3, 4], 16).unwrap(), vec![4, 20, 1]);
        // ldgoi = abdec over logical (L, D, I, G, O): stored L, D, G, O, I.
        assert_eq!(
            strides_for_tag(&[1, 1, 3, 4, 2], 31).unwrap(),
            vec![24, 24, 1, 6, 3]
        );
        assert_eq!(dense_strides(&[2, 0, 3]).unwrap(), vec![3, 3, 1]);
        assert!(strides_for_tag(&[2, 3], 4).is_err());
        // A stored stride past i64 (zero dims count as 1); the product past the outermost dim
        // is never stored.
        assert!(strides_for_tag(&[0, 1 << 40, 1 << 40], 4).is_err());
        assert!(strides_for_tag(&[0, 1 << 40, 1 << 40], 17).is_ok());
        assert_eq!(
            dense_strides(&[1 << 40, 1 << 40]).unwrap(),
            vec![1 << 40, 1]
        );
        assert!(strides_for_tag(&[2, 3], 9999).is_err());
    }
}
