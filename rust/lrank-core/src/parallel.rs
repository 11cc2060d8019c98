//! Thread control: run work on a pool of a given size.

use crate::error::{LrankError, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Runs `f` with `n_jobs` rayon threads (`None` or `Some(0)`: one per core, or
/// `RAYON_NUM_THREADS`). Results never depend on the thread count: work is split by index, not
/// by thread.
///
/// One thread means the calling thread itself (through a one-thread pool made of it, kept per
/// thread): handing small work to a pool thread and waking it costs tens of microseconds per
/// call, as much as a small prediction. Larger pools are made once per size and kept: starting
/// threads for every call would cost more still. The all-cores case also runs on a pool of our
/// own, not rayon's global one, because a thread that has run one-thread work is a worker of
/// its own pool, and rayon would send its parallel work there.
///
/// More threads than cores are never started: a thread count comes from users and model files,
/// and a million threads would exhaust the machine, while results do not depend on the count.
pub fn with_threads<T: Send>(n_jobs: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    // One thread needs no core count (its first reading costs about 0.1 ms in a fresh process).
    match n_jobs.map(|n| if n == 1 { 1 } else { n.min(available_cores()) }) {
        Some(1) => on_this_thread(f),
        None => Ok(pool(0)?.install(f)),
        Some(n) => Ok(pool(n)?.install(f)),
    }
}

/// The cores this process may use (at least 1), found once: the standard library reads the
/// cgroup quota files on every call (eight system calls, about 28 us here), and every fit and
/// predict asks.
pub fn available_cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The thread count of an `n_jobs` argument: `None` or -1 for all cores, k > 0 for k threads
/// (at most the cores, see [`with_threads`]).
pub fn threads_of_n_jobs(n_jobs: Option<i64>) -> Result<Option<usize>> {
    match n_jobs {
        None | Some(-1) => Ok(None),
        Some(n) if n > 0 => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
        Some(n) => Err(LrankError::InvalidInput(format!("n_jobs must be a positive number of threads or -1, got {n}"))),
    }
}

/// Threads that may become one-thread pools of their own. rayon keeps the registry of such a
/// pool for the life of the process (about 7.5 KB), even after its thread has ended: a server
/// starting a thread per request grew by that much per request. Later threads borrow a spare
/// one-thread pool for the call (see [`Process::spare`]).
const MAX_THREADS_OF_THEIR_OWN: usize = 64;
static THREADS_OF_THEIR_OWN: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The calling thread as a one-thread pool (`None` if rayon could not make one, or too many
    /// threads already have one).
    static THIS_THREAD: Option<rayon::ThreadPool> = {
        let admitted = THREADS_OF_THEIR_OWN
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |k| (k < MAX_THREADS_OF_THEIR_OWN).then_some(k + 1))
            .is_ok();
        if admitted { rayon::ThreadPoolBuilder::new().num_threads(1).use_current_thread().build().ok() } else { None }
    };
}

fn on_this_thread<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T> {
    // Taken out of the closure below so that `f` is moved in exactly once.
    let mut f = Some(f);
    let outcome =
        THIS_THREAD.try_with(|here| here.as_ref().map(|p| p.install(|| (f.take().expect("called once"))()))).ok().flatten();
    match (outcome, f) {
        (Some(value), _) => Ok(value),
        // No pool of this thread (one thread too many, being torn down, or rayon refused): a
        // spare one-thread pool, returned after the call.
        (None, Some(f)) => {
            let process = Process::current();
            let spare = process.take_spare()?;
            let value = spare.install(f);
            process.spare.lock().unwrap_or_else(|e| e.into_inner()).push(spare);
            Ok(value)
        }
        (None, None) => unreachable!("f runs only when the pool exists"),
    }
}

/// Stack of each pool thread (address space only: pages are used as the stack grows).
const POOL_STACK_BYTES: usize = 16 << 20;

/// The pools of this process. A child of fork starts its own: the parent's pool threads do not
/// exist in the child, and work sent to them waited forever (a server that loads a model,
/// predicts, then forks its workers); their locks may even be held by a parent's thread. The
/// parent's are left as they are (dropping them would signal threads the child lacks).
struct Process {
    pid: u32,
    /// The shared pools by size.
    pools: Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>,
    /// One-thread pools lent to the threads without a pool of their own, one per call at a time:
    /// as many as such calls ever ran at once.
    spare: Mutex<Vec<rayon::ThreadPool>>,
}

static PROCESS: AtomicPtr<Process> = AtomicPtr::new(std::ptr::null_mut());

impl Process {
    fn current() -> &'static Process {
        let pid = std::process::id();
        let seen = PROCESS.load(Ordering::Acquire);
        // SAFETY: the pointer is null or a leaked Box, never freed.
        if let Some(process) = unsafe { seen.as_ref() } {
            if process.pid == pid {
                return process;
            }
        }
        let fresh: &'static mut Process =
            Box::leak(Box::new(Process { pid, pools: Mutex::new(HashMap::new()), spare: Mutex::new(Vec::new()) }));
        match PROCESS.compare_exchange(seen, fresh, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => fresh,
            // Another thread of this process installed its own first: use that one (a few
            // bytes of ours stay leaked, once).
            // SAFETY: as above.
            Err(other) => unsafe { &*other },
        }
    }

    fn take_spare(&self) -> Result<rayon::ThreadPool> {
        if let Some(p) = self.spare.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Ok(p);
        }
        build_pool(1)
    }
}

