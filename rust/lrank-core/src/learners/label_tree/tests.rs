use super::*;
use crate::consensus::mallows::{fit_mallows, theta_mle};
use crate::error::LrankError;
use crate::metrics::distance::kendall_distance;
use crate::tree::{Boundaries, Node, SortedSample, SplitCriterion};

fn view(y: &[i32], m: usize) -> RankMatrixView<'_> {
    RankMatrixView::new(y, y.len() / m, m).unwrap()
}

/// `n` random rankings of `m` labels, incomplete with probability `p_missing` per label (at
/// least two kept), as a flat rank matrix.
fn random_rankings(rng: &mut Rng, n: usize, m: usize, p_missing: f64) -> Vec<i32> {
    let mut y = Vec::new();
    for _ in 0..n {
        let mut order: Vec<usize> = (0..m).collect();
        rng.shuffle(&mut order);
        let keep = (2..=m).rev().find(|_| rng.uniform() >= p_missing).unwrap_or(2);
        y.extend(crate::data::ranking::ranks_of_order(&order[..keep], m));
    }
    y
}

#[test]
fn pairwise_counts_give_the_exact_kendall_distance_to_the_borda_centre() {
    let mut rng = Rng::new(11);
    let m = 5;
    for _ in 0..50 {
        let n = 1 + rng.below(12);
        let y = random_rankings(&mut rng, n, m, 0.0);
        let v = view(&y, m);
        let crit = MallowsSpread::new(&v).unwrap();
        let samples: Vec<u32> = (0..n as u32).collect();
        let (theta, disc) = crit.theta_of(&samples, &vec![1.0; n]);
        let centre = crate::consensus::borda(&v, None);
        let brute: usize = v.rows().map(|r| kendall_distance(r, &centre).0).sum();
        assert_eq!(disc, brute as f64);
        // With the pseudo-pair, θ is the MLE of a slightly raised mean distance.
        let expect = crate::consensus::mallows::theta_mle((brute as f64 + 0.5) / ((n * 10) as f64 + 1.0) * 10.0, m);
        assert!((theta - expect).abs() <= 1e-8 * (1.0 + expect), "{theta} vs {expect}");
    }
}

#[test]
fn the_incremental_sweep_scores_every_threshold_as_a_fresh_computation_would() {
    // Incomplete rankings, integer weights, repeated attribute values: the sweep's best
    // boundary and score equal the best over all boundaries of sides computed from scratch.
    let mut rng = Rng::new(5);
    for trial in 0..60 {
        let m = 2 + trial % 7;
        let n = 2 + rng.below(40);
        let y = random_rankings(&mut rng, n, m, 0.4);
        let v = view(&y, m);
        let crit = MallowsSpread::new(&v).unwrap();
        let mut values: Vec<f64> = (0..n).map(|_| rng.below(n / 2 + 1) as f64).collect();
        values.sort_by(f64::total_cmp);
        let weights: Vec<f64> = (0..n).map(|_| 1.0 + rng.below(3) as f64).collect();
        let sorted: Vec<SortedSample> =
            (0..n).map(|i| SortedSample { value: values[i], sample: i as u32, weight: weights[i] }).collect();
        let total: f64 = weights.iter().sum();
        let samples: Vec<u32> = (0..n as u32).collect();
        let mut brute: Option<(usize, f64)> = None;
        for k in 1..n {
            if values[k] == values[k - 1] {
                continue;
            }
            let (tl, _) = crit.theta_of(&samples[..k], &weights[..k]);
            let (tr, _) = crit.theta_of(&samples[k..], &weights[k..]);
            let wl: f64 = weights[..k].iter().sum();
            let score = (wl * tl + (total - wl) * tr) / total;
            if brute.is_none_or(|(_, g)| score > g) {
                brute = Some((k, score));
            }
        }
        let fast = crit.best_boundary(&crit.node_stats(&samples, &weights), &sorted, Boundaries::All, f64::NEG_INFINITY);
        match (fast, brute) {
            (Some((fk, fs)), Some((bk, bs))) => {
                assert_eq!(fk, bk, "trial {trial}");
                assert!((fs - bs).abs() <= 1e-9 * (1.0 + bs.abs()), "trial {trial}: {fs} vs {bs}");
            }
            (None, None) => {}
            other => panic!("trial {trial}: {other:?}"),
        }
    }
}

