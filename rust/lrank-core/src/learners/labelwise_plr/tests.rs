use super::*;
use crate::data::ranking::RankMatrixView;
use crate::learner::fit_checked;
use crate::parallel::with_threads;

#[test]
fn tie_layers_by_hand() {
    let mean = [1.2, 1.4, 2.6, 2.45, 4.0];
    // rounding: 1, 1, 3, 2, 4 -> buckets {0, 1} < {3} < {2} < {4}
    assert_eq!(tie_layer(&mean, &[0.0; 5], 1, TieLayer::Rounding), vec![1, 1, 3, 2, 4]);
    // epsilon 0.2: 1.2-1.4 (0.2) tie, 1.4-2.45 no, 2.45-2.6 (0.15) tie, 2.6-4 no
    assert_eq!(tie_layer(&mean, &[0.0; 5], 1, TieLayer::Epsilon { epsilon: 0.2 }), vec![1, 1, 2, 2, 3]);
    // interval, 4 trees, q = 1: half widths sd / 2 = 0.05, 0.5, 0.05, 0.05, 1.0 -> [1.15, 1.25],
    // [0.9, 1.9], [2.55, 2.65], [2.4, 2.5], [3.0, 5.0]: {0, 1} (overlap), {3}, {2}, {4}
    let sd = [0.1, 1.0, 0.1, 0.1, 2.0];
    assert_eq!(tie_layer(&mean, &sd, 4, TieLayer::Interval { q: 1.0 }), vec![1, 1, 3, 2, 4]);
    // a wide interval chains its neighbours into one component
    assert_eq!(tie_layer(&[1.0, 2.0, 3.0], &[0.0, 4.0, 0.0], 4, TieLayer::Interval { q: 1.0 }), vec![1, 1, 1]);
}

#[test]
fn learns_feature_dependent_bucket_orders_for_any_thread_count() {
    let n = 80;
    let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let y: Vec<i32> = (0..n).flat_map(|i| if i < n / 2 { [1, 2, 2] } else { [2, 1, 3] }).collect();
    let (xv, yv) = (FeatureMatrixView::new(&x, n, 1).unwrap(), RankMatrixView::new(&y, n, 3).unwrap());
    let params = LabelwisePlrParams { n_estimators: 10, seed: 2, ..Default::default() };
    let one = with_threads(Some(1), || fit_checked::<LabelwisePlrModel>(params.clone(), xv, yv, None)).unwrap().unwrap();
    let two = with_threads(Some(2), || fit_checked::<LabelwisePlrModel>(params.clone(), xv, yv, None)).unwrap().unwrap();
    assert_eq!(one, two);
    let q = FeatureMatrixView::new(&[5.0, 70.0], 2, 1).unwrap();
    assert_eq!(one.predict_ranks(&q).unwrap(), vec![1, 2, 2, 2, 1, 3]);
    assert!(one.check().is_ok());
    let mut bad = one.clone();
    bad.trees[0].leaves[0].scores[0] = f64::NAN;
    assert!(bad.check().is_err());
    assert!(LabelwisePlrParams { tie_layer: TieLayer::Epsilon { epsilon: -1.0 }, ..Default::default() }.validate().is_err());
}

#[test]
fn rankings_with_labels_missing_do_not_make_every_prediction_a_tie() {
    // Two regimes of a full order of 6 labels; each training ranking loses each label with
    // probability 0.6 (at least two kept), as the missing-label protocol deletes them.
    let (n, m) = (300usize, 6usize);
    let mut rng = crate::rng::Rng::new(4);
    let x: Vec<f64> = (0..n).map(|i| (i % 2) as f64 + 0.1 * rng.uniform()).collect();
    let mut y = Vec::new();
    for i in 0..n {
        let full: Vec<i32> = if i % 2 == 0 { (1..=m as i32).collect() } else { (1..=m as i32).rev().collect() };
        let mut kept: Vec<bool> = (0..m).map(|_| rng.uniform() >= 0.6).collect();
        while kept.iter().filter(|&&k| k).count() < 2 {
            kept[rng.below(m)] = true;
        }
        // Dense positions among the kept labels.
        let mut order: Vec<usize> = (0..m).filter(|&j| kept[j]).collect();
        order.sort_by_key(|&j| full[j]);
        let mut row = vec![0; m];
        for (pos, &j) in order.iter().enumerate() {
            row[j] = pos as i32 + 1;
        }
        y.extend(row);
    }
    let (xv, yv) = (FeatureMatrixView::new(&x, n, 1).unwrap(), RankMatrixView::new(&y, n, m).unwrap());
    let params = LabelwisePlrParams { n_estimators: 10, seed: 1, ..LabelwisePlrParams::default() };
    let pred = LabelwisePlrModel::fit_views(&xv, &yv, None, params).unwrap().predict_ranks(&xv).unwrap();
    let buckets = pred.chunks(m).map(|row| *row.iter().max().unwrap()).sum::<i32>() as f64 / n as f64;
    assert!(buckets >= 4.0, "predictions keep most of the order: {buckets} buckets on average");
}

