//! Integration tests of `pogo simulate`: the SIG line, render-rate independence, the bot, the
//! trace CSV, several players and the error contract.

mod support;

use std::path::Path;

use support::{TempDirExt, assert_hash_format, pogo, stderr, stdout, temp_dir};

/// Runs `pogo simulate ARGS…`, expecting success; returns stdout.
fn simulate(args: &[&str]) -> String {
    let out = pogo(std::iter::once("simulate").chain(args.iter().copied()));
    assert_eq!(
        out.status.code(),
        Some(0),
        "simulate {args:?}: {}",
        stderr(&out)
    );
    assert!(out.stderr.is_empty(), "stderr: {}", stderr(&out));
    stdout(&out)
}

/// The fields of one `SIG` line, checked against its documented format.
#[derive(Debug, PartialEq)]
struct Sig {
    ticks: u32,
    bounces: u32,
    /// 4 decimals, or `none` before the first tick.
    apex: String,
    finish: Option<u32>,
    hash: String,
}

/// A one-player SIG line, exactly as documented, ending `hash=<16 hex>`.
fn parse_sig(line: &str) -> Sig {
    parse_sig_fields(line, "hash")
}

/// Player `i`'s line of a several-player run: `P<i> SIG … sim_hash=<16 hex>`.
fn parse_player_sig(line: &str, i: usize) -> Sig {
    let rest = line
        .strip_prefix(&format!("P{i} "))
        .unwrap_or_else(|| panic!("no P{i} prefix: {line:?}"));
    parse_sig_fields(rest, "sim_hash")
}

fn parse_sig_fields(line: &str, hash_key: &str) -> Sig {
    let fields: Vec<&str> = line.split(' ').collect();
    assert_eq!(fields.len(), 6, "{line:?}");
    assert_eq!(fields[0], "SIG", "{line:?}");
    let value = |i: usize, key: &str| -> String {
        fields[i]
            .strip_prefix(key)
            .and_then(|f| f.strip_prefix('='))
            .unwrap_or_else(|| panic!("field {i} is not {key}=…: {line:?}"))
            .to_string()
    };
    let apex = value(3, "apex");
    if apex != "none" {
        let (whole, decimals) = apex.split_once('.').expect("apex has decimals");
        assert!(whole.parse::<i64>().is_ok(), "{line:?}");
        assert_eq!(decimals.len(), 4, "apex with 4 decimals: {line:?}");
    }
    let hash = value(5, hash_key);
    assert_hash_format(&hash, &format!("{line:?}"));
    let finish = value(4, "finish");
    Sig {
        ticks: value(1, "ticks").parse().unwrap(),
        bounces: value(2, "bounces").parse().unwrap(),
        apex,
        finish: (finish != "none").then(|| finish.parse().unwrap()),
        hash,
    }
}

/// The output of a one-player run: exactly one SIG line.
fn single_sig(text: &str) -> Sig {
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {text}");
    parse_sig(lines[0])
}

/// `pogo simulate ARGS…` is bad input: see [`support::assert_bad_input`].
#[track_caller]
fn assert_bad_input(args: &[&str], needles: &[&str]) {
    let out = pogo(std::iter::once("simulate").chain(args.iter().copied()));
    support::assert_bad_input(&out, needles);
}

/// A one-player script mixing tick numbers and seconds, steering and buttons.
const SCRIPT: &str = "\
# warm up, then steer around
0      0    0
30     127  0
1.5s   -64  30   dive,trick
2s     0    0    trick
150    0    -127
2.75s  90   90   dive
200    0    0
";

/// Render clocks that must not change a run.
const RENDER_CLOCKS: &[&[&str]] = &[
    &["--render-fps", "30"],
    &["--render-fps", "144"],
    &["--render-fps", "59.94"],
    &["--render-jitter", "7"],
];

#[test]
fn flat_without_input_bounces_steadily() {
    let sig = single_sig(&simulate(&["--level", "flat", "--ticks", "600"]));
    assert_eq!(sig.ticks, 600);
    assert_eq!(sig.finish, None);
    let apex: f64 = sig.apex.parse().unwrap();
    assert!((3.2..=3.4).contains(&apex), "{sig:?}");
    assert!(sig.bounces > 5, "{sig:?}");
}

#[test]
fn render_rate_does_not_change_a_neutral_run() {
    let base = ["--level", "flat", "--ticks", "600"];
    let expected = simulate(&base);
    for clock in RENDER_CLOCKS {
        let args: Vec<&str> = base.iter().chain(clock.iter()).copied().collect();
        assert_eq!(simulate(&args), expected, "{clock:?}");
    }
}

