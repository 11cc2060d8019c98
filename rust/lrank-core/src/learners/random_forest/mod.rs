//! LR-RF: the label ranking random forest of Zhou & Qiu (2018).
//!
//! Each tree is grown on a bootstrap sample of size n by the tree engine with the information
//! gain of a class derived from each ranking: each distinct ranking as its own class (the
//! authors' code, the default) or "top label as class" (the most preferred label present). A leaf keeps the generalized Borda
//! votes of the training rankings that reach it, counted with their bootstrap multiplicity,
//! and predicts their consensus ranking. The forest predicts the Borda consensus of its trees'
//! rankings. Trees are grown in parallel, each from its own seed derived from the forest's
//! seed and the tree's index, so the same seed gives the same model for any thread count.
//!
//! Tied training rankings: in the ranking class mode a bucket order is a class like any other,
//! in the pairwise mode a tied pair does not count, and the leaves' Borda votes give tied labels
//! the votes of their mid-rank (see [`crate::consensus::borda`]); the top-label mode refuses a
//! tied top bucket. Predictions are rankings without ties.

use crate::consensus::BordaAccumulator;
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::{ranking_from_scores, top_label, RankMatrixView};
use crate::data::training::TrainingSet;
use crate::error::{LrankError, Result};
use crate::learner::checks::{complete_ranking, same_len};
use crate::learner::{bad_param, fill_rows, Header, Learner, Outputs, Params, Prediction};
use crate::tree::{
    all_rows, grow_forest, ClassEntropy, ForestSampling, GrowParams, LeafFitter, MaxFeatures, PairwiseEntropy, SplitCriterion,
    ThresholdRule, TrainingFeatures, Tree, TreeInputs,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What counts as the class of a training ranking when measuring information gain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClassMode {
    /// The most preferred label present in the ranking (as the paper's text describes).
    TopLabel,
    /// Each distinct ranking (rank vector) is its own class (the authors' published code, and
    /// what reproduces the paper's published accuracies; the default).
    Ranking,
    /// Beyond the paper: every label pair a ranking contains is a binary class, and the gain is
    /// summed over pairs; meant for incomplete rankings, where per-ranking classes are nearly
    /// all distinct and so carry no information. A pair a ranking ties does not count.
    Pairwise,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomForestParams {
    pub n_estimators: usize,
    /// Maximum splits on a root-to-leaf path; `None` grows until the other rules stop.
    pub max_depth: Option<usize>,
    pub max_features: MaxFeatures,
    pub class_mode: ClassMode,
    /// Grow each tree on a bootstrap sample of size n (else on the whole training set).
    pub bootstrap: bool,
    pub seed: u64,
    /// Nodes whose class entropy (nats) is below this are leaves.
    pub entropy_epsilon: f64,
}

impl Default for RandomForestParams {
    fn default() -> Self {
        RandomForestParams {
            n_estimators: 50,
            max_depth: Some(8),
            max_features: MaxFeatures::Log2PlusOne,
            class_mode: ClassMode::Ranking,
            bootstrap: true,
            seed: 0,
            entropy_epsilon: 1e-6,
        }
    }
}

impl Params for RandomForestParams {
    fn validate(&self) -> Result<()> {
        if self.n_estimators == 0 {
            return Err(bad_param("n_estimators", "must be at least 1"));
        }
        self.max_features.validate()?;
        if !(self.entropy_epsilon >= 0.0) {
            return Err(bad_param("entropy_epsilon", "must be >= 0"));
        }
        Ok(())
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
}

/// A leaf's model: the consensus ranking of the training rankings that reached it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankingLeaf {
    pub ranking: Vec<i32>,
    /// Total (bootstrap-weighted) number of training rankings in the leaf.
    pub weight: f64,
}

struct BordaLeafFitter<'a> {
    y: &'a RankMatrixView<'a>,
}

impl LeafFitter for BordaLeafFitter<'_> {
    type Leaf = RankingLeaf;
    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> RankingLeaf {
        let mut votes = BordaAccumulator::new(self.y.n_labels());
        for (&s, &w) in samples.iter().zip(weights) {
            votes.add(self.y.row(s as usize), w);
        }
        RankingLeaf { ranking: votes.ranking(), weight: weights.iter().sum() }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomForestModel {
    pub params: RandomForestParams,
    pub n_features: usize,
    pub n_labels: usize,
    /// Value used in place of a missing feature value (training lower median).
    pub fill_values: Vec<f64>,
    pub trees: Vec<Tree<RankingLeaf>>,
}

/// Class of every training ranking and the number of classes (class modes only).
fn classes_of(y: &RankMatrixView<'_>, mode: ClassMode) -> Result<(Vec<u32>, usize)> {
    match mode {
        ClassMode::TopLabel => {
            let mut classes = Vec::with_capacity(y.n_rows());
            for (i, row) in y.rows().enumerate() {
                let top = top_label(row).ok_or(LrankError::InvalidRanking {
                    row: i,
                    reason: "a training ranking must contain at least one label".into(),
                })?;
                if row.iter().filter(|&&r| r == 1).count() > 1 {
                    return Err(LrankError::InvalidRanking {
                        row: i,
                        reason: "its top bucket ties several labels, so the top_label class mode has no class for it \
                                 (use the ranking or pairwise class mode)"
                            .into(),
                    });
                }
                classes.push(top as u32);
            }
            Ok((classes, y.n_labels()))
        }
        ClassMode::Ranking => {
            let mut ids: HashMap<&[i32], u32> = HashMap::new();
            let classes = y
                .rows()
                .map(|row| {
                    let next = ids.len() as u32;
                    *ids.entry(row).or_insert(next)
                })
                .collect();
            Ok((classes, ids.len()))
        }
        ClassMode::Pairwise => unreachable!("pairwise mode has no classes"),
    }
}

/// Grows the trees of a forest with `criterion`, tree `t` from seed `child_seed(seed, t)`.
fn grow_trees<C: SplitCriterion>(
    x: &TrainingFeatures,
    y: &RankMatrixView<'_>,
    sample_weight: &[f64],
    params: &RandomForestParams,
    criterion: &C,
) -> Vec<Tree<RankingLeaf>> {
    let grow = GrowParams {
        max_depth: params.max_depth,
        max_features: params.max_features.resolve(x.n_features()),
        min_weight_split: 0.0,
        threshold_rule: ThresholdRule::Best,
    };
    let sampling = ForestSampling { n_trees: params.n_estimators, seed: params.seed, bootstrap: params.bootstrap };
    grow_forest(x, &all_rows(sample_weight.len()), sample_weight, sampling, criterion, &BordaLeafFitter { y }, &grow)
}

impl Learner for RandomForestModel {
    type Params = RandomForestParams;

    fn fit(params: RandomForestParams, data: &TrainingSet<'_>) -> Result<Self> {
        let (x, y) = (&data.x, &data.y);
        let TreeInputs { fill_values, features } = TreeInputs::new(x);
        let trees = match params.class_mode {
            ClassMode::Pairwise => {
                grow_trees(&features, y, &data.weights, &params, &PairwiseEntropy::new(y, params.entropy_epsilon))
            }
            mode => {
                let (classes, n_classes) = classes_of(y, mode)?;
                let criterion = ClassEntropy::new(&classes, n_classes, params.entropy_epsilon);
                grow_trees(&features, y, &data.weights, &params, &criterion)
            }
        };
        Ok(RandomForestModel { params, n_features: x.n_features(), n_labels: y.n_labels(), fill_values, trees })
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> RandomForestParams {
        self.params.clone()
    }

    /// The Borda consensus of the trees' leaf rankings, row by row.
    fn predict(&self, x: &FeatureMatrixView<'_>, _outputs: Outputs) -> Result<Prediction> {
        let m = self.n_labels;
        let ranks = fill_rows(
            x,
            m,
            || vec![0.0; m],
            |votes, row, dst| {
                self.votes(row, votes);
                dst.copy_from_slice(&ranking_from_scores(votes));
            },
        );
        Ok(Prediction::ranks(ranks))
    }

    /// Each tree's ranking for each row (trees x n x m).
    fn member_ranks(&self, x: &FeatureMatrixView<'_>) -> Result<Option<Vec<i32>>> {
        let (n, m) = (x.n_rows(), self.n_labels);
        let mut out = vec![0i32; self.trees.len() * n * m];
        if n * m > 0 {
            out.par_chunks_mut(n * m).zip(&self.trees).for_each(|(dst, tree)| {
                for (i, row) in dst.chunks_mut(m).enumerate() {
                    row.copy_from_slice(&tree.leaf_for(x.row(i), &self.fill_values).ranking);
                }
            });
        }
        Ok(Some(out))
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "tree_depths": self.trees.iter().map(|t| t.depth()).collect::<Vec<_>>(),
            "fill_values": self.fill_values,
        })
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        if self.trees.is_empty() {
            return Err("the forest has no trees".into());
        }
        self.trees
            .iter()
            .try_for_each(|t| t.check(self.n_features, |l| complete_ranking(&l.ranking, self.n_labels, "a leaf ranking")))
    }
}

impl RandomForestModel {
    /// Borda votes of the trees for one row (label at position r gets m + 1 - r per tree).
    fn votes(&self, row: &[f64], votes: &mut [f64]) {
        let m1 = self.n_labels as f64 + 1.0;
        votes.iter_mut().for_each(|v| *v = 0.0);
        for tree in &self.trees {
            let leaf = tree.leaf_for(row, &self.fill_values);
            for (v, &r) in votes.iter_mut().zip(&leaf.ranking) {
                *v += m1 - r as f64;
            }
        }
    }
}

#[cfg(test)]
mod tests;
