//! RPC, ranking by pairwise comparison (Hüllermeier, Fürnkranz, Cheng & Brinker 2008), with
//! L2-regularised logistic regression as the binary learner, as in WEKA-LR.
//!
//! - Features: numeric ones standardised with the training (weighted) mean and standard deviation
//!   (a constant feature becomes 0); nominal ones one-hot encoded over the training values (an
//!   unseen value is all zeros).
//! - One model per label pair a < b, trained on the rows whose ranking holds both labels
//!   (target: a before b), minimising ½‖β‖² + C Σ_i w_i logloss_i (intercept not penalised; C as
//!   in scikit-learn's LogisticRegression) by Newton's method with a backtracking line search,
//!   until half the Newton decrement g·H⁻¹g (an estimate of the distance to the minimum of the
//!   objective) or every gradient entry is below `tol`, or `max_iter` steps. A pair no ranking
//!   holds predicts 1/2.
//! - Voting: soft (a label scores Σ_b P(label before b), the default) or binary (one point per
//!   predicted win, half a point for a probability of exactly 1/2); labels by decreasing score,
//!   ties to the lower label.

use crate::data::features::{FeatureKind, FeatureMatrixView};
use crate::data::ranking::ranking_from_scores;
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::same_len;
use crate::learner::{bad_param, fill_rows, Header, Learner, Outputs, Params, Prediction};
use crate::limits::check_iterations;
use crate::pairwise::{check_pairs, fit_pairs, vote, PairwiseVoting};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RpcParams {
    /// Inverse regularisation strength (larger: weaker penalty).
    pub c: f64,
    pub voting: PairwiseVoting,
    pub max_iter: usize,
    /// Stop when the objective is estimated to be within this of its minimum (half the Newton
    /// decrement), or every gradient entry is below it.
    pub tol: f64,
    /// Unused (RPC is deterministic); kept so that every learner takes a seed.
    pub seed: u64,
}

impl Params for RpcParams {
    fn validate(&self) -> Result<()> {
        if !(self.c > 0.0) || !self.c.is_finite() {
            return Err(bad_param("c", format!("must be positive and finite, got {}", self.c)));
        }
        check_iterations("max_iter", self.max_iter)?;
        if !(self.tol >= 0.0) {
            return Err(bad_param("tol", format!("must be >= 0, got {}", self.tol)));
        }
        Ok(())
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
}

impl Default for RpcParams {
    fn default() -> Self {
        RpcParams { c: 1.0, voting: PairwiseVoting::Probability, max_iter: 100, tol: 1e-8, seed: 0 }
    }
}

/// How raw features become the logistic regression's inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Encoding {
    /// (x - mean) / scale.
    Standardised { feature: u32, mean: f64, scale: f64 },
    /// 1 when x equals the value, else 0.
    Indicator { feature: u32, value: f64 },
}

/// One pair's model: P(a before b) = σ(intercept + coef · z(x)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairModel {
    pub a: u32,
    pub b: u32,
    /// `None` when no training ranking held the pair (P = 1/2).
    pub intercept: Option<f64>,
    pub coef: Vec<f64>,
    /// Newton steps taken and whether the gradient tolerance was met.
    pub iterations: usize,
    pub converged: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RpcModel {
    pub params: RpcParams,
    pub n_features: usize,
    pub n_labels: usize,
    /// Value used in place of a missing feature value (training mean; lower median for nominal).
    pub fill_values: Vec<f64>,
    pub encoding: Vec<Encoding>,
    pub pairs: Vec<PairModel>,
}

