//! The ranking losses of GBLR and the linear learner: one score per label, the ranking predicted by sorting them
//! (higher first). Each loss gives, for one row, its value and, per label, the gradient and the
//! diagonal of the Hessian with respect to the scores. Labels a ranking leaves out (rank 0) get
//! neither: they take no part in the row's loss.
//!
//! - Plackett-Luce negative log-likelihood: for the row's k ranked labels in order
//!   π(1), ..., π(k), `sum_{t<k} [ln sum_{u>=t} exp(s_π(u)) - s_π(t)]`. An incomplete ranking is
//!   the Plackett-Luce marginal on its labels, so it is used as it stands.
//! - Pairwise logistic: `sum over pairs a before b of ln(1 + exp(-(s_a - s_b)))`, over the pairs
//!   the ranking orders (labels it ties form no pair, so bucket orders are used as they stand).
//!
//! Both are convex in the scores; the Hessian's diagonal is what the trees' leaf values use
//! (Newton steps, as in second-order gradient boosting).

use crate::data::ranking::RankMatrixView;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RankingLoss {
    PlackettLuce,
    PairwiseLogistic,
}

/// ln(1 + e^x) without overflow.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// 1 / (1 + e^-x).
fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// Per-thread buffers of [`RankingLoss::row`]: a row's ranked labels in order, and the
/// Plackett-Luce weights and tail sums (one allocation per thread, not three per row and round).
#[derive(Default)]
pub struct RowScratch {
    order: Vec<usize>,
    weights: Vec<f64>,
    tails: Vec<f64>,
}

/// Every row's ranked labels, most preferred first (ties in label order), found once per fit:
/// the rankings do not change between boosting rounds.
pub struct RankOrders {
    labels: Vec<usize>,
    starts: Vec<usize>,
}

impl RankOrders {
    pub fn new(y: &RankMatrixView<'_>) -> Self {
        let (mut labels, mut starts) = (Vec::new(), vec![0]);
        let mut order = Vec::new();
        for row in y.rows() {
            ranked_order(row, &mut order);
            labels.extend_from_slice(&order);
            starts.push(labels.len());
        }
        RankOrders { labels, starts }
    }

    /// Row `i`'s ranked labels in order.
    pub fn row(&self, i: usize) -> &[usize] {
        &self.labels[self.starts[i]..self.starts[i + 1]]
    }
}

/// The labels `ranks` holds (rank > 0), most preferred first; a stable sort keeps tied labels in
/// label order.
fn ranked_order(ranks: &[i32], order: &mut Vec<usize>) {
    order.clear();
    order.extend((0..ranks.len()).filter(|&j| ranks[j] > 0));
    order.sort_by_key(|&j| ranks[j]);
}

impl RankingLoss {
    /// The loss of one row's `scores` against its rank vector `ranks`; when `grad` and `hess`
    /// are given (length m), they receive each label's gradient and Hessian diagonal.
    pub fn row(
        self,
        ranks: &[i32],
        scores: &[f64],
        derivatives: Option<(&mut [f64], &mut [f64])>,
        scratch: &mut RowScratch,
    ) -> f64 {
        let mut order = std::mem::take(&mut scratch.order);
        ranked_order(ranks, &mut order);
        let loss = self.evaluate(&order, ranks, scores, derivatives, scratch, true);
        scratch.order = order;
        loss
    }

    /// [`Self::row_ordered`]'s gradients and Hessian diagonal alone, without the loss value (its
    /// logarithms), for the initial scores' Newton steps.
    pub fn derivatives(
        self,
        order: &[usize],
        ranks: &[i32],
        scores: &[f64],
        g: &mut [f64],
        h: &mut [f64],
        scratch: &mut RowScratch,
    ) {
        self.evaluate(order, ranks, scores, Some((g, h)), scratch, false);
    }

    /// [`Self::row`] with the row's ranked labels in order given ([`RankOrders`]): its loss, and
    /// its gradients and Hessian diagonal into `g` and `h`.
    pub fn row_ordered(
        self,
        order: &[usize],
        ranks: &[i32],
        scores: &[f64],
        g: &mut [f64],
        h: &mut [f64],
        scratch: &mut RowScratch,
    ) -> f64 {
        self.evaluate(order, ranks, scores, Some((g, h)), scratch, true)
    }

