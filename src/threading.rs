//! The library-owned threads.
//!
//! Every parallel loop of the library runs on threads owned by oxidnn (never rayon's global
//! pool, which belongs to the application): a rayon pool, and a *crew* for teams. Their number
//! is `OXIDNN_NUM_THREADS` when set to a positive integer, else the machine's available
//! parallelism; both are created on first use.
//!
//! Three ways to run work:
//! * [`for_each`]: independent items on the rayon pool, in parallel when asked to and when it
//!   can help, or in order on the calling thread (tiny loops, where fork/join costs more than
//!   the work);
//! * [`crew_for_each`]: the same on the crew, for loops inside a primitive execution, between
//!   its teams (packing plain weights, the backward pass's merged products);
//! * [`team`]: the calling thread and the library's *crew* threads enter one closure together
//!   and work through phases separated by [`Team::barrier`] — one fork/join per primitive
//!   execution instead of one per step (the OpenMP "parallel region" model). Members split each
//!   phase's items statically ([`Team::for_each`]), so a thread keeps working on the same data
//!   (e.g. the same weight panels) phase after phase; in a *balanced* phase
//!   ([`Team::for_each_balanced`]) a member that finishes its share early then takes, from the
//!   other end, items of others' shares they have not started, so a member whose CPU another
//!   process takes for a while does not hold up the phase.
//!
//! The crew is not the rayon pool: rayon's idle workers sleep within microseconds, and a
//! sleeping thread takes 25–30 µs to run again on a virtual machine (measured: the median start
//! of a rayon-broadcast team), 3 % of a batch-1 LSTM pass. Crew workers keep spinning for
//! [`CREW_SPIN_TIME`] after a team, so back-to-back executions start at once, then sleep. A team
//! also starts without a worker that has not checked in after a wait proportional to the work
//! ([`team`]): a worker whose CPU is taken by another process can be away for milliseconds.

use rayon::prelude::*;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::atomic::{AtomicPtr, AtomicU64};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Environment variable that sets the number of worker threads.
pub const NUM_THREADS_ENV: &str = "OXIDNN_NUM_THREADS";

/// Spins before a barrier waiter starts yielding its CPU.
const BARRIER_SPINS: u32 = 1 << 14;
/// How long an idle crew worker spins for the next team before it sleeps.
pub const CREW_SPIN_TIME: Duration = Duration::from_millis(2);

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
    rest_crew();
    pool().install(f)
}

/// Sends idle crew workers to sleep now rather than after their spin (they would compete with
/// the pool's threads for the CPUs); the next team wakes them.
fn rest_crew() {
    if let Some(crew) = CREW.get() {
        crew.rest.store(true, Ordering::Relaxed);
    }
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
    size: AtomicUsize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    poisoned: AtomicBool,
}

