//! `lrank._core.ExactForest` (the driver) and the part functions of the exact distributed forests,
//! LR-RF, LWRF, the OVO forest and the PLR forest (`lrank_core::registry::exact`): steps' outputs travel as bytes, rows as arrays.

use lrank_core::registry::exact::{self as core, decode, encode, ExactDriver, ExactPlan, ExactSetup};
use lrank_core::registry::LearnerParams;
use lrank_core::tree::levelwise::PartSummary;
use lrank_core::LrankError as CoreError;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::borrow::Cow;

use crate::arrays::{kinds, matrix, row_major, vec1};
use crate::errors::{n_jobs_of, run_core, ONE_THREAD};
use crate::model::Model;

/// The driver: the trees so far; each round's plan for the parts, their sums absorbed.
#[pyclass(module = "lrank._core")]
pub struct ExactForest {
    inner: Option<ExactDriver>,
}

fn finished() -> CoreError {
    CoreError::InvalidInput("the exact forest is finished: its model was taken".into())
}

#[pymethods]
impl ExactForest {
    /// `rows_limit`: nodes of at most this many samples come as rows (0: never; None: as many as
    /// cost a node's histograms).
    #[new]
    #[pyo3(signature = (params, summaries, n_labels, rows_limit=None))]
    fn new(py: Python<'_>, params: &str, summaries: Vec<Vec<u8>>, n_labels: usize, rows_limit: Option<usize>) -> PyResult<Self> {
        let inner = run_core(py, ONE_THREAD, || {
            let params = LearnerParams::from_json(params)?;
            let summaries =
                summaries.iter().map(|s| decode::<PartSummary>(s, "a part's summary")).collect::<Result<Vec<_>, _>>()?;
            let mut driver = ExactDriver::new(params, &summaries, n_labels)?;
            if let Some(limit) = rows_limit {
                driver.set_rows_limit(limit);
            }
            Ok(driver)
        })?;
        Ok(ExactForest { inner: Some(inner) })
    }

    /// What every part needs (bytes).
    fn setup<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let inner = self.inner.as_ref().ok_or_else(|| crate::errors::to_py_err(py, finished()))?;
        Ok(PyBytes::new(py, &encode(&inner.setup())))
    }

    /// The bin of each feature's lower median, from every part's bin counts added.
    fn median_bins(&mut self, py: Python<'_>, counts: PyReadonlyArray1<'_, f64>) -> PyResult<Vec<u8>> {
        let counts = counts.as_array().to_vec();
        let inner = self.inner.as_mut().ok_or_else(|| crate::errors::to_py_err(py, finished()))?;
        run_core(py, ONE_THREAD, || inner.median_bins(&counts))
    }

    /// The lower medians from every part's values in those bins (bytes each).
    fn set_medians(&mut self, py: Python<'_>, parts: Vec<Vec<u8>>) -> PyResult<()> {
        let inner = self.inner.as_mut().ok_or_else(|| crate::errors::to_py_err(py, finished()))?;
        run_core(py, ONE_THREAD, || {
            let parts =
                parts.iter().map(|p| decode::<Vec<Vec<(f64, u64)>>>(p, "a part's values")).collect::<Result<Vec<_>, _>>()?;
            inner.set_medians(&parts)
        })
    }

    /// The next round's plan (bytes), or None when the forest is grown.
    fn plan<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let inner = self.inner.as_mut().ok_or_else(|| crate::errors::to_py_err(py, finished()))?;
        let plan = run_core(py, ONE_THREAD, || Ok(inner.plan()))?;
        Ok(plan.map(|p| PyBytes::new(py, &encode(&p))))
    }

    /// Trees fully grown so far.
    fn trees_grown(&self) -> usize {
        self.inner.as_ref().map_or(0, |f| f.trees_grown())
    }

    /// Every part's sums for the last plan, added, and their row records, joined.
    #[pyo3(signature = (sums, rows, n_jobs=None))]
    fn absorb(
        &mut self,
        py: Python<'_>,
        sums: PyReadonlyArray1<'_, f64>,
        rows: PyReadonlyArray1<'_, f64>,
        n_jobs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let (sums, rows) = (borrowed(&sums), borrowed(&rows));
        let threads = n_jobs_of(n_jobs)?;
        let inner = self.inner.as_mut().ok_or_else(|| crate::errors::to_py_err(py, finished()))?;
        run_core(py, threads, || inner.absorb(&sums, &rows))
    }

    /// The fitted model (once: the driver is spent; before it is ready, an error and the driver
    /// stays as it was).
    fn finish(&mut self, py: Python<'_>) -> PyResult<Model> {
        let ready = self.inner.as_ref().ok_or_else(finished).and_then(|f| f.ready());
        ready.map_err(|e| crate::errors::to_py_err(py, e))?;
        let inner = self.inner.take().ok_or_else(|| crate::errors::to_py_err(py, finished()))?;
        let model = run_core(py, ONE_THREAD, || inner.finish())?;
        Ok(Model { inner: model })
    }
}

