//! Partial label ranking trees and forests (Alfaro, Aledo & Gámez 2021; ensembles: Alfaro, Aledo &
//! Gámez 2023): trees that learn from rankings with ties and predict bucket orders.
//!
//! - Grown by the tree engine (binary splits, `x <= t` left; nominal features one value against
//!   the rest) with the pair-order impurity of [`criterion`]: entropy (default), disagreements or
//!   distance. A node is a leaf when its impurity is 0, its weight is below `min_samples_split`,
//!   or at `max_depth`; a split leaves at least `min_samples_leaf` weight on each side.
//! - A leaf predicts the consensus bucket order of its rows' pair-order counts (BPA-LIA-MP2 with
//!   beta = 0.25 by default, or Borda or Copeland with ties); incomplete training rankings count
//!   the pairs they hold.
//! - One tree without bootstrap and with all features is the PLR tree; otherwise a forest of
//!   trees on bootstrap samples with a share of the features per node (100 trees, sqrt(d): the
//!   random forest of Alfaro et al. 2023), whose prediction is the unweighted consensus of the
//!   trees' bucket orders by the same method. Bagged PLR trees are `Bagging` of this learner.
//! - Trees grow in parallel from seeds derived from the forest's, so a seed gives the same model
//!   for any thread count.

mod criterion;
pub mod distributed;
mod sides;

pub use criterion::{PairCodes, PairOrderImpurity, PlrCriterion};

