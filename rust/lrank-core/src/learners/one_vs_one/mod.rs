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

use crate::data::features::FeatureMatrixView;
use crate::data::ranking::ranking_from_scores;
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::same_len;
use crate::learner::{bad_param, fill_row_blocks, merge_forests, Header, Learner, Outputs, Params, Prediction};
use crate::limits::check_models;
pub use crate::pairwise::PairwiseVoting;
use crate::pairwise::{check_pairs, fit_pairs, pair_rows, vote};
use crate::rng::child_seed;
use crate::tree::node_weight;
use crate::tree::{
    bootstrap_sampling, check_max_bins, out_of_bag_rows_of, BlockRows, ClassEntropy, FlatTrees, GrowParams, Growth, LeafFitter,
    MaxFeatures, SplitTree, ThresholdRule, Tree, TreeInputs,
};
use serde::{Deserialize, Serialize};

/// The entropy's epsilon of the pairs' trees.
pub(crate) const CLASS_EPSILON: f64 = 1e-9;

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
    /// Histogram split search with at most this many bins per feature (2 to 255); `None` (the
    /// default): exact search.
    #[serde(default)]
    pub max_bins: Option<usize>,
    /// Each node of a pair's forest draws its features from a seed of its own (derived from its
    /// parent's) instead of one stream per tree: the model the exact distributed variant grows
    /// (`lrank.dask.fit(..., exact=True)`) is this one.
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_7")]
    pub node_seeds: bool,
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
            max_bins: None,
            node_seeds: false,
        }
    }

    /// A random forest of 100 trees per pair, sqrt(d) features per node.
    pub fn forest() -> Self {
        PairwiseParams { n_estimators: 100, bootstrap: true, max_features: MaxFeatures::Sqrt, ..Self::tree() }
    }
}

