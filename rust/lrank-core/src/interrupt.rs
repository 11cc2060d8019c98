//! Stopping long work early when the user asks (Ctrl-C in Python): a process-wide request that
//! tree growth and the predict loops poll. Once it is made, every node still to be decided
//! becomes a leaf and the rows still to be predicted are skipped, so the work winds down in
//! moments; [`check`] then turns the request into [`LrankError::Interrupted`] and the unfinished
//! result is discarded. The bindings make and clear the request (see `lrank-python`'s errors).

use crate::error::{LrankError, Result};
use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks running work to stop. One atomic store: safe to call from a signal handler.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Whether work has been asked to stop.
#[inline]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Withdraws the request (before new work starts).
pub fn clear() {
    REQUESTED.store(false, Ordering::Relaxed);
}

/// `Err(Interrupted)` once work has been asked to stop.
pub fn check() -> Result<()> {
    if requested() {
        Err(LrankError::Interrupted)
    } else {
        Ok(())
    }
}
