//! The one list of learners. The macro below turns it into the dispatch types: [`LearnerParams`]
//! (a learner and its parameters) and [`Model`] (a fitted model), both serde enums whose
//! variant names and order are the model files' (new learners go at the end), and into
//! [`KINDS`], the learners' names. Both enums implement the same traits as the learners
//! themselves, so meta-learners (bagging) hold them like any learner.

use crate::data::features::FeatureMatrixView;
use crate::data::training::TrainingSet;
use crate::error::Result;
use crate::learner::{Header, Learner, Outputs, Params, Prediction};
use crate::learners::bagging::BaggingModel;
use crate::learners::boosting::BoostingModel;
use crate::learners::dummy::DummyModel;
use crate::learners::gradient_boosting::GradientBoostingModel;
use crate::learners::label_tree::LabelTreeModel;
use crate::learners::labelwise::LabelwiseModel;
use crate::learners::labelwise_plr::LabelwisePlrModel;
use crate::learners::linear::LinearModel;
use crate::learners::neighbors::InstanceBasedModel;
use crate::learners::neighbors_plr::InstanceBasedPlrModel;
use crate::learners::one_vs_one::PairwiseModel;
use crate::learners::pairwise_plr::{PairwisePlrLogisticModel, PairwisePlrModel};
use crate::learners::plr_tree::PlrTreeModel;
use crate::learners::random_forest::RandomForestModel;
use crate::learners::rpc::RpcModel;
use crate::neighbours::NearestRows;
use serde::{Deserialize, Serialize};

