//! Split importances: how much each feature's splits, over all of a model's trees, reduce the
//! disagreement among the training rankings. It is scikit-learn's mean decrease in impurity with
//! one impurity for every learner, whatever criterion grew its trees (class entropies, label
//! variances, pair-order counts), so the numbers of two learners compare.
//!
//! A node's impurity sums, over the label pairs, the Gini impurity of the pair's relation
//! (before, tied, after) among the training rows that reach the node and rank both labels, by
//! weight: `n - sum(c^2) / n` for the relation weights `c` summing to `n`. A split's decrease is
//! its node's impurity minus its children's; Gini is concave, so no decrease is below 0. A
//! feature's importance is the sum of its splits' decreases (times the tree's weight), the
//! whole normalised to sum to 1, or all 0 when no split decreases anything.
//!
//! The rows are the whole training set, routed through every tree (missing values as the tree
//! routes them), not each tree's bootstrap sample as in scikit-learn: the models do not keep
//! which rows grew which tree.

use super::model::{route, Node, Tree};
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::RankMatrixView;
use crate::error::{invalid, Result};
use rayon::prelude::*;

/// One tree of a model, as its split importance needs it.
#[derive(Clone, Copy, Debug)]
pub struct SplitTree<'a> {
    pub nodes: &'a [Node],
    /// The values the tree routes missing features as.
    pub fill: &'a [f64],
    /// The one label pair the tree models (a pairwise learner's tree), else all pairs count.
    pub pair: Option<(usize, usize)>,
    /// The weight of the tree's decreases (a boosted member's vote).
    pub weight: f64,
}

impl<'a> SplitTree<'a> {
    /// A tree of weight 1 in which every label pair counts.
    pub fn whole<L>(tree: &'a Tree<L>, fill: &'a [f64]) -> Self {
        SplitTree { nodes: &tree.nodes, fill, pair: None, weight: 1.0 }
    }

    /// The tree's depth (splits on its longest root-to-leaf path) and its number of leaves.
    pub fn shape(&self) -> (usize, usize) {
        let leaves = self.nodes.iter().filter(|n| matches!(n, Node::Leaf { .. })).count();
        (super::model::depth_of(self.nodes), leaves)
    }

    /// The trees of a pairwise learner's classifier of labels `a` and `b`: that pair alone counts.
    pub fn of_pair<L>(a: u32, b: u32, trees: &'a [Tree<L>], fill: &'a [f64]) -> impl Iterator<Item = SplitTree<'a>> {
        trees.iter().map(move |t| SplitTree { pair: Some((a as usize, b as usize)), ..SplitTree::whole(t, fill) })
    }
}

