//! Execution argument indices (`DNNL_ARG_*`), with oneDNN's values, and their names.

use crate::types::PrimitiveKind;

/// `DNNL_ARG_SRC_LAYER` (= `DNNL_ARG_SRC`, `DNNL_ARG_FROM`).
pub const SRC_LAYER: i32 = 1;
/// `DNNL_ARG_SRC_ITER`.
pub const SRC_ITER: i32 = 2;
/// `DNNL_ARG_SRC_ITER_C`.
pub const SRC_ITER_C: i32 = 3;
/// `DNNL_ARG_AUGRU_ATTENTION`.
pub const AUGRU_ATTENTION: i32 = 4;
/// `DNNL_ARG_DST_LAYER` (= `DNNL_ARG_DST`, `DNNL_ARG_TO`).
pub const DST_LAYER: i32 = 17;
/// `DNNL_ARG_DST_ITER`.
pub const DST_ITER: i32 = 18;
/// `DNNL_ARG_DST_ITER_C`.
pub const DST_ITER_C: i32 = 19;
/// `DNNL_ARG_WEIGHTS_LAYER`.
pub const WEIGHTS_LAYER: i32 = 33;
/// `DNNL_ARG_WEIGHTS_ITER`.
pub const WEIGHTS_ITER: i32 = 34;
/// `DNNL_ARG_WEIGHTS_PEEPHOLE`.
pub const WEIGHTS_PEEPHOLE: i32 = 35;
/// `DNNL_ARG_WEIGHTS_PROJECTION`.
pub const WEIGHTS_PROJECTION: i32 = 36;
/// `DNNL_ARG_BIAS`.
pub const BIAS: i32 = 41;
/// `DNNL_ARG_WORKSPACE`.
pub const WORKSPACE: i32 = 64;
/// `DNNL_ARG_SCRATCHPAD`.
pub const SCRATCHPAD: i32 = 80;
/// `OXIDNN_ARG_SEQ_LENGTHS`: an RNN's per-sample sequence lengths, `s32` `{N}` (an `oxidnn_`
/// extension, see [`rnn::seq_lengths`](crate::rnn::seq_lengths)). Bit 30: above every
/// `DNNL_ARG_*` (oneDNN's use bits up to 20, post-op arguments included), so no oneDNN
/// argument can collide with it.
pub const SEQ_LENGTHS: i32 = 1 << 30;
/// Offset of every `DNNL_ARG_DIFF_*` from its forward counterpart.
pub const DIFF: i32 = 128;
/// `DNNL_ARG_FROM` (reorder source).
pub const FROM: i32 = 1;
/// `DNNL_ARG_TO` (reorder destination).
pub const TO: i32 = 17;

/// The RNN arguments of [`name`], without their `DNNL_ARG_` prefix.
const RNN_NAMES: [(i32, &str); 14] = [
    (SRC_LAYER, "SRC_LAYER"),
    (SRC_ITER, "SRC_ITER"),
    (SRC_ITER_C, "SRC_ITER_C"),
    (AUGRU_ATTENTION, "AUGRU_ATTENTION"),
    (DST_LAYER, "DST_LAYER"),
    (DST_ITER, "DST_ITER"),
    (DST_ITER_C, "DST_ITER_C"),
    (WEIGHTS_LAYER, "WEIGHTS_LAYER"),
    (WEIGHTS_ITER, "WEIGHTS_ITER"),
    (WEIGHTS_PEEPHOLE, "WEIGHTS_PEEPHOLE"),
    (WEIGHTS_PROJECTION, "WEIGHTS_PROJECTION"),
    (BIAS, "BIAS"),
    (WORKSPACE, "WORKSPACE"),
    (SCRATCHPAD, "SCRATCHPAD"),
];

fn find_rnn(arg: i32) -> Option<String> {
    let find = |a: i32| RNN_NAMES.iter().find(|(v, _)| *v == a).map(|(_, n)| *n);
    match (find(arg), find(arg - DIFF)) {
        (Some(n), _) => Some(format!("DNNL_ARG_{n}")),
        (None, Some(n)) if arg - DIFF < WORKSPACE => Some(format!("DNNL_ARG_DIFF_{n}")),
        _ => None,
    }
}

