//! The one tree-growing engine of lrank.
//!
//! A tree is grown top-down on weighted samples (bootstrap multiplicities become weights). What
//! makes a learner is plugged in:
//! - a [`SplitCriterion`] decides when a node is terminal and scores the thresholds of one
//!   feature (the engine hands it the node's samples sorted by that feature);
//! - a [`LeafFitter`] turns the samples that reach a leaf into the leaf's model.
//!
//! Splits are binary, `x <= threshold` goes left, both when growing and when routing. Candidate
//! thresholds are midpoints between consecutive distinct values of the node.

mod criterion;

pub use criterion::{ClassEntropy, PairwiseEntropy, SortedSample};

use crate::features::FeatureMatrixView;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// How many features to look at in each node.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum MaxFeatures {
    /// floor(log2 d) + 1, as in Breiman's forests and Zhou & Qiu's LR-RF.
    Log2PlusOne,
    /// ceil(sqrt d).
    Sqrt,
    /// All d features (a plain, unrandomised tree).
    All,
    /// A fixed number (capped at d).
    Count(usize),
    /// A share of d in (0, 1], rounded down, at least one.
    Fraction(f64),
}

impl MaxFeatures {
    pub fn resolve(self, d: usize) -> usize {
        let k = match self {
            MaxFeatures::Log2PlusOne => (d.max(1) as f64).log2().floor() as usize + 1,
            MaxFeatures::Sqrt => (d as f64).sqrt().ceil() as usize,
            MaxFeatures::All => d,
            MaxFeatures::Count(k) => k,
            MaxFeatures::Fraction(f) => (f * d as f64).floor() as usize,
        };
        k.clamp(1, d.max(1))
    }
}

/// Scores the thresholds of one feature for one node.
pub trait SplitCriterion: Sync {
    /// True when the node must become a leaf whatever its features (e.g. it is pure).
    fn is_terminal(&self, samples: &[u32], weights: &[f64]) -> bool;

    /// Best boundary in `sorted` (the node's samples by ascending feature value): returns
    /// `(k, score)` meaning "split between `sorted[k - 1]` and `sorted[k]`", higher score better;
    /// only boundaries between distinct values may be returned. `None` if no boundary is valid.
    fn best_boundary(&self, sorted: &[SortedSample]) -> Option<(usize, f64)>;
}

/// Fits the model kept in a leaf from the samples (and weights) that reach it.
pub trait LeafFitter: Sync {
    type Leaf: Send;
    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> Self::Leaf;

    /// True for leaf models that build on their ancestors' (LRT completes a leaf's ranking from
    /// its parent's): the engine then fits a model for every node, top-down, with [`fit_node`](Self::fit_node).
    fn uses_parent(&self) -> bool {
        false
    }

    /// The model of a node given its parent's model (`None` at the root).
    fn fit_node(&self, samples: &[u32], weights: &[f64], _parent: Option<&Self::Leaf>) -> Self::Leaf {
        self.fit_leaf(samples, weights)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Node {
    Split { feature: u32, threshold: f64, left: u32, right: u32 },
    Leaf { leaf: u32 },
}

/// A grown tree: nodes in creation order (root first) and the leaf models they point to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tree<L> {
    pub nodes: Vec<Node>,
    pub leaves: Vec<L>,
}

#[derive(Clone, Copy, Debug)]
pub struct GrowParams {
    /// Maximum number of splits on a root-to-leaf path; `None` for unlimited.
    pub max_depth: Option<usize>,
    /// Features looked at per node (already resolved against d).
    pub max_features: usize,
    /// Nodes with less total weight than this become leaves.
    pub min_weight_split: f64,
}

impl<L> Tree<L> {
    /// The leaf reached by `row`; missing values (NaN) are routed as `fill[feature]`.
    pub fn leaf_for(&self, row: &[f64], fill: &[f64]) -> &L {
        let mut node = 0usize;
        loop {
            match self.nodes[node] {
                Node::Leaf { leaf } => return &self.leaves[leaf as usize],
                Node::Split { feature, threshold, left, right } => {
                    let mut v = row[feature as usize];
                    if v.is_nan() {
                        v = fill[feature as usize];
                    }
                    node = if v <= threshold { left } else { right } as usize;
                }
            }
        }
    }

    pub fn n_leaves(&self) -> usize {
        self.leaves.len()
    }

