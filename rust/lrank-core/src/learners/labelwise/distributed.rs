//! LWRF grown exactly on rows split into parts (a cluster's partitions): bit for bit the forest
//! [`LabelwiseModel`] grows on all the rows, in order, with `node_seeds`, built by a driver
//! ([`ExactLabelwise`]) from what each part sums ([`crate::tree::levelwise`]). The steps are
//! those of LR-RF's ([`crate::learners::random_forest::distributed`]): the parts' summaries, the
//! setup, the codes, the lower medians, the rounds, `finish`.
//!
//! Why the sums give the same forest: the split search already scores labelwise splits from
//! target sums in whole units (exact in any order); a leaf's scores are each label's unit sum
//! over its weight, and a node is terminal when every label's units are equal, which the driver
//! tells from exact sums of squared units ([`UnitSquares`]).
//!
//! Refused: missing feature values, incomplete training rankings (a leaf would take its parent's
//! value for a label none of its rows ranks), sample weights, the tuned depth (its inner
//! cross-validation needs the rows), a single tree without bootstrap (LWDT), the exact search.

use super::{LabelwiseModel, LabelwiseParams, LeafTable};
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::RankMatrixView;
use crate::error::{invalid, Result};
use crate::learner::Params;
use crate::tree::levelwise::{self, parts_data, ExactGrowth, LevelPlan, PartSummary, SummedLeaf};
use crate::tree::node_weight;
use crate::tree::{BinLayout, FlatTrees, LabelwiseVariance, MeanScores, ScoreLeaf, Targets, UnitSquares};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// What every part needs to sum its rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelwiseSetup {
    pub layout: BinLayout,
    pub n_labels: usize,
    pub n_rows: u64,
    pub min_samples_leaf: f64,
}

impl LabelwiseSetup {
    /// The targets of a part's rankings (none on the driver), in the units one machine uses:
    /// they depend on the rows only through the bound on a tree's weight, all rows.
    fn targets(&self, y: Option<&RankMatrixView<'_>>) -> Targets {
        let bound = self.n_rows as f64;
        match y {
            Some(y) => Targets::relative_positions(y, bound),
            None => Targets::new(self.n_labels, Vec::new(), Vec::new(), bound),
        }
    }
}

/// LWRF's leaf statistics, per label (m each): the weight, the unit sum, then [`UnitSquares`]'s
/// three numbers per label.
pub(crate) struct UnitSums<'a> {
    targets: Cow<'a, Targets>,
    squares: UnitSquares,
}

impl<'a> UnitSums<'a> {
    fn new(targets: Cow<'a, Targets>) -> Self {
        let squares = targets.squares();
        UnitSums { targets, squares }
    }
}

impl SummedLeaf for UnitSums<'_> {
    type Leaf = ScoreLeaf;
    fn n_leaf_stats(&self) -> usize {
        (2 + UnitSquares::LEN) * self.targets.m
    }
    fn add_leaf_stats(&self, sample: u32, weight: f64, out: &mut [f64]) {
        let m = self.targets.m;
        let (score_sums, squares) = out.split_at_mut(2 * m);
        let (_, present) = self.targets.row(sample);
        for (j, &u) in self.targets.units(sample).iter().enumerate() {
            let pw = present[j] * weight;
            score_sums[j] += pw;
            score_sums[m + j] += pw * u;
            self.squares.add(u, pw, &mut squares[j * UnitSquares::LEN..(j + 1) * UnitSquares::LEN]);
        }
    }
    fn leaf_from_sums(&self, _weight: f64, sums: &[f64]) -> ScoreLeaf {
        let m = self.targets.m;
        MeanScores { targets: &self.targets, default: 0.5 }.from_sums(&sums[..m], &sums[m..2 * m], None)
    }
    fn is_terminal(&self, _weight: f64, sums: &[f64]) -> bool {
        let m = self.targets.m;
        let squares = &sums[2 * m..];
        (0..m).all(|j| {
            sums[j] == 0.0
                || self.squares.all_equal(sums[j], sums[m + j], &squares[j * UnitSquares::LEN..(j + 1) * UnitSquares::LEN])
        })
    }
}

