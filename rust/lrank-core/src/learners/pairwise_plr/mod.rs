//! Pairwise partial label ranking (Alfaro, Aledo & Gámez 2023, Pattern Recognition 140): one
//! three-class classifier per label pair {a, b}, a < b (a before b / tied / b before a), trained
//! on the rows whose ranking holds both labels; at prediction the pairs' probabilities make a
//! pair-order matrix, whose consensus is the predicted bucket order.
//!
//! - Classifier: a random forest (default: 100 trees on bootstrap samples, sqrt(d) features per
//!   node) or a single tree of lrank's tree engine, information gain of the three classes; a leaf
//!   holds the weighted class shares, a forest averages its trees. A pair no training ranking
//!   holds predicts C = 1/2.
//! - Pair-order matrix: `C_ab = p(before) + p(tied) / 2` (the paper's), `C_ba = 1 - C_ab`; or, for
//!   comparison with a public implementation that stores half the tie probability in each
//!   direction and applies the count formula, `(p_b + p_t / 4) / (p_b + p_t / 2 + p_a)`.
//! - Consensus: BPA-LIA-MP2 (beta 0.25) by default, or Borda or Copeland with ties.
//! - With `tune_beta`, BPA's beta is chosen from 0.25, 0.2, 0.15, 0.1, 0.05 by out-of-bag
//!   tau_x (forests on bootstrap samples only): each training row's pair-order matrix from the
//!   trees that did not draw it, its BPA consensus with each beta against the row's ranking, the
//!   beta with the highest mean (ties to the larger beta). Beyond the paper: how strongly a
//!   data set's rankings tie is what beta decides, and it differs between data sets.
//! - Pairs are trained in parallel, pair p from the seed `child_seed(seed, p)`.

use crate::consensus::buckets::{BucketConsensus, BucketMethod, PairOrderMatrix};
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::RankMatrixView;
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::checks::same_len;
use crate::learner::{bad_param, fill_row_blocks_upto, merge_forests, Header, Learner, Outputs, Params, Prediction};
use crate::limits::check_models;
use crate::metrics::distance::tau_x;
use crate::pairwise::{check_pairs, fit_pair_relations, pair_rows};
use crate::rng::child_seed;
use crate::tree::node_weight;
use crate::tree::{
    bootstrap_sampling, check_max_bins, forest_sample_counts, out_of_bag_rows_of, BlockRows, ClassEntropy, FlatTrees,
    ForestSampling, GrowParams, Growth, LeafFitter, MaxFeatures, SplitTree, ThresholdRule, Tree, TreeInputs,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How a pair's class probabilities become its entry of the pair-order matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TieWeighting {
    /// `p(before) + p(tied) / 2` (Alfaro et al. 2023).
    Half,
    /// `(p_b + p_t / 4) / (p_b + p_t / 2 + p_a)`, as one public implementation computes it.
    Quarter,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairwisePlrParams {
    /// Trees per pair (1 without bootstrap and with all features: a plain decision tree).
    pub n_estimators: usize,
    pub bootstrap: bool,
    pub max_features: MaxFeatures,
    pub max_depth: Option<usize>,
    /// Nodes with less total weight are leaves.
    pub min_samples_split: f64,
    pub tie_weighting: TieWeighting,
    pub consensus: BucketConsensus,
    /// Choose BPA's beta by out-of-bag tau_x (see the module).
    pub tune_beta: bool,
    pub seed: u64,
    /// Histogram split search with at most this many bins per feature; `None`: exact search
    /// (files before format 5 were grown exactly).
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_5")]
    pub max_bins: Option<usize>,
}

/// BPA thresholds tried by `tune_beta`, in order of preference on equal scores.
pub const BETA_CANDIDATES: [f64; 5] = [0.25, 0.2, 0.15, 0.1, 0.05];

/// Out-of-bag mean tau_x of a candidate beta.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BetaScore {
    pub beta: f64,
    #[serde(with = "crate::numeric::nonfinite_f64")]
    pub tau_x: f64,
}

