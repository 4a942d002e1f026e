//! The library-owned thread pool.
//!
//! Every parallel loop of the library runs on one rayon pool owned by oxidnn (never rayon's
//! global pool, which belongs to the application). Its size is `OXIDNN_NUM_THREADS` when set to a
//! positive integer, else the machine's available parallelism. The pool is created on first use.
//!
//! Two ways to run work:
//! * [`for_each`]: independent items, in parallel when asked to and when it can help, or in order
//!   on the calling thread (tiny loops, where fork/join costs more than the work);
//! * [`team`]: every pool thread enters one closure together and works through phases separated
//!   by [`Team::barrier`] — one fork/join per primitive execution instead of one per step (the
//!   OpenMP "parallel region" model). Members split each phase's items statically
//!   ([`Team::for_each`]), so a thread keeps working on the same data (e.g. the same weight
//!   panels) phase after phase.

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Environment variable that sets the number of worker threads.
pub const NUM_THREADS_ENV: &str = "OXIDNN_NUM_THREADS";

/// Spins before a barrier waiter starts yielding its CPU.
const BARRIER_SPINS: u32 = 1 << 14;

fn threads_from_env() -> usize {
    std::env::var(NUM_THREADS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The library's thread pool, created on first use.
pub fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let n = threads_from_env();
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("oxidnn-{i}"))
            .build()
            .or_else(|_| rayon::ThreadPoolBuilder::new().num_threads(1).build())
            .expect("cannot create even a one-thread pool")
    })
}

/// Number of threads of the library's pool.
pub fn num_threads() -> usize {
    pool().current_num_threads()
}

/// Runs `f` inside the library's pool, so the parallel loops it starts use the pool's threads.
/// Cheap when already on one of them.
pub fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    pool().install(f)
}

/// Runs `f(0) … f(items − 1)`: in parallel on the library's pool when `parallel` is true and
/// there are several items and threads, else in order on the calling thread.
pub fn for_each(items: usize, parallel: bool, f: impl Fn(usize) + Sync + Send) {
    if !parallel || items <= 1 || num_threads() <= 1 {
        (0..items).for_each(f);
    } else {
        run(|| (0..items).into_par_iter().with_min_len(1).for_each(f));
    }
}

/// A reusable barrier for the members of a team: spins (phases are short), then yields. If a
/// member panics, the others stop waiting and panic too, so the team never hangs.
struct SpinBarrier {
    size: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    poisoned: AtomicBool,
}

