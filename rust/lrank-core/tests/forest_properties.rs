//! Property tests for the LR-RF forest: fitting, prediction, determinism across thread counts,
//! and model files.

mod common;

use common::*;
use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::{validate_ranking, RankMatrixView};
use lrank_core::learner::Learner;
use lrank_core::learners::random_forest::{ClassMode, RandomForestModel, RandomForestParams};
use lrank_core::model_io::{from_binary, from_json, to_binary, to_json, SavedModel};
use lrank_core::parallel::with_threads;
use lrank_core::registry::Model;
use lrank_core::tree::MaxFeatures;
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Problem {
    n: usize,
    d: usize,
    m: usize,
    x: Vec<f64>,
    y: Vec<i32>,
    /// A few fresh rows to predict (may hold NaN and values outside the training range).
    x_test: Vec<f64>,
    n_test: usize,
    sample_weight: Option<Vec<f64>>,
    params: RandomForestParams,
}

/// A feature value: often from a small grid (ties, constant features), sometimes any float in a
/// range, sometimes missing.
fn feature_value() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => (0i32..4).prop_map(f64::from),
        4 => -10.0f64..10.0,
        1 => Just(f64::NAN),
    ]
}

fn params() -> impl Strategy<Value = RandomForestParams> {
    (
        1usize..=5,
        prop::option::of(0usize..6),
        prop_oneof![
            Just(MaxFeatures::Log2PlusOne),
            Just(MaxFeatures::Sqrt),
            Just(MaxFeatures::All),
            (1usize..5).prop_map(MaxFeatures::Count),
            (0.01f64..=1.0).prop_map(MaxFeatures::Fraction),
        ],
        prop_oneof![Just(ClassMode::TopLabel), Just(ClassMode::Ranking), Just(ClassMode::Pairwise), Just(ClassMode::Auto)],
        any::<bool>(),
        any::<u64>(),
        prop_oneof![Just(0.0), Just(1e-6), 0.0f64..0.5],
        // Exact search, coarse histograms, or a bin per value.
        prop_oneof![Just(None), (2usize..6).prop_map(Some), Just(Some(255))],
        prop_oneof![2 => Just(0.0), 1 => 0.0f64..=1.0],
        any::<bool>(),
    )
        .prop_map(
            |(
                n_estimators,
                max_depth,
                max_features,
                class_mode,
                bootstrap,
                seed,
                entropy_epsilon,
                max_bins,
                leaf_missing,
                node_seeds,
            )| {
                RandomForestParams {
                    n_estimators,
                    max_depth,
                    max_features,
                    class_mode,
                    bootstrap,
                    seed,
                    entropy_epsilon,
                    max_bins,
                    leaf_missing,
                    node_seeds,
                }
            },
        )
}

fn problem() -> impl Strategy<Value = Problem> {
    (10usize..60, 1usize..4, 2usize..5, 1usize..8).prop_flat_map(|(n, d, m, n_test)| {
        (
            prop::collection::vec(feature_value(), n * d),
            prop::collection::vec(prop_oneof![3 => complete(m), 2 => incomplete(m)], n),
            prop::collection::vec(prop_oneof![feature_value(), -100.0f64..100.0], n_test * d),
            prop::option::weighted(0.3, prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..3.0], n)),
            params(),
        )
            .prop_map(move |(x, rows, x_test, mut sample_weight, params)| {
                // All-zero weights are refused by every fit (tested elsewhere): one row counts.
                if let Some(w) = sample_weight.as_mut().filter(|w| w.iter().all(|&v| v == 0.0)) {
                    w[0] = 1.0;
                }
                Problem { n, d, m, x, y: rows.concat(), x_test, n_test, sample_weight, params }
            })
    })
}

