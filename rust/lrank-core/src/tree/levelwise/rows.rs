//! The driver's side of small nodes: the parts send their rows (records, see
//! [`super::part_sums`]) and the driver grows each such node's whole subtree from them, as the
//! rounds would have: the same per-node seeds, features drawn in the same order, and each drawn
//! feature scored over the bins the node's rows fill, whose cells are the sums its histogram
//! would hold (whole numbers: exact in any order). One round then replaces a round per level
//! below the node, which for fully grown trees is most of them.

use super::driver::{Grown, LevelGrower};
use super::{SummedLeaf, BIN_HEAD};
use crate::rng::child_seed;
use crate::tree::additive::AdditiveCriterion;
use crate::tree::histogram::score_filled_bins;
use rayon::prelude::*;

/// One row record, borrowed from the records the parts sent.
struct Record<'a> {
    weight: f64,
    codes: &'a [f64],
    leaf: &'a [f64],
    /// (entry, amount) pairs, flat.
    stats: &'a [f64],
}

fn invalid(reason: String) -> crate::LrankError {
    crate::LrankError::InvalidInput(format!("the parts' rows: {reason}"))
}

/// A subtree grown from rows: its nodes, the root first (children index into it).
pub(super) type Subtree<L> = Vec<Grown<L>>;

/// The subtrees grown from a round's rows, by the (tree, node) each replaces.
pub(super) type Grafts<L> = Vec<((usize, usize), Subtree<L>)>;

impl<C: AdditiveCriterion, L: SummedLeaf> LevelGrower<C, L> {
    /// Parses the row records and grows, in parallel, the subtree of every node the last plan
    /// asked the rows of: by (tree, node).
    pub(super) fn grow_rows(&self, rows: &[f64]) -> crate::Result<Grafts<L::Leaf>> {
        let asked = self.asked_rows();
        let mut slots: Vec<Vec<Record<'_>>> = (0..asked.len()).map(|_| Vec::new()).collect();
        let (d, k, n_stats) = (self.layout().n_features(), self.leaf().n_leaf_stats(), self.n_stats());
        for (slot, span) in super::records(rows, d, k)? {
            let record = &rows[span];
            let weight = record[1];
            if !(slot >= 0.0 && (slot as usize) < slots.len() && slot.fract() == 0.0) {
                return Err(invalid(format!("slot {slot} is not one the round asked for")));
            }
            if !(weight > 0.0 && weight.is_finite()) {
                return Err(invalid(format!("a weight of {weight}")));
            }
            let codes = &record[2..2 + d];
            if let Some(f) = (0..d).find(|&f| !(codes[f] >= 0.0 && (codes[f] as usize) < self.layout().n_bins(f))) {
                return Err(invalid(format!("a code of feature {f} is beyond its bins")));
            }
            let (leaf, stats) = (&record[2 + d..2 + d + k], &record[2 + d + k + 1..]);
            let bad_entry = stats.chunks_exact(2).any(|p| !(p[0] >= 0.0 && (p[0] as usize) < n_stats && p[1].is_finite()));
            if bad_entry || leaf.iter().any(|v| !(v.is_finite() && *v >= 0.0)) {
                return Err(invalid("a record's statistics are not the criterion's".into()));
            }
            slots[slot as usize].push(Record { weight, codes, leaf, stats });
        }
        asked
            .par_iter()
            .zip(slots)
            .map(|(&(t, node), records)| {
                let Grown::Open { depth, seed, .. } = self.trees()[t][node] else { unreachable!("asked nodes are open") };
                Ok(((t, node), self.grow_subtree(seed, depth, records)))
            })
            .collect()
    }

