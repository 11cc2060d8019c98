//! Growing several trees: a forest on bootstrap samples, or one plain tree; which of the two a
//! learner's parameters mean is decided here, in [`Growth::of`]. Additive criteria grow with
//! the histogram search when the features are binned (`grow_forest_additive`,
//! [`Growth::grow_additive`]); other criteria, and unbinned features, search exactly.

use super::additive::AdditiveCriterion;
use super::grow::{grow_tree_searching, LeafFitter, TreeRandomness};
use super::histogram::Histograms;
use super::layout::TrainingFeatures;
use super::model::Tree;
use super::params::{GrowParams, ThresholdRule};
use super::split::{Exact, Search};
use super::sweep::SplitCriterion;
use crate::rng::{child_seed, Rng};
use rayon::prelude::*;

/// How a forest draws each tree's training sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ForestSampling {
    pub n_trees: usize,
    pub seed: u64,
    /// A bootstrap sample of size n per tree (else every row once).
    pub bootstrap: bool,
    /// Each node draws from a stream of its own, derived from its parent's seed
    /// ([`TreeRandomness::PerNode`]), instead of one stream per tree: a tree then grows level by
    /// level to the same result, which the exact distributed forest does (`tree::levelwise`).
    pub node_seeds: bool,
    /// Trees `first_tree..n_trees` are grown (0: all): the later trees of a forest, to add to
    /// its first ones (each tree's stream depends on its index alone).
    pub first_tree: usize,
}

impl ForestSampling {
    pub fn randomness(&self) -> TreeRandomness {
        if self.node_seeds {
            TreeRandomness::PerNode
        } else {
            TreeRandomness::Stream
        }
    }
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
    forest_searching(x, rows, row_weights, sampling, criterion, leaf_fitter, params, &Exact)
}

/// [`grow_forest`] for an additive criterion: with the histogram search when `x` is binned.
#[allow(clippy::too_many_arguments)]
pub fn grow_forest_additive<C: AdditiveCriterion, F: LeafFitter>(
    x: &TrainingFeatures,
    rows: &[u32],
    row_weights: &[f64],
    sampling: ForestSampling,
    criterion: &C,
    leaf_fitter: &F,
    params: &GrowParams,
) -> Vec<Tree<F::Leaf>> {
    if searches_histograms(x, params) {
        let search = Histograms::new(x, criterion, params);
        forest_searching(x, rows, row_weights, sampling, criterion, leaf_fitter, params, &search)
    } else {
        forest_searching(x, rows, row_weights, sampling, criterion, leaf_fitter, params, &Exact)
    }
}

/// Binned features, and thresholds chosen by the criterion.
fn searches_histograms(x: &TrainingFeatures, params: &GrowParams) -> bool {
    x.bins.is_some() && params.threshold_rule == ThresholdRule::Best
}

#[allow(clippy::too_many_arguments)]
fn forest_searching<C: SplitCriterion, F: LeafFitter, S: Search<C>>(
    x: &TrainingFeatures,
    rows: &[u32],
    row_weights: &[f64],
    sampling: ForestSampling,
    criterion: &C,
    leaf_fitter: &F,
    params: &GrowParams,
    search: &S,
) -> Vec<Tree<F::Leaf>> {
    let n = rows.len();
    (sampling.first_tree.min(sampling.n_trees)..sampling.n_trees)
        .into_par_iter()
        .map(|t| {
            let mut rng = Rng::new(child_seed(sampling.seed, t as u64));
            if let (true, Some(&first)) = (crate::interrupt::requested(), rows.first()) {
                // Interrupted: the trees left are leaves of one row (the fit is discarded).
                return grow_tree_searching(
                    x,
                    vec![first],
                    vec![1.0],
                    criterion,
                    leaf_fitter,
                    params,
                    &mut rng,
                    sampling.randomness(),
                    search,
                );
            }
            let counts = draw_counts(&mut rng, n, sampling.bootstrap);
            let mut samples = Vec::with_capacity(n);
            let mut weights = Vec::with_capacity(n);
            for (k, &c) in counts.iter().enumerate() {
                let w = c * row_weights[k];
                if w > 0.0 {
                    samples.push(rows[k]);
                    weights.push(w);
                }
            }
            grow_tree_searching(x, samples, weights, criterion, leaf_fitter, params, &mut rng, sampling.randomness(), search)
        })
        .collect()
}

/// How often each of `n` rows is drawn: a bootstrap sample of size n from `rng`, or every row
/// once. Tree `t` of [`grow_forest`] draws its sample with this first from its stream.
fn draw_counts(rng: &mut Rng, n: usize, bootstrap: bool) -> Vec<f64> {
    draw_counts_in(rng, n, bootstrap, 0, n)
}

/// [`draw_counts`] of rows `start..end` only (the same draws).
fn draw_counts_in(rng: &mut Rng, n: usize, bootstrap: bool, start: usize, end: usize) -> Vec<f64> {
    let mut counts = vec![if bootstrap { 0.0 } else { 1.0 }; end - start];
    if bootstrap {
        for _ in 0..n {
            let i = rng.below(n);
            if (start..end).contains(&i) {
                counts[i - start] += 1.0;
            }
        }
    }
    counts
}

