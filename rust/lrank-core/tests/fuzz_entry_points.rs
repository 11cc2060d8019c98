//! Fuzzing of the core's entry points on the stable toolchain: every learner fitted with
//! arbitrary parameters (each field set to an edge value) on arbitrary data (infinite, huge,
//! missing and subnormal values, invalid rankings, bad weights, empty matrices), then used; the
//! consensus functions and measures on arbitrary rank matrices. Every call must return a value
//! or an error, never panic. `LRANK_FUZZ_CASES` raises the case count for a long run.

mod fuzz_common;

use fuzz_common::{config, every_learner, exercise, feature_value};
use lrank_core::consensus::{checked, kemeny};
use lrank_core::data::features::{FeatureKind, FeatureMatrixView};
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::metrics::{pairwise_matrix, row_measures};
use lrank_core::registry::{fit, LearnerParams};
use proptest::prelude::*;
use serde_json::Value;

/// Values a parameter field is set to: the small valid ones and the edges on both sides.
fn field_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(serde_json::json!(0)),
        Just(serde_json::json!(1)),
        Just(serde_json::json!(2)),
        Just(serde_json::json!(3)),
        Just(serde_json::json!(1_000_001)),
        Just(serde_json::json!(100_001)),
        Just(serde_json::json!(u32::MAX)),
        Just(serde_json::json!(u64::MAX)),
        Just(serde_json::json!(-1)),
        Just(serde_json::json!(0.0)),
        Just(serde_json::json!(0.3)),
        Just(serde_json::json!(1.0)),
        Just(serde_json::json!(1.5)),
        Just(serde_json::json!(1e308)),
        Just(serde_json::json!(-1e308)),
        Just(serde_json::json!(5e-324)),
        Just(Value::Null),
        Just(serde_json::json!("Borda")),
        Just(serde_json::json!("Copeland")),
        Just(serde_json::json!("Mallows")),
        Just(serde_json::json!("Kemeny")),
        Just(serde_json::json!("Probability")),
        Just(serde_json::json!("All")),
        Just(serde_json::json!({"Count": 0})),
        Just(serde_json::json!({"Count": u64::MAX})),
        Just(serde_json::json!({"Fraction": 0.0})),
        Just(serde_json::json!({"Fraction": 1e-300})),
        Just(serde_json::json!("EqualWidth")),
        Just(serde_json::json!({"PlackettLuce": {"tol": 0.0}})),
        Just(serde_json::json!(true)),
        Just(serde_json::json!(false)),
    ]
}

/// The number of values below `v` (fields at any depth).
fn count_fields(v: &Value) -> usize {
    match v {
        Value::Object(o) => o.values().map(|c| 1 + count_fields(c)).sum(),
        Value::Array(a) => a.iter().map(|c| 1 + count_fields(c)).sum(),
        _ => 0,
    }
}

/// Sets the `k`-th value below `v` (in document order) to `value`.
fn set_nth(v: &mut Value, k: &mut usize, value: &Value) -> bool {
    let children: Vec<&mut Value> = match v {
        Value::Object(o) => o.values_mut().collect(),
        Value::Array(a) => a.iter_mut().collect(),
        _ => return false,
    };
    for child in children {
        if *k == 0 {
            *child = value.clone();
            return true;
        }
        *k -= 1;
        if set_nth(child, k, value) {
            return true;
        }
    }
    false
}

/// `params` with field number `pick` (any depth, below the learner's name) set to `value`.
fn with_field(params: &LearnerParams, pick: usize, value: &Value) -> String {
    let mut doc = serde_json::to_value(params).unwrap();
    if let Some(inner) = doc.as_object_mut().and_then(|o| o.values_mut().next()) {
        let n = count_fields(inner);
        if n > 0 {
            set_nth(inner, &mut (pick % n), value);
        }
    }
    doc.to_string()
}

/// Finite feature values, edges included.
fn finite_value() -> impl Strategy<Value = f64> {
    prop_oneof![6 => -10.0f64..10.0, 1 => Just(f64::MAX), 1 => Just(-f64::MAX), 1 => Just(5e-324), 1 => Just(-0.0), 1 => Just(1e200)]
}

#[derive(Clone, Debug)]
struct Data {
    n: usize,
    d: usize,
    m: usize,
    x: Vec<f64>,
    y: Vec<i32>,
    weights: Option<Vec<f64>>,
    nominal: Option<Vec<bool>>,
    test: Vec<f64>,
}

