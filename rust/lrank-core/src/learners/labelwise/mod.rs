//! Labelwise label ranking (Fotakis, Kalavasis, Kontonis & Tzamos, "Label ranking through
//! nonparametric regression", ICML 2022): regress each label's relative position on the
//! features and rank the labels by their predicted positions.
//!
//! - Targets: a ranking holding k labels gives label j at position r the score (r - 1/2) / k, in
//!   (0, 1). For complete rankings this is position / m shifted by the constant 1/(2m), which
//!   changes neither the regression splits nor the predicted order; for incomplete rankings it
//!   is the middle of the label's share of the order. A label missing from a ranking has no
//!   target there: it is left out of that label's regression (the other labels of the row
//!   still count). Tied labels (a bucket order) get the score of their mid-rank, the mean of
//!   the positions their bucket spans; the prediction is still a ranking without ties.
//! - One multi-output CART tree predicts the whole score vector: a split maximises the decrease
//!   of the summed squared error over labels, each label over the rows that rank it (the
//!   proxy Σ_j S_L²/W_L + S_R²/W_R, S and W the label's weighted target sum and weight); a leaf
//!   holds each label's weighted mean target, or its parent's value for a label none of its rows
//!   ranks (the root uses 1/2, the middle).
//! - `LWDT` is one tree (fully grown by default), `LWRF` a random forest of them (bootstrap
//!   samples, a share of the features per node) whose prediction averages the trees' score
//!   vectors. The predicted ranking sorts labels by increasing score, ties to the lower label.
//! - Tuned mode picks `max_depth` from {5, 10, 15, unlimited} by inner 5-fold cross-validation on
//!   the training data (mean Kendall tau; ties to the shallower depth), then refits.

use crate::data::features::{FeatureMatrixView, Filled};
use crate::data::ranking::{ranking_from_scores, RankMatrixView};
use crate::data::training::TrainingSet;
use crate::error::{invalid, Result};
use crate::learner::checks::same_len;
use crate::learner::inner_cv::InnerFolds;
use crate::learner::{
    bad_param, check_same_training_data, fill_row_blocks_upto, merge_forests, trees_to_add, Header, Learner, Outputs, Params,
    Prediction,
};
use crate::limits::check_models;
use crate::tree::node_weight;
use crate::tree::{
    all_rows, bootstrap_sampling, check_max_bins, out_of_bag_ranks, out_of_bag_rows, BlockRows, FlatTrees, GrowParams, Growth,
    LabelwiseVariance, MaxFeatures, MeanScores, ScoreLeaf, SplitTree, Targets, ThresholdRule, TrainingFeatures, Tree, MAX_BINS,
};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Depths tried by the tuned mode (`None`: unlimited).
pub const DEPTH_CANDIDATES: [Option<usize>; 4] = [Some(5), Some(10), Some(15), None];
/// Folds of the tuned mode's inner cross-validation.
pub const TUNING_FOLDS: usize = 5;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelwiseParams {
    /// Number of trees (1 with `bootstrap = false` and all features: a plain tree).
    pub n_estimators: usize,
    pub bootstrap: bool,
    pub max_features: MaxFeatures,
    /// Maximum splits on a root-to-leaf path; `None`: unlimited.
    pub max_depth: Option<usize>,
    /// Nodes with less total weight are leaves.
    pub min_samples_split: f64,
    /// Least total weight on each side of a split.
    pub min_samples_leaf: f64,
    /// Choose `max_depth` from [`DEPTH_CANDIDATES`] by inner cross-validation.
    pub tune_depth: bool,
    pub seed: u64,
    /// Histogram split search with at most this many bins per feature (2 to 255); `None`:
    /// exact search, every boundary between distinct values.
    #[serde(default)]
    pub max_bins: Option<usize>,
    /// Each node draws its features from a seed of its own (derived from its parent's) instead of
    /// one stream per tree: the forest the exact distributed variant grows (`lrank.dask.fit(...,
    /// exact=True)`) is this one.
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_7")]
    pub node_seeds: bool,
}

impl LabelwiseParams {
    /// A single fully grown tree (LWDT).
    pub fn tree() -> Self {
        LabelwiseParams {
            n_estimators: 1,
            bootstrap: false,
            max_features: MaxFeatures::All,
            max_depth: None,
            min_samples_split: 2.0,
            min_samples_leaf: 1.0,
            tune_depth: false,
            seed: 0,
            max_bins: None,
            node_seeds: false,
        }
    }

    /// A random forest of 100 trees on bootstrap samples with a third of the features per node
    /// (LWRF), searching histograms of at most 255 bins.
    pub fn forest() -> Self {
        LabelwiseParams {
            n_estimators: 100,
            bootstrap: true,
            max_features: MaxFeatures::Fraction(1.0 / 3.0),
            max_bins: Some(MAX_BINS),
            ..Self::tree()
        }
    }
}

