//! LRT: the label ranking tree of Cheng, Hühn & Hüllermeier (ICML 2009).
//!
//! Grown by the tree engine on all attributes (binary numeric splits, `x <= t` left). A split
//! maximises (|T+| θ+ + |T-| θ-) / |T|, θ being the Mallows spread of each side; a node is a
//! leaf when its rankings are all consistent (θ = ∞) or it holds fewer than 2m examples
//! (m = number of labels), or at `max_depth`. A node's model is the Mallows EM median
//! ([`crate::consensus::mallows::fit_mallows`], its θ read from [`ThetaTable`]) estimated on the labels
//! present in the node; labels absent from a node are inserted optimally (Proposition 1) into
//! its parent's completed ranking, so a leaf lacking labels is completed from its predecessors
//! up to the root.
//!
//! Split search (fast, O(m^2) per threshold): sweeping a sorted attribute, each side keeps its
//! generalized Borda votes and its pairwise-preference counts `C[a][b]` (weight of rankings that
//! put a before b). A side's centre is its Borda ranking (not the EM median), and its θ is the
//! MLE for the mean Kendall distance computed from the pairwise counts:
//! disc = Σ over pairs ordered a before b by the centre of `C[b][a]`, obs = Σ over pairs of
//! `C[a][b] + C[b][a]`, mean distance = (disc + 1/2) / (obs + 1) · m(m-1)/2. For complete
//! rankings and without the pseudo-pair this is exactly the mean Kendall distance to the Borda
//! centre; for incomplete rankings it is the pooled share of discordant observed pairs scaled to
//! m(m-1)/2 pairs (each ranking weighs by the pairs it contains). The pseudo-pair (half
//! discordant, weighing one row of the training set's average weight, so that the splits do not
//! depend on the weights' scale) keeps θ finite for tiny pure sides, which would otherwise score
//! infinity and always win; its pull vanishes as sides grow. θ comes from [`ThetaTable`] (the MLE to within
//! 1e-8), not from a Newton solve per threshold.
//!
//! How the sweep stays cheap: the counts are kept as one signed sum per label pair; a moved
//! ranking only adds to the left side's sums (the right side's are the node's minus those), and
//! at a scored boundary each side's discordance follows from its pair vector by one dot product
//! with its centre (see [`MallowsSpread`]). A side's Borda order is repaired by insertion sort,
//! flipping the centre's sign of each swapped pair. With integer weights (the usual case,
//! bootstrap counts included) the pair sums are integers and are kept in f32, exactly, when they
//! stay below 2^24. Threshold rules: [`ThresholdRule::Best`] scores every boundary (LRT);
//! `EqualWidth` / `EqualFrequency` score one fixed threshold per attribute (W-LRT / F-LRT of
//! Aledo, Gámez & Molina). Nominal attributes split one value against the rest. The tree grows
//! its subtrees in parallel, each node with its own random stream, so the tree is the same for
//! any number of threads.

mod criterion;

use crate::consensus::mallows::{mallows_median_of_rows, optimal_insertion, ThetaTable};
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::{n_present, RankMatrixView};
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::{complete_ranking, same_len};
use crate::learner::{bad_param, Header, Learner, Outputs, Params, Prediction};
use crate::limits::check_iterations;
use crate::rng::Rng;
use crate::tree::node_weight;
use crate::tree::{
    grow_tree_with, GrowParams, LeafFitter, MaxFeatures, SplitTree, ThresholdRule, Tree, TreeInputs, TreeRandomness,
};
pub use criterion::MallowsSpread;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelTreeParams {
    /// Maximum number of splits on a root-to-leaf path; `None`: grow until the paper's rules stop.
    pub max_depth: Option<usize>,
    /// Nodes with less total weight become leaves; `None`: 2m, the paper's rule.
    pub min_weight_split: Option<f64>,
    /// Iteration cap of the EM median of each node.
    pub max_iter: usize,
    /// Seed of the order in which attributes are scored (ties go to the first scored).
    pub seed: u64,
    /// How a numeric attribute's threshold is chosen: the best for the Mallows criterion (LRT),
    /// or fixed by equal width (W-LRT) or equal frequency (F-LRT), Aledo, Gámez & Molina.
    pub threshold_rule: ThresholdRule,
    /// Features drawn per node (all: the paper's tree). Added in model format 10.
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_10")]
    pub max_features: MaxFeatures,
    /// Least weight on each side of a split (a share of the training weight below 1); 0: none.
    /// Added in model format 10.
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_10")]
    pub min_weight_leaf: f64,
}

