//! The checked training set every learner fits on, and the check of row weights.

use crate::data::features::FeatureMatrixView;
use crate::data::ranking::{n_present, tie_message, RankMatrixView};
use crate::error::{invalid, LrankError, Result};

/// The largest total of the sample weights a fit accepts. The learners sum weights times
/// bootstrap counts, distances and label positions: with weights of 1e308 two rows already sum
/// to infinity, and a leaf's share of them became NaN. Real weights are nowhere near.
pub const MAX_TOTAL_WEIGHT: f64 = 1e200;

/// A training set that passed the checks every learner needs (see [`TrainingSet::new`]).
#[derive(Clone, Debug)]
pub struct TrainingSet<'a> {
    pub x: FeatureMatrixView<'a>,
    pub y: RankMatrixView<'a>,
    /// One weight per row: the sample weights, or all 1.
    pub weights: Vec<f64>,
    /// What one row weighs on the scale of the data the user gave: their average weight (1 with
    /// unit weights). Node-size thresholds count rows of this weight, so that trees do not
    /// depend on the weights' scale; a bagged member's bootstrap sample keeps its ensemble's.
    pub row_weight: f64,
}

impl<'a> TrainingSet<'a> {
    /// Refuses: no rows, no features, X and Y of different lengths, a ranking without labels
    /// (it carries no information and has no top label), sample weights of the wrong length or
    /// negative or not finite, or summing to more than [`MAX_TOTAL_WEIGHT`].
    pub fn new(x: FeatureMatrixView<'a>, y: RankMatrixView<'a>, sample_weight: Option<&[f64]>) -> Result<Self> {
        let n = x.n_rows();
        if n == 0 {
            return Err(invalid("cannot fit on an empty training set"));
        }
        if y.n_rows() != n {
            return Err(invalid(format!("X has {n} rows but Y has {}", y.n_rows())));
        }
        if x.n_features() == 0 {
            return Err(invalid("X has no features"));
        }
        if let Some(row) = y.rows().position(|r| n_present(r) == 0) {
            return Err(LrankError::InvalidRanking { row, reason: "a training ranking must contain at least one label".into() });
        }
        let weights = match sample_weight {
            None => vec![1.0; n],
            Some(w) if w.len() != n => return Err(invalid(format!("sample_weight has {} entries, expected {n}", w.len()))),
            Some(w) if w.iter().any(|&v| !(v >= 0.0) || v.is_infinite()) => {
                return Err(invalid("sample weights must be finite and non-negative"))
            }
            Some(w) => w.to_vec(),
        };
        if weights.iter().all(|&w| w == 0.0) {
            return Err(invalid("sample weights are all zero: no training row would count"));
        }
        let total: f64 = weights.iter().sum();
        if !(total <= MAX_TOTAL_WEIGHT) {
            return Err(invalid(format!("sample weights sum to {total:e}, more than the {MAX_TOTAL_WEIGHT:e} a fit accepts")));
        }
        let row_weight = total / n as f64;
        Ok(TrainingSet { x, y, weights, row_weight })
    }

    /// A training set of rows already checked (a subsample of a checked set, with weights of
    /// the same kind).
    /// Its row weight is its own average weight.
    pub fn from_checked(x: FeatureMatrixView<'a>, y: RankMatrixView<'a>, weights: Vec<f64>) -> Self {
        debug_assert!(x.n_rows() == y.n_rows() && weights.len() == x.n_rows());
        let total: f64 = weights.iter().sum();
        let row_weight = if weights.is_empty() || !(total > 0.0) { 1.0 } else { total / weights.len() as f64 };
        TrainingSet { x, y, weights, row_weight }
    }

    /// The weights multiplied by the power of two that brings their average nearest 1: exact in
    /// floating point, so their ratios (all that scale-free learners use) are unchanged bit for
    /// bit, while thresholds on sums and counts (an empty side, an entropy of zero) see weights
    /// of the same magnitude whatever scale the user gave (weights of 1e-15 made trees leaves).
    pub fn with_weights_near_one(mut self) -> Self {
        let mut k = -(self.row_weight.log2().round()) as i32;
        while k != 0 {
            // In steps within the range of normal powers of two (2^-1022..=2^1023).
            let step = k.clamp(-1000, 1000);
            let factor = f64::from_bits(((1023 + step) as u64) << 52);
            self.weights.iter_mut().for_each(|w| *w *= factor);
            k -= step;
        }
        self.row_weight = self.weights.iter().sum::<f64>() / self.weights.len() as f64;
        self
    }

    /// The set with `row_weight` as the weight of one row (see the field).
    pub fn with_row_weight(self, row_weight: f64) -> Self {
        TrainingSet { row_weight, ..self }
    }

    /// For learners that cannot learn from tied labels ([`Params::tie_refusal`] says why, `None`
    /// when they can): refuses a training set with ties, the error naming the first tied row and
    /// the learner (rather than breaking ties silently).
    ///
    /// [`Params::tie_refusal`]: crate::learner::Params::tie_refusal
    pub fn refuse_ties(&self, refusal: Option<&str>) -> Result<()> {
        let Some(why) = refusal else { return Ok(()) };
        match self.y.first_tied_row() {
            None => Ok(()),
            Some(row) => Err(LrankError::InvalidRanking {
                row,
                reason: format!(
                    "{}, which this learner cannot learn from ({why}); use a partial label ranking learner",
                    tie_message(self.y.row(row))
                ),
            }),
        }
    }

    pub fn n_rows(&self) -> usize {
        self.x.n_rows()
    }
    pub fn n_features(&self) -> usize {
        self.x.n_features()
    }
    pub fn n_labels(&self) -> usize {
        self.y.n_labels()
    }
}

/// Row weights, if given, must have one finite, non-negative entry per row.
pub fn check_weights(weights: Option<&[f64]>, n_rows: usize) -> Result<()> {
    if let Some(w) = weights {
        if w.len() != n_rows {
            return Err(invalid(format!("weights has {} entries, expected {n_rows}", w.len())));
        }
        if w.iter().any(|&v| !v.is_finite() || v < 0.0) {
            return Err(invalid("weights must be finite and non-negative"));
        }
    }
    Ok(())
}
