//! Property tests for the Mallows module: expected distance and θ MLE, optimal insertion, the
//! approximate EM median and exact Kemeny aggregation, against brute force where possible.

mod common;

use common::*;
use lrank_core::consensus::borda;
use lrank_core::consensus::{expected_kendall_distance, fit_mallows, kemeny, optimal_insertion, theta_mle, MallowsFit};
use lrank_core::data::ranking::RankMatrixView;
use proptest::prelude::*;

/// Kendall distance on the label pairs both rankings contain (independent of the crate).
fn kendall(a: &[i32], b: &[i32]) -> usize {
    let m = a.len();
    let mut d = 0;
    for i in 0..m {
        for j in (i + 1)..m {
            if a[i] > 0 && a[j] > 0 && b[i] > 0 && b[j] > 0 && (a[i] < a[j]) != (b[i] < b[j]) {
                d += 1;
            }
        }
    }
    d
}

/// Weighted Kendall cost of a complete ranking against rows (pairs each row contains).
fn cost(rows: &[Vec<i32>], weights: &[f64], candidate: &[i32]) -> f64 {
    rows.iter().zip(weights).map(|(r, &w)| w * kendall(r, candidate) as f64).sum()
}

/// Whether the complete ranking `full` restricted to the labels of `part` orders them as `part`.
fn extends(full: &[i32], part: &[i32]) -> bool {
    let m = part.len();
    (0..m).all(|i| (0..m).all(|j| part[i] <= 0 || part[j] <= 0 || (part[i] < part[j]) == (full[i] < full[j])))
}

/// Total distance of the optimal completions of `rows` to `centre` (weighted).
fn completion_cost(rows: &[Vec<i32>], weights: &[f64], centre: &[i32]) -> f64 {
    rows.iter().zip(weights).map(|(r, &w)| w * kendall(&optimal_insertion(r, centre), centre) as f64).sum()
}

/// `n` rankings of `m` labels holding at least `min_k` labels each, with small integer weights.
fn weighted_rows(
    m: std::ops::RangeInclusive<usize>,
    n: std::ops::RangeInclusive<usize>,
    min_k: usize,
) -> impl Strategy<Value = (usize, Vec<Vec<i32>>, Vec<f64>)> {
    (m, n).prop_flat_map(move |(m, n)| {
        (
            Just(m),
            prop::collection::vec(incomplete_min(m, min_k.min(m)), n),
            prop::collection::vec(0u8..=3, n).prop_map(|w| w.into_iter().map(f64::from).collect()),
        )
    })
}

fn fit(rows: &[Vec<i32>], m: usize, weights: Option<&[f64]>, max_iter: usize) -> Option<MallowsFit> {
    let flat = rows.concat();
    let v = RankMatrixView::new(&flat, rows.len(), m).unwrap();
    fit_mallows(&v, weights, max_iter).ok()
}

#[test]
fn theta_round_trip_on_a_grid() {
    for m in 2..=15usize {
        for theta in [1e-6, 1e-3, 0.01, 0.05, 0.1, 0.3, 0.7, 1.0, 2.0, 5.0, 10.0, 20.0] {
            let d = expected_kendall_distance(theta, m);
            let back = theta_mle(d, m);
            assert!((back - theta).abs() <= 1e-8 * theta, "m={m} θ={theta} -> D={d} -> {back}");
        }
    }
}

