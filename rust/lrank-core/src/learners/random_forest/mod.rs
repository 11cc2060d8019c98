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
//! Beyond the paper: the histogram split search (`max_bins`, the default; `None` searches every
//! boundary, as the paper), the pairwise class mode and `Auto` (pairwise when a training ranking
//! is incomplete, ranking otherwise), and the authors' missing-label protocol (`leaf_missing`,
//! in `leaf_missing.rs`).
//!
//! Tied training rankings: in the ranking class mode a bucket order is a class like any other,
//! in the pairwise mode a tied pair does not count, and the leaves' Borda votes give tied labels
//! the votes of their mid-rank (see [`crate::consensus::borda`]); the top-label mode refuses a
//! tied top bucket. Predictions are rankings without ties.

use crate::consensus::BordaAccumulator;
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::{n_present, ranking_from_scores, top_label, RankMatrixView};
use crate::data::training::TrainingSet;
use crate::error::{invalid, LrankError, Result};
use crate::learner::checks::{complete_ranking, same_len};
use crate::learner::{
    bad_param, check_same_training_data, fill_row_blocks, merge_forests, trees_to_add, Header, Learner, Outputs, Params,
    Prediction,
};
use crate::limits::check_models;
use crate::tree::{
    all_rows, bootstrap_sampling, check_max_bins, grow_forest_additive, out_of_bag_ranks, out_of_bag_rows, AdditiveCriterion,
    BlockRows, ClassEntropy, FlatTrees, ForestSampling, GrowParams, Growth, LeafFitter, MaxFeatures, PairwiseEntropy, SplitTree,
    ThresholdRule, TrainingFeatures, Tree, TreeInputs, MAX_BINS,
};
use leaf_missing::{LeafMissing, Neighbours};
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
    /// `Pairwise` when a training ranking is incomplete, `Ranking` otherwise (the default; last,
    /// as the variants' order is the model files').
    Auto,
}

impl ClassMode {
    /// The mode used for training rankings `y`: `Auto` resolved.
    pub fn resolve(self, y: &RankMatrixView<'_>) -> ClassMode {
        self.resolve_for(y.rows().any(|r| n_present(r) < r.len()))
    }

    /// The mode used when some training ranking is `incomplete` (or none is).
    pub fn resolve_for(self, incomplete: bool) -> ClassMode {
        match self {
            ClassMode::Auto if incomplete => ClassMode::Pairwise,
            ClassMode::Auto => ClassMode::Ranking,
            mode => mode,
        }
    }
}

/// The default histogram size of the forests (and the most bins there can be).
pub const DEFAULT_MAX_BINS: usize = MAX_BINS;

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
    /// Histogram split search with at most this many bins per feature (2 to 255); `None`:
    /// exact search, every boundary between distinct values.
    #[serde(default = "default_max_bins")]
    pub max_bins: Option<usize>,
    /// Zhou & Qiu's missing-label protocol: trees grow on the training rankings as given, and at
    /// prediction each label of each leaf neighbour's ranking is deleted with this probability
    /// before the leaf's Borda count (0: the leaf's consensus, no deletion).
    #[serde(default)]
    pub leaf_missing: f64,
    /// Each node draws its features from a seed of its own (derived from its parent's) instead of
    /// one stream per tree: the forest the exact distributed variant grows (`lrank.dask.fit(...,
    /// exact=True)`) is this one.
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_6")]
    pub node_seeds: bool,
}

fn default_max_bins() -> Option<usize> {
    Some(DEFAULT_MAX_BINS)
}

impl Default for RandomForestParams {
    fn default() -> Self {
        RandomForestParams {
            n_estimators: 50,
            max_depth: Some(8),
            max_features: MaxFeatures::Log2PlusOne,
            class_mode: ClassMode::Auto,
            bootstrap: true,
            seed: 0,
            entropy_epsilon: 1e-6,
            max_bins: default_max_bins(),
            leaf_missing: 0.0,
            node_seeds: false,
        }
    }
}

