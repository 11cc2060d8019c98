//! The split search of one node: features visited in a random order, each sorted (or read
//! presorted) and handed to the criterion's sweep; nominal features one value against the rest;
//! fixed thresholds for the equal-width and equal-frequency rules. [`Search`] is what a tree's
//! growth asks of a split search; [`Exact`] is this one, the histogram search is in `histogram`.

use super::layout::{sort_keys, TrainingFeatures};
use super::model::Node;
use super::params::{GrowParams, ThresholdRule};
use super::sweep::{Boundaries, SortedSample, SplitCriterion};
use crate::data::features::FeatureKind;
use crate::discretisation;
use crate::numeric::midpoint;
use crate::rng::Rng;
use rayon::prelude::*;

/// A chosen split of a node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum SplitChoice {
    Threshold {
        feature: usize,
        threshold: f64,
    },
    Category {
        feature: usize,
        value: f64,
    },
    /// A split between bins: bins up to `last_left` go left. It is the threshold's split of the
    /// training rows (thresholds lie between bins), read from the one-byte codes.
    Bins {
        feature: usize,
        threshold: f64,
        last_left: u8,
    },
}

impl SplitChoice {
    pub(super) fn goes_left(&self, x: &TrainingFeatures, sample: usize) -> bool {
        match *self {
            SplitChoice::Threshold { feature, threshold } => x.value(sample, feature) <= threshold,
            SplitChoice::Category { feature, value } => x.value(sample, feature) == value,
            SplitChoice::Bins { feature, last_left, .. } => {
                x.bins.as_ref().expect("binned features").code(sample, feature) <= last_left
            }
        }
    }

    pub(super) fn node(&self, left: u32) -> Node {
        match *self {
            SplitChoice::Threshold { feature, threshold } | SplitChoice::Bins { feature, threshold, .. } => {
                Node::Split { feature: feature as u32, threshold, left, right: left + 1 }
            }
            SplitChoice::Category { feature, value } => Node::Category { feature: feature as u32, value, left, right: left + 1 },
        }
    }
}

/// Per-thread buffers of the split search and partitioning.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) keys: Vec<u64>,
    pub(super) radix: Vec<u64>,
    pub(super) sorted: Vec<SortedSample>,
    pub(super) reordered: Vec<SortedSample>,
    pub(super) right_samples: Vec<u32>,
    pub(super) right_weights: Vec<f64>,
    /// Presorted mode: which samples of the node go left (indexed by sample), and a copy of
    /// the node's orders while they are partitioned.
    pub(super) goes_left: Vec<bool>,
    pub(super) orders_copy: Vec<u32>,
    /// The feature permutation. Stream mode keeps it from node to node (the Fisher-Yates draws
    /// of a node start from the previous node's order); per-node mode resets it in every node.
    pub(super) features: Vec<usize>,
    /// Histogram search: one sample's statistics, and spare histogram buffers.
    pub(super) sample_stats: Vec<(u32, f64)>,
    pub(super) dense_stats: Vec<f64>,
    pub(super) spare_histograms: Vec<Vec<f64>>,
}

/// A node as its split search sees it.
pub(super) struct NodeView<'a, C: SplitCriterion> {
    pub(super) x: &'a TrainingFeatures,
    pub(super) samples: &'a [u32],
    pub(super) weights: &'a [f64],
    /// Presorted mode: every feature's order of the node's samples, and each sample's weight.
    pub(super) presorted: Option<(&'a [u32], &'a [f64])>,
    pub(super) criterion: &'a C,
    pub(super) stats: &'a C::NodeStats,
    pub(super) params: &'a GrowParams,
}

/// How a tree's nodes find their splits.
pub(super) trait Search<C: SplitCriterion>: Sync {
    /// What a node receives from its parent (the histogram search: the node's histograms).
    type Carry: Send + Default;

    /// The best split of a node, features drawn as [`find_split`] draws them.
    fn find_split(
        &self,
        node: &NodeView<'_, C>,
        carry: &mut Self::Carry,
        features: &mut [usize],
        scratch: &mut Scratch,
        rng: &mut Rng,
    ) -> Option<SplitChoice>;

