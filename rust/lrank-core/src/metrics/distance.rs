//! Distances and correlations between two rankings of the same `m` labels.
//!
//! All are computed on the labels both rankings contain (entries > 0 in both); positions are
//! re-ranked within that common set, so an incomplete ranking is compared with the order it
//! induces. Kendall is O(k^2) for k common labels (k <= a few dozen in label ranking).
//!
//! Ties (bucket orders): [`tau_x`] is the measure made for them (Emond & Mason 2002). The others
//! stay defined: Kendall's tau counts a pair tied in either ranking as neither concordant nor
//! discordant (tau-a), Spearman's measures use mid-ranks. On rankings without ties every value is
//! the one computed before ties were allowed, bit for bit.

/// Positions of the common labels re-ranked to 1..=k in each ranking (mid-ranks for ties).
fn common_ranks(a: &[i32], b: &[i32]) -> (Vec<f64>, Vec<f64>) {
    debug_assert_eq!(a.len(), b.len());
    let common: Vec<usize> = (0..a.len()).filter(|&j| a[j] > 0 && b[j] > 0).collect();
    let rerank = |r: &[i32]| {
        if has_ties(r) {
            let restricted: Vec<i32> = common.iter().map(|&j| r[j]).collect();
            return mid_ranks(&dense(&restricted));
        }
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

/// The positions of a row of present labels made dense again (after labels were left out).
fn dense(positions: &[i32]) -> Vec<i32> {
    let mut distinct = positions.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    positions.iter().map(|p| distinct.binary_search(p).map_or(0, |k| k as i32 + 1)).collect()
}

/// Kendall distance: number of label pairs, among the common labels, ordered differently (a
/// pair tied in either ranking counts as ordered differently: use [`kendall_tau`] or [`tau_x`]
/// for tied rankings). Returns `(discordant pairs, compared pairs)`.
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
/// With ties, tau-a: (concordant - discordant) / pairs, a pair tied in either ranking counting 0.
pub fn kendall_tau(a: &[i32], b: &[i32]) -> f64 {
    if has_ties(a) || has_ties(b) {
        let (mut sum, mut pairs) = (0i64, 0i64);
        for i in 0..a.len() {
            for j in (i + 1)..a.len() {
                if a[i] > 0 && b[i] > 0 && a[j] > 0 && b[j] > 0 {
                    pairs += 1;
                    sum += ((a[i] - a[j]).signum() * (b[i] - b[j]).signum()) as i64;
                }
            }
        }
        return if pairs == 0 { f64::NAN } else { sum as f64 / pairs as f64 };
    }
    let (d, pairs) = kendall_distance(a, b);
    if pairs == 0 {
        return f64::NAN;
    }
    1.0 - 2.0 * d as f64 / pairs as f64
}

/// Kendall's tau_x (Emond & Mason 2002) in [-1, 1], for rankings with ties: over ordered pairs
/// (u, v) of common labels, `a_uv = 1` when u is before or tied with v in `a`, else -1 (`b_uv`
/// likewise); tau_x = Σ a_uv b_uv / (k (k - 1)). A tie against a tie scores 1 for both ordered
/// pairs, a tie against a strict order nets 0, a reversed pair -1. Equals Kendall's tau on
/// rankings without ties; NaN when fewer than two labels are common.
pub fn tau_x(a: &[i32], b: &[i32]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let (mut sum, mut k) = (0i64, 0i64);
    for u in 0..a.len() {
        if a[u] <= 0 || b[u] <= 0 {
            continue;
        }
        k += 1;
        for v in (u + 1)..a.len() {
            if a[v] <= 0 || b[v] <= 0 {
                continue;
            }
            // The two ordered pairs (u, v) and (v, u) at once.
            let score = |x: i32, y: i32| if x <= y { 1i64 } else { -1 };
            sum += score(a[u], a[v]) * score(b[u], b[v]) + score(a[v], a[u]) * score(b[v], b[u]);
        }
    }
    if k < 2 {
        return f64::NAN;
    }
    sum as f64 / (k * (k - 1)) as f64
}

/// Spearman's rank correlation rho in [-1, 1]; NaN when fewer than two labels are common.
///
/// With ties, the Pearson correlation of the mid-ranks (the 1 - 6 Σd² / (k (k² - 1)) shortcut
/// holds only without ties: it gave 0.5 for a ranking against all labels tied). A ranking that
/// ties every common label has no variance: against one that does not, rho is 0 (no
/// association, as tau_x nets 0 there); against another such, 1 (they agree, as for tau_x).
pub fn spearman_rho(a: &[i32], b: &[i32]) -> f64 {
    let (ra, rb) = common_ranks(a, b);
    let k = ra.len() as f64;
    if ra.len() < 2 {
        return f64::NAN;
    }
    if has_ties(a) || has_ties(b) {
        // Mid-ranks of k items always average (k + 1) / 2.
        let mean = (k + 1.0) / 2.0;
        let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
        for (x, y) in ra.iter().zip(&rb) {
            let (dx, dy) = (x - mean, y - mean);
            sab += dx * dy;
            saa += dx * dx;
            sbb += dy * dy;
        }
        return match (saa > 0.0, sbb > 0.0) {
            (true, true) => (sab / (saa * sbb).sqrt()).clamp(-1.0, 1.0),
            (false, false) => 1.0,
            _ => 0.0,
        };
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

use crate::data::ranking::{has_ties, mid_ranks};

#[cfg(test)]
mod tests {
    use super::*;

    /// tau_x from Emond & Mason's definition, with the full m x m score matrices.
    fn tau_x_reference(a: &[i32], b: &[i32]) -> f64 {
        let common: Vec<usize> = (0..a.len()).filter(|&j| a[j] > 0 && b[j] > 0).collect();
        let matrix = |r: &[i32]| {
            let mut s = vec![vec![0i64; a.len()]; a.len()];
            for &u in &common {
                for &v in &common {
                    if u != v {
                        s[u][v] = if r[u] <= r[v] { 1 } else { -1 };
                    }
                }
            }
            s
        };
        let (sa, sb) = (matrix(a), matrix(b));
        let k = common.len() as f64;
        if k < 2.0 {
            return f64::NAN;
        }
        let dot: i64 = (0..a.len()).flat_map(|u| (0..a.len()).map(move |v| (u, v))).map(|(u, v)| sa[u][v] * sb[u][v]).sum();
        dot as f64 / (k * (k - 1.0))
    }

    /// A random bucket order of m labels, about one in five missing (dense positions).
    fn random_bucket_order(rng: &mut crate::rng::Rng, m: usize) -> Vec<i32> {
        let raw: Vec<i32> = (0..m).map(|_| if rng.below(5) == 0 { 0 } else { 1 + rng.below(m) as i32 }).collect();
        let mut levels: Vec<i32> = raw.iter().copied().filter(|&v| v > 0).collect();
        levels.sort_unstable();
        levels.dedup();
        raw.iter().map(|&v| if v > 0 { levels.binary_search(&v).unwrap() as i32 + 1 } else { 0 }).collect()
    }

    #[test]
    fn tau_x_matches_its_definition_and_kendall_without_ties() {
        let mut rng = crate::rng::Rng::new(3);
        for _ in 0..2000 {
            let m = 2 + rng.below(7);
            let (a, b) = (random_bucket_order(&mut rng, m), random_bucket_order(&mut rng, m));
            let (x, r) = (tau_x(&a, &b), tau_x_reference(&a, &b));
            assert!(x == r || (x.is_nan() && r.is_nan()), "{a:?} {b:?}: {x} vs {r}");
            assert_eq!(tau_x(&a, &b).to_bits(), tau_x(&b, &a).to_bits(), "symmetric");
            if !has_ties(&a) && !has_ties(&b) && !x.is_nan() {
                assert!((x - kendall_tau(&a, &b)).abs() < 1e-12);
            }
        }
        // by hand: {0} > {1, 2} against 0 > 1 > 2: pairs (0,1), (0,2) agree (+4), (1,2) nets 0 -> 4/6
        assert!((tau_x(&[1, 2, 2], &[1, 2, 3]) - 4.0 / 6.0).abs() < 1e-15);
        assert_eq!(tau_x(&[1, 1, 1], &[1, 1, 1]), 1.0);
        assert_eq!(tau_x(&[1, 2], &[2, 1]), -1.0);
        // all tied against a strict ranking nets 0
        assert_eq!(tau_x(&[1, 1, 1], &[3, 1, 2]), 0.0);
    }

    #[test]
    fn tied_rankings_get_tau_a_and_mid_ranks() {
        // {0,1} > {2} against 0 > 1 > 2: (0,1) tied -> 0, (0,2) and (1,2) concordant -> 2/3.
        assert!((kendall_tau(&[1, 1, 2], &[1, 2, 3]) - 2.0 / 3.0).abs() < 1e-15);
        // mid-ranks 1.5, 1.5, 3 against 1, 2, 3: footrule 1
        assert_eq!(spearman_footrule(&[1, 1, 2], &[1, 2, 3]), 1.0);
        // labels left out by the other ranking: [1, 2, 2, 3] on labels 1..3 is {1,2} > {3}
        assert_eq!(spearman_footrule(&[1, 2, 2, 3], &[0, 1, 2, 3]), 1.0);
    }

    /// Pearson's correlation of mid-ranks written out from the definitions (0 and 1 for the
    /// rankings without variance, as documented).
    fn spearman_reference(a: &[i32], b: &[i32]) -> f64 {
        let common: Vec<usize> = (0..a.len()).filter(|&j| a[j] > 0 && b[j] > 0).collect();
        if common.len() < 2 {
            return f64::NAN;
        }
        let mid = |r: &[i32], j: usize| {
            let below = common.iter().filter(|&&i| r[i] < r[j]).count() as f64;
            let level = common.iter().filter(|&&i| r[i] == r[j]).count() as f64;
            below + (level + 1.0) / 2.0
        };
        let xa: Vec<f64> = common.iter().map(|&j| mid(a, j)).collect();
        let xb: Vec<f64> = common.iter().map(|&j| mid(b, j)).collect();
        let n = xa.len() as f64;
        let (ma, mb) = (xa.iter().sum::<f64>() / n, xb.iter().sum::<f64>() / n);
        let cov: f64 = xa.iter().zip(&xb).map(|(x, y)| (x - ma) * (y - mb)).sum();
        let va: f64 = xa.iter().map(|x| (x - ma) * (x - ma)).sum();
        let vb: f64 = xb.iter().map(|y| (y - mb) * (y - mb)).sum();
        match (va > 1e-12, vb > 1e-12) {
            (true, true) => cov / (va * vb).sqrt(),
            (false, false) => 1.0,
            _ => 0.0,
        }
    }

    #[test]
    fn spearman_with_ties_is_pearson_of_mid_ranks() {
        let mut rng = crate::rng::Rng::new(11);
        for _ in 0..3000 {
            let m = 2 + rng.below(7);
            let (a, b) = (random_bucket_order(&mut rng, m), random_bucket_order(&mut rng, m));
            let (rho, reference) = (spearman_rho(&a, &b), spearman_reference(&a, &b));
            assert!((rho - reference).abs() < 1e-12 || (rho.is_nan() && reference.is_nan()), "{a:?} {b:?}: {rho} vs {reference}");
            assert!(rho.is_nan() || (-1.0..=1.0).contains(&rho));
        }
        // by hand (scipy.stats.spearmanr agrees where it is defined)
        assert_eq!(spearman_rho(&[1, 2, 3], &[1, 1, 1]), 0.0);
        assert_eq!(spearman_rho(&[1, 1, 1], &[1, 1, 1]), 1.0);
        assert!(spearman_rho(&[1, 1, 2], &[3, 1, 2]).abs() < 1e-15);
        assert!((spearman_rho(&[1, 1, 1, 2], &[4, 3, 2, 1]) + 0.6_f64.sqrt()).abs() < 1e-12);
        assert!((spearman_rho(&[1, 1, 2], &[1, 1, 2]) - 1.0).abs() < 1e-15);
    }

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