    /// The subtree of a node (its seed and depth) from its rows' records.
    fn grow_subtree(&self, seed: u64, depth: usize, records: Vec<Record<'_>>) -> Subtree<L::Leaf> {
        let mut nodes: Subtree<L::Leaf> = vec![Grown::Leaf(None)];
        // (node, its seed, its depth, its records): a stack rather than recursion.
        let mut todo = vec![(0usize, seed, depth, records)];
        while let Some((at, seed, depth, records)) = todo.pop() {
            match self.decide_rows(seed, depth, &records) {
                Grown::Split { choice, bin, category, .. } => {
                    let f = super::driver::choice_feature(&choice);
                    let (left_rows, right_rows): (Vec<_>, Vec<_>) = records.into_iter().partition(|r| {
                        let code = r.codes[f] as u8;
                        if category {
                            code == bin
                        } else {
                            code <= bin
                        }
                    });
                    let left = nodes.len() as u32;
                    nodes.extend([Grown::Leaf(None), Grown::Leaf(None)]);
                    nodes[at] = Grown::Split { choice, bin, category, left, right: left + 1 };
                    todo.push((left as usize, child_seed(seed, 0), depth + 1, left_rows));
                    todo.push((left as usize + 1, child_seed(seed, 1), depth + 1, right_rows));
                }
                leaf => nodes[at] = leaf,
            }
        }
        nodes
    }

    /// [`LevelGrower::decide`] of a node from its rows: the sums its histograms would hold.
    fn decide_rows(&self, seed: u64, depth: usize, records: &[Record<'_>]) -> Grown<L::Leaf> {
        let (k, n_stats) = (self.leaf().n_leaf_stats(), self.n_stats());
        let (mut weight, mut whole) = (0.0, true);
        let (mut leaf_sums, mut node_sums) = (vec![0.0; k], vec![0.0; n_stats]);
        for r in records {
            weight += r.weight;
            whole &= (r.weight as u32) as f64 == r.weight;
            leaf_sums.iter_mut().zip(r.leaf).for_each(|(s, v)| *s += v);
            r.stats.chunks_exact(2).for_each(|p| node_sums[p[0] as usize] += p[1]);
        }
        let too_small = weight < self.params().min_weight_split;
        if self.at_limit(depth) || too_small || self.leaf().is_terminal(weight, &leaf_sums) {
            return Grown::Leaf(Some(self.leaf().leaf_from_sums(weight, &leaf_sums)));
        }
        let stride = BIN_HEAD + n_stats;
        let (mut order, mut filled, mut cells) = (Vec::with_capacity(records.len()), Vec::new(), Vec::new());
        self.decide_from(seed, (weight, whole, &leaf_sums), &node_sums, |f, stats| {
            // The bins the rows fill, ascending, and each one's cell.
            order.clear();
            order.extend((0..records.len()).map(|i| (records[i].codes[f] as usize, i)));
            order.sort_unstable();
            filled.clear();
            cells.clear();
            for &(bin, i) in &order {
                if filled.last() != Some(&bin) {
                    filled.push(bin);
                    cells.resize(cells.len() + stride, 0.0);
                }
                let cell = &mut cells[(filled.len() - 1) * stride..];
                let r = &records[i];
                cell[0] += 1.0;
                cell[1] += r.weight;
                r.stats.chunks_exact(2).for_each(|p| cell[BIN_HEAD + p[0] as usize] += p[1]);
            }
            let cell = |i: usize| &cells[i * stride..(i + 1) * stride];
            score_filled_bins(self.layout(), self.kinds()[f], f, &filled, cell, self.criterion(), stats)
        })
    }
}

/// Puts a subtree grown from rows in place of open node `node` of `tree`.
pub(super) fn graft<L>(tree: &mut Vec<Grown<L>>, node: usize, subtree: Subtree<L>) {
    let base = tree.len() as u32;
    // The subtree's node j > 0 goes to base + j - 1; its root replaces the open node.
    let place = |j: u32| base + j - 1;
    for (j, mut grown) in subtree.into_iter().enumerate() {
        if let Grown::Split { left, right, .. } = &mut grown {
            (*left, *right) = (place(*left), place(*right));
        }
        if j == 0 {
            tree[node] = grown;
        } else {
            tree.push(grown);
        }
    }
}
