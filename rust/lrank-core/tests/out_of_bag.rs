//! Out-of-bag predictions checked without the sampling code they use: on rows with distinct
//! feature values and distinct rankings, a fully grown tree predicts a training row's own
//! ranking exactly when its sample drew that row (every leaf holds one row). So the members
//! that left a row out are read off the members' predictions, and the out-of-bag prediction
//! is rebuilt from those members alone.

mod common;

use common::ranks_from_order;
use lrank_core::consensus::buckets::PairOrderCounts;
use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::data::training::TrainingSet;
use lrank_core::learner::Learner;
use lrank_core::learners::bagging::{BaggingModel, BaggingParams};
use lrank_core::learners::labelwise::{LabelwiseModel, LabelwiseParams};
use lrank_core::learners::labelwise_plr::{tie_layer, LabelwisePlrModel, LabelwisePlrParams, TieLayer};
use lrank_core::learners::plr_tree::{PlrTreeModel, PlrTreeParams};
use lrank_core::learners::random_forest::{ClassMode, RandomForestModel, RandomForestParams};
use lrank_core::registry::{LearnerParams, Model};
use lrank_core::tree::MaxFeatures;

const N: usize = 40;
const M: usize = 6;

/// A small deterministic generator (the test needs no statistics from it).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// x_i = i; `N` distinct rankings of `M` labels, with ties (bucket orders) when `ties`.
fn data(ties: bool) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Lcg(7);
    let mut rows: Vec<Vec<i32>> = Vec::new();
    while rows.len() < N {
        let mut order: Vec<usize> = (0..M).collect();
        for k in (1..M).rev() {
            order.swap(k, rng.below(k + 1));
        }
        let mut r = ranks_from_order(&order, M);
        if ties {
            // Merge positions 2 and 3 of a few rows' rankings into one bucket: 1,2,2,3,...
            if rng.below(2) == 0 {
                r.iter_mut().for_each(|p| {
                    if *p >= 3 {
                        *p -= 1
                    }
                });
            }
        }
        if !rows.contains(&r) {
            rows.push(r);
        }
    }
    ((0..N).map(|i| i as f64).collect(), rows.concat())
}

/// Each member's ranking of each row (members x n x m) and the rows themselves: which members
/// left row i out (their ranking of it is not its own).
fn left_out(members: &[i32], y: &[i32]) -> Vec<Vec<usize>> {
    let b = members.len() / (N * M);
    (0..N).map(|i| (0..b).filter(|&t| members[(t * N + i) * M..(t * N + i + 1) * M] != y[i * M..(i + 1) * M]).collect()).collect()
}

/// Labels by decreasing `votes`, ties to the lower label.
fn by_votes(votes: &[f64]) -> Vec<i32> {
    let mut labels: Vec<usize> = (0..votes.len()).collect();
    labels.sort_by(|&a, &b| votes[b].total_cmp(&votes[a]).then(a.cmp(&b)));
    ranks_from_order(&labels, votes.len())
}

/// The Borda count of members `trees`' rankings of row `i` (m + 1 - position votes).
fn borda(members: &[i32], trees: &[usize], i: usize) -> Vec<i32> {
    let mut votes = vec![0.0; M];
    for &t in trees {
        let r = &members[(t * N + i) * M..(t * N + i + 1) * M];
        votes.iter_mut().zip(r).for_each(|(v, &p)| *v += (M + 1) as f64 - p as f64);
    }
    by_votes(&votes)
}

fn training<'a>(x: FeatureMatrixView<'a>, y: RankMatrixView<'a>) -> TrainingSet<'a> {
    TrainingSet::new(x, y, None).unwrap()
}

fn views<'a>(x: &'a [f64], y: &'a [i32]) -> (FeatureMatrixView<'a>, RankMatrixView<'a>) {
    (FeatureMatrixView::new(x, N, 1).unwrap(), RankMatrixView::new(y, N, M).unwrap())
}

fn full_forest() -> RandomForestParams {
    RandomForestParams {
        n_estimators: 30,
        max_depth: None,
        max_features: MaxFeatures::All,
        class_mode: ClassMode::Ranking,
        seed: 11,
        ..Default::default()
    }
}

