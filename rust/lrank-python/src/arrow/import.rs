//! Arrow record batches in: a struct array's numeric and boolean columns read where they lie
//! (no copy on the Python side), into the row-major float64 matrix the core reads, with nulls as
//! missing values (NaN).

use std::ffi::c_void;

use lrank_core::LrankError as CoreError;

use super::ffi::{text, ArrowArray, ArrowSchema};

/// How a column's values are stored (Arrow format strings `g f l i s c L I S C b n`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Values {
    F64,
    F32,
    I64,
    I32,
    I16,
    I8,
    U64,
    U32,
    U16,
    U8,
    Bool,
    Null,
}

impl Values {
    fn of_format(format: &str) -> Option<Values> {
        Some(match format {
            "g" => Values::F64,
            "f" => Values::F32,
            "l" => Values::I64,
            "i" => Values::I32,
            "s" => Values::I16,
            "c" => Values::I8,
            "L" => Values::U64,
            "I" => Values::U32,
            "S" => Values::U16,
            "C" => Values::U8,
            "b" => Values::Bool,
            "n" => Values::Null,
            _ => return None,
        })
    }
}

/// An Arrow C-format string as a reader knows the type ('vu' is "string"), the code beside it.
fn type_name(format: &str) -> String {
    let name = match format.split(':').next().unwrap_or("") {
        "u" | "U" | "vu" => "string",
        "z" | "Z" | "vz" => "binary",
        "w" => "fixed-size binary",
        "e" => "float16",
        "d" => "decimal",
        "tdD" | "tdm" => "date",
        "tts" | "ttm" | "ttu" | "ttn" => "time",
        "tss" | "tsm" | "tsu" | "tsn" => "timestamp",
        "tDs" | "tDm" | "tDu" | "tDn" => "duration",
        "tiM" | "tiD" | "tin" => "interval",
        "+l" | "+L" | "+vl" | "+vL" => "list",
        "+s" => "struct",
        "+m" => "map",
        _ => return format!("'{format}'"),
    };
    format!("{name} ('{format}')")
}

/// A record batch's fields: names and value kinds (`None`: a type lrank cannot read as a
/// feature, kept so that only selecting it is an error).
pub struct Fields(Vec<(String, Result<Values, String>)>);

impl Fields {
    /// The fields of a record batch's schema (a struct).
    pub fn of_schema(schema: &ArrowSchema) -> Result<Fields, CoreError> {
        if schema.release.is_none() {
            return Err(bad("the producer handed over a released schema"));
        }
        // SAFETY: a schema taken from its producer has valid strings and `n_children` children.
        let format = unsafe { text(schema.format) };
        if format != "+s" {
            return Err(bad(format!("expected a record batch (Arrow struct type '+s'), got type '{format}'")));
        }
        let children = children(schema.children, schema.n_children)?;
        let fields = children
            .iter()
            .map(|&child| {
                // SAFETY: each child is a valid schema owned by the parent.
                let child = unsafe { &*child };
                let (name, format) = unsafe { (text(child.name), text(child.format)) };
                let values = match Values::of_format(&format) {
                    Some(v) if child.dictionary.is_null() => Ok(v),
                    _ if !child.dictionary.is_null() => Err("dictionary-encoded (categorical)".to_string()),
                    _ => Err(format!("of Arrow type {}", type_name(&format))),
                };
                (name, values)
            })
            .collect();
        Ok(Fields(fields))
    }

