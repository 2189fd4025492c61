//! Where the server re-simulates runs: threads of its own, below the priority of the
//! runtime's threads, which relay live racers' frames.
//!
//! A verification is CPU work of milliseconds (a queue's batch: up to a second or so) and
//! no deadline a racer feels; the runtime's threads relay racers' frames, each within a
//! millisecond or so, and the real-time judgment of a racer's run reads the time a frame
//! arrives. On tokio's blocking pool (up to 512 threads, each at the runtime's priority) a
//! room's racers finishing together verified all at once and took the CPU from the relay:
//! one server core with 2 200 keyboard racers whose runs all ended within a second and a half
//! relayed 32 000 frames more than 20 ms late in that time, its relay p99 was 17–73 ms, and
//! messages of racers still racing were stamped late (PERFORMANCE.md, "Racers a core"). An
//! upload queue's worker verifying a batch took half of a busy core from the relay the same
//! way (PERFORMANCE.md, "Uploads beside live races").
//!
//! So each kind of such work runs in a [`Lane`]: as many threads as the cores the process
//! may use, each below the runtime's threads ([`Priority`]; per thread on Linux), so at most
//! one job a core runs at a time in each lane, and the kernel runs a relay thread that wakes
//! ahead of it.
//!
//! | lane | what | priority | share of a core the relay keeps busy |
//! | --- | --- | --- | --- |
//! | [`Lane::Prompt`] | what someone waits for: a finished live run's filing, a track's author run at publishing, a ghost's trajectory | nice +5 | about a quarter (CFS weights 335 against 1024) |
//! | [`Lane::Queue`] | the upload queue's batches | `SCHED_IDLE` (elsewhere nice +19) | what the relay leaves idle: a relay thread that wakes takes the core at once |
//!
//! A nice value alone was not enough for the queue's lane. A worker draining 40 000 queued
//! uploads beside 1 500 keyboard racers on one core put the relay's p99 at 32–71 ms on the
//! blocking pool and 7–10 ms at nice +10 (a relay thread waiting out the worker's time
//! slice), against 2.4–3.5 without the queue; under `SCHED_IDLE`, 4.1–5.7 ms
//! (PERFORMANCE.md, "Uploads beside live races"). The queue drains in the relay's idle time,
//! and the uploads wait longer for their verdicts while it is busy: they have no clock to
//! beat. A verification the machine starves on every try it gets within its claim's lease is
//! handed back to the queue, not rejected (`verdict::Starved`, `worker.rs`), as is what a
//! batch cannot start in its lease.
//!
//! The prompt lane, above the queue's: a racer at the finish, an author publishing or a page
//! loading a ghost never waits behind a queue's batch of 64 runs. A job there gets a quarter
//! of a busy core, so it ends well within the verifier's wall-clock bound (a starved one is
//! judged again: `verdict::verify`). If a lane cannot start a thread, its jobs go to the
//! blocking pool.

use std::num::NonZero;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, mpsc};

use tokio::sync::oneshot;

/// A kind of re-simulation, with threads of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// What someone waits for: the filer's verification of a finished live run, a track's
    /// author run at publishing, a ghost's trajectory.
    Prompt,
    /// The upload queue's batches.
    Queue,
}

/// How far below the runtime's threads a lane's threads run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// A nice value this much above the process's (at most 19).
    Nice(i32),
    /// Linux's `SCHED_IDLE` policy: only on a core no other thread wants (a waking thread of
    /// any other policy preempts it at once). Where it cannot be set, nice +19.
    Idle,
}

impl Lane {
    /// Its threads' priority.
    pub const fn priority(self) -> Priority {
        match self {
            Lane::Prompt => Priority::Nice(5),
            Lane::Queue => Priority::Idle,
        }
    }

    /// Its threads' names: this and a number (a Linux thread name holds 15 bytes).
    pub const fn thread_prefix(self) -> &'static str {
        match self {
            Lane::Prompt => "pogo-prompt-",
            Lane::Queue => "pogo-queue-",
        }
    }

    fn index(self) -> usize {
        match self {
            Lane::Prompt => 0,
            Lane::Queue => 1,
        }
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// A job that panicked (the panic is printed as any thread's is).
#[derive(Debug)]
pub struct Panicked;

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the verification panicked")
    }
}

