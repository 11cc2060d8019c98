//! Split criteria of more than one learner: the information gain of a class per sample
//! (LR-RF's ranking and top-label classes, the one-versus-one trees) and the information gain
//! summed over label pairs (LR-RF's pairwise mode). Each plugs into the engine's one sweep.

use super::sweep::{sweep, Boundaries, BoundarySweep, SortedSample, SplitCriterion};
use crate::data::pairs::pair_count;

/// Information gain of a class label per sample (entropy in nats; the argmax is the same in bits).
///
/// LR-RF uses it with the top label of each ranking as class, or each distinct ranking as class.
pub struct ClassEntropy<'a> {
    classes: &'a [u32],
    n_classes: usize,
    epsilon: f64,
    table: XlnxTable,
}

impl<'a> ClassEntropy<'a> {
    /// `classes[sample]` in `0..n_classes`; nodes whose class entropy is below `epsilon` are leaves.
    pub fn new(classes: &'a [u32], n_classes: usize, epsilon: f64) -> Self {
        ClassEntropy { classes, n_classes, epsilon, table: XlnxTable::new(classes.len()) }
    }
}

#[inline]
fn xlnx(c: f64) -> f64 {
    if c > 0.0 {
        c * c.ln()
    } else {
        0.0
    }
}

/// c ln c with a table for whole counts (bootstrap weights are whole numbers): the logarithm is
/// most of a split search's cost otherwise. Gives bit-identical values to [`xlnx`].
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

/// Entropy from the total weight and the sum of c ln c over classes.
#[inline]
fn entropy(total: f64, sum_clnc: f64) -> f64 {
    if total > 0.0 {
        (total.ln() - sum_clnc / total).max(0.0)
    } else {
        0.0
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
}

thread_local! {
    static CLASS_SCRATCH: std::cell::RefCell<ClassScratch> = std::cell::RefCell::new(ClassScratch::default());
}

impl ClassEntropy<'_> {
    /// Runs `f` with zeroed buffers after adding the weights of `samples` to `right`; `touched`
    /// lists the classes present, ascending (so sums over it equal sums over all classes).
    fn with_counts<T>(&self, samples: impl Iterator<Item = (u32, f64)>, f: impl FnOnce(&mut ClassScratch) -> T) -> T {
        CLASS_SCRATCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            if scratch.right.len() < self.n_classes {
                scratch.left.resize(self.n_classes, 0.0);
                scratch.right.resize(self.n_classes, 0.0);
            }
            scratch.touched.clear();
            for (sample, weight) in samples {
                let c = self.classes[sample as usize];
                scratch.right[c as usize] += weight;
                scratch.touched.push(c);
            }
            scratch.touched.sort_unstable();
            scratch.touched.dedup();
            let out = f(&mut scratch);
            let ClassScratch { left, right, touched } = &mut *scratch;
            for &c in touched.iter() {
                left[c as usize] = 0.0;
                right[c as usize] = 0.0;
            }
            out
        })
    }
}

impl SplitCriterion for ClassEntropy<'_> {
    /// The node's class entropy.
    type NodeStats = f64;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> f64 {
        self.with_counts(samples.iter().copied().zip(weights.iter().copied()), |sc| {
            let total: f64 = sc.touched.iter().map(|&c| sc.right[c as usize]).sum();
            entropy(total, sc.touched.iter().map(|&c| self.table.get(sc.right[c as usize])).sum())
        })
    }

    fn is_terminal(&self, node: &f64) -> bool {
        *node < self.epsilon
    }

    fn best_boundary(&self, _node: &f64, sorted: &[SortedSample], boundaries: Boundaries, floor: f64) -> Option<(usize, f64)> {
        self.with_counts(sorted.iter().map(|s| (s.sample, s.weight)), |sc| {
            let ClassScratch { left, right, touched } = sc;
            let total: f64 = touched.iter().map(|&c| right[c as usize]).sum();
            // Sums of c ln c, updated in O(1) per moved sample.
            let s_right: f64 = touched.iter().map(|&c| self.table.get(right[c as usize])).sum();
            let parent = entropy(total, s_right);
            let mut state = ClassSweep { criterion: self, left, right, total, parent, s_left: 0.0, s_right, w_left: 0.0 };
            sweep(&mut state, sorted, boundaries, floor)
        })
    }
}

/// [`ClassEntropy`]'s split in progress: class weights per side and their sums of c ln c.
struct ClassSweep<'a, 'c> {
    criterion: &'a ClassEntropy<'c>,
    left: &'a mut [f64],
    right: &'a mut [f64],
    total: f64,
    parent: f64,
    s_left: f64,
    s_right: f64,
    w_left: f64,
}

impl BoundarySweep for ClassSweep<'_, '_> {
    const MARGIN: f64 = 1e-12;

    #[inline]
    fn move_left(&mut self, moved: &SortedSample) {
        let table = &self.criterion.table;
        let c = self.criterion.classes[moved.sample as usize] as usize;
        self.s_left -= table.get(self.left[c]);
        self.s_right -= table.get(self.right[c]);
        self.left[c] += moved.weight;
        self.right[c] -= moved.weight;
        self.s_left += table.get(self.left[c]);
        self.s_right += table.get(self.right[c]);
        self.w_left += moved.weight;
    }

