use super::*;
use crate::data::ranking::ranks_of_order;
use crate::metrics::distance::kendall_tau;
use crate::parallel::with_threads;
use crate::tree::{Boundaries, LeafFitter, SortedSample, SplitCriterion};

/// Rankings of 4 labels by sorting noisy linear scores of 3 features.
fn problem(n: usize, seed: u64) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let row: Vec<f64> = (0..3).map(|_| rng.uniform()).collect();
        let scores = [row[0], row[1], 1.0 - row[0], 0.5 * row[2] + 0.2 * rng.uniform()];
        let mut order: Vec<usize> = (0..4).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        x.extend(row);
        y.extend(ranks_of_order(&order, 4));
    }
    (x, y)
}

fn fit(x: &[f64], y: &[i32], params: GradientBoostingParams) -> GradientBoostingModel {
    let n = y.len() / 4;
    let (xv, yv) = (FeatureMatrixView::new(x, n, 3).unwrap(), RankMatrixView::new(y, n, 4).unwrap());
    GradientBoostingModel::fit_views(&xv, &yv, None, params).unwrap()
}

fn mean_tau(truth: &[i32], pred: &[i32]) -> f64 {
    let rows = truth.chunks(4).zip(pred.chunks(4));
    rows.map(|(t, p)| kendall_tau(t, p)).sum::<f64>() / (truth.len() / 4) as f64
}

#[test]
fn boosting_learns_the_rankings_and_lowers_the_training_loss() {
    let (x, y) = problem(600, 1);
    let (xt, yt) = problem(300, 2);
    for loss in [RankingLoss::PlackettLuce, RankingLoss::PairwiseLogistic] {
        let params = GradientBoostingParams { loss, n_estimators: 60, min_samples_leaf: 5.0, seed: 3, ..Default::default() };
        let model = fit(&x, &y, params);
        assert_eq!(model.trees.len(), 60);
        assert!(model.train_loss.windows(2).all(|w| w[1] <= w[0] + 1e-9), "{loss:?}: {:?}", model.train_loss);
        let pred = model.predict_ranks(&FeatureMatrixView::new(&xt, 300, 3).unwrap()).unwrap();
        let tau = mean_tau(&yt, &pred);
        assert!(tau > 0.8, "{loss:?}: test tau {tau}");
    }
}

#[test]
fn the_initial_scores_minimise_the_loss_among_constants() {
    let (_, y) = problem(300, 4);
    let yv = RankMatrixView::new(&y, 300, 4).unwrap();
    let rows: Vec<u32> = (0..300).collect();
    let w = vec![1.0; 300];
    for loss in [RankingLoss::PlackettLuce, RankingLoss::PairwiseLogistic] {
        let s = constant_scores(loss, &yv, &loss::RankOrders::new(&yv), &w, &rows, 0.0);
        let total = |s: &[f64]| {
            rows.iter().map(|&i| loss.row(yv.row(i as usize), s, None, &mut loss::RowScratch::default())).sum::<f64>()
        };
        let best = total(&s);
        // Every small move of one score makes it worse (a minimum of a convex function).
        for j in 0..4 {
            for d in [-1e-3, 1e-3] {
                let mut moved = s.clone();
                moved[j] += d;
                assert!(total(&moved) >= best - 1e-9, "{loss:?}: label {j} by {d}");
            }
        }
    }
}

