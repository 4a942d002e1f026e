//! Balanced step phases (`Team::for_each_balanced`): when a member of the thread team is held
//! up, the others run its work items, and every output is bit for bit what an undisturbed run
//! gives (and matches the reference). Alone in its test binary: the hold it sets (member 0
//! sleeps at each balanced phase; teams wait for all their workers) is global.

mod lstm_common;

use lstm_common::*;
use oxidnn::primitive::{Primitive, PrimitiveDesc};
use oxidnn::rnn::CellKind;
use oxidnn::threading::{self, HOLD_MEMBER_ZERO_US};
use oxidnn::types::{Direction, PropKind};
use std::sync::atomic::Ordering;

/// Executions tried per case until one has had items taken from member 0.
const ATTEMPTS: usize = 50;

#[test]
fn items_run_by_other_members_give_identical_results() {
    if threading::num_threads() < 2 {
        eprintln!("one thread (OXIDNN_NUM_THREADS): no team to balance");
        return;
    }
    for (cell, prop) in [
        (CellKind::Lstm, PropKind::ForwardInference),
        (CellKind::Lstm, PropKind::ForwardTraining),
        (CellKind::Gru, PropKind::ForwardInference),
        (CellKind::LbrGru, PropKind::ForwardTraining),
    ] {
        // N = 32, C = 512: 6–8 MiB of weights, read from L3 at every step (so the steps are
        // balanced), work items of 6–8 Mflop.
        let mut c = Case::new(Direction::Left2Right, 1, 5, 32, 512, 512).with_cell(cell);
        c.prop = prop;
        let x = Inputs::random(&c);
        let pd = make_pd(&c).expect("pd");
        let prim = Primitive::new(&PrimitiveDesc::Rnn(Box::new(pd.clone()))).expect("primitive");
        let base = run_with(&c, &x, &pd, &prim);
        check_against_reference(&c, &x, &base);
        HOLD_MEMBER_ZERO_US.store(500, Ordering::Relaxed);
        let taken = threading::items_taken_from_others();
        let mut runs = 0;
        while runs < ATTEMPTS && threading::items_taken_from_others() == taken {
            let out = run_with(&c, &x, &pd, &prim);
            assert_eq!(out.dst_layer, base.dst_layer, "{cell:?} {prop:?}");
            assert_eq!(out.dst_iter, base.dst_iter, "{cell:?} {prop:?}");
            assert_eq!(out.dst_iter_c, base.dst_iter_c, "{cell:?} {prop:?}");
            assert_eq!(out.workspace, base.workspace, "{cell:?} {prop:?}");
            runs += 1;
        }
        HOLD_MEMBER_ZERO_US.store(0, Ordering::Relaxed);
        assert!(
            threading::items_taken_from_others() > taken,
            "{cell:?} {prop:?}: no member took another's items in {runs} executions"
        );
    }
}
