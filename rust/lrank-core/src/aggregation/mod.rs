//! Rank aggregation: one consensus ranking from several (weighted, possibly incomplete) rankings.
//!
//! Borda: a label at position r of a complete ranking of m labels receives m + 1 - r votes.
//! Generalized Borda (Cheng, Hühn & Hüllermeier 2009) for a ranking holding m' of the m labels:
//! a ranked label at position r receives (m' + 1 - r)(m + 1)/(m' + 1) votes and a missing label
//! (m + 1)/2, so every ranking hands out the same total and a missing label counts as "middle".
//! On complete rankings the two coincide. The consensus ranks labels by decreasing total votes;
//! equal totals are broken in favour of the lower label index.

use crate::ranking::{n_present, ranking_from_scores, RankMatrixView};

/// Adds `weight` times the generalized Borda votes of `row` to `scores`.
pub fn add_borda_votes(row: &[i32], weight: f64, scores: &mut [f64]) {
    let m = row.len() as f64;
    let k = n_present(row) as f64;
    if k == 0.0 {
        // An empty ranking says nothing; it gives every label the same middle score.
        scores.iter_mut().for_each(|s| *s += weight * (m + 1.0) / 2.0);
        return;
    }
    let scale = (m + 1.0) / (k + 1.0);
    for (s, &r) in scores.iter_mut().zip(row) {
        *s += weight
            * if r > 0 {
                (k + 1.0 - r as f64) * scale
            } else {
                (m + 1.0) / 2.0
            };
    }
}

/// Total (weighted) generalized Borda votes of each label.
pub fn borda_scores(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Vec<f64> {
    let mut scores = vec![0.0; rankings.n_labels()];
    for (i, row) in rankings.rows().enumerate() {
        add_borda_votes(row, weights.map_or(1.0, |w| w[i]), &mut scores);
    }
    scores
}

/// The (weighted, generalized) Borda consensus ranking as a rank vector.
pub fn borda(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Vec<i32> {
    ranking_from_scores(&borda_scores(rankings, weights))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borda_of_complete_rankings() {
        // 0>1>2, 0>1>2, 2>0>1 -> votes 3+3+2=8, 2+2+1=5, 1+1+3=5 -> 0, then 1 (tie with 2, lower index)
        let r = [1, 2, 3, 1, 2, 3, 2, 3, 1];
        let v = RankMatrixView::new(&r, 3, 3).unwrap();
        assert_eq!(borda_scores(&v, None), vec![8.0, 5.0, 5.0]);
        assert_eq!(borda(&v, None), vec![1, 2, 3]);
        // weights can turn it
        assert_eq!(borda(&v, Some(&[1.0, 1.0, 5.0])), vec![2, 3, 1]);
    }

    #[test]
    fn generalized_borda_votes_of_incomplete_ranking() {
        // m = 4, ranking 2>0 (m' = 2): ranked get (3 - r) * 5/3, missing get 5/2.
        let mut s = vec![0.0; 4];
        add_borda_votes(&[2, 0, 1, 0], 1.0, &mut s);
        let expect = [5.0 / 3.0, 2.5, 10.0 / 3.0, 2.5];
        for (a, b) in s.iter().zip(expect) {
            assert!((a - b).abs() < 1e-12);
        }
        // every ranking hands out m(m+1)/2 votes in total
        assert!((s.iter().sum::<f64>() - 10.0).abs() < 1e-12);
    }
}
