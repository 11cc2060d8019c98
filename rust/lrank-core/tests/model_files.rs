//! Model files: round trips, hand-edited and forged files, foreign and corrupt files.

use lrank_core::data::features::FeatureMatrixView;
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::learners::bagging::BaggingParams;
use lrank_core::learners::random_forest::RandomForestParams;
use lrank_core::model_io::{decode, encode, from_binary, from_json, to_binary, to_json, SavedModel, FORMAT_VERSION};
use lrank_core::registry::{fit, LearnerParams, Model};

fn forest() -> Model {
    let x = [0.0, 1.0, 2.0, 3.0];
    let y = [1, 2, 1, 2, 2, 1, 2, 1];
    let params = LearnerParams::RandomForest(RandomForestParams { n_estimators: 3, ..Default::default() });
    fit(params, FeatureMatrixView::new(&x, 4, 1).unwrap(), RankMatrixView::new(&y, 4, 2).unwrap(), None).unwrap()
}

fn saved() -> SavedModel<Model> {
    SavedModel { metadata: r#"{"labels": ["a", "b"]}"#.into(), model: forest() }
}

#[test]
fn binary_and_json_round_trip_and_are_recognised_by_content() {
    let s = saved();
    assert_eq!(from_binary::<Model>(&to_binary(&s).unwrap()).unwrap(), s);
    let back = from_json::<Model>(&to_json(&s).unwrap()).unwrap();
    assert_eq!(back.model, s.model);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&back.metadata).unwrap()["labels"][1], "b");
    for binary in [true, false] {
        assert_eq!(decode::<Model>(&encode(&s, binary).unwrap()).unwrap().model, s.model);
    }
}

#[test]
fn hand_edited_json_models_are_checked() {
    let json = to_json(&saved()).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    // A child link pointing backwards (a cycle) and a leaf ranking with a repeated position.
    let mut cyclic = doc.clone();
    let nodes = cyclic["model"]["RandomForest"]["trees"][0]["nodes"].as_array_mut().unwrap();
    let split = nodes.iter_mut().find(|n| n.get("Split").is_some()).expect("the first tree splits");
    split["Split"]["left"] = serde_json::json!(0);
    let err = from_json::<Model>(&cyclic.to_string()).unwrap_err().to_string();
    assert!(err.contains("inconsistent model") && err.contains("child 0"), "{err}");
    let mut bad_leaf = doc.clone();
    bad_leaf["model"]["RandomForest"]["trees"][0]["leaves"][0]["ranking"] = serde_json::json!([1, 1]);
    let err = from_json::<Model>(&bad_leaf.to_string()).unwrap_err().to_string();
    assert!(err.contains("leaf ranking"), "{err}");
    let mut wide = doc;
    wide["model"]["RandomForest"]["n_features"] = serde_json::json!(0);
    assert!(from_json::<Model>(&wide.to_string()).unwrap_err().to_string().contains("fill_values"));
}

#[test]
fn corrupt_and_foreign_files_are_refused() {
    let bytes = to_binary(&saved()).unwrap();
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    assert!(from_binary::<Model>(&flipped).unwrap_err().to_string().contains("damaged"));
    assert!(from_binary::<Model>(&bytes[..bytes.len() - 3]).unwrap_err().to_string().contains("damaged"));
    let mut other = bytes.clone();
    other[8] = 99;
    assert!(from_binary::<Model>(&other).unwrap_err().to_string().contains("format version 99"));
    assert!(from_binary::<Model>(b"hello world, not a model").unwrap_err().to_string().contains("not an lrank"));
    assert!(decode::<Model>(b"\xff\xfe not utf-8").unwrap_err().to_string().contains("not an lrank"));
    let current = format!("\"format_version\":{FORMAT_VERSION}");
    let json = to_json(&saved()).unwrap().replace(&current, &format!("\"format_version\":{}", FORMAT_VERSION + 1));
    assert!(from_json::<Model>(&json).unwrap_err().to_string().contains(&format!("format version {}", FORMAT_VERSION + 1)));
    assert!(from_json::<Model>("{}").is_err());
    assert!(from_json::<Model>("not json").is_err());
}

/// Bagging of bagging ... `depth` levels over a forest, built as a value (not fitted).
fn nested(depth: usize) -> Model {
    let mut model = forest();
    for _ in 0..depth {
        let Model::RandomForest(f) = forest() else { unreachable!() };
        let params = BaggingParams::new(LearnerParams::RandomForest(f.params.clone()));
        model = Model::Bagging(lrank_core::learners::bagging::BaggingModel {
            params,
            n_features: 1,
            n_labels: 2,
            members: vec![model],
        });
    }
    model
}

#[test]
fn models_nested_too_deep_are_refused_not_a_stack_overflow() {
    // Within the limit: loads. Past it: a clean error, in both formats. (A forged file nested
    // thousands deep used to overflow the stack.)
    let ok = SavedModel { metadata: "{}".into(), model: nested(8) };
    assert_eq!(from_binary::<Model>(&to_binary(&ok).unwrap()).unwrap(), ok);
    let deep = SavedModel { metadata: "{}".into(), model: nested(40) };
    let bytes = to_binary(&deep).unwrap();
    let err = from_binary::<Model>(&bytes).unwrap_err().to_string();
    assert!(err.contains("nested more than 16 deep"), "{err}");
    let err = from_json::<Model>(&to_json(&deep).unwrap()).unwrap_err().to_string();
    assert!(err.contains("nested more than") || err.contains("recursion limit"), "{err}");
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3))
}

#[test]
fn a_forged_file_nested_ten_thousand_deep_is_refused() {
    // nested(k)'s payload is the metadata, then one constant prefix per level, then the forest:
    // repeat the prefix 10,000 times and recompute the checksum, as a forger would.
    let body = |depth: usize| to_binary(&SavedModel { metadata: "{}".into(), model: nested(depth) }).unwrap()[20..].to_vec();
    let (one, two) = (body(1), body(2));
    let level = two.len() - one.len();
    let (head, tail) = (&one[..3], &one[3..]); // metadata "{}": a length byte and two bytes
    let prefix = &tail[..level];
    assert_eq!(&two[3..3 + 2 * level], [prefix, prefix].concat().as_slice(), "the encoding nests as assumed");
    let mut forged = head.to_vec();
    for _ in 0..10_000 {
        forged.extend_from_slice(prefix);
    }
    forged.extend_from_slice(&tail[level..]);
    let mut bytes = b"LRANKMDL".to_vec();
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&fnv1a64(&forged).to_le_bytes());
    bytes.extend_from_slice(&forged);
    let err = decode::<Model>(&bytes).unwrap_err().to_string();
    assert!(err.contains("nested more than 16 deep"), "{err}");
}
