//! Property tests for rank matrices, ranking helpers, distances and per-row evaluation.

mod common;

use common::*;
use lrank_core::data::ranking::{
    n_present, order_of, ranking_from_scores, ranks_of_order, top_label, validate_ranking, validate_strict_ranking,
    RankMatrixView,
};
use lrank_core::metrics::distance::{kendall_distance, kendall_tau, normalized_footrule, spearman_footrule, spearman_rho};
use lrank_core::metrics::evaluation::{pairwise_matrix, row_measures};
use lrank_core::LrankError;
use proptest::prelude::*;

/// Three complete rankings of the same m labels.
fn triple() -> impl Strategy<Value = (Vec<i32>, Vec<i32>, Vec<i32>)> {
    (2usize..=8).prop_flat_map(|m| (complete(m), complete(m), complete(m)))
}

/// Two incomplete rankings of the same m labels (each with >= 2 labels; the common set may be small).
fn incomplete_pair() -> impl Strategy<Value = (Vec<i32>, Vec<i32>)> {
    (2usize..=8).prop_flat_map(|m| (incomplete(m), incomplete(m)))
}

/// Brute-force Kendall distance of complete rankings: inversions of b ∘ a⁻¹.
fn inversions_of_composition(a: &[i32], b: &[i32]) -> usize {
    let a_inv = order_from_ranks(a); // position (0-based) -> label
    let seq: Vec<i32> = a_inv.iter().map(|&label| b[label]).collect();
    let mut inv = 0;
    for i in 0..seq.len() {
        for j in i + 1..seq.len() {
            if seq[i] > seq[j] {
                inv += 1;
            }
        }
    }
    inv
}