fn fit(p: &Problem, threads: usize) -> RandomForestModel {
    let xv = FeatureMatrixView::new(&p.x, p.n, p.d).unwrap();
    let yv = RankMatrixView::new(&p.y, p.n, p.m).unwrap();
    with_threads(Some(threads), || RandomForestModel::fit_views(&xv, &yv, p.sample_weight.as_deref(), p.params.clone()))
        .unwrap()
        .unwrap_or_else(|e| panic!("fit failed: {e}"))
}

fn predict(model: &RandomForestModel, x: &[f64], n: usize, d: usize, threads: usize) -> Vec<i32> {
    let xv = FeatureMatrixView::new(x, n, d).unwrap();
    with_threads(Some(threads), || model.predict_ranks(&xv)).unwrap().unwrap()
}

/// The first difference between two models, briefly (a whole model is too long to print).
fn difference(a: &RandomForestModel, b: &RandomForestModel) -> String {
    if a.params != b.params || (a.n_features, a.n_labels) != (b.n_features, b.n_labels) {
        return format!("params/shape {:?} vs {:?}", a.params, b.params);
    }
    for (f, (x, y)) in a.fill_values.iter().zip(&b.fill_values).enumerate() {
        if x.to_bits() != y.to_bits() {
            return format!("fill value {f}: {x:?} vs {y:?}");
        }
    }
    for (t, (ta, tb)) in a.trees.iter().zip(&b.trees).enumerate() {
        for (k, (na, nb)) in ta.nodes.iter().zip(&tb.nodes).enumerate() {
            if na != nb {
                return format!("tree {t}, node {k}: {na:?} vs {nb:?}");
            }
        }
        if ta != tb {
            return format!("tree {t}: leaves or node count differ");
        }
    }
    if a.trees.len() != b.trees.len() {
        return format!("{} vs {} trees", a.trees.len(), b.trees.len());
    }
    "none".into()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn fit_and_predict_give_complete_rankings_for_any_thread_count(p in problem()) {
        let a = fit(&p, 1);
        let b = fit(&p, 2);
        prop_assert_eq!(&a, &b, "same seed, other thread count, other model");
        prop_assert_eq!(a.trees.len(), p.params.n_estimators);
        prop_assert_eq!((a.n_features, a.n_labels), (p.d, p.m));
        for tree in &a.trees {
            if let Some(max_depth) = p.params.max_depth {
                prop_assert!(tree.depth() <= max_depth);
            }
            for leaf in &tree.leaves {
                prop_assert!(is_complete_ranking(&leaf.ranking), "leaf ranking {:?}", leaf.ranking);
            }
        }

        for (x, n) in [(&p.x, p.n), (&p.x_test, p.n_test)] {
            let pa = predict(&a, x, n, p.d, 1);
            let pb = predict(&b, x, n, p.d, 2);
            prop_assert_eq!(&pa, &pb);
            prop_assert_eq!(pa.len(), n * p.m);
            for row in pa.chunks(p.m) {
                prop_assert!(validate_ranking(row).is_ok() && is_complete_ranking(row), "prediction {:?}", row);
            }
            prop_assert!(RankMatrixView::new(&pa, n, p.m).is_ok());

            // The forest's ranking is the plain Borda consensus of its trees' rankings
            // (integer votes, ties to the lower label index).
            let xv = FeatureMatrixView::new(x, n, p.d).unwrap();
            let per_tree = a.member_ranks(&xv).unwrap().unwrap();
            let t = a.trees.len();
            prop_assert_eq!(per_tree.len(), n * t * p.m);
            for i in 0..n {
                let mut votes = vec![0i64; p.m];
                for k in 0..t {
                    let r = &per_tree[(k * n + i) * p.m..(k * n + i + 1) * p.m];
                    prop_assert!(is_complete_ranking(r));
                    for j in 0..p.m {
                        votes[j] += (p.m as i32 + 1 - r[j]) as i64;
                    }
                }
                let mut labels: Vec<usize> = (0..p.m).collect();
                labels.sort_by(|&u, &v| votes[v].cmp(&votes[u]).then(u.cmp(&v)));
                prop_assert_eq!(&pa[i * p.m..(i + 1) * p.m], &ranks_from_order(&labels, p.m)[..]);
            }
        }

        // another seed is still a valid model (and fitting it does not panic)
        let mut other = p.clone();
        other.params.seed = p.params.seed.wrapping_add(1);
        let c = fit(&other, 2);
        prop_assert_eq!(c.trees.len(), p.params.n_estimators);
    }

    #[test]
    fn histograms_with_a_bin_per_value_grow_the_exact_trees(p in problem()) {
        // At most 60 rows: 255 bins hold one value each.
        let mut exact = p.clone();
        exact.params.max_bins = None;
        let mut binned = p.clone();
        binned.params.max_bins = Some(255);
        let (a, b) = (fit(&exact, 1), fit(&binned, 2));
        prop_assert!(a.trees == b.trees, "{}", difference(&a, &RandomForestModel { params: a.params.clone(), ..b.clone() }));
        prop_assert_eq!(predict(&a, &p.x_test, p.n_test, p.d, 1), predict(&b, &p.x_test, p.n_test, p.d, 1));
    }

    #[test]
    fn model_files_round_trip(p in problem()) {
        let model = fit(&p, 2);
        let saved = SavedModel {
            metadata: r#"{"labels": ["a", "b", "c", "d"], "note": "prop\u00e9rty \"test\""}"#.into(),
            model: Model::RandomForest(model.clone()),
        };
        let before = predict(&model, &p.x_test, p.n_test, p.d, 1);
        let before_train = predict(&model, &p.x, p.n, p.d, 1);

        let bin = from_binary(&to_binary(&saved).unwrap()).unwrap();
        prop_assert_eq!(&bin, &saved);

        let json = from_json(&to_json(&saved).unwrap()).unwrap();
        let (Model::RandomForest(j), Model::RandomForest(s)) = (&json.model, &saved.model) else {
            panic!("a forest was saved");
        };
        prop_assert!(json.model == saved.model, "JSON must give back the same model, bit for bit: {}", difference(j, s));
        let meta: serde_json::Value = serde_json::from_str(&json.metadata).unwrap();
        prop_assert_eq!(meta, serde_json::from_str::<serde_json::Value>(&saved.metadata).unwrap());

        for back in [bin, json] {
            let Model::RandomForest(m2) = back.model else { panic!("a forest was saved") };
            prop_assert_eq!(predict(&m2, &p.x_test, p.n_test, p.d, 2), before.clone());
            prop_assert_eq!(predict(&m2, &p.x, p.n, p.d, 2), before_train.clone());
        }
    }
}

