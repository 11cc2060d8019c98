//! Thread control: run work on a pool of a given size, or on rayon's global pool.

use crate::error::{LrankError, Result};

/// Runs `f` with `n_jobs` rayon threads (`None` or `Some(0)`: rayon's global pool, one thread
/// per core). Results never depend on the thread count: work is split by index, not by thread.
pub fn with_threads<T: Send>(n_jobs: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    match n_jobs {
        None | Some(0) => Ok(f()),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| LrankError::InvalidInput(format!("cannot start {n} threads: {e}")))?;
            Ok(pool.install(f))
        }
    }
}
