use super::*;
use crate::data::ranking::{ranks_of_order, RankMatrixView};
use crate::rng::Rng;

/// n rows of 2 features; label j's utility is linear in them (plus Gumbel noise of `noise`
/// scale, which makes the rankings Plackett-Luce draws); with `missing`, each label is left out
/// with that probability (at least two kept).
fn linear_data(n: usize, m: usize, noise: f64, missing: f64, seed: u64) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b) = (rng.uniform() * 2.0 - 1.0, rng.uniform() * 2.0 - 1.0);
        x.extend([a, b]);
        let u: Vec<f64> = (0..m)
            .map(|j| {
                let angle = 1.3 * j as f64;
                2.0 * (angle.cos() * a + angle.sin() * b) - noise * (-rng.uniform().max(1e-300).ln()).ln()
            })
            .collect();
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&p, &q| u[q].total_cmp(&u[p]));
        let mut ranks = ranks_of_order(&order, m);
        let mut kept = m;
        for rank in ranks.iter_mut() {
            if kept > 2 && rng.uniform() < missing {
                *rank = 0;
                kept -= 1;
            }
        }
        // Dense positions over the labels kept.
        let mut present: Vec<usize> = (0..m).filter(|&j| ranks[j] > 0).collect();
        present.sort_by_key(|&j| ranks[j]);
        for (pos, &j) in present.iter().enumerate() {
            ranks[j] = pos as i32 + 1;
        }
        y.extend(ranks);
    }
    (x, y)
}

fn fit(x: &[f64], y: &[i32], n: usize, m: usize, params: LinearParams) -> Result<LinearModel> {
    LinearModel::fit_views(
        &FeatureMatrixView::new(x, n, x.len() / n).unwrap(),
        &RankMatrixView::new(y, n, m).unwrap(),
        None,
        params,
    )
}

/// The objective written out from the definitions, with the features standardised as the
/// model's encoding does: the Plackett-Luce probability as a product of choices, the pairwise
/// loss pair by pair.
fn reference_objective(model: &LinearModel, x: &[f64], y: &[i32], n: usize, theta: &[f64]) -> f64 {
    let (m, p) = (model.n_labels, model.encoding.len() + 1);
    let d = model.n_features;
    let mut f = 0.0;
    for k in 0..m {
        f += 0.5 * theta[k * p + 1..(k + 1) * p].iter().map(|w| w * w).sum::<f64>();
    }
    for i in 0..n {
        let z = crate::logistic::encode(&model.encoding, &model.fill_values, &x[i * d..(i + 1) * d]);
        let s: Vec<f64> = (0..m).map(|k| theta[k * p] + (0..p - 1).map(|j| theta[k * p + 1 + j] * z[j]).sum::<f64>()).collect();
        let ranks = &y[i * m..(i + 1) * m];
        let mut present: Vec<usize> = (0..m).filter(|&k| ranks[k] > 0).collect();
        present.sort_by_key(|&k| ranks[k]);
        let loss = match model.params.loss {
            RankingLoss::PlackettLuce => {
                let mut prob = 1.0;
                for t in 0..present.len() {
                    let total: f64 = present[t..].iter().map(|&k| s[k].exp()).sum();
                    prob *= s[present[t]].exp() / total;
                }
                -prob.ln()
            }
            RankingLoss::PairwiseLogistic => {
                let mut sum = 0.0;
                for &a in &present {
                    for &b in &present {
                        if ranks[a] < ranks[b] {
                            sum += (1.0 + (-(s[a] - s[b])).exp()).ln();
                        }
                    }
                }
                sum
            }
        };
        f += model.params.c * loss;
    }
    f
}

