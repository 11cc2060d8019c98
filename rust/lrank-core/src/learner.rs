//! Every learner of the core behind one interface: [`LearnerParams`] fits a [`Model`], and a
//! model predicts rank matrices. Meta-learners (bagging) hold their base learner's parameters
//! as a `LearnerParams` and their members as `Model`s; the bindings fit any learner from its
//! parameters in JSON.

use crate::bagging::{BaggingModel, BaggingParams};
use crate::error::Result;
use crate::features::FeatureMatrixView;
use crate::forest::{RandomForestModel, RandomForestParams};
use crate::label_tree::{LabelTreeModel, LabelTreeParams};
use crate::labelwise::{LabelwiseModel, LabelwiseParams};
use crate::model_io::Model;
use crate::neighbors::{InstanceBasedModel, InstanceBasedParams};
use crate::pairwise::{PairwiseModel, PairwiseParams};
use crate::ranking::RankMatrixView;
use crate::rpc::{RpcModel, RpcParams};
use serde::{Deserialize, Serialize};

/// A learner and its parameters (serde: externally tagged, e.g. `{"LabelTree": {...}}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LearnerParams {
    RandomForest(RandomForestParams),
    InstanceBased(InstanceBasedParams),
    LabelTree(LabelTreeParams),
    Bagging(BaggingParams),
    Labelwise(LabelwiseParams),
    Pairwise(PairwiseParams),
    Rpc(RpcParams),
}

impl LearnerParams {
    /// Fits the learner (on the current rayon pool).
    pub fn fit(&self, x: &FeatureMatrixView<'_>, y: &RankMatrixView<'_>, sample_weight: Option<&[f64]>) -> Result<Model> {
        Ok(match self {
            LearnerParams::RandomForest(p) => Model::RandomForest(RandomForestModel::fit(x, y, sample_weight, p.clone())?),
            LearnerParams::InstanceBased(p) => Model::InstanceBased(InstanceBasedModel::fit(x, y, sample_weight, p.clone())?),
            LearnerParams::LabelTree(p) => Model::LabelTree(LabelTreeModel::fit(x, y, sample_weight, p.clone())?),
            LearnerParams::Bagging(p) => Model::Bagging(BaggingModel::fit(x, y, sample_weight, p.clone())?),
            LearnerParams::Labelwise(p) => Model::Labelwise(LabelwiseModel::fit(x, y, sample_weight, p.clone())?),
            LearnerParams::Pairwise(p) => Model::Pairwise(PairwiseModel::fit(x, y, sample_weight, p.clone())?),
            LearnerParams::Rpc(p) => Model::Rpc(RpcModel::fit(x, y, sample_weight, p.clone())?),
        })
    }

    /// The same learner with another random seed (ensembles give each member its own).
    pub fn with_seed(&self, seed: u64) -> LearnerParams {
        let mut p = self.clone();
        match &mut p {
            LearnerParams::RandomForest(q) => q.seed = seed,
            LearnerParams::InstanceBased(q) => q.seed = seed,
            LearnerParams::LabelTree(q) => q.seed = seed,
            LearnerParams::Bagging(q) => q.seed = seed,
            LearnerParams::Labelwise(q) => q.seed = seed,
            LearnerParams::Pairwise(q) => q.seed = seed,
            LearnerParams::Rpc(q) => q.seed = seed,
        }
        p
    }
}

impl Model {
    /// Predicted rank matrix (n x m, row-major, complete rankings).
    pub fn predict(&self, x: &FeatureMatrixView<'_>) -> Result<Vec<i32>> {
        match self {
            // Computing a confidence per row is not free: skip it when only ranks are wanted.
            Model::InstanceBased(m) => m.predict_ranks(x),
            _ => Ok(self.predict_with_confidence(x)?.0),
        }
    }

