//! GBLR, gradient-boosted label ranking: one score per label, the ranking predicted by sorting
//! the scores (higher first). The scores start from the best constant scores for the loss and
//! grow by boosting: each round fits one multi-output regression tree by Newton steps to the
//! per-label gradients and Hessian diagonals of a ranking loss ([`loss`]: Plackett-Luce negative
//! log-likelihood, which uses incomplete and top-k rankings as they stand, or a pairwise logistic
//! loss over the label pairs a ranking orders), and adds its leaf values times the learning rate
//! ([`newton`]: leaf value -G/(H + λ), split gain the sum over labels of G²/(H + λ)).
//! With `per_label_trees`, each round instead fits one single-output tree per label to that
//! label's derivatives (as multiclass boosting does): m times the trees, each free to split on
//! what matters to its label.
//!
//! - Trees grow in the one tree engine, with its histogram search (at most `max_bins` bins per
//!   feature, binned once per fit) or exact search (`max_bins = None`).
//! - Row subsampling (`subsample`: each round's tree sees that share of the training rows, drawn
//!   without replacement) and feature subsampling per node (`max_features`).
//! - Early stopping: a share `validation_fraction` of the rows (drawn by the seed) is held out;
//!   boosting stops when the held-out loss has not improved (by a relative 1e-7) for
//!   `n_iter_no_change` rounds, and the model keeps the rounds up to its best. `Auto` holds out
//!   only for 10,000 rows or more (as scikit-learn's histogram boosting).
//! - Ties: the pairwise loss skips tied pairs (a bucket order is used as it stands); the
//!   Plackett-Luce loss has no ties and refuses tied training rankings.
//! - Deterministic for a seed at any thread count: gradients are per row, each round's tree is
//!   grown from its own stream `child_seed(seed, round)`.

mod importance;
pub use crate::ranking_loss as loss;
mod newton;
mod staged;
#[cfg(test)]
mod tests;
pub mod tune;

use crate::data::features::{FeatureMatrixView, Filled};
use crate::data::ranking::{ranking_from_scores_into, RankMatrixView};
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::same_len;
use crate::learner::{bad_param, fill_row_blocks, Header, Learner, Outputs, Params, Prediction};
use crate::limits::check_models;
use crate::rng::{child_seed, Rng};
use crate::tree::{
    check_max_bins, BlockRows, FlatTrees, GrowParams, Growth, MaxFeatures, ScoreLeaf, ThresholdRule, TrainingFeatures, Tree,
    MAX_BINS,
};
use loss::{RankOrders, RankingLoss, RowScratch};
use newton::{Gradients, LeafValues, NewtonCriterion, NewtonLeaves};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tune::TuningScore;

/// Whether a validation share is held out for early stopping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EarlyStopping {
    /// Held out for 10,000 training rows or more.
    Auto,
    On,
    Off,
}

/// Training rows from which `Auto` holds out a validation share.
pub const AUTO_EARLY_STOPPING_ROWS: usize = 10_000;
/// Newton steps from zero for the initial constant scores.
const INIT_STEPS: usize = 20;
/// Mixed into the seed for the validation split and the row subsamples.
const SALT: u64 = 0x6B1A_5EED_0F6B_1A57;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradientBoostingParams {
    pub loss: RankingLoss,
    /// Most boosting rounds (trees).
    pub n_estimators: usize,
    pub learning_rate: f64,
    /// Maximum splits on a root-to-leaf path; `None`: unlimited.
    pub max_depth: Option<usize>,
    /// Least total sample weight on each side of a split.
    pub min_samples_leaf: f64,
    /// L2 penalty λ on leaf values.
    pub l2_regularization: f64,
    /// Share of the training rows each round's tree sees, in (0, 1].
    pub subsample: f64,
    pub max_features: MaxFeatures,
    /// Histogram split search with at most this many bins per feature (2 to 255); `None`: exact.
    pub max_bins: Option<usize>,
    pub early_stopping: EarlyStopping,
    /// Share of the rows held out for early stopping, in (0, 1).
    pub validation_fraction: f64,
    /// Rounds without improvement of the held-out loss before stopping.
    pub n_iter_no_change: usize,
    /// Choose `max_depth`, `learning_rate` and the rounds by inner cross-validation ([`tune`]).
    #[serde(default)]
    pub tune: bool,
    pub seed: u64,
    /// One tree per label per round (each fitted to its label's derivatives) instead of one
    /// multi-output tree per round.
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_8")]
    pub per_label_trees: bool,
}

