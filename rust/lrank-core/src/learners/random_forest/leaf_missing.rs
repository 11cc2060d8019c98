//! Zhou & Qiu's missing-label protocol, as their code applies it (Tables 5 and 6 of the paper):
//! the trees grow on the training rankings as given (complete), and labels go missing only at
//! prediction. For each (test row, tree, leaf neighbour) each label of the neighbour's ranking
//! is deleted independently with probability p; the tree's ranking is the generalized Borda
//! consensus of its leaf's neighbours so thinned (a deleted label scores the middle, (m + 1)/2),
//! and the forest's the Borda consensus of its trees'. A neighbour drawn c times by the bootstrap
//! counts as c neighbours, each with deletions of its own.
//!
//! The deletions are drawn from a stream seeded by the forest's seed, the tree and the test
//! row's values: a row's prediction depends on nothing else (not on the other rows predicted
//! with it, nor on the threads).

use super::RandomForestModel;
use crate::consensus::BordaAccumulator;
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::{order_of, validate_ranking, RankMatrixView};
use crate::learner::fill_rows;
use crate::rng::{child_seed, Rng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The training rankings and weights the leaves' members point to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Neighbours {
    /// n x m rank matrix.
    pub ranks: Vec<i32>,
    pub weights: Vec<f64>,
}

impl Neighbours {
    pub(super) fn new(y: &RankMatrixView<'_>, weights: &[f64]) -> Self {
        Neighbours { ranks: y.as_slice().to_vec(), weights: weights.to_vec() }
    }

    /// The number of training rows, after checking the rankings and weights (a model file).
    pub(super) fn check(&self, n_labels: usize) -> Result<usize, String> {
        let n = self.weights.len();
        if self.ranks.len() != n * n_labels {
            return Err(format!("the training rankings have {} entries for {n} rows of {n_labels} labels", self.ranks.len()));
        }
        if let Some(w) = self.weights.iter().find(|w| !(**w >= 0.0 && w.is_finite())) {
            return Err(format!("a training weight is {w}"));
        }
        for (i, row) in self.ranks.chunks(n_labels.max(1)).enumerate() {
            validate_ranking(row).map_err(|e| format!("training ranking {i}: {e}"))?;
        }
        Ok(n)
    }
}

/// Mixed into the forest's seed for the deletion streams.
pub(super) const SALT: u64 = 0x1EAF_0155_1A6E_1ED5;

/// The protocol applied to one forest.
pub(super) struct LeafMissing<'a> {
    pub(super) model: &'a RandomForestModel,
    pub(super) neighbours: &'a Neighbours,
    /// The probability that a neighbour's label is deleted.
    pub(super) p: f64,
}

/// Per-thread buffers.
#[derive(Default)]
struct Buffers {
    votes: Vec<f64>,
    thinned: Vec<i32>,
    tree_ranking: Vec<i32>,
}

impl LeafMissing<'_> {
    /// The training rows' labels, most preferred first (missing labels left out).
    fn orders(&self) -> Vec<Vec<usize>> {
        self.neighbours.ranks.chunks(self.model.n_labels.max(1)).map(order_of).collect()
    }

    /// Tree `t`'s ranking of `row` into `buf.tree_ranking`.
    fn tree_ranking(&self, t: usize, row: &[f64], orders: &[Vec<usize>], acc: &mut BordaAccumulator, buf: &mut Buffers) {
        let m = self.model.n_labels;
        let leaf = self.model.trees[t].leaf_for(row, &self.model.fill_values);
        let mut rng = Rng::new(child_seed(child_seed(self.model.params.seed ^ SALT, t as u64), row_key(row)));
        acc.reset(m);
        buf.thinned.resize(m, 0);
        for &(member, copies) in &leaf.members {
            let weight = self.neighbours.weights[member as usize];
            for _ in 0..copies {
                // The labels kept, re-ranked 1, 2, ... in the neighbour's order.
                buf.thinned.iter_mut().for_each(|r| *r = 0);
                let mut position = 0;
                for &label in &orders[member as usize] {
                    if rng.uniform() >= self.p {
                        position += 1;
                        buf.thinned[label] = position;
                    }
                }
                acc.add(&buf.thinned, weight);
            }
        }
        buf.tree_ranking.clear();
        buf.tree_ranking.extend(acc.ranking());
    }

    /// The forest's rankings (n x m): Borda over the trees' rankings.
    pub(super) fn predict(&self, x: &FeatureMatrixView<'_>) -> Vec<i32> {
        let m = self.model.n_labels;
        let orders = self.orders();
        let m1 = m as f64 + 1.0;
        fill_rows(
            x,
            m,
            || (BordaAccumulator::new(m), Buffers::default()),
            |(acc, buf), row, dst| {
                buf.votes.clear();
                buf.votes.resize(m, 0.0);
                for t in 0..self.model.trees.len() {
                    self.tree_ranking(t, row, &orders, acc, buf);
                    for (v, &r) in buf.votes.iter_mut().zip(&buf.tree_ranking) {
                        *v += m1 - r as f64;
                    }
                }
                dst.copy_from_slice(&crate::data::ranking::ranking_from_scores(&buf.votes));
            },
        )
    }

    /// Each tree's rankings (trees x n x m).
    pub(super) fn member_ranks(&self, x: &FeatureMatrixView<'_>) -> Vec<i32> {
        let (n, m) = (x.n_rows(), self.model.n_labels);
        let orders = self.orders();
        let mut out = vec![0i32; self.model.trees.len() * n * m];
        if n * m > 0 {
            out.par_chunks_mut(n * m).enumerate().for_each(|(t, dst)| {
                let (mut acc, mut buf) = (BordaAccumulator::new(m), Buffers::default());
                for (i, ranks) in dst.chunks_mut(m).enumerate() {
                    self.tree_ranking(t, x.row(i), &orders, &mut acc, &mut buf);
                    ranks.copy_from_slice(&buf.tree_ranking);
                }
            });
        }
        out
    }
}

/// A key of a row's values (FNV-1a of their bits; every NaN alike).
pub(super) fn row_key(row: &[f64]) -> u64 {
    row.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, v| {
        let bits = if v.is_nan() { f64::NAN.to_bits() } else { (v + 0.0).to_bits() };
        bits.to_le_bytes().iter().fold(h, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3))
    })
}
