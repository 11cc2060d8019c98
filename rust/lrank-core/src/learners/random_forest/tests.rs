use super::*;
use crate::parallel::with_threads;
use crate::rng::Rng;

/// A synthetic problem: 3 labels, the ranking is a function of two features.
fn toy(n: usize, seed: u64) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let mut x = Vec::with_capacity(n * 3);
    let mut y = Vec::with_capacity(n * 3);
    for _ in 0..n {
        let (a, b, noise) = (rng.uniform(), rng.uniform(), rng.uniform());
        x.extend([a, b, noise]);
        let ranks = match (a > 0.5, b > 0.5) {
            (true, true) => [1, 2, 3],
            (true, false) => [2, 1, 3],
            (false, true) => [3, 1, 2],
            (false, false) => [3, 2, 1],
        };
        y.extend(ranks);
    }
    (x, y)
}

#[test]
fn learns_a_simple_ranking_function() {
    let (x, y) = toy(400, 1);
    let xv = FeatureMatrixView::new(&x, 400, 3).unwrap();
    let yv = RankMatrixView::new(&y, 400, 3).unwrap();
    let model =
        RandomForestModel::fit_views(&xv, &yv, None, RandomForestParams { n_estimators: 20, ..Default::default() }).unwrap();
    let (xt, yt) = toy(200, 2);
    let pred = model.predict_ranks(&FeatureMatrixView::new(&xt, 200, 3).unwrap()).unwrap();
    let taus: f64 = (0..200).map(|i| crate::metrics::distance::kendall_tau(&yt[i * 3..i * 3 + 3], &pred[i * 3..i * 3 + 3])).sum();
    assert!(taus / 200.0 > 0.9, "mean tau {}", taus / 200.0);
    assert!(model.trees.iter().all(|t| t.depth() <= 8));
}

#[test]
fn same_seed_same_model_for_any_thread_count() {
    let (x, y) = toy(300, 3);
    let xv = FeatureMatrixView::new(&x, 300, 3).unwrap();
    let yv = RankMatrixView::new(&y, 300, 3).unwrap();
    let params = RandomForestParams { n_estimators: 16, seed: 42, ..Default::default() };
    let a = with_threads(Some(1), || RandomForestModel::fit_views(&xv, &yv, None, params.clone())).unwrap().unwrap();
    let b = with_threads(Some(2), || RandomForestModel::fit_views(&xv, &yv, None, params.clone())).unwrap().unwrap();
    assert_eq!(a, b);
    let pa = with_threads(Some(1), || a.predict_ranks(&xv)).unwrap().unwrap();
    let pb = with_threads(Some(2), || b.predict_ranks(&xv)).unwrap().unwrap();
    assert_eq!(pa, pb);
    let c = RandomForestModel::fit_views(&xv, &yv, None, RandomForestParams { seed: 43, ..params }).unwrap();
    assert_ne!(a.trees, c.trees, "another seed should grow other trees");
}

#[test]
fn incomplete_rankings_missing_values_and_ranking_classes() {
    let (mut x, mut y) = toy(200, 4);
    for i in (0..200).step_by(3) {
        // drop the last label of every third ranking and one feature value
        let row = &mut y[i * 3..i * 3 + 3];
        let worst = row.iter().position(|&r| r == 3).unwrap();
        row[worst] = 0;
        x[i * 3 + 2] = f64::NAN;
    }
    let xv = FeatureMatrixView::new(&x, 200, 3).unwrap();
    let yv = RankMatrixView::new(&y, 200, 3).unwrap();
    for class_mode in [ClassMode::TopLabel, ClassMode::Ranking] {
        let params = RandomForestParams { n_estimators: 10, class_mode, ..Default::default() };
        let model = RandomForestModel::fit_views(&xv, &yv, None, params).unwrap();
        let pred = model.predict_ranks(&xv).unwrap();
        for row in pred.chunks(3) {
            let mut sorted = row.to_vec();
            sorted.sort();
            assert_eq!(sorted, vec![1, 2, 3], "predictions are complete rankings");
        }
    }
}

#[test]
fn single_tree_without_bootstrap_predicts_its_leaf_consensus() {
    // Two groups separable on feature 0; in each leaf generalized Borda decides.
    let x = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    let y = [1, 2, 3, 2, 1, 3, 1, 2, 3, 3, 2, 1, 3, 2, 1, 2, 3, 1];
    let xv = FeatureMatrixView::new(&x, 6, 1).unwrap();
    let yv = RankMatrixView::new(&y, 6, 3).unwrap();
    let params = RandomForestParams { n_estimators: 1, bootstrap: false, ..Default::default() };
    let model = RandomForestModel::fit_views(&xv, &yv, None, params).unwrap();
    let pred = model.predict_ranks(&FeatureMatrixView::new(&[0.0, 1.0], 2, 1).unwrap()).unwrap();
    assert_eq!(&pred[..3], &[1, 2, 3]); // votes 3+2+3, 2+3+2, 1+1+1
    assert_eq!(&pred[3..], &[3, 2, 1]); // votes 1+1+2, 2+2+1, 3+3+3
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let xv = FeatureMatrixView::new(&[0.0, 1.0], 2, 1).unwrap();
    let yv = RankMatrixView::new(&[1, 2, 0, 0], 2, 2).unwrap();
    let err = RandomForestModel::fit_views(&xv, &yv, None, RandomForestParams::default()).unwrap_err();
    assert!(matches!(err, LrankError::InvalidRanking { row: 1, .. }));
    let yv = RankMatrixView::new(&[1, 2, 2, 1], 2, 2).unwrap();
    let bad = RandomForestParams { n_estimators: 0, ..Default::default() };
    assert!(RandomForestModel::fit_views(&xv, &yv, None, bad).is_err());
    let model = RandomForestModel::fit_views(&xv, &yv, None, RandomForestParams::default()).unwrap();
    assert!(model.predict_ranks(&FeatureMatrixView::new(&[0.0, 1.0], 1, 2).unwrap()).is_err());
}
