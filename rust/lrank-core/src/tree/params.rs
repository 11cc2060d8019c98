//! The parameters of a tree's growth: features per node, threshold rule, depth and node size.

use serde::{Deserialize, Serialize};

/// How many features to look at in each node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum MaxFeatures {
    /// floor(log2 d) + 1, as in Breiman's forests and Zhou & Qiu's LR-RF.
    Log2PlusOne,
    /// ceil(sqrt d).
    Sqrt,
    /// All d features (a plain, unrandomised tree).
    #[default]
    All,
    /// A fixed number (capped at d).
    Count(usize),
    /// A share of d in (0, 1], rounded down, at least one.
    Fraction(f64),
    /// floor(log2 d), at least one: scikit-learn's and scikit-lr's "log2". Last: model files
    /// number the variants in this order.
    Log2,
}

impl MaxFeatures {
    /// Refuses a count of 0 and a share outside (0, 1].
    pub fn validate(self) -> crate::Result<()> {
        let reason = match self {
            MaxFeatures::Count(0) => "must be at least 1".to_string(),
            MaxFeatures::Fraction(f) if !(f > 0.0 && f <= 1.0) => format!("a fraction must lie in (0, 1], got {f}"),
            _ => return Ok(()),
        };
        Err(crate::LrankError::InvalidParameter { name: "max_features", reason })
    }

    pub fn resolve(self, d: usize) -> usize {
        let k = match self {
            MaxFeatures::Log2PlusOne => (d.max(1) as f64).log2().floor() as usize + 1,
            MaxFeatures::Sqrt => (d as f64).sqrt().ceil() as usize,
            MaxFeatures::Log2 => (d.max(1) as f64).log2().floor() as usize,
            MaxFeatures::All => d,
            MaxFeatures::Count(k) => k,
            MaxFeatures::Fraction(f) => (f * d as f64).floor() as usize,
        };
        k.clamp(1, d.max(1))
    }
}

/// How the threshold of a numeric feature is chosen in a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThresholdRule {
    /// The boundary the criterion scores best (every boundary between distinct values is tried).
    Best,
    /// Fixed: the midpoint of the node's smallest and largest value (equal-width, 2 bins).
    EqualWidth,
    /// Fixed: the node's (weighted lower) median (equal-frequency, 2 bins).
    EqualFrequency,
}

/// The most splits on a root-to-leaf path, whatever `max_depth` asks (`None` included). Trees
/// grow by recursion, a level per call; only sample weights built to peel one row off at every
/// split (each row outweighing all lighter ones) make trees this deep, and such a chain of some
/// 3,000 levels overflowed a thread's 2 MB stack.
pub const MAX_TREE_DEPTH: usize = 1000;

/// A node-size parameter (`min_samples_split`, `min_samples_leaf`) as a weight, for a training
/// set weighing `total_weight` whose rows weigh `row_weight` on average
/// ([`TrainingSet::row_weight`](crate::data::training::TrainingSet::row_weight)): a value in
/// (0, 1) is that share of the total (scikit-learn's fraction of the samples: with unit weights,
/// a node of k rows passes exactly when k >= ceil(share x n)); any other value counts rows of
/// `row_weight`. So the trees do not depend on the scale of the weights (scikit-learn's do not):
/// weights that sum to 1 grow the trees unit weights grow, where a threshold of 2 had made every
/// tree one leaf. With unit weights a value is the weight itself. The result is lowered by a
/// relative 1e-12 so that rounding cannot lift it above the weight of the rows it counts (two
/// rows of weight c sum to 2c exactly, while the average weight of many rows of c may round
/// above c).
pub fn node_weight(value: f64, total_weight: f64, row_weight: f64) -> f64 {
    let weight = if value > 0.0 && value < 1.0 {
        value * total_weight
    } else if row_weight > 0.0 && row_weight.is_finite() {
        value * row_weight
    } else {
        value
    };
    weight * (1.0 - 1e-12)
}

#[derive(Clone, Copy, Debug)]
pub struct GrowParams {
    /// Maximum number of splits on a root-to-leaf path; `None` for unlimited (that is, at most
    /// [`MAX_TREE_DEPTH`]).
    pub max_depth: Option<usize>,
    /// Features looked at per node (already resolved against d).
    pub max_features: usize,
    /// Nodes with less total weight than this become leaves.
    pub min_weight_split: f64,
    /// How numeric thresholds are chosen.
    pub threshold_rule: ThresholdRule,
}

impl Default for GrowParams {
    /// Unlimited depth, all features, no minimum node weight, best thresholds.
    fn default() -> Self {
        GrowParams { max_depth: None, max_features: usize::MAX, min_weight_split: 0.0, threshold_rule: ThresholdRule::Best }
    }
}
