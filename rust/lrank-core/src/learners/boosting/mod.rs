//! BoostLR (Dery & Shmueli 2020): AdaBoost.R2 (Drucker 1997) over label rankers, label ranking
//! trees by default, with the Kendall distance as a row's error.
//!
//! Round t fits a member on the training rows drawn with probabilities w (or, with
//! [`Sampling::Reweight`], on all rows weighted by w), ranks every training row with it and
//! scores row i by d_i, the share of the label pairs its training ranking orders that the member
//! orders the other way. The row's loss is d_i / D, D the round's largest d_i (Drucker's linear
//! loss; squared and exponential are offered too); the round's loss L is the w-weighted mean.
//! A round with L >= 1/2 ends the boosting (it is kept only if it is the first); otherwise
//! β = L / (1 - L), the member's say is `learning_rate * ln(1/β)` and each row's weight is
//! multiplied by β^(learning_rate (1 - loss_i)), so rows the member ranked well lose weight. A
//! member without error ends the boosting with say 1. The prediction is the consensus of the
//! members' rankings weighted by their say (weighted Borda by default).
//!
//! Round t draws from the stream `child_seed(seed, t)` and seeds its member with that stream's
//! next number; rounds are sequential and each member's own fit is deterministic, so the
//! ensemble does not depend on the thread count.

use crate::consensus::Aggregator;
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::RankMatrixView;
use crate::data::training::TrainingSet;
use crate::error::{invalid, Result};
use crate::learner::{bad_param, ensemble_split_importances, Header, Learner, Outputs, Params, Prediction, MEMBER_BLOCK_VALUES};
use crate::limits::check_models;
use crate::metrics::distance::kendall_distance;
use crate::rng::{child_seed, Rng};
use crate::tree::SplitTree;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How a row's Kendall error becomes its loss in [0, 1] (Drucker's three choices).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoostLoss {
    /// d / D.
    Linear,
    /// (d / D)².
    Square,
    /// 1 - exp(-d / D).
    Exponential,
}

/// How a round hands the row weights to its member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sampling {
    /// n rows drawn with replacement with probabilities w, a row drawn c times weighing c
    /// (Drucker's AdaBoost.R2; scikit-learn's AdaBoostRegressor).
    Resample,
    /// Every row, weighted by w scaled to mean 1 (deterministic; the member must use weights).
    Reweight,
}

/// BoostLR over a base learner with parameters `P` (the registry's `LearnerParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
pub struct BoostingParams<P> {
    #[serde(deserialize_with = "crate::numeric::nesting_limited::deserialize")]
    pub base: Box<P>,
    /// Most rounds (fewer when a round has no error or too much).
    pub n_estimators: usize,
    /// Shrinks each member's say and each weight update, in (0, ∞).
    pub learning_rate: f64,
    pub loss: BoostLoss,
    pub sampling: Sampling,
    /// The consensus of the members' weighted rankings.
    pub aggregator: Aggregator,
    pub seed: u64,
}

impl<P> BoostingParams<P> {
    pub fn new(base: P) -> Self {
        BoostingParams {
            base: Box::new(base),
            n_estimators: 50,
            learning_rate: 1.0,
            loss: BoostLoss::Linear,
            sampling: Sampling::Resample,
            aggregator: Aggregator::Borda,
            seed: 0,
        }
    }
}

impl<P: Params> Params for BoostingParams<P> {
    /// Its own parameters, then the base learner's.
    fn validate(&self) -> Result<()> {
        check_models("n_estimators", self.models())?;
        if !(self.learning_rate > 0.0 && self.learning_rate.is_finite()) {
            return Err(bad_param("learning_rate", format!("must be a positive number, got {}", self.learning_rate)));
        }
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
    /// Members times the trees or members of each.
    fn models(&self) -> u64 {
        (self.n_estimators as u64).saturating_mul(self.base.models())
    }
    /// A member's refusal (the members learn from the rows as given), or the consensus's.
    fn tie_refusal(&self) -> Option<&'static str> {
        self.base.tie_refusal().or(self.aggregator.tie_refusal())
    }
}

