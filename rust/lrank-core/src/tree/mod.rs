//! The one tree-growing engine of lrank.
//!
//! A tree is grown top-down on weighted samples (bootstrap multiplicities become weights). What
//! makes a learner is plugged in:
//! - a [`SplitCriterion`] summarises a node once ([`SplitCriterion::node_stats`]), decides when
//!   it is terminal, and scores the boundaries of one feature (the engine hands it the node's
//!   samples sorted by that feature);
//! - a [`LeafFitter`] turns the samples that reach a leaf into the leaf's model.
//!
//! Splits are binary. A numeric feature splits at a threshold, `x <= threshold` going left, both
//! when growing and when routing; the threshold is the midpoint between consecutive distinct
//! values of the node, chosen by the criterion ([`ThresholdRule::Best`]) or fixed by an
//! unsupervised rule ([`ThresholdRule::EqualWidth`], [`ThresholdRule::EqualFrequency`], via
//! [`crate::discretisation`]). A nominal feature splits one value against the rest, `x == value`
//! going left (beyond the papers, which have numeric attributes only).
//!
//! A node's samples are sorted per feature by integer ranks computed once per fit. A single tree
//! that scores every feature in every node, each sample once (LRT), sorts only at the root:
//! its nodes carry their samples in every feature's order, and a split partitions those orders
//! stably (same trees, less work).

mod criterion;

pub(crate) use criterion::evaluate_at;
pub use criterion::{ClassEntropy, PairwiseEntropy, SortedSample};

use crate::discretisation;
pub use crate::features::FeatureKind;
use crate::features::FeatureMatrixView;
use crate::rng::{child_seed, Rng};
use rayon::prelude::*;
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
    /// Refuses a count of 0 and a share outside (0, 1].
    pub fn validate(self) -> crate::Result<()> {
        let reason = match self {
            MaxFeatures::Count(0) => "must be at least 1".to_string(),
            MaxFeatures::Fraction(f) if !(f > 0.0 && f <= 1.0) => format!("a fraction must lie in (0, 1], got {f}"),
            _ => return Ok(()),
        };
        Err(crate::LrankError::InvalidParameter { name: "max_features", reason })
    }

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

/// How the threshold of a numeric feature is chosen in a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThresholdRule {
    /// The boundary the criterion scores best (every boundary between distinct values is tried).
    Best,
    /// Fixed: the midpoint of the node's smallest and largest value (equal-width, 2 bins).
    EqualWidth,
    /// Fixed: the node's (weighted lower) median (equal-frequency, 2 bins).
    EqualFrequency,
}

/// Which boundaries of a sorted node a criterion may return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundaries {
    /// Every boundary between distinct values.
    All,
    /// Only "between `sorted[k - 1]` and `sorted[k]`" (the caller guarantees 0 < k < len).
    Only(usize),
}

/// Scores the thresholds of one feature for one node.
pub trait SplitCriterion: Sync {
    /// What the criterion knows of a whole node, computed once per node and shared by all its
    /// features (e.g. the node's totals, from which each sweep starts).
    type NodeStats: Sync;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> Self::NodeStats;

    /// True when the node must become a leaf whatever its features (e.g. it is pure).
    fn is_terminal(&self, node: &Self::NodeStats) -> bool;

    /// Best boundary in `sorted` (the node's samples in an order given by one feature) among
    /// `boundaries`: returns `(k, score)` meaning "split between `sorted[k - 1]` and
    /// `sorted[k]`", higher score better. With [`Boundaries::All`] only boundaries between
    /// distinct values may be returned. `None` if no boundary is valid.
    fn best_boundary(&self, node: &Self::NodeStats, sorted: &[SortedSample], boundaries: Boundaries) -> Option<(usize, f64)>;

    /// [`best_boundary`](Self::best_boundary) when another feature already offers a split
    /// scoring `floor`: the same result whenever that scores above `floor`; otherwise `None` or
    /// a boundary scoring at most `floor` (which the node does not take). A criterion that can
    /// bound a boundary's score cheaply skips the boundaries that cannot beat the floor.
    fn best_boundary_above(
        &self,
        node: &Self::NodeStats,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        _floor: f64,
    ) -> Option<(usize, f64)> {
        self.best_boundary(node, sorted, boundaries)
    }
}

/// Fits the model kept in a leaf from the samples (and weights) that reach it.
pub trait LeafFitter: Sync {
    type Leaf: Send + Sync;
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

