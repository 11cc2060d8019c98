//! Instance-based partial label ranking: the k nearest training rows' bucket orders combined by
//! a consensus with ties (as in Alfaro, Aledo & Gámez's instance-based PLR).
//!
//! - Features as IBLR takes them: missing values replaced by the training lower median, numeric
//!   features min-max normalised on the training data (or standardised, or left as they are:
//!   [`Scaling`]), nominal ones compared for equality (a mismatch counts 1); the exact k-d tree of [`crate::neighbours`] finds the neighbours (equal
//!   distances to the lower row index).
//! - A neighbour weighs Dudani's (d_k - d_i) / (d_k - d_1) (all 1 when d_k = d_1; or 1 with
//!   uniform weighting) times the share of the labels its ranking holds times its sample weight;
//!   if all weights are 0 they count equally. The prediction is the consensus (BPA-LIA-MP2 with
//!   beta 0.25 by default, or Borda or Copeland with ties) of the weighted pair-order counts of
//!   the neighbours' rankings, so incomplete and tied rankings count the pairs they hold.
//! - k is given, or chosen from {5, 10, 15, 20} by leave-one-out on the training data (at most
//!   1000 rows, drawn with the seed), as IBLR chooses it: the k with the highest mean tau_x,
//!   ties to the smaller k.

use crate::consensus::buckets::{BucketConsensus, PairOrderCounts};
use crate::data::features::{fill_values, FeatureKind, FeatureMatrixView};
use crate::data::ranking::{n_present, validate_ranking};
use crate::data::training::TrainingSet;
use crate::error::{invalid, Result};
use crate::learner::checks::same_len;
use crate::learner::{bad_param, fill_rows, Header, Learner, Outputs, Params, Prediction};
use crate::metrics::distance::tau_x;
pub use crate::neighbours::Scaling;
use crate::neighbours::{k_nearest_rows, scale_of, value_or_fill, KdIndex, NearestRows, Neighbour, Queries, SearchScratch};
use crate::rng::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Candidate neighbourhood sizes of the inner selection.
pub const K_CANDIDATES: [usize; 4] = [5, 10, 15, 20];
/// Rows used for the leave-one-out selection of k, at most.
pub const MAX_SELECTION_ROWS: usize = 1000;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceBasedPlrParams {
    /// Number of neighbours; `None` chooses it from [`K_CANDIDATES`] by leave-one-out.
    pub k: Option<usize>,
    /// Dudani's distance weights (else every neighbour weighs 1, times its share and weight).
    pub distance_weights: bool,
    pub consensus: BucketConsensus,
    /// Seed for the rows of the leave-one-out selection.
    pub seed: u64,
    /// Added in model format 4; older files scaled min-max.
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_4")]
    pub scaling: Scaling,
}

impl Default for InstanceBasedPlrParams {
    fn default() -> Self {
        InstanceBasedPlrParams {
            k: None,
            distance_weights: true,
            consensus: BucketConsensus::BPA,
            seed: 0,
            scaling: Scaling::MinMax,
        }
    }
}

impl Params for InstanceBasedPlrParams {
    fn validate(&self) -> Result<()> {
        if self.k == Some(0) {
            return Err(bad_param("k", "must be at least 1"));
        }
        self.consensus.validate()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
}

/// Leave-one-out mean tau_x of a candidate k.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KScore {
    pub k: usize,
    /// NaN when no row could be scored (every ranking holds one label).
    #[serde(with = "crate::numeric::nonfinite_f64")]
    pub tau_x: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceBasedPlrModel {
    pub params: InstanceBasedPlrParams,
    /// The neighbourhood size used for prediction.
    pub k: usize,
    /// Leave-one-out mean tau_x of each candidate k (empty when k was given).
    pub k_scores: Vec<KScore>,
    pub n_features: usize,
    pub n_labels: usize,
    pub fill_values: Vec<f64>,
    /// Subtracted from each feature before dividing by `range`: the training minimum, mean or 0
    /// by the scaling (0 for a nominal feature).
    pub minimum: Vec<f64>,
    /// max - min, the standard deviation or 1 by the scaling (1 for a constant or nominal feature).
    pub range: Vec<f64>,
    /// Normalised training rows, row-major (nominal features keep their codes).
    pub x: Vec<f64>,
    pub y: Vec<i32>,
    pub sample_weight: Vec<f64>,
    pub nominal: Vec<bool>,
    /// The k-d tree over `x`, built on first use (not saved).
    #[serde(skip)]
    index: Index,
}

/// The k-d tree, built once; never compared or saved.
#[derive(Clone, Debug, Default)]
struct Index(OnceLock<KdIndex>);

impl PartialEq for Index {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Learner for InstanceBasedPlrModel {
    type Params = InstanceBasedPlrParams;

