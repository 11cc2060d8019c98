//! Saved models: a versioned, checksummed envelope around any serde payload, in a binary format
//! (postcard) and a JSON format, recognised by content when read.
//!
//! Binary layout: the 8 magic bytes `LRANKMDL`, the format version (u32, little endian), the
//! FNV-1a 64 checksum of the payload (u64, little endian), then the postcard-encoded payload
//! (the metadata string, then the model).
//! JSON layout: `{"format": "lrank-model", "format_version": N, "metadata": ..., "model": ...}`.
//! `metadata` is free-form JSON owned by the caller (the Python layer keeps label names,
//! attribute types and estimator parameters there). A file of another format version, a
//! truncated or altered file, or a file that is no lrank model is refused with a clear error,
//! and a decoded model is checked ([`Checked`]) before it is returned: a JSON model file can be
//! edited by hand, and a binary one forged with a valid checksum.
//!
//! The envelope knows nothing of learners: the registry's `Model` is one payload. A payload whose
//! layout changed says how to read the previous version's ([`Upgrade`]); fields added since are
//! read only from files that have them ([`crate::numeric::file_version`]); [`decode`] reads all.

use crate::error::{LrankError, Result};
use crate::numeric::file_version;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Version history: 1, the first; 2, tree nodes that split a nominal feature one value
/// against the rest, LRT threshold rules (W-LRT, F-LRT), IBLR's nominal features; 3, the
/// histogram search's `max_bins` of the tree learners, LR-RF's `leaf_missing` and `Auto` class
/// mode; 4, IB-PLR's feature scaling; 5, the partial-label-ranking learners' added options; 6,
/// LR-RF's `node_seeds`; 7, LWRF's `node_seeds`; 8, GBLR's `per_label_trees`; 9, RPC's `tune`;
/// 10, IBLR's and IB-PL's feature scaling; 11, BPA with the global DANI (a consensus method of
/// its own, the default; files before keep their BPA with the DANI of each call); 12, whether a
/// consensus with ties compares its thresholds with a tolerance; 13, the linear learner, and a
/// consensus with ties setting aside labels that no ranking observes; 14, the PLR trees'
/// `min_samples_leaf`.
pub const FORMAT_VERSION: u32 = 14;
/// The oldest version the current types read directly: from it on, a layout only gains fields,
/// which older files lack and which take their defaults
/// ([`crate::numeric::file_version`]).
pub const FIRST_EXTENDED_VERSION: u32 = 3;
/// The version before that, read through its own layout and converted ([`Upgrade`]).
pub const PREVIOUS_VERSION: u32 = 2;

/// Whether the current types read files of `version` directly.
fn read_directly(version: u32) -> bool {
    (FIRST_EXTENDED_VERSION..=FORMAT_VERSION).contains(&version)
}
const MAGIC: &[u8; 8] = b"LRANKMDL";
const JSON_FORMAT_NAME: &str = "lrank-model";

/// A payload that can check itself after decoding.
pub trait Checked {
    /// What is inconsistent, if anything.
    fn check(&self) -> std::result::Result<(), String>;
}

/// A payload whose files of [`PREVIOUS_VERSION`] are still read: as `Previous`, then converted.
pub trait Upgrade: Sized {
    type Previous: DeserializeOwned + Into<Self>;
}

#[derive(Clone, Debug, PartialEq)]
pub struct SavedModel<M> {
    /// Caller-owned JSON text describing the model (validated to be JSON on save).
    pub metadata: String,
    pub model: M,
}

#[derive(Serialize)]
struct BinaryPayloadRef<'a, M> {
    metadata: &'a str,
    model: &'a M,
}

