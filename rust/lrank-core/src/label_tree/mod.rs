//! LRT: the label ranking tree of Cheng, Hühn & Hüllermeier (ICML 2009).
//!
//! Grown by the tree engine on all attributes (binary numeric splits, `x <= t` left). A split
//! maximises (|T+| θ+ + |T-| θ-) / |T|, θ being the Mallows spread of each side; a node is a
//! leaf when its rankings are all consistent (θ = ∞) or it holds fewer than 2m examples
//! (m = number of labels), or at `max_depth`. A node's model is the Mallows EM median
//! ([`crate::mallows::fit_mallows`]) estimated on the labels present in the node; labels absent
//! from a node are inserted optimally (Proposition 1) into its parent's completed ranking, so a
//! leaf lacking labels is completed from its predecessors up to the root.
//!
//! Split search (fast, O(m^2) per threshold): sweeping a sorted attribute, each side keeps its
//! generalized Borda votes and its pairwise-preference counts C[a][b] (weight of rankings that
//! put a before b). A side's centre is its Borda ranking (not the EM median), and its θ is the
//! MLE for the mean Kendall distance computed from the pairwise counts:
//! disc = Σ over pairs ordered a before b by the centre of C[b][a], obs = Σ over pairs of
//! C[a][b] + C[b][a], mean distance = (disc + 1/2) / (obs + 1) · m(m-1)/2. For complete
//! rankings and without the pseudo-pair this is exactly the mean Kendall distance to the Borda
//! centre; for incomplete rankings it is the pooled share of discordant observed pairs scaled to
//! m(m-1)/2 pairs (each ranking weighs by the pairs it contains). The pseudo-pair (half
//! discordant) keeps θ finite for tiny pure sides, which would otherwise score infinity and
//! always win; its pull vanishes as sides grow.

use crate::aggregation::BordaAccumulator;
use crate::error::{invalid, Result};
use crate::features::{fill_values, filled, FeatureMatrixView};
use crate::training::checked_training_set;
use crate::mallows::{fit_mallows, optimal_insertion, theta_mle};
use crate::ranking::{n_present, ranking_from_scores, RankMatrixView};
use crate::rng::Rng;
use crate::tree::{grow_tree, GrowParams, LeafFitter, MaxFeatures, SortedSample, SplitCriterion, TrainingFeatures, Tree};
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
}

impl Default for LabelTreeParams {
    fn default() -> Self {
        LabelTreeParams { max_depth: None, min_weight_split: None, max_iter: 20, seed: 0 }
    }
}

/// A node's model: its completed Mallows centre and spread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MallowsLeaf {
    pub ranking: Vec<i32>,
    #[serde(with = "crate::model_io::nonfinite_f64")]
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

/// Split criterion: weighted mean of the two sides' Mallows spreads (see the module docs).
pub struct MallowsSpread {
    m: usize,
    /// Per sample, its generalized Borda votes (scaled to integers, as in the aggregation module).
    votes: Vec<Vec<f64>>,
    /// Per sample, its observed ordered pairs as `a * m + b` (a before b).
    pairs: Vec<Vec<u32>>,
}

impl MallowsSpread {
    pub fn new(y: &RankMatrixView<'_>) -> Self {
        let m = y.n_labels();
        let mut votes = Vec::with_capacity(y.n_rows());
        let mut pairs = Vec::with_capacity(y.n_rows());
        for row in y.rows() {
            let mut acc = BordaAccumulator::new(m);
            acc.add(row, 1.0);
            votes.push(acc.scores());
            let mut p = Vec::new();
            for a in 0..m {
                for b in 0..m {
                    if a != b && row[a] > 0 && row[b] > 0 && row[a] < row[b] {
                        p.push((a * m + b) as u32);
                    }
                }
            }
            pairs.push(p);
        }
        MallowsSpread { m, votes, pairs }
    }

    /// (θ, discordant weight) of a side from its Borda scores and pairwise counts.
    fn side_theta(&self, scores: &[f64], counts: &[f64], observed: f64) -> (f64, f64) {
        let m = self.m;
        let centre = ranking_from_scores(scores);
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by_key(|&j| centre[j]);
        let mut disc = 0.0;
        for i in 0..m {
            for j in (i + 1)..m {
                disc += counts[order[j] * m + order[i]];
            }
        }
        let pairs_total = (m * (m - 1) / 2) as f64;
        let mean = (disc + 0.5) / (observed + 1.0) * pairs_total;
        (theta_mle(mean, m), disc)
    }

    fn add(&self, sample: u32, w: f64, scores: &mut [f64], counts: &mut [f64], observed: &mut f64) {
        for (s, v) in scores.iter_mut().zip(&self.votes[sample as usize]) {
            *s += w * v;
        }
        for &p in &self.pairs[sample as usize] {
            counts[p as usize] += w;
        }
        *observed += w * self.pairs[sample as usize].len() as f64;
    }
}

impl SplitCriterion for MallowsSpread {
    fn is_terminal(&self, samples: &[u32], weights: &[f64]) -> bool {
        let m = self.m;
        let (mut scores, mut counts, mut observed) = (vec![0.0; m], vec![0.0; m * m], 0.0);
        for (&s, &w) in samples.iter().zip(weights) {
            self.add(s, w, &mut scores, &mut counts, &mut observed);
        }
        // Pure: no observed pair disagrees with the Borda centre (θ = ∞).
        self.side_theta(&scores, &counts, observed).1 == 0.0
    }