impl Params for RandomForestParams {
    fn validate(&self) -> Result<()> {
        check_models("n_estimators", self.models())?;
        self.max_features.validate()?;
        if !(self.entropy_epsilon >= 0.0) {
            return Err(bad_param("entropy_epsilon", "must be >= 0"));
        }
        // 1 deletes every label: each leaf's consensus is then the label order, whatever the data.
        if !(0.0..1.0).contains(&self.leaf_missing) {
            return Err(bad_param("leaf_missing", format!("must lie in [0, 1), got {}", self.leaf_missing)));
        }
        check_max_bins(self.max_bins)
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
    fn models(&self) -> u64 {
        self.n_estimators as u64
    }
}

/// A leaf's model: the consensus ranking of the training rankings that reached it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankingLeaf {
    pub ranking: Vec<i32>,
    /// Total (bootstrap-weighted) number of training rankings in the leaf.
    pub weight: f64,
    /// With `leaf_missing`: the training rows in the leaf and how often each was drawn (each
    /// copy is a neighbour of its own); empty otherwise.
    pub members: Vec<(u32, u32)>,
}

struct BordaLeafFitter<'a> {
    y: &'a RankMatrixView<'a>,
    /// With `leaf_missing`: the training rows' weights (a leaf sample weighs its number of
    /// copies times its row's weight).
    row_weights: Option<&'a [f64]>,
}

impl LeafFitter for BordaLeafFitter<'_> {
    type Leaf = RankingLeaf;
    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> RankingLeaf {
        let mut votes = BordaAccumulator::new(self.y.n_labels());
        for (&s, &w) in samples.iter().zip(weights) {
            votes.add(self.y.row(s as usize), w);
        }
        let members = match self.row_weights {
            Some(rw) => samples.iter().zip(weights).map(|(&s, &w)| (s, (w / rw[s as usize]).round().max(1.0) as u32)).collect(),
            None => Vec::new(),
        };
        RankingLeaf { ranking: votes.ranking(), weight: weights.iter().sum(), members }
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
    /// The class mode the trees were grown with (`Auto` resolved).
    pub class_mode: ClassMode,
    /// With `leaf_missing`: the training rankings and weights the leaves' members point to.
    pub neighbours: Option<Neighbours>,
    /// The trees laid out for prediction (made on the first, kept).
    #[serde(skip)]
    pub flat: FlatTrees,
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
        ClassMode::Pairwise | ClassMode::Auto => unreachable!("resolved modes with classes only"),
    }
}

/// How the trees draw their samples.
fn sampling_of(params: &RandomForestParams) -> ForestSampling {
    ForestSampling {
        n_trees: params.n_estimators,
        seed: params.seed,
        bootstrap: params.bootstrap,
        node_seeds: params.node_seeds,
        first_tree: 0,
    }
}

/// Grows the trees of a forest with `criterion`, tree `t` from seed `child_seed(seed, t)`.
fn grow_trees<C: AdditiveCriterion>(
    x: &TrainingFeatures,
    y: &RankMatrixView<'_>,
    sample_weight: &[f64],
    params: &RandomForestParams,
    first_tree: usize,
    criterion: &C,
) -> Vec<Tree<RankingLeaf>> {
    let grow = GrowParams {
        max_depth: params.max_depth,
        max_features: params.max_features.resolve(x.n_features()),
        min_weight_split: 0.0,
        threshold_rule: ThresholdRule::Best,
    };
    let sampling = ForestSampling { first_tree, ..sampling_of(params) };
    let fitter = BordaLeafFitter { y, row_weights: (params.leaf_missing > 0.0).then_some(sample_weight) };
    grow_forest_additive(x, &all_rows(sample_weight.len()), sample_weight, sampling, criterion, &fitter, &grow)
}

