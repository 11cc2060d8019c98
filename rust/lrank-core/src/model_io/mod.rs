//! Saved models: a versioned binary format (postcard) and a JSON format.
//!
//! Binary layout: the 8 magic bytes `LRANKMDL`, the format version (u32, little endian), the
//! FNV-1a 64 checksum of the payload (u64, little endian), then the postcard-encoded payload.
//! JSON layout: `{"format": "lrank-model", "format_version": N, "metadata": ..., "model": ...}`.
//! `metadata` is free-form JSON owned by the caller (the Python layer keeps label names,
//! attribute types and estimator parameters there). A file of another format version, a
//! truncated or altered file, or a file that is no lrank model is refused with a clear error.

use crate::bagging::BaggingModel;
use crate::error::{LrankError, Result};
use crate::forest::RandomForestModel;
use crate::label_tree::LabelTreeModel;
use crate::labelwise::LabelwiseModel;
use crate::neighbors::InstanceBasedModel;
use crate::pairwise::PairwiseModel;
use crate::rpc::RpcModel;
use serde::{Deserialize, Serialize};

mod validate;

/// Serde for f64 fields that may be infinite or NaN (a Mallows spread is infinite for a pure
/// node): JSON has no such numbers (serde_json would write `null` and fail to read it back), so
/// human-readable formats write them as the strings "inf", "-inf" and "nan"; binary formats
/// keep the plain f64.
pub mod nonfinite_f64 {
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() && !v.is_finite() {
            s.serialize_str(if v.is_nan() {
                "nan"
            } else if *v > 0.0 {
                "inf"
            } else {
                "-inf"
            })
        } else {
            s.serialize_f64(*v)
        }
    }

    struct F64OrName;

    impl Visitor<'_> for F64OrName {
        type Value = f64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number or one of \"inf\", \"-inf\", \"nan\"")
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
            match v {
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                "nan" => Ok(f64::NAN),
                other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
            }
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        if d.is_human_readable() {
            d.deserialize_any(F64OrName)
        } else {
            d.deserialize_f64(F64OrName)
        }
    }
}

/// Version history: 1, the first; 2, tree nodes that split a nominal feature one value
/// against the rest, LRT threshold rules (W-LRT, F-LRT), IBLR's nominal features.
pub const FORMAT_VERSION: u32 = 2;
const MAGIC: &[u8; 8] = b"LRANKMDL";
const JSON_FORMAT_NAME: &str = "lrank-model";

/// Every model kind the core can save. New learners add variants at the end.
// Models are built once and moved rarely; boxing the large variants would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Model {
    RandomForest(RandomForestModel),
    InstanceBased(InstanceBasedModel),
    LabelTree(LabelTreeModel),
    Bagging(BaggingModel),
    Labelwise(LabelwiseModel),
    Pairwise(PairwiseModel),
    Rpc(RpcModel),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SavedModel {
    /// Caller-owned JSON text describing the model (validated to be JSON on save).
    pub metadata: String,
    pub model: Model,
}

#[derive(Serialize, Deserialize)]
struct BinaryPayload {
    metadata: String,
    model: Model,
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3))
}

fn format_err(msg: impl Into<String>) -> LrankError {
    LrankError::ModelFormat(msg.into())
}

fn check_metadata(metadata: &str) -> Result<()> {
    serde_json::from_str::<serde_json::Value>(metadata)
        .map(|_| ())
        .map_err(|e| LrankError::InvalidInput(format!("model metadata is not valid JSON: {e}")))
}

/// A decoded model, after its structural checks (see `validate`).
fn checked(saved: SavedModel) -> Result<SavedModel> {
    validate::validate(&saved.model).map_err(|e| format_err(format!("model file holds an inconsistent model: {e}")))?;
    Ok(saved)
}

