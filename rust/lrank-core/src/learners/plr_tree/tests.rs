use super::*;
use crate::data::features::FeatureMatrixView;
use crate::data::ranking::RankMatrixView;
use crate::learner::fit_checked;
use crate::parallel::with_threads;
use crate::rng::Rng;
use crate::tree::{Boundaries, SortedSample, SplitCriterion};

fn criterion(codes: &PairCodes, kind: PlrCriterion) -> PairOrderImpurity<'_> {
    PairOrderImpurity::new(codes, kind, BucketConsensus::BPA, 40)
}

#[test]
fn impurities_by_hand() {
    // Pairs (0,1): before, before, tied, after; (0,2) and (1,2): always before.
    let y = [1, 2, 3, 1, 2, 3, 1, 1, 2, 2, 1, 3];
    let v = RankMatrixView::new(&y, 4, 3).unwrap();
    let codes = PairCodes::new(&v);
    let counts = codes.counts(&[0, 1, 2, 3], &[1.0; 4]);
    assert_eq!(counts, vec![2.0, 1.0, 1.0, 4.0, 0.0, 0.0, 4.0, 0.0, 0.0]);
    // entropy of (1/2, 1/4, 1/4) = 1.5 ln 2 for one pair of three
    let e = criterion(&codes, PlrCriterion::Entropy).impurity(&counts);
    assert!((e - 1.5 * 2f64.ln() / 3.0).abs() < 1e-12, "{e}");
    // C_01 = 5/8 lies within beta of 1/2: BPA ties 0 and 1 ({0,1} > {2}); the tie disagrees with
    // the 2 "before" and the 1 "after" rows: 3/4 for that pair, 0 for the others.
    assert_eq!(BucketConsensus::BPA.of_matrix(&codes.matrix(&counts)), vec![1, 1, 2]);
    let d = criterion(&codes, PlrCriterion::Disagreements).impurity(&counts);
    assert!((d - 0.75 / 3.0).abs() < 1e-12, "{d}");
    let dist = criterion(&codes, PlrCriterion::Distance).impurity(&counts);
    assert!((dist - 0.75).abs() < 1e-12, "{dist}");
    // When the consensus orders 0 before 1 (weights push it past 3/4), a tie row disagrees once
    // and an "after" row twice for distance.
    let counts = codes.counts(&[0, 1, 2, 3], &[4.0, 4.0, 1.0, 1.0]);
    assert_eq!(BucketConsensus::BPA.of_matrix(&codes.matrix(&counts)), vec![1, 2, 3]);
    let dist = criterion(&codes, PlrCriterion::Distance).impurity(&counts);
    assert!((dist - (1.0 + 2.0) / 10.0).abs() < 1e-12, "{dist}");
    let d = criterion(&codes, PlrCriterion::Disagreements).impurity(&counts);
    assert!((d - 0.2 / 3.0).abs() < 1e-12, "{d}");
}

#[test]
fn the_sweep_scores_every_boundary_as_the_definition_does() {
    let mut rng = Rng::new(4);
    for kind in [PlrCriterion::Entropy, PlrCriterion::Disagreements, PlrCriterion::Distance] {
        for trial in 0..40 {
            // Even trials: complete rankings (the entropy's fast path); odd: labels missing too.
            let (n, m, missing) = (12, 4, trial % 2 == 1);
            let y: Vec<i32> = (0..n)
                .flat_map(|_| {
                    let raw: Vec<i32> =
                        (0..m).map(|_| if missing && rng.below(6) == 0 { 0 } else { 1 + rng.below(3) as i32 }).collect();
                    let mut d: Vec<i32> = raw.iter().copied().filter(|&v| v > 0).collect();
                    d.sort_unstable();
                    d.dedup();
                    raw.iter().map(|&v| if v > 0 { d.binary_search(&v).unwrap() as i32 + 1 } else { 0 }).collect::<Vec<_>>()
                })
                .collect();
            let v = RankMatrixView::new(&y, n, m).unwrap();
            let codes = PairCodes::new(&v);
            let crit = criterion(&codes, kind);
            let weights: Vec<f64> = (0..n).map(|_| 1.0 + rng.below(3) as f64).collect();
            let samples: Vec<u32> = (0..n as u32).collect();
            let sorted: Vec<SortedSample> =
                samples.iter().map(|&s| SortedSample { value: s as f64, sample: s, weight: weights[s as usize] }).collect();
            let node = crit.node_stats(&samples, &weights);
            let total: f64 = weights.iter().sum();
            let brute = |k: usize| {
                let (l, r) = samples.split_at(k);
                let (wl, wr) = weights.split_at(k);
                let il = crit.impurity(&codes.counts(l, wl));
                let ir = crit.impurity(&codes.counts(r, wr));
                crit.impurity(&codes.counts(&samples, &weights))
                    - (wl.iter().sum::<f64>() * il + wr.iter().sum::<f64>() * ir) / total
            };
            for k in 1..n {
                let (got_k, score) = crit.best_boundary(&node, &sorted, Boundaries::Only(k), f64::NEG_INFINITY).unwrap();
                assert_eq!(got_k, k);
                assert!((score - brute(k)).abs() < 1e-9, "{kind:?} k={k}: {score} vs {}", brute(k));
            }
        }
    }
}

