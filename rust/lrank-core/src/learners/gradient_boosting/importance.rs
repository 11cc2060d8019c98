//! GBLR's split importances: each feature's share of the total gain of the splits on it, the
//! gain of a split being what it was chosen by, the Newton gain on the loss's derivatives
//! (`Σ_labels G_L²/(H_L + λ) + G_R²/(H_R + λ) - G²/(H + λ)`, over the labels of the tree's
//! leaves). This is the gain importance of LightGBM and XGBoost. The other learners' impurity of
//! the rankings themselves does not suit boosting: a round's tree separates what the rounds
//! before it got wrong, not the rankings.
//!
//! The derivatives are those of the rows given, replayed: the rows start from the initial scores
//! and take each round's leaf values in turn, each round's derivatives computed from the scores
//! after the rounds before, as in the fit. On the training rows this gives the fit's own gains
//! (but for the rows early stopping held out and those a round's subsample left out, which count
//! here).

use super::{derivatives_and_losses, GradientBoostingModel, RankOrders};
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::{tie_message, RankMatrixView};
use crate::error::{invalid, LrankError, Result};
use crate::learner::Params;
use crate::tree::importance::sum_up_splits;
use crate::tree::model::route;
use crate::tree::Node;
use rayon::prelude::*;

impl GradientBoostingModel {
    /// Each feature's share of the gain of the model's splits (see the module) on the rows `x`,
    /// `y` of weights `weights`; all 0 when no split gains anything.
    pub fn gain_importances(&self, x: &FeatureMatrixView<'_>, y: &RankMatrixView<'_>, weights: &[f64]) -> Result<Vec<f64>> {
        let (n, d, m) = (x.n_rows(), x.n_features(), self.n_labels);
        if y.n_rows() != n || weights.len() != n || y.n_labels() != m || d != self.n_features {
            return Err(invalid(format!(
                "X has {n} rows and {d} features, Y {} rows and {} labels, the weights {}; the model {} features and {m} labels",
                y.n_rows(),
                y.n_labels(),
                weights.len(),
                self.n_features
            )));
        }
        // The loss must be defined on the rows, as at fit: Plackett-Luce has no ties.
        if let (Some(why), Some(row)) = (self.params.tie_refusal(), y.first_tied_row()) {
            return Err(LrankError::InvalidRanking { row, reason: format!("{}, and {why}", tie_message(y.row(row))) });
        }
        let per_round = self.trees_per_round();
        let (orders, lambda) = (RankOrders::new(y), self.params.l2_regularization);
        let mut scores: Vec<f64> = (0..n).flat_map(|_| self.init_scores.iter().copied()).collect();
        let (mut gh, mut row_loss) = (vec![0.0; n * 2 * m], vec![0.0; n]);
        let mut gains = vec![0.0; d];
        for (round, trees) in self.trees.chunks(per_round).enumerate() {
            crate::interrupt::check()?;
            derivatives_and_losses(self.params.loss, y, &orders, &scores, &mut gh, &mut row_loss);
            for (k, tree) in trees.iter().enumerate() {
                let t = round * per_round + k;
                // A per-label tree models its label alone; a multi-output tree every label.
                let labels = if self.params.per_label_trees { t % m..t % m + 1 } else { 0..m };
                let ends: Vec<(usize, u32)> =
                    (0..n).into_par_iter().map(|i| route(&tree.nodes, x.row(i), &self.fill_values)).collect();
                tree_gains(&tree.nodes, &ends, &gh, m, labels, weights, lambda, &mut gains);
                for (i, &(_, leaf)) in ends.iter().enumerate() {
                    self.add_leaf(t, &tree.leaves[leaf as usize], &mut scores[i * m..(i + 1) * m]);
                }
            }
        }
        let sum: f64 = gains.iter().sum();
        if sum > 0.0 {
            gains.iter_mut().for_each(|g| *g /= sum);
        }
        Ok(gains)
    }
}

