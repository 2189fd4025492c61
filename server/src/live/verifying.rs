//! Where the filer verifies a finished live run: threads of its own, as many as the cores the
//! process may use, each below the runtime's scheduling priority (its nice value 5
//! above the process's, on Unix).
//!
//! A verification is CPU work of a few milliseconds and no deadline; the runtime's threads
//! relay racers' frames, each within a millisecond or so. On tokio's blocking pool (up to 512
//! threads, each at the runtime's priority), a room's racers finishing together, or a wave of
//! rooms that started together, verified all at once and took the CPU from the relay: one
//! server core with 2 200 keyboard racers whose runs all ended within a second and a half
//! relayed 32 000 frames more than 20 ms late in that time, its relay p99 was 17–73 ms, and
//! messages of racers still racing were stamped late (PERFORMANCE.md, "Racers a core"). Here at most one verification a core runs at a time,
//! and the kernel runs a relay thread that wakes ahead of it. A verification still gets a
//! quarter of a core the relay keeps busy (CFS weights 1024 and 335), so it ends well within
//! the verifier's wall-clock bound; a starved one is judged again (`verdict::verify`).

use std::num::NonZero;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, mpsc};

use tokio::sync::oneshot;

/// The verification threads' nice value: below the runtime's 0, above the idle class.
const NICE: i32 = 5;

type Job = Box<dyn FnOnce() + Send>;

/// A verification that panicked (the panic is printed as any thread's is).
#[derive(Debug)]
pub struct Panicked;

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the verification panicked")
    }
}

/// Runs `verify` on a verification thread; its result.
pub async fn run<T: Send + 'static>(
    verify: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Panicked> {
    let (done, result) = oneshot::channel();
    let job: Job = Box::new(move || {
        if let Ok(value) = catch_unwind(AssertUnwindSafe(verify)) {
            let _ = done.send(value);
        }
    });
    match threads() {
        Some(jobs) => {
            // The threads never stop, so the queue never closes.
            let _ = jobs.send(job);
        }
        // No thread could be started: the blocking pool, as before.
        None => drop(tokio::task::spawn_blocking(job)),
    }
    result.await.map_err(|_| Panicked)
}

/// The queue of the verification threads, started on first use (`None` if none started).
fn threads() -> Option<&'static mpsc::Sender<Job>> {
    static JOBS: OnceLock<Option<mpsc::Sender<Job>>> = OnceLock::new();
    JOBS.get_or_init(|| {
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        let count = std::thread::available_parallelism().map_or(1, NonZero::get);
        let started = (0..count)
            .filter(|i| {
                let queue = queue.clone();
                std::thread::Builder::new()
                    .name(format!("pogo-verify-{i}"))
                    .spawn(move || serve(&queue))
                    .inspect_err(
                        |e| tracing::error!(error = %e, "cannot start a verification thread"),
                    )
                    .is_ok()
            })
            .count();
        (started > 0).then_some(jobs)
    })
    .as_ref()
}

/// One verification thread: lowers its own priority, then runs jobs until the process ends.
fn serve(queue: &Mutex<mpsc::Receiver<Job>>) {
    lower_priority();
    loop {
        let job = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        match job {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

/// Lowers the calling thread's priority by [`NICE`] (its nice value: the process's plus
/// `NICE`, at most 19; on Linux `setpriority(PRIO_PROCESS, 0)` sets the calling thread's,
/// not the process's). A failure leaves it as it was.
fn lower_priority() {
    #[cfg(unix)]
    if let Err(e) = rustix::process::getpriority_process(None)
        .and_then(|now| rustix::process::setpriority_process(None, (now + NICE).min(19)))
    {
        tracing::warn!(error = %e, "cannot lower a verification thread's priority");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_job_runs_on_a_thread_below_the_runtimes_priority() {
        let (name, nice) = run(|| {
            let name = std::thread::current().name().map(str::to_owned);
            #[cfg(unix)]
            let nice = rustix::process::getpriority_process(None).ok();
            #[cfg(not(unix))]
            let nice = None;
            (name, nice)
        })
        .await
        .unwrap();
        assert!(name.is_some_and(|n| n.starts_with("pogo-verify-")));
        // The caller's own (a test runner under `nice` starts above 0), and the thread's
        // NICE more: per thread on Linux.
        #[cfg(target_os = "linux")]
        {
            let caller = rustix::process::getpriority_process(None).unwrap();
            assert_eq!(
                nice,
                Some((caller + NICE).min(19)),
                "the verification thread's nice value"
            );
        }
    }

    #[tokio::test]
    async fn a_panic_is_an_error_and_the_threads_go_on() {
        assert!(run(|| panic!("a bug in a verification")).await.is_err());
        // As many panics as threads, and still every job runs.
        for _ in 0..4 {
            let _ = run(|| panic!("again")).await;
        }
        assert_eq!(run(|| 6 * 7).await.unwrap(), 42);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn at_most_one_job_a_core_at_a_time() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static RUNNING: AtomicUsize = AtomicUsize::new(0);
        static MOST: AtomicUsize = AtomicUsize::new(0);
        let jobs: Vec<_> = (0..32)
            .map(|_| {
                tokio::spawn(run(|| {
                    let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
                    MOST.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    RUNNING.fetch_sub(1, Ordering::SeqCst);
                }))
            })
            .collect();
        for job in jobs {
            job.await.unwrap().unwrap();
        }
        let cores = std::thread::available_parallelism().map_or(1, NonZero::get);
        let most = MOST.load(Ordering::SeqCst);
        assert!(
            most >= 1 && most <= cores,
            "{most} at once on {cores} cores"
        );
    }
}
