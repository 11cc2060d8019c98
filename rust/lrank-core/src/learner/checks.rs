//! Helpers of the learners' self-checks (see [`super::Learner::check`]).

use crate::data::ranking::validate_ranking;

pub type Check = std::result::Result<(), String>;

/// `r` is a complete ranking of `m` labels.
pub fn complete_ranking(r: &[i32], m: usize, what: &str) -> Check {
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
