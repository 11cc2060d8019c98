use super::*;
use crate::error::LrankError;
use crate::parallel::with_threads;

fn fit(x: &[f64], y: &[i32], n: usize, d: usize, m: usize, k: Option<usize>) -> InstanceBasedModel {
    InstanceBasedModel::fit_views(
        &FeatureMatrixView::new(x, n, d).unwrap(),
        &RankMatrixView::new(y, n, m).unwrap(),
        None,
        InstanceBasedParams { k, ..Default::default() },
    )
    .unwrap()
}

#[test]
fn one_neighbour_returns_the_nearest_ranking_with_infinite_confidence() {
    let x = [0.0, 10.0, 20.0];
    let y = [1, 2, 3, 3, 2, 1, 2, 1, 3];
    let model = fit(&x, &y, 3, 1, 3, Some(1));
    let (pred, theta) = model.predict_with_confidence(&FeatureMatrixView::new(&[9.0, 19.0], 2, 1).unwrap()).unwrap();
    assert_eq!(pred, vec![3, 2, 1, 2, 1, 3]);
    assert_eq!(theta, vec![f64::INFINITY, f64::INFINITY]);
}

#[test]
fn ranks_without_confidence_are_the_ranks_with_it() {
    let mut rng = Rng::new(4);
    let (n, d, m) = (120, 3, 5);
    let x: Vec<f64> = (0..n * d).map(|_| rng.uniform()).collect();
    let mut y = Vec::new();
    for _ in 0..n {
        let mut order: Vec<usize> = (0..m).collect();
        rng.shuffle(&mut order);
        // Every other ranking complete: neighbourhoods of complete rankings take another path.
        let keep = if y.len() % (2 * m) == 0 { m } else { 2 + rng.below(m - 1) };
        y.extend(crate::data::ranking::ranks_of_order(&order[..keep], m));
    }
    let complete: Vec<i32> = (0..n)
        .flat_map(|i| {
            crate::data::ranking::ranks_of_order(
                &{
                    let mut order: Vec<usize> = (0..m).collect();
                    order.rotate_left(i % m);
                    order
                },
                m,
            )
        })
        .collect();
    let queries: Vec<f64> = (0..40 * d).map(|_| rng.uniform()).collect();
    let q = FeatureMatrixView::new(&queries, 40, d).unwrap();
    for labels in [&y, &complete] {
        for params in [InstanceBasedParams { k: Some(7), ..Default::default() }, InstanceBasedParams::plackett_luce()] {
            let model = InstanceBasedModel::fit_views(
                &FeatureMatrixView::new(&x, n, d).unwrap(),
                &RankMatrixView::new(labels, n, m).unwrap(),
                None,
                params,
            )
            .unwrap();
            let (ranks, confidence) = model.predict_with_confidence(&q).unwrap();
            assert_eq!(model.predict_ranks(&q).unwrap(), ranks);
            assert!(confidence.iter().all(|c| !c.is_nan()));
        }
    }
}

#[test]
fn dudani_weights_favour_the_nearest_rows() {
    // Three neighbours: the nearest two agree (0>1>2), the farthest (weight 0) disagrees.
    let x = [0.0, 1.0, 5.0];
    let y = [1, 2, 3, 1, 2, 3, 3, 2, 1];
    let model = fit(&x, &y, 3, 1, 3, Some(3));
    let (pred, theta) = model.predict_with_confidence(&FeatureMatrixView::new(&[0.0], 1, 1).unwrap()).unwrap();
    assert_eq!(pred, vec![1, 2, 3]);
    assert_eq!(theta[0], f64::INFINITY, "the disagreeing row has Dudani weight 0");
}

