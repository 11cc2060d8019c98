//! The interface every learner implements, and what the registry's dispatch builds on.
//!
//! A learner is its fitted model type ([`Learner`]) with a parameter type ([`Params`], checked
//! once, before any data is read, like linfa's checked parameters). It fits on a checked
//! [`TrainingSet`], predicts a [`Prediction`] (ranks, and the confidences and label scores of
//! learners that have them), describes itself ([`Header`], a JSON summary of what the fit found
//! out) and checks itself after it was read from a model file ([`Learner::check`]).

pub mod checks;
pub mod inner_cv;

use crate::data::features::FeatureMatrixView;
use crate::data::training::TrainingSet;
use crate::error::{LrankError, Result};
use crate::neighbours::NearestRows;
use rayon::prelude::*;

/// A learner's parameters.
pub trait Params: Clone + Send + Sync {
    /// Checks every parameter's domain; the error names the parameter.
    fn validate(&self) -> Result<()>;
    /// The random seed (learners without randomness keep one too, unused).
    fn seed(&self) -> u64;
    /// The same parameters with another seed (ensembles give each member its own).
    fn set_seed(&mut self, seed: u64);
    /// The trees or members a fitted model holds per unit (per label pair for the pairwise
    /// learners), nested counts multiplied; 1 for a single model. Checked against
    /// [`crate::limits::MAX_MODELS`] before anything is fitted.
    fn models(&self) -> u64 {
        1
    }
    /// Why these parameters cannot learn from tied labels ("RPC learns binary classes per label
    /// pair"), or `None` when they can: the one answer the fit's refusal and the callers' checks
    /// before any work (a CLI, an experiment) both read.
    fn tie_refusal(&self) -> Option<&'static str> {
        None
    }
    /// Whether only the weights' ratios matter (trees, neighbours, consensus): the fit then
    /// scales them exactly, by a power of two, to an average near 1
    /// ([`TrainingSet::with_weights_near_one`]), so that no threshold sees weights of another
    /// magnitude. `false` for learners whose penalty (C, L2) weighs against the weighted loss,
    /// whose fit depends on the weights' scale as scikit-learn's does.
    fn weights_scale_free(&self) -> bool {
        true
    }
}

/// What a fitted model was fitted on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub n_features: usize,
    pub n_labels: usize,
}

/// Which outputs beyond the ranks a prediction computes (they are not free).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outputs {
    /// A per-row confidence, for learners that have one.
    pub confidence: bool,
    /// Per-row label scores, for learners that have them.
    pub scores: bool,
}

impl Outputs {
    pub const RANKS: Outputs = Outputs { confidence: false, scores: false };
}

/// Predictions for n rows and m labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// Complete rank matrix, n x m, row-major.
    pub ranks: Vec<i32>,
    /// One confidence per row (the Mallows spread θ of IBLR's neighbourhood or of LRT's leaf,
    /// the predicted ranking's probability for IB-PL), when asked for and the learner has one.
    pub confidence: Option<Vec<f64>>,
    /// n x m label scores behind the ranking, when asked for and the learner has them:
    /// labelwise learners' predicted relative positions (lower preferred), pairwise learners'
    /// votes (higher preferred).
    pub scores: Option<Vec<f64>>,
}

impl Prediction {
    pub fn ranks(ranks: Vec<i32>) -> Self {
        Prediction { ranks, confidence: None, scores: None }
    }
}

/// A fitted model of one learner.
pub trait Learner: Sized + Clone + Send + Sync {
    type Params: Params;

