//! Routing many rows through a tree at once, for prediction. A [`FlatTree`] is a tree's nodes
//! in breadth-first order, a split's children side by side, as 16-byte steps without branches:
//! a row goes to `left + goes_right`; a leaf leads back to itself, so every row takes exactly
//! `depth` steps. Rows are walked [`LANES`] at a time, one level per step for all of them: their
//! paths are independent, so the processor overlaps their node loads and comparisons, and no
//! comparison is a branch to mispredict. Same leaves as [`Tree::leaf_index_for`].

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::model::{Node, Tree};
use crate::data::features::FeatureMatrixView;

/// Rows walked together.
pub const LANES: usize = 8;

/// The most nodes a forest's flat trees are kept for (256 MB of steps); a larger forest is
/// walked node by node, as it was grown, rather than held twice in memory.
pub const MAX_FLAT_NODES: usize = 1 << 24;

/// In `Step::feature`: a nominal split (`x == threshold` goes left) or a leaf.
const NOMINAL: u32 = 1 << 31;
/// A leaf's threshold: a quiet NaN whose low bits hold the leaf's index. A leaf compares as
/// nominal, and nothing equals NaN, so its rows go "right", to `left + 1`: itself.
const LEAF_NAN: u64 = 0x7FF8_0000_0000_0000;

#[derive(Clone, Copy, Debug)]
struct Step {
    threshold: f64,
    feature: u32,
    /// The left child; the right child is the next step. A leaf's own index minus one.
    left: u32,
}

/// A tree laid out for [`FlatTree::leaf_indices`].
#[derive(Clone, Debug)]
pub struct FlatTree {
    steps: Vec<Step>,
    depth: usize,
    /// Stop a chunk's walk once all its rows are in leaves (see [`FlatTree::new`]).
    early_exit: bool,
}

impl FlatTree {
    /// The flat tree of `tree`, or `None` for a tree whose nodes are shared by several parents
    /// (only a forged model file has one; laying it out could take exponentially many steps).
    pub fn new<L>(tree: &Tree<L>) -> Option<FlatTree> {
        let n = tree.nodes.len();
        // Breadth-first: `order[k]` is the node at step k; a split's children are queued
        // together, so they get consecutive steps.
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut depth_of: Vec<u32> = Vec::with_capacity(n);
        let mut steps = Vec::with_capacity(n);
        if n > 0 {
            order.push(0);
            depth_of.push(0);
        }
        let mut k = 0;
        while k < order.len() {
            let me = k as u32;
            let depth = depth_of[k];
            steps.push(match tree.nodes[order[k] as usize] {
                Node::Leaf { leaf } => {
                    Step { threshold: f64::from_bits(LEAF_NAN | u64::from(leaf)), feature: NOMINAL, left: me.wrapping_sub(1) }
                }
                Node::Split { feature, threshold, left, right } | Node::Category { feature, value: threshold, left, right } => {
                    if order.len() + 2 > n {
                        return None; // more steps than nodes: some node has two parents
                    }
                    let nominal = if matches!(tree.nodes[order[k] as usize], Node::Category { .. }) { NOMINAL } else { 0 };
                    let first = order.len() as u32;
                    order.extend([left, right]);
                    depth_of.extend([depth + 1, depth + 1]);
                    Step { threshold, feature: feature | nominal, left: first }
                }
            });
            k += 1;
        }
        let depth = depth_of.iter().max().map_or(0, |&d| d as usize);
        // A fully grown tree is unbalanced: most rows reach a leaf long before the deepest one,
        // and checking after each level whether all of a chunk's rows have pays (LWRF on
        // calhousing 1.27x faster); a depth-limited tree's leaves lie near its depth, and the
        // check only costs (LR-RF of depth 8, GBLR: 10% slower with it).
        let (leaf_depths, n_leaves) = order
            .iter()
            .zip(&depth_of)
            .filter(|(&node, _)| matches!(tree.nodes[node as usize], Node::Leaf { .. }))
            .fold((0usize, 0usize), |(sum, count), (_, &d)| (sum + d as usize, count + 1));
        let early_exit = 4 * leaf_depths < 3 * depth * n_leaves.max(1);
        Some(FlatTree { steps, depth, early_exit })
    }

