//! `lrank._core`: thin Python bindings of lrank-core. This crate only converts types; all
//! behaviour lives in the core. Every call into the core goes through [`run_core`], which
//! releases the GIL, applies the thread count, maps core errors to the typed exceptions of
//! `lrank.errors`, and turns a Rust panic into `LrankError` so that no panic reaches Python.

// PyO3 signatures return tuples of bound arrays; naming each would not make them clearer.
#![allow(clippy::type_complexity)]

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use lrank_core::evaluation::{pairwise_matrix as core_pairwise, row_measures as core_row_measures};
use lrank_core::features::{FeatureKind, FeatureMatrixView};
use lrank_core::forest::{ClassMode, RandomForestModel as CoreForest, RandomForestParams};
use lrank_core::label_tree::{LabelTreeModel as CoreLabelTree, LabelTreeParams};
use lrank_core::learner::LearnerParams;
use lrank_core::model_io::{self, Model, SavedModel, FORMAT_VERSION};
use lrank_core::neighbors::{InstanceBasedModel as CoreInstanceBased, InstanceBasedParams};
use lrank_core::ranking::RankMatrixView;
use lrank_core::tree::{MaxFeatures, ThresholdRule};
use lrank_core::{aggregation, LrankError as CoreError};
use numpy::ndarray::{Array2, Array3};
use numpy::prelude::*;
use numpy::{Element, PyArray1, PyArray2, PyArray3, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

pyo3::import_exception!(lrank.errors, LrankError);
pyo3::import_exception!(lrank.errors, InvalidInputError);
pyo3::import_exception!(lrank.errors, ModelFormatError);

fn to_py_err(e: CoreError) -> PyErr {
    match e {
        CoreError::ModelFormat(_) => ModelFormatError::new_err(e.to_string()),
        _ => InvalidInputError::new_err(e.to_string()),
    }
}

/// Runs core work with the GIL released on `n_jobs` threads (None: all cores).
fn run_core<T: Send>(py: Python<'_>, n_jobs: Option<usize>, work: impl FnOnce() -> Result<T, CoreError> + Send) -> PyResult<T> {
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(|| lrank_core::parallel::with_threads(n_jobs, work))));
    match outcome {
        Ok(Ok(Ok(value))) => Ok(value),
        Ok(Ok(Err(e))) | Ok(Err(e)) => Err(to_py_err(e)),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(LrankError::new_err(format!("internal error in lrank (please report it): {msg}")))
        }
    }
}

/// The array's data as a row-major slice: borrowed when C-contiguous, else copied.
fn row_major<'a, T: Element + Copy>(a: &'a PyReadonlyArray2<'_, T>) -> Cow<'a, [T]> {
    // `as_slice` also succeeds on Fortran-ordered arrays, whose memory is column-major.
    match a.as_slice() {
        Ok(s) if a.is_c_contiguous() => Cow::Borrowed(s),
        _ => Cow::Owned(a.as_array().iter().copied().collect()),
    }
}

fn shape2<T: Element>(a: &PyReadonlyArray2<'_, T>) -> (usize, usize) {
    let s = a.shape();
    (s[0], s[1])
}

/// The training data of a `fit`: X, Y, sample weights and which features are nominal.
struct TrainingArrays<'a, 'py> {
    x: &'a PyReadonlyArray2<'py, f64>,
    y: &'a PyReadonlyArray2<'py, i32>,
    sample_weight: &'a Option<PyReadonlyArray1<'py, f64>>,
    nominal: &'a Option<Vec<bool>>,
}

/// Runs a core `fit` on views of X (with its feature kinds), Y and the sample weights
/// (borrowed when C-contiguous).
fn fit_core<T: Send>(
    py: Python<'_>,
    n_jobs: Option<usize>,
    data: TrainingArrays<'_, '_>,
    fit: impl FnOnce(&FeatureMatrixView<'_>, &RankMatrixView<'_>, Option<&[f64]>) -> Result<T, CoreError> + Send,
) -> PyResult<T> {
    let ((n, d), (ny, m)) = (shape2(data.x), shape2(data.y));
    let (xs, ys, w) = (row_major(data.x), row_major(data.y), weights_vec(data.sample_weight));
    let kinds: Option<Vec<FeatureKind>> = data
        .nominal
        .as_ref()
        .map(|mask| mask.iter().map(|&b| if b { FeatureKind::Nominal } else { FeatureKind::Numeric }).collect());
    run_core(py, n_jobs, || {
        let x = FeatureMatrixView::new(&xs, n, d)?.with_kinds(kinds.as_deref())?;
        fit(&x, &RankMatrixView::new(&ys, ny, m)?, w.as_deref())
    })
}