    /// Fits on a checked training set with validated parameters (the registry's dispatch
    /// validates and checks; call [`fit_checked`] to do both).
    fn fit(params: Self::Params, data: &TrainingSet<'_>) -> Result<Self>;

    fn header(&self) -> Header;

    /// The parameters the model was fitted with.
    fn params(&self) -> Self::Params;

    /// Predicts the rows of `x`, whose feature count the caller has checked against the header.
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction>;

    /// Each member's rank matrix (members x n x m, row-major), for ensembles; `None` otherwise.
    fn member_ranks(&self, _x: &FeatureMatrixView<'_>) -> Result<Option<Vec<i32>>> {
        Ok(None)
    }

    /// Out-of-bag predictions on the training set `data` (as fitted, rows in order; the feature
    /// count checked): each row's prediction from the members whose bootstrap sample did not draw
    /// it, all zeros for a row every member drew. The rankings and weights are there for
    /// learners whose samples are drawn over a subset of the rows (a label pair's). `None` for
    /// learners without bootstrap members.
    fn out_of_bag(&self, _data: &TrainingSet<'_>) -> Result<Option<Vec<i32>>> {
        Ok(None)
    }

    /// The model with trees added up to `n_estimators`, grown on `data`, the training set it
    /// was fitted on: the forest a fit with `n_estimators` trees grows (each tree's stream
    /// depends on its index alone). Learners without such trees refuse.
    fn add_trees(self, _n_estimators: usize, _data: &TrainingSet<'_>) -> Result<Self> {
        Err(crate::error::invalid("this learner has no forest to add trees to (warm_start)"))
    }

    /// The predicted rank matrix alone (the feature count checked).
    fn predict_ranks(&self, x: &FeatureMatrixView<'_>) -> Result<Vec<i32>> {
        Ok(predict_checked(self, x, Outputs::RANKS)?.ranks)
    }

    /// The predicted ranks and each row's confidence, for learners that have one.
    fn predict_with_confidence(&self, x: &FeatureMatrixView<'_>) -> Result<(Vec<i32>, Vec<f64>)> {
        let p = predict_checked(self, x, Outputs { confidence: true, scores: false })?;
        let confidence = p.confidence.ok_or_else(|| crate::error::invalid("this learner gives no confidence"))?;
        Ok((p.ranks, confidence))
    }

    /// The label scores behind the ranking (n x m), for learners that have them.
    fn predict_scores(&self, x: &FeatureMatrixView<'_>) -> Result<Vec<f64>> {
        let p = predict_checked(self, x, Outputs { confidence: false, scores: true })?;
        p.scores.ok_or_else(|| crate::error::invalid("this learner gives no label scores"))
    }

    /// [`fit_checked`] on borrowed views, the parameters last.
    fn fit_views(
        x: &FeatureMatrixView<'_>,
        y: &crate::data::ranking::RankMatrixView<'_>,
        sample_weight: Option<&[f64]>,
        params: Self::Params,
    ) -> Result<Self> {
        fit_checked(params, *x, *y, sample_weight)
    }

    /// What the fit found out, beyond the parameters (tuned settings, sizes), as JSON.
    fn summary(&self) -> serde_json::Value;

    /// The model's trees, for [`crate::tree::split_importances`]; empty for learners without
    /// trees (the default).
    fn split_trees(&self) -> Vec<crate::tree::SplitTree<'_>> {
        Vec::new()
    }

    /// Every tree of the model, for routing rows to leaves ([`crate::registry::apply`]): by
    /// default the [`split_trees`](Self::split_trees); a learner whose splits are not scored by
    /// the rankings' impurity (GBLR) lists its trees here alone.
    fn routed_trees(&self) -> Vec<crate::tree::SplitTree<'_>> {
        self.split_trees()
    }

    /// The `k` (`None`: the model's own) nearest training rows of each row of `x` (`None`: of
    /// each training row, leaving itself out), for the instance-based learners: distances (n x
    /// k, in the scaled feature space the learner measures in) and training row indices,
    /// nearest first; `None` for other learners.
    fn kneighbors(&self, _x: Option<&FeatureMatrixView<'_>>, _k: Option<usize>) -> Result<Option<NearestRows>> {
        Ok(None)
    }

    /// The ranking each leaf predicts, per tree of [`routed_trees`](Self::routed_trees) and per
    /// leaf index, for the learners whose leaves hold one (to print the trees); empty otherwise.
    fn leaf_rankings(&self) -> Vec<Vec<Vec<i32>>> {
        Vec::new()
    }

    /// Each feature's share of the model's split importances on the rows `x`, `y` of weights
    /// `weights`, or `None` for a model without them: by default
    /// [`crate::tree::split_importances`] of [`split_trees`](Self::split_trees). A learner whose
    /// splits measure something else (GBLR's gains) says so here.
    fn split_importances(
        &self,
        x: &FeatureMatrixView<'_>,
        y: &crate::data::ranking::RankMatrixView<'_>,
        weights: &[f64],
    ) -> Result<Option<Vec<f64>>> {
        let trees = self.split_trees();
        if trees.is_empty() {
            return Ok(None);
        }
        crate::tree::split_importances(&trees, x, y, weights).map(Some)
    }

    /// Whether [`split_importances`](Self::split_importances) gives shares (a model with trees).
    fn has_split_importances(&self) -> bool {
        !self.split_trees().is_empty()
    }

    /// One model from models of this learner fitted on parts of the data (a forest's trees
    /// grown on partitions, say), missing values then filled with `fill_values`. Learners whose
    /// models do not combine that way refuse (the default).
    fn merge(models: Vec<Self>, _fill_values: Vec<f64>) -> Result<Self> {
        let _ = models;
        Err(crate::error::invalid(
            "models of this learner cannot be merged: only forests can (LR-RF, LWRF, OVO, PLR forest, pairwise PLR, MORE-PLR)",
        ))
    }

    /// Structural checks of a model read from a file (a JSON model file can be edited by
    /// hand): sizes, links, rankings. The message says what is inconsistent.
    fn check(&self) -> std::result::Result<(), String>;
}

