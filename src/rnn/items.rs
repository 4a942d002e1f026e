//! The work items of a step phase: (batch block × panel) tiles, and how a team shares them.
//!
//! Items are numbered so that `Team::share` hands each member a contiguous run of them:
//! - **by panel** (the default): a member takes whole panels (every batch block of each), so it
//!   keeps the same weight panels step after step, and every step ends at a barrier (the next
//!   step's GEMM reads every unit of h);
//! - **by batch block**: as many blocks as members, a member takes one block with every panel.
//!   Batch rows never mix in a recurrence, so a member's steps read only the h it wrote itself
//!   and need no barrier; each member reads all the weights, which suits weights small enough
//!   to stay in every member's L2 ([`split_by_batch`]).

use super::scratch::{l2_bytes, L2_BYTES};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Fewest batch rows per member for f32 (and bf16) steps split by batch ([`split_by_batch`]).
pub const BATCH_SPLIT_MIN_ROWS: usize = 8;

/// Layer passes run split by batch so far (see [`batch_split_passes`]).
static BATCH_SPLIT_PASSES: AtomicUsize = AtomicUsize::new(0);

/// Test seam: how many layer passes (of one layer and direction) have run their steps split by
/// batch ([`split_by_batch`]) in this process, by any forward driver.
pub fn batch_split_passes() -> usize {
    BATCH_SPLIT_PASSES.load(Ordering::Relaxed)
}

/// Counts one layer pass run split by batch ([`batch_split_passes`]).
pub(crate) fn count_batch_split_pass() {
    BATCH_SPLIT_PASSES.fetch_add(1, Ordering::Relaxed);
}

/// Whether a team of `members` steps its own batch rows each (of `n`): every panel of a
/// member's rows, no barrier between steps nor between a step's phases, but every member reads
/// all the weights. With several members, at least `min_rows` rows each (the kernels' rule,
/// e.g. [`BATCH_SPLIT_MIN_ROWS`]), and the `step_weight_bytes` a step reads within 3/8 of a
/// core's L2 per barrier a step saves (`barriers`: GRU, AUGRU and LSTMP steps have two
/// phases): the barriers saved pay for reading all the weights while they stay in L2, not
/// beyond.
pub fn split_by_batch(
    members: usize,
    n: usize,
    min_rows: usize,
    step_weight_bytes: usize,
    barriers: usize,
) -> bool {
    members > 1 && n >= members * min_rows && 8 * step_weight_bytes <= 3 * barriers * l2_bytes()
}

/// Smallest GEMM work (flops) of one work item of a balanced phase ([`balanced`]).
const BALANCED_MIN_ITEM_FLOPS: usize = 1 << 20;

/// Whether a team of `members` runs a phase of work items of `item_flops` GEMM work each
/// balanced (`Team::for_each_balanced`: members that finish early take items others have not
/// started, so one held up by another process on its CPU does not hold up the step): when the
/// items are large and a member's share of the `step_weight_bytes` a step reads fills its L2
/// or more — it then reads them from L3 at every step anyway (the L2 also holds the step's
/// activations and gates), and an item another member takes costs that one no more than its
/// own. Never for steps split `by_batch` (no barrier between steps ends a phase, and a
/// member's next step reads only the rows it wrote). On a quiet machine balanced and static
/// run alike; with another process on a CPU, balancing pays where the weights come from L3
/// anyway, and costs where a member's share stays in its L2 or the items are small.
pub fn balanced(
    members: usize,
    by_batch: bool,
    item_flops: usize,
    step_weight_bytes: usize,
) -> bool {
    !by_batch
        && item_flops >= BALANCED_MIN_ITEM_FLOPS
        && step_weight_bytes / members.max(1) >= L2_BYTES
}

/// How a phase's items map to (batch rows, panel).
#[derive(Clone, Copy, Debug)]
pub struct PhaseItems {
    /// Batch rows.
    n: usize,
    /// Rows of a batch block (the largest, when split by batch).
    pub block: usize,
    /// Batch blocks.
    blocks: usize,
    /// Panels.
    panels: usize,
    /// Numbered block by block (else panel by panel).
    by_block: bool,
    /// Rows from which tiles are clipped off (the rows of samples whose sequence has ended).
    active: usize,
}