    fn evaluate(
        self,
        order: &[usize],
        ranks: &[i32],
        scores: &[f64],
        mut derivatives: Option<(&mut [f64], &mut [f64])>,
        scratch: &mut RowScratch,
        with_loss: bool,
    ) -> f64 {
        if let Some((g, h)) = derivatives.as_mut() {
            g.fill(0.0);
            h.fill(0.0);
        }
        match self {
            RankingLoss::PlackettLuce => plackett_luce(order, scratch, scores, derivatives, with_loss),
            RankingLoss::PairwiseLogistic => pairwise_logistic(order, ranks, scores, derivatives, with_loss),
        }
    }
}

fn plackett_luce(
    order: &[usize],
    scratch: &mut RowScratch,
    scores: &[f64],
    derivatives: Option<(&mut [f64], &mut [f64])>,
    with_loss: bool,
) -> f64 {
    let RowScratch { weights, tails, .. } = scratch;
    let k = order.len();
    if k < 2 {
        return 0.0;
    }
    // Stage t chooses π(t) among π(t..k); subtract the largest score for stable exponentials.
    let top = order.iter().map(|&j| scores[j]).fold(f64::NEG_INFINITY, f64::max);
    weights.clear();
    weights.extend(order.iter().map(|&j| (scores[j] - top).exp()));
    // tails[t] = sum_{u >= t} weights[u].
    tails.clear();
    tails.resize(k + 1, 0.0);
    for t in (0..k).rev() {
        tails[t] = tails[t + 1] + weights[t];
    }
    let mut loss = 0.0;
    if with_loss {
        for t in 0..k - 1 {
            loss += tails[t].ln() + top - scores[order[t]];
        }
    }
    if let Some((g, h)) = derivatives {
        // Label π(u) takes part in stages 0..=min(u, k-2); at stage t its choice probability is
        // weights[u] / tails[t].
        let mut inverse_sum = 0.0; // sum over stages so far of 1 / tails[t]
        let mut inverse_sq_sum = 0.0; // and of 1 / tails[t]^2
        for u in 0..k {
            if u < k - 1 {
                inverse_sum += 1.0 / tails[u];
                inverse_sq_sum += 1.0 / (tails[u] * tails[u]);
            }
            let j = order[u];
            let w = weights[u];
            let chosen = if u < k - 1 { 1.0 } else { 0.0 };
            g[j] = w * inverse_sum - chosen;
            h[j] = w * inverse_sum - w * w * inverse_sq_sum;
        }
    }
    loss
}