/// A boosted ensemble: members of type `M` and each member's say in the consensus.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "P: Deserialize<'de>, M: Deserialize<'de>"))]
pub struct BoostingModel<P, M> {
    pub params: BoostingParams<P>,
    pub n_features: usize,
    pub n_labels: usize,
    #[serde(deserialize_with = "crate::numeric::nesting_limited::deserialize")]
    pub members: Vec<M>,
    /// `learning_rate * ln(1/β)` of each member (1 for a member without error).
    pub member_weights: Vec<f64>,
    /// The weighted mean loss of each kept round, for the summary.
    pub round_losses: Vec<f64>,
}

/// Row i's Kendall error: the share of the pairs `truth` orders that `pred` orders otherwise.
fn kendall_errors(truth: &RankMatrixView<'_>, pred: &[i32]) -> Vec<f64> {
    let m = truth.n_labels();
    (0..truth.n_rows())
        .into_par_iter()
        .map(|i| {
            let (discordant, pairs) = kendall_distance(truth.row(i), &pred[i * m..(i + 1) * m]);
            if pairs == 0 {
                0.0
            } else {
                discordant as f64 / pairs as f64
            }
        })
        .collect()
}

/// Counts of n draws with replacement, row i with probability `weights[i]` (which sum to 1).
fn draw_counts(weights: &[f64], rng: &mut Rng) -> Vec<u32> {
    let n = weights.len();
    let mut cumulative = Vec::with_capacity(n);
    let mut total = 0.0;
    for &w in weights {
        total += w;
        cumulative.push(total);
    }
    let mut counts = vec![0u32; n];
    for _ in 0..n {
        let u = rng.uniform() * total;
        // The first row whose cumulative weight exceeds u; zero-weight rows are never drawn.
        let i = cumulative.partition_point(|&c| c <= u).min(n - 1);
        counts[i] += 1;
    }
    counts
}

/// Fits one member on the rows with positive `member_weights` (the others left out). The member
/// weights count draws (or are scaled to mean 1), so a row of the member's set weighs 1.
fn fit_member<P: Params, M: Learner<Params = P>>(data: &TrainingSet<'_>, member_weights: &[f64], params: P) -> Result<M> {
    let (x, y) = (&data.x, &data.y);
    let (d, m) = (x.n_features(), y.n_labels());
    let rows: Vec<usize> = (0..x.n_rows()).filter(|&i| member_weights[i] > 0.0).collect();
    if rows.len() == x.n_rows() {
        return M::fit(params, &TrainingSet::from_checked(*x, *y, member_weights.to_vec()).with_row_weight(1.0));
    }
    let xs: Vec<f64> = rows.iter().flat_map(|&i| x.row(i).iter().copied()).collect();
    let ys: Vec<i32> = rows.iter().flat_map(|&i| y.row(i).iter().copied()).collect();
    let ws: Vec<f64> = rows.iter().map(|&i| member_weights[i]).collect();
    let xv = FeatureMatrixView::new(&xs, rows.len(), d)?.with_kinds(x.kinds())?;
    let yv = RankMatrixView::from_valid(&ys, rows.len(), m);
    M::fit(params, &TrainingSet::from_checked(xv, yv, ws).with_row_weight(1.0))
}

impl<P: Params, M: Learner<Params = P>> Learner for BoostingModel<P, M> {
    type Params = BoostingParams<P>;