#[test]
fn the_fit_is_the_minimum_of_the_written_out_objective() {
    for loss in [RankingLoss::PlackettLuce, RankingLoss::PairwiseLogistic] {
        let (n, m) = (80, 4);
        let (x, y) = linear_data(n, m, 1.0, 0.3, 5);
        let model = fit(&x, &y, n, m, LinearParams { loss, c: 2.0, tol: 1e-12, ..Default::default() }).unwrap();
        assert!(model.converged, "{loss:?}");
        let theta = model.coef.clone();
        let f0 = reference_objective(&model, &x, &y, n, &theta);
        // Central differences of the reference: the gradient vanishes at the fit.
        for j in 0..theta.len() {
            let h = 1e-5;
            let mut plus = theta.clone();
            plus[j] += h;
            let mut minus = theta.clone();
            minus[j] -= h;
            let slope =
                (reference_objective(&model, &x, &y, n, &plus) - reference_objective(&model, &x, &y, n, &minus)) / (2.0 * h);
            assert!(slope.abs() < 1e-4 * f0.max(1.0), "{loss:?}: d/dθ{j} = {slope}");
        }
    }
}

#[test]
fn learns_linear_utilities_and_reports_their_plackett_luce_probability() {
    let (n, m) = (400, 4);
    let (x, y) = linear_data(n, m, 0.05, 0.0, 3);
    let model = fit(&x, &y, n, m, LinearParams { c: 100.0, ..Default::default() }).unwrap();
    let view = FeatureMatrixView::new(&x, n, 2).unwrap();
    let pred = model.predict(&view, Outputs { confidence: true, scores: true }).unwrap();
    let tau: f64 = (0..n)
        .map(|i| crate::metrics::distance::kendall_tau(&y[i * m..(i + 1) * m], &pred.ranks[i * m..(i + 1) * m]))
        .sum::<f64>()
        / n as f64;
    assert!(tau > 0.95, "{tau}");
    // The confidence is the product of the Plackett-Luce choices along the predicted ranking.
    let (scores, confidence) = (pred.scores.unwrap(), pred.confidence.unwrap());
    for i in 0..5 {
        let s = &scores[i * m..(i + 1) * m];
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by_key(|&k| pred.ranks[i * m + k]);
        let mut prob = 1.0;
        for t in 0..m {
            prob *= s[order[t]].exp() / order[t..].iter().map(|&k| s[k].exp()).sum::<f64>();
        }
        assert!((prob - confidence[i]).abs() < 1e-12, "{prob} {}", confidence[i]);
    }
}

#[test]
fn the_model_does_not_depend_on_the_thread_count() {
    let (n, m) = (2000, 5);
    let (x, y) = linear_data(n, m, 1.0, 0.2, 9);
    let fit_on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| fit(&x, &y, n, m, LinearParams::default()).unwrap())
    };
    assert_eq!(fit_on(1), fit_on(4));
}

#[test]
fn ties_train_the_pairwise_loss_and_are_refused_by_plackett_luce() {
    let x = [0.0, 1.0, 2.0, 3.0];
    let y = [1, 2, 2, 2, 1, 1, 1, 2, 3, 3, 2, 1];
    let refused = fit(&x, &y, 4, 3, LinearParams::default()).unwrap_err();
    assert!(refused.to_string().contains("Plackett-Luce"), "{refused}");
    let model = fit(&x, &y, 4, 3, LinearParams { loss: RankingLoss::PairwiseLogistic, ..Default::default() }).unwrap();
    assert!(model.coef.iter().all(|c| c.is_finite()));
}

#[test]
fn parameters_are_checked() {
    for (params, name) in [
        (LinearParams { c: 0.0, ..Default::default() }, "c"),
        (LinearParams { c: f64::INFINITY, ..Default::default() }, "c"),
        (LinearParams { tol: -1.0, ..Default::default() }, "tol"),
        (LinearParams { tol: f64::NAN, ..Default::default() }, "tol"),
    ] {
        let err = params.validate().unwrap_err();
        assert!(matches!(err, LrankError::InvalidParameter { name: n, .. } if n == name), "{err}");
    }
}
