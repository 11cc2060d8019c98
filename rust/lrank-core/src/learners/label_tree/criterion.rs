//! LRT's split criterion: the weighted mean of the two sides' Mallows spreads, computed in
//! O(m^2) per threshold (the module docs of [`super`] explain the representation).

use crate::consensus::{BordaAccumulator, ThetaTable};
use crate::data::pairs::pair_index;
use crate::data::ranking::RankMatrixView;
use crate::tree::{sweep, Boundaries, BoundarySweep, SortedSample, SplitCriterion};

/// Split criterion: weighted mean of the two sides' Mallows spreads (see the module docs).
///
/// Representation (what makes a threshold cost O(m^2) with small constants): label pairs
/// a < b are numbered p = 0..P, P = m(m-1)/2. Each ranking is a sign vector u over pairs: +1
/// if it puts a before b, -1 if b before a, 0 if it lacks either. A centre is a sign vector c
/// (all entries ±1). The ranking's discordant pairs with the centre are (|u|_1 - u·c) / 2, a
/// dot product; and a side's pairwise information is the vector D = Σ w u (`D_p = C[a][b] -
/// C[b][a]`), which is all a swap of two neighbouring labels in the centre needs.
pub struct MallowsSpread {
    m: usize,
    /// Per sample, its generalized Borda votes scaled to integers (n x m, row-major), so that
    /// running sums are exact and Borda ties break the same way on both sides of a split.
    votes: Vec<f64>,
    /// Per sample, its pair signs (n x P, row-major; ±1 and 0 are exact in f32).
    signs: Vec<f32>,
    /// Per sample, the number of pairs it contains.
    n_pairs: Vec<f64>,
    theta: std::sync::Arc<ThetaTable>,
    /// Least weight on each side of a split.
    min_leaf: f64,
    /// Weight of the pseudo-pair that smooths each side's θ: one row of the training set's
    /// average weight (1 with unit weights), so the splits do not depend on the weights' scale.
    pseudo: f64,
}

/// One side of a candidate split during the sweep: Borda scores and the Borda centre (kept
/// sorted incrementally) with its sign vector. Its pair vector D lives beside it (the right
/// side's is the node's minus the left side's).
#[derive(Clone, Debug, Default)]
struct Side {
    /// Scaled Borda votes per label.
    scores: Vec<f64>,
    /// Total weight of observed pairs.
    observed: f64,
    /// Total weight of the rankings.
    weight: f64,
    /// Labels by decreasing score, ties to the lower label (the Borda centre).
    order: Vec<usize>,
    /// The centre's sign per pair: +1 when it puts the lower label first.
    centre: Vec<f32>,
    /// Weight of observed pairs that the centre orders the other way.
    disc: f64,
}

impl Side {
    fn empty(m: usize) -> Self {
        let mut side = Side::default();
        side.clear(m);
        side
    }

    /// Makes this the empty side of `m` labels, keeping the buffers.
    fn clear(&mut self, m: usize) {
        self.scores.clear();
        self.scores.resize(m, 0.0);
        self.order.clear();
        self.order.extend(0..m);
        self.centre.clear();
        self.centre.resize(m * m.saturating_sub(1) / 2, 1.0);
        (self.observed, self.weight, self.disc) = (0.0, 0.0, 0.0);
    }

    /// Makes this a copy of `other`, keeping the buffers.
    fn copy_from(&mut self, other: &Side) {
        self.scores.clone_from(&other.scores);
        self.order.clone_from(&other.order);
        self.centre.clone_from(&other.centre);
        (self.observed, self.weight, self.disc) = (other.observed, other.weight, other.disc);
    }

    /// Restores `order` after score changes by insertion sort (scores change little between
    /// neighbouring thresholds, so this is O(m) plus one step per adjacent swap), flipping the
    /// centre's sign of each swapped pair.
    #[inline(always)]
    fn sort_order(&mut self) {
        let m = self.order.len();
        for i in 1..m {
            let mut j = i;
            while j > 0 {
                let (a, b) = (self.order[j - 1], self.order[j]);
                let (sa, sb) = (self.scores[a], self.scores[b]);
                // One branch, not three: the comparison outcomes combine as bits.
                if !((sb > sa) | ((sb == sa) & (b < a))) {
                    break;
                }
                let p = pair_index(a, b, m);
                self.centre[p] = -self.centre[p];
                self.order.swap(j - 1, j);
                j -= 1;
            }
        }
    }

