//! Replays for the web page's browser test (`server/tests/browser/`), recorded for the
//! current rules at test time, and what the library's own verifier says about each — the
//! test's oracle, never a pinned number.
//!
//! `cargo run -p pogo-server --example web_fixtures -- OUT_DIR` writes into OUT_DIR:
//!
//! - `bot.pogo`: `samples/course-bot.pogo` as shipped (player `bot`);
//! - `ana.pogo`, `ben.pogo`, `dee.pogo`, `eve.pogo`: the demo bot on `course` after idling
//!   at the spawn for a different number of ticks, so each finishes at another tick;
//! - `zoe.pogo` (player `Zoë d'Arc`): steers off the start platform into the kill volume,
//!   respawns (a teleport), then lets the bot finish;
//! - `cheat-1.pogo`, `cheat-2.pogo` (player `cheat`): honest bot runs whose trailer claims a
//!   finish earlier than the real one, re-encoded with valid checksums (forged);
//! - `hostile-level.json`: a short level whose name is markup, and `mallory.pogo`, a run that
//!   finishes it; `unknown-level.pogo`: a run of a level the server does not have, named as
//!   markup too (its upload is refused with a message quoting the name);
//! - `other-rules.pogo`: `bot.pogo` with the header's rules version one past the core's,
//!   re-encoded with valid checksums (the play view's test serves it as a ghost: refused);
//! - `manifest.json`: per replay its player, level and the verifier's verdict (finish tick,
//!   ticks, splits, teleport ticks; or the error's kind and message).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pogo_core::bot::Bot;
use pogo_core::world::{Aabb, Solid, World, WorldDesc};
use pogo_core::{Fx, Input, Simulation, Tuning, Vec3};
use pogo_replay::{Ghost, Header, Limits, Recorder, Replay, Verifier};
use serde_json::{Value, json};

/// Longest run recorded (the bot finishes `course` in about a minute).
const TICKS_MAX: u32 = 7200;

/// The hostile names: markup that would run a script if a page parsed it as HTML.
const HOSTILE_LEVEL: &str = "<img src=x onerror=window.__xss=1>";
const UNKNOWN_LEVEL: &str = "<img src=x onerror=window.__xss=2>";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: web_fixtures OUT_DIR")?,
    );
    std::fs::create_dir_all(&out)?;
    let course = pogo_replay::builtin_level("course").ok_or("no built-in course")?;
    let hostile = hostile_level();
    let verifier = Verifier::new(Tuning::default(), vec![hostile.clone()], Limits::default())
        .and_builtin_levels();

    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples/course-bot.pogo");
    let mut files: Vec<(&str, Vec<u8>)> = vec![("bot.pogo", std::fs::read(sample)?)];
    for (file, name, idle) in [
        ("ana.pogo", "ana", 40),
        ("ben.pogo", "ben", 100),
        ("dee.pogo", "dee", 70),
        ("eve.pogo", "eve", 10),
    ] {
        files.push((file, bot_run(&course, name, idle, 0)));
    }
    files.push(("zoe.pogo", bot_run(&course, "Zoë d'Arc", 0, 150)));
    for (file, idle, earlier) in [("cheat-1.pogo", 20, 600), ("cheat-2.pogo", 30, 300)] {
        let honest = bot_run(&course, "cheat", idle, 0);
        let real = verifier.verify(&honest[..])?.finish[0].ok_or("the bot does not finish")?;
        let mut forged = Replay::decode(&honest, Limits::default())?;
        forged.trailer.finish = vec![Some(real - earlier)];
        files.push((file, forged.encode()));
    }
    files.push(("mallory.pogo", east_run(&hostile, "mallory")));
    let mut unknown = Replay::decode(&east_run(&hostile, "mallory"), Limits::default())?;
    unknown.header.level_name = UNKNOWN_LEVEL.into();
    files.push(("unknown-level.pogo", unknown.encode()));
    let mut other_rules = Replay::decode(&files[0].1, Limits::default())?;
    other_rules.header.rules_version = pogo_core::RULES_VERSION + 1;
    files.push(("other-rules.pogo", other_rules.encode()));

    let mut runs = Vec::new();
    for (file, bytes) in &files {
        std::fs::write(out.join(file), bytes)?;
        runs.push(verdict(&verifier, file, bytes));
    }
    std::fs::write(
        out.join("hostile-level.json"),
        pogo_replay::level_to_json(&hostile),
    )?;
    let manifest = json!({
        "runs": runs,
        "hostile_level": { "file": "hostile-level.json", "name": HOSTILE_LEVEL },
        "unknown_level": UNKNOWN_LEVEL,
    });
    write_json(&out.join("manifest.json"), &manifest)?;
    println!("{}", out.display());
    Ok(())
}