    fn fit(params: BoostingParams<P>, data: &TrainingSet<'_>) -> Result<Self> {
        let (d, m) = (data.n_features(), data.n_labels());
        let total: f64 = data.weights.iter().sum();
        let mut weights: Vec<f64> = data.weights.iter().map(|w| w / total).collect();
        let n_positive = weights.iter().filter(|&&w| w > 0.0).count() as f64;
        let lr = params.learning_rate;
        let (mut members, mut member_weights, mut round_losses) = (Vec::new(), Vec::new(), Vec::new());
        for t in 0..params.n_estimators {
            crate::interrupt::check()?;
            let mut rng = Rng::new(child_seed(params.seed, t as u64));
            let fit_weights: Vec<f64> = match params.sampling {
                Sampling::Resample => {
                    let counts = draw_counts(&weights, &mut rng);
                    // A drawn row keeps its user weight's share: w already holds it.
                    counts.iter().map(|&c| c as f64).collect()
                }
                Sampling::Reweight => weights.iter().map(|w| w * n_positive).collect(),
            };
            let mut member_params = (*params.base).clone();
            member_params.set_seed(rng.next_u64());
            let member: M = fit_member(data, &fit_weights, member_params)?;
            let predicted = member.predict(&data.x, Outputs::RANKS)?.ranks;
            let errors = kendall_errors(&data.y, &predicted);
            let largest = errors.iter().zip(&weights).filter(|(_, &w)| w > 0.0).map(|(&e, _)| e).fold(0.0, f64::max);
            if largest <= 0.0 {
                members.push(member);
                member_weights.push(1.0);
                round_losses.push(0.0);
                break;
            }
            let losses: Vec<f64> = errors
                .iter()
                .map(|&e| {
                    let r = e / largest;
                    match params.loss {
                        BoostLoss::Linear => r,
                        BoostLoss::Square => r * r,
                        BoostLoss::Exponential => 1.0 - (-r).exp(),
                    }
                })
                .collect();
            let round_loss: f64 = losses.iter().zip(&weights).map(|(l, w)| l * w).sum();
            if round_loss >= 0.5 || round_loss <= 0.0 {
                if members.is_empty() {
                    // The only member there is: it predicts alone.
                    members.push(member);
                    member_weights.push(1.0);
                    round_losses.push(round_loss);
                }
                break;
            }
            let beta = round_loss / (1.0 - round_loss);
            members.push(member);
            member_weights.push(lr * (1.0 / beta).ln());
            round_losses.push(round_loss);
            for (w, l) in weights.iter_mut().zip(&losses) {
                *w *= beta.powf(lr * (1.0 - l));
            }
            let sum: f64 = weights.iter().sum();
            if !(sum > 0.0 && sum.is_finite()) {
                break;
            }
            weights.iter_mut().for_each(|w| *w /= sum);
        }
        debug_assert_eq!(members.len(), member_weights.len());
        Ok(BoostingModel { params, n_features: d, n_labels: m, members, member_weights, round_losses })
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> BoostingParams<P> {
        self.params.clone()
    }

    /// The consensus of the members' rankings, weighted by their say, for every row.
    fn predict(&self, x: &FeatureMatrixView<'_>, _outputs: Outputs) -> Result<Prediction> {
        let (n, m, b) = (x.n_rows(), self.n_labels, self.members.len());
        let mut out = vec![0i32; n * m];
        if m == 0 {
            return Ok(Prediction::ranks(out));
        }
        // Rows in blocks, as bagging predicts: every member's rankings of all rows at once took
        // members x rows x labels numbers (4 GB for 100 members, a million rows, 10 labels).
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

    /// The members' trees, member after member (GBLR members' too).
    fn routed_trees(&self) -> Vec<SplitTree<'_>> {
        self.members.iter().flat_map(|m| m.routed_trees()).collect()
    }

    /// The members' leaf rankings in their trees' order, when every member's leaves hold them.
    fn leaf_rankings(&self) -> Vec<Vec<Vec<i32>>> {
        crate::learner::members_leaf_rankings(&self.members)
    }

    fn split_trees(&self) -> Vec<SplitTree<'_>> {
        // A member's splits count by its vote, as in scikit-learn's AdaBoost.
        self.members
            .iter()
            .zip(&self.member_weights)
            .flat_map(|(m, &w)| m.split_trees().into_iter().map(move |t| SplitTree { weight: t.weight * w, ..t }))
            .collect()
    }