/// Adds the gains of one tree's splits to `gains`: each node's weighted sums of the derivatives
/// of `labels` (the rows' `ends`, summed from the leaves up), then each split's Newton gain.
#[allow(clippy::too_many_arguments)]
fn tree_gains(
    nodes: &[Node],
    ends: &[(usize, u32)],
    gh: &[f64],
    m: usize,
    labels: std::ops::Range<usize>,
    weights: &[f64],
    lambda: f64,
    gains: &mut [f64],
) {
    let width = 2 * labels.len();
    // Per node: the labels' gradient sums, then their Hessian sums.
    let mut sums = vec![0.0; nodes.len() * width];
    for (i, &(end, _)) in ends.iter().enumerate() {
        let w = weights[i];
        if w == 0.0 {
            continue;
        }
        let row = &gh[i * 2 * m..(i + 1) * 2 * m];
        let at = &mut sums[end * width..(end + 1) * width];
        for (k, j) in labels.clone().enumerate() {
            at[k] += w * row[j];
            at[labels.len() + k] += w * row[m + j];
        }
    }
    let score = |s: &[f64]| -> f64 {
        let (g, h) = s.split_at(s.len() / 2);
        g.iter().zip(h).map(|(g, h)| if h + lambda > 0.0 { g * g / (h + lambda) } else { 0.0 }).sum()
    };
    sum_up_splits(nodes, &mut sums, width, |feature, parent, l, r| {
        // A split of rows it was not grown on can lose; it counts as no gain.
        gains[feature] += (score(l) + score(r) - score(parent)).max(0.0);
    });
}

#[cfg(test)]
mod tests {
    use super::super::loss::{RankingLoss, RowScratch};
    use super::super::{GradientBoostingModel, GradientBoostingParams, RankOrders};
    use crate::data::features::{FeatureKind, FeatureMatrixView};
    use crate::data::ranking::{ranks_of_order, RankMatrixView};
    use crate::learner::Learner;
    use crate::rng::Rng;
    use crate::tree::Node;

    /// The nodes a row passes, root first (missing values as `fill`).
    fn path(nodes: &[Node], row: &[f64], fill: &[f64]) -> Vec<usize> {
        let (mut at, mut passed) = (0, Vec::new());
        loop {
            passed.push(at);
            let value = |f: u32| if row[f as usize].is_nan() { fill[f as usize] } else { row[f as usize] };
            at = match nodes[at] {
                Node::Leaf { .. } => return passed,
                Node::Split { feature, threshold, left, right } => [right, left][(value(feature) <= threshold) as usize],
                Node::Category { feature, value: v, left, right } => [right, left][(value(feature) == v) as usize],
            } as usize;
        }
    }

    /// The definition, the slow way: each round's scores from the model cut to the rounds before
    /// it, each split's rows found by walking every row from the root, the sums taken directly.
    fn reference(model: &GradientBoostingModel, x: &FeatureMatrixView<'_>, y: &RankMatrixView<'_>, w: &[f64]) -> Vec<f64> {
        let (n, m) = (y.n_rows(), y.n_labels());
        let (orders, lambda, per_round) = (RankOrders::new(y), model.params.l2_regularization, model.trees_per_round());
        let mut gains = vec![0.0; x.n_features()];
        let (mut g, mut h, mut scratch) = (vec![0.0; m], vec![0.0; m], RowScratch::default());
        for (t, tree) in model.trees.iter().enumerate() {
            let cut = GradientBoostingModel { trees: model.trees[..t - t % per_round].to_vec(), ..model.clone() };
            let scores = cut.predict_scores(x).unwrap();
            let labels: Vec<usize> = if model.params.per_label_trees { vec![t % m] } else { (0..m).collect() };
            let (mut gs, mut hs) = (vec![vec![0.0; m]; tree.nodes.len()], vec![vec![0.0; m]; tree.nodes.len()]);
            for i in 0..n {
                model.params.loss.derivatives(orders.row(i), y.row(i), &scores[i * m..(i + 1) * m], &mut g, &mut h, &mut scratch);
                for node in path(&tree.nodes, x.row(i), &model.fill_values) {
                    for &j in &labels {
                        gs[node][j] += w[i] * g[j];
                        hs[node][j] += w[i] * h[j];
                    }
                }
            }
            let score = |k: usize| labels.iter().map(|&j| gs[k][j] * gs[k][j] / (hs[k][j] + lambda)).sum::<f64>();
            for (k, node) in tree.nodes.iter().enumerate() {
                if let Node::Split { feature, left, right, .. } | Node::Category { feature, left, right, .. } = *node {
                    gains[feature as usize] += (score(left as usize) + score(right as usize) - score(k)).max(0.0);
                }
            }
        }
        let sum: f64 = gains.iter().sum();
        gains.iter().map(|v| v / sum).collect()
    }