/// Two groups by feature 0: the first ranks {0} > {1, 2}, the second {2} > {0, 1}.
fn grouped() -> (Vec<f64>, Vec<i32>, usize) {
    let n = 40;
    let x: Vec<f64> = (0..n).flat_map(|i| [i as f64, ((i * 7) % 5) as f64]).collect();
    let y: Vec<i32> = (0..n).flat_map(|i| if i < 20 { [1, 2, 2] } else { [2, 2, 1] }).collect();
    (x, y, n)
}

#[test]
fn a_tree_separates_tied_groups_and_predicts_their_bucket_orders() {
    let (x, y, n) = grouped();
    let (xv, yv) = (FeatureMatrixView::new(&x, n, 2).unwrap(), RankMatrixView::new(&y, n, 3).unwrap());
    for kind in [PlrCriterion::Entropy, PlrCriterion::Disagreements, PlrCriterion::Distance] {
        let params = PlrTreeParams { criterion: kind, ..PlrTreeParams::tree() };
        let model = fit_checked::<PlrTreeModel>(params, xv, yv, None).unwrap();
        assert_eq!(model.trees[0].depth(), 1, "{kind:?}");
        let test = [3.0, 0.0, 30.0, 0.0];
        let pred = model.predict_ranks(&FeatureMatrixView::new(&test, 2, 2).unwrap()).unwrap();
        assert_eq!(pred, vec![1, 2, 2, 2, 2, 1]);
        assert!(model.check().is_ok());
    }
}

#[test]
fn a_forest_is_the_same_for_any_thread_count_and_checks_itself() {
    let (x, y, n) = grouped();
    let (xv, yv) = (FeatureMatrixView::new(&x, n, 2).unwrap(), RankMatrixView::new(&y, n, 3).unwrap());
    let params = PlrTreeParams { n_estimators: 8, seed: 3, ..PlrTreeParams::forest() };
    let one = with_threads(Some(1), || fit_checked::<PlrTreeModel>(params.clone(), xv, yv, None)).unwrap().unwrap();
    let two = with_threads(Some(2), || fit_checked::<PlrTreeModel>(params.clone(), xv, yv, None)).unwrap().unwrap();
    assert_eq!(one, two);
    assert_eq!(one.trees.len(), 8);
    let members = one.member_ranks(&xv).unwrap().unwrap();
    assert_eq!(members.len(), 8 * n * 3);
    let pred = one.predict_ranks(&xv).unwrap();
    // the forest's prediction is the BPA consensus of its trees' orders
    for i in 0..n {
        let rows: Vec<i32> = (0..8).flat_map(|t| members[(t * n + i) * 3..(t * n + i + 1) * 3].to_vec()).collect();
        let expect = BucketConsensus::BPA.aggregate(&RankMatrixView::new(&rows, 8, 3).unwrap(), None).unwrap();
        assert_eq!(&pred[i * 3..i * 3 + 3], &expect[..]);
    }
    let mut bad = one.clone();
    bad.trees[0].leaves[0].order = vec![1, 3, 3];
    assert!(bad.check().unwrap_err().contains("leaf bucket order"));
    assert!(PlrTreeParams { n_estimators: 0, ..PlrTreeParams::tree() }.validate().is_err());
    let bad_beta = PlrTreeParams { consensus: BucketConsensus { beta: 0.7, ..BucketConsensus::BPA }, ..PlrTreeParams::tree() };
    assert!(bad_beta.validate().is_err());
}

