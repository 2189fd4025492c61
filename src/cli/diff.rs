//! `pogo diff A B`: re-simulate two replays side by side (each from its own inputs, on the
//! verifier's tuning and levels) and name the first tick after which their states differ:
//! every field that differs, for every player, with A's value and B's.
//!
//! ```text
//! identical for 3456 ticks
//! ```
//! ```text
//! first difference after tick 131 (2.200 s):
//!   P0 position: A (12.500000, 3.250000, 0.000000), B (12.516667, 3.250000, 0.000000)
//!   P0 lean: A (0.034899, 0.000000), B (0.000000, 0.000000)
//! ```
//! ```text
//! identical for 3000 ticks, then A goes on for 456 more
//! ```
//! ```text
//! P2 missing from B (A has 3 players, B has 2)
//! identical for 600 ticks (P0 to P1)
//! ```
//!
//! Fields are named as in `pogo_core::Pogo`, players as `P<i>`; vectors are `(x, y, z)` in
//! metres or m/s with 6 decimals, a lean `(x, z)`. When the replays have different player
//! counts, each player only one of them has is named (`P2 missing from B`), and the players
//! both have are compared. Nothing is verified: stored hashes and claims are not checked, only
//! the inputs are replayed.
//!
//! Exit code: 0 if the runs are identical (same players, same states after every tick, same
//! length); 1 if they differ (in a state, in length or in players), or if a replay does not
//! fit the tuning and levels given (another tuning, level or rules version than this
//! verifier's: as `verify` would say); 2 if either file is not a readable, well-formed
//! replay, or the two are of different levels or tunings (they cannot be compared). When the
//! runs differ, stderr has one unlabelled summary line (`the runs differ after tick 179`):
//! the answer to the question asked, not an `error:`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use pogo::core::{Buttons, Events, Fx, Pogo, Simulation, Ticks, Vec3};
use pogo::replay::diff::differing_fields;
use pogo::replay::{Replay, Verifier};

use super::CliError;
use super::replays::{VerifierArgs, check_comparable, read_replay, seconds, verify_error};

/// Arguments of `pogo diff`.
#[derive(Debug, Args)]
pub(crate) struct DiffCommand {
    /// The first replay.
    #[arg(value_name = "A")]
    a: PathBuf,
    /// The second replay.
    #[arg(value_name = "B")]
    b: PathBuf,
    #[command(flatten)]
    verifier: VerifierArgs,
}

/// Runs `pogo diff`.
pub(crate) fn run(args: &DiffCommand, out: &mut dyn Write) -> Result<(), CliError> {
    let verifier = args.verifier.build()?;
    let a = read_replay(&args.a, verifier.limits())?;
    let b = read_replay(&args.b, verifier.limits())?;
    check_comparable("diff", (&args.a, &a.header), (&args.b, &b.header))?;
    let mut sim_a = simulation(&a, &verifier).map_err(|e| e.about(&args.a))?;
    let mut sim_b = simulation(&b, &verifier).map_err(|e| e.about(&args.b))?;

    let (players_a, players_b) = (a.header.players, b.header.players);
    let common = usize::from(players_a.min(players_b));
    for player in usize::from(players_b)..usize::from(players_a) {
        writeln!(
            out,
            "P{player} missing from B (A has {players_a} players, B has {players_b})"
        )?;
    }
    for player in usize::from(players_a)..usize::from(players_b) {
        writeln!(
            out,
            "P{player} missing from A (A has {players_a} players, B has {players_b})"
        )?;
    }
    let compared = if players_a == players_b {
        String::new()
    } else if common == 1 {
        " (P0)".to_string()
    } else {
        format!(" (P0 to P{})", common - 1)
    };

    for (ia, ib) in a.inputs().into_iter().zip(b.inputs()) {
        sim_a.step(&ia);
        sim_b.step(&ib);
        let (pa, pb) = (
            &sim_a.state().pogos[..common],
            &sim_b.state().pogos[..common],
        );
        if pa != pb {
            let tick = Ticks(sim_a.state().tick.0 - 1);
            write_difference(out, tick, a.header.tick_rate, pa, pb)?;
            return Err(CliError::differ(format!(
                "the runs differ after tick {tick}"
            )));
        }
    }
    let (ta, tb) = (a.ticks(), b.ticks());
    let same = ta.min(tb);
    if ta == tb {
        writeln!(out, "identical for {same} ticks{compared}")?;
    } else {
        let longer = if ta > tb { "A" } else { "B" };
        writeln!(
            out,
            "identical for {same} ticks{compared}, then {longer} goes on for {} more",
            ta.max(tb) - same
        )?;
    }
    if players_a != players_b {
        return Err(CliError::differ(format!(
            "the runs differ in players: A has {players_a}, B {players_b}"
        )));
    }
    if ta != tb {
        return Err(CliError::differ(format!(
            "the runs differ in length: A has {ta} ticks, B {tb}"
        )));
    }
    Ok(())
}

/// Why a replay cannot be simulated here; [`NotSimulable::about`] names the file.
enum NotSimulable {
    Verify(pogo::replay::VerifyError),
    Start(String),
}