/// A random (possibly incomplete) ranking of `m` labels.
fn ranking(m: usize) -> impl Strategy<Value = Vec<i32>> {
    (Just((0..m).collect::<Vec<usize>>()).prop_shuffle(), 1..=m).prop_map(move |(order, k)| {
        let mut r = vec![0; m];
        for (p, &label) in order[..k].iter().enumerate() {
            r[label] = p as i32 + 1;
        }
        r
    })
}

fn data() -> impl Strategy<Value = Data> {
    (0usize..25, 0usize..4, 1usize..6)
        .prop_flat_map(|(n, d, m)| {
            let weight = prop_oneof![
                6 => Just(1.0),
                1 => Just(0.0),
                1 => Just(0.5),
                1 => Just(1e308),
                1 => Just(5e-324),
                1 => Just(f64::NAN),
                1 => Just(f64::INFINITY),
                1 => Just(-1.0),
            ];
            (
                Just((n, d, m)),
                prop::collection::vec(prop_oneof![9 => finite_value(), 1 => feature_value()], n * d),
                prop::collection::vec(ranking(m), n),
                prop::option::weighted(0.3, prop::collection::vec(weight, n)),
                prop::option::weighted(0.3, prop::collection::vec(any::<bool>(), d)),
                prop::collection::vec(feature_value(), 3 * d),
                // Now and then one entry of the rank matrix made invalid.
                prop::option::weighted(
                    0.05,
                    (any::<usize>(), prop_oneof![Just(-1), Just(0), Just(i32::MAX), Just(m as i32 + 1), Just(1)]),
                ),
            )
        })
        .prop_map(|((n, d, m), x, rows, weights, nominal, test, spoil)| {
            let mut y = rows.concat();
            if let (Some((at, value)), false) = (spoil, y.is_empty()) {
                let len = y.len();
                y[at % len] = value;
            }
            Data { n, d, m, x, y, weights, nominal, test }
        })
}

static FITS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static FITTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

proptest! {
    #![proptest_config(config(48))]

    /// Any learner, one field of its parameters set to an edge value, fitted on arbitrary data
    /// and then used: every step returns a value or an error.
    #[test]
    fn any_learner_on_any_data_fits_or_refuses(which in any::<usize>(), pick in any::<usize>(), value in field_value(), data in data(), edit in prop::bool::weighted(0.7)) {
        let learners = every_learner();
        let params = &learners[which % learners.len()];
        let text = if edit { with_field(params, pick, &value) } else { params.to_json() };
        let Ok(params) = LearnerParams::from_json(&text) else { return Ok(()) };
        let Ok(x) = FeatureMatrixView::new(&data.x, data.n, data.d) else { return Ok(()) };
        let kinds: Option<Vec<FeatureKind>> =
            data.nominal.map(|k| k.iter().map(|&b| if b { FeatureKind::Nominal } else { FeatureKind::Numeric }).collect());
        let Ok(x) = x.with_kinds(kinds.as_deref()) else { return Ok(()) };
        let Ok(y) = RankMatrixView::new(&data.y, data.n, data.m) else { return Ok(()) };
        FITS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match fit(params, x, y, data.weights.as_deref()) {
            Ok(model) => {
                FITTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                exercise(&model, &data.test, 3)
            }
            // The last line of defence worked, but the learner should have refused the data
            // itself, with a message that says why.
            Err(e) => prop_assert!(!e.to_string().contains("fails its own checks"), "{}", e),
        }
    }

    /// The consensus functions and measures on arbitrary rank matrices and weights.
    #[test]
    fn consensus_and_measures_return_or_refuse(
        m in 1usize..7,
        rows in prop::collection::vec(prop::collection::vec(prop_oneof![0..7i32, Just(-1), Just(i32::MAX)], 6), 0..12),
        weights in prop::option::of(prop::collection::vec(prop_oneof![Just(1.0), Just(0.0), Just(f64::NAN), Just(-2.0), Just(f64::MAX)], 0..12)),
        max_iter in prop_oneof![Just(0usize), Just(1), Just(20), Just(100_001), Just(usize::MAX)],
        tol in prop_oneof![Just(0.0), Just(1e-9), Just(f64::NAN), Just(-1.0), Just(f64::INFINITY)],
    ) {
        let n = rows.len();
        let y: Vec<i32> = rows.iter().flat_map(|r| r[..m].iter().copied()).collect();
        let Ok(v) = RankMatrixView::new(&y, n, m) else { return Ok(()) };
        let w = weights.as_deref();
        let _ = checked::borda(&v, w);
        let _ = checked::borda_scores(&v, w);
        let _ = checked::copeland(&v, w);
        let _ = kemeny(&v, w);
        let _ = checked::fit_mallows(&v, w, max_iter.min(50));
        let _ = checked::fit_plackett_luce(&v, w, max_iter.min(500), tol);
        if max_iter > 100_000 {
            prop_assert!(checked::fit_plackett_luce(&v, w, max_iter, tol).is_err());
        }
        let _ = row_measures(&v, &v);
        let _ = pairwise_matrix(&v, &v);
        if let Some(first) = rows.first() {
            let _ = checked::optimal_insertion(&first[..m], &rows.last().unwrap()[..m]);
        }
    }
}