use crate::consensus::buckets::{BucketConsensus, PairOrderCounts};
use crate::data::features::FeatureMatrixView;
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::{complete_bucket_order, same_len};
use crate::learner::{
    bad_param, check_same_training_data, fill_row_blocks, merge_forests, trees_to_add, Header, Learner, Outputs, Params,
    Prediction,
};
use crate::limits::check_models;
use crate::tree::node_weight;
use crate::tree::{
    all_rows, bootstrap_sampling, check_max_bins, out_of_bag_ranks, out_of_bag_rows, FlatTrees, ForestLeaves, GrowParams, Growth,
    LeafFitter, MaxFeatures, SplitTree, ThresholdRule, Tree, TreeInputs,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlrTreeParams {
    pub criterion: PlrCriterion,
    /// The consensus of a leaf's rows, and of a forest's trees.
    pub consensus: BucketConsensus,
    /// Trees (1 with `bootstrap = false` and all features: a single PLR tree).
    pub n_estimators: usize,
    pub bootstrap: bool,
    pub max_features: MaxFeatures,
    /// Maximum splits on a root-to-leaf path; `None`: unlimited.
    pub max_depth: Option<usize>,
    /// Nodes with less total weight are leaves.
    pub min_samples_split: f64,
    /// Least total weight on each side of a split (0: none; files before format 14 had none).
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_14")]
    pub min_samples_leaf: f64,
    pub seed: u64,
    /// Histogram split search with at most this many bins per feature; `None`: exact search
    /// (files before format 5 were grown exactly).
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_5")]
    pub max_bins: Option<usize>,
    /// Each node of a forest draws its features from a seed of its own (derived from its
    /// parent's) instead of one stream per tree: the forest the exact distributed variant grows
    /// (`lrank.dask.fit(..., exact=True)`) is this one.
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_7")]
    pub node_seeds: bool,
}

impl PlrTreeParams {
    /// One fully grown tree, entropy, BPA leaves (the PLR tree).
    pub fn tree() -> Self {
        PlrTreeParams {
            criterion: PlrCriterion::Entropy,
            consensus: BucketConsensus::BPA,
            n_estimators: 1,
            bootstrap: false,
            max_features: MaxFeatures::All,
            max_depth: None,
            min_samples_split: 2.0,
            min_samples_leaf: 0.0,
            seed: 0,
            max_bins: None,
            node_seeds: false,
        }
    }

    /// 100 trees on bootstrap samples, sqrt(d) features per node (the PLR random forest).
    pub fn forest() -> Self {
        PlrTreeParams { n_estimators: 100, bootstrap: true, max_features: MaxFeatures::Sqrt, ..Self::tree() }
    }
}

impl Params for PlrTreeParams {
    fn validate(&self) -> Result<()> {
        check_models("n_estimators", self.models())?;
        for (name, value) in [("min_samples_split", self.min_samples_split), ("min_samples_leaf", self.min_samples_leaf)] {
            if !(value >= 0.0) || value.is_infinite() {
                return Err(bad_param(name, "must be a finite number >= 0"));
            }
        }
        self.consensus.validate()?;
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

/// A leaf: the consensus bucket order of its rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BucketLeaf {
    pub order: Vec<i32>,
}

struct ConsensusLeaf<'a> {
    codes: &'a PairCodes,
    consensus: BucketConsensus,
}

/// With incomplete training rankings a node's rows may never observe a label pair together
/// (many small leaves once labels are missing): such a pair takes its parent node's relation
/// rather than the 1/2 of "no evidence", which made whole leaves predict every label tied.
/// Complete rankings observe every pair in every row, so their trees are fitted as before.
impl LeafFitter for ConsensusLeaf<'_> {
    type Leaf = BucketLeaf;
    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> BucketLeaf {
        self.fit_node(samples, weights, None)
    }

    fn uses_parent(&self) -> bool {
        !self.codes.complete()
    }

    fn fit_node(&self, samples: &[u32], weights: &[f64], parent: Option<&BucketLeaf>) -> BucketLeaf {
        let counts = self.codes.counts(samples, weights);
        let fallback = parent.map(|p| p.order.as_slice());
        BucketLeaf { order: self.consensus.of_matrix(&self.codes.matrix_or(&counts, fallback)) }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlrTreeModel {
    pub params: PlrTreeParams,
    pub n_features: usize,
    pub n_labels: usize,
    pub fill_values: Vec<f64>,
    pub trees: Vec<Tree<BucketLeaf>>,
    /// The trees laid out for prediction (made once enough rows were predicted, kept; not saved).
    #[serde(skip)]
    pub(crate) flat: FlatTrees,
}

impl Learner for PlrTreeModel {
    type Params = PlrTreeParams;

    fn fit(params: PlrTreeParams, data: &TrainingSet<'_>) -> Result<Self> {
        Self::fit_from(params, data, 0)
    }

    fn add_trees(mut self, n_estimators: usize, data: &TrainingSet<'_>) -> Result<Self> {
        if !trees_to_add(self.trees.len(), n_estimators)? {
            return Ok(self);
        }
        let params = PlrTreeParams { n_estimators, ..self.params.clone() };
        params.validate()?;
        // A single plain tree grows otherwise than a forest's first tree: the forest grows whole.
        let single = !Growth::of(self.params.n_estimators, self.params.bootstrap, 0).is_forest();
        let first = if single { 0 } else { self.trees.len() };
        let more = Self::fit_from(params, data, first)?;
        check_same_training_data((self.header(), &self.fill_values), (more.header(), &more.fill_values))?;
        self.trees.truncate(first);
        self.trees.extend(more.trees);
        self.params.n_estimators = n_estimators;
        self.flat = FlatTrees::default();
        Ok(self)
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> PlrTreeParams {
        self.params.clone()
    }

    /// A tree's leaf order, or the consensus of the trees' leaf orders. Tree after tree over a
    /// block of rows (each tree's upper nodes stay in cache), through flat trees once the forest
    /// has predicted rows enough; each row still adds its trees' orders in tree order.
    fn predict(&self, x: &FeatureMatrixView<'_>, _outputs: Outputs) -> Result<Prediction> {
        let m = self.n_labels;
        let flat = self.flat.of(self.trees.iter(), x.n_rows());
        let init = || (ForestLeaves::default(), PairOrderCounts::new(m));
        let ranks = fill_row_blocks(x, m, init, |(walk, counts), rows, dst: &mut [i32]| {
            let n = rows.len();
            let leaves = walk.walk(x, rows, &self.fill_values, self.trees.iter(), &flat);
            if let [tree] = &self.trees[..] {
                for (d, &leaf) in dst.chunks_exact_mut(m).zip(leaves.iter()) {
                    d.copy_from_slice(&tree.leaves[leaf as usize].order);
                }
                return;
            }
            for (i, d) in dst.chunks_exact_mut(m).enumerate() {
                counts.clear();
                for (t, tree) in self.trees.iter().enumerate() {
                    counts.add(&tree.leaves[leaves[t * n + i] as usize].order, 1.0);
                }
                d.copy_from_slice(&self.params.consensus.of_matrix(&counts.matrix()));
            }
        });
        Ok(Prediction::ranks(ranks))
    }

    /// Each tree's bucket order for each row (trees x n x m).
    fn member_ranks(&self, x: &FeatureMatrixView<'_>) -> Result<Option<Vec<i32>>> {
        let (n, m) = (x.n_rows(), self.n_labels);
        let mut out = vec![0i32; self.trees.len() * n * m];
        if n * m > 0 {
            out.par_chunks_mut(n * m).zip(&self.trees).for_each(|(dst, tree)| {
                for (i, row) in dst.chunks_mut(m).enumerate() {
                    row.copy_from_slice(&tree.leaf_for(x.row(i), &self.fill_values).order);
                }
            });
        }
        Ok(Some(out))
    }

    /// The consensus of the leaf bucket orders of the trees that left each row out.
    fn out_of_bag(&self, data: &TrainingSet<'_>) -> Result<Option<Vec<i32>>> {
        let x = &data.x;
        let p = &self.params;
        let sampling = bootstrap_sampling(Growth::of(p.n_estimators, p.bootstrap, p.seed).with_node_seeds(p.node_seeds))?;
        let m = self.n_labels;
        let rows = out_of_bag_rows(&self.trees, sampling, x, &self.fill_values, |leaves| {
            let mut counts = PairOrderCounts::new(m);
            leaves.iter().for_each(|leaf| counts.add(&leaf.order, 1.0));
            self.params.consensus.of_matrix(&counts.matrix())
        })?;
        Ok(Some(out_of_bag_ranks(rows, m)))
    }

    fn split_trees(&self) -> Vec<SplitTree<'_>> {
        self.trees.iter().map(|t| SplitTree::whole(t, &self.fill_values)).collect()
    }
    fn leaf_rankings(&self) -> Vec<Vec<Vec<i32>>> {
        self.trees.iter().map(|t| t.leaves.iter().map(|l| l.order.clone()).collect()).collect()
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
            PlrTreeParams { n_estimators: 0, seed: 0, ..a.params.clone() }
                == PlrTreeParams { n_estimators: 0, seed: 0, ..b.params.clone() }
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
        self.trees
            .iter()
            .try_for_each(|t| t.check(self.n_features, |l| complete_bucket_order(&l.order, self.n_labels, "a leaf bucket order")))
    }
}

impl PlrTreeModel {
    /// [`Learner::fit`] growing trees `first_tree..n_estimators` only.
    fn fit_from(params: PlrTreeParams, data: &TrainingSet<'_>, first_tree: usize) -> Result<Self> {
        let (x, y) = (&data.x, &data.y);
        let TreeInputs { fill_values, features } = TreeInputs::binned(x, params.max_bins);
        let codes = PairCodes::new(y);
        // Whole counts up to the total weight (a bagged member's rows weigh their bootstrap counts)
        // are looked up; larger ones computed.
        let total = data.weights.iter().sum::<f64>();
        let max_count = if total.is_finite() {
            (total.ceil() as usize).clamp(distributed::max_count(x.n_rows()), 1 << 24)
        } else {
            distributed::max_count(x.n_rows())
        };
        let min_leaf = node_weight(params.min_samples_leaf, total, data.row_weight);
        let criterion = PairOrderImpurity::new(&codes, params.criterion, params.consensus, max_count).with_min_leaf(min_leaf);
        let leaf = ConsensusLeaf { codes: &codes, consensus: params.consensus };
        let grow = GrowParams {
            max_depth: params.max_depth,
            max_features: params.max_features.resolve(x.n_features()),
            min_weight_split: node_weight(params.min_samples_split, data.weights.iter().sum(), data.row_weight),
            threshold_rule: ThresholdRule::Best,
        };
        let growth = Growth::of(params.n_estimators, params.bootstrap, params.seed)
            .with_node_seeds(params.node_seeds)
            .from_tree(first_tree);
        let trees = growth.grow_additive(&features, &all_rows(x.n_rows()), &data.weights, &criterion, &leaf, &grow);
        let (n_features, n_labels) = (x.n_features(), y.n_labels());
        Ok(PlrTreeModel { params, n_features, n_labels, fill_values, trees, flat: FlatTrees::default() })
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) use tests::{assert_predicts_as, few_valued_plr_problem, plr_query_rows};
