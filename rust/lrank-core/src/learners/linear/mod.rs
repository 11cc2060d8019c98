//! Linear label ranking: one linear score per label, s_k(x) = b_k + w_k · z(x), labels ranked
//! by decreasing score.
//!
//! - Plackett-Luce loss (the default): maximum likelihood of the training rankings under a
//!   Plackett-Luce model with log-linear skill parameters, the LIN-PL model of Cheng, Dembczyński
//!   & Hüllermeier (2010). An incomplete ranking is used as the model's marginal on its labels.
//! - Pairwise logistic loss: ln(1 + e^-(s_a - s_b)) over the pairs each ranking orders, the
//!   constraint classification of Har-Peled, Roth & Zimak (2002) with a logistic loss; tied
//!   labels form no pair, so bucket orders train it as they stand.
//! - Objective: ½ Σ_k ‖w_k‖² + C Σ_i weight_i loss_i (intercepts not penalised, C as in
//!   scikit-learn's LogisticRegression), minimised by L-BFGS ([`crate::lbfgs`]). Inputs as RPC's
//!   ([`crate::logistic`]): numeric features standardised, nominal ones one-hot encoded.
//! - The loss and gradient are summed over fixed blocks of rows in block order, so the model is
//!   the same bit for bit at any thread count.

use crate::data::features::FeatureMatrixView;
use crate::data::ranking::ranking_from_scores;
use crate::data::training::TrainingSet;
use crate::error::{LrankError, Result};
use crate::lbfgs::{minimise, Stop};
use crate::learner::checks::same_len;
use crate::learner::{bad_param, fill_rows, Header, Learner, Outputs, Params, Prediction};
use crate::logistic::{check_encoding, encode_into, encoding_of, Encoding};
use crate::ranking_loss::{RankOrders, RankingLoss, RowScratch};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearParams {
    pub loss: RankingLoss,
    /// Inverse regularisation strength (larger: weaker penalty).
    pub c: f64,
    /// L-BFGS steps at most.
    pub max_iter: usize,
    /// Stop when a step lowers the objective by at most tol times its size (or 1), or every
    /// gradient entry is at most tol.
    pub tol: f64,
    /// Unused (the fit is deterministic); kept so that every learner takes a seed.
    pub seed: u64,
}

impl Default for LinearParams {
    fn default() -> Self {
        LinearParams { loss: RankingLoss::PlackettLuce, c: 1.0, max_iter: 500, tol: 1e-9, seed: 0 }
    }
}

