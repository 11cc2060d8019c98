//! Helpers of the learners' self-checks (see [`super::Learner::check`]).

use crate::data::ranking::{validate_ranking, validate_strict_ranking};

pub type Check = std::result::Result<(), String>;

/// `r` is a complete ranking of `m` labels without ties.
pub fn complete_ranking(r: &[i32], m: usize, what: &str) -> Check {
    if r.len() != m {
        return Err(format!("{what} has {} positions for {m} labels", r.len()));
    }
    validate_strict_ranking(r).map_err(|e| format!("{what}: {e}"))?;
    if r.contains(&0) {
        return Err(format!("{what} is not a complete ranking"));
    }
    Ok(())
}

/// `r` is a complete bucket order of `m` labels (ties allowed).
pub fn complete_bucket_order(r: &[i32], m: usize, what: &str) -> Check {
    if r.len() != m {
        return Err(format!("{what} has {} positions for {m} labels", r.len()));
    }
    validate_ranking(r).map_err(|e| format!("{what}: {e}"))?;
    if r.contains(&0) {
        return Err(format!("{what} is not a complete ranking"));
    }
    Ok(())
}

/// A list has the expected length.
pub fn same_len(len: usize, expected: usize, what: &str) -> Check {
    if len != expected {
        return Err(format!("{what} has {len} entries, expected {expected}"));
    }
    Ok(())
}
