//! The one tree-growing engine of lrank.
//!
//! A tree is grown top-down on weighted samples (bootstrap multiplicities become weights). What
//! makes a learner is plugged in:
//! - a [`SplitCriterion`] summarises a node once ([`SplitCriterion::node_stats`]), decides when
//!   it is terminal, and scores the boundaries of one feature through a [`BoundarySweep`] that
//!   the engine's one [`sweep`] drives over the node's samples sorted by that feature;
//! - a [`LeafFitter`] turns the samples that reach a leaf into the leaf's model.
//!
//! Splits are binary. A numeric feature splits at a threshold, `x <= threshold` going left, both
//! when growing and when routing; the threshold is the midpoint between consecutive distinct
//! values of the node, chosen by the criterion ([`ThresholdRule::Best`]) or fixed by an
//! unsupervised rule ([`ThresholdRule::EqualWidth`], [`ThresholdRule::EqualFrequency`], via
//! [`crate::discretisation`]). A nominal feature splits one value against the rest, `x == value`
//! going left (beyond the papers, which have numeric attributes only).
//!
//! A node's samples are sorted per feature by integer ranks computed once per fit. A single tree
//! that scores every feature in every node, each sample once (LRT), sorts only at the root:
//! its nodes carry their samples in every feature's order, and a split partitions those orders
//! stably (same trees, less work).
//!
//! Files: [`params`] (what a growth is asked for), [`model`] (a grown tree), [`layout`] (the
//! features as the search reads them), [`sweep`](mod@sweep) (the boundary sweep and the criterion
//! interface), [`criteria`] (criteria shared by learners), `split` (a node's split search),
//! `grow` (one tree), [`ensemble`] (forests, and the choice between a forest and one tree),
//! [`levelwise`] (a forest grown level by level from sums over parts of the rows: the exact
//! distributed forest),
//! [`regression`] (multi-output regression of per-label targets), [`walk`] (many rows routed at
//! once, for prediction), [`importance`] (each feature's share of the splits' impurity decrease).

pub mod additive;
pub mod bins;
pub mod criteria;
pub mod ensemble;
mod grow;
mod histogram;
pub mod importance;
pub mod layout;
pub mod levelwise;
pub mod model;
pub mod out_of_bag;
pub mod params;
pub mod regression;
mod split;
pub mod sweep;
pub mod walk;

pub use crate::data::features::FeatureKind;
pub use additive::{additive_best_boundary, AdditiveCriterion, FixedXlnx, SidesTask, SplitSides};
pub use bins::{bin_sample_rows, check_max_bins, feature_edges, BinLayout, Bins, FeatureEdges, BIN_SAMPLE_ROWS, MAX_BINS};
pub use criteria::{ClassEntropy, PairwiseEntropy, XlnxTable};
pub use ensemble::{all_rows, forest_sample_counts, grow_forest, grow_forest_additive, ForestSampling, Growth};
pub use grow::{grow_tree, grow_tree_with, LeafFitter, TreeRandomness};
pub use importance::{split_importances, SplitTree};
pub use layout::{TrainingFeatures, TreeInputs};
pub use levelwise::{part_sums, LevelGrower, LevelPlan, SummedLeaf};
pub use model::{Node, Tree};
pub use out_of_bag::{bootstrap_sampling, out_of_bag_ranks, out_of_bag_rows, out_of_bag_rows_of};
pub use params::{node_weight, GrowParams, MaxFeatures, ThresholdRule, MAX_TREE_DEPTH};
pub use regression::{LabelwiseVariance, MeanScores, NodeSums, ScoreLeaf, Targets, UnitSquares, VarianceSides};
pub use sweep::{sweep, Boundaries, BoundarySweep, SortedSample, SplitCriterion};
pub use walk::{filled_rows, BlockRows, FlatTree, FlatTrees, ForestLeaves};

#[cfg(test)]
pub(crate) mod histogram_tests;
#[cfg(test)]
mod tests;