#[test]
fn the_f32_sweep_is_the_f64_sweep_to_the_bit_for_integer_weights() {
    let mut rng = Rng::new(23);
    for trial in 0..60 {
        let m = 2 + trial % 10;
        let n = 2 + rng.below(60);
        let y = random_rankings(&mut rng, n, m, 0.3);
        let v = view(&y, m);
        let crit = MallowsSpread::new(&v).unwrap();
        let values: Vec<f64> = (0..n).map(|_| rng.below(n / 3 + 1) as f64).collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
        let weights: Vec<f64> = (0..n).map(|_| rng.below(4) as f64).collect();
        let samples: Vec<u32> = (0..n as u32).collect();
        let sorted: Vec<SortedSample> =
            order.iter().map(|&i| SortedSample { value: values[i], sample: i as u32, weight: weights[i] }).collect();
        let node = crit.node_stats(&samples, &weights);
        assert!(node.exact_in_f32, "trial {trial}");
        let narrow = crit.sweep::<f32>(&node, &sorted, Boundaries::All, f64::NEG_INFINITY);
        let wide = crit.sweep::<f64>(&node, &sorted, Boundaries::All, f64::NEG_INFINITY);
        assert_eq!(narrow.map(|(k, s)| (k, s.to_bits())), wide.map(|(k, s)| (k, s.to_bits())), "trial {trial}");
        // With a floor too (the score bounds of the two sum types agree as well).
        let floor = narrow.map_or(0.0, |(_, s)| 0.9 * s);
        assert_eq!(
            crit.sweep::<f32>(&node, &sorted, Boundaries::All, floor),
            crit.sweep::<f64>(&node, &sorted, Boundaries::All, floor)
        );
        assert_eq!(crit.best_boundary(&node, &sorted, Boundaries::All, f64::NEG_INFINITY), narrow);
        // Fractional weights (no longer exact in f32) take the f64 sweep.
        let halves: Vec<f64> = weights.iter().map(|w| w + 0.5).collect();
        let node = crit.node_stats(&samples, &halves);
        assert!(!node.exact_in_f32);
        let sorted: Vec<SortedSample> = sorted.iter().map(|s| SortedSample { weight: halves[s.sample as usize], ..*s }).collect();
        assert_eq!(
            crit.best_boundary(&node, &sorted, Boundaries::All, f64::NEG_INFINITY),
            crit.sweep::<f64>(&node, &sorted, Boundaries::All, f64::NEG_INFINITY)
        );
    }
}

