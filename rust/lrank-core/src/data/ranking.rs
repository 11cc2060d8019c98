//! Rank matrices: row `i`, column `j` holds the 1-based position of label `j` in the ranking of
//! instance `i` (1 = most preferred), or 0 when label `j` is missing from that ranking.
//!
//! A row with `k` labels present must hold exactly the positions `1..=k`: an incomplete ranking is
//! a total order of the labels it contains. Every function in the core accepts incomplete rows.

use crate::error::{LrankError, Result};

/// A borrowed, validated, row-major rank matrix.
#[derive(Clone, Copy, Debug)]
pub struct RankMatrixView<'a> {
    ranks: &'a [i32],
    n_rows: usize,
    n_labels: usize,
}

impl<'a> RankMatrixView<'a> {
    /// Checks shape and that every row is a (possibly incomplete) ranking.
    pub fn new(ranks: &'a [i32], n_rows: usize, n_labels: usize) -> Result<Self> {
        if ranks.len() != n_rows * n_labels {
            return Err(LrankError::InvalidInput(format!(
                "rank matrix has {} entries, expected {n_rows} x {n_labels}",
                ranks.len()
            )));
        }
        if n_labels == 0 {
            return Err(LrankError::InvalidInput("rank matrix has no labels".into()));
        }
        let mut seen = vec![false; n_labels + 1];
        for (row, r) in ranks.chunks_exact(n_labels).enumerate() {
            check_row(r, &mut seen).map_err(|reason| LrankError::InvalidRanking { row, reason })?;
        }
        Ok(RankMatrixView { ranks, n_rows, n_labels })
    }

    /// A view of rows known to be valid rankings (copied from a validated matrix); checked in
    /// debug builds only.
    pub(crate) fn from_valid(ranks: &'a [i32], n_rows: usize, n_labels: usize) -> Self {
        debug_assert!(Self::new(ranks, n_rows, n_labels).is_ok());
        RankMatrixView { ranks, n_rows, n_labels }
    }

    pub fn n_rows(&self) -> usize {
        self.n_rows
    }
    pub fn n_labels(&self) -> usize {
        self.n_labels
    }
    pub fn row(&self, i: usize) -> &'a [i32] {
        &self.ranks[i * self.n_labels..(i + 1) * self.n_labels]
    }
    pub fn rows(&self) -> impl Iterator<Item = &'a [i32]> + 'a {
        self.ranks.chunks_exact(self.n_labels)
    }
    pub fn as_slice(&self) -> &'a [i32] {
        self.ranks
    }
}

/// Why `row` is not a ranking, if it is not. `seen` is scratch space of length `m + 1`.
fn check_row(row: &[i32], seen: &mut [bool]) -> std::result::Result<(), String> {
    let m = row.len();
    seen.iter_mut().for_each(|s| *s = false);
    let mut present = 0usize;
    for (label, &r) in row.iter().enumerate() {
        if r == 0 {
            continue;
        }
        if r < 0 || r as usize > m {
            return Err(format!("label {label} has position {r}, outside 0..={m}"));
        }
        if seen[r as usize] {
            return Err(format!("position {r} is given to two labels"));
        }
        seen[r as usize] = true;
        present += 1;
    }
    if (1..=present).any(|p| !seen[p]) {
        return Err(format!("the {present} labels present must hold positions 1..={present} without gaps"));
    }
    Ok(())
}

/// Checks one ranking row; `Ok` for complete and incomplete rankings.
pub fn validate_ranking(row: &[i32]) -> std::result::Result<(), String> {
    check_row(row, &mut vec![false; row.len() + 1])
}

/// Number of labels present in a row.
pub fn n_present(row: &[i32]) -> usize {
    row.iter().filter(|&&r| r > 0).count()
}

/// The most preferred label present in the row (`None` for an empty row).
pub fn top_label(row: &[i32]) -> Option<usize> {
    row.iter().position(|&r| r == 1)
}

