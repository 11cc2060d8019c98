//! The PLR forest grown exactly on rows split into parts (a cluster's partitions): bit for bit
//! the forest [`PlrTreeModel`] grows on all the rows, in order, with `node_seeds`. The steps are
//! LR-RF's ([`crate::learners::random_forest::distributed`]); a node's statistics are its
//! pair-order counts (whole numbers: exact in any order), which give both its impurity and its
//! leaf's consensus bucket order.
//!
//! Refused: missing feature values, incomplete training rankings (a leaf would take its parent's
//! relation for a pair none of its rows observes), sample weights, a single tree without
//! bootstrap (the PLR tree), the exact search.

use super::{BucketLeaf, PairCodes, PairOrderImpurity, PlrCriterion, PlrTreeModel, PlrTreeParams};
use crate::consensus::buckets::BucketConsensus;
use crate::data::ranking::RankMatrixView;
use crate::error::{invalid, Result};
use crate::learner::Params;
use crate::tree::levelwise::{self, parts_data, ExactGrowth, LevelPlan, PartSummary, SummedLeaf};
use crate::tree::node_weight;
use crate::tree::{BinLayout, FlatTrees};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// What every part needs to sum its rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlrSetup {
    pub layout: BinLayout,
    pub n_labels: usize,
    pub n_rows: u64,
    pub criterion: PlrCriterion,
    pub consensus: BucketConsensus,
}

/// Whole counts up to this are looked up in the criterion's tables (as one machine does).
pub(super) fn max_count(n_rows: usize) -> usize {
    n_rows.min(1 << 24)
}

/// A leaf's statistics: its rows' pair-order counts; its model their consensus.
pub(crate) struct CountsLeaf<'a> {
    codes: Cow<'a, PairCodes>,
    consensus: BucketConsensus,
}

impl SummedLeaf for CountsLeaf<'_> {
    type Leaf = BucketLeaf;
    fn n_leaf_stats(&self) -> usize {
        3 * self.codes.n_pairs
    }
    fn add_leaf_stats(&self, sample: u32, weight: f64, out: &mut [f64]) {
        self.codes.of(sample).iter().for_each(|&c| out[c as usize] += weight);
    }
    fn leaf_from_sums(&self, _weight: f64, sums: &[f64]) -> BucketLeaf {
        BucketLeaf { order: self.consensus.of_matrix(&self.codes.matrix(sums)) }
    }
}

/// A part's sums for a round's plan and its row records: its rows start at `start`.
pub fn part_sums(
    setup: &PlrSetup,
    plan: &LevelPlan,
    codes: &[u8],
    y: &RankMatrixView<'_>,
    start: usize,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let n = y.n_rows();
    levelwise::check_part(&setup.layout, setup.n_labels, codes, y)?;
    let pairs = PairCodes::new(y);
    if !pairs.complete() {
        return Err(invalid("a part's ranking misses a label (the summaries said none did: the parts changed between steps)"));
    }
    // A part only adds statistics: no tables to score with.
    let criterion = PairOrderImpurity::new(&pairs, setup.criterion, setup.consensus, 0);
    let leaf = CountsLeaf { codes: Cow::Borrowed(&pairs), consensus: setup.consensus };
    levelwise::part_sums(plan, &setup.layout, codes, start, &vec![1.0; n], &criterion, &leaf)
}

/// The driver of an exact distributed PLR forest.
pub struct ExactPlrForest {
    params: PlrTreeParams,
    setup: PlrSetup,
    pub(crate) growth: ExactGrowth<PairOrderImpurity<'static>, CountsLeaf<'static>>,
}

impl ExactPlrForest {
    /// The driver for `params` (with `node_seeds` set: the forest grown is that one) from every
    /// part's summary, in row order; `budget` bounds the histogram numbers of a round.
    pub fn new(mut params: PlrTreeParams, summaries: &[PartSummary], n_labels: usize, budget: usize) -> Result<Self> {
        params.node_seeds = true;
        params.validate()?;
        let shape = levelwise::forest_shape!(params, params.min_samples_split);
        let max_bins = shape.bins()?;
        if params.n_estimators == 1 && !params.bootstrap {
            return Err(invalid(
                "one tree without bootstrap is the PLR tree, which the exact distributed forest does not grow: use bootstrap \
                 or more trees",
            ));
        }
        let data = parts_data(summaries, max_bins)?;
        // The parts' rows weigh 1 each: a share of the training weight is one of the rows.
        let shape =
            levelwise::ForestShape { min_weight_split: node_weight(shape.min_weight_split, data.n_rows as f64, 1.0), ..shape };
        if data.incomplete {
            return Err(invalid(
                "a training ranking misses a label: the exact distributed PLR forest needs complete rankings (ties are \
                 fine; use the partition forest, exact=False)",
            ));
        }
        let setup = PlrSetup {
            layout: data.layout.clone(),
            n_labels,
            n_rows: data.n_rows as u64,
            criterion: params.criterion,
            consensus: params.consensus,
        };
        let (grow, sampling) = shape.growth(data.layout.n_features(), params.seed);
        // No rows here: every pair is observed by every row (complete rankings).
        let codes = PairCodes::new(&RankMatrixView::new(&[], 0, n_labels)?);
        let min_leaf = node_weight(params.min_samples_leaf, data.n_rows as f64, 1.0);
        let criterion = PairOrderImpurity::new(codes.clone(), params.criterion, params.consensus, max_count(data.n_rows))
            .with_min_leaf(min_leaf);
        let leaf = CountsLeaf { codes: Cow::Owned(codes), consensus: params.consensus };
        let growth = ExactGrowth::new(criterion, leaf, data, grow, sampling, budget)?;
        Ok(ExactPlrForest { params, setup, growth })
    }

    /// What each part needs.
    pub fn setup(&self) -> &PlrSetup {
        &self.setup
    }

    /// The model, once the medians are set and every tree is grown.
    pub fn finish(self) -> Result<PlrTreeModel> {
        let (trees, fill_values) = self.growth.finish()?;
        Ok(PlrTreeModel {
            params: self.params,
            n_features: self.setup.layout.n_features(),
            n_labels: self.setup.n_labels,
            fill_values,
            trees,
            flat: FlatTrees::default(),
        })
    }
}
