use super::grow::Grower;
use super::layout::sort_keys;
use super::split::Exact;
use super::*;
use crate::data::features::FeatureMatrixView;
use crate::rng::Rng;

struct CountLeaf;
impl LeafFitter for CountLeaf {
    type Leaf = f64;
    fn fit_leaf(&self, _s: &[u32], w: &[f64]) -> f64 {
        w.iter().sum()
    }
}

#[test]
fn radix_sort_orders_by_rank_then_position() {
    let mut rng = Rng::new(9);
    for n in [10usize, 300, 5000] {
        let mut keys: Vec<u64> = (0..n as u64).map(|pos| ((rng.below(700) as u64) << 32) | pos).collect();
        let mut expect = keys.clone();
        expect.sort_unstable();
        sort_keys(&mut keys, &mut Vec::new(), 10);
        assert_eq!(keys, expect);
    }
}

#[test]
fn max_features_rules() {
    assert_eq!(MaxFeatures::Log2PlusOne.resolve(4), 3);
    assert_eq!(MaxFeatures::Log2PlusOne.resolve(70), 7);
    assert_eq!(MaxFeatures::Log2PlusOne.resolve(1), 1);
    // scikit-learn's "log2": floor(log2 d), at least one.
    assert_eq!(MaxFeatures::Log2.resolve(4), 2);
    assert_eq!(MaxFeatures::Log2.resolve(70), 6);
    assert_eq!(MaxFeatures::Log2.resolve(1), 1);
    assert_eq!(MaxFeatures::Sqrt.resolve(10), 4);
    assert_eq!(MaxFeatures::Count(50).resolve(9), 9);
    assert_eq!(MaxFeatures::Fraction(0.01).resolve(9), 1);
}

#[test]
fn separable_classes_give_a_pure_split_and_routing_matches_growing() {
    // One feature; class 0 for x < 5, class 1 above; weights all 1.
    let xs: Vec<f64> = (0..10).map(|i| i as f64).collect();
    let classes: Vec<u32> = (0..10).map(|i| (i >= 5) as u32).collect();
    let x = FeatureMatrixView::new(&xs, 10, 1).unwrap();
    let crit = ClassEntropy::new(&classes, 2, 1e-9);
    let params = GrowParams { max_depth: Some(8), max_features: 1, min_weight_split: 2.0, threshold_rule: ThresholdRule::Best };
    let tree =
        grow_tree(&TrainingFeatures::new(&x), (0..10).collect(), vec![1.0; 10], &crit, &CountLeaf, &params, &mut Rng::new(0));
    assert_eq!(tree.depth(), 1);
    assert_eq!(tree.nodes[0], Node::Split { feature: 0, threshold: 4.5, left: 1, right: 2 });
    assert_eq!(*tree.leaf_for(&[4.5], &[0.0]), 5.0);
    assert_eq!(*tree.leaf_for(&[4.6], &[0.0]), 5.0 + 0.0 * 1.0);
    assert_eq!(*tree.leaf_for(&[f64::NAN], &[9.0]), 5.0);
}

#[test]
fn depth_limit_is_counted_in_splits() {
    let xs: Vec<f64> = (0..64).map(|i| i as f64).collect();
    let classes: Vec<u32> = (0..64).map(|i| (i % 2) as u32).collect();
    let x = FeatureMatrixView::new(&xs, 64, 1).unwrap();
    let crit = ClassEntropy::new(&classes, 2, 1e-9);
    for max_depth in [0, 1, 3] {
        let params = GrowParams {
            max_depth: Some(max_depth),
            max_features: 1,
            min_weight_split: 2.0,
            threshold_rule: ThresholdRule::Best,
        };
        let tree =
            grow_tree(&TrainingFeatures::new(&x), (0..64).collect(), vec![1.0; 64], &crit, &CountLeaf, &params, &mut Rng::new(0));
        assert_eq!(tree.depth(), max_depth);
        let total: f64 = tree.leaves.iter().sum();
        assert_eq!(total, 64.0);
    }
}