/// Runs `job` on one of `lane`'s threads; its result. The job is queued at the call, not
/// when the future is first polled (as `spawn_blocking` does): a caller may do other work
/// while it runs (the queue's worker claims its next batch meanwhile).
pub fn run<T: Send + 'static>(
    lane: Lane,
    job: impl FnOnce() -> T + Send + 'static,
) -> impl Future<Output = Result<T, Panicked>> {
    let (done, result) = oneshot::channel();
    let job: Job = Box::new(move || {
        if let Ok(value) = catch_unwind(AssertUnwindSafe(job)) {
            let _ = done.send(value);
        }
    });
    match threads(lane) {
        Some(jobs) => {
            // The threads never stop, so the queue never closes.
            let _ = jobs.send(job);
        }
        // No thread could be started: the blocking pool.
        None => drop(tokio::task::spawn_blocking(job)),
    }
    async move { result.await.map_err(|_| Panicked) }
}

/// The queue of `lane`'s threads, started on first use (`None` if none started).
fn threads(lane: Lane) -> Option<&'static mpsc::Sender<Job>> {
    static LANES: [OnceLock<Option<mpsc::Sender<Job>>>; 2] = [OnceLock::new(), OnceLock::new()];
    LANES[lane.index()]
        .get_or_init(|| {
            let (jobs, queue) = mpsc::channel::<Job>();
            let queue = Arc::new(Mutex::new(queue));
            let count = std::thread::available_parallelism().map_or(1, NonZero::get);
            let started = (0..count)
                .filter(|i| {
                    let queue = queue.clone();
                    std::thread::Builder::new()
                        .name(format!("{}{i}", lane.thread_prefix()))
                        .spawn(move || serve(lane, &queue))
                        .inspect_err(
                            |e| tracing::error!(error = %e, ?lane, "cannot start a lane's thread"),
                        )
                        .is_ok()
                })
                .count();
            (started > 0).then_some(jobs)
        })
        .as_ref()
}

