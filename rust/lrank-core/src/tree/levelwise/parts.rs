//! A part's side of a round: the plan it is sent, and its rows' sums for it.

use super::{SummedLeaf, BIN_HEAD, HEAD};
use crate::tree::additive::AdditiveCriterion;
use crate::tree::bins::BinLayout;
use crate::tree::ensemble::{forest_sample_counts_in, ForestSampling};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// One node of a tree being grown, as the parts route their rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PlanNode {
    /// Rows whose code of `feature` is at most `bin` (equal to it, for a category) go left.
    Split { feature: u32, bin: u8, category: bool, left: u32, right: u32 },
    /// A leaf, or a node summed in another round: its rows are not counted.
    Elsewhere,
    /// A node summed this round, from `offset` in a part's sums (with histograms or not), its
    /// histograms holding the criterion's statistics `entries` only (ascending; `None`: all).
    Open { offset: u64, histograms: bool, entries: Option<Vec<u32>> },
    /// A small node whose rows the parts send (as [`row records`](part_sums)), tagged `slot`:
    /// the driver grows its whole subtree from them.
    Rows { slot: u32 },
}

/// What the parts sum in one round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelPlan {
    /// Rows of all parts together.
    pub n_rows: u64,
    pub sampling: ForestSampling,
    /// The trees with open nodes: (tree index, its nodes).
    pub trees: Vec<(u32, Vec<PlanNode>)>,
    /// Leaf statistics per node, the criterion's statistics, bins per histogram.
    pub leaf_stats: usize,
    pub n_stats: usize,
    pub total_bins: usize,
    /// Length of a part's sums.
    pub len: u64,
    /// Nodes whose rows are sent ([`PlanNode::Rows`]).
    pub row_slots: u64,
}