/// Runs a core `predict` on a view of X.
fn predict_core<T: Send>(
    py: Python<'_>,
    n_jobs: Option<usize>,
    x: &PyReadonlyArray2<'_, f64>,
    predict: impl FnOnce(&FeatureMatrixView<'_>) -> Result<T, CoreError> + Send,
) -> PyResult<T> {
    let (n, d) = shape2(x);
    let xs = row_major(x);
    run_core(py, n_jobs, || predict(&FeatureMatrixView::new(&xs, n, d)?))
}

fn weights_vec(w: &Option<PyReadonlyArray1<'_, f64>>) -> Option<Vec<f64>> {
    w.as_ref().map(|w| w.as_array().iter().copied().collect())
}

fn n_jobs_arg(n_jobs: Option<i64>) -> PyResult<Option<usize>> {
    match n_jobs {
        None | Some(-1) => Ok(None),
        Some(n) if n > 0 => Ok(Some(n as usize)),
        Some(n) => Err(InvalidInputError::new_err(format!("n_jobs must be a positive number of threads or -1, got {n}"))),
    }
}

fn max_features_arg(obj: &Bound<'_, PyAny>) -> PyResult<MaxFeatures> {
    if obj.is_none() {
        return Ok(MaxFeatures::All);
    }
    if let Ok(s) = obj.extract::<String>() {
        return match s.as_str() {
            "log2+1" => Ok(MaxFeatures::Log2PlusOne),
            "sqrt" => Ok(MaxFeatures::Sqrt),
            "all" => Ok(MaxFeatures::All),
            _ => Err(InvalidInputError::new_err(format!(
                "max_features must be 'log2+1', 'sqrt', 'all', None, an int or a float in (0, 1], got {s:?}"
            ))),
        };
    }
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err("max_features cannot be a bool"));
    }
    if let Ok(k) = obj.extract::<i64>() {
        if k < 1 {
            return Err(InvalidInputError::new_err(format!("max_features must be at least 1, got {k}")));
        }
        return Ok(MaxFeatures::Count(k as usize));
    }
    if let Ok(f) = obj.extract::<f64>() {
        return Ok(MaxFeatures::Fraction(f));
    }
    Err(PyTypeError::new_err("max_features must be a str, int, float or None"))
}

fn threshold_rule_arg(rule: &str) -> PyResult<ThresholdRule> {
    match rule {
        "best" => Ok(ThresholdRule::Best),
        "equal_width" => Ok(ThresholdRule::EqualWidth),
        "equal_frequency" => Ok(ThresholdRule::EqualFrequency),
        other => Err(InvalidInputError::new_err(format!(
            "threshold_rule must be 'best', 'equal_width' or 'equal_frequency', got {other:?}"
        ))),
    }
}

fn threshold_rule_name(rule: ThresholdRule) -> &'static str {
    match rule {
        ThresholdRule::Best => "best",
        ThresholdRule::EqualWidth => "equal_width",
        ThresholdRule::EqualFrequency => "equal_frequency",
    }
}

fn max_features_name(m: MaxFeatures) -> String {
    match m {
        MaxFeatures::Log2PlusOne => "log2+1".into(),
        MaxFeatures::Sqrt => "sqrt".into(),
        MaxFeatures::All => "all".into(),
        MaxFeatures::Count(k) => k.to_string(),
        MaxFeatures::Fraction(f) => f.to_string(),
    }
}

/// A fitted LR-RF forest (Zhou & Qiu 2018).
#[pyclass(frozen, module = "lrank._core")]
struct RandomForestModel {
    inner: CoreForest,
}

