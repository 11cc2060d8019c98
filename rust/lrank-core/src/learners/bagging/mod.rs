//! Bagging (Breiman 1996) of any lrank learner, as Aledo, Gámez & Molina bag label ranking
//! trees: `n_estimators` members, each fitted on a bootstrap sample of the training rows (drawn
//! with replacement, `max_samples` times n of them; a row drawn c times weighs c times its
//! sample weight), and a prediction that is the consensus of the members' rankings by one of
//! the core's aggregators (Borda by default).
//!
//! Member b draws its sample from the stream `child_seed(seed, b)` and is fitted with the
//! base learner's parameters and that stream's next number as its seed; members are fitted in
//! parallel and kept in order, so the ensemble does not depend on the thread count.

use crate::consensus::{Aggregator, BordaAccumulator};
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::RankMatrixView;
use crate::data::training::TrainingSet;
use crate::error::{invalid, LrankError, Result};
use crate::learner::{
    bad_param, ensemble_split_importances, trees_to_add, Header, Learner, Outputs, Params, Prediction, MEMBER_BLOCK_VALUES,
};
use crate::limits::check_models;
use crate::rng::{child_seed, Rng};
use crate::tree::SplitTree;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Bagging of a base learner with parameters `P` (the registry's `LearnerParams`: any learner).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
pub struct BaggingParams<P> {
    #[serde(deserialize_with = "crate::numeric::nesting_limited::deserialize")]
    pub base: Box<P>,
    pub n_estimators: usize,
    pub aggregator: Aggregator,
    /// Bootstrap sample size as a share of the training rows, in (0, 1].
    pub max_samples: f64,
    pub seed: u64,
}

impl<P> BaggingParams<P> {
    pub fn new(base: P) -> Self {
        BaggingParams { base: Box::new(base), n_estimators: 50, aggregator: Aggregator::Borda, max_samples: 1.0, seed: 0 }
    }
}

impl<P: Params> Params for BaggingParams<P> {
    /// Its own parameters, then the base learner's.
    fn validate(&self) -> Result<()> {
        check_models("n_estimators", self.models())?;
        if !(self.max_samples > 0.0 && self.max_samples <= 1.0) {
            return Err(bad_param("max_samples", format!("must lie in (0, 1], got {}", self.max_samples)));
        }
        self.aggregator.validate()?;
        self.base.validate()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
    fn weights_scale_free(&self) -> bool {
        self.base.weights_scale_free()
    }
    /// Members times the trees or members of each (a bagged forest holds them all).
    fn models(&self) -> u64 {
        (self.n_estimators as u64).saturating_mul(self.base.models())
    }
    /// A member's refusal (the members learn from the rows as given), or the consensus's: members
    /// that learn from ties predict them, and the members' predictions are what it combines.
    fn tie_refusal(&self) -> Option<&'static str> {
        self.base.tie_refusal().or(self.aggregator.tie_refusal())
    }
}

/// A bagged ensemble: members of type `M` fitted with parameters `P`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "P: Deserialize<'de>, M: Deserialize<'de>"))]
pub struct BaggingModel<P, M> {
    pub params: BaggingParams<P>,
    pub n_features: usize,
    pub n_labels: usize,
    #[serde(deserialize_with = "crate::numeric::nesting_limited::deserialize")]
    pub members: Vec<M>,
}

impl<P: Params, M: Learner<Params = P>> Learner for BaggingModel<P, M> {
    type Params = BaggingParams<P>;

    fn fit(params: BaggingParams<P>, data: &TrainingSet<'_>) -> Result<Self> {
        let members = Self::fit_members(&params, data, 0)?;
        let (n_features, n_labels) = (data.x.n_features(), data.y.n_labels());
        Ok(BaggingModel { params, n_features, n_labels, members })
    }

    /// Members `n..n_estimators` fitted and added (each member's sample and seed depend on its
    /// index alone, so the ensemble is the one a fit with `n_estimators` members gives).
    fn add_trees(mut self, n_estimators: usize, data: &TrainingSet<'_>) -> Result<Self> {
        if !trees_to_add(self.members.len(), n_estimators)? {
            return Ok(self);
        }
        let params = BaggingParams { n_estimators, ..self.params.clone() };
        params.validate()?;
        if (data.x.n_features(), data.y.n_labels()) != (self.n_features, self.n_labels) {
            return Err(invalid("members can only be added on the training data the ensemble was fitted on (warm_start)"));
        }
        let more = Self::fit_members(&params, data, self.members.len())?;
        self.members.extend(more);
        self.params.n_estimators = n_estimators;
        Ok(self)
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> BaggingParams<P> {
        self.params.clone()
    }

    /// The consensus of the members' rankings for every row, a block of rows at a time: the
    /// members' rankings of all rows at once would take members x n x m values.
    fn predict(&self, x: &FeatureMatrixView<'_>, _outputs: Outputs) -> Result<Prediction> {
        let (n, m, b) = (x.n_rows(), self.n_labels, self.members.len());
        let mut out = vec![0i32; n * m];
        if m == 0 {
            return Ok(Prediction::ranks(out));
        }
        let block = (MEMBER_BLOCK_VALUES / (b * m).max(1)).max(1);
        for (k, dst) in out.chunks_mut(block * m).enumerate() {
            let rows = k * block..(k * block + dst.len() / m);
            self.consensus_of_block(&x.rows(rows), dst)?;
        }
        Ok(Prediction::ranks(out))
    }

    fn member_ranks(&self, x: &FeatureMatrixView<'_>) -> Result<Option<Vec<i32>>> {
        Ok(Some(self.member_rankings(x)?))
    }

    /// The consensus of the rankings of the members whose bootstrap sample did not draw each
    /// row (by the draws alone: a drawn row of weight 0 counts as drawn, as in the forests).
    fn out_of_bag(&self, data: &TrainingSet<'_>) -> Result<Option<Vec<i32>>> {
        let x = &data.x;
        let (n, m, b) = (x.n_rows(), self.n_labels, self.members.len());
        let mut in_bag: Vec<bool> = crate::memory::zeroed("the members' bootstrap samples", &[b, n])?;
        if n > 0 {
            in_bag.par_chunks_mut(n).enumerate().for_each(|(k, bag)| {
                bag.iter_mut().zip(bootstrap_counts(&self.params, k, &data.weights).0).for_each(|(a, c)| *a = c > 0);
            });
        }
        let mut out = vec![0i32; n * m];
        if m == 0 {
            return Ok(Some(out));
        }
        let block = (MEMBER_BLOCK_VALUES / (b * m).max(1)).max(1);
        for (j, dst) in out.chunks_mut(block * m).enumerate() {
            let start = j * block;
            let x_block = x.rows(start..start + dst.len() / m);
            let per_member = self.member_rankings(&x_block)?;
            let rows_in_block = x_block.n_rows();
            dst.par_chunks_mut(m).enumerate().try_for_each_init(Vec::new, |rows, (i, dst)| -> Result<()> {
                rows.clear();
                for k in (0..b).filter(|&k| !in_bag[k * n + start + i]) {
                    rows.extend_from_slice(&per_member[(k * rows_in_block + i) * m..(k * rows_in_block + i + 1) * m]);
                }
                if !rows.is_empty() {
                    dst.copy_from_slice(&self.consensus(rows, m)?);
                }
                Ok(())
            })?;
        }
        Ok(Some(out))
    }

    /// The members' trees, member after member (GBLR members' too).
    fn routed_trees(&self) -> Vec<SplitTree<'_>> {
        self.members.iter().flat_map(|m| m.routed_trees()).collect()
    }

    /// The members' leaf rankings in their trees' order, when every member's leaves hold them.
    fn leaf_rankings(&self) -> Vec<Vec<Vec<i32>>> {
        crate::learner::members_leaf_rankings(&self.members)
    }

    fn split_trees(&self) -> Vec<SplitTree<'_>> {
        self.members.iter().flat_map(|m| m.split_trees()).collect()
    }
    /// The members' trees together, or for members that measure their splits otherwise (GBLR's
    /// gains) the mean of their shares.
    fn split_importances(&self, x: &FeatureMatrixView<'_>, y: &RankMatrixView<'_>, weights: &[f64]) -> Result<Option<Vec<f64>>> {
        ensemble_split_importances(self.split_trees(), self.members.iter().map(|m| (m, 1.0)), x, y, weights)
    }

    fn has_split_importances(&self) -> bool {
        !self.members.is_empty() && self.members.iter().all(|m| m.has_split_importances())
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({"n_members": self.members.len()})
    }

    fn check(&self) -> std::result::Result<(), String> {
        if self.members.is_empty() {
            return Err("the ensemble has no members".into());
        }
        for member in &self.members {
            if member.header() != self.header() {
                return Err("a member has other labels or features than the ensemble".into());
            }
            member.check()?;
        }
        Ok(())
    }
}

