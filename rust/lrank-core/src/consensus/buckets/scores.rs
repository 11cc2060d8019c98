//! Borda and Copeland scores of a pair-order matrix with a tie threshold beta (Wang, Alfaro &
//! Bengs 2025).
//!
//! - Borda: `s_i = Σ_{j≠i} C_ij` (higher = earlier). Labels sorted by decreasing score (equal
//!   scores by label index); each label joins the bucket of the one before it unless their
//!   scores differ by more than beta, so ties chain (a, b, c with gaps below beta form one
//!   bucket even when a and c differ by more).
//! - Copeland: `s_i = #{j: C_ij > 1/2 + beta} + 1/2 #{j: |C_ij - 1/2| <= beta}` (higher =
//!   earlier); labels with equal scores are tied.

use super::{ranks_of_buckets, PairOrderMatrix, TIE_TOLERANCE};

/// Groups labels sorted by decreasing `scores` into buckets, a new bucket where consecutive
/// scores differ by more than `gap`.
fn buckets_by_score(scores: &[f64], gap: f64, tolerance: f64) -> Vec<i32> {
    let mut labels: Vec<usize> = (0..scores.len()).collect();
    labels.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut buckets: Vec<Vec<usize>> = Vec::new();
    for (k, &label) in labels.iter().enumerate() {
        // Scores within the tolerance are equal (sums of C's rounded ratios).
        if k == 0 || scores[labels[k - 1]] - scores[label] > gap + tolerance {
            buckets.push(Vec::new());
        }
        buckets.last_mut().expect("a bucket is open").push(label);
    }
    ranks_of_buckets(&buckets, scores.len())
}

/// Borda scores of C: each label's summed preference over the others.
pub fn borda_scores_of(c: &PairOrderMatrix) -> Vec<f64> {
    let m = c.n_labels();
    (0..m).map(|i| (0..m).filter(|&j| j != i).map(|j| c.get(i, j)).sum()).collect()
}

/// The Borda bucket order with tie threshold `beta` (see the module).
pub fn borda_with_ties(c: &PairOrderMatrix, beta: f64) -> Vec<i32> {
    borda_within(c, beta, TIE_TOLERANCE)
}

/// [`borda_with_ties`] with scores equal within `tolerance` (0: exactly, before model format 11).
pub(super) fn borda_within(c: &PairOrderMatrix, beta: f64, tolerance: f64) -> Vec<i32> {
    buckets_by_score(&borda_scores_of(c), beta, tolerance)
}

/// Copeland scores of C with tie threshold `beta`.
#[cfg(test)]
pub fn copeland_scores_of(c: &PairOrderMatrix, beta: f64) -> Vec<f64> {
    copeland_scores_within(c, beta, TIE_TOLERANCE)
}

fn copeland_scores_within(c: &PairOrderMatrix, beta: f64, tolerance: f64) -> Vec<f64> {
    let m = c.n_labels();
    (0..m)
        .map(|i| {
            (0..m)
                .filter(|&j| j != i)
                .map(|j| {
                    // One difference, compared both ways, so the three cases cannot overlap.
                    let d = c.get(i, j) - 0.5;
                    if d > beta + tolerance {
                        1.0
                    } else if d >= -beta - tolerance {
                        0.5
                    } else {
                        0.0
                    }
                })
                .sum()
        })
        .collect()
}

/// The Copeland bucket order with tie threshold `beta`: equal scores tie.
pub fn copeland_with_ties(c: &PairOrderMatrix, beta: f64) -> Vec<i32> {
    copeland_within(c, beta, TIE_TOLERANCE)
}

/// [`copeland_with_ties`] with its thresholds compared within `tolerance` (0: exactly).
pub(super) fn copeland_within(c: &PairOrderMatrix, beta: f64, tolerance: f64) -> Vec<i32> {
    // Scores are multiples of 1/2, so "equal" is exact.
    buckets_by_score(&copeland_scores_within(c, beta, tolerance), 0.0, tolerance)
}
