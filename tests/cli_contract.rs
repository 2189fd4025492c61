//! The command line's contract, command by command: one exit-code rule (0 success, 1 a check
//! said no, 2 bad input; the worst wins), untrusted text escaped in every text output, every
//! argument error one line, `--jobs` bounded, help that reads as a summary.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use pogo::replay::{Limits, Replay};
use support::{
    TempDir, TempDirExt, assert_one_failure_line, pogo, retimed, stderr, stdout, temp_dir,
};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Runs `pogo ARGS…`, checks the exit code and, on failure, the one `error:` line on stderr.
#[track_caller]
fn expect(code: i32, args: &[&str]) -> Output {
    let out = pogo(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "pogo {args:?}\nstdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    if code == 0 {
        assert!(out.stderr.is_empty(), "pogo {args:?}: {}", stderr(&out));
    } else {
        assert_one_failure_line(args, code, &stderr(&out));
    }
    out
}

/// Whether stdout or stderr says `needle`.
fn said(out: &Output, needle: &str) -> bool {
    stdout(out).contains(needle) || stderr(out).contains(needle)
}

/// Records `pogo simulate --level LEVEL --bot --ticks TICKS EXTRA… --record PATH`.
fn record(path: &Path, level: &str, ticks: u32, extra: &[&str]) {
    let ticks = ticks.to_string();
    let mut args = vec!["simulate", "--level", level, "--bot", "--ticks", &ticks];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--record", s(path)]);
    expect(0, &args);
}

/// The replays every exit-code test needs, in one scratch directory.
struct Files {
    dir: TempDir,
    /// Course, the bot, 600 ticks: verifies.
    good: PathBuf,
    /// `good` with one input held a tick longer: well-formed, desyncs.
    tampered: PathBuf,
    /// `good` recorded with `--set gravity=20`: another tuning.
    tuned: PathBuf,
    /// Flat, 120 ticks: another level.
    flat: PathBuf,
    /// `good` cut inside its last chunk.
    truncated: PathBuf,
    /// Not a replay at all.
    junk: PathBuf,
    missing: PathBuf,
}

fn files() -> Files {
    let dir = temp_dir("contract");
    let good = dir.path().join("good.pogo");
    record(&good, "course", 600, &[]);
    let bytes = std::fs::read(&good).unwrap();
    let tampered = dir.write("tampered.pogo", retimed(&bytes, 130).0);
    let tuned = dir.path().join("tuned.pogo");
    record(&tuned, "course", 600, &["--set", "gravity=20"]);
    let flat = dir.path().join("flat.pogo");
    record(&flat, "flat", 120, &[]);
    let truncated = dir.write("truncated.pogo", &bytes[..bytes.len() - 40]);
    let junk = dir.write("junk.pogo", "hello, world");
    let missing = dir.path().join("missing.pogo");
    Files {
        dir,
        good,
        tampered,
        tuned,
        flat,
        truncated,
        junk,
        missing,
    }
}

impl Files {
    fn dir(&self) -> &str {
        s(self.dir.path())
    }

    fn out(&self, name: &str) -> String {
        s(&self.dir.path().join(name)).to_string()
    }
}

