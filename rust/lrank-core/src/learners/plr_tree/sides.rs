//! The sides of a split of a partial label ranking tree node ([`SplitSides`]): each side's
//! pair-order counts and what its impurity needs, updated as rows (exact sweep) or whole bins
//! (histogram search) move to the left. A side's score is a function of its counts alone, so
//! both searches score a boundary identically:
//! - [`WholeCompleteSides`], entropy when every row holds every pair and the weights are whole
//!   numbers: every pair of a side has the side's weight W, so W times its mean pair entropy is
//!   `(P xlnx(W) - Σ_codes xlnx(c)) / P`, kept as an integer sum of table values;
//! - [`PairEntropySides`], entropy otherwise: each pair's entropy in fixed point, summed;
//! - [`ConsensusSides`], disagreements and distance: the impurity of each side's counts (their
//!   consensus), computed at each boundary.

use super::criterion::{pair_entropy, NodeStats, PairOrderImpurity};
use crate::tree::{SidesTask, SplitSides};

/// Units of one pair entropy (at most ln 3) in [`PairEntropySides`]' fixed point.
const PAIR_ENTROPY_SCALE: f64 = (1u64 << 50) as f64;

/// A split's sides for the entropy with complete rankings and whole-number weights.
pub(super) struct WholeCompleteSides<'a, 'c> {
    criterion: &'a PairOrderImpurity<'c>,
    /// Per count, both sides' values in one word: the left's in the low 32 bits, the right's in
    /// the high (a unit moving left is one addition of [`UNIT_LEFT`], one load and one store).
    sides: &'a mut [u64],
    /// Each side's Σ over its counts of xlnx(c), in fixed point.
    s_left: i64,
    s_right: i64,
    w_left: u32,
    total: u32,
    /// The node's P xlnx(N) - Σ xlnx(c).
    spread: i64,
}

