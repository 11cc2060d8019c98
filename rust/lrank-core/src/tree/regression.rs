//! Multi-output regression trees of per-label targets (the labelwise learners): the split
//! criterion (decrease of the squared error summed over labels, each label over the rows that
//! have a target for it), an additive criterion (per label, the weight and the target sum of the
//! rows that have one add up over rows), and the node models (each label's mean target, the
//! parent's where no row has one).
//!
//! A split maximises the proxy Σ_j S_L²/W_L + S_R²/W_R (S and W a label's weighted target sum and
//! weight on a side); a node is terminal when every label's targets are equal within it.
//!
//! Exactness: a split's score is computed from the sides' sums, so it is the same for any order
//! of the samples when the sums are exact. Targets are therefore also kept as whole numbers of
//! 2^-b (b chosen so that every sum of whole-number weights times them stays below 2^53): the
//! sums of the split search are then exact, and the histogram search with one bin per value finds
//! the exact search's splits. Leaf values are each label's sum in units over its weight, and a
//! node is terminal when every label's units are equal within it (not a squared error within a
//! tolerance): both then depend on exact sums only, so a forest grown from sums over parts of
//! the rows (`levelwise`) has the same leaves, bit for bit ([`UnitSquares`]).

use super::additive::{additive_best_boundary, AdditiveCriterion, SidesTask, SplitSides};
use super::grow::LeafFitter;
use super::sweep::{Boundaries, SortedSample, SplitCriterion};
use crate::data::ranking::{has_ties, mid_ranks, n_present, RankMatrixView};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// A leaf's (or node's) predicted score per label.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreLeaf {
    pub scores: Vec<f64>,
}

/// Per-sample targets: score per label and whether the label has one.
#[derive(Clone, Debug)]
pub struct Targets {
    pub(crate) m: usize,
    /// n x m scores (0 where missing).
    score: Vec<f64>,
    /// n x m: 1.0 where the label has a target, else 0.0.
    present: Vec<f64>,
    /// n x m scores in whole units of 2^-bits (see the module docs).
    units: Vec<f64>,
    /// 2^-bits: from units to scores.
    unit: f64,
    /// 2^-bits, squared: from squared sums in units to squared sums of scores.
    unit_sq: f64,
    /// The bits of a unit's low part in sums of its squares ([`UnitSquares`]).
    half: u32,
    /// Every row has a target for every label.
    pub(crate) complete: bool,
}

impl Targets {
    /// Targets given per row: `score` and `present` (1.0 where the label has a target), n x m.
    /// `weight_bound`: at least the total weight of any tree's samples.
    pub fn new(m: usize, score: Vec<f64>, present: Vec<f64>, weight_bound: f64) -> Self {
        debug_assert_eq!(score.len(), present.len());
        // Sums of weight x units stay below weight_bound x max|score| x 2^bits <= 2^52.
        let largest = score.iter().fold(1.0f64, |a, s| a.max(s.abs()));
        let bits = (52.0 - (weight_bound.max(1.0) * largest).log2().ceil()).clamp(0.0, 40.0);
        let units = score.iter().map(|s| (s * bits.exp2()).round()).collect();
        let complete = present.iter().all(|&p| p == 1.0);
        let unit = (-bits).exp2();
        // Units are at most 2^52 / weight_bound (U); see UnitSquares for the choice of h.
        let half = ((51.0 - weight_bound.max(1.0).log2()) / 2.0).ceil().clamp(0.0, 40.0) as u32;
        Targets { m, score, present, units, unit, unit_sq: unit * unit, half, complete }
    }

    /// The relative positions of the labelwise learners: a ranking holding k labels gives the
    /// label at position r the score (r - 1/2) / k (the mid-rank for tied labels).
    pub fn relative_positions(y: &RankMatrixView<'_>, weight_bound: f64) -> Self {
        let m = y.n_labels();
        let mut score = vec![0.0; y.n_rows() * m];
        let mut present = vec![0.0; y.n_rows() * m];
        for (i, row) in y.rows().enumerate() {
            let k = n_present(row) as f64;
            let positions: Vec<f64> = if has_ties(row) { mid_ranks(row) } else { row.iter().map(|&r| r.max(0) as f64).collect() };
            for (j, r) in positions.into_iter().enumerate() {
                if r > 0.0 {
                    score[i * m + j] = (r - 0.5) / k;
                    present[i * m + j] = 1.0;
                }
            }
        }
        Targets::new(m, score, present, weight_bound)
    }

