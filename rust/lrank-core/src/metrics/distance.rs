//! Distances and correlations between two rankings of the same `m` labels.
//!
//! All are computed on the labels both rankings contain (entries > 0 in both); positions are
//! re-ranked within that common set, so an incomplete ranking is compared with the order it
//! induces. Kendall is O(k^2) for k common labels (k <= a few dozen in label ranking).

/// Positions of the common labels re-ranked to 1..=k in each ranking.
fn common_ranks(a: &[i32], b: &[i32]) -> (Vec<f64>, Vec<f64>) {
    debug_assert_eq!(a.len(), b.len());
    let common: Vec<usize> = (0..a.len()).filter(|&j| a[j] > 0 && b[j] > 0).collect();
    let rerank = |r: &[i32]| {
        let mut order = common.clone();
        order.sort_by_key(|&j| r[j]);
        let mut out = vec![0.0; common.len()];
        for (pos, &j) in order.iter().enumerate() {
            let slot = common.binary_search(&j).expect("label is common");
            out[slot] = pos as f64 + 1.0;
        }
        out
    };
    (rerank(a), rerank(b))
}

/// Kendall distance: number of label pairs, among the common labels, ordered differently.
/// Returns `(discordant pairs, compared pairs)`.
pub fn kendall_distance(a: &[i32], b: &[i32]) -> (usize, usize) {
    debug_assert_eq!(a.len(), b.len());
    let mut discordant = 0;
    let mut pairs = 0;
    for i in 0..a.len() {
        if a[i] <= 0 || b[i] <= 0 {
            continue;
        }
        for j in (i + 1)..a.len() {
            if a[j] <= 0 || b[j] <= 0 {
                continue;
            }
            pairs += 1;
            if (a[i] < a[j]) != (b[i] < b[j]) {
                discordant += 1;
            }
        }
    }
    (discordant, pairs)
}

/// Kendall's tau in [-1, 1]: 1 - 4 D / (k (k - 1)); NaN when fewer than two labels are common.
pub fn kendall_tau(a: &[i32], b: &[i32]) -> f64 {
    let (d, pairs) = kendall_distance(a, b);
    if pairs == 0 {
        return f64::NAN;
    }
    1.0 - 2.0 * d as f64 / pairs as f64
}

/// Spearman's rank correlation rho in [-1, 1]; NaN when fewer than two labels are common.
pub fn spearman_rho(a: &[i32], b: &[i32]) -> f64 {
    let (ra, rb) = common_ranks(a, b);
    let k = ra.len() as f64;
    if ra.len() < 2 {
        return f64::NAN;
    }
    let d2: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - y) * (x - y)).sum();
    1.0 - 6.0 * d2 / (k * (k * k - 1.0))
}

/// Spearman's footrule: sum over common labels of |position in a - position in b|.
pub fn spearman_footrule(a: &[i32], b: &[i32]) -> f64 {
    let (ra, rb) = common_ranks(a, b);
    ra.iter().zip(&rb).map(|(x, y)| (x - y).abs()).sum()
}

/// Footrule divided by its maximum floor(k^2 / 2), in [0, 1]; NaN when fewer than two common labels.
pub fn normalized_footrule(a: &[i32], b: &[i32]) -> f64 {
    let k = (0..a.len()).filter(|&j| a[j] > 0 && b[j] > 0).count();
    if k < 2 {
        return f64::NAN;
    }
    spearman_footrule(a, b) / ((k * k / 2) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_checked_values() {
        // a: 0>1>2, b: 2>1>0 (reverse)
        assert_eq!(kendall_distance(&[1, 2, 3], &[3, 2, 1]), (3, 3));
        assert_eq!(kendall_tau(&[1, 2, 3], &[3, 2, 1]), -1.0);
        assert_eq!(spearman_rho(&[1, 2, 3], &[3, 2, 1]), -1.0);
        assert_eq!(spearman_footrule(&[1, 2, 3], &[3, 2, 1]), 4.0);
        assert_eq!(normalized_footrule(&[1, 2, 3], &[3, 2, 1]), 1.0);
        // one swap of four labels: tau = 1 - 4*1/12
        assert!((kendall_tau(&[1, 2, 3, 4], &[2, 1, 3, 4]) - (1.0 - 4.0 / 12.0)).abs() < 1e-12);
    }

    #[test]
    fn incomplete_rankings_compare_on_common_labels() {
        // a ranks labels 0,1,2 as 0>1>2; b has only 2>0 (label 1 missing).
        assert_eq!(kendall_distance(&[1, 2, 3], &[2, 0, 1]), (1, 1));
        assert_eq!(spearman_footrule(&[1, 2, 3], &[2, 0, 1]), 2.0);
        assert!(kendall_tau(&[1, 0, 0], &[1, 2, 3]).is_nan());
    }
}