#[test]
fn a_floor_skips_only_boundaries_that_cannot_beat_it() {
    // With a floor the sweep must return what it returns without one whenever that beats the
    // floor, and otherwise nothing or a boundary scoring at most the floor. Per boundary
    // (Boundaries::Only), a floor just below its score must not hide it: that checks the score
    // bound at every boundary, not only at the best one.
    let mut rng = Rng::new(31);
    for trial in 0..120 {
        let m = 2 + trial % 8;
        let n = 2 + rng.below(50);
        let y = random_rankings(&mut rng, n, m, if trial % 3 == 0 { 0.0 } else { 0.4 });
        let v = view(&y, m);
        let crit = MallowsSpread::new(&v).unwrap();
        let mut values: Vec<f64> = (0..n).map(|_| rng.below(n / 3 + 2) as f64).collect();
        values.sort_by(f64::total_cmp);
        // Integer weights (the f32 sweep) on even trials, fractional ones (f64) on odd ones.
        let weights: Vec<f64> = (0..n).map(|_| rng.below(3) as f64 + if trial % 2 == 1 { 0.25 } else { 0.0 }).collect();
        let samples: Vec<u32> = (0..n as u32).collect();
        let sorted: Vec<SortedSample> =
            (0..n).map(|i| SortedSample { value: values[i], sample: i as u32, weight: weights[i] }).collect();
        let node = crit.node_stats(&samples, &weights);
        let Some((_, best)) = crit.best_boundary(&node, &sorted, Boundaries::All, f64::NEG_INFINITY) else { continue };
        for floor in [f64::NEG_INFINITY, 0.0, best * 0.5, best - 1e-9, best, best + 1e-9, best * 2.0, rng.uniform() * 2.0 * best]
        {
            let full = crit.best_boundary(&node, &sorted, Boundaries::All, f64::NEG_INFINITY);
            let above = crit.best_boundary(&node, &sorted, Boundaries::All, floor);
            match full {
                Some((_, s)) if s > floor => assert_eq!(above, full, "trial {trial} floor {floor}"),
                _ => assert!(above.is_none_or(|(_, s)| s <= floor), "trial {trial} floor {floor}: {above:?}"),
            }
        }
        for k in (1..n).filter(|&k| values[k] != values[k - 1]) {
            let Some((_, s)) = crit.best_boundary(&node, &sorted, Boundaries::Only(k), f64::NEG_INFINITY) else { continue };
            let just_below = s - 1e-9 * (1.0 + s);
            assert_eq!(crit.best_boundary(&node, &sorted, Boundaries::Only(k), just_below), Some((k, s)), "trial {trial} k {k}");
        }
    }
}

#[test]
fn fast_split_search_agrees_with_the_slow_definition_on_small_data() {
    // Slow definition: try every threshold, fit each side's Mallows model by the EM median and
    // score (|T+| θ+ + |T-| θ-) / |T| with θ from the mean distance of the *completions*.
    let mut rng = Rng::new(4);
    let m = 4;
    let mut agree = 0;
    let trials = 40;
    for _ in 0..trials {
        let n = 12;
        let mut values = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let v = i as f64;
            values.push(v);
            let base: [i32; 4] = if (v as usize) < 4 + rng.below(5) { [1, 2, 3, 4] } else { [4, 3, 2, 1] };
            let mut r = base;
            if rng.uniform() < 0.3 {
                let a = rng.below(4);
                let b = rng.below(4);
                r.swap(a, b);
            }
            y.extend(r);
        }
        let v = view(&y, m);
        let crit = MallowsSpread::new(&v).unwrap();
        let sorted: Vec<SortedSample> =
            (0..n).map(|i| SortedSample { value: values[i], sample: i as u32, weight: 1.0 }).collect();
        let all: Vec<u32> = (0..n as u32).collect();
        let (fast_k, _) =
            crit.best_boundary(&crit.node_stats(&all, &[1.0; 12]), &sorted, Boundaries::All, f64::NEG_INFINITY).unwrap();
        let side = |idx: std::ops::Range<usize>| {
            let rows: Vec<i32> = idx.clone().flat_map(|i| y[i * m..(i + 1) * m].to_vec()).collect();
            let fit = fit_mallows(&view(&rows, m), None, 20).unwrap();
            let d: usize = rows.chunks(m).map(|r| kendall_distance(r, &fit.centre).0).sum();
            let mean = (d as f64 + 0.5) / (idx.len() as f64 * 6.0 + 1.0) * 6.0;
            theta_mle(mean, m)
        };
        let slow_k = (1..n)
            .map(|k| (k, (k as f64 * side(0..k) + (n - k) as f64 * side(k..n)) / n as f64))
            .fold((0, f64::MIN), |best, c| if c.1 > best.1 + 1e-12 { c } else { best })
            .0;
        agree += (fast_k == slow_k) as usize;
    }
    // Borda centres equal EM centres almost always on such data; allow a few differences.
    assert!(agree * 10 >= trials * 9, "{agree}/{trials}");
}

