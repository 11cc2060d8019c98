//! Adding trees to a fitted forest (scikit-learn's warm_start): the forest grown in steps is the
//! forest a fit with the final count grows, tree for tree, for any thread count.

use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::data::training::TrainingSet;
use lrank_core::learner::{Learner, Params};
use lrank_core::learners::bagging::{BaggingModel, BaggingParams};
use lrank_core::learners::labelwise::{LabelwiseModel, LabelwiseParams};
use lrank_core::learners::plr_tree::{PlrTreeModel, PlrTreeParams};
use lrank_core::learners::random_forest::{RandomForestModel, RandomForestParams};
use lrank_core::parallel::with_threads;
use lrank_core::registry::{LearnerParams, Model};

const N: usize = 60;
const D: usize = 3;
const M: usize = 4;

/// Features from a fixed formula; each row ranks labels by a utility of its features, with
/// labels 1 and 2 tied when `ties` and their utilities are close.
fn data(ties: bool) -> (Vec<f64>, Vec<i32>) {
    let x: Vec<f64> = (0..N * D).map(|k| ((k * 37 + 11) % 101) as f64 / 100.0).collect();
    let mut y = Vec::with_capacity(N * M);
    for row in x.chunks_exact(D) {
        let utility: Vec<f64> = (0..M).map(|j| row[j % D] * (j as f64 + 1.0) - row[(j + 1) % D]).collect();
        let mut labels: Vec<usize> = (0..M).collect();
        labels.sort_by(|&a, &b| utility[b].total_cmp(&utility[a]).then(a.cmp(&b)));
        let mut ranks = vec![0; M];
        let mut position = 0;
        for (k, &j) in labels.iter().enumerate() {
            let tied = ties && k > 0 && (utility[labels[k - 1]] - utility[j]).abs() < 0.15;
            if !tied {
                position += 1;
            }
            ranks[j] = position;
        }
        y.extend(ranks);
    }
    (x, y)
}

fn training<'a>(x: &'a [f64], y: &'a [i32]) -> TrainingSet<'a> {
    let xv = FeatureMatrixView::new(x, N, D).unwrap();
    TrainingSet::new(xv, RankMatrixView::new(y, N, M).unwrap(), None).unwrap()
}

/// Fitting `small` trees then adding up to `large` gives the model a fit with `large` grows.
fn grows_in_steps_like_at_once<L: Learner + PartialEq + std::fmt::Debug>(
    at: impl Fn(usize) -> L::Params + Sync,
    data: &TrainingSet<'_>,
    small: usize,
    large: usize,
) {
    let whole = L::fit(at(large), data).unwrap();
    for threads in [1, 2] {
        let stepped = with_threads(Some(threads), || {
            let first = L::fit(at(small), data).unwrap();
            let middle = first.add_trees((small + large) / 2, data).unwrap();
            middle.add_trees(large, data).unwrap()
        })
        .unwrap();
        assert_eq!(stepped, whole, "{threads} thread(s)");
    }
}

#[test]
fn lr_rf_grows_in_steps_like_at_once() {
    let (x, y) = data(false);
    let data = training(&x, &y);
    for node_seeds in [false, true] {
        let at = |n| RandomForestParams { n_estimators: n, seed: 4, node_seeds, ..Default::default() };
        grows_in_steps_like_at_once::<RandomForestModel>(at, &data, 5, 17);
    }
}

#[test]
fn labelwise_forest_grows_in_steps_like_at_once_also_from_one_plain_tree() {
    let (x, y) = data(false);
    let data = training(&x, &y);
    let at = |n| LabelwiseParams { n_estimators: n, seed: 2, ..LabelwiseParams::forest() };
    grows_in_steps_like_at_once::<LabelwiseModel>(at, &data, 4, 15);
    // One tree without bootstrap on all features is a plain tree, which a forest's first tree is not.
    let plain = |n| LabelwiseParams { n_estimators: n, seed: 2, bootstrap: false, ..LabelwiseParams::forest() };
    grows_in_steps_like_at_once::<LabelwiseModel>(plain, &data, 1, 6);
    // A tuned depth is refused: the inner cross-validation of more trees may choose another.
    let tuned = LabelwiseParams { n_estimators: 3, seed: 2, tune_depth: true, ..LabelwiseParams::forest() };
    let err = LabelwiseModel::fit(tuned, &data).unwrap().add_trees(9, &data).unwrap_err().to_string();
    assert!(err.contains("tuned depth"), "{err}");
}

#[test]
fn plr_forest_grows_in_steps_like_at_once() {
    let (x, y) = data(true);
    assert!(y.chunks_exact(M).any(|r| (1..=M as i32).any(|p| r.iter().filter(|&&q| q == p).count() > 1)), "ties");
    let data = training(&x, &y);
    let at = |n| PlrTreeParams { n_estimators: n, seed: 8, ..PlrTreeParams::forest() };
    grows_in_steps_like_at_once::<PlrTreeModel>(at, &data, 6, 14);
    let plain = |n| PlrTreeParams { n_estimators: n, seed: 8, bootstrap: false, ..PlrTreeParams::forest() };
    grows_in_steps_like_at_once::<PlrTreeModel>(plain, &data, 1, 4);
}

#[test]
fn bagging_adds_members_like_a_fit_with_them_all() {
    let (x, y) = data(false);
    let data = training(&x, &y);
    let base = LearnerParams::LabelTree(Default::default());
    let at = |n| BaggingParams { n_estimators: n, seed: 5, max_samples: 0.8, ..BaggingParams::new(base.clone()) };
    grows_in_steps_like_at_once::<BaggingModel<LearnerParams, Model>>(at, &data, 3, 10);
}

#[test]
fn fewer_trees_other_data_and_learners_without_forests_are_refused() {
    let (x, y) = data(false);
    let data = training(&x, &y);
    let params = RandomForestParams { n_estimators: 8, seed: 1, ..Default::default() };
    params.validate().unwrap();
    let model = RandomForestModel::fit(params, &data).unwrap();
    let same = model.clone().add_trees(8, &data).unwrap();
    assert_eq!(same, model, "as many trees: nothing to add");
    let err = model.clone().add_trees(5, &data).unwrap_err().to_string();
    assert!(err.contains("n_estimators") && err.contains("at least the 8 trees"), "{err}");
    let other_x: Vec<f64> = x.iter().map(|v| v + 1.0).collect();
    let err = model.add_trees(12, &training(&other_x, &y)).unwrap_err().to_string();
    assert!(err.contains("training data the model was fitted on"), "{err}");
    let tree = lrank_core::learners::label_tree::LabelTreeModel::fit(Default::default(), &data).unwrap();
    assert!(tree.add_trees(3, &data).unwrap_err().to_string().contains("warm_start"));
}
