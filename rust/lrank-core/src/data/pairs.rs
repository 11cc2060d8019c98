//! Label pairs {a, b}, a < b, numbered lexicographically: (0, 1), (0, 2), ..., (m-2, m-1).
//! The pairwise learners train one model per pair in this order, and the pairwise split
//! criteria keep one count per pair.

/// m(m-1)/2, saturating (a label count read from a hand-edited model file can be absurd).
pub fn pair_count(m: usize) -> usize {
    m.saturating_mul(m.saturating_sub(1)) / 2
}

/// Every pair (a, b), a < b, in pair order.
pub fn label_pairs(m: usize) -> Vec<(usize, usize)> {
    (0..m).flat_map(|a| ((a + 1)..m).map(move |b| (a, b))).collect()
}

/// Index of the pair {a, b} (a != b) in pair order.
#[inline]
pub fn pair_index(a: usize, b: usize, m: usize) -> usize {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    lo * (2 * m - lo - 1) / 2 + (hi - lo - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_index_numbers_label_pairs_in_order() {
        for m in 0..9 {
            let pairs = label_pairs(m);
            assert_eq!(pairs.len(), pair_count(m));
            for (p, &(a, b)) in pairs.iter().enumerate() {
                assert_eq!(pair_index(a, b, m), p);
                assert_eq!(pair_index(b, a, m), p);
            }
        }
        assert_eq!(pair_count(usize::MAX), usize::MAX / 2);
    }
}
