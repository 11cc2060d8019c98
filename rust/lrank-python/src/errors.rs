//! The one way into the core: [`run_core`] releases the GIL, applies the thread count, maps every
//! core error variant to a typed exception of `lrank.errors`, and turns a Rust panic into
//! `LrankError`, so that no panic reaches Python.

use std::panic::{catch_unwind, AssertUnwindSafe};

use lrank_core::LrankError as CoreError;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

use crate::interrupt::SigintGuard;

pyo3::import_exception!(lrank.errors, LrankError);
pyo3::import_exception!(lrank.errors, InvalidInputError);
pyo3::import_exception!(lrank.errors, InvalidParameterError);
pyo3::import_exception!(lrank.errors, ModelFormatError);

/// The Python exception of a core error (an invalid parameter carries its core name).
pub fn to_py_err(py: Python<'_>, e: CoreError) -> PyErr {
    let message = e.to_string();
    match e {
        CoreError::ModelFormat(_) => ModelFormatError::new_err(message),
        CoreError::InvalidParameter { name, reason } => {
            let err = InvalidParameterError::new_err(message);
            let value = err.value(py);
            // Attributes the Python layer uses to name the parameter as its users know it
            // (setting an attribute of a fresh exception cannot fail).
            value.setattr("parameter", name).ok();
            value.setattr("reason", reason).ok();
            err
        }
        CoreError::InvalidInput(_) | CoreError::InvalidRanking { .. } => InvalidInputError::new_err(message),
        CoreError::Interrupted => PyKeyboardInterrupt::new_err(()),
    }
}

/// Runs core work with the GIL released on `n_jobs` threads (`None`: all cores).
pub fn run_core<T: Send>(py: Python<'_>, n_jobs: Option<i64>, work: impl FnOnce() -> Result<T, CoreError> + Send) -> PyResult<T> {
    let threads = lrank_core::parallel::threads_of_n_jobs(n_jobs).map_err(|e| to_py_err(py, e))?;
    // Every call counts as running, so that Ctrl-C in the main thread cuts short no other
    // thread's work; the request is withdrawn (finish) before the scope ends.
    let running = lrank_core::interrupt::enter();
    let sigint = SigintGuard::install(py);
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(|| lrank_core::parallel::with_threads(threads, work))));
    let interrupted = sigint.finish();
    drop(running);
    if interrupted {
        // Ctrl-C: whatever the work returned, finished or cut short, is dropped. Python's
        // handler has noted the signal; running it now raises KeyboardInterrupt.
        py.check_signals()?;
        return Err(PyKeyboardInterrupt::new_err(()));
    }
    match outcome {
        Ok(Ok(Ok(value))) => Ok(value),
        Ok(Ok(Err(e))) | Ok(Err(e)) => Err(to_py_err(py, e)),
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

/// An `n_jobs` argument as the core reads it: None, or an int saturated to 64 bits (any count
/// beyond the cores means all cores, and Python ints have no bound).
pub fn n_jobs_of(n_jobs: Option<&Bound<'_, PyAny>>) -> PyResult<Option<i64>> {
    let Some(value) = n_jobs else { return Ok(None) };
    if value.is_none() {
        return Ok(None);
    }
    if let Ok(n) = value.extract::<i64>() {
        return Ok(Some(n));
    }
    if value.is_instance_of::<pyo3::types::PyInt>() {
        return Ok(Some(if value.gt(0)? { i64::MAX } else { i64::MIN }));
    }
    Err(InvalidInputError::new_err(format!("n_jobs must be an int or None, got {}", value.repr()?)))
}

/// One thread: the calling one (no hand-off to a pool), for small work.
pub const ONE_THREAD: Option<i64> = Some(1);
