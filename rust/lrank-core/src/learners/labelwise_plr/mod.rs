//! Labelwise partial label ranking with tie layers (MORE-PLR, Thies, Alfaro & Bengs 2024): a
//! multi-output regression forest predicts each label's position, and a tie layer turns the
//! predicted positions into a bucket order. Linear in the number of labels (the pairwise
//! method is quadratic).
//!
//! - Targets: a label's position in the training ranking (dense: tied labels share one, 1 = the
//!   top bucket); a label missing from a ranking has no target there and is left out of that
//!   label's regression, and a ranking holding k < m labels has its positions stretched by m / k
//!   (beyond the paper: unstretched, rows with few labels pull all predictions together and the
//!   tie layer ties them). The trees are the labelwise learners' (multi-output CART, squared error
//!   summed over labels); a leaf predicts each label's mean position, or its parent's for a label
//!   none of its rows ranks (the root: the mean of all training positions).
//! - The forest's prediction for a label is the mean μ of its trees' predictions, with their
//!   standard deviation s (over trees, 0 for one tree). Tie layers:
//!   - rounding: labels whose μ rounds to the same integer are tied;
//!   - interval: labels whose intervals μ ± q s / sqrt(trees) overlap, directly or through
//!     others (connected components), are tied;
//!   - epsilon (the default, 0.5): labels sorted by μ share a bucket while consecutive μ differ
//!     by at most epsilon.
//!
//!   Buckets are ordered by μ (lower first), positions made dense.
//! - Trees grow in parallel from seeds derived from the forest's, so a seed gives the same model
//!   for any thread count.

use crate::data::features::{FeatureMatrixView, Filled};
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::same_len;
use crate::learner::{bad_param, fill_row_blocks, merge_forests, Header, Learner, Outputs, Params, Prediction};
use crate::limits::check_models;
use crate::tree::node_weight;
use crate::tree::{
    all_rows, bootstrap_sampling, check_max_bins, out_of_bag_ranks, out_of_bag_rows, FlatTrees, ForestLeaves, GrowParams, Growth,
    LabelwiseVariance, MaxFeatures, MeanScores, ScoreLeaf, SplitTree, Targets, ThresholdRule, TrainingFeatures, Tree,
};
use serde::{Deserialize, Serialize};

/// How predicted positions become a bucket order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum TieLayer {
    Rounding,
    Interval { q: f64 },
    Epsilon { epsilon: f64 },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelwisePlrParams {
    pub n_estimators: usize,
    pub bootstrap: bool,
    pub max_features: MaxFeatures,
    pub max_depth: Option<usize>,
    pub min_samples_split: f64,
    pub min_samples_leaf: f64,
    pub tie_layer: TieLayer,
    pub seed: u64,
    /// Histogram split search with at most this many bins per feature; `None`: exact search
    /// (files before format 5 were grown exactly).
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_5")]
    pub max_bins: Option<usize>,
}

impl Default for LabelwisePlrParams {
    /// 100 bootstrap trees on all features (a bagged regression forest), epsilon layer 0.5.
    fn default() -> Self {
        LabelwisePlrParams {
            n_estimators: 100,
            bootstrap: true,
            max_features: MaxFeatures::All,
            max_depth: None,
            min_samples_split: 2.0,
            min_samples_leaf: 1.0,
            tie_layer: TieLayer::Epsilon { epsilon: 0.5 },
            seed: 0,
            max_bins: None,
        }
    }
}

