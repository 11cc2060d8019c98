//! Consensus with ties (partial label ranking): one bucket order from several (weighted, possibly
//! incomplete, possibly tied) rankings, through their pair-order matrix.
//!
//! - [`PairOrderCounts`]: for each ordered pair of labels (i, j) both present in a ranking, the
//!   weight of the rankings that put i before j and of those that tie them. Additive over rows,
//!   so counts of tree nodes, neighbourhoods or workers merge by addition.
//! - [`PairOrderMatrix`]: `C_ij = (before_ij + tied_ij / 2) / (before_ij + tied_ij + before_ji)`,
//!   the share of "i before j" with a tie counting half; `C_ji = 1 - C_ij`, and 1/2 for a pair
//!   no ranking holds (instead of the tiny epsilon of the published code: the same limit).
//! - [`bpa`]: BPA-LIA-MP2, the bucket pivot algorithm with multiple pivots and two stages (Aledo,
//!   Gámez & Rosete 2017), threshold beta (0.25 by default).
//! - [`borda_with_ties`], [`copeland_with_ties`]: Borda and Copeland scores of C with a tie
//!   threshold beta (Wang, Alfaro & Bengs 2025).
//! - [`BucketConsensus`]: the choice among the three, as learners and the aggregator offer it.
//!
//! Output: a complete rank vector with dense positions, tied labels sharing one (`1, 2, 2, 3`).

mod bpa;
mod scores;

pub use bpa::bpa;
pub use scores::{borda_with_ties, copeland_with_ties};

use crate::data::ranking::RankMatrixView;
use crate::data::training::check_weights;
use crate::error::{LrankError, Result};
use serde::{Deserialize, Serialize};

/// Weighted counts of "i before j" and "i tied with j" over rankings, for every ordered pair.
#[derive(Clone, Debug, PartialEq)]
pub struct PairOrderCounts {
    m: usize,
    /// before[i * m + j]: weight of the rankings holding both with i before j.
    before: Vec<f64>,
    /// tied[i * m + j] (symmetric): weight of the rankings holding both tied.
    tied: Vec<f64>,
}

impl PairOrderCounts {
    pub fn new(m: usize) -> Self {
        PairOrderCounts { m, before: vec![0.0; m * m], tied: vec![0.0; m * m] }
    }

