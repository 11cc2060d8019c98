//! Property tests for Borda and generalized Borda aggregation.

mod common;

use common::*;
use lrank_core::consensus::{add_borda_votes, borda, borda_scores, BordaAccumulator};
use lrank_core::data::ranking::{validate_ranking, RankMatrixView};
use proptest::prelude::*;

/// `n` rankings of `m` labels, flattened, with their shape.
#[derive(Clone, Debug)]
struct Rows {
    rows: Vec<Vec<i32>>,
    m: usize,
}

impl Rows {
    fn flat(&self) -> Vec<i32> {
        self.rows.concat()
    }
    fn n(&self) -> usize {
        self.rows.len()
    }
}

fn complete_rows(n: std::ops::RangeInclusive<usize>, m: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Rows> {
    m.prop_flat_map(move |m| prop::collection::vec(complete(m), n.clone()).prop_map(move |rows| Rows { rows, m }))
}

/// Incomplete rankings holding at least `min_k` labels each.
fn incomplete_rows(
    n: std::ops::RangeInclusive<usize>,
    m: std::ops::RangeInclusive<usize>,
    min_k: usize,
) -> impl Strategy<Value = Rows> {
    m.prop_flat_map(move |m| {
        prop::collection::vec(incomplete_min(m, min_k.min(m)), n.clone()).prop_map(move |rows| Rows { rows, m })
    })
}

/// Least common multiple of 2..=9: makes every generalized Borda vote for m <= 8 an integer.
const SCALE: i64 = 2520;

/// Generalized Borda scores in exact integer arithmetic, multiplied by `SCALE`.
fn exact_scores(rows: &Rows, weights: Option<&[i64]>) -> Vec<i64> {
    let m = rows.m as i64;
    let mut s = vec![0i64; rows.m];
    for (i, row) in rows.rows.iter().enumerate() {
        let w = weights.map_or(1, |w| w[i]);
        let k = row.iter().filter(|&&r| r > 0).count() as i64;
        for (j, &r) in row.iter().enumerate() {
            let v = if r > 0 && k > 0 { (k + 1 - r as i64) * (m + 1) * SCALE / (k + 1) } else { (m + 1) * SCALE / 2 };
            s[j] += w * v;
        }
    }
    s
}

/// Consensus from exact scores: decreasing score, ties to the lower label index.
fn exact_consensus(scores: &[i64]) -> Vec<i32> {
    let mut labels: Vec<usize> = (0..scores.len()).collect();
    labels.sort_by(|&a, &b| scores[b].cmp(&scores[a]).then(a.cmp(&b)));
    ranks_from_order(&labels, scores.len())
}

fn squared_distance_total(pi: &[i32], rows: &Rows) -> i64 {
    rows.rows.iter().map(|s| pi.iter().zip(s).map(|(&a, &b)| ((a - b) as i64).pow(2)).sum::<i64>()).sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    // ---- 4. Borda minimises the total squared position difference -------------------------

    #[test]
    fn borda_is_optimal_for_spearman(rows in complete_rows(1..=6, 2..=6)) {
        let flat = rows.flat();
        let v = RankMatrixView::new(&flat, rows.n(), rows.m).unwrap();
        let consensus = borda(&v, None);
        let best = all_orders(rows.m)
            .iter()
            .map(|o| squared_distance_total(&ranks_from_order(o, rows.m), &rows))
            .min()
            .unwrap();
        prop_assert_eq!(squared_distance_total(&consensus, &rows), best, "consensus {:?}", consensus);
    }

    // ---- 5. Generalized Borda ---------------------------------------------------------------

    #[test]
    fn each_ranking_hands_out_m_m_plus_1_over_2_votes(
        (row, weight) in ((1usize..=8).prop_flat_map(|m| incomplete_min(m, 0)), 0.0f64..10.0)
    ) {
        let m = row.len();
        let mut s = vec![0.0; m];
        add_borda_votes(&row, 1.0, &mut s);
        let total: f64 = s.iter().sum();
        prop_assert!((total - (m * (m + 1)) as f64 / 2.0).abs() < 1e-9, "total {} for {:?}", total, row);
        // a missing label is "in the middle"; ranked labels get strictly fewer votes further down
        let k = row.iter().filter(|&&r| r > 0).count();
        for j in 0..m {
            if row[j] == 0 {
                prop_assert_eq!(s[j], (m as f64 + 1.0) / 2.0);
            }
            for l in 0..m {
                if row[j] > 0 && row[l] > 0 && row[j] < row[l] {
                    prop_assert!(s[j] > s[l]);
                }
            }
        }
        // the average vote of the ranked labels is also the middle one
        if k > 0 {
            let ranked: f64 = (0..m).filter(|&j| row[j] > 0).map(|j| s[j]).sum();
            prop_assert!((ranked / k as f64 - (m as f64 + 1.0) / 2.0).abs() < 1e-9);
        }
        // votes scale with the weight and add onto what is there
        let mut sw = vec![1.0; m];
        add_borda_votes(&row, weight, &mut sw);
        for j in 0..m {
            prop_assert!((sw[j] - (1.0 + weight * s[j])).abs() < 1e-9);
        }
    }

    #[test]
    fn adding_a_complete_row_gives_the_general_sums_bit_for_bit(
        rows in complete_rows(1..=6, 2..=25),
        weights in prop::collection::vec(0.0f64..3.0, 6),
    ) {
        // m up to 25 crosses m = 20, beyond which the votes are no longer scaled to integers.
        let (mut general, mut complete) = (BordaAccumulator::new(rows.m), BordaAccumulator::new(rows.m));
        for (row, &w) in rows.rows.iter().zip(&weights) {
            general.add(row, w);
            complete.add_complete(row, w);
        }
        let bits = |acc: &BordaAccumulator| acc.scaled_scores().iter().map(|s| s.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&general), bits(&complete));
    }

    #[test]
    fn generalized_borda_is_plain_borda_on_complete_rankings(rows in complete_rows(1..=8, 2..=8)) {
        let flat = rows.flat();
        let v = RankMatrixView::new(&flat, rows.n(), rows.m).unwrap();
        let mut plain = vec![0.0; rows.m];
        for row in &rows.rows {
            for (j, &r) in row.iter().enumerate() {
                plain[j] += (rows.m as i32 + 1 - r) as f64;
            }
        }
        prop_assert_eq!(borda_scores(&v, None), plain.clone());
        let mut labels: Vec<usize> = (0..rows.m).collect();
        labels.sort_by(|&a, &b| plain[b].partial_cmp(&plain[a]).unwrap().then(a.cmp(&b)));
        prop_assert_eq!(borda(&v, None), ranks_from_order(&labels, rows.m));
    }

    #[test]
    fn consensus_is_a_complete_ranking_ordered_by_exact_score(
        (rows, weights) in incomplete_rows(1..=8, 2..=8, 0)
            .prop_flat_map(|rows| { let n = rows.n(); (Just(rows), prop::collection::vec(0i64..=4, n)) })
    ) {
        // Holds for incomplete rankings too: only the order *within* exact ties is left open here
        // (see the ignored `*_exact_ties_*` properties below for why).
        let flat = rows.flat();
        let v = RankMatrixView::new(&flat, rows.n(), rows.m).unwrap();
        let wf: Vec<f64> = weights.iter().map(|&w| w as f64).collect();
        for (c, exact) in [
            (borda(&v, None), exact_scores(&rows, None)),
            (borda(&v, Some(&wf)), exact_scores(&rows, Some(&weights))),
        ] {
            prop_assert!(validate_ranking(&c).is_ok() && is_complete_ranking(&c), "{:?}", c);
            let o = order_from_ranks(&c);
            for w in o.windows(2) {
                prop_assert!(exact[w[0]] >= exact[w[1]], "consensus {:?}, exact scores {:?}", c, exact);
            }
        }
    }

    #[test]
    fn integer_weights_give_the_scores_of_repeated_rows(
        (rows, weights) in incomplete_rows(1..=6, 2..=8, 2)
            .prop_flat_map(|rows| { let n = rows.n(); (Just(rows), prop::collection::vec(0usize..=4, n)) })
    ) {
        let flat = rows.flat();
        let v = RankMatrixView::new(&flat, rows.n(), rows.m).unwrap();
        let wf: Vec<f64> = weights.iter().map(|&w| w as f64).collect();
        let (repeated, n_rep) = repeat_rows(&rows, &weights);
        let rv = RankMatrixView::new(&repeated, n_rep, rows.m).unwrap();
        let (ws, rs) = (borda_scores(&v, Some(&wf)), borda_scores(&rv, None));
        for (a, b) in ws.iter().zip(&rs) {
            prop_assert!((a - b).abs() < 1e-9, "weighted {:?} repeated {:?}", ws, rs);
        }
        // unit weights are no weights
        prop_assert_eq!(borda_scores(&v, Some(&vec![1.0; rows.n()])), borda_scores(&v, None));
    }

    // Exact-tie properties. On complete rankings every vote is an integer, so float sums are exact
    // and these hold. They are run on incomplete rankings too, in the ignored twins below.

    #[test]
    fn complete_exact_ties_consensus_matches_exact_arithmetic(
        args in weighted(complete_rows(1..=8, 2..=8))
    ) {
        consensus_matches_exact_arithmetic(args)?;
    }

    #[test]
    fn complete_exact_ties_integer_weights_equal_repeated_rows(args in weighted(complete_rows(1..=6, 2..=8))) {
        integer_weights_equal_repeated_rows(args)?;
    }

    #[test]
    fn complete_exact_ties_row_order_does_not_matter(args in shuffled(complete_rows(1..=8, 2..=8))) {
        row_order_does_not_matter(args)?;
    }

    #[test]
    fn complete_exact_ties_go_to_the_lower_label_index(rows in complete_rows(1..=5, 2..=8)) {
        ties_go_to_the_lower_label_index(rows)?;
    }

    // SRC BUG (generalized Borda ties under float rounding): generalized Borda votes of an
    // incomplete ranking, (k + 1 - r)(m + 1)/(k + 1), are not exact in f64 when k + 1 is not a power
    // of two, so labels whose totals are mathematically equal can differ in the last bit, and the
    // documented tie rule (lower label index first) as well as row-order and weight/repetition
    // invariance fail. E.g. m = 3, rows 0>1, 0>1, 1>0, 1>0 (label 2 missing in all): exact totals
    // 8, 8, 8 -> expected [1, 2, 3]; borda_scores gives [7.999999999999999, 8, 8] and borda
    // [3, 1, 2]. (Fixed: the aggregation sums exact integer-scaled votes.)

    #[test]
    fn incomplete_exact_ties_consensus_matches_exact_arithmetic(
        args in weighted(incomplete_rows(1..=8, 2..=8, 0))
    ) {
        consensus_matches_exact_arithmetic(args)?;
    }

    #[test]
    fn incomplete_exact_ties_integer_weights_equal_repeated_rows(
        args in weighted(incomplete_rows(1..=6, 2..=8, 2))
    ) {
        integer_weights_equal_repeated_rows(args)?;
    }

    #[test]
    fn incomplete_exact_ties_row_order_does_not_matter(args in shuffled(incomplete_rows(1..=8, 2..=8, 2))) {
        row_order_does_not_matter(args)?;
    }

    #[test]
    fn incomplete_exact_ties_go_to_the_lower_label_index(rows in incomplete_rows(1..=5, 2..=8, 2)) {
        ties_go_to_the_lower_label_index(rows)?;
    }
}

