//! Split criteria for the tree engine.

use super::SplitCriterion;

/// One of a node's samples, as handed to a criterion sorted by one feature's value.
#[derive(Clone, Copy, Debug)]
pub struct SortedSample {
    pub value: f64,
    pub sample: u32,
    pub weight: f64,
}

/// Information gain of a class label per sample (entropy in nats; the argmax is the same in bits).
///
/// LR-RF uses it with the top label of each ranking as class, or each distinct ranking as class.
pub struct ClassEntropy<'a> {
    classes: &'a [u32],
    n_classes: usize,
    epsilon: f64,
}

impl<'a> ClassEntropy<'a> {
    /// `classes[sample]` in `0..n_classes`; nodes whose class entropy is below `epsilon` are leaves.
    pub fn new(classes: &'a [u32], n_classes: usize, epsilon: f64) -> Self {
        ClassEntropy { classes, n_classes, epsilon }
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

/// Entropy from the total weight and the sum of c ln c over classes.
#[inline]
fn entropy(total: f64, sum_clnc: f64) -> f64 {
    if total > 0.0 {
        (total.ln() - sum_clnc / total).max(0.0)
    } else {
        0.0
    }
}

impl SplitCriterion for ClassEntropy<'_> {
    fn is_terminal(&self, samples: &[u32], weights: &[f64]) -> bool {
        let mut counts = vec![0.0; self.n_classes];
        for (&s, &w) in samples.iter().zip(weights) {
            counts[self.classes[s as usize] as usize] += w;
        }
        let total: f64 = counts.iter().sum();
        let h = entropy(total, counts.iter().map(|&c| xlnx(c)).sum());
        h < self.epsilon
    }

    fn best_boundary(&self, sorted: &[SortedSample]) -> Option<(usize, f64)> {
        let mut right = vec![0.0; self.n_classes];
        let mut left = vec![0.0; self.n_classes];
        for s in sorted {
            right[self.classes[s.sample as usize] as usize] += s.weight;
        }
        let total: f64 = right.iter().sum();
        let parent = entropy(total, right.iter().map(|&c| xlnx(c)).sum());
        // Sums of c ln c, updated in O(1) per moved sample.
        let mut s_right: f64 = right.iter().map(|&c| xlnx(c)).sum();
        let mut s_left = 0.0;
        let mut w_left = 0.0;
        let mut best: Option<(usize, f64)> = None;
        for k in 1..sorted.len() {
            let moved = sorted[k - 1];
            let c = self.classes[moved.sample as usize] as usize;
            s_left -= xlnx(left[c]);
            s_right -= xlnx(right[c]);
            left[c] += moved.weight;
            right[c] -= moved.weight;
            s_left += xlnx(left[c]);
            s_right += xlnx(right[c]);
            w_left += moved.weight;
            if sorted[k].value == moved.value {
                continue;
            }
            let w_right = total - w_left;
            let children = (w_left * entropy(w_left, s_left) + w_right * entropy(w_right, s_right)) / total;
            let gain = parent - children;
            if best.is_none_or(|(_, g)| gain > g + 1e-12) {
                best = Some((k, gain));
            }
        }
        best
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
        let sorted: Vec<SortedSample> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| SortedSample { value: v, sample: i as u32, weight: 1.0 })
            .collect();
        let crit = ClassEntropy::new(&classes, 3, 1e-9);
        let (k, g) = crit.best_boundary(&sorted).unwrap();
        assert_ne!(k, 2, "cannot split between equal values");
        let best_brute = [1usize, 3, 4, 5].iter().map(|&k| brute_gain(&values, &classes, k)).fold(f64::MIN, f64::max);
        assert!((g - best_brute).abs() < 1e-12);
        assert!((g - brute_gain(&values, &classes, k)).abs() < 1e-12);
    }

    #[test]
    fn pure_nodes_are_terminal() {
        let classes = [1u32, 1, 1, 0];
        let crit = ClassEntropy::new(&classes, 2, 1e-9);
        assert!(crit.is_terminal(&[0, 1, 2], &[1.0, 2.0, 1.0]));
        assert!(!crit.is_terminal(&[0, 3], &[1.0, 1.0]));
    }
}
