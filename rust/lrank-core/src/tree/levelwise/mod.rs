//! Forests grown level by level from statistics summed over parts of the rows: the exact
//! distributed forest. The rows are split into parts (a cluster's partitions, each on a worker);
//! a driver ([`LevelGrower`]) holds the trees as far as they are grown and, each round, plans
//! which open nodes need what ([`LevelPlan`]); each part sums, for every open node, its rows'
//! weights, leaf statistics and histograms ([`part_sums`]); the driver adds the parts' sums and
//! decides the nodes, as the histogram search would.
//!
//! The forest is the one [`super::grow_forest_additive`] grows on all rows with per-node seeds
//! ([`super::ForestSampling::node_seeds`]), bit for bit, when the bins are the same
//! ([`super::bins`] cuts them from rows each part can find) and the weights whole numbers:
//! - each part replays its rows' bootstrap counts from the tree's stream (the same draws);
//! - a node's random stream comes from its parent's seed, so no node waits for another
//!   subtree, and its features are drawn and scored in the same order;
//! - sums of whole numbers are exact in any order, and the criteria's scores depend only on
//!   sums ([`AdditiveCriterion`]), so the same split wins, ties included; leaf models depend on
//!   sums too ([`SummedLeaf`]);
//! - the histogram search's small nodes sort their samples by bin, which gives the same split
//!   as their histograms (the engine's invariant), so the driver always uses histograms.
//!
//! Every feature must be binned (a nominal one with more categories than bins is searched
//! exactly, which needs its rows).

mod driver;
mod exact;
mod features;
mod parts;
mod rows;

pub use driver::LevelGrower;
pub use exact::ExactGrowth;
pub(crate) use features::forest_shape;
pub use features::{
    check_part, decode, encode, part_bin_counts, part_codes, part_values_in_bins, parts_data, summarise_part, ForestShape,
    Medians, PartSummary, PartsData, MAX_RANKINGS,
};
pub use parts::{check_codes, part_sums, records, LevelPlan, PlanNode};

/// A leaf model fitted from sums over its samples.
pub trait SummedLeaf: Sync {
    type Leaf: Send + Sync;
    /// Numbers the leaf's model sums over its samples.
    fn n_leaf_stats(&self) -> usize;
    /// Adds what `weight` copies of `sample` contribute.
    fn add_leaf_stats(&self, sample: u32, weight: f64, out: &mut [f64]);
    /// The model of samples of total `weight` whose statistics sum to `sums`.
    fn leaf_from_sums(&self, weight: f64, sums: &[f64]) -> Self::Leaf;
    /// Whether samples whose statistics sum to `sums` make a terminal node, when the criterion's
    /// own test needs more than its sums (the labelwise criterion: every label's targets equal);
    /// it must agree with [`crate::tree::SplitCriterion::is_terminal`] of those samples.
    fn is_terminal(&self, _weight: f64, _sums: &[f64]) -> bool {
        false
    }
}

/// Numbers an open node's sums start with: samples, their weight, and how many of their
/// weights are not whole numbers.
const HEAD: usize = 3;
/// Numbers per bin before a criterion's statistics (as in the histogram search).
const BIN_HEAD: usize = 2;