    #[test]
    fn the_gains_match_the_definition() {
        // Both losses, both kinds of trees, missing values, a nominal feature, subsampled rounds,
        // uneven and zero row weights, and rows the model was not fitted on.
        let mut rng = Rng::new(41);
        let (n, d, m) = (240, 4, 4);
        let mut x: Vec<f64> = (0..n * d).map(|_| rng.uniform()).collect();
        let mut y = Vec::new();
        for i in 0..n {
            let r = &x[i * d..(i + 1) * d];
            let s = [r[0], r[2] * 0.5, 1.0 - r[0], 0.3 * r[3] + 0.2 * rng.uniform()];
            let mut order: Vec<usize> = (0..m).collect();
            order.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
            y.extend(ranks_of_order(&order, m));
        }
        for (i, v) in x.iter_mut().enumerate() {
            if i % d == 1 {
                *v = (*v * 3.0).floor();
            } else if i % 13 == 0 {
                *v = f64::NAN;
            }
        }
        let kinds = [FeatureKind::Numeric, FeatureKind::Nominal, FeatureKind::Numeric, FeatureKind::Numeric];
        let xv = FeatureMatrixView::new(&x, n, d).unwrap().with_kinds(Some(&kinds)).unwrap();
        let yv = RankMatrixView::new(&y, n, m).unwrap();
        let w: Vec<f64> = (0..n).map(|i| [1.0, 0.5, 2.0, 0.0][i % 4]).collect();
        for (loss, per_label_trees) in [
            (RankingLoss::PlackettLuce, false),
            (RankingLoss::PairwiseLogistic, true),
            (RankingLoss::PlackettLuce, true),
            (RankingLoss::PairwiseLogistic, false),
        ] {
            let params = GradientBoostingParams {
                loss,
                n_estimators: 6,
                max_depth: Some(3),
                min_samples_leaf: 4.0,
                subsample: 0.7,
                per_label_trees,
                seed: 9,
                ..Default::default()
            };
            let model = GradientBoostingModel::fit_views(&xv, &yv, Some(&w), params).unwrap();
            let got = model.gain_importances(&xv, &yv, &w).unwrap();
            let want = reference(&model, &xv, &yv, &w);
            for (a, b) in got.iter().zip(&want) {
                assert!((a - b).abs() < 1e-9, "{loss:?} {per_label_trees}: {got:?} vs {want:?}");
            }
            assert!((got.iter().sum::<f64>() - 1.0).abs() < 1e-12 && got[0] > got[1].max(got[3]), "{got:?}");
        }
    }

    #[test]
    fn rows_of_another_shape_are_refused() {
        let x = vec![0.0; 8];
        let y = vec![1, 2, 2, 1, 1, 2, 2, 1];
        let (xv, yv) = (FeatureMatrixView::new(&x, 4, 2).unwrap(), RankMatrixView::new(&y, 4, 2).unwrap());
        let model = GradientBoostingModel::fit_views(&xv, &yv, None, GradientBoostingParams::default()).unwrap();
        let y3 = vec![1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3];
        assert!(model.gain_importances(&xv, &RankMatrixView::new(&y3, 4, 3).unwrap(), &[1.0; 4]).is_err());
        assert!(model.gain_importances(&xv, &yv, &[1.0; 3]).is_err());
        // Ties: the Plackett-Luce loss has none, as at fit.
        let tied = vec![1, 1, 1, 2, 2, 1, 1, 2];
        let err = model.gain_importances(&xv, &RankMatrixView::new(&tied, 4, 2).unwrap(), &[1.0; 4]).unwrap_err();
        assert!(err.to_string().contains("row 0") && err.to_string().contains("Plackett-Luce"), "{err}");
        // A model whose trees never split: no gain, all shares 0.
        assert_eq!(model.gain_importances(&xv, &yv, &[1.0; 4]).unwrap(), vec![0.0, 0.0]);
    }
}
