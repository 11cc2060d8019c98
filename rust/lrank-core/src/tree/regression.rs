//! Multi-output regression trees of per-label targets (the labelwise learners): the split
//! criterion (decrease of the squared error summed over labels, each label over the rows that
//! have a target for it) and the node models (each label's mean target, the parent's where no
//! row has one).
//!
//! A split maximises the proxy Σ_j S_L²/W_L + S_R²/W_R (S and W a label's weighted target sum and
//! weight on a side); a node is terminal when every label's targets are equal within it.

use super::grow::LeafFitter;
use super::sweep::{sweep, Boundaries, BoundarySweep, SortedSample, SplitCriterion};
use crate::data::ranking::{has_ties, mid_ranks, n_present, RankMatrixView};
use serde::{Deserialize, Serialize};

/// A leaf's (or node's) predicted score per label.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreLeaf {
    pub scores: Vec<f64>,
}

/// Per-sample targets: score per label and whether the label is ranked.
pub struct Targets {
    pub(crate) m: usize,
    /// n x m scores (0 where missing).
    score: Vec<f64>,
    /// n x m: 1.0 where the label is ranked, else 0.0.
    present: Vec<f64>,
}

impl Targets {
    /// Targets given per row: `score` and `present` (1.0 where the label has a target), n x m.
    pub fn new(m: usize, score: Vec<f64>, present: Vec<f64>) -> Self {
        debug_assert_eq!(score.len(), present.len());
        Targets { m, score, present }
    }

    /// The relative positions of the labelwise learners: a ranking holding k labels gives the
    /// label at position r the score (r - 1/2) / k (the mid-rank for tied labels).
    pub fn relative_positions(y: &RankMatrixView<'_>) -> Self {
        let m = y.n_labels();
        let mut score = vec![0.0; y.n_rows() * m];
        let mut present = vec![0.0; y.n_rows() * m];
        for (i, row) in y.rows().enumerate() {
            let k = n_present(row) as f64;
            if has_ties(row) {
                for (j, r) in mid_ranks(row).into_iter().enumerate() {
                    if r > 0.0 {
                        score[i * m + j] = (r - 0.5) / k;
                        present[i * m + j] = 1.0;
                    }
                }
                continue;
            }
            for (j, &r) in row.iter().enumerate() {
                if r > 0 {
                    score[i * m + j] = (r as f64 - 0.5) / k;
                    present[i * m + j] = 1.0;
                }
            }
        }
        Targets { m, score, present }
    }

    pub fn row(&self, i: u32) -> (&[f64], &[f64]) {
        let i = i as usize;
        (&self.score[i * self.m..(i + 1) * self.m], &self.present[i * self.m..(i + 1) * self.m])
    }
}

/// Per-label weighted sums of a set of samples: weight W_j, target sum S_j and sum of squares.
#[derive(Clone, Debug)]
pub struct LabelSums {
    weight: Vec<f64>,
    sum: Vec<f64>,
    sum_sq: Vec<f64>,
    total: f64,
}

impl LabelSums {
    fn empty(m: usize) -> Self {
        LabelSums { weight: vec![0.0; m], sum: vec![0.0; m], sum_sq: vec![0.0; m], total: 0.0 }
    }

    #[inline]
    fn add(&mut self, score: &[f64], present: &[f64], w: f64) {
        for j in 0..score.len() {
            let pw = present[j] * w;
            self.weight[j] += pw;
            self.sum[j] += pw * score[j];
            self.sum_sq[j] += pw * score[j] * score[j];
        }
        self.total += w;
    }

    /// Σ_j S_j² / W_j (the part of the squared error a split can change).
    fn proxy(&self) -> f64 {
        self.sum.iter().zip(&self.weight).map(|(&s, &w)| if w > 0.0 { s * s / w } else { 0.0 }).sum()
    }