    /// Split-search spread: θ for the smoothed mean distance (module docs),
    /// (disc + 1/2) / (observed + 1) · m(m-1)/2, handed to the table as its share of the
    /// largest mean distance m(m-1)/4.
    #[inline]
    fn theta(&self, table: &ThetaTable, pseudo: f64) -> f64 {
        smoothed_theta(table, self.disc, self.observed, pseudo)
    }
}

/// θ of a side with discordance `disc` out of `observed` pairs, smoothed as [`Side::theta`]
/// describes (the score bound must use the same formula as the score).
#[inline]
fn smoothed_theta(table: &ThetaTable, disc: f64, observed: f64, pseudo: f64) -> f64 {
    table.theta_of_share((2.0 * disc + pseudo) / (observed + pseudo))
}

/// Dot product of two sign vectors. Exact (a sum of small integers), so the sum can be split
/// over independent lanes, which lets the compiler use SIMD.
#[inline]
fn dot(u: &[f32], c: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (u_chunks, c_chunks) = (u.chunks_exact(8), c.chunks_exact(8));
    let tail: f32 = u_chunks.remainder().iter().zip(c_chunks.remainder()).map(|(x, y)| x * y).sum();
    for (a, b) in u_chunks.zip(c_chunks) {
        for l in 0..8 {
            lanes[l] += a[l] * b[l];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// The two sides' agreement with their centres, D·c: the left side's from its pair vector, the
/// right side's from the node's minus the left's. Summed over four independent lanes per side
/// (one running sum would make each addition wait for the previous one); the terms are integers
/// for integer weights, so the order of the additions does not change the sums then.
#[inline]
fn agreements<S: SweepSum>(left_sums: &[S], total_sums: &[S], left_centre: &[f32], right_centre: &[f32]) -> (f64, f64) {
    const LANES: usize = 4;
    let (mut left, mut right) = ([S::ZERO; LANES], [S::ZERO; LANES]);
    let (ls, ts, lc, rc) = (
        left_sums.chunks_exact(LANES),
        total_sums.chunks_exact(LANES),
        left_centre.chunks_exact(LANES),
        right_centre.chunks_exact(LANES),
    );
    for i in 0..ls.remainder().len() {
        let (d, t) = (ls.remainder()[i], ts.remainder()[i]);
        left[i] += d * S::from_sign(lc.remainder()[i]);
        right[i] += (t - d) * S::from_sign(rc.remainder()[i]);
    }
    for (((d, t), cl), cr) in ls.zip(ts).zip(lc).zip(rc) {
        for l in 0..LANES {
            left[l] += d[l] * S::from_sign(cl[l]);
            right[l] += (t[l] - d[l]) * S::from_sign(cr[l]);
        }
    }
    (((left[0] + left[1]) + (left[2] + left[3])).to_f64(), ((right[0] + right[1]) + (right[2] + right[3])).to_f64())
}

impl MallowsSpread {
    /// Refused when the rows' signs per label pair would not fit in memory (they grow with the
    /// square of the label count).
    pub fn new(y: &RankMatrixView<'_>) -> crate::Result<Self> {
        let m = y.n_labels();
        let n_pairs_total = m * m.saturating_sub(1) / 2;
        let mut signs: Vec<f32> =
            crate::memory::zeroed("the label-pair signs of the training rankings", &[y.n_rows(), n_pairs_total])?;
        let mut votes = Vec::with_capacity(y.n_rows() * m);
        let mut n_pairs = Vec::with_capacity(y.n_rows());
        for (i, row) in y.rows().enumerate() {
            let mut acc = BordaAccumulator::new(m);
            acc.add(row, 1.0);
            votes.extend_from_slice(acc.scaled_scores());
            let u = &mut signs[i * n_pairs_total..(i + 1) * n_pairs_total];
            let mut count = 0;
            for a in 0..m {
                for b in (a + 1)..m {
                    if row[a] > 0 && row[b] > 0 {
                        u[pair_index(a, b, m)] = if row[a] < row[b] { 1.0 } else { -1.0 };
                        count += 1;
                    }
                }
            }
            n_pairs.push(count as f64);
        }
        Ok(MallowsSpread { m, votes, signs, n_pairs, theta: ThetaTable::shared(m), min_leaf: 0.0, pseudo: 1.0 })
    }

    fn n_pair_slots(&self) -> usize {
        self.m * self.m.saturating_sub(1) / 2
    }

    fn sample_signs(&self, sample: u32) -> &[f32] {
        let (s, p) = (sample as usize, self.n_pair_slots());
        &self.signs[s * p..(s + 1) * p]
    }

    fn sample_votes(&self, sample: u32) -> &[f64] {
        let s = sample as usize;
        &self.votes[s * self.m..(s + 1) * self.m]
    }

    /// A side holding `samples`, with its centre sorted and its discordance counted from
    /// scratch, and its pair vector D.
    fn side_of(&self, samples: impl Iterator<Item = (u32, f64)> + Clone) -> (Side, Vec<f64>) {
        let m = self.m;
        let mut side = Side::empty(m);
        let mut pair_sums = vec![0.0; self.n_pair_slots()];
        for (s, w) in samples.clone() {
            for (acc, v) in side.scores.iter_mut().zip(self.sample_votes(s)) {
                *acc += w * v;
            }
            for (d, &u) in pair_sums.iter_mut().zip(self.sample_signs(s)) {
                *d += w * u as f64;
            }
            side.observed += w * self.n_pairs[s as usize];
            side.weight += w;
        }
        side.order.sort_by(|&a, &b| side.scores[b].total_cmp(&side.scores[a]).then(a.cmp(&b)));
        for i in 0..m {
            for j in (i + 1)..m {
                let (a, b) = (side.order[i], side.order[j]);
                side.centre[pair_index(a, b, m)] = if a < b { 1.0 } else { -1.0 };
            }
        }
        // Counted ranking by ranking, so that a pure node's discordance is exactly 0.
        let mut disc = 0.0;
        for (s, w) in samples {
            let u = self.sample_signs(s);
            disc += w * (self.n_pairs[s as usize] - dot(u, &side.centre) as f64) / 2.0;
        }
        side.disc = disc;
        (side, pair_sums)
    }

    /// (θ, discordant weight) of a set of samples, computed from scratch.
    #[cfg(test)]
    pub(super) fn theta_of(&self, samples: &[u32], weights: &[f64]) -> (f64, f64) {
        let (side, _) = self.side_of(samples.iter().copied().zip(weights.iter().copied()));
        (side.theta(&self.theta, self.pseudo), side.disc)
    }
}

/// Buffers of one thread's sweeps: a node's features are swept one after another, and in a
/// deep tree most nodes are small, where fresh vectors per sweep would cost as much as the
/// sweep itself.
#[derive(Default)]
struct SweepBuffers {
    left: Side,
    right: Side,
    sums: PairSumBuffers,
}

/// The left side's and the node's pair sums, in either number type.
#[derive(Default)]
pub(super) struct PairSumBuffers {
    f32: [Vec<f32>; 2],
    f64: [Vec<f64>; 2],
}

thread_local! {
    static SWEEP_BUFFERS: std::cell::RefCell<SweepBuffers> = std::cell::RefCell::default();
}

/// A node as the criterion sees it: its side (centre, discordance) and pair vector D.
pub struct MallowsNode {
    side: Side,
    pair_sums: Vec<f64>,
    /// Whether the sweep's pair sums are exact in f32 (integer weights, small enough totals).
    pub(super) exact_in_f32: bool,
}

/// The number type of the sweep's pair sums and agreements. With integer weights every sum is
/// an integer no larger than (number of pairs) x (node weight), so below 2^24 f32 holds them
/// exactly, the result is the f64 sweep's to the bit, and a SIMD register holds twice as many.
pub(super) trait SweepSum:
    Copy + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self> + std::ops::AddAssign
{
    const ZERO: Self;
    /// This type's buffers among a thread's pair-sum buffers.
    fn buffers(b: &mut PairSumBuffers) -> &mut [Vec<Self>; 2];
    fn from_sign(x: f32) -> Self;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn abs(self) -> Self;
}

impl SweepSum for f32 {
    const ZERO: Self = 0.0;
    fn buffers(b: &mut PairSumBuffers) -> &mut [Vec<Self>; 2] {
        &mut b.f32
    }
    #[inline]
    fn from_sign(x: f32) -> Self {
        x
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline]
    fn abs(self) -> Self {
        f32::abs(self)
    }
}

impl SweepSum for f64 {
    const ZERO: Self = 0.0;
    fn buffers(b: &mut PairSumBuffers) -> &mut [Vec<Self>; 2] {
        &mut b.f64
    }
    #[inline]
    fn from_sign(x: f32) -> Self {
        f64::from(x)
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn abs(self) -> Self {
        f64::abs(self)
    }
}

impl SplitCriterion for MallowsSpread {
    type NodeStats = MallowsNode;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> MallowsNode {
        let (side, pair_sums) = self.side_of(samples.iter().copied().zip(weights.iter().copied()));
        let exact_in_f32 =
            weights.iter().all(|w| w.fract() == 0.0) && side.weight * self.n_pair_slots() as f64 <= f64::from(1u32 << 24);
        MallowsNode { side, pair_sums, exact_in_f32 }
    }

    fn is_terminal(&self, node: &MallowsNode) -> bool {
        // Pure: no observed pair disagrees with the Borda centre (θ = ∞).
        node.side.disc == 0.0
    }

    fn best_boundary(
        &self,
        node: &MallowsNode,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
    ) -> Option<(usize, f64)> {
        if node.exact_in_f32 {
            self.sweep::<f32>(node, sorted, boundaries, floor)
        } else {
            self.sweep::<f64>(node, sorted, boundaries, floor)
        }
    }
}

impl MallowsSpread {
    /// The criterion that scores only splits leaving at least `min_leaf` weight on each side.
    pub fn with_min_leaf(self, min_leaf: f64) -> Self {
        MallowsSpread { min_leaf, ..self }
    }

    /// The criterion whose θ smoothing pseudo-pair weighs `pseudo` (the training set's average
    /// weight; 1 by default).
    pub fn with_pseudo_weight(self, pseudo: f64) -> Self {
        MallowsSpread { pseudo, ..self }
    }

    /// [`SplitCriterion::best_boundary`], with the pair sums in `S`.
    pub(super) fn sweep<S: SweepSum>(
        &self,
        node: &MallowsNode,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
    ) -> Option<(usize, f64)> {
        SWEEP_BUFFERS
            .try_with(|cell| match cell.try_borrow_mut() {
                Ok(mut buffers) => self.sweep_in::<S>(node, sorted, boundaries, floor, &mut buffers),
                Err(_) => self.sweep_in::<S>(node, sorted, boundaries, floor, &mut SweepBuffers::default()),
            })
            .unwrap_or_else(|_| self.sweep_in::<S>(node, sorted, boundaries, floor, &mut SweepBuffers::default()))
    }

    /// An upper bound on a boundary's score (the score with each side's discordance replaced by
    /// a lower bound): a centre agrees with pair p of a side at most |D_p| (its majority), so
    /// disc >= (observed - sum |D_p|) / 2, and θ decreases as disc grows. O(m^2), without the
    /// Borda order repair and the centre's agreement.
    #[inline]
    fn score_bound<S: SweepSum>(&self, left_sums: &[S], total_sums: &[S], left: &Side, total: f64, total_observed: f64) -> f64 {
        const LANES: usize = 4;
        let (mut l_abs, mut r_abs) = ([S::ZERO; LANES], [S::ZERO; LANES]);
        let (ls, ts) = (left_sums.chunks_exact(LANES), total_sums.chunks_exact(LANES));
        for (i, (&d, &t)) in ls.remainder().iter().zip(ts.remainder()).enumerate() {
            l_abs[i] += d.abs();
            r_abs[i] += (t - d).abs();
        }
        for (d, t) in ls.zip(ts) {
            for l in 0..LANES {
                l_abs[l] += d[l].abs();
                r_abs[l] += (t[l] - d[l]).abs();
            }
        }
        let sum = |a: [S; LANES]| ((a[0] + a[1]) + (a[2] + a[3])).to_f64();
        let right_observed = total_observed - left.observed;
        let left_disc = ((left.observed - sum(l_abs)) / 2.0).max(0.0);
        let right_disc = ((right_observed - sum(r_abs)) / 2.0).max(0.0);
        (left.weight * smoothed_theta(&self.theta, left_disc, left.observed, self.pseudo)
            + (total - left.weight) * smoothed_theta(&self.theta, right_disc, right_observed, self.pseudo))
            / total
    }

    fn sweep_in<S: SweepSum>(
        &self,
        node: &MallowsNode,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
        buffers: &mut SweepBuffers,
    ) -> Option<(usize, f64)> {
        let m = self.m;
        // All the sweep's sums hold integers (integer-scaled votes, ±1 signs), so with integer
        // weights they are exact whatever the order of the additions.
        let SweepBuffers { left, right, sums } = buffers;
        left.clear(m);
        right.copy_from(&node.side);
        let [left_sums, total_sums] = S::buffers(sums);
        left_sums.clear();
        left_sums.resize(self.n_pair_slots(), S::ZERO);
        total_sums.clear();
        total_sums.extend(node.pair_sums.iter().map(|&t| S::from_f64(t)));
        let mut state = MallowsSweep { criterion: self, node, left, right, left_sums, total_sums };
        sweep(&mut state, sorted, boundaries, floor)
    }
}

/// [`MallowsSpread`]'s split in progress. Moving a ranking left only adds to the left side's
/// Borda scores, pair vector and weights; the right side's are the node's minus those, and both
/// discordances follow from the pair vectors (disc = (observed - D·c) / 2), so they are
/// computed only where a boundary is scored.
struct MallowsSweep<'a, S> {
    criterion: &'a MallowsSpread,
    node: &'a MallowsNode,
    left: &'a mut Side,
    right: &'a mut Side,
    left_sums: &'a mut Vec<S>,
    total_sums: &'a mut Vec<S>,
}

impl<S: SweepSum> BoundarySweep for MallowsSweep<'_, S> {
    /// Strictly better only: ties go to the first boundary, and skipping boundaries that score
    /// at most the floor cannot change which one wins.
    const MARGIN: f64 = 0.0;

    #[inline]
    fn move_left(&mut self, moved: &SortedSample) {
        let c = self.criterion;
        let w = moved.weight;
        let w_sum = S::from_f64(w);
        for (d, &x) in self.left_sums.iter_mut().zip(c.sample_signs(moved.sample)) {
            *d += w_sum * S::from_sign(x);
        }
        for (l, v) in self.left.scores.iter_mut().zip(c.sample_votes(moved.sample)) {
            *l += w * v;
        }
        self.left.observed += w * c.n_pairs[moved.sample as usize];
        self.left.weight += w;
    }

    #[inline]
    fn score(&mut self, to_beat: f64) -> Option<f64> {
        let (c, node) = (self.criterion, self.node);
        let (left, right) = (&mut *self.left, &mut *self.right);
        let total = node.side.weight;
        if left.weight < c.min_leaf || total - left.weight < c.min_leaf {
            return None;
        }
        let total_observed = node.side.observed;
        // A boundary whose bound cannot beat the best so far (of this feature, or of the node's
        // earlier features) is not scored in full. The slack covers the θ table's error,
        // 1e-8 (1 + θ) on each side, and sums rounded in another order (f64 weights).
        if to_beat != f64::NEG_INFINITY {
            let bound = c.score_bound(self.left_sums, self.total_sums, left, total, total_observed);
            if !(bound + 1e-7 * (1.0 + bound) > to_beat) {
                return None;
            }
        }
        for ((r, t), l) in right.scores.iter_mut().zip(&node.side.scores).zip(&left.scores) {
            *r = t - l;
        }
        left.sort_order();
        right.sort_order();
        let (left_agree, right_agree) = agreements(self.left_sums, self.total_sums, &left.centre, &right.centre);
        right.observed = total_observed - left.observed;
        left.disc = ((left.observed - left_agree) / 2.0).max(0.0);
        right.disc = ((right.observed - right_agree) / 2.0).max(0.0);
        let w_left = left.weight;
        Some((w_left * left.theta(&c.theta, c.pseudo) + (total - w_left) * right.theta(&c.theta, c.pseudo)) / total)
    }
}