    #[inline]
    fn score(&mut self, _to_beat: f64) -> Option<f64> {
        let (w_left, total) = (self.w_left, self.total);
        let w_right = total - w_left;
        let children = (w_left * entropy(w_left, self.s_left) + w_right * entropy(w_right, self.s_right)) / total;
        Some(self.parent - children)
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
    table: XlnxTable,
}

impl PairwiseEntropy {
    pub fn new(y: &crate::data::ranking::RankMatrixView<'_>, epsilon: f64) -> Self {
        let m = y.n_labels();
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
        PairwiseEntropy { pairs, n_pairs: pair_count(m), epsilon, table: XlnxTable::new(y.n_rows()) }
    }

    /// Sum over pairs of (weight of the pair) x (its entropy), from direction counts.
    fn weighted_entropy(&self, counts: &[f64]) -> f64 {
        let t = &self.table;
        counts.chunks_exact(2).map(|c| t.get(c[0] + c[1]) - t.get(c[0]) - t.get(c[1])).sum()
    }
}

impl SplitCriterion for PairwiseEntropy {
    /// The node's pair-weighted entropy per unit of weight.
    type NodeStats = f64;

    fn node_stats(&self, samples: &[u32], weights: &[f64]) -> f64 {
        let mut counts = vec![0.0; 2 * self.n_pairs];
        for (&s, &w) in samples.iter().zip(weights) {
            for &k in &self.pairs[s as usize] {
                counts[k as usize] += w;
            }
        }
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            0.0
        } else {
            self.weighted_entropy(&counts) / total
        }
    }

    fn is_terminal(&self, node: &f64) -> bool {
        *node < self.epsilon
    }

    fn best_boundary(&self, _node: &f64, sorted: &[SortedSample], boundaries: Boundaries, floor: f64) -> Option<(usize, f64)> {
        let mut right = vec![0.0; 2 * self.n_pairs];
        for s in sorted {
            for &k in &self.pairs[s.sample as usize] {
                right[k as usize] += s.weight;
            }
        }
        let total: f64 = sorted.iter().map(|s| s.weight).sum();
        let parent = self.weighted_entropy(&right);
        let left = vec![0.0; 2 * self.n_pairs];
        let mut state = PairSweep { criterion: self, left, right, total, parent, e_left: 0.0, e_right: parent };
        sweep(&mut state, sorted, boundaries, floor)
    }
}

/// [`PairwiseEntropy`]'s split in progress: direction counts per pair and side, and each side's
/// pair-weighted entropy.
struct PairSweep<'a> {
    criterion: &'a PairwiseEntropy,
    left: Vec<f64>,
    right: Vec<f64>,
    total: f64,
    parent: f64,
    e_left: f64,
    e_right: f64,
}

impl BoundarySweep for PairSweep<'_> {
    const MARGIN: f64 = 1e-12;

    #[inline]
    fn move_left(&mut self, moved: &SortedSample) {
        // One pair's contribution to a side's weighted entropy.
        let t = &self.criterion.table;
        let term = |c: &[f64], p: usize| t.get(c[2 * p] + c[2 * p + 1]) - t.get(c[2 * p]) - t.get(c[2 * p + 1]);
        for &code in &self.criterion.pairs[moved.sample as usize] {
            let (p, c) = ((code / 2) as usize, code as usize);
            self.e_left -= term(&self.left, p);
            self.e_right -= term(&self.right, p);
            self.left[c] += moved.weight;
            self.right[c] -= moved.weight;
            self.e_left += term(&self.left, p);
            self.e_right += term(&self.right, p);
        }
    }

    #[inline]
    fn score(&mut self, _to_beat: f64) -> Option<f64> {
        Some((self.parent - self.e_left - self.e_right) / self.total)
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
        let (k, g) = crit.best_boundary(&0.0, &sorted, Boundaries::All, f64::NEG_INFINITY).unwrap();
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
        let crit = PairwiseEntropy::new(&view, 1e-9);
        let values = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let sorted: Vec<SortedSample> =
            values.iter().enumerate().map(|(i, &v)| SortedSample { value: v, sample: i as u32, weight: 1.0 }).collect();
        let (k, gain) = crit.best_boundary(&0.0, &sorted, Boundaries::All, f64::NEG_INFINITY).unwrap();
        assert_eq!(k, 3);
        // Only pair (0, 1) is mixed: 3 vs 3, entropy ln 2 over 6 rows, all removed by the split.
        assert!((gain - 6.0 * 2f64.ln() / 6.0).abs() < 1e-12, "{gain}");
        assert!(!crit.is_terminal(&crit.node_stats(&[0, 3], &[1.0, 1.0])));
        assert!(crit.is_terminal(&crit.node_stats(&[0, 1, 2], &[1.0, 2.0, 1.0])));
        // Only one boundary allowed: it is returned with its own gain.
        let (k, _) = crit.best_boundary(&0.0, &sorted, Boundaries::Only(2), f64::NEG_INFINITY).unwrap();
        assert_eq!(k, 2);
    }

    #[test]
    fn pure_nodes_are_terminal() {
        let classes = [1u32, 1, 1, 0];
        let crit = ClassEntropy::new(&classes, 2, 1e-9);
        assert!(crit.is_terminal(&crit.node_stats(&[0, 1, 2], &[1.0, 2.0, 1.0])));
        assert!(!crit.is_terminal(&crit.node_stats(&[0, 3], &[1.0, 1.0])));
    }
}