#[test]
fn a_tree_whose_bootstrap_drew_only_rows_of_weight_0_is_a_leaf() {
    // Found by the property test above: one row of positive weight, a bootstrap without it, so a
    // root of no samples; its binned search indexed an empty list (a panic), the exact one did not.
    let mut weights = vec![0.0; 10];
    weights[0] = 1.0;
    let p = Problem {
        n: 10,
        d: 1,
        m: 4,
        x: vec![0.0; 10],
        y: [1, 2, 3, 4].repeat(10),
        x_test: vec![0.0],
        n_test: 1,
        sample_weight: Some(weights),
        params: RandomForestParams {
            n_estimators: 1,
            max_depth: None,
            max_features: MaxFeatures::Log2PlusOne,
            class_mode: ClassMode::TopLabel,
            bootstrap: true,
            seed: 9584250474303132583,
            entropy_epsilon: 0.0,
            max_bins: None,
            leaf_missing: 0.0,
            node_seeds: true,
        },
    };
    let mut binned = p.clone();
    binned.params.max_bins = Some(255);
    let mut exact = p;
    exact.params.max_bins = None;
    let (a, b) = (fit(&exact, 1), fit(&binned, 1));
    assert_eq!(a.trees, b.trees);
    assert!(a.trees.iter().all(|t| t.nodes.len() == 1));
    assert_eq!(predict(&b, &binned.x_test, 1, 1, 1).len(), 4);
}