impl PairwisePlrParams {
    /// A random forest of 100 trees per pair, sqrt(d) features per node, BPA consensus.
    pub fn forest() -> Self {
        PairwisePlrParams {
            n_estimators: 100,
            bootstrap: true,
            max_features: MaxFeatures::Sqrt,
            max_depth: None,
            min_samples_split: 2.0,
            tie_weighting: TieWeighting::Half,
            consensus: BucketConsensus::BPA,
            tune_beta: false,
            seed: 0,
            max_bins: None,
        }
    }

    /// One fully grown decision tree per pair.
    pub fn tree() -> Self {
        PairwisePlrParams { n_estimators: 1, bootstrap: false, max_features: MaxFeatures::All, ..Self::forest() }
    }
}

impl Params for PairwisePlrParams {
    fn validate(&self) -> Result<()> {
        check_models("n_estimators", self.models())?;
        if !(self.min_samples_split >= 0.0) || self.min_samples_split.is_infinite() {
            return Err(bad_param("min_samples_split", "must be a finite number >= 0"));
        }
        self.consensus.validate()?;
        check_max_bins(self.max_bins)?;
        self.max_features.validate()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
    fn models(&self) -> u64 {
        self.n_estimators as u64
    }
}

/// The classifier of one label pair (a < b): probabilities of before, tied, after.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelationClassifier {
    pub a: u32,
    pub b: u32,
    /// Trees whose leaves hold the shares of the three relations; empty when no ranking held
    /// the pair.
    pub trees: Vec<Tree<[f64; 3]>>,
}

impl RelationClassifier {
    /// Mean class probabilities of the trees, or `None` without trees (as predictions sum them,
    /// block by block).
    #[cfg(test)]
    fn probabilities(&self, row: &[f64], fill: &[f64]) -> Option<[f64; 3]> {
        if self.trees.is_empty() {
            return None;
        }
        let mut p = [0.0; 3];
        for tree in &self.trees {
            let leaf = tree.leaf_for(row, fill);
            (0..3).for_each(|k| p[k] += leaf[k]);
        }
        let scale = 1.0 / self.trees.len() as f64;
        Some(p.map(|v| v * scale))
    }
}

/// A leaf's class shares.
struct ClassShares<'a> {
    classes: &'a [u32],
}

