//! Multinomial (softmax) logistic regression with a reference class: class c's logit is
//! β_c·(1, z) for every class but the reference, whose logit is 0, so the parameters are
//! identified although the intercepts are not penalised. With two classes it is the binary
//! regression (tested).

use super::{backtrack, cholesky_solve, dot, Solver};

/// A fitted multinomial regression: per class, its intercept and coefficients (`q + 1` values,
/// all zero for the reference class), in class order.
#[derive(Clone, Debug, PartialEq)]
pub struct MultinomialFit {
    pub coef: Vec<f64>,
    pub iterations: usize,
    pub converged: bool,
}

/// Class probabilities of one encoded row from per-class coefficients (`k` blocks of `q + 1`).
pub fn softmax_probabilities(coef: &[f64], z: &[f64], out: &mut [f64]) {
    let p = z.len() + 1;
    for (c, o) in out.iter_mut().enumerate() {
        let block = &coef[c * p..(c + 1) * p];
        *o = block[0] + dot(&block[1..], z);
    }
    let top = out.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut total = 0.0;
    for o in out.iter_mut() {
        *o = (*o - top).exp();
        total += *o;
    }
    out.iter_mut().for_each(|o| *o /= total);
}

/// Weighted L2-regularised multinomial regression on rows `z` (n x q), classes `y` in `0..k`
/// and weights `w`, the logit of class `reference` fixed at 0. Needs `k >= 2`.
pub fn multinomial(z: &[f64], y: &[u32], w: &[f64], q: usize, k: usize, reference: usize, solver: Solver) -> MultinomialFit {
    debug_assert!(k >= 2 && reference < k);
    let n = y.len();
    let p = q + 1;
    let free: Vec<usize> = (0..k).filter(|&c| c != reference).collect();
    let dim = free.len() * p;
    // Full per-class coefficients (reference block zero) from the free parameters.
    let expand = |theta: &[f64]| {
        let mut coef = vec![0.0; k * p];
        for (f, &c) in free.iter().enumerate() {
            coef[c * p..(c + 1) * p].copy_from_slice(&theta[f * p..(f + 1) * p]);
        }
        coef
    };
    let (penalty, c_reg, tol) = solver.scaled();
    let mut probs = vec![0.0; k];
    let objective = |theta: &[f64]| {
        let coef = expand(theta);
        let mut f = penalty
            * 0.5
            * (0..free.len()).map(|b| theta[b * p + 1..(b + 1) * p].iter().map(|v| v * v).sum::<f64>()).sum::<f64>();
        let mut probs = vec![0.0; k];
        for i in 0..n {
            softmax_probabilities(&coef, &z[i * q..(i + 1) * q], &mut probs);
            // -log p, floored so a vanishing probability stays finite.
            f -= c_reg * w[i] * probs[y[i] as usize].max(1e-300).ln();
        }
        f
    };
    let mut theta = vec![0.0; dim];
    let mut f = objective(&theta);
    let (mut grad, mut hess) = (vec![0.0; dim], vec![0.0; dim * dim]);
    let mut x_tilde = vec![1.0; p];
    for iter in 0..solver.max_iter {
        let coef = expand(&theta);
        grad.iter_mut().for_each(|g| *g = 0.0);
        hess.iter_mut().for_each(|h| *h = 0.0);
        for b in 0..free.len() {
            for j in 1..p {
                grad[b * p + j] = penalty * theta[b * p + j];
                hess[(b * p + j) * dim + b * p + j] = penalty;
            }
        }
        for i in 0..n {
            let row = &z[i * q..(i + 1) * q];
            x_tilde[1..].copy_from_slice(row);
            softmax_probabilities(&coef, row, &mut probs);
            let cw = c_reg * w[i];
            for (b, &c) in free.iter().enumerate() {
                let r = cw * (probs[c] - (y[i] as usize == c) as u8 as f64);
                for j in 0..p {
                    grad[b * p + j] += r * x_tilde[j];
                }
                // Lower triangle of the blocks (b, e), e <= b: cw p_c (δ_ce - p_e) x̃ x̃ᵀ.
                for (e, &d) in free.iter().enumerate().take(b + 1) {
                    let v = cw * probs[c] * ((c == d) as u8 as f64 - probs[d]);
                    if v == 0.0 {
                        continue;
                    }
                    for j in 0..p {
                        let vj = v * x_tilde[j];
                        let row_start = (b * p + j) * dim + e * p;
                        let last = if e == b { j } else { p - 1 };
                        for l in 0..=last {
                            hess[row_start + l] += vj * x_tilde[l];
                        }
                    }
                }
            }
        }
        if grad.iter().all(|g| g.abs() <= tol) {
            return MultinomialFit { coef: expand(&theta), iterations: iter, converged: true };
        }
        for r in 0..dim {
            for s in (r + 1)..dim {
                hess[r * dim + s] = hess[s * dim + r];
            }
        }
        // A tiny ridge keeps the intercepts' curvature positive when probabilities saturate.
        for b in 0..free.len() {
            hess[(b * p) * dim + b * p] += 1e-12;
        }
        let Some(step) = cholesky_solve(&mut hess.clone(), &grad, dim) else {
            return MultinomialFit { coef: expand(&theta), iterations: iter, converged: false };
        };
        let decrement: f64 = grad.iter().zip(&step).map(|(g, s)| g * s).sum();
        if decrement / 2.0 <= tol {
            let theta: Vec<f64> = theta.iter().zip(&step).map(|(t, s)| t - s).collect();
            return MultinomialFit { coef: expand(&theta), iterations: iter + 1, converged: true };
        }
        let (trial, ft) = backtrack(&theta, &step, f, decrement, objective);
        theta = trial;
        f = ft;
    }
    MultinomialFit { coef: expand(&theta), iterations: solver.max_iter, converged: false }
}