impl Params for PairwiseParams {
    fn validate(&self) -> Result<()> {
        check_models("n_estimators", self.models())?;
        if !(self.min_samples_split >= 0.0) {
            return Err(bad_param("min_samples_split", "must be >= 0"));
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
    fn tie_refusal(&self) -> Option<&'static str> {
        Some("one-versus-one learns binary classes per label pair")
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
    #[cfg(test)]
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
    /// Every pair's trees, in order, laid out for prediction (made on the first, kept).
    #[serde(skip)]
    pub flat: FlatTrees,
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

impl Learner for PairwiseModel {
    type Params = PairwiseParams;

    fn fit(params: PairwiseParams, data: &TrainingSet<'_>) -> Result<Self> {
        data.refuse_ties(params.tie_refusal())?;
        let (x, y) = (&data.x, &data.y);
        let TreeInputs { fill_values, features } = TreeInputs::binned(x, params.max_bins);
        let grow = GrowParams {
            max_depth: params.max_depth,
            max_features: params.max_features.resolve(x.n_features()),
            min_weight_split: node_weight(params.min_samples_split, data.weights.iter().sum(), data.row_weight),
            threshold_rule: ThresholdRule::Best,
        };
        let pairs = fit_pairs(y, &data.weights, params.n_estimators as u64, |pair| {
            let trees = if pair.rows.is_empty() {
                Vec::new()
            } else {
                let criterion = ClassEntropy::new(&pair.classes, 2, CLASS_EPSILON);
                let leaf = ShareOfOnes { classes: &pair.classes };
                let seed = child_seed(params.seed, pair.index as u64);
                let growth = Growth::of(params.n_estimators, params.bootstrap, seed).with_node_seeds(params.node_seeds);
                growth.grow_additive(&features, &pair.rows, &pair.weights, &criterion, &leaf, &grow)
            };
            PairClassifier { a: pair.a as u32, b: pair.b as u32, trees }
        })?;
        Ok(PairwiseModel {
            params,
            n_features: x.n_features(),
            n_labels: y.n_labels(),
            fill_values,
            pairs,
            flat: FlatTrees::default(),
        })
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> PairwiseParams {
        self.params.clone()
    }

    /// Labels by decreasing score (Copeland wins or summed probabilities), ties to the lower label.
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
        let m = self.n_labels;
        // Pair after pair and tree after tree over a block of rows (each tree's nodes stay in
        // cache); each row still sums its trees in tree order and votes pair after pair.
        let flat = self.flat.of(self.pairs.iter().flat_map(|p| &p.trees), x.n_rows());
        let scores =
            fill_row_blocks(x, m, Default::default, |(block, sums): &mut (BlockRows, Vec<f64>), rows, scores: &mut [f64]| {
                block.load(x, rows.clone(), &self.fill_values);
                let mut walks = flat.iter();
                for pair in &self.pairs {
                    sums.clear();
                    sums.resize(rows.len(), 0.0);
                    for (tree, walk) in pair.trees.iter().zip(walks.by_ref()) {
                        for (&leaf, sum) in block.leaves_in(tree, walk.as_ref()).iter().zip(sums.iter_mut()) {
                            *sum += tree.leaves[leaf as usize];
                        }
                    }
                    for (row_scores, &sum) in scores.chunks_exact_mut(m).zip(sums.iter()) {
                        let p = if pair.trees.is_empty() { 0.5 } else { sum / pair.trees.len() as f64 };
                        vote(row_scores, pair.a as usize, pair.b as usize, p, self.params.voting);
                    }
                }
            });
        let ranks = scores.chunks_exact(self.n_labels.max(1)).flat_map(ranking_from_scores).collect();
        Ok(Prediction { ranks, confidence: None, scores: outputs.scores.then_some(scores) })
    }

    /// Each pair's probability from the trees that left the row out of their samples (all of
    /// them for a row that does not train the pair), voted as in `predict`. A row is all zeros
    /// when some pair it trains drew it in every tree (a coin flip there would pull its estimate
    /// down: with few trees per pair, many rows).
    fn out_of_bag(&self, data: &TrainingSet<'_>) -> Result<Option<Vec<i32>>> {
        let p = &self.params;
        let (n, m) = (data.x.n_rows(), self.n_labels);
        let mut scores: Vec<f64> = crate::memory::zeroed("the out-of-bag votes", &[n, m])?;
        let mut covered = vec![true; n];
        for (index, pair) in self.pairs.iter().enumerate() {
            let (a, b) = (pair.a as usize, pair.b as usize);
            let rows = pair_rows(&data.y, &data.weights, a, b);
            let growth = Growth::of(p.n_estimators, p.bootstrap, child_seed(p.seed, index as u64)).with_node_seeds(p.node_seeds);
            let sampling = bootstrap_sampling(growth)?;
            let shares = out_of_bag_rows_of(&pair.trees, sampling, &data.x, Some(&rows), &self.fill_values, |leaves| {
                leaves.iter().copied().sum::<f64>() / leaves.len() as f64
            })?;
            let trains = |i: usize| rows.binary_search(&(i as u32)).is_ok();
            for (i, share) in shares.into_iter().enumerate() {
                let probability = if pair.trees.is_empty() { 0.5 } else { share.unwrap_or(0.5) };
                vote(&mut scores[i * m..(i + 1) * m], a, b, probability, p.voting);
                covered[i] &= share.is_some() || !trains(i);
            }
            crate::interrupt::check()?;
        }
        Ok(Some(
            scores
                .chunks_exact(m.max(1))
                .zip(&covered)
                .flat_map(|(s, &c)| if c { ranking_from_scores(s) } else { vec![0; m] })
                .collect(),
        ))
    }

    fn split_trees(&self) -> Vec<SplitTree<'_>> {
        self.pairs.iter().flat_map(|p| SplitTree::of_pair(p.a, p.b, &p.trees, &self.fill_values)).collect()
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "n_pairs": self.pairs.len(),
            "pairs_without_data": self.pairs.iter().filter(|p| p.trees.is_empty()).count(),
        })
    }

    /// One forest per pair of all the models' trees for that pair.
    fn merge(models: Vec<Self>, fill_values: Vec<f64>) -> Result<Self> {
        let same = |a: &Self, b: &Self| {
            PairwiseParams { n_estimators: 0, seed: 0, ..a.params.clone() }
                == PairwiseParams { n_estimators: 0, seed: 0, ..b.params.clone() }
        };
        let mut n_estimators = 0;
        let mut merged = merge_forests(models, &fill_values, same, |into, m| {
            n_estimators += m.params.n_estimators;
            for (pair, other) in into.pairs.iter_mut().zip(m.pairs) {
                pair.trees.extend(other.trees);
            }
        })?;
        merged.params.n_estimators += n_estimators;
        merged.fill_values = fill_values;
        merged.flat = FlatTrees::default(); // the first model's, if it had predicted
        Ok(merged)
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        check_pairs(self.pairs.iter().map(|p| (p.a, p.b)), self.n_labels)?;
        for pair in &self.pairs {
            pair.trees.iter().try_for_each(|t| {
                t.check(self.n_features, |&prob| {
                    if (0.0..=1.0).contains(&prob) {
                        Ok(())
                    } else {
                        Err(format!("leaf probability {prob}"))
                    }
                })
            })?;
        }
        Ok(())
    }
}

pub mod distributed;

#[cfg(test)]
mod tests;