/// Labels of a row ordered from most to least preferred (missing labels left out).
pub fn order_of(row: &[i32]) -> Vec<usize> {
    let mut labels: Vec<usize> = (0..row.len()).filter(|&j| row[j] > 0).collect();
    labels.sort_by_key(|&j| row[j]);
    labels
}

/// The rank vector (positions) of the order `labels` (most preferred first) over `m` labels.
pub fn ranks_of_order(order: &[usize], m: usize) -> Vec<i32> {
    let mut ranks = vec![0; m];
    for (pos, &label) in order.iter().enumerate() {
        ranks[label] = pos as i32 + 1;
    }
    ranks
}

/// Ranks labels by decreasing score; equal scores go to the lower label index first.
pub fn ranking_from_scores(scores: &[f64]) -> Vec<i32> {
    let mut ranks = vec![0; scores.len()];
    ranking_from_scores_into(scores, &mut Vec::new(), &mut ranks);
    ranks
}

/// [`ranking_from_scores`] into `ranks` (as long as `scores`), with `labels` as a buffer (for
/// callers that rank many small score vectors).
pub fn ranking_from_scores_into(scores: &[f64], labels: &mut Vec<usize>, ranks: &mut [i32]) {
    // `+ 0.0` turns -0.0 into +0.0, which total_cmp would otherwise order below it.
    let key = |s: f64| s + 0.0;
    if scores.len() <= 16 {
        // Few labels: each label's position is the number of labels ahead of it, counted
        // without branches (a sort's data-dependent branches cost more at this size).
        for (a, rank) in ranks.iter_mut().enumerate() {
            let sa = key(scores[a]);
            let ahead: usize = scores
                .iter()
                .enumerate()
                .map(|(b, &sb)| {
                    let order = key(sb).total_cmp(&sa);
                    (order.is_gt() | (order.is_eq() & (b < a))) as usize
                })
                .sum();
            *rank = ahead as i32 + 1;
        }
        return;
    }
    labels.clear();
    labels.extend(0..scores.len());
    // Stable sort keeps lower indices first among ties; scores are finite sums of votes.
    labels.sort_by(|&a, &b| key(scores[b]).total_cmp(&key(scores[a])));
    for (pos, &label) in labels.iter().enumerate() {
        ranks[label] = pos as i32 + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_complete_and_incomplete_rows() {
        assert!(validate_ranking(&[2, 1, 3]).is_ok());
        assert!(validate_ranking(&[0, 1, 2]).is_ok());
        assert!(validate_ranking(&[0, 0, 0]).is_ok());
        assert!(validate_ranking(&[1, 1, 2]).unwrap_err().contains("two labels"));
        assert!(validate_ranking(&[1, 3, 0]).unwrap_err().contains("without gaps"));
        assert!(validate_ranking(&[1, 4, 2]).unwrap_err().contains("outside"));
        assert!(validate_ranking(&[-1, 1, 2]).is_err());
    }

    #[test]
    fn view_reports_the_bad_row() {
        let err = RankMatrixView::new(&[1, 2, 2, 2], 2, 2).unwrap_err();
        assert!(matches!(err, LrankError::InvalidRanking { row: 1, .. }), "{err}");
        assert!(RankMatrixView::new(&[1, 2, 3], 2, 2).is_err());
    }

    #[test]
    fn orders_and_scores() {
        assert_eq!(order_of(&[3, 0, 1, 2]), vec![2, 3, 0]);
        assert_eq!(ranks_of_order(&[2, 3, 0], 4), vec![3, 0, 1, 2]);
        assert_eq!(top_label(&[3, 0, 1, 2]), Some(2));
        assert_eq!(ranking_from_scores(&[1.0, 3.0, 1.0, 2.0]), vec![3, 1, 4, 2]);
        assert_eq!(ranking_from_scores(&[-0.0, 0.0]), vec![1, 2]);
    }
}