#[test]
fn lr_rf_out_of_bag_is_the_borda_count_of_the_trees_that_left_the_row_out() {
    // Also with a seed per node (the forest lrank.dask grows exactly), which draws the same samples.
    for node_seeds in [false, true] {
        lr_rf_case(RandomForestParams { node_seeds, ..full_forest() });
    }
}

fn lr_rf_case(params: RandomForestParams) {
    let (x, y) = data(false);
    let (xv, yv) = views(&x, &y);
    let model = RandomForestModel::fit_views(&xv, &yv, None, params).unwrap();
    let members = model.member_ranks(&xv).unwrap().unwrap();
    let oob = model.out_of_bag(&training(xv, yv)).unwrap().unwrap();
    let left_out = left_out(&members, &y);
    assert!(left_out.iter().all(|t| !t.is_empty() && t.len() < 30), "every row in some trees' samples, not all");
    for (i, trees) in left_out.iter().enumerate() {
        assert_eq!(&oob[i * M..(i + 1) * M], borda(&members, trees, i).as_slice(), "row {i}");
    }
}

#[test]
fn labelwise_forest_out_of_bag_ranks_the_mean_scores_of_the_trees_that_left_the_row_out() {
    let (x, y) = data(false);
    let (xv, yv) = views(&x, &y);
    let params = LabelwiseParams { n_estimators: 30, max_features: MaxFeatures::All, seed: 5, ..LabelwiseParams::forest() };
    let model = LabelwiseModel::fit_views(&xv, &yv, None, params).unwrap();
    let oob = model.out_of_bag(&training(xv, yv)).unwrap().unwrap();
    for i in 0..N {
        let own = &y[i * M..(i + 1) * M];
        let mut mean = vec![0.0; M];
        let mut count = 0;
        for tree in &model.trees {
            let scores = &tree.leaf_for(xv.row(i), &model.fill_values).scores;
            // Lower score = preferred; a tree that drew the row predicts its own ranking.
            let negated: Vec<f64> = scores.iter().map(|s| -s).collect();
            if by_votes(&negated) != own {
                mean.iter_mut().zip(scores).for_each(|(a, s)| *a -= s);
                count += 1;
            }
        }
        assert!(count > 0 && count < 30, "row {i}: {count} trees left it out");
        assert_eq!(&oob[i * M..(i + 1) * M], by_votes(&mean).as_slice(), "row {i}");
    }
}

#[test]
fn plr_forest_out_of_bag_is_the_consensus_of_the_trees_that_left_the_row_out() {
    let (x, y) = data(true);
    let (xv, yv) = views(&x, &y);
    let params = PlrTreeParams { n_estimators: 30, max_features: MaxFeatures::All, seed: 3, ..PlrTreeParams::forest() };
    let model = PlrTreeModel::fit_views(&xv, &yv, None, params.clone()).unwrap();
    let members = model.member_ranks(&xv).unwrap().unwrap();
    let oob = model.out_of_bag(&training(xv, yv)).unwrap().unwrap();
    for (i, trees) in left_out(&members, &y).iter().enumerate() {
        assert!(!trees.is_empty() && trees.len() < 30, "row {i}");
        let mut counts = PairOrderCounts::new(M);
        trees.iter().for_each(|&t| counts.add(&members[(t * N + i) * M..(t * N + i + 1) * M], 1.0));
        assert_eq!(&oob[i * M..(i + 1) * M], params.consensus.of_matrix(&counts.matrix()).as_slice(), "row {i}");
    }
}

