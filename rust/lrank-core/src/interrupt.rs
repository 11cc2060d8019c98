//! Stopping long work early when the user asks (Ctrl-C in Python): a process-wide request that
//! tree growth, the ensembles' member loops and the predict loops poll. Once it is made, every
//! node still to be decided becomes a leaf, the trees, members and rounds left are skipped and
//! the rows still to be predicted are left out, so the work winds down in moments; [`check`]
//! then turns the request into [`LrankError::Interrupted`] and the unfinished result is dropped.
//!
//! The bindings make the request for the call of the thread that receives Ctrl-C, which has
//! [`enter`]ed a scope like every call. The request is honoured only while that call is the
//! only one running: work of other threads, which the user did not interrupt, must never stop
//! short (a forest with leaves for trees would be returned as if whole). With several calls at
//! once the request waits, and the bindings raise it after the interrupted call ends.

use crate::error::{LrankError, Result};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);
/// Calls inside a scope ([`enter`]): the bindings' calls, from any thread.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Asks running work to stop. One atomic store: safe to call from a signal handler.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether work should stop: a request is made and at most one call runs.
#[inline]
pub fn requested() -> bool {
    // RUNNING first: the bindings withdraw a request before leaving their scope, so whoever
    // sees that call gone also sees its request withdrawn (sequential consistency).
    RUNNING.load(Ordering::SeqCst) <= 1 && REQUESTED.load(Ordering::SeqCst)
}

/// Withdraws the request, returning whether one was made (whatever ran beside it).
pub fn take() -> bool {
    REQUESTED.swap(false, Ordering::SeqCst)
}

/// Withdraws the request (before new work starts).
pub fn clear() {
    take();
}

/// `Err(Interrupted)` once work should stop ([`requested`]).
pub fn check() -> Result<()> {
    if requested() {
        Err(LrankError::Interrupted)
    } else {
        Ok(())
    }
}

/// A call counted as running until the guard is dropped.
#[must_use]
pub struct Scope(());

/// Counts a call as running (see the module).
pub fn enter() -> Scope {
    RUNNING.fetch_add(1, Ordering::SeqCst);
    Scope(())
}

impl Drop for Scope {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
}
