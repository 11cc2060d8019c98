//! L2-regularised logistic regression by Newton's method: binary (RPC's pair models) and
//! multinomial (the three relations of a label pair in pairwise partial label ranking), and the
//! encoding of raw features as their inputs.
//!
//! - Inputs: numeric features standardised with the training (weighted) mean and standard
//!   deviation (a constant feature becomes 0), nominal ones one-hot encoded over the training
//!   values (an unseen value is all zeros); a missing value takes the fill value.
//! - Objective: ½‖β‖² + C Σ_i w_i logloss_i, intercepts not penalised (C as in scikit-learn's
//!   LogisticRegression), minimised by Newton's method with a backtracking line search, until
//!   half the Newton decrement g·H⁻¹g (an estimate of the distance to the minimum of the
//!   objective) or every gradient entry is below `tol`, or `max_iter` steps.

pub mod multinomial;

pub use multinomial::{multinomial, MultinomialFit};

use crate::data::features::{FeatureKind, FeatureMatrixView};
use serde::{Deserialize, Serialize};

/// How one input of the regression is computed from a raw row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Encoding {
    /// (x - mean) / scale.
    Standardised { feature: u32, mean: f64, scale: f64 },
    /// 1 when x equals the value, else 0.
    Indicator { feature: u32, value: f64 },
}

impl Encoding {
    /// The raw feature this input reads.
    pub fn feature(&self) -> u32 {
        match *self {
            Encoding::Standardised { feature, .. } | Encoding::Indicator { feature, .. } => feature,
        }
    }
}

/// Newton's method's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Solver {
    /// Inverse regularisation strength.
    pub c: f64,
    pub max_iter: usize,
    pub tol: f64,
}

impl Solver {
    /// Checks the settings once, for every learner that fits by this solver.
    pub fn validate(&self) -> crate::error::Result<()> {
        let bad = |name, reason| Err(crate::error::LrankError::InvalidParameter { name, reason });
        if !(self.c > 0.0) || !self.c.is_finite() {
            return bad("c", format!("must be positive and finite, got {}", self.c));
        }
        crate::limits::check_iterations("max_iter", self.max_iter)?;
        if !(self.tol >= 0.0) {
            return bad("tol", format!("must be >= 0, got {}", self.tol));
        }
        Ok(())
    }

    /// The objective `½‖β‖² + C Σ wᵢ ℓᵢ` divided by max(C, 1), with the tolerance divided alike:
    /// (penalty weight, loss weight, tolerance). The same minimiser and stopping rule, but a
    /// large C (1e308) no longer overflows the sums to infinity; C <= 1 is unchanged, bit for bit.
    pub(crate) fn scaled(&self) -> (f64, f64, f64) {
        if self.c > 1.0 {
            (1.0 / self.c, 1.0, self.tol / self.c)
        } else {
            (1.0, self.c, self.tol)
        }
    }
}

#[inline]
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// log(1 + e^-z) (the log-loss of a positive example), without overflow.
#[inline]
fn log1p_exp_neg(z: f64) -> f64 {
    if z > 0.0 {
        (-z).exp().ln_1p()
    } else {
        -z + z.exp().ln_1p()
    }
}

#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Solves the symmetric positive definite system `a x = b` (row-major p x p) by Cholesky.
fn cholesky_solve(a: &mut [f64], b: &[f64], p: usize) -> Option<Vec<f64>> {
    for j in 0..p {
        let mut d = a[j * p + j];
        for k in 0..j {
            d -= a[j * p + k] * a[j * p + k];
        }
        if !(d > 0.0) {
            return None;
        }
        let d = d.sqrt();
        a[j * p + j] = d;
        for i in (j + 1)..p {
            let mut s = a[i * p + j];
            for k in 0..j {
                s -= a[i * p + k] * a[j * p + k];
            }
            a[i * p + j] = s / d;
        }
    }
    let mut y = b.to_vec();
    for i in 0..p {
        for k in 0..i {
            y[i] -= a[i * p + k] * y[k];
        }
        y[i] /= a[i * p + i];
    }
    for i in (0..p).rev() {
        for k in (i + 1)..p {
            y[i] -= a[k * p + i] * y[k];
        }
        y[i] /= a[i * p + i];
    }
    Some(y)
}