impl Default for GradientBoostingParams {
    fn default() -> Self {
        GradientBoostingParams {
            loss: RankingLoss::PlackettLuce,
            n_estimators: 100,
            learning_rate: 0.1,
            max_depth: Some(6),
            min_samples_leaf: 20.0,
            l2_regularization: 1.0,
            subsample: 1.0,
            max_features: MaxFeatures::All,
            max_bins: Some(MAX_BINS),
            early_stopping: EarlyStopping::Auto,
            validation_fraction: 0.1,
            n_iter_no_change: 10,
            tune: false,
            seed: 0,
            per_label_trees: false,
        }
    }
}

impl GradientBoostingParams {
    /// Trees per boosting round for `m` labels: one per label, or one for all labels.
    pub fn trees_per_round(&self, m: usize) -> usize {
        if self.per_label_trees {
            m.max(1)
        } else {
            1
        }
    }
}

impl Params for GradientBoostingParams {
    fn validate(&self) -> Result<()> {
        check_models("n_estimators", self.models())?;
        if !(self.learning_rate > 0.0 && self.learning_rate.is_finite()) {
            return Err(bad_param("learning_rate", "must be a finite number > 0"));
        }
        if !(self.min_samples_leaf >= 0.0 && self.min_samples_leaf.is_finite()) {
            return Err(bad_param("min_samples_leaf", "must be >= 0"));
        }
        if !(self.l2_regularization >= 0.0 && self.l2_regularization.is_finite()) {
            return Err(bad_param("l2_regularization", "must be >= 0"));
        }
        if !(self.subsample > 0.0 && self.subsample <= 1.0) {
            return Err(bad_param("subsample", "must be in (0, 1]"));
        }
        if !(self.validation_fraction > 0.0 && self.validation_fraction < 1.0) {
            return Err(bad_param("validation_fraction", "must be in (0, 1)"));
        }
        if self.n_iter_no_change == 0 {
            return Err(bad_param("n_iter_no_change", "must be at least 1"));
        }
        check_max_bins(self.max_bins)?;
        self.max_features.validate()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
    fn weights_scale_free(&self) -> bool {
        false // the L2 penalty on leaf values weighs against the weighted gradients
    }
    fn models(&self) -> u64 {
        self.n_estimators as u64
    }
    fn tie_refusal(&self) -> Option<&'static str> {
        (self.loss == RankingLoss::PlackettLuce)
            .then_some("GBLR's Plackett-Luce loss needs strict rankings; its pairwise loss learns from ties")
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradientBoostingModel {
    pub params: GradientBoostingParams,
    pub n_features: usize,
    pub n_labels: usize,
    pub fill_values: Vec<f64>,
    /// The constant scores boosting starts from.
    pub init_scores: Vec<f64>,
    /// One tree per kept round, or with `per_label_trees` one per label per round (tree t for
    /// label t mod m, leaves of one value); leaves hold score increments (the learning rate
    /// applied).
    pub trees: Vec<Tree<ScoreLeaf>>,
    /// Mean training loss after each round (over the rows the rounds were fitted on).
    pub train_loss: Vec<f64>,
    /// Mean held-out loss after each round (empty without early stopping).
    pub validation_loss: Vec<f64>,
    /// Tuned mode: every candidate's inner cross-validation score (empty otherwise).
    #[serde(default)]
    pub tuning: Vec<TuningScore>,
    /// The trees laid out for prediction (made on the first, kept).
    #[serde(skip)]
    pub flat: FlatTrees,
}

impl Learner for GradientBoostingModel {
    type Params = GradientBoostingParams;

    fn fit(params: GradientBoostingParams, data: &TrainingSet<'_>) -> Result<Self> {
        // Before tuning: its inner folds would name a row of a fold.
        data.refuse_ties(params.tie_refusal())?;
        if params.tune {
            // The model keeps the parameters asked for (tune on) and reports what was chosen.
            let (chosen, tuning) = tune::tune(data, &params)?;
            let model = Self::fit(chosen, data)?;
            return Ok(GradientBoostingModel { params, tuning, ..model });
        }
        let (x, y) = (&data.x, &data.y);
        let (n, m) = (y.n_rows(), y.n_labels());
        let filled = Filled::new(x);
        let xv = filled.view(x);
        let features = match params.max_bins {
            Some(b) => TrainingFeatures::new(&xv).with_bins(b),
            None => TrainingFeatures::new(&xv),
        };
        let (train_rows, valid_rows) = split_rows(n, &data.weights, &params);
        let orders = RankOrders::new(y);
        let init_scores = constant_scores(params.loss, y, &orders, &data.weights, &train_rows, params.l2_regularization);
        let mut scores: Vec<f64> = (0..n).flat_map(|_| init_scores.iter().copied()).collect();
        // Each row's gradients, then its Hessian diagonals (2m numbers per row).
        let mut gh = vec![0.0; n * 2 * m];
        // min_samples_leaf counts rows of the training set's average weight, so the trees do not
        // depend on the scale of the weights (exactly min_samples_leaf with unit weights).
        let min_leaf = params.min_samples_leaf * data.row_weight;
        let grow = GrowParams {
            max_depth: params.max_depth,
            max_features: params.max_features.resolve(x.n_features()),
            min_weight_split: 2.0 * min_leaf,
            threshold_rule: ThresholdRule::Best,
        };
        let mut trees = Vec::new();
        let (mut train_loss, mut validation_loss) = (Vec::new(), Vec::new());
        let (mut best, mut best_round, mut since_best) = (f64::INFINITY, 0usize, 0usize);
        let mut sampler = Rng::new(child_seed(params.seed ^ SALT, 1));
        let mut row_loss = vec![0.0; n];
        let (mut grown_on, leaf_values) = (vec![false; n], LeafValues::new(n * m));
        // Round r's pass gives the derivatives for tree r and every row's loss after tree r - 1
        // (the same scores): one pass over the rows per round. The pass after the last tree
        // gives only the losses.
        for round in 0..=params.n_estimators {
            crate::interrupt::check()?;
            derivatives_and_losses(params.loss, y, &orders, &scores, &mut gh, &mut row_loss);
            if round > 0 {
                train_loss.push(mean_loss(&row_loss, &data.weights, &train_rows));
                if !valid_rows.is_empty() {
                    let loss = mean_loss(&row_loss, &data.weights, &valid_rows);
                    validation_loss.push(loss);
                    if round == 1 || best - loss > 1e-7 * best.abs() {
                        (best, best_round, since_best) = (loss, round, 0);
                    } else {
                        since_best += 1;
                        if since_best >= params.n_iter_no_change {
                            break;
                        }
                    }
                }
            }
            if round == params.n_estimators {
                break;
            }
            let rows = subsample(&train_rows, params.subsample, &mut sampler);
            let row_weights: Vec<f64> = rows.iter().map(|&i| data.weights[i as usize]).collect();
            grown_on.iter_mut().for_each(|g| *g = false);
            rows.iter().for_each(|&i| grown_on[i as usize] = true);
            let seed = child_seed(params.seed, round as u64);
            let grow_tree = |grads: Gradients<'_>, seed: u64, offset: usize| {
                let min_curvature = newton::min_curvature(data.row_weight, params.l2_regularization);
                let criterion = NewtonCriterion { grads, l2: params.l2_regularization, min_leaf, min_curvature };
                let leaves = NewtonLeaves {
                    grads,
                    l2: params.l2_regularization,
                    learning_rate: params.learning_rate,
                    min_curvature,
                    record: &leaf_values,
                    offset,
                };
                Growth::SingleTree { seed }
                    .grow_additive(&features, &rows, &row_weights, &criterion, &leaves, &grow)
                    .pop()
                    .expect("one tree")
            };
            if params.per_label_trees {
                // Label j's derivatives gathered into their own columns; the labels' trees grow
                // side by side, each from its own stream.
                let label_trees: Vec<Tree<ScoreLeaf>> = (0..m)
                    .into_par_iter()
                    .map(|j| {
                        let mut ghj = Vec::with_capacity(2 * n);
                        ghj.extend(gh.chunks_exact(2 * m).flat_map(|row| [row[j], row[m + j]]));
                        grow_tree(Gradients { gh: &ghj, m: 1 }, child_seed(seed, j as u64), j * n)
                    })
                    .collect();
                let added = AddedTrees { trees: &label_trees, per_label: true, grown_on: &grown_on, values: &leaf_values };
                added.add_to(&xv, &filled.fill, &mut scores, m);
                trees.extend(label_trees);
            } else {
                let tree = [grow_tree(Gradients { gh: &gh, m }, seed, 0)];
                let added = AddedTrees { trees: &tree, per_label: false, grown_on: &grown_on, values: &leaf_values };
                added.add_to(&xv, &filled.fill, &mut scores, m);
                trees.extend(tree);
            }
        }
        if !valid_rows.is_empty() {
            trees.truncate(best_round * params.trees_per_round(m));
        }
        Ok(GradientBoostingModel {
            params,
            n_features: x.n_features(),
            n_labels: m,
            fill_values: filled.fill.clone(),
            init_scores,
            trees,
            train_loss,
            validation_loss,
            tuning: Vec::new(),
            flat: FlatTrees::default(),
        })
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> GradientBoostingParams {
        self.params.clone()
    }

    /// Labels by decreasing score, ties to the lower label.
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
        let scores = self.scores(x);
        let m = self.n_labels;
        let mut ranks = vec![0; scores.len()];
        ranks.par_chunks_mut(m.max(1)).zip(scores.par_chunks(m.max(1))).for_each_init(Vec::new, |buf, (r, s)| {
            ranking_from_scores_into(s, buf, r);
        });
        Ok(Prediction { ranks, confidence: None, scores: outputs.scores.then_some(scores) })
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "n_rounds": self.n_rounds(),
            "init_scores": self.init_scores,
            "train_loss": self.train_loss,
            "validation_loss": self.validation_loss,
            "tuning": self.tuning,
            "tuned": tune::best(&self.tuning),
            "tree_depths": self.trees.iter().map(|t| t.depth()).collect::<Vec<_>>(),
            "tree_n_leaves": self.trees.iter().map(|t| t.n_leaves()).collect::<Vec<_>>(),
        })
    }

    /// The gains of the splits ([`importance`]), not the rankings' impurity of the other learners.
    fn split_importances(&self, x: &FeatureMatrixView<'_>, y: &RankMatrixView<'_>, weights: &[f64]) -> Result<Option<Vec<f64>>> {
        self.gain_importances(x, y, weights).map(Some)
    }

    fn has_split_importances(&self) -> bool {
        !self.trees.is_empty()
    }

    /// Round after round (with per-label trees, label after label within a round).
    fn routed_trees(&self) -> Vec<crate::tree::SplitTree<'_>> {
        self.trees.iter().map(|t| crate::tree::SplitTree::whole(t, &self.fill_values)).collect()
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        same_len(self.init_scores.len(), self.n_labels, "init_scores")?;
        let per_round = self.trees_per_round();
        if self.trees.len() > self.params.n_estimators * per_round || self.trees.len() % per_round != 0 {
            return Err(format!(
                "{} trees for at most {} rounds of {per_round} trees",
                self.trees.len(),
                self.params.n_estimators
            ));
        }
        let leaf_len = if self.params.per_label_trees { 1 } else { self.n_labels };
        self.trees
            .iter()
            .try_for_each(|t| t.check(self.n_features, |leaf| same_len(leaf.scores.len(), leaf_len, "a leaf's scores")))
    }
}