#[test]
fn a_forest_with_a_bin_per_value_is_the_exact_forest() {
    let n = 300;
    let (x, y) = crate::learners::plr_tree::few_valued_plr_problem(n, 10);
    let (xv, yv) = (FeatureMatrixView::new(&x, n, 3).unwrap(), RankMatrixView::new(&y, n, 4).unwrap());
    let exact = LabelwisePlrParams { n_estimators: 5, seed: 4, ..LabelwisePlrParams::default() };
    let fit = |p: LabelwisePlrParams| fit_checked::<LabelwisePlrModel>(p, xv, yv, None).unwrap().trees;
    let a = fit(exact.clone());
    assert_eq!(a, fit(LabelwisePlrParams { max_bins: Some(255), ..exact.clone() }));
    assert_ne!(a, fit(LabelwisePlrParams { max_bins: Some(3), ..exact }));
    assert!(LabelwisePlrParams { max_bins: Some(0), ..LabelwisePlrParams::default() }.validate().is_err());
}

#[test]
fn predictions_in_blocks_and_flat_trees_equal_each_row_alone() {
    use crate::learners::plr_tree::{assert_predicts_as, few_valued_plr_problem, plr_query_rows};
    let (x, y) = few_valued_plr_problem(300, 8);
    let (xv, yv) = (FeatureMatrixView::new(&x, 300, 3).unwrap(), RankMatrixView::new(&y, 300, 4).unwrap());
    let (q, n) = plr_query_rows(9);
    let qv = FeatureMatrixView::new(&q, n, 3).unwrap();
    // Each row's trees walked node by node: the mean positions, their spread, the tie layer.
    let reference = |model: &LabelwisePlrModel, rows: usize| -> (Vec<i32>, Vec<f64>) {
        let (mut ranks, mut scores) = (Vec::new(), Vec::new());
        let t = model.trees.len() as f64;
        for i in 0..rows {
            let leaves: Vec<&[f64]> =
                model.trees.iter().map(|tree| tree.leaf_for(qv.row(i), &model.fill_values).scores.as_slice()).collect();
            let mut mean = vec![0.0; 4];
            leaves.iter().for_each(|s| mean.iter_mut().zip(*s).for_each(|(a, v)| *a += v));
            mean.iter_mut().for_each(|a| *a /= t);
            let mut sd = vec![0.0; 4];
            if leaves.len() > 1 {
                leaves.iter().for_each(|s| (0..4).for_each(|j| sd[j] += (s[j] - mean[j]).powi(2)));
                sd.iter_mut().for_each(|v| *v = (*v / (t - 1.0)).sqrt());
            }
            ranks.extend(tie_layer(&mean, &sd, leaves.len(), model.params.tie_layer));
            scores.extend(mean);
        }
        (ranks, scores)
    };
    let forest = LabelwisePlrParams { n_estimators: 6, seed: 3, ..Default::default() };
    let interval = LabelwisePlrParams { tie_layer: TieLayer::Interval { q: 1.0 }, ..forest.clone() };
    for params in [LabelwisePlrParams { n_estimators: 1, ..forest.clone() }, forest.clone(), interval] {
        let model = fit_checked::<LabelwisePlrModel>(params, xv, yv, None).unwrap();
        assert_predicts_as(&model, &q, n, reference);
    }
    let a = fit_checked::<LabelwisePlrModel>(forest.clone(), xv, yv, None).unwrap();
    a.predict_ranks(&qv).unwrap();
    let b = fit_checked::<LabelwisePlrModel>(LabelwisePlrParams { seed: 4, ..forest }, xv, yv, None).unwrap();
    let merged = LabelwisePlrModel::merge(vec![a, b], vec![0.0; 3]).unwrap();
    assert_eq!(merged.predict_ranks(&qv).unwrap(), reference(&merged, n).0);
}
