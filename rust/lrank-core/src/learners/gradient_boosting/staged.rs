//! GBLR's predictions after each boosting round (scikit-learn's `staged_predict`): a round's
//! trees added to the scores after the rounds before it, so that a caller stepping through the
//! rounds walks every tree once.

use super::GradientBoostingModel;
use crate::data::features::{check_n_features, FeatureMatrixView};
use crate::data::ranking::ranking_from_scores_into;
use crate::error::{invalid, Result};
use rayon::prelude::*;

impl GradientBoostingModel {
    /// The boosting rounds the model kept.
    pub fn n_rounds(&self) -> usize {
        self.trees.len() / self.trees_per_round()
    }

    /// Adds round `round`'s trees (0-based) to `scores` (n x m: the rows' scores after the rounds
    /// before it, [`Self::init_scores`] for round 0) and returns the rankings they give, which
    /// after the last round are the model's predictions.
    pub fn add_round(&self, x: &FeatureMatrixView<'_>, round: usize, scores: &mut [f64]) -> Result<Vec<i32>> {
        check_n_features(x, self.n_features)?;
        let (n, m, per_round) = (x.n_rows(), self.n_labels, self.trees_per_round());
        if round >= self.n_rounds() {
            return Err(invalid(format!("round {round} of a model of {} rounds (0-based)", self.n_rounds())));
        }
        if scores.len() != n * m {
            return Err(invalid(format!("the scores hold {} values for {n} rows of {m} labels", scores.len())));
        }
        let first = round * per_round;
        let trees = &self.trees[first..first + per_round];
        let mut ranks = vec![0; n * m];
        let width = m.max(1);
        scores.par_chunks_mut(width).zip(ranks.par_chunks_mut(width)).enumerate().for_each_init(Vec::new, |buf, (i, (s, r))| {
            for (k, tree) in trees.iter().enumerate() {
                self.add_leaf(first + k, tree.leaf_for(x.row(i), &self.fill_values), s);
            }
            ranking_from_scores_into(s, buf, r);
        });
        crate::interrupt::check()?;
        Ok(ranks)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{GradientBoostingModel, GradientBoostingParams};
    use crate::data::features::FeatureMatrixView;
    use crate::data::ranking::RankMatrixView;
    use crate::learner::Learner;
    use crate::rng::Rng;

    #[test]
    fn each_round_predicts_as_the_model_cut_after_it() {
        let mut rng = Rng::new(3);
        let (n, d, m) = (150, 3, 3);
        let mut x: Vec<f64> = (0..n * d).map(|_| rng.uniform()).collect();
        x[7] = f64::NAN;
        let y: Vec<i32> = (0..n).flat_map(|i| if x[i * d] > 0.5 { [1, 2, 3] } else { [3, 1, 2] }).collect();
        let (xv, yv) = (FeatureMatrixView::new(&x, n, d).unwrap(), RankMatrixView::new(&y, n, m).unwrap());
        for per_label_trees in [false, true] {
            let params = GradientBoostingParams { n_estimators: 5, min_samples_leaf: 5.0, per_label_trees, ..Default::default() };
            let model = GradientBoostingModel::fit_views(&xv, &yv, None, params).unwrap();
            let per_round = model.trees_per_round();
            let mut scores: Vec<f64> = (0..n).flat_map(|_| model.init_scores.clone()).collect();
            for round in 0..model.n_rounds() {
                let ranks = model.add_round(&xv, round, &mut scores).unwrap();
                let cut = GradientBoostingModel { trees: model.trees[..(round + 1) * per_round].to_vec(), ..model.clone() };
                assert_eq!(scores, cut.predict_scores(&xv).unwrap());
                assert_eq!(ranks, cut.predict_ranks(&xv).unwrap());
            }
            assert!(model.add_round(&xv, model.n_rounds(), &mut scores).is_err());
            assert!(model.add_round(&xv, 0, &mut scores[1..]).is_err());
        }
    }
}
