//! The Mallows model with the Kendall distance, fitted from (weighted, possibly incomplete)
//! rankings as in Cheng, Hühn & Hüllermeier (ICML 2009), "Decision tree and instance-based
//! learning for label ranking", and exact Kemeny aggregation.
//!
//! Under Mallows(π, θ) a ranking σ of m labels has probability proportional to exp(-θ d_K(σ, π)).
//!
//! - [`expected_kendall_distance`] / [`theta_mle`]: `E_θ[d_K]` and its inverse, the MLE of θ from
//!   the mean distance to the centre (bracketing by doubling, then bisection; D = 0 gives
//!   `f64::INFINITY`, D >= m(m-1)/4 gives 0). Details in the `theta` sub-module docs.
//! - [`optimal_insertion`]: the completion of an incomplete ranking closest to a centre
//!   (Proposition 1 of the paper): each missing label at its own best slot, the most preferred
//!   slot on ties, labels sharing a slot in the centre's order. O(m^2). This tie rule makes the
//!   completion a global minimiser (proof in the `insertion` sub-module docs).
//! - [`fit_mallows`]: the paper's approximate EM (Algorithm 1): generalized Borda start, then
//!   alternate optimal insertion and Borda of the completions until the centre is a fixed point.
//!   Choices: rows without labels are skipped (an error if nothing is left or the rest weighs 0);
//!   Borda uses the exact [`BordaAccumulator`](crate::aggregation::BordaAccumulator) (ties to the
//!   lower label index); because Borda is not a Kendall minimiser, the objective (weighted total
//!   distance of the completions to the centre) can rise along the iteration, so the visited
//!   centre with the smallest objective is returned (latest on ties), never worse than the Borda
//!   start; the iteration also stops on a cycle. θ is the MLE of the weighted mean distance of
//!   the completions to the returned centre, with m = the number of labels of the matrix.
//! - [`kemeny`]: the exact Kemeny median by dynamic programming over label subsets,
//!   O(2^m m^2) time and O(2^m) memory, for at most [`MAX_KEMENY_LABELS`] = 16 labels; an
//!   incomplete ranking counts only the pairs it contains; ties go to the lexicographically
//!   smallest label order.
//!
//! Weights, wherever accepted, need one finite non-negative value per row. Everything is
//! deterministic; with integer weights every sum is exact, so results do not depend on row order.

mod insertion;
mod kemeny;
mod median;
mod theta;

pub use insertion::optimal_insertion;
pub use kemeny::{kemeny, MAX_KEMENY_LABELS};
pub use median::{fit_mallows, MallowsFit};
pub(crate) use median::{mallows_centre, mallows_median, mallows_median_of_rows};
pub use theta::{expected_kendall_distance, theta_mle, ThetaTable};

use crate::error::{invalid, Result};

/// Weights, if given, must have one finite, non-negative entry per row.
fn check_weights(weights: Option<&[f64]>, n_rows: usize) -> Result<()> {
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