/// Validates the parameters, checks the training set, and fits.
pub fn fit_checked<L: Learner>(
    params: L::Params,
    x: FeatureMatrixView<'_>,
    y: crate::data::ranking::RankMatrixView<'_>,
    sample_weight: Option<&[f64]>,
) -> Result<L> {
    params.validate()?;
    let data = TrainingSet::new(x, y, sample_weight)?;
    let data = if params.weights_scale_free() { data.with_weights_near_one() } else { data };
    let model = L::fit(params, &data)?;
    crate::interrupt::check()?;
    // A model its own checks refuse could be saved but never loaded again: refuse it now.
    model.check().map_err(|e| LrankError::InvalidInput(format!("cannot fit this data: the model fails its own checks ({e})")))?;
    Ok(model)
}

/// [`Learner::add_trees`] on a checked training set, the grown model checked as a fit's is.
pub fn add_trees_checked<L: Learner>(
    model: L,
    n_estimators: usize,
    x: FeatureMatrixView<'_>,
    y: crate::data::ranking::RankMatrixView<'_>,
    sample_weight: Option<&[f64]>,
) -> Result<L> {
    let data = TrainingSet::new(x, y, sample_weight)?;
    // Scaled as the fit scaled them: the same weights give the same power of two.
    let data = if model.params().weights_scale_free() { data.with_weights_near_one() } else { data };
    let model = model.add_trees(n_estimators, &data)?;
    crate::interrupt::check()?;
    model.check().map_err(|e| LrankError::InvalidInput(format!("cannot fit this data: the model fails its own checks ({e})")))?;
    Ok(model)
}

/// An ensemble's leaf rankings ([`Learner::leaf_rankings`]): its members' in their trees'
/// order, or none unless every member lists them for all its trees.
pub fn members_leaf_rankings<L: Learner>(members: &[L]) -> Vec<Vec<Vec<i32>>> {
    let mut out = Vec::new();
    for member in members {
        let rankings = member.leaf_rankings();
        if rankings.len() != member.routed_trees().len() {
            return Vec::new();
        }
        out.extend(rankings);
    }
    out
}

/// Checks that `x` has the model's feature count, then predicts.
pub fn predict_checked<L: Learner>(model: &L, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
    crate::data::features::check_n_features(x, model.header().n_features)?;
    let prediction = model.predict(x, outputs)?;
    crate::interrupt::check()?;
    Ok(prediction)
}