impl GradientBoostingModel {
    /// Trees per boosting round: one per label, or one for all labels.
    pub fn trees_per_round(&self) -> usize {
        self.params.trees_per_round(self.n_labels)
    }

    /// Adds the values of tree `t`'s leaf to a row's scores.
    #[inline]
    pub(super) fn add_leaf(&self, t: usize, leaf: &ScoreLeaf, row: &mut [f64]) {
        if self.params.per_label_trees {
            row[t % self.n_labels] += leaf.scores[0];
        } else {
            row.iter_mut().zip(&leaf.scores).for_each(|(d, s)| *d += s);
        }
    }

    /// Each row's label scores (n x m): the initial scores plus every tree's leaf values.
    fn scores(&self, x: &FeatureMatrixView<'_>) -> Vec<f64> {
        let flat = self.flat.of(self.trees.iter(), x.n_rows());
        let m = self.n_labels;
        // Tree after tree over a block of rows; each row still adds its trees in order.
        fill_row_blocks(x, m, BlockRows::default, |block, rows, dst: &mut [f64]| {
            dst.chunks_exact_mut(m.max(1)).for_each(|row| row.copy_from_slice(&self.init_scores));
            block.load(x, rows, &self.fill_values);
            for (t, (tree, walk)) in self.trees.iter().zip(flat.iter()).enumerate() {
                for (&leaf, row) in block.leaves_in(tree, walk.as_ref()).iter().zip(dst.chunks_exact_mut(m.max(1))) {
                    self.add_leaf(t, &tree.leaves[leaf as usize], row);
                }
            }
        })
    }
}