/// Item 5: the same condition gives the same exit code in every command.
#[test]
fn every_command_has_the_same_exit_code_for_the_same_condition() {
    let f = files();
    let (good, tampered, tuned, flat) = (s(&f.good), s(&f.tampered), s(&f.tuned), s(&f.flat));
    let svg = f.out("x.svg");
    let fixed = f.out("fixed.pogo");
    // Every command that reads replays, with one unreadable file.
    let unreadable = [f.dir(), "-", s(&f.missing), s(&f.junk)];
    for path in unreadable {
        let cases: [Vec<&str>; 7] = [
            vec!["verify", path],
            vec!["inspect", path],
            vec!["race", good, path],
            vec!["race", path, good],
            vec!["diff", good, path],
            vec!["plot", good, path, "-o", &svg],
            vec!["salvage", path, &fixed],
        ];
        for args in cases {
            let out = expect(2, &args);
            assert!(said(&out, path), "{args:?}: {}", stderr(&out));
        }
    }
    let out = expect(2, &["inspect", "-"]);
    assert!(stderr(&out).contains("standard input"), "{}", stderr(&out));
    let out = expect(2, &["inspect", f.dir()]);
    assert!(stderr(&out).contains("is a directory"), "{}", stderr(&out));

    // A well-formed replay that does not verify (desync): 1, and salvage does not launder it.
    for args in [
        vec!["verify", tampered],
        vec!["race", good, tampered],
        vec!["plot", tampered, "-o", &svg],
        vec!["salvage", tampered, &fixed],
    ] {
        let out = expect(1, &args);
        assert!(said(&out, "desync"), "{args:?}: {}", stderr(&out));
    }
    assert!(!Path::new(&fixed).exists(), "salvage wrote a tampered file");
    // `diff` does not verify: the runs differ, 1.
    expect(1, &["diff", good, tampered]);

    // Another tuning than the one given: 1 (a check said no) everywhere.
    for args in [
        vec!["verify", good],
        vec!["race", good, good],
        vec!["diff", good, good],
        vec!["plot", good, "-o", &svg],
        vec!["salvage", good, &fixed],
    ] {
        let mut args = args.clone();
        args.extend_from_slice(&["--set", "gravity=20"]);
        let out = expect(1, &args);
        assert!(said(&out, "tuning mismatch"), "{args:?}: {}", stderr(&out));
    }

    // Two replays that cannot be compared (different levels, different tunings): 2.
    for (other, why) in [(flat, "different levels"), (tuned, "different tunings")] {
        for task in ["race", "diff"] {
            let out = expect(2, &[task, good, other]);
            assert!(
                stderr(&out).contains(&format!("cannot {task} replays of {why}")),
                "{}",
                stderr(&out)
            );
        }
        let out = expect(2, &["plot", good, other, "-o", &svg]);
        assert!(stderr(&out).contains(why), "{}", stderr(&out));
    }

    // Salvage: a truncated recording is what it is for (0); nothing to keep is 2.
    expect(0, &["salvage", s(&f.truncated), &fixed]);
    expect(0, &["verify", &fixed]);
    let stub = f
        .dir
        .write("stub.pogo", &std::fs::read(&f.good).unwrap()[..20]);
    let out = expect(2, &["salvage", s(&stub), &f.out("none.pogo")]);
    assert!(
        stderr(&out).contains("nothing to salvage"),
        "{}",
        stderr(&out)
    );
}

/// Item 5: `verify` of many files reports every file on its line and exits with the worst.
#[test]
fn verify_reports_every_file_and_exits_with_the_worst_outcome() {
    let f = files();
    let (good, tampered) = (s(&f.good), s(&f.tampered));
    let all = [
        good,
        s(&f.missing),
        tampered,
        f.dir(),
        "-",
        s(&f.junk),
        s(&f.truncated),
        good,
    ];
    let mut args = vec!["verify", "--jobs", "3"];
    args.extend_from_slice(&all);
    let out = expect(2, &args);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), all.len(), "{text}");
    for (line, file) in lines.iter().zip(all) {
        let verdict = if file == good { "OK  " } else { "FAIL " };
        assert!(line.starts_with(&format!("{verdict}{file}  ")), "{text}");
    }
    assert!(lines[3].ends_with("is a directory, not a file"), "{text}");
    assert!(lines[4].contains("standard input"), "{text}");
    assert!(
        stderr(&out).contains("5 of 8 files cannot be read or are not well-formed replays"),
        "{}",
        stderr(&out)
    );
    // Without the unreadable ones, the desync alone: 1.
    expect(1, &["verify", good, tampered, good]);
    expect(0, &["verify", good, good]);
}

/// Item 4: `--jobs` is bounded, and more jobs than files is fine.
#[test]
fn jobs_are_bounded_with_a_clear_error() {
    let f = files();
    let good = s(&f.good);
    for jobs in ["0", "65", "10000"] {
        let out = expect(2, &["verify", "--jobs", jobs, good]);
        assert!(out.stdout.is_empty());
        assert!(
            stderr(&out).contains(&format!("--jobs {jobs}: must be 1 to 64")),
            "{}",
            stderr(&out)
        );
    }
    let out = expect(0, &["verify", "--jobs", "64", good, good]);
    assert_eq!(stdout(&out).lines().count(), 2);
}

