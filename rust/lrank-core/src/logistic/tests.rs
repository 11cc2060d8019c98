use super::multinomial::softmax_probabilities;
use super::*;
use crate::rng::Rng;

const SOLVER: Solver = Solver { c: 2.0, max_iter: 100, tol: 1e-10 };

#[test]
fn cholesky_solves_a_known_system() {
    let mut a = vec![4.0, 2.0, 2.0, 3.0];
    let x = cholesky_solve(&mut a, &[2.0, 1.0], 2).unwrap();
    assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12, "{x:?}");
    assert!(cholesky_solve(&mut [0.0, 0.0, 0.0, 0.0], &[1.0, 1.0], 2).is_none());
}

/// Random rows, a class per row from a noisy linear score cut into `k` bands, random weights.
fn problem(seed: u64, n: usize, q: usize, k: usize) -> (Vec<f64>, Vec<u32>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let z: Vec<f64> = (0..n * q).map(|_| rng.uniform() * 2.0 - 1.0).collect();
    let y: Vec<u32> = (0..n)
        .map(|i| {
            let s = z[i * q] - 0.5 * z[i * q + 1] + 0.6 * rng.uniform();
            ((s + 1.5) / 3.6 * k as f64).clamp(0.0, k as f64 - 1.0) as u32
        })
        .collect();
    let w: Vec<f64> = (0..n).map(|_| 1.0 + rng.below(3) as f64).collect();
    (z, y, w)
}

#[test]
fn the_binary_optimum_has_zero_gradient() {
    let (n, q) = (200, 3);
    let (z, y, w) = problem(1, n, q, 2);
    let t: Vec<f64> = y.iter().map(|&c| c as f64).collect();
    let (b0, coef, _, converged) = binary(&z, &t, &w, q, SOLVER);
    assert!(converged);
    let mut grad = vec![0.0; q + 1];
    grad[1..].copy_from_slice(&coef);
    for i in 0..n {
        let mu = sigmoid(b0 + dot(&z[i * q..(i + 1) * q], &coef));
        grad[0] += SOLVER.c * w[i] * (mu - t[i]);
        for j in 0..q {
            grad[1 + j] += SOLVER.c * w[i] * (mu - t[i]) * z[i * q + j];
        }
    }
    assert!(grad.iter().all(|g| g.abs() < 1e-6), "{grad:?}");
}