#[test]
fn the_split_gain_is_the_drop_of_the_second_order_approximation() {
    // Slow reference: for every boundary, the sum over labels of G^2/(H + l2) of both sides
    // minus the node's, from the gradients directly.
    let mut rng = Rng::new(9);
    let (n, m, l2) = (40usize, 3usize, 0.7);
    let g: Vec<f64> = (0..n * m).map(|_| rng.uniform() - 0.5).collect();
    let h: Vec<f64> = (0..n * m).map(|_| rng.uniform()).collect();
    let w: Vec<f64> = (0..n).map(|_| 1.0 + rng.below(3) as f64).collect();
    let gh: Vec<f64> = (0..n).flat_map(|i| g[i * m..(i + 1) * m].iter().chain(&h[i * m..(i + 1) * m]).copied()).collect();
    let criterion = NewtonCriterion { grads: Gradients { gh: &gh, m }, l2, min_leaf: 1.0, min_curvature: 0.0 };
    let rows: Vec<u32> = (0..n as u32).collect();
    let sorted: Vec<SortedSample> = (0..n).map(|i| SortedSample { value: i as f64, sample: i as u32, weight: w[i] }).collect();
    let node = criterion.node_stats(&rows, &w);
    let score = |range: std::ops::Range<usize>| -> f64 {
        (0..m)
            .map(|j| {
                let gs: f64 = range.clone().map(|i| w[i] * g[i * m + j]).sum();
                let hs: f64 = range.clone().map(|i| w[i] * h[i * m + j]).sum();
                gs * gs / (hs + l2)
            })
            .sum()
    };
    let gains: Vec<f64> = (1..n).map(|k| score(0..k) + score(k..n) - score(0..n)).collect();
    let (best_k, best_gain) =
        gains.iter().enumerate().fold((0, f64::NEG_INFINITY), |b, (k, &v)| if v > b.1 + 1e-12 { (k, v) } else { b });
    let (k, gain) = criterion.best_boundary(&node, &sorted, Boundaries::All, f64::NEG_INFINITY).unwrap();
    assert_eq!(k, best_k + 1, "k counts the samples on the left");
    assert!((gain - best_gain).abs() < 1e-9, "{gain} vs {best_gain}");
}

#[test]
fn deterministic_for_a_seed_at_any_thread_count_and_subsampling_changes_the_model() {
    let (x, y) = problem(400, 5);
    let params = GradientBoostingParams {
        n_estimators: 15,
        subsample: 0.7,
        max_features: MaxFeatures::Count(2),
        min_samples_leaf: 5.0,
        seed: 11,
        ..Default::default()
    };
    let one = with_threads(Some(1), || fit(&x, &y, params.clone())).unwrap();
    let two = with_threads(Some(2), || fit(&x, &y, params.clone())).unwrap();
    assert_eq!(one, two);
    let other = fit(&x, &y, GradientBoostingParams { seed: 12, ..params.clone() });
    assert_ne!(one.trees, other.trees);
    let full = fit(&x, &y, GradientBoostingParams { subsample: 1.0, max_features: MaxFeatures::All, ..params });
    assert_ne!(one.trees, full.trees);
}

#[test]
fn early_stopping_keeps_the_rounds_up_to_the_best_held_out_loss() {
    let (x, y) = problem(500, 6);
    let params = GradientBoostingParams {
        n_estimators: 400,
        learning_rate: 0.5,
        min_samples_leaf: 1.0,
        max_depth: Some(8),
        early_stopping: EarlyStopping::On,
        n_iter_no_change: 5,
        seed: 2,
        ..Default::default()
    };
    let model = fit(&x, &y, params.clone());
    let v = &model.validation_loss;
    assert!(v.len() < 400, "stopped early: {} rounds", v.len());
    let best = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let best_round = v.iter().position(|&l| l == best).unwrap() + 1;
    assert_eq!(model.trees.len(), best_round);
    assert!(v.len() >= best_round + 5);
    // Auto holds nothing out on 500 rows.
    let auto = fit(&x, &y, GradientBoostingParams { early_stopping: EarlyStopping::Auto, n_estimators: 10, ..params });
    assert!(auto.validation_loss.is_empty() && auto.trees.len() == 10);
}

#[test]
fn incomplete_rankings_and_ties_are_used_where_the_loss_allows() {
    let (x, mut y) = problem(300, 7);
    // Every third ranking keeps its top two labels only.
    for row in y.chunks_mut(4).step_by(3) {
        row.iter_mut().for_each(|r| *r = if *r <= 2 { *r } else { 0 });
    }
    let model = fit(&x, &y, GradientBoostingParams { n_estimators: 20, min_samples_leaf: 5.0, ..Default::default() });
    assert!(model.train_loss.last().unwrap() < model.train_loss.first().unwrap());
    // A tie: the pairwise loss learns from it, Plackett-Luce refuses it by row.
    y[4..8].copy_from_slice(&[1, 1, 2, 3]);
    let pairwise = GradientBoostingParams { loss: RankingLoss::PairwiseLogistic, n_estimators: 5, ..Default::default() };
    fit(&x, &y, pairwise);
    let (xv, yv) = (FeatureMatrixView::new(&x, 300, 3).unwrap(), RankMatrixView::new(&y, 300, 4).unwrap());
    let err = GradientBoostingModel::fit_views(&xv, &yv, None, GradientBoostingParams::default()).unwrap_err().to_string();
    assert!(err.contains("row 1 ") && err.contains("Plackett-Luce"), "{err}");
}

