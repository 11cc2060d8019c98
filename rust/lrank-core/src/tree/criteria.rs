//! Split criteria of more than one learner: the information gain of a class per sample
//! (LR-RF's ranking and top-label classes, the one-versus-one trees) and the information gain
//! summed over label pairs (LR-RF's pairwise mode). Both are additive ([`AdditiveCriterion`]):
//! class weights and pair direction counts add up over samples, so the exact sweep and the
//! histogram search share their sides, which keep the sums of c ln c in fixed point.

use super::additive::{additive_best_boundary, AdditiveCriterion, FixedXlnx, SidesTask, SplitSides};
use super::sweep::{Boundaries, SortedSample, SplitCriterion};
use crate::data::pairs::pair_count;

/// Information gain of a class label per sample (entropy in nats; the argmax is the same in bits).
///
/// LR-RF uses it with the top label of each ranking as class, or each distinct ranking as class.
pub struct ClassEntropy<'a> {
    classes: &'a [u32],
    n_classes: usize,
    epsilon: f64,
    fixed: FixedXlnx,
}

impl<'a> ClassEntropy<'a> {
    /// `classes[sample]` in `0..n_classes`; nodes whose class entropy is below `epsilon` are leaves.
    pub fn new(classes: &'a [u32], n_classes: usize, epsilon: f64) -> Self {
        Self::for_rows(classes, n_classes, epsilon, classes.len())
    }

    /// [`ClassEntropy::new`] for samples of a training set of `n_rows` rows (its table's size),
    /// of which `classes` are some (none on a levelwise driver, a part's on a worker).
    pub fn for_rows(classes: &'a [u32], n_classes: usize, epsilon: f64, n_rows: usize) -> Self {
        ClassEntropy { classes, n_classes, epsilon, fixed: FixedXlnx::new(n_rows) }
    }

    /// A node's statistics from its classes' weights (each once, in any order).
    fn node_of(&self, counts: Vec<(u32, f64)>, total: f64, whole: bool) -> ClassNode {
        let spread = self.fixed.get(total) - counts.iter().map(|&(_, w)| self.fixed.get(w)).sum::<i128>();
        let entropy = if total > 0.0 { (self.fixed.to_f64(spread) / total).max(0.0) } else { 0.0 };
        ClassNode { entropy, counts, total, spread, whole: whole && self.fixed.holds_total(total) }
    }
}

use super::additive::xlnx;

/// c ln c with a table for whole counts (bootstrap weights are whole numbers): the logarithm is
/// most of a split search's cost otherwise. Gives bit-identical values to c ln c computed directly.
#[derive(Clone, Debug)]
pub struct XlnxTable(Vec<f64>);

impl XlnxTable {
    /// Table for whole counts `0..=max_count`.
    pub fn new(max_count: usize) -> Self {
        XlnxTable((0..=max_count).map(|c| xlnx(c as f64)).collect())
    }

    /// Whether every whole count up to `total` is in the table.
    pub fn covers(&self, total: f64) -> bool {
        total >= 0.0 && total < self.0.len() as f64
    }

    /// c ln c of a whole count the table covers ([`covers`](Self::covers)).
    #[inline]
    pub fn at(&self, c: u32) -> f64 {
        self.0[c as usize]
    }

    /// c ln c (from the table for whole counts).
    #[inline]
    pub fn get(&self, c: f64) -> f64 {
        let i = c as usize;
        if i < self.0.len() && i as f64 == c {
            self.0[i]
        } else {
            xlnx(c)
        }
    }
}

/// Per-thread count buffers for [`ClassEntropy`]: with a class per distinct ranking there can be
/// as many classes as rows, so a node must only touch the classes it holds, not allocate and
/// scan all of them. Invariant between calls: every entry is zero.
#[derive(Default)]
struct ClassScratch {
    left: Vec<f64>,
    right: Vec<f64>,
    touched: Vec<u32>,
    /// Whole-number weights: the counts as integers.
    left_whole: Vec<u32>,
    right_whole: Vec<u32>,
}

thread_local! {
    static CLASS_SCRATCH: std::cell::RefCell<ClassScratch> = std::cell::RefCell::new(ClassScratch::default());
}

