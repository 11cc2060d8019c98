//! Model files of format version 2 (before the histogram search and LR-RF's missing-label
//! protocol): the layouts of the learners whose parameters or models have changed since, read
//! and converted to the current types (searching exactly, as they were grown; the other learners'
//! layouts are unchanged). Files that `lrank` wrote before keep loading and predicting the same.

use super::{LearnerParams, Model};
use crate::learners::bagging::{BaggingModel, BaggingParams};
use crate::learners::dummy::{DummyModel, DummyParams};
use crate::learners::label_tree::{LabelTreeModel, LabelTreeParams};
use crate::learners::labelwise::{DepthScore, LabelwiseModel, LabelwiseParams};
use crate::learners::neighbors::{InstanceBasedModel, InstanceBasedParams};
use crate::learners::one_vs_one::{PairClassifier, PairwiseModel, PairwiseParams, PairwiseVoting};
use crate::learners::random_forest::{ClassMode, RandomForestModel, RandomForestParams, RankingLeaf};
use crate::learners::rpc::{RpcModel, RpcParams};
use crate::tree::ScoreLeaf;
use crate::tree::{MaxFeatures, Tree};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct RandomForestParamsV2 {
    n_estimators: usize,
    max_depth: Option<usize>,
    max_features: MaxFeatures,
    class_mode: ClassMode,
    bootstrap: bool,
    seed: u64,
    entropy_epsilon: f64,
}

impl From<RandomForestParamsV2> for RandomForestParams {
    fn from(p: RandomForestParamsV2) -> Self {
        RandomForestParams {
            n_estimators: p.n_estimators,
            max_depth: p.max_depth,
            max_features: p.max_features,
            class_mode: p.class_mode,
            bootstrap: p.bootstrap,
            seed: p.seed,
            entropy_epsilon: p.entropy_epsilon,
            max_bins: None,
            leaf_missing: 0.0,
            node_seeds: false,
        }
    }
}

#[derive(Deserialize)]
struct RankingLeafV2 {
    ranking: Vec<i32>,
    weight: f64,
}

#[derive(Deserialize)]
pub struct RandomForestModelV2 {
    params: RandomForestParamsV2,
    n_features: usize,
    n_labels: usize,
    fill_values: Vec<f64>,
    trees: Vec<Tree<RankingLeafV2>>,
}

impl From<RandomForestModelV2> for RandomForestModel {
    fn from(m: RandomForestModelV2) -> Self {
        let params = RandomForestParams::from(m.params);
        let trees = m
            .trees
            .into_iter()
            .map(|t| Tree {
                nodes: t.nodes,
                leaves: t
                    .leaves
                    .into_iter()
                    .map(|l| RankingLeaf { ranking: l.ranking, weight: l.weight, members: Vec::new() })
                    .collect(),
            })
            .collect();
        // Version 2 had no automatic class mode: the mode asked for is the one used.
        let class_mode = params.class_mode;
        RandomForestModel {
            params,
            n_features: m.n_features,
            n_labels: m.n_labels,
            fill_values: m.fill_values,
            trees,
            class_mode,
            neighbours: None,
            flat: Default::default(),
        }
    }
}

#[derive(Deserialize)]
pub struct LabelwiseParamsV2 {
    n_estimators: usize,
    bootstrap: bool,
    max_features: MaxFeatures,
    max_depth: Option<usize>,
    min_samples_split: f64,
    min_samples_leaf: f64,
    tune_depth: bool,
    seed: u64,
}

impl From<LabelwiseParamsV2> for LabelwiseParams {
    fn from(p: LabelwiseParamsV2) -> Self {
        LabelwiseParams {
            n_estimators: p.n_estimators,
            bootstrap: p.bootstrap,
            max_features: p.max_features,
            max_depth: p.max_depth,
            min_samples_split: p.min_samples_split,
            min_samples_leaf: p.min_samples_leaf,
            tune_depth: p.tune_depth,
            seed: p.seed,
            max_bins: None,
            node_seeds: false,
        }
    }
}

#[derive(Deserialize)]
pub struct LabelwiseModelV2 {
    params: LabelwiseParamsV2,
    max_depth: Option<usize>,
    depth_scores: Vec<DepthScore>,
    n_features: usize,
    n_labels: usize,
    fill_values: Vec<f64>,
    trees: Vec<Tree<ScoreLeaf>>,
}

impl From<LabelwiseModelV2> for LabelwiseModel {
    fn from(m: LabelwiseModelV2) -> Self {
        LabelwiseModel {
            params: m.params.into(),
            max_depth: m.max_depth,
            depth_scores: m.depth_scores,
            n_features: m.n_features,
            n_labels: m.n_labels,
            fill_values: m.fill_values,
            trees: m.trees,
            leaf_table: Default::default(),
            flat: Default::default(),
        }
    }
}