    /// What the children of a node that split receive; `samples` and `weights` are partitioned,
    /// the first `n_left` going left.
    fn split_carry(
        &self,
        node: &NodeView<'_, C>,
        carry: Self::Carry,
        n_left: usize,
        scratch: &mut Scratch,
    ) -> (Self::Carry, Self::Carry);

    /// A node's carry that is no longer needed (its buffers can be reused).
    fn discard(&self, _carry: Self::Carry, _scratch: &mut Scratch) {}

    /// Whether a single tree that scores every feature carries its nodes' presorted orders.
    fn presorts(&self) -> bool {
        false
    }
}

/// The exact search: every boundary between distinct values of the node's samples.
pub(super) struct Exact;

impl<C: SplitCriterion> Search<C> for Exact {
    type Carry = ();

    fn find_split(
        &self,
        node: &NodeView<'_, C>,
        _carry: &mut (),
        features: &mut [usize],
        scratch: &mut Scratch,
        rng: &mut Rng,
    ) -> Option<SplitChoice> {
        let NodeView { x, samples, weights, presorted, criterion, stats, params } = *node;
        find_split(x, samples, weights, presorted, criterion, stats, params, features, scratch, rng)
    }

    fn split_carry(&self, _node: &NodeView<'_, C>, _carry: (), _n_left: usize, _scratch: &mut Scratch) -> ((), ()) {
        ((), ())
    }

    fn presorts(&self) -> bool {
        true
    }
}

/// Nodes with at least this many samples score their features in parallel (when all features
/// are scored): below it the work per feature is too small to be worth a task.
const PARALLEL_NODE_SIZE: usize = 512;

#[allow(clippy::too_many_arguments)]
pub(super) fn find_split<C: SplitCriterion>(
    x: &TrainingFeatures,
    samples: &[u32],
    weights: &[f64],
    presorted: Option<(&[u32], &[f64])>,
    criterion: &C,
    stats: &C::NodeStats,
    params: &GrowParams,
    features: &mut [usize],
    scratch: &mut Scratch,
    rng: &mut Rng,
) -> Option<SplitChoice> {
    let d = features.len();
    let max_features = params.max_features.min(d);
    let mut best: Option<(f64, SplitChoice)> = None;
    if max_features == d && samples.len() >= PARALLEL_NODE_SIZE && rayon::current_num_threads() > 1 {
        // Every feature is visited, so the whole permutation is drawn as the sequential loop
        // would draw it; scores are then compared in that order (ties to the first).
        for k in 0..d {
            let j = k + rng.below(d - k);
            features.swap(k, j);
        }
        let scored: Vec<Option<(f64, SplitChoice)>> = features
            .par_iter()
            .map_init(Scratch::default, |scratch, &f| {
                score_feature(x, samples, weights, presorted, criterion, stats, params, f, Key::Rank, f64::NEG_INFINITY, scratch)
                    .flatten()
            })
            .collect();
        for (score, choice) in scored.into_iter().flatten() {
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, choice));
            }
        }
        return best.map(|(_, c)| c);
    }
    draw_and_score(features, max_features, rng, |f, floor| {
        score_feature(x, samples, weights, presorted, criterion, stats, params, f, Key::Rank, floor, scratch)
    })
}

/// The sequential split search: features drawn by a lazy Fisher-Yates shuffle until
/// `max_features` of them that vary in the node are scored; the best split wins, ties to the
/// feature drawn first. `score(f, floor)` scores a feature (see [`score_feature`]), where a
/// split must beat `floor`, the best score so far, to be taken: its boundaries that cannot are
/// not scored in full (the result is the same as without the floor).
pub(super) fn draw_and_score(
    features: &mut [usize],
    max_features: usize,
    rng: &mut Rng,
    mut score: impl FnMut(usize, f64) -> Option<Option<(f64, SplitChoice)>>,
) -> Option<SplitChoice> {
    let d = features.len();
    let mut best: Option<(f64, SplitChoice)> = None;
    let mut n_scored = 0;
    for k in 0..d {
        if n_scored == max_features {
            break;
        }
        // Lazy Fisher-Yates: position k receives a uniformly drawn not-yet-visited feature.
        let j = k + rng.below(d - k);
        features.swap(k, j);
        let floor = best.as_ref().map_or(f64::NEG_INFINITY, |(b, _)| *b);
        let Some(result) = score(features[k], floor) else {
            continue; // constant in this node
        };
        n_scored += 1;
        if let Some((score, choice)) = result {
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, choice));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// What a node's samples are sorted by: the feature's values (their ranks), or its bins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    Rank,
    Bin,
}