/// A directory path holding a newline and ANSI escapes, as a hostile user could name a file.
const HOSTILE_FILE: &str = "run\nOK  cheater.pogo  ticks=900 finish=899\x1b[31m.pogo";
const HOSTILE_FILE_SHOWN: &str = "run\\u{a}OK  cheater.pogo  ticks=900 finish=899\\u{1b}[31m.pogo";
/// A level name the header format allows (no control characters) but a terminal must not show
/// raw: a right-to-left override and a zero-width space.
const HOSTILE_LEVEL: &str = "evil\u{202e}level\u{200b}";
const HOSTILE_LEVEL_SHOWN: &str = "evil\\u{202e}level\\u{200b}";

/// No raw control or format character of the hostile strings in `text`.
#[track_caller]
fn assert_clean(text: &str, context: &str) {
    for c in ['\x1b', '\u{202e}', '\u{200b}', '\r'] {
        assert!(
            !text.contains(c),
            "{context}: raw U+{:04X} in {text:?}",
            c as u32
        );
    }
}

/// Item 3: a file path and a level name that could forge output are escaped in every
/// command's text output (and the SVG stays well-formed XML).
#[test]
fn untrusted_text_is_escaped_in_every_command() {
    let dir = temp_dir("escape");
    let level = dir.write(
        "evil.json",
        format!(
            r#"{{"name": "{}", "spawn": [0, 0, 0],
                "solids": [{{"min": [-50, -1, -50], "max": [50, 0, 50]}}]}}"#,
            HOSTILE_LEVEL
                .replace('\u{202e}', "\\u202e")
                .replace('\u{200b}', "\\u200b")
        ),
    );
    let level = s(&level);
    let run = dir.path().join(HOSTILE_FILE);
    let run = s(&run);
    let sig = expect(
        0,
        &[
            "simulate", "--level", level, "--ticks", "120", "--record", run,
        ],
    );
    assert!(stdout(&sig).starts_with("SIG "));
    let shown = s(&dir.path().join(HOSTILE_FILE_SHOWN)).to_string();

    let out = expect(0, &["verify", run, "--level", level]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with(&format!("OK  {shown}  ticks=120 ")),
        "{text}"
    );
    assert_clean(&text, "verify");
    // JSON keeps the exact name, JSON-escaped.
    let out = expect(0, &["verify", "--json", run, "--level", level]);
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["file"], run);
    assert_eq!(v["level"], HOSTILE_LEVEL);
    // Without the level: a failure that names it, escaped.
    let out = expect(1, &["verify", run]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with(&format!("FAIL {shown}  unknown level ")),
        "{text}"
    );
    assert_clean(&text, "verify FAIL");
    assert_clean(&stderr(&out), "verify stderr");

    let out = expect(0, &["inspect", run]);
    let text = stdout(&out);
    assert!(text.contains(&format!("file: {shown}\n")), "{text}");
    assert!(
        text.contains(&format!("level: {HOSTILE_LEVEL_SHOWN} (hash ")),
        "{text}"
    );
    assert_clean(&text, "inspect");

    let out = expect(0, &["race", run, run, "--level", level]);
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!("level: {HOSTILE_LEVEL_SHOWN}\nghost: {shown}\n")),
        "{text}"
    );
    assert_clean(&text, "race");

    let fixed = dir.path().join("fixed\x1b[2J.pogo");
    let out = expect(0, &["salvage", run, s(&fixed), "--level", level]);
    let text = stdout(&out);
    assert!(text.contains("fixed\\u{1b}[2J.pogo: ticks=120"), "{text}");
    assert_clean(&text, "salvage");

    let svg = dir.path().join("plot\x1b.svg");
    let out = expect(0, &["plot", run, "--level", level, "-o", s(&svg)]);
    assert_clean(&stdout(&out), "plot");
    let content = std::fs::read_to_string(&svg).unwrap();
    // XML 1.0 cannot hold these control characters at all; the legend shows the escapes.
    assert!(
        content.bytes().all(|b| b >= 0x20 || b"\n\r\t".contains(&b)),
        "control character in the SVG"
    );
    assert!(
        content.contains("\\u{1b}[31m.pogo"),
        "the legend names the file"
    );
    assert!(
        content.contains(HOSTILE_LEVEL_SHOWN),
        "the caption names the level"
    );
    assert!(!content.contains('\u{202e}'));

    // stderr: the one error line is escaped as a whole.
    let missing = dir.path().join("gone\n\x1b[1Aerror.pogo");
    let out = expect(2, &["inspect", s(&missing)]);
    assert!(
        stderr(&out).contains("gone\\u{a}\\u{1b}[1Aerror.pogo"),
        "{}",
        stderr(&out)
    );
    let out = expect(2, &["diff", run, s(&missing)]);
    assert_clean(&stderr(&out), "diff stderr");
}

