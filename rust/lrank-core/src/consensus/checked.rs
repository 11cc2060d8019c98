//! The consensus functions for untrusted input (the Python bindings): each checks its weights
//! and rankings first and returns an error naming the problem.

use super::{borda as borda_of, borda_scores as borda_scores_of, copeland as copeland_of};
use crate::data::ranking::{validate_strict_ranking, RankMatrixView};
use crate::data::training::check_weights;
use crate::error::{invalid, LrankError, Result};
use crate::limits::check_iterations;

/// Generalized Borda votes of each label (see [`super::borda`]).
pub fn borda_scores(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Result<Vec<f64>> {
    check_weights(weights, rankings.n_rows())?;
    Ok(borda_scores_of(rankings, weights))
}

/// The generalized Borda consensus.
pub fn borda(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Result<Vec<i32>> {
    check_weights(weights, rankings.n_rows())?;
    Ok(borda_of(rankings, weights))
}

/// The Copeland consensus.
pub fn copeland(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Result<Vec<i32>> {
    check_weights(weights, rankings.n_rows())?;
    copeland_of(rankings, weights)
}

/// The Mallows model (see [`super::fit_mallows`]), its iteration cap checked.
pub fn fit_mallows(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>, max_iter: usize) -> Result<super::MallowsFit> {
    check_iterations("max_iter", max_iter)?;
    super::fit_mallows(rankings, weights, max_iter)
}

/// Plackett-Luce skills (see [`super::fit_plackett_luce`]), iteration cap and tolerance checked.
pub fn fit_plackett_luce(
    rankings: &RankMatrixView<'_>,
    weights: Option<&[f64]>,
    max_iter: usize,
    tol: f64,
) -> Result<super::PlackettLuceFit> {
    check_iterations("max_iter", max_iter)?;
    if !(tol >= 0.0 && tol.is_finite()) {
        return Err(LrankError::InvalidParameter { name: "tol", reason: format!("must be finite and >= 0, got {tol}") });
    }
    super::fit_plackett_luce(rankings, weights, max_iter, tol)
}

/// The completion of an incomplete `ranking` closest (Kendall) to a complete `centre`.
pub fn optimal_insertion(ranking: &[i32], centre: &[i32]) -> Result<Vec<i32>> {
    let m = centre.len();
    if ranking.len() != m {
        return Err(invalid(format!("ranking has {} labels, centre has {m}", ranking.len())));
    }
    validate_strict_ranking(ranking).map_err(|r| invalid(format!("ranking: {r}")))?;
    validate_strict_ranking(centre).map_err(|r| invalid(format!("centre: {r}")))?;
    if centre.contains(&0) {
        return Err(invalid("the centre must be a complete ranking"));
    }
    Ok(super::optimal_insertion(ranking, centre))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_weights_and_rankings_are_refused() {
        let y = [1, 2, 2, 1];
        let v = RankMatrixView::new(&y, 2, 2).unwrap();
        assert_eq!(borda(&v, Some(&[2.0, 1.0])).unwrap(), vec![1, 2]);
        assert!(borda(&v, Some(&[1.0])).unwrap_err().to_string().contains("weights has 1 entries, expected 2"));
        assert!(copeland(&v, Some(&[1.0, -1.0])).is_err());
        assert!(borda_scores(&v, Some(&[f64::NAN, 1.0])).is_err());
        assert_eq!(optimal_insertion(&[0, 1, 2], &[1, 2, 3]).unwrap(), vec![1, 2, 3]);
        assert!(optimal_insertion(&[0, 1], &[1, 2, 3]).is_err());
        assert!(optimal_insertion(&[1, 1, 2], &[1, 2, 3]).is_err());
        assert!(optimal_insertion(&[0, 1, 2], &[1, 0, 2]).unwrap_err().to_string().contains("complete"));
        // An unbounded iteration cap with a tolerance of 0 would run to its end.
        assert!(fit_plackett_luce(&v, None, usize::MAX, 0.0).unwrap_err().to_string().contains("max_iter"));
        assert!(fit_plackett_luce(&v, None, 10, f64::NAN).unwrap_err().to_string().contains("tol"));
        assert!(fit_mallows(&v, None, 0).is_err() && fit_mallows(&v, None, 20).is_ok());
    }
}