/// The rows boosting fits on and the rows held out for early stopping (empty: no early stopping).
fn split_rows(n: usize, weights: &[f64], params: &GradientBoostingParams) -> (Vec<u32>, Vec<u32>) {
    let usable: Vec<u32> = (0..n as u32).filter(|&i| weights[i as usize] > 0.0).collect();
    let hold_out = match params.early_stopping {
        EarlyStopping::Off => false,
        EarlyStopping::On => true,
        EarlyStopping::Auto => usable.len() >= AUTO_EARLY_STOPPING_ROWS,
    };
    let n_valid = ((usable.len() as f64) * params.validation_fraction).round() as usize;
    if !hold_out || n_valid == 0 || n_valid + 2 > usable.len() {
        return (usable, Vec::new());
    }
    let mut shuffled = usable;
    Rng::new(child_seed(params.seed ^ SALT, 0)).shuffle(&mut shuffled);
    let mut valid = shuffled.split_off(shuffled.len() - n_valid);
    shuffled.sort_unstable();
    valid.sort_unstable();
    (shuffled, valid)
}

/// `share` of `rows` drawn without replacement (all of them for a share of 1), in row order.
fn subsample(rows: &[u32], share: f64, rng: &mut Rng) -> Vec<u32> {
    if share >= 1.0 {
        return rows.to_vec();
    }
    let k = ((rows.len() as f64 * share).round() as usize).clamp(1, rows.len());
    let mut drawn = rows.to_vec();
    // A partial Fisher-Yates shuffle: the first k are a uniform sample.
    for i in 0..k {
        let j = i + rng.below(drawn.len() - i);
        drawn.swap(i, j);
    }
    drawn.truncate(k);
    drawn.sort_unstable();
    drawn
}