/// Item 3: a player name that breaks the name rule is refused when recording, and a replay
/// carrying one (built with the format's own encoder) is malformed: exit 2, one FAIL line,
/// never a forged OK line.
#[test]
fn a_forged_player_name_is_refused_on_record_and_on_read() {
    let dir = temp_dir("names");
    let path = dir.path().join("x.pogo");
    for name in [
        "x\nOK  cheater.pogo  ticks=900 finish=899",
        "\x1b[32mgreen",
        "bad\u{202e}name",
        " padded",
        "",
    ] {
        let out = expect(
            2,
            &[
                "simulate",
                "--level",
                "flat",
                "--ticks",
                "10",
                "--record",
                s(&path),
                "--player-name",
                name,
            ],
        );
        assert!(stderr(&out).contains("--player-name"), "{}", stderr(&out));
        assert_clean(&stderr(&out), "--player-name");
        assert!(!path.exists(), "nothing recorded for {name:?}");
    }
    expect(
        0,
        &[
            "simulate",
            "--level",
            "flat",
            "--ticks",
            "10",
            "--record",
            s(&path),
            "--player-name",
            "Zoë O'Neill",
        ],
    );
    let mut replay = Replay::decode(&std::fs::read(&path).unwrap(), Limits::default()).unwrap();
    replay.header.player_name = Some("x\nOK  cheater.pogo  ticks=900 finish=899".into());
    let forged = dir.write("forged.pogo", replay.encode());
    let out = expect(2, &["verify", s(&forged)]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("FAIL "), "{text}");
    assert!(text.contains("player name"), "{text}");
    expect(2, &["inspect", s(&forged)]);
}