#[pymethods]
impl RandomForestModel {
    #[staticmethod]
    #[pyo3(signature = (x, y, sample_weight=None, *, n_estimators=50, max_depth=Some(8), max_features=None,
                        class_mode="ranking", bootstrap=true, seed=0, n_jobs=None, nominal=None))]
    #[allow(clippy::too_many_arguments)]
    fn fit(
        py: Python<'_>,
        x: PyReadonlyArray2<'_, f64>,
        y: PyReadonlyArray2<'_, i32>,
        sample_weight: Option<PyReadonlyArray1<'_, f64>>,
        n_estimators: usize,
        max_depth: Option<usize>,
        max_features: Option<Bound<'_, PyAny>>,
        class_mode: &str,
        bootstrap: bool,
        seed: u64,
        n_jobs: Option<i64>,
        nominal: Option<Vec<bool>>,
    ) -> PyResult<Self> {
        let class_mode = match class_mode {
            "top_label" => ClassMode::TopLabel,
            "ranking" => ClassMode::Ranking,
            "pairwise" => ClassMode::Pairwise,
            other => {
                return Err(InvalidInputError::new_err(format!(
                    "class_mode must be 'ranking', 'top_label' or 'pairwise', got {other:?}"
                )))
            }
        };
        let max_features = match &max_features {
            None => MaxFeatures::Log2PlusOne,
            Some(obj) => max_features_arg(obj)?,
        };
        let params =
            RandomForestParams { n_estimators, max_depth, max_features, class_mode, bootstrap, seed, ..Default::default() };
        let data = TrainingArrays { x: &x, y: &y, sample_weight: &sample_weight, nominal: &nominal };
        let inner = fit_core(py, n_jobs_arg(n_jobs)?, data, |x, y, w| CoreForest::fit(x, y, w, params))?;
        Ok(RandomForestModel { inner })
    }

    /// Predicted rank matrix (n x m, int32, complete rankings).
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<i32>>> {
        let n = shape2(&x).0;
        let out = predict_core(py, n_jobs_arg(n_jobs)?, &x, |x| self.inner.predict(x))?;
        let arr = Array2::from_shape_vec((n, self.inner.n_labels), out).expect("core returns n x m");
        Ok(arr.into_pyarray(py))
    }

    /// Every tree's ranking for every row (n x n_estimators x m, int32).
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict_per_tree<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray3<i32>>> {
        let n = shape2(&x).0;
        let out = predict_core(py, n_jobs_arg(n_jobs)?, &x, |x| self.inner.predict_per_tree(x))?;
        let arr = Array3::from_shape_vec((n, self.inner.trees.len(), self.inner.n_labels), out).expect("core shape");
        Ok(arr.into_pyarray(py))
    }

    #[getter]
    fn n_features(&self) -> usize {
        self.inner.n_features
    }
    #[getter]
    fn n_labels(&self) -> usize {
        self.inner.n_labels
    }
    #[getter]
    fn n_estimators(&self) -> usize {
        self.inner.trees.len()
    }
    /// Splits on the longest root-to-leaf path of each tree.
    fn tree_depths(&self) -> Vec<usize> {
        self.inner.trees.iter().map(|t| t.depth()).collect()
    }
    fn tree_n_leaves(&self) -> Vec<usize> {
        self.inner.trees.iter().map(|t| t.n_leaves()).collect()
    }
    /// Training-set lower medians used in place of missing feature values.
    #[getter]
    fn fill_values(&self) -> Vec<f64> {
        self.inner.fill_values.clone()
    }
    /// The parameters the forest was fitted with.
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = &self.inner.params;
        let d = PyDict::new(py);
        d.set_item("n_estimators", p.n_estimators)?;
        d.set_item("max_depth", p.max_depth)?;
        d.set_item("max_features", max_features_name(p.max_features))?;
        d.set_item(
            "class_mode",
            match p.class_mode {
                ClassMode::TopLabel => "top_label",
                ClassMode::Ranking => "ranking",
                ClassMode::Pairwise => "pairwise",
            },
        )?;
        d.set_item("bootstrap", p.bootstrap)?;
        d.set_item("seed", p.seed)?;
        Ok(d)
    }
    fn __eq__(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
    fn __repr__(&self) -> String {
        format!(
            "RandomForestModel(n_estimators={}, n_features={}, n_labels={})",
            self.inner.trees.len(),
            self.inner.n_features,
            self.inner.n_labels
        )
    }
    /// Pickle support through the versioned binary model format.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        reduce_model(py, Model::RandomForest(self.inner.clone()))
    }
}

/// A fitted IBLR model (instance-based label ranking with the Mallows model).
#[pyclass(frozen, module = "lrank._core")]
struct InstanceBasedModel {
    inner: CoreInstanceBased,
}

#[pymethods]
impl InstanceBasedModel {
    #[staticmethod]
    #[pyo3(signature = (x, y, sample_weight=None, *, k=None, max_iter=20, seed=0, n_jobs=None, nominal=None))]
    #[allow(clippy::too_many_arguments)]
    fn fit(
        py: Python<'_>,
        x: PyReadonlyArray2<'_, f64>,
        y: PyReadonlyArray2<'_, i32>,
        sample_weight: Option<PyReadonlyArray1<'_, f64>>,
        k: Option<usize>,
        max_iter: usize,
        seed: u64,
        n_jobs: Option<i64>,
        nominal: Option<Vec<bool>>,
    ) -> PyResult<Self> {
        let params = InstanceBasedParams { k, max_iter, seed, ..Default::default() };
        let data = TrainingArrays { x: &x, y: &y, sample_weight: &sample_weight, nominal: &nominal };
        let inner = fit_core(py, n_jobs_arg(n_jobs)?, data, |x, y, w| CoreInstanceBased::fit(x, y, w, params))?;
        Ok(InstanceBasedModel { inner })
    }