#[test]
fn render_rate_does_not_change_a_scripted_run_or_its_trace() {
    let dir = temp_dir("render");
    let script = dir.write("inputs.txt", SCRIPT);
    let script = script.to_str().unwrap();
    let run = |clock: &[&str], trace: &Path| {
        let mut args = vec!["--level", "course", "--inputs", script, "--ticks", "400"];
        args.extend_from_slice(clock);
        args.extend_from_slice(&["--trace", trace.to_str().unwrap()]);
        (simulate(&args), std::fs::read(trace).unwrap())
    };
    let (expected, expected_trace) = run(&[], &dir.path().join("default.csv"));
    // The script changes the run: not the neutral one.
    let neutral = simulate(&["--level", "course", "--ticks", "400"]);
    assert_ne!(single_sig(&expected).hash, single_sig(&neutral).hash);
    for (i, clock) in RENDER_CLOCKS.iter().enumerate() {
        let (sig, trace) = run(clock, &dir.path().join(format!("{i}.csv")));
        assert_eq!(sig, expected, "{clock:?}");
        assert!(trace == expected_trace, "trace differs with {clock:?}");
    }
    // A rate so low that one frame runs hundreds of ticks and many events wait at once.
    let (sig, trace) = run(&["--render-fps", "0.25"], &dir.path().join("slow.csv"));
    assert_eq!(sig, expected);
    assert!(trace == expected_trace, "trace differs at 0.25 fps");
}

#[test]
fn bot_finishes_the_course_at_every_render_rate() {
    let text = simulate(&["--level", "course", "--bot"]);
    let sig = single_sig(&text);
    let finish = sig
        .finish
        .unwrap_or_else(|| panic!("the bot did not finish: {sig:?}"));
    // The run stops at the end of the finishing tick.
    assert_eq!(sig.ticks, finish + 1, "{sig:?}");
    assert_eq!(
        simulate(&["--level", "course", "--bot", "--render-fps", "144"]),
        text
    );
}

#[test]
fn trace_has_specs_header_and_one_row_per_tick() {
    let dir = temp_dir("trace");
    let trace = dir.path().join("trace.csv");
    let sig = single_sig(&simulate(&[
        "--level",
        "flat",
        "--ticks",
        "240",
        "--trace",
        trace.to_str().unwrap(),
    ]));
    let csv = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "tick,state,px,py,pz,vx,vy,vz,combo,bounces");
    let rows = &lines[1..];
    assert_eq!(rows.len(), 240);
    let states = ["respawn", "airborne", "compression", "stunned", "finished"];
    for (tick, row) in rows.iter().enumerate() {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), 10, "{row}");
        assert_eq!(cells[0], tick.to_string(), "{row}");
        assert!(states.contains(&cells[1]), "{row}");
        for number in &cells[2..8] {
            let (_, decimals) = number.split_once('.').expect("6 decimals");
            assert_eq!(decimals.len(), 6, "{row}");
        }
        assert!(cells[8].parse::<u32>().is_ok(), "{row}");
    }
    let last: Vec<&str> = rows[rows.len() - 1].split(',').collect();
    assert_eq!(last[9], sig.bounces.to_string());
    // The tip rises and falls: the trace is of a bouncing pogo, not a constant.
    assert!(rows.iter().any(|r| r.contains(",airborne,")));
    assert!(rows.iter().any(|r| r.contains(",compression,")));
}

#[test]
fn two_players_print_one_line_each_with_the_same_hash() {
    let dir = temp_dir("players");
    let script = dir.write(
        "two.txt",
        "0 0 0\n30 127 0\nplayer 1\n0.25s 50 50\n100 0 0 dive\n",
    );
    let trace = dir.path().join("two.csv");
    let text = simulate(&[
        "--level",
        "flat",
        "--inputs",
        script.to_str().unwrap(),
        "--ticks",
        "300",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let p0 = parse_player_sig(lines[0], 0);
    let p1 = parse_player_sig(lines[1], 1);
    // One hash, the whole simulation's, named so.
    assert_eq!(p0.hash, p1.hash);
    assert_eq!((p0.ticks, p1.ticks), (300, 300));
    assert_ne!((p0.bounces, &p0.apex), (p1.bounces, &p1.apex), "{text}");
    // The trace gains a player column, one row per tick per player.
    let csv = std::fs::read_to_string(&trace).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "tick,player,state,px,py,pz,vx,vy,vz,combo,bounces");
    assert_eq!(rows.len(), 1 + 2 * 300);
    assert!(rows[1].starts_with("0,0,") && rows[2].starts_with("0,1,"));
    assert!(rows[600].starts_with("299,1,"));

    // --players adds neutral players; the script's own players keep their runs.
    let three = simulate(&[
        "--level",
        "flat",
        "--inputs",
        script.to_str().unwrap(),
        "--ticks",
        "300",
        "--players",
        "3",
    ]);
    let three: Vec<&str> = three.lines().collect();
    assert_eq!(three.len(), 3);
    let q0 = parse_player_sig(three[0], 0);
    assert_eq!((q0.bounces, q0.apex), (p0.bounces, p0.apex));
    parse_player_sig(three[2], 2);
}

#[test]
fn a_level_file_runs_like_a_builtin_level() {
    let dir = temp_dir("level");
    let level = dir.write(
        "slab.json",
        r#"{"name": "slab", "spawn": [0, 0, 0],
            "solids": [{"min": [-200, -1, -200], "max": [200, 0, 200]}]}"#,
    );
    let sig = single_sig(&simulate(&[
        "--level",
        level.to_str().unwrap(),
        "--ticks",
        "300",
    ]));
    let flat = single_sig(&simulate(&["--level", "flat", "--ticks", "300"]));
    assert_eq!((sig.bounces, sig.apex), (flat.bounces, flat.apex));
}

