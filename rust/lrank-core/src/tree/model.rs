//! A grown tree: binary nodes (numeric thresholds, nominal values) over leaf models, routing
//! of a row to its leaf (missing values routed as their fill value), and the structural checks
//! of a tree read from a model file.

use serde::{Deserialize, Serialize};

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

impl<L> Tree<L> {
    /// The leaf reached by `row`; missing values (NaN) are routed as `fill[feature]`.
    #[inline]
    pub fn leaf_for(&self, row: &[f64], fill: &[f64]) -> &L {
        &self.leaves[self.leaf_index_for(row, fill)]
    }

    /// The index (in `leaves`) of the leaf reached by `row`, as [`leaf_for`](Self::leaf_for).
    #[inline]
    pub fn leaf_index_for(&self, row: &[f64], fill: &[f64]) -> usize {
        route(&self.nodes, row, fill).1 as usize
    }

    pub fn n_leaves(&self) -> usize {
        self.leaves.len()
    }

    /// Number of splits on the longest root-to-leaf path.
    ///
    /// Computed from the last node back (children come after their parent), not by recursion:
    /// a forged model file may hold a chain thousands of nodes deep, or nodes shared by two
    /// parents, which a recursive walk would follow once per path.
    pub fn depth(&self) -> usize {
        depth_of(&self.nodes)
    }
}

/// The number of splits on the longest root-to-leaf path of `nodes` (see [`Tree::depth`]).
pub fn depth_of(nodes: &[Node]) -> usize {
    let mut depth = vec![0usize; nodes.len()];
    for i in (0..nodes.len()).rev() {
        if let Node::Split { left, right, .. } | Node::Category { left, right, .. } = nodes[i] {
            let child = |c: u32| depth.get(c as usize).copied().unwrap_or(0);
            depth[i] = 1 + child(left).max(child(right));
        }
    }
    depth.first().copied().unwrap_or(0)
}

/// The node (an index into `nodes`) and the leaf (an index into the leaves) that `row` reaches
/// from the root; missing values (NaN) are routed as `fill[feature]`. The links must point
/// forward, as in every tree that passed [`Tree::check`].
#[inline]
pub fn route(nodes: &[Node], row: &[f64], fill: &[f64]) -> (usize, u32) {
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
        node = match nodes[node] {
            Node::Leaf { leaf } => return (node, leaf),
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

impl<L> Tree<L> {
    /// Structural check of a tree read from a model file: every link points forward (children
    /// after their parent, so no cycles) and in range, every feature exists, and `leaf` accepts
    /// every leaf model. The message says what is wrong.
    pub fn check(&self, n_features: usize, leaf: impl Fn(&L) -> Result<(), String>) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("a tree has no nodes".into());
        }
        // Each node but the root has one parent: a shared child would make a tree whose nodes
        // some walks count twice and others never reach.
        let mut parent = vec![u32::MAX; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            match *node {
                Node::Leaf { leaf } => {
                    if leaf as usize >= self.leaves.len() {
                        return Err(format!("node {i} points to leaf {leaf} of {}", self.leaves.len()));
                    }
                }
                Node::Split { feature, left, right, .. } | Node::Category { feature, left, right, .. } => {
                    if feature as usize >= n_features {
                        return Err(format!("node {i} splits feature {feature} of {n_features}"));
                    }
                    for child in [left, right] {
                        if child as usize <= i || child as usize >= self.nodes.len() {
                            return Err(format!("node {i} has child {child} (must lie in {}..{})", i + 1, self.nodes.len()));
                        }
                        if parent[child as usize] != u32::MAX {
                            return Err(format!("node {child} is a child of nodes {} and {i}", parent[child as usize]));
                        }
                        parent[child as usize] = i as u32;
                    }
                }
            }
        }
        if let Some(orphan) = (1..self.nodes.len()).find(|&c| parent[c] == u32::MAX) {
            return Err(format!("node {orphan} is no node's child"));
        }
        self.leaves.iter().try_for_each(leaf)
    }
}