/// How often member `b` draws each of the rows (`max_samples` x n draws with replacement from
/// its stream), and the stream after the draws (the member's seed comes next). A sample without
/// a row of positive weight is drawn again from the same stream (a few rows carrying all the
/// weight: the member would have nothing to learn from), up to [`MAX_REDRAWS`] times.
fn bootstrap_counts<P>(params: &BaggingParams<P>, b: usize, weights: &[f64]) -> (Vec<u32>, Rng) {
    let n = weights.len();
    let draws = ((params.max_samples * n as f64).round() as usize).max(1);
    let mut rng = Rng::new(child_seed(params.seed, b as u64));
    let mut counts = vec![0u32; n];
    if n > 0 {
        for _ in 0..MAX_REDRAWS {
            counts.iter_mut().for_each(|c| *c = 0);
            for _ in 0..draws {
                counts[rng.below(n)] += 1;
            }
            if counts.iter().zip(weights).any(|(&c, &w)| c > 0 && w > 0.0) {
                break;
            }
        }
    }
    (counts, rng)
}

/// Bootstrap samples drawn at most per member before a sample without a row of positive weight
/// is refused (one such row among 150: a sample misses it with probability about 0.37).
const MAX_REDRAWS: usize = 1000;

impl<P: Params, M: Learner<Params = P>> BaggingModel<P, M> {
    /// Members `first..n_estimators`, in parallel, in order.
    fn fit_members(params: &BaggingParams<P>, data: &TrainingSet<'_>, first: usize) -> Result<Vec<M>> {
        let (x, y, weights) = (&data.x, &data.y, &data.weights);
        let (n, d, m) = (x.n_rows(), x.n_features(), y.n_labels());
        (first.min(params.n_estimators)..params.n_estimators)
            .into_par_iter()
            .map(|b| {
                crate::interrupt::check()?;
                let (counts, mut rng) = bootstrap_counts(params, b, weights);
                let rows: Vec<usize> = (0..n).filter(|&i| counts[i] > 0 && weights[i] > 0.0).collect();
                if rows.is_empty() {
                    return Err(invalid("a bootstrap sample holds no row with positive weight"));
                }
                let xs: Vec<f64> = rows.iter().flat_map(|&i| x.row(i).iter().copied()).collect();
                let ys: Vec<i32> = rows.iter().flat_map(|&i| y.row(i).iter().copied()).collect();
                let ws: Vec<f64> = rows.iter().map(|&i| counts[i] as f64 * weights[i]).collect();
                let xv = FeatureMatrixView::new(&xs, rows.len(), d)?.with_kinds(x.kinds())?;
                let yv = RankMatrixView::from_valid(&ys, rows.len(), m);
                let mut member_params = (*params.base).clone();
                member_params.set_seed(rng.next_u64());
                // A ranking the member refuses is named by its row in the ensemble's data.
                M::fit(member_params, &TrainingSet::from_checked(xv, yv, ws).with_row_weight(data.row_weight)).map_err(
                    |e| match e {
                        LrankError::InvalidRanking { row, reason } => LrankError::InvalidRanking { row: rows[row], reason },
                        other => other,
                    },
                )
            })
            .collect::<Result<Vec<M>>>()
    }

