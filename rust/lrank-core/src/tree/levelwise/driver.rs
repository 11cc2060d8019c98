//! The driver's side: the trees as far as grown, each round's plan, the decisions.

use super::parts::{node_len, LevelPlan, PlanNode};
use super::rows::graft;
use super::{SummedLeaf, BIN_HEAD, HEAD};
use crate::data::features::FeatureKind;
use crate::rng::{child_seed, Rng};
use crate::tree::additive::AdditiveCriterion;
use crate::tree::bins::BinLayout;
use crate::tree::ensemble::{forest_root_seed, ForestSampling};
use crate::tree::histogram::score_binned_feature;
use crate::tree::model::{Node, Tree};
use crate::tree::params::{GrowParams, MAX_TREE_DEPTH};
use crate::tree::split::{draw_and_score, SplitChoice};
use rayon::prelude::*;
use std::sync::Arc;

/// A node of a tree being grown on the driver.
pub(super) enum Grown<L> {
    Split {
        choice: SplitChoice,
        bin: u8,
        category: bool,
        left: u32,
        right: u32,
    },
    Leaf(Option<L>),
    /// Not decided yet: its depth, its random stream's seed, how its sums come, which of the
    /// criterion's statistics its histograms hold (those its parent had; `None`: all), and its
    /// samples (at most; all rows for a root).
    Open {
        depth: usize,
        seed: u64,
        sums: Sums,
        entries: Option<Arc<Vec<u32>>>,
        samples: f64,
    },
}

/// How an open node's sums come: the parts sum its rows (the root; the smaller child of a split,
/// whose sibling then comes by subtraction), or they are its parent's minus its sibling's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Sums {
    Measured { sibling: Option<u32>, parent: u32 },
    Derived,
}

/// The driver of a levelwise forest: the trees so far, the plan of each round, the decisions.
pub struct LevelGrower<C: AdditiveCriterion, L: SummedLeaf> {
    criterion: C,
    leaf: L,
    layout: BinLayout,
    kinds: Vec<FeatureKind>,
    params: GrowParams,
    sampling: ForestSampling,
    n_rows: usize,
    stride: usize,
    trees: Vec<Vec<Grown<L::Leaf>>>,
    /// Histogram numbers one round may ask for (at least one node's are asked).
    budget: usize,
    /// The open nodes the last plan asked for: (tree, node, offset, with histograms).
    asked: Vec<(usize, usize, usize, bool)>,
    asked_len: usize,
    /// The nodes the last plan asked the rows of, by slot: (tree, node).
    asked_rows: Vec<(usize, usize)>,
    /// Nodes of at most this many samples come as rows, and the driver grows their subtrees.
    rows_limit: f64,
    /// The sums of split nodes whose larger child comes by subtraction, by (tree, node).
    kept: std::collections::HashMap<(usize, u32), Vec<f64>>,
}

/// A node decided in a round: which, what it became, and when it split, its sums in its
/// children's layout and that layout's statistics.
type Decided<L> = (usize, usize, Grown<L>, Option<(Vec<f64>, Option<Arc<Vec<u32>>>)>);

