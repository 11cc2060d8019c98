//! The split criteria of the partial label ranking tree (Alfaro, Aledo & Gámez 2021), from the
//! pair-order counts of a node: for every label pair (i < j) both labels of which a ranking
//! holds, the weight of "i before j", "tied" and "j before i".
//!
//! Per pair with counts (b, t, a), n = b + t + a:
//! - entropy: the Shannon entropy of (b, t, a) / n (in nats here; bits differ by a constant
//!   factor, which changes no split);
//! - disagreements: the share of the node's rows that disagree with the node's consensus
//!   relation for the pair (its bucket order by the learner's consensus): (t + a) / n if the
//!   consensus puts i first, (b + a) / n if it ties them, (b + t) / n if it puts j first;
//! - distance: as disagreements, a reversed pair weighing 2 and a tie against a strict order 1.
//!
//! A node's impurity is the mean over the m(m-1)/2 pairs (entropy, disagreements) or the sum
//! (distance); a pair no row holds counts 0. A split scores
//! `I(node) - Σ_c (N_c / N) I(c)` over its two children c of weight N_c; a node whose impurity
//! is (numerically) 0 is a leaf.
//!
//! The counts add up over rows, so the criterion is additive ([`AdditiveCriterion`]): the exact
//! sweep and the histogram search share its sides (`sides`), which give bit-identical scores
//! whether a bin's rows move at once or one by one (entropies summed in fixed point).

use super::sides::{ConsensusSides, PairEntropySides, WholeCompleteSides};
use crate::consensus::buckets::{preference, BucketConsensus, PairOrderMatrix};
use crate::data::pairs::pair_count;
use crate::data::ranking::RankMatrixView;
use crate::tree::{
    additive_best_boundary, AdditiveCriterion, Boundaries, FixedXlnx, SidesTask, SortedSample, SplitCriterion, XlnxTable,
};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The impurity measure of the partial label ranking tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlrCriterion {
    Entropy,
    Disagreements,
    Distance,
}

/// Relations of a pair (i < j): code `3 p + r`, r = 0 (i before j), 1 (tied), 2 (j before i).
#[derive(Clone, Debug)]
pub struct PairCodes {
    /// Every row's codes, one row after the other (row i's from `starts[i]` to `starts[i + 1]`).
    codes: Vec<u32>,
    starts: Vec<usize>,
    pub(crate) m: usize,
    pub(crate) n_pairs: usize,
    /// Every row holds every pair (complete rankings): the entropy sweep's fast path applies.
    complete: bool,
    /// Complete rankings: each row's relation of every pair, pair after pair (n x P).
    pub(super) relations: Vec<u8>,
}

impl PairCodes {
    pub fn new(y: &RankMatrixView<'_>) -> Self {
        let m = y.n_labels();
        let n_pairs = pair_count(m);
        let (mut codes, mut starts) = (Vec::with_capacity(y.n_rows() * n_pairs), vec![0]);
        for r in y.rows() {
            let mut p = 0u32;
            for i in 0..m {
                for j in (i + 1)..m {
                    if r[i] > 0 && r[j] > 0 {
                        let rel = match r[i].cmp(&r[j]) {
                            std::cmp::Ordering::Less => 0,
                            std::cmp::Ordering::Equal => 1,
                            std::cmp::Ordering::Greater => 2,
                        };
                        codes.push(3 * p + rel);
                    }
                    p += 1;
                }
            }
            starts.push(codes.len());
        }
        let complete = codes.len() == y.n_rows() * n_pairs;
        let relations = if complete { codes.iter().map(|&c| (c % 3) as u8).collect() } else { Vec::new() };
        PairCodes { codes, starts, m, n_pairs, complete, relations }
    }

    /// A row's codes.
    #[inline]
    pub(super) fn of(&self, sample: u32) -> &[u32] {
        let i = sample as usize;
        &self.codes[self.starts[i]..self.starts[i + 1]]
    }

    /// The pair-order counts (3 per pair) of weighted samples.
    pub fn counts(&self, samples: &[u32], weights: &[f64]) -> Vec<f64> {
        let mut counts = vec![0.0; 3 * self.n_pairs];
        for (&s, &w) in samples.iter().zip(weights) {
            for &c in self.of(s) {
                counts[c as usize] += w;
            }
        }
        counts
    }

    /// The pair-order matrix of counts.
    pub fn matrix(&self, counts: &[f64]) -> PairOrderMatrix {
        self.matrix_or(counts, None)
    }

