//! The parameters of the instance-based learners (IBLR, IB-PL) and their checks.

use crate::error::Result;
use crate::learner::{bad_param, Params};
use crate::limits::check_iterations;
pub use crate::neighbours::Scaling;
use serde::{Deserialize, Serialize};

/// Candidate neighbourhood sizes for the inner selection (the paper's).
pub const K_CANDIDATES: [usize; 4] = [5, 10, 15, 20];
/// Rows used for the leave-one-out selection of k, at most.
pub const MAX_SELECTION_ROWS: usize = 1000;

/// The model fitted to a neighbourhood's rankings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum NeighbourhoodModel {
    /// The Mallows EM median (IBLR); confidence: the spread θ.
    Mallows,
    /// Plackett-Luce skills by MM, to relative tolerance `tol` (IB-PL); the prediction sorts the
    /// skills; confidence: the predicted ranking's probability.
    PlackettLuce { tol: f64 },
}

/// How neighbours are weighted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NeighbourWeighting {
    /// Dudani's (d_k - d_i)/(d_k - d_1) times the share of labels the ranking holds (IBLR).
    Dudani,
    /// Every neighbour weighs 1 (times its sample weight).
    Uniform,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceBasedParams {
    /// Number of neighbours; `None` chooses it from [`K_CANDIDATES`] by leave-one-out.
    pub k: Option<usize>,
    /// Iteration cap of the neighbourhood model's fit (EM or MM).
    pub max_iter: usize,
    /// Seed for the rows of the leave-one-out selection.
    pub seed: u64,
    pub model: NeighbourhoodModel,
    pub weighting: NeighbourWeighting,
    /// Added in model format 10; older files scaled min-max.
    #[serde(default, deserialize_with = "crate::numeric::file_version::added_in_10")]
    pub scaling: Scaling,
}

impl Params for InstanceBasedParams {
    fn validate(&self) -> Result<()> {
        if self.k == Some(0) {
            return Err(bad_param("k", "must be at least 1"));
        }
        check_iterations("max_iter", self.max_iter)?;
        if let NeighbourhoodModel::PlackettLuce { tol } = self.model {
            if !(tol >= 0.0 && tol.is_finite()) {
                return Err(bad_param("tol", format!("must be finite and >= 0, got {tol}")));
            }
        }
        Ok(())
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
    fn tie_refusal(&self) -> Option<&'static str> {
        Some("instance-based label ranking fits a Mallows or Plackett-Luce model")
    }
}

impl Default for InstanceBasedParams {
    /// IBLR: Mallows model, Dudani weights, k chosen by leave-one-out.
    fn default() -> Self {
        InstanceBasedParams {
            k: None,
            max_iter: 20,
            seed: 0,
            model: NeighbourhoodModel::Mallows,
            weighting: NeighbourWeighting::Dudani,
            scaling: Scaling::MinMax,
        }
    }
}

impl InstanceBasedParams {
    /// IB-PL (Cheng, Dembczyński & Hüllermeier 2010): Plackett-Luce, equal weights, 5 neighbours.
    pub fn plackett_luce() -> Self {
        InstanceBasedParams {
            k: Some(5),
            // A handful of neighbours that mostly agree usually has no finite MLE (one label
            // always beats another), so MM creeps towards infinity and never meets a tight
            // tolerance; the order of the skills is settled long before 100 steps.
            max_iter: 100,
            model: NeighbourhoodModel::PlackettLuce { tol: 1e-6 },
            weighting: NeighbourWeighting::Uniform,
            ..Default::default()
        }
    }
}

/// Leave-one-out mean Kendall tau of one candidate k (NaN when no row could be scored).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct KScore {
    pub k: usize,
    #[serde(with = "crate::numeric::nonfinite_f64")]
    pub tau: f64,
}
