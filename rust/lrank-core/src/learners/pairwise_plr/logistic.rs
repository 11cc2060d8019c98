//! Pairwise partial label ranking with a multinomial logistic regression per label pair (the
//! third classifier Alfaro, Aledo & Gámez 2023 list besides trees and forests): the three
//! relations' logits are linear in the encoded features ([`crate::logistic`]), the tied relation
//! the reference class (logit 0). Only the relations some training row of the pair has are
//! modelled: a relation never seen has probability 0, a pair with one relation predicts it for
//! sure, a pair no ranking holds gives C = 1/2.
//!
//! With `tune_beta`, BPA's beta is chosen as for the forest but from the training rows' own
//! predicted matrices (a regression of a few dozen coefficients per pair hardly overfits, and
//! there is no out-of-bag sample).

use super::{choose_beta, predict_matrices, set_pair, BetaScore, OutOfBag, TieWeighting};
use crate::consensus::buckets::{BucketConsensus, BucketMethod};
use crate::data::features::FeatureMatrixView;
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::same_len;
use crate::learner::{Header, Learner, Outputs, Params, Prediction};
use crate::logistic::multinomial::softmax_probabilities;
use crate::logistic::{check_encoding, encode, encode_into, encoding_of, multinomial, Encoding, Solver};
use crate::pairwise::{check_pairs, fit_pair_relations};
use serde::{Deserialize, Serialize};

/// The tied relation, the regression's reference class when a pair has it.
const TIED: u8 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairwisePlrLogisticParams {
    /// Inverse regularisation strength (larger: weaker penalty).
    pub c: f64,
    pub max_iter: usize,
    /// Newton's stopping tolerance (see [`crate::logistic`]).
    pub tol: f64,
    pub tie_weighting: TieWeighting,
    pub consensus: BucketConsensus,
    /// Choose BPA's beta by the training rows' tau_x (see the module).
    pub tune_beta: bool,
    /// Unused (the fit is deterministic); kept so that every learner takes a seed.
    pub seed: u64,
}

impl PairwisePlrLogisticParams {
    fn solver(&self) -> Solver {
        Solver { c: self.c, max_iter: self.max_iter, tol: self.tol }
    }
}

impl Default for PairwisePlrLogisticParams {
    fn default() -> Self {
        PairwisePlrLogisticParams {
            c: 1.0,
            max_iter: 100,
            tol: 1e-8,
            tie_weighting: TieWeighting::Half,
            consensus: BucketConsensus::BPA,
            tune_beta: false,
            seed: 0,
        }
    }
}

impl Params for PairwisePlrLogisticParams {
    fn validate(&self) -> Result<()> {
        self.solver().validate()?;
        self.consensus.validate()
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
}

/// One pair's regression (a < b).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelationLogit {
    pub a: u32,
    pub b: u32,
    /// The relations modelled (0 a before b, 1 tied, 2 b before a), ascending; empty when no
    /// ranking held the pair.
    pub relations: Vec<u8>,
    /// Per modelled relation, the intercept and coefficients of its logit.
    pub coef: Vec<f64>,
    pub iterations: usize,
    pub converged: bool,
}

