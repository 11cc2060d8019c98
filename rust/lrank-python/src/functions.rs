//! Consensus and evaluation functions: each converts its arrays and calls one core function,
//! which checks its input.

use lrank_core::consensus::buckets::{BucketConsensus, BucketMethod, PairOrderCounts, PairOrderMatrix};
use lrank_core::consensus::{self, checked};
use lrank_core::metrics::evaluation;
use lrank_core::LrankError as CoreError;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{matrix, row_major, vec1, vector};
use crate::errors::{run_core, ONE_THREAD};

/// Per-row ranking measures of predictions against true rankings (dict of float64 arrays).
#[pyfunction]
pub fn row_measures<'py>(
    py: Python<'py>,
    y_true: PyReadonlyArray2<'py, i32>,
    y_pred: PyReadonlyArray2<'py, i32>,
) -> PyResult<Bound<'py, PyDict>> {
    let (t, p) = (row_major(&y_true), row_major(&y_pred));
    let m = run_core(py, ONE_THREAD, || evaluation::row_measures(&t.rankings()?, &p.rankings()?))?;
    let d = PyDict::new(py);
    d.set_item("kendall_tau", vec1(py, m.kendall_tau))?;
    d.set_item("spearman_rho", vec1(py, m.spearman_rho))?;
    d.set_item("footrule", vec1(py, m.footrule))?;
    d.set_item("normalized_footrule", vec1(py, m.normalized_footrule))?;
    d.set_item("top_label_correct", vec1(py, m.top_label_correct))?;
    d.set_item("exact_match", vec1(py, m.exact_match))?;
    d.set_item("tau_x", vec1(py, m.tau_x))?;
    Ok(d)
}

/// (correct, incorrect) m x m counts over label pairs ordered by the true rankings.
#[pyfunction]
pub fn pairwise_matrix<'py>(
    py: Python<'py>,
    y_true: PyReadonlyArray2<'py, i32>,
    y_pred: PyReadonlyArray2<'py, i32>,
) -> PyResult<(Bound<'py, PyArray2<u64>>, Bound<'py, PyArray2<u64>>)> {
    let (t, p) = (row_major(&y_true), row_major(&y_pred));
    let (c, i) = run_core(py, ONE_THREAD, || evaluation::pairwise_matrix(&t.rankings()?, &p.rankings()?))?;
    let m = t.n_cols;
    Ok((matrix(py, c, m, m), matrix(py, i, m, m)))
}

/// Generalized Borda votes of each label over the rows of a rank matrix.
#[pyfunction]
#[pyo3(signature = (y, weights=None))]
pub fn borda_scores<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (ys, w) = (row_major(&y), vector(&weights));
    Ok(vec1(py, run_core(py, ONE_THREAD, || checked::borda_scores(&ys.rankings()?, w.as_deref()))?))
}

/// Consensus ranking (rank vector) by generalized Borda; ties to the lower label index.
#[pyfunction]
#[pyo3(signature = (y, weights=None))]
pub fn borda<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let (ys, w) = (row_major(&y), vector(&weights));
    Ok(vec1(py, run_core(py, ONE_THREAD, || checked::borda(&ys.rankings()?, w.as_deref()))?))
}

/// Copeland consensus (rank vector): pairwise majority wins, a tie half a win; ties to the lower label.
#[pyfunction]
#[pyo3(signature = (y, weights=None))]
pub fn copeland<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let (ys, w) = (row_major(&y), vector(&weights));
    Ok(vec1(py, run_core(py, ONE_THREAD, || checked::copeland(&ys.rankings()?, w.as_deref()))?))
}

/// Exact Kemeny consensus (rank vector) by dynamic programming over label subsets (m <= 16).
#[pyfunction]
#[pyo3(signature = (y, weights=None))]
pub fn kemeny<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let (ys, w) = (row_major(&y), vector(&weights));
    Ok(vec1(py, run_core(py, ONE_THREAD, || consensus::kemeny(&ys.rankings()?, w.as_deref()))?))
}

