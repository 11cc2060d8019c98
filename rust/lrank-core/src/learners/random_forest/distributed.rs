//! LR-RF grown exactly on rows split into parts (a cluster's partitions): bit for bit the forest
//! [`RandomForestModel`] grows on all the rows, in order, with `node_seeds`, built by a driver
//! ([`ExactForest`]) from what each part sums ([`crate::tree::levelwise`]). Each step takes and
//! gives plain data, so any cluster can run it (`lrank.dask` does):
//! 1. each part: [`summarise_part`] (per feature its distinct values, or those of its rows the
//!    bins are cut from; its rankings' classes);
//! 2. the driver: [`ExactForest::new`] from every summary, in row order; [`ExactForest::setup`]
//!    goes to each part;
//! 3. each part: [`part_codes`], its rows' bins, once;
//! 4. the training lower medians (a model fills missing values with them at prediction): each
//!    part's [`part_bin_counts`] added, to [`ExactForest::median_bins`]; each part's
//!    [`part_values_in_bins`], to [`ExactForest::set_medians`];
//! 5. rounds until [`ExactForest::plan`] has none: each part's [`part_sums`], added, to
//!    [`ExactForest::absorb`];
//! 6. [`ExactForest::finish`]: the model.
//!
//! Refused: missing feature values in the training data (they would be filled with the lower
//! median of all rows before binning), sample weights, the leaf-missing protocol (its leaves keep
//! their rows), a nominal feature with more categories than bins, the exact search (`max_bins`
//! None).

use super::{classes_of, ClassMode, RandomForestModel, RandomForestParams, RankingLeaf};
use crate::consensus::BordaAccumulator;
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::{ranking_from_scores, RankMatrixView};
use crate::error::{invalid, Result};
use crate::learner::Params;
use crate::tree::levelwise::{self, parts_data, LevelGrower, LevelPlan, Medians, SummedLeaf, MAX_RANKINGS};
pub use crate::tree::levelwise::{decode, encode, part_values_in_bins, summarise_part, PartSummary};
use crate::tree::{BinLayout, ClassEntropy, FlatTrees, PairwiseEntropy, Tree};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Histogram numbers one round asks of a part, at most (unless one node needs more).
pub const ROUND_NUMBERS: usize = 1 << 22;

/// What every part needs to sum its rows: the bins, the class of each ranking, the sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartSetup {
    pub layout: BinLayout,
    pub class_mode: ClassMode,
    /// Ranking class mode: the class of each distinct ranking is its index here.
    pub rankings: Vec<Vec<i32>>,
    pub n_classes: usize,
    pub n_labels: usize,
    pub n_rows: u64,
    pub epsilon: f64,
}

/// LR-RF's leaf statistics: the Borda votes of the leaf's rankings (scaled to whole numbers).
struct BordaSums<'a> {
    y: Option<RankMatrixView<'a>>,
    votes: BordaAccumulator,
}

impl SummedLeaf for BordaSums<'_> {
    type Leaf = RankingLeaf;
    fn n_leaf_stats(&self) -> usize {
        self.votes.scaled_scores().len()
    }
    fn add_leaf_stats(&self, sample: u32, weight: f64, out: &mut [f64]) {
        let y = self.y.as_ref().expect("a part's rankings");
        self.votes.add_into(y.row(sample as usize), weight, out);
    }
    fn leaf_from_sums(&self, weight: f64, sums: &[f64]) -> RankingLeaf {
        RankingLeaf { ranking: ranking_from_scores(sums), weight, members: Vec::new() }
    }
}

impl PartSetup {
    fn borda<'a>(&self, y: Option<RankMatrixView<'a>>) -> BordaSums<'a> {
        BordaSums { y, votes: BordaAccumulator::new(self.n_labels) }
    }

    /// The classes of a part's rankings (ranking and top-label modes).
    fn classes(&self, y: &RankMatrixView<'_>) -> Result<Vec<u32>> {
        match self.class_mode {
            ClassMode::Ranking => y
                .rows()
                .map(|r| {
                    self.rankings
                        .binary_search_by(|known| known.as_slice().cmp(r))
                        .map(|c| c as u32)
                        .map_err(|_| invalid("a ranking the summaries did not list (the parts changed between steps)"))
                })
                .collect(),
            mode => Ok(classes_of(y, mode)?.0),
        }
    }
}

