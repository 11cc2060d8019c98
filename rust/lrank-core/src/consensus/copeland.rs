//! Copeland consensus: each label scores one point for every other label it beats in a
//! (weighted) pairwise majority and half a point for a tie; only the pairs a ranking contains
//! count for it. Labels are ranked by decreasing score, ties to the lower label index. A pair a
//! ranking ties counts for neither label (as a preference half each way would). The
//! partial-label-ranking Copeland that keeps ties is [`crate::consensus::buckets`].

use crate::data::ranking::{ranking_from_scores, RankMatrixView};
use crate::error::Result;

/// Copeland scores: for each label, the number of other labels it beats in a (weighted)
/// pairwise majority, a tie counting one half. Only pairs a ranking contains count for it.
/// The m x m table of pairwise weights is refused when it would not fit in memory.
pub fn copeland_scores(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Result<Vec<f64>> {
    let m = rankings.n_labels();
    // before[a * m + b]: weight of rankings with a before b
    let mut before: Vec<f64> = crate::memory::zeroed("Copeland's table of label pairs", &[m, m])?;
    for (i, row) in rankings.rows().enumerate() {
        let w = weights.map_or(1.0, |w| w[i]);
        for a in 0..m {
            for b in 0..m {
                if a != b && row[a] > 0 && row[b] > 0 && row[a] < row[b] {
                    before[a * m + b] += w;
                }
            }
        }
    }
    Ok((0..m)
        .map(|a| {
            (0..m)
                .filter(|&b| b != a)
                .map(|b| match before[a * m + b].total_cmp(&before[b * m + a]) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                })
                .sum()
        })
        .collect())
}

/// The Copeland consensus: labels by decreasing Copeland score, ties to the lower label index.
pub fn copeland(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Result<Vec<i32>> {
    Ok(ranking_from_scores(&copeland_scores(rankings, weights)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copeland_on_a_three_cycle_and_with_a_condorcet_winner() {
        // 0>1>2, 1>2>0, 2>0>1: every pair 2 to 1 around a cycle, so each label beats one
        // other: scores 1, 1, 1 and the tie goes to label order.
        let cycle = [1, 2, 3, 3, 1, 2, 2, 3, 1];
        let v = RankMatrixView::new(&cycle, 3, 3).unwrap();
        assert_eq!(copeland_scores(&v, None).unwrap(), vec![1.0, 1.0, 1.0]);
        assert_eq!(copeland(&v, None).unwrap(), vec![1, 2, 3]);
        // Weight the second voter 3: 1 beats 0 (3 against 2), 1 beats 2 (4 against 1) and
        // 2 beats 0 (4 against 1): order 1 > 2 > 0.
        assert_eq!(copeland(&v, Some(&[1.0, 3.0, 1.0])).unwrap(), vec![3, 1, 2]);
        // Incomplete rankings count only their pairs; an even split is a half win each.
        let y = [1, 2, 0, 2, 1, 0, 0, 1, 2];
        let v = RankMatrixView::new(&y, 3, 3).unwrap();
        assert_eq!(copeland_scores(&v, None).unwrap(), vec![1.0, 1.5, 0.5]);
    }
}
