use super::*;
use crate::data::ranking::RankMatrixView;
use crate::rng::Rng;

#[test]
fn one_class_pairs_stay_finite_and_unseen_pairs_predict_a_half() {
    // Label 0 always before 1; label 2 only with 0. Pair (1, 2) never observed.
    let x: Vec<f64> = (0..20).map(|i| i as f64).collect();
    let y: Vec<i32> = (0..20).flat_map(|i| if i % 2 == 0 { [1, 2, 0] } else { [2, 0, 1] }).collect();
    let model = RpcModel::fit_views(
        &FeatureMatrixView::new(&x, 20, 1).unwrap(),
        &RankMatrixView::new(&y, 20, 3).unwrap(),
        None,
        RpcParams::default(),
    )
    .unwrap();
    assert!(model.pairs[0].intercept.unwrap().is_finite() && model.pairs[0].intercept.unwrap() > 0.0);
    assert_eq!(model.pairs[2].intercept, None);
    let probs = model.probabilities(&[3.0]);
    assert!(probs[0] > 0.9 && probs[2] == 0.5, "{probs:?}");
}

#[test]
fn learns_a_linear_ranking_function() {
    let mut rng = Rng::new(2);
    let (n, m) = (300, 4);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b) = (rng.uniform(), rng.uniform());
        x.extend([a, b]);
        // Utilities linear in the features: label j's utility j*a + (3-j)*b.
        let u: Vec<f64> = (0..m).map(|j| j as f64 * a + (3 - j) as f64 * b).collect();
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&p, &q| u[q].total_cmp(&u[p]));
        y.extend(crate::data::ranking::ranks_of_order(&order, m));
    }
    let model = RpcModel::fit_views(
        &FeatureMatrixView::new(&x, n, 2).unwrap(),
        &RankMatrixView::new(&y, n, m).unwrap(),
        None,
        RpcParams { c: 100.0, ..Default::default() },
    )
    .unwrap();
    let pred = model.predict_ranks(&FeatureMatrixView::new(&x, n, 2).unwrap()).unwrap();
    let tau: f64 =
        (0..n).map(|i| crate::metrics::distance::kendall_tau(&y[i * m..(i + 1) * m], &pred[i * m..(i + 1) * m])).sum::<f64>()
            / n as f64;
    assert!(tau > 0.95, "{tau}");
    assert!(model.pairs.iter().all(|p| p.converged));
}

/// Rankings of 4 labels by utilities linear in 2 features (each pair's boundary a different
/// line), with label noise: a ranking is reversed with probability `noise`.
fn linear_rankings(n: usize, noise: f64, seed: u64) -> (Vec<f64>, Vec<i32>) {
    let (m, mut rng) = (4, Rng::new(seed));
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b) = (rng.uniform(), rng.uniform());
        x.extend([a, b]);
        let angle = |j: usize| 0.7 * j as f64;
        let u: Vec<f64> = (0..m).map(|j| angle(j).cos() * (a - 0.5) + angle(j).sin() * (b - 0.5) + 0.1 * j as f64).collect();
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&p, &q| u[q].total_cmp(&u[p]));
        if rng.uniform() < noise {
            order.reverse();
        }
        y.extend(crate::data::ranking::ranks_of_order(&order, m));
    }
    (x, y)
}

/// RPC fitted on n rows of 2 features and m labels.
fn fit2(x: &[f64], y: &[i32], m: usize, params: RpcParams) -> RpcModel {
    let n = y.len() / m;
    RpcModel::fit_views(&FeatureMatrixView::new(x, n, 2).unwrap(), &RankMatrixView::new(y, n, m).unwrap(), None, params).unwrap()
}