    pub fn row(&self, i: u32) -> (&[f64], &[f64]) {
        let i = i as usize;
        (&self.score[i * self.m..(i + 1) * self.m], &self.present[i * self.m..(i + 1) * self.m])
    }

    fn units_row(&self, i: u32) -> &[f64] {
        &self.units[i as usize * self.m..(i as usize + 1) * self.m]
    }

    /// Row `i`'s targets in units (see the module docs).
    pub fn units(&self, i: u32) -> &[f64] {
        self.units_row(i)
    }

    /// A label's mean score from its weight and target sum in units (0 weight: `None`).
    #[inline]
    pub fn mean_of_units(&self, weight: f64, units: f64) -> Option<f64> {
        (weight > 0.0).then(|| units / weight * self.unit)
    }

    /// How sums of squared units are kept exactly ([`UnitSquares`]).
    pub fn squares(&self) -> UnitSquares {
        UnitSquares { half: self.half }
    }
}

/// Sums of squared units, exactly, as three sums of whole numbers of at most 2^53: a unit u is
/// hi·2^h + lo (lo < 2^h), so u² = hi²·2^2h + 2·hi·lo·2^h + lo². Units are at most
/// U = 2^52 / B (B the bound on a tree's total weight), so with 2^51 <= B·2^2h <= 2^53 each
/// sum is at most B·2^2h (lo²), B·U (hi·lo) or B·U²/2^2h (hi²), all within 2^53. With a
/// label's weight W and unit sum S, its units are all equal exactly when
/// W·Σu² = S² (computed in 128-bit integers), which is how a forest grown from sums tells a
/// terminal node (the rows' own minimum and maximum say the same).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitSquares {
    half: u32,
}

impl UnitSquares {
    /// Numbers per label.
    pub const LEN: usize = 3;

    /// Adds `weight` copies of `unit`'s square, as [`Self::LEN`] numbers, to `out`.
    #[inline]
    pub fn add(&self, unit: f64, weight: f64, out: &mut [f64]) {
        let u = unit as u64;
        let (hi, lo) = ((u >> self.half) as f64, (u & ((1u64 << self.half) - 1)) as f64);
        out[0] += weight * hi * hi;
        out[1] += weight * hi * lo;
        out[2] += weight * lo * lo;
    }

    /// Whether a label of whole weight `weight`, unit sum `units` and square sums `squares` has
    /// all its units equal (a weight that is not a whole number: false).
    pub fn all_equal(&self, weight: f64, units: f64, squares: &[f64]) -> bool {
        if weight.fract() != 0.0 || units.fract() != 0.0 || squares.iter().any(|s| s.fract() != 0.0) {
            return false;
        }
        let h = self.half;
        let sum_sq = ((squares[0] as u128) << (2 * h)) + ((squares[1] as u128) << (h + 1)) + squares[2] as u128;
        (weight as u128).checked_mul(sum_sq) == (units as u128).checked_mul(units as u128)
    }
}

/// What the criterion knows of a node, in one buffer (a node is made for every split).
pub struct NodeSums {
    /// Per label, m each: the weight, then the target sum in units.
    sums: Vec<f64>,
    m: usize,
    total: f64,
    /// Σ_j S_j² / W_j of the node, in units squared.
    proxy: f64,
    /// Every label's units are equal within the node.
    uniform: bool,
}

impl NodeSums {
    #[inline]
    fn part(&self, k: usize) -> &[f64] {
        &self.sums[k * self.m..(k + 1) * self.m]
    }
}

/// Split criterion: decrease of the summed squared error over labels (module docs).
pub struct LabelwiseVariance<'a> {
    /// Borrowed where the rows are; owned (without rows) by a levelwise forest's driver.
    pub targets: Cow<'a, Targets>,
    /// Least total weight on each side of a split.
    pub min_leaf: f64,
}

/// Σ_j S_j² / W_j over the labels some row has a target for (the part of the squared error a
/// split can change).
#[inline]
fn proxy(weight: impl Iterator<Item = f64>, units: &[f64]) -> f64 {
    weight.zip(units).map(|(w, &s)| if w > 0.0 { s * s / w } else { 0.0 }).sum()
}

impl NodeSums {
    fn new(sums: Vec<f64>, m: usize, total: f64, uniform: bool) -> Self {
        let proxy = proxy(sums[..m].iter().copied(), &sums[m..]);
        NodeSums { sums, m, total, proxy, uniform }
    }
}

