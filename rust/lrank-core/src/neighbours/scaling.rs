//! Putting features on a common scale before the Euclidean distance of the instance-based
//! learners: each numeric feature's offset and divisor, from the training data.

use crate::data::features::FeatureMatrixView;
use crate::error::{invalid, Result};
use serde::{Deserialize, Serialize};

/// How numeric features are put on a common scale before the Euclidean distance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scaling {
    /// (x - min) / (max - min) on the training data, as IBLR (and WEKA's IBk) does.
    #[default]
    MinMax,
    /// (x - mean) / standard deviation on the training data.
    Standard,
    /// The values as they are (data already on one scale; scikit-lr's kNN).
    None,
}

/// Per feature, the offset and the divisor of the scaling (0 and 1 for nominal and constant
/// features); a feature whose range no float holds (from -1e308 to 1e308) cannot be min-max
/// scaled and is refused by name.
pub fn scale_of(x: &FeatureMatrixView<'_>, fill: &[f64], nominal: &[bool], scaling: Scaling) -> Result<(Vec<f64>, Vec<f64>)> {
    let (n, d) = (x.n_rows(), x.n_features());
    let column = |f: usize| (0..n).map(move |i| value_or_fill(x.get(i, f), fill[f]));
    let mut scales = (Vec::with_capacity(d), Vec::with_capacity(d));
    #[allow(clippy::needless_range_loop)] // f indexes the view's columns too
    for f in 0..d {
        let (offset, divisor) = match scaling {
            _ if nominal[f] || n == 0 => (0.0, 1.0),
            Scaling::None => (0.0, 1.0),
            Scaling::MinMax => {
                let (lo, hi) = column(f).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
                if (hi - lo).is_infinite() {
                    return Err(invalid(format!(
                        "feature {f} spans {lo:e} to {hi:e}, a range too wide to scale distances by (the scalings none and standard can)"
                    )));
                }
                (lo, hi - lo)
            }
            Scaling::Standard => crate::numeric::mean_and_scale(&column(f).map(|v| (v, 1.0)).collect::<Vec<_>>()),
        };
        // A constant feature is only shifted.
        scales.0.push(offset);
        scales.1.push(if divisor > 0.0 && divisor.is_finite() { divisor } else { 1.0 });
    }
    Ok(scales)
}

/// A feature's value, or `fill` (the training lower median) when it is missing.
#[inline]
pub fn value_or_fill(v: f64, fill: f64) -> f64 {
    if v.is_nan() {
        fill
    } else {
        v
    }
}
