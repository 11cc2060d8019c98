//! Rankings out as an Arrow record batch: `ranking` (large UTF-8, `b>a>c`), then one int32
//! column per label with its position (0: missing). Each export hands out pointers into one
//! shared, immutable copy of the columns, freed when the last consumer releases its batch.

use std::ffi::{c_void, CString};
use std::sync::Arc;

use super::ffi::{ArrowArray, ArrowSchema, Release};

/// The columns of predicted rankings.
pub struct RankColumns {
    pub labels: Vec<String>,
    pub n_rows: usize,
    pub text_offsets: Vec<i64>,
    pub text: Vec<u8>,
    /// Per label, its position in every row.
    pub positions: Vec<Vec<i32>>,
}

impl RankColumns {
    /// No rows yet, for the labels named `labels`.
    pub fn new(labels: Vec<String>) -> RankColumns {
        RankColumns { positions: vec![Vec::new(); labels.len()], labels, n_rows: 0, text_offsets: vec![0], text: Vec::new() }
    }

    /// Appends the rows of a row-major rank matrix (rows x labels): each one's text and positions.
    pub fn push_rows(&mut self, ranks: &[i32]) {
        let m = self.labels.len();
        let names: Vec<&str> = self.labels.iter().map(String::as_str).collect();
        let (mut line, mut order) = (String::new(), Vec::new());
        for row in ranks.chunks_exact(m.max(1)) {
            line.clear();
            lrank_core::data::ranking::write_ranking_text(row, &names, &mut order, &mut line);
            self.text.extend_from_slice(line.as_bytes());
            self.text_offsets.push(self.text.len() as i64);
            for (column, &r) in self.positions.iter_mut().zip(row) {
                column.push(r);
            }
            self.n_rows += 1;
        }
    }
}

/// The record batch's schema: a struct of the ranking and the labels' positions.
pub fn schema(columns: &RankColumns) -> ArrowSchema {
    let mut children: Vec<*mut ArrowSchema> = vec![Box::into_raw(Box::new(field("U", "ranking")))];
    children.extend(columns.labels.iter().map(|name| Box::into_raw(Box::new(field("i", name)))));
    node("+s", "", children)
}

fn field(format: &str, name: &str) -> ArrowSchema {
    node(format, name, Vec::new())
}

/// What a schema node owns: its strings and its children (freed by `release_schema`).
struct SchemaPrivate {
    _format: CString,
    _name: CString,
    children: Vec<*mut ArrowSchema>,
}

fn node(format: &str, name: &str, mut children: Vec<*mut ArrowSchema>) -> ArrowSchema {
    // Label names come from Python strings, which may hold NUL: such a byte is dropped.
    let c = |s: &str| CString::new(s.replace('\0', "")).expect("NUL bytes removed");
    let (format, name) = (c(format), c(name));
    let mut schema = ArrowSchema::released();
    schema.format = format.as_ptr();
    schema.name = name.as_ptr();
    // Nullable, as Arrow libraries mark columns by default (a schema compares equal to theirs).
    schema.flags = if children.is_empty() { 2 } else { 0 };
    schema.n_children = children.len() as i64;
    schema.children = children.as_mut_ptr();
    schema.release = Some(release_schema);
    schema.private_data = Box::into_raw(Box::new(SchemaPrivate { _format: format, _name: name, children })) as *mut c_void;
    schema
}

unsafe extern "C" fn release_schema(schema: *mut ArrowSchema) {
    // SAFETY: called by the holder of a schema made by `node`, once.
    let schema = unsafe { &mut *schema };
    let private = unsafe { Box::from_raw(schema.private_data as *mut SchemaPrivate) };
    unsafe { free_children(&private.children) };
    schema.release = None;
}

/// What an array node owns: its buffer pointers, its children, and a share of the columns.
struct ArrayPrivate {
    _columns: Arc<RankColumns>,
    _buffers: Vec<*const c_void>,
    children: Vec<*mut ArrowArray>,
}

/// The record batch's data: pointers into `columns`, which the batch keeps alive.
pub fn array(columns: &Arc<RankColumns>) -> ArrowArray {
    let n = columns.n_rows;
    let text = leaf(columns, n, vec![std::ptr::null(), columns.text_offsets.as_ptr().cast(), columns.text.as_ptr().cast()]);
    let mut children = vec![Box::into_raw(Box::new(text))];
    for p in &columns.positions {
        children.push(Box::into_raw(Box::new(leaf(columns, n, vec![std::ptr::null(), p.as_ptr().cast()]))));
    }
    array_node(columns, n, vec![std::ptr::null()], children)
}

fn leaf(columns: &Arc<RankColumns>, n: usize, buffers: Vec<*const c_void>) -> ArrowArray {
    array_node(columns, n, buffers, Vec::new())
}

fn array_node(
    columns: &Arc<RankColumns>,
    n: usize,
    mut buffers: Vec<*const c_void>,
    mut children: Vec<*mut ArrowArray>,
) -> ArrowArray {
    let mut array = ArrowArray::released();
    array.length = n as i64;
    array.n_buffers = buffers.len() as i64;
    array.buffers = buffers.as_mut_ptr();
    array.n_children = children.len() as i64;
    array.children = children.as_mut_ptr();
    array.release = Some(release_array);
    let private = ArrayPrivate { _columns: Arc::clone(columns), _buffers: buffers, children };
    array.private_data = Box::into_raw(Box::new(private)) as *mut c_void;
    array
}

unsafe extern "C" fn release_array(array: *mut ArrowArray) {
    // SAFETY: called by the holder of an array made by `array_node`, once.
    let array = unsafe { &mut *array };
    let private = unsafe { Box::from_raw(array.private_data as *mut ArrayPrivate) };
    unsafe { free_children(&private.children) };
    array.release = None;
}

/// Frees the children a node made, releasing each one a consumer has not moved out.
///
/// # Safety
/// Each pointer came from `Box::into_raw` in this module and is freed once, by its parent.
unsafe fn free_children<T: Release>(children: &[*mut T]) {
    for &child in children {
        let mut child = unsafe { Box::from_raw(child) };
        child.release();
    }
}