fn weighted(rows: impl Strategy<Value = Rows>) -> impl Strategy<Value = (Rows, Vec<usize>)> {
    rows.prop_flat_map(|rows| {
        let n = rows.n();
        (Just(rows), prop::collection::vec(0usize..=4, n))
    })
}

fn shuffled(rows: impl Strategy<Value = Rows>) -> impl Strategy<Value = (Rows, Vec<usize>)> {
    rows.prop_flat_map(|rows| {
        let n = rows.n();
        (Just(rows), order(n))
    })
}

/// Each row repeated as often as its weight, flattened, and the number of rows that makes.
fn repeat_rows(rows: &Rows, weights: &[usize]) -> (Vec<i32>, usize) {
    let flat: Vec<i32> = rows.rows.iter().zip(weights).flat_map(|(r, &w)| std::iter::repeat_n(r.clone(), w)).flatten().collect();
    (flat, weights.iter().sum())
}

fn consensus_matches_exact_arithmetic((rows, weights): (Rows, Vec<usize>)) -> Result<(), TestCaseError> {
    let flat = rows.flat();
    let v = RankMatrixView::new(&flat, rows.n(), rows.m).unwrap();
    let wi: Vec<i64> = weights.iter().map(|&w| w as i64).collect();
    let wf: Vec<f64> = weights.iter().map(|&w| w as f64).collect();
    for (c, exact) in [(borda(&v, None), exact_scores(&rows, None)), (borda(&v, Some(&wf)), exact_scores(&rows, Some(&wi)))] {
        prop_assert_eq!(c, exact_consensus(&exact), "exact scores {:?}", exact);
    }
    Ok(())
}