impl Learner for RandomForestModel {
    type Params = RandomForestParams;

    fn fit(params: RandomForestParams, data: &TrainingSet<'_>) -> Result<Self> {
        Self::fit_from(params, data, 0)
    }

    fn add_trees(mut self, n_estimators: usize, data: &TrainingSet<'_>) -> Result<Self> {
        if !trees_to_add(self.trees.len(), n_estimators)? {
            return Ok(self);
        }
        let params = RandomForestParams { n_estimators, ..self.params.clone() };
        params.validate()?;
        let more = Self::fit_from(params, data, self.trees.len())?;
        check_same_training_data((self.header(), &self.fill_values), (more.header(), &more.fill_values))?;
        self.trees.extend(more.trees);
        self.params.n_estimators = n_estimators;
        self.flat = FlatTrees::default();
        Ok(self)
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
        if let Some(protocol) = self.leaf_missing() {
            return Ok(Prediction::ranks(protocol.predict(x)));
        }
        let m1 = m as f64 + 1.0;
        // Tree after tree over a block of rows (each tree's nodes stay in cache); Borda votes are
        // whole numbers, so their sums do not depend on the order.
        let flat = self.flat.of(self.trees.iter(), x.n_rows());
        let ranks = fill_row_blocks(x, m, Default::default, |(block, votes): &mut (BlockRows, Vec<f64>), rows, dst| {
            votes.clear();
            votes.resize(dst.len(), 0.0);
            block.load(x, rows, &self.fill_values);
            for (tree, walk) in self.trees.iter().zip(flat.iter()) {
                for (&leaf, row_votes) in block.leaves_in(tree, walk.as_ref()).iter().zip(votes.chunks_exact_mut(m)) {
                    for (v, &r) in row_votes.iter_mut().zip(&tree.leaves[leaf as usize].ranking) {
                        *v += m1 - r as f64;
                    }
                }
            }
            for (out, row_votes) in dst.chunks_exact_mut(m).zip(votes.chunks_exact(m)) {
                out.copy_from_slice(&ranking_from_scores(row_votes));
            }
        });
        Ok(Prediction::ranks(ranks))
    }

    /// Each tree's ranking for each row (trees x n x m).
    fn member_ranks(&self, x: &FeatureMatrixView<'_>) -> Result<Option<Vec<i32>>> {
        if let Some(protocol) = self.leaf_missing() {
            return Ok(Some(protocol.member_ranks(x)));
        }
        let (n, m) = (x.n_rows(), self.n_labels);
        let mut out: Vec<i32> = crate::memory::zeroed("each tree's rankings", &[self.trees.len(), n, m])?;
        if n * m > 0 {
            out.par_chunks_mut(n * m).zip(&self.trees).for_each(|(dst, tree)| {
                for (i, row) in dst.chunks_mut(m).enumerate() {
                    row.copy_from_slice(&tree.leaf_for(x.row(i), &self.fill_values).ranking);
                }
            });
        }
        Ok(Some(out))
    }

    /// The Borda consensus of the leaf rankings of the trees that left each row out.
    fn out_of_bag(&self, data: &TrainingSet<'_>) -> Result<Option<Vec<i32>>> {
        let x = &data.x;
        if self.leaf_missing().is_some() {
            return Err(invalid(
                "out-of-bag predictions are not available with leaf_missing (it deletes labels when predicting)",
            ));
        }
        let sampling = bootstrap_sampling(Growth::Forest(sampling_of(&self.params)))?;
        let (m, m1) = (self.n_labels, self.n_labels as f64 + 1.0);
        let rows = out_of_bag_rows(&self.trees, sampling, x, &self.fill_values, |leaves| {
            let mut votes = vec![0.0; m];
            for leaf in leaves {
                votes.iter_mut().zip(&leaf.ranking).for_each(|(v, &r)| *v += m1 - r as f64);
            }
            ranking_from_scores(&votes)
        })?;
        Ok(Some(out_of_bag_ranks(rows, m)))
    }