impl Params for LabelwiseParams {
    fn validate(&self) -> Result<()> {
        check_models("n_estimators", self.models())?;
        if !(self.min_samples_split >= 0.0) {
            return Err(bad_param("min_samples_split", "must be >= 0"));
        }
        if !(self.min_samples_leaf >= 0.0) {
            return Err(bad_param("min_samples_leaf", "must be >= 0"));
        }
        check_max_bins(self.max_bins)?;
        self.max_features.validate()
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

/// Mean Kendall tau of one candidate depth in the tuned mode's inner cross-validation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepthScore {
    pub max_depth: Option<usize>,
    #[serde(with = "crate::numeric::nonfinite_f64")]
    pub tau: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelwiseModel {
    pub params: LabelwiseParams,
    /// The depth the trees were grown with (the tuned choice in tuned mode).
    pub max_depth: Option<usize>,
    /// Inner cross-validation results (empty unless tuned).
    pub depth_scores: Vec<DepthScore>,
    pub n_features: usize,
    pub n_labels: usize,
    pub fill_values: Vec<f64>,
    pub trees: Vec<Tree<ScoreLeaf>>,
    /// The leaves' scores in one table, built on the first prediction (not saved).
    #[serde(skip)]
    pub(crate) leaf_table: LeafTable,
    /// The trees laid out for prediction (made on the first, kept).
    #[serde(skip)]
    pub(crate) flat: FlatTrees,
}

/// Every tree's leaf scores in one contiguous table (tree t's leaf l at `starts[t] + l * m`). The
/// leaves' own vectors lie scattered over the heap: one more cache miss per tree and row.
#[derive(Clone, Debug, Default)]
pub(crate) struct LeafTable(OnceLock<(Vec<f64>, Vec<usize>)>);

impl PartialEq for LeafTable {
    fn eq(&self, _: &Self) -> bool {
        true // derived from the trees, which are compared
    }
}

impl Learner for LabelwiseModel {
    type Params = LabelwiseParams;

    fn fit(params: LabelwiseParams, data: &TrainingSet<'_>) -> Result<Self> {
        let (x, y) = (&data.x, &data.y);
        let filled = Filled::new(x);
        let fill = filled.fill.clone();
        let xv = filled.view(x);
        let (max_depth, depth_scores) =
            if params.tune_depth { tune_depth(&xv, y, &data.weights, &params)? } else { (params.max_depth, Vec::new()) };
        let trees = grow(&features_of(&xv, &params), y, &data.weights, data.row_weight, &params, max_depth, 0);
        Ok(LabelwiseModel {
            params,
            max_depth,
            depth_scores,
            n_features: x.n_features(),
            n_labels: y.n_labels(),
            fill_values: fill,
            trees,
            leaf_table: LeafTable::default(),
            flat: FlatTrees::default(),
        })
    }

    /// Refused for a tuned depth: the inner cross-validation fits forests of `n_estimators`
    /// trees, so more trees may choose another depth than the one the trees have.
    fn add_trees(mut self, n_estimators: usize, data: &TrainingSet<'_>) -> Result<Self> {
        if !trees_to_add(self.trees.len(), n_estimators)? {
            return Ok(self);
        }
        if self.params.tune_depth {
            return Err(invalid(
                "trees cannot be added to a forest with a tuned depth (warm_start): more trees may tune another depth; set max_depth",
            ));
        }
        let params = LabelwiseParams { n_estimators, ..self.params.clone() };
        params.validate()?;
        let filled = Filled::new(&data.x);
        check_same_training_data((self.header(), &self.fill_values), (self.header_of(data), &filled.fill))?;
        let xv = filled.view(&data.x);
        // A single plain tree grows otherwise than a forest's first tree: the forest grows whole.
        let first = if Growth::of(self.params.n_estimators, params.bootstrap, 0).is_forest() { self.trees.len() } else { 0 };
        let more = grow(&features_of(&xv, &params), &data.y, &data.weights, data.row_weight, &params, params.max_depth, first);
        self.trees.truncate(first);
        self.trees.extend(more);
        self.params.n_estimators = n_estimators;
        self.leaf_table = LeafTable::default();
        self.flat = FlatTrees::default();
        Ok(self)
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> LabelwiseParams {
        self.params.clone()
    }

    /// Labels by increasing mean score, ties to the lower label.
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
        let scores = self.mean_scores(x);
        let ranks = scores_to_rankings(&scores, self.n_labels);
        Ok(Prediction { ranks, confidence: None, scores: outputs.scores.then_some(scores) })
    }

    /// The ranking of the mean leaf scores of the trees that left each row out.
    fn out_of_bag(&self, data: &TrainingSet<'_>) -> Result<Option<Vec<i32>>> {
        let x = &data.x;
        let p = &self.params;
        let sampling = bootstrap_sampling(Growth::of(p.n_estimators, p.bootstrap, p.seed).with_node_seeds(p.node_seeds))?;
        let m = self.n_labels;
        let rows = out_of_bag_rows(&self.trees, sampling, x, &self.fill_values, |leaves| {
            let mut mean = vec![0.0; m];
            for leaf in leaves {
                mean.iter_mut().zip(&leaf.scores).for_each(|(a, &s)| *a += s);
            }
            let scale = 1.0 / leaves.len() as f64;
            mean.iter_mut().for_each(|a| *a *= scale);
            scores_to_rankings(&mean, m)
        })?;
        Ok(Some(out_of_bag_ranks(rows, m)))
    }

    fn split_trees(&self) -> Vec<SplitTree<'_>> {
        self.trees.iter().map(|t| SplitTree::whole(t, &self.fill_values)).collect()
    }
    fn leaf_rankings(&self) -> Vec<Vec<Vec<i32>>> {
        self.trees.iter().map(|t| t.leaves.iter().map(|l| scores_to_rankings(&l.scores, self.n_labels)).collect()).collect()
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "max_depth": self.max_depth,
            "depth_scores": self.depth_scores.iter().map(|s| serde_json::json!({"max_depth": s.max_depth, "tau": s.tau})).collect::<Vec<_>>(),
            "tree_depths": self.trees.iter().map(|t| t.depth()).collect::<Vec<_>>(),
            "tree_n_leaves": self.trees.iter().map(|t| t.n_leaves()).collect::<Vec<_>>(),
        })
    }

    /// One forest of all the models' trees; a tuned depth cannot be merged (each part tuned its own).
    fn merge(models: Vec<Self>, fill_values: Vec<f64>) -> Result<Self> {
        if models.iter().any(|m| m.params.tune_depth) {
            return Err(invalid("labelwise models with a tuned depth cannot be merged: fix max_depth"));
        }
        let same = |a: &Self, b: &Self| {
            LabelwiseParams { n_estimators: 0, seed: 0, ..a.params.clone() }
                == LabelwiseParams { n_estimators: 0, seed: 0, ..b.params.clone() }
        };
        let mut merged = merge_forests(models, &fill_values, same, |into, m| into.trees.extend(m.trees))?;
        merged.params.n_estimators = merged.trees.len();
        merged.fill_values = fill_values;
        merged.leaf_table = LeafTable::default(); // the first model's, if it had predicted
        merged.flat = FlatTrees::default();
        Ok(merged)
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        if self.trees.is_empty() {
            return Err("the model has no trees".into());
        }
        self.trees
            .iter()
            .try_for_each(|t| t.check(self.n_features, |leaf| same_len(leaf.scores.len(), self.n_labels, "a leaf's scores")))
    }
}

