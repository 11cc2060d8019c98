//! Consensus: one ranking from several (weighted, possibly incomplete) rankings.
//!
//! - [`borda`]: generalized Borda, with exact ties ([`BordaAccumulator`]).
//! - [`copeland`]: pairwise majority wins.
//! - [`mallows`]: the Mallows model (θ MLE, optimal insertion, the EM median of Cheng et al.).
//! - [`kemeny`]: the exact Kemeny median (at most 16 labels).
//! - [`plackett_luce`]: Plackett-Luce skills by Hunter's MM algorithm.
//! - [`buckets`]: consensus with ties (bucket orders): the pair-order matrix, BPA-LIA-MP2, and
//!   Borda and Copeland with a tie threshold.
//! - [`Aggregator`]: the choice among them that ensembles offer, above them all.

pub mod borda;
pub mod buckets;
pub mod checked;
pub mod copeland;
pub mod kemeny;
pub mod mallows;
pub mod plackett_luce;

pub use borda::{add_borda_votes, borda, borda_scores, BordaAccumulator};
pub use copeland::{copeland, copeland_scores};
pub use kemeny::{kemeny, MAX_KEMENY_LABELS};
pub use mallows::{expected_kendall_distance, fit_mallows, optimal_insertion, theta_mle, MallowsFit, ThetaTable};
pub use plackett_luce::{fit_plackett_luce, ranking_probability, PlackettLuceFit};

pub use buckets::{BucketConsensus, BucketMethod, PairOrderCounts, PairOrderMatrix};

use crate::data::ranking::{tie_message, RankMatrixView};
use crate::error::{invalid, Result};
use serde::{Deserialize, Serialize};

/// Refuses rankings with ties for a consensus `what` that has no ties ("the Mallows model").
pub(crate) fn refuse_ties(rankings: &RankMatrixView<'_>, what: &str) -> Result<()> {
    match rankings.first_tied_row() {
        None => Ok(()),
        Some(row) => {
            Err(invalid(format!("{what} needs rankings without ties, but ranking {row} has {}", tie_message(rankings.row(row)))))
        }
    }
}

/// A consensus method, for ensembles that combine their members' rankings. The first four give
/// rankings without ties (Borda, Copeland and Kemeny accept tied input, Mallows refuses it);
/// `Buckets` gives a bucket order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Aggregator {
    /// Generalized Borda (exact ties, to the lower label index).
    Borda,
    /// Copeland: pairwise majority wins.
    Copeland,
    /// The Mallows EM median of Cheng, Hühn & Hüllermeier (20 iterations at most).
    Mallows,
    /// Exact Kemeny (at most 16 labels).
    Kemeny,
    /// A consensus with ties (BPA-LIA-MP2, or Borda or Copeland with a tie threshold).
    Buckets(BucketConsensus),
}

impl Aggregator {
    /// The consensus of the rows of `rankings` (weighted, possibly incomplete).
    pub fn aggregate(self, rankings: &RankMatrixView<'_>, weights: Option<&[f64]>) -> crate::Result<Vec<i32>> {
        match self {
            Aggregator::Borda => Ok(borda(rankings, weights)),
            Aggregator::Copeland => copeland(rankings, weights),
            Aggregator::Mallows => Ok(mallows::fit_mallows(rankings, weights, 20)?.centre),
            Aggregator::Kemeny => kemeny::kemeny(rankings, weights),
            Aggregator::Buckets(consensus) => consensus.aggregate(rankings, weights),
        }
    }

    /// Why this consensus cannot combine rankings with ties, or `None` when it can (the
    /// learners that aggregate with it pass it on as their [`tie_refusal`]).
    ///
    /// [`tie_refusal`]: crate::learner::Params::tie_refusal
    pub fn tie_refusal(self) -> Option<&'static str> {
        (self == Aggregator::Mallows).then_some("the Mallows consensus combines rankings without ties")
    }

    /// Checks the parameters of a consensus with ties.
    pub fn validate(self) -> Result<()> {
        match self {
            Aggregator::Buckets(consensus) => consensus.validate(),
            _ => Ok(()),
        }
    }
}