    /// Predicted rank matrix and, for learners that have one, a per-row confidence (the
    /// Mallows spread θ of IBLR's neighbourhood or of LRT's leaf).
    pub fn predict_with_confidence(&self, x: &FeatureMatrixView<'_>) -> Result<(Vec<i32>, Option<Vec<f64>>)> {
        Ok(match self {
            Model::RandomForest(m) => (m.predict(x)?, None),
            Model::InstanceBased(m) => {
                let (r, t) = m.predict(x)?;
                (r, Some(t))
            }
            Model::LabelTree(m) => {
                let (r, t) = m.predict(x)?;
                (r, Some(t))
            }
            Model::Bagging(m) => (m.predict(x)?, None),
            Model::Labelwise(m) => (m.predict(x)?, None),
            Model::Pairwise(m) => (m.predict(x)?, None),
            Model::Rpc(m) => (m.predict(x)?, None),
        })
    }

    pub fn n_labels(&self) -> usize {
        match self {
            Model::RandomForest(m) => m.n_labels,
            Model::InstanceBased(m) => m.n_labels,
            Model::LabelTree(m) => m.n_labels,
            Model::Bagging(m) => m.n_labels,
            Model::Labelwise(m) => m.n_labels,
            Model::Pairwise(m) => m.n_labels,
            Model::Rpc(m) => m.n_labels,
        }
    }

    pub fn n_features(&self) -> usize {
        match self {
            Model::RandomForest(m) => m.n_features,
            Model::InstanceBased(m) => m.n_features,
            Model::LabelTree(m) => m.n_features,
            Model::Bagging(m) => m.n_features,
            Model::Labelwise(m) => m.n_features,
            Model::Pairwise(m) => m.n_features,
            Model::Rpc(m) => m.n_features,
        }
    }

    /// Per-row label scores behind the ranking, for learners that have them (n x m): the
    /// labelwise learners' predicted relative positions (lower is preferred); the pairwise
    /// learners' votes (higher is preferred).
    pub fn predict_scores(&self, x: &FeatureMatrixView<'_>) -> Result<Option<Vec<f64>>> {
        Ok(match self {
            Model::Labelwise(m) => Some(m.predict_scores(x)?),
            Model::Pairwise(m) => Some(m.predict_scores(x)?),
            Model::Rpc(m) => Some(m.predict_scores(x)?),
            _ => None,
        })
    }

    /// What a fitted model found out, beyond its parameters (tuned settings, sizes), as JSON.
    pub fn summary(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            Model::RandomForest(m) => json!({"tree_depths": m.trees.iter().map(|t| t.depth()).collect::<Vec<_>>()}),
            Model::InstanceBased(m) => json!({"k": m.k}),
            Model::LabelTree(m) => json!({"depth": m.tree.depth(), "n_leaves": m.tree.n_leaves()}),
            Model::Bagging(m) => json!({"n_members": m.members.len()}),
            Model::Labelwise(m) => json!({
                "max_depth": m.max_depth,
                "depth_scores": m.depth_scores.iter().map(|s| json!({"max_depth": s.max_depth, "tau": s.tau})).collect::<Vec<_>>(),
                "tree_depths": m.trees.iter().map(|t| t.depth()).collect::<Vec<_>>(),
                "tree_n_leaves": m.trees.iter().map(|t| t.n_leaves()).collect::<Vec<_>>(),
            }),
            Model::Rpc(m) => json!({
                "n_pairs": m.pairs.len(),
                "not_converged": m.pairs.iter().filter(|p| !p.converged).count(),
                "max_iterations": m.pairs.iter().map(|p| p.iterations).max(),
            }),
            Model::Pairwise(m) => json!({
                "n_pairs": m.pairs.len(),
                "pairs_without_data": m.pairs.iter().filter(|p| p.trees.is_empty()).count(),
            }),
        }
    }

    /// The parameters the model was fitted with.
    pub fn params(&self) -> LearnerParams {
        match self {
            Model::RandomForest(m) => LearnerParams::RandomForest(m.params.clone()),
            Model::InstanceBased(m) => LearnerParams::InstanceBased(m.params.clone()),
            Model::LabelTree(m) => LearnerParams::LabelTree(m.params.clone()),
            Model::Bagging(m) => LearnerParams::Bagging(m.params.clone()),
            Model::Labelwise(m) => LearnerParams::Labelwise(m.params.clone()),
            Model::Pairwise(m) => LearnerParams::Pairwise(m.params.clone()),
            Model::Rpc(m) => LearnerParams::Rpc(m.params.clone()),
        }
    }
}