#[test]
fn presorted_nodes_grow_the_tree_that_sorting_in_every_node_grows() {
    // Ties, a nominal feature, shuffled samples (ties go by position in the node), integer
    // weights, and nodes large enough to grow their subtrees in parallel.
    let mut rng = Rng::new(17);
    for (n, d) in [(40usize, 3usize), (300, 4), (3000, 3)] {
        let mut xs = vec![0.0; n * d];
        for i in 0..n {
            xs[i * d] = rng.below(n / 4 + 1) as f64;
            xs[i * d + 1] = rng.uniform();
            xs[i * d + 2] = rng.below(3) as f64;
            for f in 3..d {
                xs[i * d + f] = rng.below(5) as f64;
            }
        }
        let classes: Vec<u32> = (0..n).map(|i| ((xs[i * d] + 3.0 * xs[i * d + 1]) as u32 + rng.below(2) as u32) % 3).collect();
        let mut kinds = vec![FeatureKind::Numeric; d];
        kinds[2] = FeatureKind::Nominal;
        let x = FeatureMatrixView::new(&xs, n, d).unwrap().with_kinds(Some(&kinds)).unwrap();
        let features = TrainingFeatures::new(&x);
        let crit = ClassEntropy::new(&classes, 3, 1e-9);
        let mut samples: Vec<u32> = (0..n as u32).filter(|_| rng.below(10) > 0).collect();
        rng.shuffle(&mut samples);
        let weights: Vec<f64> = samples.iter().map(|_| 1.0 + rng.below(3) as f64).collect();
        for rule in [ThresholdRule::Best, ThresholdRule::EqualFrequency] {
            let params = GrowParams { max_depth: None, max_features: d, min_weight_split: 2.0, threshold_rule: rule };
            let grow = |presort: bool| {
                let grower = Grower {
                    x: &features,
                    search: &Exact,
                    criterion: &crit,
                    leaf_fitter: &CountLeaf,
                    params: &params,
                    reset_features: true,
                    weight_of: Vec::new(),
                };
                grower.grow_from_root(&mut samples.clone(), &mut weights.clone(), 5, presort)
            };
            let (sorting, presorted) = (grow(false), grow(true));
            assert!(sorting.nodes.len() > 3, "n={n}: a tree worth comparing");
            assert_eq!(sorting.nodes, presorted.nodes, "n={n} {rule:?}");
            assert_eq!(sorting.leaves, presorted.leaves, "n={n} {rule:?}");
        }
    }
}

#[test]
fn constant_features_give_a_leaf() {
    let xs = vec![1.0; 8];
    let classes: Vec<u32> = (0..8).map(|i| (i % 2) as u32).collect();
    let x = FeatureMatrixView::new(&xs, 8, 1).unwrap();
    let crit = ClassEntropy::new(&classes, 2, 1e-9);
    let params = GrowParams { max_depth: None, max_features: 1, min_weight_split: 2.0, threshold_rule: ThresholdRule::Best };
    let tree =
        grow_tree(&TrainingFeatures::new(&x), (0..8).collect(), vec![1.0; 8], &crit, &CountLeaf, &params, &mut Rng::new(0));
    assert_eq!(tree.nodes.len(), 1);
}

#[test]
fn forest_sample_counts_are_the_draws_of_grow_forest() {
    // A tree of depth 0 is one leaf holding every drawn sample with its weight (its count times
    // its row weight): exactly what forest_sample_counts says tree t drew.
    struct Drawn;
    impl LeafFitter for Drawn {
        type Leaf = Vec<(u32, f64)>;
        fn fit_leaf(&self, s: &[u32], w: &[f64]) -> Vec<(u32, f64)> {
            s.iter().copied().zip(w.iter().copied()).collect()
        }
    }
    let xs: Vec<f64> = (0..30).map(|i| i as f64).collect();
    let x = FeatureMatrixView::new(&xs, 30, 1).unwrap();
    let classes = vec![0u32; 30];
    let crit = ClassEntropy::new(&classes, 1, 1e-9);
    let rows: Vec<u32> = (0..30).rev().collect(); // row ids in another order than positions
    let row_weights = vec![2.0; 30];
    let params = GrowParams { max_depth: Some(0), max_features: 1, min_weight_split: 0.0, threshold_rule: ThresholdRule::Best };
    let sampling = ForestSampling { n_trees: 4, seed: 21, bootstrap: true, node_seeds: false, first_tree: 0 };
    let trees = grow_forest(&TrainingFeatures::new(&x), &rows, &row_weights, sampling, &crit, &Drawn, &params);
    for (t, tree) in trees.iter().enumerate() {
        let counts = forest_sample_counts(sampling, t, 30);
        let mut expect: Vec<(u32, f64)> =
            counts.iter().enumerate().filter(|(_, &c)| c > 0.0).map(|(k, &c)| (rows[k], 2.0 * c)).collect();
        let mut got = tree.leaves[0].clone();
        expect.sort_by_key(|e| e.0);
        got.sort_by_key(|e| e.0);
        assert_eq!(got, expect, "tree {t}");
        assert!(counts.contains(&0.0), "a bootstrap sample of 30 leaves rows out");
    }
}
