//! Out-of-bag predictions of the pairwise forests (one-versus-one and pairwise PLR), whose trees
//! draw their bootstrap samples over the rows that train their label pair.
//!
//! The expected prediction is rebuilt here from each pair's samples as the public sampling
//! function draws them, and those samples are first checked against the trees themselves: on
//! rows with distinct features whose classes alternate from row to row, a fully grown tree
//! predicts a row's own class wherever its sample drew the row, and a row it did not draw
//! mostly lands beside a neighbour of another class. So a sample that is not the one the fit
//! drew (another seed, pair index, row subset or weighting) fails the check.

use lrank_core::consensus::buckets::PairOrderMatrix;
use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::data::training::TrainingSet;
use lrank_core::learner::Learner;
use lrank_core::learners::one_vs_one::{PairwiseModel, PairwiseParams, PairwiseVoting};
use lrank_core::learners::pairwise_plr::{PairwisePlrModel, PairwisePlrParams};
use lrank_core::rng::child_seed;
use lrank_core::tree::{forest_sample_counts, ForestSampling, MaxFeatures, Tree};

const N: usize = 60;
const M: usize = 4;
const TREES: usize = 15;

/// x_i = i; row i ranks the labels 1..M (i even) or M..1 (i odd), or, with `ties` and i % 3 == 2,
/// ties them all; rows with i % 5 == 3 leave label 0 out, and rows with i % 7 == 6 have weight 0
/// (they train no pair).
fn data(ties: bool) -> (Vec<f64>, Vec<i32>, Vec<f64>) {
    let mut y = Vec::new();
    for i in 0..N {
        let mut r: Vec<i32> = if ties && i % 3 == 2 {
            vec![1; M]
        } else if i % 2 == 0 {
            (1..=M as i32).collect()
        } else {
            (1..=M as i32).rev().collect()
        };
        if i % 5 == 3 {
            let dropped = r[0];
            r[0] = 0;
            r.iter_mut().filter(|p| **p > dropped).for_each(|p| *p -= 1);
        }
        y.extend(r);
    }
    let w = (0..N).map(|i| if i % 7 == 6 { 0.0 } else { 1.0 }).collect();
    ((0..N).map(|i| i as f64).collect(), y, w)
}

/// The rows that train pair (a, b), written out here: both labels ranked, positive weight.
fn pair_rows(y: &[i32], w: &[f64], a: usize, b: usize) -> Vec<usize> {
    (0..N).filter(|&i| y[i * M + a] > 0 && y[i * M + b] > 0 && w[i] > 0.0).collect()
}

/// For each row, the trees of pair `index` that did not draw it (all of them for a row outside
/// `rows`), after checking the samples against the trees: a drawn row gets its own class's
/// leaf (`own`); returns also how many left-out (tree, row) cases got another class's leaf.
fn left_out<L: PartialEq + std::fmt::Debug>(
    trees: &[Tree<L>],
    seed: u64,
    index: usize,
    rows: &[usize],
    x: &FeatureMatrixView<'_>,
    fill: &[f64],
    own: impl Fn(usize) -> L,
) -> (Vec<Vec<usize>>, usize) {
    let sampling = ForestSampling {
        n_trees: TREES,
        seed: child_seed(seed, index as u64),
        bootstrap: true,
        node_seeds: false,
        first_tree: 0,
    };
    let mut out: Vec<Vec<usize>> = vec![(0..trees.len()).collect(); N];
    out.iter_mut().enumerate().filter(|(i, _)| rows.contains(i)).for_each(|(_, t)| t.clear());
    let mut other_class = 0;
    for (t, tree) in trees.iter().enumerate() {
        let counts = forest_sample_counts(sampling, t, rows.len());
        for (k, &i) in rows.iter().enumerate() {
            let leaf = tree.leaf_for(x.row(i), fill);
            if counts[k] > 0.0 {
                assert_eq!(*leaf, own(i), "pair {index}, tree {t}: row {i} was drawn");
            } else {
                out[i].push(t);
                other_class += (*leaf != own(i)) as usize;
            }
        }
    }
    (out, other_class)
}

/// Labels by decreasing score, ties to the lower label.
fn by_scores(scores: &[f64]) -> Vec<i32> {
    let mut labels: Vec<usize> = (0..scores.len()).collect();
    labels.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let mut r = vec![0; scores.len()];
    labels.iter().enumerate().for_each(|(p, &l)| r[l] = p as i32 + 1);
    r
}

