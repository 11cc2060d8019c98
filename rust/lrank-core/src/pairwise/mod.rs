//! The pairwise decomposition of label ranking (Hüllermeier, Fürnkranz, Cheng & Brinker 2008):
//! one binary model per label pair {a, b}, a < b, trained on the rows whose ranking holds both
//! labels (class 1: a before b), and a ranking from the pairs' predicted probabilities by
//! voting. The learners that use it differ only in their binary model: trees or forests
//! (one-versus-one) and logistic regression (RPC).

use crate::data::pairs::label_pairs;
use crate::data::ranking::RankMatrixView;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How pairwise predictions become a ranking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PairwiseVoting {
    /// Count of predicted pairwise wins (Copeland): a probability above 1/2 is a win, exactly
    /// 1/2 half a win.
    Copeland,
    /// Sum of the predicted probabilities of winning.
    Probability,
}

/// The training data of one label pair.
pub struct PairData {
    /// The pair's index in pair order.
    pub index: usize,
    pub a: usize,
    pub b: usize,
    /// The rows whose ranking holds both labels and whose weight is positive, ascending.
    pub rows: Vec<u32>,
    /// Their weights.
    pub weights: Vec<f64>,
    /// Per training row (all n of them): 1 when the row puts a before b, else 0 (for
    /// [`fit_pair_relations`]: 0 a before b, 1 tied, 2 b before a).
    pub classes: Vec<u32>,
}

/// Refuses `models_per_pair` trees or models for each label pair of `m` labels beyond
/// [`crate::limits::MAX_MODELS`] in all, and a table of the pairs beyond memory: their count
/// grows with the square of the labels, which a small file may declare by the thousand.
fn check_pair_models<T>(m: usize, models_per_pair: u64) -> crate::Result<()> {
    let pairs = crate::data::pairs::pair_count(m);
    let total = (pairs as u64).saturating_mul(models_per_pair);
    if total > crate::limits::MAX_MODELS {
        return Err(crate::error::invalid(format!(
            "{m} labels make {pairs} label pairs, of {models_per_pair} model(s) each: {total} models in all, more than the \
             {} allowed (fewer labels or trees per pair)",
            crate::limits::MAX_MODELS
        )));
    }
    crate::memory::check::<(T, (usize, usize))>("one model per label pair", &[pairs]).map(|_| ())
}

/// Whether a row (ranking `r`, weight `w`) trains the classifier of pair (a, b): it ranks both
/// labels and has weight.
#[inline]
pub fn trains_pair(r: &[i32], w: f64, a: usize, b: usize) -> bool {
    r[a] > 0 && r[b] > 0 && w > 0.0
}

/// The rows that train pair (a, b) ([`trains_pair`]), in order: those its forest's bootstrap
/// samples were drawn over.
pub fn pair_rows(y: &RankMatrixView<'_>, weights: &[f64], a: usize, b: usize) -> Vec<u32> {
    y.rows().enumerate().filter(|&(i, r)| trains_pair(r, weights[i], a, b)).map(|(i, _)| i as u32).collect()
}

/// Fits one binary model per label pair, in parallel and kept in pair order; each holds
/// `models_per_pair` trees or models (checked, with the pairs, by [`check_pair_models`]).
pub fn fit_pairs<T: Send>(
    y: &RankMatrixView<'_>,
    weights: &[f64],
    models_per_pair: u64,
    fit_pair: impl Fn(&PairData) -> T + Sync,
) -> crate::Result<Vec<T>> {
    let n = y.n_rows();
    check_pair_models::<T>(y.n_labels(), models_per_pair)?;
    Ok(label_pairs(y.n_labels())
        .par_iter()
        .enumerate()
        .map(|(index, &(a, b))| {
            let (mut rows, mut row_weights, mut classes) = (Vec::new(), Vec::new(), vec![0u32; n]);
            for (i, r) in y.rows().enumerate() {
                if trains_pair(r, weights[i], a, b) {
                    rows.push(i as u32);
                    row_weights.push(weights[i]);
                    classes[i] = (r[a] < r[b]) as u32;
                }
            }
            fit_pair(&PairData { index, a, b, rows, weights: row_weights, classes })
        })
        .collect())
}

