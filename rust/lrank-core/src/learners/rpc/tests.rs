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