/// Every row's gradients and Hessian diagonals (`gh`: per row its m gradients, then its m
/// Hessian entries) and loss (n) at `scores`.
fn derivatives_and_losses(
    loss: RankingLoss,
    y: &RankMatrixView<'_>,
    orders: &RankOrders,
    scores: &[f64],
    gh: &mut [f64],
    row_loss: &mut [f64],
) {
    let m = y.n_labels();
    gh.par_chunks_mut(2 * m).zip(row_loss.par_iter_mut()).enumerate().for_each_init(
        RowScratch::default,
        |scratch, (i, (ghi, li))| {
            let (gi, hi) = ghi.split_at_mut(m);
            *li = loss.row_ordered(orders.row(i), y.row(i), &scores[i * m..(i + 1) * m], gi, hi, scratch);
        },
    );
}

/// The weighted mean of the rows' losses over `rows` (summed in row order).
fn mean_loss(row_loss: &[f64], weights: &[f64], rows: &[u32]) -> f64 {
    let (total, weight) =
        rows.iter().fold((0.0, 0.0), |(a, b), &i| (a + weights[i as usize] * row_loss[i as usize], b + weights[i as usize]));
    if weight > 0.0 {
        total / weight
    } else {
        0.0
    }
}

/// The best constant scores for the loss on `rows`: diagonal Newton steps from zero (the loss is
/// convex in the scores), centred (only differences between scores matter).
fn constant_scores(
    loss: RankingLoss,
    y: &RankMatrixView<'_>,
    orders: &RankOrders,
    weights: &[f64],
    rows: &[u32],
    l2: f64,
) -> Vec<f64> {
    let m = y.n_labels();
    let mut s = vec![0.0; m];
    let (mut g, mut h, mut scratch) = (vec![0.0; m], vec![0.0; m], RowScratch::default());
    for _ in 0..INIT_STEPS {
        let (mut g_sum, mut h_sum) = (vec![0.0; m], vec![0.0; m]);
        for &i in rows {
            let i = i as usize;
            let w = weights[i];
            loss.derivatives(orders.row(i), y.row(i), &s, &mut g, &mut h, &mut scratch);
            for j in 0..m {
                g_sum[j] += w * g[j];
                h_sum[j] += w * h[j];
            }
        }
        for j in 0..m {
            // A small ridge keeps the step finite for a label every ranking puts first or last.
            let d = h_sum[j] + l2.max(1e-6);
            s[j] -= g_sum[j] / d;
        }
    }
    let mean = s.iter().sum::<f64>() / m.max(1) as f64;
    s.iter_mut().for_each(|v| *v -= mean);
    s
}