/// An ensemble's split importances: those of its members' trees together (`trees`, each with
/// its member's vote), or when the members measure their splits by something other than their
/// trees' impurity decrease (GBLR's gains), the members' shares, each times its vote (the second
/// of each pair), normalised; `None` when a member has none.
pub fn ensemble_split_importances<'a, L: Learner + 'a>(
    trees: Vec<crate::tree::SplitTree<'_>>,
    members: impl Iterator<Item = (&'a L, f64)>,
    x: &FeatureMatrixView<'_>,
    y: &crate::data::ranking::RankMatrixView<'_>,
    weights: &[f64],
) -> Result<Option<Vec<f64>>> {
    if !trees.is_empty() {
        return crate::tree::split_importances(&trees, x, y, weights).map(Some);
    }
    let mut total = vec![0.0; x.n_features()];
    for (member, vote) in members {
        let Some(shares) = member.split_importances(x, y, weights)? else { return Ok(None) };
        total.iter_mut().zip(shares).for_each(|(t, s)| *t += vote * s);
    }
    let sum: f64 = total.iter().sum();
    if sum > 0.0 {
        total.iter_mut().for_each(|t| *t /= sum);
    }
    Ok(Some(total))
}

/// The predict loop of row-wise learners: `out` (n rows of `width` values) filled in parallel,
/// row `i` by `fill(scratch, x.row(i), out_row)` with one `scratch` per task.
pub fn fill_rows<T: Send + Default + Clone, S>(
    x: &FeatureMatrixView<'_>,
    width: usize,
    init: impl Fn() -> S + Send + Sync,
    fill: impl Fn(&mut S, &[f64], &mut [T]) + Send + Sync,
) -> Vec<T> {
    let mut out = vec![T::default(); x.n_rows() * width];
    if width > 0 {
        out.par_chunks_mut(width).enumerate().for_each_init(init, |scratch, (i, dst)| {
            // Interrupted: the rows left stay unfilled (the result is discarded).
            if !crate::interrupt::requested() {
                fill(scratch, x.row(i), dst)
            }
        });
    }
    out
}

/// The members' rankings an ensemble's prediction holds at once, at most (about 16 MB): rows go
/// in blocks of this over members x labels.
pub const MEMBER_BLOCK_VALUES: usize = 1 << 22;

/// The fewest rows per block of [`fill_row_blocks`].
pub const PREDICT_BLOCK_ROWS: usize = 128;

/// The most rows per block: a block's output and scratch stay a few megabytes.
pub const MAX_PREDICT_BLOCK_ROWS: usize = 8192;

/// The predict loop of ensembles: `out` (n rows of `width` values) filled in parallel by blocks
/// of rows, `fill(scratch, rows, out_rows)` with `rows` the block's row indices; an ensemble then
/// takes member after member over the whole block (member-major), which keeps each member's
/// upper nodes in cache for all the block's rows instead of walking every member for every row.
/// Blocks are as large as the threads allow (n / threads rows, 128 to 8192): fully grown trees
/// reuse more of their nodes in larger ones (an OVO forest on fried 1.4x faster than in blocks of
/// 128). Each row's values depend on that row alone, so the block size changes no result.
pub fn fill_row_blocks<T: Send + Default + Clone, S>(
    x: &FeatureMatrixView<'_>,
    width: usize,
    init: impl Fn() -> S + Send + Sync,
    fill: impl Fn(&mut S, std::ops::Range<usize>, &mut [T]) + Send + Sync,
) -> Vec<T> {
    fill_row_blocks_upto(x, width, MAX_PREDICT_BLOCK_ROWS, init, fill)
}

/// [`fill_row_blocks`] with blocks of at most `max_rows` rows (an ensemble whose blocks need no
/// scratch per row may take them as large as the threads allow).
pub fn fill_row_blocks_upto<T: Send + Default + Clone, S>(
    x: &FeatureMatrixView<'_>,
    width: usize,
    max_rows: usize,
    init: impl Fn() -> S + Send + Sync,
    fill: impl Fn(&mut S, std::ops::Range<usize>, &mut [T]) + Send + Sync,
) -> Vec<T> {
    let mut out = vec![T::default(); x.n_rows() * width];
    let block = x.n_rows().div_ceil(rayon::current_num_threads().max(1)).clamp(PREDICT_BLOCK_ROWS, max_rows);
    if width > 0 {
        out.par_chunks_mut(width * block).enumerate().for_each_init(init, |scratch, (b, dst)| {
            let start = b * block;
            if !crate::interrupt::requested() {
                fill(scratch, start..start + dst.len() / width, dst)
            }
        });
    }
    out
}

/// The checks every merge makes: at least one model, one header, one fill value per feature,
/// and parameters equal up to `same` (which may ignore the tree count and the seed).
pub fn check_mergeable<L: Learner>(models: &[L], fill_values: &[f64], same: impl Fn(&L, &L) -> bool) -> Result<Header> {
    let first = models.first().ok_or_else(|| crate::error::invalid("nothing to merge"))?;
    let header = first.header();
    if fill_values.len() != header.n_features || fill_values.iter().any(|v| v.is_nan()) {
        return Err(crate::error::invalid(format!("merging needs {} fill values, none missing", header.n_features)));
    }
    for (i, m) in models.iter().enumerate() {
        if m.header() != header {
            return Err(crate::error::invalid(format!("model {i} has other features or labels than model 0")));
        }
        if !same(first, m) {
            return Err(crate::error::invalid(format!("model {i} was fitted with other parameters than model 0")));
        }
    }
    Ok(header)
}

/// The merge of forests fitted on parts of the data ([`Learner::merge`]): checks the models
/// ([`check_mergeable`]), then hands every model after the first to `append`, in order, to add
/// its trees to the first. The caller then sets the merged model's tree count and fill values.
pub fn merge_forests<L: Learner>(
    models: Vec<L>,
    fill_values: &[f64],
    same: impl Fn(&L, &L) -> bool,
    mut append: impl FnMut(&mut L, L),
) -> Result<L> {
    check_mergeable(&models, fill_values, same)?;
    let mut iter = models.into_iter();
    let mut merged = iter.next().expect("checked non-empty");
    iter.for_each(|m| append(&mut merged, m));
    Ok(merged)
}

/// An error for a parameter outside its domain.
/// What every [`Learner::add_trees`] checks first: whether there are trees to add to the
/// `fitted` ones (an `n_estimators` below them is refused).
pub fn trees_to_add(fitted: usize, n_estimators: usize) -> Result<bool> {
    if n_estimators < fitted {
        return Err(bad_param(
            "n_estimators",
            format!("must be at least the {fitted} trees already fitted to add trees (warm_start), got {n_estimators}"),
        ));
    }
    Ok(n_estimators > fitted)
}

/// The trees grown for [`Learner::add_trees`] came from the model's training data: the same
/// shape and fill values (a cheap check; the caller passes the data it fitted on).
pub fn check_same_training_data(fitted: (Header, &[f64]), grown: (Header, &[f64])) -> Result<()> {
    let same_fill = fitted.1.len() == grown.1.len() && fitted.1.iter().zip(grown.1).all(|(a, b)| a.to_bits() == b.to_bits());
    if fitted.0 != grown.0 || !same_fill {
        return Err(crate::error::invalid("trees can only be added on the training data the model was fitted on (warm_start)"));
    }
    Ok(())
}

pub fn bad_param(name: &'static str, reason: impl Into<String>) -> LrankError {
    LrankError::InvalidParameter { name, reason: reason.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_blocks_cover_every_row_once_in_order_at_any_thread_count() {
        // Rows i hold the value i; each block writes its rows' values: the output must be 0..n
        // whether n is below, at or off a multiple of the block size.
        let big = 2 * MAX_PREDICT_BLOCK_ROWS + 5;
        for n in [0, 1, PREDICT_BLOCK_ROWS - 1, PREDICT_BLOCK_ROWS, 2 * PREDICT_BLOCK_ROWS + 5, big] {
            let values: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let x = FeatureMatrixView::new(&values, n, 1).unwrap();
            for threads in [1, 2] {
                let out = crate::parallel::with_threads(Some(threads), || {
                    fill_row_blocks(
                        &x,
                        2,
                        || (),
                        |_, rows, dst: &mut [f64]| {
                            assert!(rows.len() <= MAX_PREDICT_BLOCK_ROWS && dst.len() == 2 * rows.len());
                            for (i, out) in rows.zip(dst.chunks_exact_mut(2)) {
                                out.copy_from_slice(&[x.row(i)[0], 1.0]);
                            }
                        },
                    )
                })
                .unwrap();
                let expected: Vec<f64> = (0..n).flat_map(|i| [i as f64, 1.0]).collect();
                assert_eq!(out, expected, "n = {n}, {threads} threads");
            }
        }
    }
}