    /// Number of steps (the nodes reachable from the root).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The leaf index of each row of `block` (row-major, `d` values a row, no missing value:
    /// see [`filled_rows`]) into `out`.
    pub fn leaf_indices(&self, block: &[f64], d: usize, out: &mut [u32]) {
        if self.early_exit {
            self.walk::<true>(block, d, out)
        } else {
            self.walk::<false>(block, d, out)
        }
    }

    /// [`Self::leaf_indices`], stopping a chunk once its rows are all in leaves when `EARLY`.
    fn walk<const EARLY: bool>(&self, block: &[f64], d: usize, out: &mut [u32]) {
        debug_assert_eq!(block.len(), out.len() * d);
        for (rows, leaves) in block.chunks(LANES * d).zip(out.chunks_mut(LANES)) {
            let k = leaves.len();
            let base: [usize; LANES] = std::array::from_fn(|l| l.min(k - 1) * d);
            let mut at = [0u32; LANES];
            for _ in 0..self.depth {
                // All lanes, also past a short chunk's end (they repeat its last row; their
                // results are dropped): a fixed count lets the loop unroll.
                let mut moved = false;
                for l in 0..LANES {
                    let step = &self.steps[at[l] as usize];
                    let v = rows[base[l] + (step.feature & !NOMINAL) as usize];
                    let left = if step.feature & NOMINAL != 0 { v == step.threshold } else { v <= step.threshold };
                    let next = step.left.wrapping_add(u32::from(!left));
                    moved |= next != at[l];
                    at[l] = next;
                }
                // A leaf leads to itself and a split never does: no lane moved, all in leaves.
                if EARLY && !moved {
                    break;
                }
            }
            for (leaf, &step) in leaves.iter_mut().zip(&at) {
                *leaf = self.steps[step as usize].threshold.to_bits() as u32;
            }
        }
    }
}

/// Rows `rows` of `x`, row-major, missing values (NaN) replaced by `fill` as routing does.
pub fn filled_rows(x: &FeatureMatrixView<'_>, rows: std::ops::Range<usize>, fill: &[f64], out: &mut Vec<f64>) {
    out.clear();
    for i in rows {
        out.extend(x.row(i).iter().zip(fill).map(|(&v, &f)| if v.is_nan() { f } else { v }));
    }
}

/// A prediction block's rows (missing values filled) and their leaves in the tree last walked:
/// what an ensemble keeps per block to route its rows through tree after tree.
#[derive(Default)]
pub struct BlockRows {
    features: Vec<f64>,
    n_features: usize,
    fill: Vec<f64>,
    leaves: Vec<u32>,
}

impl BlockRows {
    /// Takes rows `rows` of `x`, missing values replaced by `fill`.
    pub fn load(&mut self, x: &FeatureMatrixView<'_>, rows: std::ops::Range<usize>, fill: &[f64]) {
        self.n_features = x.n_features();
        self.leaves.resize(rows.len(), 0);
        self.fill.clear();
        self.fill.extend_from_slice(fill);
        filled_rows(x, rows, fill, &mut self.features);
    }

    /// Each row's leaf (its index in the tree's leaves) in `tree`, through its flat tree when
    /// it has one.
    pub fn leaves_in<L>(&mut self, tree: &Tree<L>, flat: Option<&FlatTree>) -> &[u32] {
        match flat {
            Some(flat) => flat.leaf_indices(&self.features, self.n_features, &mut self.leaves),
            None => {
                let rows = self.features.chunks_exact(self.n_features.max(1));
                for (leaf, row) in self.leaves.iter_mut().zip(rows) {
                    *leaf = tree.leaf_index_for(row, &self.fill) as u32;
                }
            }
        }
        &self.leaves
    }
}

