//! Bounds on one execution of a model, so that an input value (a Loop's trip count of −1, a
//! target shape) can make the execution fail with an error but never run forever or exhaust
//! memory until the allocator aborts the host process.

use std::cell::Cell;

use crate::error::{Error, Result};

/// The bounds of one execution ([`Model::infer_with`](super::Model::infer_with)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most iterations one Loop or TensorIterator runs per execution of it; more is an
    /// `InvalidArguments` error. Default 2^20.
    pub max_iterations: usize,
    /// Most bytes of one tensor an execution computes, and of the per-iteration outputs the
    /// Loops and TensorIterators of one execution hold at once (before concatenating them);
    /// more is an `OutOfMemory` error. Default 2 GiB.
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_iterations: 1 << 20,
            max_bytes: 1 << 31,
        }
    }
}

/// The state of one execution that the limits need: the bytes held by per-iteration outputs.
#[derive(Debug, Default)]
pub struct Budget {
    limits: Limits,
    held: Cell<usize>,
}

impl Budget {
    /// A fresh budget for one execution.
    pub fn new(limits: Limits) -> Self {
        Budget {
            limits,
            held: Cell::new(0),
        }
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Fails when a tensor of `bytes` bytes (`what`, for the message) exceeds
    /// [`Limits::max_bytes`].
    pub fn check_tensor(&self, bytes: usize, what: &dyn std::fmt::Display) -> Result<()> {
        if bytes > self.limits.max_bytes {
            return Err(Error::OutOfMemory(format!(
                "{what} would take {bytes} bytes, over the limit of {} bytes per tensor \
                 (Limits::max_bytes, oxidnn_request_set_limits)",
                self.limits.max_bytes
            )));
        }
        Ok(())
    }

    /// Fails when running iteration `i` (0-based) would exceed [`Limits::max_iterations`].
    pub fn check_iteration(&self, i: usize) -> Result<()> {
        if i >= self.limits.max_iterations {
            return Err(Error::InvalidArguments(format!(
                "the body would run more than {} iterations (Limits::max_iterations, \
                 oxidnn_request_set_limits)",
                self.limits.max_iterations
            )));
        }
        Ok(())
    }

    /// A holder for the per-iteration outputs of one running Loop or TensorIterator: what it
    /// [adds](Held::add) counts against [`Limits::max_bytes`] until it drops.
    pub fn hold(&self) -> Held<'_> {
        Held {
            budget: self,
            bytes: 0,
        }
    }
}

/// Bytes of per-iteration outputs held by one running Loop or TensorIterator.
#[derive(Debug)]
pub struct Held<'a> {
    budget: &'a Budget,
    bytes: usize,
}

impl Held<'_> {
    /// Adds `bytes`; fails (adding nothing) when the execution would then hold more than
    /// [`Limits::max_bytes`].
    pub fn add(&mut self, bytes: usize) -> Result<()> {
        let held = self.budget.held.get();
        let max = self.budget.limits.max_bytes;
        match held.checked_add(bytes) {
            Some(total) if total <= max => {
                self.budget.held.set(total);
                self.bytes += bytes;
                Ok(())
            }
            _ => Err(Error::OutOfMemory(format!(
                "the per-iteration outputs would take more than {max} bytes \
                 (Limits::max_bytes, oxidnn_request_set_limits)"
            ))),
        }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.budget.held.set(self.budget.held.get() - self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_bytes_are_bounded_and_released() {
        let budget = Budget::new(Limits {
            max_iterations: 3,
            max_bytes: 100,
        });
        {
            let mut a = budget.hold();
            a.add(60).unwrap();
            let mut b = budget.hold();
            assert!(matches!(b.add(41), Err(Error::OutOfMemory(_))));
            b.add(40).unwrap();
        }
        budget.hold().add(100).unwrap();
        assert!(budget.check_iteration(2).is_ok());
        assert!(budget.check_iteration(3).is_err());
        assert!(budget.check_tensor(101, &"y").is_err());
    }
}