#[test]
fn exact_and_histogram_search_agree_with_a_bin_per_value() {
    // Gradients are not whole numbers, so sums in another order may round differently and
    // decide a near-tie otherwise: the predictions agree on nearly every row, not bit for bit.
    let (mut x, y) = problem(200, 8);
    x.iter_mut().for_each(|v| *v = (*v * 20.0).round()); // 21 values per feature
    let params = GradientBoostingParams { n_estimators: 5, min_samples_leaf: 3.0, ..Default::default() };
    let binned = fit(&x, &y, params.clone());
    let exact = fit(&x, &y, GradientBoostingParams { max_bins: None, ..params });
    let xv = FeatureMatrixView::new(&x, 200, 3).unwrap();
    let (a, b) = (binned.predict_ranks(&xv).unwrap(), exact.predict_ranks(&xv).unwrap());
    let same = a.chunks(4).zip(b.chunks(4)).filter(|(p, q)| p == q).count();
    assert!(same >= 196, "{same} of 200 rows agree");
    let coarse =
        fit(&x, &y, GradientBoostingParams { max_bins: Some(3), n_estimators: 5, min_samples_leaf: 3.0, ..Default::default() });
    assert_ne!(coarse.trees, exact.trees);
}

#[test]
fn bad_parameters_are_refused_by_name() {
    let (x, y) = problem(50, 1);
    let (xv, yv) = (FeatureMatrixView::new(&x, 50, 3).unwrap(), RankMatrixView::new(&y, 50, 4).unwrap());
    let cases: Vec<(GradientBoostingParams, &str)> = vec![
        (GradientBoostingParams { learning_rate: 0.0, ..Default::default() }, "learning_rate"),
        (GradientBoostingParams { subsample: 1.5, ..Default::default() }, "subsample"),
        (GradientBoostingParams { l2_regularization: -1.0, ..Default::default() }, "l2_regularization"),
        (GradientBoostingParams { validation_fraction: 1.0, ..Default::default() }, "validation_fraction"),
        (GradientBoostingParams { n_iter_no_change: 0, ..Default::default() }, "n_iter_no_change"),
        (GradientBoostingParams { n_estimators: 0, ..Default::default() }, "n_estimators"),
        (GradientBoostingParams { max_bins: Some(1), ..Default::default() }, "max_bins"),
    ];
    for (params, name) in cases {
        let err = GradientBoostingModel::fit_views(&xv, &yv, None, params).unwrap_err().to_string();
        assert!(err.contains(name), "{err}");
    }
}

#[test]
fn tuning_picks_the_best_candidate_by_inner_cross_validation_and_fits_with_it() {
    let (x, y) = problem(240, 12);
    let params = GradientBoostingParams { n_estimators: 8, min_samples_leaf: 5.0, tune: true, seed: 4, ..Default::default() };
    let model = fit(&x, &y, params.clone());
    assert_eq!(model.params, params, "the model keeps the parameters asked for");
    assert_eq!(model.tuning.len(), tune::TUNE_DEPTHS.len() * tune::TUNE_RATES.len() * 4);
    let best = model.tuning.iter().fold(&model.tuning[0], |b, c| if c.tau > b.tau + 1e-12 { c } else { b });
    assert!(model.tuning.iter().all(|c| c.tau <= best.tau + 1e-12));
    // The same as fitting the chosen parameters directly.
    let chosen = GradientBoostingParams {
        max_depth: Some(best.max_depth),
        learning_rate: best.learning_rate,
        n_estimators: best.n_estimators,
        tune: false,
        ..params
    };
    let direct = fit(&x, &y, chosen);
    assert_eq!((model.trees, model.init_scores), (direct.trees, direct.init_scores));
}

