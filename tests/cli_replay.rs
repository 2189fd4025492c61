//! Integration tests of the replay subcommands: `simulate --record`, `verify`, `inspect`,
//! `diff`, `race`, `salvage` and `plot`, their output formats and exit codes.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::{
    TempDirExt, assert_one_difference_line, assert_one_error_line, assert_one_failure_line, pogo,
    retimed, stderr, stdout, temp_dir,
};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Runs `pogo ARGS…` expecting exit code `code`; returns stdout.
fn expect(code: i32, args: &[&str]) -> String {
    let out = pogo(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "pogo {args:?}\nstdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    let err = stderr(&out);
    if code == 0 {
        assert!(!err.contains("panicked"), "{err}");
        assert!(err.is_empty(), "stderr: {err}");
    } else {
        assert_one_failure_line(args, code, &err);
    }
    stdout(&out)
}

/// Records `pogo simulate ARGS… --record PATH`.
fn record(path: &Path, args: &[&str]) {
    let mut all = vec!["simulate"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--record", s(path)]);
    expect(0, &all);
}

const SCRIPT: &str = "\
0      0    0
30     127  0
1.5s   -64  30   dive,trick
2s     0    0    trick
150    0    -127
2.75s  90   90   dive
200    0    0
";

#[test]
fn bot_and_scripted_recordings_verify_on_every_builtin_level() {
    let dir = temp_dir("round-trip");
    let mut files = Vec::new();
    for level in ["flat", "course", "sprawl"] {
        let path = dir.path().join(format!("{level}.pogo"));
        record(&path, &["--level", level, "--bot", "--ticks", "600"]);
        files.push(path);
    }
    let script = dir.write("script.txt", SCRIPT);
    let scripted = dir.path().join("scripted.pogo");
    record(
        &scripted,
        &[
            "--level",
            "course",
            "--inputs",
            s(&script),
            "--ticks",
            "600",
            "--player-name",
            "Ada",
            "--date",
            "2026-11-29",
        ],
    );
    files.push(scripted);
    let mut args = vec!["verify"];
    args.extend(files.iter().map(|f| s(f)));
    let text = expect(0, &args);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), files.len(), "{text}");
    for (line, file) in lines.iter().zip(&files) {
        let player = if file.ends_with("scripted.pogo") {
            "Ada"
        } else {
            "-"
        };
        assert_eq!(
            *line,
            format!("OK  {}  ticks=600 finish=none player={player}", s(file))
        );
    }
}

#[test]
fn recording_is_reproducible_and_matches_the_sig_line() {
    let dir = temp_dir("reproducible");
    let (a, b) = (dir.path().join("a.pogo"), dir.path().join("b.pogo"));
    let sig = expect(
        0,
        &[
            "simulate",
            "--level",
            "course",
            "--bot",
            "--players",
            "2",
            "--ticks",
            "700",
            "--record",
            s(&a),
        ],
    );
    record(
        &b,
        &[
            "--level",
            "course",
            "--bot",
            "--players",
            "2",
            "--ticks",
            "700",
            "--render-fps",
            "59.94",
        ],
    );
    assert!(
        std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
        "same run, same bytes"
    );
    let hash = sig.lines().next().unwrap().rsplit("hash=").next().unwrap();
    let json = expect(0, &["verify", "--json", s(&a)]);
    let v: Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["final_hash"], hash);
    assert_eq!(v["players"], 2);
    assert_eq!(v["finish"], serde_json::json!([null, null]));
}

