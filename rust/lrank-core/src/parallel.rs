//! Thread control: run work on a pool of a given size, or on rayon's global pool.

use crate::error::{LrankError, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Runs `f` with `n_jobs` rayon threads (`None` or `Some(0)`: rayon's global pool, one thread
/// per core). Results never depend on the thread count: work is split by index, not by thread.
///
/// Pools are made once per size and kept: starting threads for every call would cost more than
/// a small prediction.
pub fn with_threads<T: Send>(n_jobs: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    match n_jobs {
        None | Some(0) => Ok(f()),
        Some(n) => Ok(pool(n)?.install(f)),
    }
}

fn pool(n: usize) -> Result<Arc<rayon::ThreadPool>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = pools.get(&n) {
        return Ok(p.clone());
    }
    let p = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(move |i| format!("lrank-{n}-{i}"))
            .build()
            .map_err(|e| LrankError::InvalidInput(format!("cannot start {n} threads: {e}")))?,
    );
    pools.insert(n, p.clone());
    Ok(p)
}