#[test]
fn per_label_trees_fit_each_label_with_its_own_tree() {
    let (x, y) = problem(500, 13);
    let (xt, yt) = problem(300, 14);
    let xtv = FeatureMatrixView::new(&xt, 300, 3).unwrap();
    for loss in [RankingLoss::PlackettLuce, RankingLoss::PairwiseLogistic] {
        let params = GradientBoostingParams {
            loss,
            n_estimators: 30,
            min_samples_leaf: 5.0,
            per_label_trees: true,
            seed: 3,
            ..Default::default()
        };
        let model = fit(&x, &y, params.clone());
        assert_eq!(model.trees.len(), 30 * 4, "a tree per label per round");
        assert!(model.trees.iter().all(|t| t.leaves.iter().all(|l| l.scores.len() == 1)));
        assert!(model.train_loss.windows(2).all(|w| w[1] <= w[0] + 1e-9), "{loss:?}: {:?}", model.train_loss);
        // Slow reference: the scores are the initial ones plus each tree's leaf value on its label.
        let scores = model.scores(&xtv);
        for (i, row) in scores.chunks(4).enumerate() {
            let mut expected = model.init_scores.clone();
            for (t, tree) in model.trees.iter().enumerate() {
                expected[t % 4] += tree.leaf_for(xtv.row(i), &model.fill_values).scores[0];
            }
            row.iter().zip(&expected).for_each(|(a, b)| assert!((a - b).abs() < 1e-12, "row {i}: {row:?} vs {expected:?}"));
        }
        let tau = mean_tau(&yt, &model.predict_ranks(&xtv).unwrap());
        assert!(tau > 0.8, "{loss:?}: test tau {tau}");
        // Another model than one multi-output tree per round, and a consistent one: check passes,
        // and a tree too many is refused.
        let shared = fit(&x, &y, GradientBoostingParams { per_label_trees: false, ..params });
        assert_ne!(shared.predict_ranks(&xtv).unwrap(), model.predict_ranks(&xtv).unwrap());
        assert_eq!(model.check(), Ok(()));
        let mut broken = model.clone();
        broken.trees.pop();
        assert!(broken.check().is_err());
    }
}

#[test]
fn per_label_trees_are_deterministic_at_any_thread_count_and_stop_early_by_whole_rounds() {
    let (x, y) = problem(400, 15);
    let params = GradientBoostingParams {
        n_estimators: 200,
        learning_rate: 0.5,
        min_samples_leaf: 1.0,
        max_depth: Some(8),
        subsample: 0.8,
        early_stopping: EarlyStopping::On,
        n_iter_no_change: 4,
        per_label_trees: true,
        seed: 7,
        ..Default::default()
    };
    let one = with_threads(Some(1), || fit(&x, &y, params.clone())).unwrap();
    let two = with_threads(Some(2), || fit(&x, &y, params.clone())).unwrap();
    assert_eq!(one, two);
    let v = &one.validation_loss;
    assert!(v.len() < 200, "stopped early: {} rounds", v.len());
    let best_round = v.iter().position(|&l| l == v.iter().cloned().fold(f64::INFINITY, f64::min)).unwrap() + 1;
    assert_eq!(one.trees.len(), 4 * best_round);
    assert_eq!(one.summary()["n_rounds"], best_round);
}

#[test]
fn tuning_with_per_label_trees_reads_whole_rounds() {
    let (x, y) = problem(240, 16);
    let params = GradientBoostingParams {
        n_estimators: 8,
        min_samples_leaf: 5.0,
        per_label_trees: true,
        tune: true,
        seed: 4,
        ..Default::default()
    };
    let model = fit(&x, &y, params.clone());
    let best = tune::best(&model.tuning).unwrap().clone();
    assert_eq!(model.trees.len(), 4 * best.n_estimators);
    // A staged tau after k rounds equals the tau of a model fitted with k rounds.
    let chosen =
        GradientBoostingParams { max_depth: Some(best.max_depth), learning_rate: best.learning_rate, tune: false, ..params };
    let direct = fit(&x, &y, GradientBoostingParams { n_estimators: best.n_estimators, ..chosen });
    assert_eq!(model.trees, direct.trees);
}

