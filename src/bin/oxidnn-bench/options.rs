//! The RNN driver options of benchdnn (SYNTAX.md §3): their values, their code defaults, and
//! [`Settings`], the sticky list of values of every option that a descriptor is crossed with.

use oxidnn::memory::tag::{PLAIN_TAGS, RNN_TAG_ALIASES, TAG_ANY};

/// Propagation kind (`--prop`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prop {
    /// Forward inference.
    FwdI,
    /// Forward training (with a workspace).
    FwdD,
    /// Backward data only.
    BwdD,
    /// Backward data and weights.
    BwdDw,
}

/// Cell kind (`--alg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    /// Vanilla RNN.
    VanillaRnn,
    /// LSTM.
    VanillaLstm,
    /// GRU.
    VanillaGru,
    /// Linear-before-reset GRU.
    LbrGru,
    /// AUGRU.
    VanillaAugru,
    /// Linear-before-reset AUGRU.
    LbrAugru,
}

/// Direction (`--direction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Left to right.
    Left2Right,
    /// Right to left.
    Right2Left,
    /// Both, concatenated.
    Concat,
    /// Both, summed.
    Sum,
}

/// Vanilla RNN activation (`--activation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// ReLU with benchdnn's negative slope.
    Relu,
    /// Logistic sigmoid.
    Logistic,
    /// tanh.
    Tanh,
    /// None (the other cells).
    Undef,
}

/// A value with its command-line spelling.
pub trait Named: Sized + Copy + PartialEq + 'static {
    /// Every value with its spelling.
    const NAMES: &'static [(Self, &'static str)];
    /// The spelling.
    fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(v, _)| *v == self)
            .expect("named")
            .1
    }
    /// The value of a spelling.
    fn from_name(s: &str) -> Option<Self> {
        Self::NAMES.iter().find(|(_, n)| *n == s).map(|(v, _)| *v)
    }
}

impl Named for Prop {
    const NAMES: &'static [(Self, &'static str)] = &[
        (Prop::FwdI, "FWD_I"),
        (Prop::FwdD, "FWD_D"),
        (Prop::BwdD, "BWD_D"),
        (Prop::BwdDw, "BWD_DW"),
    ];
}

impl Named for Alg {
    const NAMES: &'static [(Self, &'static str)] = &[
        (Alg::VanillaRnn, "VANILLA_RNN"),
        (Alg::VanillaLstm, "VANILLA_LSTM"),
        (Alg::VanillaGru, "VANILLA_GRU"),
        (Alg::LbrGru, "LBR_GRU"),
        (Alg::VanillaAugru, "VANILLA_AUGRU"),
        (Alg::LbrAugru, "LBR_AUGRU"),
    ];
}

impl Named for Dir {
    const NAMES: &'static [(Self, &'static str)] = &[
        (Dir::Left2Right, "left2right"),
        (Dir::Right2Left, "right2left"),
        (Dir::Concat, "concat"),
        (Dir::Sum, "sum"),
    ];
}

impl Named for Act {
    const NAMES: &'static [(Self, &'static str)] = &[
        (Act::Relu, "RELU"),
        (Act::Logistic, "LOGISTIC"),
        (Act::Tanh, "TANH"),
        (Act::Undef, "UNDEF"),
    ];
}

impl Named for bool {
    const NAMES: &'static [(Self, &'static str)] = &[(true, "true"), (false, "false")];
}

/// Every data-type configuration benchdnn's RNN driver knows (SYNTAX.md §3.1).
pub const CFGS: [&str; 13] = [
    "f32",
    "bf16f32",
    "bf16",
    "f16f32",
    "f16",
    "u8u8u8u8",
    "u8u8u8f32",
    "f32u8f32u8",
    "f32u8f32f32",
    "s8s8s8s8",
    "s8s8s8f32",
    "f32s8f32s8",
    "f32s8f32f32",
];

/// Values of `--scaling` / `--scaling-proj`.
const SCALINGS: [&str; 2] = ["common", "per_oc"];
/// Modes of `--attr-fpmath`.
const FPMATH: [&str; 5] = ["strict", "bf16", "f16", "tf32", "any"];
/// Modes of `--attr-scratchpad`.
const SCRATCHPAD: [&str; 2] = ["library", "user"];

/// The `dnnl_format_tag_t` value of a tag name (`any`, letters such as `abdec`, or an RNN alias).
pub fn tag_value(name: &str) -> Option<i32> {
    if name == "any" {
        return Some(TAG_ANY);
    }
    let letters = RNN_TAG_ALIASES
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name, |(_, l)| l);
    PLAIN_TAGS
        .iter()
        .find(|(_, l)| *l == letters)
        .map(|(v, _)| *v)
}

