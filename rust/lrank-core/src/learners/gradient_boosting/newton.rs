//! One boosting round's tree: a multi-output regression tree fitted by Newton steps to the
//! per-label gradients g and Hessian diagonals h of the loss (second-order boosting).
//!
//! A node's statistics are, per label, G_j = Σ w g_j and H_j = Σ w h_j over its samples (an
//! additive criterion, so the histogram search applies). Its best constant step is
//! -G_j / (H_j + λ) per label, which lowers the loss's second-order approximation by
//! G_j² / (2 (H_j + λ)); a split scores the sum over labels of G²/(H + λ) of its two sides minus
//! the node's (the gain, up to the factor 1/2). λ is the L2 penalty on leaf values.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::tree::{
    additive_best_boundary, AdditiveCriterion, Boundaries, LeafFitter, ScoreLeaf, SidesTask, SortedSample, SplitCriterion,
    SplitSides,
};

/// The gradients and Hessian diagonals of one round: per row its m gradients, then its m
/// Hessian entries (0 for labels a row does not rank), the order of a node's sums.
#[derive(Clone, Copy)]
pub(super) struct Gradients<'a> {
    pub gh: &'a [f64],
    pub m: usize,
}

impl Gradients<'_> {
    /// Row `i`'s gradients and Hessian entries, together.
    #[inline]
    fn both(&self, i: u32) -> &[f64] {
        let at = i as usize * 2 * self.m;
        &self.gh[at..at + 2 * self.m]
    }

    #[inline]
    fn row(&self, i: u32) -> (&[f64], &[f64]) {
        self.both(i).split_at(self.m)
    }

    /// Σ w g_j, then Σ w h_j (2m numbers), and Σ w over `samples`, summed in sample order.
    fn weighted_sums(&self, samples: &[u32], weights: &[f64]) -> (Vec<f64>, f64) {
        match self.m {
            1 => self.weighted_sums_fixed::<2>(samples, weights),
            2 => self.weighted_sums_fixed::<4>(samples, weights),
            3 => self.weighted_sums_fixed::<6>(samples, weights),
            4 => self.weighted_sums_fixed::<8>(samples, weights),
            _ => {
                let (mut sums, mut total) = (vec![0.0; 2 * self.m], 0.0);
                for (&s, &w) in samples.iter().zip(weights) {
                    sums.iter_mut().zip(self.both(s)).for_each(|(a, &v)| *a += w * v);
                    total += w;
                }
                (sums, total)
            }
        }
    }

    /// [`weighted_sums`](Self::weighted_sums) with the sums in a fixed-size array (registers,
    /// not memory, between samples); `S == 2m`.
    fn weighted_sums_fixed<const S: usize>(&self, samples: &[u32], weights: &[f64]) -> (Vec<f64>, f64) {
        let (mut sums, mut total) = ([0.0; S], 0.0);
        for (&s, &w) in samples.iter().zip(weights) {
            let row: &[f64; S] = self.both(s).try_into().expect("2m numbers");
            sums.iter_mut().zip(row).for_each(|(a, &v)| *a += w * v);
            total += w;
        }
        (sums.to_vec(), total)
    }
}

/// Split criterion of a boosting round's tree.
pub(super) struct NewtonCriterion<'a> {
    pub grads: Gradients<'a>,
    /// L2 penalty on leaf values (λ).
    pub l2: f64,
    /// Least total sample weight on each side of a split.
    pub min_leaf: f64,
    /// See [`min_curvature`].
    pub min_curvature: f64,
}

/// Without L2 (λ = 0), a label's H at or below this (a thousandth of an average training row's
/// weight) gives no step and no gain: a leaf whose rows the model already ranks surely has H
/// near 0, and its Newton step -G/H overflowed the scores (a leaf of one row: scores 7e287,
/// losses NaN). With λ > 0 it is 0, so that no model with a penalty changes, whatever the
/// weights' scale.
pub(super) fn min_curvature(row_weight: f64, l2: f64) -> f64 {
    if l2 == 0.0 {
        1e-3 * row_weight
    } else {
        0.0
    }
}

/// A node's G (m), then H (m); its total weight and Σ_j G_j²/(H_j + λ).
pub(super) struct NewtonNode {
    sums: Vec<f64>,
    total: f64,
    score: f64,
}

/// Gains below this are no split: a node whose gradients already cancel is left a leaf.
const MIN_GAIN: f64 = 1e-12;

impl NewtonCriterion<'_> {
    #[inline]
    fn term(&self, g: f64, h: f64) -> f64 {
        let d = h + self.l2;
        if d > self.min_curvature {
            g * g / d
        } else {
            0.0
        }
    }

    fn node_score(&self, sums: &[f64]) -> f64 {
        let m = self.grads.m;
        (0..m).map(|j| self.term(sums[j], sums[m + j])).sum()
    }
}

