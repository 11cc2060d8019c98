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

#[test]
fn each_scaling_finds_the_neighbours_of_its_own_distance() {
    // Two features on very different scales; k = 1 with uniform weights predicts the nearest
    // row's bucket order, which a brute-force search under each scaling must name.
    let mut rng = crate::rng::Rng::new(3);
    let n = 40;
    let x: Vec<f64> = (0..n).flat_map(|_| [rng.uniform() * 100.0, rng.uniform() + (rng.below(4) as f64)]).collect();
    let y: Vec<i32> = (0..n).flat_map(|i| [[1, 2, 2], [2, 1, 1], [1, 1, 2], [2, 1, 3]][i % 4]).collect();
    let column = |f: usize| -> Vec<f64> { (0..n).map(|i| x[2 * i + f]).collect() };
    for scaling in [Scaling::MinMax, Scaling::Standard, Scaling::None] {
        let (offset, divisor): (Vec<f64>, Vec<f64>) = (0..2)
            .map(|f| match scaling {
                Scaling::None => (0.0, 1.0),
                Scaling::MinMax => {
                    let (lo, hi) = (
                        column(f).into_iter().fold(f64::INFINITY, f64::min),
                        column(f).into_iter().fold(f64::NEG_INFINITY, f64::max),
                    );
                    (lo, hi - lo)
                }
                Scaling::Standard => {
                    let mean = column(f).iter().sum::<f64>() / n as f64;
                    (mean, (column(f).iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64).sqrt())
                }
            })
            .unzip();
        let params = InstanceBasedPlrParams { k: Some(1), distance_weights: false, scaling, ..Default::default() };
        let model = fit(&x, &y, 2, 3, params);
        assert!(model.check().is_ok());
        for _ in 0..50 {
            let q = [rng.uniform() * 100.0, rng.uniform() * 4.0];
            let dist = |i: usize| (0..2).map(|f| ((q[f] - x[2 * i + f]) / divisor[f]).powi(2)).sum::<f64>();
            let nearest = (0..n).min_by(|&a, &b| dist(a).total_cmp(&dist(b))).unwrap();
            let pred = model.predict_ranks(&FeatureMatrixView::new(&q, 1, 2).unwrap()).unwrap();
            assert_eq!(pred, &y[nearest * 3..nearest * 3 + 3], "{scaling:?}, query {q:?}");
        }
        assert!(offset.iter().all(|v| v.is_finite()));
    }
}