impl<C: AdditiveCriterion, L: SummedLeaf> LevelGrower<C, L> {
    /// A forest of `sampling.n_trees` trees on `n_rows` rows. `criterion` and `leaf` need not
    /// hold rows (only their scores and models from sums are used); `budget` bounds the histogram
    /// numbers of a round.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        criterion: C,
        leaf: L,
        layout: BinLayout,
        kinds: Vec<FeatureKind>,
        params: GrowParams,
        sampling: ForestSampling,
        n_rows: usize,
        budget: usize,
    ) -> crate::Result<Self> {
        if let Some(f) = (0..layout.n_features()).find(|&f| layout.n_bins(f) == 0) {
            return Err(crate::LrankError::InvalidInput(format!(
                "feature {f} is not binned (a nominal feature with more categories than bins): grown level by level, \
                 every feature must be"
            )));
        }
        if !sampling.node_seeds {
            return Err(crate::LrankError::InvalidInput("a forest grown level by level draws per-node seeds".into()));
        }
        let stride = BIN_HEAD + criterion.n_stats();
        let root = |t| Grown::Open {
            depth: 0,
            seed: forest_root_seed(sampling, t, n_rows),
            sums: Sums::Measured { sibling: None, parent: 0 },
            entries: None,
            samples: n_rows as f64,
        };
        // A row record costs about its codes and leaf statistics; a node's histograms cost its
        // bins: a node is sent as rows when they cost at most its histograms.
        let record = 3 + layout.n_features() + leaf.n_leaf_stats();
        let rows_limit = (layout.total_bins() * stride / record) as f64;
        let trees = (0..sampling.n_trees).map(|t| vec![root(t)]).collect();
        Ok(LevelGrower {
            criterion,
            leaf,
            layout,
            kinds,
            params,
            sampling,
            n_rows,
            stride,
            trees,
            budget,
            asked: Vec::new(),
            asked_len: 0,
            asked_rows: Vec::new(),
            rows_limit,
            kept: Default::default(),
        })
    }

    /// Sends nodes of at most `samples` samples as rows (0: never), instead of the default (as
    /// many as cost a node's histograms); tests use it to cover both ways.
    pub fn set_rows_limit(&mut self, samples: usize) {
        self.rows_limit = samples as f64;
    }

    /// Trees with no open node left.
    pub fn trees_grown(&self) -> usize {
        self.trees.iter().filter(|nodes| !nodes.iter().any(|n| matches!(n, Grown::Open { .. }))).count()
    }

    pub(super) fn asked_rows(&self) -> &[(usize, usize)] {
        &self.asked_rows
    }
    pub(super) fn layout(&self) -> &BinLayout {
        &self.layout
    }
    pub(super) fn leaf(&self) -> &L {
        &self.leaf
    }
    pub(super) fn criterion(&self) -> &C {
        &self.criterion
    }
    pub(super) fn kinds(&self) -> &[FeatureKind] {
        &self.kinds
    }
    pub(super) fn params(&self) -> &GrowParams {
        &self.params
    }
    pub(super) fn trees(&self) -> &[Vec<Grown<L::Leaf>>] {
        &self.trees
    }
    /// The criterion's statistics per sample.
    pub(super) fn n_stats(&self) -> usize {
        self.stride - BIN_HEAD
    }

    pub(super) fn at_limit(&self, depth: usize) -> bool {
        depth >= self.params.max_depth.unwrap_or(MAX_TREE_DEPTH).min(MAX_TREE_DEPTH)
    }

    /// The next round's plan, or `None` when every tree is grown.
    pub fn plan(&mut self) -> Option<LevelPlan> {
        let leaf_stats = self.leaf.n_leaf_stats();
        let record = 3 + self.layout.n_features() + leaf_stats;
        self.asked.clear();
        self.asked_rows.clear();
        let (mut len, mut hist_numbers) = (0usize, 0usize);
        let mut trees = Vec::new();
        for (t, nodes) in self.trees.iter().enumerate() {
            let mut plan_nodes = Vec::with_capacity(nodes.len());
            let mut any = false;
            for (k, node) in nodes.iter().enumerate() {
                plan_nodes.push(match *node {
                    Grown::Split { bin, category, left, right, ref choice } => {
                        PlanNode::Split { feature: choice_feature(choice) as u32, bin, category, left, right }
                    }
                    Grown::Leaf(_) => PlanNode::Elsewhere,
                    Grown::Open { sums: Sums::Derived, .. } => PlanNode::Elsewhere,
                    Grown::Open { depth, sums: Sums::Measured { sibling: None, .. }, samples, .. }
                        if samples <= self.rows_limit && !self.at_limit(depth) =>
                    {
                        let numbers = samples as usize * record;
                        if hist_numbers > 0 && hist_numbers + numbers > self.budget {
                            PlanNode::Elsewhere
                        } else {
                            hist_numbers += numbers;
                            any = true;
                            self.asked_rows.push((t, k));
                            PlanNode::Rows { slot: self.asked_rows.len() as u32 - 1 }
                        }
                    }
                    Grown::Open { depth, ref entries, .. } => {
                        let cells = self.cells(entries);
                        let histograms = !self.at_limit(depth);
                        let fits = hist_numbers == 0 || !histograms || hist_numbers + cells <= self.budget;
                        if !fits {
                            PlanNode::Elsewhere
                        } else {
                            if histograms {
                                hist_numbers += cells;
                            }
                            self.asked.push((t, k, len, histograms));
                            let at = len;
                            len += node_len(leaf_stats, cells, histograms);
                            any = true;
                            let entries = entries.as_ref().map(|e| e.to_vec());
                            PlanNode::Open { offset: at as u64, histograms, entries }
                        }
                    }
                });
            }
            if any {
                trees.push((t as u32, plan_nodes));
            }
        }
        if trees.is_empty() {
            return None;
        }
        self.asked_len = len;
        Some(LevelPlan {
            n_rows: self.n_rows as u64,
            sampling: self.sampling,
            trees,
            leaf_stats,
            n_stats: self.stride - BIN_HEAD,
            total_bins: self.layout.total_bins(),
            len: len as u64,
            row_slots: self.asked_rows.len() as u64,
        })
    }

    /// Decides the nodes the last plan asked for, from every part's sums added together and
    /// every part's row records joined (in any order).
    pub fn absorb(&mut self, sums: &[f64], rows: &[f64]) -> crate::Result<()> {
        if sums.len() != self.asked_len {
            return Err(crate::LrankError::InvalidInput(format!(
                "the parts' sums have {} numbers, the round asked for {}",
                sums.len(),
                self.asked_len
            )));
        }
        if let Some(bad) = sums.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
            return Err(crate::LrankError::InvalidInput(format!(
                "the parts' sums hold {bad}: counts and votes are finite and never negative"
            )));
        }
        let subtrees = self.grow_rows(rows)?;
        let asked = std::mem::take(&mut self.asked);
        let k = self.leaf.n_leaf_stats();
        let decided: Vec<Vec<Decided<L::Leaf>>> = asked
            .par_iter()
            .map(|&(t, node, at, histograms)| {
                let Grown::Open { seed, sums: Sums::Measured { sibling, parent }, ref entries, .. } = self.trees[t][node] else {
                    unreachable!("asked nodes are open and measured")
                };
                let s = &sums[at..at + node_len(k, self.cells(entries), histograms)];
                let mut out = vec![self.decided(t, node, seed, s, histograms, entries.as_deref())];
                if let Some(j) = sibling {
                    // The larger sibling: its parent's sums minus these (whole numbers: exact).
                    let Grown::Open { seed, .. } = self.trees[t][j as usize] else { unreachable!("a derived node is open") };
                    let kept = &self.kept[&(t, parent)];
                    let derived: Vec<f64> = kept.iter().zip(s).map(|(p, c)| p - c).collect();
                    out.push(self.decided(t, j as usize, seed, &derived, histograms, entries.as_deref()));
                }
                out
            })
            .collect();
        for &(t, node, _, _) in &asked {
            if let Grown::Open { sums: Sums::Measured { sibling: Some(_), parent }, .. } = self.trees[t][node] {
                self.kept.remove(&(t, parent));
            }
        }
        for (t, node, outcome, kept) in decided.into_iter().flatten() {
            let Grown::Split { choice, bin, category, .. } = outcome else {
                self.trees[t][node] = outcome;
                continue;
            };
            let Grown::Open { depth, seed, .. } = self.trees[t][node] else { unreachable!("decided nodes were open") };
            let (sums, entries) = kept.expect("a split node's sums");
            let stride = BIN_HEAD + entries.as_ref().map_or(self.stride - BIN_HEAD, |e| e.len());
            let left = self.trees[t].len() as u32;
            // The child with fewer samples is measured, the other derived (the left one on a tie);
            // when either is small enough to come as rows, both are measured on their own.
            let n_left = self.left_samples(&choice, bin, category, &sums[HEAD + k..], stride);
            let n_right = sums[0] - n_left;
            let apart = n_left.min(n_right) <= self.rows_limit;
            let left_measured = n_left <= n_right;
            let (measured, derived) = if left_measured { (left, left + 1) } else { (left + 1, left) };
            let sums_of = |child: u32| {
                if apart {
                    Sums::Measured { sibling: None, parent: node as u32 }
                } else if child == measured {
                    Sums::Measured { sibling: Some(derived), parent: node as u32 }
                } else {
                    Sums::Derived
                }
            };
            let tree = &mut self.trees[t];
            tree[node] = Grown::Split { choice, bin, category, left, right: left + 1 };
            let open = |seed, sums, samples| Grown::Open { depth: depth + 1, seed, sums, entries: entries.clone(), samples };
            tree.push(open(child_seed(seed, 0), sums_of(left), n_left));
            tree.push(open(child_seed(seed, 1), sums_of(left + 1), n_right));
            if !apart {
                self.kept.insert((t, node as u32), sums);
            }
        }
        for ((t, node), subtree) in subtrees {
            graft(&mut self.trees[t], node, subtree);
        }
        Ok(())
    }

    /// Histogram numbers of a node whose histograms hold `entries` of the statistics.
    fn cells(&self, entries: &Option<Arc<Vec<u32>>>) -> usize {
        self.layout.total_bins() * entries.as_ref().map_or(self.stride, |e| BIN_HEAD + e.len())
    }

    /// [`Self::decide`] of a node whose sums `s` hold `entries` of the statistics; when it splits,
    /// also its sums with only the statistics it has (its children's layout), and those.
    fn decided(
        &self,
        t: usize,
        node: usize,
        seed: u64,
        s: &[f64],
        histograms: bool,
        entries: Option<&Vec<u32>>,
    ) -> Decided<L::Leaf> {
        let n_stats = self.stride - BIN_HEAD;
        let head = HEAD + self.leaf.n_leaf_stats();
        let stride = BIN_HEAD + entries.map_or(n_stats, Vec::len);
        let outcome = self.decide(seed, s, histograms, entries.map(Vec::as_slice));
        if !matches!(outcome, Grown::Split { .. }) {
            return (t, node, outcome, None);
        }
        if !self.criterion.sums_nonnegative() {
            return (t, node, outcome, Some((s.to_vec(), entries.map(|e| Arc::new(e.clone())))));
        }
        // The statistics the node has (its first feature's bins hold every sample).
        let mut present = vec![false; stride - BIN_HEAD];
        for cell in s[head..head + self.layout.n_bins(0) * stride].chunks_exact(stride) {
            cell[BIN_HEAD..].iter().zip(present.iter_mut()).for_each(|(&a, p)| *p |= a != 0.0);
        }
        let kept: Vec<usize> = (0..present.len()).filter(|&k| present[k]).collect();
        let mut compact = s[..head].to_vec();
        for cell in s[head..].chunks_exact(stride) {
            compact.extend_from_slice(&cell[..BIN_HEAD]);
            compact.extend(kept.iter().map(|&k| cell[BIN_HEAD + k]));
        }
        let children = Arc::new(kept.iter().map(|&k| entries.map_or(k as u32, |list| list[k])).collect());
        (t, node, outcome, Some((compact, Some(children))))
    }

    /// The samples of a node (its histograms `hist`, `stride` numbers per bin) a split sends left.
    fn left_samples(&self, choice: &SplitChoice, bin: u8, category: bool, hist: &[f64], stride: usize) -> f64 {
        let f = choice_feature(choice);
        let start = self.layout.offset(f) * stride;
        let count = |b: usize| hist[start + b * stride];
        if category {
            count(bin as usize)
        } else {
            (0..=bin as usize).map(count).sum()
        }
    }

    /// A node from its sums (histograms unless it is at the depth limit): a leaf, or a split
    /// (children not yet added: `left`, `right` 0).
    fn decide(&self, seed: u64, s: &[f64], histograms: bool, entries: Option<&[u32]>) -> Grown<L::Leaf> {
        let k = self.leaf.n_leaf_stats();
        let (weight, whole, leaf_sums) = (s[1], s[2] == 0.0, &s[HEAD..HEAD + k]);
        if !histograms || weight < self.params.min_weight_split || self.leaf.is_terminal(weight, leaf_sums) {
            return Grown::Leaf(Some(self.leaf.leaf_from_sums(weight, leaf_sums)));
        }
        // The histograms hold `entries` of the statistics (`stride` numbers per bin); a feature's
        // bins are given every statistic, as the criterion reads them, only when it is scored.
        let hist = &s[HEAD + k..];
        let stride = BIN_HEAD + entries.map_or(self.stride - BIN_HEAD, <[u32]>::len);
        let statistic = |j: usize| entries.map_or(j, |list| list[j] as usize);
        // The node's statistics: the sums over the bins of any one feature (every row is in one).
        let mut node_sums = vec![0.0; self.stride - BIN_HEAD];
        for cell in hist[..self.layout.n_bins(0) * stride].chunks_exact(stride) {
            cell[BIN_HEAD..].iter().enumerate().for_each(|(j, &c)| node_sums[statistic(j)] += c);
        }
        let mut expanded = Vec::new();
        self.decide_from(seed, (weight, whole, leaf_sums), &node_sums, |f, stats| {
            let start = self.layout.offset(f) * stride;
            let mut feature_hist = &hist[start..start + self.layout.n_bins(f) * stride];
            if entries.is_some() {
                expanded.clear();
                expanded.resize(self.layout.n_bins(f) * self.stride, 0.0);
                for (cell, out) in feature_hist.chunks_exact(stride).zip(expanded.chunks_exact_mut(self.stride)) {
                    out[..BIN_HEAD].copy_from_slice(&cell[..BIN_HEAD]);
                    cell[BIN_HEAD..].iter().enumerate().for_each(|(j, &a)| out[BIN_HEAD + statistic(j)] = a);
                }
                feature_hist = &expanded;
            }
            score_binned_feature(&self.layout, self.kinds[f], feature_hist, self.stride, f, &self.criterion, stats)
        })
    }

    /// A node from its weight, whether every weight is whole, its leaf and criterion statistics'
    /// sums, and a scorer of each feature drawn (as the histogram search scores it).
    pub(super) fn decide_from(
        &self,
        seed: u64,
        (weight, whole, leaf_sums): (f64, bool, &[f64]),
        node_sums: &[f64],
        mut score: impl FnMut(usize, &C::NodeStats) -> Option<Option<(f64, SplitChoice)>>,
    ) -> Grown<L::Leaf> {
        let leaf = || Grown::Leaf(Some(self.leaf.leaf_from_sums(weight, leaf_sums)));
        let Some(stats) = self.criterion.node_stats_from_sums(weight, whole, node_sums) else {
            return leaf();
        };
        if self.criterion.is_terminal(&stats) {
            return leaf();
        }
        let d = self.layout.n_features();
        let mut features: Vec<usize> = (0..d).collect();
        let mut rng = Rng::new(seed);
        let max_features = self.params.max_features.min(d);
        let choice = draw_and_score(&mut features, max_features, &mut rng, |f, _floor| score(f, &stats));
        match choice {
            None => leaf(),
            Some(choice) => {
                let (bin, category) = match choice {
                    SplitChoice::Bins { last_left, .. } => (last_left, false),
                    SplitChoice::Category { feature, value } => {
                        (self.layout.edges(feature).expect("a binned feature").code(value), true)
                    }
                    SplitChoice::Threshold { .. } => unreachable!("histograms split between bins"),
                };
                Grown::Split { choice, bin, category, left: 0, right: 0 }
            }
        }
    }

    /// The grown trees, their nodes numbered as the per-node search numbers them (a node, its
    /// left subtree, its right subtree; leaves in that order). Refused before every tree is grown.
    pub fn finish(self) -> crate::Result<Vec<Tree<L::Leaf>>> {
        let mut out = Vec::with_capacity(self.trees.len());
        for mut nodes in self.trees {
            if nodes.iter().any(|n| matches!(n, Grown::Open { .. })) {
                return Err(crate::LrankError::InvalidInput("the forest is not fully grown yet".into()));
            }
            let mut tree = Tree { nodes: Vec::with_capacity(nodes.len()), leaves: Vec::new() };
            emit(&mut nodes, 0, &mut tree);
            out.push(tree);
        }
        Ok(out)
    }
}