    /// The counts of the rows of `rankings` (weighted by `weights`, else 1 each).
    pub fn of(rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Self {
        let mut counts = PairOrderCounts::new(rankings.n_labels());
        for (i, row) in rankings.rows().enumerate() {
            counts.add(row, weights.map_or(1.0, |w| w[i]));
        }
        counts
    }

    pub fn n_labels(&self) -> usize {
        self.m
    }

    /// Back to no rankings (keeping the buffers).
    pub fn clear(&mut self) {
        self.before.iter_mut().for_each(|v| *v = 0.0);
        self.tied.iter_mut().for_each(|v| *v = 0.0);
    }

    /// Adds one ranking (a rank vector, ties allowed) with weight `w`.
    pub fn add(&mut self, row: &[i32], w: f64) {
        let m = self.m;
        debug_assert_eq!(row.len(), m);
        for (i, &ri) in row.iter().enumerate() {
            if ri <= 0 {
                continue;
            }
            let before = &mut self.before[i * m..(i + 1) * m];
            let tied = &mut self.tied[i * m..(i + 1) * m];
            // Without branches on the pair's order (they mispredict on every ranking): adding
            // 0.0 leaves a count as it is, so the sums are those of the branching loop.
            for (j, &rj) in row.iter().enumerate() {
                let both = rj > 0 && j != i;
                before[j] += if both && ri < rj { w } else { 0.0 };
                tied[j] += if both && ri == rj { w } else { 0.0 };
            }
        }
    }

    /// Adds another count (of the same labels).
    pub fn merge(&mut self, other: &PairOrderCounts) {
        debug_assert_eq!(self.m, other.m);
        self.before.iter_mut().zip(&other.before).for_each(|(a, b)| *a += b);
        self.tied.iter_mut().zip(&other.tied).for_each(|(a, b)| *a += b);
    }

    /// Weight of the rankings with i before j.
    pub fn before(&self, i: usize, j: usize) -> f64 {
        self.before[i * self.m + j]
    }

    /// Weight of the rankings with i and j tied.
    pub fn tied(&self, i: usize, j: usize) -> f64 {
        self.tied[i * self.m + j]
    }

    /// The pair-order matrix C of these counts.
    pub fn matrix(&self) -> PairOrderMatrix {
        let m = self.m;
        let mut c = vec![0.5; m * m];
        let mut seen = vec![false; m];
        for i in 0..m {
            for j in 0..m {
                if i != j {
                    let (before, tied, after) = (self.before(i, j), self.tied(i, j), self.before(j, i));
                    seen[i] |= before + tied + after > 0.0;
                    c[i * m + j] = preference(before, tied, after);
                }
            }
        }
        let unobserved = (0..m).filter(|&i| !seen[i]).collect();
        PairOrderMatrix { m, c, unobserved }
    }
}

/// `(before + tied / 2) / (before + tied + after)`, 1/2 when the pair was never observed.
#[inline]
pub fn preference(before: f64, tied: f64, after: f64) -> f64 {
    let total = before + tied + after;
    if total > 0.0 {
        (before + tied / 2.0) / total
    } else {
        0.5
    }
}

/// The pair-order matrix: `C_ij` in [0, 1] is the degree to which i precedes j (see the module).
#[derive(Clone, Debug, PartialEq)]
pub struct PairOrderMatrix {
    m: usize,
    c: Vec<f64>,
    /// Labels in no observed pair (their entries are the 1/2 of "never observed").
    unobserved: Vec<usize>,
}

impl PairOrderMatrix {
    /// A matrix from its entries (m x m, row-major; the diagonal is ignored). Entries must lie in
    /// [0, 1] with `C_ij + C_ji = 1`, which pairwise models guarantee by construction.
    pub fn from_entries(m: usize, c: Vec<f64>) -> Self {
        debug_assert_eq!(c.len(), m * m);
        PairOrderMatrix { m, c, unobserved: Vec::new() }
    }

    /// The same matrix, `labels` marked as observed in no pair (see [`BucketConsensus`]).
    pub fn with_unobserved(self, labels: Vec<usize>) -> Self {
        PairOrderMatrix { unobserved: labels, ..self }
    }

    pub fn n_labels(&self) -> usize {
        self.m
    }

    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.c[i * self.m + j]
    }

    pub fn entries(&self) -> &[f64] {
        &self.c
    }
}

/// How far apart two numbers the consensus methods compare (entries of C, their means, scores)
/// may be and still count as equal: C's entries are ratios of weights, which rounding leaves a
/// little off (0.3 / 0.4 is 0.7500000000000001); a threshold must not tell 3 / 4 and 0.3 / 0.4
/// apart, or scaling the weights would change bucket orders.
pub const TIE_TOLERANCE: f64 = 1e-10;

/// How a bucket order is made from a pair-order matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BucketMethod {
    /// BPA-LIA-MP2 ([`bpa`]) with the DANI of each recursive call (lrank before format 11).
    Bpa,
    /// Borda scores with a tie threshold ([`borda_with_ties`]).
    Borda,
    /// Copeland scores with a tie threshold ([`copeland_with_ties`]).
    Copeland,
    /// BPA-LIA-MP2 with the global DANI: LIA_G^MP2 of Aledo, Gámez & Rosete (2017), as
    /// scikit-lr and the authors compute it (the default from format 11 on).
    BpaGlobal,
}

/// A consensus with ties: the method and its threshold beta.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BucketConsensus {
    pub method: BucketMethod,
    pub beta: f64,
    /// Thresholds compared with [`TIE_TOLERANCE`] (from model format 11 on); models of older
    /// files compare them exactly, as they were fitted, so that they predict as they did.
    #[serde(
        default = "crate::numeric::file_version::tolerant_ties_default",
        deserialize_with = "crate::numeric::file_version::tolerant_ties"
    )]
    pub tolerant: bool,
    /// Labels that no ranking observes (in no pair with any other label) are left out of the
    /// consensus and put in a last bucket of their own (from model format 13 on): otherwise such
    /// a label, indifferent to all, becomes BPA's pivot and ties every label with it.
    #[serde(
        default = "crate::numeric::file_version::unobserved_last_default",
        deserialize_with = "crate::numeric::file_version::unobserved_last"
    )]
    pub unobserved_last: bool,
}

