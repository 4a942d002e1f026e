//! The layer GEMM in chunks of steps (`x·W` for a few steps at a time, the next chunk's after
//! the last step of the one before: what large `T·N` runs): forced on small problems through
//! the test seam `scratch::with_gates_budget`, every f32 cell × direction × L × inference and
//! training, with and without per-sample sequence lengths, gives bit for bit what one chunk of
//! all the steps gives — outputs and training workspace — and matches the reference.

mod lstm_common;

use lstm_common::*;
use oxidnn::rnn::scratch::with_gates_budget;
use oxidnn::rnn::CellKind;
use oxidnn::types::{Direction, PropKind};

/// Bytes of gates a step of `c` keeps (a row of 32-unit panels of every gate, plus the
/// scratchpad's row padding, per sample): the budget of `steps` steps per chunk.
fn budget(c: &Case, steps: usize) -> usize {
    steps * c.n * (c.dhc.div_ceil(32) * c.g() * 32 + 16) * 4
}

/// `c` with `lengths` run as one chunk, then in chunks of one step and of two: the same bits.
fn check(c: &Case, lengths: Option<Vec<i32>>) {
    let mut x = Inputs::random(c);
    x.lengths = lengths;
    let whole = run_primitive(c, &x);
    assert_eq!(whole.pd.scratch_layout().t_chunk, c.t, "{c:?}");
    check_against_reference(c, &x, &whole);
    for steps in [1, 2] {
        let chunked = with_gates_budget(budget(c, steps), || run_primitive(c, &x));
        let what = format!("{c:?}, chunks of {steps} step(s)");
        assert_eq!(chunked.pd.scratch_layout().t_chunk, steps, "{what}");
        assert_eq!(chunked.dst_layer, whole.dst_layer, "{what}");
        assert_eq!(chunked.dst_iter, whole.dst_iter, "{what}");
        assert_eq!(chunked.dst_iter_c, whole.dst_iter_c, "{what}");
        assert_eq!(chunked.workspace, whole.workspace, "{what}");
    }
}

#[test]
fn chunked_layer_gemm_gives_the_bits_of_one_chunk() {
    let mut k = 0usize;
    for cell in CELLS {
        for direction in DIRECTIONS {
            for l in 1..=2 {
                if cell.has_attention() && (l > 1 || direction != Direction::Left2Right) {
                    continue; // oneDNN's rule: AUGRU takes one layer, left2right
                }
                for prop in [PropKind::ForwardInference, PropKind::ForwardTraining] {
                    // T = 5: chunks of 1 and of 2, 2, 1 steps; N small: the layer GEMM merged.
                    let (t, n) = (5, [3, 7][k % 2]);
                    let dhc = [5, 33][k % 2];
                    let slc = if l == 1 { [7, 40][(k / 2) % 2] } else { dhc };
                    let mut c = Case::new(direction, l, t, n, slc, dhc).with_cell(cell);
                    c.prop = prop;
                    c.peephole = cell == CellKind::Lstm && k % 2 == 1;
                    if cell == CellKind::Lstm && k % 4 == 2 {
                        c = c.with_projection(4);
                        c.slc = if l == 1 { slc } else { 4 };
                    }
                    c.src_iter = k % 3 != 1;
                    c.layer_tag = if k % 5 < 2 { NTC } else { TNC };
                    c.seed = k as u64 + 11;
                    check(&c, None);
                    check(&c, Some(mixed_lengths(n, t, k)));
                    k += 1;
                }
            }
        }
    }
    assert!(k > 50, "{k} cases");
}