    /// Predicted rank matrix (n x m, int32) and each row's Mallows spread theta (float64).
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<(Bound<'py, PyArray2<i32>>, Bound<'py, PyArray1<f64>>)> {
        let n = shape2(&x).0;
        let (ranks, theta) = predict_core(py, n_jobs_arg(n_jobs)?, &x, |x| self.inner.predict(x))?;
        let arr = Array2::from_shape_vec((n, self.inner.n_labels), ranks).expect("core returns n x m");
        Ok((arr.into_pyarray(py), PyArray1::from_vec(py, theta)))
    }

    /// Predicted rank matrix (n x m, int32) alone (the confidences are not computed).
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict_ranks<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<i32>>> {
        let n = shape2(&x).0;
        let ranks = predict_core(py, n_jobs_arg(n_jobs)?, &x, |x| self.inner.predict_ranks(x))?;
        Ok(Array2::from_shape_vec((n, self.inner.n_labels), ranks).expect("core returns n x m").into_pyarray(py))
    }

    #[getter]
    fn k(&self) -> usize {
        self.inner.k
    }
    /// Leave-one-out mean Kendall tau of each candidate k (empty when k was given).
    #[getter]
    fn k_scores(&self) -> Vec<(usize, f64)> {
        self.inner.k_scores.iter().map(|s| (s.k, s.tau)).collect()
    }
    #[getter]
    fn n_features(&self) -> usize {
        self.inner.n_features
    }
    #[getter]
    fn n_labels(&self) -> usize {
        self.inner.n_labels
    }
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = &self.inner.params;
        let d = PyDict::new(py);
        d.set_item("k", p.k)?;
        d.set_item("max_iter", p.max_iter)?;
        d.set_item("seed", p.seed)?;
        Ok(d)
    }
    fn __eq__(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
    fn __repr__(&self) -> String {
        format!("InstanceBasedModel(k={}, n_features={}, n_labels={})", self.inner.k, self.inner.n_features, self.inner.n_labels)
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        reduce_model(py, Model::InstanceBased(self.inner.clone()))
    }
}

/// A fitted LRT label ranking tree (Cheng, Hühn & Hüllermeier 2009).
#[pyclass(frozen, module = "lrank._core")]
struct LabelTreeModel {
    inner: CoreLabelTree,
}

#[pymethods]
impl LabelTreeModel {
    #[staticmethod]
    #[pyo3(signature = (x, y, sample_weight=None, *, max_depth=None, min_weight_split=None, max_iter=20, seed=0,
                        threshold_rule="best", n_jobs=None, nominal=None))]
    #[allow(clippy::too_many_arguments)]
    fn fit(
        py: Python<'_>,
        x: PyReadonlyArray2<'_, f64>,
        y: PyReadonlyArray2<'_, i32>,
        sample_weight: Option<PyReadonlyArray1<'_, f64>>,
        max_depth: Option<usize>,
        min_weight_split: Option<f64>,
        max_iter: usize,
        seed: u64,
        threshold_rule: &str,
        n_jobs: Option<i64>,
        nominal: Option<Vec<bool>>,
    ) -> PyResult<Self> {
        let threshold_rule = threshold_rule_arg(threshold_rule)?;
        let params = LabelTreeParams { max_depth, min_weight_split, max_iter, seed, threshold_rule };
        let data = TrainingArrays { x: &x, y: &y, sample_weight: &sample_weight, nominal: &nominal };
        let inner = fit_core(py, n_jobs_arg(n_jobs)?, data, |x, y, w| CoreLabelTree::fit(x, y, w, params))?;
        Ok(LabelTreeModel { inner })
    }

    /// Predicted rank matrix (n x m, int32) and each row's leaf spread theta (float64).
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<(Bound<'py, PyArray2<i32>>, Bound<'py, PyArray1<f64>>)> {
        let n = shape2(&x).0;
        let (ranks, theta) = predict_core(py, n_jobs_arg(n_jobs)?, &x, |x| self.inner.predict(x))?;
        let arr = Array2::from_shape_vec((n, self.inner.n_labels), ranks).expect("core returns n x m");
        Ok((arr.into_pyarray(py), PyArray1::from_vec(py, theta)))
    }

    #[getter]
    fn n_features(&self) -> usize {
        self.inner.n_features
    }
    #[getter]
    fn n_labels(&self) -> usize {
        self.inner.n_labels
    }
    #[getter]
    fn n_leaves(&self) -> usize {
        self.inner.tree.n_leaves()
    }
    #[getter]
    fn depth(&self) -> usize {
        self.inner.tree.depth()
    }
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = &self.inner.params;
        let d = PyDict::new(py);
        d.set_item("max_depth", p.max_depth)?;
        d.set_item("min_weight_split", p.min_weight_split)?;
        d.set_item("max_iter", p.max_iter)?;
        d.set_item("seed", p.seed)?;
        d.set_item("threshold_rule", threshold_rule_name(p.threshold_rule))?;
        Ok(d)
    }
    fn __eq__(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
    fn __repr__(&self) -> String {
        format!(
            "LabelTreeModel(n_leaves={}, n_features={}, n_labels={})",
            self.inner.tree.n_leaves(),
            self.inner.n_features,
            self.inner.n_labels
        )
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        reduce_model(py, Model::LabelTree(self.inner.clone()))
    }
}

