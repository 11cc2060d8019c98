//! The histogram search against the exact search: with a bin per distinct value, the same trees,
//! whichever mix of histograms and bin-sorted nodes grows them, for the criteria of this module
//! (the labelwise variance and the partial-label-ranking impurities are checked in their
//! learners' tests, with [`same_trees`]), with ties, whole-number weights, missing values and
//! nominal features.

use super::grow::grow_tree_searching;
use super::histogram::Histograms;
use super::split::Exact;
use super::*;
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::{ranks_of_order, RankMatrixView};
use crate::rng::Rng;

struct CountLeaf;
impl LeafFitter for CountLeaf {
    type Leaf = (Vec<u32>, f64);
    fn fit_leaf(&self, s: &[u32], w: &[f64]) -> (Vec<u32>, f64) {
        let mut rows = s.to_vec();
        rows.sort_unstable();
        (rows, w.iter().sum())
    }
}

/// n rows, d features (values from small grids: ties; feature 1 nominal when `nominal`; some
/// missing), and m-label rankings (some incomplete) that depend on the first features.
pub(crate) fn problem(rng: &mut Rng, n: usize, d: usize, m: usize, nominal: bool) -> (Vec<f64>, Vec<FeatureKind>, Vec<i32>) {
    let mut x = vec![0.0; n * d];
    for i in 0..n {
        for f in 0..d {
            let levels = [3, 7, 40, 200][(f + i % 2) % 4];
            x[i * d + f] = if rng.below(25) == 0 { f64::NAN } else { (rng.below(levels) as f64) * 0.5 - 3.0 };
        }
    }
    let mut kinds = vec![FeatureKind::Numeric; d];
    if nominal && d > 1 {
        kinds[1] = FeatureKind::Nominal;
    }
    let mut y = Vec::with_capacity(n * m);
    for i in 0..n {
        let mut order: Vec<usize> = (0..m).collect();
        let key = x[i * d].max(-3.0) + if d > 1 { x[i * d + 1].max(-3.0) } else { 0.0 };
        order.rotate_left((key.abs() as usize + rng.below(2)) % m);
        let keep = if rng.below(4) == 0 { 2 } else { m };
        y.extend(ranks_of_order(&order[..keep], m));
    }
    (x, kinds, y)
}

/// Grows one tree of `criterion` exactly and with the histogram search at several node sizes
/// from which histograms are kept (1: every node; usize::MAX: none, bins sorted), and checks
/// that the trees are the same.
pub(crate) fn same_trees<C: AdditiveCriterion>(x: &TrainingFeatures, criterion: &C, rng: &mut Rng, max_features: usize) -> usize {
    let n = x.n_rows;
    // A bootstrap-like sample: whole-number weights, some rows left out, shuffled.
    let mut samples = Vec::new();
    let mut weights = Vec::new();
    for i in 0..n as u32 {
        let c = rng.below(4);
        if c > 0 {
            samples.push(i);
            weights.push(c as f64);
        }
    }
    let params = GrowParams { max_depth: None, max_features, min_weight_split: 2.0, threshold_rule: ThresholdRule::Best };
    let mut checked = 0;
    for randomness in [TreeRandomness::Stream, TreeRandomness::PerNode] {
        let seed = rng.next_u64();
        let exact = grow_tree_searching(
            x,
            samples.clone(),
            weights.clone(),
            criterion,
            &CountLeaf,
            &params,
            &mut Rng::new(seed),
            randomness,
            &Exact,
        );
        for min_node in [1, 64, usize::MAX] {
            let mut search = Histograms::new(x, criterion, &params);
            search.min_node = min_node;
            let binned = grow_tree_searching(
                x,
                samples.clone(),
                weights.clone(),
                criterion,
                &CountLeaf,
                &params,
                &mut Rng::new(seed),
                randomness,
                &search,
            );
            assert_eq!(exact.nodes, binned.nodes, "{randomness:?}, histograms from {min_node} samples");
            assert_eq!(exact.leaves, binned.leaves);
        }
        checked += exact.nodes.len();
    }
    checked
}

