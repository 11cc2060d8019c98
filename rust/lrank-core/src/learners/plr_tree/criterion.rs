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

use crate::consensus::buckets::{preference, BucketConsensus, PairOrderMatrix};
use crate::data::pairs::pair_count;
use crate::data::ranking::RankMatrixView;
use crate::tree::{sweep, Boundaries, BoundarySweep, SortedSample, SplitCriterion, XlnxTable};
use serde::{Deserialize, Serialize};

/// The impurity measure of the partial label ranking tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlrCriterion {
    Entropy,
    Disagreements,
    Distance,
}

/// Relations of a pair (i < j): code `3 p + r`, r = 0 (i before j), 1 (tied), 2 (j before i).
pub struct PairCodes {
    /// Every row's codes, one row after the other (row i's from `starts[i]` to `starts[i + 1]`).
    codes: Vec<u32>,
    starts: Vec<usize>,
    pub(crate) m: usize,
    pub(crate) n_pairs: usize,
    /// Every row holds every pair (complete rankings): the entropy sweep's fast path applies.
    complete: bool,
    /// Complete rankings: each row's relation of every pair, pair after pair (n x P).
    relations: Vec<u8>,
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

    #[inline]
    fn of(&self, sample: u32) -> &[u32] {
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
        let mut p = 0;
        for i in 0..m {
            for j in (i + 1)..m {
                let (b, t, a) = (counts[3 * p], counts[3 * p + 1], counts[3 * p + 2]);
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
        PairOrderMatrix::from_entries(m, c)
    }
}

/// The criterion of a tree: pair codes, the measure and the consensus of nodes.
pub struct PairOrderImpurity<'a> {
    pub codes: &'a PairCodes,
    pub kind: PlrCriterion,
    pub consensus: BucketConsensus,
    pub table: XlnxTable,
    /// `xlnx(c + 1) - xlnx(c)` for the whole counts of the table (a unit weight moving).
    increments: Vec<f64>,
}

impl<'a> PairOrderImpurity<'a> {
    /// The criterion of training rows with codes `codes`, whose total weight is at most
    /// `max_count` where whole counts are looked up rather than computed.
    pub fn new(codes: &'a PairCodes, kind: PlrCriterion, consensus: BucketConsensus, max_count: usize) -> Self {
        let table = XlnxTable::new(max_count + 1);
        let increments = (0..=max_count as u32).map(|c| table.at(c + 1) - table.at(c)).collect();
        PairOrderImpurity { codes, kind, consensus, table, increments }
    }
}

/// What the criterion knows of a node: its counts, weight and impurity.
pub struct NodeStats {
    counts: Vec<f64>,
    total: f64,
    impurity: f64,
}

/// Entropy (nats) of one pair's counts.
#[inline]
fn pair_entropy(table: &XlnxTable, c: &[f64]) -> f64 {
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
        NodeStats { counts, total: weights.iter().sum(), impurity }
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
        if self.kind == PlrCriterion::Entropy && self.codes.complete && self.table.covers(node.total) {
            let whole = |w: f64| w >= 0.0 && w == w.trunc() && w <= u32::MAX as f64;
            if sorted.iter().all(|s| whole(s.weight)) {
                return self.complete_entropy(node, sorted, boundaries, floor);
            }
        }
        // The node's counts are its samples' (the sweep's samples are the node's).
        let left = vec![0.0; node.counts.len()];
        let right = node.counts.clone();
        let p = self.codes.n_pairs.max(1) as f64;
        let s_right = if self.kind == PlrCriterion::Entropy { node.impurity * p } else { 0.0 };
        let mut state = PlrSweep {
            criterion: self,
            left,
            right,
            total: node.total,
            parent: node.impurity,
            w_left: 0.0,
            s_left: 0.0,
            s_right,
        };
        sweep(&mut state, sorted, boundaries, floor)
    }
}

/// A split in progress: counts per side and, for entropy, each side's summed pair entropies.
struct PlrSweep<'a, 'c> {
    criterion: &'a PairOrderImpurity<'c>,
    left: Vec<f64>,
    right: Vec<f64>,
    total: f64,
    parent: f64,
    w_left: f64,
    s_left: f64,
    s_right: f64,
}

impl BoundarySweep for PlrSweep<'_, '_> {
    const MARGIN: f64 = 1e-12;

