//! Features binned once per fit for the histogram search: at most `max_bins` bins per
//! feature, cut at quantiles of the training rows.
//!
//! - A numeric feature with at most `max_bins` distinct values gets one bin per value (the
//!   histogram search is then the exact search); with more, consecutive values are grouped so that
//!   each bin holds about n / `max_bins` rows: the bin grows value by value until the rows so far
//!   reach the next multiple of n / `max_bins` (a frequent value gets a bin of its own; never more
//!   than `max_bins` bins). On more than [`BIN_SAMPLE_ROWS`] rows, those quantiles are taken
//!   from that many evenly spaced rows ([`bin_sample_rows`]), as scikit-learn's and LightGBM's
//!   histogram boosting do: binning then costs no more on more rows, and a cluster cuts the same
//!   bins from the rows each worker holds.
//! - A nominal feature gets one bin per category, so that it keeps its one-value-against-the-rest
//!   splits; one with more categories than `max_bins` is not binned and is searched exactly.
//! - Missing values were replaced by the training lower median before (as for the exact search,
//!   and as at prediction), so they are in that value's bin.
//!
//! A value's bin is the number of bin thresholds below it; the threshold between bins b and c
//! (the next bin a node holds) is midway between the largest sampled value of b and the smallest
//! of c. Every training row of b or below is then at or below it, so a split between bins is the
//! threshold's split of the training rows; when every bin holds one value, it is the exact
//! search's threshold.

use serde::{Deserialize, Serialize};

/// Rows the quantiles are taken from, at most (see the module docs).
pub const BIN_SAMPLE_ROWS: usize = 200_000;

/// The bins of one feature: each bin's smallest and largest (sampled) training value, ascending.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeatureEdges {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl FeatureEdges {
    /// One bin per value (`values` distinct, ascending).
    pub fn one_per_value(values: &[f64]) -> Self {
        FeatureEdges { lower: values.to_vec(), upper: values.to_vec() }
    }

    /// Quantile bins of distinct ascending `values` counted `counts` times (see the module docs).
    pub fn quantiles(values: &[f64], counts: &[u64], max_bins: usize) -> Self {
        let max_bins = max_bins.clamp(2, MAX_BINS) as u64;
        let n: u64 = counts.iter().sum();
        let (mut lower, mut upper) = (Vec::new(), Vec::new());
        let (mut bin, mut so_far) = (0u64, 0u64);
        for (k, (&v, &c)) in values.iter().zip(counts).enumerate() {
            if lower.len() as u64 == bin {
                lower.push(v);
                upper.push(v);
            }
            upper[bin as usize] = v;
            so_far += c;
            // so_far / n >= (bin + 1) / max_bins, in integers; never after the last value.
            if so_far * max_bins >= (bin + 1) * n && k + 1 < values.len() {
                bin += 1;
            }
        }
        FeatureEdges { lower, upper }
    }

    pub fn n_bins(&self) -> usize {
        self.lower.len()
    }

    /// The threshold between bin `a` and a later bin `b`.
    #[inline]
    fn threshold(&self, a: usize, b: usize) -> f64 {
        crate::numeric::midpoint(self.upper[a], self.lower[b])
    }

    /// The bin of a value: how many thresholds between consecutive bins lie below it.
    pub fn code(&self, v: f64) -> u8 {
        let (mut lo, mut hi) = (0usize, self.n_bins().saturating_sub(1));
        while lo < hi {
            let mid = (lo + hi) / 2;
            if v > self.threshold(mid, mid + 1) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo as u8
    }
}

/// The edges of a feature's bins: one per value when it has at most `max_bins` distinct values
/// (`few`: those values, ascending), else a nominal feature is not binned (`None`) and a numeric
/// one gets quantile bins of the `sampled` distinct values and their counts.
pub fn feature_edges(few: Option<&[f64]>, sampled: (&[f64], &[u64]), nominal: bool, max_bins: usize) -> Option<FeatureEdges> {
    match few {
        Some(values) => Some(FeatureEdges::one_per_value(values)),
        None if nominal => None,
        None => Some(FeatureEdges::quantiles(sampled.0, sampled.1, max_bins)),
    }
}

/// The rows among `0..n` the quantiles are cut from that lie in `start..end`: every row when
/// `n <= sample`, else rows floor(k n / sample) for k in 0..sample.
pub fn bin_sample_rows(n: usize, start: usize, end: usize, sample: usize) -> Box<dyn Iterator<Item = usize>> {
    if n <= sample {
        return Box::new(start..end.min(n));
    }
    let (n128, s128) = (n as u128, sample as u128);
    // The first k with floor(k n / sample) >= start.
    let first = (start as u128 * s128).div_ceil(n128);
    Box::new((first..s128).map(move |k| (k * n128 / s128) as usize).take_while(move |&i| i < end))
}