fn fit_tree(x: &[f64], y: &[i32], d: usize, m: usize, params: LabelTreeParams) -> LabelTreeModel {
    let n = x.len() / d;
    LabelTreeModel::fit_views(&FeatureMatrixView::new(x, n, d).unwrap(), &RankMatrixView::new(y, n, m).unwrap(), None, params)
        .unwrap()
}

#[test]
fn learns_a_piecewise_ranking_function_and_stops_on_pure_or_small_nodes() {
    let mut rng = Rng::new(8);
    let (n, m) = (400, 3);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b) = (rng.uniform(), rng.uniform());
        x.extend([a, b]);
        y.extend(match (a > 0.5, b > 0.3) {
            (true, true) => [1, 2, 3],
            (true, false) => [2, 1, 3],
            (false, true) => [3, 1, 2],
            (false, false) => [3, 2, 1],
        });
    }
    let model = fit_tree(&x, &y, 2, m, LabelTreeParams::default());
    let (pred, theta) = model.predict_with_confidence(&FeatureMatrixView::new(&x, n, 2).unwrap()).unwrap();
    assert_eq!(pred, y, "pure regions are learnt exactly");
    assert!(theta.iter().all(|t| t.is_infinite()), "every leaf is pure");
    assert!(model.tree.n_leaves() <= 8, "{} leaves", model.tree.n_leaves());
    // Fewer than 2m = 6 examples: the root is a leaf.
    let small = fit_tree(&x[..10], &y[..15], 2, m, LabelTreeParams::default());
    assert_eq!(small.tree.n_leaves(), 1);
}

#[test]
fn leaves_missing_labels_are_completed_from_the_parent() {
    // Left half: rankings over labels {0, 1} only, 1 > 0; right half: complete 2 > 0 > 1.
    // The root (all rows) places label 2 first; the left leaf never saw label 2, so it must get
    // label 2 where the root's ranking puts it relative to 1 > 0.
    let n = 16;
    let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let mut y = Vec::new();
    for i in 0..n {
        y.extend(if i < 8 { [2, 1, 0] } else { [2, 3, 1] });
    }
    let model = fit_tree(&x, &y, 1, 3, LabelTreeParams::default());
    assert_eq!(model.tree.n_leaves(), 2);
    let (pred, _) = model.predict_with_confidence(&FeatureMatrixView::new(&[0.0, 15.0], 2, 1).unwrap()).unwrap();
    assert_eq!(&pred[3..], &[2, 3, 1]);
    // Root centre: label 2 first (it beats 0 and 1 in the right half, is absent on the left).
    let root = fit_mallows(&view(&y, 3), None, 20).unwrap().centre;
    assert_eq!(root[2], 1);
    assert_eq!(&pred[..3], &optimal_insertion(&[2, 1, 0], &root)[..]);
}

#[test]
fn deterministic_and_validates_input() {
    let x: Vec<f64> = (0..40).map(|i| ((i * 7) % 13) as f64).collect();
    let y: Vec<i32> = (0..40).flat_map(|i| if i % 3 == 0 { [1, 2] } else { [2, 1] }).collect();
    let a = fit_tree(&x, &y, 1, 2, LabelTreeParams::default());
    let b = fit_tree(&x, &y, 1, 2, LabelTreeParams::default());
    assert_eq!(a, b);
    let err = LabelTreeModel::fit_views(
        &FeatureMatrixView::new(&[0.0, 1.0], 2, 1).unwrap(),
        &RankMatrixView::new(&[1, 2, 0, 0], 2, 2).unwrap(),
        None,
        LabelTreeParams::default(),
    )
    .unwrap_err();
    assert!(matches!(err, LrankError::InvalidRanking { row: 1, .. }));
    assert!(a.predict_with_confidence(&FeatureMatrixView::new(&[0.0, 1.0], 1, 2).unwrap()).is_err());
}