    fn fit(params: InstanceBasedPlrParams, data: &TrainingSet<'_>) -> Result<Self> {
        let (x, y) = (&data.x, &data.y);
        let (n, d, m) = (x.n_rows(), x.n_features(), y.n_labels());
        let fill = fill_values(x);
        let nominal: Vec<bool> = (0..d).map(|f| x.kind(f) == FeatureKind::Nominal).collect();
        let (minimum, range) = scale_of(x, &fill, &nominal, params.scaling)?;
        let mut model = InstanceBasedPlrModel {
            k: params.k.unwrap_or(K_CANDIDATES[0]).min(n),
            params,
            k_scores: Vec::new(),
            n_features: d,
            n_labels: m,
            fill_values: fill,
            minimum,
            range,
            x: Vec::with_capacity(n * d),
            y: y.as_slice().to_vec(),
            sample_weight: data.weights.clone(),
            nominal,
            index: Index::default(),
        };
        let mut row = Vec::new();
        for i in 0..n {
            model.normalise_into(x.row(i), &mut row);
            model.x.extend_from_slice(&row);
        }
        model.index();
        if model.params.k.is_none() && n > 1 {
            model.select_k();
        }
        Ok(model)
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn kneighbors(&self, x: Option<&FeatureMatrixView<'_>>, k: Option<usize>) -> Result<Option<NearestRows>> {
        let normalise_into = |row: &[f64], out: &mut Vec<f64>| self.normalise_into(row, out);
        let queries = match x {
            Some(x) => Queries::Rows(x, &normalise_into),
            None => Queries::Training(&self.x),
        };
        k_nearest_rows(self.index(), self.sample_weight.len(), queries, k.unwrap_or(self.k)).map(Some)
    }

    fn params(&self) -> InstanceBasedPlrParams {
        self.params.clone()
    }

    fn predict(&self, x: &FeatureMatrixView<'_>, _outputs: Outputs) -> Result<Prediction> {
        if self.sample_weight.is_empty() {
            return Err(invalid("no training row to take as a neighbour"));
        }
        let m = self.n_labels;
        let ranks = fill_rows(
            x,
            m,
            || (Vec::new(), SearchScratch::default(), PairOrderCounts::new(m)),
            |(query, search, counts), row, dst: &mut [i32]| {
                self.normalise_into(row, query);
                self.index().nearest_into(query, self.k, None, search);
                dst.copy_from_slice(&self.consensus_of(&search.best, counts));
            },
        );
        Ok(Prediction::ranks(ranks))
    }

    fn summary(&self) -> serde_json::Value {
        let k_scores: Vec<_> = self.k_scores.iter().map(|s| serde_json::json!([s.k, s.tau_x])).collect();
        serde_json::json!({"k": self.k, "k_scores": k_scores})
    }

    fn check(&self) -> std::result::Result<(), String> {
        let (d, n, m) = (self.n_features, self.sample_weight.len(), self.n_labels);
        for (len, what) in [
            (self.fill_values.len(), "fill_values"),
            (self.minimum.len(), "minimum"),
            (self.range.len(), "range"),
            (self.nominal.len(), "nominal"),
        ] {
            same_len(len, d, what)?;
        }
        same_len(self.x.len(), n * d, "the training features")?;
        same_len(self.y.len(), n * m, "the training rankings")?;
        if n == 0 || self.k == 0 || self.k > n || m == 0 {
            return Err(format!("k = {} neighbours among {n} training rows, {m} labels", self.k));
        }
        if self.range.iter().any(|&r| !(r > 0.0 && r.is_finite())) || self.minimum.iter().any(|v| !v.is_finite()) {
            return Err("feature ranges must be positive and finite, minima finite".into());
        }
        if self.x.iter().any(|v| !v.is_finite()) || self.sample_weight.iter().any(|&w| !(w >= 0.0 && w.is_finite())) {
            return Err("training features must be finite and sample weights finite and non-negative".into());
        }
        self.y.chunks(m).try_for_each(|r| validate_ranking(r).map_err(|e| format!("a training ranking: {e}")))
    }
}

impl InstanceBasedPlrModel {
    fn index(&self) -> &KdIndex {
        self.index.0.get_or_init(|| KdIndex::build(&self.x, self.n_features, Some(&self.nominal)))
    }

