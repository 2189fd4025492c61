//! The determinism contract through the whole stack: frame-rate independence with the frame
//! driver, snapshot/restore mid-run, and the rollback sync-test.

use std::sync::Arc;

use pogo_core::driver::{Driver, NS_PER_SECOND, frame_times, jittered_frame_times};
use pogo_core::world::{Aabb, Path, Platform, Solid, World, WorldDesc, Zone};
use pogo_core::{Buttons, Input, Simulation, SyncTest, Ticks, Tuning};

mod support;
use support::{SplitMix, fx, seed, v};

/// Ground, some blocks, a moving platform and a wind zone: enough for every code path.
fn world(tuning: &Tuning) -> Arc<World> {
    let solid = |min, max| Solid {
        bounds: Aabb::new(min, max),
        no_bounce: false,
    };
    let desc = WorldDesc {
        name: "determinism".into(),
        spawn: v("0", "2", "0"),
        solids: vec![
            solid(v("-100", "-1", "-100"), v("100", "0", "100")),
            solid(v("6", "0", "-3"), v("9", "1.5", "3")),
            solid(v("-9", "0", "-3"), v("-6", "3", "3")),
            Solid {
                bounds: Aabb::new(v("-3", "0", "8"), v("3", "4", "9")),
                no_bounce: true,
            },
        ],
        platforms: vec![Platform {
            size: v("3", "0.5", "3"),
            path: Path::PingPong {
                from: v("0", "2", "-12"),
                to: v("0", "5", "-6"),
                period: fx("5"),
            },
            no_bounce: false,
        }],
        zones: vec![Zone {
            bounds: Aabb::new(v("10", "0", "-20"), v("30", "20", "20")),
            gravity_scale: fx("0.6"),
            wind: v("0", "0", "2"),
        }],
        ..WorldDesc::default()
    };
    Arc::new(World::new(desc, tuning).unwrap())
}

fn new_sim(players: usize) -> Simulation {
    let tuning = Tuning::default();
    Simulation::new(world(&tuning), tuning, players).unwrap()
}

/// A seeded script of timestamped input events for `players` over `seconds`.
fn script(rng: &mut SplitMix, players: usize, seconds: u64) -> Vec<(u64, usize, Input)> {
    let mut events = Vec::new();
    let mut at = 0u64;
    while at < seconds * NS_PER_SECOND {
        at += rng.next() % 400_000_000;
        let buttons = match rng.next() % 6 {
            0 => Buttons::TRICK,
            1 => Buttons::DIVE,
            _ => Buttons::NONE,
        };
        let input = Input {
            steer_x: (rng.next() % 255) as i8,
            steer_z: (rng.next() % 255) as i8,
            buttons,
        };
        events.push((at, (rng.next() % players as u64) as usize, input));
    }
    events
}

/// Drives the simulation through the frame driver at the given frame times; returns each
/// tick's inputs and the state hash after it.
fn drive(
    frames: impl Iterator<Item = u64>,
    end_ns: u64,
    events: &[(u64, usize, Input)],
    players: usize,
) -> Vec<(Vec<Input>, u64)> {
    let mut sim = new_sim(players);
    let mut driver = Driver::new(60, players).unwrap();
    let mut pending = events.iter().peekable();
    let mut record = Vec::new();
    // Every frame sequence ends with a frame at exactly T, so all run floor(T·60) ticks.
    for now in frames.chain(std::iter::once(end_ns)) {
        while let Some(&&(at, player, input)) = pending.peek() {
            if at > now {
                break;
            }
            driver.push_event(at, player, input).unwrap();
            pending.next();
        }
        driver.advance_to(now, |_, inputs| {
            sim.step(inputs);
            record.push((inputs.to_vec(), sim.state_hash()));
        });
    }
    record
}

#[test]
fn render_frame_rate_changes_nothing() {
    let mut rng = SplitMix(seed("frame_rate", 0x5eed_0003));
    let players = 2;
    let seconds = 20;
    let events = script(&mut rng, players, seconds);
    let duration = seconds * NS_PER_SECOND;
    let reference = drive(frame_times(60, 1, duration), duration, &events, players);
    assert_eq!(
        reference.len(),
        60 * seconds as usize,
        "floor(T·60) ticks after T seconds"
    );
    let mut runs = vec![
        (
            "30 fps",
            drive(frame_times(30, 1, duration), duration, &events, players),
        ),
        (
            "144 fps",
            drive(frame_times(144, 1, duration), duration, &events, players),
        ),
        (
            "240 fps",
            drive(frame_times(240, 1, duration), duration, &events, players),
        ),
        (
            "59.94 fps",
            drive(frame_times(5994, 100, duration), duration, &events, players),
        ),
    ];
    for s in 0..3 {
        runs.push((
            "jittered",
            drive(
                jittered_frame_times(rng.next() ^ s, duration),
                duration,
                &events,
                players,
            ),
        ));
    }
    for (name, run) in &runs {
        assert_eq!(
            run.len(),
            reference.len(),
            "{name}: floor(T·60) ticks after T seconds"
        );
        for (tick, (a, b)) in reference.iter().zip(run).enumerate() {
            assert_eq!(a, b, "{name}: tick {tick} differs");
        }
    }
}

#[test]
fn snapshot_restore_continues_bit_identically() {
    let mut rng = SplitMix(seed("snapshot", 0x5eed_0004));
    for _ in 0..5 {
        let events = script(&mut rng, 1, 30);
        let inputs = ticks_of(&events, 1800);
        let mut sim = new_sim(1);
        let mut hashes = Vec::new();
        let cut = (rng.next() % 1700) as usize + 1;
        let mut snapshot = None;
        for (tick, input) in inputs.iter().enumerate() {
            if tick == cut {
                snapshot = Some(sim.snapshot());
            }
            sim.step(&[*input]);
            hashes.push(sim.state_hash());
        }
        let snapshot = snapshot.unwrap();
        assert_eq!(snapshot.tick(), Ticks(cut as u32));
        // Scribble over the state by running on, then go back.
        sim.step(&[Input::default()]);
        sim.restore(&snapshot);
        for (tick, input) in inputs.iter().enumerate().skip(cut) {
            sim.step(&[*input]);
            assert_eq!(
                sim.state_hash(),
                hashes[tick],
                "after restoring at {cut}, tick {tick} differs"
            );
        }
    }
}

/// The tick input stream of a script (latest event at or before each tick's start).
fn ticks_of(events: &[(u64, usize, Input)], ticks: usize) -> Vec<Input> {
    let mut current = Input::default();
    let mut next = events.iter().peekable();
    (0..ticks)
        .map(|k| {
            while let Some(&&(at, _, input)) = next.peek() {
                if u128::from(at) * 60 > k as u128 * u128::from(NS_PER_SECOND) {
                    break;
                }
                current = input;
                next.next();
            }
            current
        })
        .collect()
}

#[test]
fn sync_test_rolls_back_and_agrees() {
    let mut rng = SplitMix(seed("sync_test", 0x5eed_0006));
    let events = script(&mut rng, 2, 20);
    let mut sync = SyncTest::new(new_sim(2), 8);
    let mut driver = Driver::new(60, 2).unwrap().with_ticks_per_frame_max(2000);
    for &(at, player, input) in &events {
        driver.push_event(at, player, input).unwrap();
    }
    let mut result = Ok(());
    driver.advance_to(20 * NS_PER_SECOND, |_, inputs| {
        if result.is_ok() {
            result = sync.step(inputs);
        }
    });
    result.unwrap();
    assert_eq!(sync.simulation().state().tick, Ticks(1200));
}
