use super::*;
use crate::data::ranking::RankMatrixView;
use crate::logistic::encode;
use crate::parallel::with_threads;

fn fit(x: &[f64], y: &[i32], d: usize, m: usize, params: PairwisePlrParams) -> PairwisePlrModel {
    let n = y.len() / m;
    PairwisePlrModel::fit_views(&FeatureMatrixView::new(x, n, d).unwrap(), &RankMatrixView::new(y, n, m).unwrap(), None, params)
        .unwrap()
}

#[test]
fn leaves_hold_the_relation_shares_and_c_counts_a_tie_half() {
    // Constant feature: one leaf per pair. Pair (0, 1): before twice, tied once, after once.
    let y = [1, 2, 3, 1, 2, 3, 1, 1, 2, 2, 1, 3];
    let x = [0.0; 4];
    let model = fit(&x, &y, 1, 3, PairwisePlrParams::tree());
    assert_eq!(model.pairs[0].probabilities(&[0.0], &[0.0]), Some([0.5, 0.25, 0.25]));
    let q = FeatureMatrixView::new(&[0.0], 1, 1).unwrap();
    // C_01 = 1/2 + 1/8 = 5/8; C_02 = C_12 = 1: scores 5/8 + 1, 3/8 + 1, 0
    assert_eq!(model.predict_scores(&q).unwrap(), vec![1.625, 1.375, 0.0]);
    // BPA ties 0 and 1 (5/8 lies within 1/4 of 1/2)
    assert_eq!(model.predict_ranks(&q).unwrap(), vec![1, 1, 2]);
    // The public implementation's weighting: (1/2 + 1/16) / (1/2 + 1/8 + 1/4) = 9/14
    let quarter = fit(&x, &y, 1, 3, PairwisePlrParams { tie_weighting: TieWeighting::Quarter, ..PairwisePlrParams::tree() });
    let s = quarter.predict_scores(&q).unwrap();
    assert!((s[0] - (1.0 + 9.0 / 14.0)).abs() < 1e-12, "{s:?}");
}

#[test]
fn learns_feature_dependent_ties_and_is_the_same_for_any_thread_count() {
    // Below 0.5: {0} > {1, 2}; above: {1, 2} > {0}; label 3 never ranked with label 2.
    let n = 60;
    let x: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
    let y: Vec<i32> = (0..n).flat_map(|i| if i < n / 2 { [1, 2, 2, 0] } else { [2, 1, 1, 0] }).collect();
    // Every third row ranks label 3 last instead of label 2.
    let y: Vec<i32> =
        y.chunks(4).enumerate().flat_map(|(i, r)| if i % 3 == 0 { vec![r[0], r[1], 0, 3] } else { r.to_vec() }).collect();
    let params = PairwisePlrParams { n_estimators: 10, seed: 5, ..PairwisePlrParams::forest() };
    let one = with_threads(Some(1), || fit(&x, &y, 1, 4, params.clone())).unwrap();
    let two = with_threads(Some(2), || fit(&x, &y, 1, 4, params.clone())).unwrap();
    assert_eq!(one, two);
    let q = FeatureMatrixView::new(&[0.1, 0.9], 2, 1).unwrap();
    let pred = one.predict_ranks(&q).unwrap();
    assert!(pred[0] < pred[1] && pred[1] == pred[2], "{pred:?}");
    assert!(pred[5] == pred[6] && pred[6] < pred[4], "{pred:?}");
    assert!(one.pairs[5].trees.is_empty(), "pair (2, 3) has no data");
    assert!(one.check().is_ok());
    let mut bad = one.clone();
    bad.pairs[0].trees[0].leaves[0] = [0.5, 0.5, 0.5];
    assert!(bad.check().unwrap_err().contains("leaf probabilities"));
}

