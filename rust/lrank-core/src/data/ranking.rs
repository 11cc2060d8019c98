//! Rank matrices: row `i`, column `j` holds the 1-based position of label `j` in the ranking of
//! instance `i` (1 = most preferred), or 0 when label `j` is missing from that ranking.
//!
//! Positions are dense: the positions present in a row are exactly `1..=b` for some `b`. Labels
//! sharing a position are tied, so a row is a bucket order (`1,2,2,3` is `{0} > {1, 2} > {3}`, as
//! in scikit-lr), `b` being its number of buckets. A row whose `k` present labels hold the
//! positions `1..=k` (no ties) is a ranking in the strict sense, an incomplete one when `k < m`.
//! [`validate_ranking`] accepts both; [`validate_strict_ranking`] only rows without ties. Learners
//! that cannot use ties refuse them when fitting ([`crate::data::training::TrainingSet::refuse_ties`]).

use crate::error::{LrankError, Result};

/// A borrowed, validated, row-major rank matrix.
#[derive(Clone, Copy, Debug)]
pub struct RankMatrixView<'a> {
    ranks: &'a [i32],
    n_rows: usize,
    n_labels: usize,
}

impl<'a> RankMatrixView<'a> {
    /// Checks shape and that every row is a (possibly incomplete) ranking, ties allowed.
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

    /// The first row that holds tied labels, if any.
    pub fn first_tied_row(&self) -> Option<usize> {
        self.rows().position(has_ties)
    }

    pub fn has_ties(&self) -> bool {
        self.first_tied_row().is_some()
    }
}

/// Why `row` is not a ranking (ties allowed), if it is not. `seen` is scratch space of length
/// `m + 1`.
fn check_row(row: &[i32], seen: &mut [bool]) -> std::result::Result<(), String> {
    let m = row.len();
    seen.iter_mut().for_each(|s| *s = false);
    let (mut distinct, mut highest) = (0usize, 0usize);
    for (label, &r) in row.iter().enumerate() {
        if r == 0 {
            continue;
        }
        if r < 0 || r as usize > m {
            return Err(format!("label {label} has position {r}, outside 0..={m}"));
        }
        if !seen[r as usize] {
            seen[r as usize] = true;
            distinct += 1;
        }
        highest = highest.max(r as usize);
    }
    if distinct != highest {
        let missing = (1..=highest).find(|&p| !seen[p]).unwrap_or(highest);
        return Err(format!(
            "positions must be dense (1..={distinct} for {distinct} distinct positions, tied labels sharing one): \
             position {missing} is skipped"
        ));
    }
    Ok(())
}

/// Checks one ranking row; `Ok` for complete and incomplete rankings, with or without ties.
pub fn validate_ranking(row: &[i32]) -> std::result::Result<(), String> {
    check_row(row, &mut vec![false; row.len() + 1])
}

/// [`validate_ranking`] that also refuses ties.
pub fn validate_strict_ranking(row: &[i32]) -> std::result::Result<(), String> {
    validate_ranking(row)?;
    if has_ties(row) {
        return Err(tie_message(row));
    }
    Ok(())
}

/// What is tied in a row with ties: "labels 1 and 2 share position 2".
pub fn tie_message(row: &[i32]) -> String {
    for (a, &r) in row.iter().enumerate() {
        if r > 0 {
            if let Some(b) = row[a + 1..].iter().position(|&s| s == r) {
                return format!("labels {a} and {} share position {r} (a tie)", a + 1 + b);
            }
        }
    }
    "no tie".into()
}

/// Whether a valid row holds tied labels: its highest position (the number of buckets) is below
/// the number of labels present.
pub fn has_ties(row: &[i32]) -> bool {
    let (mut present, mut highest) = (0, 0);
    for &r in row {
        present += (r > 0) as i32;
        highest = highest.max(r);
    }
    highest < present
}

/// Number of buckets (distinct positions) of a valid row.
pub fn n_buckets(row: &[i32]) -> usize {
    row.iter().copied().max().unwrap_or(0).max(0) as usize
}

/// The positions of a valid row as mid-ranks: a label in a bucket of size s whose labels follow
/// `before` others gets `before + (s + 1) / 2` (so a strict row keeps its positions, and tied
/// labels share the mean of the positions they span); 0 for a missing label.
pub fn mid_ranks(row: &[i32]) -> Vec<f64> {
    let b = n_buckets(row);
    let mut size = vec![0usize; b + 1];
    for &r in row.iter().filter(|&&r| r > 0) {
        size[r as usize] += 1;
    }
    let mut start = vec![0usize; b + 1];
    for p in 1..b {
        start[p + 1] = start[p] + size[p];
    }
    row.iter().map(|&r| if r > 0 { start[r as usize] as f64 + (size[r as usize] as f64 + 1.0) / 2.0 } else { 0.0 }).collect()
}