#[test]
fn verify_json_lines_have_the_fields() {
    let dir = temp_dir("json");
    let good = dir.path().join("good.pogo");
    record(
        &good,
        &["--level", "course", "--bot", "--player-name", "bot"],
    );
    let (bad_bytes, _) = retimed(&std::fs::read(&good).unwrap(), 130);
    let bad = dir.write("bad.pogo", bad_bytes);
    let missing = dir.path().join("missing.pogo");
    let junk = dir.write("junk.pogo", "hello, world");
    // The worst outcome decides: unreadable and malformed files (2) over a desync (1).
    let text = expect(
        2,
        &["verify", "--json", s(&good), s(&bad), s(&missing), s(&junk)],
    );
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 4, "{text}");
    let ok = &lines[0];
    assert_eq!(ok["file"], s(&good));
    assert_eq!(ok["ok"], true);
    assert_eq!(ok["level"], "course");
    assert_eq!(ok["player_name"], "bot");
    assert_eq!(ok.get("exit"), None);
    let ticks = ok["ticks"].as_u64().unwrap();
    let finish = ok["finish"][0]
        .as_u64()
        .expect("the bot finishes the course");
    assert_eq!(finish + 1, ticks, "the run stops when the bot finishes");
    let hash = ok["final_hash"].as_str().unwrap();
    assert_eq!(hash.len(), 16);
    assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()));

    let desync = &lines[1];
    assert_eq!(desync["file"], s(&bad));
    assert_eq!(desync["ok"], false);
    assert_eq!(desync["error"], "desync");
    assert_eq!(desync["exit"], 1);
    assert!(desync["tick"].is_u64());
    assert_eq!(desync["expected"].as_str().unwrap().len(), 16);
    assert_eq!(desync["found"].as_str().unwrap().len(), 16);
    assert!(
        desync["message"]
            .as_str()
            .unwrap()
            .starts_with("desync at tick")
    );

    assert_eq!(lines[2]["file"], s(&missing));
    assert_eq!(lines[2]["error"], "io");
    assert_eq!(lines[2]["exit"], 2);
    assert_eq!(lines[3]["error"], "bad_magic");
    assert_eq!(lines[3]["ok"], false);
    assert_eq!(lines[3]["exit"], 2);
}

