//! The approximate EM median of a Mallows model from incomplete rankings (Algorithm 1 of Cheng,
//! Hühn & Hüllermeier 2009) and the maximum-likelihood spread.
//!
//! Iteration: start from the (weighted) generalized Borda centre of the observed rankings; then
//! repeatedly complete every ranking by [`optimal_insertion`] with respect to the current centre
//! and take the (weighted) Borda centre of the completions, until the centre no longer changes.
//!
//! Choices (see also the module docs of [`crate::consensus::mallows`]):
//! - Rows without labels carry no information and are skipped (they would give every label the
//!   same Borda votes and have no completion cost); zero-weight rows take part but count nothing.
//! - Objective: L(π) = Σ_i w_i d_K(c_i(π), π), the weighted Kendall distance of each row's
//!   optimal completion c_i(π) to π (by Proposition 1 this is the least distance of any
//!   completion of row i). The paper's Borda step is not a Kendall minimiser, so L can go up
//!   from one centre to the next (about 2% of random small problems do). The iteration itself is
//!   run exactly as in the paper, but the centre returned is the visited centre with the smallest
//!   L, the latest one on ties. So the result is never worse than the Borda start, and it is the
//!   paper's final centre unless an earlier centre was strictly better.
//! - Stopping: the Borda step returns the current centre (a fixed point: `converged = true`),
//!   the step returns a centre visited before (the map centre -> next centre is deterministic,
//!   so the sequence cycles from there: stop, `converged = false`), or `max_iter` Borda steps
//!   were taken (`converged = false`). `iterations` counts Borda steps, including the one that
//!   detected the fixed point; `max_iter = 0` returns the Borda centre unchanged.
//! - θ = [`theta_mle`](super::theta_mle)(L(centre) / Σ_i w_i, m) with m the number of labels of
//!   the matrix: the weighted mean distance of the completions to the returned centre, as in the
//!   paper's EM (the missing labels are imputed). Since completions agree with the centre on
//!   every pair involving two missing labels, this is smaller than the distance of a Mallows
//!   sample would be, so θ is optimistic for very incomplete data.

use super::{optimal_insertion, theta_mle};
use crate::consensus::borda::BordaAccumulator;
use crate::data::ranking::{n_present, RankMatrixView};
use crate::data::training::check_weights;
use crate::error::{invalid, Result};
use crate::metrics::distance::kendall_distance;

/// A fitted Mallows model.
#[derive(Clone, Debug, PartialEq)]
pub struct MallowsFit {
    /// The centre (a complete rank vector).
    pub centre: Vec<i32>,
    /// The spread θ >= 0; `f64::INFINITY` when every (completed) ranking equals the centre.
    pub theta: f64,
    /// Number of Borda steps taken.
    pub iterations: usize,
    /// Whether the iteration reached a fixed point (rather than `max_iter` or a cycle).
    pub converged: bool,
}

/// Weighted generalized Borda centre (exact accumulation, ties to the lower label index).
fn borda_of<'r>(rows: impl Iterator<Item = (&'r [i32], f64)>, m: usize) -> Vec<i32> {
    let mut acc = BordaAccumulator::new(m);
    rows.for_each(|(r, w)| acc.add(r, w));
    acc.ranking()
}

/// One centre of the iteration with its completions and objective L.
struct State {
    centre: Vec<i32>,
    completions: Vec<Vec<i32>>,
    cost: f64,
}

impl State {
    fn new(rows: &[(&[i32], f64)], centre: Vec<i32>) -> Self {
        let completions: Vec<Vec<i32>> = rows.iter().map(|&(r, _)| optimal_insertion(r, &centre)).collect();
        let cost = completions.iter().zip(rows).map(|(c, &(_, w))| w * kendall_distance(c, &centre).0 as f64).sum();
        State { centre, completions, cost }
    }

    fn next_centre(&self, rows: &[(&[i32], f64)]) -> Vec<i32> {
        let m = self.centre.len();
        borda_of(self.completions.iter().zip(rows).map(|(c, &(_, w))| (c.as_slice(), w)), m)
    }
}

/// Fits a Mallows model (Kendall distance) to (weighted, possibly incomplete) rankings by the
/// approximate EM of Cheng, Hühn & Hüllermeier (2009); see the module docs for every choice.
///
/// # Errors
/// `InvalidInput` when the weights have the wrong length or are negative or not finite, when no
/// row contains a label, or when the rows that contain labels have zero (or overflowing) total
/// weight, or when a ranking holds tied labels (the model has no ties).
pub fn fit_mallows(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>, max_iter: usize) -> Result<MallowsFit> {
    crate::consensus::refuse_ties(rankings, "the Mallows model")?;
    let median = mallows_median(rankings, weights, max_iter)?;
    Ok(MallowsFit {
        theta: theta_mle(median.mean_distance, rankings.n_labels()),
        centre: median.centre,
        iterations: median.iterations,
        converged: median.converged,
    })
}