/// What [`ClassEntropy`] knows of a node.
pub struct ClassNode {
    /// The class entropy (the leaf rule).
    entropy: f64,
    /// The classes present, with their weights.
    counts: Vec<(u32, f64)>,
    total: f64,
    /// total ln total - Σ c ln c over the classes: the node's weight times its entropy, in fixed point.
    spread: i128,
    /// Whole-number weights within the table: its values are read without checks.
    whole: bool,
}

impl SplitCriterion for ClassEntropy<'_> {
    type NodeStats = ClassNode;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> ClassNode {
        CLASS_SCRATCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            if scratch.right.len() < self.n_classes {
                scratch.left.resize(self.n_classes, 0.0);
                scratch.right.resize(self.n_classes, 0.0);
            }
            let ClassScratch { right, touched, .. } = &mut *scratch;
            touched.clear();
            let mut total = 0.0;
            for (&s, &w) in samples.iter().zip(weights) {
                let c = self.classes[s as usize] as usize;
                if right[c] == 0.0 && w > 0.0 {
                    touched.push(c as u32);
                }
                right[c] += w;
                total += w;
            }
            let counts: Vec<(u32, f64)> = touched.iter().map(|&c| (c, std::mem::take(&mut right[c as usize]))).collect();
            self.node_of(counts, total, self.fixed.holds_whole(weights, total))
        })
    }

    fn is_terminal(&self, node: &ClassNode) -> bool {
        node.entropy < self.epsilon
    }

    fn best_boundary(
        &self,
        node: &ClassNode,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
    ) -> Option<(usize, f64)> {
        additive_best_boundary(self, node, sorted, boundaries, floor)
    }
}

impl AdditiveCriterion for ClassEntropy<'_> {
    /// A weight per class.
    fn n_stats(&self) -> usize {
        self.n_classes
    }

    fn sums_nonnegative(&self) -> bool {
        true
    }

    fn node_stats_from_sums(&self, weight: f64, whole: bool, sums: &[f64]) -> Option<ClassNode> {
        let counts = sums.iter().enumerate().filter(|&(_, &w)| w > 0.0).map(|(c, &w)| (c as u32, w)).collect();
        Some(self.node_of(counts, weight, whole))
    }

    #[inline]
    fn sample_stats(&self, sample: u32, weight: f64, out: &mut Vec<(u32, f64)>) {
        out.push((self.classes[sample as usize], weight));
    }

    fn with_sides<T: SidesTask>(&self, node: &ClassNode, task: T) -> T::Output {
        CLASS_SCRATCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            let k = self.n_classes;
            let ClassScratch { left, right, left_whole, right_whole, .. } = &mut *scratch;
            if node.whole {
                // Whole-number weights: integer counts index the table directly (same values).
                if right_whole.len() < k {
                    left_whole.resize(k, 0);
                    right_whole.resize(k, 0);
                }
                let t = &self.fixed;
                let mut s_right = 0i64;
                for &(c, w) in &node.counts {
                    right_whole[c as usize] = w as u32;
                    s_right += t.whole(w as u32);
                }
                let mut sides = WholeClassSides {
                    criterion: self,
                    node,
                    left: left_whole,
                    right: right_whole,
                    s_left: 0,
                    s_right,
                    w_left: 0,
                };
                let out = task.run(&mut sides);
                for &(c, _) in &node.counts {
                    left_whole[c as usize] = 0;
                    right_whole[c as usize] = 0;
                }
                return out;
            }
            if right.len() < k {
                left.resize(k, 0.0);
                right.resize(k, 0.0);
            }
            let mut s_right = 0i128;
            for &(c, w) in &node.counts {
                right[c as usize] = w;
                s_right += self.fixed.get(w);
            }
            let mut sides = ClassSides { criterion: self, node, left, right, s_left: 0, s_right, w_left: 0.0 };
            let out = task.run(&mut sides);
            for &(c, _) in &node.counts {
                left[c as usize] = 0.0;
                right[c as usize] = 0.0;
            }
            out
        })
    }
}

/// [`ClassEntropy`]'s split in progress: class weights per side and their sums of c ln c.
pub struct ClassSides<'a, 'c> {
    criterion: &'a ClassEntropy<'c>,
    node: &'a ClassNode,
    left: &'a mut [f64],
    right: &'a mut [f64],
    s_left: i128,
    s_right: i128,
    w_left: f64,
}

