//! Memory descriptors in messages, in oneDNN's words: `f32 [20, 2, 16] tnc`.

use super::desc::{Layout, MemoryDesc};
use super::tag::{PLAIN_TAGS, RNN_TAG_ALIASES};

/// Data type, dims and layout of `md`. A dense plain layout reads as its tag: the first of
/// `aliases` (RNN names such as `ldigo`, see [`crate::args::rnn_tag_aliases`]) with its letters,
/// else the letters (`abdec`); other strided layouts as their strides (and offset); `any`;
/// `packed (opaque)`. The zero descriptor is `zero memory descriptor`.
pub fn describe(md: &MemoryDesc, aliases: &[&str]) -> String {
    let layout = match md.layout() {
        Layout::Undef => return "zero memory descriptor".into(),
        Layout::Any => "any".into(),
        Layout::Packed(_) => "packed (opaque)".into(),
        Layout::PackedTransposed(_) => "packed transposed (opaque)".into(),
        Layout::HostScalar => "host scalar".into(),
        Layout::Strided { strides, offset0 } => {
            let tag = PLAIN_TAGS
                .iter()
                .find(|(v, letters)| letters.len() == md.ndims() && md.is_plain_tag(*v))
                .map(|(_, letters)| *letters);
            match tag {
                Some(letters) => aliases
                    .iter()
                    .find(|a| RNN_TAG_ALIASES.contains(&(**a, letters)))
                    .map_or(letters, |a| *a)
                    .to_string(),
                None if *offset0 == 0 => format!("strides {strides:?}"),
                None => format!("strides {strides:?} offset {offset0}"),
            }
        }
    };
    format!("{} {:?} {layout}", md.data_type(), md.dims())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DataType;

    #[test]
    fn layouts_read_as_onednn_names_them() {
        let tag = |dims: &[i64], tag| MemoryDesc::with_tag(dims, DataType::F32, tag).unwrap();
        let weights = ["ldigo", "ldgoi"];
        assert_eq!(
            describe(&tag(&[1, 1, 4, 4, 3], 6), &weights),
            "f32 [1, 1, 4, 4, 3] ldigo"
        );
        assert_eq!(
            describe(&tag(&[1, 1, 4, 4, 3], 31), &weights),
            "f32 [1, 1, 4, 4, 3] ldgoi"
        );
        assert_eq!(
            describe(&tag(&[1, 1, 4, 4, 3], 6), &[]),
            "f32 [1, 1, 4, 4, 3] abcde"
        );
        assert_eq!(
            describe(&tag(&[1, 1, 4, 4, 3], 30), &weights),
            "f32 [1, 1, 4, 4, 3] abced"
        );
        assert_eq!(
            describe(&tag(&[5, 2, 3], 16), &["tnc", "ntc"]),
            "f32 [5, 2, 3] ntc"
        );
        let padded = MemoryDesc::with_strides(&[5, 2, 3], DataType::F32, Some(&[16, 8, 1]));
        assert_eq!(
            describe(&padded.unwrap(), &["tnc", "ntc"]),
            "f32 [5, 2, 3] strides [16, 8, 1]"
        );
        let sub = tag(&[5, 2, 3], 4)
            .submemory(&[2, 2, 3], &[1, 0, 0])
            .unwrap();
        assert_eq!(
            describe(&sub, &["tnc"]),
            "f32 [2, 2, 3] strides [6, 3, 1] offset 6"
        );
        let packed = MemoryDesc::packed(&[1, 1, 2, 4, 3], DataType::F32, 2).unwrap();
        assert_eq!(
            describe(&packed, &weights),
            "f32 [1, 1, 2, 4, 3] packed (opaque)"
        );
        assert_eq!(describe(&MemoryDesc::zero(), &[]), "zero memory descriptor");
    }
}
