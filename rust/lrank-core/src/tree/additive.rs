//! Criteria whose statistics add up over samples, described once for both split searches.
//!
//! A criterion is additive when what it needs of a set of samples is a sum over them: class
//! weights (LR-RF's classes, the one-versus-one trees, the pairwise PLR forests), label-pair
//! direction counts (LR-RF's pairwise mode), per-label weights and target sums (labelwise
//! variance, MORE-PLR), pair-order counts (the partial-label-ranking trees). Such a criterion says
//! once, through [`AdditiveCriterion`], what one sample adds ([`AdditiveCriterion::sample_stats`])
//! and how a split with some samples on the left and the rest on the right scores
//! ([`SplitSides`]). From that:
//! - the exact search sweeps a node's samples in sorted order, moving them left one by one
//!   ([`additive_best_boundary`], the engine's one [`sweep`]);
//! - the histogram search (`histogram`) sums the statistics per bin of each feature and moves
//!   whole bins (a histogram per node; a child's by subtracting its sibling's from its parent's).
//!
//! Both must find the same split when each bin holds one distinct value. They do because the
//! sides keep their statistics exactly: with whole-number weights (bootstrap counts) sums of
//! whole numbers are exact in floating point whatever their order, and criteria whose score needs
//! a running sum of a non-linear term (entropies' c ln c) keep it in fixed point
//! ([`FixedXlnx`]), whose integer sums do not depend on the order either. Moving a bin at once
//! or its samples one by one then gives bit-identical scores, and ties are real ties (the first
//! boundary, the first feature wins), not decided by rounding.
//!
//! A new additive criterion: implement [`SplitCriterion`] with `best_boundary` calling
//! [`additive_best_boundary`], and [`AdditiveCriterion`] with its statistics and sides; its
//! learner then grows trees with `Growth::grow_additive`, which searches histograms when the
//! features are binned.

use super::sweep::{sweep, Boundaries, BoundarySweep, SortedSample, SplitCriterion};

/// A candidate split of one node: samples move from the right side to the left.
pub trait SplitSides {
    /// Moves one sample (with its weight) to the left side.
    fn move_sample(&mut self, sample: u32, weight: f64);
    /// Moves summed statistics (a histogram bin's: its weight and dense statistics) to the left.
    fn move_sums(&mut self, weight: f64, stats: &[f64]);
    /// The score of the split as it stands (higher is better), or `None` when it is no valid split.
    fn score(&self) -> Option<f64>;
}

/// Something done with a criterion's [`SplitSides`] (a sweep over samples or over bins); a trait
/// with a generic method, so that each criterion's sides are used without dynamic dispatch.
pub trait SidesTask {
    type Output;
    fn run<S: SplitSides>(self, sides: &mut S) -> Self::Output;
}

/// A split criterion whose statistics of a set of samples are a sum over its samples.
pub trait AdditiveCriterion: SplitCriterion {
    /// Length of the statistics vector (a histogram bin holds the weight, then these).
    fn n_stats(&self) -> usize;

    /// Appends the statistics `weight` copies of `sample` add, as (entry, amount) pairs (entries
    /// with no amount may be left out).
    fn sample_stats(&self, sample: u32, weight: f64, out: &mut Vec<(u32, f64)>);

    /// When every sample has every statistic (gradient boosting's, complete regression targets'):
    /// writes the `n_stats` statistics `weight` copies of `sample` add into `out` and returns
    /// true, so that histograms add them as one dense run; otherwise false, writing nothing, and
    /// histograms use [`Self::sample_stats`]. Both must give the same sums.
    fn dense_sample_stats(&self, _sample: u32, _weight: f64, _out: &mut [f64]) -> bool {
        false
    }

    /// A node's statistics from its samples' total weight (`whole`: every weight a whole number)
    /// and summed statistics, the same as [`SplitCriterion::node_stats`] of those samples;
    /// `None` for criteria that cannot (trees grown level by level, `levelwise`, need it).
    fn node_stats_from_sums(&self, _weight: f64, _whole: bool, _sums: &[f64]) -> Option<Self::NodeStats> {
        None
    }

    /// Whether every statistic is a sum of non-negative amounts (class weights, pair counts): a
    /// node's non-zero statistics are then among its parent's, which lets a levelwise forest
    /// send a node's histograms with those only.
    fn sums_nonnegative(&self) -> bool {
        false
    }

    /// Sets up the sides of a split of `node`, all of it on the right (its statistics, summed
    /// once by [`SplitCriterion::node_stats`]), and runs `task` on them.
    fn with_sides<T: SidesTask>(&self, node: &Self::NodeStats, task: T) -> T::Output;
}

/// A later boundary replaces the best so far only when it scores more than this above it (as in
/// every sweep of the engine): ties go to the first boundary.
pub const MARGIN: f64 = 1e-12;

/// The exact sweep of an additive criterion: [`SplitCriterion::best_boundary`] of every
/// additive criterion.
pub fn additive_best_boundary<C: AdditiveCriterion>(
    criterion: &C,
    node: &C::NodeStats,
    sorted: &[SortedSample],
    boundaries: Boundaries,
    floor: f64,
) -> Option<(usize, f64)> {
    criterion.with_sides(node, ExactSweep { sorted, boundaries, floor })
}