#[test]
fn beta_is_chosen_by_out_of_bag_tau_x() {
    // Noisy ties: labels 1 and 2 tie in most rows; the tuned beta maximises out-of-bag tau_x.
    let mut rng = crate::rng::Rng::new(9);
    let n = 150;
    let x: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
    let y: Vec<i32> = x
        .iter()
        .flat_map(|&v| {
            let noise = rng.below(4);
            if v < 0.5 {
                if noise == 0 {
                    [1, 2, 3]
                } else {
                    [1, 2, 2]
                }
            } else if noise == 0 {
                [3, 1, 2]
            } else {
                [2, 1, 1]
            }
        })
        .collect();
    let params = PairwisePlrParams { n_estimators: 20, tune_beta: true, seed: 4, ..PairwisePlrParams::forest() };
    let model = fit(&x, &y, 1, 3, params.clone());
    assert_eq!(model.beta_scores.iter().map(|s| s.beta).collect::<Vec<_>>(), BETA_CANDIDATES.to_vec());
    let best = model.beta_scores.iter().map(|s| s.tau_x).fold(f64::NEG_INFINITY, f64::max);
    let chosen = model.beta_scores.iter().find(|s| s.tau_x == best).unwrap();
    assert_eq!(model.consensus.beta, chosen.beta);
    assert!(best > 0.5, "{:?}", model.beta_scores);
    // predictions use the chosen beta
    let fixed = PairwisePlrModel { consensus: BucketConsensus { beta: chosen.beta, ..BucketConsensus::BPA }, ..model.clone() };
    let q = FeatureMatrixView::new(&x, n, 1).unwrap();
    assert_eq!(model.predict_ranks(&q).unwrap(), fixed.predict_ranks(&q).unwrap());
    // no tuning without bootstrap samples, or when asked not to
    assert!(fit(&x, &y, 1, 3, PairwisePlrParams { tune_beta: true, ..PairwisePlrParams::tree() }).beta_scores.is_empty());
    assert!(fit(&x, &y, 1, 3, PairwisePlrParams { tune_beta: false, ..params }).beta_scores.is_empty());
}

fn fit_logistic(x: &[f64], y: &[i32], d: usize, m: usize, params: PairwisePlrLogisticParams) -> PairwisePlrLogisticModel {
    let n = y.len() / m;
    PairwisePlrLogisticModel::fit_views(
        &FeatureMatrixView::new(x, n, d).unwrap(),
        &RankMatrixView::new(y, n, m).unwrap(),
        None,
        params,
    )
    .unwrap()
}

#[test]
fn the_logistic_classifier_learns_linear_ties_and_models_only_the_relations_seen() {
    // Pair (0, 1): 0 first below 1/3, tied in the middle, 1 first above 2/3 (ordinal in x).
    // Pair (0, 2) always "0 before 2"; label 3 never ranked with label 2.
    let n = 90;
    let x: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
    let y: Vec<i32> = (0..n)
        .flat_map(|i| match (3 * i / n, i % 3 == 0) {
            (0, false) => [1, 2, 3, 0],
            (1, false) => [1, 1, 2, 0],
            (_, false) => [2, 1, 3, 0],
            (0, true) => [1, 2, 0, 3],
            (1, true) => [1, 1, 0, 2],
            (_, true) => [2, 1, 0, 3],
        })
        .collect();
    let model = fit_logistic(&x, &y, 1, 4, PairwisePlrLogisticParams { c: 100.0, ..Default::default() });
    assert!(model.check().is_ok());
    let pair01 = &model.pairs[0];
    assert_eq!((pair01.a, pair01.b, pair01.relations.clone()), (0, 1, vec![0, 1, 2]));
    assert!(pair01.converged);
    assert_eq!(model.pairs[1].relations, vec![0], "pair (0, 2) is always 'before'");
    assert!(model.pairs[1].coef.is_empty());
    assert!(model.pairs[5].relations.is_empty(), "pair (2, 3) has no data");
    let q = FeatureMatrixView::new(&[0.05, 0.5, 0.95], 3, 1).unwrap();
    let encoded: Vec<Vec<f64>> = [0.05, 0.5, 0.95].iter().map(|&v| encode(&model.encoding, &model.fill_values, &[v])).collect();
    let mut scratch = [0.0; 3];
    for (k, z) in encoded.iter().enumerate() {
        let p = pair01.probabilities(z, &mut scratch).unwrap();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(p[k] > 0.8, "x = {:?}: {p:?}", [0.05, 0.5, 0.95][k]);
        assert_eq!(model.pairs[1].probabilities(z, &mut scratch), Some([1.0, 0.0, 0.0]));
        assert_eq!(model.pairs[5].probabilities(z, &mut scratch), None);
    }
    let pred = model.predict_ranks(&q).unwrap();
    assert!(pred[0] < pred[1], "{pred:?}");
    assert_eq!(pred[4], pred[5], "tied in the middle: {pred:?}");
    assert!(pred[9] < pred[8], "{pred:?}");
    let mut bad = model.clone();
    bad.pairs[0].coef.pop();
    assert!(bad.check().unwrap_err().contains("coefficients"));
    let mut bad = model.clone();
    bad.pairs[0].relations = vec![2, 0, 1];
    assert!(bad.check().unwrap_err().contains("relations"));
}