/// Mallows model fitted by the approximate EM of Cheng et al. (2009): (centre, theta, iterations, converged).
#[pyfunction]
#[pyo3(signature = (y, weights=None, max_iter=20))]
pub fn fit_mallows<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    max_iter: usize,
) -> PyResult<(Bound<'py, PyArray1<i32>>, f64, usize, bool)> {
    let (ys, w) = (row_major(&y), vector(&weights));
    let fit = run_core(py, ONE_THREAD, || checked::fit_mallows(&ys.rankings()?, w.as_deref(), max_iter))?;
    Ok((vec1(py, fit.centre), fit.theta, fit.iterations, fit.converged))
}

/// Plackett-Luce skills by Hunter's MM algorithm: (skills, iterations, converged).
#[pyfunction]
#[pyo3(signature = (y, weights=None, max_iter=1000, tol=1e-9))]
pub fn fit_plackett_luce<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    max_iter: usize,
    tol: f64,
) -> PyResult<(Bound<'py, PyArray1<f64>>, usize, bool)> {
    let (ys, w) = (row_major(&y), vector(&weights));
    let fit = run_core(py, ONE_THREAD, || checked::fit_plackett_luce(&ys.rankings()?, w.as_deref(), max_iter, tol))?;
    Ok((vec1(py, fit.skills), fit.iterations, fit.converged))
}

/// The completion of an incomplete ranking closest (Kendall) to a complete centre.
#[pyfunction]
pub fn optimal_insertion<'py>(py: Python<'py>, ranking: Vec<i32>, centre: Vec<i32>) -> PyResult<Bound<'py, PyArray1<i32>>> {
    Ok(vec1(py, run_core(py, ONE_THREAD, || checked::optimal_insertion(&ranking, &centre))?))
}

/// Maximum-likelihood Mallows spread for a mean Kendall distance to the centre (m labels).
#[pyfunction]
pub fn theta_mle(mean_distance: f64, n_labels: usize) -> f64 {
    consensus::theta_mle(mean_distance, n_labels)
}

/// The core's consensus-with-ties method of a name ("bpa", "borda", "copeland") and beta.
fn bucket_consensus_of(method: &str, beta: f64) -> Result<BucketConsensus, CoreError> {
    let method = match method {
        "bpa" => BucketMethod::BpaGlobal,
        "bpa-local" => BucketMethod::Bpa,
        "borda" => BucketMethod::Borda,
        "copeland" => BucketMethod::Copeland,
        other => {
            return Err(CoreError::InvalidInput(format!(
                "method must be 'bpa', 'bpa-local', 'borda' or 'copeland', got {other:?}"
            )))
        }
    };
    let consensus = BucketConsensus::new(method, beta);
    consensus.validate()?;
    Ok(consensus)
}

/// Consensus bucket order (dense rank vector, ties allowed) of rankings that may hold ties.
#[pyfunction]
#[pyo3(signature = (y, weights=None, method="bpa", beta=0.25))]
pub fn bucket_consensus<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    method: &str,
    beta: f64,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let (ys, w) = (row_major(&y), vector(&weights));
    Ok(vec1(py, run_core(py, ONE_THREAD, || bucket_consensus_of(method, beta)?.aggregate(&ys.rankings()?, w.as_deref()))?))
}

