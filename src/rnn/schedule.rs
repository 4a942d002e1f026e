//! The schedule both forward drivers share (`forward` for f32, bf16 and f16; `int8::forward`):
//! each direction's stack of layers — at the same time on a half of the team each when the
//! scratchpad has a lane per direction — and, per layer, the layer GEMM over chunks of steps
//! followed by those steps, with the barriers that steps split by batch
//! ([`items::split_by_batch`]) leave out.

use super::items;
use crate::threading::Team;
use std::ops::Range;

/// Runs `stack(team, d)` for each of `directions` directions: with two `lanes`, both at the
/// same time on a half of the team each (the whole team then waits for both); else one after
/// the other on the whole team.
pub fn directions(team: &Team, directions: usize, lanes: usize, stack: impl Fn(&Team, usize)) {
    if lanes == 2 {
        team.halves(|d, half| stack(half, d));
    } else {
        (0..directions).for_each(|d| stack(team, d));
    }
}

/// Steps `0..steps` of one layer of one direction, by every member of `team`, in chunks of
/// `t_chunk`: `layer_gemm(chunk)` for a chunk's steps and a barrier (unless the layer GEMM is
/// `fused` into the steps), then `step(s, chunk)` for each step `s` of the chunk, each ending
/// at a barrier — but when the steps are split by batch (`by_batch`: a member's next step reads
/// only its own rows of h), where only the chunk's last step does (the next layer GEMM, or the
/// final states, take other rows).
pub fn chunked_steps(
    team: &Team,
    (steps, t_chunk): (usize, usize),
    fused: bool,
    by_batch: bool,
    mut layer_gemm: impl FnMut(Range<usize>),
    mut step: impl FnMut(usize, Range<usize>),
) {
    if by_batch && steps > 0 && team.index() == 0 {
        items::count_batch_split_pass();
    }
    let mut s0 = 0;
    while s0 < steps {
        let s1 = steps.min(s0 + t_chunk.max(1));
        if !fused {
            layer_gemm(s0..s1);
            team.barrier();
        }
        for s in s0..s1 {
            step(s, s0..s1);
            if !by_batch || s + 1 == s1 {
                team.barrier();
            }
        }
        s0 = s1;
    }
}