impl RelationLogit {
    /// Probabilities of (before, tied, after) for an encoded row, `None` for an unseen pair.
    pub fn probabilities(&self, z: &[f64], scratch: &mut [f64; 3]) -> Option<[f64; 3]> {
        let mut p = [0.0; 3];
        match self.relations.len() {
            0 => return None,
            1 => p[self.relations[0] as usize] = 1.0,
            k => {
                softmax_probabilities(&self.coef, z, &mut scratch[..k]);
                for (&r, &v) in self.relations.iter().zip(scratch.iter()) {
                    p[r as usize] = v;
                }
            }
        }
        Some(p)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairwisePlrLogisticModel {
    pub params: PairwisePlrLogisticParams,
    /// The consensus predictions use: the parameters', with the tuned beta when tuned.
    pub consensus: BucketConsensus,
    /// Training mean tau_x of each candidate beta (empty unless tuned).
    pub beta_scores: Vec<BetaScore>,
    pub n_features: usize,
    pub n_labels: usize,
    /// Value used in place of a missing feature value (training mean; lower median for nominal).
    pub fill_values: Vec<f64>,
    pub encoding: Vec<Encoding>,
    pub pairs: Vec<RelationLogit>,
}

impl Learner for PairwisePlrLogisticModel {
    type Params = PairwisePlrLogisticParams;

    fn fit(params: PairwisePlrLogisticParams, data: &TrainingSet<'_>) -> Result<Self> {
        let (x, y) = (&data.x, &data.y);
        let n = x.n_rows();
        let (fill_values, encoding) = encoding_of(x, &data.weights);
        let q = encoding.len();
        // Each pair's Newton steps keep a Hessian of two classes' inputs (one per thread).
        crate::memory::check::<f64>("the regression's Hessian", &[2 * (q + 1), 2 * (q + 1), rayon::current_num_threads()])?;
        let z: Vec<f64> = (0..n).flat_map(|i| encode(&encoding, &fill_values, x.row(i))).collect();
        let solver = params.solver();
        let tune = params.tune_beta && matches!(params.consensus.method, BucketMethod::Bpa | BucketMethod::BpaGlobal);
        let fitted = fit_pair_relations(y, &data.weights, 1, |pair| {
            let mut totals = [0.0; 3];
            for (&row, &w) in pair.rows.iter().zip(&pair.weights) {
                totals[pair.classes[row as usize] as usize] += w;
            }
            let relations: Vec<u8> = (0..3u8).filter(|&r| totals[r as usize] > 0.0).collect();
            let mut logit =
                RelationLogit { a: pair.a as u32, b: pair.b as u32, relations, coef: Vec::new(), iterations: 0, converged: true };
            if logit.relations.len() >= 2 {
                let k = logit.relations.len();
                let class_of = |relation: u32| logit.relations.iter().position(|&r| r as u32 == relation).unwrap() as u32;
                let classes: Vec<u32> = pair.rows.iter().map(|&i| class_of(pair.classes[i as usize])).collect();
                let zs: Vec<f64> =
                    pair.rows.iter().flat_map(|&i| z[i as usize * q..(i as usize + 1) * q].iter().copied()).collect();
                let reference = logit.relations.iter().position(|&r| r == TIED).unwrap_or(k - 1);
                let fit = multinomial(&zs, &classes, &pair.weights, q, k, reference, solver);
                (logit.coef, logit.iterations, logit.converged) = (fit.coef, fit.iterations, fit.converged);
            }
            let estimates: OutOfBag = if tune {
                let mut scratch = [0.0; 3];
                let rows = pair.rows.iter();
                rows.filter_map(|&i| Some((i, logit.probabilities(&z[i as usize * q..(i as usize + 1) * q], &mut scratch)?)))
                    .collect()
            } else {
                Vec::new()
            };
            (logit, estimates)
        })?;
        let (pairs, estimates): (Vec<RelationLogit>, Vec<OutOfBag>) = fitted.into_iter().unzip();
        let mut model = PairwisePlrLogisticModel {
            consensus: params.consensus,
            beta_scores: Vec::new(),
            params,
            n_features: x.n_features(),
            n_labels: y.n_labels(),
            fill_values,
            encoding,
            pairs,
        };
        if tune {
            let pair_labels: Vec<(u32, u32)> = model.pairs.iter().map(|p| (p.a, p.b)).collect();
            let (scores, best) = choose_beta(y, &pair_labels, &estimates, model.params.tie_weighting, model.params.consensus);
            model.beta_scores = scores;
            if let Some(beta) = best {
                model.consensus.beta = beta;
            }
        }
        Ok(model)
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> PairwisePlrLogisticParams {
        self.params.clone()
    }

    /// The consensus bucket order of each row's predicted pair-order matrix; the scores are the
    /// matrix's Borda scores (Σ_b C_ab, higher preferred).
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
        let weighting = self.params.tie_weighting;
        let m = self.n_labels;
        Ok(predict_matrices(x, m, &self.consensus, outputs, Vec::new, |z, rows, block| {
            let mut scratch = [0.0; 3];
            for (i, c) in rows.zip(block.chunks_exact_mut(m * m)) {
                encode_into(&self.encoding, &self.fill_values, x.row(i), z);
                for pair in &self.pairs {
                    set_pair(c, m, pair.a, pair.b, pair.probabilities(z, &mut scratch), weighting);
                }
            }
        }))
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "beta": self.consensus.beta,
            "beta_scores": self.beta_scores.iter().map(|s| serde_json::json!([s.beta, s.tau_x])).collect::<Vec<_>>(),
            "n_pairs": self.pairs.len(),
            "pairs_without_data": self.pairs.iter().filter(|p| p.relations.is_empty()).count(),
            "not_converged": self.pairs.iter().filter(|p| !p.converged).count(),
            "max_iterations": self.pairs.iter().map(|p| p.iterations).max(),
        })
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        self.consensus.validate().map_err(|e| e.to_string())?;
        check_encoding(&self.encoding, self.n_features)?;
        check_pairs(self.pairs.iter().map(|p| (p.a, p.b)), self.n_labels)?;
        let width = self.encoding.len() + 1;
        for pair in &self.pairs {
            if !pair.relations.windows(2).all(|w| w[0] < w[1]) || pair.relations.iter().any(|&r| r > 2) {
                return Err(format!("pair ({}, {}): relations {:?}", pair.a, pair.b, pair.relations));
            }
            let expected = if pair.relations.len() >= 2 { pair.relations.len() * width } else { 0 };
            same_len(pair.coef.len(), expected, "a pair's coefficients")?;
            if pair.coef.iter().any(|v| !v.is_finite()) {
                return Err(format!("pair ({}, {}): a coefficient is not finite", pair.a, pair.b));
            }
        }
        Ok(())
    }
}