/// The pair-order matrix C (m x m) of rankings, and the weighted "before" and "tied" counts.
#[pyfunction]
#[pyo3(signature = (y, weights=None))]
pub fn pair_order_matrix<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, i32>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<f64>>)> {
    let (ys, w) = (row_major(&y), vector(&weights));
    let m = ys.n_cols;
    let counts = run_core(py, ONE_THREAD, || {
        lrank_core::data::training::check_weights(w.as_deref(), ys.n_rows)?;
        // The counts and the three tables returned, m x m each.
        lrank_core::memory::check::<f64>("the pair-order tables of the labels", &[5, m, m])?;
        Ok(PairOrderCounts::of(&ys.rankings()?, w.as_deref()))
    })?;
    let cell = |f: &dyn Fn(usize, usize) -> f64| (0..m * m).map(|k| f(k / m, k % m)).collect::<Vec<f64>>();
    let before = cell(&|i, j| counts.before(i, j));
    let tied = cell(&|i, j| if i == j { 0.0 } else { counts.tied(i, j) });
    Ok((matrix(py, counts.matrix().entries().to_vec(), m, m), matrix(py, before, m, m), matrix(py, tied, m, m)))
}

/// The bucket order of a pair-order matrix C (m x m, entries in [0, 1], C_ij + C_ji = 1).
#[pyfunction]
#[pyo3(signature = (c, method="bpa", beta=0.25))]
pub fn bucket_order_of_matrix<'py>(
    py: Python<'py>,
    c: PyReadonlyArray2<'py, f64>,
    method: &str,
    beta: f64,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let cs = row_major(&c);
    let order = run_core(py, ONE_THREAD, || {
        if cs.n_rows != cs.n_cols {
            return Err(CoreError::InvalidInput(format!("C must be square, got {} x {}", cs.n_rows, cs.n_cols)));
        }
        let m = cs.n_rows;
        for i in 0..m {
            for j in 0..m {
                let (a, b) = (cs.data[i * m + j], cs.data[j * m + i]);
                if i != j && !((0.0..=1.0).contains(&a) && (a + b - 1.0).abs() <= 1e-9) {
                    return Err(CoreError::InvalidInput(format!(
                        "C[{i}, {j}] = {a} and C[{j}, {i}] = {b}: entries must lie in [0, 1] and C_ij + C_ji = 1"
                    )));
                }
            }
        }
        Ok(bucket_consensus_of(method, beta)?.of_matrix(&PairOrderMatrix::from_entries(m, cs.data.to_vec())))
    })?;
    Ok(vec1(py, order))
}

/// Raises InvalidInputError naming the first row that is not a (possibly incomplete or tied) ranking.
#[pyfunction]
pub fn validate_rank_matrix(py: Python<'_>, y: PyReadonlyArray2<'_, i32>) -> PyResult<()> {
    let ys = row_major(&y);
    run_core(py, ONE_THREAD, || ys.rankings().map(|_| ()))
}

/// Raises InvalidInputError when `dims` values of `item_bytes` bytes each would need more memory
/// than this process may use (the core's check before its own large allocations); returns the
/// number of values.
#[pyfunction]
pub fn check_allocation(py: Python<'_>, what: &str, dims: Vec<usize>, item_bytes: usize) -> PyResult<usize> {
    run_core(py, ONE_THREAD, || lrank_core::memory::check_bytes(what, &dims, item_bytes))
}

/// Forces a Rust panic inside the core boundary (used by tests: it must arrive as LrankError).
#[pyfunction]
pub fn _panic_for_test(py: Python<'_>) -> PyResult<()> {
    run_core(py, ONE_THREAD, || -> Result<(), CoreError> { panic!("deliberate test panic") })
}

/// Why learner parameters (serde JSON form) cannot learn from tied labels, or None when they
/// can (the fit's own refusal says the same).
#[pyfunction]
pub fn tie_refusal(py: Python<'_>, params: &str) -> PyResult<Option<&'static str>> {
    use lrank_core::learner::Params;
    run_core(py, ONE_THREAD, || Ok(lrank_core::registry::LearnerParams::from_json(params)?.tie_refusal()))
}

/// Checks learner parameters (serde JSON form) without fitting: raises what `Model.fit` would.
#[pyfunction]
pub fn validate_params(py: Python<'_>, params: &str) -> PyResult<()> {
    use lrank_core::learner::Params;
    run_core(py, ONE_THREAD, || lrank_core::registry::LearnerParams::from_json(params)?.validate())
}