impl SpinBarrier {
    fn new(size: usize) -> Self {
        Self {
            size: AtomicUsize::new(size),
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    /// Prepares the barrier for a new team of `size` members (none of which is waiting).
    fn reset(&self, size: usize) {
        self.size.store(size, Ordering::Relaxed);
        self.arrived.store(0, Ordering::Relaxed);
        self.poisoned.store(false, Ordering::Relaxed);
    }

    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.size.load(Ordering::Relaxed) {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        spin_until(|| {
            if self.poisoned.load(Ordering::Relaxed) {
                panic!("another member of the thread team panicked");
            }
            self.generation.load(Ordering::Acquire) != generation
        });
    }
}

/// Spins until `done()` (waits between team members are short), yielding the CPU after
/// `BARRIER_SPINS` spins.
fn spin_until(mut done: impl FnMut() -> bool) {
    let mut spins = 0u32;
    while !done() {
        if spins < BARRIER_SPINS {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
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
    /// The members' claim words, by member index (empty for a team of one).
    claims: &'a [Claim],
}

/// The items of one member's share in a balanced phase ([`Team::for_each_balanced`]) that
/// nobody has taken yet: `phase << 48 | front << 24 | back`, positions `front..back` in the
/// order the member takes its share. The member takes from the front, others from the back.
/// On a cache line of its own: its member updates it at every item.
#[derive(Default)]
#[repr(align(64))]
struct Claim(AtomicU64);

/// Items members took from others' shares in balanced phases since the process started.
static TAKEN: AtomicUsize = AtomicUsize::new(0);

/// How many items members of teams took from others' shares in balanced phases
/// ([`Team::for_each_balanced`]) since the process started: how often balancing stepped in.
pub fn items_taken_from_others() -> usize {
    TAKEN.load(Ordering::Relaxed)
}

/// Test seam (0 outside tests): member 0 of a team of several sleeps this many microseconds at
/// the start of each balanced phase, so that the others take its items; and teams wait (up to
/// a second) for every worker to check in.
#[doc(hidden)]
pub static HOLD_MEMBER_ZERO_US: AtomicU64 = AtomicU64::new(0);

/// Test seam (false outside tests): teams wait (up to a second) for every worker to check in,
/// so tests of small problems run the multi-member paths whatever the host's wake-up latency.
#[doc(hidden)]
pub static FULL_TEAMS: AtomicBool = AtomicBool::new(false);

/// Bits of each position field of a [`Claim`].
const POSITION_BITS: u32 = 24;
/// Mask of a position field.
const POSITION: u64 = (1 << POSITION_BITS) - 1;
/// Shift of a [`Claim`]'s phase number (16 bits, counting its member's balanced phases).
const PHASE_SHIFT: u32 = 2 * POSITION_BITS;

impl Claim {
    /// Opens its member's next balanced phase, with `len` items; returns the phase number.
    fn open(&self, len: usize) -> u64 {
        let phase = ((self.0.load(Ordering::Relaxed) >> PHASE_SHIFT) + 1) & 0xffff;
        self.0
            .store(phase << PHASE_SHIFT | len as u64, Ordering::Release);
        phase
    }

    /// Takes the first position nobody has taken (`None`: for its member), or the last one
    /// (`Some(phase)`: for another member, in balanced phase `phase` only — the word may still
    /// be in the member's previous phase).
    fn take(&self, other: Option<u64>) -> Option<usize> {
        let mut w = self.0.load(Ordering::Acquire);
        loop {
            let (front, back) = ((w >> POSITION_BITS) & POSITION, w & POSITION);
            if front >= back || other.is_some_and(|phase| w >> PHASE_SHIFT != phase) {
                return None;
            }
            let (next, taken) = match other {
                None => (w + (1 << POSITION_BITS), front),
                Some(_) => (w - 1, back - 1),
            };
            match self
                .0
                .compare_exchange_weak(w, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(taken as usize),
                Err(now) => w = now,
            }
        }
    }
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
        let claims = if half == 0 {
            &self.claims[..first]
        } else {
            &self.claims[first..]
        };
        f(
            half,
            &Team {
                index,
                size,
                barrier: Some(&barriers[half]),
                halves: None,
                claims,
            },
        );
        self.barrier();
    }

    /// This member's contiguous share of `items`.
    pub fn share(&self, items: usize) -> std::ops::Range<usize> {
        share_of(self.index, self.size, items)
    }

    /// Runs `f` on this member's share of `items` — increasing, or decreasing when `reverse`
    /// (alternating directions between phases reuses what the previous phase touched last).
    /// No barrier is implied.
    pub fn for_each(&self, items: usize, reverse: bool, mut f: impl FnMut(usize)) {
        let share = self.share(items);
        (0..share.len()).for_each(|i| f(in_order(&share, i, reverse)));
    }

    /// Like [`Team::for_each`], then runs `f` on items of other members' shares that they
    /// have not started, taken from the other end of their order: each item still runs once,
    /// but a member held up (by another process on its CPU) no longer holds up the phase. For
    /// items worth more than a cold start elsewhere (an item's data is in its owner's cache).
    /// Every member of the team must make the same sequence of these calls, each phase ending
    /// at a barrier (that is what keeps a late member's claims out of the next phase).
    pub fn for_each_balanced(&self, items: usize, reverse: bool, mut f: impl FnMut(usize)) {
        let Some(mine) = self
            .claims
            .get(self.index)
            .filter(|_| items as u64 <= POSITION)
        else {
            return self.for_each(items, reverse, f);
        };
        let share = self.share(items);
        let phase = mine.open(share.len());
        let hold = HOLD_MEMBER_ZERO_US.load(Ordering::Relaxed);
        if hold > 0 && self.index == 0 {
            std::thread::sleep(Duration::from_micros(hold));
        }
        while let Some(i) = mine.take(None) {
            f(in_order(&share, i, reverse));
        }
        for k in 1..self.size {
            let other = (self.index + k) % self.size;
            let theirs = share_of(other, self.size, items);
            while let Some(i) = self.claims[other].take(Some(phase)) {
                TAKEN.fetch_add(1, Ordering::Relaxed);
                f(in_order(&theirs, i, reverse));
            }
        }
    }
}

/// Member `index`'s contiguous share of `items` in a team of `size`.
pub(crate) fn share_of(index: usize, size: usize, items: usize) -> std::ops::Range<usize> {
    index * items / size..(index + 1) * items / size
}

/// The item at position `i` of `share` in the order its member takes it.
fn in_order(share: &std::ops::Range<usize>, i: usize, reverse: bool) -> usize {
    if reverse {
        share.end - 1 - i
    } else {
        share.start + i
    }
}

/// The threads that run teams with their callers: `num_threads() − 1` workers, started on first
/// use. One team at a time (the caller holds `busy`): the caller posts it (`job`, then `state`),
/// workers check in until the caller seals it (the count then is the team's size), the caller
/// sets its barriers and starts it (`started`), and waits for the checked-in workers to finish
/// before it returns.
struct Crew {
    /// Worker threads running (set once they are started).
    workers: AtomicUsize,
    /// Held by the caller of the running team: teams run one after the other.
    busy: Mutex<()>,
    /// `team number << 32 | SEALED | members checked in` of the latest team.
    state: AtomicU64,
    /// The team number whose barriers are set: checked-in members start then.
    started: AtomicU64,
    /// The latest team's closure (a `&Job` on its caller's stack), valid for members that
    /// checked in before it was sealed until the caller has seen them all finish.
    job: AtomicPtr<Job<'static>>,
    barrier: SpinBarrier,
    halves: [SpinBarrier; 2],
    /// One claim word per member of the started team ([`Team::for_each_balanced`]).
    claims: Box<[Claim]>,
    /// Workers of the started team that have finished (normally or not).
    finished: AtomicUsize,
    /// A worker of the started team panicked.
    panicked: AtomicBool,
    /// Set while the library runs rayon loops: idle workers sleep at once rather than spin.
    rest: AtomicBool,
    /// Idle workers asleep; `lock` and `wake` put them to sleep and wake them.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

/// A team's closure.
type Job<'a> = &'a (dyn Fn(&Team) + Sync);

/// The crew, once started.
static CREW: OnceLock<&'static Crew> = OnceLock::new();

/// The `state` bit that closes a team to members checking in late.
const SEALED: u64 = 1 << 31;
/// The `state` bits counting checked-in members.
const COUNT: u64 = SEALED - 1;

thread_local! {
    /// Whether this thread is a crew worker (a team started there runs on it alone).
    static IN_CREW: Cell<bool> = const { Cell::new(false) };
}

impl Crew {
    /// The crew, its workers started on first use (`num_threads() − 1` of them; fewer if the
    /// system refuses threads).
    fn get() -> &'static Crew {
        CREW.get_or_init(|| {
            let crew: &'static Crew = Box::leak(Box::new(Crew {
                workers: AtomicUsize::new(0),
                busy: Mutex::new(()),
                state: AtomicU64::new(0),
                started: AtomicU64::new(0),
                job: AtomicPtr::new(std::ptr::null_mut()),
                barrier: SpinBarrier::new(1),
                halves: [SpinBarrier::new(1), SpinBarrier::new(1)],
                claims: (0..num_threads()).map(|_| Claim::default()).collect(),
                finished: AtomicUsize::new(0),
                panicked: AtomicBool::new(false),
                rest: AtomicBool::new(false),
                sleepers: AtomicUsize::new(0),
                lock: Mutex::new(()),
                wake: Condvar::new(),
            }));
            let spawned = (1..num_threads())
                .take_while(|i| {
                    std::thread::Builder::new()
                        .name(format!("oxidnn-team-{i}"))
                        .spawn(move || crew.work())
                        .is_ok()
                })
                .count();
            crew.workers.store(spawned, Ordering::Relaxed);
            crew
        })
    }

