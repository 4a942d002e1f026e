//! One test case: a descriptor crossed with one value of every option; benchdnn's own
//! consistency checks (SYNTAX.md §2.3) and the reasons this driver skips a case.

use crate::descriptor::Descriptor;
use crate::options::{Act, Alg, Dir, Fpmath, Named, Prop, Settings, Tags};
use oxidnn::args;
use oxidnn::types::DataType;

/// A single benchdnn RNN problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Propagation kind.
    pub prop: Prop,
    /// Data-type configuration name.
    pub cfg: String,
    /// Tags of src_layer, weights, dst_layer.
    pub tag: Tags,
    /// Cell kind.
    pub alg: Alg,
    /// LSTM peephole.
    pub with_peephole: bool,
    /// LSTM projection.
    pub with_projection: bool,
    /// int8 weights scaling policy.
    pub scaling: String,
    /// int8 projection scaling policy.
    pub scaling_proj: String,
    /// Direction.
    pub direction: Dir,
    /// Vanilla RNN activation.
    pub activation: Act,
    /// Linearised activations (benchdnn's test mode).
    pub skip_nonlinear: bool,
    /// Dense tensors (`false`: padded strides).
    pub trivial_strides: bool,
    /// `"O"`: diff weights overwrite.
    pub flags: String,
    /// fpmath attribute.
    pub fpmath: Fpmath,
    /// Scratchpad mode name.
    pub scratchpad: String,
    /// Deterministic attribute.
    pub deterministic: bool,
    /// Sizes (with `--l/--t/--mb` applied).
    pub dims: Descriptor,
}

/// Why a case is not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    /// benchdnn's own consistency rules reject the problem.
    Invalid(String),
    /// Something this driver or the library does not implement.
    Unsupported(String),
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skip::Invalid(why) => write!(f, "invalid: {why}"),
            Skip::Unsupported(why) => f.write_str(why),
        }
    }
}

/// Every combination of the settings' lists for one descriptor, in benchdnn's loop order (the
/// last list varies fastest).
pub fn expand(s: &Settings, desc: &Descriptor) -> Vec<Case> {
    let sizes = [
        s.prop.len(),
        s.cfg.len(),
        s.tag.len(),
        s.alg.len(),
        s.with_peephole.len(),
        s.with_projection.len(),
        s.scaling.len(),
        s.scaling_proj.len(),
        s.direction.len(),
        s.activation.len(),
        s.skip_nonlinear.len(),
        s.trivial_strides.len(),
        s.flags.len(),
        s.l.len(),
        s.t.len(),
        s.mb.len(),
        s.fpmath.len(),
        s.scratchpad.len(),
        s.deterministic.len(),
    ];
    let total: usize = sizes.iter().product();
    (0..total)
        .map(|mut k| {
            let mut i = [0usize; 19];
            for (slot, &n) in i.iter_mut().zip(&sizes).rev() {
                *slot = k % n;
                k /= n;
            }
            let or = |v: usize, d: usize| if v == 0 { d } else { v };
            let mut dims = desc.clone();
            dims.l = or(s.l[i[13]], dims.l);
            dims.t = or(s.t[i[14]], dims.t);
            dims.mb = or(s.mb[i[15]], dims.mb);
            Case {
                prop: s.prop[i[0]],
                cfg: s.cfg[i[1]].clone(),
                tag: s.tag[i[2]].clone(),
                alg: s.alg[i[3]],
                with_peephole: s.with_peephole[i[4]],
                with_projection: s.with_projection[i[5]],
                scaling: s.scaling[i[6]].clone(),
                scaling_proj: s.scaling_proj[i[7]].clone(),
                direction: s.direction[i[8]],
                activation: s.activation[i[9]],
                skip_nonlinear: s.skip_nonlinear[i[10]],
                trivial_strides: s.trivial_strides[i[11]],
                flags: s.flags[i[12]].clone(),
                fpmath: s.fpmath[i[16]].clone(),
                scratchpad: s.scratchpad[i[17]].clone(),
                deterministic: s.deterministic[i[18]],
                dims,
            }
        })
        .collect()
}

impl Case {
    /// Gates of the cell.
    pub fn gates(&self) -> usize {
        match self.alg {
            Alg::VanillaRnn => 1,
            Alg::VanillaLstm => 4,
            _ => 3,
        }
    }

