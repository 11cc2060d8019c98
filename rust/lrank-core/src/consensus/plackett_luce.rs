//! The Plackett-Luce model: label j has skill v_j > 0, and a ranking is built by picking the
//! first label with probability v_j / Σ v, then the next among the rest, and so on. Its
//! maximum-likelihood skills are fitted from (weighted, possibly incomplete) rankings by
//! Hunter's MM algorithm (Hunter 2004, "MM algorithms for generalized Bradley-Terry models").
//!
//! An incomplete ranking is a full ranking of the labels it holds (the others are simply not
//! part of it). With w_j the weighted number of times label j is picked at a stage before the
//! last, and R_it the labels still unpicked at stage t of ranking i, one MM step is
//!
//!   v_j ← w_j / Σ_i w_i Σ_{t < k_i, j ∈ R_it} 1 / Σ_{l ∈ R_it} v_l,
//!
//! followed by scaling the skills to sum to 1. Choices:
//! - Start: all skills equal. Stop when no skill changes by more than `tol` relative to the
//!   largest skill, or after `max_iter` steps.
//! - A label never picked before the last place gets skill 0 (the MLE: it always comes last).
//! - A label that no ranking holds has no likelihood at all; it gets the geometric mean of the
//!   positive skills (a neutral middle) so that predictions can place it.

use crate::data::ranking::{order_of, RankMatrixView};
use crate::error::{invalid, Result};

/// Fitted skills (summing to 1 over the labels some ranking holds).
#[derive(Clone, Debug, PartialEq)]
pub struct PlackettLuceFit {
    pub skills: Vec<f64>,
    pub iterations: usize,
    pub converged: bool,
}

/// Fits Plackett-Luce skills by MM (see the module docs).
pub fn fit_plackett_luce(
    rankings: &RankMatrixView<'_>,
    weights: Option<&[f64]>,
    max_iter: usize,
    tol: f64,
) -> Result<PlackettLuceFit> {
    let (n, m) = (rankings.n_rows(), rankings.n_labels());
    crate::consensus::refuse_ties(rankings, "the Plackett-Luce model")?;
    if let Some(w) = weights {
        if w.len() != n || w.iter().any(|&v| !v.is_finite() || v < 0.0) {
            return Err(invalid("weights must have one finite, non-negative entry per ranking"));
        }
    }
    // Each ranking as its order (most preferred first) with its weight; single labels say nothing.
    let orders: Vec<(Vec<usize>, f64)> = rankings
        .rows()
        .enumerate()
        .map(|(i, r)| (order_of(r), weights.map_or(1.0, |w| w[i])))
        .filter(|(o, w)| o.len() >= 2 && *w > 0.0)
        .collect();
    if orders.is_empty() {
        return Err(invalid("cannot fit a Plackett-Luce model: no ranking with two labels and positive weight"));
    }
    let mut wins = vec![0.0; m];
    let mut seen = vec![false; m];
    for (order, w) in &orders {
        for &j in &order[..order.len() - 1] {
            wins[j] += w;
        }
        order.iter().for_each(|&j| seen[j] = true);
    }
    let n_seen = seen.iter().filter(|&&s| s).count() as f64;
    let mut skills: Vec<f64> = seen.iter().map(|&s| if s { 1.0 / n_seen } else { 0.0 }).collect();
    let mut denominators = vec![0.0; m];
    let mut iterations = 0;
    let mut converged = false;
    while iterations < max_iter {
        iterations += 1;
        denominators.iter_mut().for_each(|d| *d = 0.0);
        for (order, w) in &orders {
            // Suffix sums of the skills: the remaining set's total at each stage.
            let mut remaining: f64 = order.iter().map(|&j| skills[j]).sum();
            let mut share = 0.0; // Σ over stages so far of w / remaining
            for &j in order.iter().take(order.len() - 1) {
                if remaining > 0.0 {
                    share += w / remaining;
                }
                // Label j is in every remaining set up to and including its own stage.
                denominators[j] += share;
                remaining -= skills[j];
            }
            // The last label is in every remaining set.
            denominators[order[order.len() - 1]] += share;
        }
        let mut next: Vec<f64> =
            (0..m).map(|j| if seen[j] && denominators[j] > 0.0 { wins[j] / denominators[j] } else { 0.0 }).collect();
        let total: f64 = next.iter().sum();
        if !(total > 0.0) {
            break;
        }
        next.iter_mut().for_each(|v| *v /= total);
        let largest = next.iter().cloned().fold(0.0, f64::max);
        let change = next.iter().zip(&skills).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        skills = next;
        if change <= tol * largest {
            converged = true;
            break;
        }
    }
    // Labels no ranking holds: the geometric mean of the positive skills.
    let positive: Vec<f64> = skills.iter().zip(&seen).filter(|(&v, &s)| s && v > 0.0).map(|(&v, _)| v).collect();
    if !positive.is_empty() && seen.iter().any(|&s| !s) {
        let middle = (positive.iter().map(|v| v.ln()).sum::<f64>() / positive.len() as f64).exp();
        for j in 0..m {
            if !seen[j] {
                skills[j] = middle;
            }
        }
    }
    Ok(PlackettLuceFit { skills, iterations, converged })
}