#[test]
fn the_logistic_classifier_s_tuned_beta_is_the_best_training_tau_x_and_refits_the_same() {
    let mut rng = crate::rng::Rng::new(11);
    let n = 120;
    let x: Vec<f64> = (0..2 * n).map(|_| rng.uniform()).collect();
    let y: Vec<i32> = (0..n)
        .flat_map(|i| {
            let (a, b) = (x[2 * i], x[2 * i + 1]);
            if (a - b).abs() < 0.2 + 0.1 * rng.uniform() {
                [1, 1, 2]
            } else if a > b {
                [1, 2, 3]
            } else {
                [2, 1, 3]
            }
        })
        .collect();
    let tuned = fit_logistic(&x, &y, 2, 3, PairwisePlrLogisticParams { tune_beta: true, ..Default::default() });
    assert_eq!(tuned.beta_scores.len(), BETA_CANDIDATES.len());
    let best = tuned.beta_scores.iter().map(|s| s.tau_x).fold(f64::NEG_INFINITY, f64::max);
    let chosen = tuned.beta_scores.iter().find(|s| s.beta == tuned.consensus.beta).unwrap();
    assert_eq!(chosen.tau_x, best);
    // Each score is the training tau_x of the fit with that beta given.
    let q = FeatureMatrixView::new(&x, n, 2).unwrap();
    for score in &tuned.beta_scores {
        let consensus = BucketConsensus { beta: score.beta, ..BucketConsensus::BPA };
        let given = fit_logistic(&x, &y, 2, 3, PairwisePlrLogisticParams { consensus, ..Default::default() });
        assert_eq!(given.pairs, tuned.pairs);
        let pred = given.predict_ranks(&q).unwrap();
        let mean = (0..n).map(|i| tau_x(&y[i * 3..(i + 1) * 3], &pred[i * 3..(i + 1) * 3])).sum::<f64>() / n as f64;
        assert!((mean - score.tau_x).abs() < 1e-12, "beta {}: {mean} vs {}", score.beta, score.tau_x);
    }
}

#[test]
fn a_forest_with_a_bin_per_value_is_the_exact_forest() {
    let n = 300;
    let (x, y) = crate::learners::plr_tree::few_valued_plr_problem(n, 9);
    let exact = PairwisePlrParams { n_estimators: 5, seed: 3, ..PairwisePlrParams::forest() };
    let a = fit(&x, &y, 3, 4, exact.clone());
    let b = fit(&x, &y, 3, 4, PairwisePlrParams { max_bins: Some(255), ..exact.clone() });
    assert_eq!(a.pairs, b.pairs);
    assert_ne!(a.pairs, fit(&x, &y, 3, 4, PairwisePlrParams { max_bins: Some(3), ..exact }).pairs);
    assert!(PairwisePlrParams { max_bins: Some(300), ..PairwisePlrParams::tree() }.validate().is_err());
}

#[test]
fn predictions_in_blocks_and_flat_trees_equal_each_row_alone() {
    use crate::learners::plr_tree::{assert_predicts_as, few_valued_plr_problem, plr_query_rows};
    let (x, y) = few_valued_plr_problem(300, 8);
    let (q, n) = plr_query_rows(9);
    let qv = FeatureMatrixView::new(&q, n, 3).unwrap();
    // Each row's matrix from every pair's forest walked node by node; its consensus and scores.
    let reference = |model: &PairwisePlrModel, rows: usize| -> (Vec<i32>, Vec<f64>) {
        let (mut ranks, mut scores) = (Vec::new(), Vec::new());
        for i in 0..rows {
            let mut c = vec![0.5; 16];
            for pair in &model.pairs {
                if let Some(p) = pair.probabilities(qv.row(i), &model.fill_values) {
                    set_pair(&mut c, 4, pair.a, pair.b, Some(p), model.params.tie_weighting);
                }
            }
            scores.extend((0..4).map(|a| (0..4).filter(|&b| b != a).map(|b| c[a * 4 + b]).sum::<f64>()));
            ranks.extend(model.consensus.of_matrix(&PairOrderMatrix::from_entries(4, c)));
        }
        (ranks, scores)
    };
    let forest = PairwisePlrParams { n_estimators: 5, seed: 3, ..PairwisePlrParams::forest() };
    for params in [PairwisePlrParams::tree(), forest.clone(), PairwisePlrParams { max_bins: Some(16), ..forest.clone() }] {
        let model = fit(&x, &y, 3, 4, params);
        assert_predicts_as(&model, &q, n, reference);
    }
    let a = fit(&x, &y, 3, 4, forest.clone());
    a.predict_ranks(&qv).unwrap();
    let merged =
        PairwisePlrModel::merge(vec![a, fit(&x, &y, 3, 4, PairwisePlrParams { seed: 4, ..forest })], vec![0.0; 3]).unwrap();
    assert_eq!(merged.predict_ranks(&qv).unwrap(), reference(&merged, n).0);
}