/// The best split on feature `f`: `None` when the feature is constant in the node, else the
/// best (score, split), if the criterion finds a valid one (or possibly none, or one scoring at
/// most `floor`, when the best does not score above `floor`). With [`Key::Bin`] (a binned
/// feature, no presorted orders) the samples are sorted by bin and split between bins.
#[allow(clippy::too_many_arguments)]
pub(super) fn score_feature<C: SplitCriterion>(
    x: &TrainingFeatures,
    samples: &[u32],
    weights: &[f64],
    presorted: Option<(&[u32], &[f64])>,
    criterion: &C,
    stats: &C::NodeStats,
    params: &GrowParams,
    f: usize,
    key: Key,
    floor: f64,
    scratch: &mut Scratch,
) -> Option<Option<(f64, SplitChoice)>> {
    let Scratch { keys, radix, sorted, reordered, .. } = scratch;
    sorted.clear();
    if key == Key::Bin {
        let bins = x.bins.as_ref().expect("binned features");
        if !sort_by_bin(bins, f, samples, weights, sorted, keys, radix) {
            return None; // one bin in this node
        }
        if x.kinds[f] == FeatureKind::Nominal {
            return Some(best_category(criterion, stats, sorted, reordered, f, floor).map(|(score, choice)| match choice {
                SplitChoice::Category { feature, value } => {
                    (score, SplitChoice::Category { feature, value: bins.category(f, value as usize) })
                }
                other => (score, other),
            }));
        }
        let best = criterion.best_boundary(stats, sorted, Boundaries::All, floor).map(|(k, score)| {
            let (a, b) = (sorted[k - 1].value as usize, sorted[k].value as usize);
            (score, SplitChoice::Bins { feature: f, threshold: bins.threshold(f, a, b), last_left: a as u8 })
        });
        return Some(best);
    }
    if let Some((orders, weight_of)) = presorted {
        let n = samples.len();
        let order = &orders[f * n..(f + 1) * n];
        if x.rank(*order.first()? as usize, f) == x.rank(*order.last()? as usize, f) {
            return None; // constant in this node
        }
        sorted.extend(order.iter().map(|&s| SortedSample {
            value: x.value(s as usize, f),
            sample: s,
            weight: weight_of[s as usize],
        }));
    } else {
        // Key: the value's rank, then the sample's position in the node (a total order).
        keys.clear();
        keys.extend(samples.iter().enumerate().map(|(pos, &s)| ((x.rank(s as usize, f) as u64) << 32) | pos as u64));
        sort_keys(keys, radix, x.rank_bits[f]);
        if keys.first()? >> 32 == keys.last()? >> 32 {
            return None; // constant in this node
        }
        sorted.extend(keys.iter().map(|&k| {
            let pos = (k & 0xFFFF_FFFF) as usize;
            let s = samples[pos];
            SortedSample { value: x.value(s as usize, f), sample: s, weight: weights[pos] }
        }));
    }
    if x.kinds[f] == FeatureKind::Nominal {
        return Some(best_category(criterion, stats, sorted, reordered, f, floor));
    }
    // The threshold is the midpoint of the chosen boundary's values, or the fixed cut itself.
    let (boundaries, fixed_cut) = match params.threshold_rule {
        ThresholdRule::Best => (Boundaries::All, None),
        rule => {
            let values: Vec<f64> = sorted.iter().map(|s| s.value).collect();
            let w: Vec<f64> = sorted.iter().map(|s| s.weight).collect();
            let cut = match rule {
                ThresholdRule::EqualWidth => discretisation::equal_width_cuts(&values, 2),
                _ => discretisation::equal_frequency_cuts(&values, Some(&w), 2),
            }[0];
            (Boundaries::Only(sorted.partition_point(|s| s.value <= cut)), Some(cut))
        }
    };
    let best = criterion.best_boundary(stats, sorted, boundaries, floor).map(|(k, score)| {
        let threshold = fixed_cut.unwrap_or_else(|| midpoint(sorted[k - 1].value, sorted[k].value));
        (score, SplitChoice::Threshold { feature: f, threshold })
    });
    Some(best)
}

