//! One-versus-one pairwise label ranking (as in Fotakis, Kalavasis, Kontonis & Tzamos 2022):
//! one binary classifier per label pair {a, b}, a < b, trained on the rows whose ranking holds
//! both labels (class: a before b), and a ranking from the pairwise predictions.
//!
//! - Base classifier: a decision tree (information gain, fully grown by default) or a random
//!   forest of them (bootstrap samples of the pair's rows, a share of the features per node)
//!   from lrank's tree engine; a leaf holds the weighted share of its rows with a before b, and a
//!   forest averages its trees. A pair no training ranking holds predicts 1/2.
//! - Aggregation: Copeland (a label scores 1 for each pair it is predicted to win, probability
//!   above 1/2, and 1/2 for a probability of exactly 1/2) or summed probabilities (a label scores
//!   Σ_b P(label before b)); labels are ranked by decreasing score, ties to the lower label.
//! - Pairs are trained in parallel, pair p from the seed `child_seed(seed, p)`.

use crate::error::{LrankError, Result};
use crate::features::{check_n_features, FeatureMatrixView, Filled};
use crate::ranking::{ranking_from_scores, RankMatrixView};
use crate::rng::{child_seed, Rng};
use crate::training::checked_training_set;
use crate::tree::{
    grow_forest, grow_tree_with, ClassEntropy, ForestSampling, GrowParams, LeafFitter, MaxFeatures, ThresholdRule,
    TrainingFeatures, Tree, TreeRandomness,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How pairwise predictions become a ranking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PairwiseVoting {
    /// Count of predicted pairwise wins (Copeland).
    Copeland,
    /// Sum of the predicted probabilities of winning.
    Probability,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairwiseParams {
    /// Trees per pair (1 without bootstrap and with all features: a plain decision tree).
    pub n_estimators: usize,
    pub bootstrap: bool,
    pub max_features: MaxFeatures,
    pub max_depth: Option<usize>,
    /// Nodes with less total weight are leaves.
    pub min_samples_split: f64,
    pub voting: PairwiseVoting,
    pub seed: u64,
}

impl PairwiseParams {
    /// One fully grown decision tree per pair.
    pub fn tree() -> Self {
        PairwiseParams {
            n_estimators: 1,
            bootstrap: false,
            max_features: MaxFeatures::All,
            max_depth: None,
            min_samples_split: 2.0,
            voting: PairwiseVoting::Copeland,
            seed: 0,
        }
    }

    /// A random forest of 100 trees per pair, sqrt(d) features per node.
    pub fn forest() -> Self {
        PairwiseParams { n_estimators: 100, bootstrap: true, max_features: MaxFeatures::Sqrt, ..Self::tree() }
    }

    fn validate(&self) -> Result<()> {
        let bad = |name: &'static str, reason: &str| Err(LrankError::InvalidParameter { name, reason: reason.into() });
        if self.n_estimators == 0 {
            return bad("n_estimators", "must be at least 1");
        }
        if !(self.min_samples_split >= 0.0) {
            return bad("min_samples_split", "must be >= 0");
        }
        self.max_features.validate()
    }
}

/// The classifier of one label pair (a < b): P(a before b).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairClassifier {
    pub a: u32,
    pub b: u32,
    /// Trees with the share of "a before b" in each leaf; empty when no ranking held the pair.
    pub trees: Vec<Tree<f64>>,
}

impl PairClassifier {
    fn probability(&self, row: &[f64], fill: &[f64]) -> f64 {
        if self.trees.is_empty() {
            return 0.5;
        }
        self.trees.iter().map(|t| *t.leaf_for(row, fill)).sum::<f64>() / self.trees.len() as f64
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairwiseModel {
    pub params: PairwiseParams,
    pub n_features: usize,
    pub n_labels: usize,
    pub fill_values: Vec<f64>,
    pub pairs: Vec<PairClassifier>,
}

/// A leaf's share of class 1 (a before b).
struct ShareOfOnes<'a> {
    classes: &'a [u32],
}

impl LeafFitter for ShareOfOnes<'_> {
    type Leaf = f64;
    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> f64 {
        let total: f64 = weights.iter().sum();
        let ones: f64 = samples.iter().zip(weights).filter(|(&s, _)| self.classes[s as usize] == 1).map(|(_, &w)| w).sum();
        if total > 0.0 {
            ones / total
        } else {
            0.5
        }
    }
}

impl PairwiseModel {
    pub fn fit(
        x: &FeatureMatrixView<'_>,
        y: &RankMatrixView<'_>,
        sample_weight: Option<&[f64]>,
        params: PairwiseParams,
    ) -> Result<Self> {
        params.validate()?;
        let weights = checked_training_set(x, y, sample_weight)?;
        let (n, m) = (x.n_rows(), y.n_labels());
        let filled = Filled::new(x);
        let fill = filled.fill.clone();
        let xv = filled.view(x);
        let features = TrainingFeatures::new(&xv);
        let grow = GrowParams {
            max_depth: params.max_depth,
            max_features: params.max_features.resolve(x.n_features()),
            min_weight_split: params.min_samples_split,
            threshold_rule: ThresholdRule::Best,
        };
        let label_pairs: Vec<(usize, usize)> = (0..m).flat_map(|a| ((a + 1)..m).map(move |b| (a, b))).collect();
        let pairs = label_pairs
            .par_iter()
            .enumerate()
            .map(|(p, &(a, b))| {
                let (mut rows, mut row_weights, mut classes) = (Vec::new(), Vec::new(), vec![0u32; n]);
                for (i, r) in y.rows().enumerate() {
                    if r[a] > 0 && r[b] > 0 && weights[i] > 0.0 {
                        rows.push(i as u32);
                        row_weights.push(weights[i]);
                        classes[i] = (r[a] < r[b]) as u32;
                    }
                }
                let seed = child_seed(params.seed, p as u64);
                let trees = if rows.is_empty() {
                    Vec::new()
                } else {
                    let criterion = ClassEntropy::new(&classes, 2, 1e-9);
                    let leaf = ShareOfOnes { classes: &classes };
                    if params.n_estimators == 1 && !params.bootstrap {
                        vec![grow_tree_with(
                            &features,
                            rows,
                            row_weights,
                            &criterion,
                            &leaf,
                            &grow,
                            &mut Rng::new(seed),
                            TreeRandomness::PerNode,
                        )]
                    } else {
                        let sampling = ForestSampling { n_trees: params.n_estimators, seed, bootstrap: params.bootstrap };
                        grow_forest(&features, &rows, &row_weights, sampling, &criterion, &leaf, &grow)
                    }
                };
                PairClassifier { a: a as u32, b: b as u32, trees }
            })
            .collect();
        Ok(PairwiseModel { params, n_features: x.n_features(), n_labels: m, fill_values: fill, pairs })
    }

    /// Each row's label scores (n x m): Copeland wins or summed probabilities (higher is better).
    pub fn predict_scores(&self, x: &FeatureMatrixView<'_>) -> Result<Vec<f64>> {
        check_n_features(x, self.n_features)?;
        let m = self.n_labels;
        let mut out = vec![0.0; x.n_rows() * m];
        out.par_chunks_mut(m).enumerate().for_each(|(i, scores)| {
            for pair in &self.pairs {
                let p = pair.probability(x.row(i), &self.fill_values);
                let (a, b) = (pair.a as usize, pair.b as usize);
                match self.params.voting {
                    PairwiseVoting::Probability => {
                        scores[a] += p;
                        scores[b] += 1.0 - p;
                    }
                    PairwiseVoting::Copeland => {
                        let win = if p > 0.5 {
                            1.0
                        } else if p < 0.5 {
                            0.0
                        } else {
                            0.5
                        };
                        scores[a] += win;
                        scores[b] += 1.0 - win;
                    }
                }
            }
        });
        Ok(out)
    }

    /// Predicted rank matrix: labels by decreasing score, ties to the lower label.
    pub fn predict(&self, x: &FeatureMatrixView<'_>) -> Result<Vec<i32>> {
        let scores = self.predict_scores(x)?;
        Ok(scores.chunks_exact(self.n_labels).flat_map(ranking_from_scores).collect())
    }
}

#[cfg(test)]
mod tests;
