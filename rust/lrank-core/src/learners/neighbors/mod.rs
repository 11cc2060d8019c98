//! IBLR: instance-based label ranking with the Mallows model (Cheng, Hühn & Hüllermeier 2009,
//! the paper's IB-M), and IB-PL with the Plackett-Luce model (Cheng, Dembczyński & Hüllermeier
//! 2010: the neighbours' rankings give Plackett-Luce skills by MM, the prediction sorts them;
//! equal neighbour weights and k = 5 by default; confidence: the predicted ranking's probability).
//!
//! - Attributes are min-max normalised on the training data (a constant attribute becomes 0),
//!   or standardised, or left as they are ([`Scaling`]); missing values are replaced by the
//!   training lower median before.
//! - The k nearest training rows by Euclidean distance (an exact k-d tree search, which returns
//!   what brute force would; equal distances go to the lower row index) vote with Dudani's weight (d_k - d_i)/(d_k - d_1)
//!   (all 1 when d_k = d_1) times |labels in the ranking| / m, times the row's sample weight.
//! - Their rankings are aggregated by the approximate EM of [`crate::consensus::mallows::fit_mallows`]; the
//!   prediction is the centre, and the fitted spread theta is returned as the row's confidence
//!   (infinity when the weighted neighbours agree completely).
//! - k is given, or chosen from {5, 10, 15, 20} as the paper does, by leave-one-out on the
//!   training data (an inner cross-validation with one row per fold; on at most 1000 rows drawn
//!   with the seed when the training set is larger): the k with the highest mean Kendall tau,
//!   ties to the smaller k.

mod params;

pub use params::{
    InstanceBasedParams, KScore, NeighbourWeighting, NeighbourhoodModel, Scaling, K_CANDIDATES, MAX_SELECTION_ROWS,
};

use crate::consensus::mallows::{mallows_centre, mallows_median, ThetaTable};
use crate::consensus::plackett_luce::{fit_plackett_luce, ranking_probability};
use crate::consensus::BordaAccumulator;
use crate::data::features::{fill_values, FeatureKind, FeatureMatrixView};
use crate::data::ranking::{n_present, ranking_from_scores, ranking_from_scores_into, validate_strict_ranking, RankMatrixView};
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::same_len;
use crate::learner::{Header, Learner, Outputs, Params, Prediction};
use crate::metrics::distance::kendall_tau;
use crate::neighbours::{k_nearest_rows, scale_of, value_or_fill, KdIndex, NearestRows, Neighbour, Queries, SearchScratch};
use crate::rng::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceBasedModel {
    pub params: InstanceBasedParams,
    /// The neighbourhood size used for prediction.
    pub k: usize,
    /// Leave-one-out mean Kendall tau of each candidate k (empty when k was given).
    pub k_scores: Vec<KScore>,
    pub n_features: usize,
    pub n_labels: usize,
    pub fill_values: Vec<f64>,
    pub minimum: Vec<f64>,
    /// max - min per attribute (1 for a constant attribute).
    pub range: Vec<f64>,
    /// Normalised training rows, row-major (nominal features keep their codes).
    pub x: Vec<f64>,
    pub y: Vec<i32>,
    pub sample_weight: Vec<f64>,
    /// Features whose values are nominal codes: a mismatch counts 1 in the distance.
    pub nominal: Vec<bool>,
    /// The neighbour index over `x`, built on first use (not saved: rebuilt after loading).
    #[serde(skip)]
    index: Cached<NeighbourIndex>,
    #[serde(skip)]
    theta: Cached<std::sync::Arc<ThetaTable>>,
}

/// The k-d tree over the training rows, and the rows' rankings and sample weights in its order:
/// a neighbourhood's rows then sit in the cache lines the search has just read, where in row
/// order each neighbour's ranking was a cache miss (most of the aggregation's time on
/// calhousing).
#[derive(Clone, Debug)]
struct NeighbourIndex {
    kd: KdIndex,
    /// Rank vectors in tree order (n x m).
    ranks: Vec<i32>,
    /// Sample weights in tree order.
    weights: Vec<f64>,
    /// Every ranking is complete and every sample weight 1 (the common case): a neighbour's
    /// weight then needs neither, and weighting reads no training data at all.
    complete_unit_weight: bool,
}