    /// A worker's life: wait for a team, check in unless it has started, run, repeat.
    fn work(&self) {
        IN_CREW.with(|c| c.set(true));
        let mut seen = 0u64;
        loop {
            seen = self.next_team(seen);
            let Some(index) = self.check_in(seen) else {
                continue;
            };
            spin_until(|| self.started.load(Ordering::Acquire) == seen);
            // SAFETY: this worker checked in before the team was sealed, so the caller keeps
            // the closure alive until it has seen this worker finish.
            let job = unsafe { *self.job.load(Ordering::Acquire) };
            // The sealed count: `state` stays this team's until its caller has seen us finish.
            let size = (self.state.load(Ordering::Acquire) & COUNT) as usize;
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let _poison = [&self.barrier, &self.halves[0], &self.halves[1]].map(PoisonOnPanic);
                job(&self.member(index, size));
            }));
            if run.is_err() {
                self.panicked.store(true, Ordering::Relaxed);
            }
            self.finished.fetch_add(1, Ordering::Release);
        }
    }

    /// Member `index` of the started team of `size`.
    fn member(&self, index: usize, size: usize) -> Team<'_> {
        Team {
            index,
            size,
            barrier: Some(&self.barrier),
            halves: Some(&self.halves),
            claims: &self.claims[..size],
        }
    }

    /// Waits for a team numbered other than `seen` (spinning, then asleep); returns its number.
    fn next_team(&self, seen: u64) -> u64 {
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            let team = self.state.load(Ordering::Acquire) >> 32;
            if team != seen {
                return team;
            }
            spins = spins.wrapping_add(1);
            let rest = self.rest.load(Ordering::Relaxed);
            if rest || (spins.is_multiple_of(64) && start.elapsed() > CREW_SPIN_TIME) {
                let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                // SeqCst with the caller's post: it sees this sleeper, or this sees its team.
                self.sleepers.fetch_add(1, Ordering::SeqCst);
                while self.state.load(Ordering::SeqCst) >> 32 == seen {
                    guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
                }
                self.sleepers.fetch_sub(1, Ordering::SeqCst);
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Checks in to team `team` unless it has started (or been replaced): the member index.
    fn check_in(&self, team: u64) -> Option<usize> {
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            if s >> 32 != team || s & SEALED != 0 {
                return None;
            }
            match self
                .state
                .compare_exchange_weak(s, s + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some((s & COUNT) as usize),
                Err(now) => s = now,
            }
        }
    }

    /// Runs `f` as member 0 of a new team with the workers that check in within `join_wait`.
    fn run(&self, join_wait: Duration, f: Job) {
        let _one_team = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        self.rest.store(false, Ordering::Relaxed);
        let team = ((self.state.load(Ordering::Relaxed) >> 32) + 1) & 0xffff_ffff;
        let workers = self.workers.load(Ordering::Relaxed);
        self.finished.store(0, Ordering::Relaxed);
        self.panicked.store(false, Ordering::Relaxed);
        let job: *const Job = &f;
        self.job.store(job.cast_mut().cast(), Ordering::Release);
        // Post the team with the caller checked in as member 0, and wake sleeping workers.
        self.state.store(team << 32 | 1, Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_all();
        }
        let start = Instant::now();
        while (self.state.load(Ordering::Acquire) & COUNT) as usize <= workers
            && start.elapsed() < join_wait
        {
            std::hint::spin_loop();
        }
        let size = (self.state.fetch_or(SEALED, Ordering::AcqRel) & COUNT) as usize;
        self.barrier.reset(size);
        self.halves[0].reset(size / 2);
        self.halves[1].reset(size - size / 2);
        for c in self.claims.iter() {
            c.0.store(0, Ordering::Relaxed);
        }
        self.started.store(team, Ordering::Release);
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _poison = [&self.barrier, &self.halves[0], &self.halves[1]].map(PoisonOnPanic);
            f(&self.member(0, size));
        }));
        // The members that checked in use `f` until they finish.
        spin_until(|| self.finished.load(Ordering::Acquire) + 1 >= size);
        self.job.store(std::ptr::null_mut(), Ordering::Relaxed);
        if let Err(e) = run {
            std::panic::resume_unwind(e);
        }
        if self.panicked.load(Ordering::Relaxed) {
            panic!("a member of the thread team panicked");
        }
    }
}