#[inline]
fn sigmoid(z: f64) -> f64 {
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
fn logistic_regression(z: &[f64], t: &[f64], w: &[f64], q: usize, params: &RpcParams) -> (f64, Vec<f64>, usize, bool) {
    let n = t.len();
    let p = q + 1; // beta[0] is the intercept
    let c = params.c;
    let objective = |beta: &[f64]| {
        let mut f = 0.5 * beta[1..].iter().map(|b| b * b).sum::<f64>();
        for i in 0..n {
            let eta = beta[0] + dot(&z[i * q..(i + 1) * q], &beta[1..]);
            // logloss = log(1 + e^-eta) for t = 1, log(1 + e^eta) for t = 0.
            f += c * w[i] * if t[i] > 0.5 { log1p_exp_neg(eta) } else { log1p_exp_neg(-eta) };
        }
        f
    };
    let mut beta = vec![0.0; p];
    let mut f = objective(&beta);
    let (mut grad, mut hess) = (vec![0.0; p], vec![0.0; p * p]);
    for iter in 0..params.max_iter {
        grad.iter_mut().for_each(|g| *g = 0.0);
        hess.iter_mut().for_each(|h| *h = 0.0);
        for j in 1..p {
            grad[j] = beta[j];
            hess[j * p + j] = 1.0;
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
        if grad.iter().all(|g| g.abs() <= params.tol) {
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
        if decrement / 2.0 <= params.tol {
            let beta: Vec<f64> = beta.iter().zip(&step).map(|(b, s)| b - s).collect();
            return (beta[0], beta[1..].to_vec(), iter + 1, true);
        }
        // Backtracking (Armijo) along the Newton direction.
        let slope = -decrement;
        let mut alpha = 1.0;
        loop {
            let trial: Vec<f64> = beta.iter().zip(&step).map(|(b, s)| b - alpha * s).collect();
            let ft = objective(&trial);
            if ft <= f + 1e-4 * alpha * slope || alpha < 1e-10 {
                beta = trial;
                f = ft;
                break;
            }
            alpha *= 0.5;
        }
    }
    (beta[0], beta[1..].to_vec(), params.max_iter, false)
}

#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Learner for RpcModel {
    type Params = RpcParams;

    fn fit(params: RpcParams, data: &TrainingSet<'_>) -> Result<Self> {
        data.refuse_ties("RPC (binary classes per label pair)")?;
        let (x, y) = (&data.x, &data.y);
        let (n, d, m) = (x.n_rows(), x.n_features(), y.n_labels());
        let (fill_values, encoding) = encoding_of(x, &data.weights);
        let model = RpcModel { params: params.clone(), n_features: d, n_labels: m, fill_values, encoding, pairs: Vec::new() };
        let q = model.encoding.len();
        // Each pair's Newton steps keep a Hessian of the encoded features (one per thread).
        crate::memory::check::<f64>("the logistic regression's Hessian", &[q + 1, q + 1, rayon::current_num_threads()])?;
        let z: Vec<f64> = (0..n).flat_map(|i| model.encode(x.row(i))).collect();
        let pairs = fit_pairs(y, &data.weights, |pair| {
            let (a, b) = (pair.a as u32, pair.b as u32);
            if pair.rows.is_empty() {
                return PairModel { a, b, intercept: None, coef: vec![0.0; q], iterations: 0, converged: true };
            }
            let rows = &pair.rows;
            let zs: Vec<f64> = rows.iter().flat_map(|&i| z[i as usize * q..(i as usize + 1) * q].iter().copied()).collect();
            let t: Vec<f64> = rows.iter().map(|&i| pair.classes[i as usize] as f64).collect();
            let (intercept, coef, iterations, converged) = logistic_regression(&zs, &t, &pair.weights, q, &params);
            PairModel { a, b, intercept: Some(intercept), coef, iterations, converged }
        })?;
        Ok(RpcModel { pairs, ..model })
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> RpcParams {
        self.params.clone()
    }

    /// Labels by decreasing score (summed probabilities or binary wins), ties to the lower label.
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
        let scores = fill_rows(
            x,
            self.n_labels,
            || (),
            |_, row, scores: &mut [f64]| {
                for (pair, prob) in self.pairs.iter().zip(self.probabilities(row)) {
                    vote(scores, pair.a as usize, pair.b as usize, prob, self.params.voting);
                }
            },
        );
        let ranks = scores.chunks_exact(self.n_labels.max(1)).flat_map(ranking_from_scores).collect();
        Ok(Prediction { ranks, confidence: None, scores: outputs.scores.then_some(scores) })
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "n_pairs": self.pairs.len(),
            "not_converged": self.pairs.iter().filter(|p| !p.converged).count(),
            "max_iterations": self.pairs.iter().map(|p| p.iterations).max(),
        })
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        check_pairs(self.pairs.iter().map(|p| (p.a, p.b)), self.n_labels)?;
        for e in &self.encoding {
            let feature = match *e {
                Encoding::Standardised { feature, .. } | Encoding::Indicator { feature, .. } => feature,
            };
            if feature as usize >= self.n_features {
                return Err(format!("an input encodes feature {feature} of {}", self.n_features));
            }
        }
        self.pairs.iter().try_for_each(|pair| same_len(pair.coef.len(), self.encoding.len(), "a pair's coefficients"))
    }
}

impl RpcModel {
    /// The logistic regression inputs of one raw row.
    fn encode(&self, row: &[f64]) -> Vec<f64> {
        self.encoding
            .iter()
            .map(|e| match *e {
                Encoding::Standardised { feature, mean, scale } => {
                    let v = row[feature as usize];
                    let v = if v.is_nan() { self.fill_values[feature as usize] } else { v };
                    (v - mean) / scale
                }
                Encoding::Indicator { feature, value } => {
                    let v = row[feature as usize];
                    let v = if v.is_nan() { self.fill_values[feature as usize] } else { v };
                    (v == value) as u8 as f64
                }
            })
            .collect()
    }

    /// P(a before b) for every pair of one row, in pair order.
    fn probabilities(&self, row: &[f64]) -> Vec<f64> {
        let z = self.encode(row);
        self.pairs.iter().map(|p| p.intercept.map_or(0.5, |b0| sigmoid(b0 + dot(&z, &p.coef)))).collect()
    }
}

/// Fill values and input encoding from the training features (weighted means and standard
/// deviations; nominal features' distinct training values).
fn encoding_of(x: &FeatureMatrixView<'_>, weights: &[f64]) -> (Vec<f64>, Vec<Encoding>) {
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
        let total: f64 = present.iter().map(|&(_, w)| w).sum();
        let mean = if total > 0.0 { present.iter().map(|&(v, w)| v * w).sum::<f64>() / total } else { 0.0 };
        let var = if total > 0.0 { present.iter().map(|&(v, w)| w * (v - mean) * (v - mean)).sum::<f64>() / total } else { 0.0 };
        fill.push(mean);
        let scale = if var > 0.0 { var.sqrt() } else { 1.0 };
        encoding.push(Encoding::Standardised { feature: f as u32, mean, scale });
    }
    (fill, encoding)
}

#[cfg(test)]
mod tests;