    /// Number of splits on the longest root-to-leaf path.
    pub fn depth(&self) -> usize {
        fn go<L>(t: &Tree<L>, node: usize) -> usize {
            match t.nodes[node] {
                Node::Leaf { .. } => 0,
                Node::Split { left, right, .. } => 1 + go(t, left as usize).max(go(t, right as usize)),
            }
        }
        go(self, 0)
    }
}

/// Training features laid out for split search, built once per fit and shared by all trees:
/// column-major values and, per feature, each sample's dense rank (equal values share a rank),
/// so that a node's samples are ordered by sorting integer keys instead of floats.
pub struct TrainingFeatures {
    n_rows: usize,
    n_features: usize,
    values: Vec<f64>,
    ranks: Vec<u32>,
    /// Bits needed for the largest rank of each feature (radix sort passes).
    rank_bits: Vec<u32>,
}

impl TrainingFeatures {
    /// `x` must hold no NaN (fill missing values first).
    pub fn new(x: &FeatureMatrixView<'_>) -> Self {
        let (n, d) = (x.n_rows(), x.n_features());
        let mut values = vec![0.0; n * d];
        let mut ranks = vec![0u32; n * d];
        let mut order: Vec<u32> = (0..n as u32).collect();
        let mut rank_bits = vec![0u32; d];
        for f in 0..d {
            let col = &mut values[f * n..(f + 1) * n];
            for (i, v) in col.iter_mut().enumerate() {
                *v = x.get(i, f);
            }
            order.sort_unstable_by(|&a, &b| col[a as usize].total_cmp(&col[b as usize]));
            let mut rank = 0u32;
            for k in 0..n {
                let i = order[k] as usize;
                if k > 0 && col[i] != col[order[k - 1] as usize] {
                    rank += 1;
                }
                ranks[f * n + i] = rank;
            }
            rank_bits[f] = 32 - rank.leading_zeros();
        }
        TrainingFeatures { n_rows: n, n_features: d, values, ranks, rank_bits }
    }