/// A prediction block's leaves in every tree of a forest (trees x rows, tree after tree): what an
/// ensemble keeps per block when it combines its trees row by row (a consensus, a spread).
#[derive(Default)]
pub struct ForestLeaves {
    rows: BlockRows,
    leaves: Vec<u32>,
}

impl ForestLeaves {
    /// Routes rows `rows` of `x` (missing values as `fill`) through `trees`, each through its flat
    /// tree when `flat` has one; leaf of tree t for the block's row i at `t * rows.len() + i`.
    pub fn walk<'t, L: 't>(
        &mut self,
        x: &FeatureMatrixView<'_>,
        rows: std::ops::Range<usize>,
        fill: &[f64],
        trees: impl Iterator<Item = &'t Tree<L>>,
        flat: &[Option<FlatTree>],
    ) -> &[u32] {
        self.rows.load(x, rows, fill);
        self.leaves.clear();
        for (tree, flat) in trees.zip(flat) {
            self.leaves.extend_from_slice(self.rows.leaves_in(tree, flat.as_ref()));
        }
        &self.leaves
    }
}

/// A forest's flat trees, made once the forest has predicted enough rows to repay them and kept
/// with the model (not saved: a model file holds the trees alone). Made anew when the trees no
/// longer match (a merge adds trees), so it never routes by trees the model does not have; none
/// for a forest of more than [`MAX_FLAT_NODES`] nodes.
#[derive(Default)]
pub struct FlatTrees {
    kept: OnceLock<(Vec<usize>, Vec<Option<FlatTree>>)>,
    /// Rows predicted node by node so far.
    rows_seen: AtomicUsize,
}

impl FlatTrees {
    /// The flat tree of each of `trees` for a prediction of `n_rows` rows (`None`: walk that
    /// tree node by node): the kept ones when they were made from trees of the same sizes. They
    /// are made (and kept) once the rows predicted reach half the average tree's nodes: making a
    /// tree's steps costs what walking 0.6 rows a node through it saves (LWRF on calhousing), so
    /// a fully grown forest predicting one small test fold walks its nodes, while LR-RF's shallow
    /// trees are laid out from the first 256 rows.
    pub fn of<'a, 't, L: 't>(
        &'a self,
        trees: impl Iterator<Item = &'t Tree<L>> + Clone,
        n_rows: usize,
    ) -> Cow<'a, [Option<FlatTree>]> {
        self.of_at_most(trees, n_rows, MAX_FLAT_NODES)
    }

    fn of_at_most<'a, 't, L: 't>(
        &'a self,
        trees: impl Iterator<Item = &'t Tree<L>> + Clone,
        n_rows: usize,
        max_nodes: usize,
    ) -> Cow<'a, [Option<FlatTree>]> {
        let none = || Cow::Owned(trees.clone().map(|_| None).collect());
        if let Some((kept_sizes, flat)) = self.kept.get() {
            // Compared in place: every predict asks, a forest may have thousands of trees.
            let same = trees.clone().map(|t| t.nodes.len()).eq(kept_sizes.iter().copied());
            return if same { Cow::Borrowed(flat) } else { none() };
        }
        let sizes: Vec<usize> = trees.clone().map(|t| t.nodes.len()).collect();
        let total: usize = sizes.iter().sum();
        let seen = self.rows_seen.fetch_add(n_rows, Ordering::Relaxed).saturating_add(n_rows);
        if total > max_nodes || seen.saturating_mul(2) < total / sizes.len().max(1) {
            return none();
        }
        let (_, flat) = self.kept.get_or_init(|| (sizes, trees.clone().map(FlatTree::new).collect()));
        Cow::Borrowed(flat)
    }
}

impl Clone for FlatTrees {
    /// A clone makes its own (it may be changed, as a merge changes its first model).
    fn clone(&self) -> Self {
        FlatTrees::default()
    }
}