/// A part's bin codes (row-major, rows x features).
pub fn part_codes(setup: &PartSetup, x: &FeatureMatrixView<'_>) -> Result<Vec<u8>> {
    levelwise::part_codes(&setup.layout, x)
}

/// A part's rows per bin (all features' bins, as in a histogram): for the medians.
pub fn part_bin_counts(setup: &PartSetup, codes: &[u8]) -> Result<Vec<f64>> {
    levelwise::part_bin_counts(&setup.layout, codes)
}

/// One part's sums for a round's plan (see [`levelwise::part_sums`]): its rows start at `start`.
pub fn part_sums(
    setup: &PartSetup,
    plan: &LevelPlan,
    codes: &[u8],
    y: &RankMatrixView<'_>,
    start: usize,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let n = y.n_rows();
    levelwise::check_part(&setup.layout, setup.n_labels, codes, y)?;
    let weights = vec![1.0; n];
    let leaf = setup.borda(Some(*y));
    let n_rows = setup.n_rows as usize;
    Ok(match setup.class_mode {
        ClassMode::Pairwise => {
            let criterion = PairwiseEntropy::for_rows(y, setup.epsilon, n_rows)?;
            levelwise::part_sums(plan, &setup.layout, codes, start, &weights, &criterion, &leaf)?
        }
        _ => {
            let classes = setup.classes(y)?;
            let criterion = ClassEntropy::for_rows(&classes, setup.n_classes, setup.epsilon, n_rows);
            levelwise::part_sums(plan, &setup.layout, codes, start, &weights, &criterion, &leaf)?
        }
    })
}

enum Grower {
    Classes(LevelGrower<ClassEntropy<'static>, BordaSums<'static>>),
    Pairs(LevelGrower<PairwiseEntropy, BordaSums<'static>>),
}

/// The driver of an exact distributed LR-RF.
pub struct ExactForest {
    params: RandomForestParams,
    setup: PartSetup,
    grower: Grower,
    medians: Medians,
}

impl ExactForest {
    /// The driver for `params` (with `node_seeds` set: the forest grown is that one) from every
    /// part's summary, in row order.
    pub fn new(params: RandomForestParams, summaries: &[PartSummary], n_labels: usize) -> Result<Self> {
        Self::with_budget(params, summaries, n_labels, ROUND_NUMBERS)
    }

    /// [`ExactForest::new`] asking at most `budget` histogram numbers of a part per round.
    pub fn with_budget(
        mut params: RandomForestParams,
        summaries: &[PartSummary],
        n_labels: usize,
        budget: usize,
    ) -> Result<Self> {
        params.node_seeds = true;
        params.validate()?;
        let shape = levelwise::forest_shape!(params, 0.0);
        let max_bins = shape.bins()?;
        if params.leaf_missing > 0.0 {
            return Err(invalid("leaf_missing keeps each leaf's training rows: the exact distributed forest cannot"));
        }
        let data = parts_data(summaries, max_bins)?;
        let (layout, n_rows) = (data.layout, data.n_rows);
        let class_mode = params.class_mode.resolve_for(data.incomplete);
        let mut rankings = Vec::new();
        let n_classes = match class_mode {
            ClassMode::Ranking => {
                let mut all = BTreeSet::new();
                for s in summaries {
                    let part = s.rankings.as_ref().filter(|_| all.len() <= MAX_RANKINGS);
                    let part = part.ok_or_else(|| {
                        invalid(format!(
                            "more than {MAX_RANKINGS} distinct rankings: a class each is too many histograms; use class_mode \
                             pairwise"
                        ))
                    })?;
                    all.extend(part.iter().cloned());
                }
                rankings = all.into_iter().collect();
                rankings.len()
            }
            ClassMode::TopLabel => n_labels,
            _ => 0,
        };
        let setup = PartSetup {
            layout: layout.clone(),
            class_mode,
            rankings,
            n_classes,
            n_labels,
            n_rows: n_rows as u64,
            epsilon: params.entropy_epsilon,
        };
        let (grow, sampling) = shape.growth(layout.n_features(), params.seed);
        let kinds = data.kinds;
        let leaf = setup.borda(None);
        let grower = match class_mode {
            ClassMode::Pairwise => {
                let none = RankMatrixView::new(&[], 0, n_labels)?;
                let criterion = PairwiseEntropy::for_rows(&none, params.entropy_epsilon, n_rows)?;
                Grower::Pairs(LevelGrower::new(criterion, leaf, layout, kinds, grow, sampling, n_rows, budget)?)
            }
            _ => {
                let criterion = ClassEntropy::for_rows(&[], n_classes, params.entropy_epsilon, n_rows);
                Grower::Classes(LevelGrower::new(criterion, leaf, layout, kinds, grow, sampling, n_rows, budget)?)
            }
        };
        Ok(ExactForest { params, setup, grower, medians: Medians::default() })
    }