/// [`forest_sample_counts`] of rows `start..end` of the `n` (a part of the rows; the same
/// counts, without holding all of them).
pub fn forest_sample_counts_in(sampling: ForestSampling, t: usize, n: usize, start: usize, end: usize) -> Vec<f64> {
    draw_counts_in(&mut Rng::new(child_seed(sampling.seed, t as u64)), n, sampling.bootstrap, start, end)
}

/// The seed of tree `t`'s root in per-node mode ([`ForestSampling::node_seeds`]): its stream's
/// next number once its sample is drawn.
pub fn forest_root_seed(sampling: ForestSampling, t: usize, n: usize) -> u64 {
    let mut rng = Rng::new(child_seed(sampling.seed, t as u64));
    draw_counts_in(&mut rng, n, sampling.bootstrap, 0, 0);
    rng.next_u64()
}

/// The bootstrap counts tree `t` of a [`grow_forest`] with `sampling` drew for its `n` rows
/// (which rows it left out: its out-of-bag rows have count 0).
pub fn forest_sample_counts(sampling: ForestSampling, t: usize, n: usize) -> Vec<f64> {
    draw_counts(&mut Rng::new(child_seed(sampling.seed, t as u64)), n, sampling.bootstrap)
}

/// The row ids `0..n` (every training row of a forest).
pub fn all_rows(n: usize) -> Vec<u32> {
    (0..n as u32).collect()
}

/// How a learner's trees grow.
#[derive(Clone, Copy, Debug)]
pub enum Growth {
    /// Trees on samples drawn per tree (see [`grow_forest`]).
    Forest(ForestSampling),
    /// One tree on all rows, its nodes' random streams derived from `seed` (per-node mode: its
    /// subtrees grow in parallel).
    SingleTree { seed: u64 },
}

impl Growth {
    /// One tree without bootstrap is a plain tree; anything else a forest.
    pub fn of(n_trees: usize, bootstrap: bool, seed: u64) -> Self {
        if n_trees == 1 && !bootstrap {
            Growth::SingleTree { seed }
        } else {
            Growth::Forest(ForestSampling { n_trees, seed, bootstrap, node_seeds: false, first_tree: 0 })
        }
    }

    /// Whether the trees grow as a forest (each from its own stream), not as one plain tree.
    pub fn is_forest(&self) -> bool {
        matches!(self, Growth::Forest(_))
    }

    /// Only the trees from index `first` on (a single tree is grown whole).
    pub fn from_tree(self, first: usize) -> Self {
        match self {
            Growth::Forest(sampling) => Growth::Forest(ForestSampling { first_tree: first, ..sampling }),
            single => single,
        }
    }

    /// A forest's nodes draw from seeds of their own when `on` ([`ForestSampling::node_seeds`]);
    /// a single tree's always do.
    pub fn with_node_seeds(self, on: bool) -> Self {
        match self {
            Growth::Forest(sampling) => Growth::Forest(ForestSampling { node_seeds: on, ..sampling }),
            single => single,
        }
    }

    /// Grows the trees on `rows` with `row_weights` (rows of zero weight are left out), searching
    /// exactly.
    pub fn grow<C: SplitCriterion, F: LeafFitter>(
        self,
        x: &TrainingFeatures,
        rows: &[u32],
        row_weights: &[f64],
        criterion: &C,
        leaf_fitter: &F,
        params: &GrowParams,
    ) -> Vec<Tree<F::Leaf>> {
        self.grow_searching(x, rows, row_weights, criterion, leaf_fitter, params, &Exact)
    }

    /// [`Growth::grow`] for an additive criterion: with the histogram search when `x` is binned.
    pub fn grow_additive<C: AdditiveCriterion, F: LeafFitter>(
        self,
        x: &TrainingFeatures,
        rows: &[u32],
        row_weights: &[f64],
        criterion: &C,
        leaf_fitter: &F,
        params: &GrowParams,
    ) -> Vec<Tree<F::Leaf>> {
        if searches_histograms(x, params) {
            let search = Histograms::new(x, criterion, params);
            self.grow_searching(x, rows, row_weights, criterion, leaf_fitter, params, &search)
        } else {
            self.grow_searching(x, rows, row_weights, criterion, leaf_fitter, params, &Exact)
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn grow_searching<C: SplitCriterion, F: LeafFitter, S: Search<C>>(
        self,
        x: &TrainingFeatures,
        rows: &[u32],
        row_weights: &[f64],
        criterion: &C,
        leaf_fitter: &F,
        params: &GrowParams,
        search: &S,
    ) -> Vec<Tree<F::Leaf>> {
        match self {
            Growth::Forest(sampling) => forest_searching(x, rows, row_weights, sampling, criterion, leaf_fitter, params, search),
            Growth::SingleTree { seed } => {
                let (samples, weights): (Vec<u32>, Vec<f64>) =
                    rows.iter().copied().zip(row_weights.iter().copied()).filter(|&(_, w)| w > 0.0).unzip();
                let mut rng = Rng::new(seed);
                let randomness = TreeRandomness::PerNode;
                vec![grow_tree_searching(x, samples, weights, criterion, leaf_fitter, params, &mut rng, randomness, search)]
            }
        }
    }
}