impl Params for LinearParams {
    fn validate(&self) -> Result<()> {
        if !(self.c > 0.0) || !self.c.is_finite() {
            return Err(bad_param("c", format!("must be positive and finite, got {}", self.c)));
        }
        crate::limits::check_iterations("max_iter", self.max_iter)?;
        if !(self.tol >= 0.0) || !self.tol.is_finite() {
            return Err(bad_param("tol", format!("must be >= 0 and finite, got {}", self.tol)));
        }
        Ok(())
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
    fn weights_scale_free(&self) -> bool {
        false // C weighs the penalty against the weighted loss
    }
    fn tie_refusal(&self) -> Option<&'static str> {
        match self.loss {
            RankingLoss::PlackettLuce => Some("the Plackett-Luce loss models strict rankings (the pairwise loss takes ties)"),
            RankingLoss::PairwiseLogistic => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearModel {
    pub params: LinearParams,
    pub n_features: usize,
    pub n_labels: usize,
    /// Value used in place of a missing feature value (training mean; lower median for nominal).
    pub fill_values: Vec<f64>,
    pub encoding: Vec<Encoding>,
    /// Per label, its intercept then one weight per encoded input (n_labels x (inputs + 1)).
    pub coef: Vec<f64>,
    pub iterations: usize,
    pub converged: bool,
}

/// Rows per block of the loss's sum: fixed, so the sum's order does not depend on the threads.
const BLOCK_ROWS: usize = 256;

impl Learner for LinearModel {
    type Params = LinearParams;

    fn fit(params: LinearParams, data: &TrainingSet<'_>) -> Result<Self> {
        data.refuse_ties(params.tie_refusal())?;
        let (x, y) = (&data.x, &data.y);
        let (n, d, m) = (x.n_rows(), x.n_features(), y.n_labels());
        let (fill_values, encoding) = encoding_of(x, &data.weights);
        let q = encoding.len();
        let p = q + 1;
        crate::memory::check::<f64>("the encoded features", &[n, q.max(1)])?;
        crate::memory::check::<f64>("the L-BFGS history", &[22, m, p])?;
        let mut z = Vec::with_capacity(n * q);
        let mut buffer = Vec::with_capacity(q);
        for i in 0..n {
            encode_into(&encoding, &fill_values, x.row(i), &mut buffer);
            z.extend_from_slice(&buffer);
        }
        let orders = RankOrders::new(y);
        let (loss, c, weights) = (params.loss, params.c, &data.weights);
        let mut interrupted = false;
        let objective = |theta: &[f64], grad: &mut [f64]| -> f64 {
            if crate::interrupt::requested() {
                interrupted = true;
                return f64::NAN; // ends the minimisation; the fit returns Interrupted
            }
            let blocks: Vec<(f64, Vec<f64>)> = (0..n.div_ceil(BLOCK_ROWS))
                .into_par_iter()
                .map_init(
                    || (RowScratch::default(), vec![0.0; m], vec![0.0; m], vec![0.0; m]),
                    |(scratch, scores, g, h), block| {
                        let mut value = 0.0;
                        let mut block_grad = vec![0.0; m * p];
                        for i in block * BLOCK_ROWS..((block + 1) * BLOCK_ROWS).min(n) {
                            let order = orders.row(i);
                            if order.len() < 2 || weights[i] == 0.0 {
                                continue;
                            }
                            let zi = &z[i * q..(i + 1) * q];
                            for (k, s) in scores.iter_mut().enumerate() {
                                let beta = &theta[k * p..(k + 1) * p];
                                *s = beta[0] + crate::logistic::dot(&beta[1..], zi);
                            }
                            g.iter_mut().for_each(|v| *v = 0.0);
                            let wi = c * weights[i];
                            value += wi * loss.row_ordered(order, y.row(i), scores, g, h, scratch);
                            for &k in order {
                                let gk = wi * g[k];
                                let dst = &mut block_grad[k * p..(k + 1) * p];
                                dst[0] += gk;
                                dst[1..].iter_mut().zip(zi).for_each(|(o, v)| *o += gk * v);
                            }
                        }
                        (value, block_grad)
                    },
                )
                .collect();
            let mut value = 0.0;
            for k in 0..m {
                grad[k * p] = 0.0;
                for j in 1..p {
                    let w = theta[k * p + j];
                    grad[k * p + j] = w;
                    value += 0.5 * w * w;
                }
            }
            for (v, block_grad) in &blocks {
                value += v;
                grad.iter_mut().zip(block_grad).for_each(|(o, b)| *o += b);
            }
            value
        };
        let stop = Stop { max_iter: params.max_iter, ftol: params.tol, gtol: params.tol };
        let found = minimise(objective, vec![0.0; m * p], stop);
        if interrupted {
            return Err(LrankError::Interrupted);
        }
        Ok(LinearModel {
            params,
            n_features: d,
            n_labels: m,
            fill_values,
            encoding,
            coef: found.x,
            iterations: found.iterations,
            converged: found.converged,
        })
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> LinearParams {
        self.params.clone()
    }

    /// Labels by decreasing score, ties to the lower label; with the Plackett-Luce loss the
    /// confidence is the model's probability of the predicted ranking.
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
        let m = self.n_labels;
        let scores = fill_rows(
            x,
            m,
            || Vec::with_capacity(self.encoding.len()),
            |buffer: &mut Vec<f64>, row, out: &mut [f64]| self.scores_into(row, buffer, out),
        );
        crate::interrupt::check()?;
        let ranks: Vec<i32> = scores.chunks_exact(m.max(1)).flat_map(ranking_from_scores).collect();
        let confidence = (outputs.confidence && self.params.loss == RankingLoss::PlackettLuce).then(|| {
            let mut scratch = RowScratch::default();
            scores
                .chunks_exact(m.max(1))
                .zip(ranks.chunks_exact(m.max(1)))
                .map(|(s, r)| (-RankingLoss::PlackettLuce.row(r, s, None, &mut scratch)).exp())
                .collect()
        });
        Ok(Prediction { ranks, confidence, scores: outputs.scores.then_some(scores) })
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "iterations": self.iterations,
            "converged": self.converged,
            "n_inputs": self.encoding.len(),
            "coef": self.coef.chunks_exact(self.encoding.len() + 1).collect::<Vec<_>>(),
        })
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        check_encoding(&self.encoding, self.n_features)?;
        let width = self.n_labels.checked_mul(self.encoding.len() + 1).ok_or("too many coefficients")?;
        same_len(self.coef.len(), width, "coef")
    }
}

impl LinearModel {
    /// The labels' scores for one raw row.
    fn scores_into(&self, row: &[f64], buffer: &mut Vec<f64>, out: &mut [f64]) {
        encode_into(&self.encoding, &self.fill_values, row, buffer);
        let p = self.encoding.len() + 1;
        for (k, s) in out.iter_mut().enumerate() {
            let beta = &self.coef[k * p..(k + 1) * p];
            *s = beta[0] + crate::logistic::dot(&beta[1..], buffer);
        }
    }
}

#[cfg(test)]
mod tests;