fn integer_weights_equal_repeated_rows((rows, weights): (Rows, Vec<usize>)) -> Result<(), TestCaseError> {
    let flat = rows.flat();
    let v = RankMatrixView::new(&flat, rows.n(), rows.m).unwrap();
    let wf: Vec<f64> = weights.iter().map(|&w| w as f64).collect();
    let (repeated, n_rep) = repeat_rows(&rows, &weights);
    let rv = RankMatrixView::new(&repeated, n_rep, rows.m).unwrap();
    prop_assert_eq!(borda(&v, Some(&wf)), borda(&rv, None));
    Ok(())
}

fn row_order_does_not_matter((rows, perm): (Rows, Vec<usize>)) -> Result<(), TestCaseError> {
    let flat = rows.flat();
    let shuffled: Vec<i32> = perm.iter().flat_map(|&i| rows.rows[i].clone()).collect();
    let a = borda(&RankMatrixView::new(&flat, rows.n(), rows.m).unwrap(), None);
    let b = borda(&RankMatrixView::new(&shuffled, rows.n(), rows.m).unwrap(), None);
    prop_assert_eq!(a, b);
    Ok(())
}

fn ties_go_to_the_lower_label_index(rows: Rows) -> Result<(), TestCaseError> {
    // Each ranking together with its reverse gives every label m + 1 votes: all labels tie.
    let mut with_reverses = rows.rows.clone();
    with_reverses.extend(rows.rows.iter().map(|r| reverse(r)));
    let flat = with_reverses.concat();
    let v = RankMatrixView::new(&flat, with_reverses.len(), rows.m).unwrap();
    let identity: Vec<i32> = (1..=rows.m as i32).collect();
    prop_assert_eq!(borda(&v, None), identity);
    Ok(())
}