    pub fn n_features(&self) -> usize {
        self.n_features
    }
    #[inline]
    fn value(&self, i: usize, f: usize) -> f64 {
        self.values[f * self.n_rows + i]
    }
    #[inline]
    fn rank(&self, i: usize, f: usize) -> u32 {
        self.ranks[f * self.n_rows + i]
    }
}

/// Sorts keys `(rank << 32) | position` by rank, stably (so by position within a rank): an LSD
/// radix sort over the rank's `rank_bits` bits, 8 at a time; comparison sort for small inputs.
fn sort_keys(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, rank_bits: u32) {
    if keys.len() < 256 {
        keys.sort_unstable(); // keys are distinct, so this is the same order
        return;
    }
    scratch.clear();
    scratch.resize(keys.len(), 0);
    let mut shift = 32;
    while shift < 32 + rank_bits {
        let mut starts = [0usize; 257];
        for &k in keys.iter() {
            starts[((k >> shift) & 0xFF) as usize + 1] += 1;
        }
        for b in 0..256 {
            starts[b + 1] += starts[b];
        }
        for &k in keys.iter() {
            let b = ((k >> shift) & 0xFF) as usize;
            scratch[starts[b]] = k;
            starts[b] += 1;
        }
        std::mem::swap(keys, scratch);
        shift += 8;
    }
}

/// The threshold between two consecutive distinct values: their midpoint, kept strictly below
/// `hi` so that `lo <= threshold < hi` also for neighbouring floats.
fn midpoint(lo: f64, hi: f64) -> f64 {
    let t = lo + (hi - lo) / 2.0;
    if t >= hi {
        lo
    } else {
        t
    }
}

/// Grows one tree on `samples` with `weights` (parallel arrays; `x` must hold no NaN).
///
/// In each node the features are visited in a random order until `max_features` of them that
/// vary within the node have been scored (features constant in the node do not count, as in
/// scikit-learn); the best-scoring threshold wins, ties to the feature visited first. A node
/// that no feature separates becomes a leaf.
pub fn grow_tree<C: SplitCriterion, F: LeafFitter>(
    x: &TrainingFeatures,
    mut samples: Vec<u32>,
    mut weights: Vec<f64>,
    criterion: &C,
    leaf_fitter: &F,
    params: &GrowParams,
    rng: &mut Rng,
) -> Tree<F::Leaf> {
    let d = x.n_features();
    let mut tree = Tree { nodes: Vec::new(), leaves: Vec::new() };
    let mut features: Vec<usize> = (0..d).collect();
    let mut sorted: Vec<SortedSample> = Vec::with_capacity(samples.len());
    let mut keys: Vec<u64> = Vec::with_capacity(samples.len());
    let mut scratch: Vec<u64> = Vec::with_capacity(samples.len());
    let mut scratch_s: Vec<u32> = Vec::with_capacity(samples.len());
    let mut scratch_w: Vec<f64> = Vec::with_capacity(samples.len());

    // Models of internal nodes, by node index, for fitters that build on the parent's model.
    let mut node_models: Vec<Option<F::Leaf>> = Vec::new();
    // (node index, start, end, depth, parent); node slots are reserved before their children.
    tree.nodes.push(Node::Leaf { leaf: 0 });
    let mut stack = vec![(0usize, 0usize, samples.len(), 0usize, None::<usize>)];
    while let Some((node, start, end, depth, parent)) = stack.pop() {
        let (s, w) = (&samples[start..end], &weights[start..end]);
        let total: f64 = w.iter().sum();
        let at_limit = params.max_depth.is_some_and(|m| depth >= m);
        let best = if at_limit || total < params.min_weight_split || criterion.is_terminal(s, w) {
            None
        } else {
            find_split(x, s, w, criterion, params.max_features, &mut features, (&mut keys, &mut scratch), &mut sorted, rng)
        };
        let model = leaf_fitter
            .uses_parent()
            .then(|| leaf_fitter.fit_node(s, w, parent.and_then(|p| node_models.get(p)?.as_ref())));
        let Some((feature, threshold)) = best else {
            tree.nodes[node] = Node::Leaf { leaf: tree.leaves.len() as u32 };
            tree.leaves.push(match model {
                Some(m) => m,
                None => leaf_fitter.fit_leaf(s, w),
            });
            continue;
        };
        if model.is_some() {
            if node_models.len() <= node {
                node_models.resize_with(node + 1, || None);
            }
            node_models[node] = model;
        }
        // Stable partition of the node's range: left part first.
        scratch_s.clear();
        scratch_w.clear();
        let mut n_left = 0;
        for k in start..end {
            if x.value(samples[k] as usize, feature) <= threshold {
                samples[start + n_left] = samples[k];
                weights[start + n_left] = weights[k];
                n_left += 1;
            } else {
                scratch_s.push(samples[k]);
                scratch_w.push(weights[k]);
            }
        }
        samples[start + n_left..end].copy_from_slice(&scratch_s);
        weights[start + n_left..end].copy_from_slice(&scratch_w);
        let left = tree.nodes.len();
        tree.nodes.push(Node::Leaf { leaf: 0 });
        tree.nodes.push(Node::Leaf { leaf: 0 });
        tree.nodes[node] = Node::Split {
            feature: feature as u32,
            threshold,
            left: left as u32,
            right: left as u32 + 1,
        };
        // Right pushed first so the left subtree is grown (and its leaves numbered) first.
        stack.push((left + 1, start + n_left, end, depth + 1, Some(node)));
        stack.push((left, start, start + n_left, depth + 1, Some(node)));
    }
    tree
}

#[allow(clippy::too_many_arguments)]
fn find_split<C: SplitCriterion>(
    x: &TrainingFeatures,
    samples: &[u32],
    weights: &[f64],
    criterion: &C,
    max_features: usize,
    features: &mut [usize],
    (keys, scratch): (&mut Vec<u64>, &mut Vec<u64>),
    sorted: &mut Vec<SortedSample>,
    rng: &mut Rng,
) -> Option<(usize, f64)> {
    let d = features.len();
    let mut best: Option<(f64, usize, f64)> = None; // (score, feature, threshold)
    let mut scored = 0;
    for k in 0..d {
        if scored == max_features {
            break;
        }
        // Lazy Fisher-Yates: position k receives a uniformly drawn not-yet-visited feature.
        let j = k + rng.below(d - k);
        features.swap(k, j);
        let f = features[k];
        // Key: the value's rank, then the sample's position in the node (a total order).
        keys.clear();
        keys.extend(samples.iter().enumerate().map(|(pos, &s)| ((x.rank(s as usize, f) as u64) << 32) | pos as u64));
        sort_keys(keys, scratch, x.rank_bits[f]);
        if keys.first()? >> 32 == keys.last()? >> 32 {
            continue; // constant in this node
        }
        sorted.clear();
        sorted.extend(keys.iter().map(|&k| {
            let pos = (k & 0xFFFF_FFFF) as usize;
            let s = samples[pos];
            SortedSample { value: x.value(s as usize, f), sample: s, weight: weights[pos] }
        }));
        scored += 1;
        if let Some((boundary, score)) = criterion.best_boundary(sorted) {
            if best.is_none_or(|(b, _, _)| score > b) {
                let threshold = midpoint(sorted[boundary - 1].value, sorted[boundary].value);
                best = Some((score, f, threshold));
            }
        }
    }
    best.map(|(_, f, t)| (f, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct CountLeaf;
    impl LeafFitter for CountLeaf {
        type Leaf = f64;
        fn fit_leaf(&self, _s: &[u32], w: &[f64]) -> f64 {
            w.iter().sum()
        }
    }

    #[test]
    fn radix_sort_orders_by_rank_then_position() {
        let mut rng = Rng::new(9);
        for n in [10usize, 300, 5000] {
            let mut keys: Vec<u64> = (0..n as u64).map(|pos| ((rng.below(700) as u64) << 32) | pos).collect();
            let mut expect = keys.clone();
            expect.sort_unstable();
            sort_keys(&mut keys, &mut Vec::new(), 10);
            assert_eq!(keys, expect);
        }
    }

    #[test]
    fn max_features_rules() {
        assert_eq!(MaxFeatures::Log2PlusOne.resolve(4), 3);
        assert_eq!(MaxFeatures::Log2PlusOne.resolve(70), 7);
        assert_eq!(MaxFeatures::Log2PlusOne.resolve(1), 1);
        assert_eq!(MaxFeatures::Sqrt.resolve(10), 4);
        assert_eq!(MaxFeatures::Count(50).resolve(9), 9);
        assert_eq!(MaxFeatures::Fraction(0.01).resolve(9), 1);
    }

    #[test]
    fn midpoint_stays_below_the_upper_value() {
        assert_eq!(midpoint(1.0, 2.0), 1.5);
        let hi = f64::from_bits(1.0f64.to_bits() + 1);
        let t = midpoint(1.0, hi);
        assert!(1.0 <= t && t < hi);
    }

    #[test]
    fn separable_classes_give_a_pure_split_and_routing_matches_growing() {
        // One feature; class 0 for x < 5, class 1 above; weights all 1.
        let xs: Vec<f64> = (0..10).map(|i| i as f64).collect();
        let classes: Vec<u32> = (0..10).map(|i| (i >= 5) as u32).collect();
        let x = FeatureMatrixView::new(&xs, 10, 1).unwrap();
        let crit = ClassEntropy::new(&classes, 2, 1e-9);
        let params = GrowParams { max_depth: Some(8), max_features: 1, min_weight_split: 2.0 };
        let tree = grow_tree(&TrainingFeatures::new(&x), (0..10).collect(), vec![1.0; 10], &crit, &CountLeaf, &params, &mut Rng::new(0));
        assert_eq!(tree.depth(), 1);
        assert_eq!(tree.nodes[0], Node::Split { feature: 0, threshold: 4.5, left: 1, right: 2 });
        assert_eq!(*tree.leaf_for(&[4.5], &[0.0]), 5.0);
        assert_eq!(*tree.leaf_for(&[4.6], &[0.0]), 5.0 + 0.0 * 1.0);
        assert_eq!(*tree.leaf_for(&[f64::NAN], &[9.0]), 5.0);
    }

    #[test]
    fn depth_limit_is_counted_in_splits() {
        let xs: Vec<f64> = (0..64).map(|i| i as f64).collect();
        let classes: Vec<u32> = (0..64).map(|i| (i % 2) as u32).collect();
        let x = FeatureMatrixView::new(&xs, 64, 1).unwrap();
        let crit = ClassEntropy::new(&classes, 2, 1e-9);
        for max_depth in [0, 1, 3] {
            let params = GrowParams { max_depth: Some(max_depth), max_features: 1, min_weight_split: 2.0 };
            let tree = grow_tree(&TrainingFeatures::new(&x), (0..64).collect(), vec![1.0; 64], &crit, &CountLeaf, &params, &mut Rng::new(0));
            assert_eq!(tree.depth(), max_depth);
            let total: f64 = tree.leaves.iter().sum();
            assert_eq!(total, 64.0);
        }
    }

    #[test]
    fn constant_features_give_a_leaf() {
        let xs = vec![1.0; 8];
        let classes: Vec<u32> = (0..8).map(|i| (i % 2) as u32).collect();
        let x = FeatureMatrixView::new(&xs, 8, 1).unwrap();
        let crit = ClassEntropy::new(&classes, 2, 1e-9);
        let params = GrowParams { max_depth: None, max_features: 1, min_weight_split: 2.0 };
        let tree = grow_tree(&TrainingFeatures::new(&x), (0..8).collect(), vec![1.0; 8], &crit, &CountLeaf, &params, &mut Rng::new(0));
        assert_eq!(tree.nodes.len(), 1);
    }
}