pub(super) fn choice_feature(choice: &SplitChoice) -> usize {
    match *choice {
        SplitChoice::Threshold { feature, .. } | SplitChoice::Category { feature, .. } | SplitChoice::Bins { feature, .. } => {
            feature
        }
    }
}

/// Appends node `k`'s subtree to `tree` in preorder; returns where it starts.
fn emit<L>(nodes: &mut [Grown<L>], k: usize, tree: &mut Tree<L>) -> u32 {
    let at = tree.nodes.len();
    tree.nodes.push(Node::Leaf { leaf: 0 });
    match &mut nodes[k] {
        Grown::Leaf(leaf) => {
            tree.nodes[at] = Node::Leaf { leaf: tree.leaves.len() as u32 };
            tree.leaves.push(leaf.take().expect("each leaf is emitted once"));
        }
        Grown::Split { choice, left, right, .. } => {
            let (choice, left, right) = (*choice, *left as usize, *right as usize);
            let l = emit(nodes, left, tree);
            let r = emit(nodes, right, tree);
            let mut node = choice.node(l);
            if let Node::Split { right, .. } | Node::Category { right, .. } = &mut node {
                *right = r;
            }
            tree.nodes[at] = node;
        }
        Grown::Open { .. } => unreachable!("finished trees have no open nodes"),
    }
    at as u32
}
