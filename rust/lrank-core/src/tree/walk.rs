//! Routing many rows through a tree at once, for prediction. A [`FlatTree`] is a tree's nodes
//! as steps without branches: a split's row goes to `children[goes_right]`, a leaf leads to
//! itself, so every row takes exactly `depth` steps. Rows are walked [`LANES`] at a time, one
//! level per step for all of them: their paths are independent, so the processor overlaps their
//! node loads and comparisons, and no comparison is a branch to mispredict. Same leaves as
//! [`Tree::leaf_index_for`].

use std::borrow::Cow;
use std::sync::OnceLock;

use super::model::{Node, Tree};
use crate::data::features::FeatureMatrixView;

/// Rows walked together.
pub const LANES: usize = 8;

#[derive(Clone, Copy, Debug)]
struct Step {
    threshold: f64,
    feature: u32,
    /// 1: a nominal split (`x == threshold` goes left); 0: numeric (`x <= threshold`).
    nominal: u32,
    children: [u32; 2],
}

/// A tree laid out for [`FlatTree::leaf_indices`].
#[derive(Clone, Debug)]
pub struct FlatTree {
    steps: Vec<Step>,
    /// For each node, the leaf it is (unused for splits).
    leaf_of: Vec<u32>,
    depth: usize,
}

impl FlatTree {
    pub fn new<L>(tree: &Tree<L>) -> FlatTree {
        let mut steps = Vec::with_capacity(tree.nodes.len());
        let mut leaf_of = vec![0u32; tree.nodes.len()];
        for (i, node) in tree.nodes.iter().enumerate() {
            steps.push(match *node {
                Node::Leaf { leaf } => {
                    leaf_of[i] = leaf;
                    Step { threshold: f64::INFINITY, feature: 0, nominal: 0, children: [i as u32; 2] }
                }
                Node::Split { feature, threshold, left, right } => {
                    Step { threshold, feature, nominal: 0, children: [left, right] }
                }
                Node::Category { feature, value, left, right } => {
                    Step { threshold: value, feature, nominal: 1, children: [left, right] }
                }
            });
        }
        FlatTree { steps, leaf_of, depth: tree.depth() }
    }

    /// The leaf index of each row of `block` (row-major, `d` values a row, no missing value:
    /// see [`filled_rows`]) into `out`.
    pub fn leaf_indices(&self, block: &[f64], d: usize, out: &mut [u32]) {
        debug_assert_eq!(block.len(), out.len() * d);
        for (rows, leaves) in block.chunks(LANES * d).zip(out.chunks_mut(LANES)) {
            let k = leaves.len();
            let base: [usize; LANES] = std::array::from_fn(|l| l.min(k - 1) * d);
            let mut at = [0u32; LANES];
            for _ in 0..self.depth {
                // All lanes, also past a short chunk's end (they repeat its last row; their
                // results are dropped): a fixed count lets the loop unroll.
                for l in 0..LANES {
                    let step = &self.steps[at[l] as usize];
                    let v = rows[base[l] + step.feature as usize];
                    let left = if step.nominal == 1 { v == step.threshold } else { v <= step.threshold };
                    at[l] = step.children[usize::from(!left)];
                }
            }
            for (leaf, &node) in leaves.iter_mut().zip(&at) {
                *leaf = self.leaf_of[node as usize];
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
    leaves: Vec<u32>,
}

impl BlockRows {
    /// Takes rows `rows` of `x`, missing values replaced by `fill`.
    pub fn load(&mut self, x: &FeatureMatrixView<'_>, rows: std::ops::Range<usize>, fill: &[f64]) {
        self.n_features = x.n_features();
        self.leaves.resize(rows.len(), 0);
        filled_rows(x, rows, fill, &mut self.features);
    }

    /// Each row's leaf (its index in the tree's leaves) in `tree`.
    pub fn leaves_in(&mut self, tree: &FlatTree) -> &[u32] {
        tree.leaf_indices(&self.features, self.n_features, &mut self.leaves);
        &self.leaves
    }
}

/// A forest's flat trees, made on its first prediction and kept with the model (not saved: a
/// model file holds the trees alone). Made anew when the trees no longer match (a merge adds
/// trees), so it never routes by trees the model does not have.
#[derive(Default)]
pub struct FlatTrees(OnceLock<(Vec<usize>, Vec<FlatTree>)>);

impl FlatTrees {
    /// The flat trees of `trees`: the kept ones when they were made from trees of the same
    /// sizes, else made now.
    pub fn of<'a, 't, L: 't>(&'a self, trees: impl Iterator<Item = &'t Tree<L>> + Clone) -> Cow<'a, [FlatTree]> {
        let sizes = || trees.clone().map(|t| t.nodes.len()).collect::<Vec<_>>();
        let (kept_sizes, flat) = self.0.get_or_init(|| (sizes(), trees.clone().map(FlatTree::new).collect()));
        if *kept_sizes == sizes() {
            Cow::Borrowed(flat)
        } else {
            Cow::Owned(trees.clone().map(FlatTree::new).collect())
        }
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
            FlatTree::new(&tree).leaf_indices(&block, d, &mut leaves);
            for (k, &leaf) in leaves.iter().enumerate() {
                assert_eq!(leaf as usize, tree.leaf_index_for(view.row(start + k), &fill), "case {case}, row {}", start + k);
            }
        }
    }

    #[test]
    fn kept_flat_trees_are_made_anew_when_the_trees_change() {
        let mut rng = Rng::new(3);
        let mut trees: Vec<Tree<()>> = (0..3).map(|_| random_tree(&mut rng, 2, 4)).collect();
        let kept = FlatTrees::default();
        assert!(matches!(kept.of(trees.iter()), Cow::Borrowed(f) if f.len() == 3));
        trees.push(random_tree(&mut rng, 2, 4));
        assert!(matches!(kept.of(trees.iter()), Cow::Owned(f) if f.len() == 4));
        assert!(matches!(kept.clone().of(trees.iter()), Cow::Borrowed(f) if f.len() == 4));
        assert_eq!(kept, FlatTrees::default());
    }
}