/// The node each row of `x` reaches in each tree (rows x trees, row-major, node indices), as
/// scikit-learn's `apply` gives them: rows that share a tree's leaf get the same number.
pub fn leaf_nodes(trees: &[SplitTree<'_>], x: &FeatureMatrixView<'_>) -> Result<Vec<u32>> {
    let t = trees.len();
    let mut out: Vec<u32> = crate::memory::zeroed("each row's leaf in each tree", &[x.n_rows(), t])?;
    if t > 0 {
        out.par_chunks_mut(t).enumerate().for_each(|(i, dst)| {
            let row = x.row(i);
            dst.iter_mut().zip(trees).for_each(|(d, tree)| *d = route(tree.nodes, row, tree.fill).0 as u32);
        });
    }
    Ok(out)
}

/// Label pairs whose relation counts are held at once (bounds the memory per tree: nodes x
/// pairs x 3 weights).
const PAIRS_AT_ONCE: usize = 8;

/// Trees whose decreases are computed (in parallel) before they are summed.
const TREES_AT_ONCE: usize = 256;

/// Each feature's share of the impurity decrease of the splits of `trees` (see the module), on
/// the training rows `x`, `y` with row weights `weights`.
pub fn split_importances(
    trees: &[SplitTree<'_>],
    x: &FeatureMatrixView<'_>,
    y: &RankMatrixView<'_>,
    weights: &[f64],
) -> Result<Vec<f64>> {
    let (n, d, m) = (x.n_rows(), x.n_features(), y.n_labels());
    if y.n_rows() != n || weights.len() != n {
        return Err(invalid(format!("X has {n} rows, Y {} and the weights {}", y.n_rows(), weights.len())));
    }
    for tree in trees {
        if tree.fill.len() != d {
            return Err(invalid(format!("a tree fills {} features, X has {d}", tree.fill.len())));
        }
        if tree.pair.is_some_and(|(a, b)| a.max(b) >= m) {
            return Err(invalid(format!("a tree models a label pair beyond the {m} labels of Y")));
        }
        if tree.nodes.iter().any(|node| split_feature(node).is_some_and(|f| f >= d)) {
            return Err(invalid(format!("a tree splits a feature beyond the {d} of X")));
        }
    }
    // Summed in tree order, so the result does not depend on the thread count; a block of trees
    // at a time, so that a forest of many trees over many features holds few decrease vectors.
    let mut total = vec![0.0; d];
    for block in trees.chunks(TREES_AT_ONCE) {
        let per_tree: Vec<Vec<f64>> = block.par_iter().map(|tree| tree_decreases(tree, x, y, weights)).collect();
        for decreases in &per_tree {
            for (t, v) in total.iter_mut().zip(decreases) {
                *t += v;
            }
        }
    }
    let sum: f64 = total.iter().sum();
    if sum > 0.0 {
        total.iter_mut().for_each(|t| *t /= sum);
    }
    Ok(total)
}

fn split_feature(node: &Node) -> Option<usize> {
    match *node {
        Node::Split { feature, .. } | Node::Category { feature, .. } => Some(feature as usize),
        Node::Leaf { .. } => None,
    }
}

/// Weighted Gini impurity of relation weights `c`: `n - sum(c^2) / n`.
#[inline]
fn gini(c: &[f64]) -> f64 {
    let n = c[0] + c[1] + c[2];
    if n > 0.0 {
        n - (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) / n
    } else {
        0.0
    }
}

/// One tree's unnormalised decreases per feature.
fn tree_decreases(tree: &SplitTree<'_>, x: &FeatureMatrixView<'_>, y: &RankMatrixView<'_>, weights: &[f64]) -> Vec<f64> {
    let nodes = tree.nodes;
    let mut decreases = vec![0.0; x.n_features()];
    if nodes.len() < 2 {
        return decreases;
    }
    let ends: Vec<u32> = (0..x.n_rows()).map(|i| route(nodes, x.row(i), tree.fill).0 as u32).collect();
    let m = y.n_labels();
    let pairs: Vec<(usize, usize)> = match tree.pair {
        Some(pair) => vec![pair],
        None => (0..m).flat_map(|a| (a + 1..m).map(move |b| (a, b))).collect(),
    };
    let mut counts: Vec<f64> = Vec::new();
    for chunk in pairs.chunks(PAIRS_AT_ONCE) {
        let width = 3 * chunk.len();
        counts.clear();
        counts.resize(nodes.len() * width, 0.0);
        for (i, &end) in ends.iter().enumerate() {
            let w = weights[i];
            if w == 0.0 {
                continue;
            }
            let row = y.row(i);
            let at = end as usize * width;
            for (k, &(a, b)) in chunk.iter().enumerate() {
                let (pa, pb) = (row[a], row[b]);
                if pa != 0 && pb != 0 {
                    let relation = if pa < pb {
                        0
                    } else if pa == pb {
                        1
                    } else {
                        2
                    };
                    counts[at + 3 * k + relation] += w;
                }
            }
        }
        sum_up_splits(nodes, &mut counts, width, |feature, parent, l, r| {
            let decrease = (0..chunk.len()).fold(0.0, |acc, k| {
                let s = 3 * k..3 * k + 3;
                acc + (gini(&parent[s.clone()]) - gini(&l[s.clone()]) - gini(&r[s]))
            });
            // Rounding can leave a pure split a hair below zero.
            decreases[feature] += tree.weight * decrease.max(0.0);
        });
    }
    decreases
}

/// Fills in every split node's `width` numbers in `sums` as its children's sums (the leaves'
/// filled in by the caller), children first, and calls `split(feature, parent, left, right)` on
/// each split. Children come after their parent in a tree's nodes.
pub(crate) fn sum_up_splits(
    nodes: &[Node],
    sums: &mut [f64],
    width: usize,
    mut split: impl FnMut(usize, &[f64], &[f64], &[f64]),
) {
    for node in (0..nodes.len()).rev() {
        let (Node::Split { feature, left, right, .. } | Node::Category { feature, left, right, .. }) = nodes[node] else {
            continue;
        };
        let (head, tail) = sums.split_at_mut((node + 1) * width);
        let parent = &mut head[node * width..];
        let child = |c: u32| (c as usize - node - 1) * width;
        let (l, r) = (&tail[child(left)..child(left) + width], &tail[child(right)..child(right) + width]);
        parent.iter_mut().zip(l.iter().zip(r)).for_each(|(p, (a, b))| *p = a + b);
        split(feature as usize, parent, l, r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// A random tree over `d` features, nodes in creation order (children after parents).
    fn random_tree(rng: &mut Rng, d: usize, max_depth: usize) -> Vec<Node> {
        let mut nodes = vec![Node::Leaf { leaf: 0 }];
        let mut open = vec![(0usize, 0usize)];
        while let Some((at, depth)) = open.pop() {
            if depth == max_depth || rng.below(4) == 0 {
                continue;
            }
            let (left, right) = (nodes.len() as u32, nodes.len() as u32 + 1);
            let feature = rng.below(d) as u32;
            nodes[at] = if rng.below(3) == 0 {
                Node::Category { feature, value: rng.below(3) as f64, left, right }
            } else {
                Node::Split { feature, threshold: rng.uniform() * 3.0, left, right }
            };
            nodes.extend([Node::Leaf { leaf: 0 }, Node::Leaf { leaf: 0 }]);
            open.extend([(left as usize, depth + 1), (right as usize, depth + 1)]);
        }
        nodes
    }

    /// A random bucket order of `m` labels, some missing.
    fn random_ranking(rng: &mut Rng, m: usize) -> Vec<i32> {
        let buckets: Vec<usize> = (0..m).map(|_| rng.below(m + 1)).collect();
        let mut used: Vec<usize> = buckets.iter().copied().filter(|&b| b > 0).collect();
        used.sort_unstable();
        used.dedup();
        buckets.iter().map(|&b| used.iter().position(|&u| u == b).map_or(0, |p| p as i32 + 1)).collect()
    }

    /// The nodes a row visits, root to leaf.
    fn path(nodes: &[Node], row: &[f64], fill: &[f64]) -> Vec<usize> {
        let mut visited = vec![0];
        let end = route(nodes, row, fill).0;
        while *visited.last().unwrap() != end {
            let at = *visited.last().unwrap();
            let v = row_value(row, fill, at, nodes);
            let next = match nodes[at] {
                Node::Split { threshold, left, right, .. } => {
                    if v <= threshold {
                        left
                    } else {
                        right
                    }
                }
                Node::Category { value, left, right, .. } => {
                    if v == value {
                        left
                    } else {
                        right
                    }
                }
                Node::Leaf { .. } => unreachable!(),
            };
            visited.push(next as usize);
        }
        visited
    }

    fn row_value(row: &[f64], fill: &[f64], at: usize, nodes: &[Node]) -> f64 {
        let f = split_feature(&nodes[at]).unwrap();
        if row[f].is_nan() {
            fill[f]
        } else {
            row[f]
        }
    }

    /// The definition, node by node: each split's rows, each pair's relation weights counted
    /// from the rankings themselves.
    fn reference(tree: &SplitTree<'_>, x: &[f64], y: &[i32], w: &[f64], d: usize, m: usize) -> Vec<f64> {
        let n = w.len();
        let paths: Vec<Vec<usize>> = (0..n).map(|i| path(tree.nodes, &x[i * d..(i + 1) * d], tree.fill)).collect();
        let pairs: Vec<(usize, usize)> = match tree.pair {
            Some(p) => vec![p],
            None => (0..m).flat_map(|a| (a + 1..m).map(move |b| (a, b))).collect(),
        };
        let impurity = |node: usize| -> f64 {
            pairs
                .iter()
                .map(|&(a, b)| {
                    let mut c = [0.0; 3];
                    for i in (0..n).filter(|&i| paths[i].contains(&node)) {
                        let (pa, pb) = (y[i * m + a], y[i * m + b]);
                        if pa > 0 && pb > 0 {
                            c[if pa < pb {
                                0
                            } else if pa == pb {
                                1
                            } else {
                                2
                            }] += w[i];
                        }
                    }
                    let total: f64 = c.iter().sum();
                    if total > 0.0 {
                        c.iter().map(|v| v / total * (1.0 - v / total)).sum::<f64>() * total
                    } else {
                        0.0
                    }
                })
                .sum()
        };
        let mut out = vec![0.0; d];
        for (i, node) in tree.nodes.iter().enumerate() {
            if let Node::Split { feature, left, right, .. } | Node::Category { feature, left, right, .. } = *node {
                out[feature as usize] += tree.weight * (impurity(i) - impurity(left as usize) - impurity(right as usize));
            }
        }
        out
    }

    #[test]
    fn importances_follow_the_definition_on_random_trees() {
        let mut rng = Rng::new(3);
        for case in 0..60 {
            let (n, d, m) = (1 + rng.below(40), 1 + rng.below(4), 2 + rng.below(4));
            let x: Vec<f64> = (0..n * d).map(|_| if rng.below(10) == 0 { f64::NAN } else { rng.below(4) as f64 * 0.9 }).collect();
            let mut y: Vec<i32> = Vec::new();
            while y.len() < n * m {
                let row = random_ranking(&mut rng, m);
                if row.iter().any(|&p| p > 0) {
                    y.extend(row);
                }
            }
            let w: Vec<f64> = (0..n).map(|_| rng.below(3) as f64).collect();
            let fill: Vec<f64> = (0..d).map(|_| rng.below(3) as f64).collect();
            let shapes: Vec<Vec<Node>> = (0..3).map(|_| random_tree(&mut rng, d, 4)).collect();
            let pair = (case % 2 == 0).then(|| (0, 1 + rng.below(m - 1)));
            let trees: Vec<SplitTree<'_>> =
                shapes.iter().map(|nodes| SplitTree { nodes, fill: &fill, pair, weight: 0.5 + rng.uniform() }).collect();
            let (xv, yv) = (FeatureMatrixView::new(&x, n, d).unwrap(), RankMatrixView::new(&y, n, m).unwrap());
            let got = split_importances(&trees, &xv, &yv, &w).unwrap();
            let mut expect = vec![0.0; d];
            for tree in &trees {
                for (e, r) in expect.iter_mut().zip(reference(tree, &x, &y, &w, d, m)) {
                    assert!(r > -1e-9, "case {case}: a split increased the impurity: {r}");
                    *e += r;
                }
            }
            let sum: f64 = expect.iter().sum();
            for (g, e) in got.iter().zip(&expect) {
                let e = if sum > 0.0 { e / sum } else { 0.0 };
                assert!((g - e).abs() < 1e-9, "case {case}: {got:?} against {expect:?}");
            }
            assert!(sum <= 0.0 || (got.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn a_split_that_separates_two_rankings_takes_all_the_importance() {
        // Rows 0, 1 rank a > b, rows 2, 3 rank b > a; feature 1 separates them, feature 0 splits
        // each side again without changing anything.
        let x = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        let y = [1, 2, 1, 2, 2, 1, 2, 1];
        let nodes = [
            Node::Split { feature: 1, threshold: 0.5, left: 1, right: 2 },
            Node::Split { feature: 0, threshold: 0.5, left: 3, right: 4 },
            Node::Leaf { leaf: 0 },
            Node::Leaf { leaf: 1 },
            Node::Leaf { leaf: 2 },
        ];
        let tree = SplitTree { nodes: &nodes, fill: &[0.0, 0.0], pair: None, weight: 1.0 };
        let (xv, yv) = (FeatureMatrixView::new(&x, 4, 2).unwrap(), RankMatrixView::new(&y, 4, 2).unwrap());
        // Root: 2 before, 2 after: 4 - (4 + 4) / 4 = 2; children pure.
        assert_eq!(split_importances(&[tree], &xv, &yv, &[1.0; 4]).unwrap(), vec![0.0, 1.0]);
        let stump = [Node::Leaf { leaf: 0 }];
        let tree = SplitTree { nodes: &stump, ..tree };
        assert_eq!(split_importances(&[tree], &xv, &yv, &[1.0; 4]).unwrap(), vec![0.0, 0.0]);
    }

    #[test]
    fn mismatched_inputs_are_refused() {
        let (x, y) = ([0.0, 1.0], [1, 2, 2, 1]);
        let (xv, yv) = (FeatureMatrixView::new(&x, 2, 1).unwrap(), RankMatrixView::new(&y, 2, 2).unwrap());
        let nodes =
            [Node::Split { feature: 3, threshold: 0.5, left: 1, right: 2 }, Node::Leaf { leaf: 0 }, Node::Leaf { leaf: 1 }];
        let tree = SplitTree { nodes: &nodes, fill: &[0.0], pair: None, weight: 1.0 };
        assert!(split_importances(&[tree], &xv, &yv, &[1.0; 2]).is_err());
        let tree = SplitTree { fill: &[0.0, 0.0], ..tree };
        assert!(split_importances(&[tree], &xv, &yv, &[1.0; 2]).is_err());
        assert!(split_importances(&[], &xv, &yv, &[1.0; 3]).is_err());
    }
}