impl NeighbourIndex {
    fn ranking(&self, nb: &Neighbour, m: usize) -> &[i32] {
        let s = nb.slot as usize;
        &self.ranks[s * m..(s + 1) * m]
    }
}

/// A value derived from the model and built on first use; never compared or saved.
#[derive(Clone, Debug)]
struct Cached<T>(OnceLock<T>);

impl<T> Default for Cached<T> {
    fn default() -> Self {
        Cached(OnceLock::new())
    }
}

impl<T> PartialEq for Cached<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Rows predicted together (see `predict_rows`).
const PREDICT_CHUNK: usize = 64;

/// One thread's buffers while predicting (reused from chunk to chunk).
#[derive(Default)]
struct PredictScratch {
    query: Vec<f64>,
    search: SearchScratch,
    aggregate: AggregateScratch,
    /// The neighbours of the chunk's rows, one row after the other, nearest first.
    neighbours: Vec<Neighbour>,
    /// Where each row's neighbours end in `neighbours`.
    ends: Vec<usize>,
    /// The neighbours' weights, in the same places.
    weights: Vec<f64>,
    /// Per row: are all its neighbours' rankings complete?
    complete: Vec<bool>,
}

/// Buffers of a neighbourhood's aggregation: the neighbours' rankings and weights, and the
/// Borda votes and label order of complete neighbourhoods.
struct AggregateScratch {
    ranks: Vec<i32>,
    weights: Vec<f64>,
    borda: BordaAccumulator,
    labels: Vec<usize>,
}

impl Default for AggregateScratch {
    fn default() -> Self {
        AggregateScratch { ranks: Vec::new(), weights: Vec::new(), borda: BordaAccumulator::new(0), labels: Vec::new() }
    }
}

/// The nearest training rows to a query.
struct Neighbourhood {
    /// Nearest first.
    nearest: Vec<Neighbour>,
}

impl Learner for InstanceBasedModel {
    type Params = InstanceBasedParams;

    fn fit(params: InstanceBasedParams, data: &TrainingSet<'_>) -> Result<Self> {
        data.refuse_ties(params.tie_refusal())?;
        let (x, y, sample_weight) = (&data.x, &data.y, data.weights.clone());
        let (n, d, m) = (x.n_rows(), x.n_features(), y.n_labels());
        let fill = fill_values(x);
        let nominal: Vec<bool> = (0..d).map(|f| x.kind(f) == FeatureKind::Nominal).collect();
        let (minimum, range) = scale_of(x, &fill, &nominal, params.scaling)?;
        let mut model = InstanceBasedModel {
            k: params.k.unwrap_or(K_CANDIDATES[0]).min(n),
            params,
            k_scores: Vec::new(),
            n_features: d,
            n_labels: m,
            x: Vec::with_capacity(n * d),
            y: y.as_slice().to_vec(),
            sample_weight,
            fill_values: fill,
            minimum,
            range,
            nominal,
            index: Cached::default(),
            theta: Cached::default(),
        };
        for i in 0..n {
            let row = model.normalised(x.row(i));
            model.x.extend(row);
        }
        // Built now so that predictions do not pay for it (a loaded model builds it on its
        // first prediction).
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
        k_nearest_rows(&self.index().kd, self.n_train(), queries, k.unwrap_or(self.k)).map(Some)
    }

    fn params(&self) -> InstanceBasedParams {
        self.params.clone()
    }