    #[inline]
    fn move_left(&mut self, moved: &SortedSample) {
        let w = moved.weight;
        self.w_left += w;
        let crit = self.criterion;
        if crit.kind == PlrCriterion::Entropy {
            let t = &crit.table;
            for &code in crit.codes.of(moved.sample) {
                let (c, base) = (code as usize, 3 * (code as usize / 3));
                self.s_left -= pair_entropy(t, &self.left[base..base + 3]);
                self.s_right -= pair_entropy(t, &self.right[base..base + 3]);
                self.left[c] += w;
                self.right[c] -= w;
                self.s_left += pair_entropy(t, &self.left[base..base + 3]);
                self.s_right += pair_entropy(t, &self.right[base..base + 3]);
            }
        } else {
            for &code in crit.codes.of(moved.sample) {
                self.left[code as usize] += w;
                self.right[code as usize] -= w;
            }
        }
    }

    #[inline]
    fn score(&mut self, _to_beat: f64) -> Option<f64> {
        let crit = self.criterion;
        let w_right = self.total - self.w_left;
        if self.w_left <= 0.0 || w_right <= 1e-12 * self.total {
            return None;
        }
        let (i_left, i_right) = if crit.kind == PlrCriterion::Entropy {
            let p = crit.codes.n_pairs.max(1) as f64;
            (self.s_left / p, self.s_right / p)
        } else {
            (crit.impurity(&self.left), crit.impurity(&self.right))
        };
        Some(self.parent - (self.w_left * i_left + w_right * i_right) / self.total)
    }
}

impl PairOrderImpurity<'_> {
    /// The entropy sweep when every row holds every pair and the weights are whole numbers (unit
    /// weights, bootstrap counts): each pair then has a side's whole weight W, so the side's
    /// summed pair entropies are `(P xlnx(W) - Σ_codes xlnx(c)) / W`, and a moved sample changes
    /// the sum of `xlnx` of integer counts, read from the table: no logarithm, no division.
    fn complete_entropy(
        &self,
        node: &NodeStats,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
    ) -> Option<(usize, f64)> {
        let right: Vec<u32> = node.counts.iter().map(|&c| c as u32).collect();
        let t_right = right.iter().map(|&c| self.table.at(c)).sum();
        let mut state = CompleteEntropySweep {
            codes: self.codes,
            table: &self.table,
            increments: &self.increments,
            left: vec![0; right.len()],
            right,
            t_left: 0.0,
            t_right,
            w_left: 0,
            total: node.total as u64,
            parent: node.impurity,
        };
        sweep(&mut state, sorted, boundaries, floor)
    }
}

/// [`PairOrderImpurity::complete_entropy`]'s split in progress: integer counts per side and each
/// side's sum of `xlnx` over its counts.
struct CompleteEntropySweep<'a> {
    codes: &'a PairCodes,
    table: &'a XlnxTable,
    increments: &'a [f64],
    left: Vec<u32>,
    right: Vec<u32>,
    t_left: f64,
    t_right: f64,
    w_left: u64,
    total: u64,
    parent: f64,
}

impl BoundarySweep for CompleteEntropySweep<'_> {
    const MARGIN: f64 = 1e-12;

    #[inline]
    fn move_left(&mut self, moved: &SortedSample) {
        let w = moved.weight as u32;
        self.w_left += w as u64;
        let p = self.codes.n_pairs;
        let s = moved.sample as usize;
        let relations = &self.codes.relations[s * p..(s + 1) * p];
        let (left, right) = (&mut self.left[..3 * p], &mut self.right[..3 * p]);
        // The changes are summed apart and added once: a chain of dependent additions per move
        // instead of two per pair.
        let (mut dl, mut dr) = (0.0, 0.0);
        if w == 1 {
            let inc = self.increments;
            for (k, &r) in relations.iter().enumerate() {
                let c = 3 * k + r as usize;
                let (a, b) = (left[c], right[c]);
                dl += inc[a as usize];
                dr -= inc[b as usize - 1];
                left[c] = a + 1;
                right[c] = b - 1;
            }
        } else {
            let t = self.table;
            for (k, &r) in relations.iter().enumerate() {
                let c = 3 * k + r as usize;
                let (a, b) = (left[c], right[c]);
                dl += t.at(a + w) - t.at(a);
                dr += t.at(b - w) - t.at(b);
                left[c] = a + w;
                right[c] = b - w;
            }
        }
        self.t_left += dl;
        self.t_right += dr;
    }

    #[inline]
    fn score(&mut self, _to_beat: f64) -> Option<f64> {
        let w_right = self.total - self.w_left;
        if self.w_left == 0 || w_right == 0 {
            return None;
        }
        let p = self.codes.n_pairs as f64;
        let t = self.table;
        let sides = (p * t.at(self.w_left as u32) - self.t_left) + (p * t.at(w_right as u32) - self.t_right);
        Some(self.parent - sides / (self.total as f64 * p))
    }
}