/// Where each feature's bins are, without the rows' codes: what a histogram's layout and a
/// split's threshold need (a cluster's driver has this only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BinLayout {
    /// Per feature: its bins, or `None` when it is not binned (searched exactly).
    edges: Vec<Option<FeatureEdges>>,
    /// Per feature: where its bins start in a node histogram (in bins).
    offsets: Vec<usize>,
    total_bins: usize,
}

impl BinLayout {
    pub fn new(edges: Vec<Option<FeatureEdges>>) -> Self {
        let mut offsets = Vec::with_capacity(edges.len());
        let mut total_bins = 0;
        for e in &edges {
            offsets.push(total_bins);
            total_bins += e.as_ref().map_or(0, FeatureEdges::n_bins);
        }
        BinLayout { edges, offsets, total_bins }
    }

    pub fn n_features(&self) -> usize {
        self.edges.len()
    }

    pub fn edges(&self, f: usize) -> Option<&FeatureEdges> {
        self.edges[f].as_ref()
    }

    /// Number of bins of feature `f`; 0 when it is searched exactly.
    #[inline]
    pub fn n_bins(&self, f: usize) -> usize {
        self.edges[f].as_ref().map_or(0, FeatureEdges::n_bins)
    }

    /// Where feature `f`'s bins start among all features' bins.
    #[inline]
    pub fn offset(&self, f: usize) -> usize {
        self.offsets[f]
    }

    /// Bins of all features together (the size of a node histogram, in bins).
    pub fn total_bins(&self) -> usize {
        self.total_bins
    }

    /// The threshold between bin `a` and a later bin `b` of feature `f`.
    #[inline]
    pub(super) fn threshold(&self, f: usize, a: usize, b: usize) -> f64 {
        self.edges[f].as_ref().expect("a binned feature").threshold(a, b)
    }

    /// The value of a bin of a nominal feature (its one category).
    #[inline]
    pub(super) fn category(&self, f: usize, b: usize) -> f64 {
        self.edges[f].as_ref().expect("a binned feature").lower[b]
    }
}

/// Bin codes (row-major, n x d, so a sample's codes for all features share a cache line) and
/// the bins' layout.
pub struct Bins {
    codes: Vec<u8>,
    n_features: usize,
    layout: BinLayout,
}