#[test]
fn models_with_infinite_spreads_survive_json_and_binary_files() {
    use crate::model_io::{from_binary, from_json, to_binary, to_json, SavedModel};
    use crate::registry::Model;
    let x: Vec<f64> = (0..16).map(|i| i as f64).collect();
    let y: Vec<i32> = (0..16).flat_map(|i| if i < 8 { [1, 2, 3] } else { [3, 2, 1] }).collect();
    let model = fit_tree(&x, &y, 1, 3, LabelTreeParams::default());
    assert!(model.tree.leaves.iter().all(|l| l.theta.is_infinite()));
    let saved = SavedModel { metadata: "{}".into(), model: Model::LabelTree(model) };
    assert_eq!(from_json(&to_json(&saved).unwrap()).unwrap(), saved);
    assert_eq!(from_binary(&to_binary(&saved).unwrap()).unwrap(), saved);
}

#[test]
fn the_same_tree_for_any_number_of_threads() {
    // Large enough for parallel subtrees and parallel feature scoring (where no feature's sweep
    // has the floor of the features before it). The last feature copies the first, so exact
    // ties between features occur at every node: the first scored must win either way.
    let mut rng = Rng::new(12);
    let (n, d, m) = (6000, 4, 4);
    let mut x: Vec<f64> = (0..n * d).map(|_| rng.below(500) as f64).collect();
    for i in 0..n {
        x[i * d + 3] = x[i * d];
    }
    let y: Vec<i32> = (0..n)
        .flat_map(|i| {
            let mut r = if x[i * d] + x[i * d + 1] > 500.0 { [1, 2, 3, 4] } else { [4, 3, 2, 1] };
            if rng.uniform() < 0.3 {
                r.swap(rng.below(4), rng.below(4));
            }
            r
        })
        .collect();
    let fit = |threads| {
        crate::parallel::with_threads(Some(threads), || fit_tree(&x, &y, d, m, LabelTreeParams { seed: 7, ..Default::default() }))
            .unwrap()
    };
    let one = fit(1);
    assert!(one.tree.n_leaves() > 50, "{} leaves", one.tree.n_leaves());
    assert_eq!(one, fit(2));
    assert_eq!(one, fit(3));
}

#[test]
fn nominal_features_split_one_value_against_the_rest() {
    use crate::data::features::FeatureKind;
    use crate::tree::Node;
    // Code 1 of a three-valued nominal feature has its own ranking; codes 0 and 2 share one.
    // Thresholds on the codes need two splits; one value against the rest needs one.
    let n = 60;
    let x: Vec<f64> = (0..n).map(|i| (i % 3) as f64).collect();
    let y: Vec<i32> = (0..n).flat_map(|i| if i % 3 == 1 { [1, 2, 3] } else { [3, 2, 1] }).collect();
    let kinds = [FeatureKind::Nominal];
    let xv = FeatureMatrixView::new(&x, n, 1).unwrap().with_kinds(Some(&kinds)).unwrap();
    let yv = RankMatrixView::new(&y, n, 3).unwrap();
    let nominal = LabelTreeModel::fit_views(&xv, &yv, None, LabelTreeParams::default()).unwrap();
    assert_eq!(nominal.tree.nodes[0], Node::Category { feature: 0, value: 1.0, left: 1, right: 2 });
    assert_eq!(nominal.tree.depth(), 1);
    let (pred, _) = nominal.predict_with_confidence(&FeatureMatrixView::new(&[1.0, 2.0, 7.0], 3, 1).unwrap()).unwrap();
    // An unseen code goes with "the rest".
    assert_eq!(pred, vec![1, 2, 3, 3, 2, 1, 3, 2, 1]);
    let numeric = fit_tree(&x, &y, 1, 3, LabelTreeParams::default());
    assert_eq!(numeric.tree.depth(), 2);
}