    /// The consensus rankings of the rows of `x` into `out` (n x m).
    fn consensus_of_block(&self, x: &FeatureMatrixView<'_>, out: &mut [i32]) -> Result<()> {
        let per_member = self.member_rankings(x)?;
        let (n, m, b) = (x.n_rows(), self.n_labels, self.members.len());
        out.par_chunks_mut(m).enumerate().try_for_each_init(
            || vec![0i32; b * m],
            |rows, (i, dst)| -> Result<()> {
                for k in 0..b {
                    rows[k * m..(k + 1) * m].copy_from_slice(&per_member[(k * n + i) * m..(k * n + i + 1) * m]);
                }
                dst.copy_from_slice(&self.consensus(rows, m)?);
                Ok(())
            },
        )
    }

    /// The consensus of members' rankings of one row (`rows`: one ranking of `m` labels after
    /// another).
    fn consensus(&self, rows: &[i32], m: usize) -> Result<Vec<i32>> {
        let view = RankMatrixView::from_valid(rows, rows.len() / m, m);
        Ok(match self.params.aggregator {
            // The common case, without the general dispatch's allocations.
            Aggregator::Borda => {
                let mut acc = BordaAccumulator::new(m);
                view.rows().for_each(|r| acc.add(r, 1.0));
                acc.ranking()
            }
            other => other.aggregate(&view, None)?,
        })
    }

    /// Each member's rank matrix (members x n x m, row-major); refused when it would not fit in
    /// memory.
    fn member_rankings(&self, x: &FeatureMatrixView<'_>) -> Result<Vec<i32>> {
        let len = crate::memory::check::<i32>("each member's rankings", &[self.members.len(), x.n_rows(), self.n_labels])?;
        let mut out = Vec::with_capacity(len);
        for member in &self.members {
            // Ctrl-C between members (a member's own predict may not look).
            crate::interrupt::check()?;
            out.extend(member.predict(x, Outputs::RANKS)?.ranks);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