#[test]
fn normalisation_makes_scales_irrelevant() {
    // Feature 1 has a huge scale but is noise; after min-max scaling feature 0 decides.
    let mut rng = Rng::new(3);
    let (n, m) = (200, 3);
    let mut x = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        let a = rng.uniform();
        x.extend([a, 1e6 * rng.uniform()]);
        y.extend(if a < 0.5 { [1, 2, 3] } else { [3, 2, 1] });
    }
    let model = fit(&x, &y, n, 2, m, Some(5));
    let (pred, _) = model.predict_with_confidence(&FeatureMatrixView::new(&[0.1, 5e5, 0.9, 5e5], 2, 2).unwrap()).unwrap();
    assert_eq!(pred, vec![1, 2, 3, 3, 2, 1]);
}

#[test]
fn k_is_chosen_by_leave_one_out_and_predictions_do_not_depend_on_threads() {
    let mut rng = Rng::new(5);
    let (n, m) = (300, 4);
    let mut x = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        let (a, b) = (rng.uniform(), rng.uniform());
        x.extend([a, b]);
        let noisy = rng.uniform() < 0.3;
        let mut r = if a + b > 1.0 { [1, 2, 3, 4] } else { [4, 3, 2, 1] };
        if noisy {
            r.swap(0, 1);
        }
        y.extend(r);
    }
    let xv = FeatureMatrixView::new(&x, n, 2).unwrap();
    let yv = RankMatrixView::new(&y, n, m).unwrap();
    let a =
        with_threads(Some(1), || InstanceBasedModel::fit_views(&xv, &yv, None, InstanceBasedParams::default())).unwrap().unwrap();
    let b =
        with_threads(Some(2), || InstanceBasedModel::fit_views(&xv, &yv, None, InstanceBasedParams::default())).unwrap().unwrap();
    assert_eq!(a, b);
    assert_eq!(a.k_scores.iter().map(|s| s.k).collect::<Vec<_>>(), vec![5, 10, 15, 20]);
    let best = a.k_scores.iter().fold((0, f64::MIN), |acc, s| if s.tau > acc.1 { (s.k, s.tau) } else { acc });
    assert_eq!(a.k, best.0);
    let pa = with_threads(Some(1), || a.predict_with_confidence(&xv)).unwrap().unwrap();
    let pb = with_threads(Some(2), || a.predict_with_confidence(&xv)).unwrap().unwrap();
    assert_eq!(pa.0, pb.0);
}

#[test]
fn incomplete_rankings_missing_values_and_errors() {
    let x = [0.0, f64::NAN, 1.0, 2.0, 3.0, 4.0];
    let y = [1, 2, 0, 0, 1, 2, 1, 0, 2];
    let model = InstanceBasedModel::fit_views(
        &FeatureMatrixView::new(&x, 3, 2).unwrap(),
        &RankMatrixView::new(&y, 3, 3).unwrap(),
        None,
        InstanceBasedParams { k: Some(3), ..Default::default() },
    )
    .unwrap();
    let (pred, _) = model.predict_with_confidence(&FeatureMatrixView::new(&[f64::NAN, f64::NAN], 1, 2).unwrap()).unwrap();
    let mut sorted = pred.clone();
    sorted.sort();
    assert_eq!(sorted, vec![1, 2, 3]);
    assert!(model.predict_with_confidence(&FeatureMatrixView::new(&[0.0], 1, 1).unwrap()).is_err());
    let empty = [1, 2, 0, 0, 0, 0];
    let err = InstanceBasedModel::fit_views(
        &FeatureMatrixView::new(&[0.0, 1.0], 2, 1).unwrap(),
        &RankMatrixView::new(&empty, 2, 3).unwrap(),
        None,
        InstanceBasedParams::default(),
    )
    .unwrap_err();
    assert!(matches!(err, LrankError::InvalidRanking { row: 1, .. }));
}
#[test]
fn nominal_features_count_a_mismatch_not_a_difference_of_codes() {
    use crate::data::features::FeatureKind;
    // Rows (x, code): (0, 0) ranks 0>1>2, (0.3, 1) ranks 1>0>2, (1, 9) ranks 2>1>0. The query
    // (0, 1) is nearest to row 1 when the code is nominal (0.09 against 1 for row 0), but to
    // row 0 when codes are numbers (scaled by their range 9: (1/9)^2 against 0.09).
    let x = [0.0, 0.0, 0.3, 1.0, 1.0, 9.0];
    let y = [1, 2, 3, 2, 1, 3, 3, 2, 1];
    let yv = RankMatrixView::new(&y, 3, 3).unwrap();
    let params = InstanceBasedParams { k: Some(1), ..Default::default() };
    let kinds = [FeatureKind::Numeric, FeatureKind::Nominal];
    let nominal = InstanceBasedModel::fit_views(
        &FeatureMatrixView::new(&x, 3, 2).unwrap().with_kinds(Some(&kinds)).unwrap(),
        &yv,
        None,
        params.clone(),
    )
    .unwrap();
    let numeric = InstanceBasedModel::fit_views(&FeatureMatrixView::new(&x, 3, 2).unwrap(), &yv, None, params).unwrap();
    let query = FeatureMatrixView::new(&[0.0, 1.0], 1, 2).unwrap();
    assert_eq!(nominal.predict_with_confidence(&query).unwrap().0, vec![2, 1, 3]);
    assert_eq!(numeric.predict_with_confidence(&query).unwrap().0, vec![1, 2, 3]);
}