    /// What each part needs (step 2).
    pub fn setup(&self) -> &PartSetup {
        &self.setup
    }

    /// From the rows per bin of all parts added ([`part_bin_counts`]): the bin of each feature's
    /// lower median, which [`part_values_in_bins`] then lists.
    pub fn median_bins(&mut self, counts: &[f64]) -> Result<Vec<u8>> {
        self.medians.bins(&self.setup.layout, self.setup.n_rows as usize, counts)
    }

    /// The lower medians from every part's values in those bins.
    pub fn set_medians(&mut self, parts: &[Vec<Vec<(f64, u64)>>]) -> Result<()> {
        self.medians.set(self.setup.layout.n_features(), parts)
    }

    /// The next round's plan, or `None` when the forest is grown.
    pub fn plan(&mut self) -> Option<LevelPlan> {
        match &mut self.grower {
            Grower::Classes(g) => g.plan(),
            Grower::Pairs(g) => g.plan(),
        }
    }

    /// Trees fully grown so far.
    pub fn trees_grown(&self) -> usize {
        match &self.grower {
            Grower::Classes(g) => g.trees_grown(),
            Grower::Pairs(g) => g.trees_grown(),
        }
    }

    /// Every part's sums for the last plan, added, and their row records, joined.
    pub fn absorb(&mut self, sums: &[f64], rows: &[f64]) -> Result<()> {
        match &mut self.grower {
            Grower::Classes(g) => g.absorb(sums, rows),
            Grower::Pairs(g) => g.absorb(sums, rows),
        }
    }

    /// See [`LevelGrower::set_rows_limit`].
    pub fn set_rows_limit(&mut self, samples: usize) {
        match &mut self.grower {
            Grower::Classes(g) => g.set_rows_limit(samples),
            Grower::Pairs(g) => g.set_rows_limit(samples),
        }
    }

    /// Whether [`Self::finish`] would give the model: the medians set, every tree grown.
    pub fn ready(&self) -> Result<()> {
        self.medians.values()?;
        if self.trees_grown() < self.params.n_estimators {
            return Err(invalid(format!(
                "{} of {} trees are grown: run the rounds first",
                self.trees_grown(),
                self.params.n_estimators
            )));
        }
        Ok(())
    }

    /// The model, once the medians are set and every tree is grown ([`Self::ready`]).
    pub fn finish(self) -> Result<RandomForestModel> {
        self.ready()?;
        let fill_values = self.medians.values()?.to_vec();
        let trees: Vec<Tree<RankingLeaf>> = match self.grower {
            Grower::Classes(g) => g.finish()?,
            Grower::Pairs(g) => g.finish()?,
        };
        Ok(RandomForestModel {
            n_features: self.setup.layout.n_features(),
            n_labels: self.setup.n_labels,
            params: self.params,
            fill_values,
            trees,
            class_mode: self.setup.class_mode,
            neighbours: None,
            flat: FlatTrees::default(),
        })
    }
}

#[cfg(test)]
#[path = "distributed_tests.rs"]
mod tests;
