//! Exact Kemeny aggregation by dynamic programming over label subsets.
//!
//! With w[a][b] the total weight of the rankings that contain both labels and put a before b,
//! the weighted Kendall cost of a complete ranking π is Σ_{a,b} w[a][b] [π puts b before a]
//! (an incomplete ranking only counts the pairs it contains, a bucket order not its tied pairs,
//! which cost the same in either order; an empty one counts nothing).
//! Building π from the top, placing x right after the set S of labels already placed costs
//! c(S, x) = Σ_{y ∉ S, y ≠ x} w[y][x]: every label still to come ends up after x. The DP runs
//! backwards: g(S) = min_{x ∉ S} c(S, x) + g(S ∪ {x}) is the least cost of ordering the labels
//! outside S below S, g(all) = 0, and the Kemeny cost is g(∅). Time O(2^m m^2), memory O(2^m).
//!
//! Ties: the ranking is rebuilt from the top, taking at each step the lowest label index x among
//! those that attain the minimum, so among all Kemeny medians the result has the
//! lexicographically smallest label order (most preferred label first). The comparisons are on
//! floating-point sums, evaluated identically in the DP and the rebuild, so the result is
//! deterministic; with integer weights (unit weights, counts) below 2^53 the sums are exact and
//! "equal cost" means exactly equal.

use crate::data::ranking::{ranks_of_order, RankMatrixView};
use crate::data::training::check_weights;
use crate::error::{LrankError, Result};

/// Largest number of labels [`kemeny`] accepts (2^16 subsets, about 16.8 M elementary steps).
pub const MAX_KEMENY_LABELS: usize = 16;