    fn squared_error(&self) -> f64 {
        (0..self.sum.len())
            .map(
                |j| {
                    if self.weight[j] > 0.0 {
                        (self.sum_sq[j] - self.sum[j] * self.sum[j] / self.weight[j]).max(0.0)
                    } else {
                        0.0
                    }
                },
            )
            .sum()
    }
}

/// Split criterion: decrease of the summed squared error over labels (module docs).
pub struct LabelwiseVariance<'a> {
    pub targets: &'a Targets,
    /// Least total weight on each side of a split.
    pub min_leaf: f64,
}

impl LabelwiseVariance<'_> {
    fn sums(&self, samples: impl Iterator<Item = (u32, f64)>) -> LabelSums {
        let mut sums = LabelSums::empty(self.targets.m);
        for (s, w) in samples {
            let (score, present) = self.targets.row(s);
            sums.add(score, present, w);
        }
        sums
    }
}

impl SplitCriterion for LabelwiseVariance<'_> {
    type NodeStats = LabelSums;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> LabelSums {
        self.sums(samples.iter().copied().zip(weights.iter().copied()))
    }

    fn is_terminal(&self, node: &LabelSums) -> bool {
        // Every label's targets equal within the node (up to rounding).
        node.squared_error() <= 1e-12 * node.total.max(1.0)
    }

    fn best_boundary(
        &self,
        node: &LabelSums,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
    ) -> Option<(usize, f64)> {
        let mut state = VarianceSweep { criterion: self, node, parent: node.proxy(), left: LabelSums::empty(self.targets.m) };
        sweep(&mut state, sorted, boundaries, floor)
    }
}

/// [`LabelwiseVariance`]'s split in progress: the left side's sums (the right's are the node's
/// minus those).
struct VarianceSweep<'a> {
    criterion: &'a LabelwiseVariance<'a>,
    node: &'a LabelSums,
    parent: f64,
    left: LabelSums,
}

impl BoundarySweep for VarianceSweep<'_> {
    const MARGIN: f64 = 1e-12;

    #[inline]
    fn move_left(&mut self, moved: &SortedSample) {
        let (score, present) = self.criterion.targets.row(moved.sample);
        self.left.add(score, present, moved.weight);
    }

    #[inline]
    fn score(&mut self, _to_beat: f64) -> Option<f64> {
        let (left, node, min_leaf) = (&self.left, self.node, self.criterion.min_leaf);
        let right_total = node.total - left.total;
        if !(left.total >= min_leaf && right_total >= min_leaf) {
            return None;
        }
        let mut gain = -self.parent;
        for j in 0..self.criterion.targets.m {
            let (wl, sl) = (left.weight[j], left.sum[j]);
            let (wr, sr) = (node.weight[j] - wl, node.sum[j] - sl);
            if wl > 0.0 {
                gain += sl * sl / wl;
            }
            if wr > 0.0 {
                gain += sr * sr / wr;
            }
        }
        Some(gain / node.total)
    }
}

/// Node models: each label's mean target, the parent's value where no row ranks the label.
pub struct MeanScores<'a> {
    pub targets: &'a Targets,
    /// The root's value for a label no row ranks.
    pub default: f64,
}

impl LeafFitter for MeanScores<'_> {
    type Leaf = ScoreLeaf;

    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> ScoreLeaf {
        self.fit_node(samples, weights, None)
    }

    fn uses_parent(&self) -> bool {
        true
    }

    fn fit_node(&self, samples: &[u32], weights: &[f64], parent: Option<&ScoreLeaf>) -> ScoreLeaf {
        let m = self.targets.m;
        let mut sums = LabelSums::empty(m);
        for (&s, &w) in samples.iter().zip(weights) {
            let (score, present) = self.targets.row(s);
            sums.add(score, present, w);
        }
        let scores =
            (0..m)
                .map(|j| {
                    if sums.weight[j] > 0.0 {
                        sums.sum[j] / sums.weight[j]
                    } else {
                        parent.map_or(self.default, |p| p.scores[j])
                    }
                })
                .collect();
        ScoreLeaf { scores }
    }
}