/// Runs `f` on a team: the calling thread (member 0) and the crew's workers that check in
/// within `join_wait` (the team starts with those: a late worker would hold every barrier), or
/// the calling thread alone when `join_wait` is `None`, the library has one thread, or the
/// caller is itself a crew or pool thread (a team started from inside could wait for threads
/// busy waiting for it). Teams run one at a time. A panic of any member reaches the caller
/// once every member has stopped.
pub fn team(join_wait: Option<Duration>, f: impl Fn(&Team) + Sync) {
    let nested = IN_CREW.with(|c| c.get()) || pool().current_thread_index().is_some();
    match join_wait {
        Some(wait) if !nested && num_threads() > 1 => {
            let full = HOLD_MEMBER_ZERO_US.load(Ordering::Relaxed) > 0
                || FULL_TEAMS.load(Ordering::Relaxed);
            let wait = if full { Duration::from_secs(1) } else { wait };
            Crew::get().run(wait, &f)
        }
        _ => f(&Team {
            index: 0,
            size: 1,
            barrier: None,
            halves: None,
            claims: &[],
        }),
    }
}

/// Runs `f` on each of `items` on a [`team`] (each member its share, see [`Team::for_each`])
/// when `parallel`, else in order on the calling thread: [`for_each`] on the crew rather than
/// the pool, for loops between the teams of one execution. The pool would send the crew to
/// sleep, and a crew worker takes 25–30 µs to wake for the next team — longer than a small
/// team waits for it: LSTM T=1 N=1 C=512 training ran its next forward pass on one thread
/// (0.81 → 0.53 ms with the backward's loops on the crew).
pub fn crew_for_each(items: usize, parallel: bool, work_flops: usize, f: impl Fn(usize) + Sync) {
    let join = (parallel && items > 1).then(|| join_wait(work_flops));
    team(join, |t| t.for_each(items, false, &f));
}

