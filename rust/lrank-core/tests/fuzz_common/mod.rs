#![allow(dead_code)]

//! What the fuzz tests share: the case count (raised for long runs), one small fitted model of
//! every learner, arbitrary feature values, and the calls a loaded model must survive.
//!
//! Long run: `LRANK_FUZZ_CASES=100000 cargo test --release -p lrank-core --test fuzz_model_files
//! --test fuzz_entry_points`. Every outcome must be a value or an error; a panic fails the test
//! (and proptest shrinks its input), a stack overflow or failed allocation kills it.

use lrank_core::consensus::Aggregator;
use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::learner::{predict_checked, Learner, Outputs, Params};
use lrank_core::learners::bagging::BaggingParams;
use lrank_core::learners::dummy::DummyParams;
use lrank_core::learners::label_tree::LabelTreeParams;
use lrank_core::learners::labelwise::LabelwiseParams;
use lrank_core::learners::neighbors::InstanceBasedParams;
use lrank_core::learners::one_vs_one::PairwiseParams;
use lrank_core::learners::random_forest::{ClassMode, RandomForestParams};
use lrank_core::learners::rpc::RpcParams;
use lrank_core::model_io::SavedModel;
use lrank_core::registry::{fit, LearnerParams, Model};
use lrank_core::tree::ThresholdRule;
use proptest::prelude::*;

/// Cases per fuzz test: `LRANK_FUZZ_CASES`, else `default` (kept small for `cargo test`).
pub fn cases(default: u32) -> u32 {
    std::env::var("LRANK_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

pub fn config(default: u32) -> ProptestConfig {
    ProptestConfig { cases: cases(default), failure_persistence: None, ..ProptestConfig::default() }
}

/// The parameters of one small model of every learner and mode (trees few and shallow).
pub fn every_learner() -> Vec<LearnerParams> {
    let forest = RandomForestParams { n_estimators: 3, ..Default::default() };
    vec![
        LearnerParams::RandomForest(forest.clone()),
        LearnerParams::RandomForest(RandomForestParams { class_mode: ClassMode::Pairwise, ..forest.clone() }),
        LearnerParams::InstanceBased(InstanceBasedParams { k: Some(3), ..Default::default() }),
        LearnerParams::InstanceBased(InstanceBasedParams::default()),
        LearnerParams::InstanceBased(InstanceBasedParams::plackett_luce()),
        LearnerParams::LabelTree(LabelTreeParams::default()),
        LearnerParams::LabelTree(LabelTreeParams { threshold_rule: ThresholdRule::EqualFrequency, ..Default::default() }),
        LearnerParams::Bagging(BaggingParams {
            n_estimators: 3,
            aggregator: Aggregator::Copeland,
            ..BaggingParams::new(LearnerParams::LabelTree(LabelTreeParams::default()))
        }),
        LearnerParams::Bagging(BaggingParams {
            n_estimators: 2,
            ..BaggingParams::new(LearnerParams::Bagging(BaggingParams {
                n_estimators: 2,
                aggregator: Aggregator::Mallows,
                ..BaggingParams::new(LearnerParams::Dummy(DummyParams::default()))
            }))
        }),
        LearnerParams::Labelwise(LabelwiseParams::tree()),
        LearnerParams::Labelwise(LabelwiseParams { n_estimators: 3, ..LabelwiseParams::forest() }),
        LearnerParams::Labelwise(LabelwiseParams { tune_depth: true, ..LabelwiseParams::tree() }),
        LearnerParams::Pairwise(PairwiseParams::tree()),
        LearnerParams::Pairwise(PairwiseParams { n_estimators: 3, ..PairwiseParams::forest() }),
        LearnerParams::Rpc(RpcParams::default()),
        LearnerParams::Dummy(DummyParams { aggregator: Aggregator::Kemeny, seed: 0 }),
    ]
}

/// A small training set: 24 rows, 3 features (the last nominal-looking), 4 labels, incomplete
/// rankings and missing values among them.
pub fn training_set() -> (Vec<f64>, Vec<i32>, usize, usize, usize) {
    let (n, d, m) = (24, 3, 4);
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n * m);
    let orders = [[0, 1, 2, 3], [1, 0, 3, 2], [3, 2, 1, 0], [2, 3, 0, 1]];
    for i in 0..n {
        let v = i as f64;
        x.extend_from_slice(&[v.sin() * 3.0, if i % 7 == 3 { f64::NAN } else { (v * 0.37).cos() }, (i % 3) as f64]);
        let order = orders[(i + i / 5) % 4];
        let keep = if i % 6 == 5 { 2 } else { 4 };
        let mut r = vec![0; m];
        for (p, &label) in order[..keep].iter().enumerate() {
            r[label] = p as i32 + 1;
        }
        y.extend_from_slice(&r);
    }
    (x, y, n, d, m)
}

/// One fitted model per entry of [`every_learner`].
pub fn fitted_models() -> Vec<Model> {
    let (x, y, n, d, m) = training_set();
    let xv = FeatureMatrixView::new(&x, n, d).unwrap();
    let yv = RankMatrixView::new(&y, n, m).unwrap();
    every_learner().into_iter().map(|p| fit(p, xv, yv, None).unwrap()).collect()
}

pub fn saved(model: Model) -> SavedModel<Model> {
    SavedModel { metadata: r#"{"labels": ["a", "b", "c", "d"]}"#.into(), model }
}

/// Feature values a reader or a caller may hand over: ordinary ones, and the edges.
pub fn feature_value() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => -10.0f64..10.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(f64::MAX),
        1 => Just(-f64::MAX),
        1 => Just(5e-324),
        1 => Just(0.0),
        1 => Just(-0.0),
        1 => (0u32..3).prop_map(f64::from),
    ]
}

/// Everything a loaded model offers: predictions of every kind, members, summary, parameters
/// and a second round trip. Errors are fine; a panic is what the fuzz tests look for.
pub fn exercise(model: &Model, rows: &[f64], n_rows: usize) {
    let d = model.header().n_features;
    if n_rows.checked_mul(d).is_none_or(|len| len != rows.len()) {
        return;
    }
    let _ = model.summary().to_string();
    let _ = model.params().validate();
    let _ = model.params().to_json();
    let _ = model.kind();
    let _ = model.check();
    if let Ok(x) = FeatureMatrixView::new(rows, n_rows, d) {
        for outputs in [Outputs::RANKS, Outputs { confidence: true, scores: true }] {
            if let Ok(p) = predict_checked(model, &x, outputs) {
                assert_eq!(p.ranks.len(), n_rows * model.header().n_labels, "a prediction of the wrong size");
            }
        }
        let _ = model.member_ranks(&x);
    }
    // A model that loaded once loads again, to the same bytes (NaN fields forbid comparing models).
    let bytes = lrank_core::model_io::to_binary(&saved(model.clone())).unwrap();
    let back = lrank_core::model_io::from_binary::<Model>(&bytes).expect("a loaded model loads again");
    assert_eq!(lrank_core::model_io::to_binary(&back).unwrap(), bytes, "a loaded model round-trips");
}