#[test]
fn the_multinomial_optimum_has_zero_gradient_and_newton_converges_fast() {
    let (n, q, k) = (300, 3, 3);
    for reference in 0..k {
        let (z, y, w) = problem(2 + reference as u64, n, q, k);
        let fit = multinomial(&z, &y, &w, q, k, reference, SOLVER);
        // Newton's steps converge quadratically; a wrong Hessian would crawl.
        assert!(fit.converged && fit.iterations <= 15, "{} iterations", fit.iterations);
        let p = q + 1;
        assert!(fit.coef[reference * p..(reference + 1) * p].iter().all(|&v| v == 0.0));
        // The gradient of the free classes, written out from the objective.
        let mut probs = vec![0.0; k];
        let mut grad = vec![0.0; k * p];
        for c in (0..k).filter(|&c| c != reference) {
            grad[c * p + 1..(c + 1) * p].copy_from_slice(&fit.coef[c * p + 1..(c + 1) * p]);
        }
        for i in 0..n {
            let row = &z[i * q..(i + 1) * q];
            softmax_probabilities(&fit.coef, row, &mut probs);
            assert!((probs.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            for c in (0..k).filter(|&c| c != reference) {
                let r = SOLVER.c * w[i] * (probs[c] - (y[i] as usize == c) as u8 as f64);
                grad[c * p] += r;
                (0..q).for_each(|j| grad[c * p + 1 + j] += r * row[j]);
            }
        }
        assert!(grad.iter().all(|g| g.abs() < 1e-6), "reference {reference}: {grad:?}");
    }
}

#[test]
fn two_classes_with_the_negative_class_as_reference_are_the_binary_regression() {
    let (n, q) = (250, 4);
    let (z, y, w) = problem(7, n, q, 2);
    let t: Vec<f64> = y.iter().map(|&c| c as f64).collect();
    let (b0, coef, _, _) = binary(&z, &t, &w, q, SOLVER);
    let fit = multinomial(&z, &y, &w, q, 2, 0, SOLVER);
    let p = q + 1;
    assert!((fit.coef[p] - b0).abs() < 1e-7, "{} {b0}", fit.coef[p]);
    for (fitted, expected) in fit.coef[p + 1..].iter().zip(&coef) {
        assert!((fitted - expected).abs() < 1e-7);
    }
}

#[test]
fn a_separable_class_stays_finite() {
    // Class 2 exactly where z > 0.5: the unpenalised intercept would diverge without the cap
    // on Newton steps; the fit must stay finite and put the class where it belongs.
    let n = 60;
    let z: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
    let y: Vec<u32> = (0..n).map(|i| if z[i] > 0.5 { 2 } else { (i % 2) as u32 }).collect();
    let fit = multinomial(&z, &y, &vec![1.0; n], 1, 3, 1, Solver { c: 1e6, max_iter: 50, tol: 1e-10 });
    assert!(fit.coef.iter().all(|v| v.is_finite()));
    let mut probs = [0.0; 3];
    softmax_probabilities(&fit.coef, &[0.9], &mut probs);
    assert!(probs[2] > 0.99, "{probs:?}");
}

#[test]
fn a_warm_start_from_another_c_reaches_the_same_optimum_in_fewer_steps() {
    let (n, q) = (300, 4);
    let (z, y, w) = problem(4, n, q, 2);
    let t: Vec<f64> = y.iter().map(|&c| c as f64).collect();
    let weak = Solver { c: 100.0, ..SOLVER };
    let (b0, coef, cold_steps, converged) = binary(&z, &t, &w, q, weak);
    assert!(converged);
    let (s0, start, _, _) = binary(&z, &t, &w, q, Solver { c: 10.0, ..SOLVER });
    let (w0, warm, warm_steps, converged) = binary_from(&z, &t, &w, q, weak, Some((s0, &start)));
    assert!(converged);
    assert!((w0 - b0).abs() < 1e-6 && warm.iter().zip(&coef).all(|(a, b)| (a - b).abs() < 1e-6), "{warm:?} {coef:?}");
    assert!(warm_steps < cold_steps, "{warm_steps} >= {cold_steps}");
    // A start of the wrong length is ignored: the fit starts from zero.
    assert_eq!(binary_from(&z, &t, &w, q, weak, Some((s0, &start[..2]))), (b0, coef, cold_steps, true));
}

#[test]
fn features_near_the_ends_of_the_range_are_standardised_like_ordinary_ones() {
    // Scaled by 1e200 the squares overflow, by 1e-200 they underflow to 0: the feature must
    // still come out as the same standardised input, not be dropped.
    let base = [1.0, -2.0, 0.5, 3.0, -1.5, 2.5];
    let weights = [1.0, 2.0, 1.0, 1.0, 3.0, 1.0];
    let encoded = |factor: f64| {
        let values: Vec<f64> = base.iter().map(|v| v * factor).collect();
        let x = FeatureMatrixView::new(&values, 6, 1).unwrap();
        let (fill, encoding) = encoding_of(&x, &weights);
        values.iter().map(|&v| encode(&encoding, &fill, &[v])[0]).collect::<Vec<f64>>()
    };
    let plain = encoded(1.0);
    for factor in [1e200, 1e-200, 1e300, 1e-300, -1e305] {
        let scaled = encoded(factor);
        for (a, b) in plain.iter().zip(&scaled) {
            let b = if factor < 0.0 { -b } else { *b };
            assert!((a - b).abs() < 1e-9, "factor {factor}: {plain:?} against {scaled:?}");
        }
    }
    // Values spanning the whole range: finite inputs (v - mean alone would overflow).
    let values = [f64::MAX, -f64::MAX, 0.0, f64::MAX / 2.0];
    let x = FeatureMatrixView::new(&values, 4, 1).unwrap();
    let (fill, encoding) = encoding_of(&x, &[1.0; 4]);
    assert!(values.iter().all(|&v| encode(&encoding, &fill, &[v])[0].is_finite()));
}
