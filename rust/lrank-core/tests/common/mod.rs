//! Strategies and brute-force reference helpers shared by the property tests.
//!
//! The helpers here are written independently of the crate (no `lrank_core` calls), so that a
//! property comparing the crate with a helper does not compare the crate with itself.

#![allow(dead_code)]

use proptest::prelude::*;

/// Rank vector of an order (`order[p]` = label at 0-based position `p`) over `m` labels.
pub fn ranks_from_order(order: &[usize], m: usize) -> Vec<i32> {
    let mut r = vec![0; m];
    for (p, &label) in order.iter().enumerate() {
        r[label] = p as i32 + 1;
    }
    r
}

/// Labels of a rank vector, most preferred first (missing labels left out).
pub fn order_from_ranks(r: &[i32]) -> Vec<usize> {
    let k = r.iter().filter(|&&x| x > 0).count();
    let mut order = vec![usize::MAX; k];
    for (label, &x) in r.iter().enumerate() {
        if x > 0 {
            order[x as usize - 1] = label;
        }
    }
    order
}

/// A uniformly random order of all `m` labels.
pub fn order(m: usize) -> impl Strategy<Value = Vec<usize>> {
    Just((0..m).collect::<Vec<usize>>()).prop_shuffle()
}

/// A complete ranking (permutation) of `m` labels as a rank vector.
pub fn complete(m: usize) -> impl Strategy<Value = Vec<i32>> {
    order(m).prop_map(move |o| ranks_from_order(&o, m))
}

/// An incomplete ranking of `m` labels holding a random subset of `min_k..=m` labels in random order.
pub fn incomplete_min(m: usize, min_k: usize) -> impl Strategy<Value = Vec<i32>> {
    (order(m), min_k..=m).prop_map(move |(o, k)| ranks_from_order(&o[..k], m))
}

/// An incomplete ranking of `m` labels with at least two labels present.
pub fn incomplete(m: usize) -> impl Strategy<Value = Vec<i32>> {
    incomplete_min(m, 2)
}

/// A complete ranking of a random number of labels in 2..=8.
pub fn any_complete() -> impl Strategy<Value = Vec<i32>> {
    (2usize..=8).prop_flat_map(complete)
}

/// Reverse of a (possibly incomplete) ranking: the present labels in the opposite order.
pub fn reverse(r: &[i32]) -> Vec<i32> {
    let k = r.iter().filter(|&&x| x > 0).count() as i32;
    r.iter().map(|&x| if x > 0 { k + 1 - x } else { 0 }).collect()
}

/// Brute-force validity: the positive entries are exactly 1..=k for k present labels, the rest 0.
pub fn is_strict_ranking(r: &[i32]) -> bool {
    if r.iter().any(|&x| x < 0) {
        return false;
    }
    let mut present: Vec<i32> = r.iter().copied().filter(|&x| x > 0).collect();
    present.sort();
    present.iter().enumerate().all(|(p, &x)| x == p as i32 + 1)
}

/// Brute-force validity of a bucket order (ties allowed): the distinct positions present are
/// 1..=b, none beyond the number of labels.
pub fn is_valid_ranking(r: &[i32]) -> bool {
    if r.iter().any(|&x| x < 0 || x as usize > r.len()) {
        return false;
    }
    let mut present: Vec<i32> = r.iter().copied().filter(|&x| x > 0).collect();
    present.sort();
    present.dedup();
    present.iter().enumerate().all(|(p, &x)| x == p as i32 + 1)
}

/// Brute-force validity of a complete ranking of `r.len()` labels.
pub fn is_complete_ranking(r: &[i32]) -> bool {
    let mut s = r.to_vec();
    s.sort();
    s.iter().enumerate().all(|(p, &x)| x == p as i32 + 1)
}

/// All permutations of `0..m` as orders (m! of them; m <= 7 here).
pub fn all_orders(m: usize) -> Vec<Vec<usize>> {
    fn go(prefix: &mut Vec<usize>, used: &mut [bool], out: &mut Vec<Vec<usize>>) {
        if prefix.len() == used.len() {
            out.push(prefix.clone());
            return;
        }
        for l in 0..used.len() {
            if !used[l] {
                used[l] = true;
                prefix.push(l);
                go(prefix, used, out);
                prefix.pop();
                used[l] = false;
            }
        }
    }
    let mut out = Vec::new();
    go(&mut Vec::new(), &mut vec![false; m], &mut out);
    out
}

/// Both rankings restricted to the labels present in both, each re-ranked to 1..=k
/// (labels keep their relative index order, so label j of the result is the j-th common label).
pub fn restrict_to_common(a: &[i32], b: &[i32]) -> (Vec<i32>, Vec<i32>) {
    let common: Vec<usize> = (0..a.len()).filter(|&j| a[j] > 0 && b[j] > 0).collect();
    let rerank = |r: &[i32]| {
        let mut out = vec![0; common.len()];
        for (slot, &j) in common.iter().enumerate() {
            // 1 + number of common labels placed before j in r
            out[slot] = 1 + common.iter().filter(|&&l| r[l] < r[j]).count() as i32;
        }
        out
    };
    (rerank(a), rerank(b))
}

/// f64 equality that treats two NaNs as equal and allows a tiny absolute error.
pub fn close(x: f64, y: f64) -> bool {
    (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-12
}