#[test]
fn exit_codes_say_all_ok_some_failed_or_bad_arguments() {
    let dir = temp_dir("exit");
    let a = dir.path().join("a.pogo");
    let b = dir.path().join("b.pogo");
    record(&a, &["--level", "flat", "--bot", "--ticks", "400"]);
    record(&b, &["--level", "course", "--bot", "--ticks", "400"]);
    let (tampered, _) = retimed(&std::fs::read(&b).unwrap(), 100);
    let t = dir.write("t.pogo", tampered);
    expect(0, &["verify", s(&a), s(&b)]);
    expect(0, &["verify", "--jobs", "1", s(&a), s(&b)]);
    let text = expect(1, &["verify", "--jobs", "3", s(&a), s(&t), s(&b)]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with(&format!("OK  {}  ", s(&a))), "{text}");
    assert!(
        lines[1].starts_with(&format!("FAIL {}  desync at tick ", s(&t))),
        "{text}"
    );
    assert!(lines[2].starts_with(&format!("OK  {}  ", s(&b))), "{text}");
    let out = pogo(["verify", s(&a), s(&t)]);
    assert!(stderr(&out).contains("1 of 2 replays failed verification"));
    // Bad arguments: exit 2, nothing verified.
    for args in [
        vec!["verify", "--jobs", "0", s(&a)],
        vec!["verify", "--set", "gravity=-5", s(&a)],
        vec!["verify", "--set", "nonsense=1", s(&a)],
        vec!["verify", "--ticks-max", "0", s(&a)],
        vec!["verify", "--level", "/nonexistent/level.json", s(&a)],
    ] {
        let out = pogo(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
    let out = pogo(["verify"]);
    assert_eq!(out.status.code(), Some(2), "no files: {}", stderr(&out));
    // A different tuning is a verification failure of each file, not bad arguments.
    let text = expect(1, &["verify", "--set", "gravity=20", s(&a)]);
    assert!(text.contains("tuning mismatch"), "{text}");
    let text = expect(0, &["verify", "--ticks-max", "400", s(&a)]);
    assert!(text.starts_with("OK"), "{text}");
    // Longer than the reader accepts: not a replay it will read (2).
    let text = expect(2, &["verify", "--ticks-max", "399", s(&a)]);
    // Its name before the limits were named `*-max` still works.
    expect(2, &["verify", "--max-ticks", "399", s(&a)]);
    assert!(
        text.contains("longer than the limit of 399 ticks"),
        "{text}"
    );
}

#[test]
fn a_tuned_run_and_a_level_file_verify_with_the_same_options() {
    let dir = temp_dir("options");
    let level = dir.write(
        "slab.json",
        r#"{"name": "slab", "spawn": [0, 0, 0],
            "solids": [{"min": [-200, -1, -200], "max": [200, 0, 200]}]}"#,
    );
    let replay = dir.path().join("slab.pogo");
    record(
        &replay,
        &[
            "--level",
            s(&level),
            "--ticks",
            "300",
            "--set",
            "gravity=20",
        ],
    );
    let text = expect(1, &["verify", s(&replay), "--set", "gravity=20"]);
    assert!(text.contains("unknown level \"slab\""), "{text}");
    // An unknown level says where levels come from: the built-in ones, and --level FILE.
    assert!(
        text.contains(
            "unknown level \"slab\": not a built-in level (flat, course, sprawl); \
             give its level file with --level FILE"
        ),
        "{text}"
    );
    let out = pogo(["race", s(&replay), s(&replay), "--set", "gravity=20"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_one_error_line(&stderr(&out));
    assert!(
        stderr(&out).contains("with --level FILE"),
        "{}",
        stderr(&out)
    );
    let text = expect(1, &["verify", s(&replay), "--level", s(&level)]);
    assert!(text.contains("tuning mismatch"), "{text}");
    expect(
        0,
        &[
            "verify",
            s(&replay),
            "--level",
            s(&level),
            "--set",
            "gravity=20",
        ],
    );
}

#[test]
fn a_retimed_replay_desyncs_at_the_right_tick_and_diff_names_it() {
    let dir = temp_dir("retimed");
    let a = dir.path().join("a.pogo");
    record(&a, &["--level", "course", "--bot", "--ticks", "900"]);
    let (bytes, changed_at) = retimed(&std::fs::read(&a).unwrap(), 200);
    let b = dir.write("b.pogo", bytes);
    // Hashes are stored every 60 ticks: the first at or after the change catches it.
    let expected = (changed_at / 60 + 1) * 60 - 1;
    let text = expect(1, &["verify", s(&b)]);
    assert!(
        text.contains(&format!("desync at tick {expected}: ")),
        "changed at {changed_at}: {text}"
    );
    let json = expect(1, &["verify", "--json", s(&b)]);
    let v: Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["tick"], expected);

    let same = expect(0, &["diff", s(&a), s(&a)]);
    assert_eq!(same, "identical for 900 ticks\n");
    let text = expect(1, &["diff", s(&a), s(&b)]);
    let rest = text
        .strip_prefix("first difference after tick ")
        .unwrap_or_else(|| panic!("{text}"));
    let tick: u32 = rest.split(' ').next().unwrap().parse().unwrap();
    assert!(
        (changed_at..=changed_at + 1).contains(&tick),
        "changed at {changed_at}: {text}"
    );
    // One line per differing field, each with A's value and B's.
    let fields: Vec<&str> = text.lines().skip(1).collect();
    assert!(!fields.is_empty(), "{text}");
    for line in &fields {
        assert!(line.starts_with("  P0 "), "{text}");
        assert!(line.contains(": A ") && line.contains(", B "), "{text}");
    }
    assert!(
        ["velocity", "lean", "buttons_held"]
            .iter()
            .any(|f| fields.iter().any(|l| l.starts_with(&format!("  P0 {f}: ")))),
        "{text}"
    );
    // Unreadable input: exit 2.
    let junk = dir.write("junk.pogo", "POGOREPL");
    let out = pogo(["diff", s(&a), s(&junk)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("truncated"), "{}", stderr(&out));
    // A prefix of a run: identical as far as it goes, but the runs differ in length.
    let c = dir.path().join("c.pogo");
    record(&c, &["--level", "course", "--bot", "--ticks", "600"]);
    let out = pogo(["diff", s(&a), s(&c)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "identical for 600 ticks, then A goes on for 300 more\n"
    );
    assert_eq!(
        stderr(&out),
        "the runs differ in length: A has 900 ticks, B 600\n"
    );
}

/// `diff` finding a difference is the answer it was asked for, exit 1, and its stderr
/// summary is not labelled `error:`; a real error still is.
#[test]
fn diff_says_the_runs_differ_without_calling_it_an_error() {
    let dir = temp_dir("diff-label");
    let a = dir.path().join("a.pogo");
    record(&a, &["--level", "course", "--bot", "--ticks", "300"]);
    let (bytes, _) = retimed(&std::fs::read(&a).unwrap(), 100);
    let b = dir.write("b.pogo", bytes);
    let out = pogo(["diff", s(&a), s(&b)]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert_one_difference_line(&err);
    assert!(!err.contains("error"), "{err}");
    let missing = dir.path().join("missing.pogo");
    let out = pogo(["diff", s(&a), s(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    assert_one_error_line(&stderr(&out));
}

/// An empty file is said to be empty, not "truncated at byte 0" (a file cut inside its
/// preamble still is truncated there).
#[test]
fn an_empty_file_is_called_empty() {
    let dir = temp_dir("empty");
    let empty = dir.write("empty.pogo", "");
    let short = dir.write("short.pogo", "POGO");
    let text = expect(2, &["verify", s(&empty), s(&short)]);
    assert!(
        text.contains(&format!(
            "FAIL {}  empty: no bytes, not a pogo replay",
            s(&empty)
        )),
        "{text}"
    );
    assert!(!text.contains("truncated at byte 0\nFAIL"), "{text}");
    assert!(
        text.contains(&format!("FAIL {}  truncated at byte 0", s(&short))),
        "{text}"
    );
    let out = pogo(["inspect", s(&empty)]);
    assert_eq!(out.status.code(), Some(2));
    assert_one_error_line(&stderr(&out));
    assert!(
        stderr(&out).contains("empty: no bytes, not a pogo replay"),
        "{}",
        stderr(&out)
    );
    // JSON keeps the stable kind of a file with too few bytes.
    let json = expect(2, &["verify", "--json", s(&empty)]);
    let v: Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(
        (&v["error"], &v["offset"]),
        (&json!("truncated"), &json!(0)),
        "{json}"
    );
}

/// A file under the preamble's 10 bytes that is not the start of a replay is "not a pogo
/// replay", not "truncated at byte 0".
#[test]
fn a_short_file_that_is_no_replay_is_called_so() {
    let dir = temp_dir("short-text");
    let text_file = dir.write("notes.pogo", "hello");
    let text = expect(2, &["verify", s(&text_file)]);
    assert!(
        text.contains(&format!(
            "FAIL {}  not a pogo replay (starts with \"hello\", expected \"POGOREPL\")",
            s(&text_file)
        )),
        "{text}"
    );
    assert!(!text.contains("truncated"), "{text}");
    let json = expect(2, &["verify", "--json", s(&text_file)]);
    let v: Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(
        (&v["error"], &v["found"]),
        (&json!("bad_magic"), &json!("hello")),
        "{json}"
    );
}

#[test]
fn a_truncated_recording_is_salvaged_and_then_verifies() {
    let dir = temp_dir("salvage");
    let full = dir.path().join("full.pogo");
    record(&full, &["--level", "course", "--bot", "--ticks", "1000"]);
    let bytes = std::fs::read(&full).unwrap();
    // Cut 100 bytes before the end: inside the last input chunk (ticks 900…999).
    let cut = dir.write("cut.pogo", &bytes[..bytes.len() - 100]);
    let text = expect(2, &["verify", s(&cut)]);
    assert!(text.contains("truncated at byte"), "{text}");
    let fixed = dir.path().join("fixed.pogo");
    let text = expect(0, &["salvage", s(&cut), s(&fixed)]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("kept 900 ticks (3 input chunks), dropped "),
        "{text}"
    );
    assert!(lines[0].contains(": truncated at byte "), "{text}");
    assert!(
        lines[1].starts_with(&format!("wrote {}: ticks=900 ", s(&fixed))),
        "{text}"
    );
    let text = expect(0, &["verify", s(&fixed)]);
    assert!(text.contains("ticks=900"), "{text}");
    // A complete replay salvages to itself.
    let again = dir.path().join("again.pogo");
    let text = expect(0, &["salvage", s(&full), s(&again)]);
    assert!(
        text.contains("dropped 0 bytes (the input was a complete replay)"),
        "{text}"
    );
    assert!(std::fs::read(&again).unwrap() == bytes);
    // Nothing to salvage: exit 2, nothing written.
    let stub = dir.write("stub.pogo", &bytes[..20]);
    let none = dir.path().join("none.pogo");
    let out = pogo(["salvage", s(&stub), s(&none)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("nothing to salvage"),
        "{}",
        stderr(&out)
    );
    assert!(!none.exists());
}

#[test]
fn inspect_shows_header_length_outcome_and_size_without_verifying() {
    let dir = temp_dir("inspect");
    let path = dir.path().join("run.pogo");
    record(
        &path,
        &[
            "--level",
            "course",
            "--bot",
            "--player-name",
            "Ada",
            "--date",
            "2026-11-29T12:00:00Z",
        ],
    );
    let size = std::fs::metadata(&path).unwrap().len();
    let text = expect(0, &["inspect", s(&path)]);
    let field = |key: &str| -> String {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}: ")))
            .unwrap_or_else(|| panic!("no {key}: {text}"))
            .to_string()
    };
    assert_eq!(field("file"), s(&path));
    assert_eq!(field("format"), "2");
    assert_eq!(field("rules"), "2");
    assert_eq!(field("tick rate"), "60 Hz");
    assert!(field("level").starts_with("course (hash "), "{text}");
    assert!(field("tuning").starts_with("hash "), "{text}");
    assert_eq!(field("players"), "1");
    assert_eq!(field("player name"), "Ada");
    assert_eq!(field("date"), "2026-11-29T12:00:00Z");
    let ticks: u64 = field("ticks").parse().unwrap();
    let chunks: u64 = field("chunks").split(' ').next().unwrap().parse().unwrap();
    assert_eq!(chunks, ticks.div_ceil(300));
    let duration = field("duration");
    assert_eq!(
        duration,
        format!("{}.{:03} s", ticks / 60, (ticks % 60 * 1000 + 30) / 60)
    );
    assert_eq!(
        field("finish"),
        format!("P0 tick {} ({duration})", ticks - 1)
    );
    assert_eq!(field("final hash").len(), 16);
    let per_minute = (size * 3600 + ticks / 2) / ticks;
    assert_eq!(
        field("size"),
        format!("{size} bytes ({per_minute} bytes per minute of play)")
    );
    assert!(field("verified").starts_with("no"), "{text}");
    // Inspect does not re-simulate, but it checks every byte.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[200] ^= 1;
    let damaged = dir.write("damaged.pogo", bytes);
    let out = pogo(["inspect", s(&damaged)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("checksum mismatch"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn race_against_itself_has_zero_gaps_and_a_later_run_is_behind() {
    let dir = temp_dir("race");
    let ghost = dir.path().join("ghost.pogo");
    record(&ghost, &["--level", "course", "--bot"]);
    let text = expect(0, &["race", s(&ghost), s(&ghost)]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "level: course");
    assert_eq!(lines[1], format!("ghost: {}", s(&ghost)));
    assert_eq!(lines[2], format!("run:   {}", s(&ghost)));
    assert!(lines[3].starts_with("split "), "{text}");
    let rows = &lines[4..lines.len() - 1];
    assert_eq!(rows.len(), 5, "4 checkpoints and the finish: {text}");
    for row in rows {
        assert!(row.ends_with("+0.000 s"), "{row}");
    }
    assert!(rows[4].starts_with("finish "), "{text}");
    assert_eq!(lines[lines.len() - 1], "run finishes level with the ghost");

    // A run that stops early reaches fewer splits: `-` where it has none.
    let short = dir.path().join("short.pogo");
    record(&short, &["--level", "course", "--bot", "--ticks", "1500"]);
    let text = expect(0, &["race", s(&ghost), s(&short)]);
    let finish = text.lines().find(|l| l.starts_with("finish")).unwrap();
    assert!(finish.ends_with(" -"), "{text}");
    assert!(
        text.ends_with("run does not finish; the ghost does\n"),
        "{text}"
    );

    // Different levels: bad input.
    let flat = dir.path().join("flat.pogo");
    record(&flat, &["--level", "flat", "--ticks", "60"]);
    let out = pogo(["race", s(&ghost), s(&flat)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // A replay that does not verify: a failed check.
    let (bytes, _) = retimed(&std::fs::read(&ghost).unwrap(), 130);
    let bad = dir.write("bad.pogo", bytes);
    let out = pogo(["race", s(&ghost), s(&bad)]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("does not verify: desync"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn plot_writes_an_svg_of_the_trajectories() {
    let dir = temp_dir("plot");
    let a = dir.path().join("a.pogo");
    let b = dir.path().join("b.pogo");
    record(&a, &["--level", "course", "--bot", "--ticks", "900"]);
    record(
        &b,
        &[
            "--level",
            "course",
            "--bot",
            "--players",
            "2",
            "--ticks",
            "600",
        ],
    );
    let svg = dir.path().join("out.svg");
    let text = expect(0, &["plot", s(&a), s(&b), "-o", s(&svg)]);
    assert!(
        text.starts_with(&format!("wrote {}: 3 trajectories on course", s(&svg))),
        "{text}"
    );
    let content = std::fs::read_to_string(&svg).unwrap();
    assert!(content.starts_with("<svg"), "{}", &content[..100]);
    assert!(content.trim_end().ends_with("</svg>"));
    assert!(content.contains("<polyline") || content.contains("<path"));
    assert!(content.contains("<rect"), "the level's boxes");
    for name in [
        s(&a).to_string(),
        format!("{} P1", s(&b)),
        "checkpoint".into(),
    ] {
        assert!(content.contains(&name), "legend has {name}");
    }
    // All replays must be of one level.
    let flat = dir.path().join("flat.pogo");
    record(&flat, &["--level", "flat", "--ticks", "60"]);
    let out = pogo(["plot", s(&a), s(&flat), "-o", s(&dir.path().join("x.svg"))]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot plot replays of different levels"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn record_rejects_oversized_metadata_and_needs_record_for_it() {
    let dir = temp_dir("metadata");
    let path = dir.path().join("x.pogo");
    let long = "x".repeat(65);
    let out = pogo([
        "simulate",
        "--level",
        "flat",
        "--ticks",
        "10",
        "--record",
        s(&path),
        "--player-name",
        &long,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--player-name"), "{}", stderr(&out));
    let out = pogo(["simulate", "--level", "flat", "--date", "today"]);
    assert_eq!(out.status.code(), Some(2), "--date without --record");
}

#[test]
fn the_samples_verify_and_the_bad_ones_fail() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut samples: Vec<PathBuf> = std::fs::read_dir(root.join("samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pogo"))
        .collect();
    samples.sort();
    assert!(samples.len() >= 3, "{samples:?}");
    let mut args = vec!["verify"];
    args.extend(samples.iter().map(|p| s(p)));
    let text = expect(0, &args);
    assert_eq!(text.lines().count(), samples.len());
    let bad = root.join("samples/bad");
    // Tampered: a replay that does not verify (1); truncated: not a whole replay (2); both: 2.
    let text = expect(1, &["verify", s(&bad.join("tampered.pogo"))]);
    assert!(text.contains("desync at tick "), "{text}");
    let text = expect(2, &["verify", s(&bad.join("truncated.pogo"))]);
    assert!(text.contains("truncated at byte"), "{text}");
    let text = expect(
        2,
        &[
            "verify",
            s(&bad.join("tampered.pogo")),
            s(&bad.join("truncated.pogo")),
        ],
    );
    assert_eq!(text.lines().count(), 2, "{text}");
}

#[test]
fn diff_names_players_missing_from_one_run_and_compares_the_rest() {
    let dir = temp_dir("diff-players");
    let (three, two) = (dir.path().join("three.pogo"), dir.path().join("two.pogo"));
    let args = |n: &'static str| {
        [
            "--level",
            "course",
            "--bot",
            "--ticks",
            "300",
            "--players",
            n,
        ]
    };
    record(&three, &args("3"));
    record(&two, &args("2"));
    // Bots do not see each other: the players both runs have are identical.
    let text = expect(1, &["diff", s(&three), s(&two)]);
    assert_eq!(
        text,
        "P2 missing from B (A has 3 players, B has 2)\nidentical for 300 ticks (P0 to P1)\n"
    );
    let text = expect(1, &["diff", s(&two), s(&three)]);
    assert!(
        text.starts_with("P2 missing from A (A has 2 players, B has 3)\n"),
        "{text}"
    );
    let out = pogo(["diff", s(&two), s(&three)]);
    assert!(
        stderr(&out).contains("differ in players"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn race_picks_the_player_of_a_multi_player_replay() {
    use pogo::core::Tuning;
    use pogo::replay::{Ghost, Limits, Verifier};

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let multi = root.join("tests/golden/course-multi.pogo");
    let verifier = Verifier::with_builtin_levels(Tuning::default(), Limits::default());
    let ghost = Ghost::load(&std::fs::read(&multi).unwrap(), &verifier).unwrap();
    // The tick each player first reached checkpoint 1, from the library.
    let first_split = |player: usize| {
        ghost
            .splits(player)
            .iter()
            .find(|s| s.checkpoint == Some(0))
            .map_or("-".to_string(), |s| s.tick.0.to_string())
    };
    assert_ne!(first_split(0), first_split(1), "the players differ");
    let text = expect(
        0,
        &[
            "race",
            s(&multi),
            s(&multi),
            "--ghost-player",
            "0",
            "--player",
            "1",
        ],
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1], format!("ghost: {} P0 (of 3 players)", s(&multi)));
    assert_eq!(lines[2], format!("run:   {} P1 (of 3 players)", s(&multi)));
    let row: Vec<&str> = lines
        .iter()
        .find(|l| l.starts_with("CP1 "))
        .unwrap()
        .split_whitespace()
        .collect();
    // CP1 | ghost tick | ghost time s | run tick | run time s | gap s
    assert_eq!(row[1], first_split(0), "{text}");
    assert_eq!(row[4], first_split(1), "{text}");
    // --player alone picks both; out of range is bad input.
    let text = expect(0, &["race", s(&multi), s(&multi), "--player", "2"]);
    assert!(text.contains(" P2 (of 3 players)\nrun:"), "{text}");
    let out = pogo(["race", s(&multi), s(&multi), "--player", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--player 3"), "{}", stderr(&out));
}

#[test]
fn plot_marks_every_second_and_each_split_and_draws_the_zones() {
    use pogo::core::Tuning;
    use pogo::replay::{Ghost, Limits, Verifier};

    let dir = temp_dir("plot-time");
    let run = dir.path().join("run.pogo");
    record(&run, &["--level", "course", "--bot"]);
    let svg = dir.path().join("run.svg");
    let text = expect(0, &["plot", s(&run), "-o", s(&svg)]);
    // One replay, one player: "1 trajectory", not "1 trajectories".
    assert!(
        text.starts_with(&format!("wrote {}: 1 trajectory on course", s(&svg))),
        "{text}"
    );
    let content = std::fs::read_to_string(&svg).unwrap();

    let verifier = Verifier::with_builtin_levels(Tuning::default(), Limits::default());
    let ghost = Ghost::load(&std::fs::read(&run).unwrap(), &verifier).unwrap();
    let seconds = ghost.ticks() / 60;
    // A dot every second (plus the legend's), labelled where labels fit.
    let dots = content.matches("<circle").count() as u32;
    assert!(dots > seconds, "{dots} dots for {seconds} s");
    // (The SVG backend writes a text's content on its own line.)
    for label in ["1 s", "2 s"] {
        assert!(
            content.contains(&format!("\n{label}\n</text>")),
            "no {label} label"
        );
    }
    // Labels that would overlap a split's are left out, so not every second has one.
    let labelled = (1..=seconds)
        .filter(|s| content.contains(&format!("\n{s} s\n</text>")))
        .count() as u32;
    assert!(
        labelled * 4 >= seconds * 3,
        "{labelled} of {seconds} seconds labelled"
    );
    // Every split labelled on the line and listed in the legend, with its time.
    let splits = ghost.splits(0);
    assert_eq!(splits.len(), 5, "4 checkpoints and the finish");
    for split in splits {
        let ms = (u64::from(split.tick.0 + 1) * 2000 + 60) / 120;
        let name = split
            .checkpoint
            .map_or("finish".to_string(), |i| format!("CP{}", i + 1));
        let label = format!("{name} {}.{:03} s", ms / 1000, ms % 1000);
        assert!(
            content.matches(&label).count() >= 2,
            "{label}: on the line and in the legend"
        );
    }
    // The zones, drawn and named by what they do.
    for zone in [
        "wind (0, 0, 4) m/s²",
        "gravity ×0.5",
        "wind zone",
        "gravity zone",
    ] {
        assert!(content.contains(zone), "{zone}");
    }
}
