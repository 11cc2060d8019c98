//! Rank aggregation: one consensus ranking from several (weighted, possibly incomplete) rankings.
//!
//! Borda: a label at position r of a complete ranking of m labels receives m + 1 - r votes.
//! Generalized Borda (Cheng, Hühn & Hüllermeier 2009) for a ranking holding m' of the m labels:
//! a ranked label at position r receives (m' + 1 - r)(m + 1)/(m' + 1) votes and a missing label
//! (m + 1)/2, so every ranking hands out the same total and a missing label counts as "middle".
//! On complete rankings the two coincide. The consensus ranks labels by decreasing total votes;
//! equal totals are broken in favour of the lower label index.
//!
//! Ties in a ranking (a bucket order): tied labels share the votes of the positions they span
//! (each gets the votes of its mid-rank, e.g. 2.5 for a pair tied after one label), so a bucket
//! order hands out the same total as a ranking. The consensus is still a ranking without ties;
//! the partial-label-ranking consensus that keeps ties is [`crate::consensus::buckets`].

//!
//! Exactness: votes are fractions with denominator 2(m' + 1), so summed in floating point, equal
//! totals can differ in the last bit and the tie rule would depend on row order. The consensus is
//! therefore computed from votes scaled by D = 2 lcm(2, ..., m + 1), which are integers: with
//! integer weights (e.g. bootstrap counts) the sums are exact while they stay below 2^53, which
//! holds for up to 20 labels and millions of rows. Beyond 20 labels D would be too large and the
//! votes are summed unscaled.

use crate::data::ranking::{has_ties, mid_ranks, n_present, ranking_from_scores, RankMatrixView};

/// Adds `weight` times the generalized Borda votes of `row` to `scores` (unscaled votes).
pub fn add_borda_votes(row: &[i32], weight: f64, scores: &mut [f64]) {
    add_scaled_votes(row, weight, 1.0, scores);
}

