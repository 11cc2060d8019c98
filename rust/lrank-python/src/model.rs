//! `lrank._core.Model`: any fitted learner of the core.

use lrank_core::learner::{predict_checked, Learner, Outputs};
use lrank_core::model_io::{self, SavedModel};
use lrank_core::registry::{self, LearnerParams, Model as CoreModel};
use numpy::prelude::*;
use numpy::{PyArray1, PyArray2, PyArray3, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

use lrank_core::data::features::FeatureMatrixView;
use lrank_core::LrankError as CoreError;

use crate::arrays::{cube, kinds, matrix, row_major, vec1, vector};
use crate::arrow::{self, ArrowBatch, Columns, RankColumns};
use crate::errors::{n_jobs_of, run_core, ONE_THREAD};

/// A fitted model of any lrank learner, fitted from its parameters in serde JSON form (e.g.
/// `{"Dummy": {"aggregator": "Borda", "seed": 0}}`).
#[pyclass(frozen, module = "lrank._core")]
pub struct Model {
    pub inner: CoreModel,
}

#[pymethods]
impl Model {
    #[staticmethod]
    #[pyo3(signature = (params, x, y, sample_weight=None, *, n_jobs=None, nominal=None))]
    #[allow(clippy::too_many_arguments)]
    fn fit<'py>(
        py: Python<'py>,
        params: &str,
        x: PyReadonlyArray2<'py, f64>,
        y: PyReadonlyArray2<'py, i32>,
        sample_weight: Option<PyReadonlyArray1<'py, f64>>,
        n_jobs: Option<&Bound<'py, PyAny>>,
        nominal: Option<Vec<bool>>,
    ) -> PyResult<Self> {
        let (xs, ys, w, kinds) = (row_major(&x), row_major(&y), vector(&sample_weight), kinds(&nominal));
        let inner = run_core(py, n_jobs_of(n_jobs)?, || {
            let params = LearnerParams::from_json(params)?;
            registry::fit(params, xs.features()?.with_kinds(kinds.as_deref())?, ys.rankings()?, w.as_deref())
        })?;
        Ok(Model { inner })
    }

    /// This model with trees added up to `n_estimators`, grown on its training data `x`, `y`
    /// (warm_start): the forest a fit with `n_estimators` trees grows.
    #[pyo3(signature = (n_estimators, x, y, sample_weight=None, *, n_jobs=None, nominal=None))]
    #[allow(clippy::too_many_arguments)]
    fn add_trees<'py>(
        &self,
        py: Python<'py>,
        n_estimators: usize,
        x: PyReadonlyArray2<'py, f64>,
        y: PyReadonlyArray2<'py, i32>,
        sample_weight: Option<PyReadonlyArray1<'py, f64>>,
        n_jobs: Option<&Bound<'py, PyAny>>,
        nominal: Option<Vec<bool>>,
    ) -> PyResult<Self> {
        let (xs, ys, w, kinds) = (row_major(&x), row_major(&y), vector(&sample_weight), kinds(&nominal));
        let inner = run_core(py, n_jobs_of(n_jobs)?, || {
            let x = xs.features()?.with_kinds(kinds.as_deref())?;
            registry::add_trees(self.inner.clone(), n_estimators, x, ys.rankings()?, w.as_deref())
        })?;
        Ok(Model { inner })
    }

    /// Predicted rank matrix (n x m, int32, complete rankings).
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<i32>>> {
        let xs = row_major(&x);
        let p = run_core(py, n_jobs_of(n_jobs)?, || predict_checked(&self.inner, &xs.features()?, Outputs::RANKS))?;
        Ok(matrix(py, p.ranks, xs.n_rows, self.n_labels()))
    }

    /// Predicted rank matrix and a per-row confidence, or None for learners without one.
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict_with_confidence<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyArray2<i32>>, Option<Bound<'py, PyArray1<f64>>>)> {
        let xs = row_major(&x);
        let outputs = Outputs { confidence: true, scores: false };
        let p = run_core(py, n_jobs_of(n_jobs)?, || predict_checked(&self.inner, &xs.features()?, outputs))?;
        Ok((matrix(py, p.ranks, xs.n_rows, self.n_labels()), p.confidence.map(|c| vec1(py, c))))
    }

    /// The label scores behind the ranking (n x m, float64), or None for learners without them.
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict_scores<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        let xs = row_major(&x);
        let outputs = Outputs { confidence: false, scores: true };
        let p = run_core(py, n_jobs_of(n_jobs)?, || predict_checked(&self.inner, &xs.features()?, outputs))?;
        Ok(p.scores.map(|s| matrix(py, s, xs.n_rows, self.n_labels())))
    }

    /// GBLR: the rankings and scores after round `round` (0-based), from `scores`, the scores
    /// after the round before (None for round 0: the initial scores).
    #[pyo3(signature = (x, round, scores=None, n_jobs=None))]
    #[allow(clippy::type_complexity)]
    fn staged_round<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        round: usize,
        scores: Option<PyReadonlyArray2<'py, f64>>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyArray2<i32>>, Bound<'py, PyArray2<f64>>)> {
        let CoreModel::GradientBoosting(model) = &self.inner else {
            return Err(crate::errors::to_py_err(py, CoreError::InvalidInput("only GBLR models predict by rounds".into())));
        };
        let (xs, m) = (row_major(&x), self.n_labels());
        let mut values = match scores.as_ref().map(row_major) {
            Some(s) if (s.n_rows, s.n_cols) != (xs.n_rows, m) => {
                let message = format!("the scores have shape ({}, {}), not ({}, {m})", s.n_rows, s.n_cols, xs.n_rows);
                return Err(crate::errors::to_py_err(py, CoreError::InvalidInput(message)));
            }
            Some(s) => s.data.into_owned(),
            None => (0..xs.n_rows).flat_map(|_| model.init_scores.iter().copied()).collect(),
        };
        let ranks = run_core(py, n_jobs_of(n_jobs)?, || model.add_round(&xs.features()?, round, &mut values))?;
        Ok((matrix(py, ranks, xs.n_rows, m), matrix(py, values, xs.n_rows, m)))
    }

    /// An AdaBoost model's prediction after each round (n x rounds x m, int32).
    #[pyo3(signature = (x, n_jobs=None))]
    fn staged_members<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray3<i32>>> {
        let CoreModel::Boosting(model) = &self.inner else {
            return Err(crate::errors::to_py_err(
                py,
                CoreError::InvalidInput("only AdaBoost models predict by rounds here".into()),
            ));
        };
        let (n, m, rounds) = (x.shape()[0], self.n_labels(), model.members.len());
        let ranks = self.on_rows(py, &x, n_jobs, |_, view| model.staged_ranks(view))?;
        Ok(cube(py, ranks, (n, rounds, m)))
    }

    /// An ensemble's members' rankings (members x n x m, int32), or None for other learners.
    #[pyo3(signature = (x, n_jobs=None))]
    fn predict_members<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyArray3<i32>>>> {
        let n = x.shape()[0];
        let members = self.on_rows(py, &x, n_jobs, |model, view| model.member_ranks(view))?;
        let m = self.n_labels();
        Ok(members.map(|r| {
            let count = r.len().checked_div(n * m).unwrap_or(0);
            cube(py, r, (count, n, m))
        }))
    }

    /// Each row's leaf node in each of the model's trees (n x trees, uint32), or None for a model
    /// without trees.
    #[pyo3(signature = (x, n_jobs=None))]
    fn apply<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyArray2<u32>>>> {
        let nodes = self.on_rows(py, &x, n_jobs, registry::apply)?;
        Ok(nodes.map(|(nodes, trees)| matrix(py, nodes, x.shape()[0], trees)))
    }

    /// Tree `index` of `apply`'s trees: its nodes as (kind, feature or leaf, threshold or value,
    /// left, right), kind "split" (x <= threshold goes left), "category" (x == value goes left)
    /// or "leaf" (the leaf's index; -1 and NaN in the other places), and each leaf's ranking
    /// where the leaves hold one (else None).
    #[allow(clippy::type_complexity)]
    fn tree_nodes(
        &self,
        py: Python<'_>,
        index: usize,
    ) -> PyResult<(Vec<(&'static str, i64, f64, i64, i64)>, Option<Vec<Vec<i32>>>)> {
        use lrank_core::tree::Node;
        let (nodes, leaves) = run_core(py, ONE_THREAD, || registry::tree_nodes(&self.inner, index))?;
        let rows = nodes
            .iter()
            .map(|node| match *node {
                Node::Split { feature, threshold, left, right } => {
                    ("split", i64::from(feature), threshold, i64::from(left), i64::from(right))
                }
                Node::Category { feature, value, left, right } => {
                    ("category", i64::from(feature), value, i64::from(left), i64::from(right))
                }
                Node::Leaf { leaf } => ("leaf", i64::from(leaf), f64::NAN, -1, -1),
            })
            .collect();
        Ok((rows, leaves))
    }

    /// The `k` nearest training rows of each row of `x` (None: the model's k; `x` None: of each
    /// training row, leaving itself out) for the instance-based learners: (distances, row
    /// indices), n x k each, nearest first; None for other learners.
    #[pyo3(signature = (x=None, k=None, n_jobs=None))]
    #[allow(clippy::type_complexity)]
    fn kneighbors<'py>(
        &self,
        py: Python<'py>,
        x: Option<PyReadonlyArray2<'py, f64>>,
        k: Option<usize>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<(Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<u32>>)>> {
        let found = match &x {
            Some(x) => self.on_rows(py, x, n_jobs, |model, view| registry::kneighbors(model, Some(view), k))?,
            None => run_core(py, n_jobs_of(n_jobs)?, || registry::kneighbors(&self.inner, None, k))?,
        };
        Ok(found.map(|near| (matrix(py, near.distances, near.n_queries, near.k), matrix(py, near.rows, near.n_queries, near.k))))
    }

    /// Each tree's (depth, number of leaves), in the order of `apply`'s trees (empty without trees).
    fn tree_shapes(&self) -> Vec<(usize, usize)> {
        registry::tree_shapes(&self.inner)
    }

    /// Out-of-bag rankings of the training data `x`, `y`, `sample_weight` (as fitted, rows in
    /// order; int32, n x m, rows of zeros where every member drew the row), or None for learners
    /// without bootstrap members.
    #[pyo3(signature = (x, y, sample_weight=None, n_jobs=None))]
    fn out_of_bag<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        y: PyReadonlyArray2<'py, i32>,
        sample_weight: Option<PyReadonlyArray1<'py, f64>>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyArray2<i32>>>> {
        let (xs, ys, w) = (row_major(&x), row_major(&y), vector(&sample_weight));
        let ranks =
            run_core(py, n_jobs_of(n_jobs)?, || registry::out_of_bag(&self.inner, xs.features()?, ys.rankings()?, w.as_deref()))?;
        Ok(ranks.map(|r| matrix(py, r, xs.n_rows, self.n_labels())))
    }

    /// Whether the model has trees (and so split importances).
    #[getter]
    fn has_trees(&self) -> bool {
        self.inner.has_split_importances()
    }

    /// Each feature's share of the impurity decrease of the model's splits on labelled data (its
    /// training data, normally), or None for a model without trees.
    #[pyo3(signature = (x, y, sample_weight=None, *, n_jobs=None))]
    fn split_importances<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        y: PyReadonlyArray2<'py, i32>,
        sample_weight: Option<PyReadonlyArray1<'py, f64>>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
        let (xs, ys, w) = (row_major(&x), row_major(&y), vector(&sample_weight));
        let shares = run_core(py, n_jobs_of(n_jobs)?, || {
            registry::split_importances(&self.inner, xs.features()?, ys.rankings()?, w.as_deref())
        })?;
        Ok(shares.map(|s| vec1(py, s)))
    }

    /// Rankings of an Arrow record batch (or of every batch of a table or stream): the feature
    /// columns `columns` (all, in order, when None) read in place, the rows ranked with the GIL
    /// released; returned as an Arrow record batch with `labels` as the position columns.
    #[pyo3(signature = (data, labels, columns=None, n_jobs=None))]
    fn predict_arrow<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        labels: Vec<String>,
        columns: Option<Vec<String>>,
        n_jobs: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<ArrowBatch> {
        if labels.len() != self.n_labels() {
            let e =
                CoreError::InvalidInput(format!("{} label names given for a model of {} labels", labels.len(), self.n_labels()));
            return Err(crate::errors::to_py_err(py, e));
        }
        let input = arrow::read(data)?;
        let columns = run_core(py, n_jobs_of(n_jobs)?, || {
            let picked = input.fields.select(columns.as_deref())?;
            // Checked here too, so that a batch without rows is refused as one with rows is.
            let width = FeatureMatrixView::new(&[], 0, picked.len())?;
            lrank_core::data::features::check_n_features(&width, self.inner.header().n_features)?;
            let mut out = RankColumns::new(labels);
            for batch in &input.batches {
                let batch = Columns::of_array(&batch.0, &input.fields, &picked)?;
                let x = batch.row_major()?;
                let view = FeatureMatrixView::new(&x, batch.n_rows, picked.len())?;
                let ranks =
                    if batch.n_rows == 0 { Vec::new() } else { predict_checked(&self.inner, &view, Outputs::RANKS)?.ranks };
                out.push_rows(&ranks);
            }
            Ok(out)
        })?;
        Ok(ArrowBatch { columns: Arc::new(columns) })
    }

    /// What the fitted model found out (tuned settings, sizes), as JSON.
    fn summary_json(&self) -> String {
        self.inner.summary().to_string()
    }

    /// The parameters the model was fitted with, as JSON.
    fn params_json(&self) -> String {
        self.inner.params().to_json()
    }

    /// The learner's name in the core ("Bagging", ...).
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }
    #[getter]
    fn n_features(&self) -> usize {
        self.inner.header().n_features
    }
    #[getter]
    fn n_labels(&self) -> usize {
        self.inner.header().n_labels
    }
    fn __eq__(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
    fn __repr__(&self) -> String {
        format!("Model(kind={}, n_features={}, n_labels={})", self.kind(), self.n_features(), self.n_labels())
    }
    /// Pickle support through the versioned binary model format.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let bytes = encode(py, &self.inner, "{}", true)?;
        let rebuild = py.import("lrank._core")?.getattr("_model_from_bytes")?;
        Ok((rebuild, (PyBytes::new(py, &bytes),)))
    }
}

