//! The embedding story: `pogo = { default-features = false }` is the facade over `pogo-core`
//! and `pogo-replay` and nothing else; the command line and what only it needs (clap, rayon,
//! indicatif, plotters, …) come with the default `cli` feature. And the dependency line
//! `docs/embedding.md` gives a game works: a crate of its own, outside this workspace, built
//! with it, plays the demo bot on `course` and prints the golden SIG line.
//!
//! Checked with `cargo tree` and `cargo run` on this workspace's lockfile, offline.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The direct normal dependencies of the `pogo` package, with `features` arguments.
fn direct_dependencies(features: &[&str]) -> Vec<String> {
    let mut args = vec![
        "tree",
        "-p",
        "pogo",
        "-e",
        "normal",
        "--depth",
        "1",
        "--prefix",
        "none",
        "--format",
        "{p}",
        "--offline",
        "--locked",
    ];
    args.extend_from_slice(features);
    let out = Command::new(env!("CARGO"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The first line is `pogo` itself; each further line `name vX.Y.Z …`.
    let mut names: Vec<String> = text
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn without_default_features_pogo_is_core_and_replay_only() {
    assert_eq!(
        direct_dependencies(&["--no-default-features"]),
        ["pogo-core", "pogo-replay"]
    );
    // The default build has the command line's dependencies: what the first check excludes.
    let cli = direct_dependencies(&[]);
    for name in [
        "clap",
        "indicatif",
        "plotters",
        "rayon",
        "serde_json",
        "pogo-core",
    ] {
        assert!(cli.iter().any(|n| n == name), "{name} missing from {cli:?}");
    }
}

/// The longest the scratch crate's build and run may take. With this workspace's target
/// directory already holding `pogo-core`, `pogo-replay` and their dependencies (the test
/// build has just compiled them) it compiles a handful of crates: seconds; from nothing, a
/// few minutes on a slow machine.
const SCRATCH_BUILD_MAX: Duration = Duration::from_secs(600);

/// The workspace's root: the `pogo` package.
fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The dependency line of `docs/embedding.md` that starts with `start`: there must be one.
fn documented_line(start: &str) -> String {
    let guide = std::fs::read_to_string(workspace_root().join("docs/embedding.md")).unwrap();
    let lines: Vec<&str> = guide.lines().filter(|l| l.starts_with(start)).collect();
    assert_eq!(
        lines.len(),
        1,
        "docs/embedding.md, lines starting {start:?}: {lines:?}"
    );
    assert!(
        lines[0].contains("default-features = false"),
        "{}",
        lines[0]
    );
    lines[0].to_string()
}

/// `line` with the quoted value of its `field` (a placeholder) replaced by `value`.
fn with_value(line: &str, field: &str, value: &str) -> String {
    let key = format!("{field} = \"");
    let start = line
        .find(&key)
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        + key.len();
    let end = start + line[start..].find('"').unwrap();
    assert!(!value.contains(['"', '\\']), "an unusual value: {value}");
    format!("{}{value}{}", &line[..start], &line[end..])
}

/// The final line of the golden `course-bot` run, as `pogo simulate --level course --bot`
/// prints it: `SIG ticks=… hash=…`.
fn golden_bot_signature() -> String {
    let golden = std::fs::read_to_string(workspace_root().join("tests/golden/hashes.txt")).unwrap();
    let end = golden
        .lines()
        .find_map(|l| l.strip_prefix("course-bot end P0 "))
        .unwrap();
    format!("SIG {end}")
}

/// `cargo run` of the crate at `manifest` (with `cargo_args` before `--manifest-path`),
/// building into `target`; its stdout, or a panic with its stderr. Stopped (and failed) after
/// [`SCRATCH_BUILD_MAX`].
fn cargo_run(cargo_args: &[&str], manifest: &Path, target: &Path, logs: &Path) -> String {
    let (stdout, stderr) = (logs.join("stdout"), logs.join("stderr"));
    let mut child = Command::new(env!("CARGO"))
        .args(["run", "--quiet"])
        .args(cargo_args)
        .arg("--manifest-path")
        .arg(manifest)
        .env("CARGO_TARGET_DIR", target)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > SCRATCH_BUILD_MAX {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("cargo run took over {SCRATCH_BUILD_MAX:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let read = |path: &PathBuf| std::fs::read_to_string(path).unwrap();
    assert!(status.success(), "cargo run: {status}\n{}", read(&stderr));
    eprintln!(
        "the scratch crate built and ran in {:.1?}",
        started.elapsed()
    );
    read(&stdout)
}

/// Writes a game's crate into a scratch directory outside this workspace — `[dependencies]`
/// the one `dependency` line, `Cargo.lock` this workspace's (so the same versions of
/// everything), `main` `examples/simulate.rs` — runs it with `cargo_args`, building into this
/// workspace's target directory (so it compiles little), and checks that it prints the golden
/// SIG line of the demo bot on `course`.
fn check_game_crate(dependency: &str, cargo_args: &[&str]) {
    let scratch = tempfile::Builder::new()
        .prefix("pogo-embedding-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    // `[workspace]`: the crate is a workspace of its own, whatever directory it is in.
    let manifest = format!(
        "[package]\nname = \"pogo-embedding-check\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[dependencies]\n{dependency}\n\n[workspace]\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::create_dir(dir.join("src")).unwrap();
    std::fs::copy(
        workspace_root().join("examples/simulate.rs"),
        dir.join("src/main.rs"),
    )
    .unwrap();
    // The target directory this test was built in: `CARGO_TARGET_TMPDIR` is its `tmp`.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    let out = cargo_run(cargo_args, &dir.join("Cargo.toml"), target, dir);
    assert_eq!(out.trim_end(), golden_bot_signature());
}

/// The documented `path` line, its placeholder path replaced by this checkout's, builds a
/// game's crate offline.
#[test]
fn a_crate_outside_the_workspace_builds_with_the_documented_path_line() {
    let line = documented_line("pogo = { path = ");
    let root = workspace_root().to_str().unwrap();
    check_game_crate(&with_value(&line, "path", root), &["--offline"]);
}

/// The documented `git` line, its placeholder URL replaced by this checkout's (`file://`) and
/// its `rev` by the commit checked out, builds a game's crate. Ignored by default: it tests
/// the last commit, not the working tree, needs the checkout to be a git repository, and
/// Cargo clones it into its home (`~/.cargo/git`), outside the workspace. Run it with
/// `cargo test -p pogo --test embedding -- --ignored`.
#[test]
#[ignore = "clones this checkout into ~/.cargo/git; tests HEAD, not the working tree"]
fn a_crate_outside_the_workspace_builds_with_the_documented_git_line() {
    let line = documented_line("pogo = { git = ");
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(workspace_root())
        .output()
        .unwrap();
    assert!(head.status.success(), "git rev-parse HEAD failed");
    let rev = String::from_utf8(head.stdout).unwrap();
    let url = format!("file://{}", workspace_root().to_str().unwrap());
    let line = with_value(&with_value(&line, "git", &url), "rev", rev.trim());
    // Not offline: Cargo fetches a git dependency (here from the local checkout) only online.
    check_game_crate(&line, &[]);
}