/// Pickle support through the versioned binary model format.
fn reduce_model<'py>(py: Python<'py>, model: Model) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
    let saved = SavedModel { metadata: "{}".into(), model };
    let bytes = run_core(py, Some(1), || model_io::to_binary(&saved))?;
    let rebuild = py.import("lrank._core")?.getattr("_model_from_bytes")?;
    Ok((rebuild, (PyBytes::new(py, &bytes),)))
}

/// Any fitted learner of the core, fitted from its parameters in JSON (the serde form of
/// `lrank_core::learner::LearnerParams`, e.g. `{"Bagging": {...}}`). The newer learners use
/// only this class; the first three also have classes of their own.
#[pyclass(frozen, module = "lrank._core")]
struct LearnerModel {
    inner: Model,
}

fn parse_params(params: &str) -> PyResult<LearnerParams> {
    serde_json::from_str(params).map_err(|e| InvalidInputError::new_err(format!("invalid learner parameters: {e}")))
}

#[pymethods]
impl LearnerModel {
    #[staticmethod]
    #[pyo3(signature = (params, x, y, sample_weight=None, *, n_jobs=None, nominal=None))]
    #[allow(clippy::too_many_arguments)]
    fn fit(
        py: Python<'_>,
        params: &str,
        x: PyReadonlyArray2<'_, f64>,
        y: PyReadonlyArray2<'_, i32>,
        sample_weight: Option<PyReadonlyArray1<'_, f64>>,
        n_jobs: Option<i64>,
        nominal: Option<Vec<bool>>,
    ) -> PyResult<Self> {
        let params = parse_params(params)?;
        let data = TrainingArrays { x: &x, y: &y, sample_weight: &sample_weight, nominal: &nominal };
        let inner = fit_core(py, n_jobs_arg(n_jobs)?, data, |x, y, w| params.fit(x, y, w))?;
        Ok(LearnerModel { inner })
    }

    /// Predicted rank matrix (n x m, int32, complete rankings).
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<i32>>> {
        let n = shape2(&x).0;
        let out = predict_core(py, n_jobs_arg(n_jobs)?, &x, |x| self.inner.predict(x))?;
        Ok(Array2::from_shape_vec((n, self.inner.n_labels()), out).expect("core returns n x m").into_pyarray(py))
    }

    /// Predicted rank matrix and a per-row confidence, or None for learners without one.
    #[pyo3(signature = (x, n_jobs=None))]
    #[allow(clippy::type_complexity)]
    fn predict_with_confidence<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<(Bound<'py, PyArray2<i32>>, Option<Bound<'py, PyArray1<f64>>>)> {
        let n = shape2(&x).0;
        let (ranks, conf) = predict_core(py, n_jobs_arg(n_jobs)?, &x, |x| self.inner.predict_with_confidence(x))?;
        let arr = Array2::from_shape_vec((n, self.inner.n_labels()), ranks).expect("core returns n x m");
        Ok((arr.into_pyarray(py), conf.map(|c| PyArray1::from_vec(py, c))))
    }

    /// The label scores behind the ranking (n x m, float64), for learners that have them
    /// (labelwise: predicted relative positions, lower preferred); None otherwise.
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict_scores<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        let n = shape2(&x).0;
        let out = predict_core(py, n_jobs_arg(n_jobs)?, &x, |x| self.inner.predict_scores(x))?;
        Ok(out.map(|s| Array2::from_shape_vec((n, self.inner.n_labels()), s).expect("core returns n x m").into_pyarray(py)))
    }

    /// What the fitted model found out (tuned settings, sizes), as JSON.
    fn summary_json(&self) -> String {
        self.inner.summary().to_string()
    }

    /// An ensemble's members' rankings (members x n x m, int32).
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict_per_member<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray3<i32>>> {
        let Model::Bagging(bag) = &self.inner else {
            return Err(InvalidInputError::new_err(format!("a {} model has no members", model_kind(&self.inner))));
        };
        let n = shape2(&x).0;
        let out = predict_core(py, n_jobs_arg(n_jobs)?, &x, |x| bag.predict_per_member(x))?;
        let arr = Array3::from_shape_vec((bag.members.len(), n, bag.n_labels), out).expect("core shape");
        Ok(arr.into_pyarray(py))
    }

    /// The learner's name in the core ("Bagging", ...).
    #[getter]
    fn kind(&self) -> &'static str {
        model_kind(&self.inner)
    }
    #[getter]
    fn n_features(&self) -> usize {
        self.inner.n_features()
    }
    #[getter]
    fn n_labels(&self) -> usize {
        self.inner.n_labels()
    }
    /// The parameters the model was fitted with, as JSON.
    fn params_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner.params()).map_err(|e| LrankError::new_err(e.to_string()))
    }
    fn __eq__(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
    fn __repr__(&self) -> String {
        format!(
            "LearnerModel(kind={}, n_features={}, n_labels={})",
            model_kind(&self.inner),
            self.inner.n_features(),
            self.inner.n_labels()
        )
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        reduce_model(py, self.inner.clone())
    }
}