impl SplitCriterion for NewtonCriterion<'_> {
    type NodeStats = NewtonNode;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> NewtonNode {
        let (sums, total) = self.grads.weighted_sums(samples, weights);
        let score = self.node_score(&sums);
        NewtonNode { sums, total, score }
    }

    /// Never by its sums alone: gradients that cancel in a node (G = 0) may not cancel in its
    /// children. A node without a split of positive gain stays a leaf (see `score`).
    fn is_terminal(&self, _node: &NewtonNode) -> bool {
        false
    }

    fn best_boundary(
        &self,
        node: &NewtonNode,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
    ) -> Option<(usize, f64)> {
        additive_best_boundary(self, node, sorted, boundaries, floor)
    }
}

impl AdditiveCriterion for NewtonCriterion<'_> {
    fn n_stats(&self) -> usize {
        2 * self.grads.m
    }

    #[inline]
    fn sample_stats(&self, sample: u32, weight: f64, out: &mut Vec<(u32, f64)>) {
        let m = self.grads.m;
        let (g, h) = self.grads.row(sample);
        for j in 0..m {
            if g[j] != 0.0 || h[j] != 0.0 {
                out.push((j as u32, weight * g[j]));
                out.push(((m + j) as u32, weight * h[j]));
            }
        }
    }

    /// Every label has a gradient and a Hessian entry (0 for a label the row leaves out).
    #[inline]
    fn dense_sample_stats(&self, sample: u32, weight: f64, out: &mut [f64]) -> bool {
        out.iter_mut().zip(self.grads.both(sample)).for_each(|(o, &v)| *o = weight * v);
        true
    }

    fn with_sides<T: SidesTask>(&self, node: &NewtonNode, task: T) -> T::Output {
        LEFT.with(|cell| {
            let mut left = cell.borrow_mut();
            left.clear();
            left.resize(2 * self.grads.m, 0.0);
            task.run(&mut NewtonSides { criterion: self, node, left: &mut left, w_left: 0.0 })
        })
    }
}

thread_local! {
    /// The left side's sums of a split in progress (one per thread: no allocation per node and
    /// feature scored).
    static LEFT: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A split in progress: the left side's G and H (the right's are the node's minus those).
struct NewtonSides<'a> {
    criterion: &'a NewtonCriterion<'a>,
    node: &'a NewtonNode,
    left: &'a mut [f64],
    w_left: f64,
}

impl SplitSides for NewtonSides<'_> {
    #[inline]
    fn move_sample(&mut self, sample: u32, weight: f64) {
        self.left.iter_mut().zip(self.criterion.grads.both(sample)).for_each(|(l, &v)| *l += weight * v);
        self.w_left += weight;
    }

    #[inline]
    fn move_sums(&mut self, weight: f64, stats: &[f64]) {
        self.left.iter_mut().zip(stats).for_each(|(l, &a)| *l += a);
        self.w_left += weight;
    }

    #[inline]
    fn score(&self) -> Option<f64> {
        let (c, node) = (self.criterion, self.node);
        let right_total = node.total - self.w_left;
        if !(self.w_left >= c.min_leaf && right_total >= c.min_leaf && self.w_left > 0.0 && right_total > 0.0) {
            return None;
        }
        let m = c.grads.m;
        let mut gain = -node.score;
        for j in 0..m {
            let (gl, hl) = (self.left[j], self.left[m + j]);
            gain += c.term(gl, hl) + c.term(node.sums[j] - gl, node.sums[m + j] - hl);
        }
        (gain > MIN_GAIN).then_some(gain)
    }
}

/// Leaf values: the Newton step -G_j/(H_j + λ) per label, times the learning rate. Each leaf
/// also records its values for the samples that reach it (in `record`, from `offset`: sample s's
/// value j at `offset + s m + j`), so that the rows a tree was grown on take their new scores
/// without walking it.
pub(super) struct NewtonLeaves<'a> {
    pub grads: Gradients<'a>,
    pub l2: f64,
    pub learning_rate: f64,
    /// See [`min_curvature`].
    pub min_curvature: f64,
    pub record: &'a LeafValues,
    pub offset: usize,
}

/// The leaf values of a round's samples, written by the leaves as they are fitted (in parallel,
/// each sample's by the one leaf it reaches).
pub(super) struct LeafValues(Vec<AtomicU64>);

impl LeafValues {
    pub fn new(len: usize) -> Self {
        LeafValues((0..len).map(|_| AtomicU64::new(0)).collect())
    }

    #[inline]
    pub fn get(&self, at: usize) -> f64 {
        f64::from_bits(self.0[at].load(Ordering::Relaxed))
    }

    #[inline]
    fn set(&self, at: usize, value: f64) {
        self.0[at].store(value.to_bits(), Ordering::Relaxed);
    }
}

impl LeafFitter for NewtonLeaves<'_> {
    type Leaf = ScoreLeaf;

    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> ScoreLeaf {
        let m = self.grads.m;
        let (sums, _) = self.grads.weighted_sums(samples, weights);
        let (g_sum, h_sum) = sums.split_at(m);
        let scores = (0..m)
            .map(|j| {
                let d = h_sum[j] + self.l2;
                if d > self.min_curvature {
                    -self.learning_rate * g_sum[j] / d
                } else {
                    0.0
                }
            })
            .collect::<Vec<f64>>();
        for &s in samples {
            let at = self.offset + s as usize * m;
            scores.iter().enumerate().for_each(|(j, &v)| self.record.set(at + j, v));
        }
        ScoreLeaf { scores }
    }
}