#[derive(Deserialize)]
pub struct PairwiseParamsV2 {
    n_estimators: usize,
    bootstrap: bool,
    max_features: MaxFeatures,
    max_depth: Option<usize>,
    min_samples_split: f64,
    voting: PairwiseVoting,
    seed: u64,
}

impl From<PairwiseParamsV2> for PairwiseParams {
    fn from(p: PairwiseParamsV2) -> Self {
        PairwiseParams {
            n_estimators: p.n_estimators,
            bootstrap: p.bootstrap,
            max_features: p.max_features,
            max_depth: p.max_depth,
            min_samples_split: p.min_samples_split,
            voting: p.voting,
            seed: p.seed,
            max_bins: None,
            node_seeds: false,
        }
    }
}

#[derive(Deserialize)]
pub struct PairwiseModelV2 {
    params: PairwiseParamsV2,
    n_features: usize,
    n_labels: usize,
    fill_values: Vec<f64>,
    pairs: Vec<PairClassifier>,
}

impl From<PairwiseModelV2> for PairwiseModel {
    fn from(m: PairwiseModelV2) -> Self {
        PairwiseModel {
            params: m.params.into(),
            n_features: m.n_features,
            n_labels: m.n_labels,
            fill_values: m.fill_values,
            pairs: m.pairs,
            flat: Default::default(),
        }
    }
}

/// [`LearnerParams`] of format version 2 (same variants, in the same order).
#[derive(Deserialize)]
pub enum LearnerParamsV2 {
    RandomForest(RandomForestParamsV2),
    InstanceBased(InstanceBasedParams),
    LabelTree(LabelTreeParams),
    Bagging(BaggingParams<LearnerParamsV2>),
    Labelwise(LabelwiseParamsV2),
    Pairwise(PairwiseParamsV2),
    Rpc(RpcParams),
    Dummy(DummyParams),
}

/// [`Model`] of format version 2 (same variants, in the same order).
#[allow(clippy::large_enum_variant)]
#[derive(Deserialize)]
pub enum ModelV2 {
    RandomForest(RandomForestModelV2),
    InstanceBased(InstanceBasedModel),
    LabelTree(LabelTreeModel),
    Bagging(BaggingModel<LearnerParamsV2, ModelV2>),
    Labelwise(LabelwiseModelV2),
    Pairwise(PairwiseModelV2),
    Rpc(RpcModel),
    Dummy(DummyModel),
}

impl From<LearnerParamsV2> for LearnerParams {
    fn from(p: LearnerParamsV2) -> Self {
        match p {
            LearnerParamsV2::RandomForest(p) => LearnerParams::RandomForest(p.into()),
            LearnerParamsV2::InstanceBased(p) => LearnerParams::InstanceBased(p),
            LearnerParamsV2::LabelTree(p) => LearnerParams::LabelTree(p),
            LearnerParamsV2::Bagging(p) => LearnerParams::Bagging(bagging_params(p)),
            LearnerParamsV2::Labelwise(p) => LearnerParams::Labelwise(p.into()),
            LearnerParamsV2::Pairwise(p) => LearnerParams::Pairwise(p.into()),
            LearnerParamsV2::Rpc(p) => LearnerParams::Rpc(p),
            LearnerParamsV2::Dummy(p) => LearnerParams::Dummy(p),
        }
    }
}

fn bagging_params(p: BaggingParams<LearnerParamsV2>) -> BaggingParams<LearnerParams> {
    BaggingParams {
        base: Box::new((*p.base).into()),
        n_estimators: p.n_estimators,
        aggregator: p.aggregator,
        max_samples: p.max_samples,
        seed: p.seed,
    }
}

impl From<ModelV2> for Model {
    fn from(m: ModelV2) -> Self {
        match m {
            ModelV2::RandomForest(m) => Model::RandomForest(m.into()),
            ModelV2::InstanceBased(m) => Model::InstanceBased(m),
            ModelV2::LabelTree(m) => Model::LabelTree(m),
            ModelV2::Bagging(m) => Model::Bagging(BaggingModel {
                params: bagging_params(m.params),
                n_features: m.n_features,
                n_labels: m.n_labels,
                members: m.members.into_iter().map(Model::from).collect(),
            }),
            ModelV2::Labelwise(m) => Model::Labelwise(m.into()),
            ModelV2::Pairwise(m) => Model::Pairwise(m.into()),
            ModelV2::Rpc(m) => Model::Rpc(m),
            ModelV2::Dummy(m) => Model::Dummy(m),
        }
    }
}