/// The node's samples sorted by their bin of feature `f` (stably: by position within a bin),
/// each with its bin as value; false when they are all in one bin.
fn sort_by_bin(
    bins: &super::bins::Bins,
    f: usize,
    samples: &[u32],
    weights: &[f64],
    sorted: &mut Vec<SortedSample>,
    keys: &mut Vec<u64>,
    buckets: &mut Vec<u64>,
) -> bool {
    let n = samples.len();
    if n < 64 {
        keys.clear();
        keys.extend(samples.iter().enumerate().map(|(pos, &s)| ((bins.code(s as usize, f) as u64) << 32) | pos as u64));
        keys.sort_unstable();
        // No samples (a bootstrap that drew only rows of weight 0) or all in one bin: no split.
        match (keys.first(), keys.last()) {
            (Some(first), Some(last)) if first >> 32 != last >> 32 => {}
            _ => return false,
        }
        sorted.extend(keys.iter().map(|&k| {
            let pos = (k & 0xFFFF_FFFF) as usize;
            SortedSample { value: (k >> 32) as f64, sample: samples[pos], weight: weights[pos] }
        }));
        return true;
    }
    // Counting sort over the 256 codes.
    buckets.clear();
    buckets.resize(257, 0);
    keys.clear();
    keys.extend(samples.iter().map(|&s| bins.code(s as usize, f) as u64));
    for &c in keys.iter() {
        buckets[c as usize + 1] += 1;
    }
    if buckets.contains(&(n as u64)) {
        return false;
    }
    for b in 0..256 {
        buckets[b + 1] += buckets[b];
    }
    sorted.resize(n, SortedSample { value: 0.0, sample: 0, weight: 0.0 });
    for (pos, &c) in keys.iter().enumerate() {
        let at = &mut buckets[c as usize];
        sorted[*at as usize] = SortedSample { value: c as f64, sample: samples[pos], weight: weights[pos] };
        *at += 1;
    }
    true
}

/// One value of a nominal feature against the rest: each distinct value of the node (in code
/// order) is tried as the left side; with two values only the first is tried (the other gives
/// the same partition). Ties go to the lower code.
pub(super) fn best_category<C: SplitCriterion>(
    criterion: &C,
    stats: &C::NodeStats,
    sorted: &[SortedSample],
    reordered: &mut Vec<SortedSample>,
    f: usize,
    floor: f64,
) -> Option<(f64, SplitChoice)> {
    let mut runs = Vec::new(); // (start, end) of each value's run in `sorted`
    let mut start = 0;
    for k in 1..=sorted.len() {
        if k == sorted.len() || sorted[k].value != sorted[start].value {
            runs.push((start, k));
            start = k;
        }
    }
    let n_tried = if runs.len() == 2 { 1 } else { runs.len() };
    let mut best: Option<(f64, SplitChoice)> = None;
    for &(a, b) in &runs[..n_tried] {
        // The value's samples first (marked 0), then the others (marked 1), each in sorted order.
        reordered.clear();
        reordered.extend(sorted[a..b].iter().map(|s| SortedSample { value: 0.0, ..*s }));
        reordered.extend(sorted[..a].iter().chain(&sorted[b..]).map(|s| SortedSample { value: 1.0, ..*s }));
        if let Some((_, score)) = criterion.best_boundary(stats, reordered, Boundaries::Only(b - a), floor) {
            if best.is_none_or(|(g, _)| score > g) {
                best = Some((score, SplitChoice::Category { feature: f, value: sorted[a].value }));
            }
        }
    }
    best
}