#[test]
fn bad_input_is_one_error_line_and_exit_2() {
    let dir = temp_dir("errors");
    assert_bad_input(&["--level", "nowhere"], &["nowhere", "flat", "course"]);
    let missing = dir.path().join("missing.txt");
    let missing = missing.to_str().unwrap();
    assert_bad_input(&["--level", "flat", "--inputs", missing], &[missing]);
    let bad = dir.write("bad.txt", "0 0 0\n# fine\n30 200 0\n");
    let bad = bad.to_str().unwrap();
    assert_bad_input(
        &["--level", "flat", "--inputs", bad],
        &[bad, "line 3", "steer"],
    );
    let good = dir.write("good.txt", SCRIPT);
    assert_bad_input(
        &[
            "--level",
            "flat",
            "--inputs",
            good.to_str().unwrap(),
            "--bot",
        ],
        &["--inputs", "--bot"],
    );
    for fps in ["0", "-30", "10001", "abc", "0.0"] {
        assert_bad_input(&["--level", "flat", "--render-fps", fps], &["--render-fps"]);
    }
    assert_bad_input(
        &[
            "--level",
            "flat",
            "--render-fps",
            "60",
            "--render-jitter",
            "1",
        ],
        &["--render-fps", "--render-jitter"],
    );
    assert_bad_input(&["--level", "flat", "--set", "gravity=abc"], &["gravity"]);
    assert_bad_input(
        &["--level", "flat", "--set", "no_such_key=1"],
        &["no_such_key"],
    );
    assert_bad_input(&["--level", "flat", "--players", "17"], &["--players"]);
    assert_bad_input(&["--level", "flat", "--players", "0"], &["--players"]);
    let level = dir.write(
        "broken.json",
        "{\"name\": \"x\", \"spawn\": [0, 0, 0],\n \"solids\": [{\"min\": [1, 2], \"max\": [3, 4, 5]}]}",
    );
    let level = level.to_str().unwrap();
    assert_bad_input(&["--level", level], &[level, "solids[0].min", "line 2"]);
    let trace = dir.path().join("no/such/dir/trace.csv");
    assert_bad_input(
        &["--level", "flat", "--trace", trace.to_str().unwrap()],
        &["trace"],
    );
}

#[test]
fn a_run_of_no_ticks_has_no_apex() {
    let sig = single_sig(&simulate(&["--level", "flat", "--ticks", "0"]));
    assert_eq!(sig.ticks, 0);
    assert_eq!(sig.apex, "none", "no tick ran: no apex, not a sentinel");
    let text = simulate(&["--level", "flat", "--ticks", "0", "--players", "2"]);
    for (i, line) in text.lines().enumerate() {
        assert_eq!(parse_player_sig(line, i).apex, "none", "{text}");
    }
    // One tick is enough for a real apex.
    let sig = single_sig(&simulate(&["--level", "flat", "--ticks", "1"]));
    assert!(sig.apex.parse::<f64>().is_ok(), "{sig:?}");
}

#[test]
fn several_players_print_the_whole_simulations_hash_as_sim_hash() {
    use std::sync::Arc;

    use pogo::core::bot::Bot;
    use pogo::core::world::World;
    use pogo::core::{Input, Simulation, Tuning};

    let (players, ticks) = (3, 400);
    let text = simulate(&[
        "--level",
        "course",
        "--bot",
        "--players",
        &players.to_string(),
        "--ticks",
        &ticks.to_string(),
    ]);
    // The same run through the library: its state hash after the last tick.
    let tuning = Tuning::default();
    let level = pogo::replay::builtin_level("course").unwrap();
    let world = Arc::new(World::new(level, &tuning).unwrap());
    let mut sim = Simulation::new(world, tuning, players).unwrap();
    let mut bots = vec![Bot::new(); players];
    for _ in 0..ticks {
        let inputs: Vec<Input> = bots
            .iter_mut()
            .zip(&sim.state().pogos)
            .map(|(bot, pogo)| bot.input(sim.world(), sim.tuning(), pogo))
            .collect();
        sim.step(&inputs);
    }
    let expected = format!("{:016x}", sim.state_hash());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), players, "{text}");
    for (i, line) in lines.iter().enumerate() {
        let sig = parse_player_sig(line, i);
        assert_eq!(sig.hash, expected, "{line}");
        assert_eq!(sig.ticks, ticks);
        assert_eq!(sig.bounces, sim.state().pogos[i].bounces, "{line}");
    }
    // One player keeps the single-player line: `hash=`, no prefix.
    let one = simulate(&["--level", "course", "--bot", "--ticks", "10"]);
    assert!(one.starts_with("SIG ") && one.contains(" hash="), "{one}");
    single_sig(&one);
}