#[test]
fn ib_pl_with_every_row_as_neighbour_sorts_the_plackett_luce_skills_of_all_rows() {
    use crate::consensus::plackett_luce::{fit_plackett_luce, ranking_probability};
    let mut rng = Rng::new(9);
    let (n, m) = (12, 4);
    let x: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
    let mut y = Vec::new();
    for _ in 0..n {
        let mut order: Vec<usize> = (0..m).collect();
        rng.shuffle(&mut order);
        y.extend(crate::data::ranking::ranks_of_order(&order[..2 + rng.below(3)], m));
    }
    let params = InstanceBasedParams { k: Some(n), ..InstanceBasedParams::plackett_luce() };
    let model = InstanceBasedModel::fit_views(
        &FeatureMatrixView::new(&x, n, 1).unwrap(),
        &RankMatrixView::new(&y, n, m).unwrap(),
        None,
        params,
    )
    .unwrap();
    let (pred, conf) = model.predict_with_confidence(&FeatureMatrixView::new(&[0.5], 1, 1).unwrap()).unwrap();
    let fit = fit_plackett_luce(&RankMatrixView::new(&y, n, m).unwrap(), None, 100, 1e-6).unwrap();
    assert_eq!(pred, crate::data::ranking::ranking_from_scores(&fit.skills));
    assert!((conf[0] - ranking_probability(&pred, &fit.skills)).abs() < 1e-12);
    assert!(conf[0] > 0.0 && conf[0] < 1.0);
}