impl LabelwiseModel {
    fn header_of(&self, data: &TrainingSet<'_>) -> Header {
        Header { n_features: data.x.n_features(), n_labels: data.y.n_labels() }
    }

    /// The mean of the trees' score vectors for each row (n x m, row-major).
    fn mean_scores(&self, x: &FeatureMatrixView<'_>) -> Vec<f64> {
        let (scale, m) = (1.0 / self.trees.len() as f64, self.n_labels);
        let (table, starts) = self.leaf_table.0.get_or_init(|| {
            let mut starts = Vec::with_capacity(self.trees.len());
            let mut table = Vec::new();
            for tree in &self.trees {
                starts.push(table.len());
                tree.leaves.iter().for_each(|leaf| table.extend_from_slice(&leaf.scores));
            }
            (table, starts)
        });
        // Blocks as large as the threads allow (no scratch per row): tree by tree over all of
        // fried's rows was 5x faster than every tree for each row in turn, and 1.15x faster than
        // blocks of 16384 rows.
        let flat = self.flat.of(self.trees.iter(), x.n_rows());
        fill_row_blocks_upto(x, m, usize::MAX, BlockRows::default, |block, rows, dst: &mut [f64]| {
            block.load(x, rows, &self.fill_values);
            for ((tree, walk), &start) in self.trees.iter().zip(flat.iter()).zip(starts) {
                // One block may hold every row (one thread): Ctrl-C is heard between trees.
                if crate::interrupt::requested() {
                    return;
                }
                for (&leaf, d) in block.leaves_in(tree, walk.as_ref()).iter().zip(dst.chunks_exact_mut(m)) {
                    let at = start + leaf as usize * m;
                    for (d, s) in d.iter_mut().zip(&table[at..at + m]) {
                        *d += s;
                    }
                }
            }
            dst.iter_mut().for_each(|d| *d *= scale);
        })
    }
}

