//! The exact distributed forests behind one interface, for a cluster's driver and parts (the
//! bindings, `lrank.dask.fit(..., exact=True)`): LR-RF ([`random_forest::distributed`]), LWRF
//! ([`labelwise::distributed`]), the one-versus-one forest ([`ovo`]) and the PLR forest ([`plr`]). Each step's output is plain data that travels as bytes
//! ([`encode`], [`decode`]); the learner is chosen by the parameters given to [`ExactDriver::new`].
//! Other learners are refused with the reason.

use super::{LearnerParams, Model};
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::RankMatrixView;
use crate::error::{invalid, Result};
use crate::learners::labelwise::distributed::{self as labelwise, ExactLabelwise, LabelwiseSetup};
use crate::learners::one_vs_one::distributed::{self as ovo, ExactOvo, OvoSetup, PairPlans};
use crate::learners::plr_tree::distributed::{self as plr, ExactPlrForest, PlrSetup};
use crate::learners::random_forest::distributed::{self as random_forest, ExactForest, PartSetup, ROUND_NUMBERS};
use crate::tree::levelwise::{self, LevelPlan, PartSummary};
use crate::tree::BinLayout;
use serde::{Deserialize, Serialize};

pub use crate::tree::levelwise::{decode, encode, part_values_in_bins, summarise_part};

/// What every part needs to sum its rows, per learner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ExactSetup {
    RandomForest(PartSetup),
    Labelwise(LabelwiseSetup),
    PlrTree(PlrSetup),
    Pairwise(OvoSetup),
}

/// A round's plan: one forest's, or every label pair's forest's (one-versus-one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ExactPlan {
    Forest(LevelPlan),
    Pairs(PairPlans),
}

impl ExactSetup {
    fn layout(&self) -> &BinLayout {
        match self {
            ExactSetup::RandomForest(s) => &s.layout,
            ExactSetup::Labelwise(s) => &s.layout,
            ExactSetup::PlrTree(s) => &s.layout,
            ExactSetup::Pairwise(s) => &s.layout,
        }
    }
}

/// A part's bin codes (row-major, rows x features).
pub fn part_codes(setup: &ExactSetup, x: &FeatureMatrixView<'_>) -> Result<Vec<u8>> {
    levelwise::part_codes(setup.layout(), x)
}

/// A part's rows per bin (all features' bins): for the medians.
pub fn part_bin_counts(setup: &ExactSetup, codes: &[u8]) -> Result<Vec<f64>> {
    levelwise::part_bin_counts(setup.layout(), codes)
}

/// A part's sums for a round's plan and its row records; its rows start at `start`.
pub fn part_sums(
    setup: &ExactSetup,
    plan: &ExactPlan,
    codes: &[u8],
    y: &RankMatrixView<'_>,
    start: usize,
) -> Result<(Vec<f64>, Vec<f64>)> {
    match (setup, plan) {
        (ExactSetup::RandomForest(s), ExactPlan::Forest(plan)) => random_forest::part_sums(s, plan, codes, y, start),
        (ExactSetup::Labelwise(s), ExactPlan::Forest(plan)) => labelwise::part_sums(s, plan, codes, y, start),
        (ExactSetup::PlrTree(s), ExactPlan::Forest(plan)) => plr::part_sums(s, plan, codes, y, start),
        (ExactSetup::Pairwise(s), ExactPlan::Pairs(plans)) => ovo::part_sums(s, plans, codes, y, start),
        _ => Err(invalid("the round's plan is not one for this forest")),
    }
}

/// The driver of an exact distributed forest.
pub enum ExactDriver {
    RandomForest(ExactForest),
    Labelwise(ExactLabelwise),
    PlrTree(ExactPlrForest),
    Pairwise(ExactOvo),
}

/// A step every driver takes: LR-RF's own, the others' through their
/// [`crate::tree::levelwise::ExactGrowth`].
macro_rules! each {
    ($self:expr, $d:ident => $e:expr) => {
        match $self {
            ExactDriver::RandomForest($d) => $e,
            ExactDriver::Labelwise(d) => {
                let $d = &mut d.growth;
                $e
            }
            ExactDriver::PlrTree(d) => {
                let $d = &mut d.growth;
                $e
            }
            ExactDriver::Pairwise($d) => $e,
        }
    };
    (ref $self:expr, $d:ident => $e:expr) => {
        match $self {
            ExactDriver::RandomForest($d) => $e,
            ExactDriver::Labelwise(d) => {
                let $d = &d.growth;
                $e
            }
            ExactDriver::PlrTree(d) => {
                let $d = &d.growth;
                $e
            }
            ExactDriver::Pairwise($d) => $e,
        }
    };
}