/// Weighted L2-regularised logistic regression on rows `z` (n x q, row-major, no intercept
/// column), targets `t` in {0, 1} and weights `w`: returns (intercept, coef, iterations, converged).
pub fn binary(z: &[f64], t: &[f64], w: &[f64], q: usize, solver: Solver) -> (f64, Vec<f64>, usize, bool) {
    binary_from(z, t, w, q, solver, None)
}

/// As [`binary`], Newton's method started from `start` (intercept, coefficients) instead of
/// zero: the solution for a nearby C is a few steps from this one (RPC's tuning walks C upwards).
/// The objective is strictly convex, so the minimum found is the same, within the tolerance.
pub fn binary_from(
    z: &[f64],
    t: &[f64],
    w: &[f64],
    q: usize,
    solver: Solver,
    start: Option<(f64, &[f64])>,
) -> (f64, Vec<f64>, usize, bool) {
    let n = t.len();
    let p = q + 1; // beta[0] is the intercept
    let (penalty, c, tol) = solver.scaled();
    let objective = |beta: &[f64]| {
        let mut f = penalty * 0.5 * beta[1..].iter().map(|b| b * b).sum::<f64>();
        for i in 0..n {
            let eta = beta[0] + dot(&z[i * q..(i + 1) * q], &beta[1..]);
            // logloss = log(1 + e^-eta) for t = 1, log(1 + e^eta) for t = 0.
            f += c * w[i] * if t[i] > 0.5 { log1p_exp_neg(eta) } else { log1p_exp_neg(-eta) };
        }
        f
    };
    let mut beta = match start {
        Some((intercept, coef)) if coef.len() == q => std::iter::once(intercept).chain(coef.iter().copied()).collect(),
        _ => vec![0.0; p],
    };
    let mut f = objective(&beta);
    let (mut grad, mut hess) = (vec![0.0; p], vec![0.0; p * p]);
    for iter in 0..solver.max_iter {
        grad.iter_mut().for_each(|g| *g = 0.0);
        hess.iter_mut().for_each(|h| *h = 0.0);
        for j in 1..p {
            grad[j] = penalty * beta[j];
            hess[j * p + j] = penalty;
        }
        for i in 0..n {
            let row = &z[i * q..(i + 1) * q];
            let mu = sigmoid(beta[0] + dot(row, &beta[1..]));
            let r = c * w[i] * (mu - t[i]);
            let v = c * w[i] * mu * (1.0 - mu);
            grad[0] += r;
            hess[0] += v;
            for j in 0..q {
                grad[1 + j] += r * row[j];
                hess[1 + j] += v * row[j];
                let vj = v * row[j];
                for k in 0..=j {
                    hess[(1 + j) * p + 1 + k] += vj * row[k];
                }
            }
        }
        if grad.iter().all(|g| g.abs() <= tol) {
            return (beta[0], beta[1..].to_vec(), iter, true);
        }
        // Fill the upper triangle and the intercept row (the loops filled the lower part).
        for j in 1..p {
            hess[j * p] = hess[j];
            for k in (j + 1)..p {
                hess[j * p + k] = hess[k * p + j];
            }
        }
        // A tiny ridge keeps the intercept's curvature positive when every µ(1-µ) underflows.
        hess[0] += 1e-12;
        let Some(step) = cholesky_solve(&mut hess.clone(), &grad, p) else {
            return (beta[0], beta[1..].to_vec(), iter, false);
        };
        // Newton decrement: g·H⁻¹g / 2 estimates how far the objective is above its minimum.
        let decrement: f64 = grad.iter().zip(&step).map(|(g, s)| g * s).sum();
        if decrement / 2.0 <= tol {
            let beta: Vec<f64> = beta.iter().zip(&step).map(|(b, s)| b - s).collect();
            return (beta[0], beta[1..].to_vec(), iter + 1, true);
        }
        let (trial, ft) = backtrack(&beta, &step, f, decrement, objective);
        beta = trial;
        f = ft;
    }
    (beta[0], beta[1..].to_vec(), solver.max_iter, false)
}