impl SpinBarrier {
    fn new(size: usize) -> Self {
        Self {
            size,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.size {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if self.poisoned.load(Ordering::Relaxed) {
                panic!("another member of the thread team panicked");
            }
            if spins < BARRIER_SPINS {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Marks the barrier poisoned when a member unwinds.
struct PoisonOnPanic<'a>(&'a SpinBarrier);

impl Drop for PoisonOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

/// One member's view of a team started by [`team`].
#[derive(Clone, Copy)]
pub struct Team<'a> {
    index: usize,
    size: usize,
    barrier: Option<&'a SpinBarrier>,
    /// The barriers of the two halves ([`Team::halves`]); `None` in a half itself.
    halves: Option<&'a [SpinBarrier; 2]>,
}

impl Team<'_> {
    /// This member's index, `0..size`.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Number of members.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Waits until every member has reached this barrier; everything a member wrote before is
    /// visible to all after.
    pub fn barrier(&self) {
        if let Some(b) = self.barrier {
            b.wait();
        }
    }

    /// Splits the team in two halves of consecutive members (the first `size / 2`, then the
    /// rest) that run `f(half, &sub_team)` at the same time, each with barriers of its own,
    /// then waits for the whole team. A team of one member runs `f(0, …)` then `f(1, …)`.
    pub fn halves(&self, f: impl Fn(usize, &Team)) {
        let Some(barriers) = self.halves.filter(|_| self.size >= 2) else {
            for half in 0..2 {
                f(
                    half,
                    &Team {
                        halves: None,
                        ..*self
                    },
                );
            }
            return;
        };
        let first = self.size / 2;
        let (half, index, size) = if self.index < first {
            (0, self.index, first)
        } else {
            (1, self.index - first, self.size - first)
        };
        f(
            half,
            &Team {
                index,
                size,
                barrier: Some(&barriers[half]),
                halves: None,
            },
        );
        self.barrier();
    }

    /// This member's contiguous share of `items`.
    pub fn share(&self, items: usize) -> std::ops::Range<usize> {
        self.index * items / self.size..(self.index + 1) * items / self.size
    }

    /// Runs `f` on this member's share of `items` — increasing, or decreasing when `reverse`
    /// (alternating directions between phases reuses what the previous phase touched last).
    /// No barrier is implied.
    pub fn for_each(&self, items: usize, reverse: bool, mut f: impl FnMut(usize)) {
        let share = self.share(items);
        if reverse {
            share.rev().for_each(&mut f);
        } else {
            share.for_each(&mut f);
        }
    }
}

/// Runs `f` on every thread of the pool at once (a team), or only on the calling thread when
/// `parallel` is false, the pool has one thread, or the caller is itself a pool thread (a team
/// started from inside the pool could wait for threads busy waiting for it). Teams run one at a
/// time: a team needs every pool thread, and two interleaved teams would wait for each other
/// forever.
pub fn team(parallel: bool, f: impl Fn(&Team) + Sync) {
    let inside_pool = pool().current_thread_index().is_some();
    let size = if parallel && !inside_pool {
        num_threads()
    } else {
        1
    };
    if size <= 1 {
        f(&Team {
            index: 0,
            size: 1,
            barrier: None,
            halves: None,
        });
        return;
    }
    static ONE_TEAM_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _guard = ONE_TEAM_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let barrier = SpinBarrier::new(size);
    let halves = [
        SpinBarrier::new(size / 2),
        SpinBarrier::new(size - size / 2),
    ];
    pool().broadcast(|ctx| {
        let _poison = [&barrier, &halves[0], &halves[1]].map(PoisonOnPanic);
        f(&Team {
            index: ctx.index(),
            size,
            barrier: Some(&barrier),
            halves: Some(&halves),
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_runs_once() {
        for parallel in [false, true] {
            let hits: Vec<AtomicUsize> = (0..100).map(|_| AtomicUsize::new(0)).collect();
            for_each(100, parallel, |i| {
                hits[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        }
        assert!(num_threads() >= 1);
    }

    #[test]
    fn team_phases_are_separated_by_barriers() {
        for parallel in [false, true] {
            let hits: Vec<AtomicUsize> = (0..37).map(|_| AtomicUsize::new(0)).collect();
            let complete = AtomicUsize::new(0);
            team(parallel, |t| {
                for round in 1..=3 {
                    t.for_each(37, round % 2 == 0, |i| {
                        hits[i].fetch_add(1, Ordering::Relaxed);
                    });
                    t.barrier();
                    // After the barrier every item of this round is done, by every member.
                    if hits.iter().all(|h| h.load(Ordering::Relaxed) == round) {
                        complete.fetch_add(1, Ordering::Relaxed);
                    }
                    t.barrier();
                }
            });
            let members = if parallel { num_threads() } else { 1 };
            assert_eq!(complete.load(Ordering::Relaxed), 3 * members);
        }
    }

    #[test]
    fn halves_run_side_by_side_with_barriers_of_their_own() {
        for parallel in [false, true] {
            let hits: Vec<AtomicUsize> = (0..2 * 41).map(|_| AtomicUsize::new(0)).collect();
            let members = [AtomicUsize::new(0), AtomicUsize::new(0)];
            team(parallel, |t| {
                t.halves(|half, sub| {
                    members[half].fetch_add(1, Ordering::Relaxed);
                    for round in 1..=3 {
                        sub.for_each(41, false, |i| {
                            hits[half * 41 + i].fetch_add(1, Ordering::Relaxed);
                        });
                        sub.barrier();
                        // The half's barrier waits for the half's members only, and all of them.
                        let mine = &hits[half * 41..(half + 1) * 41];
                        assert!(mine.iter().all(|h| h.load(Ordering::Relaxed) == round));
                        sub.barrier();
                    }
                });
                // After `halves`, both halves are done.
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 3));
            });
            let size = if parallel { num_threads() } else { 1 };
            let expect = if size >= 2 {
                [size / 2, size - size / 2]
            } else {
                [1, 1]
            };
            assert_eq!(members.map(|m| m.load(Ordering::Relaxed)), expect);
        }
    }

    #[test]
    fn a_team_started_inside_the_pool_runs_on_that_thread() {
        let members = AtomicUsize::new(0);
        run(|| {
            team(true, |t| {
                assert_eq!(t.size(), 1);
                members.fetch_add(1, Ordering::Relaxed);
            })
        });
        assert_eq!(members.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_panicking_member_does_not_hang_the_team() {
        if num_threads() < 2 {
            return;
        }
        let r = std::panic::catch_unwind(|| {
            team(true, |t| {
                if t.index() == 0 {
                    panic!("member 0 fails");
                }
                t.barrier();
            })
        });
        assert!(r.is_err());
    }
}