#[test]
fn the_training_loss_is_the_loss_of_the_models_own_scores() {
    // The rows a round's trees were grown on take their leaves' recorded values, the others walk
    // the trees: either way the scores must be what the model predicts. Missing values, a
    // nominal feature, subsampling (unsampled rows walk) and both kinds of trees.
    use crate::data::features::FeatureKind;
    let (mut x, y) = problem(300, 17);
    for (i, v) in x.iter_mut().enumerate() {
        if i % 3 == 1 {
            *v = (*v * 4.0).floor(); // nominal: codes 0 to 3
        } else if i % 11 == 0 {
            *v = f64::NAN;
        }
    }
    let kinds = [FeatureKind::Numeric, FeatureKind::Nominal, FeatureKind::Numeric];
    let xv = FeatureMatrixView::new(&x, 300, 3).unwrap().with_kinds(Some(&kinds)).unwrap();
    let yv = RankMatrixView::new(&y, 300, 4).unwrap();
    for (per_label_trees, max_bins) in [(false, Some(255)), (true, Some(255)), (true, None), (false, Some(4))] {
        let params = GradientBoostingParams {
            loss: RankingLoss::PairwiseLogistic,
            n_estimators: 12,
            min_samples_leaf: 3.0,
            subsample: 0.6,
            per_label_trees,
            max_bins,
            seed: 5,
            ..Default::default()
        };
        let model = GradientBoostingModel::fit_views(&xv, &yv, None, params).unwrap();
        let scores = model.scores(&xv);
        let mut scratch = loss::RowScratch::default();
        let mean =
            (0..300).map(|i| model.params.loss.row(yv.row(i), &scores[i * 4..(i + 1) * 4], None, &mut scratch)).sum::<f64>()
                / 300.0;
        let last = *model.train_loss.last().unwrap();
        assert!((mean - last).abs() <= 1e-12 * last.abs(), "{per_label_trees} {max_bins:?}: {mean} vs {last}");
    }
}

#[test]
fn without_l2_a_leaf_of_next_to_no_curvature_takes_no_step_rather_than_an_overflowing_one() {
    // A row the model ranks surely has H near 0 and a G of rounding noise: -G/H overflowed the
    // scores (glass with l2 0 and min_samples_leaf 0: scores 7e287, losses NaN; an audit).
    let gh = [1e-17, 1e-300, -0.3, 0.2];
    let record = LeafValues::new(2);
    let leaves = |min_curvature| NewtonLeaves {
        grads: Gradients { gh: &gh, m: 1 },
        l2: 0.0,
        learning_rate: 0.1,
        min_curvature,
        record: &record,
        offset: 0,
    };
    let sure = leaves(newton::min_curvature(1.0, 0.0)).fit_leaf(&[0], &[1.0]);
    assert_eq!(sure.scores, vec![0.0]);
    assert!(leaves(0.0).fit_leaf(&[0], &[1.0]).scores[0].abs() > 1e200, "the guard is what keeps it finite");
    let usual = leaves(newton::min_curvature(1.0, 0.0)).fit_leaf(&[1], &[1.0]);
    assert_eq!(newton::min_curvature(5000.0, 1.0), 0.0, "with a penalty no model changes");
    assert!((usual.scores[0] - 0.1 * 0.3 / 0.2).abs() < 1e-12);
    // The split gain gives such a side no credit either.
    let criterion = NewtonCriterion { grads: Gradients { gh: &gh, m: 1 }, l2: 0.0, min_leaf: 0.0, min_curvature: 1e-3 };
    let node = criterion.node_stats(&[0, 1], &[1.0, 1.0]);
    let sorted = [SortedSample { value: 0.0, sample: 0, weight: 1.0 }, SortedSample { value: 1.0, sample: 1, weight: 1.0 }];
    let gain = criterion.best_boundary(&node, &sorted, Boundaries::All, f64::NEG_INFINITY).map(|(_, g)| g);
    assert!(gain.is_none_or(|g| g.is_finite() && g < 1.0), "{gain:?}");
}