#[test]
fn predictions_follow_the_definition_with_sample_weights() {
    // A brute-force IBLR, row by row in the training order: nearest rows by (squared distance,
    // row), Dudani weight times the share of labels times the sample weight, Mallows centre.
    // The model reads rankings and weights in k-d tree order: a wrong permutation fails here.
    use crate::neighbours::squared_distance;
    let mut rng = Rng::new(31);
    let (n, d, m, k) = (150, 3, 4, 6);
    let x: Vec<f64> = (0..n * d).map(|_| rng.uniform()).collect();
    let weights: Vec<f64> = (0..n).map(|i| if i % 7 == 0 { 0.5 } else { rng.below(4) as f64 }).collect();
    let mut mixed = Vec::new();
    let mut complete = Vec::new();
    for i in 0..n {
        let mut order: Vec<usize> = (0..m).collect();
        rng.shuffle(&mut order);
        complete.extend(crate::data::ranking::ranks_of_order(&order, m));
        let keep = if i % 3 == 0 { 2 + rng.below(m - 1) } else { m };
        mixed.extend(crate::data::ranking::ranks_of_order(&order[..keep], m));
    }
    // 150 queries: rows are predicted in chunks of 64, the last one partial.
    let n_queries = 150;
    let queries: Vec<f64> = (0..n_queries * d).map(|_| rng.uniform() * 1.2 - 0.1).collect();
    // Complete rankings without sample weights take the path that reads neither.
    let unit = vec![1.0; n];
    for (y, weights, unit_path) in [(&complete, &weights, false), (&mixed, &weights, false), (&complete, &unit, true)] {
        let model = InstanceBasedModel::fit_views(
            &FeatureMatrixView::new(&x, n, d).unwrap(),
            &RankMatrixView::new(y, n, m).unwrap(),
            (!unit_path).then_some(weights.as_slice()),
            InstanceBasedParams { k: Some(k), ..Default::default() },
        )
        .unwrap();
        assert_eq!(model.index().complete_unit_weight, unit_path);
        let predicted = model.predict_ranks(&FeatureMatrixView::new(&queries, n_queries, d).unwrap()).unwrap();
        for (qi, query) in queries.chunks(d).enumerate() {
            let q = model.normalised(query);
            let mut near: Vec<(f64, usize)> =
                (0..n).map(|i| (squared_distance(&model.x[i * d..(i + 1) * d], &q, None), i)).collect();
            near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            near.truncate(k);
            let (d1, dk) = (near[0].0.sqrt(), near[k - 1].0.sqrt());
            let mut w: Vec<f64> = near
                .iter()
                .map(|&(dist2, i)| {
                    let dudani = if dk > d1 { (dk - dist2.sqrt()) / (dk - d1) } else { 1.0 };
                    dudani * (n_present(&y[i * m..(i + 1) * m]) as f64 / m as f64) * weights[i]
                })
                .collect();
            if w.iter().all(|&v| v == 0.0) {
                w.iter_mut().for_each(|v| *v = 1.0);
            }
            let rows: Vec<i32> = near.iter().flat_map(|&(_, i)| y[i * m..(i + 1) * m].iter().copied()).collect();
            let expected =
                mallows_centre(&RankMatrixView::new(&rows, k, m).unwrap(), Some(&w), model.params.max_iter).unwrap().centre;
            assert_eq!(&predicted[qi * m..(qi + 1) * m], expected.as_slice(), "query {qi}");
        }
    }
}

#[test]
fn complete_rankings_with_unit_weights_are_weighted_bit_for_bit_as_in_general() {
    // Without reading rankings or sample weights, a neighbour's weight must be exactly what the
    // general formula gives: Dudani's times present / m (exactly 1 for a complete ranking, as
    // the share is taken before it multiplies) times the sample weight. The general path is
    // checked on the same data with one incomplete ranking (row 0), which also switches the
    // shortcut off, so it must give the complete neighbours the same weights bit for bit.
    let mut rng = Rng::new(17);
    let (n, d) = (300, 2);
    let x: Vec<f64> = (0..n * d).map(|_| rng.uniform()).collect();
    let mut incomplete_seen = 0;
    for m in [3usize, 5] {
        let mut y = Vec::new();
        for _ in 0..n {
            let mut order: Vec<usize> = (0..m).collect();
            rng.shuffle(&mut order);
            y.extend(crate::data::ranking::ranks_of_order(&order, m));
        }
        let mut incomplete = y.clone();
        let last = incomplete[..m].iter().position(|&r| r == m as i32).expect("a complete row");
        incomplete[last] = 0; // row 0 loses its last-ranked label
        let mut weighted = vec![1.0; n];
        weighted[7] = 2.0;
        let params = InstanceBasedParams { k: Some(7), ..Default::default() };
        let fit = |y: &[i32], w: Option<&[f64]>| {
            InstanceBasedModel::fit_views(
                &FeatureMatrixView::new(&x, n, d).unwrap(),
                &RankMatrixView::new(y, n, m).unwrap(),
                w,
                params.clone(),
            )
            .unwrap()
        };
        let general = fit(&incomplete, None);
        assert!(!general.index().complete_unit_weight);
        assert!(!fit(&y, Some(&weighted)).index().complete_unit_weight);
        let model = fit(&y, None);
        assert!(model.index().complete_unit_weight);
        // Queries near row 0, so that it is often among the neighbours.
        for _ in 0..50 {
            let q = [x[0] + 0.05 * (rng.uniform() - 0.5), x[1] + 0.05 * (rng.uniform() - 0.5)];
            let near = model.index().kd.nearest(&q, 7, None);
            assert_eq!(general.index().kd.nearest(&q, 7, None), near);
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            assert!(model.neighbour_weights(&near, &mut fast));
            let all_complete = general.neighbour_weights(&near, &mut slow);
            assert_eq!(all_complete, !near.iter().any(|nb| nb.row == 0));
            let (d1, dk) = (near[0].dist2.sqrt(), near[6].dist2.sqrt());
            for ((nb, &w), &g) in near.iter().zip(&fast).zip(&slow) {
                let dudani = if dk > d1 { (dk - nb.dist2.sqrt()) / (dk - d1) } else { 1.0 };
                assert_eq!(w.to_bits(), dudani.to_bits(), "m={m}");
                if nb.row == 0 {
                    incomplete_seen += 1;
                    assert_eq!(g.to_bits(), (dudani * ((m - 1) as f64 / m as f64)).to_bits(), "m={m}");
                } else {
                    assert_eq!(g.to_bits(), w.to_bits(), "m={m}");
                }
            }
        }
    }
    assert!(incomplete_seen > 0, "row 0 was never a neighbour: the general path's share went untested");
}