/// What the verifier says about one file.
fn verdict(verifier: &Verifier, file: &str, bytes: &[u8]) -> Value {
    let header = pogo_replay::Replay::decode(bytes, Limits::default()).map(|r| r.header);
    let (player, level) = match &header {
        Ok(h) => (json!(h.player_name), json!(h.level_name)),
        Err(_) => (Value::Null, Value::Null),
    };
    let claimed = pogo_replay::Replay::decode(bytes, Limits::default())
        .map(|r| json!(r.trailer.finish))
        .unwrap_or(Value::Null);
    match Ghost::load(bytes, verifier) {
        Ok(ghost) => {
            let splits: Vec<Value> = ghost
                .splits(0)
                .iter()
                .map(|s| json!({ "checkpoint": s.checkpoint, "tick": s.tick.0 }))
                .collect();
            let teleports: Vec<u32> = ghost
                .frames()
                .filter(|(_, _, teleported)| *teleported)
                .map(|(tick, _, _)| tick.0)
                .collect();
            json!({
                "file": file, "player": player, "level": level, "verdict": "verified",
                "finish_tick": ghost.verified().finish[0], "ticks": ghost.ticks(),
                "claimed_finish": claimed, "splits": splits, "teleports": teleports,
                "bytes": bytes.len(),
            })
        }
        Err(e) => json!({
            "file": file, "player": player, "level": level, "verdict": "rejected",
            "kind": e.kind(), "reason": e.to_string(), "claimed_finish": claimed,
            "bytes": bytes.len(),
        }),
    }
}

/// The demo bot's run of `desc` under `name`: neutral input for `idle` ticks, then steering
/// hard west (off the start) for `west` ticks, then the bot to the finish.
fn bot_run(desc: &WorldDesc, name: &str, idle: u32, west: u32) -> Vec<u8> {
    let tuning = Tuning::default();
    let mut bot = Bot::new();
    record(desc, name, |tick, sim| {
        if tick < idle {
            Input::default()
        } else if tick < idle + west {
            Input {
                steer_x: -127,
                ..Input::default()
            }
        } else {
            bot.input(sim.world(), &tuning, &sim.state().pogos[0])
        }
    })
}

/// The stick held east: finishes the hostile level.
fn east_run(desc: &WorldDesc, name: &str) -> Vec<u8> {
    record(desc, name, |_, _| Input {
        steer_x: 96,
        ..Input::default()
    })
}

/// Records a single-player run until the tick after its finish (at most [`TICKS_MAX`]).
fn record(
    desc: &WorldDesc,
    name: &str,
    mut input: impl FnMut(u32, &Simulation) -> Input,
) -> Vec<u8> {
    let tuning = Tuning::default();
    let world = World::new(desc.clone(), &tuning).expect("the level builds");
    let mut sim = Simulation::new(Arc::new(world), tuning, 1).expect("one player");
    let header = Header::for_simulation(&sim, Some(name.to_string()), None);
    let mut recorder = Recorder::new(Vec::new(), header).expect("a valid header");
    for tick in 0..TICKS_MAX {
        let this = input(tick, &sim);
        sim.step(&[this]);
        recorder
            .record(&[this], || sim.state_hash())
            .expect("recording to memory");
        if sim.state().pogos[0].finish_tick.is_some() {
            break;
        }
    }
    recorder
        .finish_simulation(&sim)
        .expect("recording to memory")
}

/// A ground slab with the finish 12 m east of the spawn, named as markup.
fn hostile_level() -> WorldDesc {
    let m = Fx::from_int;
    WorldDesc {
        name: HOSTILE_LEVEL.into(),
        spawn: Vec3::ZERO,
        solids: vec![Solid {
            bounds: Aabb::new(
                Vec3::new(m(-20), m(-1), m(-20)),
                Vec3::new(m(60), m(0), m(20)),
            ),
            no_bounce: false,
        }],
        finishes: vec![Aabb::new(
            Vec3::new(m(12), m(-1), m(-20)),
            Vec3::new(m(14), m(30), m(20)),
        )],
        ..WorldDesc::default()
    }
}

fn write_json(path: &Path, value: &Value) -> std::io::Result<()> {
    std::fs::write(path, serde_json::to_string_pretty(value)? + "\n")
}
