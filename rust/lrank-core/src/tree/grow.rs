//! Growing one tree: each node decided (leaf or split), its samples partitioned, its subtrees
//! grown depth-first from one random stream, or per node from derived streams so that large
//! subtrees grow in parallel with the same result for any thread count.

use super::layout::{root_orders, Orders, TrainingFeatures};
use super::model::{Node, Tree};
use super::params::{GrowParams, MAX_TREE_DEPTH};
use super::split::{Exact, NodeView, Scratch, Search, SplitChoice};
use super::sweep::SplitCriterion;
use crate::rng::{child_seed, Rng};

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
pub(super) struct Grower<'a, C: SplitCriterion, F: LeafFitter, S: Search<C>> {
    pub(super) x: &'a TrainingFeatures,
    /// How nodes find their splits.
    pub(super) search: &'a S,
    pub(super) criterion: &'a C,
    pub(super) leaf_fitter: &'a F,
    pub(super) params: &'a GrowParams,
    /// Start every node's feature permutation from the identity (per-node mode).
    pub(super) reset_features: bool,
    /// Presorted mode: each sample's weight, indexed by sample (empty otherwise).
    pub(super) weight_of: Vec<f64>,
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
    samples: Vec<u32>,
    weights: Vec<f64>,
    criterion: &C,
    leaf_fitter: &F,
    params: &GrowParams,
    rng: &mut Rng,
    randomness: TreeRandomness,
) -> Tree<F::Leaf> {
    grow_tree_searching(x, samples, weights, criterion, leaf_fitter, params, rng, randomness, &Exact)
}

/// [`grow_tree_with`] with a split search.
#[allow(clippy::too_many_arguments)]
pub(super) fn grow_tree_searching<C: SplitCriterion, F: LeafFitter, S: Search<C>>(
    x: &TrainingFeatures,
    mut samples: Vec<u32>,
    mut weights: Vec<f64>,
    criterion: &C,
    leaf_fitter: &F,
    params: &GrowParams,
    rng: &mut Rng,
    randomness: TreeRandomness,
    search: &S,
) -> Tree<F::Leaf> {
    let grower = Grower {
        x,
        search,
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
            grower.grow_in_stream(0, &mut samples, &mut weights, 0, None, S::Carry::default(), rng, &mut scratch, &mut tree);
            tree
        }
        TreeRandomness::PerNode => grower.grow_from_root(&mut samples, &mut weights, rng.next_u64(), search.presorts()),
    }
}

/// What a node turned out to be.
enum NodeOutcome<L, K> {
    Leaf(L),
    /// The split, the number of samples going left, the node's own model (for fitters that
    /// build on their parent's), and what each child receives from the split search.
    Split(SplitChoice, usize, Option<L>, (K, K)),
}