impl PartialEq for FlatTrees {
    /// Derived from the trees, so never a difference between models.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for FlatTrees {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FlatTrees")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// A random tree over `d` features: numeric and nominal splits on a small grid of values (so
    /// rows often equal a threshold), depth up to `max_depth`, leaves numbered in order.
    fn random_tree(rng: &mut Rng, d: usize, max_depth: usize) -> Tree<()> {
        fn grow(rng: &mut Rng, d: usize, depth: usize, nodes: &mut Vec<Node>, n_leaves: &mut u32) -> u32 {
            let at = nodes.len() as u32;
            nodes.push(Node::Leaf { leaf: 0 });
            if depth == 0 || rng.below(4) == 0 {
                nodes[at as usize] = Node::Leaf { leaf: *n_leaves };
                *n_leaves += 1;
                return at;
            }
            let (feature, value) = (rng.below(d) as u32, rng.below(5) as f64);
            let left = grow(rng, d, depth - 1, nodes, n_leaves);
            let right = grow(rng, d, depth - 1, nodes, n_leaves);
            nodes[at as usize] = if rng.below(3) == 0 {
                Node::Category { feature, value, left, right }
            } else {
                Node::Split { feature, threshold: value + 0.5 * rng.below(2) as f64, left, right }
            };
            at
        }
        let (mut nodes, mut n_leaves) = (Vec::new(), 0);
        grow(rng, d, max_depth, &mut nodes, &mut n_leaves);
        Tree { nodes, leaves: vec![(); n_leaves as usize] }
    }

    #[test]
    fn flat_trees_route_every_row_to_the_leaf_the_tree_does() {
        let mut rng = Rng::new(7);
        for case in 0..300 {
            let (d, n) = (1 + rng.below(4), rng.below(30));
            let max_depth = rng.below(9);
            let tree = random_tree(&mut rng, d, max_depth);
            // Values on the grid, off it, and missing (NaN, routed as the fill value).
            let x: Vec<f64> = (0..n * d)
                .map(|_| match rng.below(6) {
                    0 => f64::NAN,
                    1 => rng.uniform() * 6.0 - 1.0,
                    _ => rng.below(6) as f64 * 0.5,
                })
                .collect();
            let fill: Vec<f64> = (0..d).map(|_| rng.below(5) as f64).collect();
            let view = FeatureMatrixView::new(&x, n, d).unwrap();
            let start = if n > 0 { rng.below(n) } else { 0 };
            let mut block = Vec::new();
            filled_rows(&view, start..n, &fill, &mut block);
            let mut leaves = vec![u32::MAX; n - start];
            let flat = FlatTree::new(&tree).expect("a tree");
            assert_eq!(flat.len(), tree.nodes.len());
            flat.leaf_indices(&block, d, &mut leaves);
            for (k, &leaf) in leaves.iter().enumerate() {
                assert_eq!(leaf as usize, tree.leaf_index_for(view.row(start + k), &fill), "case {case}, row {}", start + k);
            }
            // Both walks, whichever the tree chose: the same leaves.
            let (mut full, mut early) = (vec![u32::MAX; n - start], vec![u32::MAX; n - start]);
            flat.walk::<false>(&block, d, &mut full);
            flat.walk::<true>(&block, d, &mut early);
            assert_eq!((&full, &early), (&leaves, &leaves), "case {case}");
            // The node-by-node way of a block (a forest too large to keep flat trees for).
            let mut rows = BlockRows::default();
            rows.load(&view, start..n, &fill);
            assert_eq!(rows.leaves_in(&tree, None), &leaves[..], "case {case}");
        }
    }