#[test]
fn labelwise_plr_out_of_bag_is_the_tie_layer_of_the_trees_that_left_the_row_out() {
    let (x, y) = data(true);
    let (xv, yv) = views(&x, &y);
    for layer in [TieLayer::Epsilon { epsilon: 0.5 }, TieLayer::Interval { q: 0.9 }] {
        let params = LabelwisePlrParams { n_estimators: 30, seed: 6, tie_layer: layer, ..Default::default() };
        let model = LabelwisePlrModel::fit_views(&xv, &yv, None, params).unwrap();
        let oob = model.out_of_bag(&training(xv, yv)).unwrap().unwrap();
        for i in 0..N {
            let scores: Vec<&Vec<f64>> = model.trees.iter().map(|t| &t.leaf_for(xv.row(i), &model.fill_values).scores).collect();
            // The trees that drew the row predict its own scores: the most frequent vector.
            let own = scores.iter().max_by_key(|s| scores.iter().filter(|o| o == s).count()).unwrap();
            let left_out: Vec<&Vec<f64>> = scores.iter().copied().filter(|s| s != own).collect();
            assert!(!left_out.is_empty() && left_out.len() < 20, "row {i}: {}", left_out.len());
            let t = left_out.len() as f64;
            let mean: Vec<f64> = (0..M).map(|j| left_out.iter().map(|s| s[j]).sum::<f64>() / t).collect();
            let sd: Vec<f64> = (0..M)
                .map(|j| {
                    if t > 1.0 {
                        (left_out.iter().map(|s| (s[j] - mean[j]).powi(2)).sum::<f64>() / (t - 1.0)).sqrt()
                    } else {
                        0.0
                    }
                })
                .collect();
            let expected = tie_layer(&mean, &sd, left_out.len(), layer);
            assert_eq!(&oob[i * M..(i + 1) * M], expected.as_slice(), "row {i}");
        }
    }
}

#[test]
fn bagging_out_of_bag_is_the_consensus_of_the_members_that_left_the_row_out() {
    let (x, y) = data(false);
    let (xv, yv) = views(&x, &y);
    // Members: one fully grown tree each, on its bootstrap sample.
    let tree = RandomForestParams { n_estimators: 1, bootstrap: false, ..full_forest() };
    let params = BaggingParams { n_estimators: 25, seed: 9, ..BaggingParams::new(LearnerParams::RandomForest(tree)) };
    let model = BaggingModel::<LearnerParams, Model>::fit_views(&xv, &yv, None, params).unwrap();
    let members = model.member_ranks(&xv).unwrap().unwrap();
    let oob = model.out_of_bag(&training(xv, yv)).unwrap().unwrap();
    for (i, trees) in left_out(&members, &y).iter().enumerate() {
        assert!(!trees.is_empty() && trees.len() < 25, "row {i}");
        assert_eq!(&oob[i * M..(i + 1) * M], borda(&members, trees, i).as_slice(), "row {i}");
    }
}

#[test]
fn out_of_bag_needs_bootstrap_samples_and_a_row_every_tree_drew_is_zeros() {
    let (x, y) = data(false);
    let (xv, yv) = views(&x, &y);
    let whole = RandomForestParams { bootstrap: false, ..full_forest() };
    let err = RandomForestModel::fit_views(&xv, &yv, None, whole).unwrap().out_of_bag(&training(xv, yv)).unwrap_err();
    assert!(err.to_string().contains("bootstrap"), "{err}");
    let leaf_missing = RandomForestParams { leaf_missing: 0.5, ..full_forest() };
    let err = RandomForestModel::fit_views(&xv, &yv, None, leaf_missing).unwrap().out_of_bag(&training(xv, yv)).unwrap_err();
    assert!(err.to_string().contains("leaf_missing"), "{err}");
    // One tree: the rows it drew have no out-of-bag prediction.
    let one = RandomForestParams { n_estimators: 1, ..full_forest() };
    let model = RandomForestModel::fit_views(&xv, &yv, None, one).unwrap();
    let members = model.member_ranks(&xv).unwrap().unwrap();
    let oob = model.out_of_bag(&training(xv, yv)).unwrap().unwrap();
    for i in 0..N {
        let drawn = members[i * M..(i + 1) * M] == y[i * M..(i + 1) * M];
        let row = &oob[i * M..(i + 1) * M];
        assert_eq!(drawn, row.iter().all(|&r| r == 0), "row {i}");
        if !drawn {
            assert_eq!(row, &members[i * M..(i + 1) * M], "row {i}");
        }
    }
}

#[test]
fn learners_without_bootstrap_members_have_no_out_of_bag_predictions() {
    let (x, y) = data(false);
    let (xv, yv) = views(&x, &y);
    let tree = LabelwiseModel::fit_views(&xv, &yv, None, LabelwiseParams::tree()).unwrap();
    assert!(tree.out_of_bag(&training(xv, yv)).unwrap_err().to_string().contains("bootstrap"));
    let gblr = lrank_core::registry::fit(LearnerParams::GradientBoosting(Default::default()), xv, yv, None).unwrap();
    assert_eq!(gblr.out_of_bag(&training(xv, yv)).unwrap(), None);
}