impl<C: SplitCriterion, F: LeafFitter, S: Search<C>> Grower<'_, C, F, S> {
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
        mut carry: S::Carry,
        rng: &mut Rng,
        scratch: &mut Scratch,
    ) -> NodeOutcome<F::Leaf, S::Carry> {
        let (x, params) = (self.x, self.params);
        // An interrupted fit ends its trees here: every node left becomes a leaf.
        let depth_limit = params.max_depth.unwrap_or(MAX_TREE_DEPTH).min(MAX_TREE_DEPTH);
        let at_limit = depth >= depth_limit || crate::interrupt::requested();
        let mut stats = None;
        let best = if at_limit || total_weight(weights) < params.min_weight_split {
            None
        } else {
            let node_stats = self.criterion.node_stats(samples, weights);
            if self.criterion.is_terminal(&node_stats) {
                None
            } else {
                let mut features = std::mem::take(&mut scratch.features);
                if features.len() != x.n_features() || self.reset_features {
                    features = (0..x.n_features()).collect();
                }
                let presorted = orders.as_deref().map(|o| (o, self.weight_of.as_slice()));
                let view = self.view(samples, weights, presorted, &node_stats);
                let split = self.search.find_split(&view, &mut carry, &mut features, scratch, rng);
                scratch.features = features;
                stats = Some(node_stats);
                split
            }
        };
        let (Some(choice), Some(stats)) = (best, stats) else {
            self.search.discard(carry, scratch);
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
        if orders.is_some() && scratch.goes_left.len() < x.n_rows {
            scratch.goes_left.resize(x.n_rows, false);
        }
        // The side test specialised per kind of split (one match per node, not one per sample).
        let mark = orders.is_some();
        let n_left = match choice {
            SplitChoice::Bins { feature, last_left, .. } => {
                // The codes' slice held in locals: the partition's stores cannot move it.
                let (codes, stride) = x.bins.as_ref().expect("binned features").all_codes();
                partition(samples, weights, mark, scratch, |s| codes[s * stride + feature] <= last_left)
            }
            _ => partition(samples, weights, mark, scratch, |s| choice.goes_left(x, s)),
        };
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
        // Children at the depth limit are leaves: they search nothing, so get nothing.
        let children = if depth + 1 >= depth_limit {
            self.search.discard(carry, scratch);
            Default::default()
        } else {
            self.search.split_carry(&self.view(samples, weights, None, &stats), carry, n_left, scratch)
        };
        NodeOutcome::Split(choice, n_left, model, children)
    }

    fn view<'v>(
        &'v self,
        samples: &'v [u32],
        weights: &'v [f64],
        presorted: Option<(&'v [u32], &'v [f64])>,
        stats: &'v C::NodeStats,
    ) -> NodeView<'v, C> {
        NodeView { x: self.x, samples, weights, presorted, criterion: self.criterion, stats, params: self.params }
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
        carry: S::Carry,
        rng: &mut Rng,
        scratch: &mut Scratch,
        tree: &mut Tree<F::Leaf>,
    ) {
        match self.decide(samples, weights, None, depth, parent, carry, rng, scratch) {
            NodeOutcome::Leaf(leaf) => {
                tree.nodes[node] = Node::Leaf { leaf: tree.leaves.len() as u32 };
                tree.leaves.push(leaf);
            }
            NodeOutcome::Split(choice, n_left, model, (left_carry, right_carry)) => {
                let left = tree.nodes.len();
                tree.nodes.push(Node::Leaf { leaf: 0 });
                tree.nodes.push(Node::Leaf { leaf: 0 });
                tree.nodes[node] = choice.node(left as u32);
                let (ls, rs) = samples.split_at_mut(n_left);
                let (lw, rw) = weights.split_at_mut(n_left);
                self.grow_in_stream(left, ls, lw, depth + 1, model.as_ref(), left_carry, rng, scratch, tree);
                self.grow_in_stream(left + 1, rs, rw, depth + 1, model.as_ref(), right_carry, rng, scratch, tree);
            }
        }
    }

    /// Per-node mode from the root, presorted (when asked and possible: every feature scored,
    /// each sample once) or sorting in every node; the tree is the same.
    pub(super) fn grow_from_root(mut self, samples: &mut [u32], weights: &mut [f64], seed: u64, presort: bool) -> Tree<F::Leaf> {
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
        self.grow_per_node(samples, weights, orders.as_deref_mut(), 0, None, S::Carry::default(), seed, &mut Scratch::default())
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
        carry: S::Carry,
        seed: u64,
        scratch: &mut Scratch,
    ) -> Tree<F::Leaf> {
        let mut rng = Rng::new(seed);
        match self.decide(samples, weights, orders.as_deref_mut(), depth, parent, carry, &mut rng, scratch) {
            NodeOutcome::Leaf(leaf) => Tree { nodes: vec![Node::Leaf { leaf: 0 }], leaves: vec![leaf] },
            NodeOutcome::Split(choice, n_left, model, (left_carry, right_carry)) => {
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
                        || {
                            let scratch = &mut Scratch::default();
                            self.grow_per_node(ls, lw, lo, depth + 1, model.as_ref(), left_carry, left_seed, scratch)
                        },
                        || {
                            let scratch = &mut Scratch::default();
                            self.grow_per_node(rs, rw, ro, depth + 1, model.as_ref(), right_carry, right_seed, scratch)
                        },
                    )
                } else {
                    let left = self.grow_per_node(ls, lw, lo, depth + 1, model.as_ref(), left_carry, left_seed, scratch);
                    (left, self.grow_per_node(rs, rw, ro, depth + 1, model.as_ref(), right_carry, right_seed, scratch))
                };
                join_subtrees(choice, left, right)
            }
        }
    }
}