/// How many fuzz cases reached a fit, and how many fitted (printed with `--nocapture` and
/// `--test-threads 1`, to see that the generated data gets past the checks to the learners).
#[test]
fn zz_report_fit_counts() {
    eprintln!(
        "fits tried {}, fitted {}",
        FITS.load(std::sync::atomic::Ordering::Relaxed),
        FITTED.load(std::sync::atomic::Ordering::Relaxed)
    );
}

/// Counts past the limit are refused by name before anything is fitted (they used to abort the
/// process in a failed allocation of 48 TB).
#[test]
fn huge_counts_are_refused_before_fitting() {
    let x = [0.0, 1.0, 2.0, 3.0];
    let y = [1, 2, 2, 1, 1, 2, 2, 1];
    let (xv, yv) = (FeatureMatrixView::new(&x, 4, 1).unwrap(), RankMatrixView::new(&y, 4, 2).unwrap());
    for params in every_learner() {
        let doc = serde_json::to_value(&params).unwrap();
        let kind = params.kind();
        for (field, value) in [("n_estimators", 1_000_000_000_000u64), ("max_iter", 1 << 40)] {
            if doc[kind].get(field).is_none() {
                continue;
            }
            let mut edited = doc.clone();
            edited[kind][field] = serde_json::json!(value);
            let err = fit(LearnerParams::from_json(&edited.to_string()).unwrap(), xv, yv, None).unwrap_err().to_string();
            assert!(err.contains(&format!("invalid parameter {field}")), "{kind}: {err}");
        }
    }
    // Nested bagging multiplies: 1000 members of 1000 members of 10 trees.
    let forest = r#"{"RandomForest": {"n_estimators": 10, "max_depth": 8, "max_features": "Log2PlusOne", "class_mode": "Ranking", "bootstrap": true, "seed": 0, "entropy_epsilon": 1e-6}}"#;
    let bag = |base: &str| {
        format!(
            r#"{{"Bagging": {{"base": {base}, "n_estimators": 1000, "aggregator": "Borda", "max_samples": 1.0, "seed": 0}}}}"#
        )
    };
    let err = fit(LearnerParams::from_json(&bag(&bag(forest))).unwrap(), xv, yv, None).unwrap_err().to_string();
    assert!(err.contains("asks for 10000000 trees or members"), "{err}");
}

/// Sample weights that double from row to row make every split peel off the heaviest row: a
/// chain as deep as the rows are many, which overflowed the stack at some 3,000 levels. Trees
/// stop at `MAX_TREE_DEPTH` instead.
#[test]
fn weights_that_make_a_chain_give_a_tree_of_the_depth_limit() {
    use lrank_core::learner::Learner;
    use lrank_core::learners::label_tree::LabelTreeParams;
    let n = 2500;
    let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let perms = [[1, 2, 3], [2, 1, 3], [3, 1, 2], [1, 3, 2], [2, 3, 1], [3, 2, 1]];
    let y: Vec<i32> = (0..n).flat_map(|i| perms[i % 6]).collect();
    // 1.35^i spans about 2^1083 over the rows: from 2^-540 to 2^543, all finite.
    let w: Vec<f64> = (0..n).map(|i| 1.35f64.powf(i as f64 - n as f64 / 2.0)).collect();
    assert!(w.iter().all(|v| v.is_finite() && *v > 0.0));
    let (xv, yv) = (FeatureMatrixView::new(&x, n, 1).unwrap(), RankMatrixView::new(&y, n, 3).unwrap());
    // No node-size limit: those count rows of the average weight, which these weights make
    // heavier than all but the last rows, and would stop the chain early.
    let params = LabelTreeParams { min_weight_split: Some(0.0), ..LabelTreeParams::default() };
    let model = fit(LearnerParams::LabelTree(params), xv, yv, Some(&w)).unwrap();
    assert_eq!(model.summary()["depth"], lrank_core::tree::MAX_TREE_DEPTH);
}
