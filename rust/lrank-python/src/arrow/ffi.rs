//! The Arrow C data interface (arrow.apache.org/docs/format/CDataInterface.html): its three
//! structs, owners that release what they took, and the PyCapsules of the PyCapsule protocol
//! (`__arrow_c_array__`, `__arrow_c_stream__`) that carry them between libraries.

use std::ffi::{c_char, c_int, c_void, CStr};

use pyo3::prelude::*;
use pyo3::types::PyCapsule;

#[repr(C)]
pub struct ArrowSchema {
    pub format: *const c_char,
    pub name: *const c_char,
    pub metadata: *const c_char,
    pub flags: i64,
    pub n_children: i64,
    pub children: *mut *mut ArrowSchema,
    pub dictionary: *mut ArrowSchema,
    pub release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    pub private_data: *mut c_void,
}

#[repr(C)]
pub struct ArrowArray {
    pub length: i64,
    pub null_count: i64,
    pub offset: i64,
    pub n_buffers: i64,
    pub n_children: i64,
    pub buffers: *mut *const c_void,
    pub children: *mut *mut ArrowArray,
    pub dictionary: *mut ArrowArray,
    pub release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    pub private_data: *mut c_void,
}

#[repr(C)]
pub struct ArrowArrayStream {
    pub get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    pub get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    pub get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    pub release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    pub private_data: *mut c_void,
}

impl ArrowSchema {
    /// A released (empty) schema: what a consumer leaves behind after moving one out.
    pub fn released() -> Self {
        use std::ptr::{null, null_mut};
        ArrowSchema {
            format: null(),
            name: null(),
            metadata: null(),
            flags: 0,
            n_children: 0,
            children: null_mut(),
            dictionary: null_mut(),
            release: None,
            private_data: null_mut(),
        }
    }
}

impl ArrowArray {
    pub fn released() -> Self {
        use std::ptr::null_mut;
        ArrowArray {
            length: 0,
            null_count: 0,
            offset: 0,
            n_buffers: 0,
            n_children: 0,
            buffers: null_mut(),
            children: null_mut(),
            dictionary: null_mut(),
            release: None,
            private_data: null_mut(),
        }
    }
}

/// A schema, array or stream this side took over: released (by its producer's callback) when
/// dropped, as the interface requires of whoever holds one.
pub struct Owned<T: Release>(pub T);

pub trait Release {
    fn release(&mut self);
}

macro_rules! release_impl {
    ($t:ty) => {
        impl Release for $t {
            fn release(&mut self) {
                if let Some(release) = self.release {
                    // SAFETY: the producer's callback, called once on the struct it filled.
                    unsafe { release(self) };
                    self.release = None;
                }
            }
        }
    };
}
release_impl!(ArrowSchema);
release_impl!(ArrowArray);
release_impl!(ArrowArrayStream);

impl<T: Release> Drop for Owned<T> {
    fn drop(&mut self) {
        self.0.release();
    }
}

// SAFETY: what an `Owned` points to is immutable while it is held, and the interface lets any
// thread release it; the buffers are only read.
unsafe impl<T: Release> Send for Owned<T> {}
unsafe impl<T: Release> Sync for Owned<T> {}

pub const SCHEMA: &CStr = c"arrow_schema";
pub const ARRAY: &CStr = c"arrow_array";
pub const STREAM: &CStr = c"arrow_array_stream";

/// Moves the struct out of a producer's capsule, leaving a released one behind (so the
/// capsule's destructor does not release it again).
pub fn take<T: Release>(capsule: &Bound<'_, PyAny>, name: &CStr, released: T) -> PyResult<Owned<T>> {
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| {
        crate::errors::InvalidInputError::new_err(format!("the Arrow producer returned {}, not a PyCapsule", type_name(capsule)))
    })?;
    let pointer = capsule
        .pointer_checked(Some(name))
        .map_err(|_| crate::errors::InvalidInputError::new_err(format!("the Arrow producer's capsule is not named {name:?}")))?
        .cast::<T>();
    // SAFETY: a capsule named `name` holds a valid struct of that kind (the protocol's contract);
    // it is moved out and replaced by a released one.
    Ok(Owned(unsafe { std::ptr::replace(pointer.as_ptr(), released) }))
}

fn type_name(o: &Bound<'_, PyAny>) -> String {
    o.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "an object".into())
}

/// A struct this side made, in a capsule: the capsule releases it unless a consumer moved it out.
pub fn capsule<'py, T: Release + 'static>(py: Python<'py>, value: T, name: &'static CStr) -> PyResult<Bound<'py, PyCapsule>> {
    #[repr(transparent)]
    struct Sendable<T>(T);
    // SAFETY: the struct's private data is owned by it and freed by its release callback,
    // which the interface allows on any thread.
    unsafe impl<T> Send for Sendable<T> {}
    let capsule = PyCapsule::new_with_value_and_destructor(py, Sendable(value), name, |mut v: Sendable<T>, _| v.0.release())?;
    Ok(capsule)
}

/// The C string at `p` (null: empty), for names and formats read off a schema.
///
/// # Safety
/// `p` is null or a valid NUL-terminated string.
pub unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}