/// Tied labels (equal ranks) form no pair: the ranking does not order them.
fn pairwise_logistic(
    order: &[usize],
    ranks: &[i32],
    scores: &[f64],
    derivatives: Option<(&mut [f64], &mut [f64])>,
    with_loss: bool,
) -> f64 {
    let k = order.len();
    let mut loss = 0.0;
    match derivatives {
        None => {
            for a in 0..k {
                for b in a + 1..k {
                    if ranks[order[a]] == ranks[order[b]] {
                        continue;
                    }
                    loss += softplus(-(scores[order[a]] - scores[order[b]]));
                }
            }
        }
        Some((g, h)) => {
            for a in 0..k {
                for b in a + 1..k {
                    let (ja, jb) = (order[a], order[b]);
                    if ranks[ja] == ranks[jb] {
                        continue;
                    }
                    let margin = scores[ja] - scores[jb];
                    if with_loss {
                        loss += softplus(-margin);
                    }
                    let p = sigmoid(-margin); // d loss / d margin = -p
                    g[ja] -= p;
                    g[jb] += p;
                    let curvature = p * (1.0 - p);
                    h[ja] += curvature;
                    h[jb] += curvature;
                }
            }
        }
    }
    loss
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn value(loss: RankingLoss, ranks: &[i32], scores: &[f64]) -> f64 {
        loss.row(ranks, scores, None, &mut RowScratch::default())
    }

    /// Random rank vectors over m labels with some labels left out, and random scores.
    fn cases() -> Vec<(Vec<i32>, Vec<f64>)> {
        let mut rng = Rng::new(5);
        let mut out = Vec::new();
        for m in 1..=7 {
            for _ in 0..30 {
                let mut labels: Vec<usize> = (0..m).collect();
                rng.shuffle(&mut labels);
                let kept = rng.below(m + 1);
                let mut ranks = vec![0; m];
                for (pos, &j) in labels[..kept].iter().enumerate() {
                    ranks[j] = pos as i32 + 1;
                }
                let scale = [0.1, 1.0, 8.0][rng.below(3)];
                let scores = (0..m).map(|_| scale * (2.0 * rng.uniform() - 1.0)).collect();
                out.push((ranks, scores));
            }
        }
        out
    }

    #[test]
    fn gradients_and_hessians_match_finite_differences() {
        let eps = 1e-5;
        for loss in [RankingLoss::PlackettLuce, RankingLoss::PairwiseLogistic] {
            for (ranks, scores) in cases() {
                let m = ranks.len();
                let (mut g, mut h) = (vec![0.0; m], vec![0.0; m]);
                let here = loss.row(&ranks, &scores, Some((&mut g, &mut h)), &mut RowScratch::default());
                assert!((here - value(loss, &ranks, &scores)).abs() < 1e-12);
                // Derivatives alone (the boosting rounds') are the same numbers, with a scratch
                // that held another row before.
                let (mut g2, mut h2) = (vec![7.0; m], vec![7.0; m]);
                let mut used = RowScratch::default();
                loss.row(&[1, 0, 2], &[0.3, -1.0, 2.0], None, &mut used);
                let mut order = Vec::new();
                ranked_order(&ranks, &mut order);
                loss.derivatives(&order, &ranks, &scores, &mut g2, &mut h2, &mut used);
                assert_eq!((&g, &h), (&g2, &h2));
                for j in 0..m {
                    let mut up = scores.clone();
                    up[j] += eps;
                    let mut down = scores.clone();
                    down[j] -= eps;
                    let (fu, fd) = (value(loss, &ranks, &up), value(loss, &ranks, &down));
                    let numeric_g = (fu - fd) / (2.0 * eps);
                    let numeric_h = (fu - 2.0 * here + fd) / (eps * eps);
                    assert!((g[j] - numeric_g).abs() < 1e-6, "{loss:?} {ranks:?} {scores:?} grad {j}: {} vs {numeric_g}", g[j]);
                    assert!((h[j] - numeric_h).abs() < 1e-3, "{loss:?} {ranks:?} {scores:?} hess {j}: {} vs {numeric_h}", h[j]);
                    if ranks[j] == 0 {
                        assert_eq!((g[j], h[j]), (0.0, 0.0));
                    }
                }
            }
        }
    }

    /// The Plackett-Luce probability of a ranking, by its definition, product over stages.
    fn pl_probability(ranks: &[i32], scores: &[f64]) -> f64 {
        let mut order: Vec<usize> = (0..ranks.len()).filter(|&j| ranks[j] > 0).collect();
        order.sort_by_key(|&j| ranks[j]);
        let mut p = 1.0;
        for t in 0..order.len() {
            let denominator: f64 = order[t..].iter().map(|&j| scores[j].exp()).sum();
            p *= scores[order[t]].exp() / denominator;
        }
        p
    }

    #[test]
    fn plackett_luce_loss_is_minus_the_log_probability_and_sums_to_one_over_rankings() {
        for (ranks, scores) in cases() {
            let want = -pl_probability(&ranks, &scores).ln();
            let got = value(RankingLoss::PlackettLuce, &ranks, &scores);
            assert!((got - want).abs() < 1e-9 * want.abs().max(1.0), "{ranks:?}: {got} vs {want}");
        }
        // Over the 24 rankings of 4 labels the probabilities sum to 1.
        let scores = [0.3, -1.2, 2.0, 0.0];
        let mut total = 0.0;
        for a in 0..4 {
            for b in 0..4 {
                for c in 0..4 {
                    let Some(d) = 6usize.checked_sub(a + b + c) else { continue };
                    if a != b && a != c && b != c && d != a && d != b && d != c {
                        let mut ranks = [0; 4];
                        for (pos, j) in [a, b, c, d].into_iter().enumerate() {
                            ranks[j] = pos as i32 + 1;
                        }
                        total += (-value(RankingLoss::PlackettLuce, &ranks, &scores)).exp();
                    }
                }
            }
        }
        assert!((total - 1.0).abs() < 1e-12, "{total}");
    }

    #[test]
    fn the_loss_falls_as_scores_follow_the_ranking_and_extreme_scores_stay_finite() {
        let ranks = [2, 1, 3];
        for loss in [RankingLoss::PlackettLuce, RankingLoss::PairwiseLogistic] {
            let good = value(loss, &ranks, &[1.0, 2.0, 0.0]);
            let bad = value(loss, &ranks, &[1.0, 0.0, 2.0]);
            assert!(good < bad);
            let huge = value(loss, &ranks, &[0.0, -800.0, 800.0]);
            assert!(huge.is_finite() && huge > 1000.0, "{huge}");
            let mut g = [0.0; 3];
            let mut h = [0.0; 3];
            loss.row(&ranks, &[0.0, -800.0, 800.0], Some((&mut g, &mut h)), &mut RowScratch::default());
            assert!(g.iter().chain(&h).all(|v| v.is_finite()));
        }
    }
}