    /// The neighbourhood model's ranking for each row and, as confidence, IBLR's spread θ or
    /// IB-PL's probability of the predicted ranking.
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
        let (ranks, confidence) = self.predict_rows(x, outputs.confidence)?;
        Ok(Prediction { ranks, confidence: outputs.confidence.then_some(confidence), scores: None })
    }

    fn summary(&self) -> serde_json::Value {
        let k_scores: Vec<_> = self.k_scores.iter().map(|s| serde_json::json!([s.k, s.tau])).collect();
        serde_json::json!({"k": self.k, "k_scores": k_scores})
    }

    fn check(&self) -> std::result::Result<(), String> {
        let (d, n) = (self.n_features, self.sample_weight.len());
        for (len, what) in [
            (self.fill_values.len(), "fill_values"),
            (self.minimum.len(), "minimum"),
            (self.range.len(), "range"),
            (self.nominal.len(), "nominal"),
        ] {
            same_len(len, d, what)?;
        }
        same_len(self.x.len(), n * d, "the training features")?;
        same_len(self.y.len(), n * self.n_labels, "the training rankings")?;
        if n == 0 || self.k == 0 || self.k > n {
            return Err(format!("k = {} neighbours among {n} training rows", self.k));
        }
        if self.n_labels == 0 {
            return Err("no labels".into());
        }
        if self.range.iter().any(|&r| !(r > 0.0 && r.is_finite())) || self.minimum.iter().any(|v| !v.is_finite()) {
            return Err("attribute ranges must be positive and finite, minima finite".into());
        }
        if self.x.iter().any(|v| !v.is_finite()) || self.sample_weight.iter().any(|&w| !(w >= 0.0 && w.is_finite())) {
            return Err("training features must be finite and sample weights finite and non-negative".into());
        }
        self.y.chunks(self.n_labels).try_for_each(|r| validate_strict_ranking(r).map_err(|e| format!("a training ranking: {e}")))
    }
}