#[test]
fn a_pair_a_node_never_observes_takes_its_parents_relation_not_a_tie() {
    use crate::tree::LeafFitter;
    // Rows 0 and 1 rank labels 0 > 1 and 2 > 3 only; pairs across {0, 1} and {2, 3} are unseen.
    let y = [1, 2, 0, 0, 0, 0, 1, 2, 1, 2, 3, 4];
    let yv = RankMatrixView::new(&y, 3, 4).unwrap();
    let codes = super::criterion::PairCodes::new(&yv);
    let leaf = super::ConsensusLeaf { codes: &codes, consensus: crate::consensus::BucketConsensus::BPA };
    assert!(leaf.uses_parent(), "incomplete rankings: nodes build on their parents");
    let w = [1.0, 1.0];
    // Without a parent (the root's case) an unseen pair counts 1/2, as the published formula.
    let alone = leaf.fit_node(&[0, 1], &w, None).order;
    // With a parent that orders 2, 3 before 0, 1, the unseen pairs follow it.
    let parent = BucketLeaf { order: vec![3, 4, 1, 2] };
    let built = leaf.fit_node(&[0, 1], &w, Some(&parent)).order;
    assert_eq!(built, vec![3, 4, 1, 2], "alone: {alone:?}");
    assert_ne!(alone, built);
    // Observed pairs keep their own counts whatever the parent says.
    let reversed = BucketLeaf { order: vec![4, 3, 2, 1] };
    let built = leaf.fit_node(&[0, 1], &w, Some(&reversed)).order;
    assert!(built[0] < built[1] && built[2] < built[3], "{built:?}");
    // Complete rankings observe every pair: trees are grown as before, without parents.
    let complete = [1, 2, 3, 4, 2, 1, 3, 4];
    let codes = super::criterion::PairCodes::new(&RankMatrixView::new(&complete, 2, 4).unwrap());
    assert!(!super::ConsensusLeaf { codes: &codes, consensus: crate::consensus::BucketConsensus::BPA }.uses_parent());
}

#[test]
fn histograms_with_a_bin_per_value_grow_the_exact_trees_for_every_criterion() {
    use crate::tree::histogram_tests::{problem, same_trees};
    use crate::tree::{TreeInputs, MAX_BINS};
    let mut rng = Rng::new(43);
    let mut nodes = 0;
    for trial in 0..18 {
        let kind = [PlrCriterion::Entropy, PlrCriterion::Disagreements, PlrCriterion::Distance][trial % 3];
        let (n, d, m) = (30 + rng.below(300), 1 + trial % 4, 3 + trial % 3);
        let (xs, kinds, strict) = problem(&mut rng, n, d, m, trial % 2 == 0);
        // Ties: each row merges two neighbouring positions now and then (dense positions kept);
        // the problem's incomplete rows (a quarter) stay incomplete.
        let y: Vec<i32> = strict
            .chunks(m)
            .flat_map(|r| {
                let mut r = r.to_vec();
                if rng.below(2) == 0 {
                    let cut = 2 + rng.below(m - 1) as i32;
                    r.iter_mut().filter(|p| **p >= cut).for_each(|p| *p -= 1);
                }
                r
            })
            .collect();
        let view = FeatureMatrixView::new(&xs, n, d).unwrap().with_kinds(Some(&kinds)).unwrap();
        let x = TreeInputs::binned(&view, Some(MAX_BINS)).features;
        let codes = PairCodes::new(&RankMatrixView::new(&y, n, m).unwrap());
        // Every other trial with complete rankings only: the entropy's integer sides.
        let codes = if trial % 2 == 1 {
            let complete: Vec<i32> = y.chunks(m).flat_map(|r| if r.contains(&0) { vec![1; m] } else { r.to_vec() }).collect();
            PairCodes::new(&RankMatrixView::new(&complete, n, m).unwrap())
        } else {
            codes
        };
        let crit = PairOrderImpurity::new(&codes, kind, BucketConsensus::BPA, 4 * n);
        nodes += same_trees(&x, &crit, &mut rng, 1 + trial % d);
    }
    assert!(nodes > 500, "trees worth comparing: {nodes} nodes");
}

