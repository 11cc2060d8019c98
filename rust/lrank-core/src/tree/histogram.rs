//! The histogram split search of additive criteria on binned features ([`super::bins`]).
//!
//! A large node keeps a histogram per binned feature: per bin, the number of samples, their
//! weight and the criterion's summed statistics ([`AdditiveCriterion`]). A feature is scored by
//! moving whole bins to the left side of the criterion's [`SplitSides`], in bin order, scoring
//! each boundary between bins the node holds; a nominal feature by moving each category's bin
//! alone. Of a split node's children, the smaller one's histograms are built from its samples
//! and the larger one's are the parent's minus those (the sibling by subtraction), so a level of
//! the tree costs about half its samples, not all of them.
//!
//! Histograms pay off in large nodes: below a size set from the histograms' size (a node then
//! costs its bins, not its samples), a node sorts its samples by bin instead and sweeps them
//! (`split::score_feature` with `Key::Bin`): the same split, as the criterion's sides give the
//! same scores for a bin moved at once or sample by sample. Features that are not binned (a
//! nominal one with more categories than bins) are searched exactly. The equal-width and
//! equal-frequency threshold rules have no histogram search: those trees search exactly.

use super::additive::{AdditiveCriterion, SidesTask, SplitSides, MARGIN};
use super::bins::{BinLayout, Bins};
use super::layout::TrainingFeatures;
use super::params::GrowParams;
use super::split::{draw_and_score, score_feature, Key, NodeView, Scratch, Search, SplitChoice};
use crate::data::features::FeatureKind;
use crate::rng::Rng;

/// Numbers per bin before the criterion's statistics: the sample count and their weight.
const HEAD: usize = 2;

/// Histograms above this many numbers (8 bytes each) are not kept: a criterion with very many
/// statistics (a class per distinct ranking on large data) sorts samples by bin in every node.
const MAX_CELLS: usize = 1 << 20;

/// The histogram search of one tree.
pub(super) struct Histograms {
    /// Numbers per bin: [`HEAD`], then the criterion's statistics.
    stride: usize,
    /// Each binned feature and where its bins start in a histogram (in numbers).
    binned: Vec<(usize, usize)>,
    /// Numbers in a node's histograms.
    cells: usize,
    /// Nodes with fewer samples do not keep histograms.
    pub(super) min_node: usize,
}

impl Histograms {
    pub(super) fn new<C: AdditiveCriterion>(x: &TrainingFeatures, criterion: &C, params: &GrowParams) -> Self {
        let bins = x.bins.as_ref().expect("the histogram search needs binned features");
        let stride = HEAD + criterion.n_stats();
        let binned: Vec<(usize, usize)> =
            (0..x.n_features()).filter(|&f| bins.n_bins(f) > 0).map(|f| (f, bins.offset(f) * stride)).collect();
        let cells = bins.total_bins() * stride;
        // A node with histograms costs about its subtraction (every number once) and its sweeps
        // (the features scored, each bin's numbers); sorting costs about 8 numbers' worth per
        // sample and feature scored.
        let scored = params.max_features.min(x.n_features()).max(1);
        let per_feature = cells / binned.len().max(1);
        let min_node = if binned.is_empty() || cells > MAX_CELLS {
            usize::MAX
        } else {
            ((cells + scored * per_feature) / (8 * scored)).max(64)
        };
        Histograms { stride, binned, cells, min_node }
    }

    /// The histograms of `samples`.
    fn build<C: AdditiveCriterion>(
        &self,
        bins: &Bins,
        criterion: &C,
        samples: &[u32],
        weights: &[f64],
        scratch: &mut Scratch,
    ) -> Vec<f64> {
        let mut hist = match scratch.spare_histograms.pop() {
            Some(mut h) => {
                h.iter_mut().for_each(|c| *c = 0.0);
                h
            }
            None => vec![0.0; self.cells],
        };
        let dense = &mut scratch.dense_stats;
        dense.resize(self.stride - HEAD, 0.0);
        if let (Some(&s), Some(&w)) = (samples.first(), weights.first()) {
            if criterion.dense_sample_stats(s, w, dense) {
                // Cells of a few numbers are added as fixed-size arrays (no loop per cell).
                match self.stride {
                    3 => self.build_dense::<3, C>(&mut hist, bins, criterion, samples, weights),
                    4 => self.build_dense::<4, C>(&mut hist, bins, criterion, samples, weights),
                    6 => self.build_dense::<6, C>(&mut hist, bins, criterion, samples, weights),
                    8 => self.build_dense::<8, C>(&mut hist, bins, criterion, samples, weights),
                    _ => {
                        for (&s, &w) in samples.iter().zip(weights) {
                            criterion.dense_sample_stats(s, w, dense);
                            self.add_to_cells(&mut hist, bins.row(s as usize), w, |cell| {
                                cell.iter_mut().zip(dense.iter()).for_each(|(c, &a)| *c += a)
                            });
                        }
                    }
                }
                return hist;
            }
        }
        let stats = &mut scratch.sample_stats;
        for (&s, &w) in samples.iter().zip(weights) {
            stats.clear();
            criterion.sample_stats(s, w, stats);
            self.add_to_cells(&mut hist, bins.row(s as usize), w, |cell| stats.iter().for_each(|&(e, a)| cell[e as usize] += a));
        }
        hist
    }

