//! The fields a primitive line gives about its primitive descriptor, as oneDNN 3.13 forms
//! them: `cpu,<kind>,<implementation>,<prop kind>,<memory descriptors>,<attributes>,
//! <auxiliary>,<problem>`. For RNN:
//!
//! `cpu,rnn,oxidnn:packed:avx512,forward_inference,src_layer:f32::blocked:abc::f0 …,,`
//! `alg:vanilla_lstm direction:unidirectional_left2right activation:undef flags:,`
//! `l1t5mb3sic4slc5dhc4dic4`

use super::format_ms;
use super::md::{join, md_str};
use crate::args;
use crate::attr::Attr;
use crate::primitive::PrimitiveDesc;
use crate::rnn::RnnPd;
use crate::types::{CEnum, FpmathMode, ScratchpadMode};

/// The RNN tensors oneDNN lists, in its order and spelling (the c-states and the AUGRU
/// attention are not listed, as in oneDNN); backward adds the `diff_` of each.
const RNN_TENSORS: [(i32, &str); 9] = [
    (args::SRC_LAYER, "src_layer"),
    (args::SRC_ITER, "src_iter"),
    (args::WEIGHTS_LAYER, "wei_layer"),
    (args::WEIGHTS_ITER, "wei_iter"),
    (args::WEIGHTS_PEEPHOLE, "wei_peephole"),
    (args::WEIGHTS_PROJECTION, "wei_proj"),
    (args::BIAS, "bias"),
    (args::DST_LAYER, "dst_layer"),
    (args::DST_ITER, "dst_iter"),
];

/// The attributes that differ from their defaults (the fpmath mode: from strict, whatever the
/// library-wide default), space-separated, in oneDNN's spelling; per-sample sequence lengths
/// (our extension) read `attr-oxidnn-seq-lengths:true`.
pub fn attr_str(attr: &Attr) -> String {
    let mut v = Vec::new();
    if attr.scratchpad_mode == ScratchpadMode::User {
        v.push("attr-scratchpad:user".to_string());
    }
    if attr.fpmath_mode != FpmathMode::Strict {
        let to_int = if attr.fpmath_apply_to_int {
            ":true"
        } else {
            ""
        };
        v.push(format!("attr-fpmath:{}{to_int}", attr.fpmath_mode.name()));
    }
    if attr.deterministic {
        v.push("attr-deterministic:true".into());
    }
    if attr.rnn_data_qparams != (1.0, 0.0) {
        let (scale, shift) = attr.rnn_data_qparams;
        v.push(format!(
            "rnn_data_qparams:{}:{};",
            format_ms(scale.into()),
            format_ms(shift.into())
        ));
    }
    if attr.rnn_seq_lengths {
        v.push("attr-oxidnn-seq-lengths:true".into());
    }
    v.join(" ")
}

fn rnn_info(p: &RnnPd) -> String {
    let desc = p.desc();
    let prob = p.problem();
    let backward = prob.is_backward();
    let prefixes: &[(i32, &str)] = if backward {
        &[(0, ""), (args::DIFF, "diff_")]
    } else {
        &[(0, "")]
    };
    let mut mds = Vec::new();
    for &(diff, prefix) in prefixes {
        for &(arg, name) in &RNN_TENSORS {
            let arg = arg + diff;
            if let Some(md) = p.arg_md(arg).filter(|m| !m.is_zero()) {
                let from_any = desc.md(arg).is_some_and(|m| m.is_any());
                mds.push(md_str(&format!("{prefix}{name}"), md, from_any));
            }
        }
    }
    let flags = if prob.overwrites_diff_weights() {
        "O"
    } else {
        ""
    };
    format!(
        "cpu,rnn,{},{},{},{},alg:{} direction:{} activation:{} flags:{flags},\
         l{}t{}mb{}sic{}slc{}dhc{}dic{}",
        p.impl_info(),
        desc.prop.name(),
        mds.join(" "),
        attr_str(p.attr()),
        desc.cell.name(),
        desc.direction.name(),
        desc.activation.name(),
        prob.l,
        prob.t,
        prob.n,
        prob.sic,
        prob.slc,
        prob.dhc,
        prob.dic,
    )
}

/// `cpu,<kind>,<impl>,<prop>,<mds>,<attrs>,<aux>,<problem>` for `pd`.
pub fn pd_info(pd: &PrimitiveDesc) -> String {
    match pd {
        PrimitiveDesc::Rnn(p) => rnn_info(p),
        PrimitiveDesc::Reorder(_) => {
            let md = |arg, name| pd.arg_md(arg).map(|m| md_str(name, m, false));
            let (src, dst) = (
                md(args::FROM, "src").unwrap_or_default(),
                md(args::TO, "dst").unwrap_or_default(),
            );
            let dims = pd
                .arg_md(args::FROM)
                .map_or(String::new(), |m| join(m.dims()));
            format!(
                "cpu,reorder,{},undef,{src} {dst},{},,{dims}",
                pd.impl_info(),
                attr_str(pd.attr())
            )
        }
    }
}