fn footrule_brute(a: &[i32], b: &[i32]) -> f64 {
    a.iter().zip(b).map(|(&x, &y)| (x - y).abs() as f64).sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    // ---- 1. Kendall ------------------------------------------------------------------------

    #[test]
    fn kendall_distance_is_a_metric_on_complete_rankings((a, b, c) in triple()) {
        let m = a.len();
        let pairs = m * (m - 1) / 2;
        let d = |x: &[i32], y: &[i32]| {
            let (d, p) = kendall_distance(x, y);
            assert_eq!(p, pairs, "complete rankings compare all pairs");
            d
        };
        prop_assert_eq!(d(&a, &a), 0);
        prop_assert_eq!(d(&a, &b), d(&b, &a));
        prop_assert_eq!(d(&a, &b) == 0, a == b);
        prop_assert!(d(&a, &c) <= d(&a, &b) + d(&b, &c));
        prop_assert!(d(&a, &b) <= pairs);
    }

    #[test]
    fn kendall_distance_counts_inversions_and_tau_matches_formula((a, b) in (2usize..=8).prop_flat_map(|m| (complete(m), complete(m)))) {
        let m = a.len();
        let (d, pairs) = kendall_distance(&a, &b);
        prop_assert_eq!(d, inversions_of_composition(&a, &b));
        prop_assert_eq!(pairs, m * (m - 1) / 2);
        let tau = kendall_tau(&a, &b);
        prop_assert!((-1.0..=1.0).contains(&tau));
        let formula = 1.0 - 4.0 * d as f64 / (m * (m - 1)) as f64;
        prop_assert!((tau - formula).abs() < 1e-12, "tau {} formula {}", tau, formula);
        prop_assert_eq!(kendall_tau(&a, &a), 1.0);
        prop_assert_eq!(kendall_tau(&a, &reverse(&a)), -1.0);
        prop_assert_eq!(kendall_distance(&a, &reverse(&a)).0, pairs);
    }

    // ---- 2. Spearman rho and footrule ------------------------------------------------------

    #[test]
    fn footrule_is_a_metric_and_rho_is_bounded((a, b, c) in triple()) {
        let f = spearman_footrule;
        prop_assert_eq!(f(&a, &a), 0.0);
        prop_assert_eq!(f(&a, &b), f(&b, &a));
        prop_assert_eq!(f(&a, &b) == 0.0, a == b);
        prop_assert!(f(&a, &c) <= f(&a, &b) + f(&b, &c));
        prop_assert_eq!(f(&a, &b), footrule_brute(&a, &b));

        let m = a.len() as f64;
        prop_assert_eq!(spearman_rho(&a, &a), 1.0);
        prop_assert!((spearman_rho(&a, &reverse(&a)) + 1.0).abs() < 1e-12);
        let rho = spearman_rho(&a, &b);
        prop_assert!((-1.0 - 1e-12..=1.0 + 1e-12).contains(&rho));
        let d2: f64 = a.iter().zip(&b).map(|(&x, &y)| ((x - y) * (x - y)) as f64).sum();
        prop_assert!((rho - (1.0 - 6.0 * d2 / (m * (m * m - 1.0)))).abs() < 1e-12);
        prop_assert!((spearman_rho(&a, &b) - spearman_rho(&b, &a)).abs() < 1e-12);
    }

    #[test]
    fn diaconis_graham_and_normalized_footrule((a, b) in (2usize..=8).prop_flat_map(|m| (complete(m), complete(m)))) {
        let dk = kendall_distance(&a, &b).0 as f64;
        let f = spearman_footrule(&a, &b);
        prop_assert!(dk <= f && f <= 2.0 * dk, "D_K {} footrule {}", dk, f);
        let nf = normalized_footrule(&a, &b);
        prop_assert!((0.0..=1.0).contains(&nf), "normalized footrule {}", nf);
        // the maximum floor(m^2 / 2) is reached by the reverse ranking
        prop_assert_eq!(normalized_footrule(&a, &reverse(&a)), 1.0);
        prop_assert_eq!(normalized_footrule(&a, &a), 0.0);
    }

    #[test]
    fn normalized_footrule_in_unit_interval_on_incomplete((a, b) in incomplete_pair()) {
        let nf = normalized_footrule(&a, &b);
        let k = (0..a.len()).filter(|&j| a[j] > 0 && b[j] > 0).count();
        if k < 2 {
            prop_assert!(nf.is_nan());
        } else {
            prop_assert!((0.0..=1.0).contains(&nf), "normalized footrule {}", nf);
        }
    }

    // ---- 3. Incomplete rankings are compared on their common labels ------------------------

    #[test]
    fn measures_equal_measures_on_restriction_to_common_labels((a, b) in incomplete_pair()) {
        let (ra, rb) = restrict_to_common(&a, &b);
        prop_assert!(is_complete_ranking(&ra) && is_complete_ranking(&rb));
        prop_assert_eq!(kendall_distance(&a, &b), kendall_distance(&ra, &rb));
        prop_assert!(close(kendall_tau(&a, &b), kendall_tau(&ra, &rb)));
        prop_assert!(close(spearman_rho(&a, &b), spearman_rho(&ra, &rb)));
        prop_assert!(close(spearman_footrule(&a, &b), spearman_footrule(&ra, &rb)));
        prop_assert!(close(normalized_footrule(&a, &b), normalized_footrule(&ra, &rb)));
        // and the restricted measures are the brute-force ones on complete rankings
        if ra.len() >= 2 {
            prop_assert_eq!(kendall_distance(&a, &b).0, inversions_of_composition(&ra, &rb));
            prop_assert_eq!(spearman_footrule(&a, &b), footrule_brute(&ra, &rb));
        } else {
            prop_assert!(kendall_tau(&a, &b).is_nan() && spearman_rho(&a, &b).is_nan());
        }
    }

    // ---- 6. ranking_from_scores, order_of, ranks_of_order ----------------------------------

    #[test]
    fn ranking_from_scores_sorts_descending_ties_to_lower_index(
        // Up to 24 labels: few labels are ranked by counting, more by sorting. -0.0 ties 0.0.
        scores in prop::collection::vec(prop_oneof![(-3i32..=3).prop_map(f64::from), Just(-0.0), -1e6f64..1e6], 1..=24)
    ) {
        let r = ranking_from_scores(&scores);
        prop_assert!(is_complete_ranking(&r), "{:?}", r);
        prop_assert!(validate_ranking(&r).is_ok());
        let o = order_from_ranks(&r);
        for w in o.windows(2) {
            let (i, j) = (w[0], w[1]);
            prop_assert!(
                scores[i] > scores[j] || (scores[i] == scores[j] && i < j),
                "label {} (score {}) before label {} (score {})", i, scores[i], j, scores[j]
            );
        }
    }

    #[test]
    fn order_of_and_ranks_of_order_are_inverse(r in (2usize..=8).prop_flat_map(|m| incomplete_min(m, 0))) {
        let m = r.len();
        let o = order_of(&r);
        prop_assert_eq!(&o, &order_from_ranks(&r));
        prop_assert_eq!(ranks_of_order(&o, m), r.clone());
        prop_assert_eq!(o.len(), n_present(&r));
        prop_assert_eq!(top_label(&r), o.first().copied());
        // and the other way round, starting from an order of a subset
        let o2: Vec<usize> = o.iter().rev().copied().collect();
        prop_assert_eq!(order_of(&ranks_of_order(&o2, m)), o2);
    }

    // ---- 8. RankMatrixView validation ------------------------------------------------------

    #[test]
    fn view_accepts_every_valid_incomplete_matrix(
        (rows, m) in (1usize..=8).prop_flat_map(|m| (prop::collection::vec(incomplete_min(m, 0), 1..=6), Just(m)))
    ) {
        let flat: Vec<i32> = rows.concat();
        let v = RankMatrixView::new(&flat, rows.len(), m);
        prop_assert!(v.is_ok(), "{:?}", v.err());
        let v = v.unwrap();
        prop_assert_eq!(v.n_rows(), rows.len());
        prop_assert_eq!(v.n_labels(), m);
        for (i, row) in rows.iter().enumerate() {
            prop_assert_eq!(v.row(i), &row[..]);
        }
    }

    #[test]
    fn view_rejects_corrupted_row(
        (rows, m, bad_row, kind, pick, big) in (2usize..=8).prop_flat_map(|m| (
            prop::collection::vec(incomplete(m), 1..=5),
            Just(m),
            any::<prop::sample::Index>(),
            0usize..4,
            any::<prop::sample::Index>(),
            (m as i32 + 1)..=1000,
        ))
    ) {
        let bad_row = bad_row.index(rows.len());
        let mut rows = rows;
        let row = &mut rows[bad_row];
        let present: Vec<usize> = (0..m).filter(|&j| row[j] > 0).collect();
        let k = present.len() as i32;
        match kind {
            // duplicated position: one present label takes another's position
            0 => {
                let j = present[pick.index(present.len())];
                let other = present[(pick.index(present.len()) + 1) % present.len()];
                row[j] = row[other];
            }
            // gap: every present position moves up by one (positions 2..=k+1, 1 unused);
            // for a complete row the top label leaves instead, so positions 2..=m remain
            1 => {
                if (k as usize) < m {
                    row.iter_mut().filter(|x| **x > 0).for_each(|x| *x += 1);
                } else {
                    let top = row.iter().position(|&x| x == 1).unwrap();
                    row[top] = 0;
                }
            }
            // above the number of labels
            2 => row[pick.index(m)] = big,
            // negative
            _ => row[pick.index(m)] = -big,
        }
        prop_assert!(!is_strict_ranking(&rows[bad_row]), "corruption left a strict ranking {:?}", rows[bad_row]);
        prop_assert!(validate_strict_ranking(&rows[bad_row]).is_err());
        // A duplicated position can leave a valid bucket order (a tie), which the view accepts.
        prop_assert_eq!(validate_ranking(&rows[bad_row]).is_ok(), is_valid_ranking(&rows[bad_row]));
        if is_valid_ranking(&rows[bad_row]) {
            prop_assert!(kind == 0);
            return Ok(());
        }
        let flat: Vec<i32> = rows.concat();
        match RankMatrixView::new(&flat, rows.len(), m) {
            Err(LrankError::InvalidRanking { row, .. }) => prop_assert_eq!(row, bad_row),
            other => prop_assert!(false, "expected InvalidRanking for row {}, got {:?}", bad_row, other.map(|_| ())),
        }
    }

    #[test]
    fn view_validation_matches_brute_force_on_arbitrary_rows(
        (rows, m) in (1usize..=6).prop_flat_map(|m| (
            prop::collection::vec(prop::collection::vec(-1i32..=(m as i32 + 1), m), 1..=4),
            Just(m),
        ))
    ) {
        let first_bad = rows.iter().position(|r| !is_valid_ranking(r));
        for r in &rows {
            prop_assert_eq!(validate_ranking(r).is_ok(), is_valid_ranking(r), "row {:?}", r);
            prop_assert_eq!(validate_strict_ranking(r).is_ok(), is_strict_ranking(r), "row {:?}", r);
        }
        let flat: Vec<i32> = rows.concat();
        match (RankMatrixView::new(&flat, rows.len(), m), first_bad) {
            (Ok(_), None) => {}
            (Err(LrankError::InvalidRanking { row, .. }), Some(b)) => prop_assert_eq!(row, b),
            (got, want) => prop_assert!(false, "rows {:?}: got {:?}, first bad row {:?}", rows, got.map(|_| ()), want),
        }
        // a wrong shape is always refused
        prop_assert!(RankMatrixView::new(&flat, rows.len() + 1, m).is_err());
    }

    // ---- evaluation agrees with the distance functions ---------------------------------------

    #[test]
    fn row_measures_and_pairwise_matrix_agree_with_distances(
        (truth, pred, m) in (2usize..=6).prop_flat_map(|m| (
            prop::collection::vec(incomplete(m), 1..=5),
            prop::collection::vec(complete(m), 1..=5),
            Just(m),
        ))
    ) {
        let n = truth.len().min(pred.len());
        let (t, p) = (truth[..n].concat(), pred[..n].concat());
        let tv = RankMatrixView::new(&t, n, m).unwrap();
        let pv = RankMatrixView::new(&p, n, m).unwrap();
        let rm = row_measures(&tv, &pv).unwrap();
        let (correct, incorrect) = pairwise_matrix(&tv, &pv).unwrap();
        let mut total_pairs = 0;
        let mut total_discordant = 0;
        for i in 0..n {
            let (a, b) = (&truth[i], &pred[i]);
            prop_assert!(close(rm.kendall_tau[i], kendall_tau(a, b)));
            prop_assert!(close(rm.spearman_rho[i], spearman_rho(a, b)));
            prop_assert!(close(rm.footrule[i], spearman_footrule(a, b)));
            prop_assert!(close(rm.normalized_footrule[i], normalized_footrule(a, b)));
            let (d, pairs) = kendall_distance(a, b);
            // predictions are complete, so the common labels are the true ranking's labels
            let exact = restrict_to_common(a, b).0 == restrict_to_common(a, b).1;
            prop_assert_eq!(rm.exact_match[i], (d == 0) as i32 as f64);
            prop_assert_eq!(rm.exact_match[i] == 1.0, exact);
            let top = (0..m).position(|j| a[j] == 1).unwrap();
            // among the true ranking's labels (a label it leaves out is unknown, not wrong)
            let best = (0..m).filter(|&j| a[j] > 0).map(|j| b[j]).min().unwrap();
            prop_assert_eq!(rm.top_label_correct[i], (b[top] == best) as i32 as f64);
            total_pairs += pairs;
            total_discordant += d;
        }
        prop_assert_eq!((correct.iter().sum::<u64>() + incorrect.iter().sum::<u64>()) as usize, total_pairs);
        prop_assert_eq!(incorrect.iter().sum::<u64>() as usize, total_discordant);
        for a in 0..m {
            prop_assert_eq!(correct[a * m + a] + incorrect[a * m + a], 0);
        }
    }
}