    fn split_trees(&self) -> Vec<SplitTree<'_>> {
        self.trees.iter().map(|t| SplitTree::whole(t, &self.fill_values)).collect()
    }
    fn leaf_rankings(&self) -> Vec<Vec<Vec<i32>>> {
        self.trees.iter().map(|t| t.leaves.iter().map(|l| l.ranking.clone()).collect()).collect()
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "tree_depths": self.trees.iter().map(|t| t.depth()).collect::<Vec<_>>(),
            "fill_values": self.fill_values,
            "class_mode": self.class_mode,
        })
    }

    /// One forest of all the models' trees (the parameters of the first, its tree count the total).
    fn merge(models: Vec<Self>, fill_values: Vec<f64>) -> Result<Self> {
        let same = |a: &Self, b: &Self| {
            RandomForestParams { n_estimators: 0, seed: 0, ..a.params.clone() }
                == RandomForestParams { n_estimators: 0, seed: 0, ..b.params.clone() }
        };
        let mut merged = merge_forests(models, &fill_values, same, |into, m| into.trees.extend(m.trees))?;
        merged.params.n_estimators = merged.trees.len();
        merged.fill_values = fill_values;
        merged.flat = FlatTrees::default(); // the first model's, if it had predicted
        Ok(merged)
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        if self.trees.is_empty() {
            return Err("the forest has no trees".into());
        }
        if self.class_mode == ClassMode::Auto {
            return Err("the forest's class mode is not resolved".into());
        }
        let n_rows = match &self.neighbours {
            Some(nb) => nb.check(self.n_labels)?,
            None if self.params.leaf_missing > 0.0 => return Err("leaf_missing is set but the training rankings are not".into()),
            None => 0,
        };
        self.trees.iter().try_for_each(|t| {
            t.check(self.n_features, |l| {
                complete_ranking(&l.ranking, self.n_labels, "a leaf ranking")?;
                match l.members.iter().find(|&&(row, _)| row as usize >= n_rows) {
                    Some(&(row, _)) => Err(format!("a leaf member is training row {row} of {n_rows}")),
                    None => Ok(()),
                }
            })
        })
    }
}

impl RandomForestModel {
    /// [`Learner::fit`] growing trees `first_tree..n_estimators` only.
    fn fit_from(params: RandomForestParams, data: &TrainingSet<'_>, first_tree: usize) -> Result<Self> {
        let (x, y) = (&data.x, &data.y);
        let TreeInputs { fill_values, features } = TreeInputs::binned(x, params.max_bins);
        let class_mode = params.class_mode.resolve(y);
        let trees = match class_mode {
            ClassMode::Pairwise => {
                grow_trees(&features, y, &data.weights, &params, first_tree, &PairwiseEntropy::new(y, params.entropy_epsilon)?)
            }
            mode => {
                let (classes, n_classes) = classes_of(y, mode)?;
                let criterion = ClassEntropy::new(&classes, n_classes, params.entropy_epsilon);
                grow_trees(&features, y, &data.weights, &params, first_tree, &criterion)
            }
        };
        let neighbours = (params.leaf_missing > 0.0).then(|| Neighbours::new(y, &data.weights));
        Ok(RandomForestModel {
            params,
            n_features: x.n_features(),
            n_labels: y.n_labels(),
            fill_values,
            trees,
            class_mode,
            neighbours,
            flat: FlatTrees::default(),
        })
    }

    /// The missing-label protocol, when the forest uses it.
    fn leaf_missing(&self) -> Option<LeafMissing<'_>> {
        let neighbours = self.neighbours.as_ref().filter(|_| self.params.leaf_missing > 0.0)?;
        Some(LeafMissing { model: self, neighbours, p: self.params.leaf_missing })
    }
}

pub mod distributed;
mod leaf_missing;
#[cfg(test)]
mod tests;