macro_rules! learners {
    ($($kind:ident => $model:ty,)*) => {
        /// A learner and its parameters (serde: externally tagged, e.g. `{"LabelTree": {...}}`).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub enum LearnerParams {
            $($kind(<$model as Learner>::Params),)*
        }

        /// A fitted model of any learner.
        // Models are built once and moved rarely; boxing the large variants would buy nothing.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub enum Model {
            $($kind($model),)*
        }

        /// The learners' names, in the order of the enums' variants.
        pub const KINDS: &[&str] = &[$(stringify!($kind),)*];

        impl LearnerParams {
            /// The learner's name (one of [`KINDS`]).
            pub fn kind(&self) -> &'static str {
                match self {
                    $(LearnerParams::$kind(_) => stringify!($kind),)*
                }
            }
        }

        impl Params for LearnerParams {
            fn validate(&self) -> Result<()> {
                match self {
                    $(LearnerParams::$kind(p) => p.validate(),)*
                }
            }
            fn seed(&self) -> u64 {
                match self {
                    $(LearnerParams::$kind(p) => p.seed(),)*
                }
            }
            fn set_seed(&mut self, seed: u64) {
                match self {
                    $(LearnerParams::$kind(p) => p.set_seed(seed),)*
                }
            }
            fn models(&self) -> u64 {
                match self {
                    $(LearnerParams::$kind(p) => p.models(),)*
                }
            }
            fn tie_refusal(&self) -> Option<&'static str> {
                match self {
                    $(LearnerParams::$kind(p) => p.tie_refusal(),)*
                }
            }
            fn weights_scale_free(&self) -> bool {
                match self {
                    $(LearnerParams::$kind(p) => p.weights_scale_free(),)*
                }
            }
        }

        impl Model {
            /// The learner's name (one of [`KINDS`]).
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Model::$kind(_) => stringify!($kind),)*
                }
            }
        }

        impl Learner for Model {
            type Params = LearnerParams;

            fn fit(params: LearnerParams, data: &TrainingSet<'_>) -> Result<Model> {
                Ok(match params {
                    $(LearnerParams::$kind(p) => Model::$kind(<$model as Learner>::fit(p, data)?),)*
                })
            }
            fn header(&self) -> Header {
                match self {
                    $(Model::$kind(m) => m.header(),)*
                }
            }
            fn params(&self) -> LearnerParams {
                match self {
                    $(Model::$kind(m) => LearnerParams::$kind(m.params()),)*
                }
            }
            fn predict(&self, x: &FeatureMatrixView<'_>, outputs: Outputs) -> Result<Prediction> {
                match self {
                    $(Model::$kind(m) => m.predict(x, outputs),)*
                }
            }
            fn member_ranks(&self, x: &FeatureMatrixView<'_>) -> Result<Option<Vec<i32>>> {
                match self {
                    $(Model::$kind(m) => m.member_ranks(x),)*
                }
            }
            fn out_of_bag(&self, data: &TrainingSet<'_>) -> Result<Option<Vec<i32>>> {
                match self {
                    $(Model::$kind(m) => m.out_of_bag(data),)*
                }
            }
            fn kneighbors(&self, x: Option<&FeatureMatrixView<'_>>, k: Option<usize>) -> Result<Option<NearestRows>> {
                match self {
                    $(Model::$kind(m) => m.kneighbors(x, k),)*
                }
            }
            fn leaf_rankings(&self) -> Vec<Vec<Vec<i32>>> {
                match self {
                    $(Model::$kind(m) => m.leaf_rankings(),)*
                }
            }
            fn add_trees(self, n_estimators: usize, data: &TrainingSet<'_>) -> Result<Self> {
                match self {
                    $(Model::$kind(m) => m.add_trees(n_estimators, data).map(Model::$kind),)*
                }
            }
            fn summary(&self) -> serde_json::Value {
                match self {
                    $(Model::$kind(m) => m.summary(),)*
                }
            }
            fn split_trees(&self) -> Vec<crate::tree::SplitTree<'_>> {
                match self {
                    $(Model::$kind(m) => m.split_trees(),)*
                }
            }
            fn routed_trees(&self) -> Vec<crate::tree::SplitTree<'_>> {
                match self {
                    $(Model::$kind(m) => m.routed_trees(),)*
                }
            }
            fn split_importances(
                &self,
                x: &FeatureMatrixView<'_>,
                y: &crate::data::ranking::RankMatrixView<'_>,
                weights: &[f64],
            ) -> Result<Option<Vec<f64>>> {
                match self {
                    $(Model::$kind(m) => m.split_importances(x, y, weights),)*
                }
            }
            fn has_split_importances(&self) -> bool {
                match self {
                    $(Model::$kind(m) => m.has_split_importances(),)*
                }
            }
            fn check(&self) -> std::result::Result<(), String> {
                match self {
                    $(Model::$kind(m) => m.check(),)*
                }
            }
            fn merge(models: Vec<Model>, fill_values: Vec<f64>) -> Result<Model> {
                let kind = models.first().map(|m| m.kind()).ok_or_else(|| crate::error::invalid("nothing to merge"))?;
                match models[0] {
                    $(Model::$kind(_) => {
                        let parts = models
                            .into_iter()
                            .map(|m| match m {
                                Model::$kind(inner) => Ok(inner),
                                other => Err(crate::error::invalid(format!("cannot merge a {} model into {kind} models", other.kind()))),
                            })
                            .collect::<Result<Vec<_>>>()?;
                        <$model as Learner>::merge(parts, fill_values)
                            .map(Model::$kind)
                            .map_err(|e| crate::error::invalid(format!("{kind}: {e}")))
                    })*
                }
            }
        }
    };
}

learners! {
    RandomForest => RandomForestModel,
    InstanceBased => InstanceBasedModel,
    LabelTree => LabelTreeModel,
    Bagging => BaggingModel<LearnerParams, Model>,
    Labelwise => LabelwiseModel,
    Pairwise => PairwiseModel,
    Rpc => RpcModel,
    Dummy => DummyModel,
    Boosting => BoostingModel<LearnerParams, Model>,
    PlrTree => PlrTreeModel,
    PairwisePlr => PairwisePlrModel,
    InstanceBasedPlr => InstanceBasedPlrModel,
    LabelwisePlr => LabelwisePlrModel,
    GradientBoosting => GradientBoostingModel,
    PairwisePlrLogistic => PairwisePlrLogisticModel,
    Linear => LinearModel,
}

impl LearnerParams {
    /// Parameters from their serde JSON form (e.g. `{"Dummy": {"aggregator": "Borda", "seed": 0}}`).
    pub fn from_json(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| crate::error::invalid(format!("invalid learner parameters: {e}")))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("parameters are plain data")
    }
}

/// Model files of the previous format version are read through their own layouts.
impl crate::model_io::Upgrade for Model {
    type Previous = previous::ModelV2;
}

pub mod exact;
mod previous;

impl crate::model_io::Checked for Model {
    fn check(&self) -> std::result::Result<(), String> {
        Learner::check(self)
    }
}