#[test]
fn hand_built_tie() {
    // 0>1>2 and 1>0>2: labels 0 and 1 tie on 5 votes, label 2 has 2; the tie goes to label 0.
    let y = [1, 2, 3, 2, 1, 3];
    let v = RankMatrixView::new(&y, 2, 3).unwrap();
    assert_eq!(borda_scores(&v, None), vec![5.0, 5.0, 2.0]);
    assert_eq!(borda(&v, None), vec![1, 2, 3]);
    // the same tie written the other way round (1>0>2 first) still goes to label 0
    let y = [2, 1, 3, 1, 2, 3];
    assert_eq!(borda(&RankMatrixView::new(&y, 2, 3).unwrap(), None), vec![1, 2, 3]);
    // an incomplete tie: 2>0 and 0>2 with label 1 missing in both: all three get 2 votes each
    let y = [2, 0, 1, 1, 0, 2];
    let v = RankMatrixView::new(&y, 2, 3).unwrap();
    assert_eq!(borda_scores(&v, None), vec![4.0, 4.0, 4.0]);
    assert_eq!(borda(&v, None), vec![1, 2, 3]);
}

#[test]
fn hand_built_incomplete_tie_across_four_rows() {
    // m = 3, rows 0>1, 0>1, 1>0, 1>0 (label 2 missing everywhere): each row gives 8/3 and 4/3 to
    // its ranked labels and 2 to label 2, so all three labels total exactly 8.
    let y = [1, 2, 0, 1, 2, 0, 2, 1, 0, 2, 1, 0];
    let v = RankMatrixView::new(&y, 4, 3).unwrap();
    let s = borda_scores(&v, None);
    assert!(s.iter().all(|x| (x - 8.0).abs() < 1e-9), "{s:?}");
    assert_eq!(borda(&v, None), vec![1, 2, 3], "scores {s:?}");
}