impl LeafFitter for ClassShares<'_> {
    type Leaf = [f64; 3];
    fn fit_leaf(&self, samples: &[u32], weights: &[f64]) -> [f64; 3] {
        let mut p = [0.0; 3];
        for (&s, &w) in samples.iter().zip(weights) {
            p[self.classes[s as usize] as usize] += w;
        }
        let total: f64 = p.iter().sum();
        if total > 0.0 {
            p.map(|v| v / total)
        } else {
            [1.0 / 3.0; 3]
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairwisePlrModel {
    pub params: PairwisePlrParams,
    /// The consensus predictions use: the parameters', with the tuned beta when tuned.
    pub consensus: BucketConsensus,
    /// Out-of-bag mean tau_x of each candidate beta (empty unless tuned).
    pub beta_scores: Vec<BetaScore>,
    pub n_features: usize,
    pub n_labels: usize,
    pub fill_values: Vec<f64>,
    pub pairs: Vec<RelationClassifier>,
    /// The pairs' trees laid out for prediction (made once enough rows were predicted, kept;
    /// not saved).
    #[serde(skip)]
    pub(crate) flat: FlatTrees,
}

impl Learner for PairwisePlrModel {
    type Params = PairwisePlrParams;

    fn fit(params: PairwisePlrParams, data: &TrainingSet<'_>) -> Result<Self> {
        let (x, y) = (&data.x, &data.y);
        let TreeInputs { fill_values, features } = TreeInputs::binned(x, params.max_bins);
        let grow = GrowParams {
            max_depth: params.max_depth,
            max_features: params.max_features.resolve(x.n_features()),
            min_weight_split: node_weight(params.min_samples_split, data.weights.iter().sum(), data.row_weight),
            threshold_rule: ThresholdRule::Best,
        };
        let tune = params.tune_beta
            && params.bootstrap
            && matches!(params.consensus.method, BucketMethod::Bpa | BucketMethod::BpaGlobal);
        let fitted = fit_pair_relations(y, &data.weights, params.n_estimators as u64, |pair| {
            if pair.rows.is_empty() {
                return (RelationClassifier { a: pair.a as u32, b: pair.b as u32, trees: Vec::new() }, Vec::new());
            }
            let criterion = ClassEntropy::new(&pair.classes, 3, 1e-9);
            let leaf = ClassShares { classes: &pair.classes };
            let seed = child_seed(params.seed, pair.index as u64);
            let trees = Growth::of(params.n_estimators, params.bootstrap, seed).grow_additive(
                &features,
                &pair.rows,
                &pair.weights,
                &criterion,
                &leaf,
                &grow,
            );
            let sampling =
                ForestSampling { n_trees: params.n_estimators, seed, bootstrap: true, node_seeds: false, first_tree: 0 };
            let oob = if tune { out_of_bag(&trees, sampling, &pair.rows, x, &fill_values) } else { Vec::new() };
            (RelationClassifier { a: pair.a as u32, b: pair.b as u32, trees }, oob)
        })?;
        let (pairs, oob): (Vec<RelationClassifier>, Vec<OutOfBag>) = fitted.into_iter().unzip();
        let mut model = PairwisePlrModel {
            consensus: params.consensus,
            beta_scores: Vec::new(),
            params,
            n_features: x.n_features(),
            n_labels: y.n_labels(),
            fill_values,
            pairs,
            flat: FlatTrees::default(),
        };
        if tune {
            model.tune_beta(y, &oob);
        }
        Ok(model)
    }

    fn header(&self) -> Header {
        Header { n_features: self.n_features, n_labels: self.n_labels }
    }

    fn params(&self) -> PairwisePlrParams {
        self.params.clone()
    }

    /// The consensus bucket order of each row's predicted pair-order matrix; the scores are the
    /// matrix's Borda scores (Σ_b C_ab, higher preferred).
    fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
        let (m, weighting) = (self.n_labels, self.params.tie_weighting);
        // Pair after pair and tree after tree over a block of rows (each tree's nodes stay in
        // cache); each row still sums its trees in tree order.
        let flat = self.flat.of(self.pairs.iter().flat_map(|p| p.trees.iter()), x.n_rows());
        Ok(predict_matrices(x, m, &self.consensus, outputs, BlockRows::default, |walk, rows, block| {
            walk.load(x, rows.clone(), &self.fill_values);
            let mut sums = vec![[0.0; 3]; rows.len()];
            let mut flat = flat.iter();
            for pair in &self.pairs {
                if pair.trees.is_empty() {
                    continue; // C stays 1/2
                }
                sums.iter_mut().for_each(|p| *p = [0.0; 3]);
                for tree in &pair.trees {
                    let leaves = walk.leaves_in(tree, flat.next().and_then(|f| f.as_ref()));
                    for (&leaf, p) in leaves.iter().zip(sums.iter_mut()) {
                        let leaf = &tree.leaves[leaf as usize];
                        (0..3).for_each(|k| p[k] += leaf[k]);
                    }
                }
                let scale = 1.0 / pair.trees.len() as f64;
                for (c, p) in block.chunks_exact_mut(m * m).zip(&sums) {
                    set_pair(c, m, pair.a, pair.b, Some(p.map(|v| v * scale)), weighting);
                }
            }
        }))
    }

    /// Each row's pair-order matrix from the trees that left it out of their samples (all of a
    /// pair's trees for a row that does not train the pair), and its consensus as in `predict`.
    /// A row is all zeros when some pair it trains drew it in every tree. With beta chosen out
    /// of bag, the estimate saw the rows that chose it.
    fn out_of_bag(&self, data: &TrainingSet<'_>) -> Result<Option<Vec<i32>>> {
        let (n, m, p) = (data.x.n_rows(), self.n_labels, &self.params);
        let mut matrices: Vec<f64> = crate::memory::zeroed("the out-of-bag pair-order matrices", &[n, m, m])?;
        matrices.iter_mut().for_each(|c| *c = 0.5);
        let mut covered = vec![true; n];
        for (index, pair) in self.pairs.iter().enumerate() {
            let rows = pair_rows(&data.y, &data.weights, pair.a as usize, pair.b as usize);
            let sampling = bootstrap_sampling(Growth::of(p.n_estimators, p.bootstrap, child_seed(p.seed, index as u64)))?;
            let estimates = out_of_bag_rows_of(&pair.trees, sampling, &data.x, Some(&rows), &self.fill_values, |leaves| {
                let mut sums = [0.0; 3];
                leaves.iter().for_each(|leaf| (0..3).for_each(|k| sums[k] += leaf[k]));
                sums.map(|v| v / leaves.len() as f64)
            })?;
            for (i, estimate) in estimates.into_iter().enumerate() {
                set_pair(&mut matrices[i * m * m..(i + 1) * m * m], m, pair.a, pair.b, estimate, p.tie_weighting);
                covered[i] &= estimate.is_some() || rows.binary_search(&(i as u32)).is_err();
            }
            crate::interrupt::check()?;
        }
        let ranks: Vec<Vec<i32>> = matrices
            .par_chunks_exact(m * m)
            .zip(&covered)
            .map(
                |(c, &covered)| {
                    if covered {
                        self.consensus.of_matrix(&PairOrderMatrix::from_entries(m, c.to_vec()))
                    } else {
                        vec![0; m]
                    }
                },
            )
            .collect();
        Ok(Some(ranks.concat()))
    }

    fn split_trees(&self) -> Vec<SplitTree<'_>> {
        self.pairs.iter().flat_map(|p| SplitTree::of_pair(p.a, p.b, &p.trees, &self.fill_values)).collect()
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "beta": self.consensus.beta,
            "beta_scores": self.beta_scores.iter().map(|s| serde_json::json!([s.beta, s.tau_x])).collect::<Vec<_>>(),
            "n_pairs": self.pairs.len(),
            "pairs_without_data": self.pairs.iter().filter(|p| p.trees.is_empty()).count(),
        })
    }

    /// One model whose pairs hold all the models' trees (forests grown on partitions of the data).
    /// A beta chosen out of bag cannot be merged: each part chose its own.
    fn merge(models: Vec<Self>, fill_values: Vec<f64>) -> Result<Self> {
        if models.iter().any(|m| !m.beta_scores.is_empty()) {
            return Err(crate::error::invalid(
                "pairwise PLR models whose beta was chosen out of bag cannot be merged: give beta",
            ));
        }
        let same = |a: &Self, b: &Self| {
            let pairs = |m: &Self| m.pairs.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>();
            PairwisePlrParams { n_estimators: 0, seed: 0, ..a.params.clone() }
                == PairwisePlrParams { n_estimators: 0, seed: 0, ..b.params.clone() }
                && a.consensus == b.consensus
                && pairs(a) == pairs(b)
        };
        let mut merged = merge_forests(models, &fill_values, same, |into, m| {
            for (pair, more) in into.pairs.iter_mut().zip(m.pairs) {
                pair.trees.extend(more.trees);
            }
        })?;
        merged.params.n_estimators = merged.pairs.iter().map(|p| p.trees.len()).max().unwrap_or(0).max(1);
        merged.fill_values = fill_values;
        merged.flat = FlatTrees::default();
        Ok(merged)
    }

    fn check(&self) -> std::result::Result<(), String> {
        same_len(self.fill_values.len(), self.n_features, "fill_values")?;
        self.consensus.validate().map_err(|e| e.to_string())?;
        check_pairs(self.pairs.iter().map(|p| (p.a, p.b)), self.n_labels)?;
        for pair in &self.pairs {
            pair.trees.iter().try_for_each(|t| {
                t.check(self.n_features, |p| {
                    if p.iter().all(|v| (0.0..=1.0).contains(v)) && (p.iter().sum::<f64>() - 1.0).abs() < 1e-9 {
                        Ok(())
                    } else {
                        Err(format!("leaf probabilities {p:?}"))
                    }
                })
            })?;
        }
        Ok(())
    }
}