/// Validates the parameters, checks the training set and fits any learner.
pub fn fit(
    params: LearnerParams,
    x: FeatureMatrixView<'_>,
    y: crate::data::ranking::RankMatrixView<'_>,
    sample_weight: Option<&[f64]>,
) -> Result<Model> {
    crate::learner::fit_checked::<Model>(params, x, y, sample_weight)
}

/// `model` with trees added up to `n_estimators`, grown on its training data (warm_start).
pub fn add_trees(
    model: Model,
    n_estimators: usize,
    x: FeatureMatrixView<'_>,
    y: crate::data::ranking::RankMatrixView<'_>,
    sample_weight: Option<&[f64]>,
) -> Result<Model> {
    crate::learner::add_trees_checked(model, n_estimators, x, y, sample_weight)
}

/// Out-of-bag predictions on `model`'s training data ([`Learner::out_of_bag`]), or `None` for
/// learners without bootstrap members.
pub fn out_of_bag(
    model: &Model,
    x: FeatureMatrixView<'_>,
    y: crate::data::ranking::RankMatrixView<'_>,
    sample_weight: Option<&[f64]>,
) -> Result<Option<Vec<i32>>> {
    crate::data::features::check_n_features(&x, model.header().n_features)?;
    let data = TrainingSet::new(x, y, sample_weight)?;
    if data.y.n_labels() != model.header().n_labels {
        return Err(crate::error::invalid(format!(
            "the model ranks {} labels but Y has {}",
            model.header().n_labels,
            data.y.n_labels()
        )));
    }
    model.out_of_bag(&data)
}

/// Each row's leaf node in each of the model's trees (rows x trees), or `None` for a model
/// without trees.
pub fn apply(model: &Model, x: &FeatureMatrixView<'_>) -> Result<Option<(Vec<u32>, usize)>> {
    crate::data::features::check_n_features(x, model.header().n_features)?;
    let trees = model.routed_trees();
    if trees.is_empty() {
        return Ok(None);
    }
    Ok(Some((crate::tree::importance::leaf_nodes(&trees, x)?, trees.len())))
}

/// Each tree's depth and number of leaves, in the order of [`apply`]'s trees (empty for a model
/// without trees).
pub fn tree_shapes(model: &Model) -> Vec<(usize, usize)> {
    model.routed_trees().iter().map(|t| t.shape()).collect()
}

/// [`Learner::kneighbors`] of `model` on the rows of `x` (the feature count checked), or of the
/// training rows without `x`.
pub fn kneighbors(model: &Model, x: Option<&FeatureMatrixView<'_>>, k: Option<usize>) -> Result<Option<NearestRows>> {
    if let Some(x) = x {
        crate::data::features::check_n_features(x, model.header().n_features)?;
    }
    model.kneighbors(x, k)
}

/// A tree's nodes and, where its leaves hold one, each leaf's ranking ([`tree_nodes`]).
pub type TreeNodes = (Vec<crate::tree::Node>, Option<Vec<Vec<i32>>>);

/// Tree `index` of [`apply`]'s trees as nodes (a split's feature, threshold or category value,
/// and children; a leaf's index) and, for learners whose leaves hold one, each leaf's ranking.
pub fn tree_nodes(model: &Model, index: usize) -> Result<TreeNodes> {
    let trees = model.routed_trees();
    let tree = trees
        .get(index)
        .ok_or_else(|| crate::error::invalid(format!("tree {index} of a model with {} tree(s) (counted from 0)", trees.len())))?;
    Ok((tree.nodes.to_vec(), model.leaf_rankings().into_iter().nth(index)))
}

/// Each feature's share of the impurity decrease of the model's splits on its training data
/// ([`crate::tree::split_importances`]), or `None` for a model without trees.
pub fn split_importances(
    model: &Model,
    x: FeatureMatrixView<'_>,
    y: crate::data::ranking::RankMatrixView<'_>,
    sample_weight: Option<&[f64]>,
) -> Result<Option<Vec<f64>>> {
    if !model.has_split_importances() {
        return Ok(None);
    }
    let header = model.header();
    crate::data::features::check_n_features(&x, header.n_features)?;
    if y.n_labels() != header.n_labels {
        return Err(crate::error::invalid(format!("Y has {} labels, the model {}", y.n_labels(), header.n_labels)));
    }
    let data = TrainingSet::new(x, y, sample_weight)?;
    model.split_importances(&data.x, &data.y, &data.weights)
}
