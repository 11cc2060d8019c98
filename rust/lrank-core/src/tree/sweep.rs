//! The one boundary sweep. A criterion plugs into it with a [`BoundarySweep`]: the state of a
//! candidate split whose left side grows one sample at a time (`move_left`), and the score of
//! the current boundary (`score`). The sweep decides which boundaries are scored, which wins
//! (the first of equal scores, up to the criterion's [`BoundarySweep::MARGIN`]) and when to stop.

/// One of a node's samples, as handed to a criterion sorted by one feature's value.
#[derive(Clone, Copy, Debug)]
pub struct SortedSample {
    pub value: f64,
    pub sample: u32,
    pub weight: f64,
}

/// Which boundaries of a sorted node may be returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundaries {
    /// Every boundary between distinct values.
    All,
    /// Only "between `sorted[k - 1]` and `sorted[k]`" (the caller guarantees 0 < k < len).
    Only(usize),
}

/// Whether the sweep scores the boundary before `sorted[k]`, and whether it can stop there.
#[inline]
pub(crate) fn evaluate_at(boundaries: Boundaries, sorted: &[SortedSample], k: usize) -> (bool, bool) {
    match boundaries {
        Boundaries::All => (sorted[k].value != sorted[k - 1].value, false),
        Boundaries::Only(only) => (k == only, k == only),
    }
}

/// A candidate split of one node during the sweep: the samples moved so far are on the left.
pub trait BoundarySweep {
    /// A later boundary replaces the best so far only when it scores more than this above it
    /// (ties, and differences at the level of rounding, go to the first boundary).
    const MARGIN: f64;

    /// Moves the next sample (in sorted order) to the left side.
    fn move_left(&mut self, moved: &SortedSample);

    /// The score of the current boundary (higher is better), or `None` when it is no valid
    /// split. A criterion that can bound a score cheaply may also return `None` when the score
    /// cannot exceed `to_beat` (the best so far of this node; the sweep would not take it).
    fn score(&mut self, to_beat: f64) -> Option<f64>;
}

/// Scores the thresholds of one feature for one node.
pub trait SplitCriterion: Sync {
    /// What the criterion knows of a whole node, computed once per node and shared by all its
    /// features (e.g. the node's totals, from which each sweep starts).
    type NodeStats: Sync;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> Self::NodeStats;

    /// True when the node must become a leaf whatever its features (e.g. it is pure).
    fn is_terminal(&self, node: &Self::NodeStats) -> bool;

    /// Best boundary in `sorted` (the node's samples in an order given by one feature) among
    /// `boundaries`, when another feature already offers a split scoring `floor`: returns
    /// `(k, score)` meaning "split between `sorted[k - 1]` and `sorted[k]`". Criteria set up
    /// their [`BoundarySweep`] for the node and hand it to [`sweep`]. The result is the best
    /// boundary whenever that scores above `floor`; otherwise `None` or a boundary scoring at
    /// most `floor` (which the node does not take).
    fn best_boundary(
        &self,
        node: &Self::NodeStats,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
    ) -> Option<(usize, f64)>;
}

/// The boundary sweep: moves the samples left one by one and scores the allowed boundaries.
#[inline]
pub fn sweep<S: BoundarySweep>(
    state: &mut S,
    sorted: &[SortedSample],
    boundaries: Boundaries,
    floor: f64,
) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for k in 1..sorted.len() {
        state.move_left(&sorted[k - 1]);
        let (evaluate, last) = evaluate_at(boundaries, sorted, k);
        if evaluate {
            let to_beat = best.map_or(floor, |(_, g)| g.max(floor));
            if let Some(score) = state.score(to_beat) {
                if best.is_none_or(|(_, g)| score > g + S::MARGIN) {
                    best = Some((k, score));
                }
            }
        }
        if last {
            break;
        }
    }
    best
}