/// Rank vectors from score rows (lower score = more preferred; ties to the lower label).
fn scores_to_rankings(scores: &[f64], m: usize) -> Vec<i32> {
    scores.chunks_exact(m).flat_map(|row| ranking_from_scores(&row.iter().map(|s| -s).collect::<Vec<f64>>())).collect()
}

/// The training features, binned when the histogram search is asked for.
fn features_of(x: &FeatureMatrixView<'_>, params: &LabelwiseParams) -> TrainingFeatures {
    let features = TrainingFeatures::new(x);
    match params.max_bins {
        Some(b) => features.with_bins(b),
        None => features,
    }
}

/// Grows the trees (a single plain tree grows its subtrees in parallel).
fn grow(
    x: &TrainingFeatures,
    y: &RankMatrixView<'_>,
    weights: &[f64],
    row_weight: f64,
    params: &LabelwiseParams,
    max_depth: Option<usize>,
    first_tree: usize,
) -> Vec<Tree<ScoreLeaf>> {
    // A tree's samples weigh at most n times the largest weight (bootstrap counts add up to n).
    let weight_bound = weights.len() as f64 * weights.iter().fold(0.0f64, |a, &w| a.max(w));
    let targets = Targets::relative_positions(y, weight_bound);
    let total: f64 = weights.iter().sum();
    let min_leaf = node_weight(params.min_samples_leaf, total, row_weight);
    let criterion = LabelwiseVariance { targets: std::borrow::Cow::Borrowed(&targets), min_leaf };
    let fitter = MeanScores { targets: &targets, default: 0.5 };
    let grow = GrowParams {
        max_depth,
        max_features: params.max_features.resolve(x.n_features()),
        min_weight_split: node_weight(params.min_samples_split, total, row_weight),
        threshold_rule: ThresholdRule::Best,
    };
    Growth::of(params.n_estimators, params.bootstrap, params.seed)
        .with_node_seeds(params.node_seeds)
        .from_tree(first_tree)
        .grow_additive(x, &all_rows(weights.len()), weights, &criterion, &fitter, &grow)
}

/// Inner cross-validation of the depth candidates: returns the chosen depth and every score.
fn tune_depth(
    x: &FeatureMatrixView<'_>,
    y: &RankMatrixView<'_>,
    weights: &[f64],
    params: &LabelwiseParams,
) -> Result<(Option<usize>, Vec<DepthScore>)> {
    let (n, d, m) = (x.n_rows(), x.n_features(), y.n_labels());
    if n < TUNING_FOLDS {
        return Err(invalid(format!(
            "tuning max_depth by {TUNING_FOLDS}-fold cross-validation needs at least {TUNING_FOLDS} training rows, got {n}"
        )));
    }
    let folds = InnerFolds::deal(n, TUNING_FOLDS, params.seed ^ 0x7A5E_D0C5);
    let row_weight = weights.iter().sum::<f64>() / n as f64;
    let mut taus = vec![(0.0f64, 0usize); DEPTH_CANDIDATES.len()];
    for fold in 0..TUNING_FOLDS {
        let split = folds.split(fold, x, y, weights);
        let xv = split.train_x(x)?;
        let features = features_of(&xv, params);
        let (yv, xtv) = (split.train_y(), split.test_x()?);
        for (c, &depth) in DEPTH_CANDIDATES.iter().enumerate() {
            let model = LabelwiseModel {
                params: params.clone(),
                max_depth: depth,
                depth_scores: Vec::new(),
                n_features: d,
                n_labels: m,
                fill_values: vec![0.0; d],
                trees: grow(&features, &yv, &split.train_weights, row_weight, params, depth, 0),
                leaf_table: LeafTable::default(),
                flat: FlatTrees::default(),
            };
            split.add_taus(y, &scores_to_rankings(&model.mean_scores(&xtv), m), &mut taus[c]);
        }
    }
    let scores: Vec<DepthScore> = DEPTH_CANDIDATES
        .iter()
        .zip(&taus)
        .map(|(&max_depth, &(sum, count))| DepthScore { max_depth, tau: if count > 0 { sum / count as f64 } else { f64::NAN } })
        .collect();
    let mut best = scores[0];
    for s in &scores[1..] {
        if s.tau > best.tau {
            best = *s;
        }
    }
    Ok((best.max_depth, scores))
}

pub mod distributed;

#[cfg(test)]
mod tests;
