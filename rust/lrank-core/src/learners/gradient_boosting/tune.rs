//! GBLR's tuned mode: the depth, the learning rate and the number of rounds chosen by inner
//! cross-validation, so that a user gets a good model without a grid search.
//!
//! Every candidate (depth, learning rate) is fitted once per inner fold with all the rounds
//! asked for (`n_estimators`, early stopping off); its held-out mean Kendall tau is read after a
//! quarter, half, three quarters and all of the rounds (the trees are added one by one to the
//! held-out rows' scores), so the round count costs no extra fits. The candidate with the best
//! mean tau over the folds wins, ties to the earlier (shallower, slower, fewer rounds); the model
//! is then fitted on all rows with it.

use super::{EarlyStopping, GradientBoostingModel, GradientBoostingParams};
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::ranking_from_scores_into;
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::inner_cv::InnerFolds;
use crate::learner::Learner;
use crate::metrics::distance::kendall_tau;
use serde::{Deserialize, Serialize};

/// Depths tried.
pub const TUNE_DEPTHS: [usize; 2] = [3, 6];
/// Learning rates tried.
pub const TUNE_RATES: [f64; 3] = [0.05, 0.1, 0.3];
/// Folds of the inner cross-validation.
pub const TUNING_FOLDS: usize = 3;

/// One candidate's mean held-out Kendall tau.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuningScore {
    pub max_depth: usize,
    pub learning_rate: f64,
    pub n_estimators: usize,
    #[serde(with = "crate::numeric::nonfinite_f64")]
    pub tau: f64,
}

/// The round counts read for `n` rounds: a quarter, half, three quarters and all (distinct, >= 1).
fn checkpoints(n: usize) -> Vec<usize> {
    let mut c: Vec<usize> = [n.div_ceil(4), n.div_ceil(2), (3 * n).div_ceil(4), n].into_iter().filter(|&k| k >= 1).collect();
    c.dedup();
    c
}

/// The parameters chosen (tuning off) and every candidate's score.
pub(super) fn tune(
    data: &TrainingSet<'_>,
    params: &GradientBoostingParams,
) -> Result<(GradientBoostingParams, Vec<TuningScore>)> {
    let (x, y) = (&data.x, &data.y);
    let n = x.n_rows();
    let folds = InnerFolds::for_tuning(n, TUNING_FOLDS, params.seed ^ 0x7E5E_D6B1, "GBLR")?;
    let rounds = checkpoints(params.n_estimators);
    let mut candidates = Vec::new();
    for &depth in &TUNE_DEPTHS {
        for &rate in &TUNE_RATES {
            for &k in &rounds {
                candidates.push(TuningScore { max_depth: depth, learning_rate: rate, n_estimators: k, tau: 0.0 });
            }
        }
    }
    for fold in 0..TUNING_FOLDS {
        let split = folds.split(fold, x, y, &data.weights);
        let fold_set = split.training_set(x, "GBLR")?;
        let xtv = split.test_x()?;
        let truth: Vec<&[i32]> = split.test.iter().map(|&i| y.row(i)).collect();
        for (c, chunk) in candidates.chunks_mut(rounds.len()).enumerate() {
            let (depth, rate) = (TUNE_DEPTHS[c / TUNE_RATES.len()], TUNE_RATES[c % TUNE_RATES.len()]);
            let candidate = GradientBoostingParams {
                max_depth: Some(depth),
                learning_rate: rate,
                early_stopping: EarlyStopping::Off,
                tune: false,
                ..params.clone()
            };
            let model = GradientBoostingModel::fit(candidate, &fold_set)?;
            for (score, tau) in chunk.iter_mut().zip(staged_taus(&model, &xtv, &truth, &rounds)) {
                score.tau += tau / TUNING_FOLDS as f64;
            }
        }
    }
    let best = best(&candidates).expect("candidates");
    let chosen = GradientBoostingParams {
        max_depth: Some(best.max_depth),
        learning_rate: best.learning_rate,
        n_estimators: best.n_estimators,
        tune: false,
        ..params.clone()
    };
    Ok((chosen, candidates))
}

/// The winning candidate: the best tau, ties to the first.
pub fn best(scores: &[TuningScore]) -> Option<&TuningScore> {
    let first = scores.first()?;
    Some(scores.iter().fold(first, |b, c| if c.tau > b.tau + 1e-12 { c } else { b }))
}

/// Mean Kendall tau of the held-out rows after each of `rounds` trees (NaN rows left out).
fn staged_taus(model: &GradientBoostingModel, x: &FeatureMatrixView<'_>, truth: &[&[i32]], rounds: &[usize]) -> Vec<f64> {
    let m = model.n_labels;
    let mut scores: Vec<f64> = (0..x.n_rows()).flat_map(|_| model.init_scores.iter().copied()).collect();
    let (mut ranks, mut buf) = (vec![0; m], Vec::new());
    let mut out = Vec::new();
    let mut next = 0;
    let per_round = model.trees_per_round();
    for (t, tree) in model.trees.iter().enumerate() {
        for (i, s) in scores.chunks_mut(m).enumerate() {
            model.add_leaf(t, tree.leaf_for(x.row(i), &model.fill_values), s);
        }
        if (t + 1) % per_round != 0 {
            continue;
        }
        while next < rounds.len() && rounds[next] == (t + 1) / per_round {
            let (mut sum, mut count) = (0.0, 0usize);
            for (s, r) in scores.chunks(m).zip(truth) {
                ranking_from_scores_into(s, &mut buf, &mut ranks);
                let tau = kendall_tau(r, &ranks);
                if tau.is_finite() {
                    sum += tau;
                    count += 1;
                }
            }
            out.push(if count > 0 { sum / count as f64 } else { f64::NAN });
            next += 1;
        }
    }
    // A model that stopped short (it cannot with early stopping off) reads its last value.
    while out.len() < rounds.len() {
        out.push(out.last().copied().unwrap_or(f64::NAN));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_are_distinct_quarters() {
        assert_eq!(checkpoints(100), vec![25, 50, 75, 100]);
        assert_eq!(checkpoints(2), vec![1, 2]);
        assert_eq!(checkpoints(1), vec![1]);
    }
}