/// n rows of 3 features with few distinct values (at most 40: a bin each) and 4-label bucket
/// orders that depend on them, some with a label missing.
pub(crate) fn few_valued_plr_problem(n: usize, seed: u64) -> (Vec<f64>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let mut x = Vec::with_capacity(3 * n);
    let mut y = Vec::with_capacity(4 * n);
    for _ in 0..n {
        let row = [rng.below(40) as f64, rng.below(7) as f64 * 0.5, rng.below(3) as f64];
        x.extend(row);
        let first = if row[0] + rng.below(8) as f64 > 22.0 { [1, 2, 2, 3] } else { [3, 1, 2, 2] };
        let mut r = if row[1] > 1.5 { first } else { [first[3], first[2], first[1], first[0]] };
        if rng.below(5) == 0 {
            // A label missing; the positions made dense again.
            r[rng.below(4)] = 0;
            let mut kept: Vec<i32> = r.iter().copied().filter(|&p| p > 0).collect();
            kept.sort_unstable();
            kept.dedup();
            r.iter_mut().filter(|p| **p > 0).for_each(|p| *p = kept.binary_search(p).unwrap() as i32 + 1);
        }
        y.extend(r);
    }
    (x, y)
}

#[test]
fn a_forest_with_a_bin_per_value_is_the_exact_forest() {
    let n = 300;
    let (x, y) = few_valued_plr_problem(n, 8);
    let (xv, yv) = (FeatureMatrixView::new(&x, n, 3).unwrap(), RankMatrixView::new(&y, n, 4).unwrap());
    for criterion in [PlrCriterion::Entropy, PlrCriterion::Disagreements] {
        let exact = PlrTreeParams { n_estimators: 6, seed: 2, criterion, ..PlrTreeParams::forest() };
        let binned = PlrTreeParams { max_bins: Some(255), ..exact.clone() };
        let a = fit_checked::<PlrTreeModel>(exact, xv, yv, None).unwrap();
        let b = fit_checked::<PlrTreeModel>(binned, xv, yv, None).unwrap();
        assert_eq!(a.trees, b.trees, "{criterion:?}");
        // Coarser bins are another search: some tree differs.
        let coarse = PlrTreeParams { max_bins: Some(4), ..a.params.clone() };
        assert_ne!(a.trees, fit_checked::<PlrTreeModel>(coarse, xv, yv, None).unwrap().trees);
    }
    assert!(PlrTreeParams { max_bins: Some(1), ..PlrTreeParams::tree() }.validate().is_err());
}

/// Rows of [`few_valued_plr_problem`]'s features, more than two blocks of the smallest size (one
/// and two threads cut them differently), every seventh value missing.
pub(crate) fn plr_query_rows(seed: u64) -> (Vec<f64>, usize) {
    let n = 2 * crate::learner::PREDICT_BLOCK_ROWS * 8 + 77;
    let (mut x, _) = few_valued_plr_problem(n, seed);
    x.iter_mut().step_by(7).for_each(|v| *v = f64::NAN);
    (x, n)
}

/// Asserts that `model` predicts `reference(model, rows)` (ranks and scores of the first `rows`
/// rows of `q`, 3 features): for one row alone (too few to lay its trees out), then for all `n` at
/// 1 to 3 threads (through flat trees).
pub(crate) fn assert_predicts_as<L: Learner>(
    model: &L,
    q: &[f64],
    n: usize,
    reference: impl Fn(&L, usize) -> (Vec<i32>, Vec<f64>),
) {
    let one_row = FeatureMatrixView::new(&q[..3], 1, 3).unwrap();
    let (ranks, scores) = reference(model, 1);
    assert_eq!((model.predict_ranks(&one_row).unwrap(), model.predict_scores(&one_row).unwrap()), (ranks, scores));
    let qv = FeatureMatrixView::new(q, n, 3).unwrap();
    let (ranks, scores) = reference(model, n);
    for threads in [1, 2, 3] {
        assert_eq!(with_threads(Some(threads), || model.predict_ranks(&qv).unwrap()).unwrap(), ranks, "{threads}");
    }
    assert_eq!(model.predict_scores(&qv).unwrap(), scores);
}