    /// Every row holds every label pair (complete rankings).
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// The pair-order matrix of counts; a pair no row observes takes the relation of `fallback`
    /// (a bucket order: 1 for before, 1/2 for tied, 0 for after), or 1/2 without one.
    pub fn matrix_or(&self, counts: &[f64], fallback: Option<&[i32]>) -> PairOrderMatrix {
        let m = self.m;
        let mut c = vec![0.5; m * m];
        let mut seen = vec![false; m];
        let mut p = 0;
        for i in 0..m {
            for j in (i + 1)..m {
                let (b, t, a) = (counts[3 * p], counts[3 * p + 1], counts[3 * p + 2]);
                if b + t + a > 0.0 || fallback.is_some() {
                    seen[i] = true;
                    seen[j] = true;
                }
                let (ij, ji) = match fallback {
                    Some(order) if b + t + a == 0.0 => match order[i].cmp(&order[j]) {
                        std::cmp::Ordering::Less => (1.0, 0.0),
                        std::cmp::Ordering::Equal => (0.5, 0.5),
                        std::cmp::Ordering::Greater => (0.0, 1.0),
                    },
                    _ => (preference(b, t, a), preference(a, t, b)),
                };
                c[i * m + j] = ij;
                c[j * m + i] = ji;
                p += 1;
            }
        }
        // Without a parent (the root), a label no row observes is set aside by the consensus.
        PairOrderMatrix::from_entries(m, c).with_unobserved((0..m).filter(|&i| !seen[i]).collect())
    }
}

impl<'a> From<&'a PairCodes> for Cow<'a, PairCodes> {
    fn from(codes: &'a PairCodes) -> Self {
        Cow::Borrowed(codes)
    }
}

impl From<PairCodes> for Cow<'_, PairCodes> {
    fn from(codes: PairCodes) -> Self {
        Cow::Owned(codes)
    }
}

/// The criterion of a tree: pair codes, the measure and the consensus of nodes.
pub struct PairOrderImpurity<'a> {
    /// Borrowed where the rows are; owned (without rows) by a levelwise forest's driver.
    pub codes: Cow<'a, PairCodes>,
    pub kind: PlrCriterion,
    pub consensus: BucketConsensus,
    pub(super) table: XlnxTable,
    /// c ln c in fixed point, with room for the sum over every pair of a side.
    pub(super) fixed: FixedXlnx,
    /// `fixed(c + 1) - fixed(c)` for the whole counts of the table (a unit weight moving).
    pub(super) unit_steps: Vec<i64>,
    /// Least weight on each side of a split (0: any side with weight).
    pub(super) min_leaf: f64,
}

impl<'a> PairOrderImpurity<'a> {
    /// The criterion of training rows with codes `codes`, whose total weight is at most
    /// `max_count` where whole counts are looked up rather than computed.
    pub fn new(codes: impl Into<Cow<'a, PairCodes>>, kind: PlrCriterion, consensus: BucketConsensus, max_count: usize) -> Self {
        let codes = codes.into();
        let table = XlnxTable::new(max_count + 1);
        let fixed = FixedXlnx::with_headroom(max_count + 1, codes.n_pairs.max(1));
        let unit_steps = (0..=max_count as u32).map(|c| fixed.whole(c + 1) - fixed.whole(c)).collect();
        PairOrderImpurity { codes, kind, consensus, table, fixed, unit_steps, min_leaf: 0.0 }
    }

    /// The criterion that scores only splits leaving at least `min_leaf` weight on each side.
    pub fn with_min_leaf(self, min_leaf: f64) -> Self {
        PairOrderImpurity { min_leaf, ..self }
    }
}

/// What the criterion knows of a node: its counts, weight and impurity.
pub struct NodeStats {
    pub(super) counts: Vec<f64>,
    pub(super) total: f64,
    impurity: f64,
    /// Every row holds every pair and the weights are whole numbers within the tables: the
    /// entropy's integer sides apply, starting from these counts and their Σ xlnx(c) (summed
    /// once per node, not once per feature scored).
    pub(super) whole_complete: Option<(Vec<u32>, i64)>,
}

/// Entropy (nats) of one pair's counts.
#[inline]
pub(super) fn pair_entropy(table: &XlnxTable, c: &[f64]) -> f64 {
    let n = c[0] + c[1] + c[2];
    if n <= 1e-12 {
        return 0.0;
    }
    ((table.get(n) - table.get(c[0].max(0.0)) - table.get(c[1].max(0.0)) - table.get(c[2].max(0.0))) / n).max(0.0)
}