impl ClassSides<'_, '_> {
    #[inline]
    fn shift(&mut self, c: usize, amount: f64) {
        let t = &self.criterion.fixed;
        let (l, r) = (self.left[c], self.right[c]);
        let (l2, r2) = (l + amount, r - amount);
        self.left[c] = l2;
        self.right[c] = r2;
        self.s_left += t.get(l2) - t.get(l);
        self.s_right += t.get(r2) - t.get(r);
    }
}

impl SplitSides for ClassSides<'_, '_> {
    #[inline]
    fn move_sample(&mut self, sample: u32, weight: f64) {
        let c = self.criterion.classes[sample as usize] as usize;
        self.shift(c, weight);
        self.w_left += weight;
    }

    #[inline]
    fn move_sums(&mut self, weight: f64, stats: &[f64]) {
        for (c, &a) in stats.iter().enumerate() {
            if a != 0.0 {
                self.shift(c, a);
            }
        }
        self.w_left += weight;
    }

    /// The information gain: (node's spread - the sides' spreads) / node weight, where a
    /// spread is w ln w - Σ c ln c (w times the entropy); the numerator is an exact integer.
    #[inline]
    fn score(&self) -> Option<f64> {
        let t = &self.criterion.fixed;
        let w_right = self.node.total - self.w_left;
        let children = (t.get(self.w_left) - self.s_left) + (t.get(w_right) - self.s_right);
        Some(t.to_f64(self.node.spread - children) / self.node.total)
    }
}

/// [`ClassSides`] for whole-number weights within the table: integer counts and sums, the
/// same scores.
pub struct WholeClassSides<'a, 'c> {
    criterion: &'a ClassEntropy<'c>,
    node: &'a ClassNode,
    left: &'a mut [u32],
    right: &'a mut [u32],
    s_left: i64,
    s_right: i64,
    w_left: u32,
}

impl WholeClassSides<'_, '_> {
    #[inline(always)]
    fn shift(&mut self, c: usize, amount: u32) {
        let t = &self.criterion.fixed;
        let (l, r) = (self.left[c], self.right[c]);
        self.left[c] = l + amount;
        self.right[c] = r - amount;
        self.s_left += t.whole(l + amount) - t.whole(l);
        self.s_right += t.whole(r - amount) - t.whole(r);
    }
}

impl SplitSides for WholeClassSides<'_, '_> {
    #[inline]
    fn move_sample(&mut self, sample: u32, weight: f64) {
        let c = self.criterion.classes[sample as usize] as usize;
        self.shift(c, weight as u32);
        self.w_left += weight as u32;
    }

    /// Every class is shifted, empty ones by 0 (which changes nothing): a branch on whether a
    /// bin holds a class is as good as random in sparse bins, and costs more than the shift.
    #[inline]
    fn move_sums(&mut self, weight: f64, stats: &[f64]) {
        for (c, &a) in stats.iter().enumerate() {
            self.shift(c, a as u32);
        }
        self.w_left += weight as u32;
    }

    #[inline]
    fn score(&self) -> Option<f64> {
        let t = &self.criterion.fixed;
        let total = self.node.total as u32;
        let children = (t.whole(self.w_left) - self.s_left) + (t.whole(total - self.w_left) - self.s_right);
        // Whole counts within the table: the spreads fit in i64 (see FixedXlnx::whole).
        Some(t.units_to_f64(self.node.spread as i64 - children) / self.node.total)
    }
}

/// Information gain summed over label pairs: each pair (a, b) that a ranking contains is a
/// binary class "a before b" or "b before a". Unlike a class per distinct ranking, this keeps
/// working when rankings are incomplete (distinct incomplete rankings are nearly all unique,
/// which makes per-ranking classes uninformative).
pub struct PairwiseEntropy {
    /// Per sample, the pairs it contains as `2 * pair + direction` (direction 1: a before b).
    pairs: Vec<Vec<u32>>,
    n_pairs: usize,
    epsilon: f64,
    fixed: FixedXlnx,
}

