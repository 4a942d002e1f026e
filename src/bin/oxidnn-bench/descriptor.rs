//! The benchdnn RNN problem descriptor (`l1t10mb32sic128slc128dhc128dic128n"name"`): sizes and a
//! free-form name, with benchdnn's defaults (SYNTAX.md §2).

use std::fmt;

/// The sizes of one RNN problem as a descriptor names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// Layers.
    pub l: usize,
    /// Time steps.
    pub t: usize,
    /// Minibatch.
    pub mb: usize,
    /// Channels of `src_iter`.
    pub sic: usize,
    /// Channels of `src_layer`.
    pub slc: usize,
    /// Hidden channels per gate.
    pub dhc: usize,
    /// Channels of `dst_iter` (differs from `dhc` only with projection).
    pub dic: usize,
    /// The name, without its quotes.
    pub name: String,
}

/// The numeric fields, longest prefixes first so `dhc`/`dic` never read as something shorter.
const FIELDS: [&str; 7] = ["mb", "sic", "slc", "dhc", "dic", "l", "t"];

impl Descriptor {
    /// Parses a descriptor token: fields in any order, `_` ignored, `n` starts the name (the rest
    /// of the token). Absent fields take benchdnn's defaults: L = T = 1, MB = 2, SLC = DHC = SIC,
    /// DIC = DHC; SIC is required.
    pub fn parse(token: &str) -> Result<Self, String> {
        let mut v: [Option<usize>; 7] = [None; 7];
        let mut name = String::new();
        let mut rest = token;
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('_') {
                rest = r;
                continue;
            }
            if let Some(r) = rest.strip_prefix('n') {
                name = r.trim_matches('"').to_string();
                break;
            }
            let Some(k) = FIELDS.iter().position(|f| rest.starts_with(f)) else {
                return Err(format!("descriptor '{token}': unexpected text at '{rest}'"));
            };
            rest = &rest[FIELDS[k].len()..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return Err(format!(
                    "descriptor '{token}': '{}' needs a number",
                    FIELDS[k]
                ));
            }
            v[k] = Some(
                rest[..digits]
                    .parse()
                    .map_err(|e| format!("descriptor '{token}': {e}"))?,
            );
            rest = &rest[digits..];
        }
        let [mb, sic, slc, dhc, dic, l, t] = v;
        let sic = match sic {
            Some(s) if s > 0 => s,
            _ => return Err(format!("descriptor '{token}': sic must be given and > 0")),
        };
        let dhc = dhc.unwrap_or(sic);
        Ok(Self {
            l: l.unwrap_or(1),
            t: t.unwrap_or(1),
            mb: mb.unwrap_or(2),
            sic,
            slc: slc.unwrap_or(sic),
            dhc,
            dic: dic.unwrap_or(dhc),
            name,
        })
    }
}

impl fmt::Display for Descriptor {
    /// The canonical form benchdnn prints: every field, then the quoted name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "l{}t{}mb{}sic{}slc{}dhc{}dic{}",
            self.l, self.t, self.mb, self.sic, self.slc, self.dhc, self.dic
        )?;
        if !self.name.is_empty() {
            write!(f, "n\"{}\"", self.name)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_sic_and_dhc() {
        let d = Descriptor::parse("l1t1mb7_sic17_dhc34_n\"tail\"").unwrap();
        assert_eq!((d.l, d.t, d.mb), (1, 1, 7));
        assert_eq!((d.sic, d.slc, d.dhc, d.dic), (17, 17, 34, 34));
        assert_eq!(d.name, "tail");
        let d = Descriptor::parse("sic16").unwrap();
        assert_eq!((d.l, d.t, d.mb, d.slc, d.dhc, d.dic), (1, 1, 2, 16, 16, 16));
        assert_eq!(d.to_string(), "l1t1mb2sic16slc16dhc16dic16");
    }

    #[test]
    fn any_order_later_field_wins_and_name_keeps_everything() {
        let d = Descriptor::parse("dic80_sic16mb3l2t5slc32dhc64mb4n\"a:b*2\"").unwrap();
        assert_eq!((d.l, d.t, d.mb), (2, 5, 4));
        assert_eq!((d.sic, d.slc, d.dhc, d.dic), (16, 32, 64, 80));
        assert_eq!(d.name, "a:b*2");
        assert_eq!(d.to_string(), "l2t5mb4sic16slc32dhc64dic80n\"a:b*2\"");
    }

    #[test]
    fn malformed_descriptors_are_errors() {
        for bad in ["l1t1", "sic0", "l1x2sic3", "sicmb2", "l1t2mb2sic"] {
            assert!(Descriptor::parse(bad).is_err(), "{bad}");
        }
    }
}