/// One part's sums for `plan`: its rows `start..start + codes.len() / d` of all rows, with their
/// bin codes (row-major), weights, and the criterion and leaf statistics of its own rows (as
/// samples `0..`). Adding every part's sums elementwise, and joining their row records, gives
/// what [`super::LevelGrower::absorb`] takes.
///
/// A row record (a row that reaches a [`PlanNode::Rows`] node, with its bootstrap weight w):
/// its slot, w, its codes, its leaf statistics, the number p of its criterion statistics, and
/// p (entry, amount) pairs, all weighted by w.
#[allow(clippy::too_many_arguments)]
pub fn part_sums<C: AdditiveCriterion, L: SummedLeaf>(
    plan: &LevelPlan,
    layout: &BinLayout,
    codes: &[u8],
    start: usize,
    row_weights: &[f64],
    criterion: &C,
    leaf: &L,
) -> crate::Result<(Vec<f64>, Vec<f64>)> {
    let d = layout.n_features();
    let n_local = row_weights.len();
    plan.check(layout, criterion.n_stats(), leaf.n_leaf_stats())?;
    if codes.len() != n_local * d {
        return Err(invalid(format!("{} codes for {n_local} rows of {d} features", codes.len())));
    }
    // Codes are checked where they index a histogram (checking them all every round would cost
    // a pass over the part's rows per round).
    let n_bins: Vec<usize> = (0..d).map(|f| layout.n_bins(f)).collect();
    if start + n_local > plan.n_rows as usize {
        return Err(invalid(format!("the part's rows {start}..{} lie beyond the {} rows", start + n_local, plan.n_rows)));
    }
    let offsets: Vec<usize> = (0..d).map(|f| layout.offset(f)).collect();
    let mut out = vec![0.0; plan.len as usize];
    // Each tree's open nodes' sums are consecutive: the trees fill disjoint slices in parallel.
    let mut slices = Vec::with_capacity(plan.trees.len());
    let mut rest: &mut [f64] = &mut out;
    let mut at = 0;
    for (t, nodes) in &plan.trees {
        // A tree whose open nodes all come as rows has no sums.
        let (lo, hi) = tree_span(nodes, plan).unwrap_or((at, at));
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(lo - at);
        let (mine, tail) = tail.split_at_mut(hi - lo);
        slices.push((*t, nodes, lo, mine));
        rest = tail;
        at = hi;
    }
    let records = slices.into_par_iter().map(|(t, nodes, lo, out)| {
        let counts = forest_sample_counts_in(plan.sampling, t as usize, plan.n_rows as usize, start, start + n_local);
        let (mut stats, mut local, mut records) = (Vec::new(), Vec::new(), Vec::new());
        for (i, (&c, &rw)) in counts.iter().zip(row_weights).enumerate() {
            let w = c * rw;
            if w <= 0.0 {
                continue;
            }
            let row = &codes[i * d..(i + 1) * d];
            let mut node = 0usize;
            let (at, histograms, entries) = loop {
                match &nodes[node] {
                    &PlanNode::Split { feature, bin, category, left, right } => {
                        let code = row[feature as usize];
                        let goes_left = if category { code == bin } else { code <= bin };
                        node = if goes_left { left } else { right } as usize;
                    }
                    PlanNode::Elsewhere => break (None, false, None),
                    PlanNode::Open { offset, histograms, entries } => {
                        break (Some(*offset as usize - lo), *histograms, entries.as_deref())
                    }
                    &PlanNode::Rows { slot } => {
                        if let Some(f) = (0..d).find(|&f| row[f] as usize >= n_bins[f]) {
                            return Err(invalid(format!("a code of feature {f} is beyond its {} bins", n_bins[f])));
                        }
                        records.extend([slot as f64, w]);
                        records.extend(row.iter().map(|&c| c as f64));
                        let at = records.len();
                        records.resize(at + plan.leaf_stats, 0.0);
                        leaf.add_leaf_stats(i as u32, w, &mut records[at..]);
                        stats.clear();
                        criterion.sample_stats(i as u32, w, &mut stats);
                        records.push(stats.len() as f64);
                        records.extend(stats.iter().flat_map(|&(e, a)| [e as f64, a]));
                        break (None, false, None);
                    }
                }
            };
            let Some(at) = at else { continue };
            let sums = &mut out[at..];
            sums[0] += 1.0;
            sums[1] += w;
            if (w as u32) as f64 != w {
                sums[2] += 1.0;
            }
            leaf.add_leaf_stats(i as u32, w, &mut sums[HEAD..HEAD + plan.leaf_stats]);
            if histograms {
                stats.clear();
                criterion.sample_stats(i as u32, w, &mut stats);
                // The node's histograms hold the statistics its parent had (a row's are among them).
                local.clear();
                local.extend(stats.iter().filter_map(|&(e, a)| match entries {
                    None => Some((e as usize, a)),
                    Some(list) => list.binary_search(&e).ok().map(|k| (k, a)),
                }));
                let stride = BIN_HEAD + entries.map_or(plan.n_stats, <[u32]>::len);
                let hist = &mut sums[HEAD + plan.leaf_stats..];
                for (f, &offset) in offsets.iter().enumerate() {
                    if row[f] as usize >= n_bins[f] {
                        return Err(invalid(format!("a code of feature {f} is beyond its {} bins", n_bins[f])));
                    }
                    let cell = &mut hist[(offset + row[f] as usize) * stride..][..stride];
                    cell[0] += 1.0;
                    cell[1] += w;
                    local.iter().for_each(|&(e, a)| cell[BIN_HEAD + e] += a);
                }
            }
        }
        Ok(records)
    });
    let records: Vec<Vec<f64>> = records.collect::<crate::Result<_>>()?;
    Ok((out, records.concat()))
}

/// The row records in `rows` (see [`part_sums`]) of `d` features and `k` leaf statistics: each
/// one's slot and span in `rows`; a record cut short is an error.
pub fn records(rows: &[f64], d: usize, k: usize) -> crate::Result<Vec<(f64, std::ops::Range<usize>)>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < rows.len() {
        let head = 2 + d + k;
        let pairs = *rows.get(at + head).ok_or_else(|| invalid("a row record is cut short".into()))?;
        if !(pairs >= 0.0 && pairs.fract() == 0.0) {
            return Err(invalid(format!("a row record has {pairs} statistics")));
        }
        let end = at + head + 1 + 2 * pairs as usize;
        if end > rows.len() {
            return Err(invalid("a row record is cut short".into()));
        }
        out.push((rows[at], at..end));
        at = end;
    }
    Ok(out)
}