/// Backtracking (Armijo) along the Newton direction `-step` from `beta` (objective `f`).
fn backtrack(beta: &[f64], step: &[f64], f: f64, decrement: f64, objective: impl Fn(&[f64]) -> f64) -> (Vec<f64>, f64) {
    let slope = -decrement;
    let mut alpha = 1.0;
    loop {
        let trial: Vec<f64> = beta.iter().zip(step).map(|(b, s)| b - alpha * s).collect();
        let ft = objective(&trial);
        if ft <= f + 1e-4 * alpha * slope || alpha < 1e-10 {
            return (trial, ft);
        }
        alpha *= 0.5;
    }
}

/// Fill values and input encoding from the training features (weighted means and standard
/// deviations; nominal features' distinct training values).
pub fn encoding_of(x: &FeatureMatrixView<'_>, weights: &[f64]) -> (Vec<f64>, Vec<Encoding>) {
    let (n, d) = (x.n_rows(), x.n_features());
    let medians = crate::data::features::fill_values(x);
    let mut fill = Vec::with_capacity(d);
    let mut encoding = Vec::new();
    #[allow(clippy::needless_range_loop)] // f indexes the view's columns too
    for f in 0..d {
        let present: Vec<(f64, f64)> = (0..n).map(|i| (x.get(i, f), weights[i])).filter(|(v, _)| !v.is_nan()).collect();
        if x.kind(f) == FeatureKind::Nominal {
            fill.push(medians[f]);
            let mut values: Vec<f64> = present.iter().map(|&(v, _)| v).collect();
            values.sort_by(f64::total_cmp);
            values.dedup();
            encoding.extend(values.into_iter().map(|value| Encoding::Indicator { feature: f as u32, value }));
            continue;
        }
        let (mean, scale) = crate::numeric::mean_and_scale(&present);
        fill.push(mean);
        encoding.push(Encoding::Standardised { feature: f as u32, mean, scale });
    }
    (fill, encoding)
}

/// The regression inputs of one raw row.
pub fn encode(encoding: &[Encoding], fill_values: &[f64], row: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(encoding.len());
    encode_into(encoding, fill_values, row, &mut out);
    out
}

/// [`encode`] into a buffer the caller reuses (one per block of a prediction, not one per row).
pub fn encode_into(encoding: &[Encoding], fill_values: &[f64], row: &[f64], out: &mut Vec<f64>) {
    out.clear();
    out.extend(encoding.iter().map(|e| match *e {
        Encoding::Standardised { feature, mean, scale } => {
            let v = row[feature as usize];
            let v = if v.is_nan() { fill_values[feature as usize] } else { v };
            let z = (v - mean) / scale;
            // v - mean overflows only for values near the ends of the range: divided first there.
            if z.is_finite() {
                z
            } else {
                v / scale - mean / scale
            }
        }
        Encoding::Indicator { feature, value } => {
            let v = row[feature as usize];
            let v = if v.is_nan() { fill_values[feature as usize] } else { v };
            (v == value) as u8 as f64
        }
    }));
}

/// Every input reads one of `n_features` features.
pub fn check_encoding(encoding: &[Encoding], n_features: usize) -> std::result::Result<(), String> {
    match encoding.iter().map(Encoding::feature).find(|&f| f as usize >= n_features) {
        Some(feature) => Err(format!("an input encodes feature {feature} of {n_features}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