impl std::ops::Deref for Bins {
    type Target = BinLayout;
    fn deref(&self) -> &BinLayout {
        &self.layout
    }
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
        Self::sampling(n_rows, features, max_bins, BIN_SAMPLE_ROWS)
    }

    /// [`Bins::new`] with quantiles from at most `sample` rows.
    pub(super) fn sampling(n_rows: usize, features: &[(Vec<u32>, Vec<f64>, bool)], max_bins: usize, sample: usize) -> Self {
        let max_bins = max_bins.clamp(2, MAX_BINS);
        let d = features.len();
        let mut codes = vec![0u8; n_rows * d];
        let mut edges = Vec::with_capacity(d);
        for (f, (ranks, rank_values, nominal)) in features.iter().enumerate() {
            let few = (rank_values.len() <= max_bins).then_some(rank_values.as_slice());
            let mut counts = vec![0u64; if few.is_none() && !nominal { rank_values.len() } else { 0 }];
            if !counts.is_empty() {
                for i in bin_sample_rows(n_rows, 0, n_rows, sample) {
                    counts[ranks[i] as usize] += 1;
                }
            }
            let (values, counts): (Vec<f64>, Vec<u64>) =
                rank_values.iter().zip(&counts).filter(|&(_, &c)| c > 0).map(|(&v, &c)| (v, c)).unzip();
            let feature = feature_edges(few, (&values, &counts), *nominal, max_bins);
            if let Some(e) = &feature {
                let code_of_rank: Vec<u8> = rank_values.iter().map(|&v| e.code(v)).collect();
                for (i, &r) in ranks.iter().enumerate() {
                    codes[i * d + f] = code_of_rank[r as usize];
                }
            }
            edges.push(feature);
        }
        Bins { codes, n_features: d, layout: BinLayout::new(edges) }
    }

    /// The bin of row `i` in feature `f` (a binned feature).
    #[inline]
    pub(super) fn code(&self, i: usize, f: usize) -> u8 {
        self.codes[i * self.n_features + f]
    }

    /// Every row's codes (row-major) and the codes per row.
    #[inline]
    pub(super) fn all_codes(&self) -> (&[u8], usize) {
        (&self.codes, self.n_features)
    }

    /// Row `i`'s codes for every feature.
    #[inline]
    pub(super) fn row(&self, i: usize) -> &[u8] {
        &self.codes[i * self.n_features..(i + 1) * self.n_features]
    }

    pub fn layout(&self) -> &BinLayout {
        &self.layout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct values and counts of `ranks` (value = rank).
    fn counted(ranks: &[u32], n_distinct: usize) -> (Vec<f64>, Vec<u64>) {
        let mut counts = vec![0u64; n_distinct];
        ranks.iter().for_each(|&r| counts[r as usize] += 1);
        (0..n_distinct).filter(|&r| counts[r] > 0).map(|r| (r as f64, counts[r])).unzip()
    }

    #[test]
    fn quantile_bins_hold_about_equal_rows_and_never_exceed_the_limit() {
        // 1000 rows, 400 distinct values, value 7 very frequent.
        let ranks: Vec<u32> = (0..1000u32).map(|i| if i < 300 { 7 } else { (i * 7919) % 400 }).collect();
        let (values, counts) = counted(&ranks, 400);
        for max_bins in [2usize, 10, 37, 255] {
            let edges = FeatureEdges::quantiles(&values, &counts, max_bins);
            let nb = edges.n_bins();
            assert!(nb <= max_bins && nb >= 2, "{max_bins}: {nb} bins");
            assert!(edges.lower.windows(2).all(|w| w[0] < w[1]) && edges.lower.iter().zip(&edges.upper).all(|(l, u)| l <= u));
            let mut rows = vec![0usize; nb];
            ranks.iter().for_each(|&r| rows[edges.code(r as f64) as usize] += 1);
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
        let e = coarse.edges(0).unwrap();
        for i in 0..600 {
            let b = coarse.code(i, 0) as usize;
            let v = (i % 300) as f64;
            assert!(e.lower[b] <= v && v <= e.upper[b]);
        }
        assert_eq!(coarse.threshold(0, 0, 1), 29.5);
    }

    /// The binning before sampling: each rank's bin by the quantile rule over all rows.
    fn reference_bin_of_rank(ranks: &[u32], n_distinct: usize, max_bins: usize) -> Vec<usize> {
        let mut counts = vec![0usize; n_distinct];
        ranks.iter().for_each(|&r| counts[r as usize] += 1);
        let n = ranks.len();
        let (mut bin, mut so_far, mut out) = (0usize, 0usize, Vec::new());
        for (r, &c) in counts.iter().enumerate() {
            out.push(bin);
            so_far += c;
            if so_far * max_bins >= (bin + 1) * n && r + 1 < n_distinct {
                bin += 1;
            }
        }
        out
    }

    #[test]
    fn codes_by_threshold_are_the_quantile_bins_of_every_row_up_to_the_sample_size() {
        let mut rng = crate::rng::Rng::new(5);
        for trial in 0..40 {
            let n = 50 + rng.below(400);
            let n_distinct = 2 + rng.below(n - 1);
            // Ranks with every rank present, values with close neighbours (adjacent floats too).
            let mut ranks: Vec<u32> = (0..n).map(|i| (i % n_distinct) as u32).collect();
            rng.shuffle(&mut ranks);
            let mut values = Vec::new();
            let mut v = -3.0f64;
            for _ in 0..n_distinct {
                values.push(v);
                v = if rng.below(4) == 0 { v.next_up() } else { v + rng.below(5) as f64 + 0.5 };
            }
            let max_bins = [2, 3, 16, 255][trial % 4];
            let bins = Bins::new(n, &[(ranks.clone(), values.clone(), false)], max_bins);
            let expected = if n_distinct <= max_bins {
                (0..n_distinct).collect()
            } else {
                reference_bin_of_rank(&ranks, n_distinct, max_bins)
            };
            for (i, &r) in ranks.iter().enumerate() {
                assert_eq!(bins.code(i, 0) as usize, expected[r as usize], "trial {trial}");
            }
        }
    }

    #[test]
    fn sampled_rows_are_evenly_spaced_and_found_part_by_part() {
        assert_eq!(bin_sample_rows(5, 1, 4, 10).collect::<Vec<_>>(), vec![1, 2, 3]);
        let all: Vec<usize> = bin_sample_rows(1000, 0, 1000, 7).collect();
        assert_eq!(all, vec![0, 142, 285, 428, 571, 714, 857]);
        let mut parts = Vec::new();
        for (a, b) in [(0, 143), (143, 500), (500, 1000)] {
            parts.extend(bin_sample_rows(1000, a, b, 7));
        }
        assert_eq!(parts, all);
        // More rows than the sample: codes still order the values, thresholds between bins.
        let n = 3000;
        let ranks: Vec<u32> = (0..n as u32).map(|i| (i * 7) % 1000).collect();
        let values: Vec<f64> = (0..1000).map(|v| v as f64 * 0.5).collect();
        let bins = Bins::sampling(n, &[(ranks.clone(), values.clone(), false)], 20, 300);
        assert_eq!(bins.n_bins(0), 20);
        for (i, &r) in ranks.iter().enumerate() {
            let b = bins.code(i, 0) as usize;
            let v = values[r as usize];
            if b > 0 {
                assert!(v > bins.threshold(0, b - 1, b));
            }
            if b + 1 < 20 {
                assert!(v <= bins.threshold(0, b, b + 1));
            }
        }
    }
}
