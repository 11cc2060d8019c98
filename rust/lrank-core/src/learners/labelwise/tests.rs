use super::*;
use crate::metrics::distance::kendall_tau;
use crate::parallel::with_threads;
use crate::rng::Rng;
use crate::tree::{Boundaries, SortedSample, SplitCriterion};

fn view(y: &[i32], m: usize) -> RankMatrixView<'_> {
    RankMatrixView::new(y, y.len() / m, m).unwrap()
}

#[test]
fn targets_are_mid_positions_of_the_labels_present() {
    let y = [2, 1, 3, 0, 1, 2];
    let t = Targets::relative_positions(&view(&y, 3), 2.0);
    assert_eq!(t.row(0), (&[0.5, 1.0 / 6.0, 5.0 / 6.0][..], &[1.0, 1.0, 1.0][..]));
    assert_eq!(t.row(1), (&[0.0, 0.25, 0.75][..], &[0.0, 1.0, 1.0][..]));
}

/// Squared error of each label over the rows that rank it, summed (the slow definition).
fn squared_error(t: &Targets, rows: &[u32], w: &[f64]) -> f64 {
    (0..t.m)
        .map(|j| {
            let (mut sw, mut s) = (0.0, 0.0);
            for (&r, &wi) in rows.iter().zip(w) {
                let (score, present) = t.row(r);
                sw += present[j] * wi;
                s += present[j] * wi * score[j];
            }
            if sw == 0.0 {
                return 0.0;
            }
            let mean = s / sw;
            rows.iter()
                .zip(w)
                .map(|(&r, &wi)| {
                    let (score, present) = t.row(r);
                    present[j] * wi * (score[j] - mean).powi(2)
                })
                .sum::<f64>()
        })
        .sum()
}

#[test]
fn the_sweep_picks_the_split_with_the_largest_decrease_of_squared_error() {
    let mut rng = Rng::new(8);
    for trial in 0..80 {
        let (n, m) = (3 + rng.below(25), 2 + trial % 5);
        let mut y = Vec::new();
        for _ in 0..n {
            let mut order: Vec<usize> = (0..m).collect();
            rng.shuffle(&mut order);
            let keep = if rng.uniform() < 0.4 { 2.max(m - 1) } else { m };
            y.extend(crate::data::ranking::ranks_of_order(&order[..keep], m));
        }
        let t = Targets::relative_positions(&view(&y, m), 2.0 * n as f64);
        let crit = LabelwiseVariance { targets: std::borrow::Cow::Borrowed(&t), min_leaf: 1.0 };
        let rows: Vec<u32> = (0..n as u32).collect();
        let w: Vec<f64> = (0..n).map(|_| 1.0 + rng.below(2) as f64).collect();
        let mut values: Vec<f64> = (0..n).map(|_| rng.below(n) as f64).collect();
        values.sort_by(f64::total_cmp);
        let sorted: Vec<SortedSample> =
            (0..n).map(|i| SortedSample { value: values[i], sample: i as u32, weight: w[i] }).collect();
        let node = crit.node_stats(&rows, &w);
        let total: f64 = w.iter().sum();
        let parent = squared_error(&t, &rows, &w);
        let brute = (1..n)
            .filter(|&k| values[k] != values[k - 1])
            .map(|k| (k, (parent - squared_error(&t, &rows[..k], &w[..k]) - squared_error(&t, &rows[k..], &w[k..])) / total))
            .fold(None, |best: Option<(usize, f64)>, c| if best.is_none_or(|b| c.1 > b.1 + 1e-9) { Some(c) } else { best });
        let fast = crit.best_boundary(&node, &sorted, Boundaries::All, f64::NEG_INFINITY);
        match (fast, brute) {
            (Some((fk, fg)), Some((bk, bg))) => {
                assert!((fg - bg).abs() < 1e-9, "trial {trial}: gain {fg} vs {bg}");
                let at_fast =
                    (parent - squared_error(&t, &rows[..fk], &w[..fk]) - squared_error(&t, &rows[fk..], &w[fk..])) / total;
                assert!((at_fast - bg).abs() < 1e-9, "trial {trial}: boundary {fk} vs {bk}");
            }
            (None, None) => {}
            other => panic!("trial {trial}: {other:?}"),
        }
    }
}