/// Memory layouts of `src_layer`, the weights and `dst_layer` (`--tag=SRC:WEI:DST`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tags {
    /// `src_layer` tag name.
    pub src: String,
    /// Weights tag name.
    pub wei: String,
    /// `dst_layer` tag name.
    pub dst: String,
}

impl Tags {
    fn parse(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(':').collect();
        let parts = match parts.len() {
            1 => vec![parts[0]; 3],
            3 => parts,
            _ => return Err(format!("tag '{s}' is neither TAG nor SRC:WEI:DST")),
        };
        for p in &parts {
            tag_value(p).ok_or_else(|| format!("unknown format tag '{p}'"))?;
        }
        Ok(Self {
            src: parts[0].into(),
            wei: parts[1].into(),
            dst: parts[2].into(),
        })
    }

    fn any() -> Self {
        Self::parse("any").expect("any is a tag")
    }
}

impl std::fmt::Display for Tags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.src, self.wei, self.dst)
    }
}

/// `--attr-fpmath` value: mode and whether it applies to integer primitives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fpmath {
    /// Mode name (`strict`, `bf16`, ...).
    pub mode: String,
    /// `:true` given.
    pub apply_to_int: bool,
}

impl Fpmath {
    fn parse(s: &str) -> Result<Self, String> {
        let (mode, apply) = s.split_once(':').unwrap_or((s, "false"));
        if !FPMATH.contains(&mode) {
            return Err(format!("unknown fpmath mode '{mode}'"));
        }
        Ok(Self {
            mode: mode.into(),
            apply_to_int: bool::from_name(apply)
                .ok_or_else(|| format!("fpmath '{s}': expected :true or :false"))?,
        })
    }

    fn strict() -> Self {
        Self::parse("strict").expect("strict")
    }
}

/// Every driver option, each a list of values (sticky until changed or `--reset`).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// `--prop`.
    pub prop: Vec<Prop>,
    /// `--cfg`.
    pub cfg: Vec<String>,
    /// `--tag`.
    pub tag: Vec<Tags>,
    /// `--alg`.
    pub alg: Vec<Alg>,
    /// `--with-peephole`.
    pub with_peephole: Vec<bool>,
    /// `--with-projection`.
    pub with_projection: Vec<bool>,
    /// `--scaling`.
    pub scaling: Vec<String>,
    /// `--scaling-proj`.
    pub scaling_proj: Vec<String>,
    /// `--direction`.
    pub direction: Vec<Dir>,
    /// `--activation`.
    pub activation: Vec<Act>,
    /// `--skip-nonlinear`.
    pub skip_nonlinear: Vec<bool>,
    /// `--trivial-strides`.
    pub trivial_strides: Vec<bool>,
    /// `--flags` (`""` or `"O"`).
    pub flags: Vec<String>,
    /// `--l` (0 keeps the descriptor's).
    pub l: Vec<usize>,
    /// `--t`.
    pub t: Vec<usize>,
    /// `--mb`.
    pub mb: Vec<usize>,
    /// `--attr-fpmath`.
    pub fpmath: Vec<Fpmath>,
    /// `--attr-scratchpad`.
    pub scratchpad: Vec<String>,
    /// `--attr-deterministic`.
    pub deterministic: Vec<bool>,
}

impl Default for Settings {
    /// benchdnn's code defaults (`settings_t`).
    fn default() -> Self {
        Self {
            prop: vec![Prop::FwdI],
            cfg: vec!["f32".into()],
            tag: vec![Tags::any()],
            alg: vec![Alg::VanillaRnn],
            with_peephole: vec![false],
            with_projection: vec![false],
            scaling: vec!["common".into()],
            scaling_proj: vec!["common".into()],
            direction: vec![Dir::Left2Right],
            activation: vec![Act::Relu],
            skip_nonlinear: vec![false],
            trivial_strides: vec![true],
            flags: vec![String::new()],
            l: vec![0],
            t: vec![0],
            mb: vec![0],
            fpmath: vec![Fpmath::strict()],
            scratchpad: vec!["library".into()],
            deterministic: vec![false],
        }
    }
}

/// Parses a comma-separated list with `item`.
fn list<T>(value: &str, item: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    value.split(',').map(item).collect()
}

fn named<T: Named>(what: &'static str) -> impl Fn(&str) -> Result<T, String> {
    move |s| T::from_name(s).ok_or_else(|| format!("unknown {what} '{s}'"))
}

fn one_of(
    what: &'static str,
    allowed: &'static [&'static str],
) -> impl Fn(&str) -> Result<String, String> {
    move |s| {
        if allowed.contains(&s) {
            Ok(s.to_string())
        } else {
            Err(format!(
                "unknown {what} '{s}' (one of {})",
                allowed.join(", ")
            ))
        }
    }
}