fn model_kind(model: &Model) -> &'static str {
    match model {
        Model::RandomForest(_) => "RandomForest",
        Model::InstanceBased(_) => "InstanceBased",
        Model::LabelTree(_) => "LabelTree",
        Model::Bagging(_) => "Bagging",
        Model::Labelwise(_) => "Labelwise",
        Model::Pairwise(_) => "Pairwise",
        Model::Rpc(_) => "Rpc",
    }
}

#[derive(FromPyObject)]
enum ModelRef<'py> {
    Forest(Bound<'py, RandomForestModel>),
    InstanceBased(Bound<'py, InstanceBasedModel>),
    LabelTree(Bound<'py, LabelTreeModel>),
    Learner(Bound<'py, LearnerModel>),
}

fn saved_from(model: ModelRef<'_>, metadata: &str) -> SavedModel {
    let model = match model {
        ModelRef::Forest(f) => Model::RandomForest(f.get().inner.clone()),
        ModelRef::InstanceBased(m) => Model::InstanceBased(m.get().inner.clone()),
        ModelRef::LabelTree(m) => Model::LabelTree(m.get().inner.clone()),
        ModelRef::Learner(m) => m.get().inner.clone(),
    };
    SavedModel { metadata: metadata.to_string(), model }
}

fn model_to_py(py: Python<'_>, model: Model) -> PyResult<Py<PyAny>> {
    match model {
        Model::RandomForest(inner) => Ok(Py::new(py, RandomForestModel { inner })?.into_any()),
        Model::InstanceBased(inner) => Ok(Py::new(py, InstanceBasedModel { inner })?.into_any()),
        Model::LabelTree(inner) => Ok(Py::new(py, LabelTreeModel { inner })?.into_any()),
        other => Ok(Py::new(py, LearnerModel { inner: other })?.into_any()),
    }
}

/// Encodes a model and caller metadata (JSON text) as a model file: "binary" or "json".
#[pyfunction]
#[pyo3(signature = (model, metadata="{}", format="binary"))]
fn save_model<'py>(py: Python<'py>, model: ModelRef<'py>, metadata: &str, format: &str) -> PyResult<Bound<'py, PyAny>> {
    let saved = saved_from(model, metadata);
    match format {
        "binary" => {
            let bytes = run_core(py, Some(1), || model_io::to_binary(&saved))?;
            Ok(PyBytes::new(py, &bytes).into_any())
        }
        "json" => {
            let text = run_core(py, Some(1), || model_io::to_json(&saved))?;
            Ok(PyBytes::new(py, text.as_bytes()).into_any())
        }
        other => Err(InvalidInputError::new_err(format!("format must be 'binary' or 'json', got {other:?}"))),
    }
}

/// Decodes a model file (binary or JSON, recognised by content): returns (model, metadata JSON).
#[pyfunction]
fn load_model(py: Python<'_>, data: &[u8]) -> PyResult<(Py<PyAny>, String)> {
    let saved = run_core(py, Some(1), || {
        if data.starts_with(b"LRANKMDL") {
            model_io::from_binary(data)
        } else {
            let text = std::str::from_utf8(data)
                .map_err(|_| CoreError::ModelFormat("not an lrank model file (neither binary nor JSON)".into()))?;
            model_io::from_json(text)
        }
    })?;
    Ok((model_to_py(py, saved.model)?, saved.metadata))
}

/// Unpickling helper: the model from binary model-file bytes.
#[pyfunction]
fn _model_from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Py<PyAny>> {
    Ok(load_model(py, data)?.0)
}

fn two_rank_matrices<'a>(
    a: &'a PyReadonlyArray2<'_, i32>,
    b: &'a PyReadonlyArray2<'_, i32>,
) -> ((usize, usize), (usize, usize), Cow<'a, [i32]>, Cow<'a, [i32]>) {
    (shape2(a), shape2(b), row_major(a), row_major(b))
}

/// Per-row ranking measures of predictions against true rankings (dict of float64 arrays).
#[pyfunction]
fn row_measures<'py>(
    py: Python<'py>,
    y_true: PyReadonlyArray2<'py, i32>,
    y_pred: PyReadonlyArray2<'py, i32>,
) -> PyResult<Bound<'py, PyDict>> {
    let ((nt, mt), (np_, mp), t, p) = two_rank_matrices(&y_true, &y_pred);
    let m = run_core(py, Some(1), || core_row_measures(&RankMatrixView::new(&t, nt, mt)?, &RankMatrixView::new(&p, np_, mp)?))?;
    let d = PyDict::new(py);
    d.set_item("kendall_tau", PyArray1::from_vec(py, m.kendall_tau))?;
    d.set_item("spearman_rho", PyArray1::from_vec(py, m.spearman_rho))?;
    d.set_item("footrule", PyArray1::from_vec(py, m.footrule))?;
    d.set_item("normalized_footrule", PyArray1::from_vec(py, m.normalized_footrule))?;
    d.set_item("top_label_correct", PyArray1::from_vec(py, m.top_label_correct))?;
    d.set_item("exact_match", PyArray1::from_vec(py, m.exact_match))?;
    Ok(d)
}