fn build_pool(n: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(move |i| format!("lrank-{n}-{i}"))
        // Trees grow by recursion (at most MAX_TREE_DEPTH levels): room for them in any build.
        .stack_size(POOL_STACK_BYTES)
        .build()
        .map_err(|e| {
            let what = if n == 0 { "a thread per core".to_string() } else { format!("{n} threads") };
            LrankError::InvalidInput(format!(
                "cannot start {what}: {e} (a limit on threads or memory; n_jobs=1 runs on the calling thread)"
            ))
        })
}

/// The shared pool of `n` threads (`0`: rayon's default size).
fn pool(n: usize) -> Result<Arc<rayon::ThreadPool>> {
    let mut pools = Process::current().pools.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = pools.get(&n) {
        return Ok(p.clone());
    }
    let p = Arc::new(build_pool(n)?);
    pools.insert(n, p.clone());
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn one_thread_runs_on_the_caller_and_other_sizes_on_their_pools() {
        let caller = std::thread::current().id();
        let (id, threads) = with_threads(Some(1), || (std::thread::current().id(), rayon::current_num_threads())).unwrap();
        assert_eq!((id, threads), (caller, 1));
        // After one-thread work the caller is a worker of its own pool: the other sizes must
        // still get their own threads.
        assert_eq!(with_threads(Some(3), rayon::current_num_threads).unwrap(), 3.min(available_cores()));
        // Never more threads than cores, however many are asked for.
        assert_eq!(with_threads(Some(1_000_000), rayon::current_num_threads).unwrap(), available_cores());
        assert_eq!(threads_of_n_jobs(Some(-1)).unwrap(), None);
        assert_eq!(threads_of_n_jobs(Some(4)).unwrap(), Some(4));
        assert!(threads_of_n_jobs(Some(0)).is_err() && threads_of_n_jobs(Some(-3)).is_err());
        let all = with_threads(None, rayon::current_num_threads).unwrap();
        assert_eq!(all, rayon::ThreadPoolBuilder::new().build().unwrap().current_num_threads());
        // Parallel iterators inside one-thread work run, in order of the index, on the caller.
        let sums: Vec<u64> = with_threads(Some(1), || (0..1000u64).into_par_iter().map(|i| i * i).collect()).unwrap();
        assert_eq!(sums, (0..1000u64).map(|i| i * i).collect::<Vec<_>>());
    }

    #[test]
    fn one_thread_work_from_many_short_lived_threads() {
        // More threads than may have pools of their own: the later ones share the pool of all cores.
        let handles: Vec<_> = (0..MAX_THREADS_OF_THEIR_OWN as u64 + 16)
            .map(|t| {
                std::thread::spawn(move || {
                    with_threads(Some(1), || (0..100u64).into_par_iter().map(|i| i + t).sum::<u64>()).unwrap()
                })
            })
            .collect();
        for (t, h) in handles.into_iter().enumerate() {
            assert_eq!(h.join().unwrap(), (0..100u64).map(|i| i + t as u64).sum::<u64>());
        }
        assert_eq!(THREADS_OF_THEIR_OWN.load(Ordering::Relaxed), MAX_THREADS_OF_THEIR_OWN);
        // One-thread work of a thread past the cap runs on one thread (a spare pool), not on all cores.
        let threads = std::thread::spawn(|| with_threads(Some(1), rayon::current_num_threads).unwrap()).join().unwrap();
        assert_eq!(threads, 1);
    }

    #[test]
    fn a_panic_in_one_thread_work_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| with_threads(Some(1), || panic!("boom")));
        assert!(caught.is_err());
        // The thread can still run work afterwards.
        assert_eq!(with_threads(Some(1), || 7).unwrap(), 7);
    }
}