/// Fits one three-class model per label pair (classes per training row: 0 = a before b,
/// 1 = tied, 2 = b before a; rankings with ties), in parallel and kept in pair order. `rows`
/// and `weights` of each [`PairData`] are as for [`fit_pairs`].
pub fn fit_pair_relations<T: Send>(
    y: &RankMatrixView<'_>,
    weights: &[f64],
    models_per_pair: u64,
    fit_pair: impl Fn(&PairData) -> T + Sync,
) -> crate::Result<Vec<T>> {
    let n = y.n_rows();
    check_pair_models::<T>(y.n_labels(), models_per_pair)?;
    Ok(label_pairs(y.n_labels())
        .par_iter()
        .enumerate()
        .map(|(index, &(a, b))| {
            let (mut rows, mut row_weights, mut classes) = (Vec::new(), Vec::new(), vec![0u32; n]);
            for (i, r) in y.rows().enumerate() {
                if trains_pair(r, weights[i], a, b) {
                    rows.push(i as u32);
                    row_weights.push(weights[i]);
                    classes[i] = match r[a].cmp(&r[b]) {
                        std::cmp::Ordering::Less => 0,
                        std::cmp::Ordering::Equal => 1,
                        std::cmp::Ordering::Greater => 2,
                    };
                }
            }
            fit_pair(&PairData { index, a, b, rows, weights: row_weights, classes })
        })
        .collect())
}

/// Adds the vote of pair (a, b), predicted to have a before b with probability `p`, to one
/// row's label scores (higher is better).
#[inline]
pub fn vote(scores: &mut [f64], a: usize, b: usize, p: f64, voting: PairwiseVoting) {
    let win = match voting {
        PairwiseVoting::Probability => p,
        PairwiseVoting::Copeland => {
            if p > 0.5 {
                1.0
            } else if p < 0.5 {
                0.0
            } else {
                0.5
            }
        }
    };
    scores[a] += win;
    scores[b] += 1.0 - win;
}

/// The structural check of a pair list read from a model file: pair k is the k-th label pair.
pub fn check_pairs(pairs: impl ExactSizeIterator<Item = (u32, u32)>, n_labels: usize) -> Result<(), String> {
    let expected = crate::data::pairs::pair_count(n_labels);
    if pairs.len() != expected {
        return Err(format!("the pairwise models has {} entries, expected {expected}", pairs.len()));
    }
    for (a, b) in pairs {
        if a >= b || b as usize >= n_labels {
            return Err(format!("pair ({a}, {b}) among {n_labels} labels"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_hold_the_rows_that_rank_both_labels() {
        // Rows: 0>1>2, 2>1 (label 0 missing), 1>0>2 with weight 0.
        let y = [1, 2, 3, 0, 2, 1, 2, 1, 3];
        let view = RankMatrixView::new(&y, 3, 3).unwrap();
        let pairs =
            fit_pairs(&view, &[1.0, 2.0, 0.0], 1, |p| (p.index, p.a, p.b, p.rows.clone(), p.weights.clone(), p.classes.clone()))
                .unwrap();
        assert_eq!(pairs[0], (0, 0, 1, vec![0], vec![1.0], vec![1, 0, 0]));
        assert_eq!(pairs[2], (2, 1, 2, vec![0, 1], vec![1.0, 2.0], vec![1, 0, 0]));
    }

    #[test]
    fn pair_relations_have_a_class_for_ties() {
        // Rows: {0, 1} > 2, 2 > 0 (label 1 missing), 1 > 0 > 2.
        let y = [1, 1, 2, 0, 2, 1, 2, 1, 3];
        let view = RankMatrixView::new(&y, 3, 3).unwrap();
        let pairs = fit_pair_relations(&view, &[1.0, 1.0, 1.0], 1, |p| (p.rows.clone(), p.classes.clone())).unwrap();
        assert_eq!(pairs[0], (vec![0, 2], vec![1, 0, 2])); // (0, 1): tied, -, after
        assert_eq!(pairs[2], (vec![0, 1, 2], vec![0, 2, 0])); // (1, 2): before, after, before
    }

    #[test]
    fn votes_add_up_to_one_per_pair() {
        let mut s = vec![0.0; 3];
        vote(&mut s, 0, 1, 0.7, PairwiseVoting::Probability);
        vote(&mut s, 1, 2, 0.5, PairwiseVoting::Copeland);
        vote(&mut s, 0, 2, 0.2, PairwiseVoting::Copeland);
        assert_eq!(s, vec![0.7, 0.3 + 0.5, 0.5 + 1.0]);
        assert!(check_pairs([(0, 1), (0, 2), (1, 2)].into_iter(), 3).is_ok());
        assert!(check_pairs([(0, 1), (2, 2), (1, 2)].into_iter(), 3).is_err());
        assert!(check_pairs([(0, 1)].into_iter(), 3).is_err());
    }
}