/// A part's sums for a round's plan (see [`levelwise::part_sums`]): its rows start at `start`.
pub fn part_sums(
    setup: &LabelwiseSetup,
    plan: &LevelPlan,
    codes: &[u8],
    y: &RankMatrixView<'_>,
    start: usize,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let n = y.n_rows();
    levelwise::check_part(&setup.layout, setup.n_labels, codes, y)?;
    if y.rows().any(|r| r.contains(&0)) {
        return Err(invalid("a part's ranking misses a label (the summaries said none did: the parts changed between steps)"));
    }
    let targets = setup.targets(Some(y));
    let criterion = LabelwiseVariance { targets: Cow::Borrowed(&targets), min_leaf: setup.min_samples_leaf };
    let leaf = UnitSums::new(Cow::Borrowed(&targets));
    levelwise::part_sums(plan, &setup.layout, codes, start, &vec![1.0; n], &criterion, &leaf)
}

/// The driver of an exact distributed LWRF.
pub struct ExactLabelwise {
    params: LabelwiseParams,
    setup: LabelwiseSetup,
    pub(crate) growth: ExactGrowth<LabelwiseVariance<'static>, UnitSums<'static>>,
}

impl ExactLabelwise {
    /// The driver for `params` (with `node_seeds` set: the forest grown is that one) from every
    /// part's summary, in row order; `budget` bounds the histogram numbers of a round.
    pub fn new(mut params: LabelwiseParams, summaries: &[PartSummary], n_labels: usize, budget: usize) -> Result<Self> {
        params.node_seeds = true;
        params.validate()?;
        let shape = levelwise::forest_shape!(params, params.min_samples_split);
        let max_bins = shape.bins()?;
        if params.tune_depth {
            return Err(invalid(
                "tune_depth chooses the depth by cross-validation on the rows: fix max_depth for the exact distributed forest",
            ));
        }
        if params.n_estimators == 1 && !params.bootstrap {
            return Err(invalid(
                "one tree without bootstrap is LWDT, which the exact distributed forest does not grow: use bootstrap or more \
                 trees",
            ));
        }
        let data = parts_data(summaries, max_bins)?;
        // The parts' rows weigh 1 each: a share of the training weight is one of the rows.
        let shape =
            levelwise::ForestShape { min_weight_split: node_weight(shape.min_weight_split, data.n_rows as f64, 1.0), ..shape };
        if data.incomplete {
            return Err(invalid(
                "a training ranking misses a label: the exact distributed LWRF needs complete rankings (use the partition \
                 forest, exact=False)",
            ));
        }
        let setup = LabelwiseSetup {
            layout: data.layout.clone(),
            n_labels,
            n_rows: data.n_rows as u64,
            min_samples_leaf: node_weight(params.min_samples_leaf, data.n_rows as f64, 1.0),
        };
        let (grow, sampling) = shape.growth(data.layout.n_features(), params.seed);
        let targets = setup.targets(None);
        let criterion = LabelwiseVariance { targets: Cow::Owned(targets.clone()), min_leaf: setup.min_samples_leaf };
        let leaf = UnitSums::new(Cow::Owned(targets));
        let growth = ExactGrowth::new(criterion, leaf, data, grow, sampling, budget)?;
        Ok(ExactLabelwise { params, setup, growth })
    }

    /// What each part needs.
    pub fn setup(&self) -> &LabelwiseSetup {
        &self.setup
    }

    /// The model, once the medians are set and every tree is grown.
    pub fn finish(self) -> Result<LabelwiseModel> {
        let (trees, fill_values) = self.growth.finish()?;
        Ok(LabelwiseModel {
            max_depth: self.params.max_depth,
            params: self.params,
            depth_scores: Vec::new(),
            n_features: self.setup.layout.n_features(),
            n_labels: self.setup.n_labels,
            fill_values,
            trees,
            leaf_table: LeafTable::default(),
            flat: FlatTrees::default(),
        })
    }
}

/// A part's bin codes (row-major, rows x features).
pub fn part_codes(setup: &LabelwiseSetup, x: &FeatureMatrixView<'_>) -> Result<Vec<u8>> {
    levelwise::part_codes(&setup.layout, x)
}