impl Params for LabelTreeParams {
    fn validate(&self) -> Result<()> {
        if let Some(w) = self.min_weight_split {
            if !(w >= 0.0) {
                return Err(bad_param("min_weight_split", format!("must be >= 0, got {w}")));
            }
        }
        check_iterations("max_iter", self.max_iter)?;
        if !(self.min_weight_leaf >= 0.0 && self.min_weight_leaf.is_finite()) {
            return Err(bad_param("min_weight_leaf", format!("must be a finite number >= 0, got {}", self.min_weight_leaf)));
        }
        self.max_features.validate()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
    fn tie_refusal(&self) -> Option<&'static str> {
        Some("the label ranking tree fits a Mallows model")
    }
}

impl Default for LabelTreeParams {
    fn default() -> Self {
        LabelTreeParams {
            max_depth: None,
            min_weight_split: None,
            max_iter: 20,
            seed: 0,
            threshold_rule: ThresholdRule::Best,
            max_features: MaxFeatures::All,
            min_weight_leaf: 0.0,
        }
    }
}

/// A node's model: its completed Mallows centre and spread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MallowsLeaf {
    pub ranking: Vec<i32>,
    #[serde(with = "crate::numeric::nonfinite_f64")]
    pub theta: f64,
    pub weight: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelTreeModel {
    pub params: LabelTreeParams,
    pub n_features: usize,
    pub n_labels: usize,
    pub fill_values: Vec<f64>,
    pub tree: Tree<MallowsLeaf>,
}

/// Node models: EM median on the labels present, missing ones inserted into the parent's ranking.
struct MallowsNodeFitter<'a> {
    y: &'a RankMatrixView<'a>,
    max_iter: usize,
    theta: std::sync::Arc<ThetaTable>,
}

impl LeafFitter for MallowsNodeFitter<'_> {
    type Leaf = MallowsLeaf;

    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> MallowsLeaf {
        self.fit_node(samples, weights, None)
    }

    fn uses_parent(&self) -> bool {
        true
    }

    /// A child asks for its parent's ranking only when it lacks a label (to insert it there).
    fn children_need_parent(&self, samples: &[u32], goes_left: impl Fn(u32) -> bool) -> bool {
        let m = self.y.n_labels();
        let (mut left, mut right) = (vec![false; m], vec![false; m]);
        for &s in samples {
            let side = if goes_left(s) { &mut left } else { &mut right };
            for (seen, &r) in side.iter_mut().zip(self.y.row(s as usize)) {
                *seen |= r > 0;
            }
        }
        !(left.iter().all(|&b| b) && right.iter().all(|&b| b))
    }

    fn fit_node(&self, samples: &[u32], weights: &[f64], parent: Option<&MallowsLeaf>) -> MallowsLeaf {
        let m = self.y.n_labels();
        let mut present = vec![false; m];
        let rows: Vec<(&[i32], f64)> = samples
            .iter()
            .zip(weights)
            .map(|(&s, &w)| (self.y.row(s as usize), w))
            .filter(|(row, _)| n_present(row) > 0)
            .collect();
        for (row, _) in &rows {
            row.iter().enumerate().filter(|(_, &r)| r > 0).for_each(|(j, _)| present[j] = true);
        }
        let weight: f64 = weights.iter().sum();
        // θ from the shared table (the MLE to within 1e-8), not a Newton solve per node.
        let (centre, theta) = match mallows_median_of_rows(&rows, m, self.max_iter) {
            Ok(fit) => (fit.centre, self.theta.theta(fit.mean_distance)),
            // Only when every weight is zero: the node says nothing of its own.
            Err(_) => ((1..=m as i32).collect(), 0.0),
        };
        // Keep the centre's order on the labels the node contains...
        let mut own: Vec<usize> = (0..m).filter(|&j| present[j]).collect();
        own.sort_by_key(|&j| centre[j]);
        let mut incomplete = vec![0i32; m];
        for (pos, &j) in own.iter().enumerate() {
            incomplete[j] = pos as i32 + 1;
        }
        // ...and place the others as the parent (already completed) suggests.
        let ranking = match parent {
            Some(p) if own.len() < m => optimal_insertion(&incomplete, &p.ranking),
            _ => complete_in_index_order(&incomplete),
        };
        MallowsLeaf { ranking, theta, weight }
    }
}