impl BucketConsensus {
    /// BPA-LIA-MP2 (global DANI) with beta = 0.25, the published default.
    pub const BPA: BucketConsensus =
        BucketConsensus { method: BucketMethod::BpaGlobal, beta: 0.25, tolerant: true, unobserved_last: true };

    /// A consensus of `method` with threshold `beta`, comparing with the tolerance.
    pub fn new(method: BucketMethod, beta: f64) -> BucketConsensus {
        BucketConsensus { method, beta, tolerant: true, unobserved_last: true }
    }

    /// Refuses a beta outside [0, 0.5] (BPA, Copeland: a distance from 1/2) or below 0 or not
    /// finite (Borda: a difference of scores).
    pub fn validate(&self) -> Result<()> {
        let ok = match self.method {
            BucketMethod::Bpa | BucketMethod::BpaGlobal | BucketMethod::Copeland => (0.0..=0.5).contains(&self.beta),
            BucketMethod::Borda => self.beta >= 0.0 && self.beta.is_finite(),
        };
        if ok {
            Ok(())
        } else {
            let range = if self.method == BucketMethod::Borda { "a finite number >= 0" } else { "in [0, 0.5]" };
            Err(LrankError::InvalidParameter { name: "beta", reason: format!("must be {range}, got {}", self.beta) })
        }
    }

    /// The bucket order of a pair-order matrix.
    pub fn of_matrix(&self, c: &PairOrderMatrix) -> Vec<i32> {
        let m = c.n_labels();
        if !self.unobserved_last || c.unobserved.is_empty() || c.unobserved.len() == m {
            return self.of_all(c);
        }
        // The consensus of the observed labels, then the unobserved ones in a last bucket.
        let observed: Vec<usize> = (0..m).filter(|j| !c.unobserved.contains(j)).collect();
        let k = observed.len();
        let sub: Vec<f64> = observed.iter().flat_map(|&i| observed.iter().map(move |&j| c.get(i, j))).collect();
        let inner = self.of_all(&PairOrderMatrix::from_entries(k, sub));
        let last = inner.iter().copied().max().unwrap_or(0) + 1;
        let mut ranks = vec![last; m];
        for (&label, &rank) in observed.iter().zip(&inner) {
            ranks[label] = rank;
        }
        ranks
    }

    /// [`Self::of_matrix`] over every label.
    fn of_all(&self, c: &PairOrderMatrix) -> Vec<i32> {
        let tolerance = if self.tolerant { TIE_TOLERANCE } else { 0.0 };
        match self.method {
            BucketMethod::Bpa => bpa::bpa_within(c, self.beta, false, tolerance),
            BucketMethod::BpaGlobal => bpa::bpa_within(c, self.beta, true, tolerance),
            BucketMethod::Borda => scores::borda_within(c, self.beta, tolerance),
            BucketMethod::Copeland => scores::copeland_within(c, self.beta, tolerance),
        }
    }

    /// The consensus of the rows of `rankings` (weighted, possibly incomplete and tied); the
    /// weights are checked.
    pub fn aggregate(&self, rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> Result<Vec<i32>> {
        check_weights(weights, rankings.n_rows())?;
        // Three m x m tables (the counts and C): one ranking may declare m in the tens of thousands.
        crate::memory::check::<f64>("the pair-order tables of the labels", &[3, rankings.n_labels(), rankings.n_labels()])?;
        Ok(self.of_matrix(&PairOrderCounts::of(rankings, weights).matrix()))
    }
}

/// The rank vector (dense positions) of buckets of labels, most preferred bucket first.
pub fn ranks_of_buckets(buckets: &[Vec<usize>], m: usize) -> Vec<i32> {
    let mut ranks = vec![0; m];
    for (b, bucket) in buckets.iter().enumerate() {
        for &label in bucket {
            ranks[label] = b as i32 + 1;
        }
    }
    ranks
}

#[cfg(test)]
mod tests;
