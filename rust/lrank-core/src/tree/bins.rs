//! Features binned once per fit for the histogram split search: at most `max_bins` bins per
//! feature, cut at quantiles of the training rows.
//!
//! - A numeric feature with at most `max_bins` distinct values gets one bin per value (the
//!   histogram search is then the exact search); with more, consecutive values are grouped so that
//!   each bin holds about n / `max_bins` rows: the bin grows value by value until the rows so far
//!   reach the next multiple of n / `max_bins` (a frequent value gets a bin of its own; never more
//!   than `max_bins` bins).
//! - A nominal feature gets one bin per category, so that it keeps its one-value-against-the-rest
//!   splits; one with more categories than `max_bins` is not binned and is searched exactly.
//! - Missing values were replaced by the training lower median before (as for the exact search,
//!   and as at prediction), so they are in that value's bin.
//!
//! A split between bins b and the next bin the node holds, c, has the threshold midway between the
//! largest training value in b and the smallest in c: when every bin holds one value, that is the
//! exact search's threshold, and in any case every training row of b or below goes left.

/// Bin codes (row-major, n x d, so a sample's codes for all features share a cache line) and
/// each bin's smallest and largest training value.
pub struct Bins {
    codes: Vec<u8>,
    n_features: usize,
    /// Per feature: its number of bins, or 0 when it is not binned (searched exactly).
    n_bins: Vec<usize>,
    /// Per feature: where its bins start in a node histogram (in bins).
    offsets: Vec<usize>,
    total_bins: usize,
    lower: Vec<Vec<f64>>,
    upper: Vec<Vec<f64>>,
}

/// The most bins a feature can have (codes are bytes).
pub const MAX_BINS: usize = 255;

/// Checks a learner's `max_bins` parameter: `None` (exact search), or 2 to [`MAX_BINS`].
pub fn check_max_bins(max_bins: Option<usize>) -> crate::Result<()> {
    match max_bins {
        Some(b) if !(2..=MAX_BINS).contains(&b) => Err(crate::LrankError::InvalidParameter {
            name: "max_bins",
            reason: format!("must lie in 2..={MAX_BINS} (or be None for the exact search), got {b}"),
        }),
        _ => Ok(()),
    }
}

impl Bins {
    /// Bins for features given, per feature, each row's dense rank (equal values share a rank,
    /// ascending with the value), the value of each rank, and whether the feature is nominal.
    pub(super) fn new(n_rows: usize, features: &[(Vec<u32>, Vec<f64>, bool)], max_bins: usize) -> Self {
        let max_bins = max_bins.clamp(2, MAX_BINS);
        let d = features.len();
        let mut codes = vec![0u8; n_rows * d];
        let (mut n_bins, mut offsets, mut lower, mut upper) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut total_bins = 0;
        for (f, (ranks, rank_values, nominal)) in features.iter().enumerate() {
            let n_distinct = rank_values.len();
            let bin_of_rank: Option<Vec<usize>> = if n_distinct <= max_bins {
                Some((0..n_distinct).collect())
            } else if *nominal {
                None
            } else {
                Some(quantile_bins(ranks, n_distinct, max_bins))
            };
            offsets.push(total_bins);
            let Some(bin_of_rank) = bin_of_rank else {
                n_bins.push(0);
                lower.push(Vec::new());
                upper.push(Vec::new());
                continue;
            };
            let nb = bin_of_rank.last().map_or(0, |&b| b + 1);
            let (mut lo, mut hi) = (vec![f64::INFINITY; nb], vec![f64::NEG_INFINITY; nb]);
            for (r, &b) in bin_of_rank.iter().enumerate() {
                lo[b] = lo[b].min(rank_values[r]);
                hi[b] = hi[b].max(rank_values[r]);
            }
            for (i, &r) in ranks.iter().enumerate() {
                codes[i * d + f] = bin_of_rank[r as usize] as u8;
            }
            n_bins.push(nb);
            lower.push(lo);
            upper.push(hi);
            total_bins += nb;
        }
        Bins { codes, n_features: d, n_bins, offsets, total_bins, lower, upper }
    }

    /// The bin of row `i` in feature `f` (a binned feature).
    #[inline]
    pub(super) fn code(&self, i: usize, f: usize) -> u8 {
        self.codes[i * self.n_features + f]
    }

    /// Row `i`'s codes for every feature.
    #[inline]
    pub(super) fn row(&self, i: usize) -> &[u8] {
        &self.codes[i * self.n_features..(i + 1) * self.n_features]
    }