#[test]
fn theta_limits() {
    for m in 2..=12usize {
        let max = (m * (m - 1)) as f64 / 4.0;
        assert_eq!(expected_kendall_distance(0.0, m), max);
        assert!((expected_kendall_distance(1e-12, m) - max).abs() < 1e-9);
        assert_eq!(theta_mle(0.0, m), f64::INFINITY);
        assert_eq!(theta_mle(max, m), 0.0);
        assert_eq!(theta_mle(max + 1.0, m), 0.0);
        assert!(theta_mle(max * (1.0 - 1e-9), m) < 1e-6);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn expected_distance_is_decreasing_and_bounded(m in 2usize..=30, a in 0.0f64..30.0, b in 0.0f64..30.0) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let (e_lo, e_hi) = (expected_kendall_distance(lo, m), expected_kendall_distance(hi, m));
        prop_assert!(e_lo >= e_hi, "E({lo}) = {e_lo} < E({hi}) = {e_hi}");
        let max = (m * (m - 1)) as f64 / 4.0;
        prop_assert!(e_hi >= 0.0 && e_lo <= max);
        if hi - lo > 1e-6 {
            prop_assert!(e_lo > e_hi || e_lo < 1e-300);
        }
    }

    #[test]
    fn theta_mle_round_trips_and_is_decreasing(m in 2usize..=20, theta in 1e-4f64..25.0, f in 0.0f64..1.0) {
        let d = expected_kendall_distance(theta, m);
        let back = theta_mle(d, m);
        prop_assert!((back - theta).abs() <= 1e-8 * theta, "θ={theta} D={d} back={back}");
        // A smaller mean distance never gives a smaller θ.
        let t2 = theta_mle(d * f, m);
        prop_assert!(t2 >= back, "θ({}) = {t2} < θ({d}) = {back}", d * f);
    }

    #[test]
    fn optimal_insertion_matches_brute_force(
        (part, centre) in (1usize..=6).prop_flat_map(|m| (incomplete_min(m, 0), complete(m)))
    ) {
        let m = part.len();
        let got = optimal_insertion(&part, &centre);
        prop_assert!(is_complete_ranking(&got), "{got:?}");
        prop_assert!(extends(&got, &part), "{got:?} does not extend {part:?}");
        let best = all_orders(m)
            .iter()
            .map(|o| ranks_from_order(o, m))
            .filter(|r| extends(r, &part))
            .map(|r| kendall(&r, &centre))
            .min()
            .unwrap();
        prop_assert_eq!(kendall(&got, &centre), best);
        // Each missing label sits in its cheapest slot among the observed labels, the most
        // preferred one on ties.
        let observed = order_from_ranks(&part);
        for x in (0..m).filter(|&x| part[x] == 0) {
            let slot_cost = |s: usize| {
                observed.iter().enumerate().filter(|&(i, &o)| (i < s) == (centre[x] < centre[o])).count()
            };
            let slot = observed.iter().filter(|&&o| got[o] < got[x]).count();
            let min = (0..=observed.len()).map(slot_cost).min().unwrap();
            prop_assert_eq!(slot_cost(slot), min);
            prop_assert!((0..slot).all(|s| slot_cost(s) > min), "label {} not in the first best slot", x);
        }
        // Missing labels keep the centre's relative order.
        for i in 0..m {
            for j in 0..m {
                if part[i] == 0 && part[j] == 0 && centre[i] < centre[j] {
                    prop_assert!(got[i] < got[j]);
                }
            }
        }
        if part.iter().all(|&x| x == 0) {
            prop_assert_eq!(&got, &centre);
        }
    }

    #[test]
    fn kemeny_matches_brute_force((m, rows, w) in weighted_rows(1..=6, 0..=6, 0), unit in any::<bool>()) {
        let weights = if unit { vec![1.0; rows.len()] } else { w };
        let flat = rows.concat();
        let v = RankMatrixView::new(&flat, rows.len(), m).unwrap();
        let got = kemeny(&v, if unit { None } else { Some(&weights) }).unwrap();
        prop_assert!(is_complete_ranking(&got));
        // all_orders enumerates in lexicographic order; integer weights make costs exact, so
        // the first minimiser is the lexicographically smallest Kemeny median.
        let candidates: Vec<Vec<i32>> = all_orders(m).iter().map(|o| ranks_from_order(o, m)).collect();
        let costs: Vec<f64> = candidates.iter().map(|c| cost(&rows, &weights, c)).collect();
        let min = costs.iter().cloned().fold(f64::INFINITY, f64::min);
        let first = costs.iter().position(|&c| c == min).unwrap();
        prop_assert_eq!(cost(&rows, &weights, &got), min);
        prop_assert_eq!(&got, &candidates[first]);
        let b = borda(&v, if unit { None } else { Some(&weights) });
        prop_assert!(cost(&rows, &weights, &got) <= cost(&rows, &weights, &b));
    }

    #[test]
    fn kemeny_with_real_weights((m, rows, _) in weighted_rows(2..=6, 1..=6, 2), seed in prop::collection::vec(0.01f64..10.0, 6)) {
        let weights = &seed[..rows.len()];
        let flat = rows.concat();
        let v = RankMatrixView::new(&flat, rows.len(), m).unwrap();
        let got = kemeny(&v, Some(weights)).unwrap();
        let min = all_orders(m)
            .iter()
            .map(|o| cost(&rows, weights, &ranks_from_order(o, m)))
            .fold(f64::INFINITY, f64::min);
        prop_assert!((cost(&rows, weights, &got) - min).abs() <= 1e-9 * (1.0 + min));
    }

    #[test]
    fn unanimous_complete_rankings((m, r) in (1usize..=8).prop_flat_map(|m| (Just(m), complete(m))), n in 1usize..=5) {
        let rows = vec![r.clone(); n];
        let flat = rows.concat();
        let v = RankMatrixView::new(&flat, n, m).unwrap();
        prop_assert_eq!(&kemeny(&v, None).unwrap(), &r);
        let f = fit_mallows(&v, None, 10).unwrap();
        prop_assert_eq!(&f.centre, &r);
        prop_assert_eq!(f.theta, f64::INFINITY);
        prop_assert!(f.converged);
    }

    #[test]
    fn em_never_ends_worse_than_its_borda_start((m, rows, w) in weighted_rows(2..=7, 1..=8, 1), max_iter in 0usize..=20) {
        let flat = rows.concat();
        let v = RankMatrixView::new(&flat, rows.len(), m).unwrap();
        let Ok(f) = fit_mallows(&v, Some(&w), max_iter) else {
            // Only when every row has zero weight.
            prop_assert!(w.iter().all(|&x| x == 0.0));
            return Ok(());
        };
        prop_assert!(is_complete_ranking(&f.centre));
        prop_assert!(f.iterations <= max_iter);
        let start = borda(&v, Some(&w));
        let end_cost = completion_cost(&rows, &w, &f.centre);
        prop_assert!(end_cost <= completion_cost(&rows, &w, &start));
        // θ is the MLE of the weighted mean completion distance to the returned centre.
        let mean = end_cost / w.iter().sum::<f64>();
        prop_assert_eq!(f.theta, theta_mle(mean, m));
        // Deterministic and independent of the row order.
        let again = fit_mallows(&v, Some(&w), max_iter).unwrap();
        prop_assert_eq!(&again, &f);
        let rev_rows: Vec<Vec<i32>> = rows.iter().rev().cloned().collect();
        let rev_w: Vec<f64> = w.iter().rev().cloned().collect();
        prop_assert_eq!(fit(&rev_rows, m, Some(&rev_w), max_iter), Some(f));
    }

    #[test]
    fn integer_weights_equal_repeated_rows((m, rows, w) in weighted_rows(2..=7, 1..=6, 0), max_iter in 0usize..=10) {
        let repeated: Vec<Vec<i32>> = rows
            .iter()
            .zip(&w)
            .flat_map(|(r, &k)| std::iter::repeat_n(r.clone(), k as usize))
            .collect();
        prop_assert_eq!(fit(&rows, m, Some(&w), max_iter), fit(&repeated, m, None, max_iter));
    }

    #[test]
    fn empty_rows_change_nothing((m, rows, _) in weighted_rows(2..=6, 1..=6, 1), at in 0usize..=6) {
        let mut with_empty = rows.clone();
        with_empty.insert(at.min(rows.len()), vec![0; m]);
        prop_assert_eq!(fit(&with_empty, m, None, 10), fit(&rows, m, None, 10));
    }
}