impl NotSimulable {
    fn about(self, path: &std::path::Path) -> CliError {
        match self {
            NotSimulable::Verify(e) => verify_error(path, &e),
            NotSimulable::Start(e) => {
                CliError::bad_input(format!("{}: cannot simulate: {e}", path.display()))
            }
        }
    }
}

/// The simulation a replay starts from, on the verifier's tuning and level. A header that
/// does not fit them (tuning, level, rules version) is what `verify` reports as a failure.
fn simulation(replay: &Replay, verifier: &Verifier) -> Result<Simulation, NotSimulable> {
    let world = verifier
        .check_header(&replay.header)
        .map_err(NotSimulable::Verify)?;
    let players = usize::from(replay.header.players);
    Simulation::new(world, verifier.tuning().clone(), players)
        .map_err(|e| NotSimulable::Start(e.to_string()))
}

/// `first difference after tick T (S s):` and one line per differing field with both values.
fn write_difference(
    out: &mut dyn Write,
    tick: Ticks,
    rate: u32,
    a: &[Pogo],
    b: &[Pogo],
) -> std::io::Result<()> {
    writeln!(
        out,
        "first difference after tick {tick} ({} s):",
        seconds(u64::from(tick.0) + 1, rate)
    )?;
    let fields = differing_fields(a, b);
    for &(player, field) in &fields {
        let (x, y) = (&a[player], &b[player]);
        writeln!(
            out,
            "  P{player} {field}: A {}, B {}",
            field_value(x, field),
            field_value(y, field)
        )?;
    }
    // A field the list above does not know (a newer `Pogo`): say which player, at least.
    for (player, (x, y)) in a.iter().zip(b).enumerate() {
        if x != y && !fields.iter().any(|&(p, _)| p == player) {
            writeln!(out, "  P{player}: the states differ")?;
        }
    }
    Ok(())
}

/// One field of a pogo as text (see the module docs for the units).
fn field_value(pogo: &Pogo, field: &str) -> String {
    let ticks = |t: Option<u32>| t.map_or_else(|| "none".to_string(), |t| t.to_string());
    match field {
        "state" => pogo.state.name().to_string(),
        "position" => vec3(pogo.position),
        "velocity" => vec3(pogo.velocity),
        "lean" => format!("({:.6}, {:.6})", pogo.lean.x, pogo.lean.z),
        "combo" => pogo.combo.to_string(),
        "bounces" => pogo.bounces.to_string(),
        "apex" if pogo.apex == Fx::MIN => "none".to_string(),
        "apex" => format!("{:.6}", pogo.apex),
        "last_launch" => pogo.last_launch.map_or_else(
            || "none".to_string(),
            |launch| {
                format!(
                    "tick {} at {} off {:?}",
                    launch.tick,
                    vec3(launch.point),
                    launch.surface
                )
            },
        ),
        "stun_ticks_left" => pogo.stun_ticks_left.to_string(),
        "trick_ticks_left" => ticks(pogo.trick_ticks_left),
        "buttons_held" => {
            let b = pogo.buttons_held;
            let names: Vec<&str> = [(Buttons::TRICK, "trick"), (Buttons::DIVE, "dive")]
                .into_iter()
                .filter(|&(button, _)| b.contains(button))
                .map(|(_, name)| name)
                .collect();
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(",")
            }
        }
        "compression" => pogo.compression.map_or_else(
            || "none".to_string(),
            |c| {
                format!(
                    "{} ticks left, normal {}, approach {}",
                    c.ticks_left,
                    vec3(c.normal),
                    vec3(c.approach)
                )
            },
        ),
        "tip_memory" => pogo.tip_memory.map_or_else(
            || "none".to_string(),
            |m| format!("normal {}, age {} ticks", vec3(m.normal), m.age),
        ),
        "checkpoint" => ticks(pogo.checkpoint),
        "finish_tick" => ticks(pogo.finish_tick.map(|t| t.0)),
        "events" => events(pogo.events),
        _ => "(differs)".to_string(),
    }
}

/// Event names, comma-separated (`bounce,perfect`), `none` if there are none; bits this
/// list does not know are shown in hex.
fn events(events: Events) -> String {
    const NAMES: [(Events, &str); 13] = [
        (Events::BOUNCE, "bounce"),
        (Events::PERFECT, "perfect"),
        (Events::LAUNCH, "launch"),
        (Events::RICOCHET, "ricochet"),
        (Events::BODY_HIT, "body_hit"),
        (Events::STUN, "stun"),
        (Events::TRICK_STARTED, "trick_started"),
        (Events::TRICK_LANDED, "trick_landed"),
        (Events::TRICK_FAILED, "trick_failed"),
        (Events::CHECKPOINT, "checkpoint"),
        (Events::FINISH, "finish"),
        (Events::DEATH, "death"),
        (Events::TELEPORT, "teleport"),
    ];
    let mut names: Vec<String> = NAMES
        .iter()
        .filter(|(event, _)| events.contains(*event))
        .map(|(_, name)| name.to_string())
        .collect();
    let known = NAMES.iter().fold(0, |bits, (event, _)| bits | event.0);
    if events.0 & !known != 0 {
        names.push(format!("{:#x}", events.0 & !known));
    }
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(",")
    }
}

/// `(x, y, z)` with 6 decimals.
fn vec3(v: Vec3) -> String {
    format!("({:.6}, {:.6}, {:.6})", v.x, v.y, v.z)
}