pub fn to_binary(saved: &SavedModel) -> Result<Vec<u8>> {
    check_metadata(&saved.metadata)?;
    let payload = BinaryPayload { metadata: saved.metadata.clone(), model: saved.model.clone() };
    let body = postcard::to_stdvec(&payload).map_err(|e| format_err(format!("cannot encode model: {e}")))?;
    let mut out = Vec::with_capacity(body.len() + 20);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&fnv1a64(&body).to_le_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

pub fn from_binary(bytes: &[u8]) -> Result<SavedModel> {
    if bytes.len() < 20 || &bytes[..8] != MAGIC {
        return Err(format_err("not an lrank model file (no LRANKMDL header)"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(format_err(format!(
            "model file has format version {version}, this lrank reads version {FORMAT_VERSION}; \
             re-train the model with this version or load it with the lrank that wrote it"
        )));
    }
    let checksum = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let body = &bytes[20..];
    if fnv1a64(body) != checksum {
        return Err(format_err("model file is damaged (checksum mismatch): truncated or altered"));
    }
    let payload: BinaryPayload =
        postcard::from_bytes(body).map_err(|e| format_err(format!("model file cannot be decoded: {e}")))?;
    checked(SavedModel { metadata: payload.metadata, model: payload.model })
}

pub fn to_json(saved: &SavedModel) -> Result<String> {
    check_metadata(&saved.metadata)?;
    let metadata: serde_json::Value = serde_json::from_str(&saved.metadata).expect("checked above");
    let doc = serde_json::json!({
        "format": JSON_FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "metadata": metadata,
        "model": saved.model,
    });
    serde_json::to_string(&doc).map_err(|e| format_err(format!("cannot encode model as JSON: {e}")))
}

pub fn from_json(text: &str) -> Result<SavedModel> {
    let mut doc: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format_err(format!("not an lrank model file (neither the binary format nor JSON: {e})")))?;
    if doc.get("format").and_then(|f| f.as_str()) != Some(JSON_FORMAT_NAME) {
        return Err(format_err("not an lrank model file (no \"format\": \"lrank-model\")"));
    }
    let version = doc.get("format_version").and_then(|v| v.as_u64());
    if version != Some(FORMAT_VERSION as u64) {
        return Err(format_err(format!(
            "model file has format version {}, this lrank reads version {FORMAT_VERSION}",
            version.map_or("unknown".to_string(), |v| v.to_string())
        )));
    }
    let metadata = doc.get("metadata").cloned().unwrap_or(serde_json::Value::Null).to_string();
    let model =
        serde_json::from_value(doc["model"].take()).map_err(|e| format_err(format!("model file holds an invalid model: {e}")))?;
    checked(SavedModel { metadata, model })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::FeatureMatrixView;
    use crate::forest::RandomForestParams;
    use crate::ranking::RankMatrixView;

    fn saved() -> SavedModel {
        let x = [0.0, 1.0, 2.0, 3.0];
        let y = [1, 2, 1, 2, 2, 1, 2, 1];
        let model = RandomForestModel::fit(
            &FeatureMatrixView::new(&x, 4, 1).unwrap(),
            &RankMatrixView::new(&y, 4, 2).unwrap(),
            None,
            RandomForestParams { n_estimators: 3, ..Default::default() },
        )
        .unwrap();
        SavedModel { metadata: r#"{"labels": ["a", "b"]}"#.into(), model: Model::RandomForest(model) }
    }

    #[test]
    fn binary_and_json_round_trip() {
        let s = saved();
        assert_eq!(from_binary(&to_binary(&s).unwrap()).unwrap(), s);
        let back = from_json(&to_json(&s).unwrap()).unwrap();
        assert_eq!(back.model, s.model);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&back.metadata).unwrap()["labels"][1], "b");
    }

    #[test]
    fn non_finite_floats_are_named_in_json() {
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct T {
            #[serde(with = "nonfinite_f64")]
            v: f64,
        }
        for v in [f64::INFINITY, f64::NEG_INFINITY, 1.5] {
            let text = serde_json::to_string(&T { v }).unwrap();
            assert_eq!(serde_json::from_str::<T>(&text).unwrap(), T { v });
            assert_eq!(postcard::from_bytes::<T>(&postcard::to_stdvec(&T { v }).unwrap()).unwrap(), T { v });
        }
        assert_eq!(serde_json::to_string(&T { v: f64::INFINITY }).unwrap(), r#"{"v":"inf"}"#);
        assert!(serde_json::from_str::<T>(&serde_json::to_string(&T { v: f64::NAN }).unwrap()).unwrap().v.is_nan());
        assert!(serde_json::from_str::<T>(r#"{"v":"lots"}"#).is_err());
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
        let err = from_json(&cyclic.to_string()).unwrap_err().to_string();
        assert!(err.contains("inconsistent model") && err.contains("child 0"), "{err}");
        let mut bad_leaf = doc.clone();
        bad_leaf["model"]["RandomForest"]["trees"][0]["leaves"][0]["ranking"] = serde_json::json!([1, 1]);
        let err = from_json(&bad_leaf.to_string()).unwrap_err().to_string();
        assert!(err.contains("leaf ranking"), "{err}");
        let mut wide = doc;
        wide["model"]["RandomForest"]["n_features"] = serde_json::json!(0);
        assert!(from_json(&wide.to_string()).unwrap_err().to_string().contains("fill_values"));
    }

    #[test]
    fn corrupt_and_foreign_files_are_refused() {
        let bytes = to_binary(&saved()).unwrap();
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(from_binary(&flipped).unwrap_err().to_string().contains("damaged"));
        assert!(from_binary(&bytes[..bytes.len() - 3]).unwrap_err().to_string().contains("damaged"));
        let mut other = bytes.clone();
        other[8] = 99;
        assert!(from_binary(&other).unwrap_err().to_string().contains("format version 99"));
        assert!(from_binary(b"hello world, not a model").unwrap_err().to_string().contains("not an lrank"));
        let current = format!("\"format_version\":{FORMAT_VERSION}");
        let json = to_json(&saved()).unwrap().replace(&current, &format!("\"format_version\":{}", FORMAT_VERSION + 1));
        assert!(from_json(&json).unwrap_err().to_string().contains(&format!("format version {}", FORMAT_VERSION + 1)));
        assert!(from_json("{}").is_err());
        assert!(from_json("not json").is_err());
    }
}