#[test]
fn unsupervised_thresholds_sit_at_the_range_midpoint_or_the_median() {
    use crate::tree::Node;
    // x = 0, 1, 2, 4, 8, ..., skewed; the ranking flips at x > 1, which neither rule finds,
    // but each rule must put the root's threshold where it says.
    let xs = [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 100.0];
    let n = 72;
    let x: Vec<f64> = (0..n).map(|i| xs[i % 9]).collect();
    let y: Vec<i32> = (0..n).flat_map(|i| if xs[i % 9] > 1.0 { [1, 2, 3] } else { [3, 1, 2] }).collect();
    let root_threshold =
        |rule| match fit_tree(&x, &y, 1, 3, LabelTreeParams { threshold_rule: rule, ..Default::default() }).tree.nodes[0] {
            Node::Split { threshold, .. } => threshold,
            other => panic!("{other:?}"),
        };
    assert_eq!(root_threshold(ThresholdRule::EqualWidth), 50.0);
    // Lower median of the values (8), halfway to the next value (16).
    assert_eq!(root_threshold(ThresholdRule::EqualFrequency), 12.0);
    assert_eq!(root_threshold(ThresholdRule::Best), 1.5);
}

#[test]
fn a_leaf_spread_is_the_mallows_mle_of_its_rankings() {
    // A root-only tree: its leaf holds every ranking (some incomplete), and its θ (read from
    // the table) is the MLE that fit_mallows solves for, to within 1e-8.
    let mut rng = crate::rng::Rng::new(11);
    let (n, d, m) = (60, 2, 5);
    let x: Vec<f64> = (0..n * d).map(|_| rng.uniform()).collect();
    let mut y = Vec::new();
    for i in 0..n {
        let mut order: Vec<usize> = (0..m).collect();
        for j in (1..m).rev() {
            if rng.uniform() < 0.4 {
                order.swap(j, rng.below(j + 1));
            }
        }
        y.extend(crate::data::ranking::ranks_of_order(&order[..if i % 3 == 0 { 3 } else { m }], m));
    }
    let model = fit_tree(&x, &y, d, m, LabelTreeParams { max_depth: Some(0), ..Default::default() });
    let expect = fit_mallows(&view(&y, m), None, 20).unwrap();
    let leaf = &model.tree.leaves[0];
    assert_eq!(leaf.ranking, expect.centre);
    assert!((leaf.theta - expect.theta).abs() <= 1e-8 * (1.0 + expect.theta), "{} vs {}", leaf.theta, expect.theta);
}