#[derive(Deserialize)]
struct BinaryPayload<M> {
    metadata: String,
    model: M,
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

/// A decoded model, after its structural checks and the check that its metadata is JSON (read
/// with serde_json's nesting limit, so a forged file cannot hand a reader 100,000 nested lists).
fn checked<M: Checked>(saved: SavedModel<M>) -> Result<SavedModel<M>> {
    serde_json::from_str::<serde_json::Value>(&saved.metadata)
        .map_err(|e| format_err(format!("model file holds metadata that is not valid JSON: {e}")))?;
    saved.model.check().map_err(|e| format_err(format!("model file holds an inconsistent model: {e}")))?;
    Ok(saved)
}

pub fn to_binary<M: Serialize>(saved: &SavedModel<M>) -> Result<Vec<u8>> {
    check_metadata(&saved.metadata)?;
    let payload = BinaryPayloadRef { metadata: &saved.metadata, model: &saved.model };
    let body = postcard::to_stdvec(&payload).map_err(|e| format_err(format!("cannot encode model: {e}")))?;
    let mut out = Vec::with_capacity(body.len() + 20);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&fnv1a64(&body).to_le_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

/// A binary model file's format version and payload, after the header and checksum checks.
fn binary_body(bytes: &[u8]) -> Result<(u32, &[u8])> {
    if bytes.len() < 20 || &bytes[..8] != MAGIC {
        return Err(format_err("not an lrank model file (no LRANKMDL header)"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    let checksum = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let body = &bytes[20..];
    if fnv1a64(body) != checksum && (read_directly(version) || version == PREVIOUS_VERSION) {
        return Err(format_err("model file is damaged (checksum mismatch): truncated or altered"));
    }
    Ok((version, body))
}

fn version_err(version: impl std::fmt::Display, reads: &str) -> LrankError {
    format_err(format!(
        "model file has format version {version}, this lrank reads format version {reads}; \
         re-train the model with this version or load it with the lrank that wrote it"
    ))
}

/// Reads a binary model file of the current format version.
pub fn from_binary<M: DeserializeOwned + Checked>(bytes: &[u8]) -> Result<SavedModel<M>> {
    match binary_body(bytes)? {
        (FORMAT_VERSION, body) => checked(binary_payload(FORMAT_VERSION, body)?),
        (version, _) => Err(version_err(version, &FORMAT_VERSION.to_string())),
    }
}

fn binary_payload<M: DeserializeOwned>(version: u32, body: &[u8]) -> Result<SavedModel<M>> {
    crate::numeric::nesting_limited::take_exceeded();
    let decoded = file_version::with_version(version, || postcard::from_bytes::<BinaryPayload<M>>(body));
    let payload = decoded.map_err(|e| {
        if crate::numeric::nesting_limited::take_exceeded() {
            format_err(format!(
                "model file cannot be decoded: models nested more than {} deep",
                crate::numeric::nesting_limited::MAX_NESTING
            ))
        } else {
            format_err(format!("model file cannot be decoded: {e}"))
        }
    })?;
    Ok(SavedModel { metadata: payload.metadata, model: payload.model })
}

pub fn to_json<M: Serialize>(saved: &SavedModel<M>) -> Result<String> {
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

/// A JSON model file's format version (None: missing) and document.
fn json_doc(text: &str) -> Result<(Option<u64>, serde_json::Value)> {
    let doc: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format_err(format!("not an lrank model file (neither the binary format nor JSON: {e})")))?;
    if doc.get("format").and_then(|f| f.as_str()) != Some(JSON_FORMAT_NAME) {
        return Err(format_err("not an lrank model file (no \"format\": \"lrank-model\")"));
    }
    Ok((doc.get("format_version").and_then(|v| v.as_u64()), doc))
}

fn json_payload<M: DeserializeOwned>(version: u32, mut doc: serde_json::Value) -> Result<SavedModel<M>> {
    let metadata = doc.get("metadata").cloned().unwrap_or(serde_json::Value::Null).to_string();
    let model = file_version::with_version(version, || serde_json::from_value(doc["model"].take()))
        .map_err(|e| format_err(format!("model file holds an invalid model: {e}")))?;
    Ok(SavedModel { metadata, model })
}

/// Reads a JSON model file of the current format version.
pub fn from_json<M: DeserializeOwned + Checked>(text: &str) -> Result<SavedModel<M>> {
    match json_doc(text)? {
        (Some(v), doc) if v == FORMAT_VERSION as u64 => checked(json_payload(FORMAT_VERSION, doc)?),
        (v, _) => Err(version_err(v.map_or("unknown".to_string(), |v| v.to_string()), &FORMAT_VERSION.to_string())),
    }
}

/// Reads a model file of either format (recognised by its first bytes) and of the current or
/// the previous format version (converted).
pub fn decode<M: DeserializeOwned + Checked + Upgrade>(bytes: &[u8]) -> Result<SavedModel<M>> {
    let reads = format!("{PREVIOUS_VERSION} to {FORMAT_VERSION}");
    let upgrade = |old: SavedModel<M::Previous>| SavedModel { metadata: old.metadata, model: old.model.into() };
    let saved = if bytes.starts_with(MAGIC) {
        match binary_body(bytes)? {
            (version, body) if read_directly(version) => binary_payload(version, body)?,
            (PREVIOUS_VERSION, body) => upgrade(binary_payload(PREVIOUS_VERSION, body)?),
            (version, _) => return Err(version_err(version, &reads)),
        }
    } else {
        let text = std::str::from_utf8(bytes).map_err(|_| format_err("not an lrank model file (neither binary nor JSON)"))?;
        match json_doc(text)? {
            (Some(v), doc) if u32::try_from(v).is_ok_and(read_directly) => json_payload(v as u32, doc)?,
            (Some(v), doc) if v == PREVIOUS_VERSION as u64 => upgrade(json_payload(PREVIOUS_VERSION, doc)?),
            (v, _) => return Err(version_err(v.map_or("unknown".to_string(), |v| v.to_string()), &reads)),
        }
    };
    checked(saved)
}

/// Encodes a model file: `binary` or JSON. A JSON file is read back before it is handed over:
/// serde_json writes a NaN or infinite number as `null`, which an f64 field does not read, so a
/// model holding one where its field does not name such numbers is refused now rather than
/// found unloadable later.
pub fn encode<M: Serialize + DeserializeOwned>(saved: &SavedModel<M>, binary: bool) -> Result<Vec<u8>> {
    if binary {
        return to_binary(saved);
    }
    let text = to_json(saved)?;
    let mut doc: serde_json::Value = serde_json::from_str(&text).expect("serde_json reads what it writes");
    file_version::with_version(FORMAT_VERSION, || serde_json::from_value::<M>(doc["model"].take())).map_err(|e| {
        format_err(format!("cannot save this model as JSON, it would not read back ({e}); save it in the binary format"))
    })?;
    Ok(text.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, serde::Deserialize)]
    struct Plain {
        score: f64,
    }

    #[test]
    fn a_json_file_that_would_not_read_back_is_refused_when_saved() {
        let saved = |score| SavedModel { metadata: "{}".into(), model: Plain { score } };
        let text = encode(&saved(0.5), false).unwrap();
        let back: Plain =
            serde_json::from_value(serde_json::from_slice::<serde_json::Value>(&text).unwrap()["model"].clone()).unwrap();
        assert_eq!(back, Plain { score: 0.5 });
        // serde_json writes NaN as null, which an f64 does not read: refused, not written.
        let err = encode(&saved(f64::NAN), false).unwrap_err().to_string();
        assert!(err.contains("cannot save this model as JSON, it would not read back"), "{err}");
        assert!(encode(&saved(f64::NAN), true).is_ok(), "the binary format holds any f64");
    }
}