impl SplitCriterion for LabelwiseVariance<'_> {
    type NodeStats = NodeSums;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> NodeSums {
        let (t, m) = (&*self.targets, self.targets.m);
        let mut sums = vec![0.0; 2 * m];
        let mut total = 0.0;
        if t.complete {
            // Every row has every label: the weights are the total, and the node is uniform when
            // every row of positive weight has the first such row's units.
            let (e_weight, e_units) = sums.split_at_mut(m);
            let mut first: Option<&[f64]> = None;
            let mut uniform = true;
            for (&s, &w) in samples.iter().zip(weights) {
                let units = t.units_row(s);
                e_units.iter_mut().zip(units).for_each(|(e, &u)| *e += w * u);
                total += w;
                if w > 0.0 && uniform {
                    uniform = *first.get_or_insert(units) == units;
                }
            }
            e_weight.iter_mut().for_each(|e| *e = total);
            return NodeSums::new(sums, m, total, uniform);
        }
        // Per label, the least and largest unit of the rows that have one.
        let mut range = vec![(f64::INFINITY, f64::NEG_INFINITY); m];
        {
            let (e_weight, e_units) = sums.split_at_mut(m);
            for (&s, &w) in samples.iter().zip(weights) {
                let (_, present) = t.row(s);
                let units = t.units_row(s);
                for j in 0..m {
                    let pw = present[j] * w;
                    e_weight[j] += pw;
                    e_units[j] += pw * units[j];
                    if pw > 0.0 {
                        range[j] = (range[j].0.min(units[j]), range[j].1.max(units[j]));
                    }
                }
                total += w;
            }
        }
        let uniform = range.iter().all(|&(lo, hi)| lo >= hi);
        NodeSums::new(sums, m, total, uniform)
    }

    fn is_terminal(&self, node: &NodeSums) -> bool {
        node.uniform
    }

    fn best_boundary(
        &self,
        node: &NodeSums,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
    ) -> Option<(usize, f64)> {
        additive_best_boundary(self, node, sorted, boundaries, floor)
    }
}

impl AdditiveCriterion for LabelwiseVariance<'_> {
    /// Complete targets: S_j per label; otherwise W_j, then S_j.
    fn n_stats(&self) -> usize {
        if self.targets.complete {
            self.targets.m
        } else {
            2 * self.targets.m
        }
    }

    /// Complete targets: every label's sum.
    #[inline]
    fn dense_sample_stats(&self, sample: u32, weight: f64, out: &mut [f64]) -> bool {
        let t = &*self.targets;
        if !t.complete {
            return false;
        }
        out.iter_mut().zip(t.units_row(sample)).for_each(|(o, &u)| *o = weight * u);
        true
    }

    #[inline]
    fn sample_stats(&self, sample: u32, weight: f64, out: &mut Vec<(u32, f64)>) {
        let t = &*self.targets;
        let units = t.units_row(sample);
        if t.complete {
            out.extend(units.iter().enumerate().map(|(j, &u)| (j as u32, weight * u)));
        } else {
            let (_, present) = t.row(sample);
            for j in 0..t.m {
                if present[j] > 0.0 {
                    out.push((j as u32, weight));
                    out.push(((t.m + j) as u32, weight * units[j]));
                }
            }
        }
    }

    /// From the exact sums; whether every label's units are equal is not in them (a levelwise
    /// forest learns it from its leaf statistics, [`UnitSquares`]), so the node is not terminal.
    fn node_stats_from_sums(&self, weight: f64, _whole: bool, sums: &[f64]) -> Option<NodeSums> {
        let m = self.targets.m;
        let sums = if self.targets.complete {
            let mut all = vec![weight; 2 * m];
            all[m..].copy_from_slice(sums.get(..m)?);
            all
        } else {
            sums.get(..2 * m)?.to_vec()
        };
        Some(NodeSums::new(sums, m, weight, false))
    }

    /// The right side is the node minus the left.
    fn with_sides<T: SidesTask>(&self, node: &NodeSums, task: T) -> T::Output {
        LEFT.with(|cell| {
            let mut left = cell.borrow_mut();
            left.clear();
            left.resize(self.n_stats(), 0.0);
            task.run(&mut VarianceSides { criterion: self, node, left: &mut left, w_left: 0.0 })
        })
    }
}