#[test]
fn leaves_lacking_labels_are_completed_through_every_ancestor() {
    // The slow definition: route the training rows down the fitted tree, fit every node's model
    // from its rows (labels it lacks inserted into its parent's ranking), compare with the
    // leaves. The tree fits a splitting node's model only when a child lacks a label; this must
    // not change any leaf, however deep the missing labels go.
    #[allow(clippy::too_many_arguments)]
    fn reference(
        model: &LabelTreeModel,
        x: &[f64],
        y: &[i32],
        d: usize,
        m: usize,
        node: usize,
        rows: Vec<usize>,
        parent: Option<&[i32]>,
    ) {
        let ys: Vec<i32> = rows.iter().flat_map(|&i| y[i * m..(i + 1) * m].to_vec()).collect();
        let centre = fit_mallows(&view(&ys, m), None, 20).unwrap().centre;
        let present: Vec<bool> = (0..m).map(|j| rows.iter().any(|&i| y[i * m + j] > 0)).collect();
        let mut own: Vec<usize> = (0..m).filter(|&j| present[j]).collect();
        own.sort_by_key(|&j| centre[j]);
        let mut incomplete = vec![0i32; m];
        for (pos, &j) in own.iter().enumerate() {
            incomplete[j] = pos as i32 + 1;
        }
        let ranking = match parent {
            Some(p) if own.len() < m => optimal_insertion(&incomplete, p),
            _ => complete_in_index_order(&incomplete),
        };
        match model.tree.nodes[node] {
            Node::Leaf { leaf } => assert_eq!(model.tree.leaves[leaf as usize].ranking, ranking, "leaf {leaf}"),
            Node::Split { feature, threshold, left, right } => {
                let (l, r): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&i| x[i * d + feature as usize] <= threshold);
                reference(model, x, y, d, m, left as usize, l, Some(&ranking));
                reference(model, x, y, d, m, right as usize, r, Some(&ranking));
            }
            Node::Category { .. } => unreachable!("numeric features only"),
        }
    }
    let (n, d, m) = (120, 2, 5);
    for seed in 0..12 {
        let mut rng = Rng::new(100 + seed);
        let x: Vec<f64> = (0..n * d).map(|_| rng.uniform()).collect();
        let mut y = Vec::new();
        for i in 0..n {
            // Rankings that depend on x, each keeping 1 to m labels (most lose several).
            let mut order: Vec<usize> = if x[i * d] < 0.5 { (0..m).collect() } else { (0..m).rev().collect() };
            order.swap(rng.below(m), rng.below(m));
            let mut kept: Vec<usize> = order.into_iter().filter(|_| rng.uniform() < 0.45).collect();
            if kept.is_empty() {
                kept.push(rng.below(m));
            }
            let mut row = vec![0i32; m];
            for (pos, &j) in kept.iter().enumerate() {
                row[j] = pos as i32 + 1;
            }
            y.extend(row);
        }
        let model = fit_tree(&x, &y, d, m, LabelTreeParams { min_weight_split: Some(4.0), ..Default::default() });
        assert!(model.tree.depth() >= 3, "seed {seed}: a deep enough tree");
        reference(&model, &x, &y, d, m, 0, (0..n).collect(), None);
    }
}

/// Noisy rankings of 4 labels by two features' utilities, and a third, irrelevant feature.
fn noisy_problem(n: usize, seed: u64) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (a, b, c) = (rng.uniform(), rng.uniform(), rng.uniform());
        let utilities = [a, b, 1.0 - a, 0.5 + 0.3 * rng.uniform()];
        let mut order: Vec<usize> = (0..4).collect();
        order.sort_by(|&i, &j| utilities[j].total_cmp(&utilities[i]));
        x.extend([a, b, c]);
        y.extend(crate::data::ranking::ranks_of_order(&order, 4));
    }
    (x, y)
}

#[test]
fn min_weight_leaf_keeps_that_much_weight_on_each_side_of_every_split() {
    let (x, y) = noisy_problem(300, 21);
    let free = fit_tree(&x, &y, 3, 4, LabelTreeParams { min_weight_split: Some(2.0), ..Default::default() });
    assert!(free.tree.leaves.iter().any(|l| l.weight < 15.0), "without it, small leaves");
    for (min_leaf, resolved) in [(15.0, 15.0), (0.05, 0.05 * 300.0)] {
        let params = LabelTreeParams { min_weight_split: Some(2.0), min_weight_leaf: min_leaf, ..Default::default() };
        let tree = fit_tree(&x, &y, 3, 4, params);
        assert!(tree.tree.n_leaves() > 2, "still splits");
        assert!(tree.tree.leaves.iter().all(|l| l.weight >= resolved), "{min_leaf}");
    }
}

#[test]
fn max_features_draws_the_features_of_each_node_from_the_seed() {
    let (x, y) = noisy_problem(300, 22);
    let with = |max_features, seed| {
        fit_tree(&x, &y, 3, 4, LabelTreeParams { max_features, seed, min_weight_split: Some(2.0), ..Default::default() }).tree
    };
    let all = with(MaxFeatures::All, 0);
    let one = with(MaxFeatures::Count(1), 0);
    assert_ne!(all, one, "one feature per node grows another tree");
    assert_eq!(one, with(MaxFeatures::Count(1), 0), "the same seed, the same tree");
    assert_ne!(one, with(MaxFeatures::Count(1), 5), "another seed, other draws");
}
