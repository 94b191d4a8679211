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
//!
//! [`search_each`] shares the work with the thread holding the GIL, which
//! alone can turn rankings into Python objects.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, mpsc};

use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use rserini_core::Error;
use rserini_core::search::ScoredDoc;

use crate::errors::CoreError;

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

/// Runs `search(i)` for every `i < count` on `threads` threads (all cores
/// for `None`) and hands each ranking to `found(i, ranking)` on this
/// thread, which holds the GIL, as soon as it is ready; the first error (of
/// a search or of `found`) stops the others and is returned.
///
/// Only the GIL's thread can make Python objects, and for deep rankings
/// that is as much work as the search, so this thread takes part: it
/// hands over what the other threads found when there is any, and
/// searches the next query itself (the GIL released) when there is none.
/// With one thread, it searches and hands over in turn.
pub fn search_each<S: Fn(usize) -> Result<Vec<ScoredDoc>, Error> + Sync>(
    py: Python<'_>,
    threads: Option<usize>,
    count: usize,
    search: S,
    mut found: impl FnMut(usize, Vec<ScoredDoc>) -> PyResult<()>,
) -> PyResult<()> {
    let shared = Queries {
        next: AtomicUsize::new(0),
        count,
        search,
    };
    let shared = &shared;
    let pool = pool(threads).map_err(CoreError)?;
    pool.in_place_scope(|scope| shared.run(py, scope, pool.current_num_threads() - 1, &mut found))
}

/// The queries of one [`search_each`] call.
struct Queries<S> {
    /// The next query no thread has taken.
    next: AtomicUsize,
    count: usize,
    search: S,
}

impl<S: Fn(usize) -> Result<Vec<ScoredDoc>, Error> + Sync> Queries<S> {
    /// Takes the next query, if any is left.
    fn claim(&self) -> Option<usize> {
        Some(self.next.fetch_add(1, Ordering::Relaxed)).filter(|&i| i < self.count)
    }

    /// [`search_each`] with `helpers` threads of `scope` beside this one.
    fn run<'scope>(
        &'scope self,
        py: Python<'_>,
        scope: &rayon::Scope<'scope>,
        helpers: usize,
        found: &mut impl FnMut(usize, Vec<ScoredDoc>) -> PyResult<()>,
    ) -> PyResult<()> {
        let (sender, mut receiver) = mpsc::channel();
        for _ in 0..helpers {
            let sender = sender.clone();
            scope.spawn(move |_| {
                while let Some(i) = self.claim() {
                    if sender.send((i, (self.search)(i))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for _ in 0..self.count {
            let (i, docs) = match receiver.try_recv() {
                Ok(ready) => ready,
                Err(_) => match self.claim() {
                    Some(i) => (i, py.detach(|| (self.search)(i))),
                    None => {
                        let ready;
                        (receiver, ready) = py.detach(move || {
                            let ready = receiver.recv().ok();
                            (receiver, ready)
                        });
                        // `None`: a helper panicked; the scope raises it.
                        let Some(ready) = ready else { break };
                        ready
                    }
                },
            };
            let handed = docs
                .map_err(|e| PyErr::from(CoreError(e)))
                .and_then(|docs| found(i, docs));
            if let Err(e) = handed {
                // The helpers stop at their next claim.
                self.next.store(self.count, Ordering::Relaxed);
                return Err(e);
            }
        }
        Ok(())
    }
}

/// Runs `f` without the GIL, on `threads` threads; core errors become
/// Python exceptions.
pub fn detached<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> PyResult<T> {
    py.detach(|| with_threads(threads, f))
        .map_err(CoreError)?
        .map_err(|e| CoreError(e).into())
}
