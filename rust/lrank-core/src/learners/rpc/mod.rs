//! RPC, ranking by pairwise comparison (Hüllermeier, Fürnkranz, Cheng & Brinker 2008), with
//! L2-regularised logistic regression as the binary learner, as in WEKA-LR.
//!
//! - One model per label pair a < b, trained on the rows whose ranking holds both labels
//!   (target: a before b); inputs and solver as in [`crate::logistic`]. A pair no ranking holds
//!   predicts 1/2.
//! - Voting: soft (a label scores Σ_b P(label before b), the default) or binary (one point per
//!   predicted win, half a point for a probability of exactly 1/2); labels by decreasing score,
//!   ties to the lower label.
//! - `tune`: C chosen by inner cross-validation ([`tune`]).

use crate::data::features::FeatureMatrixView;
use crate::data::ranking::ranking_from_scores;
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::same_len;
use crate::learner::{fill_rows, Header, Learner, Outputs, Params, Prediction};
use crate::logistic::{binary_from, check_encoding, dot, encode, encoding_of, sigmoid, Solver};
use crate::pairwise::{check_pairs, fit_pairs, vote, PairwiseVoting};

pub use crate::logistic::Encoding;
use serde::{Deserialize, Serialize};
use tune::CScore;

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
    /// Choose C from [`tune::TUNE_C`] by inner cross-validation (`c` is then not used).
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_9")]
    pub tune: bool,
}

impl Params for RpcParams {
    fn validate(&self) -> Result<()> {
        self.solver().validate()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
    fn tie_refusal(&self) -> Option<&'static str> {
        Some("RPC learns binary classes per label pair")
    }
    fn weights_scale_free(&self) -> bool {
        false // C weighs the penalty against the weighted loss
    }
}

impl RpcParams {
    fn solver(&self) -> Solver {
        Solver { c: self.c, max_iter: self.max_iter, tol: self.tol }
    }
}

impl Default for RpcParams {
    fn default() -> Self {
        RpcParams { c: 1.0, voting: PairwiseVoting::Probability, max_iter: 100, tol: 1e-8, seed: 0, tune: false }
    }
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
    /// With `tune`, every candidate C's mean inner cross-validation tau (empty otherwise).
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_9")]
    pub tuning: Vec<CScore>,
}

impl Learner for RpcModel {
    type Params = RpcParams;

    fn fit(params: RpcParams, data: &TrainingSet<'_>) -> Result<Self> {
        data.refuse_ties(params.tie_refusal())?;
        if !params.tune {
            return RpcModel::fit_with(params, data, None);
        }
        // The model keeps the parameters asked for (tune on) and reports what was chosen.
        let tuning = tune::tune(data, &params)?;
        let c = tune::best(&tuning).expect("candidates").c;
        let model = RpcModel::fit_with(RpcParams { c, tune: false, ..params.clone() }, data, None)?;
        Ok(RpcModel { params, tuning, ..model })
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
            "tuned": tune::best(&self.tuning).map(|b| b.c),
            "tuning": self.tuning,
        })
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        check_pairs(self.pairs.iter().map(|p| (p.a, p.b)), self.n_labels)?;
        check_encoding(&self.encoding, self.n_features)?;
        self.pairs.iter().try_for_each(|pair| same_len(pair.coef.len(), self.encoding.len(), "a pair's coefficients"))
    }
}

impl RpcModel {
    /// Fits with the C of `params` (tuning off), each pair's Newton steps started from `start`'s
    /// model of the pair (a fit to the same data with another C) or from zero.
    fn fit_with(params: RpcParams, data: &TrainingSet<'_>, start: Option<&RpcModel>) -> Result<Self> {
        let (x, y) = (&data.x, &data.y);
        let (n, d, m) = (x.n_rows(), x.n_features(), y.n_labels());
        let (fill_values, encoding) = encoding_of(x, &data.weights);
        let model = RpcModel {
            params: params.clone(),
            n_features: d,
            n_labels: m,
            fill_values,
            encoding,
            pairs: Vec::new(),
            tuning: Vec::new(),
        };
        let q = model.encoding.len();
        // Each pair's Newton steps keep a Hessian of the encoded features (one per thread).
        crate::memory::check::<f64>("the logistic regression's Hessian", &[q + 1, q + 1, rayon::current_num_threads()])?;
        let z: Vec<f64> = (0..n).flat_map(|i| model.encode(x.row(i))).collect();
        let pairs = fit_pairs(y, &data.weights, 1, |pair| {
            let (a, b) = (pair.a as u32, pair.b as u32);
            if pair.rows.is_empty() {
                return PairModel { a, b, intercept: None, coef: vec![0.0; q], iterations: 0, converged: true };
            }
            let rows = &pair.rows;
            let zs: Vec<f64> = rows.iter().flat_map(|&i| z[i as usize * q..(i as usize + 1) * q].iter().copied()).collect();
            let t: Vec<f64> = rows.iter().map(|&i| pair.classes[i as usize] as f64).collect();
            let from = start.and_then(|m| m.pairs.get(pair.index)).and_then(|p| Some((p.intercept?, p.coef.as_slice())));
            let (intercept, coef, iterations, converged) = binary_from(&zs, &t, &pair.weights, q, params.solver(), from);
            PairModel { a, b, intercept: Some(intercept), coef, iterations, converged }
        })?;
        Ok(RpcModel { pairs, ..model })
    }

    /// The logistic regression inputs of one raw row.
    fn encode(&self, row: &[f64]) -> Vec<f64> {
        encode(&self.encoding, &self.fill_values, row)
    }

    /// P(a before b) for every pair of one row, in pair order.
    fn probabilities(&self, row: &[f64]) -> Vec<f64> {
        let z = self.encode(row);
        self.pairs.iter().map(|p| p.intercept.map_or(0.5, |b0| sigmoid(b0 + dot(&z, &p.coef)))).collect()
    }
}

pub mod tune;

#[cfg(test)]
mod tests;
