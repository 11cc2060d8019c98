//! What a driver of an exact distributed forest holds whatever its learner: the bins, the
//! training lower medians found from the parts, and the trees grown round by round.

use super::{LevelGrower, LevelPlan, Medians, PartsData, SummedLeaf};
use crate::error::{invalid, Result};
use crate::tree::additive::AdditiveCriterion;
use crate::tree::bins::BinLayout;
use crate::tree::ensemble::ForestSampling;
use crate::tree::model::Tree;
use crate::tree::params::GrowParams;

/// A grown forest's trees and its training lower medians (the model's fill values).
pub type GrownTrees<L> = (Vec<Tree<L>>, Vec<f64>);

/// A driver's growth: the steps every exact forest takes after its setup.
pub struct ExactGrowth<C: AdditiveCriterion, L: SummedLeaf> {
    layout: BinLayout,
    n_rows: usize,
    n_trees: usize,
    grower: LevelGrower<C, L>,
    medians: Medians,
}

impl<C: AdditiveCriterion, L: SummedLeaf> ExactGrowth<C, L> {
    /// The growth of `sampling.n_trees` trees on the parts' data; `budget` bounds a round's
    /// numbers per part.
    pub fn new(
        criterion: C,
        leaf: L,
        data: PartsData,
        grow: GrowParams,
        sampling: ForestSampling,
        budget: usize,
    ) -> Result<Self> {
        let PartsData { layout, kinds, n_rows, .. } = data;
        let grower = LevelGrower::new(criterion, leaf, layout.clone(), kinds, grow, sampling, n_rows, budget)?;
        Ok(ExactGrowth { layout, n_rows, n_trees: sampling.n_trees, grower, medians: Medians::default() })
    }

    /// See [`Medians::bins`].
    pub fn median_bins(&mut self, counts: &[f64]) -> Result<Vec<u8>> {
        self.medians.bins(&self.layout, self.n_rows, counts)
    }

    /// See [`Medians::set`].
    pub fn set_medians(&mut self, parts: &[Vec<Vec<(f64, u64)>>]) -> Result<()> {
        self.medians.set(self.layout.n_features(), parts)
    }

    /// The next round's plan, or `None` when the forest is grown.
    pub fn plan(&mut self) -> Option<LevelPlan> {
        self.grower.plan()
    }

    /// Trees fully grown so far.
    pub fn trees_grown(&self) -> usize {
        self.grower.trees_grown()
    }

    /// Every part's sums for the last plan, added, and their row records, joined.
    pub fn absorb(&mut self, sums: &[f64], rows: &[f64]) -> Result<()> {
        self.grower.absorb(sums, rows)
    }

    /// See [`LevelGrower::set_rows_limit`].
    pub fn set_rows_limit(&mut self, samples: usize) {
        self.grower.set_rows_limit(samples)
    }

    /// Whether [`Self::finish`] would give the trees: the medians set, every tree grown.
    pub fn ready(&self) -> Result<()> {
        self.medians.values()?;
        if self.trees_grown() < self.n_trees {
            return Err(invalid(format!("{} of {} trees are grown: run the rounds first", self.trees_grown(), self.n_trees)));
        }
        Ok(())
    }

    /// The trees and the training lower medians, once [`Self::ready`].
    pub fn finish(self) -> Result<GrownTrees<L::Leaf>> {
        self.ready()?;
        let fill_values = self.medians.values()?.to_vec();
        Ok((self.grower.finish()?, fill_values))
    }
}
