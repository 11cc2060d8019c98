//! `min_samples_split` (and `min_samples_leaf`) in (0, 1) are shares of the training weight, as
//! scikit-learn's fractions of the samples are: each tree learner grows, with a share f, the
//! very trees it grows with f x n rows (a value of 1 or more counts rows of the training set's
//! average weight), and other trees than with the default.

use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::learners::label_tree::LabelTreeParams;
use lrank_core::learners::labelwise::LabelwiseParams;
use lrank_core::learners::labelwise_plr::LabelwisePlrParams;
use lrank_core::learners::one_vs_one::PairwiseParams;
use lrank_core::learners::pairwise_plr::PairwisePlrParams;
use lrank_core::learners::plr_tree::PlrTreeParams;
use lrank_core::registry::{apply, fit, LearnerParams};

const N: usize = 200;
const M: usize = 4;

/// Two features; rankings from noisy linear utilities (ties when `ties`); weights 1 or 3.
fn data(ties: bool) -> (Vec<f64>, Vec<i32>, Vec<f64>) {
    let mut state = 12345u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..N {
        let (a, b) = (next(), next());
        let utilities: Vec<f64> = (0..M).map(|j| a * j as f64 - b * (M - j) as f64 + 0.8 * next()).collect();
        let mut order: Vec<usize> = (0..M).collect();
        order.sort_by(|&i, &j| utilities[j].total_cmp(&utilities[i]));
        let mut r = vec![0; M];
        let mut position = 0;
        for (k, &label) in order.iter().enumerate() {
            let tied = ties && k > 0 && (utilities[order[k - 1]] - utilities[label]).abs() < 0.3;
            if !tied {
                position += 1;
            }
            r[label] = position;
        }
        x.extend([a, b]);
        y.extend(r);
    }
    let w = (0..N).map(|i| if i % 3 == 0 { 3.0 } else { 1.0 }).collect();
    (x, y, w)
}

/// Each row's leaves in the model's trees.
fn leaves(params: LearnerParams, ties: bool) -> Vec<u32> {
    let (x, y, w) = data(ties);
    let (xv, yv) = (FeatureMatrixView::new(&x, N, 2).unwrap(), RankMatrixView::new(&y, N, M).unwrap());
    let model = fit(params, xv, yv, Some(&w)).unwrap();
    apply(&model, &xv).unwrap().unwrap().0
}

/// The learner's trees with the share `share`, with the rows it stands for, and with `default`.
fn check(ties: bool, make: impl Fn(f64) -> LearnerParams, share: f64, default: f64) {
    let by_share = leaves(make(share), ties);
    assert_eq!(by_share, leaves(make(share * N as f64), ties), "share {share} of {N} rows");
    assert_ne!(by_share, leaves(make(default), ties), "the share changes the trees");
}

#[test]
fn a_share_of_the_training_weight_is_that_weight() {
    check(false, |v| LearnerParams::LabelTree(LabelTreeParams { min_weight_split: Some(v), ..Default::default() }), 0.2, 8.0);
    check(false, |v| LearnerParams::Labelwise(LabelwiseParams { min_samples_split: v, ..LabelwiseParams::tree() }), 0.15, 2.0);
    check(false, |v| LearnerParams::Labelwise(LabelwiseParams { min_samples_leaf: v, ..LabelwiseParams::tree() }), 0.05, 1.0);
    let forest = PairwiseParams { n_estimators: 5, ..PairwiseParams::forest() };
    check(false, |v| LearnerParams::Pairwise(PairwiseParams { min_samples_split: v, ..forest.clone() }), 0.1, 2.0);
    check(true, |v| LearnerParams::PlrTree(PlrTreeParams { min_samples_split: v, ..PlrTreeParams::tree() }), 0.1, 2.0);
    let plr_forest = PairwisePlrParams { n_estimators: 5, ..PairwisePlrParams::forest() };
    check(true, |v| LearnerParams::PairwisePlr(PairwisePlrParams { min_samples_split: v, ..plr_forest.clone() }), 0.1, 2.0);
    let more = LabelwisePlrParams { n_estimators: 5, ..Default::default() };
    check(true, |v| LearnerParams::LabelwisePlr(LabelwisePlrParams { min_samples_leaf: v, ..more.clone() }), 0.05, 1.0);
}

/// Each row's leaves, with every weight multiplied by `scale`.
fn leaves_scaled(params: LearnerParams, ties: bool, scale: f64) -> Vec<u32> {
    let (x, y, w) = data(ties);
    let w: Vec<f64> = w.iter().map(|v| v * scale).collect();
    let (xv, yv) = (FeatureMatrixView::new(&x, N, 2).unwrap(), RankMatrixView::new(&y, N, M).unwrap());
    apply(&fit(params, xv, yv, Some(&w)).unwrap(), &xv).unwrap().unwrap().0
}

#[test]
fn scaling_every_weight_leaves_the_trees_unchanged() {
    // Powers of two scale every sum exactly: the trees must be the same, node sizes counting rows
    // of the average weight (weights summing to 1 had made LRT a single leaf).
    let learners = [
        (false, LearnerParams::LabelTree(LabelTreeParams::default())),
        (false, LearnerParams::Labelwise(LabelwiseParams { min_samples_leaf: 3.0, ..LabelwiseParams::tree() })),
        (true, LearnerParams::PlrTree(PlrTreeParams { min_samples_split: 6.0, ..PlrTreeParams::tree() })),
    ];
    for (ties, params) in learners {
        let unit = leaves_scaled(params.clone(), ties, 1.0);
        for scale in [2f64.powi(-9), 2f64.powi(6)] {
            assert_eq!(leaves_scaled(params.clone(), ties, scale), unit, "{params:?} x {scale}");
        }
        assert!(unit.iter().any(|&l| l != unit[0]), "{params:?}: a tree of one leaf proves nothing");
    }
}
