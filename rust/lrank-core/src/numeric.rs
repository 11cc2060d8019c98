//! Small numeric and serde helpers shared by every layer.

/// The threshold between two consecutive distinct values: their midpoint, kept strictly below
/// `hi` so that `lo <= threshold < hi` also for neighbouring floats.
pub fn midpoint(lo: f64, hi: f64) -> f64 {
    let t = lo + (hi - lo) / 2.0;
    if t >= hi {
        lo
    } else {
        t
    }
}

/// Weighted values' mean and standard deviation (1 for constant values), as a feature is
/// standardised. Values near the
/// ends of the f64 range would overflow the squares (1e200) or underflow them to 0 (1e-200),
/// and the feature would be ignored; there the values are divided by their largest magnitude
/// first. Elsewhere the plain sums are kept, so ordinary models are bit for bit as before.
pub fn mean_and_scale(present: &[(f64, f64)]) -> (f64, f64) {
    let total: f64 = present.iter().map(|&(_, w)| w).sum();
    if total <= 0.0 {
        return (0.0, 1.0);
    }
    let mean = present.iter().map(|&(v, w)| v * w).sum::<f64>() / total;
    let var = present.iter().map(|&(v, w)| w * (v - mean) * (v - mean)).sum::<f64>() / total;
    let varies = present.iter().any(|&(v, w)| w > 0.0 && v != present[0].0);
    if mean.is_finite() && var.is_finite() && (var >= f64::MIN_POSITIVE || !varies) {
        return (mean, if var > 0.0 { var.sqrt() } else { 1.0 });
    }
    let top = present.iter().map(|&(v, _)| v.abs()).fold(0.0, f64::max);
    let unit_mean = present.iter().map(|&(v, w)| w * (v / top)).sum::<f64>() / total;
    let unit_var = present.iter().map(|&(v, w)| w * (v / top - unit_mean) * (v / top - unit_mean)).sum::<f64>() / total;
    let scale = unit_var.sqrt() * top;
    (unit_mean * top, if scale > 0.0 && scale.is_finite() { scale } else { 1.0 })
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midpoint_stays_below_the_upper_value() {
        assert_eq!(midpoint(1.0, 2.0), 1.5);
        let hi = f64::from_bits(1.0f64.to_bits() + 1);
        let t = midpoint(1.0, hi);
        assert!(1.0 <= t && t < hi);
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
}

/// Serde for the fields through which models nest (a bagged learner's base and members): a
/// forged model file nested thousands deep would otherwise overflow the stack while it is
/// decoded, checked or used. Decoding fails past [`MAX_NESTING`] levels.
pub mod nesting_limited {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer};
    use std::cell::Cell;

    /// Nesting levels a model may have (bagging of bagging of ...); real models have one or two.
    pub const MAX_NESTING: usize = 16;

    thread_local! {
        static DEPTH: Cell<usize> = const { Cell::new(0) };
        static EXCEEDED: Cell<bool> = const { Cell::new(false) };
    }

    /// Whether a decoding on this thread failed for nesting too deep since the last call (binary
    /// decoders do not pass on the error's message).
    pub fn take_exceeded() -> bool {
        EXCEEDED.with(|e| e.replace(false))
    }

    /// Lowers the depth again however the nested decoding ends.
    struct Level;
    impl Drop for Level {
        fn drop(&mut self) {
            DEPTH.with(|d| d.set(d.get() - 1));
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
        let depth = DEPTH.with(|c| {
            c.set(c.get() + 1);
            c.get()
        });
        let _level = Level;
        if depth > MAX_NESTING {
            EXCEEDED.with(|e| e.set(true));
            return Err(D::Error::custom(format!("models nested more than {MAX_NESTING} deep")));
        }
        T::deserialize(d)
    }
}

/// Fields added to a model's layout after it was first written: a file of an older format
/// version has no bytes for them. The model file reader says which version it decodes
/// ([`with_version`](file_version::with_version)); a field marked
/// `#[serde(default, deserialize_with = "crate::numeric::file_version::added_in_4")]` is read
/// from files of version 4 on and takes its default (the behaviour before it existed) in older
/// ones. Outside a model file (parameters as JSON) the field is read when present.
pub mod file_version {
    use serde::{Deserialize, Deserializer};
    use std::cell::Cell;

    thread_local! {
        /// The format version being decoded on this thread; `u32::MAX` outside a model file.
        static DECODING: Cell<u32> = const { Cell::new(u32::MAX) };
    }

    /// Restores the previous version however the decoding ends.
    struct Restore(u32);
    impl Drop for Restore {
        fn drop(&mut self) {
            DECODING.with(|d| d.set(self.0));
        }
    }

    /// Runs `decode` with fields read as a file of `version` holds them.
    pub fn with_version<T>(version: u32, decode: impl FnOnce() -> T) -> T {
        let _restore = Restore(DECODING.with(|d| d.replace(version)));
        decode()
    }

    fn added_in<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(version: u32, d: D) -> Result<T, D::Error> {
        if DECODING.with(Cell::get) < version {
            // Nothing to read: the file predates the field.
            Ok(T::default())
        } else {
            T::deserialize(d)
        }
    }

    /// A field added in model format version 4.
    pub fn added_in_4<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
        added_in(4, d)
    }

    /// A field added in model format version 5.
    pub fn added_in_5<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
        added_in(5, d)
    }

    /// A field added in model format version 6.
    pub fn added_in_6<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
        added_in(6, d)
    }

    /// A field added in model format version 7.
    pub fn added_in_7<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
        added_in(7, d)
    }

    /// A field added in model format version 8.
    pub fn added_in_8<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
        added_in(8, d)
    }

    /// A field added in model format version 9.
    pub fn added_in_9<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
        added_in(9, d)
    }

    /// A field added in model format version 10.
    pub fn added_in_10<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
        added_in(10, d)
    }

    /// A field added in model format version 14.
    pub fn added_in_14<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
        added_in(14, d)
    }

    /// Whether a consensus with ties compares its thresholds with a tolerance: stored from
    /// format 12 on; files of format 11 did (it came with that format), older ones did not.
    pub fn tolerant_ties<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        match DECODING.with(Cell::get) {
            version if version < 12 => Ok(version >= 11),
            _ => bool::deserialize(d),
        }
    }

    /// [`tolerant_ties`] where a JSON document lacks the field: a file's version decides; outside
    /// a model file (parameters from Python), the tolerance.
    pub fn tolerant_ties_default() -> bool {
        DECODING.with(Cell::get) >= 11
    }

    /// Whether a consensus with ties puts labels that no ranking observes in a last bucket of
    /// their own: stored from format 13 on; older files did not (their labels all counted).
    pub fn unobserved_last<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        match DECODING.with(Cell::get) {
            version if version < 13 => Ok(false),
            _ => bool::deserialize(d),
        }
    }

    /// [`unobserved_last`] where a JSON document lacks the field: a file's version decides;
    /// outside a model file (parameters from Python), on.
    pub fn unobserved_last_default() -> bool {
        DECODING.with(Cell::get) >= 13
    }
}