impl PairOrderImpurity<'_> {
    /// The impurity of counts (see the module).
    pub fn impurity(&self, counts: &[f64]) -> f64 {
        let p = self.codes.n_pairs;
        if p == 0 {
            return 0.0;
        }
        match self.kind {
            PlrCriterion::Entropy => counts.chunks_exact(3).map(|c| pair_entropy(&self.table, c)).sum::<f64>() / p as f64,
            PlrCriterion::Disagreements | PlrCriterion::Distance => {
                let order = self.consensus.of_matrix(&self.codes.matrix(counts));
                let reversed = if self.kind == PlrCriterion::Distance { 2.0 } else { 1.0 };
                let m = self.codes.m;
                let mut sum = 0.0;
                let mut k = 0;
                for i in 0..m {
                    for j in (i + 1)..m {
                        let c = &counts[3 * k..3 * k + 3];
                        let n = c[0] + c[1] + c[2];
                        if n > 1e-12 {
                            let wrong = match order[i].cmp(&order[j]) {
                                std::cmp::Ordering::Less => c[1] + reversed * c[2],
                                std::cmp::Ordering::Equal => c[0] + c[2],
                                std::cmp::Ordering::Greater => c[1] + reversed * c[0],
                            };
                            sum += wrong.max(0.0) / n;
                        }
                        k += 1;
                    }
                }
                if self.kind == PlrCriterion::Distance {
                    sum
                } else {
                    sum / p as f64
                }
            }
        }
    }
}

impl SplitCriterion for PairOrderImpurity<'_> {
    type NodeStats = NodeStats;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> NodeStats {
        let counts = self.codes.counts(samples, weights);
        let impurity = self.impurity(&counts);
        let total = weights.iter().sum();
        let whole_complete = (self.kind == PlrCriterion::Entropy
            && self.codes.complete
            && self.fixed.holds_whole(weights, total)
            && total < self.unit_steps.len() as f64
            // The sides' sums (at most P xlnx(N)) fit their integers.
            && (self.codes.n_pairs as i64).checked_mul(self.fixed.whole(total as u32)).is_some_and(|s| s < 1 << 62))
        .then(|| {
            let whole: Vec<u32> = counts.iter().map(|&c| c as u32).collect();
            let sum = whole.iter().map(|&c| self.fixed.whole(c)).sum::<i64>();
            (whole, sum)
        });
        NodeStats { counts, total, impurity, whole_complete }
    }

    fn is_terminal(&self, node: &NodeStats) -> bool {
        node.impurity < 1e-9
    }

    fn best_boundary(
        &self,
        node: &NodeStats,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
    ) -> Option<(usize, f64)> {
        additive_best_boundary(self, node, sorted, boundaries, floor)
    }
}

impl AdditiveCriterion for PairOrderImpurity<'_> {
    /// The three relation weights of every pair.
    fn n_stats(&self) -> usize {
        3 * self.codes.n_pairs
    }

    #[inline]
    fn sample_stats(&self, sample: u32, weight: f64, out: &mut Vec<(u32, f64)>) {
        out.extend(self.codes.of(sample).iter().map(|&c| (c, weight)));
    }

    /// From the counts: the same impurity, and the entropy's integer sides when the weights
    /// are whole and within the tables, as [`SplitCriterion::node_stats`] decides.
    fn node_stats_from_sums(&self, weight: f64, whole: bool, sums: &[f64]) -> Option<NodeStats> {
        let counts = sums.get(..self.n_stats())?.to_vec();
        let impurity = self.impurity(&counts);
        let whole_complete = (self.kind == PlrCriterion::Entropy
            && self.codes.complete
            && whole
            && self.fixed.holds_total(weight)
            && weight < self.unit_steps.len() as f64
            && (self.codes.n_pairs as i64).checked_mul(self.fixed.whole(weight as u32)).is_some_and(|s| s < 1 << 62))
        .then(|| {
            let whole: Vec<u32> = counts.iter().map(|&c| c as u32).collect();
            let sum = whole.iter().map(|&c| self.fixed.whole(c)).sum::<i64>();
            (whole, sum)
        });
        Some(NodeStats { counts, total: weight, impurity, whole_complete })
    }

    /// Pair-order counts are weights of rows.
    fn sums_nonnegative(&self) -> bool {
        true
    }

    fn with_sides<T: SidesTask>(&self, node: &NodeStats, task: T) -> T::Output {
        match self.kind {
            PlrCriterion::Entropy if node.whole_complete.is_some() => WholeCompleteSides::run(self, node, task),
            PlrCriterion::Entropy => task.run(&mut PairEntropySides::new(self, node)),
            PlrCriterion::Disagreements | PlrCriterion::Distance => task.run(&mut ConsensusSides::new(self, node)),
        }
    }
}