fn find_reorder(arg: i32) -> Option<String> {
    match arg {
        FROM => Some("DNNL_ARG_FROM".into()),
        TO => Some("DNNL_ARG_TO".into()),
        SCRATCHPAD => Some("DNNL_ARG_SCRATCHPAD".into()),
        _ => None,
    }
}

/// oneDNN's name of an execution argument of a `kind` primitive, for messages:
/// `DNNL_ARG_SRC_LAYER`, `DNNL_ARG_DIFF_WEIGHTS_ITER`, `DNNL_ARG_FROM`; without a kind, its
/// names in every primitive (`DNNL_ARG_SRC_LAYER / DNNL_ARG_FROM`); `argument <value>` when the
/// value has no name.
pub fn name(arg: i32, kind: Option<PrimitiveKind>) -> String {
    let names = match kind {
        Some(PrimitiveKind::Rnn) => vec![find_rnn(arg)],
        Some(PrimitiveKind::Reorder) => vec![find_reorder(arg)],
        _ => vec![find_rnn(arg), find_reorder(arg)],
    };
    let mut names: Vec<String> = names.into_iter().flatten().collect();
    names.dedup();
    if names.is_empty() {
        format!("argument {arg}")
    } else {
        names.join(" / ")
    }
}

/// oneDNN's name of an RNN execution argument: [`name`] of an RNN primitive.
pub fn rnn_name(arg: i32) -> String {
    name(arg, Some(PrimitiveKind::Rnn))
}

/// oneDNN's RNN names of the plain layouts of an RNN argument (or its diff): `tnc` / `ntc` for
/// layer data, `ldnc` for states, `ldigo` / `ldgoi` for weights, `ldgo` for bias and peephole,
/// `ldio` / `ldoi` for projection weights.
pub fn rnn_tag_aliases(arg: i32) -> &'static [&'static str] {
    match if arg > DIFF { arg - DIFF } else { arg } {
        SRC_LAYER | DST_LAYER | AUGRU_ATTENTION => &["tnc", "ntc"],
        SRC_ITER | SRC_ITER_C | DST_ITER | DST_ITER_C => &["ldnc"],
        WEIGHTS_LAYER | WEIGHTS_ITER => &["ldigo", "ldgoi"],
        WEIGHTS_PEEPHOLE | BIAS => &["ldgo"],
        WEIGHTS_PROJECTION => &["ldio", "ldoi"],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_onednns() {
        let rnn = [1, 4, 18, 36, 41, 64, 80, 129, 162, 169, 132, 192, 999, -1]
            .map(|a| name(a, Some(PrimitiveKind::Rnn)));
        assert_eq!(
            rnn,
            [
                "DNNL_ARG_SRC_LAYER",
                "DNNL_ARG_AUGRU_ATTENTION",
                "DNNL_ARG_DST_ITER",
                "DNNL_ARG_WEIGHTS_PROJECTION",
                "DNNL_ARG_BIAS",
                "DNNL_ARG_WORKSPACE",
                "DNNL_ARG_SCRATCHPAD",
                "DNNL_ARG_DIFF_SRC_LAYER",
                "DNNL_ARG_DIFF_WEIGHTS_ITER",
                "DNNL_ARG_DIFF_BIAS",
                "DNNL_ARG_DIFF_AUGRU_ATTENTION",
                "argument 192",
                "argument 999",
                "argument -1",
            ]
        );
        let reorder = [1, 17, 80, 2].map(|a| name(a, Some(PrimitiveKind::Reorder)));
        assert_eq!(
            reorder,
            [
                "DNNL_ARG_FROM",
                "DNNL_ARG_TO",
                "DNNL_ARG_SCRATCHPAD",
                "argument 2"
            ]
        );
        let any = [1, 2, 80, 7].map(|a| name(a, None));
        assert_eq!(
            any,
            [
                "DNNL_ARG_SRC_LAYER / DNNL_ARG_FROM",
                "DNNL_ARG_SRC_ITER",
                "DNNL_ARG_SCRATCHPAD",
                "argument 7"
            ]
        );
    }
}