thread_local! {
    /// The left side's sums of a split in progress (one per thread: no allocation per split).
    static LEFT: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`LabelwiseVariance`]'s split in progress: the left side's sums (the right's are the node's
/// minus those).
pub struct VarianceSides<'a> {
    criterion: &'a LabelwiseVariance<'a>,
    node: &'a NodeSums,
    left: &'a mut [f64],
    w_left: f64,
}

impl SplitSides for VarianceSides<'_> {
    #[inline]
    fn move_sample(&mut self, sample: u32, weight: f64) {
        let t = &*self.criterion.targets;
        let units = t.units_row(sample);
        if t.complete {
            self.left.iter_mut().zip(units).for_each(|(l, &u)| *l += weight * u);
        } else {
            let (_, present) = t.row(sample);
            let (w, s) = self.left.split_at_mut(t.m);
            for j in 0..t.m {
                if present[j] > 0.0 {
                    w[j] += weight;
                    s[j] += weight * units[j];
                }
            }
        }
        self.w_left += weight;
    }

    #[inline]
    fn move_sums(&mut self, weight: f64, stats: &[f64]) {
        self.left.iter_mut().zip(stats).for_each(|(l, &a)| *l += a);
        self.w_left += weight;
    }

    #[inline]
    fn score(&self) -> Option<f64> {
        let (node, min_leaf, t) = (self.node, self.criterion.min_leaf, &*self.criterion.targets);
        let right_total = node.total - self.w_left;
        if !(self.w_left >= min_leaf && right_total >= min_leaf) {
            return None;
        }
        let (weight, units) = (node.part(0), node.part(1));
        let mut gain = -node.proxy;
        for j in 0..t.m {
            let (wl, sl) = if t.complete { (self.w_left, self.left[j]) } else { (self.left[j], self.left[t.m + j]) };
            let (wr, sr) = (weight[j] - wl, units[j] - sl);
            if wl > 0.0 {
                gain += sl * sl / wl;
            }
            if wr > 0.0 {
                gain += sr * sr / wr;
            }
        }
        Some(gain * t.unit_sq / node.total)
    }
}

/// Node models: each label's mean target, the parent's value where no row has one.
pub struct MeanScores<'a> {
    pub targets: &'a Targets,
    /// The root's value for a label no row has a target for.
    pub default: f64,
}

impl LeafFitter for MeanScores<'_> {
    type Leaf = ScoreLeaf;

    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> ScoreLeaf {
        self.fit_node(samples, weights, None)
    }

    /// With complete targets every row has every label's, so no node needs its parent's.
    fn uses_parent(&self) -> bool {
        !self.targets.complete
    }

    fn fit_node(&self, samples: &[u32], weights: &[f64], parent: Option<&ScoreLeaf>) -> ScoreLeaf {
        let m = self.targets.m;
        if self.targets.complete {
            // Every label's weight is the total: the unit sums become the means in place.
            let (mut scores, mut total) = (vec![0.0; m], 0.0);
            for (&s, &w) in samples.iter().zip(weights) {
                scores.iter_mut().zip(self.targets.units_row(s)).for_each(|(sum, &u)| *sum += w * u);
                total += w;
            }
            for (j, score) in scores.iter_mut().enumerate() {
                *score =
                    self.targets.mean_of_units(total, *score).unwrap_or_else(|| parent.map_or(self.default, |p| p.scores[j]));
            }
            return ScoreLeaf { scores };
        }
        let (mut weight, mut units) = (vec![0.0; m], vec![0.0; m]);
        for (&s, &w) in samples.iter().zip(weights) {
            let (_, present) = self.targets.row(s);
            for ((j, &u), &p) in self.targets.units_row(s).iter().enumerate().zip(present) {
                weight[j] += p * w;
                units[j] += p * w * u;
            }
        }
        self.from_sums(&weight, &units, parent)
    }
}

impl MeanScores<'_> {
    /// Each label's mean from its weight and unit sum; the parent's value (or the default) where
    /// it has no weight.
    pub fn from_sums(&self, weight: &[f64], units: &[f64], parent: Option<&ScoreLeaf>) -> ScoreLeaf {
        let scores = (0..self.targets.m)
            .map(|j| {
                let fallback = || parent.map_or(self.default, |p| p.scores[j]);
                self.targets.mean_of_units(weight[j], units[j]).unwrap_or_else(fallback)
            })
            .collect();
        ScoreLeaf { scores }
    }
}
