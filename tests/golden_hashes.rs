//! Golden state hashes: fixed runs on the built-in levels, their state hash every second,
//! compared with `tests/golden/hashes.txt`. Any machine that passes reproduces them; the same
//! test runs in debug, release, with `-C target-cpu=native`, and on s390x, aarch64 and i686
//! (`scripts/cross-check.sh`).
//!
//! The hashes change only on purpose: bump the rules version, regenerate with
//! `POGO_BLESS=1 cargo test --test golden_hashes`, and say why in the commit message.

mod support;

use std::fmt::Write;
use std::sync::Arc;

use pogo::core::bot::Bot;
use pogo::core::world::World;
use pogo::core::{Buttons, Input, Simulation, SyncTest, Tuning};
use pogo::replay::builtin_level;

/// A run: its name, the level, the number of players, the most ticks, and how each player's
/// input is chosen.
struct Run {
    name: &'static str,
    level: &'static str,
    players: usize,
    ticks: u32,
    input: fn(tick: u32, player: usize) -> Option<Input>,
}

/// `None` means "ask the bot".
const RUNS: &[Run] = &[
    Run {
        name: "flat-idle",
        level: "flat",
        players: 1,
        ticks: 1200,
        input: |_, _| Some(Input::default()),
    },
    Run {
        name: "course-bot",
        level: "course",
        players: 1,
        ticks: 4800,
        input: |_, _| None,
    },
    Run {
        name: "course-multi",
        level: "course",
        players: 3,
        ticks: 1800,
        input: multi,
    },
];

/// Player 0 follows the bot; player 1 a fixed steering and button pattern; player 2 idles.
fn multi(tick: u32, player: usize) -> Option<Input> {
    match player {
        0 => None,
        1 => {
            let phase = (tick / 45) % 4;
            let steer = [(90, 0), (0, -60), (-40, 40), (127, 127)][phase as usize];
            let buttons = match tick % 97 {
                0..=2 => Buttons::TRICK,
                50..=70 => Buttons::DIVE,
                _ => Buttons::NONE,
            };
            Some(Input {
                steer_x: steer.0,
                steer_z: steer.1,
                buttons,
            })
        }
        _ => Some(Input::default()),
    }
}

fn simulation(level: &str, players: usize) -> Simulation {
    let tuning = Tuning::default();
    let world = World::new(builtin_level(level).expect("built-in level"), &tuning).unwrap();
    Simulation::new(Arc::new(world), tuning, players).unwrap()
}

/// Runs `run`, writing a line per second of play and a final line.
fn render(run: &Run) -> String {
    let mut sim = simulation(run.level, run.players);
    let mut bots = vec![Bot::new(); run.players];
    let mut out = String::new();
    for tick in 0..run.ticks {
        let inputs: Vec<Input> = (0..run.players)
            .map(|p| {
                (run.input)(tick, p).unwrap_or_else(|| {
                    bots[p].input(sim.world(), sim.tuning(), &sim.state().pogos[p])
                })
            })
            .collect();
        sim.step(&inputs);
        if (tick + 1) % 60 == 0 {
            writeln!(out, "{} t={} {:016x}", run.name, tick + 1, sim.state_hash()).unwrap();
        }
        if sim.state().pogos.iter().all(|p| p.finish_tick.is_some()) {
            break;
        }
    }
    for (i, p) in sim.state().pogos.iter().enumerate() {
        let finish = p.finish_tick.map_or("none".to_string(), |t| t.to_string());
        writeln!(
            out,
            "{} end P{i} ticks={} bounces={} apex={:.4} finish={finish} hash={:016x}",
            run.name,
            sim.state().tick,
            p.bounces,
            p.apex,
            sim.state_hash()
        )
        .unwrap();
    }
    out
}

#[test]
fn golden_hashes_match() {
    let actual: String = RUNS.iter().map(render).collect();
    support::golden_text("hashes.txt", &actual);
}

#[test]
fn bot_finishes_the_course() {
    let golden = render(&RUNS[1]);
    let end = golden.lines().last().unwrap();
    assert!(!end.contains("finish=none"), "{end}");
}

/// Rollback sync-test on `course` for 60 s of bot play: every tick rolls back 8 ticks and
/// re-simulates them, comparing hashes.
#[test]
fn sync_test_passes_on_course_with_the_bot() {
    let sim = simulation("course", 1);
    let mut bot = Bot::new();
    let mut sync = SyncTest::new(sim, 8);
    for _ in 0..3600 {
        let s = sync.simulation();
        let input = bot.input(s.world(), s.tuning(), &s.state().pogos[0]);
        sync.step(&[input]).unwrap();
    }
}