/// An array's numbers, borrowed when contiguous (a round's sums run to tens of megabytes).
fn borrowed<'a>(a: &'a PyReadonlyArray1<'_, f64>) -> Cow<'a, [f64]> {
    match a.as_slice() {
        Ok(slice) => Cow::Borrowed(slice),
        Err(_) => Cow::Owned(a.as_array().to_vec()),
    }
}

/// A part's summary (bytes): its rows start at `start` of `n_rows`.
#[pyfunction]
#[pyo3(signature = (x, y, start, n_rows, max_bins, nominal=None))]
pub fn exact_part_summary<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray2<'py, i32>,
    start: usize,
    n_rows: usize,
    max_bins: usize,
    nominal: Option<Vec<bool>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (xs, ys, kinds) = (row_major(&x), row_major(&y), kinds(&nominal));
    let summary = run_core(py, ONE_THREAD, || {
        core::summarise_part(&xs.features()?.with_kinds(kinds.as_deref())?, &ys.rankings()?, start, n_rows, max_bins)
    })?;
    Ok(PyBytes::new(py, &encode(&summary)))
}

/// A part's bin codes (rows x features, uint8).
#[pyfunction]
pub fn exact_part_codes<'py>(py: Python<'py>, setup: &[u8], x: PyReadonlyArray2<'py, f64>) -> PyResult<Bound<'py, PyArray2<u8>>> {
    let xs = row_major(&x);
    let codes = run_core(py, ONE_THREAD, || core::part_codes(&decode::<ExactSetup>(setup, "the setup")?, &xs.features()?))?;
    Ok(matrix(py, codes, xs.n_rows, xs.n_cols))
}

/// A part's rows per bin.
#[pyfunction]
pub fn exact_part_bin_counts<'py>(
    py: Python<'py>,
    setup: &[u8],
    codes: PyReadonlyArray2<'py, u8>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let codes = row_major(&codes);
    let counts = run_core(py, ONE_THREAD, || core::part_bin_counts(&decode::<ExactSetup>(setup, "the setup")?, &codes.data))?;
    Ok(vec1(py, counts))
}

/// A part's values in the given bin of each feature (bytes).
#[pyfunction]
pub fn exact_part_values_in_bins<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    codes: PyReadonlyArray2<'py, u8>,
    bins: Vec<u8>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (xs, codes) = (row_major(&x), row_major(&codes));
    let values = run_core(py, ONE_THREAD, || core::part_values_in_bins(&xs.features()?, &codes.data, &bins))?;
    Ok(PyBytes::new(py, &encode(&values)))
}

/// A part's sums for a round's plan and its row records; its rows start at `start`.
#[pyfunction]
#[pyo3(signature = (setup, plan, codes, y, start, n_jobs=None))]
pub fn exact_part_sums<'py>(
    py: Python<'py>,
    setup: &[u8],
    plan: &[u8],
    codes: PyReadonlyArray2<'py, u8>,
    y: PyReadonlyArray2<'py, i32>,
    start: usize,
    n_jobs: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>)> {
    let (codes, ys) = (row_major(&codes), row_major(&y));
    let (sums, rows) = run_core(py, n_jobs_of(n_jobs)?, || {
        let setup = decode::<ExactSetup>(setup, "the setup")?;
        let plan = decode::<ExactPlan>(plan, "a round's plan")?;
        core::part_sums(&setup, &plan, &codes.data, &ys.rankings()?, start)
    })?;
    Ok((vec1(py, sums), vec1(py, rows)))
}