/// Number of labels present in a row.
pub fn n_present(row: &[i32]) -> usize {
    row.iter().filter(|&&r| r > 0).count()
}

/// The most preferred label present in the row (`None` for an empty row); with ties in the top
/// bucket, the lowest index among them.
pub fn top_label(row: &[i32]) -> Option<usize> {
    row.iter().position(|&r| r == 1)
}

/// Labels of a row ordered from most to least preferred (missing labels left out; tied labels by
/// index).
pub fn order_of(row: &[i32]) -> Vec<usize> {
    let mut labels: Vec<usize> = (0..row.len()).filter(|&j| row[j] > 0).collect();
    labels.sort_by_key(|&j| row[j]);
    labels
}

/// Appends a row's ranking in lrank's text notation to `out`: labels from most to least
/// preferred joined by `>`, tied labels (equal positions) by `=` in label order, missing labels
/// left out (`[2, 0, 1, 2]` with labels `a b c d` is `c>a=d`). Names are written as they are
/// (the display form of Python's `lrank.ranking_notation.format_rank_rows`).
pub fn write_ranking_text(row: &[i32], labels: &[&str], order: &mut Vec<usize>, out: &mut String) {
    order.clear();
    order.extend((0..row.len()).filter(|&j| row[j] > 0));
    // Stable: tied labels stay in label order.
    order.sort_by_key(|&j| row[j]);
    for (k, &j) in order.iter().enumerate() {
        if k > 0 {
            out.push(if row[j] == row[order[k - 1]] { '=' } else { '>' });
        }
        out.push_str(labels[j]);
    }
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
        assert!(validate_ranking(&[1, 1, 2]).is_ok());
        assert!(validate_ranking(&[2, 2, 0, 1]).is_ok());
        assert!(validate_strict_ranking(&[1, 1, 2]).unwrap_err().contains("labels 0 and 1 share position 1"));
        assert!(validate_strict_ranking(&[2, 1, 3]).is_ok());
        assert!(validate_ranking(&[1, 3, 0]).unwrap_err().contains("position 2 is skipped"));
        assert!(validate_ranking(&[1, 1, 3]).unwrap_err().contains("dense"));
        assert!(validate_ranking(&[2, 2, 0]).is_err());
        assert!(validate_ranking(&[1, 4, 2]).unwrap_err().contains("outside"));
        assert!(validate_ranking(&[-1, 1, 2]).is_err());
    }

    #[test]
    fn ties_buckets_and_mid_ranks() {
        assert!(has_ties(&[1, 2, 2, 3]) && !has_ties(&[1, 2, 0, 3]) && !has_ties(&[0, 0, 0]));
        assert_eq!(n_buckets(&[1, 2, 2, 3]), 3);
        assert_eq!(mid_ranks(&[1, 2, 2, 3]), vec![1.0, 2.5, 2.5, 4.0]);
        assert_eq!(mid_ranks(&[2, 0, 1, 1]), vec![3.0, 0.0, 1.5, 1.5]);
        assert_eq!(mid_ranks(&[3, 1, 2]), vec![3.0, 1.0, 2.0]);
        let v = RankMatrixView::new(&[1, 2, 3, 1, 1, 2], 2, 3).unwrap();
        assert_eq!(v.first_tied_row(), Some(1));
        assert_eq!(tie_message(&[2, 1, 2]), "labels 0 and 2 share position 2 (a tie)");
    }

    #[test]
    fn view_reports_the_bad_row() {
        let err = RankMatrixView::new(&[1, 2, 2, 3], 2, 2).unwrap_err();
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

    #[test]
    fn ranking_text_orders_ties_and_leaves_out_missing_labels() {
        let labels = ["a", "b", "c", "d"];
        let text = |row: &[i32]| {
            let mut out = String::new();
            write_ranking_text(row, &labels, &mut Vec::new(), &mut out);
            out
        };
        assert_eq!(text(&[2, 0, 1, 2]), "c>a=d");
        assert_eq!(text(&[4, 3, 2, 1]), "d>c>b>a");
        assert_eq!(text(&[1, 1, 1, 1]), "a=b=c=d");
        assert_eq!(text(&[0, 0, 0, 0]), "");
        assert_eq!(text(&[2, 1, 3, 1]), "b=d>a>c");
    }
}
