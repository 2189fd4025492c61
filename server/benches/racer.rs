//! What a live racer's message costs the server beyond the relay: decoded, checked, judged
//! against real time and re-simulated by the racer's [`RacerRun`] (`Room::take_from`'s part
//! that is the racer's own; the relay, the journal and the backlog are the room's).
//!
//! Racers send the demo bot's run of `course` as a page does, one message an input change
//! (922 messages over its 3 294 ticks, splits and heartbeats included), each on time. `take/1` is one racer, every message
//! in turn: its state stays in the CPU's caches. `take/400` is 400 racers, each at its own
//! place in the race, taking turns, one message each a round, as 400 keyboard racers reach a
//! server: by a racer's next message the other 399 have been through the caches (PERFORMANCE.md,
//! "The relay and its floor": a message's own lines of state were most of its cost there).
//! They still fit this machine's L2 cache; `take/20000` and `take/100000` (under `cargo bench`
//! only) do not, so each message finds its racer's state in memory, as in the live server.
//! Each iteration is one message; a racer whose run is over starts again, outside the timing.
//!
//! `cargo bench --locked -p pogo-server --bench racer`

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use pogo_core::Tuning;
use pogo_core::world::World;
use pogo_server::live::client::bot_page_stream;
use pogo_server::live::racer::RacerRun;
use pogo_server::live::wire::Stream;
use pogo_server::realtime::SLACK_MS_DEFAULT;

/// A run's longest, in ticks: `--player-ticks-max`'s default.
const TICKS_MAX: u32 = 216_000;
/// Each message arrives this long after its game time (µs): on time.
const NETWORK_US: i64 = 2_000;
/// Messages taken between two readings of the clock (a reading costs tens of ns on a VM).
const ROUND_MESSAGES: usize = 400;

/// A racer's run and how far through the stream it is.
struct Racing {
    run: RacerRun,
    next: usize,
}

impl Racing {
    /// Takes the racer's next message of `stream`, as the room would.
    fn take_next(&mut self, stream: &[(Vec<u8>, i64)]) {
        let (bytes, at_us) = &stream[self.next];
        let message = Stream::decode(bytes).expect("a message");
        black_box(self.run.take(&message, *at_us).expect("taken"));
        self.next += 1;
    }
}

/// `rounds` rounds of one message from each racer, in `order`: the timed work. Never inlined,
/// so that a cache simulator can count this and nothing else (PERFORMANCE.md, "A message's
/// state from memory": `valgrind --tool=callgrind --toggle-collect=*take_rounds*`).
#[inline(never)]
fn take_rounds(pool: &mut [Racing], order: &[usize], stream: &[(Vec<u8>, i64)], rounds: usize) {
    for _ in 0..rounds {
        for &r in order {
            pool[r].take_next(stream);
        }
    }
}

fn fresh(world: &Arc<World>, tuning: &Arc<Tuning>) -> RacerRun {
    RacerRun::new(
        world.clone(),
        tuning.clone(),
        None,
        "2026-12-06".into(),
        // The judgment's slack: the server's default.
        i64::try_from(SLACK_MS_DEFAULT).expect("a slack in ms"),
        TICKS_MAX,
    )
    .expect("a run of course")
}

/// The pools: one racer; 400, whose states (about 3.5 KiB a racer, 1.4 MiB in all) fit this
/// machine's 2 MiB of L2 cache a core; and, under `cargo bench`, 20 000 and 100 000 (70 and
/// 350 MiB), past the L2 and most or all of the L3, so each message finds its racer's state in
/// memory, as in a live server, where 27 000 frames a second through the kernel and every other
/// racer's message pass through the caches between two of a racer's messages. The smoke test
/// (`cargo test --bench racer`, run without `--bench`) takes the first two: the large pools'
/// set-up is seconds in a release build and minutes in a debug one.
fn racer_counts() -> Vec<usize> {
    if std::env::args().any(|a| a == "--bench") {
        vec![1, 400, 20_000, 100_000]
    } else {
        vec![1, 400]
    }
}

/// Racers, each at its own place in the race, and the order they take turns in.
struct Pool {
    racers: Vec<Racing>,
    order: Vec<usize>,
}

impl Pool {
    /// `racers` racers, racer r a r/racers part of the way through the race (its earlier
    /// messages taken first, untimed), as rooms that started at different times are: racers
    /// in step would take the same path through the tick one after the other, which the CPU's
    /// branch predictors learn. They take turns in a scattered order (i·7 919 mod racers: a
    /// prime that divides no count here, so every racer once a round), as a live server's
    /// messages come: in the pool's own order the CPU's prefetchers would follow its layout
    /// and fetch each state early.
    fn new(
        racers: usize,
        world: &Arc<World>,
        tuning: &Arc<Tuning>,
        stream: &[(Vec<u8>, i64)],
    ) -> Pool {
        let pool = (0..racers)
            .map(|r| {
                let mut racing = Racing {
                    run: fresh(world, tuning),
                    next: 0,
                };
                while racing.next < r * stream.len() / racers {
                    racing.take_next(stream);
                }
                racing
            })
            .collect();
        let order = (0..racers).map(|i| i * 7_919 % racers).collect();
        Pool {
            racers: pool,
            order,
        }
    }
}

fn take(c: &mut Criterion) {
    let tuning = Arc::new(Tuning::default());
    let desc = pogo_replay::builtin_level("course").expect("course");
    let world = Arc::new(World::new(desc, &tuning).expect("course's world"));
    let stream: Vec<(Vec<u8>, i64)> = bot_page_stream("course", false)
        .expect("the bot's stream")
        .into_iter()
        .map(|(message, game_us)| (message.encode(), game_us + NETWORK_US))
        .collect();
    let mut group = c.benchmark_group("take");
    for racers in racer_counts() {
        // Built on the routine's first call and kept: criterion calls it once a sample and
        // the racers go on where they were; a pool whose benchmark a filter leaves out is
        // never built (100 000 racers take seconds).
        let mut built: Option<Pool> = None;
        group.bench_function(BenchmarkId::from_parameter(racers), |b| {
            let Pool {
                racers: pool,
                order,
            } = built.get_or_insert_with(|| Pool::new(racers, &world, &tuning, &stream));
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                let mut taken = 0u64;
                while taken < iters {
                    // Rounds of one message from each racer, up to 400 messages a reading of
                    // the clock, and none past the end of a racer's run.
                    let left = pool
                        .iter()
                        .map(|r| stream.len() - r.next)
                        .min()
                        .unwrap_or(0);
                    let rounds = (ROUND_MESSAGES / racers).clamp(1, left);
                    let start = Instant::now();
                    take_rounds(pool, order, &stream, rounds);
                    timed += start.elapsed();
                    taken += (rounds * racers) as u64;
                    for racing in pool.iter_mut().filter(|r| r.next == stream.len()) {
                        *racing = Racing {
                            run: fresh(&world, &tuning),
                            next: 0,
                        };
                    }
                }
                // Rounds overshoot `iters` (by less than one, or, for a pool over 400
                // racers, by up to a round): scaled to it.
                timed.mul_f64(iters as f64 / taken as f64)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, take);
criterion_main!(benches);