/// How long a team of work `flops` waits for its workers to check in: a tenth of the time one
/// thread would take (at 200 GFLOP/s), so waiting never costs more than a tenth of the work.
pub fn join_wait(flops: usize) -> Duration {
    Duration::from_nanos((flops / 2_000) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A join wait every worker meets (the tests count members).
    const ALL_JOIN: Duration = Duration::from_secs(5);

    #[test]
    fn every_item_runs_once() {
        for parallel in [false, true] {
            for crew in [false, true] {
                let hits: Vec<AtomicUsize> = (0..100).map(|_| AtomicUsize::new(0)).collect();
                let hit = |i: usize| {
                    hits[i].fetch_add(1, Ordering::Relaxed);
                };
                if crew {
                    crew_for_each(100, parallel, 1 << 30, hit);
                } else {
                    for_each(100, parallel, hit);
                }
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
            }
        }
        assert!(num_threads() >= 1);
    }

    #[test]
    fn team_phases_are_separated_by_barriers() {
        for parallel in [false, true] {
            let hits: Vec<AtomicUsize> = (0..37).map(|_| AtomicUsize::new(0)).collect();
            let complete = AtomicUsize::new(0);
            team(parallel.then_some(ALL_JOIN), |t| {
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
    fn balanced_phases_run_every_item_once_and_others_take_a_late_members_items() {
        let items = 29;
        // Per round, the member that ran each item (+1; 0: not run).
        let ran: Vec<AtomicUsize> = (0..items).map(|_| AtomicUsize::new(0)).collect();
        let stolen = AtomicUsize::new(0);
        let size = AtomicUsize::new(0);
        team(Some(ALL_JOIN), |t| {
            size.store(t.size(), Ordering::Relaxed);
            for round in 0..6 {
                let reverse = round % 2 == 1;
                // Member 0 is held up in its first item: the others run the rest of its share.
                let mut first = true;
                t.for_each_balanced(items, reverse, |i| {
                    if t.index() == 0 && std::mem::take(&mut first) && t.size() > 1 {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    let before = ran[i].swap(t.index() + 1, Ordering::Relaxed);
                    assert_eq!(before, 0, "item {i} ran twice in round {round}");
                });
                // A static phase between the balanced ones does not disturb their claims.
                t.for_each(items, reverse, |_| {});
                t.barrier();
                if t.index() == 0 {
                    assert!(ran.iter().all(|r| r.load(Ordering::Relaxed) > 0));
                    let mine = t.share(items);
                    let by_others = mine
                        .filter(|&i| ran[i].load(Ordering::Relaxed) != 1)
                        .count();
                    stolen.fetch_add(by_others, Ordering::Relaxed);
                    ran.iter().for_each(|r| r.store(0, Ordering::Relaxed));
                }
                t.barrier();
            }
        });
        if size.load(Ordering::Relaxed) > 1 {
            // 50 ms is far longer than the rest of the share takes.
            assert!(stolen.load(Ordering::Relaxed) >= 6, "{stolen:?}");
        } else {
            assert_eq!(stolen.load(Ordering::Relaxed), 0);
        }
    }

    #[test]
    fn halves_run_side_by_side_with_barriers_of_their_own() {
        for parallel in [false, true] {
            let hits: Vec<AtomicUsize> = (0..2 * 41).map(|_| AtomicUsize::new(0)).collect();
            let members = [AtomicUsize::new(0), AtomicUsize::new(0)];
            team(parallel.then_some(ALL_JOIN), |t| {
                t.halves(|half, sub| {
                    members[half].fetch_add(1, Ordering::Relaxed);
                    for round in 1..=3 {
                        let hit = |i: usize| {
                            hits[half * 41 + i].fetch_add(1, Ordering::Relaxed);
                        };
                        // Balanced phases take items within the half only.
                        if round == 2 {
                            sub.for_each_balanced(41, false, hit);
                        } else {
                            sub.for_each(41, false, hit);
                        }
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
            team(Some(ALL_JOIN), |t| {
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
            team(Some(ALL_JOIN), |t| {
                if t.index() == 1 {
                    panic!("member 1 fails");
                }
                t.barrier();
            })
        });
        assert!(r.is_err());
        // The crew still works after a panic.
        let members = AtomicUsize::new(0);
        team(Some(ALL_JOIN), |t| {
            t.barrier();
            members.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(members.load(Ordering::Relaxed), num_threads());
    }

    #[test]
    fn teams_that_start_without_late_workers_still_run_every_item_once() {
        // No wait: the team starts with the workers already checked in (any number), teams
        // follow each other at once, and workers arrive at any point of that sequence.
        let hits: Vec<AtomicUsize> = (0..23).map(|_| AtomicUsize::new(0)).collect();
        let sizes = AtomicUsize::new(0);
        for _ in 0..2000 {
            team(Some(Duration::ZERO), |t| {
                if t.index() == 0 {
                    sizes.fetch_add(t.size(), Ordering::Relaxed);
                }
                for round in 0..3 {
                    let hit = |i: usize| {
                        hits[i].fetch_add(1, Ordering::Relaxed);
                    };
                    if round == 2 {
                        t.for_each_balanced(23, true, hit);
                    } else {
                        t.for_each(23, round == 1, hit);
                    }
                    t.barrier();
                }
            });
        }
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 6000));
        assert!(sizes.load(Ordering::Relaxed) >= 2000);
    }
}