    /// [`build`](Self::build)'s dense case for cells of `S` numbers (`S == self.stride`).
    fn build_dense<const S: usize, C: AdditiveCriterion>(
        &self,
        hist: &mut [f64],
        bins: &Bins,
        criterion: &C,
        samples: &[u32],
        weights: &[f64],
    ) {
        debug_assert_eq!(S, self.stride);
        let mut add = [0.0; S];
        add[0] = 1.0;
        for (&s, &w) in samples.iter().zip(weights) {
            add[1] = w;
            criterion.dense_sample_stats(s, w, &mut add[HEAD..]);
            let codes = bins.row(s as usize);
            for &(f, start) in &self.binned {
                let at = start + codes[f] as usize * S;
                let cell: &mut [f64; S] = (&mut hist[at..at + S]).try_into().expect("a cell");
                cell.iter_mut().zip(&add).for_each(|(c, &a)| *c += a);
            }
        }
    }

    /// Counts a sample of weight `w` (bin codes `codes`) in its bin of every binned feature;
    /// `add` adds its statistics to each such bin's.
    #[inline]
    fn add_to_cells(&self, hist: &mut [f64], codes: &[u8], w: f64, add: impl Fn(&mut [f64])) {
        for &(f, start) in &self.binned {
            let at = start + codes[f] as usize * self.stride;
            let cell = &mut hist[at..at + self.stride];
            cell[0] += 1.0;
            cell[1] += w;
            add(&mut cell[HEAD..]);
        }
    }

    /// Feature `f`'s bins in a node's histograms.
    fn feature<'h>(&self, bins: &BinLayout, hist: &'h [f64], f: usize) -> &'h [f64] {
        let start = bins.offset(f) * self.stride;
        &hist[start..start + bins.n_bins(f) * self.stride]
    }
}

impl<C: AdditiveCriterion> Search<C> for Histograms {
    type Carry = Option<Vec<f64>>;

    fn find_split(
        &self,
        node: &NodeView<'_, C>,
        carry: &mut Option<Vec<f64>>,
        features: &mut [usize],
        scratch: &mut Scratch,
        rng: &mut Rng,
    ) -> Option<SplitChoice> {
        let NodeView { x, samples, weights, criterion, stats, params, .. } = *node;
        let bins = x.bins.as_ref().expect("binned features");
        let max_features = params.max_features.min(features.len());
        if carry.is_none() && samples.len() >= self.min_node {
            *carry = Some(self.build(bins, criterion, samples, weights, scratch));
        }
        let exact = |f: usize| if bins.n_bins(f) > 0 { Key::Bin } else { Key::Rank };
        let Some(hist) = carry.as_deref() else {
            return draw_and_score(features, max_features, rng, |f, floor| {
                score_feature(x, samples, weights, None, criterion, stats, params, f, exact(f), floor, scratch)
            });
        };
        draw_and_score(features, max_features, rng, |f, floor| {
            if bins.n_bins(f) == 0 {
                return score_feature(x, samples, weights, None, criterion, stats, params, f, Key::Rank, floor, scratch);
            }
            score_binned_feature(bins, x.kinds[f], self.feature(bins, hist, f), self.stride, f, criterion, stats)
        })
    }

    fn split_carry(
        &self,
        node: &NodeView<'_, C>,
        carry: Option<Vec<f64>>,
        n_left: usize,
        scratch: &mut Scratch,
    ) -> (Option<Vec<f64>>, Option<Vec<f64>>) {
        let Some(mut hist) = carry else {
            return (None, None);
        };
        let n_right = node.samples.len() - n_left;
        if n_left.max(n_right) < self.min_node {
            scratch.spare_histograms.push(hist);
            return (None, None);
        }
        // The smaller child's histograms from its samples, the larger one's by subtraction.
        let left_is_smaller = n_left <= n_right;
        let (samples, weights) = if left_is_smaller {
            (&node.samples[..n_left], &node.weights[..n_left])
        } else {
            (&node.samples[n_left..], &node.weights[n_left..])
        };
        let bins = node.x.bins.as_ref().expect("binned features");
        let smaller = self.build(bins, node.criterion, samples, weights, scratch);
        hist.iter_mut().zip(&smaller).for_each(|(h, s)| *h -= s);
        let smaller = if n_left.min(n_right) >= self.min_node {
            Some(smaller)
        } else {
            scratch.spare_histograms.push(smaller);
            None
        };
        if left_is_smaller {
            (smaller, Some(hist))
        } else {
            (Some(hist), smaller)
        }
    }