/// Appends the missing labels after the present ones, in label order (root without a label).
fn complete_in_index_order(incomplete: &[i32]) -> Vec<i32> {
    let mut next = n_present(incomplete) as i32;
    incomplete
        .iter()
        .map(|&r| {
            if r > 0 {
                r
            } else {
                next += 1;
                next
            }
        })
        .collect()
}

impl Learner for LabelTreeModel {
    type Params = LabelTreeParams;

    fn fit(params: LabelTreeParams, data: &TrainingSet<'_>) -> Result<Self> {
        data.refuse_ties(params.tie_refusal())?;
        let (x, y) = (&data.x, &data.y);
        let (n, m) = (x.n_rows(), y.n_labels());
        let total: f64 = data.weights.iter().sum();
        let TreeInputs { fill_values, features } = TreeInputs::new(x);
        let grow = GrowParams {
            max_depth: params.max_depth,
            max_features: params.max_features.resolve(x.n_features()),
            min_weight_split: node_weight(params.min_weight_split.unwrap_or(2.0 * m as f64), total, data.row_weight),
            threshold_rule: params.threshold_rule,
        };
        let (samples, weights): (Vec<u32>, Vec<f64>) =
            (0..n as u32).zip(data.weights.iter().copied()).filter(|&(_, w)| w > 0.0).unzip();
        let criterion = MallowsSpread::new(y)?
            .with_min_leaf(node_weight(params.min_weight_leaf, total, data.row_weight))
            .with_pseudo_weight(data.row_weight);
        let fitter = MallowsNodeFitter { y, max_iter: params.max_iter, theta: ThetaTable::shared(m) };
        let tree = grow_tree_with(
            &features,
            samples,
            weights,
            &criterion,
            &fitter,
            &grow,
            &mut Rng::new(params.seed),
            TreeRandomness::PerNode,
        );
        Ok(LabelTreeModel { params, n_features: x.n_features(), n_labels: m, fill_values, tree })
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> LabelTreeParams {
        self.params.clone()
    }

    /// Each row's leaf ranking (complete), and as confidence the leaf's spread θ.
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
        let m = self.n_labels;
        let mut ranks = vec![0i32; x.n_rows() * m];
        let mut theta = vec![0.0; x.n_rows()];
        if m > 0 {
            ranks.par_chunks_mut(m).zip(theta.par_iter_mut()).enumerate().for_each(|(i, (dst, t))| {
                let leaf = self.tree.leaf_for(x.row(i), &self.fill_values);
                dst.copy_from_slice(&leaf.ranking);
                *t = leaf.theta;
            });
        }
        Ok(Prediction { ranks, confidence: outputs.confidence.then_some(theta), scores: None })
    }

    fn split_trees(&self) -> Vec<SplitTree<'_>> {
        vec![SplitTree::whole(&self.tree, &self.fill_values)]
    }
    fn leaf_rankings(&self) -> Vec<Vec<Vec<i32>>> {
        vec![self.tree.leaves.iter().map(|l| l.ranking.clone()).collect()]
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({"depth": self.tree.depth(), "n_leaves": self.tree.n_leaves()})
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        self.tree.check(self.n_features, |l| {
            // The Mallows spread is the leaf's confidence (--confidence prints it): not negative
            // (NaN where it is undefined: a single label).
            if l.theta < 0.0 {
                return Err(format!("a leaf's Mallows spread theta is {}, not >= 0", l.theta));
            }
            complete_ranking(&l.ranking, self.n_labels, "a node ranking")
        })
    }
}

#[cfg(test)]
mod tests;