impl TieWeighting {
    /// The pair-order matrix entry of class probabilities (before, tied, after).
    fn preference(self, [before, tied, after]: [f64; 3]) -> f64 {
        match self {
            TieWeighting::Half => before + tied / 2.0,
            TieWeighting::Quarter => {
                let total = before + tied / 2.0 + after;
                if total > 0.0 {
                    (before + tied / 4.0) / total
                } else {
                    0.5
                }
            }
        }
    }
}

/// A pair's out-of-bag class probabilities: (training row, mean of the leaves of the trees that
/// left it out), for the rows some tree left out.
type OutOfBag = Vec<(u32, [f64; 3])>;

/// The out-of-bag class probabilities of a pair's forest: for each of its training rows that
/// some tree left out, the mean of those trees' leaves.
fn out_of_bag(
    trees: &[Tree<[f64; 3]>],
    sampling: ForestSampling,
    rows: &[u32],
    x: &FeatureMatrixView<'_>,
    fill: &[f64],
) -> OutOfBag {
    let n = rows.len();
    let (mut sums, mut counts) = (vec![[0.0; 3]; n], vec![0u32; n]);
    for (t, tree) in trees.iter().enumerate() {
        let drawn = forest_sample_counts(sampling, t, n);
        for k in (0..n).filter(|&k| drawn[k] == 0.0) {
            let leaf = tree.leaf_for(x.row(rows[k] as usize), fill);
            (0..3).for_each(|c| sums[k][c] += leaf[c]);
            counts[k] += 1;
        }
    }
    (0..n).filter(|&k| counts[k] > 0).map(|k| (rows[k], sums[k].map(|v| v / counts[k] as f64))).collect()
}