    /// True for the GRU family (GRU, LBR-GRU, AUGRU, LBR-AUGRU).
    pub fn is_gru_family(&self) -> bool {
        !matches!(self.alg, Alg::VanillaRnn | Alg::VanillaLstm)
    }

    /// True for AUGRU and LBR-AUGRU.
    pub fn is_augru(&self) -> bool {
        matches!(self.alg, Alg::VanillaAugru | Alg::LbrAugru)
    }

    /// Directions.
    pub fn d(&self) -> usize {
        match self.direction {
            Dir::Concat | Dir::Sum => 2,
            _ => 1,
        }
    }

    /// Channels of dst_layer.
    pub fn dlc(&self) -> usize {
        self.dims.dic * if self.direction == Dir::Concat { 2 } else { 1 }
    }

    /// The data type of tensor `arg` (a forward argument) in the case's cfg (SYNTAX.md §3.1;
    /// projection weights take the activations' type, the only one oneDNN accepts).
    pub fn data_type(&self, arg: i32) -> DataType {
        let (data, rest) = match self.cfg.as_str() {
            "bf16" => (DataType::Bf16, DataType::Bf16),
            "bf16f32" => (DataType::Bf16, DataType::F32),
            "f16" => (DataType::F16, DataType::F16),
            "f16f32" => (DataType::F16, DataType::F32),
            _ => (DataType::F32, DataType::F32),
        };
        match arg {
            args::WEIGHTS_PEEPHOLE => DataType::F32,
            args::SRC_ITER_C | args::DST_ITER_C | args::BIAS => rest,
            _ => data,
        }
    }

    /// The machine epsilon of the cfg's type, the unit of benchdnn's thresholds; an f32 cfg
    /// with `--attr-fpmath=bf16|tf32|any` takes bf16's (benchdnn's "bf32"), with `f16` f16's
    /// (the library may compute in those; oxidnn computes in f32, within them).
    pub fn eps(&self) -> f32 {
        let bf16 = 2f32.powi(-7);
        let f16 = 2f32.powi(-10);
        match (self.data_type(args::SRC_LAYER), self.fpmath.mode.as_str()) {
            (DataType::Bf16, _) => bf16,
            (DataType::F16, _) => f16,
            (_, "bf16" | "tf32" | "any") => bf16,
            (_, "f16") => f16,
            _ => f32::EPSILON,
        }
    }

    /// Why this case is not run, if it is not: benchdnn's consistency rules first, then what
    /// this driver does not implement (the library's own refusals come later, at creation).
    pub fn skip_reason(&self) -> Option<Skip> {
        if let Some(why) = self.invalid_reason() {
            return Some(Skip::Invalid(why.into()));
        }
        if crate::int8::Config::of(&self.cfg).is_some() {
            return crate::int8::skip_reason(self);
        }
        None
    }

