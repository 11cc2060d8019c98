//! Ranking measures between true and predicted rank matrices, per row, plus the pairwise
//! correct/incorrect matrix. Rows are compared on the labels both contain (see `distance`).
//! Ties: a true top bucket of several labels is hit when the prediction puts any of them first
//! (alone or tied); an exact match is an equal bucket order (tau_x = 1); pairs tied in the truth
//! do not enter the pairwise matrix.

use crate::data::ranking::RankMatrixView;
use crate::error::{invalid, Result};
use crate::metrics::distance::{kendall_tau, normalized_footrule, spearman_footrule, spearman_rho, tau_x};
use rayon::prelude::*;

/// Per-row measures; NaN where a measure is undefined for the row (fewer than two common labels).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowMeasures {
    pub kendall_tau: Vec<f64>,
    pub spearman_rho: Vec<f64>,
    pub footrule: Vec<f64>,
    pub normalized_footrule: Vec<f64>,
    /// 1 if the predicted top label among the true ranking's labels is its first label, else 0
    /// (a share of a tied predicted top).
    pub top_label_correct: Vec<f64>,
    /// 1 if the prediction orders the true ranking's labels exactly as it does, else 0.
    pub exact_match: Vec<f64>,
    /// Kendall's tau_x (Emond & Mason 2002), the measure for rankings with ties.
    pub tau_x: Vec<f64>,
}

fn check_same_shape(a: &RankMatrixView<'_>, b: &RankMatrixView<'_>) -> Result<()> {
    if a.n_rows() != b.n_rows() || a.n_labels() != b.n_labels() {
        return Err(invalid(format!(
            "true and predicted rank matrices differ in shape: {}x{} vs {}x{}",
            a.n_rows(),
            a.n_labels(),
            b.n_rows(),
            b.n_labels()
        )));
    }
    Ok(())
}

/// Top-label accuracy of one row, on the labels the true ranking holds (as every other measure
/// compares rows): the share of the prediction's first bucket among those labels that lies in
/// the truth's first bucket, i.e. the chance that a label drawn from the predicted top is a true
/// top label. A label the truth leaves out is unknown, not wrong: predicting it first says
/// nothing about the labels the truth ranks (it scored 0 where tau and exact match scored 1).
/// 1 or 0 for a prediction without a tied top; a prediction that ties all m labels scores
/// |true top| / m, not 1. NaN, as tau and exact match, when the truth holds fewer than two
/// labels: a single label is every prediction's top among the labels held (a constant learner
/// scored 1 on such rows).
fn top_label_share(t: &[i32], p: &[i32]) -> f64 {
    if t.iter().filter(|&&r| r > 0).count() < 2 {
        return f64::NAN;
    }
    let held = |j: usize| t[j] > 0 && p[j] > 0;
    let Some(first) = (0..t.len()).filter(|&j| held(j)).map(|j| p[j]).min() else {
        return 0.0;
    };
    let top: Vec<usize> = (0..t.len()).filter(|&j| held(j) && p[j] == first).collect();
    top.iter().filter(|&&j| t[j] == 1).count() as f64 / top.len() as f64
}

pub fn row_measures(truth: &RankMatrixView<'_>, pred: &RankMatrixView<'_>) -> Result<RowMeasures> {
    check_same_shape(truth, pred)?;
    let rows: Vec<[f64; 7]> = (0..truth.n_rows())
        .into_par_iter()
        .map(|i| {
            let (t, p) = (truth.row(i), pred.row(i));
            let tau = kendall_tau(t, p);
            let x = tau_x(t, p);
            let top = top_label_share(t, p);
            let exact = if x.is_nan() { f64::NAN } else { (x == 1.0) as i32 as f64 };
            // The raw footrule left out where its normalised form is (fewer than two labels
            // compared): a one-label truth's 0 lowered the mean as a perfect row.
            let normalized = normalized_footrule(t, p);
            let raw = if normalized.is_nan() { f64::NAN } else { spearman_footrule(t, p) };
            [tau, spearman_rho(t, p), raw, normalized, top, exact, x]
        })
        .collect();
    let col = |k: usize| rows.iter().map(|r| r[k]).collect::<Vec<f64>>();
    Ok(RowMeasures {
        kendall_tau: col(0),
        spearman_rho: col(1),
        footrule: col(2),
        normalized_footrule: col(3),
        top_label_correct: col(4),
        exact_match: col(5),
        tau_x: col(6),
    })
}

/// The most labels [`pairwise_matrix`] makes its m x m tables for: past it the tables would
/// outgrow the rankings they count (a file of 4 rows and 10,000 labels made two tables of 800 MB
/// each), and no one reads a table that wide.
pub const PAIRWISE_TABLE_MAX_LABELS: usize = 100;