#[test]
fn one_vs_one_out_of_bag_votes_the_pairs_trees_that_left_the_row_out() {
    let (x, y, w) = data(false);
    let (xv, yv) = (FeatureMatrixView::new(&x, N, 1).unwrap(), RankMatrixView::new(&y, N, M).unwrap());
    // Three trees per pair: many rows were drawn by every tree of some pair, and have no estimate.
    for (voting, n_trees) in
        [(PairwiseVoting::Copeland, TREES), (PairwiseVoting::Probability, TREES), (PairwiseVoting::Copeland, 3)]
    {
        let params = PairwiseParams {
            n_estimators: n_trees,
            max_features: MaxFeatures::All,
            seed: 21,
            voting,
            ..PairwiseParams::forest()
        };
        let model = PairwiseModel::fit_views(&xv, &yv, Some(&w), params).unwrap();
        let oob = model.out_of_bag(&TrainingSet::new(xv, yv, Some(&w)).unwrap()).unwrap().unwrap();
        let mut scores = vec![0.0; N * M];
        let mut covered = [true; N];
        let mut other_class = 0;
        for (index, pair) in model.pairs.iter().enumerate() {
            let (a, b) = (pair.a as usize, pair.b as usize);
            let rows = pair_rows(&y, &w, a, b);
            let before = |i: usize| (y[i * M + a] < y[i * M + b]) as u8 as f64;
            let (trees, others) = left_out(&pair.trees, 21, index, &rows, &xv, &model.fill_values, before);
            other_class += others;
            for i in 0..N {
                let p = if trees[i].is_empty() {
                    0.5
                } else {
                    trees[i].iter().map(|&t| *pair.trees[t].leaf_for(xv.row(i), &model.fill_values)).sum::<f64>()
                        / trees[i].len() as f64
                };
                let win = match voting {
                    PairwiseVoting::Probability => p,
                    PairwiseVoting::Copeland => [0.0, 0.5, 1.0][(p >= 0.5) as usize + (p > 0.5) as usize],
                };
                scores[i * M + a] += win;
                scores[i * M + b] += 1.0 - win;
                covered[i] &= !trees[i].is_empty();
            }
        }
        if n_trees == TREES {
            assert!(other_class > N, "left-out rows mostly land beside another class ({other_class})");
        } else {
            assert!(covered.iter().filter(|&&c| !c).count() > N / 4, "rows without an estimate");
        }
        for i in 0..N {
            let expected = if covered[i] { by_scores(&scores[i * M..(i + 1) * M]) } else { vec![0; M] };
            assert_eq!(&oob[i * M..(i + 1) * M], expected.as_slice(), "row {i}, {voting:?}");
        }
    }
}

#[test]
fn pairwise_plr_out_of_bag_is_the_consensus_of_the_pairs_trees_that_left_the_row_out() {
    let (x, y, w) = data(true);
    let (xv, yv) = (FeatureMatrixView::new(&x, N, 1).unwrap(), RankMatrixView::new(&y, N, M).unwrap());
    let params =
        PairwisePlrParams { n_estimators: TREES, max_features: MaxFeatures::All, seed: 8, ..PairwisePlrParams::forest() };
    let model = PairwisePlrModel::fit_views(&xv, &yv, Some(&w), params).unwrap();
    let oob = model.out_of_bag(&TrainingSet::new(xv, yv, Some(&w)).unwrap()).unwrap().unwrap();
    let mut matrices = vec![0.5; N * M * M];
    let mut covered = [true; N];
    let mut other_class = 0;
    for (index, pair) in model.pairs.iter().enumerate() {
        let (a, b) = (pair.a as usize, pair.b as usize);
        let rows = pair_rows(&y, &w, a, b);
        let relation = |i: usize| {
            let mut shares = [0.0; 3];
            shares[(y[i * M + a].cmp(&y[i * M + b]) as i32 + 1) as usize] = 1.0; // before, tied, after
            shares
        };
        let (trees, others) = left_out(&pair.trees, 8, index, &rows, &xv, &model.fill_values, relation);
        other_class += others;
        (0..N).for_each(|i| covered[i] &= !trees[i].is_empty());
        for i in (0..N).filter(|&i| !trees[i].is_empty()) {
            let mut p = [0.0; 3];
            for &t in &trees[i] {
                let leaf = pair.trees[t].leaf_for(xv.row(i), &model.fill_values);
                (0..3).for_each(|k| p[k] += leaf[k]);
            }
            let p = p.map(|v| v / trees[i].len() as f64);
            let c = &mut matrices[i * M * M..(i + 1) * M * M];
            c[a * M + b] = p[0] + p[1] / 2.0;
            c[b * M + a] = 1.0 - c[a * M + b];
        }
    }
    assert!(other_class > N, "left-out rows mostly land beside another relation ({other_class})");
    for i in 0..N {
        let c = PairOrderMatrix::from_entries(M, matrices[i * M * M..(i + 1) * M * M].to_vec());
        let expected = if covered[i] { model.consensus.of_matrix(&c) } else { vec![0; M] };
        assert_eq!(&oob[i * M..(i + 1) * M], expected.as_slice(), "row {i}");
    }
}

#[test]
fn pairwise_forests_without_bootstrap_have_no_out_of_bag_predictions() {
    let (x, y, w) = data(false);
    let (xv, yv) = (FeatureMatrixView::new(&x, N, 1).unwrap(), RankMatrixView::new(&y, N, M).unwrap());
    let data = TrainingSet::new(xv, yv, Some(&w)).unwrap();
    let tree = PairwiseModel::fit_views(&xv, &yv, Some(&w), PairwiseParams::tree()).unwrap();
    assert!(tree.out_of_bag(&data).unwrap_err().to_string().contains("bootstrap"));
    let plr_tree = PairwisePlrModel::fit_views(&xv, &yv, Some(&w), PairwisePlrParams::tree()).unwrap();
    assert!(plr_tree.out_of_bag(&data).unwrap_err().to_string().contains("bootstrap"));
}