impl Params for LabelwisePlrParams {
    fn validate(&self) -> Result<()> {
        check_models("n_estimators", self.models())?;
        for (name, v) in [("min_samples_split", self.min_samples_split), ("min_samples_leaf", self.min_samples_leaf)] {
            if !(v >= 0.0) || v.is_infinite() {
                return Err(bad_param(name, "must be a finite number >= 0"));
            }
        }
        match self.tie_layer {
            TieLayer::Interval { q } if !(q >= 0.0 && q.is_finite()) => {
                return Err(bad_param("q", format!("must be finite and >= 0, got {q}")))
            }
            TieLayer::Epsilon { epsilon } if !(epsilon >= 0.0 && epsilon.is_finite()) => {
                return Err(bad_param("epsilon", format!("must be finite and >= 0, got {epsilon}")))
            }
            _ => {}
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelwisePlrModel {
    pub params: LabelwisePlrParams,
    pub n_features: usize,
    pub n_labels: usize,
    pub fill_values: Vec<f64>,
    pub trees: Vec<Tree<ScoreLeaf>>,
    /// The trees laid out for prediction (made once enough rows were predicted, kept; not saved).
    #[serde(skip)]
    pub(crate) flat: FlatTrees,
}

impl Learner for LabelwisePlrModel {
    type Params = LabelwisePlrParams;

    fn fit(params: LabelwisePlrParams, data: &TrainingSet<'_>) -> Result<Self> {
        let (x, y) = (&data.x, &data.y);
        let (n, m) = (y.n_rows(), y.n_labels());
        let filled = Filled::new(x);
        let xv = filled.view(x);
        let mut score = vec![0.0; n * m];
        let mut present = vec![0.0; n * m];
        for (i, row) in y.rows().enumerate() {
            // A ranking holding k < m labels has its positions stretched by m / k: otherwise
            // rows with few labels (positions 1, 2) pull every label's predicted position
            // towards the top, and the tie layer merges them all (with 60% of the labels
            // missing, most predictions were "all tied"). Complete rankings keep theirs.
            let k = row.iter().filter(|&&r| r > 0).count();
            let stretch = if k > 0 && k < m { m as f64 / k as f64 } else { 1.0 };
            for (j, &r) in row.iter().enumerate().filter(|(_, &r)| r > 0) {
                score[i * m + j] = r as f64 * stretch;
                present[i * m + j] = 1.0;
            }
        }
        let ranked = present.iter().sum::<f64>();
        let default = if ranked > 0.0 { score.iter().sum::<f64>() / ranked } else { 1.0 };
        // A tree's samples weigh at most n times the largest weight (bootstrap counts add up to n).
        let weight_bound = n as f64 * data.weights.iter().fold(0.0f64, |a, &w| a.max(w));
        let targets = Targets::new(m, score, present, weight_bound);
        let total: f64 = data.weights.iter().sum();
        let min_leaf = node_weight(params.min_samples_leaf, total, data.row_weight);
        let criterion = LabelwiseVariance { targets: std::borrow::Cow::Borrowed(&targets), min_leaf };
        let fitter = MeanScores { targets: &targets, default };
        let grow = GrowParams {
            max_depth: params.max_depth,
            max_features: params.max_features.resolve(x.n_features()),
            min_weight_split: node_weight(params.min_samples_split, total, data.row_weight),
            threshold_rule: ThresholdRule::Best,
        };
        let features = match params.max_bins {
            Some(b) => TrainingFeatures::new(&xv).with_bins(b),
            None => TrainingFeatures::new(&xv),
        };
        let trees = Growth::of(params.n_estimators, params.bootstrap, params.seed).grow_additive(
            &features,
            &all_rows(n),
            &data.weights,
            &criterion,
            &fitter,
            &grow,
        );
        let n_features = x.n_features();
        Ok(LabelwisePlrModel { params, n_features, n_labels: m, fill_values: filled.fill, trees, flat: FlatTrees::default() })
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> LabelwisePlrParams {
        self.params.clone()
    }

    /// The tie layer's bucket order of each row's mean predicted positions (the scores).
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
        let m = self.n_labels;
        // Per row: m means, then m standard deviations. Tree after tree over a block of rows,
        // through flat trees once the forest has predicted rows enough; each row still sums its
        // trees in tree order.
        let flat = self.flat.of(self.trees.iter(), x.n_rows());
        let moments = fill_row_blocks(x, 2 * m, ForestLeaves::default, |walk, rows, dst: &mut [f64]| {
            let n = rows.len();
            let leaves = walk.walk(x, rows, &self.fill_values, self.trees.iter(), &flat);
            for (i, dst) in dst.chunks_exact_mut(2 * m).enumerate() {
                moments_into(self.trees.len(), |k| &self.trees[k].leaves[leaves[k * n + i] as usize].scores, dst);
            }
        });
        let mut ranks = Vec::with_capacity(x.n_rows() * m);
        let mut scores = Vec::new();
        for row in moments.chunks_exact(2 * m.max(1)) {
            let (mean, sd) = row.split_at(m);
            ranks.extend(tie_layer(mean, sd, self.trees.len(), self.params.tie_layer));
            if outputs.scores {
                scores.extend_from_slice(mean);
            }
        }
        Ok(Prediction { ranks, confidence: None, scores: outputs.scores.then_some(scores) })
    }

    /// The tie layer of the moments of the leaves of the trees that left each row out.
    fn out_of_bag(&self, data: &TrainingSet<'_>) -> Result<Option<Vec<i32>>> {
        let x = &data.x;
        let p = &self.params;
        let sampling = bootstrap_sampling(Growth::of(p.n_estimators, p.bootstrap, p.seed))?;
        let m = self.n_labels;
        let rows = out_of_bag_rows(&self.trees, sampling, x, &self.fill_values, |leaves| {
            let mut moments = vec![0.0; 2 * m];
            moments_into(leaves.len(), |k| &leaves[k].scores, &mut moments);
            let (mean, sd) = moments.split_at(m);
            tie_layer(mean, sd, leaves.len(), self.params.tie_layer)
        })?;
        Ok(Some(out_of_bag_ranks(rows, m)))
    }

    fn split_trees(&self) -> Vec<SplitTree<'_>> {
        self.trees.iter().map(|t| SplitTree::whole(t, &self.fill_values)).collect()
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "tree_depths": self.trees.iter().map(|t| t.depth()).collect::<Vec<_>>(),
            "tree_n_leaves": self.trees.iter().map(|t| t.n_leaves()).collect::<Vec<_>>(),
        })
    }

