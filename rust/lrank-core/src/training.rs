//! Checks shared by every learner's `fit`.

use crate::error::{invalid, LrankError, Result};
use crate::features::FeatureMatrixView;
use crate::ranking::{n_present, RankMatrixView};

/// Checks a training set and returns one weight per row (the sample weights, or all 1).
///
/// Refuses: no rows, no features, X and Y of different lengths, a ranking without labels
/// (it carries no information and has no top label), sample weights of the wrong length or
/// negative or not finite.
pub fn checked_training_set(
    x: &FeatureMatrixView<'_>,
    y: &RankMatrixView<'_>,
    sample_weight: Option<&[f64]>,
) -> Result<Vec<f64>> {
    let n = x.n_rows();
    if n == 0 {
        return Err(invalid("cannot fit on an empty training set"));
    }
    if y.n_rows() != n {
        return Err(invalid(format!("X has {n} rows but Y has {}", y.n_rows())));
    }
    if x.n_features() == 0 {
        return Err(invalid("X has no features"));
    }
    if let Some(row) = y.rows().position(|r| n_present(r) == 0) {
        return Err(LrankError::InvalidRanking { row, reason: "a training ranking must contain at least one label".into() });
    }
    match sample_weight {
        None => Ok(vec![1.0; n]),
        Some(w) if w.len() != n => Err(invalid(format!("sample_weight has {} entries, expected {n}", w.len()))),
        Some(w) if w.iter().any(|&v| !(v >= 0.0) || v.is_infinite()) => {
            Err(invalid("sample weights must be finite and non-negative"))
        }
        Some(w) => Ok(w.to_vec()),
    }
}
