//! The embedding story: `pogo = { default-features = false }` is the facade over `pogo-core`
//! and `pogo-replay` and nothing else; the command line and what only it needs (clap, rayon,
//! indicatif, plotters, …) come with the default `cli` feature.
//!
//! Checked with `cargo tree` on this workspace's lockfile, offline.

use std::process::Command;

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