/// (correct, incorrect) m x m counts over label pairs ordered by the true rankings.
#[pyfunction]
fn pairwise_matrix<'py>(
    py: Python<'py>,
    y_true: PyReadonlyArray2<'py, i32>,
    y_pred: PyReadonlyArray2<'py, i32>,
) -> PyResult<(Bound<'py, PyArray2<u64>>, Bound<'py, PyArray2<u64>>)> {
    let ((nt, mt), (np_, mp), t, p) = two_rank_matrices(&y_true, &y_pred);
    let (c, i) = run_core(py, Some(1), || core_pairwise(&RankMatrixView::new(&t, nt, mt)?, &RankMatrixView::new(&p, np_, mp)?))?;
    let c = Array2::from_shape_vec((mt, mt), c).expect("m x m");
    let i = Array2::from_shape_vec((mt, mt), i).expect("m x m");
    Ok((c.into_pyarray(py), i.into_pyarray(py)))
}

/// Generalized Borda votes of each label over the rows of a rank matrix.
#[pyfunction]
#[pyo3(signature = (y, weights=None))]
fn borda_scores<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let ((n, m), ys, w) = (shape2(&y), row_major(&y), weights_vec(&weights));
    let scores = run_core(py, Some(1), || {
        let view = RankMatrixView::new(&ys, n, m)?;
        if let Some(w) = &w {
            if w.len() != n {
                return Err(CoreError::InvalidInput(format!("weights has {} entries, expected {n}", w.len())));
            }
        }
        Ok(aggregation::borda_scores(&view, w.as_deref()))
    })?;
    Ok(PyArray1::from_vec(py, scores))
}

/// Consensus ranking (rank vector) by generalized Borda; ties to the lower label index.
#[pyfunction]
#[pyo3(signature = (y, weights=None))]
fn borda<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let scores = borda_scores(py, y, weights)?;
    let scores: Vec<f64> = scores.readonly().as_array().to_vec();
    Ok(PyArray1::from_vec(py, lrank_core::ranking::ranking_from_scores(&scores)))
}

/// Copeland consensus (rank vector): pairwise majority wins, a tie half a win; ties to the lower label.
#[pyfunction]
#[pyo3(signature = (y, weights=None))]
fn copeland<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let ((n, m), ys, w) = (shape2(&y), row_major(&y), weights_vec(&weights));
    let centre = run_core(py, Some(1), || {
        let view = RankMatrixView::new(&ys, n, m)?;
        if let Some(w) = &w {
            if w.len() != n {
                return Err(CoreError::InvalidInput(format!("weights has {} entries, expected {n}", w.len())));
            }
        }
        Ok(aggregation::copeland(&view, w.as_deref()))
    })?;
    Ok(PyArray1::from_vec(py, centre))
}

/// Exact Kemeny consensus (rank vector) by dynamic programming over label subsets (m <= 16).
#[pyfunction]
#[pyo3(signature = (y, weights=None))]
fn kemeny<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let ((n, m), ys, w) = (shape2(&y), row_major(&y), weights_vec(&weights));
    let centre = run_core(py, Some(1), || lrank_core::mallows::kemeny(&RankMatrixView::new(&ys, n, m)?, w.as_deref()))?;
    Ok(PyArray1::from_vec(py, centre))
}

/// Mallows model fitted by the approximate EM of Cheng et al. (2009): (centre, theta, iterations, converged).
#[pyfunction]
#[pyo3(signature = (y, weights=None, max_iter=20))]
fn fit_mallows<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    max_iter: usize,
) -> PyResult<(Bound<'py, PyArray1<i32>>, f64, usize, bool)> {
    let ((n, m), ys, w) = (shape2(&y), row_major(&y), weights_vec(&weights));
    let fit =
        run_core(py, Some(1), || lrank_core::mallows::fit_mallows(&RankMatrixView::new(&ys, n, m)?, w.as_deref(), max_iter))?;
    Ok((PyArray1::from_vec(py, fit.centre), fit.theta, fit.iterations, fit.converged))
}