impl PairwisePlrModel {
    /// Chooses BPA's beta by out-of-bag mean tau_x (see the module); `oob` per pair.
    fn tune_beta(&mut self, y: &RankMatrixView<'_>, oob: &[OutOfBag]) {
        let pairs: Vec<(u32, u32)> = self.pairs.iter().map(|p| (p.a, p.b)).collect();
        let (scores, best) = choose_beta(y, &pairs, oob, self.params.tie_weighting, self.params.consensus);
        self.beta_scores = scores;
        if let Some(beta) = best {
            self.consensus.beta = beta;
        }
    }
}

/// Sets the pair-order matrix entries of pair (a, b) from its class probabilities (1/2 without).
fn set_pair(c: &mut [f64], m: usize, a: u32, b: u32, probabilities: Option<[f64; 3]>, weighting: TieWeighting) {
    let (a, b) = (a as usize, b as usize);
    let value = probabilities.map_or(0.5, |p| weighting.preference(p));
    c[a * m + b] = value;
    c[b * m + a] = 1.0 - value;
}

/// Rows per block of [`predict_matrices`]: a block holds a pair-order matrix per row (m = 20:
/// 3 MB).
const MATRIX_BLOCK_ROWS: usize = 1024;

/// The consensus bucket order of each row's pair-order matrix, as `fill_matrices` writes them for
/// a block of rows (their matrices one after the other, entries starting at 1/2, with a scratch
/// of each thread's made by `init`); the scores are the matrix's Borda scores (Σ_b C_ab). Each
/// block's consensus is taken where its matrices were filled (in parallel, in bounded memory).
fn predict_matrices<S>(
    x: &FeatureMatrixView<'_>,
    m: usize,
    consensus: &BucketConsensus,
    outputs: Outputs,
    init: impl Fn() -> S + Send + Sync,
    fill_matrices: impl Fn(&mut S, std::ops::Range<usize>, &mut [f64]) + Sync,
) -> Prediction {
    let ranked = fill_row_blocks_upto(
        x,
        m,
        MATRIX_BLOCK_ROWS,
        || (init(), Vec::new()),
        |(scratch, matrices): &mut (S, Vec<f64>), rows, out: &mut [(i32, f64)]| {
            matrices.clear();
            matrices.resize(rows.len() * m * m, 0.5);
            fill_matrices(scratch, rows, matrices);
            for (c, out) in matrices.chunks_exact(m * m).zip(out.chunks_exact_mut(m)) {
                let ranks = consensus.of_matrix(&PairOrderMatrix::from_entries(m, c.to_vec()));
                for (i, (o, r)) in out.iter_mut().zip(ranks).enumerate() {
                    let score = if outputs.scores { (0..m).filter(|&j| j != i).map(|j| c[i * m + j]).sum() } else { 0.0 };
                    *o = (r, score);
                }
            }
        },
    );
    let ranks = ranked.iter().map(|&(r, _)| r).collect();
    let scores = outputs.scores.then(|| ranked.iter().map(|&(_, s)| s).collect());
    Prediction { ranks, confidence: None, scores }
}