#[test]
fn class_entropy_histograms_grow_the_exact_trees() {
    let mut rng = Rng::new(41);
    let mut nodes = 0;
    for trial in 0..24 {
        let (n, d, m) = (20 + rng.below(500), 1 + trial % 4, 3 + trial % 3);
        let (xs, kinds, y) = problem(&mut rng, n, d, m, trial % 3 == 0);
        let view = FeatureMatrixView::new(&xs, n, d).unwrap().with_kinds(Some(&kinds)).unwrap();
        let x = TreeInputs::binned(&view, Some(MAX_BINS)).features;
        assert!((0..d).all(|f| x.bins().unwrap().n_bins(f) > 0));
        // Few classes (a label), or a class per distinct ranking.
        let top: Vec<u32> = y.chunks(m).map(|r| r.iter().position(|&p| p == 1).unwrap() as u32).collect();
        nodes += same_trees(&x, &ClassEntropy::new(&top, m, 1e-9), &mut rng, 1 + trial % d);
        let mut ids = std::collections::HashMap::new();
        let per_ranking: Vec<u32> = y
            .chunks(m)
            .map(|r| {
                let next = ids.len() as u32;
                *ids.entry(r.to_vec()).or_insert(next)
            })
            .collect();
        nodes += same_trees(&x, &ClassEntropy::new(&per_ranking, ids.len(), 1e-9), &mut rng, d);
    }
    assert!(nodes > 2000, "trees worth comparing: {nodes} nodes");
}

#[test]
fn pairwise_entropy_histograms_grow_the_exact_trees() {
    let mut rng = Rng::new(42);
    for trial in 0..16 {
        let (n, d, m) = (30 + rng.below(400), 1 + trial % 4, 3 + trial % 3);
        let (xs, kinds, y) = problem(&mut rng, n, d, m, trial % 2 == 0);
        let view = FeatureMatrixView::new(&xs, n, d).unwrap().with_kinds(Some(&kinds)).unwrap();
        let x = TreeInputs::binned(&view, Some(MAX_BINS)).features;
        let criterion = PairwiseEntropy::new(&RankMatrixView::new(&y, n, m).unwrap(), 1e-9).unwrap();
        same_trees(&x, &criterion, &mut rng, 1 + trial % d);
    }
}

#[test]
fn coarse_bins_split_between_bins_and_route_as_they_grew() {
    // 300 distinct values in 8 bins: every threshold lies between two bins, so training rows
    // reach the leaf whose bins they are in.
    let n = 600;
    let xs: Vec<f64> = (0..n).map(|i| ((i * 7919) % 300) as f64).collect();
    let classes: Vec<u32> = xs.iter().map(|&v| ((v / 37.0) as u32) % 3).collect();
    let view = FeatureMatrixView::new(&xs, n, 1).unwrap();
    let x = TreeInputs::binned(&view, Some(8)).features;
    let bins = x.bins().unwrap();
    assert_eq!(bins.n_bins(0), 8);
    let criterion = ClassEntropy::new(&classes, 3, 1e-9);
    let params = GrowParams { max_depth: None, max_features: 1, min_weight_split: 2.0, threshold_rule: ThresholdRule::Best };
    let tree = grow_forest_additive(
        &x,
        &all_rows(n),
        &vec![1.0; n],
        ForestSampling { n_trees: 1, seed: 3, bootstrap: false, node_seeds: false, first_tree: 0 },
        &criterion,
        &CountLeaf,
        &params,
    )
    .remove(0);
    assert!(tree.n_leaves() >= 4 && tree.n_leaves() <= 8, "{} leaves", tree.n_leaves());
    for (k, leaf) in tree.leaves.iter().enumerate() {
        // The rows of a leaf are whole bins, and routing sends each of them to that leaf.
        let leaf_bins: std::collections::BTreeSet<u8> = leaf.0.iter().map(|&i| bins.code(i as usize, 0)).collect();
        for (i, &v) in xs.iter().enumerate() {
            let in_leaf = leaf.0.contains(&(i as u32));
            assert_eq!(in_leaf, leaf_bins.contains(&bins.code(i, 0)), "leaf {k}, row {i}");
            if in_leaf {
                assert_eq!(tree.leaf_for(&[v], &[0.0]), leaf);
            }
        }
    }
}