fn problem(n: usize, seed: u64) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b) = (rng.uniform(), rng.uniform());
        x.extend([a, b]);
        y.extend(match (a > 0.4, b > 0.6) {
            (true, true) => [1, 2, 3],
            (true, false) => [2, 1, 3],
            (false, true) => [3, 1, 2],
            (false, false) => [3, 2, 1],
        });
    }
    (x, y)
}

fn fit(x: &[f64], y: &[i32], params: LabelwiseParams) -> LabelwiseModel {
    let n = y.len() / 3;
    LabelwiseModel::fit_views(&FeatureMatrixView::new(x, n, 2).unwrap(), &view(y, 3), None, params).unwrap()
}

#[test]
fn a_grown_tree_learns_a_piecewise_ranking_function() {
    let (x, y) = problem(300, 1);
    let model = fit(&x, &y, LabelwiseParams::tree());
    assert_eq!(model.predict_ranks(&FeatureMatrixView::new(&x, 300, 2).unwrap()).unwrap(), y);
    assert!(model.trees[0].n_leaves() <= 6, "{} leaves", model.trees[0].n_leaves());
}

#[test]
fn a_label_no_row_of_a_leaf_ranks_takes_its_parents_score() {
    // Left half ranks only labels 0 and 1 (0 first); right half ranks 2 > 1 > 0.
    let x: Vec<f64> = (0..20).map(f64::from).collect();
    let y: Vec<i32> = (0..20).flat_map(|i| if i < 10 { [1, 2, 0] } else { [3, 2, 1] }).collect();
    let model =
        LabelwiseModel::fit_views(&FeatureMatrixView::new(&x, 20, 1).unwrap(), &view(&y, 3), None, LabelwiseParams::tree())
            .unwrap();
    assert_eq!(model.trees[0].n_leaves(), 2);
    let scores = model.predict_scores(&FeatureMatrixView::new(&[0.0], 1, 1).unwrap()).unwrap();
    // Label 2 is only ranked on the right, where it is first: the root's mean is 1/6.
    for (got, want) in scores.iter().zip([0.25, 0.75, 1.0 / 6.0]) {
        assert!((got - want).abs() < 1e-12, "{scores:?}");
    }
    assert_eq!(model.predict_ranks(&FeatureMatrixView::new(&[0.0], 1, 1).unwrap()).unwrap(), vec![2, 3, 1]);
}

#[test]
fn forests_average_their_trees_and_do_not_depend_on_threads() {
    let (x, y) = problem(400, 2);
    let params = LabelwiseParams { n_estimators: 8, seed: 5, ..LabelwiseParams::forest() };
    let one = with_threads(Some(1), || fit(&x, &y, params.clone())).unwrap();
    let two = with_threads(Some(2), || fit(&x, &y, params.clone())).unwrap();
    assert_eq!(one, two);
    let xv = FeatureMatrixView::new(&x[..20], 10, 2).unwrap();
    let mean = one.predict_scores(&xv).unwrap();
    for i in 0..10 {
        for j in 0..3 {
            let by_hand: f64 = one.trees.iter().map(|t| t.leaf_for(xv.row(i), &one.fill_values).scores[j]).sum::<f64>() / 8.0;
            assert!((mean[i * 3 + j] - by_hand).abs() < 1e-12);
        }
    }
}

#[test]
fn tuned_mode_picks_the_best_cross_validated_depth() {
    let (x, y) = problem(200, 3);
    let model = fit(&x, &y, LabelwiseParams { tune_depth: true, ..LabelwiseParams::tree() });
    assert_eq!(model.depth_scores.len(), 4);
    let best = model.depth_scores.iter().fold(model.depth_scores[0], |b, s| if s.tau > b.tau { *s } else { b });
    assert_eq!(model.max_depth, best.max_depth);
    assert!(best.tau > 0.9, "{best:?}");
    let small = LabelwiseModel::fit_views(
        &FeatureMatrixView::new(&x[..6], 3, 2).unwrap(),
        &view(&y[..9], 3),
        None,
        LabelwiseParams { tune_depth: true, ..LabelwiseParams::tree() },
    );
    assert!(small.unwrap_err().to_string().contains("at least 5 training rows"));
}