    fn normalise_into(&self, row: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.extend((0..self.n_features).map(|f| (value_or_fill(row[f], self.fill_values[f]) - self.minimum[f]) / self.range[f]));
    }

    fn ranking(&self, row: usize) -> &[i32] {
        &self.y[row * self.n_labels..(row + 1) * self.n_labels]
    }

    /// The consensus of the neighbours `near` (nearest first), weighted as the module says.
    fn consensus_of(&self, near: &[Neighbour], counts: &mut PairOrderCounts) -> Vec<i32> {
        counts.clear();
        let m = self.n_labels as f64;
        let (Some(first), Some(last)) = (near.first(), near.last()) else {
            return vec![1; self.n_labels];
        };
        let (d1, dk) = (first.dist2.sqrt(), last.dist2.sqrt());
        let weight = |nb: &Neighbour| {
            let distance = if self.params.distance_weights && dk > d1 { (dk - nb.dist2.sqrt()) / (dk - d1) } else { 1.0 };
            let r = self.ranking(nb.row as usize);
            distance * (n_present(r) as f64 / m) * self.sample_weight[nb.row as usize]
        };
        let weights: Vec<f64> = near.iter().map(weight).collect();
        let all_zero = weights.iter().all(|&w| w == 0.0);
        for (nb, &w) in near.iter().zip(&weights) {
            counts.add(self.ranking(nb.row as usize), if all_zero { 1.0 } else { w });
        }
        self.params.consensus.of_matrix(&counts.matrix())
    }

    /// Chooses k from the candidates by leave-one-out mean tau_x (ties to the smaller k).
    fn select_k(&mut self) {
        let n = self.sample_weight.len();
        let candidates: Vec<usize> = K_CANDIDATES.iter().copied().filter(|&k| k < n).collect();
        let candidates = if candidates.is_empty() { vec![n - 1] } else { candidates };
        let rows: Vec<usize> = if n <= MAX_SELECTION_ROWS {
            (0..n).collect()
        } else {
            let mut rng = Rng::new(self.params.seed);
            let mut all: Vec<usize> = (0..n).collect();
            for j in 0..MAX_SELECTION_ROWS {
                let r = j + rng.below(n - j);
                all.swap(j, r);
            }
            all.truncate(MAX_SELECTION_ROWS);
            all.sort_unstable();
            all
        };
        let k_max = *candidates.iter().max().expect("non-empty");
        let (d, m) = (self.n_features, self.n_labels);
        let per_row: Vec<Vec<f64>> = rows
            .par_iter()
            .map_init(
                || (SearchScratch::default(), PairOrderCounts::new(m)),
                |(search, counts), &v| {
                    self.index().nearest_into(&self.x[v * d..(v + 1) * d], k_max, Some(v), search);
                    candidates
                        .iter()
                        .map(|&k| tau_x(self.ranking(v), &self.consensus_of(&search.best[..k.min(search.best.len())], counts)))
                        .collect()
                },
            )
            .collect();
        let mut best = (candidates[0], f64::NEG_INFINITY);
        self.k_scores = candidates
            .iter()
            .enumerate()
            .map(|(c, &k)| {
                let taus: Vec<f64> = per_row.iter().map(|r| r[c]).filter(|t| t.is_finite()).collect();
                let mean = if taus.is_empty() { f64::NAN } else { taus.iter().sum::<f64>() / taus.len() as f64 };
                if mean > best.1 {
                    best = (k, mean);
                }
                KScore { k, tau_x: mean }
            })
            .collect();
        self.k = best.0;
    }
}

#[cfg(test)]
mod tests;
