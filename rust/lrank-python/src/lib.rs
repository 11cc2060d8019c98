//! `lrank._core`: the Python bindings of lrank-core. This crate only converts: numpy arrays to
//! core views ([`arrays`]), Arrow record batches in and out ([`arrow`]), core errors and panics to Python exceptions with the GIL released
//! around core work ([`errors`]), one `Model` class for every learner ([`model`]), the exact distributed forest's driver and part
//! steps ([`exact_forest`]), and the
//! consensus and evaluation functions ([`functions`]). Behaviour lives in the core.

// PyO3 signatures return tuples of bound arrays; naming each would not make them clearer.
#![allow(clippy::type_complexity)]

mod arrays;
mod arrow;
mod errors;
mod exact_forest;
mod functions;
mod interrupt;
mod model;

use lrank_core::model_io::FORMAT_VERSION;
use numpy::prelude::*;
use numpy::PyArray1;
use pyo3::prelude::*;

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
    m.add("LEARNER_KINDS", lrank_core::registry::KINDS.to_vec())?;
    m.add("PAIRWISE_TABLE_MAX_LABELS", lrank_core::metrics::evaluation::PAIRWISE_TABLE_MAX_LABELS)?;
    m.add_class::<model::Model>()?;
    m.add_class::<arrow::ArrowBatch>()?;
    m.add_class::<exact_forest::ExactForest>()?;
    m.add_function(wrap_pyfunction!(exact_forest::exact_part_summary, m)?)?;
    m.add_function(wrap_pyfunction!(exact_forest::exact_part_codes, m)?)?;
    m.add_function(wrap_pyfunction!(exact_forest::exact_part_bin_counts, m)?)?;
    m.add_function(wrap_pyfunction!(exact_forest::exact_part_values_in_bins, m)?)?;
    m.add_function(wrap_pyfunction!(exact_forest::exact_part_sums, m)?)?;
    m.add_function(wrap_pyfunction!(model::save_model, m)?)?;
    m.add_function(wrap_pyfunction!(model::load_model, m)?)?;
    m.add_function(wrap_pyfunction!(model::_model_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(model::merge_models, m)?)?;
    m.add_function(wrap_pyfunction!(functions::row_measures, m)?)?;
    m.add_function(wrap_pyfunction!(functions::pairwise_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(functions::borda_scores, m)?)?;
    m.add_function(wrap_pyfunction!(functions::borda, m)?)?;
    m.add_function(wrap_pyfunction!(functions::copeland, m)?)?;
    m.add_function(wrap_pyfunction!(functions::bucket_consensus, m)?)?;
    m.add_function(wrap_pyfunction!(functions::pair_order_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(functions::bucket_order_of_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(functions::kemeny, m)?)?;
    m.add_function(wrap_pyfunction!(functions::fit_mallows, m)?)?;
    m.add_function(wrap_pyfunction!(functions::fit_plackett_luce, m)?)?;
    m.add_function(wrap_pyfunction!(functions::optimal_insertion, m)?)?;
    m.add_function(wrap_pyfunction!(functions::theta_mle, m)?)?;
    m.add_function(wrap_pyfunction!(functions::validate_rank_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(functions::validate_params, m)?)?;
    m.add_function(wrap_pyfunction!(functions::tie_refusal, m)?)?;
    m.add_function(wrap_pyfunction!(functions::check_allocation, m)?)?;
    m.add_function(wrap_pyfunction!(functions::_panic_for_test, m)?)?;
    Ok(())
}