impl PairwiseEntropy {
    /// Refused when the pairs of the rows, or a node's counts per pair, would not fit in
    /// memory (they grow with the square of the label count).
    pub fn new(y: &crate::data::ranking::RankMatrixView<'_>, epsilon: f64) -> crate::Result<Self> {
        Self::for_rows(y, epsilon, y.n_rows())
    }

    /// [`PairwiseEntropy::new`] for samples of a training set of `n_rows` rows (its table's
    /// size), of which `y` are some (none on a levelwise driver, a part's on a worker).
    pub fn for_rows(y: &crate::data::ranking::RankMatrixView<'_>, epsilon: f64, n_rows: usize) -> crate::Result<Self> {
        let m = y.n_labels();
        let present: usize = y.rows().map(|r| pair_count(r.iter().filter(|&&p| p > 0).count())).sum();
        crate::memory::check::<u32>("the label pairs of the training rankings", &[present])?;
        crate::memory::check::<f64>("a node's counts per label pair", &[2, pair_count(m)])?;
        let pairs = y
            .rows()
            .map(|r| {
                let mut out = Vec::new();
                let mut p = 0u32;
                for a in 0..m {
                    for b in (a + 1)..m {
                        // A tied pair is no binary class: it does not count.
                        if r[a] > 0 && r[b] > 0 && r[a] != r[b] {
                            out.push(2 * p + (r[a] < r[b]) as u32);
                        }
                        p += 1;
                    }
                }
                out
            })
            .collect();
        Ok(PairwiseEntropy { pairs, n_pairs: pair_count(m), epsilon, fixed: FixedXlnx::new(n_rows) })
    }

    /// One pair's (weight x entropy), in fixed point (`whole`: see [`FixedXlnx::whole`]).
    #[inline]
    fn term(&self, c: &[f64], p: usize, whole: bool) -> i128 {
        let t = &self.fixed;
        let (a, b) = (c[2 * p], c[2 * p + 1]);
        if whole {
            (t.whole((a + b) as u32) - t.whole(a as u32) - t.whole(b as u32)) as i128
        } else {
            t.get(a + b) - t.get(a) - t.get(b)
        }
    }
}

impl PairwiseEntropy {
    /// A node's statistics from its direction weights per pair.
    fn node_of(&self, counts: Vec<f64>, total: f64, whole: bool) -> PairNode {
        let spread = (0..self.n_pairs).map(|p| self.term(&counts, p, false)).sum();
        let entropy = if total <= 0.0 { 0.0 } else { self.fixed.to_f64(spread) / total };
        PairNode { entropy, counts, total, spread, whole: whole && self.fixed.holds_total(total) }
    }
}

/// What [`PairwiseEntropy`] knows of a node.
pub struct PairNode {
    /// Pair-weighted entropy per unit of weight (the leaf rule).
    entropy: f64,
    /// Direction weights per pair.
    counts: Vec<f64>,
    total: f64,
    /// Σ over pairs of (pair weight x its entropy), in fixed point.
    spread: i128,
    /// Whole-number weights within the table: its values are read without checks.
    whole: bool,
}

impl SplitCriterion for PairwiseEntropy {
    type NodeStats = PairNode;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> PairNode {
        let mut counts = vec![0.0; 2 * self.n_pairs];
        for (&s, &w) in samples.iter().zip(weights) {
            for &k in &self.pairs[s as usize] {
                counts[k as usize] += w;
            }
        }
        let total: f64 = weights.iter().sum();
        self.node_of(counts, total, self.fixed.holds_whole(weights, total))
    }

    fn is_terminal(&self, node: &PairNode) -> bool {
        node.entropy < self.epsilon
    }

    fn best_boundary(
        &self,
        node: &PairNode,
        sorted: &[SortedSample],
        boundaries: Boundaries,
        floor: f64,
    ) -> Option<(usize, f64)> {
        additive_best_boundary(self, node, sorted, boundaries, floor)
    }
}

impl AdditiveCriterion for PairwiseEntropy {
    /// Two direction weights per label pair.
    fn n_stats(&self) -> usize {
        2 * self.n_pairs
    }

    fn sums_nonnegative(&self) -> bool {
        true
    }

    fn node_stats_from_sums(&self, weight: f64, whole: bool, sums: &[f64]) -> Option<PairNode> {
        Some(self.node_of(sums.to_vec(), weight, whole))
    }

