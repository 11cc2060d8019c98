//! Fuzzing of model-file loading on the stable toolchain: arbitrary bytes, damaged files, files
//! forged with a recomputed checksum (mutated, spliced from other models), and hand-edited JSON
//! models. Loading must give a model or an error, never a panic, a stack overflow or an abort;
//! a model that loads must predict (or refuse) and round-trip. `LRANK_FUZZ_CASES` raises the
//! case count for a long run (see `fuzz_common`).

mod fuzz_common;

use fuzz_common::{config, exercise, feature_value, fitted_models, saved};
use lrank_core::learner::Learner;
use lrank_core::model_io::{decode, from_binary, to_binary, to_json, FORMAT_VERSION};
use lrank_core::registry::Model;
use proptest::prelude::*;
use serde_json::Value;
use std::sync::OnceLock;

struct Fixtures {
    models: Vec<Model>,
    binary: Vec<Vec<u8>>,
    json: Vec<Value>,
}

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        let models = fitted_models();
        let binary = models.iter().map(|m| to_binary(&saved(m.clone())).unwrap()).collect();
        let json = models.iter().map(|m| serde_json::from_str(&to_json(&saved(m.clone())).unwrap()).unwrap()).collect();
        Fixtures { models, binary, json }
    })
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3))
}

/// A binary model file around `body`, its checksum recomputed as a forger would.
fn forged(body: &[u8]) -> Vec<u8> {
    let mut out = b"LRANKMDL".to_vec();
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&fnv1a64(body).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// Loads `bytes`; a model that loads is exercised on `rows`.
fn load_and_use(bytes: &[u8], rows: &[f64], n_rows: usize) {
    if let Ok(saved) = decode::<Model>(bytes) {
        let d = saved.model.header().n_features;
        // The rows drawn for d = 3 features; other widths get rows cut or padded to fit.
        let mut x: Vec<f64> = rows.iter().copied().cycle().take(n_rows * d.min(64)).collect();
        x.resize(n_rows * d.min(64), 0.5);
        exercise(&saved.model, &x, n_rows);
    }
}

/// One edit of a byte string.
#[derive(Clone, Debug)]
enum Edit {
    Flip {
        at: usize,
        bit: u8,
    },
    Set {
        at: usize,
        value: u8,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    Delete {
        at: usize,
        len: usize,
    },
    /// Repeat a stretch (a list grown, a nesting level repeated).
    Duplicate {
        at: usize,
        len: usize,
    },
    /// Bytes of another model file put in place of this one's.
    Splice {
        at: usize,
        from: usize,
        other_at: usize,
        len: usize,
    },
    /// A varint at `at` set to a large value (lengths and counts in postcard are varints).
    BigVarint {
        at: usize,
        value: u64,
    },
}

fn edit() -> impl Strategy<Value = Edit> {
    let at = any::<usize>();
    prop_oneof![
        3 => (at, 0u8..8).prop_map(|(at, bit)| Edit::Flip { at, bit }),
        3 => (at, prop_oneof![Just(0u8), Just(1), Just(0x7f), Just(0x80), Just(0xff), any::<u8>()])
            .prop_map(|(at, value)| Edit::Set { at, value }),
        1 => (at, prop::collection::vec(any::<u8>(), 1..9)).prop_map(|(at, bytes)| Edit::Insert { at, bytes }),
        1 => (at, 1usize..40).prop_map(|(at, len)| Edit::Delete { at, len }),
        1 => (at, 1usize..200).prop_map(|(at, len)| Edit::Duplicate { at, len }),
        1 => (at, any::<usize>(), any::<usize>(), 1usize..200)
            .prop_map(|(at, from, other_at, len)| Edit::Splice { at, from, other_at, len }),
        1 => (at, prop_oneof![Just(u64::MAX), Just(1u64 << 32), Just(1u64 << 20), Just(u32::MAX as u64), any::<u64>()])
            .prop_map(|(at, value)| Edit::BigVarint { at, value }),
    ]
}

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

fn apply(body: &mut Vec<u8>, edit: &Edit, others: &[Vec<u8>]) {
    if body.is_empty() {
        return;
    }
    let n = body.len();
    match edit {
        Edit::Flip { at, bit } => body[at % n] ^= 1 << bit,
        Edit::Set { at, value } => body[at % n] = *value,
        Edit::Insert { at, bytes } => {
            let at = at % (n + 1);
            body.splice(at..at, bytes.iter().copied());
        }
        Edit::Delete { at, len } => {
            let at = at % n;
            body.drain(at..(at + len).min(n));
        }
        Edit::Duplicate { at, len } => {
            let at = at % n;
            let stretch = body[at..(at + len).min(n)].to_vec();
            body.splice(at..at, stretch);
        }
        Edit::Splice { at, from, other_at, len } => {
            let other = &others[from % others.len()][20..];
            if other.is_empty() {
                return;
            }
            let start = other_at % other.len();
            let piece = &other[start..(start + len).min(other.len())];
            let at = at % n;
            let end = (at + piece.len()).min(n);
            body.splice(at..end, piece.iter().copied());
        }
        Edit::BigVarint { at, value } => {
            let at = at % n;
            // Replace the varint that starts at `at` (its continuation bytes included).
            let mut end = at;
            while end < n && body[end] & 0x80 != 0 {
                end += 1;
            }
            body.splice(at..(end + 1).min(n), varint(*value));
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// Arbitrary bytes: with and without the binary header, and as the body of a forged file.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600), header in 0u8..3) {
        let file = match header {
            0 => bytes,
            1 => forged(&bytes),
            _ => [b"LRANKMDL".as_slice(), &bytes].concat(),
        };
        load_and_use(&file, &[0.5, 1.0, -2.0], 1);
    }

    /// A real model file with a few edits: refused as damaged unless the checksum is recomputed;
    /// a forged file loads or is refused, and what loads predicts.
    #[test]
    fn edited_binary_models_load_or_are_refused(
        which in any::<usize>(),
        edits in prop::collection::vec(edit(), 1..6),
        recompute in prop::bool::weighted(0.9),
        rows in prop::collection::vec(feature_value(), 12),
    ) {
        let f = fixtures();
        let original = &f.binary[which % f.binary.len()];
        let mut body = original[20..].to_vec();
        for e in &edits {
            apply(&mut body, e, &f.binary);
        }
        if recompute {
            load_and_use(&forged(&body), &rows, 4);
        } else {
            let file = [&original[..20], body.as_slice()].concat();
            if body != original[20..] {
                let err = decode::<Model>(&file).unwrap_err().to_string();
                prop_assert!(err.contains("damaged"), "{}", err);
            }
        }
    }

    /// Hand-edited JSON models: any value replaced, a key removed, a list emptied or grown.
    #[test]
    fn edited_json_models_load_or_are_refused(
        which in any::<usize>(),
        edits in prop::collection::vec((any::<usize>(), json_edit()), 1..4),
        rows in prop::collection::vec(feature_value(), 12),
    ) {
        let f = fixtures();
        let mut doc = f.json[which % f.json.len()].clone();
        for (pick, e) in &edits {
            edit_json(&mut doc, *pick, e);
        }
        load_and_use(doc.to_string().as_bytes(), &rows, 4);
    }
}

#[derive(Clone, Debug)]
enum JsonEdit {
    Replace(Value),
    Remove,
    /// A list repeated `k` times (a tree's nodes, a forest's trees, a ranking).
    Grow(usize),
    Empty,
}

fn json_edit() -> impl Strategy<Value = JsonEdit> {
    let value = prop_oneof![
        Just(Value::Null),
        Just(serde_json::json!(0)),
        Just(serde_json::json!(1)),
        Just(serde_json::json!(-1)),
        Just(serde_json::json!(2)),
        Just(serde_json::json!(u32::MAX)),
        Just(serde_json::json!(u64::MAX)),
        Just(serde_json::json!(i64::MIN)),
        Just(serde_json::json!(1e308)),
        Just(serde_json::json!(-0.5)),
        Just(serde_json::json!(0.5)),
        Just(serde_json::json!("inf")),
        Just(serde_json::json!("nan")),
        Just(serde_json::json!("")),
        Just(serde_json::json!(true)),
        Just(serde_json::json!([])),
        Just(serde_json::json!({})),
        Just(serde_json::json!([1, 1])),
        Just(serde_json::json!({"Leaf": {"leaf": 0}})),
        Just(serde_json::json!({"Split": {"feature": 0, "threshold": 0.5, "left": 1, "right": 1}})),
    ];
    prop_oneof![
        6 => value.prop_map(JsonEdit::Replace),
        2 => Just(JsonEdit::Remove),
        1 => (2usize..50).prop_map(JsonEdit::Grow),
        1 => Just(JsonEdit::Empty),
    ]
}

#[derive(Clone, Debug)]
enum Step {
    Index(usize),
    Key(String),
}

/// The paths of every value below the document's root, in document order.
fn paths(v: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match v {
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                prefix.push(Step::Index(i));
                out.push(prefix.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Object(o) => {
            for (key, child) in o {
                prefix.push(Step::Key(key.clone()));
                out.push(prefix.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

/// Applies `e` to the `pick`-th value (in document order) below the root of `doc`.
fn edit_json(doc: &mut Value, pick: usize, e: &JsonEdit) {
    let mut all = Vec::new();
    paths(doc, &mut Vec::new(), &mut all);
    if all.is_empty() {
        return;
    }
    let path = &all[pick % all.len()];
    let (last, parent_path) = path.split_last().unwrap();
    let mut parent = &mut *doc;
    for step in parent_path {
        parent = match step {
            Step::Index(i) => &mut parent[*i],
            Step::Key(k) => &mut parent[k.as_str()],
        };
    }
    if let JsonEdit::Remove = e {
        match (parent, last) {
            (Value::Array(a), Step::Index(i)) => {
                a.remove(*i);
            }
            (Value::Object(o), Step::Key(k)) => {
                o.remove(k);
            }
            _ => {}
        }
        return;
    }
    let target = match last {
        Step::Index(i) => &mut parent[*i],
        Step::Key(k) => &mut parent[k.as_str()],
    };
    match e {
        JsonEdit::Replace(r) => *target = r.clone(),
        JsonEdit::Grow(times) => {
            if let Value::Array(a) = target {
                let copy = a.clone();
                for _ in 1..*times {
                    a.extend(copy.iter().cloned());
                }
            }
        }
        JsonEdit::Empty => match target {
            Value::Array(a) => a.clear(),
            Value::Object(o) => o.clear(),
            other => *other = Value::Null,
        },
        JsonEdit::Remove => unreachable!("handled above"),
    }
}

/// A tree whose every split sends both sides to the next node: a chain that a recursive walk
/// follows once per path (2^n times). Its depth used to take forever to compute when a model
/// was loaded; now a node with two parents is refused, at once.
#[test]
fn a_forged_tree_of_shared_nodes_is_refused_at_once() {
    let f = fixtures();
    let mut doc = f.json[0].clone(); // the LR-RF forest
    let tree = &mut doc["model"]["RandomForest"]["trees"][0];
    let n = 200;
    let mut nodes: Vec<Value> = (0..n)
        .map(|i| serde_json::json!({"Split": {"feature": 0, "threshold": i as f64, "left": i + 1, "right": i + 1}}))
        .collect();
    nodes.push(serde_json::json!({"Leaf": {"leaf": 0}}));
    tree["nodes"] = Value::Array(nodes);
    let started = std::time::Instant::now();
    let err = decode::<Model>(doc.to_string().as_bytes()).expect_err("a node with two parents is refused").to_string();
    assert!(err.contains("node 1 is a child of nodes 0 and 0"), "{err}");
    assert!(started.elapsed().as_secs() < 5);
}

#[test]
fn binary_metadata_that_is_not_json_or_nests_too_deep_is_refused() {
    let f = fixtures();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    for metadata in ["not json".to_string(), deep] {
        let mut s = saved(f.models[0].clone());
        s.metadata = metadata;
        // Encoding checks the metadata too; forge the file as a hostile writer would.
        let body = postcard::to_stdvec(&(s.metadata.as_str(), &s.model)).unwrap();
        let err = from_binary::<Model>(&forged(&body)).unwrap_err().to_string();
        assert!(err.contains("metadata that is not valid JSON"), "{err}");
    }
}

#[test]
fn every_fixture_round_trips_and_predicts() {
    let f = fixtures();
    assert_eq!(f.models.len(), f.binary.len());
    for (model, bytes) in f.models.iter().zip(&f.binary) {
        assert_eq!(&decode::<Model>(bytes).unwrap().model, model);
        exercise(model, &[0.5, 1.0, 2.0, f64::NAN, -3.0, 1.0], 2);
    }
}