/// `(correct, incorrect)`, each m x m row-major: entry (a, b) counts the rows whose true ranking
/// puts label a before label b and whose prediction agrees (correct) or does not (incorrect, a
/// tie included). Refused for more than [`PAIRWISE_TABLE_MAX_LABELS`] labels.
pub fn pairwise_matrix(truth: &RankMatrixView<'_>, pred: &RankMatrixView<'_>) -> Result<(Vec<u64>, Vec<u64>)> {
    check_same_shape(truth, pred)?;
    let m = truth.n_labels();
    if m > PAIRWISE_TABLE_MAX_LABELS {
        return Err(invalid(format!("the pairwise table is made for at most {PAIRWISE_TABLE_MAX_LABELS} labels, got {m}")));
    }
    let mut correct = vec![0u64; m * m];
    let mut incorrect = vec![0u64; m * m];
    for i in 0..truth.n_rows() {
        let (t, p) = (truth.row(i), pred.row(i));
        for a in 0..m {
            for b in 0..m {
                if a == b || t[a] <= 0 || t[b] <= 0 || t[a] >= t[b] || p[a] <= 0 || p[b] <= 0 {
                    continue;
                }
                if p[a] < p[b] {
                    correct[a * m + b] += 1;
                } else {
                    incorrect[a * m + b] += 1;
                }
            }
        }
    }
    Ok((correct, incorrect))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_of_a_small_case() {
        let truth = [1, 2, 3, 1, 2, 3];
        let pred = [1, 2, 3, 2, 1, 3];
        let t = RankMatrixView::new(&truth, 2, 3).unwrap();
        let p = RankMatrixView::new(&pred, 2, 3).unwrap();
        let m = row_measures(&t, &p).unwrap();
        assert_eq!(m.kendall_tau[0], 1.0);
        assert!((m.kendall_tau[1] - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(m.top_label_correct, vec![1.0, 0.0]);
        assert_eq!(m.exact_match, vec![1.0, 0.0]);
        // Incomplete truths: the prediction's top among their labels (label 3 is unknown).
        let (t4, p4) = ([1, 2, 3, 0, 3, 1, 2, 0], [2, 3, 4, 1, 4, 2, 3, 1]);
        let inc = row_measures(&RankMatrixView::new(&t4, 2, 4).unwrap(), &RankMatrixView::new(&p4, 2, 4).unwrap()).unwrap();
        assert_eq!(inc.top_label_correct, vec![1.0, 1.0], "tau and exact match are 1 on these rows");
        assert_eq!((inc.kendall_tau.clone(), inc.exact_match.clone()), (vec![1.0, 1.0], vec![1.0, 1.0]));
        // A truth of one label orders nothing: no score, as tau and exact match give none.
        let (t1, p1) = ([0, 1, 0], [1, 2, 3]);
        let single = row_measures(&RankMatrixView::new(&t1, 1, 3).unwrap(), &RankMatrixView::new(&p1, 1, 3).unwrap()).unwrap();
        assert!(single.top_label_correct[0].is_nan() && single.kendall_tau[0].is_nan() && single.exact_match[0].is_nan());
        assert!(single.footrule[0].is_nan() && single.normalized_footrule[0].is_nan());
        let (c, ic) = pairwise_matrix(&t, &p).unwrap();
        // pair (0 before 1): correct in row 0, incorrect in row 1
        assert_eq!((c[1], ic[1]), (1, 1));
        assert_eq!((c[2], ic[2]), (2, 0));
        assert_eq!(c[3..].iter().sum::<u64>() + c[0], 2); // (1,2) twice correct
    }

    #[test]
    fn the_pairwise_table_is_refused_past_its_label_limit() {
        let m = PAIRWISE_TABLE_MAX_LABELS + 1;
        let row: Vec<i32> = (1..=m as i32).collect();
        let v = RankMatrixView::new(&row, 1, m).unwrap();
        let err = pairwise_matrix(&v, &v).unwrap_err().to_string();
        assert!(err.contains("at most 100 labels, got 101"), "{err}");
        let row: Vec<i32> = (1..=100).collect();
        let v = RankMatrixView::new(&row, 1, 100).unwrap();
        assert_eq!(pairwise_matrix(&v, &v).unwrap().0.iter().sum::<u64>(), 100 * 99 / 2);
    }

    #[test]
    fn measures_with_ties() {
        // truth {0,1} > {2}; predictions 1 > 0 > 2 (hits the top bucket), 0,1,2 all tied (two of
        // its three top labels are true top labels), the truth.
        let truth = [1, 1, 2, 1, 1, 2, 1, 1, 2];
        let pred = [2, 1, 3, 1, 1, 1, 1, 1, 2];
        let t = RankMatrixView::new(&truth, 3, 3).unwrap();
        let p = RankMatrixView::new(&pred, 3, 3).unwrap();
        let m = row_measures(&t, &p).unwrap();
        assert_eq!(m.top_label_correct, vec![1.0, 2.0 / 3.0, 1.0]);
        // A strict truth against an all-tied prediction: one label of three.
        let (t1, p1) = ([1, 2, 3], [1, 1, 1]);
        let one = row_measures(&RankMatrixView::new(&t1, 1, 3).unwrap(), &RankMatrixView::new(&p1, 1, 3).unwrap()).unwrap();
        assert_eq!(one.top_label_correct, vec![1.0 / 3.0]);
        assert_eq!(m.exact_match, vec![0.0, 0.0, 1.0]);
        assert_eq!(m.tau_x[2], 1.0);
        assert!((m.tau_x[0] - 4.0 / 6.0).abs() < 1e-15);
        let (c, ic) = pairwise_matrix(&t, &p).unwrap();
        assert_eq!((c[1], ic[1], c[3], ic[3]), (0, 0, 0, 0), "the tied pair (0, 1) is not counted");
        assert_eq!((c[2], ic[2]), (2, 1), "0 before 2: right twice, tied once");
    }
}
