use super::*;
use crate::data::ranking::RankMatrixView;
use crate::learner::fit_checked;
use crate::parallel::with_threads;

fn fit(x: &[f64], y: &[i32], d: usize, m: usize, params: InstanceBasedPlrParams) -> InstanceBasedPlrModel {
    let n = y.len() / m;
    fit_checked::<InstanceBasedPlrModel>(
        params,
        FeatureMatrixView::new(x, n, d).unwrap(),
        RankMatrixView::new(y, n, m).unwrap(),
        None,
    )
    .unwrap()
}

#[test]
fn predicts_the_weighted_consensus_of_the_nearest_bucket_orders() {
    // Rows at 0, 1, 2, 10 with bucket orders; k = 3 from the query 0.2: rows 0, 1, 2 at distances
    // 0.02, 0.08, 0.18 (normalised by the range 10), Dudani weights 1, 0.625, 0 (k-th is 0).
    let x = [0.0, 1.0, 2.0, 10.0];
    let y = [1, 2, 2, 1, 1, 2, 2, 1, 1, 3, 2, 1];
    let model = fit(&x, &y, 1, 3, InstanceBasedPlrParams { k: Some(3), ..Default::default() });
    let q = FeatureMatrixView::new(&[0.2], 1, 1).unwrap();
    let mut counts = PairOrderCounts::new(3);
    counts.add(&[1, 2, 2], 1.0);
    counts.add(&[1, 1, 2], 0.625);
    let expect = BucketConsensus::BPA.of_matrix(&counts.matrix());
    assert_eq!(model.predict_ranks(&q).unwrap(), expect);
    // uniform weights: the third row counts too
    let uniform = fit(&x, &y, 1, 3, InstanceBasedPlrParams { k: Some(3), distance_weights: false, ..Default::default() });
    counts.clear();
    for r in [[1, 2, 2], [1, 1, 2], [2, 1, 1]] {
        counts.add(&r, 1.0);
    }
    assert_eq!(uniform.predict_ranks(&q).unwrap(), BucketConsensus::BPA.of_matrix(&counts.matrix()));
}

#[test]
fn k_is_chosen_by_leave_one_out_tau_x_and_does_not_depend_on_threads() {
    let n = 120;
    let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
    let y: Vec<i32> = x
        .iter()
        .flat_map(|&v| {
            if v < -0.3 {
                [1, 2, 2]
            } else if v < 0.3 {
                [1, 1, 1]
            } else {
                [2, 2, 1]
            }
        })
        .collect();
    let one = with_threads(Some(1), || fit(&x, &y, 1, 3, InstanceBasedPlrParams::default())).unwrap();
    let two = with_threads(Some(2), || fit(&x, &y, 1, 3, InstanceBasedPlrParams::default())).unwrap();
    assert_eq!(one, two);
    assert_eq!(one.k_scores.iter().map(|s| s.k).collect::<Vec<_>>(), K_CANDIDATES.to_vec());
    let best = one.k_scores.iter().map(|s| s.tau_x).fold(f64::NEG_INFINITY, f64::max);
    let chosen = one.k_scores.iter().find(|s| s.k == one.k).unwrap();
    assert_eq!(chosen.tau_x, best);
    assert!(best > 0.8, "{:?}", one.k_scores);
    assert!(one.check().is_ok());
    assert!(InstanceBasedPlrModel { k: 0, ..one.clone() }.check().is_err());
    assert!(InstanceBasedPlrParams { k: Some(0), ..Default::default() }.validate().is_err());
}