thread_local! {
    /// The sides' counts of a split in progress (one per thread: no allocation per feature
    /// scored).
    static WHOLE_SIDES: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Added to a packed count, moves one unit from the right (high half) to the left (low half):
/// neither half carries into the other, as the left stays below 2^32 and the right above 0.
const UNIT_LEFT: u64 = 1u64.wrapping_sub(1 << 32);

#[inline]
fn unpack(v: u64) -> (u32, u32) {
    (v as u32, (v >> 32) as u32)
}

#[inline]
fn pack(left: u32, right: u32) -> u64 {
    left as u64 | (right as u64) << 32
}

impl<'a, 'c> WholeCompleteSides<'a, 'c> {
    /// Runs `task` on the sides of `node`, all of it on the right.
    pub(super) fn run<T: SidesTask>(criterion: &'a PairOrderImpurity<'c>, node: &NodeStats, task: T) -> T::Output {
        let (counts, s_right) = node.whole_complete.as_ref().expect("a node of whole weights and complete rankings");
        let total = node.total as u32;
        let spread = criterion.codes.n_pairs as i64 * criterion.fixed.whole(total) - s_right;
        WHOLE_SIDES.with(|cell| {
            let sides = &mut *cell.borrow_mut();
            sides.clear();
            sides.extend(counts.iter().map(|&c| pack(0, c)));
            task.run(&mut WholeCompleteSides { criterion, sides, s_left: 0, s_right: *s_right, w_left: 0, total, spread })
        })
    }

    /// Moves `w` of count `c` to the left.
    #[inline]
    fn shift(&mut self, c: usize, w: u32) {
        let t = &self.criterion.fixed;
        let (a, b) = unpack(self.sides[c]);
        self.s_left += t.whole(a + w) - t.whole(a);
        self.s_right += t.whole(b - w) - t.whole(b);
        self.sides[c] = pack(a + w, b - w);
    }
}

impl SplitSides for WholeCompleteSides<'_, '_> {
    #[inline]
    fn move_sample(&mut self, sample: u32, weight: f64) {
        let w = weight as u32;
        self.w_left += w;
        let codes = &*self.criterion.codes;
        let p = codes.n_pairs;
        let s = sample as usize;
        let relations = &codes.relations[s * p..(s + 1) * p];
        if w == 1 {
            // A unit weight: the changes are read from the table of steps and summed apart (a
            // chain of dependent additions per move instead of two per pair).
            let steps = &self.criterion.unit_steps;
            let sides = &mut self.sides[..3 * p];
            let (mut dl, mut dr) = (0i64, 0i64);
            for (k, &r) in relations.iter().enumerate() {
                let c = 3 * k + r as usize;
                let v = sides[c];
                let (a, b) = unpack(v);
                dl += steps[a as usize];
                dr -= steps[b as usize - 1];
                sides[c] = v.wrapping_add(UNIT_LEFT);
            }
            self.s_left += dl;
            self.s_right += dr;
        } else {
            for (k, &r) in relations.iter().enumerate() {
                self.shift(3 * k + r as usize, w);
            }
        }
    }

    #[inline]
    fn move_sums(&mut self, weight: f64, stats: &[f64]) {
        self.w_left += weight as u32;
        for (c, &amount) in stats.iter().enumerate() {
            if amount != 0.0 {
                self.shift(c, amount as u32);
            }
        }
    }

    #[inline]
    fn score(&self) -> Option<f64> {
        let w_right = self.total - self.w_left;
        let min_leaf = self.criterion.min_leaf;
        if self.w_left == 0 || w_right == 0 || (self.w_left as f64) < min_leaf || (w_right as f64) < min_leaf {
            return None;
        }
        let t = &self.criterion.fixed;
        let p = self.criterion.codes.n_pairs as i64;
        let children = (p * t.whole(self.w_left) - self.s_left) + (p * t.whole(w_right) - self.s_right);
        Some(t.units_to_f64(self.spread - children) / (self.total as f64 * p as f64))
    }
}

/// A split's sides for the entropy in general (labels missing, or weights not whole): each
/// pair's entropy per side in fixed point, summed in integers.
pub(super) struct PairEntropySides<'a, 'c> {
    criterion: &'a PairOrderImpurity<'c>,
    left: Vec<f64>,
    right: Vec<f64>,
    e_left: i128,
    e_right: i128,
    w_left: f64,
    total: f64,
    /// The node's summed pair entropies.
    e_node: i128,
}

impl<'a, 'c> PairEntropySides<'a, 'c> {
    pub(super) fn new(criterion: &'a PairOrderImpurity<'c>, node: &NodeStats) -> Self {
        let mut sides = PairEntropySides {
            criterion,
            left: vec![0.0; node.counts.len()],
            right: node.counts.clone(),
            e_left: 0,
            e_right: 0,
            w_left: 0.0,
            total: node.total,
            e_node: 0,
        };
        sides.e_right = (0..criterion.codes.n_pairs).map(|p| sides.entropy(&sides.right, p)).sum();
        sides.e_node = sides.e_right;
        sides
    }

    /// Pair `p`'s entropy in `counts`, in fixed point.
    #[inline]
    fn entropy(&self, counts: &[f64], p: usize) -> i128 {
        (pair_entropy(&self.criterion.table, &counts[3 * p..3 * p + 3]) * PAIR_ENTROPY_SCALE).round() as i128
    }

    /// Moves `amount` of count `c` to the left.
    #[inline]
    fn shift(&mut self, c: usize, amount: f64) {
        let p = c / 3;
        self.e_left -= self.entropy(&self.left, p);
        self.e_right -= self.entropy(&self.right, p);
        self.left[c] += amount;
        self.right[c] -= amount;
        self.e_left += self.entropy(&self.left, p);
        self.e_right += self.entropy(&self.right, p);
    }
}

impl SplitSides for PairEntropySides<'_, '_> {
    #[inline]
    fn move_sample(&mut self, sample: u32, weight: f64) {
        self.w_left += weight;
        for &code in self.criterion.codes.of(sample) {
            self.shift(code as usize, weight);
        }
    }

    #[inline]
    fn move_sums(&mut self, weight: f64, stats: &[f64]) {
        self.w_left += weight;
        for (c, &amount) in stats.iter().enumerate() {
            if amount != 0.0 {
                self.shift(c, amount);
            }
        }
    }

    #[inline]
    fn score(&self) -> Option<f64> {
        let w_right = self.total - self.w_left;
        let min_leaf = self.criterion.min_leaf;
        if self.w_left <= 0.0 || w_right <= 1e-12 * self.total || self.w_left < min_leaf || w_right < min_leaf {
            return None;
        }
        let units = self.criterion.codes.n_pairs.max(1) as f64 * PAIR_ENTROPY_SCALE;
        let (parent, left, right) = (self.e_node as f64 / units, self.e_left as f64 / units, self.e_right as f64 / units);
        Some(parent - (self.w_left * left + w_right * right) / self.total)
    }
}

/// A split's sides for disagreements and distance: each side's counts, scored by their impurity.
pub(super) struct ConsensusSides<'a, 'c> {
    criterion: &'a PairOrderImpurity<'c>,
    left: Vec<f64>,
    right: Vec<f64>,
    w_left: f64,
    total: f64,
    parent: f64,
}

impl<'a, 'c> ConsensusSides<'a, 'c> {
    pub(super) fn new(criterion: &'a PairOrderImpurity<'c>, node: &NodeStats) -> Self {
        let right = node.counts.clone();
        let parent = criterion.impurity(&right);
        ConsensusSides { criterion, left: vec![0.0; right.len()], right, w_left: 0.0, total: node.total, parent }
    }
}

impl SplitSides for ConsensusSides<'_, '_> {
    #[inline]
    fn move_sample(&mut self, sample: u32, weight: f64) {
        self.w_left += weight;
        for &code in self.criterion.codes.of(sample) {
            self.left[code as usize] += weight;
            self.right[code as usize] -= weight;
        }
    }

    #[inline]
    fn move_sums(&mut self, weight: f64, stats: &[f64]) {
        self.w_left += weight;
        for ((l, r), &amount) in self.left.iter_mut().zip(self.right.iter_mut()).zip(stats) {
            *l += amount;
            *r -= amount;
        }
    }

    #[inline]
    fn score(&self) -> Option<f64> {
        let w_right = self.total - self.w_left;
        let min_leaf = self.criterion.min_leaf;
        if self.w_left <= 0.0 || w_right <= 1e-12 * self.total || self.w_left < min_leaf || w_right < min_leaf {
            return None;
        }
        let (i_left, i_right) = (self.criterion.impurity(&self.left), self.criterion.impurity(&self.right));
        Some(self.parent - (self.w_left * i_left + w_right * i_right) / self.total)
    }
}