fn invalid(reason: String) -> crate::LrankError {
    crate::LrankError::InvalidInput(format!("a levelwise round: {reason}"))
}

impl LevelPlan {
    /// Refuses a plan that does not fit the bins, criterion and leaves, or whose trees could send
    /// a row astray: children come after their parents, open nodes' sums within `len`.
    pub fn check(&self, layout: &BinLayout, n_stats: usize, leaf_stats: usize) -> crate::Result<()> {
        if self.n_stats != n_stats || self.leaf_stats != leaf_stats || self.total_bins != layout.total_bins() {
            return Err(invalid("the plan's statistics or bins are not the forest's".into()));
        }
        for (t, nodes) in &self.trees {
            if *t as usize >= self.sampling.n_trees || nodes.is_empty() {
                return Err(invalid(format!("tree {t} is not one of the forest's, or has no nodes")));
            }
            for (k, node) in nodes.iter().enumerate() {
                match node {
                    &PlanNode::Split { feature, bin, left, right, .. } => {
                        let children =
                            (k + 1..nodes.len()).contains(&(left as usize)) && (k + 1..nodes.len()).contains(&(right as usize));
                        if feature as usize >= layout.n_features() || bin as usize >= layout.n_bins(feature as usize) || !children
                        {
                            return Err(invalid(format!("node {k} of tree {t} splits outside the bins or the tree")));
                        }
                    }
                    PlanNode::Elsewhere => {}
                    &PlanNode::Rows { slot } => {
                        if slot as u64 >= self.row_slots {
                            return Err(invalid(format!("node {k} of tree {t} sends its rows outside the round's")));
                        }
                    }
                    PlanNode::Open { offset, histograms, entries } => {
                        let sorted = entries.as_ref().is_none_or(|e| {
                            e.windows(2).all(|w| w[0] < w[1]) && e.last().is_none_or(|&l| (l as usize) < n_stats)
                        });
                        let stats = entries.as_ref().map_or(n_stats, Vec::len);
                        let end = *offset as usize + node_len(leaf_stats, (BIN_HEAD + stats) * self.total_bins, *histograms);
                        if !sorted || end > self.len as usize {
                            return Err(invalid(format!("node {k} of tree {t} has its sums outside the round's")));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Refuses codes that are not `n` rows of the features' bins.
pub fn check_codes(layout: &BinLayout, codes: &[u8], n: usize) -> crate::Result<()> {
    let d = layout.n_features();
    if codes.len() != n * d {
        return Err(invalid(format!("{} codes for {n} rows of {d} features", codes.len())));
    }
    for row in codes.chunks_exact(d.max(1)) {
        if let Some(f) = (0..d).find(|&f| row[f] as usize >= layout.n_bins(f)) {
            return Err(invalid(format!("a code of feature {f} is beyond its {} bins", layout.n_bins(f))));
        }
    }
    Ok(())
}

/// Where a tree's open nodes' sums lie (they are consecutive); `None`: it has none.
fn tree_span(nodes: &[PlanNode], plan: &LevelPlan) -> Option<(usize, usize)> {
    let (mut lo, mut hi) = (usize::MAX, 0);
    for node in nodes {
        if let PlanNode::Open { offset, histograms, entries } = node {
            let stats = entries.as_ref().map_or(plan.n_stats, Vec::len);
            lo = lo.min(*offset as usize);
            hi = hi.max(*offset as usize + node_len(plan.leaf_stats, (BIN_HEAD + stats) * plan.total_bins, *histograms));
        }
    }
    (lo != usize::MAX).then_some((lo, hi))
}

pub(super) fn node_len(leaf_stats: usize, cells: usize, histograms: bool) -> usize {
    HEAD + leaf_stats + if histograms { cells } else { 0 }
}