    /// One forest of all the models' trees (grown on partitions of the data).
    fn merge(models: Vec<Self>, fill_values: Vec<f64>) -> Result<Self> {
        let same = |a: &Self, b: &Self| {
            LabelwisePlrParams { n_estimators: 0, seed: 0, ..a.params.clone() }
                == LabelwisePlrParams { n_estimators: 0, seed: 0, ..b.params.clone() }
        };
        let mut merged = merge_forests(models, &fill_values, same, |into, m| into.trees.extend(m.trees))?;
        merged.params.n_estimators = merged.trees.len();
        merged.fill_values = fill_values;
        merged.flat = FlatTrees::default();
        Ok(merged)
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        if self.trees.is_empty() {
            return Err("the model has no trees".into());
        }
        self.trees.iter().try_for_each(|t| {
            t.check(self.n_features, |leaf| {
                same_len(leaf.scores.len(), self.n_labels, "a leaf's scores")?;
                if leaf.scores.iter().all(|s| s.is_finite()) {
                    Ok(())
                } else {
                    Err("a leaf's scores must be finite".into())
                }
            })
        })
    }
}

/// The bucket order of predicted positions `mean` (lower first) with spreads `sd` over `trees`.
pub fn tie_layer(mean: &[f64], sd: &[f64], trees: usize, layer: TieLayer) -> Vec<i32> {
    let m = mean.len();
    let mut labels: Vec<usize> = (0..m).collect();
    // Buckets in order of position; each label's bucket key decides where it goes.
    let mut ranks = vec![0i32; m];
    match layer {
        TieLayer::Rounding => {
            labels.sort_by(|&a, &b| mean[a].round().total_cmp(&mean[b].round()).then(mean[a].total_cmp(&mean[b])));
            let mut bucket = 0;
            for (k, &j) in labels.iter().enumerate() {
                if k == 0 || mean[j].round() != mean[labels[k - 1]].round() {
                    bucket += 1;
                }
                ranks[j] = bucket;
            }
        }
        TieLayer::Interval { q } => {
            let half = |j: usize| q * sd[j] / (trees.max(1) as f64).sqrt();
            labels.sort_by(|&a, &b| (mean[a] - half(a)).total_cmp(&(mean[b] - half(b))).then(mean[a].total_cmp(&mean[b])));
            let (mut bucket, mut reach) = (0, f64::NEG_INFINITY);
            for &j in &labels {
                if mean[j] - half(j) > reach {
                    bucket += 1;
                }
                reach = reach.max(mean[j] + half(j));
                ranks[j] = bucket;
            }
        }
        TieLayer::Epsilon { epsilon } => {
            labels.sort_by(|&a, &b| mean[a].total_cmp(&mean[b]));
            let mut bucket = 0;
            for (k, &j) in labels.iter().enumerate() {
                if k == 0 || mean[j] - mean[labels[k - 1]] > epsilon {
                    bucket += 1;
                }
                ranks[j] = bucket;
            }
        }
    }
    ranks
}

/// The mean of `t` trees' leaf scores (`scores(k)`, m each) into `out[..m]` and their standard
/// deviation into `out[m..]` (0 for one tree), summed in tree order.
fn moments_into<'a>(t: usize, scores: impl Fn(usize) -> &'a [f64], out: &mut [f64]) {
    let m = out.len() / 2;
    let (mean, sd) = out.split_at_mut(m);
    for k in 0..t {
        mean.iter_mut().zip(scores(k)).for_each(|(a, s)| *a += s);
    }
    mean.iter_mut().for_each(|a| *a /= t as f64);
    if t > 1 {
        for k in 0..t {
            let row = scores(k);
            for j in 0..m {
                sd[j] += (row[j] - mean[j]).powi(2);
            }
        }
        sd.iter_mut().for_each(|v| *v = (*v / (t as f64 - 1.0)).sqrt());
    }
}

#[cfg(test)]
mod tests;
