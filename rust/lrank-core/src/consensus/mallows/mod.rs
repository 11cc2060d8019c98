//! The Mallows model with the Kendall distance, fitted from (weighted, possibly incomplete)
//! rankings as in Cheng, Hühn & Hüllermeier (ICML 2009), "Decision tree and instance-based
//! learning for label ranking", (exact Kemeny aggregation is its sibling [`crate::consensus::kemeny`]).
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
//!   Borda uses the exact [`BordaAccumulator`](crate::consensus::borda::BordaAccumulator) (ties to the
//!   lower label index); because Borda is not a Kendall minimiser, the objective (weighted total
//!   distance of the completions to the centre) can rise along the iteration, so the visited
//!   centre with the smallest objective is returned (latest on ties), never worse than the Borda
//!   start; the iteration also stops on a cycle. θ is the MLE of the weighted mean distance of
//!   the completions to the returned centre, with m = the number of labels of the matrix.
//!
//! Weights, wherever accepted, need one finite non-negative value per row. Everything is
//! deterministic; with integer weights every sum is exact, so results do not depend on row order.

mod insertion;
mod median;
mod theta;

pub use insertion::optimal_insertion;
pub use median::{fit_mallows, MallowsFit};
pub(crate) use median::{mallows_centre, mallows_median, mallows_median_of_rows};
pub use theta::{expected_kendall_distance, theta_mle, ThetaTable};