    #[inline]
    fn sample_stats(&self, sample: u32, weight: f64, out: &mut Vec<(u32, f64)>) {
        out.extend(self.pairs[sample as usize].iter().map(|&k| (k, weight)));
    }

    fn with_sides<T: SidesTask>(&self, node: &PairNode, task: T) -> T::Output {
        let left = vec![0.0; 2 * self.n_pairs];
        task.run(&mut PairSides { criterion: self, node, left, right: node.counts.clone(), e_left: 0, e_right: node.spread })
    }
}

/// [`PairwiseEntropy`]'s split in progress: direction counts per pair and side, and each side's
/// pair-weighted entropy (fixed point).
pub struct PairSides<'a> {
    criterion: &'a PairwiseEntropy,
    node: &'a PairNode,
    left: Vec<f64>,
    right: Vec<f64>,
    e_left: i128,
    e_right: i128,
}

impl PairSides<'_> {
    /// Moves `first` and `second` of pair `p`'s two directions to the left.
    #[inline]
    fn shift(&mut self, p: usize, first: f64, second: f64) {
        let (c, whole) = (self.criterion, self.node.whole);
        self.e_left -= c.term(&self.left, p, whole);
        self.e_right -= c.term(&self.right, p, whole);
        self.left[2 * p] += first;
        self.left[2 * p + 1] += second;
        self.right[2 * p] -= first;
        self.right[2 * p + 1] -= second;
        self.e_left += c.term(&self.left, p, whole);
        self.e_right += c.term(&self.right, p, whole);
    }
}