#[test]
fn each_scaling_finds_the_neighbours_of_features_scaled_by_hand() {
    // Features on scales 1 and 1000: which neighbours are nearest depends on the scaling.
    let mut rng = Rng::new(12);
    let (n, d, m) = (150, 2, 4);
    let x: Vec<f64> = (0..n).flat_map(|_| [rng.uniform(), 1000.0 * rng.uniform()]).collect();
    let mut y = Vec::new();
    for _ in 0..n {
        let mut order: Vec<usize> = (0..m).collect();
        rng.shuffle(&mut order);
        y.extend(crate::data::ranking::ranks_of_order(&order, m));
    }
    let xs = &x;
    let column = |f: usize| (0..n).map(move |i| xs[i * d + f]);
    let by_hand = |offset: &dyn Fn(usize) -> f64, divisor: &dyn Fn(usize) -> f64| -> Vec<f64> {
        (0..n * d).map(|k| (x[k] - offset(k % d)) / divisor(k % d)).collect()
    };
    let min = |f: usize| column(f).fold(f64::INFINITY, f64::min);
    let max = |f: usize| column(f).fold(f64::NEG_INFINITY, f64::max);
    let mean = |f: usize| column(f).sum::<f64>() / n as f64;
    let sd = |f: usize| (column(f).map(|v| (v - mean(f)).powi(2)).sum::<f64>() / n as f64).sqrt();
    let cases: [(Scaling, Vec<f64>); 3] = [
        (Scaling::MinMax, by_hand(&min, &|f| max(f) - min(f))),
        (Scaling::Standard, by_hand(&mean, &sd)),
        (Scaling::None, x.clone()),
    ];
    for base in [InstanceBasedParams { k: Some(5), ..Default::default() }, InstanceBasedParams::plackett_luce()] {
        let ranks = |x: &[f64], scaling: Scaling| {
            let view = FeatureMatrixView::new(x, n, d).unwrap();
            let params = InstanceBasedParams { scaling, ..base.clone() };
            let model = InstanceBasedModel::fit_views(&view, &RankMatrixView::new(&y, n, m).unwrap(), None, params).unwrap();
            model.predict_ranks(&view).unwrap()
        };
        let mut predictions = Vec::new();
        for (scaling, scaled) in &cases {
            // The learner's own scaling of x, against no scaling of x scaled here.
            let own = ranks(&x, *scaling);
            assert_eq!(own, ranks(scaled, Scaling::None), "{scaling:?}");
            predictions.push(own);
        }
        assert_ne!(predictions[0], predictions[2], "min-max scaling changes the neighbours here");
    }
}
