//! The thread pools every parallel call runs on, made safe across `fork()`.
//!
//! A forked child inherits a thread pool's bookkeeping but none of its
//! threads, so a job sent to an inherited pool waits forever. rayon's global
//! pool can never be rebuilt, so nothing here uses it: every parallel call
//! runs on a pool of this module, and a fork hook marks them all stale in
//! the child, which builds fresh pools on first use.
//!
//! Pools are kept between calls (their threads keep per-thread search scratch
//! space warm), but only the [`KEPT`] most recently used sizes: each
//! distinct `threads=N` would otherwise leave N threads alive for good.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};

use rayon::{ThreadPool, ThreadPoolBuilder};
use rserini_core::Error;

/// How many pools (distinct sizes) stay alive between calls.
const KEPT: usize = 3;

/// The largest `threads=` accepted on any machine; more cores raise it to
/// four threads per core.
const MAX_THREADS_FLOOR: usize = 256;

/// Bumped in the child of every `fork()`: pools made under another value
/// belong to the parent.
static FORK_GENERATION: AtomicU64 = AtomicU64::new(0);

/// The kept pools, most recently used last, keyed by requested size
/// (`0`: rayon's default, all cores or `RAYON_NUM_THREADS`).
struct Pools {
    generation: u64,
    kept: Vec<(usize, Arc<ThreadPool>)>,
}

static POOLS: Mutex<Pools> = Mutex::new(Pools {
    generation: 0,
    kept: Vec::new(),
});

/// Runs in the child right after `fork()`: only an atomic store, which is
/// async-signal-safe as a fork handler must be.
extern "C" fn after_fork_in_child() {
    FORK_GENERATION.fetch_add(1, Ordering::SeqCst);
}

/// Installs the fork hook (once per process; the child inherits it).
pub fn install_fork_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // SAFETY: registers a handler that only touches an atomic.
        #[allow(unsafe_code)]
        let rc = unsafe { libc::pthread_atfork(None, None, Some(after_fork_in_child)) };
        // pthread_atfork fails only when out of memory; the pools would then
        // still work everywhere except in a forked child.
        debug_assert_eq!(rc, 0);
    });
}

/// The largest accepted `threads=`: 256, or four per core on larger machines.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    MAX_THREADS_FLOOR.max(cores.saturating_mul(4))
}

/// Checks a `threads=` value: `1..=max_threads()`.
pub fn check_threads(threads: i128) -> Result<usize, Error> {
    usize::try_from(threads)
        .ok()
        .filter(|n| (1..=max_threads()).contains(n))
        .ok_or_else(|| threads_out_of_range(threads))
}

/// The error for a `threads=` value outside `1..=max_threads()`.
pub fn threads_out_of_range(got: impl std::fmt::Display) -> Error {
    Error::Query(format!(
        "threads must be at least 1 and at most {} (or None for all cores), got {got}",
        max_threads()
    ))
}

/// The pool of `threads` threads (`None`: all cores), made on first use.
pub fn pool(threads: Option<usize>) -> Result<Arc<ThreadPool>, Error> {
    let size = threads.unwrap_or(0);
    let generation = FORK_GENERATION.load(Ordering::SeqCst);
    {
        let mut pools = lock();
        if pools.generation != generation {
            // Made before a fork: their threads do not exist here, and
            // dropping them could wait on locks those threads held. Leak them.
            for stale in pools.kept.drain(..) {
                std::mem::forget(stale);
            }
            pools.generation = generation;
        }
        if let Some(at) = pools.kept.iter().position(|(s, _)| *s == size) {
            let entry = pools.kept.remove(at);
            let pool = entry.1.clone();
            pools.kept.push(entry);
            return Ok(pool);
        }
    }
    // Built outside the lock, so that a fork while threads start cannot
    // leave the child with the lock held.
    let pool = Arc::new(
        ThreadPoolBuilder::new()
            .num_threads(size)
            .build()
            .map_err(|e| Error::Query(format!("cannot start {size} threads: {e}")))?,
    );
    let evicted = {
        let mut pools = lock();
        pools.kept.push((size, pool.clone()));
        let excess = pools.kept.len().saturating_sub(KEPT);
        pools.kept.drain(..excess).collect::<Vec<_>>()
    };
    // Dropping the last handle to a pool ends its threads once idle.
    drop(evicted);
    Ok(pool)
}

fn lock() -> std::sync::MutexGuard<'static, Pools> {
    POOLS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on the pool of `threads` threads (`None`: all cores).
pub fn with_threads<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> T + Send,
) -> Result<T, Error> {
    Ok(pool(threads)?.install(f))
}