impl SplitSides for PairSides<'_> {
    #[inline]
    fn move_sample(&mut self, sample: u32, weight: f64) {
        for &code in &self.criterion.pairs[sample as usize] {
            let p = (code / 2) as usize;
            if code % 2 == 0 {
                self.shift(p, weight, 0.0);
            } else {
                self.shift(p, 0.0, weight);
            }
        }
    }

    #[inline]
    fn move_sums(&mut self, _weight: f64, stats: &[f64]) {
        for p in 0..self.criterion.n_pairs {
            let (first, second) = (stats[2 * p], stats[2 * p + 1]);
            if first != 0.0 || second != 0.0 {
                self.shift(p, first, second);
            }
        }
    }

    #[inline]
    fn score(&self) -> Option<f64> {
        Some(self.criterion.fixed.to_f64(self.node.spread - self.e_left - self.e_right) / self.node.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_gain(values: &[f64], classes: &[u32], k: usize) -> f64 {
        let h = |idx: &[usize]| {
            let n = idx.len() as f64;
            let mut c = [0.0; 3];
            idx.iter().for_each(|&i| c[classes[i] as usize] += 1.0);
            -c.iter().filter(|&&x| x > 0.0).map(|&x| x / n * (x / n).ln()).sum::<f64>()
        };
        let all: Vec<usize> = (0..values.len()).collect();
        let (l, r) = all.split_at(k);
        h(&all) - (l.len() as f64 * h(l) + r.len() as f64 * h(r)) / values.len() as f64
    }

    #[test]
    fn gain_matches_the_definition_and_skips_ties() {
        let values = [1.0, 2.0, 2.0, 3.0, 4.0, 5.0];
        let classes = [0u32, 0, 1, 1, 2, 2];
        let sorted: Vec<SortedSample> =
            values.iter().enumerate().map(|(i, &v)| SortedSample { value: v, sample: i as u32, weight: 1.0 }).collect();
        let crit = ClassEntropy::new(&classes, 3, 1e-9);
        let node = crit.node_stats(&[0, 1, 2, 3, 4, 5], &[1.0; 6]);
        let (k, g) = crit.best_boundary(&node, &sorted, Boundaries::All, f64::NEG_INFINITY).unwrap();
        assert_ne!(k, 2, "cannot split between equal values");
        let best_brute = [1usize, 3, 4, 5].iter().map(|&k| brute_gain(&values, &classes, k)).fold(f64::MIN, f64::max);
        assert!((g - best_brute).abs() < 1e-12);
        assert!((g - brute_gain(&values, &classes, k)).abs() < 1e-12);
    }

    #[test]
    fn pairwise_gain_finds_the_split_that_separates_preferences() {
        use crate::data::ranking::RankMatrixView;
        // Rows 0-2 prefer label 0 to 1, rows 3-5 the reverse; label 2 is missing in rows 1 and 4.
        let y = [1, 2, 3, 1, 2, 0, 1, 2, 3, 2, 1, 3, 2, 1, 0, 2, 1, 3];
        let view = RankMatrixView::new(&y, 6, 3).unwrap();
        let crit = PairwiseEntropy::new(&view, 1e-9).unwrap();
        let values = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let sorted: Vec<SortedSample> =
            values.iter().enumerate().map(|(i, &v)| SortedSample { value: v, sample: i as u32, weight: 1.0 }).collect();
        let node = crit.node_stats(&[0, 1, 2, 3, 4, 5], &[1.0; 6]);
        let (k, gain) = crit.best_boundary(&node, &sorted, Boundaries::All, f64::NEG_INFINITY).unwrap();
        assert_eq!(k, 3);
        // Only pair (0, 1) is mixed: 3 vs 3, entropy ln 2 over 6 rows, all removed by the split.
        assert!((gain - 6.0 * 2f64.ln() / 6.0).abs() < 1e-12, "{gain}");
        assert!(!crit.is_terminal(&crit.node_stats(&[0, 3], &[1.0, 1.0])));
        assert!(crit.is_terminal(&crit.node_stats(&[0, 1, 2], &[1.0, 2.0, 1.0])));
        // Only one boundary allowed: it is returned with its own gain.
        let (k, _) = crit.best_boundary(&node, &sorted, Boundaries::Only(2), f64::NEG_INFINITY).unwrap();
        assert_eq!(k, 2);
    }

    #[test]
    fn pure_nodes_are_terminal() {
        let classes = [1u32, 1, 1, 0];
        let crit = ClassEntropy::new(&classes, 2, 1e-9);
        assert!(crit.is_terminal(&crit.node_stats(&[0, 1, 2], &[1.0, 2.0, 1.0])));
        assert!(!crit.is_terminal(&crit.node_stats(&[0, 3], &[1.0, 1.0])));
    }

    #[test]
    fn whole_number_sides_score_as_the_general_ones() {
        use crate::data::ranking::{ranks_of_order, RankMatrixView};
        let mut rng = crate::rng::Rng::new(12);
        for n in [5usize, 40, 300] {
            let classes: Vec<u32> = (0..n).map(|_| rng.below(4) as u32).collect();
            let mut y = Vec::new();
            for _ in 0..n {
                let mut order = vec![0, 1, 2, 3];
                rng.shuffle(&mut order);
                y.extend(ranks_of_order(&order[..2 + rng.below(3)], 4));
            }
            // Half the rows, weighing 1 or 2: within the tables of n rows.
            let sorted: Vec<SortedSample> = (0..n / 2)
                .map(|i| SortedSample { value: rng.below(n / 3 + 1) as f64, sample: i as u32, weight: 1.0 + rng.below(2) as f64 })
                .collect();
            let mut sorted = sorted;
            sorted.sort_by(|a, b| a.value.total_cmp(&b.value));
            let (samples, weights): (Vec<u32>, Vec<f64>) = sorted.iter().map(|s| (s.sample, s.weight)).unzip();
            let class = ClassEntropy::new(&classes, 4, 1e-9);
            let whole = class.node_stats(&samples, &weights);
            assert!(whole.whole);
            let general = ClassNode { whole: false, counts: whole.counts.clone(), ..whole };
            let whole = class.node_stats(&samples, &weights);
            let best = |node: &ClassNode| class.best_boundary(node, &sorted, Boundaries::All, f64::NEG_INFINITY);
            assert_eq!(best(&whole), best(&general));
            let pairs = PairwiseEntropy::new(&RankMatrixView::new(&y, n, 4).unwrap(), 1e-9).unwrap();
            let whole = pairs.node_stats(&samples, &weights);
            assert!(whole.whole);
            let general = PairNode { whole: false, counts: whole.counts.clone(), ..whole };
            let whole = pairs.node_stats(&samples, &weights);
            let best = |node: &PairNode| pairs.best_boundary(node, &sorted, Boundaries::All, f64::NEG_INFINITY);
            assert_eq!(best(&whole), best(&general));
        }
    }
}