    /// Whether the children of a node that splits `samples` (`goes_left` tells the side) will
    /// use the node's model as their parent's; when not, it is not fitted. (The model of a node
    /// must not depend on its parent's unless that node's own parent is asked here too.)
    fn children_need_parent(&self, _samples: &[u32], _goes_left: impl Fn(u32) -> bool) -> bool {
        true
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Node {
    /// `x[feature] <= threshold` goes left.
    Split {
        feature: u32,
        threshold: f64,
        left: u32,
        right: u32,
    },
    Leaf {
        leaf: u32,
    },
    /// `x[feature] == value` goes left (a nominal feature's code).
    Category {
        feature: u32,
        value: f64,
        left: u32,
        right: u32,
    },
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
    /// How numeric thresholds are chosen.
    pub threshold_rule: ThresholdRule,
}

impl Default for GrowParams {
    /// Unlimited depth, all features, no minimum node weight, best thresholds.
    fn default() -> Self {
        GrowParams { max_depth: None, max_features: usize::MAX, min_weight_split: 0.0, threshold_rule: ThresholdRule::Best }
    }
}

impl<L> Tree<L> {
    /// The leaf reached by `row`; missing values (NaN) are routed as `fill[feature]`.
    pub fn leaf_for(&self, row: &[f64], fill: &[f64]) -> &L {
        let value = |feature: u32| {
            let v = row[feature as usize];
            if v.is_nan() {
                fill[feature as usize]
            } else {
                v
            }
        };
        let mut node = 0usize;
        loop {
            node = match self.nodes[node] {
                Node::Leaf { leaf } => return &self.leaves[leaf as usize],
                Node::Split { feature, threshold, left, right } => {
                    if value(feature) <= threshold {
                        left
                    } else {
                        right
                    }
                }
                Node::Category { feature, value: v, left, right } => {
                    if value(feature) == v {
                        left
                    } else {
                        right
                    }
                }
            } as usize;
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
                Node::Split { left, right, .. } | Node::Category { left, right, .. } => {
                    1 + go(t, left as usize).max(go(t, right as usize))
                }
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
    kinds: Vec<FeatureKind>,
}

impl TrainingFeatures {
    /// Features of the view's kinds (nominal ones split one value against the rest). `x` must
    /// hold no NaN (fill missing values first).
    pub fn new(x: &FeatureMatrixView<'_>) -> Self {
        let (n, d) = (x.n_rows(), x.n_features());
        let kinds: Vec<FeatureKind> = (0..d).map(|f| x.kind(f)).collect();
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
        TrainingFeatures { n_rows: n, n_features: d, values, ranks, rank_bits, kinds }
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
pub(crate) fn midpoint(lo: f64, hi: f64) -> f64 {
    let t = lo + (hi - lo) / 2.0;
    if t >= hi {
        lo
    } else {
        t
    }
}

/// A chosen split of a node.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SplitChoice {
    Threshold { feature: usize, threshold: f64 },
    Category { feature: usize, value: f64 },
}

impl SplitChoice {
    fn goes_left(&self, x: &TrainingFeatures, sample: usize) -> bool {
        match *self {
            SplitChoice::Threshold { feature, threshold } => x.value(sample, feature) <= threshold,
            SplitChoice::Category { feature, value } => x.value(sample, feature) == value,
        }
    }

    fn node(&self, left: u32) -> Node {
        match *self {
            SplitChoice::Threshold { feature, threshold } => {
                Node::Split { feature: feature as u32, threshold, left, right: left + 1 }
            }
            SplitChoice::Category { feature, value } => Node::Category { feature: feature as u32, value, left, right: left + 1 },
        }
    }
}

/// Per-thread buffers of the split search and partitioning.
#[derive(Default)]
struct Scratch {
    keys: Vec<u64>,
    radix: Vec<u64>,
    sorted: Vec<SortedSample>,
    reordered: Vec<SortedSample>,
    right_samples: Vec<u32>,
    right_weights: Vec<f64>,
    /// Presorted mode: which samples of the node go left (indexed by sample), and a copy of
    /// the node's orders while they are partitioned.
    goes_left: Vec<bool>,
    orders_copy: Vec<u32>,
    /// The feature permutation. Stream mode keeps it from node to node (the Fisher-Yates draws
    /// of a node start from the previous node's order); per-node mode resets it in every node.
    features: Vec<usize>,
}

/// Where the random numbers of a tree come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeRandomness {
    /// One stream, consumed node after node in depth-first order (left subtree first). Used by
    /// the forests, whose trees already grow in parallel with one stream each.
    Stream,
    /// A stream per node, derived from its parent's seed: subtrees no longer depend on each
    /// other, so they grow in parallel, with the same result for any thread count.
    PerNode,
}

/// Subtrees with at least this many samples on both sides grow in parallel (per-node mode).
const PARALLEL_SUBTREE_SIZE: usize = 1024;

/// The fixed inputs of one tree's growth.
struct Grower<'a, C: SplitCriterion, F: LeafFitter> {
    x: &'a TrainingFeatures,
    criterion: &'a C,
    leaf_fitter: &'a F,
    params: &'a GrowParams,
    /// Start every node's feature permutation from the identity (per-node mode).
    reset_features: bool,
    /// Presorted mode: each sample's weight, indexed by sample (empty otherwise).
    weight_of: Vec<f64>,
}

/// Presorted mode, used when a tree scores every feature in every node and each sample occurs
/// once: a node carries, per feature, its samples in the order that sorting them would give
/// (rank, then position in the node), `d` blocks of the node's size. A split partitions each
/// block stably, which keeps the order, so no node sorts: the split search then only reads
/// values. Same trees as sorting in every node.
type Orders<'a> = Option<&'a mut [u32]>;

/// The root's [`Orders`]: for each feature, `samples` ordered by (rank, position).
fn root_orders(x: &TrainingFeatures, samples: &[u32]) -> Vec<u32> {
    let n = samples.len();
    let mut orders = Vec::with_capacity(n * x.n_features());
    let (mut keys, mut radix) = (Vec::with_capacity(n), Vec::new());
    for f in 0..x.n_features() {
        keys.clear();
        keys.extend(samples.iter().enumerate().map(|(pos, &s)| ((x.rank(s as usize, f) as u64) << 32) | pos as u64));
        sort_keys(&mut keys, &mut radix, x.rank_bits[f]);
        orders.extend(keys.iter().map(|&k| samples[(k & 0xFFFF_FFFF) as usize]));
    }
    orders
}

/// Grows one tree on `samples` with `weights` (parallel arrays; `x` must hold no NaN), drawing
/// random numbers from `rng` as one stream ([`TreeRandomness::Stream`]).
///
/// In each node the features are visited in a random order until `max_features` of them that
/// vary within the node have been scored (features constant in the node do not count, as in
/// scikit-learn); the best-scoring split wins, ties to the feature visited first. A node that
/// no feature separates becomes a leaf. When every feature is to be scored (`max_features >= d`)
/// and the node is large, features are scored in parallel; the result is the same.
pub fn grow_tree<C: SplitCriterion, F: LeafFitter>(
    x: &TrainingFeatures,
    samples: Vec<u32>,
    weights: Vec<f64>,
    criterion: &C,
    leaf_fitter: &F,
    params: &GrowParams,
    rng: &mut Rng,
) -> Tree<F::Leaf> {
    grow_tree_with(x, samples, weights, criterion, leaf_fitter, params, rng, TreeRandomness::Stream)
}

/// [`grow_tree`] with a choice of [`TreeRandomness`]. In per-node mode the root's stream is
/// seeded from `rng`'s next number, and the nodes are numbered subtree by subtree (a node, then
/// its left subtree, then its right subtree).
#[allow(clippy::too_many_arguments)]
pub fn grow_tree_with<C: SplitCriterion, F: LeafFitter>(
    x: &TrainingFeatures,
    mut samples: Vec<u32>,
    mut weights: Vec<f64>,
    criterion: &C,
    leaf_fitter: &F,
    params: &GrowParams,
    rng: &mut Rng,
    randomness: TreeRandomness,
) -> Tree<F::Leaf> {
    let grower = Grower {
        x,
        criterion,
        leaf_fitter,
        params,
        reset_features: randomness == TreeRandomness::PerNode,
        weight_of: Vec::new(),
    };
    let mut scratch = Scratch::default();
    match randomness {
        TreeRandomness::Stream => {
            let mut tree = Tree { nodes: vec![Node::Leaf { leaf: 0 }], leaves: Vec::new() };
            grower.grow_in_stream(0, &mut samples, &mut weights, 0, None, rng, &mut scratch, &mut tree);
            tree
        }
        TreeRandomness::PerNode => grower.grow_from_root(&mut samples, &mut weights, rng.next_u64(), true),
    }
}

/// What a node turned out to be.
enum NodeOutcome<L> {
    Leaf(L),
    /// The split, the number of samples going left, and the node's own model (for fitters that
    /// build on their parent's).
    Split(SplitChoice, usize, Option<L>),
}

impl<C: SplitCriterion, F: LeafFitter> Grower<'_, C, F> {
    /// Decides a node: a leaf with its model, or a split (the node's samples are then
    /// partitioned, left part first, stably).
    #[allow(clippy::too_many_arguments)]
    fn decide(
        &self,
        samples: &mut [u32],
        weights: &mut [f64],
        orders: Orders<'_>,
        depth: usize,
        parent: Option<&F::Leaf>,
        rng: &mut Rng,
        scratch: &mut Scratch,
    ) -> NodeOutcome<F::Leaf> {
        let (x, params) = (self.x, self.params);
        let total: f64 = weights.iter().sum();
        let at_limit = params.max_depth.is_some_and(|m| depth >= m);
        let best = if at_limit || total < params.min_weight_split {
            None
        } else {
            let stats = self.criterion.node_stats(samples, weights);
            if self.criterion.is_terminal(&stats) {
                None
            } else {
                let mut features = std::mem::take(&mut scratch.features);
                if features.len() != x.n_features() || self.reset_features {
                    features = (0..x.n_features()).collect();
                }
                let presorted = orders.as_deref().map(|o| (o, self.weight_of.as_slice()));
                let split =
                    find_split(x, samples, weights, presorted, self.criterion, &stats, params, &mut features, scratch, rng);
                scratch.features = features;
                split
            }
        };
        let Some(choice) = best else {
            return NodeOutcome::Leaf(if self.leaf_fitter.uses_parent() {
                self.leaf_fitter.fit_node(samples, weights, parent)
            } else {
                self.leaf_fitter.fit_leaf(samples, weights)
            });
        };
        // A splitting node's own model serves only as its children's parent: fitted when one of
        // them will ask for it.
        let model = (self.leaf_fitter.uses_parent()
            && self.leaf_fitter.children_need_parent(samples, |sample| choice.goes_left(x, sample as usize)))
        .then(|| self.leaf_fitter.fit_node(samples, weights, parent));
        let (right_s, right_w) = (&mut scratch.right_samples, &mut scratch.right_weights);
        right_s.clear();
        right_w.clear();
        let mut n_left = 0;
        if orders.is_some() && scratch.goes_left.len() < x.n_rows {
            scratch.goes_left.resize(x.n_rows, false);
        }
        for k in 0..samples.len() {
            let left = choice.goes_left(x, samples[k] as usize);
            if orders.is_some() {
                scratch.goes_left[samples[k] as usize] = left;
            }
            if left {
                samples[n_left] = samples[k];
                weights[n_left] = weights[k];
                n_left += 1;
            } else {
                right_s.push(samples[k]);
                right_w.push(weights[k]);
            }
        }
        samples[n_left..].copy_from_slice(right_s);
        weights[n_left..].copy_from_slice(right_w);
        if let Some(orders) = orders {
            // Each feature's block, partitioned stably: the left parts first (d blocks of
            // n_left), then the right parts.
            let (n, d) = (samples.len(), x.n_features());
            let n_right = n - n_left;
            let copy = &mut scratch.orders_copy;
            copy.clear();
            copy.extend_from_slice(orders);
            for f in 0..d {
                let (mut l, mut r) = (f * n_left, d * n_left + f * n_right);
                for &s in &copy[f * n..(f + 1) * n] {
                    if scratch.goes_left[s as usize] {
                        orders[l] = s;
                        l += 1;
                    } else {
                        orders[r] = s;
                        r += 1;
                    }
                }
            }
        }
        NodeOutcome::Split(choice, n_left, model)
    }

    /// Stream mode: fills `tree.nodes[node]` and grows its subtree, children's slots reserved
    /// when the node splits and leaves numbered depth-first, left first.
    #[allow(clippy::too_many_arguments)]
    fn grow_in_stream(
        &self,
        node: usize,
        samples: &mut [u32],
        weights: &mut [f64],
        depth: usize,
        parent: Option<&F::Leaf>,
        rng: &mut Rng,
        scratch: &mut Scratch,
        tree: &mut Tree<F::Leaf>,
    ) {
        match self.decide(samples, weights, None, depth, parent, rng, scratch) {
            NodeOutcome::Leaf(leaf) => {
                tree.nodes[node] = Node::Leaf { leaf: tree.leaves.len() as u32 };
                tree.leaves.push(leaf);
            }
            NodeOutcome::Split(choice, n_left, model) => {
                let left = tree.nodes.len();
                tree.nodes.push(Node::Leaf { leaf: 0 });
                tree.nodes.push(Node::Leaf { leaf: 0 });
                tree.nodes[node] = choice.node(left as u32);
                let (ls, rs) = samples.split_at_mut(n_left);
                let (lw, rw) = weights.split_at_mut(n_left);
                self.grow_in_stream(left, ls, lw, depth + 1, model.as_ref(), rng, scratch, tree);
                self.grow_in_stream(left + 1, rs, rw, depth + 1, model.as_ref(), rng, scratch, tree);
            }
        }
    }

    /// Per-node mode from the root, presorted (when asked and possible: every feature scored,
    /// each sample once) or sorting in every node; the tree is the same.
    fn grow_from_root(mut self, samples: &mut [u32], weights: &mut [f64], seed: u64, presort: bool) -> Tree<F::Leaf> {
        let mut orders = None;
        if presort && self.params.max_features >= self.x.n_features() {
            let mut weight_of = vec![f64::NAN; self.x.n_rows];
            let unique = samples.iter().zip(weights.iter()).all(|(&s, &w)| {
                let seen = !weight_of[s as usize].is_nan();
                weight_of[s as usize] = w;
                !seen
            });
            if unique {
                self.weight_of = weight_of;
                orders = Some(root_orders(self.x, samples));
            }
        }
        self.grow_per_node(samples, weights, orders.as_deref_mut(), 0, None, seed, &mut Scratch::default())
    }

    /// Per-node mode: the subtree of a node as a tree of its own (root first, then the left
    /// subtree, then the right one); the two subtrees of a large node grow in parallel.
    #[allow(clippy::too_many_arguments)]
    fn grow_per_node(
        &self,
        samples: &mut [u32],
        weights: &mut [f64],
        mut orders: Orders<'_>,
        depth: usize,
        parent: Option<&F::Leaf>,
        seed: u64,
        scratch: &mut Scratch,
    ) -> Tree<F::Leaf> {
        let mut rng = Rng::new(seed);
        match self.decide(samples, weights, orders.as_deref_mut(), depth, parent, &mut rng, scratch) {
            NodeOutcome::Leaf(leaf) => Tree { nodes: vec![Node::Leaf { leaf: 0 }], leaves: vec![leaf] },
            NodeOutcome::Split(choice, n_left, model) => {
                let (ls, rs) = samples.split_at_mut(n_left);
                let (lw, rw) = weights.split_at_mut(n_left);
                let (lo, ro) = match orders {
                    Some(o) => {
                        let (lo, ro) = o.split_at_mut(n_left * self.x.n_features());
                        (Some(lo), Some(ro))
                    }
                    None => (None, None),
                };
                let (left_seed, right_seed) = (child_seed(seed, 0), child_seed(seed, 1));
                let parallel = ls.len().min(rs.len()) >= PARALLEL_SUBTREE_SIZE && rayon::current_num_threads() > 1;
                let (left, right) = if parallel {
                    rayon::join(
                        || self.grow_per_node(ls, lw, lo, depth + 1, model.as_ref(), left_seed, &mut Scratch::default()),
                        || self.grow_per_node(rs, rw, ro, depth + 1, model.as_ref(), right_seed, &mut Scratch::default()),
                    )
                } else {
                    let left = self.grow_per_node(ls, lw, lo, depth + 1, model.as_ref(), left_seed, scratch);
                    (left, self.grow_per_node(rs, rw, ro, depth + 1, model.as_ref(), right_seed, scratch))
                };
                join_subtrees(choice, left, right)
            }
        }
    }
}

/// A tree whose root splits by `choice` into `left` and `right` (renumbered after it).
fn join_subtrees<L>(choice: SplitChoice, left: Tree<L>, right: Tree<L>) -> Tree<L> {
    let (n_left_nodes, n_left_leaves) = (left.nodes.len() as u32, left.leaves.len() as u32);
    let mut nodes = Vec::with_capacity(1 + left.nodes.len() + right.nodes.len());
    let mut root = choice.node(1);
    if let Node::Split { right: r, .. } | Node::Category { right: r, .. } = &mut root {
        *r = 1 + n_left_nodes;
    }
    nodes.push(root);
    let shift = |node: Node, by_node: u32, by_leaf: u32| match node {
        Node::Leaf { leaf } => Node::Leaf { leaf: leaf + by_leaf },
        Node::Split { feature, threshold, left, right } => {
            Node::Split { feature, threshold, left: left + by_node, right: right + by_node }
        }
        Node::Category { feature, value, left, right } => {
            Node::Category { feature, value, left: left + by_node, right: right + by_node }
        }
    };
    nodes.extend(left.nodes.into_iter().map(|n| shift(n, 1, 0)));
    nodes.extend(right.nodes.into_iter().map(|n| shift(n, 1 + n_left_nodes, n_left_leaves)));
    let mut leaves = left.leaves;
    leaves.extend(right.leaves);
    Tree { nodes, leaves }
}

/// How a forest draws each tree's training sample.
#[derive(Clone, Copy, Debug)]
pub struct ForestSampling {
    pub n_trees: usize,
    pub seed: u64,
    /// A bootstrap sample of size n per tree (else every row once).
    pub bootstrap: bool,
}

/// Grows the trees of a forest in parallel on the training rows `rows` (with weights
/// `row_weights`): tree `t` draws its bootstrap sample (len(rows) draws among them) and then its
/// splits from the stream `child_seed(seed, t)`, so the forest does not depend on the thread
/// count. Rows with zero weight (row weight times bootstrap count) are left out.
pub fn grow_forest<C: SplitCriterion, F: LeafFitter>(
    x: &TrainingFeatures,
    rows: &[u32],
    row_weights: &[f64],
    sampling: ForestSampling,
    criterion: &C,
    leaf_fitter: &F,
    params: &GrowParams,
) -> Vec<Tree<F::Leaf>> {
    let n = rows.len();
    (0..sampling.n_trees)
        .into_par_iter()
        .map(|t| {
            let mut rng = Rng::new(child_seed(sampling.seed, t as u64));
            let mut counts = vec![0.0f64; n];
            if sampling.bootstrap {
                for _ in 0..n {
                    counts[rng.below(n)] += 1.0;
                }
            } else {
                counts.iter_mut().for_each(|c| *c = 1.0);
            }
            let mut samples = Vec::with_capacity(n);
            let mut weights = Vec::with_capacity(n);
            for (k, &c) in counts.iter().enumerate() {
                let w = c * row_weights[k];
                if w > 0.0 {
                    samples.push(rows[k]);
                    weights.push(w);
                }
            }
            grow_tree(x, samples, weights, criterion, leaf_fitter, params, &mut rng)
        })
        .collect()
}

/// The row ids `0..n` (every training row of a forest).
pub fn all_rows(n: usize) -> Vec<u32> {
    (0..n as u32).collect()
}

/// Nodes with at least this many samples score their features in parallel (when all features
/// are scored): below it the work per feature is too small to be worth a task.
const PARALLEL_NODE_SIZE: usize = 512;

#[allow(clippy::too_many_arguments)]
fn find_split<C: SplitCriterion>(
    x: &TrainingFeatures,
    samples: &[u32],
    weights: &[f64],
    presorted: Option<(&[u32], &[f64])>,
    criterion: &C,
    stats: &C::NodeStats,
    params: &GrowParams,
    features: &mut [usize],
    scratch: &mut Scratch,
    rng: &mut Rng,
) -> Option<SplitChoice> {
    let d = features.len();
    let max_features = params.max_features.min(d);
    let mut best: Option<(f64, SplitChoice)> = None;
    if max_features == d && samples.len() >= PARALLEL_NODE_SIZE && rayon::current_num_threads() > 1 {
        // Every feature is visited, so the whole permutation is drawn as the sequential loop
        // would draw it; scores are then compared in that order (ties to the first).
        for k in 0..d {
            let j = k + rng.below(d - k);
            features.swap(k, j);
        }
        let scored: Vec<Option<(f64, SplitChoice)>> = features
            .par_iter()
            .map_init(Scratch::default, |scratch, &f| {
                score_feature(x, samples, weights, presorted, criterion, stats, params, f, f64::NEG_INFINITY, scratch).flatten()
            })
            .collect();
        for (score, choice) in scored.into_iter().flatten() {
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, choice));
            }
        }
        return best.map(|(_, c)| c);
    }
    let mut n_scored = 0;
    for k in 0..d {
        if n_scored == max_features {
            break;
        }
        // Lazy Fisher-Yates: position k receives a uniformly drawn not-yet-visited feature.
        let j = k + rng.below(d - k);
        features.swap(k, j);
        // The best score so far is a floor for the later features: a split they find must beat
        // it to be taken, so their boundaries that cannot are not scored in full. (The result
        // is the same as without the floor, as the parallel path above computes it.)
        let floor = best.as_ref().map_or(f64::NEG_INFINITY, |(b, _)| *b);
        let Some(result) = score_feature(x, samples, weights, presorted, criterion, stats, params, features[k], floor, scratch)
        else {
            continue; // constant in this node
        };
        n_scored += 1;
        if let Some((score, choice)) = result {
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, choice));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// The best split on feature `f`: `None` when the feature is constant in the node, else the
/// best (score, split), if the criterion finds a valid one (or possibly none, or one scoring at
/// most `floor`, when the best does not score above `floor`).
#[allow(clippy::too_many_arguments)]
fn score_feature<C: SplitCriterion>(
    x: &TrainingFeatures,
    samples: &[u32],
    weights: &[f64],
    presorted: Option<(&[u32], &[f64])>,
    criterion: &C,
    stats: &C::NodeStats,
    params: &GrowParams,
    f: usize,
    floor: f64,
    scratch: &mut Scratch,
) -> Option<Option<(f64, SplitChoice)>> {
    let Scratch { keys, radix, sorted, reordered, .. } = scratch;
    sorted.clear();
    if let Some((orders, weight_of)) = presorted {
        let n = samples.len();
        let order = &orders[f * n..(f + 1) * n];
        if x.rank(*order.first()? as usize, f) == x.rank(*order.last()? as usize, f) {
            return None; // constant in this node
        }
        sorted.extend(order.iter().map(|&s| SortedSample {
            value: x.value(s as usize, f),
            sample: s,
            weight: weight_of[s as usize],
        }));
    } else {
        // Key: the value's rank, then the sample's position in the node (a total order).
        keys.clear();
        keys.extend(samples.iter().enumerate().map(|(pos, &s)| ((x.rank(s as usize, f) as u64) << 32) | pos as u64));
        sort_keys(keys, radix, x.rank_bits[f]);
        if keys.first()? >> 32 == keys.last()? >> 32 {
            return None; // constant in this node
        }
        sorted.extend(keys.iter().map(|&k| {
            let pos = (k & 0xFFFF_FFFF) as usize;
            let s = samples[pos];
            SortedSample { value: x.value(s as usize, f), sample: s, weight: weights[pos] }
        }));
    }
    if x.kinds[f] == FeatureKind::Nominal {
        return Some(best_category(criterion, stats, sorted, reordered, f, floor));
    }
    // The threshold is the midpoint of the chosen boundary's values, or the fixed cut itself.
    let (boundaries, fixed_cut) = match params.threshold_rule {
        ThresholdRule::Best => (Boundaries::All, None),
        rule => {
            let values: Vec<f64> = sorted.iter().map(|s| s.value).collect();
            let w: Vec<f64> = sorted.iter().map(|s| s.weight).collect();
            let cut = match rule {
                ThresholdRule::EqualWidth => discretisation::equal_width_cuts(&values, 2),
                _ => discretisation::equal_frequency_cuts(&values, Some(&w), 2),
            }[0];
            (Boundaries::Only(sorted.partition_point(|s| s.value <= cut)), Some(cut))
        }
    };
    let best = criterion.best_boundary_above(stats, sorted, boundaries, floor).map(|(k, score)| {
        let threshold = fixed_cut.unwrap_or_else(|| midpoint(sorted[k - 1].value, sorted[k].value));
        (score, SplitChoice::Threshold { feature: f, threshold })
    });
    Some(best)
}

