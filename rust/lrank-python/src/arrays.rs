//! numpy arrays to core views and back.

use std::borrow::Cow;

use lrank_core::data::features::{FeatureKind, FeatureMatrixView};
use lrank_core::data::ranking::RankMatrixView;
use lrank_core::LrankError as CoreError;
use numpy::ndarray::{Array2, Array3};
use numpy::prelude::*;
use numpy::{Element, PyArray1, PyArray2, PyArray3, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

/// A 2-D array's data as a row-major slice: borrowed when C-contiguous, else copied.
pub struct RowMajor<'a, T: Clone> {
    pub data: Cow<'a, [T]>,
    pub n_rows: usize,
    pub n_cols: usize,
}

pub fn row_major<'a, T: Element + Copy>(a: &'a PyReadonlyArray2<'_, T>) -> RowMajor<'a, T> {
    let s = a.shape();
    // `as_slice` also succeeds on Fortran-ordered arrays, whose memory is column-major.
    let data = match a.as_slice() {
        Ok(s) if a.is_c_contiguous() => Cow::Borrowed(s),
        _ => Cow::Owned(a.as_array().iter().copied().collect()),
    };
    RowMajor { data, n_rows: s[0], n_cols: s[1] }
}

impl RowMajor<'_, f64> {
    pub fn features(&self) -> Result<FeatureMatrixView<'_>, CoreError> {
        FeatureMatrixView::new(&self.data, self.n_rows, self.n_cols)
    }
}

impl RowMajor<'_, i32> {
    pub fn rankings(&self) -> Result<RankMatrixView<'_>, CoreError> {
        RankMatrixView::new(&self.data, self.n_rows, self.n_cols)
    }
}

pub fn vector(w: &Option<PyReadonlyArray1<'_, f64>>) -> Option<Vec<f64>> {
    w.as_ref().map(|w| w.as_array().iter().copied().collect())
}

/// A nominal-feature mask as feature kinds.
pub fn kinds(nominal: &Option<Vec<bool>>) -> Option<Vec<FeatureKind>> {
    nominal.as_ref().map(|mask| mask.iter().map(|&b| if b { FeatureKind::Nominal } else { FeatureKind::Numeric }).collect())
}

pub fn matrix<'py, T: Element>(py: Python<'py>, data: Vec<T>, rows: usize, cols: usize) -> Bound<'py, PyArray2<T>> {
    Array2::from_shape_vec((rows, cols), data).expect("the core returns rows x cols").into_pyarray(py)
}

pub fn cube<'py, T: Element>(py: Python<'py>, data: Vec<T>, shape: (usize, usize, usize)) -> Bound<'py, PyArray3<T>> {
    Array3::from_shape_vec(shape, data).expect("the core returns the shape").into_pyarray(py)
}

pub fn vec1<'py, T: Element>(py: Python<'py>, data: Vec<T>) -> Bound<'py, PyArray1<T>> {
    PyArray1::from_vec(py, data)
}
