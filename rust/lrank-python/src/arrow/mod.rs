//! Arrow data in and out through the Arrow PyCapsule protocol, so that a model ranks a pyarrow
//! RecordBatch or Table, a Polars DataFrame or any other Arrow producer without a copy on the
//! Python side and without depending on any of them. [`ffi`] holds the C data interface,
//! [`import`] reads feature columns, [`export`] writes the rankings.

mod export;
mod ffi;
mod import;

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyCapsule;

pub use export::RankColumns;
use ffi::{ArrowArray, ArrowArrayStream, ArrowSchema, Owned};
pub use import::{Columns, Fields};

use crate::errors::InvalidInputError;

/// A record batch (or a stream of them) taken from an Arrow producer: its fields and data,
/// released when dropped.
pub struct ArrowInput {
    pub fields: Fields,
    pub batches: Vec<Owned<ArrowArray>>,
    _schema: Owned<ArrowSchema>,
}

/// Takes the data of an object with `__arrow_c_array__` (a record batch) or
/// `__arrow_c_stream__` (a table, a data frame, a reader: every batch is read).
pub fn read(data: &Bound<'_, PyAny>) -> PyResult<ArrowInput> {
    let py = data.py();
    let to_py = |e| crate::errors::to_py_err(py, e);
    if data.hasattr("__arrow_c_array__")? {
        let pair = call_producer(data, "__arrow_c_array__")?;
        let (schema, array): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract().map_err(|_| {
            InvalidInputError::new_err(format!(
                "the Arrow producer's __arrow_c_array__ returned {}, not a (schema, array) pair of capsules",
                type_name(&pair)
            ))
        })?;
        let schema = ffi::take(&schema, ffi::SCHEMA, ArrowSchema::released())?;
        let array = ffi::take(&array, ffi::ARRAY, ArrowArray::released())?;
        let fields = Fields::of_schema(&schema.0).map_err(to_py)?;
        return Ok(ArrowInput { fields, batches: vec![array], _schema: schema });
    }
    if data.hasattr("__arrow_c_stream__")? {
        let capsule = call_producer(data, "__arrow_c_stream__")?;
        let mut stream = ffi::take(&capsule, ffi::STREAM, released_stream())?;
        let mut schema = Owned(ArrowSchema::released());
        let get_schema = stream.0.get_schema.ok_or_else(|| InvalidInputError::new_err("Arrow stream without get_schema"))?;
        // SAFETY: the producer's callbacks, called on its stream as the interface prescribes.
        let status = unsafe { get_schema(&mut stream.0, &mut schema.0) };
        check(&mut stream.0, status)?;
        let fields = Fields::of_schema(&schema.0).map_err(to_py)?;
        let get_next = stream.0.get_next.ok_or_else(|| InvalidInputError::new_err("Arrow stream without get_next"))?;
        let mut batches = Vec::new();
        loop {
            let mut array = Owned(ArrowArray::released());
            let status = unsafe { get_next(&mut stream.0, &mut array.0) };
            check(&mut stream.0, status)?;
            if array.0.release.is_none() {
                break; // the end of the stream
            }
            batches.push(array);
        }
        return Ok(ArrowInput { fields, batches, _schema: schema });
    }
    Err(InvalidInputError::new_err(format!(
        "expected Arrow data (an object with __arrow_c_array__ or __arrow_c_stream__: a pyarrow RecordBatch or Table, a Polars DataFrame), got {}",
        data.get_type().name()?
    )))
}

/// Calls a producer's protocol method; one that is not callable is an input error, while an
/// exception the producer raises is its own and passes through.
fn call_producer<'py>(data: &Bound<'py, PyAny>, method: &str) -> PyResult<Bound<'py, PyAny>> {
    let attribute = data.getattr(method)?;
    if !attribute.is_callable() {
        return Err(InvalidInputError::new_err(format!(
            "the Arrow producer's {method} is not a method ({})",
            type_name(&attribute)
        )));
    }
    attribute.call0()
}

fn type_name(o: &Bound<'_, PyAny>) -> String {
    o.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "an object".into())
}

fn released_stream() -> ArrowArrayStream {
    ArrowArrayStream { get_schema: None, get_next: None, get_last_error: None, release: None, private_data: std::ptr::null_mut() }
}

fn check(stream: &mut ArrowArrayStream, status: i32) -> PyResult<()> {
    if status == 0 {
        return Ok(());
    }
    let message = match stream.get_last_error {
        // SAFETY: the producer's error text, valid until its next call.
        Some(last) => unsafe { ffi::text(last(stream)) },
        None => String::new(),
    };
    Err(InvalidInputError::new_err(format!("Arrow data: the stream failed (error {status}): {message}")))
}

/// Predicted rankings as an Arrow record batch: `ranking` (`b>a>c`), then each label's position
/// (int32). Any Arrow consumer imports it without a copy: `pyarrow.record_batch(batch)`.
#[pyclass(frozen, module = "lrank._core")]
pub struct ArrowBatch {
    pub columns: Arc<RankColumns>,
}

#[pymethods]
impl ArrowBatch {
    /// The Arrow PyCapsule protocol: (schema, array) capsules of the record batch.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        // A requested schema may be ignored (the protocol's rule); consumers cast if they must.
        let _ = requested_schema;
        let schema = ffi::capsule(py, export::schema(&self.columns), ffi::SCHEMA)?;
        let array = ffi::capsule(py, export::array(&self.columns), ffi::ARRAY)?;
        Ok((schema, array))
    }

    /// The Arrow PyCapsule protocol: the schema capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        ffi::capsule(py, export::schema(&self.columns), ffi::SCHEMA)
    }

    #[getter]
    fn num_rows(&self) -> usize {
        self.columns.n_rows
    }

    #[getter]
    fn column_names(&self) -> Vec<String> {
        std::iter::once("ranking".to_string()).chain(self.columns.labels.iter().cloned()).collect()
    }

    fn __len__(&self) -> usize {
        self.columns.n_rows
    }

    fn __repr__(&self) -> String {
        format!("ArrowBatch(num_rows={}, columns={:?})", self.columns.n_rows, self.column_names())
    }
}