/// Plackett-Luce skills by Hunter's MM algorithm: (skills, iterations, converged).
#[pyfunction]
#[pyo3(signature = (y, weights=None, max_iter=1000, tol=1e-9))]
fn fit_plackett_luce<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    max_iter: usize,
    tol: f64,
) -> PyResult<(Bound<'py, PyArray1<f64>>, usize, bool)> {
    let ((n, m), ys, w) = (shape2(&y), row_major(&y), weights_vec(&weights));
    let fit = run_core(py, Some(1), || {
        lrank_core::plackett_luce::fit_plackett_luce(&RankMatrixView::new(&ys, n, m)?, w.as_deref(), max_iter, tol)
    })?;
    Ok((PyArray1::from_vec(py, fit.skills), fit.iterations, fit.converged))
}

/// The completion of an incomplete ranking closest (Kendall) to a complete centre.
#[pyfunction]
fn optimal_insertion<'py>(py: Python<'py>, ranking: Vec<i32>, centre: Vec<i32>) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let out = run_core(py, Some(1), || {
        let m = centre.len();
        if ranking.len() != m {
            return Err(CoreError::InvalidInput(format!("ranking has {} labels, centre has {m}", ranking.len())));
        }
        lrank_core::ranking::validate_ranking(&ranking).map_err(|r| CoreError::InvalidInput(format!("ranking: {r}")))?;
        lrank_core::ranking::validate_ranking(&centre).map_err(|r| CoreError::InvalidInput(format!("centre: {r}")))?;
        if centre.contains(&0) {
            return Err(CoreError::InvalidInput("the centre must be a complete ranking".into()));
        }
        Ok(lrank_core::mallows::optimal_insertion(&ranking, &centre))
    })?;
    Ok(PyArray1::from_vec(py, out))
}

/// Maximum-likelihood Mallows spread for a mean Kendall distance to the centre (m labels).
#[pyfunction]
fn theta_mle(mean_distance: f64, n_labels: usize) -> f64 {
    lrank_core::mallows::theta_mle(mean_distance, n_labels)
}

/// Raises InvalidInputError naming the first row that is not a (possibly incomplete) ranking.
#[pyfunction]
fn validate_rank_matrix(py: Python<'_>, y: PyReadonlyArray2<'_, i32>) -> PyResult<()> {
    let ((n, m), ys) = (shape2(&y), row_major(&y));
    // Sequential: one thread, i.e. the calling one (no hand-off to a pool).
    run_core(py, Some(1), || RankMatrixView::new(&ys, n, m).map(|_| ()))
}

/// Forces a Rust panic inside the core boundary (used by tests: it must arrive as LrankError).
#[pyfunction]
fn _panic_for_test(py: Python<'_>) -> PyResult<()> {
    run_core(py, Some(1), || -> Result<(), CoreError> { panic!("deliberate test panic") })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Load numpy's C API now: its first use costs most of a millisecond, which would
    // otherwise land in the user's first fit. Likewise the Python type that lets a numpy array
    // own a Rust vector (predictions are returned that way, without a copy): made on first use,
    // it cost about 35 µs of the first predict (a predict of 2000 rows takes 2 to 3 ms).
    let _ = PyArray1::<f64>::zeros(m.py(), 0, false);
    let _ = Vec::<i32>::new().into_pyarray(m.py());
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MODEL_FORMAT_VERSION", FORMAT_VERSION)?;
    m.add_class::<RandomForestModel>()?;
    m.add_class::<InstanceBasedModel>()?;
    m.add_class::<LabelTreeModel>()?;
    m.add_class::<LearnerModel>()?;
    m.add_function(wrap_pyfunction!(save_model, m)?)?;
    m.add_function(wrap_pyfunction!(load_model, m)?)?;
    m.add_function(wrap_pyfunction!(_model_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(row_measures, m)?)?;
    m.add_function(wrap_pyfunction!(pairwise_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(borda_scores, m)?)?;
    m.add_function(wrap_pyfunction!(borda, m)?)?;
    m.add_function(wrap_pyfunction!(validate_rank_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(kemeny, m)?)?;
    m.add_function(wrap_pyfunction!(copeland, m)?)?;
    m.add_function(wrap_pyfunction!(fit_mallows, m)?)?;
    m.add_function(wrap_pyfunction!(fit_plackett_luce, m)?)?;
    m.add_function(wrap_pyfunction!(optimal_insertion, m)?)?;
    m.add_function(wrap_pyfunction!(theta_mle, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