    /// Number of bins of feature `f`; 0 when it is searched exactly.
    #[inline]
    pub fn n_bins(&self, f: usize) -> usize {
        self.n_bins[f]
    }

    #[inline]
    pub(super) fn offset(&self, f: usize) -> usize {
        self.offsets[f]
    }

    /// Bins of all features together (the size of a node histogram, in bins).
    pub(super) fn total_bins(&self) -> usize {
        self.total_bins
    }

    /// The threshold between bin `a` and a later bin `b` of feature `f`.
    #[inline]
    pub(super) fn threshold(&self, f: usize, a: usize, b: usize) -> f64 {
        crate::numeric::midpoint(self.upper[f][a], self.lower[f][b])
    }

    /// The value of a bin of a nominal feature (its one category).
    #[inline]
    pub(super) fn category(&self, f: usize, b: usize) -> f64 {
        self.lower[f][b]
    }
}

/// The bin of each rank: consecutive ranks grouped so that each bin reaches the next multiple of
/// n / max_bins rows (see the module docs); at most `max_bins` bins, the last one not empty.
fn quantile_bins(ranks: &[u32], n_distinct: usize, max_bins: usize) -> Vec<usize> {
    let mut counts = vec![0usize; n_distinct];
    for &r in ranks {
        counts[r as usize] += 1;
    }
    let n = ranks.len();
    let (mut bin, mut so_far) = (0usize, 0usize);
    let mut out = Vec::with_capacity(n_distinct);
    for (r, &c) in counts.iter().enumerate() {
        out.push(bin);
        so_far += c;
        // so_far / n >= (bin + 1) / max_bins, in integers; never after the last value.
        if so_far * max_bins >= (bin + 1) * n && r + 1 < n_distinct {
            bin += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_bins_hold_about_equal_rows_and_never_exceed_the_limit() {
        // 1000 rows, 400 distinct values, value 7 very frequent.
        let ranks: Vec<u32> = (0..1000u32).map(|i| if i < 300 { 7 } else { (i * 7919) % 400 }).collect();
        for max_bins in [2usize, 10, 37, 255] {
            let bins = quantile_bins(&ranks, 400, max_bins);
            let nb = bins.last().unwrap() + 1;
            assert!(nb <= max_bins && nb >= 2, "{max_bins}: {nb} bins");
            assert!(bins.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1), "consecutive, ascending");
            let mut rows = vec![0usize; nb];
            ranks.iter().for_each(|&r| rows[bins[r as usize]] += 1);
            // Each bin but one holding the frequent value stays under two shares of n.
            let share = 1000 / max_bins + 1;
            let big = rows.iter().filter(|&&c| c > 2 * share + 1).count();
            assert!(big <= 1, "{max_bins}: {rows:?}");
            assert!(rows.iter().all(|&c| c > 0));
        }
    }

    #[test]
    fn few_values_get_a_bin_each_and_thresholds_are_midpoints() {
        let ranks = vec![0u32, 2, 1, 2, 0];
        let values = vec![1.0, 2.5, 4.0];
        let many: Vec<u32> = (0..600).map(|i| i % 300).collect();
        let many_values: Vec<f64> = (0..300).map(|v| v as f64).collect();
        let bins = Bins::new(
            5,
            &[(ranks.clone(), values.clone(), false), (ranks.clone(), values, true), (many[..5].to_vec(), many_values, true)],
            255,
        );
        assert_eq!((bins.n_bins(0), bins.n_bins(1), bins.n_bins(2)), (3, 3, 0));
        assert_eq!(bins.total_bins(), 6);
        assert_eq!(bins.offset(1), 3);
        assert_eq!(bins.code(3, 0), 2);
        assert_eq!(bins.row(1), &[2, 2, 0]);
        assert_eq!(bins.threshold(0, 0, 2), 2.5);
        assert_eq!(bins.threshold(0, 1, 2), 3.25);
        assert_eq!(bins.category(1, 1), 2.5);
        // Many values in few bins: thresholds between a bin's largest and the next one's smallest.
        let coarse = Bins::new(600, &[(many.clone(), (0..300).map(|v| v as f64).collect(), false)], 10);
        assert_eq!(coarse.n_bins(0), 10);
        for i in 0..600 {
            let b = coarse.code(i, 0) as usize;
            let v = (i % 300) as f64;
            assert!(coarse.lower[0][b] <= v && v <= coarse.upper[0][b]);
        }
        assert_eq!(coarse.threshold(0, 0, 1), 29.5);
    }
}