    fn best_boundary(&self, sorted: &[SortedSample]) -> Option<(usize, f64)> {
        let m = self.m;
        let (mut l_scores, mut l_counts, mut l_obs) = (vec![0.0; m], vec![0.0; m * m], 0.0);
        let (mut t_scores, mut t_counts, mut t_obs) = (vec![0.0; m], vec![0.0; m * m], 0.0);
        for s in sorted {
            self.add(s.sample, s.weight, &mut t_scores, &mut t_counts, &mut t_obs);
        }
        let total: f64 = sorted.iter().map(|s| s.weight).sum();
        let (mut r_scores, mut r_counts) = (vec![0.0; m], vec![0.0; m * m]);
        let mut w_left = 0.0;
        let mut best: Option<(usize, f64)> = None;
        for k in 1..sorted.len() {
            let moved = sorted[k - 1];
            self.add(moved.sample, moved.weight, &mut l_scores, &mut l_counts, &mut l_obs);
            w_left += moved.weight;
            if sorted[k].value == moved.value {
                continue;
            }
            for j in 0..m {
                r_scores[j] = t_scores[j] - l_scores[j];
            }
            for j in 0..m * m {
                r_counts[j] = t_counts[j] - l_counts[j];
            }
            let (theta_l, _) = self.side_theta(&l_scores, &l_counts, l_obs);
            let (theta_r, _) = self.side_theta(&r_scores, &r_counts, t_obs - l_obs);
            let score = (w_left * theta_l + (total - w_left) * theta_r) / total;
            if best.is_none_or(|(_, g)| score > g + 1e-12) {
                best = Some((k, score));
            }
        }
        best
    }
}

/// Node models: EM median on the labels present, missing ones inserted into the parent's ranking.
struct MallowsNodeFitter<'a> {
    y: &'a RankMatrixView<'a>,
    max_iter: usize,
}

impl LeafFitter for MallowsNodeFitter<'_> {
    type Leaf = MallowsLeaf;

    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> MallowsLeaf {
        self.fit_node(samples, weights, None)
    }

    fn uses_parent(&self) -> bool {
        true
    }

    fn fit_node(&self, samples: &[u32], weights: &[f64], parent: Option<&MallowsLeaf>) -> MallowsLeaf {
        let m = self.y.n_labels();
        let mut rows = Vec::with_capacity(samples.len() * m);
        let mut present = vec![false; m];
        for &s in samples {
            let row = self.y.row(s as usize);
            rows.extend_from_slice(row);
            row.iter().enumerate().filter(|(_, &r)| r > 0).for_each(|(j, _)| present[j] = true);
        }
        let view = RankMatrixView::new(&rows, samples.len(), m).expect("rows of a valid rank matrix");
        let weight: f64 = weights.iter().sum();
        let (centre, theta) = match fit_mallows(&view, Some(weights), self.max_iter) {
            Ok(fit) => (fit.centre, fit.theta),
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

impl LabelTreeModel {
    pub fn fit(
        x: &FeatureMatrixView<'_>,
        y: &RankMatrixView<'_>,
        sample_weight: Option<&[f64]>,
        params: LabelTreeParams,
    ) -> Result<Self> {
        let weights = checked_training_set(x, y, sample_weight)?;
        let (n, m) = (x.n_rows(), y.n_labels());
        let fill = fill_values(x);
        let owned;
        let xv = if x.has_missing() {
            owned = filled(x, &fill);
            FeatureMatrixView::new(&owned, n, x.n_features())?
        } else {
            *x
        };
        let features = TrainingFeatures::new(&xv);
        let grow = GrowParams {
            max_depth: params.max_depth,
            max_features: MaxFeatures::All.resolve(x.n_features()),
            min_weight_split: params.min_weight_split.unwrap_or(2.0 * m as f64),
        };
        let (samples, weights): (Vec<u32>, Vec<f64>) =
            (0..n as u32).zip(weights).filter(|&(_, w)| w > 0.0).unzip();
        let criterion = MallowsSpread::new(y);
        let fitter = MallowsNodeFitter { y, max_iter: params.max_iter };
        let tree = grow_tree(&features, samples, weights, &criterion, &fitter, &grow, &mut Rng::new(params.seed));
        Ok(LabelTreeModel { params, n_features: x.n_features(), n_labels: m, fill_values: fill, tree })
    }

    /// Predicted rank matrix (n x m, complete rankings) and each row's leaf spread θ.
    pub fn predict(&self, x: &FeatureMatrixView<'_>) -> Result<(Vec<i32>, Vec<f64>)> {
        if x.n_features() != self.n_features {
            return Err(invalid(format!(
                "X has {} features but the model was fitted on {}",
                x.n_features(),
                self.n_features
            )));
        }
        let mut ranks = Vec::with_capacity(x.n_rows() * self.n_labels);
        let mut theta = Vec::with_capacity(x.n_rows());
        for i in 0..x.n_rows() {
            let leaf = self.tree.leaf_for(x.row(i), &self.fill_values);
            ranks.extend_from_slice(&leaf.ranking);
            theta.push(leaf.theta);
        }
        Ok((ranks, theta))
    }
}

#[cfg(test)]
mod tests;