#[cfg(test)]
mod file_version_tests {
    use super::file_version::{added_in_4, with_version};
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    struct Before {
        a: u32,
        b: String,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct After {
        a: u32,
        b: String,
        #[serde(default, deserialize_with = "added_in_4")]
        c: u64,
    }

    #[test]
    fn a_field_added_in_version_4_is_read_from_version_4_and_defaults_before() {
        let old = postcard::to_stdvec(&Before { a: 7, b: "x".into() }).unwrap();
        let expect = After { a: 7, b: "x".into(), c: 0 };
        assert_eq!(with_version(3, || postcard::from_bytes::<After>(&old)).unwrap(), expect);
        // Read as version 4, the old bytes lack the field: an error, not a guess.
        assert!(with_version(4, || postcard::from_bytes::<After>(&old)).is_err());
        let new = postcard::to_stdvec(&After { a: 7, b: "x".into(), c: 9 }).unwrap();
        assert_eq!(with_version(4, || postcard::from_bytes::<After>(&new)).unwrap().c, 9);
        // JSON: a missing field takes the default at any version; outside a file it is read.
        assert_eq!(serde_json::from_str::<After>(r#"{"a":7,"b":"x"}"#).unwrap(), expect);
        assert_eq!(serde_json::from_str::<After>(r#"{"a":7,"b":"x","c":9}"#).unwrap().c, 9);
        // The version is restored after the decoding, even a failed one.
        assert!(with_version(3, || postcard::from_bytes::<After>(&[])).is_err());
        assert_eq!(serde_json::from_str::<After>(r#"{"a":7,"b":"x","c":9}"#).unwrap().c, 9);
    }
}