/// w[a * m + b] = total weight of the rows that contain a and b and put a before b.
pub(crate) fn pairwise_weights(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Vec<f64> {
    let m = rankings.n_labels();
    let mut w = vec![0.0; m * m];
    for (i, row) in rankings.rows().enumerate() {
        let wi = weights.map_or(1.0, |w| w[i]);
        for a in 0..m {
            if row[a] <= 0 {
                continue;
            }
            for b in 0..m {
                if row[b] > 0 && row[a] < row[b] {
                    w[a * m + b] += wi;
                }
            }
        }
    }
    w
}

/// c(S, x): weight of the pairs (y, x), y outside S, that placing x next turns against y.
fn step_cost(w: &[f64], m: usize, placed: usize, x: usize) -> f64 {
    (0..m).filter(|&y| y != x && placed & (1 << y) == 0).map(|y| w[y * m + x]).sum()
}

/// Best next label and its total cost below `placed`, lowest index on ties.
fn best_next(w: &[f64], m: usize, g: &[f64], placed: usize) -> (usize, f64) {
    let mut best = (usize::MAX, f64::INFINITY);
    for x in (0..m).filter(|&x| placed & (1 << x) == 0) {
        let v = step_cost(w, m, placed, x) + g[placed | (1 << x)];
        if v < best.1 || best.0 == usize::MAX {
            best = (x, v);
        }
    }
    best
}

/// Kemeny order (labels, most preferred first) and its cost from the pairwise weights.
pub(crate) fn kemeny_order(w: &[f64], m: usize) -> (Vec<usize>, f64) {
    debug_assert!(m <= MAX_KEMENY_LABELS);
    let full = (1usize << m) - 1;
    let mut g = vec![0.0; full + 1];
    for placed in (0..full).rev() {
        g[placed] = best_next(w, m, &g, placed).1;
    }
    let mut order = Vec::with_capacity(m);
    let mut placed = 0usize;
    while placed != full {
        let (x, _) = best_next(w, m, &g, placed);
        order.push(x);
        placed |= 1 << x;
    }
    (order, g[0])
}

/// The exact Kemeny median of (weighted, possibly incomplete) rankings: the complete ranking
/// minimising the weighted sum of Kendall distances to the rows, each row counting only the
/// label pairs it contains. Ties go to the lexicographically smallest label order (see the
/// module docs). With no rows, or only empty rows, every ranking is optimal and the identity
/// ranking is returned.
///
/// # Errors
/// `InvalidInput` for more than [`MAX_KEMENY_LABELS`] labels, and for weights of the wrong
/// length or that are negative or not finite.
pub fn kemeny(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Result<Vec<i32>> {
    let m = rankings.n_labels();
    if m > MAX_KEMENY_LABELS {
        // The data's label count, not a parameter the user set: said as a fact of the data.
        return Err(LrankError::InvalidInput(format!(
            "exact Kemeny aggregation supports at most {MAX_KEMENY_LABELS} labels, the rankings have {m}: \
             use borda, copeland or mallows"
        )));
    }
    check_weights(weights, rankings.n_rows())?;
    let w = pairwise_weights(rankings, weights);
    let (order, _) = kemeny_order(&w, m);
    Ok(ranks_of_order(&order, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(r: &[i32], n: usize, m: usize) -> RankMatrixView<'_> {
        RankMatrixView::new(r, n, m).unwrap()
    }

    #[test]
    fn unanimous_and_empty() {
        let r = [2, 3, 1, 4, 2, 3, 1, 4];
        assert_eq!(kemeny(&view(&r, 2, 4), None).unwrap(), vec![2, 3, 1, 4]);
        assert_eq!(kemeny(&view(&[], 0, 3), None).unwrap(), vec![1, 2, 3]);
        assert_eq!(kemeny(&view(&[0, 0, 0], 1, 3), None).unwrap(), vec![1, 2, 3]);
        assert_eq!(kemeny(&view(&[1], 1, 1), None).unwrap(), vec![1]);
    }

    #[test]
    fn condorcet_cycle_ties_to_lexicographic_order() {
        // 0>1>2, 1>2>0, 2>0>1: the three rotations all cost 4; 0>1>2 is the smallest.
        let r = [1, 2, 3, 3, 1, 2, 2, 3, 1];
        assert_eq!(kemeny(&view(&r, 3, 3), None).unwrap(), vec![1, 2, 3]);
        // Extra weight on 2>0>1 makes it the unique optimum.
        assert_eq!(kemeny(&view(&r, 3, 3), Some(&[1.0, 1.0, 1.5])).unwrap(), vec![2, 3, 1]);
        let (_, cost) = kemeny_order(&pairwise_weights(&view(&r, 3, 3), None), 3);
        assert_eq!(cost, 4.0);
    }

    #[test]
    fn incomplete_rows_count_their_pairs_only() {
        // 1>0 (label 2 missing) twice, 0>2 once, 2>1 once: 1>0>2 costs 1 (the pair 2>1).
        let r = [2, 1, 0, 2, 1, 0, 1, 0, 2, 0, 2, 1];
        let v = view(&r, 4, 3);
        assert_eq!(kemeny(&v, None).unwrap(), vec![2, 1, 3]);
        assert_eq!(kemeny_order(&pairwise_weights(&v, None), 3).1, 1.0);
    }

    #[test]
    fn refuses_too_many_labels_and_bad_weights() {
        let m = MAX_KEMENY_LABELS + 1;
        let r: Vec<i32> = (1..=m as i32).collect();
        let err = kemeny(&view(&r, 1, m), None).unwrap_err();
        assert!(matches!(err, LrankError::InvalidInput(_)));
        assert!(err.to_string().contains("16"), "{err}");
        let v = view(&[1, 2], 1, 2);
        assert!(kemeny(&v, Some(&[1.0, 1.0])).is_err());
        assert!(kemeny(&v, Some(&[-1.0])).is_err());
        assert!(kemeny(&v, Some(&[f64::NAN])).is_err());
        assert!(kemeny(&v, Some(&[f64::INFINITY])).is_err());
    }

    #[test]
    fn sixteen_labels_run() {
        let m = MAX_KEMENY_LABELS;
        let a: Vec<i32> = (1..=m as i32).collect();
        let b: Vec<i32> = (1..=m as i32).rev().collect();
        let r = [a.clone(), a.clone(), b].concat();
        assert_eq!(kemeny(&view(&r, 3, m), None).unwrap(), a);
    }
}
