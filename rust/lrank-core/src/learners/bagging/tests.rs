use super::*;
use crate::consensus::borda;
use crate::error::LrankError;
use crate::learners::label_tree::{LabelTreeModel, LabelTreeParams};
use crate::parallel::with_threads;
use crate::registry::{LearnerParams, Model};
use crate::tree::ThresholdRule;

/// Two features in [0, 1); the ranking of 4 labels depends on both, with 20% of rows swapped.
fn problem(n: usize, seed: u64) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b) = (rng.uniform(), rng.uniform());
        x.extend([a, b]);
        let mut r = match (a > 0.5, b > 0.5) {
            (true, true) => [1, 2, 3, 4],
            (true, false) => [2, 1, 4, 3],
            (false, true) => [3, 4, 1, 2],
            (false, false) => [4, 3, 2, 1],
        };
        if rng.uniform() < 0.2 {
            r.swap(rng.below(4), rng.below(4));
        }
        y.extend(r);
    }
    (x, y)
}

fn lrt(rule: ThresholdRule) -> LearnerParams {
    LearnerParams::LabelTree(LabelTreeParams { threshold_rule: rule, ..Default::default() })
}

fn fit(x: &[f64], y: &[i32], params: BaggingParams<LearnerParams>) -> BaggingModel<LearnerParams, Model> {
    let n = y.len() / 4;
    BaggingModel::fit_views(&FeatureMatrixView::new(x, n, 2).unwrap(), &RankMatrixView::new(y, n, 4).unwrap(), None, params)
        .unwrap()
}

#[test]
fn members_are_the_base_learner_on_bootstrap_samples() {
    let (x, y) = problem(120, 1);
    let params = BaggingParams { n_estimators: 3, seed: 9, ..BaggingParams::new(lrt(ThresholdRule::Best)) };
    let model = fit(&x, &y, params);
    // Member 1 by hand: 120 draws from stream child_seed(9, 1), then its next number as seed.
    let mut rng = Rng::new(child_seed(9, 1));
    let mut counts = vec![0u32; 120];
    for _ in 0..120 {
        counts[rng.below(120)] += 1;
    }
    let rows: Vec<usize> = (0..120).filter(|&i| counts[i] > 0).collect();
    let xs: Vec<f64> = rows.iter().flat_map(|&i| x[2 * i..2 * i + 2].to_vec()).collect();
    let ys: Vec<i32> = rows.iter().flat_map(|&i| y[4 * i..4 * i + 4].to_vec()).collect();
    let ws: Vec<f64> = rows.iter().map(|&i| counts[i] as f64).collect();
    // Fitted as the ensemble fits a member: its draw counts as weights, rows of weight 1.
    let sample = crate::data::training::TrainingSet::from_checked(
        FeatureMatrixView::new(&xs, rows.len(), 2).unwrap(),
        RankMatrixView::new(&ys, rows.len(), 4).unwrap(),
        ws,
    )
    .with_row_weight(1.0);
    let member =
        <LabelTreeModel as crate::learner::Learner>::fit(LabelTreeParams { seed: rng.next_u64(), ..Default::default() }, &sample)
            .unwrap();
    assert_eq!(model.members[1], Model::LabelTree(member));
}

#[test]
fn prediction_is_the_consensus_of_the_members() {
    let (x, y) = problem(150, 2);
    let (xt, _) = problem(40, 3);
    let xv = FeatureMatrixView::new(&xt, 40, 2).unwrap();
    for aggregator in [Aggregator::Borda, Aggregator::Copeland, Aggregator::Mallows, Aggregator::Kemeny] {
        let params = BaggingParams { n_estimators: 7, aggregator, ..BaggingParams::new(lrt(ThresholdRule::EqualWidth)) };
        let model = fit(&x, &y, params);
        let pred = model.predict_ranks(&xv).unwrap();
        let per = model.member_ranks(&xv).unwrap().unwrap();
        for i in 0..40 {
            let rows: Vec<i32> = (0..7).flat_map(|k| per[(k * 40 + i) * 4..(k * 40 + i + 1) * 4].to_vec()).collect();
            let expect = aggregator.aggregate(&RankMatrixView::new(&rows, 7, 4).unwrap(), None).unwrap();
            assert_eq!(&pred[i * 4..(i + 1) * 4], &expect[..], "{aggregator:?} row {i}");
            if aggregator == Aggregator::Borda {
                assert_eq!(expect, borda(&RankMatrixView::new(&rows, 7, 4).unwrap(), None));
            }
        }
    }
}

#[test]
fn the_same_ensemble_for_any_number_of_threads() {
    let (x, y) = problem(300, 4);
    let params = BaggingParams { n_estimators: 6, seed: 3, ..BaggingParams::new(lrt(ThresholdRule::EqualFrequency)) };
    let one = with_threads(Some(1), || fit(&x, &y, params.clone())).unwrap();
    let two = with_threads(Some(2), || fit(&x, &y, params.clone())).unwrap();
    assert_eq!(one, two);
}

#[test]
fn bagging_unstable_trees_beats_one_tree_on_held_out_data() {
    let (x, y) = problem(400, 5);
    let (xt, yt) = problem(400, 6);
    let tau = |pred: &[i32]| {
        let rows = yt.len() / 4;
        (0..rows).map(|i| crate::metrics::distance::kendall_tau(&yt[i * 4..i * 4 + 4], &pred[i * 4..i * 4 + 4])).sum::<f64>()
            / rows as f64
    };
    let xv = FeatureMatrixView::new(&xt, 400, 2).unwrap();
    let single = crate::registry::fit(
        lrt(ThresholdRule::EqualWidth),
        FeatureMatrixView::new(&x, 400, 2).unwrap(),
        RankMatrixView::new(&y, 400, 4).unwrap(),
        None,
    )
    .unwrap()
    .predict_ranks(&xv)
    .unwrap();
    let bagged = fit(&x, &y, BaggingParams { n_estimators: 25, ..BaggingParams::new(lrt(ThresholdRule::EqualWidth)) })
        .predict_ranks(&xv)
        .unwrap();
    assert!(tau(&bagged) > tau(&single), "{} vs {}", tau(&bagged), tau(&single));
}

#[test]
fn bad_parameters_are_refused() {
    let (x, y) = problem(20, 7);
    let xv = FeatureMatrixView::new(&x, 20, 2).unwrap();
    let yv = RankMatrixView::new(&y, 20, 4).unwrap();
    for params in [
        BaggingParams { n_estimators: 0, ..BaggingParams::new(lrt(ThresholdRule::Best)) },
        BaggingParams { max_samples: 0.0, ..BaggingParams::new(lrt(ThresholdRule::Best)) },
        BaggingParams { max_samples: 1.5, ..BaggingParams::new(lrt(ThresholdRule::Best)) },
    ] {
        assert!(matches!(
            BaggingModel::<LearnerParams, Model>::fit_views(&xv, &yv, None, params),
            Err(LrankError::InvalidParameter { .. })
        ));
    }
}