/// Ties, missing and nominal values, whole-number weights, incomplete rankings when `partial`.
fn mixed_problem(n: usize, m: usize, partial: bool, seed: u64) -> (Vec<f64>, Vec<i32>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let (mut x, mut y, mut w) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b, c) = (rng.below(60) as f64 / 4.0, rng.below(5) as f64, rng.below(200) as f64);
        x.extend([if rng.below(20) == 0 { f64::NAN } else { a }, b, c]);
        let mut order: Vec<usize> = (0..m).collect();
        order.rotate_left(((a / 3.0) as usize + b as usize + rng.below(2)) % m);
        let keep = if partial && rng.below(3) == 0 { 2 } else { m };
        y.extend(crate::data::ranking::ranks_of_order(&order[..keep], m));
        w.push(1.0 + rng.below(3) as f64);
    }
    (x, y, w)
}

#[test]
fn histograms_with_a_bin_per_value_grow_the_exact_trees() {
    use crate::data::features::FeatureKind;
    let kinds = [FeatureKind::Numeric, FeatureKind::Nominal, FeatureKind::Numeric];
    for (trial, (n, partial)) in [(150, false), (900, false), (700, true), (2500, true)].into_iter().enumerate() {
        let m = 3 + trial % 3;
        let (x, y, w) = mixed_problem(n, m, partial, 20 + trial as u64);
        let xv = FeatureMatrixView::new(&x, n, 3).unwrap().with_kinds(Some(&kinds)).unwrap();
        let yv = view(&y, m);
        let forest = LabelwiseParams { n_estimators: 4, seed: 9, ..LabelwiseParams::forest() };
        let tree = LabelwiseParams { max_depth: Some(12), ..LabelwiseParams::tree() };
        for params in [forest, tree] {
            let exact = LabelwiseModel::fit_views(&xv, &yv, Some(&w), LabelwiseParams { max_bins: None, ..params.clone() });
            let binned = LabelwiseModel::fit_views(&xv, &yv, Some(&w), LabelwiseParams { max_bins: Some(255), ..params });
            let (exact, binned) = (exact.unwrap(), binned.unwrap());
            assert!(exact.trees.iter().map(|t| t.n_leaves()).sum::<usize>() > 20);
            assert!(exact.trees == binned.trees, "trial {trial}: the trees differ");
        }
    }
}

#[test]
fn coarse_histograms_are_nearly_as_accurate() {
    // Uniform features cut into 64 bins: the thresholds 0.4 and 0.6 fall inside bins, so rows
    // within a bin's width of them can be misranked (about 3%), no more.
    let (x, y) = problem(2000, 4);
    let (xt, yt) = problem(500, 5);
    let forest = LabelwiseParams { n_estimators: 20, seed: 2, ..LabelwiseParams::forest() };
    let tau = |max_bins| {
        let model = fit(&x, &y, LabelwiseParams { max_bins, ..forest.clone() });
        let pred = model.predict_ranks(&FeatureMatrixView::new(&xt, 500, 2).unwrap()).unwrap();
        (0..500).map(|i| kendall_tau(&yt[i * 3..i * 3 + 3], &pred[i * 3..i * 3 + 3])).sum::<f64>() / 500.0
    };
    let (exact, coarse) = (tau(None), tau(Some(64)));
    assert!(exact > 0.95 && coarse > 0.95 && exact - coarse < 0.04, "exact {exact}, 64 bins {coarse}");
}