    /// The positions of the columns named `names` (all columns, in order, when `None`).
    pub fn select(&self, names: Option<&[String]>) -> Result<Vec<usize>, CoreError> {
        let picked: Vec<usize> = match names {
            None => (0..self.0.len()).collect(),
            Some(names) => names
                .iter()
                .map(|name| {
                    self.0.iter().position(|(n, _)| n == name).ok_or_else(|| {
                        let have: Vec<&str> = self.0.iter().map(|(n, _)| n.as_str()).collect();
                        bad(format!("column {name:?} is not in the batch (its columns: {})", have.join(", ")))
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        for &k in &picked {
            if let (name, Err(kind)) = &self.0[k] {
                return Err(bad(format!("column {name:?} is {kind}: lrank reads numeric and boolean Arrow columns as features")));
            }
        }
        Ok(picked)
    }
}

/// One column's buffers, read in place.
struct Column {
    values: Values,
    data: *const c_void,
    validity: *const u8,
    /// Index of the batch's first row in the buffers (the struct's and the column's offsets).
    start: usize,
}

/// The selected columns of one record batch, ready to be read on any thread while the batch's
/// owner (which outlives this) holds the buffers.
pub struct Columns {
    columns: Vec<Column>,
    pub n_rows: usize,
}

// SAFETY: the buffers are immutable and kept alive by the owned batch for as long as `Columns`
// is used (both live in the caller's frame).
unsafe impl Send for Columns {}
unsafe impl Sync for Columns {}

impl Columns {
    /// The columns `picked` of `array`, a record batch of `fields`, checked against the
    /// interface's invariants (lengths, buffer counts), so that reading them stays in bounds.
    pub fn of_array(array: &ArrowArray, fields: &Fields, picked: &[usize]) -> Result<Columns, CoreError> {
        if array.release.is_none() {
            return Err(bad("the producer handed over a released array"));
        }
        let n_rows = count(array.length, "length")?;
        let offset = count(array.offset, "offset")?;
        if array.null_count != 0 && array.n_buffers > 0 && !array.buffers.is_null() && unsafe { !(*array.buffers).is_null() } {
            return Err(bad("the batch has null rows (a struct-level validity bitmap); lrank needs every row"));
        }
        let children = children(array.children, array.n_children)?;
        if children.len() != fields.0.len() {
            return Err(bad(format!("the batch has {} columns but its schema {}", children.len(), fields.0.len())));
        }
        let mut columns = Vec::with_capacity(picked.len());
        for &k in picked {
            let (name, values) = &fields.0[k];
            let values = *values.as_ref().map_err(|e| bad(e.clone()))?;
            // SAFETY: a child of a valid array is a valid array.
            let child = unsafe { &*children[k] };
            let start = offset.checked_add(count(child.offset, "offset")?).ok_or_else(|| bad("offset overflows"))?;
            let needed = start.checked_add(n_rows).ok_or_else(|| bad("offset overflows"))?;
            if count(child.length, "length")?.saturating_add(count(child.offset, "offset")?) < needed {
                return Err(bad(format!("column {name:?} is shorter than the batch")));
            }
            let want = if values == Values::Null { 0 } else { 2 };
            // The null type has no buffers, but some producers (Polars) export an unused
            // validity pointer: pyarrow accepts 0 or 1, so does lrank.
            let allowed = child.n_buffers == want || (values == Values::Null && child.n_buffers == 1);
            if !allowed || (want > 0 && child.buffers.is_null()) {
                return Err(bad(format!("column {name:?} has {} buffers, its type has {want}", child.n_buffers)));
            }
            let (validity, data) = if want == 0 {
                (std::ptr::null(), std::ptr::null())
            } else {
                // SAFETY: `buffers` holds `n_buffers` pointers.
                unsafe { (*child.buffers as *const u8, *child.buffers.add(1)) }
            };
            if want > 0 && data.is_null() && n_rows > 0 {
                return Err(bad(format!("column {name:?} has no data buffer")));
            }
            // A validity bitmap only matters when the column has nulls (-1: not counted).
            let validity = if child.null_count == 0 { std::ptr::null() } else { validity };
            columns.push(Column { values, data, validity, start });
        }
        Ok(Columns { columns, n_rows })
    }

    /// The features as a row-major matrix (rows x selected columns), nulls as NaN; refused when
    /// the batch's declared length would need more memory than the process may use.
    pub fn row_major(&self) -> Result<Vec<f64>, CoreError> {
        let p = self.columns.len();
        lrank_core::memory::check_bytes("the Arrow batch's features", &[self.n_rows, p], std::mem::size_of::<f64>())?;
        let mut out = vec![0.0; self.n_rows * p];
        for (k, column) in self.columns.iter().enumerate() {
            for i in 0..self.n_rows {
                // SAFETY: `of_array` checked that rows start..start + n_rows exist.
                out[i * p + k] = unsafe { column.get(column.start + i) };
            }
        }
        Ok(out)
    }
}

impl Column {
    /// # Safety
    /// `at` is within the column's buffers.
    unsafe fn get(&self, at: usize) -> f64 {
        let bit = |bits: *const u8, at: usize| unsafe { (*bits.add(at / 8) >> (at % 8)) & 1 == 1 };
        if self.values == Values::Null || (!self.validity.is_null() && !bit(self.validity, at)) {
            return f64::NAN;
        }
        let d = self.data;
        unsafe {
            match self.values {
                Values::F64 => (d as *const f64).add(at).read_unaligned(),
                Values::F32 => (d as *const f32).add(at).read_unaligned() as f64,
                Values::I64 => (d as *const i64).add(at).read_unaligned() as f64,
                Values::I32 => (d as *const i32).add(at).read_unaligned() as f64,
                Values::I16 => (d as *const i16).add(at).read_unaligned() as f64,
                Values::I8 => *(d as *const i8).add(at) as f64,
                Values::U64 => (d as *const u64).add(at).read_unaligned() as f64,
                Values::U32 => (d as *const u32).add(at).read_unaligned() as f64,
                Values::U16 => (d as *const u16).add(at).read_unaligned() as f64,
                Values::U8 => *(d as *const u8).add(at) as f64,
                Values::Bool => bit(d as *const u8, at) as u8 as f64,
                Values::Null => f64::NAN,
            }
        }
    }
}

fn bad(reason: impl Into<String>) -> CoreError {
    CoreError::InvalidInput(format!("Arrow data: {}", reason.into()))
}

fn count(v: i64, what: &str) -> Result<usize, CoreError> {
    usize::try_from(v).map_err(|_| bad(format!("negative {what} {v}")))
}

fn children<T>(children: *mut *mut T, n: i64) -> Result<Vec<*mut T>, CoreError> {
    let n = count(n, "number of children")?;
    if n > 0 && children.is_null() {
        return Err(bad("children missing"));
    }
    // SAFETY: `children` holds `n` pointers (the interface's contract).
    let all: Vec<*mut T> = (0..n).map(|k| unsafe { *children.add(k) }).collect();
    if all.iter().any(|c| c.is_null()) {
        return Err(bad("a child is missing"));
    }
    Ok(all)
}
