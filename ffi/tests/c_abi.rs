//! The C ABI from C: `tests/c/abi_test.c` is compiled with the system `cc` against
//! `include/pogo.h` and the staticlib cargo built for this test, run, and its output compared
//! with what the Rust side computes in the same run — never with hard-coded values:
//!
//! - the golden runs must print `tests/golden/hashes.txt` exactly (read now);
//! - the SIG line must be what `pogo simulate --level course --bot` prints;
//! - the driver run's hash must be the one `pogo_core::driver::Driver` gives the same script;
//! - the replays it records must pass `pogo verify`, and decoded through the ABI and
//!   re-simulated from their inputs end on the golden run's hash and finish tick;
//! - every error check must pass, and no object or block may be left alive.
//!
//! The same program then runs under valgrind (`--leak-check=full --error-exitcode=1`): no
//! leak, no invalid read or write. With `CI` set valgrind is required (CI installs it);
//! without, a machine lacking it skips that run and says so; `POGO_SKIP_VALGRIND=1` skips it
//! explicitly.
//!
//! The `pogo` binary: `POGO_BIN` if set, else `target/<profile>/pogo` next to this test's
//! profile, built with `cargo build -p pogo --bin pogo` if it is not there.

mod support;

use std::process::Command;
use std::sync::{Arc, OnceLock};

use pogo_core::driver::Driver;
use pogo_core::world::World;
use pogo_core::{Buttons, Input, Simulation, Tuning};
use pogo_replay::builtin_level;

use support::{Built, build_c, pogo, repo_root, run, scratch_dir, section};

/// The driver script of `abi_test.c`: (ns, steer x, steer z, buttons), player 0.
const SCRIPT: &[(u64, i8, i8, u8)] = &[
    (0, 0, 0, 0),
    (500_000_000, 100, 0, 0),
    (1_234_567_891, 60, -30, Buttons::DIVE.0),
    (2_000_000_000, 60, -30, Buttons::TRICK.0),
    (2_016_666_667, -20, 90, 0),
    (4_999_999_999, 127, 127, 0),
    (7_250_000_000, 0, -127, Buttons::DIVE.0),
];

/// The script's final hash after 10 s on `course`, through the core driver, one frame per
/// tick.
fn driver_hash() -> u64 {
    let tuning = Tuning::default();
    let world = World::new(builtin_level("course").unwrap(), &tuning).unwrap();
    let mut sim = Simulation::new(Arc::new(world), tuning, 1).unwrap();
    let mut driver = Driver::new(60, 1).unwrap();
    for &(at, steer_x, steer_z, buttons) in SCRIPT {
        let input = Input {
            steer_x,
            steer_z,
            buttons: Buttons(buttons),
        };
        driver.push_event(at, 0, input).unwrap();
    }
    for tick in 1..=600u64 {
        let now = (tick * 1_000_000_000).div_ceil(60);
        driver.advance_to(now, |_, inputs| sim.step(inputs));
    }
    assert_eq!(sim.state().tick.0, 600);
    sim.state_hash()
}

/// `abi_test.c`, compiled once for both tests.
fn abi_test() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| build_c("abi_test", &[repo_root().join("ffi/tests/c/abi_test.c")]))
}