#[test]
fn the_leaf_table_gives_the_leaves_scores_and_is_rebuilt_after_a_merge() {
    let (x, y) = problem(200, 4);
    let q = FeatureMatrixView::new(&x, 200, 2).unwrap();
    let params = LabelwiseParams { n_estimators: 5, seed: 1, ..LabelwiseParams::forest() };
    let a = fit(&x, &y, params.clone());
    let b = fit(&x, &y, LabelwiseParams { seed: 2, ..params });
    // The mean of the trees' leaves, walked leaf by leaf (the reference the table must equal).
    let reference = |model: &LabelwiseModel| -> Vec<f64> {
        (0..200)
            .flat_map(|i| {
                let mut s = vec![0.0; 3];
                for tree in &model.trees {
                    let leaf = tree.leaf_for(q.row(i), &model.fill_values);
                    (0..3).for_each(|k| s[k] += leaf.scores[k]);
                }
                s.into_iter().map(|v| v * (1.0 / model.trees.len() as f64)).collect::<Vec<_>>()
            })
            .collect()
    };
    assert_eq!(a.predict_scores(&q).unwrap(), reference(&a)); // builds a's table
    let merged = LabelwiseModel::merge(vec![a, b], vec![0.0, 0.0]).unwrap();
    assert_eq!(merged.trees.len(), 10);
    assert_eq!(merged.predict_scores(&q).unwrap(), reference(&merged));
}

#[test]
fn predictions_tree_after_tree_in_blocks_equal_each_row_alone_at_any_thread_count() {
    // More rows than two blocks of the smallest size: one and two threads cut them differently.
    let n = 2 * crate::learner::PREDICT_BLOCK_ROWS * 8 + 77;
    let (x, y) = problem(n, 6);
    let q = FeatureMatrixView::new(&x, n, 2).unwrap();
    let model = fit(&x, &y, LabelwiseParams { n_estimators: 4, seed: 3, ..LabelwiseParams::forest() });
    let one_by_one: Vec<f64> = (0..n)
        .flat_map(|i| {
            let mut s = [0.0; 3];
            for tree in &model.trees {
                let leaf = tree.leaf_for(q.row(i), &model.fill_values);
                (0..3).for_each(|k| s[k] += leaf.scores[k]);
            }
            s.map(|v| v * (1.0 / model.trees.len() as f64))
        })
        .collect();
    for threads in [1, 2, 3] {
        let scores = with_threads(Some(threads), || model.predict_scores(&q).unwrap()).unwrap();
        assert_eq!(scores, one_by_one, "{threads} threads");
    }
}

/// Sums of squared units ([`crate::tree::UnitSquares`]) tell equal units exactly, for weight
/// bounds from one row to a billion: against the squares summed in 128-bit integers.
#[test]
fn unit_squares_tell_equal_units_exactly_for_any_weight_bound() {
    let mut rng = Rng::new(77);
    for bound in [1.0, 3.0, 1e3, 1e5, 1e7 + 1.0, 2f64.powi(30)] {
        let targets = Targets::new(1, vec![0.999_999], vec![1.0], bound);
        let squares = targets.squares();
        let top = targets.units(0)[0] as u64; // the largest unit a score below 1 gives
        for case in 0..200 {
            let n = 1 + rng.below((bound as usize).min(6));
            let base = rng.below(top as usize + 1) as u64;
            let units: Vec<u64> = (0..n).map(|_| if case % 2 == 0 { base } else { rng.below(top as usize + 1) as u64 }).collect();
            // Whole weights adding up to at most the bound (the last case of each bound: all of it).
            let mut spare = bound as u64 - n as u64;
            let weights: Vec<u64> = (0..n)
                .map(|i| {
                    let extra = if case == 199 && i == 0 { spare } else { rng.below(spare.min(1 << 20) as usize + 1) as u64 };
                    spare -= extra;
                    1 + extra
                })
                .collect();
            let mut sums = [0.0; 3];
            units.iter().zip(&weights).for_each(|(&u, &w)| squares.add(u as f64, w as f64, &mut sums));
            let (w, s): (u128, u128) =
                units.iter().zip(&weights).fold((0, 0), |(w, s), (&u, &c)| (w + c as u128, s + c as u128 * u as u128));
            let q: u128 = units.iter().zip(&weights).map(|(&u, &c)| c as u128 * u as u128 * u as u128).sum();
            assert!(sums.iter().all(|v| *v <= 2f64.powi(53)), "bound {bound}: a sum beyond 2^53");
            let equal = units.iter().all(|&u| u == units[0]);
            assert_eq!(w * q == s * s, equal, "bound {bound}, units {units:?}");
            assert_eq!(
                squares.all_equal(w as f64, s as f64, &sums),
                equal,
                "bound {bound}, units {units:?}, weights {weights:?}"
            );
        }
    }
}