/// Mean tau_x of each BPA beta of [`BETA_CANDIDATES`] over the training rows some pair has an
/// estimate for (`estimates`, per pair of `pairs`: row and class probabilities), and the best
/// beta (ties to the larger), if any score is finite.
fn choose_beta(
    y: &RankMatrixView<'_>,
    pairs: &[(u32, u32)],
    estimates: &[OutOfBag],
    weighting: TieWeighting,
    consensus: BucketConsensus,
) -> (Vec<BetaScore>, Option<f64>) {
    let (n, m) = (y.n_rows(), y.n_labels());
    let mut matrices = vec![0.5; n * m * m];
    let mut seen = vec![false; n];
    for (&(a, b), entries) in pairs.iter().zip(estimates) {
        for &(row, p) in entries {
            let i = row as usize;
            set_pair(&mut matrices[i * m * m..(i + 1) * m * m], m, a, b, Some(p), weighting);
            seen[i] = true;
        }
    }
    let per_row: Vec<Vec<f64>> = (0..n)
        .into_par_iter()
        .filter(|&i| seen[i])
        .map(|i| {
            let c = PairOrderMatrix::from_entries(m, matrices[i * m * m..(i + 1) * m * m].to_vec());
            BETA_CANDIDATES.iter().map(|&beta| tau_x(y.row(i), &BucketConsensus { beta, ..consensus }.of_matrix(&c))).collect()
        })
        .collect();
    let scores: Vec<BetaScore> = BETA_CANDIDATES
        .iter()
        .enumerate()
        .map(|(k, &beta)| {
            let taus: Vec<f64> = per_row.iter().map(|r| r[k]).filter(|t| t.is_finite()).collect();
            let mean = if taus.is_empty() { f64::NAN } else { taus.iter().sum::<f64>() / taus.len() as f64 };
            BetaScore { beta, tau_x: mean }
        })
        .collect();
    let mut best: Option<BetaScore> = None;
    for score in &scores {
        if score.tau_x.is_finite() && best.is_none_or(|b| score.tau_x > b.tau_x) {
            best = Some(*score);
        }
    }
    (scores, best.map(|b| b.beta))
}

mod logistic;

pub use logistic::{PairwisePlrLogisticModel, PairwisePlrLogisticParams, RelationLogit};

#[cfg(test)]
mod tests;