fn encode(py: Python<'_>, model: &CoreModel, metadata: &str, binary: bool) -> PyResult<Vec<u8>> {
    let saved = SavedModel { metadata: metadata.to_string(), model: model.clone() };
    run_core(py, ONE_THREAD, || model_io::encode(&saved, binary))
}

/// Encodes a model and caller metadata (JSON text) as a model file: "binary" or "json".
#[pyfunction]
#[pyo3(signature = (model, metadata="{}", format="binary"))]
pub fn save_model<'py>(py: Python<'py>, model: &Model, metadata: &str, format: &str) -> PyResult<Bound<'py, PyBytes>> {
    let binary = match format {
        "binary" => true,
        "json" => false,
        other => {
            let e = lrank_core::LrankError::InvalidInput(format!("format must be 'binary' or 'json', got {other:?}"));
            return Err(crate::errors::to_py_err(py, e));
        }
    };
    Ok(PyBytes::new(py, &encode(py, &model.inner, metadata, binary)?))
}

/// Decodes a model file (binary or JSON, recognised by content): returns (model, metadata JSON).
#[pyfunction]
pub fn load_model(py: Python<'_>, data: &[u8]) -> PyResult<(Model, String)> {
    let saved = run_core(py, ONE_THREAD, || model_io::decode::<CoreModel>(data))?;
    Ok((Model { inner: saved.model }, saved.metadata))
}