    /// benchdnn's dimension and option consistency rules.
    fn invalid_reason(&self) -> Option<&'static str> {
        let d = &self.dims;
        let lstm = self.alg == Alg::VanillaLstm;
        if (self.with_peephole || self.with_projection) && !lstm {
            return Some("peephole/projection need VANILLA_LSTM");
        }
        if d.dhc != d.dic && !self.with_projection {
            return Some("dhc != dic without projection");
        }
        if d.l > 1 && d.slc != d.dic {
            return Some("L > 1 needs slc == dic");
        }
        if d.t > 1 && d.sic != d.dic {
            return Some("T > 1 needs sic == dic");
        }
        if self.is_gru_family() && d.sic != d.dic {
            return Some("GRU cells need sic == dic");
        }
        if self.is_augru() && (d.l != 1 || self.direction != Dir::Left2Right) {
            return Some("AUGRU needs L == 1 and left2right");
        }
        if self.alg == Alg::VanillaRnn && self.activation == Act::Undef {
            return Some("VANILLA_RNN needs an activation");
        }
        None
    }

    /// The options that differ from benchdnn's defaults followed by the canonical descriptor,
    /// as benchdnn's `__REPRO` line prints a case.
    pub fn repro(&self) -> String {
        let d = Settings::default();
        let mut s = String::from("--rnn");
        let mut opt = |name: &str, value: String, default: String| {
            if value != default {
                s.push_str(&format!(" --{name}={value}"));
            }
        };
        opt("prop", self.prop.name().into(), d.prop[0].name().into());
        opt("cfg", self.cfg.clone(), d.cfg[0].clone());
        opt("tag", self.tag.to_string(), d.tag[0].to_string());
        opt("alg", self.alg.name().into(), d.alg[0].name().into());
        opt(
            "direction",
            self.direction.name().into(),
            d.direction[0].name().into(),
        );
        opt(
            "activation",
            self.activation.name().into(),
            d.activation[0].name().into(),
        );
        let b = |v: bool| v.name().to_string();
        opt("with-peephole", b(self.with_peephole), b(false));
        opt("with-projection", b(self.with_projection), b(false));
        opt("skip-nonlinear", b(self.skip_nonlinear), b(false));
        opt("trivial-strides", b(self.trivial_strides), b(true));
        opt("flags", self.flags.clone(), String::new());
        opt("scaling", self.scaling.clone(), d.scaling[0].clone());
        opt(
            "scaling-proj",
            self.scaling_proj.clone(),
            d.scaling_proj[0].clone(),
        );
        let fpmath = |f: &Fpmath| {
            if f.apply_to_int {
                format!("{}:true", f.mode)
            } else {
                f.mode.clone()
            }
        };
        opt("attr-fpmath", fpmath(&self.fpmath), fpmath(&d.fpmath[0]));
        opt(
            "attr-scratchpad",
            self.scratchpad.clone(),
            d.scratchpad[0].clone(),
        );
        opt("attr-deterministic", b(self.deterministic), b(false));
        format!("{s} {}", self.dims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(opts: &[(&str, &str)]) -> Settings {
        let mut s = Settings::default();
        for (k, v) in opts {
            assert!(s.apply(k, v).unwrap(), "{k}");
        }
        s
    }

    #[test]
    fn cartesian_product_in_benchdnn_order() {
        let s = settings(&[
            ("direction", "left2right,right2left,concat,sum"),
            ("prop", "FWD_I,BWD_DW"),
            ("flags", ",O"),
            ("mb", "0,5"),
        ]);
        let desc = Descriptor::parse("l2t3mb4sic16n\"demo\"").unwrap();
        let cases = expand(&s, &desc);
        assert_eq!(cases.len(), 4 * 2 * 2 * 2);
        // prop is the outermost loop, mb the innermost.
        assert_eq!(cases[0].prop, Prop::FwdI);
        assert_eq!(cases[16].prop, Prop::BwdDw);
        assert_eq!((cases[0].dims.mb, cases[1].dims.mb), (4, 5));
        assert_eq!(cases[2].flags, "O");
        assert_eq!(cases[4].direction, Dir::Right2Left);
    }

    #[test]
    fn consistency_rules_and_skips() {
        let desc = |s: &str| Descriptor::parse(s).unwrap();
        let case = |opts: &[(&str, &str)], d: &str| expand(&settings(opts), &desc(d))[0].clone();
        let lstm = [("alg", "VANILLA_LSTM")];
        assert_eq!(case(&lstm, "l1t1sic16").skip_reason(), None);
        assert!(matches!(
            case(&lstm, "l1t2sic16dhc32").skip_reason(),
            Some(Skip::Invalid(_))
        ));
        assert!(matches!(
            case(&[("alg", "VANILLA_GRU")], "t1sic17dhc34").skip_reason(),
            Some(Skip::Invalid(_))
        ));
        assert!(matches!(
            case(&[("alg", "VANILLA_AUGRU"), ("direction", "sum")], "sic4").skip_reason(),
            Some(Skip::Invalid(_))
        ));
        assert!(matches!(
            case(&lstm, "sic16dic32").skip_reason(),
            Some(Skip::Invalid(_))
        ));
        assert_eq!(
            case(
                &[("alg", "VANILLA_LSTM"), ("with-projection", "true")],
                "sic16dic32"
            )
            .skip_reason(),
            None
        );
    }

    #[test]
    fn repro_prints_non_defaults_and_the_canonical_descriptor() {
        let s = settings(&[("alg", "VANILLA_LSTM"), ("trivial-strides", "false")]);
        let c = &expand(&s, &Descriptor::parse("t3mb4sic16n\"x\"").unwrap())[0];
        assert_eq!(
            c.repro(),
            "--rnn --alg=VANILLA_LSTM --trivial-strides=false l1t3mb4sic16slc16dhc16dic16n\"x\""
        );
    }
}