#[test]
fn tuning_scores_every_c_by_inner_cross_validation_and_fits_with_the_best() {
    use crate::learner::inner_cv::InnerFolds;
    let (n, m) = (120, 4);
    let (x, y) = linear_rankings(n, 0.1, 5);
    let (xv, yv) = (FeatureMatrixView::new(&x, n, 2).unwrap(), RankMatrixView::new(&y, n, m).unwrap());
    let tuned = fit2(&x, &y, m, RpcParams { tune: true, ..Default::default() });
    assert_eq!(tuned.tuning.iter().map(|s| s.c).collect::<Vec<_>>(), tune::TUNE_C.to_vec());
    // Slow reference: each candidate fitted on each fold's rows, copied here by hand, and the
    // held-out rows' taus averaged.
    let folds = InnerFolds::deal(n, tune::TUNING_FOLDS, tune::FOLD_SEED);
    for score in &tuned.tuning {
        let (mut sum, mut count) = (0.0, 0);
        for fold in 0..tune::TUNING_FOLDS {
            let test = folds.split(fold, &xv, &yv, &[1.0; 120]).test;
            let train: Vec<usize> = (0..n).filter(|i| !test.contains(i)).collect();
            let xs: Vec<f64> = train.iter().flat_map(|&i| x[2 * i..2 * i + 2].to_vec()).collect();
            let ys: Vec<i32> = train.iter().flat_map(|&i| y[m * i..m * i + m].to_vec()).collect();
            let model = fit2(&xs, &ys, m, RpcParams { c: score.c, ..Default::default() });
            for &i in &test {
                let pred = model.predict_ranks(&FeatureMatrixView::new(&x[2 * i..2 * i + 2], 1, 2).unwrap()).unwrap();
                sum += crate::metrics::distance::kendall_tau(&y[m * i..m * i + m], &pred);
                count += 1;
            }
        }
        assert!((score.tau - sum / count as f64).abs() < 1e-12, "C = {}: {} against {}", score.c, score.tau, sum / count as f64);
    }
    // The chosen C has the best score (ties to the smaller), and the model is the one fitted with it.
    let best = tune::best(&tuned.tuning).unwrap();
    assert!(tuned.tuning.iter().all(|s| s.tau <= best.tau + 1e-12));
    assert!(tuned.tuning.iter().take_while(|s| s.c < best.c).all(|s| s.tau < best.tau - 1e-12));
    let direct = fit2(&x, &y, m, RpcParams { c: best.c, ..Default::default() });
    assert_eq!(tuned.pairs, direct.pairs);
    assert!(tuned.params.tune);
    assert_eq!(tuned.summary()["tuned"], serde_json::json!(best.c));
}

#[test]
fn tuning_leaves_the_strong_penalty_that_hides_a_clean_linear_signal() {
    // Clean linear rankings: C = 0.01 shrinks the coefficients toward 0 and loses pairs
    // near the boundaries; tuning must pick a weaker penalty and predict better.
    let (x, y) = linear_rankings(200, 0.0, 8);
    let tuned = fit2(&x, &y, 4, RpcParams { tune: true, ..Default::default() });
    let chosen = tune::best(&tuned.tuning).unwrap();
    assert!(chosen.c >= 10.0, "{:?}", tuned.tuning);
    assert!(chosen.tau > tuned.tuning[0].tau + 0.2, "{:?}", tuned.tuning);
}

#[test]
fn tuning_refuses_too_few_rows_and_the_best_skips_undefined_scores() {
    let x: Vec<f64> = (0..9).map(|i| i as f64).collect();
    let y: Vec<i32> = (0..9).flat_map(|i| if i % 2 == 0 { [1, 2] } else { [2, 1] }).collect();
    let err = RpcModel::fit_views(
        &FeatureMatrixView::new(&x, 9, 1).unwrap(),
        &RankMatrixView::new(&y, 9, 2).unwrap(),
        None,
        RpcParams { tune: true, ..Default::default() },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("tuning RPC") && err.contains("at least 10 training rows, got 9"), "{err}");
    let scores = [tune::CScore { c: 0.01, tau: f64::NAN }, tune::CScore { c: 0.1, tau: 0.2 }, tune::CScore { c: 1.0, tau: 0.2 }];
    assert_eq!(tune::best(&scores).unwrap().c, 0.1);
}
