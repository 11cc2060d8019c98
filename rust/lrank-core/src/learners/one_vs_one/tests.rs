use super::*;
use crate::data::ranking::RankMatrixView;
use crate::parallel::with_threads;
use crate::rng::Rng;

fn fit(x: &[f64], y: &[i32], d: usize, m: usize, params: PairwiseParams) -> PairwiseModel {
    let n = y.len() / m;
    PairwiseModel::fit_views(&FeatureMatrixView::new(x, n, d).unwrap(), &RankMatrixView::new(y, n, m).unwrap(), None, params)
        .unwrap()
}

#[test]
fn copeland_of_a_predicted_cycle_goes_to_label_order() {
    // Constant features: each pair's tree is a single leaf with the training share. The data
    // make a cycle: 0 beats 1, 1 beats 2, 2 beats 0 (each 2 rows to 1).
    let y = [1, 2, 0, 1, 2, 0, 2, 1, 0, 0, 1, 2, 0, 1, 2, 0, 2, 1, 2, 0, 1, 2, 0, 1, 1, 0, 2];
    let x = vec![0.0; 9];
    let model = fit(&x, &y, 1, 3, PairwiseParams::tree());
    let probs: Vec<f64> = model.pairs.iter().map(|p| p.probability(&[0.0], &[0.0])).collect();
    // Pairs (0,1), (0,2), (1,2): P(0 before 1) = 2/3, P(0 before 2) = 1/3, P(1 before 2) = 2/3.
    assert_eq!(probs, vec![2.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0]);
    let q = FeatureMatrixView::new(&[0.0], 1, 1).unwrap();
    assert_eq!(model.predict_scores(&q).unwrap(), vec![1.0, 1.0, 1.0]);
    assert_eq!(model.predict_ranks(&q).unwrap(), vec![1, 2, 3]);
    // Summed probabilities: 2/3 + 1/3, 1/3 + 2/3, 2/3 + 1/3: a tie again, to label order.
    let soft = fit(&x, &y, 1, 3, PairwiseParams { voting: PairwiseVoting::Probability, ..PairwiseParams::tree() });
    assert_eq!(soft.predict_ranks(&q).unwrap(), vec![1, 2, 3]);
}

#[test]
fn learns_a_feature_dependent_order_and_unseen_pairs_predict_a_half() {
    let mut rng = Rng::new(3);
    let (n, m) = (200, 4);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let a = rng.uniform();
        x.push(a);
        // Labels 0..2 ordered by the feature; label 3 never ranked together with label 2.
        y.extend(if a < 0.5 { [1, 2, 3, 0] } else { [3, 2, 1, 0] });
    }
    let model = fit(&x, &y, 1, m, PairwiseParams::tree());
    let pair_23 = model.pairs.iter().find(|p| (p.a, p.b) == (2, 3)).unwrap();
    assert!(pair_23.trees.is_empty());
    let pred = model.predict_ranks(&FeatureMatrixView::new(&[0.1, 0.9], 2, 1).unwrap()).unwrap();
    // Label 3 is never ranked: every pair with it predicts 1/2, a half win each, so it scores
    // 1.5 and ties with the middle label, which goes first (lower index).
    assert_eq!(&pred[..4], &[1, 2, 4, 3]);
    assert_eq!(&pred[4..], &[4, 2, 1, 3]);
}

#[test]
fn forests_do_not_depend_on_threads() {
    let mut rng = Rng::new(4);
    let (n, m) = (300, 3);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b) = (rng.uniform(), rng.uniform());
        x.extend([a, b]);
        y.extend(if a + b > 1.0 {
            [1, 2, 3]
        } else if a > b {
            [2, 1, 3]
        } else {
            [3, 2, 1]
        });
    }
    let params = PairwiseParams { n_estimators: 10, seed: 2, ..PairwiseParams::forest() };
    let one = with_threads(Some(1), || fit(&x, &y, 2, m, params.clone())).unwrap();
    let two = with_threads(Some(2), || fit(&x, &y, 2, m, params.clone())).unwrap();
    assert_eq!(one, two);
    assert_eq!(one.pairs.len(), 3);
    assert!(one.pairs.iter().all(|p| p.trees.len() == 10));
}

#[test]
fn histograms_with_a_bin_per_value_grow_the_exact_trees() {
    // Ties and whole-number weights; trees and forests; enough rows for nodes with histograms.
    let mut rng = Rng::new(31);
    let (n, d, m) = (1500, 3, 4);
    let mut x = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        let row = [rng.below(90) as f64, rng.below(4) as f64, rng.below(250) as f64 / 10.0];
        let mut order: Vec<usize> = (0..m).collect();
        order.rotate_left((row[0] as usize / 30 + row[1] as usize + rng.below(2)) % m);
        x.extend(row);
        y.extend(crate::data::ranking::ranks_of_order(&order, m));
    }
    let w: Vec<f64> = (0..n).map(|_| 1.0 + rng.below(3) as f64).collect();
    let (xv, yv) = (FeatureMatrixView::new(&x, n, d).unwrap(), RankMatrixView::new(&y, n, m).unwrap());
    for params in [PairwiseParams::tree(), PairwiseParams { n_estimators: 3, seed: 4, ..PairwiseParams::forest() }] {
        let exact = PairwiseModel::fit_views(&xv, &yv, Some(&w), params.clone()).unwrap();
        let binned = PairwiseModel::fit_views(&xv, &yv, Some(&w), PairwiseParams { max_bins: Some(255), ..params }).unwrap();
        assert!(exact.pairs.iter().map(|p| p.trees[0].n_leaves()).sum::<usize>() > 30);
        assert!(exact.pairs == binned.pairs, "the trees differ");
    }
}