/// Partitions a node's samples and weights stably, those `goes_left` sends left first; returns
/// how many go left. `mark`: also records each sample's side in `scratch.goes_left`.
#[inline]
/// Σ weights, in four running sums (one chain of additions costs its latency per sample); the
/// total is only compared with the least weight of a split.
fn total_weight(weights: &[f64]) -> f64 {
    let mut sums = [0.0; 4];
    let chunks = weights.chunks_exact(4);
    let rest: f64 = chunks.remainder().iter().sum();
    for c in chunks {
        sums.iter_mut().zip(c).for_each(|(s, &w)| *s += w);
    }
    (sums[0] + sums[1]) + (sums[2] + sums[3]) + rest
}

fn partition(
    samples: &mut [u32],
    weights: &mut [f64],
    mark: bool,
    scratch: &mut Scratch,
    goes_left: impl Fn(usize) -> bool,
) -> usize {
    if mark {
        partition_marking::<true>(samples, weights, scratch, goes_left)
    } else {
        partition_marking::<false>(samples, weights, scratch, goes_left)
    }
}

/// [`partition`] with the marking decided at compile time. The buffers are taken out of the
/// scratch as slices before the loop: through `&mut Vec`s the compiler reloaded their pointers
/// and lengths from memory on every sample.
#[inline]
fn partition_marking<const MARK: bool>(
    samples: &mut [u32],
    weights: &mut [f64],
    scratch: &mut Scratch,
    goes_left: impl Fn(usize) -> bool,
) -> usize {
    let n = samples.len();
    let Scratch { right_samples, right_weights, goes_left: marks, .. } = scratch;
    right_samples.resize(n, 0);
    right_weights.resize(n, 0.0);
    let (right_s, right_w, weights) = (&mut right_samples[..n], &mut right_weights[..n], &mut weights[..n]);
    let marks = &mut marks[..];
    let (mut n_left, mut n_right) = (0, 0);
    // Without branches on the side (which is as good as random): each sample is written to
    // both places and only its side's count advances (n_left <= k, so the left writes never
    // overtake the reads).
    for k in 0..n {
        let (s, w) = (samples[k], weights[k]);
        let left = goes_left(s as usize);
        if MARK {
            marks[s as usize] = left;
        }
        samples[n_left] = s;
        weights[n_left] = w;
        right_s[n_right] = s;
        right_w[n_right] = w;
        n_left += left as usize;
        n_right += !left as usize;
    }
    samples[n_left..].copy_from_slice(&right_s[..n_right]);
    weights[n_left..].copy_from_slice(&right_w[..n_right]);
    n_left
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

#[cfg(test)]
mod tests {
    use super::total_weight;

    /// The four running sums give the plain sum (exactly for whole weights, as bootstrap counts
    /// are), whatever the length's remainder modulo 4.
    #[test]
    fn total_weight_is_the_sum() {
        for n in 0..40usize {
            let weights: Vec<f64> = (0..n).map(|i| ((i * 7) % 5) as f64).collect();
            assert_eq!(total_weight(&weights), weights.iter().sum::<f64>(), "n = {n}");
            let fractional: Vec<f64> = (0..n).map(|i| 0.1 + i as f64 / 3.0).collect();
            let plain: f64 = fractional.iter().sum();
            assert!((total_weight(&fractional) - plain).abs() <= 1e-12 * plain.max(1.0), "n = {n}");
        }
    }
}
