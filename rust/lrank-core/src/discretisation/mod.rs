//! Unsupervised discretisation of a numeric attribute: cut points that split its values into
//! `k` bins, a value `v` falling in the first bin whose cut is `>= v` (the last bin if none).
//!
//! - [`equal_width_cuts`]: the range [min, max] cut into `k` intervals of equal width.
//! - [`equal_frequency_cuts`]: bins holding (as nearly as the ties allow) equal total weight.
//!
//! W-LRT and F-LRT (Aledo, Gámez & Molina) use the `k = 2` case in every tree node: equal width
//! splits at the midpoint of the node's smallest and largest value, equal frequency at its
//! (weighted lower) median. Cuts always lie strictly below the largest value and at or above the
//! smallest, so every cut leaves values on both sides; duplicate cuts are dropped, so fewer than
//! `k - 1` cuts come back when the values have few distinct levels (none for a constant
//! attribute). NaN values are ignored.

use crate::numeric::midpoint;

/// Cut points of `k` equal-width bins over the values' range (at most `k - 1`, ascending).
pub fn equal_width_cuts(values: &[f64], k: usize) -> Vec<f64> {
    let (lo, hi) =
        values.iter().filter(|v| !v.is_nan()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    if k < 2 || lo >= hi || lo.is_nan() {
        return Vec::new();
    }
    let mut cuts: Vec<f64> = Vec::with_capacity(k - 1);
    for i in 1..k {
        // For two bins this is exactly the midpoint (kept below `hi` for neighbouring floats).
        let cut = if 2 * i == k { midpoint(lo, hi) } else { lo + (hi - lo) * (i as f64 / k as f64) };
        let cut = if cut >= hi { midpoint(lo, hi).max(lo) } else { cut };
        if cuts.last().is_none_or(|&c| cut > c) {
            cuts.push(cut);
        }
    }
    cuts
}

/// Cut points of `k` equal-frequency bins (at most `k - 1`, ascending): cut i follows the value
/// at which the cumulative weight (values in ascending order) first reaches i/k of the total,
/// halfway to the next distinct value; when that value is the largest, the cut goes below it
/// instead (between the largest value and the one before). `weights` has one non-negative
/// weight per value (bootstrap multiplicities, say); `None` weighs every value 1.
pub fn equal_frequency_cuts(values: &[f64], weights: Option<&[f64]>, k: usize) -> Vec<f64> {
    let mut pairs: Vec<(f64, f64)> =
        values.iter().enumerate().filter(|(_, v)| !v.is_nan()).map(|(i, &v)| (v, weights.map_or(1.0, |w| w[i]))).collect();
    if !pairs.windows(2).all(|p| p[0].0 <= p[1].0) {
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    // Distinct values with their total weight.
    let mut levels: Vec<(f64, f64)> = Vec::new();
    for (v, w) in pairs {
        match levels.last_mut() {
            Some(last) if last.0 == v => last.1 += w,
            _ => levels.push((v, w)),
        }
    }
    if k < 2 || levels.len() < 2 {
        return Vec::new();
    }
    let total: f64 = levels.iter().map(|l| l.1).sum();
    let mut cuts: Vec<f64> = Vec::with_capacity(k - 1);
    let mut level = 0;
    let mut cumulative = levels[0].1;
    for i in 1..k {
        let target = total * i as f64 / k as f64;
        while cumulative < target && level + 1 < levels.len() {
            level += 1;
            cumulative += levels[level].1;
        }
        let at = level.min(levels.len() - 2);
        let cut = midpoint(levels[at].0, levels[at + 1].0);
        if cuts.last().is_none_or(|&c| cut > c) {
            cuts.push(cut);
        }
    }
    cuts
}

/// The bin (0-based) of `value` for ascending `cuts`: the number of cuts below `value`.
pub fn bin_of(cuts: &[f64], value: f64) -> usize {
    cuts.partition_point(|&c| c < value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_bins() {
        assert_eq!(equal_width_cuts(&[1.0, 2.0, 9.0], 2), vec![5.0]);
        // Lower median 2 (of 1, 2, 3, 10), cut halfway to 3.
        assert_eq!(equal_frequency_cuts(&[3.0, 1.0, 10.0, 2.0], None, 2), vec![2.5]);
        // The median is the largest value: cut below it.
        assert_eq!(equal_frequency_cuts(&[1.0, 4.0, 4.0, 4.0], None, 2), vec![2.5]);
        // Weights move the median.
        assert_eq!(equal_frequency_cuts(&[1.0, 2.0, 3.0], Some(&[5.0, 1.0, 1.0]), 2), vec![1.5]);
        assert!(equal_width_cuts(&[2.0, 2.0], 2).is_empty());
        assert!(equal_frequency_cuts(&[2.0, 2.0], None, 2).is_empty());
        assert!(equal_width_cuts(&[], 3).is_empty());
    }

    #[test]
    fn k_bins_and_bin_lookup() {
        let values: Vec<f64> = (0..100).map(f64::from).collect();
        let cuts = equal_width_cuts(&values, 4);
        assert_eq!(cuts, vec![24.75, 49.5, 74.25]);
        let counts = values.iter().fold([0; 4], |mut c, &v| {
            c[bin_of(&cuts, v)] += 1;
            c
        });
        assert_eq!(counts, [25, 25, 25, 25]);
        let cuts = equal_frequency_cuts(&values, None, 4);
        assert_eq!(cuts, vec![24.5, 49.5, 74.5]);
        // Few distinct levels: duplicate cuts dropped.
        assert_eq!(equal_frequency_cuts(&[0.0, 0.0, 0.0, 0.0, 1.0], None, 4), vec![0.5]);
    }

    #[test]
    fn cuts_leave_values_on_both_sides() {
        let mut rng = crate::rng::Rng::new(2);
        for _ in 0..200 {
            let n = 2 + rng.below(30);
            let values: Vec<f64> = (0..n).map(|_| rng.below(6) as f64).collect();
            let (lo, hi) = values.iter().fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
            for k in 2..6 {
                for cut in equal_width_cuts(&values, k).into_iter().chain(equal_frequency_cuts(&values, None, k)) {
                    assert!(lo <= cut && cut < hi, "{values:?} k={k} cut={cut}");
                }
            }
        }
    }
}