fn add_scaled_votes(row: &[i32], weight: f64, scale: f64, scores: &mut [f64]) {
    let m = row.len() as f64;
    let k = n_present(row) as f64;
    let missing = (m + 1.0) * scale / 2.0;
    if k == 0.0 {
        // An empty ranking says nothing; it gives every label the same middle score.
        scores.iter_mut().for_each(|s| *s += weight * missing);
        return;
    }
    let per_position = (m + 1.0) * (scale / (k + 1.0));
    if has_ties(row) {
        // Mid-ranks are halves at worst, and D / (k + 1) is even: the votes stay integers.
        for (s, r) in scores.iter_mut().zip(mid_ranks(row)) {
            *s += weight * if r > 0.0 { (k + 1.0 - r) * per_position } else { missing };
        }
        return;
    }
    for (s, &r) in scores.iter_mut().zip(row) {
        *s += weight * if r > 0 { (k + 1.0 - r as f64) * per_position } else { missing };
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// D = 2 lcm(2..=m+1) for m <= 20 (integer votes), else 1.
fn vote_scale(m: usize) -> f64 {
    // Computed once: accumulators are made for every leaf and neighbourhood.
    static SCALES: std::sync::OnceLock<[f64; 21]> = std::sync::OnceLock::new();
    let scales =
        SCALES.get_or_init(|| std::array::from_fn(|m| (2 * (2..=m as u64 + 1).fold(1u64, |l, k| l / gcd(l, k) * k)) as f64));
    scales.get(m).copied().unwrap_or(1.0)
}

/// Sums generalized Borda votes exactly (see the module docs) and yields the consensus.
#[derive(Clone, Debug)]
pub struct BordaAccumulator {
    scale: f64,
    sums: Vec<f64>,
}

impl BordaAccumulator {
    pub fn new(n_labels: usize) -> Self {
        BordaAccumulator { scale: vote_scale(n_labels), sums: vec![0.0; n_labels] }
    }

    /// Starts over with `n_labels` labels, keeping the buffer.
    pub fn reset(&mut self, n_labels: usize) {
        self.scale = vote_scale(n_labels);
        self.sums.clear();
        self.sums.resize(n_labels, 0.0);
    }

    pub fn add(&mut self, row: &[i32], weight: f64) {
        add_scaled_votes(row, weight, self.scale, &mut self.sums);
    }

    /// Adds the scaled votes [`add`](Self::add) would to `sums` (sums kept elsewhere, as a
    /// levelwise forest's parts keep them).
    pub fn add_into(&self, row: &[i32], weight: f64, sums: &mut [f64]) {
        add_scaled_votes(row, weight, self.scale, sums);
    }

    /// [`add`](Self::add) for a row known to rank every label (bit for bit the same sums,
    /// without counting the labels present).
    pub fn add_complete(&mut self, row: &[i32], weight: f64) {
        debug_assert_eq!(n_present(row), row.len());
        let m = row.len() as f64;
        let per_position = (m + 1.0) * (self.scale / (m + 1.0));
        for (s, &r) in self.sums.iter_mut().zip(row) {
            *s += weight * ((m + 1.0 - r as f64) * per_position);
        }
    }

    /// Total votes of each label times the accumulator's integer scale (exact sums, same order
    /// as [`scores`](Self::scores)); for callers that keep running sums of their own.
    pub fn scaled_scores(&self) -> &[f64] {
        &self.sums
    }

    /// Total votes of each label.
    pub fn scores(&self) -> Vec<f64> {
        self.sums.iter().map(|s| s / self.scale).collect()
    }

    /// Consensus rank vector: decreasing votes, equal votes to the lower label index.
    pub fn ranking(&self) -> Vec<i32> {
        ranking_from_scores(&self.sums)
    }
}

fn accumulate(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> BordaAccumulator {
    let mut acc = BordaAccumulator::new(rankings.n_labels());
    for (i, row) in rankings.rows().enumerate() {
        acc.add(row, weights.map_or(1.0, |w| w[i]));
    }
    acc
}

/// Total (weighted) generalized Borda votes of each label.
pub fn borda_scores(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Vec<f64> {
    accumulate(rankings, weights).scores()
}

/// The (weighted, generalized) Borda consensus ranking as a rank vector.
pub fn borda(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Vec<i32> {
    accumulate(rankings, weights).ranking()
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
    fn exact_ties_go_to_the_lower_index_whatever_the_row_order() {
        // 0>1 twice, 1>0 twice, label 2 always missing: every label totals 8 votes.
        for y in [[1, 2, 0, 1, 2, 0, 2, 1, 0, 2, 1, 0], [2, 1, 0, 2, 1, 0, 1, 2, 0, 1, 2, 0]] {
            let v = RankMatrixView::new(&y, 4, 3).unwrap();
            assert_eq!(borda(&v, None), vec![1, 2, 3]);
            assert_eq!(borda_scores(&v, None), vec![8.0, 8.0, 8.0]);
        }
        assert_eq!(vote_scale(3), 24.0);
        assert_eq!(vote_scale(21), 1.0);
    }

    #[test]
    fn tied_labels_share_the_votes_of_their_positions() {
        // m = 4, {1} > {0, 3} > {2}: mid-ranks 2.5, 1, 4, 2.5 -> votes 2.5, 4, 1, 2.5.
        let mut s = vec![0.0; 4];
        add_borda_votes(&[2, 1, 3, 2], 1.0, &mut s);
        assert_eq!(s, vec![2.5, 4.0, 1.0, 2.5]);
        // Scaled sums stay exact: a tie against its reverse cancels to equal scores.
        let y = [2, 1, 3, 2, 2, 3, 1, 2];
        let v = RankMatrixView::new(&y, 2, 4).unwrap();
        let scores = borda_scores(&v, None);
        assert_eq!(scores, vec![5.0, 5.0, 5.0, 5.0]);
        assert_eq!(borda(&v, None), vec![1, 2, 3, 4]);
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