#[test]
fn forest_predictions_in_blocks_and_flat_trees_equal_each_row_alone() {
    let (x, y) = few_valued_plr_problem(300, 8);
    let (xv, yv) = (FeatureMatrixView::new(&x, 300, 3).unwrap(), RankMatrixView::new(&y, 300, 4).unwrap());
    let (q, n) = plr_query_rows(9);
    let qv = FeatureMatrixView::new(&q, n, 3).unwrap();
    // Each row's trees walked node by node, their leaf orders counted in tree order.
    let reference = |model: &PlrTreeModel, rows: usize| -> Vec<i32> {
        let mut counts = PairOrderCounts::new(4);
        (0..rows)
            .flat_map(|i| {
                if let [tree] = &model.trees[..] {
                    return tree.leaf_for(qv.row(i), &model.fill_values).order.clone();
                }
                counts.clear();
                model.trees.iter().for_each(|t| counts.add(&t.leaf_for(qv.row(i), &model.fill_values).order, 1.0));
                model.params.consensus.of_matrix(&counts.matrix())
            })
            .collect()
    };
    let forest = PlrTreeParams { n_estimators: 7, seed: 3, ..PlrTreeParams::forest() };
    for params in [PlrTreeParams::tree(), forest.clone(), PlrTreeParams { max_bins: Some(16), ..forest.clone() }] {
        let model = fit_checked::<PlrTreeModel>(params, xv, yv, None).unwrap();
        // One row first: too few to lay the trees out; then all of them, through flat trees.
        let one_row = FeatureMatrixView::new(&q[..3], 1, 3).unwrap();
        assert_eq!(model.predict_ranks(&one_row).unwrap(), reference(&model, 1));
        let expected = reference(&model, n);
        for threads in [1, 2, 3] {
            assert_eq!(with_threads(Some(threads), || model.predict_ranks(&qv).unwrap()).unwrap(), expected, "{threads}");
        }
        assert!(model.flat.of(model.trees.iter(), 0).iter().all(|f| f.is_some()), "laid out");
    }
    // A merge adds trees: its predictions route through all of them.
    let a = fit_checked::<PlrTreeModel>(forest.clone(), xv, yv, None).unwrap();
    a.predict_ranks(&qv).unwrap();
    let b = fit_checked::<PlrTreeModel>(PlrTreeParams { seed: 4, ..forest }, xv, yv, None).unwrap();
    let merged = PlrTreeModel::merge(vec![a, b], vec![0.0; 3]).unwrap();
    assert_eq!(merged.trees.len(), 14);
    assert_eq!(merged.predict_ranks(&qv).unwrap(), reference(&merged, n));
}

#[test]
fn min_samples_leaf_bounds_every_leafs_weight_and_zero_changes_nothing() {
    let n = 300;
    let (x, y) = few_valued_plr_problem(n, 11);
    let (xv, yv) = (FeatureMatrixView::new(&x, n, 3).unwrap(), RankMatrixView::new(&y, n, 4).unwrap());
    // Weights 1 to 3: the bound counts weight (in rows of the average weight), not rows.
    let weights: Vec<f64> = (0..n).map(|i| 1.0 + (i % 3) as f64).collect();
    let row_weight = weights.iter().sum::<f64>() / n as f64;
    for (criterion, max_bins) in
        [(PlrCriterion::Entropy, None), (PlrCriterion::Entropy, Some(255)), (PlrCriterion::Distance, Some(8))]
    {
        let free = PlrTreeParams { criterion, max_bins, ..PlrTreeParams::tree() };
        let plain = fit_checked::<PlrTreeModel>(free.clone(), xv, yv, Some(&weights)).unwrap();
        let zero = PlrTreeParams { min_samples_leaf: 0.0, ..free.clone() };
        assert_eq!(plain.trees, fit_checked::<PlrTreeModel>(zero, xv, yv, Some(&weights)).unwrap().trees);
        for min_leaf in [5.0, 20.0] {
            let params = PlrTreeParams { min_samples_leaf: min_leaf, ..free.clone() };
            let tree = &fit_checked::<PlrTreeModel>(params, xv, yv, Some(&weights)).unwrap().trees[0];
            let mut leaf_weight = vec![0.0; tree.leaves.len()];
            for (i, w) in weights.iter().enumerate() {
                leaf_weight[tree.leaf_index_for(xv.row(i), &[0.0; 3])] += w;
            }
            let lightest = leaf_weight.iter().copied().fold(f64::INFINITY, f64::min);
            assert!(lightest >= min_leaf * row_weight * (1.0 - 1e-9), "{criterion:?} {max_bins:?} {min_leaf}: {lightest}");
            assert!(tree.leaves.len() > 1 && tree.leaves.len() < plain.trees[0].leaves.len());
        }
    }
    assert!(PlrTreeParams { min_samples_leaf: -1.0, ..PlrTreeParams::tree() }.validate().is_err());
    assert!(PlrTreeParams { min_samples_leaf: f64::NAN, ..PlrTreeParams::tree() }.validate().is_err());
}