/// Probability of the complete ranking `ranks` under skills `skills` (0 if it puts a label of
/// skill 0 before one of positive skill).
pub fn ranking_probability(ranks: &[i32], skills: &[f64]) -> f64 {
    let order = order_of(ranks);
    let mut remaining: f64 = order.iter().map(|&j| skills[j]).sum();
    let mut p = 1.0;
    for &j in &order[..order.len().saturating_sub(1)] {
        if remaining <= 0.0 {
            break;
        }
        p *= skills[j] / remaining;
        remaining -= skills[j];
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(y: &[i32], m: usize) -> RankMatrixView<'_> {
        RankMatrixView::new(y, y.len() / m, m).unwrap()
    }

    #[test]
    fn two_labels_have_the_closed_form_share_of_wins() {
        // a before b 7 times (weights 3 + 4), b before a 3 times: v_a / (v_a + v_b) = 0.7.
        let y = [1, 2, 1, 2, 2, 1];
        let fit = fit_plackett_luce(&view(&y, 2), Some(&[3.0, 4.0, 3.0]), 100, 1e-12).unwrap();
        assert!((fit.skills[0] - 0.7).abs() < 1e-12, "{:?}", fit.skills);
        assert!(fit.converged);
    }

    #[test]
    fn stationary_point_of_the_likelihood() {
        // At the MLE the MM map is a fixed point: w_j = v_j × (its denominator).
        let y = [1, 2, 3, 2, 1, 3, 1, 3, 2, 3, 1, 2, 1, 2, 0, 0, 2, 1];
        let v = view(&y, 3);
        let fit = fit_plackett_luce(&v, None, 10_000, 1e-14).unwrap();
        assert!(fit.converged);
        let again = fit_plackett_luce(&v, None, 1, 0.0).unwrap();
        assert!(again.skills.iter().all(|s| *s > 0.0));
        // Log-likelihood is not improved by small moves of the fitted skills.
        let ll = |s: &[f64]| {
            v.rows().filter(|r| r.iter().filter(|&&x| x > 0).count() >= 2).map(|r| ranking_probability(r, s).ln()).sum::<f64>()
        };
        let best = ll(&fit.skills);
        for j in 0..3 {
            for eps in [1e-4, -1e-4] {
                let mut s = fit.skills.clone();
                s[j] *= 1.0 + eps;
                assert!(ll(&s) <= best + 1e-12);
            }
        }
    }

    #[test]
    fn always_last_labels_get_zero_and_unseen_labels_the_middle() {
        // Label 2 is always last; label 3 never ranked.
        let y = [1, 2, 3, 0, 2, 1, 3, 0];
        let fit = fit_plackett_luce(&view(&y, 4), None, 200, 1e-12).unwrap();
        assert_eq!(fit.skills[2], 0.0);
        assert!((fit.skills[0] - 0.5).abs() < 1e-12 && (fit.skills[1] - 0.5).abs() < 1e-12);
        assert!((fit.skills[3] - 0.5).abs() < 1e-12);
        assert!(fit_plackett_luce(&view(&[1, 0, 0, 0], 4), None, 10, 1e-9).is_err());
    }

    #[test]
    fn probability_of_a_ranking() {
        let p = ranking_probability(&[1, 2, 3], &[0.5, 0.3, 0.2]);
        assert!((p - 0.5 * 0.6).abs() < 1e-12);
    }
}