fn count(s: &str) -> Result<usize, String> {
    s.parse()
        .map_err(|_| format!("'{s}' is not a non-negative integer"))
}

/// Sets `field` to the list in `value`, or back to its default when `value` is empty.
fn set<T: Clone>(
    field: &mut Vec<T>,
    default: &[T],
    value: &str,
    item: impl Fn(&str) -> Result<T, String>,
) -> Result<(), String> {
    *field = if value.is_empty() {
        default.to_vec()
    } else {
        list(value, item)?
    };
    Ok(())
}

impl Settings {
    /// Applies one driver option (`name` without the leading `--`). `Ok(false)` when `name` is
    /// not a driver option.
    pub fn apply(&mut self, name: &str, value: &str) -> Result<bool, String> {
        let d = Settings::default();
        match name {
            "prop" => set(&mut self.prop, &d.prop, value, named("prop"))?,
            "cfg" => set(&mut self.cfg, &d.cfg, value, one_of("cfg", &CFGS))?,
            "tag" => set(&mut self.tag, &d.tag, value, Tags::parse)?,
            "alg" => set(&mut self.alg, &d.alg, value, named("alg"))?,
            "with-peephole" => set(
                &mut self.with_peephole,
                &d.with_peephole,
                value,
                named("bool"),
            )?,
            "with-projection" => set(
                &mut self.with_projection,
                &d.with_projection,
                value,
                named("bool"),
            )?,
            "scaling" => set(
                &mut self.scaling,
                &d.scaling,
                value,
                one_of("scaling", &SCALINGS),
            )?,
            "scaling-proj" => set(
                &mut self.scaling_proj,
                &d.scaling_proj,
                value,
                one_of("scaling", &SCALINGS),
            )?,
            "direction" => set(&mut self.direction, &d.direction, value, named("direction"))?,
            "activation" => set(
                &mut self.activation,
                &d.activation,
                value,
                named("activation"),
            )?,
            "skip-nonlinear" => set(
                &mut self.skip_nonlinear,
                &d.skip_nonlinear,
                value,
                named("bool"),
            )?,
            "trivial-strides" => set(
                &mut self.trivial_strides,
                &d.trivial_strides,
                value,
                named("bool"),
            )?,
            // `--flags=,O` is a list whose first item is "no flags".
            "flags" => set(
                &mut self.flags,
                &d.flags,
                value,
                one_of("flags", &["", "O"]),
            )?,
            "l" => set(&mut self.l, &d.l, value, count)?,
            "t" => set(&mut self.t, &d.t, value, count)?,
            "mb" => set(&mut self.mb, &d.mb, value, count)?,
            "attr-fpmath" => set(&mut self.fpmath, &d.fpmath, value, Fpmath::parse)?,
            "attr-scratchpad" => set(
                &mut self.scratchpad,
                &d.scratchpad,
                value,
                one_of("scratchpad mode", &SCRATCHPAD),
            )?,
            "attr-deterministic" => set(
                &mut self.deterministic,
                &d.deterministic,
                value,
                named("bool"),
            )?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_empty_values_and_unknown_values() {
        let mut s = Settings::default();
        assert!(s.apply("direction", "left2right,concat").unwrap());
        assert_eq!(s.direction, [Dir::Left2Right, Dir::Concat]);
        assert!(s.apply("flags", ",O").unwrap());
        assert_eq!(s.flags, ["", "O"]);
        assert!(s.apply("trivial-strides", "false").unwrap());
        s.apply("trivial-strides", "").unwrap();
        assert_eq!(s.trivial_strides, [true]);
        s.apply("tag", "ntc:any:tnc").unwrap();
        assert_eq!(s.tag[0].to_string(), "ntc:any:tnc");
        s.apply("tag", "abc").unwrap();
        assert_eq!(s.tag[0].to_string(), "abc:abc:abc");
        s.apply("attr-fpmath", "bf16:true").unwrap();
        assert!(s.fpmath[0].apply_to_int);
        assert!(s.apply("direction", "up").is_err());
        assert!(s.apply("cfg", "f64").is_err());
        assert!(s.apply("tag", "abc:any").is_err());
        assert!(s.apply("tag", "xyz").is_err());
        assert!(!s.apply("no-such-option", "1").unwrap());
    }

    #[test]
    fn tag_names_map_to_onednn_values() {
        assert_eq!(tag_value("any"), Some(1));
        assert_eq!(tag_value("tnc"), Some(4));
        assert_eq!(tag_value("abc"), Some(4));
        assert_eq!(tag_value("ntc"), Some(16));
        assert_eq!(tag_value("ldigo"), Some(6));
        assert_eq!(tag_value("abdec"), Some(31));
        assert_eq!(tag_value("nope"), None);
    }
}