/// The EM median without the spread: callers that compute θ their own way (a table, for many
/// fits with the same m) take `mean_distance`, the weighted mean distance of the completions.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MallowsMedian {
    pub centre: Vec<i32>,
    pub mean_distance: f64,
    pub iterations: usize,
    pub converged: bool,
}

/// The centre of [`fit_mallows`] and the mean distance θ is estimated from.
pub(crate) fn mallows_median(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>, max_iter: usize) -> Result<MallowsMedian> {
    median_of(rankings, weights, max_iter, true)
}

/// The centre of [`mallows_median`] alone: for complete rankings (where it is the Borda
/// ranking) the mean distance to it is not computed, and is NaN in the result.
pub(crate) fn mallows_centre(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>, max_iter: usize) -> Result<MallowsMedian> {
    median_of(rankings, weights, max_iter, false)
}

fn median_of(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>, max_iter: usize, with_cost: bool) -> Result<MallowsMedian> {
    check_weights(weights, rankings.n_rows())?;
    let m = rankings.n_labels();
    let rows: Vec<(&[i32], f64)> =
        rankings.rows().enumerate().filter(|(_, r)| n_present(r) > 0).map(|(i, r)| (r, weights.map_or(1.0, |w| w[i]))).collect();
    median_of_rows(&rows, m, max_iter, with_cost)
}

/// [`mallows_median`] of rankings given as (ranking, weight) pairs, none of them empty and the
/// weights finite and non-negative (a tree node's rows, without copying them into a matrix).
pub(crate) fn mallows_median_of_rows(rows: &[(&[i32], f64)], m: usize, max_iter: usize) -> Result<MallowsMedian> {
    debug_assert!(rows.iter().all(|&(r, w)| n_present(r) > 0 && r.len() == m && w.is_finite() && w >= 0.0));
    median_of_rows(rows, m, max_iter, true)
}

fn median_of_rows(rows: &[(&[i32], f64)], m: usize, max_iter: usize, with_cost: bool) -> Result<MallowsMedian> {
    if rows.is_empty() {
        return Err(invalid("cannot fit a Mallows model: no ranking contains a label"));
    }
    let total_weight: f64 = rows.iter().map(|&(_, w)| w).sum();
    if total_weight == 0.0 || total_weight.is_infinite() {
        return Err(invalid(format!("cannot fit a Mallows model: the non-empty rankings have total weight {total_weight}")));
    }
    if rows.iter().all(|&(r, _)| n_present(r) == m) {
        // Complete rankings are their own completions, so the first Borda step returns the
        // Borda centre again: the general iteration would stop there after one step.
        let centre = borda_of(rows.iter().copied(), m);
        let mean_distance = if with_cost {
            rows.iter().map(|&(r, w)| w * kendall_distance(r, &centre).0 as f64).sum::<f64>() / total_weight
        } else {
            f64::NAN
        };
        return Ok(MallowsMedian { centre, mean_distance, iterations: max_iter.min(1), converged: max_iter >= 1 });
    }
    em_median(rows, m, total_weight, max_iter)
}