/// A round's new trees: one for all labels, or one per label (tree j for label j).
struct AddedTrees<'a> {
    trees: &'a [Tree<ScoreLeaf>],
    per_label: bool,
    /// The rows the trees were grown on (their leaves recorded their values in `values`).
    grown_on: &'a [bool],
    values: &'a LeafValues,
}

impl AddedTrees<'_> {
    /// Adds the trees' leaf values to every row's scores: a row the trees were grown on takes the
    /// values its leaves recorded (the leaf its tree's growth sent it to), any other row walks
    /// the trees.
    fn add_to(&self, x: &FeatureMatrixView<'_>, fill: &[f64], scores: &mut [f64], m: usize) {
        let n = scores.len() / m.max(1);
        scores.par_chunks_mut(m).enumerate().for_each(|(i, s)| {
            let grown_on = self.grown_on[i];
            if self.per_label {
                for (j, tree) in self.trees.iter().enumerate() {
                    s[j] += if grown_on { self.values.get(j * n + i) } else { tree.leaf_for(x.row(i), fill).scores[0] };
                }
            } else if grown_on {
                s.iter_mut().enumerate().for_each(|(j, a)| *a += self.values.get(i * m + j));
            } else {
                let leaf = self.trees[0].leaf_for(x.row(i), fill);
                s.iter_mut().zip(&leaf.scores).for_each(|(a, b)| *a += b);
            }
        });
    }
}
