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

/// The protocol by hand for one row: each copy of each leaf neighbour thinned with the same
/// random stream, generalized Borda votes written out ((m + 1)/2 for a deleted label, (k + 1 -
/// r)(m + 1)/(k + 1) for a kept one at position r of k), each tree's ranking by decreasing
/// votes (ties to the lower label), and the forest's Borda count of the trees' rankings.
fn leaf_missing_by_hand(model: &RandomForestModel, row: &[f64]) -> Vec<i32> {
    let (m, p) = (model.n_labels, model.params.leaf_missing);
    let nb = model.neighbours.as_ref().unwrap();
    let mut forest_votes = vec![0.0; m];
    for (t, tree) in model.trees.iter().enumerate() {
        let leaf = tree.leaf_for(row, &model.fill_values);
        let seed = crate::rng::child_seed(
            crate::rng::child_seed(model.params.seed ^ leaf_missing::SALT, t as u64),
            leaf_missing::row_key(row),
        );
        let mut rng = Rng::new(seed);
        let mut votes = vec![0.0; m];
        for &(member, copies) in &leaf.members {
            let ranks = &nb.ranks[member as usize * m..(member as usize + 1) * m];
            let w = nb.weights[member as usize];
            for _ in 0..copies {
                let order = crate::data::ranking::order_of(ranks);
                let kept: Vec<usize> = order.into_iter().filter(|_| rng.uniform() >= p).collect();
                let k = kept.len() as f64;
                for (j, v) in votes.iter_mut().enumerate() {
                    *v += w * match kept.iter().position(|&l| l == j) {
                        Some(r) => (k - r as f64) * (m as f64 + 1.0) / (k + 1.0),
                        None => (m as f64 + 1.0) / 2.0,
                    };
                }
            }
        }
        let tree_ranking = crate::data::ranking::ranking_from_scores(&votes);
        for (v, &r) in forest_votes.iter_mut().zip(&tree_ranking) {
            *v += (m as i32 + 1 - r) as f64;
        }
    }
    crate::data::ranking::ranking_from_scores(&forest_votes)
}

#[test]
fn leaf_missing_grows_the_same_trees_and_thins_leaf_neighbours_at_prediction() {
    let (x, mut y) = toy(300, 6);
    // Noisy leaves: a third of the rankings shuffled.
    let mut rng = Rng::new(5);
    for row in y.chunks_mut(3) {
        if rng.below(3) == 0 {
            rng.shuffle(row);
        }
    }
    let (xv, yv) = (FeatureMatrixView::new(&x, 300, 3).unwrap(), RankMatrixView::new(&y, 300, 3).unwrap());
    let base = RandomForestParams { n_estimators: 12, seed: 8, ..Default::default() };
    let plain = RandomForestModel::fit_views(&xv, &yv, None, base.clone()).unwrap();
    let thinned = |p: f64| {
        let params = RandomForestParams { leaf_missing: p, ..base.clone() };
        with_threads(Some(2), || RandomForestModel::fit_views(&xv, &yv, None, params)).unwrap().unwrap()
    };
    let model = thinned(0.8);
    // The same trees (nodes and leaf consensus); leaves also know their neighbours and copies.
    for (a, b) in plain.trees.iter().zip(&model.trees) {
        assert_eq!(a.nodes, b.nodes);
        for (la, lb) in a.leaves.iter().zip(&b.leaves) {
            assert_eq!((&la.ranking, la.weight), (&lb.ranking, lb.weight));
            assert_eq!(lb.members.iter().map(|&(_, c)| c as f64).sum::<f64>(), lb.weight);
        }
    }
    let (xt, _) = toy(60, 7);
    let xtv = FeatureMatrixView::new(&xt, 60, 3).unwrap();
    let pred = with_threads(Some(1), || model.predict_ranks(&xtv)).unwrap().unwrap();
    assert_eq!(pred, with_threads(Some(2), || model.predict_ranks(&xtv)).unwrap().unwrap());
    assert_ne!(pred, plain.predict_ranks(&xtv).unwrap(), "deleting labels changes some predictions");
    for i in 0..60 {
        assert_eq!(&pred[i * 3..i * 3 + 3], &leaf_missing_by_hand(&model, xtv.row(i))[..], "row {i}");
        // A row predicted alone gets the same deletions.
        let alone = model.predict_ranks(&FeatureMatrixView::new(xtv.row(i), 1, 3).unwrap()).unwrap();
        assert_eq!(&pred[i * 3..i * 3 + 3], &alone[..]);
    }
    // Per-tree rankings are the thinned trees' (their Borda count is the forest's ranking).
    let per_tree = model.member_ranks(&xtv).unwrap().unwrap();
    assert_eq!(per_tree.len(), 12 * 60 * 3);
    // Every label deleted (p = 1) would make every ranking the label order: refused.
    let every = RandomForestParams { leaf_missing: 1.0, ..base.clone() };
    assert!(every.validate().unwrap_err().to_string().contains("must lie in [0, 1)"));
    // A model file keeps the neighbours; a model without them but with the option is refused.
    assert!(model.check().is_ok());
    let broken = RandomForestModel { neighbours: None, ..model.clone() };
    assert!(broken.check().unwrap_err().contains("leaf_missing"));
}

#[test]
fn auto_class_mode_is_pairwise_exactly_when_a_ranking_is_incomplete() {
    let (x, mut y) = toy(200, 9);
    let (xv, yv) = (FeatureMatrixView::new(&x, 200, 3).unwrap(), RankMatrixView::new(&y, 200, 3).unwrap());
    let fit = |mode, yv: &RankMatrixView<'_>| {
        let params = RandomForestParams { n_estimators: 5, seed: 2, class_mode: mode, ..Default::default() };
        RandomForestModel::fit_views(&xv, yv, None, params).unwrap()
    };
    let (auto, ranking) = (fit(ClassMode::Auto, &yv), fit(ClassMode::Ranking, &yv));
    assert_eq!((auto.class_mode, &auto.trees), (ClassMode::Ranking, &ranking.trees));
    y[3..6].copy_from_slice(&[1, 2, 0]); // row 1 now ranks two labels
    let yv = RankMatrixView::new(&y, 200, 3).unwrap();
    let (auto, pairwise) = (fit(ClassMode::Auto, &yv), fit(ClassMode::Pairwise, &yv));
    assert_eq!((auto.class_mode, &auto.trees), (ClassMode::Pairwise, &pairwise.trees));
}