/// One value of a nominal feature against the rest: each distinct value of the node (in code
/// order) is tried as the left side; with two values only the first is tried (the other gives
/// the same partition). Ties go to the lower code.
fn best_category<C: SplitCriterion>(
    criterion: &C,
    stats: &C::NodeStats,
    sorted: &[SortedSample],
    reordered: &mut Vec<SortedSample>,
    f: usize,
    floor: f64,
) -> Option<(f64, SplitChoice)> {
    let mut runs = Vec::new(); // (start, end) of each value's run in `sorted`
    let mut start = 0;
    for k in 1..=sorted.len() {
        if k == sorted.len() || sorted[k].value != sorted[start].value {
            runs.push((start, k));
            start = k;
        }
    }
    let n_tried = if runs.len() == 2 { 1 } else { runs.len() };
    let mut best: Option<(f64, SplitChoice)> = None;
    for &(a, b) in &runs[..n_tried] {
        // The value's samples first (marked 0), then the others (marked 1), each in sorted order.
        reordered.clear();
        reordered.extend(sorted[a..b].iter().map(|s| SortedSample { value: 0.0, ..*s }));
        reordered.extend(sorted[..a].iter().chain(&sorted[b..]).map(|s| SortedSample { value: 1.0, ..*s }));
        if let Some((_, score)) = criterion.best_boundary_above(stats, reordered, Boundaries::Only(b - a), floor) {
            if best.is_none_or(|(g, _)| score > g) {
                best = Some((score, SplitChoice::Category { feature: f, value: sorted[a].value }));
            }
        }
    }
    best
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
        let params =
            GrowParams { max_depth: Some(8), max_features: 1, min_weight_split: 2.0, threshold_rule: ThresholdRule::Best };
        let tree =
            grow_tree(&TrainingFeatures::new(&x), (0..10).collect(), vec![1.0; 10], &crit, &CountLeaf, &params, &mut Rng::new(0));
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
            let params = GrowParams {
                max_depth: Some(max_depth),
                max_features: 1,
                min_weight_split: 2.0,
                threshold_rule: ThresholdRule::Best,
            };
            let tree = grow_tree(
                &TrainingFeatures::new(&x),
                (0..64).collect(),
                vec![1.0; 64],
                &crit,
                &CountLeaf,
                &params,
                &mut Rng::new(0),
            );
            assert_eq!(tree.depth(), max_depth);
            let total: f64 = tree.leaves.iter().sum();
            assert_eq!(total, 64.0);
        }
    }

    #[test]
    fn presorted_nodes_grow_the_tree_that_sorting_in_every_node_grows() {
        // Ties, a nominal feature, shuffled samples (ties go by position in the node), integer
        // weights, and nodes large enough to grow their subtrees in parallel.
        let mut rng = Rng::new(17);
        for (n, d) in [(40usize, 3usize), (300, 4), (3000, 3)] {
            let mut xs = vec![0.0; n * d];
            for i in 0..n {
                xs[i * d] = rng.below(n / 4 + 1) as f64;
                xs[i * d + 1] = rng.uniform();
                xs[i * d + 2] = rng.below(3) as f64;
                for f in 3..d {
                    xs[i * d + f] = rng.below(5) as f64;
                }
            }
            let classes: Vec<u32> =
                (0..n).map(|i| ((xs[i * d] + 3.0 * xs[i * d + 1]) as u32 + rng.below(2) as u32) % 3).collect();
            let mut kinds = vec![FeatureKind::Numeric; d];
            kinds[2] = FeatureKind::Nominal;
            let x = FeatureMatrixView::new(&xs, n, d).unwrap().with_kinds(Some(&kinds)).unwrap();
            let features = TrainingFeatures::new(&x);
            let crit = ClassEntropy::new(&classes, 3, 1e-9);
            let mut samples: Vec<u32> = (0..n as u32).filter(|_| rng.below(10) > 0).collect();
            rng.shuffle(&mut samples);
            let weights: Vec<f64> = samples.iter().map(|_| 1.0 + rng.below(3) as f64).collect();
            for rule in [ThresholdRule::Best, ThresholdRule::EqualFrequency] {
                let params = GrowParams { max_depth: None, max_features: d, min_weight_split: 2.0, threshold_rule: rule };
                let grow = |presort: bool| {
                    let grower = Grower {
                        x: &features,
                        criterion: &crit,
                        leaf_fitter: &CountLeaf,
                        params: &params,
                        reset_features: true,
                        weight_of: Vec::new(),
                    };
                    grower.grow_from_root(&mut samples.clone(), &mut weights.clone(), 5, presort)
                };
                let (sorting, presorted) = (grow(false), grow(true));
                assert!(sorting.nodes.len() > 3, "n={n}: a tree worth comparing");
                assert_eq!(sorting.nodes, presorted.nodes, "n={n} {rule:?}");
                assert_eq!(sorting.leaves, presorted.leaves, "n={n} {rule:?}");
            }
        }
    }

    #[test]
    fn constant_features_give_a_leaf() {
        let xs = vec![1.0; 8];
        let classes: Vec<u32> = (0..8).map(|i| (i % 2) as u32).collect();
        let x = FeatureMatrixView::new(&xs, 8, 1).unwrap();
        let crit = ClassEntropy::new(&classes, 2, 1e-9);
        let params = GrowParams { max_depth: None, max_features: 1, min_weight_split: 2.0, threshold_rule: ThresholdRule::Best };
        let tree =
            grow_tree(&TrainingFeatures::new(&x), (0..8).collect(), vec![1.0; 8], &crit, &CountLeaf, &params, &mut Rng::new(0));
        assert_eq!(tree.nodes.len(), 1);
    }
}