    #[test]
    fn only_unbalanced_trees_stop_walking_early() {
        // A complete tree of depth 3 (leaves at its depth) and a chain (one leaf per level).
        let complete = |depth: u32| {
            let mut nodes = Vec::new();
            let inner = (1u32 << depth) - 1;
            for k in 0..inner {
                nodes.push(Node::Split { feature: 0, threshold: k as f64, left: 2 * k + 1, right: 2 * k + 2 });
            }
            (0..=inner).for_each(|leaf| nodes.push(Node::Leaf { leaf }));
            Tree { nodes, leaves: vec![(); 1 << depth] }
        };
        assert!(!FlatTree::new(&complete(3)).unwrap().early_exit);
        let mut nodes = Vec::new();
        for k in 0..10u32 {
            nodes.push(Node::Split { feature: 0, threshold: k as f64, left: 2 * k + 1, right: 2 * k + 2 });
            nodes.push(Node::Leaf { leaf: k });
        }
        nodes.push(Node::Leaf { leaf: 10 });
        let chain = Tree { nodes, leaves: vec![(); 11] };
        let flat = FlatTree::new(&chain).unwrap();
        assert!(flat.early_exit && flat.depth == 10);
        // A row leaving at the first split ends in leaf 0; one passing every split in leaf 10.
        let mut leaves = [0u32; 2];
        flat.leaf_indices(&[-1.0, 100.0], 1, &mut leaves);
        assert_eq!(leaves, [0, 10]);
    }

    #[test]
    fn kept_flat_trees_are_made_when_they_repay_and_never_for_other_trees() {
        let mut rng = Rng::new(3);
        let mut trees: Vec<Tree<()>> = (0..3).map(|_| random_tree(&mut rng, 2, 6)).collect();
        let average = trees.iter().map(|t| t.nodes.len()).sum::<usize>() / 3;
        let kept = FlatTrees::default();
        // Too few rows so far: node by node, nothing kept.
        let few = average / 8;
        assert!(kept.of(trees.iter(), few).iter().all(Option::is_none));
        assert!(kept.kept.get().is_none());
        // The rows add up: half the average tree's nodes makes and keeps them.
        assert!(
            matches!(kept.of(trees.iter(), average.div_ceil(2) - few), Cow::Borrowed(f) if f.len() == 3 && f.iter().all(Option::is_some))
        );
        assert!(matches!(kept.of(trees.iter(), 1), Cow::Borrowed(_)));
        // Other trees (a merge added one): not the kept ones.
        trees.push(random_tree(&mut rng, 2, 4));
        assert!(matches!(kept.of(trees.iter(), 1_000_000), Cow::Owned(f) if f.len() == 4 && f.iter().all(Option::is_none)));
        assert!(matches!(kept.clone().of(trees.iter(), 1_000_000), Cow::Borrowed(f) if f.len() == 4));
        assert_eq!(kept, FlatTrees::default());
        // Past the node budget, no flat trees: the forest is walked node by node.
        let total: usize = trees.iter().map(|t| t.nodes.len()).sum();
        assert!(FlatTrees::default().of_at_most(trees.iter(), 1_000_000, total).iter().all(Option::is_some));
        assert!(FlatTrees::default().of_at_most(trees.iter(), 1_000_000, total - 1).iter().all(Option::is_none));
    }

    #[test]
    fn a_node_with_two_parents_is_walked_node_by_node() {
        // A forged file's tree: both children of the root are node 1, both of node 1 node 2, ...
        // Laid out breadth first it would take 2^depth steps.
        let mut nodes: Vec<Node> =
            (0..40u32).map(|i| Node::Split { feature: 0, threshold: 0.5, left: i + 1, right: i + 1 }).collect();
        nodes.push(Node::Leaf { leaf: 0 });
        let tree = Tree { nodes, leaves: vec![()] };
        assert!(FlatTree::new(&tree).is_none());
        let kept = FlatTrees::default();
        assert!(kept.of(std::iter::once(&tree), 1_000_000)[0].is_none());
        let x = [0.2, 0.9];
        let mut rows = BlockRows::default();
        rows.load(&FeatureMatrixView::new(&x, 2, 1).unwrap(), 0..2, &[0.0]);
        assert_eq!(rows.leaves_in(&tree, None), &[0, 0]);
    }
}
