//! Upper bounds on the counts a parameter may ask for: trees and members of a model, iterations
//! of an iterative fit. Each is checked with the parameters, before any work or allocation.

use crate::error::{LrankError, Result};

/// The most trees or members a model may hold (`n_estimators`, multiplied through nested
/// bagging). A count is checked before anything is allocated for it: `n_estimators = 10**12`
/// would otherwise abort the process in a failed allocation, and a million trees is far beyond
/// any published use (the papers grow at most a few hundred).
pub const MAX_MODELS: u64 = 1_000_000;

/// The most iterations (Newton steps, EM or MM rounds) a `max_iter` may ask for: 1000 times the
/// defaults' order; the fits stop much earlier when they converge, and a tolerance of 0 would
/// otherwise run an unbounded count to its end.
pub const MAX_ITERATIONS: usize = 100_000;

/// Refuses a model count (see [`crate::learner::Params::models`]) over [`MAX_MODELS`], naming the parameter.
pub fn check_models(name: &'static str, models: u64) -> Result<()> {
    if models == 0 {
        return Err(LrankError::InvalidParameter { name, reason: "must be at least 1".into() });
    }
    if models > MAX_MODELS {
        return Err(LrankError::InvalidParameter {
            name,
            reason: format!("asks for {models} trees or members; at most {MAX_MODELS} are allowed"),
        });
    }
    Ok(())
}

/// Refuses an iteration cap of 0 or over [`MAX_ITERATIONS`], naming the parameter.
pub fn check_iterations(name: &'static str, max_iter: usize) -> Result<()> {
    if max_iter == 0 {
        return Err(LrankError::InvalidParameter { name, reason: "must be at least 1".into() });
    }
    if max_iter > MAX_ITERATIONS {
        return Err(LrankError::InvalidParameter { name, reason: format!("must be at most {MAX_ITERATIONS}, got {max_iter}") });
    }
    Ok(())
}