#[test]
fn the_c_program_reproduces_the_rust_results() {
    let program = abi_test();
    let dir = scratch_dir("c-abi");
    let out = run(program, &[dir.path()], false);

    let golden = std::fs::read_to_string(repo_root().join("tests/golden/hashes.txt")).unwrap();
    let printed = section(&out, "golden");
    for (line, (c, rust)) in printed.lines().zip(golden.lines()).enumerate() {
        assert_eq!(c, rust, "golden run differs at line {}", line + 1);
    }
    assert_eq!(
        printed.lines().count(),
        golden.lines().count(),
        "golden line count"
    );

    let cli = pogo(&["simulate", "--level", "course", "--bot"]);
    assert!(cli.status.success(), "{cli:?}");
    let cli_sig = String::from_utf8(cli.stdout).unwrap();
    assert_eq!(section(&out, "sig").trim(), cli_sig.trim(), "SIG line");

    assert_eq!(
        section(&out, "driver").trim(),
        format!("driver hash={:016x}", driver_hash())
    );

    assert!(
        section(&out, "rollback").starts_with("rollback ok: 300 ticks"),
        "{out}"
    );

    // The ABI's verdict on its own recording names the golden run's end.
    let end = golden
        .lines()
        .find(|l| l.starts_with("course-bot end P0 "))
        .unwrap();
    let field = |line: &str, key: &str| {
        line.split(' ')
            .find_map(|w| w.strip_prefix(key).map(str::to_string))
            .unwrap()
    };
    let verify = section(&out, "verify");
    let verified = verify.lines().next().unwrap();
    assert_eq!(
        field(verified, "ticks="),
        field(end, "ticks="),
        "{verified}"
    );
    assert_eq!(
        field(verified, "finish="),
        field(end, "finish="),
        "{verified}"
    );
    assert_eq!(field(verified, "hash="), field(end, "hash="), "{verified}");
    // Decoded and re-simulated from its inputs: the same end.
    let replayed = verify
        .lines()
        .find(|l| l.starts_with("replayed: "))
        .unwrap_or_else(|| panic!("no replayed line: {verify}"));
    for key in ["ticks=", "finish=", "hash="] {
        assert_eq!(field(replayed, key), field(end, key), "{replayed}");
    }
    // And from one array of every tick's inputs through pogo_sim_step_many: the same end,
    // also when stopped at every checkpoint.
    let batched = verify
        .lines()
        .find(|l| l.starts_with("batched: "))
        .unwrap_or_else(|| panic!("no batched line: {verify}"));
    for key in ["ticks=", "finish=", "hash="] {
        assert_eq!(field(batched, key), field(end, key), "{batched}");
    }
    assert_ne!(field(batched, "stops="), "0", "{batched}");
    assert!(verify.contains("tampered: "), "{verify}");
    assert!(!verify.contains("tampered: verified"), "{verify}");

    assert!(section(&out, "errors").starts_with("errors ok: "), "{out}");
    assert_eq!(
        section(&out, "handles").trim(),
        "0 0",
        "objects or blocks left alive"
    );

    // Both recordings (one stepped by hand, one through the driver) pass `pogo verify`.
    let files = [
        dir.path().join("course-bot.pogo"),
        dir.path().join("driver.pogo"),
    ];
    let verified = pogo(&[
        "verify".as_ref(),
        files[0].as_os_str(),
        files[1].as_os_str(),
    ]);
    let report = String::from_utf8_lossy(&verified.stdout).into_owned();
    assert!(
        verified.status.success(),
        "pogo verify: {report} {verified:?}"
    );
    assert_eq!(
        report.lines().filter(|l| l.contains("OK")).count(),
        2,
        "{report}"
    );
}

#[test]
fn the_c_program_is_clean_under_valgrind() {
    if std::env::var_os("POGO_SKIP_VALGRIND").is_some() {
        eprintln!("POGO_SKIP_VALGRIND is set: valgrind run skipped");
        return;
    }
    let found = Command::new("valgrind").arg("--version").output();
    if !found.is_ok_and(|o| o.status.success()) {
        // As the server's PostgreSQL tests: CI (CI=true) must run it; elsewhere `cargo test
        // --workspace` stays green on a machine without valgrind, and says what it skipped.
        assert!(
            std::env::var_os("CI").is_none(),
            "valgrind is required in CI (apt-get install valgrind); .ci/run installs it"
        );
        eprintln!("valgrind not found: the valgrind run is skipped (apt-get install valgrind)");
        return;
    }
    let program = abi_test();
    let dir = scratch_dir("c-abi-valgrind");
    let out = run(program, &[dir.path()], true);
    // The same results as without valgrind.
    assert!(section(&out, "errors").starts_with("errors ok: "), "{out}");
    assert_eq!(section(&out, "handles").trim(), "0 0");
}

/// The C example a game developer copies (`examples/c/fixed_step.c`): it builds against the
/// header, runs its real-time loop for 1.5 s, ends on exactly 90 ticks (the driver counts
/// time exactly) and writes a replay `pogo verify` accepts.
#[test]
fn the_fixed_step_example_runs_and_its_replay_verifies() {
    let example = build_c(
        "fixed_step",
        &[repo_root().join("ffi/examples/c/fixed_step.c")],
    );
    let dir = scratch_dir("fixed-step");
    let replay = dir.path().join("fixed_step.pogo");
    let out = Command::new(&example.path)
        .arg("1.5")
        .arg(&replay)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let done = stdout.lines().last().unwrap();
    assert!(
        done.starts_with("done: ") && done.contains(", 90 ticks,"),
        "{done}"
    );
    let verified = pogo(&["verify".as_ref(), replay.as_os_str()]);
    assert!(verified.status.success(), "{verified:?}");
}
