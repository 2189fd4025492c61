//! Integration tests of the `pogo` binary: exit codes, output contract, error lines.

mod support;

use std::process::Output;

use support::{TempDirExt, assert_bad_input, assert_hash_format, pogo, stderr, stdout, temp_dir};

/// The 16 hex digits after `hash=`, checking the format.
fn hash(out: &Output) -> String {
    let text = stdout(out);
    let line = text
        .lines()
        .find(|l| l.starts_with("hash="))
        .unwrap_or_else(|| panic!("no hash line in:\n{text}"));
    let digits = &line["hash=".len()..];
    assert_hash_format(digits, line);
    digits.to_string()
}

fn steady_line(out: &Output) -> String {
    let text = stdout(out);
    text.lines()
        .find(|l| l.starts_with("steady: "))
        .unwrap_or_else(|| panic!("no steady line in:\n{text}"))
        .to_string()
}

#[test]
fn default_tuning_prints_keys_hash_and_steady_bounce() {
    let out = pogo(["tuning"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stderr.is_empty());
    let text = stdout(&out);
    for key in pogo::core::TuningSpec::KEYS {
        assert!(
            text.lines().any(|l| l.starts_with(key.name)),
            "{} missing",
            key.name
        );
    }
    assert!(text.contains("impact_transfer"));
    assert!(text.contains("0..=0.95"));
    assert!(text.contains("compression_ticks"));
    hash(&out);
    let steady = steady_line(&out);
    assert!(steady.contains("launch=12.6316"), "{steady}");
    assert!(steady.contains("apex=3.3241"), "{steady}");
}

#[test]
fn set_override_changes_steady_bounce_and_hash() {
    let default = pogo(["tuning"]);
    let out = pogo(["tuning", "--set", "impact_transfer=0.35"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let steady = steady_line(&out);
    assert!(steady.contains("launch=18.4615"), "{steady}");
    assert!(steady.contains("apex=7.1006"), "{steady}");
    assert_ne!(hash(&out), hash(&default));
}

#[test]
fn layers_apply_in_order_defaults_file_overrides() {
    let dir = temp_dir("layers");
    let file = dir.write("t.json", r#"{"impact_transfer": 0.35, "gravity": 30}"#);
    let from_file = pogo(["tuning".as_ref(), "--tuning".as_ref(), file.as_os_str()]);
    let from_sets = pogo([
        "tuning",
        "--set",
        "impact_transfer=0.35",
        "--set",
        "gravity=30",
    ]);
    assert_eq!(from_file.status.code(), Some(0), "{}", stderr(&from_file));
    assert_eq!(hash(&from_file), hash(&from_sets));
    // --set wins over the file.
    let both = pogo([
        "tuning".as_ref(),
        "--tuning".as_ref(),
        file.as_os_str(),
        "--set".as_ref(),
        "impact_transfer=0.05".as_ref(),
    ]);
    assert!(steady_line(&both).contains("launch=12.6316"));
    assert_eq!(hash(&both), hash(&pogo(["tuning", "--set", "gravity=30"])));
}

#[test]
fn unknown_key_is_bad_input() {
    assert_bad_input(&pogo(["tuning", "--set", "gravty=24"]), &["gravty"]);

    let dir = temp_dir("unknown");
    let file = dir.write("tuning.json", "{\n  \"gravty\": 24\n}\n");
    let out = pogo(["tuning".as_ref(), "--tuning".as_ref(), file.as_os_str()]);
    assert_bad_input(
        &out,
        &["tuning.json", "unknown tuning key `gravty`", "line 2"],
    );
}

#[test]
fn out_of_range_value_is_bad_input_naming_the_range() {
    let out = pogo(["tuning", "--set", "impact_transfer=1.5"]);
    assert_bad_input(&out, &["impact_transfer", "0..=0.95", "1.5"]);
}

#[test]
fn malformed_override_is_bad_input() {
    assert_bad_input(
        &pogo(["tuning", "--set", "gravity"]),
        &["gravity", "key=value"],
    );
    assert_bad_input(
        &pogo(["tuning", "--set", "gravity=fast"]),
        &["gravity", "fast"],
    );
}

#[test]
fn inconsistent_tuning_is_bad_input() {
    let out = pogo(["tuning", "--set", "min_launch_speed=30"]);
    assert_bad_input(&out, &["min_launch_speed", "max_launch_speed"]);
}

#[test]
fn missing_file_is_bad_input() {
    let dir = temp_dir("missing");
    let file = dir.path().join("no-such-tuning.json");
    let out = pogo(["tuning".as_ref(), "--tuning".as_ref(), file.as_os_str()]);
    assert_bad_input(&out, &["no-such-tuning.json"]);
}

#[test]
fn malformed_json_file_is_bad_input() {
    let dir = temp_dir("malformed");
    let file = dir.write("broken.json", "{\"gravity\": 24,\n}\n");
    let out = pogo(["tuning".as_ref(), "--tuning".as_ref(), file.as_os_str()]);
    assert_bad_input(&out, &["broken.json", "invalid JSON", "line 2 column 1"]);
}

#[test]
fn other_bad_files_are_bad_input() {
    let dir = temp_dir("other");
    for (name, contents, needle) in [
        (
            "string.json",
            r#"{"gravity": "24"}"#,
            "`gravity` must be a number",
        ),
        (
            "twice.json",
            r#"{"gravity": 24, "gravity": 25}"#,
            "duplicate tuning key `gravity`",
        ),
        ("array.json", "[24]", "JSON object"),
        ("empty.json", "", "invalid JSON"),
    ] {
        let file = dir.write(name, contents);
        let out = pogo(["tuning".as_ref(), "--tuning".as_ref(), file.as_os_str()]);
        assert_bad_input(&out, &[name, needle]);
    }
    let big = dir.write(
        "big.json",
        " ".repeat(pogo::replay::TUNING_FILE_BYTES_MAX + 1),
    );
    let out = pogo(["tuning".as_ref(), "--tuning".as_ref(), big.as_os_str()]);
    assert_bad_input(&out, &["big.json", "limit"]);
    let binary = dir.write("binary.json", [0xff, 0xfe, 0x00]);
    let out = pogo(["tuning".as_ref(), "--tuning".as_ref(), binary.as_os_str()]);
    assert_bad_input(&out, &["binary.json", "UTF-8"]);
    let out = pogo([
        "tuning".as_ref(),
        "--tuning".as_ref(),
        dir.path().as_os_str(),
    ]);
    assert_bad_input(&out, &[&dir.path().display().to_string()]);
}

#[test]
fn usage_errors_exit_2() {
    for args in [&["tuning", "--bogus"][..], &["no-such-command"], &[]] {
        let out = pogo(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!stderr(&out).contains("panicked"));
    }
}

#[test]
fn json_output_round_trips_to_the_same_hash() {
    let dir = temp_dir("json");
    for sets in [
        &[][..],
        &["--set", "impact_transfer=0.1", "--set", "gravity=31.7"],
    ] {
        let mut args = vec!["tuning", "--json"];
        args.extend_from_slice(sets);
        let json = pogo(&args);
        assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
        let text = stdout(&json);
        assert!(text.trim_start().starts_with('{'), "{text}");
        let file = dir.write("resolved.json", &text);

        let mut args = vec!["tuning"];
        args.extend_from_slice(sets);
        let direct = pogo(&args);
        let again = pogo(["tuning".as_ref(), "--tuning".as_ref(), file.as_os_str()]);
        assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
        assert_eq!(hash(&again), hash(&direct));
        assert_eq!(stdout(&again), stdout(&direct));
    }
}

/// The value after `key=` in a `pogo levels` line.
fn level_field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split_whitespace()
        .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key}= in {line}"))
}

#[test]
fn levels_lists_the_builtin_levels() {
    let out = pogo(["levels"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for name in ["flat", "course", "sprawl"] {
        let line = lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} missing:\n{text}"));
        assert_hash_format(level_field(line, "hash"), line);
        for key in ["boxes", "ramps", "platforms", "checkpoints"] {
            level_field(line, key).parse::<usize>().unwrap();
        }
    }
    let sprawl = lines.iter().find(|l| l.starts_with("sprawl ")).unwrap();
    assert!(level_field(sprawl, "boxes").parse::<usize>().unwrap() >= 100_000);
    // Deterministic: the same bytes every run.
    assert_eq!(stdout(&pogo(["levels"])), text);
    // No arguments are taken.
    let out = pogo(["levels", "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr(&out).contains("panicked"));
}