impl ExactDriver {
    /// The driver for `params` (LR-RF or LWRF; grown with per-node seeds) from every part's
    /// summary, in row order.
    pub fn new(params: LearnerParams, summaries: &[PartSummary], n_labels: usize) -> Result<Self> {
        Self::with_budget(params, summaries, n_labels, ROUND_NUMBERS)
    }

    /// [`ExactDriver::new`] asking at most `budget` histogram numbers of a part per round.
    pub fn with_budget(params: LearnerParams, summaries: &[PartSummary], n_labels: usize, budget: usize) -> Result<Self> {
        Ok(match params {
            LearnerParams::RandomForest(p) => {
                ExactDriver::RandomForest(ExactForest::with_budget(p, summaries, n_labels, budget)?)
            }
            LearnerParams::Labelwise(p) => ExactDriver::Labelwise(ExactLabelwise::new(p, summaries, n_labels, budget)?),
            LearnerParams::PlrTree(p) => ExactDriver::PlrTree(ExactPlrForest::new(p, summaries, n_labels, budget)?),
            LearnerParams::Pairwise(p) => ExactDriver::Pairwise(ExactOvo::new(p, summaries, n_labels, budget)?),
            other => {
                return Err(invalid(format!(
                    "the exact distributed forest grows LR-RF, LWRF, the OVO forest or the PLR forest, not {} (use the \
                     partition forest, exact=False)",
                    other.kind()
                )))
            }
        })
    }

    /// What each part needs.
    pub fn setup(&self) -> ExactSetup {
        match self {
            ExactDriver::RandomForest(d) => ExactSetup::RandomForest(d.setup().clone()),
            ExactDriver::Labelwise(d) => ExactSetup::Labelwise(d.setup().clone()),
            ExactDriver::PlrTree(d) => ExactSetup::PlrTree(d.setup().clone()),
            ExactDriver::Pairwise(d) => ExactSetup::Pairwise(d.setup().clone()),
        }
    }

    /// The bin of each feature's lower median, from every part's bin counts added.
    pub fn median_bins(&mut self, counts: &[f64]) -> Result<Vec<u8>> {
        each!(self, d => d.median_bins(counts))
    }

    /// The lower medians from every part's values in those bins.
    pub fn set_medians(&mut self, parts: &[Vec<Vec<(f64, u64)>>]) -> Result<()> {
        each!(self, d => d.set_medians(parts))
    }

    /// The next round's plan, or `None` when the forest is grown.
    pub fn plan(&mut self) -> Option<ExactPlan> {
        match self {
            ExactDriver::RandomForest(d) => d.plan().map(ExactPlan::Forest),
            ExactDriver::Labelwise(d) => d.growth.plan().map(ExactPlan::Forest),
            ExactDriver::PlrTree(d) => d.growth.plan().map(ExactPlan::Forest),
            ExactDriver::Pairwise(d) => d.plan().map(ExactPlan::Pairs),
        }
    }

    /// Trees fully grown so far.
    pub fn trees_grown(&self) -> usize {
        each!(ref self, d => d.trees_grown())
    }

    /// Every part's sums for the last plan, added, and their row records, joined (any order).
    pub fn absorb(&mut self, sums: &[f64], rows: &[f64]) -> Result<()> {
        each!(self, d => d.absorb(sums, rows))
    }

    /// Sends nodes of at most `samples` samples as rows (0: never) instead of the default.
    pub fn set_rows_limit(&mut self, samples: usize) {
        each!(self, d => d.set_rows_limit(samples))
    }

    /// Whether [`Self::finish`] would give the model.
    pub fn ready(&self) -> Result<()> {
        each!(ref self, d => d.ready())
    }

    /// The model, once the medians are set and every tree is grown.
    pub fn finish(self) -> Result<Model> {
        Ok(match self {
            ExactDriver::RandomForest(d) => Model::RandomForest(d.finish()?),
            ExactDriver::Labelwise(d) => Model::Labelwise(d.finish()?),
            ExactDriver::PlrTree(d) => Model::PlrTree(d.finish()?),
            ExactDriver::Pairwise(d) => Model::Pairwise(d.finish()?),
        })
    }
}

#[cfg(test)]
#[path = "exact_tests.rs"]
mod tests;