impl PhaseItems {
    /// `panels` panels over batch blocks of at most `block` rows of `n`.
    pub fn by_panel(n: usize, block: usize, panels: usize) -> Self {
        let block = block.clamp(1, n.max(1));
        Self {
            n,
            block,
            blocks: n.div_ceil(block),
            panels,
            by_block: false,
            active: n,
        }
    }

    /// `panels` panels over `members` batch blocks of nearly equal size, one per member.
    pub fn by_block(n: usize, members: usize, panels: usize) -> Self {
        Self {
            n,
            block: n.div_ceil(members),
            blocks: members,
            panels,
            by_block: true,
            active: n,
        }
    }

    /// The same blocking over another set of panels (e.g. the projection's).
    pub fn with_panels(self, panels: usize) -> Self {
        Self { panels, ..self }
    }

    /// The same items with their rows clipped to the first `active` (tiles may be empty).
    pub fn clipped(self, active: usize) -> Self {
        Self { active, ..self }
    }

    /// Number of items.
    pub fn count(&self) -> usize {
        self.blocks * self.panels
    }

    /// The batch rows and the panel of item `it`.
    pub fn tile(&self, it: usize) -> (Range<usize>, usize) {
        let (b, panel) = if self.by_block {
            (it / self.panels, it % self.panels)
        } else {
            (it % self.blocks, it / self.blocks)
        };
        let rows = if self.by_block {
            b * self.n / self.blocks..(b + 1) * self.n / self.blocks
        } else {
            b * self.block..self.n.min((b + 1) * self.block)
        };
        (
            rows.start.min(self.active)..rows.end.min(self.active),
            panel,
        )
    }

    /// The panel of the item a member takes after `it` in its `share` (walked backwards when
    /// `reverse`), when it is another one (the weights of the same panel are in cache).
    pub fn next_panel(&self, share: &Range<usize>, it: usize, reverse: bool) -> Option<usize> {
        let panel = |i| self.tile(i).1;
        next_item(share, it, reverse)
            .filter(|&n| panel(n) != panel(it))
            .map(panel)
    }
}

/// The item a team member takes after `it` in a phase over its `share` (walked backwards when
/// `reverse`), if any.
pub fn next_item(share: &Range<usize>, it: usize, reverse: bool) -> Option<usize> {
    if !share.contains(&it) {
        // Taken from another member's share: what comes next is not known.
        return None;
    }
    if reverse {
        it.checked_sub(1)
    } else {
        Some(it + 1)
    }
    .filter(|n| share.contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (row, panel) is covered once; by block, member `m` of `members` gets block `m`.
    #[test]
    fn items_cover_every_tile_once_and_blocks_go_to_one_member() {
        for n in [1, 7, 10, 32, 65, 130] {
            for panels in [1, 3, 8] {
                let mut kinds = vec![PhaseItems::by_panel(n, 64, panels)];
                for members in (2..=4).filter(|&m| m <= n) {
                    kinds.push(PhaseItems::by_block(n, members, panels));
                }
                for items in kinds {
                    let mut seen = vec![0u32; n * panels];
                    for it in 0..items.count() {
                        let (rows, panel) = items.tile(it);
                        rows.for_each(|r| seen[r * panels + panel] += 1);
                    }
                    assert!(seen.iter().all(|&c| c == 1), "{items:?}");
                    if items.by_block {
                        for m in 0..items.blocks {
                            let share = crate::threading::share_of(m, items.blocks, items.count());
                            let rows = items.tile(share.start).0;
                            for it in share {
                                assert_eq!(items.tile(it).0, rows, "{items:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn next_panel_is_the_next_item_of_the_share_on_another_panel() {
        let items = PhaseItems::by_panel(100, 64, 4);
        assert_eq!(items.next_panel(&(0..8), 0, false), None);
        assert_eq!(items.next_panel(&(0..8), 1, false), Some(1));
        assert_eq!(items.next_panel(&(0..8), 7, false), None);
        assert_eq!(items.next_panel(&(0..8), 2, true), Some(0));
        let items = PhaseItems::by_block(32, 2, 4);
        assert_eq!(items.next_panel(&(4..8), 4, false), Some(1));
        assert_eq!(items.next_panel(&(4..8), 5, true), Some(0));
        assert_eq!(items.next_panel(&(4..8), 4, true), None);
        assert_eq!(items.next_panel(&(0..4), 4, false), None);
    }
}