    /// The members' trees by their votes, or for members that measure their splits otherwise
    /// (GBLR's gains) their shares by their votes.
    fn split_importances(&self, x: &FeatureMatrixView<'_>, y: &RankMatrixView<'_>, weights: &[f64]) -> Result<Option<Vec<f64>>> {
        ensemble_split_importances(
            self.split_trees(),
            self.members.iter().zip(self.member_weights.iter().copied()),
            x,
            y,
            weights,
        )
    }

    fn has_split_importances(&self) -> bool {
        !self.members.is_empty() && self.members.iter().all(|m| m.has_split_importances())
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "n_members": self.members.len(),
            "member_weights": self.member_weights,
            "round_losses": self.round_losses,
        })
    }

    fn check(&self) -> std::result::Result<(), String> {
        if self.members.is_empty() {
            return Err("the ensemble has no members".into());
        }
        if self.member_weights.len() != self.members.len() || self.round_losses.len() != self.members.len() {
            return Err("the ensemble has not one weight and one loss per member".into());
        }
        if self.member_weights.iter().any(|w| !(w.is_finite() && *w > 0.0)) {
            return Err("a member's weight is not a positive number".into());
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

impl<P: Params, M: Learner<Params = P>> BoostingModel<P, M> {
    /// The consensus rankings of the rows of `x` into `out` (n x m), by the members' votes.
    fn consensus_of_block(&self, x: &FeatureMatrixView<'_>, out: &mut [i32]) -> Result<()> {
        let per_member = self.member_rankings(x)?;
        let (n, m, b) = (x.n_rows(), self.n_labels, self.members.len());
        out.par_chunks_mut(m).enumerate().try_for_each_init(
            || vec![0i32; b * m],
            |rows, (i, dst)| -> Result<()> {
                for k in 0..b {
                    rows[k * m..(k + 1) * m].copy_from_slice(&per_member[(k * n + i) * m..(k * n + i + 1) * m]);
                }
                let view = RankMatrixView::from_valid(rows, b, m);
                dst.copy_from_slice(&self.params.aggregator.aggregate(&view, Some(&self.member_weights))?);
                Ok(())
            },
        )
    }

    /// Each member's rank matrix (members x n x m, row-major).
    /// The prediction after each round (rows x rounds x labels): round k's is the consensus of
    /// the first k members by their votes, which a fit stopped after k rounds predicts.
    pub fn staged_ranks(&self, x: &FeatureMatrixView<'_>) -> Result<Vec<i32>> {
        let per_member = self.member_rankings(x)?;
        let (n, m, b) = (x.n_rows(), self.n_labels, self.members.len());
        let mut out: Vec<i32> = crate::memory::zeroed("each round's predictions", &[n, b, m])?;
        if m == 0 {
            return Ok(out);
        }
        out.par_chunks_mut(b * m).enumerate().try_for_each_init(
            || vec![0i32; b * m],
            |rows, (i, dst)| -> Result<()> {
                for k in 0..b {
                    rows[k * m..(k + 1) * m].copy_from_slice(&per_member[(k * n + i) * m..(k * n + i + 1) * m]);
                }
                for (k, stage) in dst.chunks_exact_mut(m).enumerate() {
                    let view = RankMatrixView::from_valid(&rows[..(k + 1) * m], k + 1, m);
                    stage.copy_from_slice(&self.params.aggregator.aggregate(&view, Some(&self.member_weights[..=k]))?);
                }
                Ok(())
            },
        )?;
        Ok(out)
    }

    fn member_rankings(&self, x: &FeatureMatrixView<'_>) -> Result<Vec<i32>> {
        if self.members.is_empty() {
            return Err(invalid("the ensemble has no members"));
        }
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
