//! Feature matrices: row-major `n_rows x n_features` f64 values; NaN marks a missing value.
//!
//! Missing values: a model stores, per feature, the lower median of the training values that are
//! present and uses it in place of every missing value, at fit and at predict time. The lower
//! median of nominal codes is itself a valid code, so this works for coded nominal features too.

use crate::error::{invalid, Result};
use serde::{Deserialize, Serialize};

/// What a feature's values are: numbers, or codes of a nominal attribute's values (compared
/// only for equality: trees split one value against the rest, IBLR counts a mismatch as 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FeatureKind {
    Numeric,
    Nominal,
}

#[derive(Clone, Copy, Debug)]
pub struct FeatureMatrixView<'a> {
    values: &'a [f64],
    n_rows: usize,
    n_features: usize,
    /// One kind per feature; `None`: all numeric.
    kinds: Option<&'a [FeatureKind]>,
}

impl<'a> FeatureMatrixView<'a> {
    /// Checks the shape and that no value is infinite (NaN is allowed: missing).
    pub fn new(values: &'a [f64], n_rows: usize, n_features: usize) -> Result<Self> {
        if values.len() != n_rows * n_features {
            return Err(invalid(format!("feature matrix has {} entries, expected {n_rows} x {n_features}", values.len())));
        }
        if let Some(pos) = values.iter().position(|v| v.is_infinite()) {
            return Err(invalid(format!(
                "feature matrix holds an infinite value at row {}, column {}",
                pos / n_features.max(1),
                pos % n_features.max(1)
            )));
        }
        Ok(FeatureMatrixView { values, n_rows, n_features, kinds: None })
    }

    /// The same view with the kind of each feature (one per column).
    pub fn with_kinds(self, kinds: Option<&'a [FeatureKind]>) -> Result<Self> {
        if let Some(k) = kinds {
            if k.len() != self.n_features {
                return Err(invalid(format!("{} feature kinds given for {} features", k.len(), self.n_features)));
            }
        }
        Ok(FeatureMatrixView { kinds, ..self })
    }

    /// The kinds of the features (`None`: all numeric).
    pub fn kinds(&self) -> Option<&'a [FeatureKind]> {
        self.kinds
    }

    #[inline]
    pub fn kind(&self, f: usize) -> FeatureKind {
        self.kinds.map_or(FeatureKind::Numeric, |k| k[f])
    }

    pub fn n_rows(&self) -> usize {
        self.n_rows
    }
    pub fn n_features(&self) -> usize {
        self.n_features
    }
    pub fn row(&self, i: usize) -> &'a [f64] {
        &self.values[i * self.n_features..(i + 1) * self.n_features]
    }
    #[inline]
    pub fn get(&self, i: usize, f: usize) -> f64 {
        self.values[i * self.n_features + f]
    }
    /// The rows `range` as a view of their own (same kinds).
    pub fn rows(&self, range: std::ops::Range<usize>) -> FeatureMatrixView<'a> {
        let d = self.n_features;
        FeatureMatrixView { values: &self.values[range.start * d..range.end * d], n_rows: range.len(), ..*self }
    }
    pub fn has_missing(&self) -> bool {
        self.values.iter().any(|v| v.is_nan())
    }
}

/// Per-feature lower median of the present values (0 for a feature with none present).
pub fn fill_values(x: &FeatureMatrixView<'_>) -> Vec<f64> {
    (0..x.n_features())
        .map(|f| {
            let mut col: Vec<f64> = (0..x.n_rows()).map(|i| x.get(i, f)).filter(|v| !v.is_nan()).collect();
            if col.is_empty() {
                return 0.0;
            }
            // Selection, not a full sort: the value at that position is the same.
            let mid = (col.len() - 1) / 2;
            *col.select_nth_unstable_by(mid, f64::total_cmp).1
        })
        .collect()
}

/// The training lower medians of a feature matrix, and the matrix with its missing values
/// replaced by them (a copy only when something is missing).
pub struct Filled {
    pub fill: Vec<f64>,
    values: Option<Vec<f64>>,
}

impl Filled {
    pub fn new(x: &FeatureMatrixView<'_>) -> Self {
        let fill = fill_values(x);
        let values = x.has_missing().then(|| filled(x, &fill));
        Filled { fill, values }
    }

    /// `x` (the matrix `new` was given) without missing values, with the same feature kinds.
    pub fn view<'a>(&'a self, x: &FeatureMatrixView<'a>) -> FeatureMatrixView<'a> {
        match &self.values {
            Some(values) => FeatureMatrixView { values, ..*x },
            None => *x,
        }
    }
}

/// Refuses a matrix whose width is not the one a model was fitted on.
pub fn check_n_features(x: &FeatureMatrixView<'_>, expected: usize) -> Result<()> {
    if x.n_features() != expected {
        return Err(invalid(format!("X has {} features but the model was fitted on {expected}", x.n_features())));
    }
    Ok(())
}

/// A copy of `x` with missing values replaced by `fill`.
pub fn filled(x: &FeatureMatrixView<'_>, fill: &[f64]) -> Vec<f64> {
    let d = x.n_features();
    x.values.iter().enumerate().map(|(k, &v)| if v.is_nan() { fill[k % d] } else { v }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_filling() {
        let v = [1.0, f64::NAN, 3.0, 2.0, f64::NAN, f64::NAN, 2.0, 5.0];
        let x = FeatureMatrixView::new(&v, 4, 2).unwrap();
        assert!(x.has_missing());
        // column 0 holds 1, 3, 2 -> lower median 2; column 1 holds 2, 5 -> lower median 2
        let fill = fill_values(&x);
        assert_eq!(fill, vec![2.0, 2.0]);
        assert_eq!(filled(&x, &fill)[1], 2.0);
    }

    #[test]
    fn rejects_bad_shape_and_infinity() {
        assert!(FeatureMatrixView::new(&[1.0, 2.0, 3.0], 2, 2).is_err());
        let err = FeatureMatrixView::new(&[1.0, f64::INFINITY], 1, 2).unwrap_err();
        assert!(err.to_string().contains("row 0, column 1"));
    }
}