struct ExactSweep<'a> {
    sorted: &'a [SortedSample],
    boundaries: Boundaries,
    floor: f64,
}

impl SidesTask for ExactSweep<'_> {
    type Output = Option<(usize, f64)>;
    fn run<S: SplitSides>(self, sides: &mut S) -> Self::Output {
        sweep(&mut SweepOf(sides), self.sorted, self.boundaries, self.floor)
    }
}

/// [`SplitSides`] driven by the engine's sample sweep.
struct SweepOf<'a, S>(&'a mut S);

impl<S: SplitSides> BoundarySweep for SweepOf<'_, S> {
    const MARGIN: f64 = MARGIN;

    #[inline]
    fn move_left(&mut self, moved: &SortedSample) {
        self.0.move_sample(moved.sample, moved.weight);
    }

    #[inline]
    fn score(&mut self, _to_beat: f64) -> Option<f64> {
        self.0.score()
    }
}

/// c ln c in fixed point (an integer number of 2^-bits), from a table for whole counts (bootstrap
/// weights are whole numbers; the logarithm is most of a split search's cost otherwise). Sums of
/// these integers are exact in any order (held in i128, they cannot overflow).
#[derive(Clone, Debug)]
pub struct FixedXlnx {
    table: Vec<i64>,
    scale: f64,
}

impl FixedXlnx {
    /// A table for whole counts `0..=max_count`, with as many fractional bits as keep the largest
    /// entry within 2^62 (at most 44: finer than any rounding that matters for a split's score).
    pub fn new(max_count: usize) -> Self {
        Self::with_headroom(max_count, 1)
    }

    /// A table for whole counts `0..=max_count` whose entries summed `terms` times stay within
    /// 2^62 (a sum over many label pairs), as long as that leaves at least 8 fractional bits.
    pub fn with_headroom(max_count: usize, terms: usize) -> Self {
        let top = xlnx(max_count.max(2) as f64) * terms.max(1) as f64;
        let bits = (62.0 - top.log2().ceil()).clamp(8.0, 44.0);
        let scale = bits.exp2();
        let table = (0..=max_count).map(|c| fixed(xlnx(c as f64), scale) as i64).collect();
        FixedXlnx { table, scale }
    }

    /// c ln c of a weight (0 for c <= 0), in units of 1 / 2^bits.
    #[inline]
    pub fn get(&self, c: f64) -> i128 {
        let i = c as i64;
        if i as f64 == c && (i as u64) < self.table.len() as u64 {
            self.table[i as usize] as i128
        } else {
            fixed(xlnx(c), self.scale)
        }
    }

    /// [`Self::get`] of a whole number in the table (`0..=max_count`; a node checks it once
    /// with [`Self::holds_whole`]). Sums of these stay below 2^62: Σ c ln c <= (Σ c) ln (Σ c).
    #[inline]
    pub fn whole(&self, c: u32) -> i64 {
        self.table[c as usize]
    }

    /// Whether every sum of these weights (which add up to `total`) is a whole number in the
    /// table, so that [`Self::whole`] serves a node whose samples have them.
    pub fn holds_whole(&self, weights: &[f64], total: f64) -> bool {
        self.holds_total(total) && weights.iter().all(|&w| (w as u32) as f64 == w)
    }

    /// Whether whole-number weights adding up to `total` are all in the table.
    pub fn holds_total(&self, total: f64) -> bool {
        total < self.table.len() as f64
    }

    /// The value of a number of units.
    #[inline]
    pub fn to_f64(&self, units: i128) -> f64 {
        units as f64 / self.scale
    }

    /// [`Self::to_f64`] of units that fit in i64 (the same value; i128 to f64 is a slow call).
    #[inline]
    pub fn units_to_f64(&self, units: i64) -> f64 {
        units as f64 / self.scale
    }
}

#[inline]
fn fixed(x: f64, scale: f64) -> i128 {
    (x * scale).round() as i128
}

/// c ln c (0 for c <= 0).
#[inline]
pub(crate) fn xlnx(c: f64) -> f64 {
    if c > 0.0 {
        c * c.ln()
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_xlnx_sums_do_not_depend_on_order() {
        let t = FixedXlnx::new(1000);
        assert_eq!(t.get(0.0), 0);
        assert!((t.to_f64(t.get(10.0)) - 10.0 * 10f64.ln()).abs() < 1e-9);
        assert!((t.to_f64(t.get(2.5)) - 2.5 * 2.5f64.ln()).abs() < 1e-9);
        assert!((t.to_f64(t.get(5000.0)) - 5000.0 * 5000f64.ln()).abs() < 1e-6);
        // A running sum updated as counts move, in two orders, ends at the same integer.
        let moves = [(0usize, 3.0), (1, 2.0), (0, 1.0), (2, 4.0), (1, 1.0)];
        let run = |order: &[usize]| {
            let mut counts = [0.0f64; 3];
            let mut s = 0i128;
            for &k in order {
                let (c, a) = moves[k];
                s -= t.get(counts[c]);
                counts[c] += a;
                s += t.get(counts[c]);
            }
            s
        };
        assert_eq!(run(&[0, 1, 2, 3, 4]), run(&[4, 2, 0, 3, 1]));
    }
}