/// One of `lane`'s threads: lowers its own priority, then runs jobs until the process ends.
fn serve(lane: Lane, queue: &Mutex<mpsc::Receiver<Job>>) {
    match lane.priority() {
        Priority::Nice(by) => lower_priority(by),
        Priority::Idle => {
            if !idle_policy() {
                lower_priority(19);
            }
        }
    }
    loop {
        let job = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        match job {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

/// Lowers the calling thread's priority by `by` (its nice value: the process's plus `by`,
/// at most 19; on Linux `setpriority(PRIO_PROCESS, 0)` sets the calling thread's, not the
/// process's). A failure leaves it as it was.
fn lower_priority(by: i32) {
    #[cfg(unix)]
    if let Err(e) = rustix::process::getpriority_process(None)
        .and_then(|now| rustix::process::setpriority_process(None, (now + by).min(19)))
    {
        tracing::warn!(error = %e, "cannot lower a lane thread's priority");
    }
    #[cfg(not(unix))]
    let _ = by;
}

/// Puts the calling thread under `SCHED_IDLE`; whether it now is (a thread may always lower
/// its own policy, but a sandbox may forbid the call).
#[cfg(target_os = "linux")]
fn idle_policy() -> bool {
    use thread_priority::{
        NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
        set_thread_priority_and_policy, thread_native_id, thread_schedule_policy,
    };
    let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
    // The crate then sets the nice value to 0, which a process above 0 may not: that error
    // does not undo the policy, so the policy itself is what is checked.
    let _ = set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, idle);
    let set = thread_schedule_policy().is_ok_and(|policy| policy == idle);
    if !set {
        tracing::warn!("cannot put a queue lane thread under SCHED_IDLE: nice +19 instead");
    }
    set
}

#[cfg(not(target_os = "linux"))]
fn idle_policy() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calling thread's name and nice value.
    fn whoami() -> (Option<String>, Option<i32>) {
        let name = std::thread::current().name().map(str::to_owned);
        #[cfg(unix)]
        let nice = rustix::process::getpriority_process(None).ok();
        #[cfg(not(unix))]
        let nice = None;
        (name, nice)
    }

    #[tokio::test]
    async fn each_lane_runs_on_its_own_threads_below_the_runtimes_priority() {
        for lane in [Lane::Prompt, Lane::Queue] {
            let (name, _) = run(lane, whoami).await.unwrap();
            assert!(
                name.as_deref()
                    .is_some_and(|n| n.starts_with(lane.thread_prefix())),
                "{lane:?} ran on {name:?}"
            );
        }
        // The prompt lane: the caller's nice value (a test runner under `nice` starts above 0)
        // and 5 more, per thread on Linux, under the usual policy.
        #[cfg(target_os = "linux")]
        {
            use thread_priority::{NormalThreadSchedulePolicy, ThreadSchedulePolicy};
            let policy = || thread_priority::thread_schedule_policy().ok();
            let (_, nice) = run(Lane::Prompt, whoami).await.unwrap();
            let caller = rustix::process::getpriority_process(None).unwrap();
            assert_eq!(
                nice,
                Some((caller + 5).min(19)),
                "the prompt lane's nice value"
            );
            assert_eq!(
                run(Lane::Prompt, policy).await.unwrap(),
                Some(ThreadSchedulePolicy::Normal(
                    NormalThreadSchedulePolicy::Other
                )),
                "the prompt lane's policy"
            );
            // The queue's lane: SCHED_IDLE, below every thread of the usual policy, the
            // prompt lane's included.
            assert_eq!(
                run(Lane::Queue, policy).await.unwrap(),
                Some(ThreadSchedulePolicy::Normal(
                    NormalThreadSchedulePolicy::Idle
                )),
                "the queue lane's policy"
            );
        }
    }

    /// The job starts before its future is polled: a caller's other work overlaps it.
    #[tokio::test]
    async fn a_job_is_queued_at_the_call() {
        use std::sync::atomic::{AtomicBool, Ordering};
        static RAN: AtomicBool = AtomicBool::new(false);
        let pending = run(Lane::Queue, || RAN.store(true, Ordering::SeqCst));
        let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !RAN.load(Ordering::SeqCst) && std::time::Instant::now() < until {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        assert!(RAN.load(Ordering::SeqCst), "the job waited for its future");
        pending.await.unwrap();
    }

    #[tokio::test]
    async fn a_panic_is_an_error_and_the_threads_go_on() {
        assert!(
            run(Lane::Prompt, || panic!("a bug in a verification"))
                .await
                .is_err()
        );
        // As many panics as threads, and still every job runs.
        for _ in 0..4 {
            let _ = run(Lane::Prompt, || panic!("again")).await;
        }
        assert_eq!(run(Lane::Prompt, || 6 * 7).await.unwrap(), 42);
    }

    /// 32 jobs at once in each lane: never more than a core's worth running in a lane, and a
    /// prompt job never waits for the queue lane's (it is started while they all still run).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn at_most_one_job_a_core_a_lane_and_prompt_never_waits_for_queue() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        static RUNNING: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
        static MOST: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
        static RELEASE_QUEUE: AtomicBool = AtomicBool::new(false);
        let job = |lane: Lane| {
            move || {
                let i = lane.index();
                let now = RUNNING[i].fetch_add(1, Ordering::SeqCst) + 1;
                MOST[i].fetch_max(now, Ordering::SeqCst);
                // Queue jobs hold their threads until the prompt jobs have run.
                while lane == Lane::Queue && !RELEASE_QUEUE.load(Ordering::SeqCst) {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
                RUNNING[i].fetch_sub(1, Ordering::SeqCst);
            }
        };
        let queued: Vec<_> = (0..32)
            .map(|_| tokio::spawn(run(Lane::Queue, job(Lane::Queue))))
            .collect();
        let prompt: Vec<_> = (0..32)
            .map(|_| tokio::spawn(run(Lane::Prompt, job(Lane::Prompt))))
            .collect();
        let prompts = async {
            for job in prompt {
                job.await.unwrap().unwrap();
            }
        };
        let waited = tokio::time::timeout(std::time::Duration::from_secs(30), prompts).await;
        RELEASE_QUEUE.store(true, Ordering::SeqCst);
        assert!(
            waited.is_ok(),
            "the prompt jobs waited for the queue lane's"
        );
        for job in queued {
            job.await.unwrap().unwrap();
        }
        let cores = std::thread::available_parallelism().map_or(1, NonZero::get);
        for lane in [Lane::Prompt, Lane::Queue] {
            let most = MOST[lane.index()].load(Ordering::SeqCst);
            assert!(
                most >= 1 && most <= cores,
                "{lane:?}: {most} at once on {cores} cores"
            );
        }
    }
}