    fn discard(&self, carry: Option<Vec<f64>>, scratch: &mut Scratch) {
        if let Some(hist) = carry {
            scratch.spare_histograms.push(hist);
        }
    }
}

/// The best split on binned feature `f` from its bins in a node's histograms (`stride` numbers
/// per bin): `None` when the node holds one bin of it, else the best (score, split) if any is
/// valid. A nominal feature tries each category against the rest, in code order (with two, the
/// first only); a numeric one every boundary between bins the node holds.
pub(super) fn score_binned_feature<C: AdditiveCriterion>(
    bins: &BinLayout,
    kind: FeatureKind,
    hist: &[f64],
    stride: usize,
    f: usize,
    criterion: &C,
    stats: &C::NodeStats,
) -> Option<Option<(f64, SplitChoice)>> {
    let filled: Vec<usize> = (0..bins.n_bins(f)).filter(|&b| hist[b * stride] > 0.0).collect();
    score_filled_bins(bins, kind, f, &filled, |i| &hist[filled[i] * stride..(filled[i] + 1) * stride], criterion, stats)
}

/// [`score_binned_feature`] from the bins the node holds (`filled`, ascending) and their cells
/// (`cell(i)`: bin `filled[i]`'s), as a levelwise driver holding a small node's rows has them.
pub(crate) fn score_filled_bins<'a, C: AdditiveCriterion>(
    bins: &BinLayout,
    kind: FeatureKind,
    f: usize,
    filled: &[usize],
    cell: impl Fn(usize) -> &'a [f64],
    criterion: &C,
    stats: &C::NodeStats,
) -> Option<Option<(f64, SplitChoice)>> {
    if filled.len() < 2 {
        return None; // one bin in this node
    }
    if kind == FeatureKind::Nominal {
        let tried = if filled.len() == 2 { 1 } else { filled.len() };
        let mut best: Option<(f64, SplitChoice)> = None;
        for (i, &b) in filled.iter().enumerate().take(tried) {
            if let Some(score) = criterion.with_sides(stats, OneBin(cell(i))) {
                if best.is_none_or(|(g, _)| score > g) {
                    best = Some((score, SplitChoice::Category { feature: f, value: bins.category(f, b) }));
                }
            }
        }
        return Some(best);
    }
    let best = criterion.with_sides(stats, BinSweep { filled, cell });
    Some(
        best.map(|(a, b, score)| {
            (score, SplitChoice::Bins { feature: f, threshold: bins.threshold(f, a, b), last_left: a as u8 })
        }),
    )
}

/// The sweep over one feature's bins: bins move left in order, and each boundary between two
/// bins the node holds is scored; the best boundary wins, ties (within [`MARGIN`]) to the first,
/// as in the sample sweep. Returns the bins on both sides of it and its score.
struct BinSweep<'f, F> {
    /// The bins the node holds, ascending.
    filled: &'f [usize],
    /// Bin `filled[i]`'s cell.
    cell: F,
}

impl<'a, F: Fn(usize) -> &'a [f64]> SidesTask for BinSweep<'_, F> {
    type Output = Option<(usize, usize, f64)>;

    fn run<S: SplitSides>(self, sides: &mut S) -> Self::Output {
        let mut best: Option<(usize, usize, f64)> = None;
        for i in 0..self.filled.len() - 1 {
            let (a, b) = (self.filled[i], self.filled[i + 1]);
            let cell = (self.cell)(i);
            sides.move_sums(cell[1], &cell[HEAD..]);
            if let Some(score) = sides.score() {
                if best.is_none_or(|(_, _, g)| score > g + MARGIN) {
                    best = Some((a, b, score));
                }
            }
        }
        best
    }
}

/// One bin alone on the left (a category against the rest): its score.
struct OneBin<'a>(&'a [f64]);

impl SidesTask for OneBin<'_> {
    type Output = Option<f64>;

    fn run<S: SplitSides>(self, sides: &mut S) -> Self::Output {
        sides.move_sums(self.0[1], &self.0[HEAD..]);
        sides.score()
    }
}