/// Unpickling helper: the model from binary model-file bytes.
#[pyfunction]
pub fn _model_from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Model> {
    Ok(load_model(py, data)?.0)
}

/// One model from forests fitted on parts of the data (their trees together), missing feature
/// values then filled with `fill_values`; other learners' models are refused.
#[pyfunction]
pub fn merge_models(py: Python<'_>, models: Vec<PyRef<'_, Model>>, fill_values: Vec<f64>) -> PyResult<Model> {
    let parts: Vec<CoreModel> = models.iter().map(|m| m.inner.clone()).collect();
    let inner = run_core(py, ONE_THREAD, || CoreModel::merge(parts, fill_values))?;
    Ok(Model { inner })
}

impl Model {
    /// `work` on the rows of `x`, their feature count checked against the model's, without the
    /// GIL.
    fn on_rows<'py, T: Send>(
        &self,
        py: Python<'py>,
        x: &PyReadonlyArray2<'py, f64>,
        n_jobs: Option<&Bound<'py, PyAny>>,
        work: impl FnOnce(&CoreModel, &FeatureMatrixView<'_>) -> lrank_core::Result<T> + Send,
    ) -> PyResult<T> {
        let xs = row_major(x);
        run_core(py, n_jobs_of(n_jobs)?, || {
            let view = xs.features()?;
            lrank_core::data::features::check_n_features(&view, self.inner.header().n_features)?;
            work(&self.inner, &view)
        })
    }
}