impl InstanceBasedModel {
    fn normalised(&self, row: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.n_features);
        self.normalise_into(row, &mut out);
        out
    }

    fn normalise_into(&self, row: &[f64], out: &mut Vec<f64>) {
        let d = self.n_features;
        let columns = row[..d].iter().zip(&self.fill_values[..d]).zip(&self.minimum[..d]).zip(&self.range[..d]);
        out.clear();
        // Zipped slices, not indices: no bounds checks, so the loop is vectorised.
        out.extend(columns.map(|(((&v, &fill), &minimum), &range)| (value_or_fill(v, fill) - minimum) / range));
    }

    fn n_train(&self) -> usize {
        self.sample_weight.len()
    }

    /// The `k` nearest training rows to a normalised query, skipping row `exclude`.
    fn neighbourhood(&self, query: &[f64], k: usize, exclude: Option<usize>) -> Neighbourhood {
        Neighbourhood { nearest: self.index().kd.nearest(query, k, exclude) }
    }

    fn theta_table(&self) -> &ThetaTable {
        self.theta.0.get_or_init(|| ThetaTable::shared(self.n_labels))
    }

    fn index(&self) -> &NeighbourIndex {
        self.index.0.get_or_init(|| {
            let kd = KdIndex::build(&self.x, self.n_features, Some(&self.nominal));
            let m = self.n_labels;
            let ranks = kd.order().iter().flat_map(|&r| &self.y[r as usize * m..(r as usize + 1) * m]).copied().collect();
            let weights = kd.order().iter().map(|&r| self.sample_weight[r as usize]).collect();
            let complete_unit_weight = self.sample_weight.iter().all(|&w| w == 1.0) && self.y.iter().all(|&r| r > 0);
            NeighbourIndex { kd, ranks, weights, complete_unit_weight }
        })
    }

    /// The prediction and confidence of the first `k` rows of a neighbourhood: Mallows centre and
    /// spread, or Plackett-Luce ranking and its probability.
    fn aggregate(&self, hood: &Neighbourhood, k: usize, confidence: bool) -> Result<(Vec<i32>, f64)> {
        let mut centre = vec![0; self.n_labels];
        let confidence = self.aggregate_nearest(&hood.nearest, k, confidence, &mut AggregateScratch::default(), &mut centre)?;
        Ok((centre, confidence))
    }

    /// [`aggregate`](Self::aggregate) of `nearest` (nearest first) into `centre`, with reused
    /// buffers; returns the confidence. Without `confidence` the confidence is NaN (not
    /// computed).
    fn aggregate_nearest(
        &self,
        nearest: &[Neighbour],
        k: usize,
        confidence: bool,
        scratch: &mut AggregateScratch,
        centre: &mut [i32],
    ) -> Result<f64> {
        let near = &nearest[..k.min(nearest.len())];
        let mut weights = std::mem::take(&mut scratch.weights);
        weights.clear();
        let all_complete = self.neighbour_weights(near, &mut weights);
        let confidence = self.aggregate_weighted(near, &weights, all_complete, confidence, scratch, centre);
        scratch.weights = weights;
        confidence
    }

    /// Appends the weight of each of the neighbours `near` (nearest first) to `weights`: Dudani's
    /// times the share of labels its ranking holds times its sample weight, or its sample weight
    /// alone. Returns whether all their rankings are complete.
    fn neighbour_weights(&self, near: &[Neighbour], weights: &mut Vec<f64>) -> bool {
        let m = self.n_labels;
        let index = self.index();
        let mut all_complete = true;
        let Some((first, last)) = near.first().zip(near.last()) else {
            return all_complete;
        };
        let (d1, dk) = (first.dist2.sqrt(), last.dist2.sqrt());
        let dudani = |nb: &Neighbour| if dk > d1 { (dk - nb.dist2.sqrt()) / (dk - d1) } else { 1.0 };
        let from = weights.len();
        if index.complete_unit_weight {
            // Every share of labels is m / m = 1 and every sample weight 1: the weight is Dudani's
            // alone, and neither ranking nor sample weight needs to be read.
            weights.extend(near.iter().map(|nb| match self.params.weighting {
                NeighbourWeighting::Dudani => dudani(nb),
                NeighbourWeighting::Uniform => 1.0,
            }));
        } else {
            for nb in near {
                let present = n_present(index.ranking(nb, m));
                let sample_weight = index.weights[nb.slot as usize];
                all_complete &= present == m;
                weights.push(match self.params.weighting {
                    // The share first: exactly 1 for a complete ranking.
                    NeighbourWeighting::Dudani => dudani(nb) * (present as f64 / m as f64) * sample_weight,
                    NeighbourWeighting::Uniform => sample_weight,
                });
            }
        }
        let weights = &mut weights[from..];
        if weights.iter().all(|&w| w == 0.0) {
            // Only when every weighted neighbour has sample weight 0: fall back to equal weights.
            weights.iter_mut().for_each(|w| *w = 1.0);
        }
        all_complete
    }

    /// The aggregation of the neighbours `near` (nearest first) with their `weights` (from
    /// [`neighbour_weights`](Self::neighbour_weights)) into `centre`; returns the confidence
    /// (NaN without `confidence`).
    fn aggregate_weighted(
        &self,
        near: &[Neighbour],
        weights: &[f64],
        all_complete: bool,
        confidence: bool,
        scratch: &mut AggregateScratch,
        centre: &mut [i32],
    ) -> Result<f64> {
        let m = self.n_labels;
        let index = self.index();
        let AggregateScratch { ranks, borda, labels, .. } = scratch;
        if near.is_empty() {
            return Err(crate::error::invalid("no training row to take as a neighbour"));
        }
        let total_weight: f64 = weights.iter().sum();
        if matches!(self.params.model, NeighbourhoodModel::Mallows)
            && !confidence
            && all_complete
            && total_weight > 0.0
            && total_weight.is_finite()
        {
            // Complete rankings are their own completions, so the EM centre is their weighted
            // Borda ranking: computed here in reused buffers, straight from the training rows
            // (the general EM allocates, which costs more than the votes on small
            // neighbourhoods).
            borda.reset(m);
            for (nb, &w) in near.iter().zip(weights.iter()) {
                borda.add_complete(index.ranking(nb, m), w);
            }
            ranking_from_scores_into(borda.scaled_scores(), labels, centre);
            return Ok(f64::NAN);
        }
        ranks.clear();
        for nb in near {
            ranks.extend_from_slice(index.ranking(nb, m));
        }
        let view = RankMatrixView::from_valid(ranks, near.len(), m);
        match self.params.model {
            NeighbourhoodModel::Mallows if confidence => {
                let fit = mallows_median(&view, Some(weights), self.params.max_iter)?;
                centre.copy_from_slice(&fit.centre);
                // θ is a per-row confidence: the shared table is exact to 1e-8 and far cheaper
                // than a Newton solve per row.
                Ok(self.theta_table().theta(fit.mean_distance))
            }
            NeighbourhoodModel::Mallows => {
                centre.copy_from_slice(&mallows_centre(&view, Some(weights), self.params.max_iter)?.centre);
                Ok(f64::NAN)
            }
            NeighbourhoodModel::PlackettLuce { tol } => {
                let fit = match fit_plackett_luce(&view, Some(weights), self.params.max_iter, tol) {
                    Ok(fit) => fit,
                    // No neighbour ranks two labels: nothing to learn from, keep label order.
                    Err(_) => {
                        centre.iter_mut().zip(1..).for_each(|(c, r)| *c = r);
                        return Ok(0.0);
                    }
                };
                let ranking = ranking_from_scores(&fit.skills);
                let probability = if confidence { ranking_probability(&ranking, &fit.skills) } else { f64::NAN };
                centre.copy_from_slice(&ranking);
                Ok(probability)
            }
        }
    }

    /// Chooses k from the candidates by leave-one-out mean Kendall tau (ties to the smaller k).
    fn select_k(&mut self) {
        let n = self.n_train();
        let candidates: Vec<usize> = K_CANDIDATES.iter().copied().filter(|&k| k < n).collect();
        let candidates = if candidates.is_empty() { vec![n - 1] } else { candidates };
        let rows: Vec<usize> = if n <= MAX_SELECTION_ROWS {
            (0..n).collect()
        } else {
            // A seeded partial Fisher-Yates draw of the validation rows.
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
        let m = self.n_labels;
        let per_row: Vec<Vec<f64>> = rows
            .par_iter()
            .map(|&v| {
                let query = self.x[v * self.n_features..(v + 1) * self.n_features].to_vec();
                let hood = self.neighbourhood(&query, k_max, Some(v));
                let truth = &self.y[v * m..(v + 1) * m];
                candidates
                    .iter()
                    .map(|&k| match self.aggregate(&hood, k, false) {
                        Ok((centre, _)) => kendall_tau(truth, &centre),
                        Err(_) => f64::NAN,
                    })
                    .collect()
            })
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
                KScore { k, tau: mean }
            })
            .collect();
        self.k = best.0;
    }

    /// Predicted rank matrix (n x m) and each row's confidence (IBLR: the neighbourhood's
    /// Mallows spread θ; IB-PL: the predicted ranking's probability), computed only when asked.
    fn predict_rows(&self, x: &FeatureMatrixView<'_>, confidence: bool) -> Result<(Vec<i32>, Vec<f64>)> {
        let (m, k) = (self.n_labels, self.k);
        let index = self.index();
        let mut ranks = vec![0i32; x.n_rows() * m];
        let mut theta = vec![f64::NAN; x.n_rows()];
        // Rows go in chunks: first all the chunk's searches, then its neighbours' weights, then
        // its aggregations. Weighting reads each neighbour's ranking and sample weight, which lie
        // anywhere in the training set; over a chunk these reads do not wait on one another, so
        // their cache misses overlap instead of stalling every row in turn.
        let chunks = ranks.par_chunks_mut(PREDICT_CHUNK * m.max(1)).zip(theta.par_chunks_mut(PREDICT_CHUNK));
        chunks.enumerate().try_for_each_init(PredictScratch::default, |scratch, (c, (ranks, theta))| -> Result<()> {
            crate::interrupt::check()?; // Ctrl-C between chunks of rows
            let PredictScratch { query, search, aggregate, neighbours, ends, weights, complete } = scratch;
            neighbours.clear();
            ends.clear();
            for r in 0..theta.len() {
                self.normalise_into(x.row(c * PREDICT_CHUNK + r), query);
                index.kd.nearest_into(query, k, None, search);
                neighbours.extend_from_slice(&search.best[..k.min(search.best.len())]);
                ends.push(neighbours.len());
            }
            weights.clear();
            complete.clear();
            let mut from = 0;
            for &end in ends.iter() {
                complete.push(self.neighbour_weights(&neighbours[from..end], weights));
                from = end;
            }
            let mut from = 0;
            for (r, (&end, t)) in ends.iter().zip(theta.iter_mut()).enumerate() {
                let (near, w) = (&neighbours[from..end], &weights[from..end]);
                *t = self.aggregate_weighted(near, w, complete[r], confidence, aggregate, &mut ranks[r * m..(r + 1) * m])?;
                from = end;
            }
            Ok(())
        })?;
        Ok((ranks, theta))
    }
}

#[cfg(test)]
mod tests;