/// Item 13: every argument error is one `error:` line, exit 2; help and version are not errors.
#[test]
fn every_argument_error_is_one_line() {
    for args in [
        &["simulate", "--level", "flat", "--ticks", "abc"][..],
        &["simulate", "--level", "flat", "--ticks", "4294967296"],
        &["simulate", "--level", "flat", "--ticks", "-1"],
        &["simulate"],
        &["tuning", "--bogus"],
        &["no-such-command"],
        &["verify"],
        &["verify", "--jobs", "many", "x.pogo"],
        &["plot", "x.pogo"],
        &["race", "a.pogo"],
        &["simulate", "--level", "flat", "--date", "2026-01-01"],
    ] {
        let out = expect(2, args);
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr(&out).contains("--help"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let out = expect(2, &["simulate", "--level", "flat", "--ticks", "abc"]);
    assert!(
        stderr(&out).contains("'abc'") && stderr(&out).contains("pogo simulate --help"),
        "{}",
        stderr(&out)
    );
    for args in [
        &["--help"][..],
        &["-h"],
        &["--version"],
        &["verify", "--help"],
        &["help"],
    ] {
        let out = expect(0, args);
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
}

/// Item 13: `--set` takes exactly the files' number syntax (JSON numbers), with a clear
/// message for what it refuses, and gives the same bits as the file.
#[test]
fn set_takes_the_same_decimals_as_a_tuning_file() {
    let hash = |out: &Output| {
        stdout(out)
            .lines()
            .find_map(|l| l.strip_prefix("hash=").map(str::to_string))
            .unwrap()
    };
    let dir = temp_dir("decimals");
    let plain = hash(&expect(0, &["tuning", "--set", "impact_transfer=0.05"]));
    for text in ["5e-2", "5E-2", "0.5e-1", "0.050"] {
        let set = format!("impact_transfer={text}");
        assert_eq!(
            hash(&expect(0, &["tuning", "--set", &set])),
            plain,
            "{text}"
        );
        let file = dir.write("t.json", format!(r#"{{"impact_transfer": {text}}}"#));
        assert_eq!(
            hash(&expect(0, &["tuning", "--tuning", s(&file)])),
            plain,
            "{text}"
        );
    }
    for (text, says) in [
        (".05", "write 0.05"),
        ("-.5", "write -0.5"),
        ("5.", "write 5"),
        ("+24", "write 24"),
        ("024", "write 24"),
        ("1.e2", "as in a tuning file"),
        ("1_000", "as in a tuning file"),
    ] {
        let set = format!("gravity={text}");
        let out = expect(2, &["tuning", "--set", &set]);
        assert!(
            stderr(&out).contains("not a decimal number"),
            "{text}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains(says), "{text}: {}", stderr(&out));
        // The file refuses it too (it is not JSON).
        let file = dir.write("t.json", format!(r#"{{"gravity": {text}}}"#));
        expect(2, &["tuning", "--tuning", s(&file)]);
    }
}

/// Item 13: an input-script time too large to be one says so.
#[test]
fn an_input_script_number_too_large_says_too_large() {
    let dir = temp_dir("script");
    for (line, says) in [
        (
            "4294967296 0 0",
            "tick 4294967296 is too large: at most 4294967295",
        ),
        ("99999999999999999999 0 0", "is too large"),
        ("18446744074s 0 0", "time 18446744074s is too large"),
        ("18446744073.8s 0 0", "is too large"),
    ] {
        let script = dir.write("s.txt", format!("0 0 0\n{line}\n"));
        let out = expect(2, &["simulate", "--level", "flat", "--inputs", s(&script)]);
        assert!(
            stderr(&out).contains("line 2: "),
            "{line}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains(says), "{line}: {}", stderr(&out));
    }
    // Not too large, just wrong: the parser's own message.
    for line in ["12x 0 0", "4294967295 300 0", "18446744073s 0 0 jump"] {
        let script = dir.write("s.txt", format!("0 0 0\n{line}\n"));
        let out = expect(2, &["simulate", "--level", "flat", "--inputs", s(&script)]);
        assert!(
            !stderr(&out).contains("too large"),
            "{line}: {}",
            stderr(&out)
        );
    }
}

/// Item 14: `pogo --help` is a one-line summary per command; every help ends with the exit
/// codes; the description speaks to users; `--trace -` writes the CSV to stdout.
#[test]
fn help_is_short_per_command_and_names_the_exit_codes() {
    let out = expect(0, &["--help"]);
    let text = stdout(&out);
    let commands: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(commands.len(), 11, "ten commands and help: {text}");
    for line in &commands {
        assert!(line.len() <= 100, "not a one-line summary: {line:?}");
    }
    assert!(text.contains("Exit status: 0"), "{text}");
    for word in ["crate", "facade", "pogo-core"] {
        assert!(!text.contains(word), "{word:?} in the description: {text}");
    }
    for command in [
        "tuning", "levels", "simulate", "verify", "inspect", "diff", "race", "salvage", "plot",
        "netplay",
    ] {
        let out = expect(0, &[command, "--help"]);
        let help = stdout(&out);
        assert!(help.contains("Exit status: 0"), "{command}: {help}");
        // The long text is in the command's own help, not in the summary list.
        let summary = commands
            .iter()
            .find(|l| l.trim_start().starts_with(command))
            .unwrap();
        assert!(help.len() > summary.len() * 2, "{command}");
    }
    for code in ["1 ", "2 "] {
        let help = stdout(&expect(0, &["verify", "--help"]));
        assert!(
            help.contains(&format!("; {code}")),
            "exit code {code}in {help}"
        );
    }
}

/// Item 14: `--trace -` writes the CSV to stdout and the SIG line to stderr.
#[test]
fn trace_to_stdout_moves_the_sig_line_to_stderr() {
    let dir = temp_dir("trace");
    let file = dir.path().join("t.csv");
    let to_file = expect(
        0,
        &[
            "simulate",
            "--level",
            "flat",
            "--ticks",
            "30",
            "--trace",
            s(&file),
        ],
    );
    let out = pogo([
        "simulate", "--level", "flat", "--ticks", "30", "--trace", "-",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), std::fs::read_to_string(&file).unwrap());
    assert_eq!(stdout(&out).lines().count(), 31);
    assert_eq!(stderr(&out), stdout(&to_file));
    assert!(!Path::new("-").exists(), "no file called -");
    // Other outputs refuse `-` rather than create a file of that name.
    let out = expect(
        2,
        &[
            "simulate", "--level", "flat", "--ticks", "3", "--record", "-",
        ],
    );
    assert!(stderr(&out).contains("--record -"), "{}", stderr(&out));
}