/// The general iteration (module docs) on the non-empty rows.
fn em_median(rows: &[(&[i32], f64)], m: usize, total_weight: f64, max_iter: usize) -> Result<MallowsMedian> {
    let mut state = State::new(rows, borda_of(rows.iter().copied(), m));
    let mut visited = vec![state.centre.clone()];
    let mut best: Option<State> = None; // None: `state` is the best so far
    let mut iterations = 0;
    let mut converged = false;
    while iterations < max_iter {
        iterations += 1;
        let next = state.next_centre(rows);
        if next == state.centre {
            converged = true;
            break;
        }
        if visited.contains(&next) {
            break;
        }
        visited.push(next.clone());
        let candidate = State::new(rows, next);
        let best_cost = best.as_ref().map_or(state.cost, |b| b.cost);
        let previous = std::mem::replace(&mut state, candidate);
        if state.cost <= best_cost {
            best = None;
        } else if best.is_none() {
            best = Some(previous);
        }
    }
    let best = best.unwrap_or(state);
    Ok(MallowsMedian { mean_distance: best.cost / total_weight, centre: best.centre, iterations, converged })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::mallows::expected_kendall_distance;

    fn view(r: &[i32], n: usize, m: usize) -> RankMatrixView<'_> {
        RankMatrixView::new(r, n, m).unwrap()
    }

    #[test]
    fn identical_complete_rankings() {
        let r = [3, 1, 2, 3, 1, 2, 3, 1, 2];
        let f = fit_mallows(&view(&r, 3, 3), None, 10).unwrap();
        assert_eq!(f, MallowsFit { centre: vec![3, 1, 2], theta: f64::INFINITY, iterations: 1, converged: true });
    }

    #[test]
    fn hand_checked_three_labels() {
        // Rows 0>1, 1>2, 2>0 (one label missing each). Generalized Borda gives every label
        // 8/3 + 2 + 4/3 = 6 votes, so the centre starts at 0>1>2. Completions: 0>1>2, 0>1>2 and,
        // for 2>0, label 1 costs 1 in slot 0, 2 in slot 1, 1 in slot 2 -> slot 0: 1>2>0.
        // Borda of the completions: 7, 7, 4 -> 0>1>2 again: a fixed point after one step.
        // Distances 0, 0, 2 -> mean 2/3.
        let r = [1, 2, 0, 0, 1, 2, 2, 0, 1];
        let f = fit_mallows(&view(&r, 3, 3), None, 10).unwrap();
        assert_eq!(f.centre, vec![1, 2, 3]);
        assert_eq!((f.iterations, f.converged), (1, true));
        assert!((expected_kendall_distance(f.theta, 3) - 2.0 / 3.0).abs() < 1e-10);
        assert!(f.theta > 0.0 && f.theta.is_finite());
    }

    #[test]
    fn empty_rows_are_skipped() {
        let r = [0, 0, 0, 1, 2, 3, 0, 0, 0];
        let f = fit_mallows(&view(&r, 3, 3), None, 10).unwrap();
        assert_eq!((f.centre, f.theta), (vec![1, 2, 3], f64::INFINITY));
        assert!(fit_mallows(&view(&[0, 0, 0, 0], 2, 2), None, 10).is_err());
        assert!(fit_mallows(&view(&[], 0, 2), None, 10).is_err());
        // Zero weight on every non-empty row.
        assert!(fit_mallows(&view(&[1, 2, 0, 0], 2, 2), Some(&[0.0, 1.0]), 10).is_err());
        assert!(fit_mallows(&view(&[1, 2], 1, 2), Some(&[-1.0]), 10).is_err());
        assert!(fit_mallows(&view(&[1, 2], 1, 2), Some(&[1.0, 1.0]), 10).is_err());
    }

    #[test]
    fn keeps_the_better_earlier_centre() {
        // Rows 0>2>1>3, 2>1>0, 1>0. Generalized Borda votes 6.92, 7.83, 9.25, 6 -> 2>1>0>3,
        // with completions 0>2>1>3, 2>1>0>3, 2>1>0>3 at distances 2, 0, 0 (L = 2). Their Borda
        // votes 8, 8, 11, 3 give 2>0>1>3 (tie to label 0), where the completions are the same but
        // lie at distances 1, 1, 1 (L = 3), and which is a fixed point. The paper's iteration
        // ends at 2>0>1>3; the fit returns the better start 2>1>0>3.
        let r = [1, 3, 2, 4, 3, 2, 1, 0, 2, 1, 0, 0];
        let f = fit_mallows(&view(&r, 3, 4), None, 10).unwrap();
        assert_eq!(f.centre, vec![3, 2, 1, 4]);
        assert_eq!((f.iterations, f.converged), (2, true));
        assert!((expected_kendall_distance(f.theta, 4) - 2.0 / 3.0).abs() < 1e-10);
    }

    #[test]
    fn the_complete_rankings_shortcut_equals_the_general_iteration() {
        let mut rng = crate::rng::Rng::new(17);
        for trial in 0..300 {
            let m = 1 + trial % 8;
            let n = 1 + rng.below(9);
            let mut y = Vec::new();
            for _ in 0..n {
                let mut order: Vec<usize> = (0..m).collect();
                rng.shuffle(&mut order);
                y.extend(crate::data::ranking::ranks_of_order(&order, m));
            }
            let weights: Vec<f64> = (0..n).map(|_| rng.below(4) as f64 + 0.5).collect();
            let rows: Vec<(&[i32], f64)> = y.chunks(m).zip(weights.iter().copied()).collect();
            let total: f64 = weights.iter().sum();
            for max_iter in [0, 1, 20] {
                let fast = mallows_median(&view(&y, n, m), Some(&weights), max_iter).unwrap();
                let general = em_median(&rows, m, total, max_iter).unwrap();
                assert_eq!(fast, general, "trial {trial}, max_iter {max_iter}");
            }
        }
    }

    #[test]
    fn zero_iterations_return_borda() {
        let r = [1, 2, 3, 2, 1, 3, 2, 1, 3];
        let f = fit_mallows(&view(&r, 3, 3), None, 0).unwrap();
        assert_eq!((f.centre, f.iterations, f.converged), (vec![2, 1, 3], 0, false));
        // mean distance 1/3
        assert!((expected_kendall_distance(f.theta, 3) - 1.0 / 3.0).abs() < 1e-10);
    }
}
