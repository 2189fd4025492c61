//! `pogo netplay` end to end: two real `pogo` processes playing one GGRS session over UDP on
//! loopback, under every fault profile of the faulty socket. Each run must end with
//!
//! - both peers exiting 0 and printing the same SIG lines,
//! - the final state hash the same run has without any network (player 0's bot and player
//!   1's seeded random player stepped in-process, tick by tick),
//! - byte-identical replays, which the library `Verifier` and `pogo verify` accept.
//!
//! Plus: junk datagrams from a stranger change nothing; two peers on different levels are
//! caught by GGRS's checksum exchange (exit 1); bad arguments exit 2.
//!
//! Bounded: each session plays [`TICKS`] ticks (4 s at 60 Hz) and a child still running after
//! [`PEER_TIMEOUT`] is killed. Ports: two free loopback ports are found by binding port 0, so
//! parallel tests (and other users of the machine) do not collide. Nothing leaves 127.0.0.1.

mod support;

use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pogo::core::world::World;
use pogo::core::{Simulation, Tuning};
use pogo::netplay::Player;
use pogo::replay::{Limits, Verifier, builtin_level};
use support::temp_dir;

/// Ticks each session plays: 4 s at 60 Hz.
const TICKS: u32 = 240;
/// A peer still running after this long is killed and the test fails (a session takes about
/// 5 s; synchronising is bounded by 10 s, the end by 5 s more).
const PEER_TIMEOUT: Duration = Duration::from_secs(60);
/// The random player's seed (player 1).
const RANDOM_SEED: u64 = 5;

/// A fault profile: extra `pogo netplay` flags for both peers.
struct Profile {
    name: &'static str,
    flags: &'static [&'static str],
}

/// One finished peer.
struct Peer {
    status: std::process::ExitStatus,
    stdout: String,
    stderr: String,
}

/// Two free UDP ports on loopback: bound to port 0, read back, released.
fn free_ports() -> (u16, u16) {
    let a = UdpSocket::bind("127.0.0.1:0").unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").unwrap();
    (
        a.local_addr().unwrap().port(),
        b.local_addr().unwrap().port(),
    )
}

fn spawn_peer(args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_pogo"))
        .arg("netplay")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for both children, killing both if either outlives [`PEER_TIMEOUT`].
fn wait_both(mut children: [Child; 2]) -> [Peer; 2] {
    let started = Instant::now();
    let mut done = [false, false];
    while !done.iter().all(|&d| d) {
        for (child, done) in children.iter_mut().zip(&mut done) {
            if !*done && child.try_wait().unwrap().is_some() {
                *done = true;
            }
        }
        if started.elapsed() > PEER_TIMEOUT {
            for child in &mut children {
                let _ = child.kill();
            }
            panic!("a netplay peer ran longer than {PEER_TIMEOUT:?}: killed both");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    children.map(|child| {
        let out = child.wait_with_output().unwrap();
        Peer {
            status: out.status,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    })
}

/// Runs the two peers of one session: player 0 the bot, player 1 a random player, each with
/// `flags` and recording into `dir`; `levels` per peer.
fn session(dir: &Path, flags: &[&str], levels: [&str; 2], seed: u64) -> ([Peer; 2], [PathBuf; 2]) {
    session_with(dir, flags, levels, seed, |_| {})
}

/// [`session`], calling `meanwhile` with the peers' ports once both are started.
fn session_with(
    dir: &Path,
    flags: &[&str],
    levels: [&str; 2],
    seed: u64,
    meanwhile: impl FnOnce([u16; 2]),
) -> ([Peer; 2], [PathBuf; 2]) {
    let (port0, port1) = free_ports();
    let records = [dir.join("p0.pogo"), dir.join("p1.pogo")];
    let peer = |player: usize, local: u16, remote: u16| {
        let mut args: Vec<String> = vec![
            "--local-port".into(),
            local.to_string(),
            "--remote".into(),
            format!("127.0.0.1:{remote}"),
            "--player".into(),
            player.to_string(),
            "--ticks".into(),
            TICKS.to_string(),
            "--level".into(),
            levels[player].into(),
            "--record".into(),
            records[player].display().to_string(),
            "--seed".into(),
            seed.to_string(),
        ];
        match player {
            0 => args.push("--bot".into()),
            _ => args.extend(["--random".into(), RANDOM_SEED.to_string()]),
        }
        args.extend(flags.iter().map(|f| f.to_string()));
        spawn_peer(&args)
    };
    let children = [peer(0, port0, port1), peer(1, port1, port0)];
    meanwhile([port0, port1]);
    (wait_both(children), records)
}

/// The final state hash of the same play without a network: the bot and the random player
/// stepped in one process.
fn expected_hash(level: &str) -> u64 {
    let tuning = Tuning::default();
    let world = World::new(builtin_level(level).unwrap(), &tuning).unwrap();
    let mut sim = Simulation::new(Arc::new(world), tuning, 2).unwrap();
    let mut players = [Player::bot(), Player::random(RANDOM_SEED)];
    for _ in 0..TICKS {
        let inputs = [players[0].input(&sim, 0), players[1].input(&sim, 1)];
        sim.step(&inputs);
    }
    sim.state_hash()
}

/// The `hash=` of a SIG line.
fn sig_hash(line: &str) -> u64 {
    let hex = line.rsplit("hash=").next().unwrap();
    u64::from_str_radix(hex.trim(), 16).unwrap_or_else(|_| panic!("no hash in {line:?}"))
}

/// The summary's `rollbacks=… (…/s) longest=… ticks` part, for the log.
fn rollback_summary(stderr: &str) -> &str {
    stderr
        .lines()
        .find_map(|l| l.split_once("; rollbacks=").map(|(_, rest)| rest))
        .unwrap_or("(no summary)")
}

fn check_profile(profile: &Profile, seed: u64) {
    check_profile_with(profile, seed, |_| {});
}

fn check_profile_with(profile: &Profile, seed: u64, meanwhile: impl FnOnce([u16; 2])) {
    let dir = temp_dir(&format!("netplay-{}", profile.name));
    eprintln!(
        "{}: --seed {seed} {}",
        profile.name,
        profile.flags.join(" ")
    );
    let (peers, records) = session_with(
        dir.path(),
        profile.flags,
        ["course", "course"],
        seed,
        meanwhile,
    );
    for (i, peer) in peers.iter().enumerate() {
        assert!(
            peer.status.success(),
            "{}: peer {i} failed ({}):\n{}",
            profile.name,
            peer.status,
            peer.stderr
        );
        eprintln!(
            "{} peer {i}: rollbacks={}",
            profile.name,
            rollback_summary(&peer.stderr)
        );
        // Every recorded tick was compared with the rollback simulation's saved state.
        assert!(
            peer.stderr
                .contains(&format!("record checked on {TICKS} ticks")),
            "{}: peer {i}: {}",
            profile.name,
            peer.stderr
        );
    }
    assert_eq!(
        peers[0].stdout, peers[1].stdout,
        "{}: the peers' SIG lines differ",
        profile.name
    );
    let lines: Vec<&str> = peers[0].stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}: {:?}", profile.name, peers[0].stdout);
    assert!(
        lines[0].starts_with(&format!("P0 SIG ticks={TICKS} ")),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with(&format!("P1 SIG ticks={TICKS} ")),
        "{lines:?}"
    );
    let expected = expected_hash("course");
    assert_eq!(
        sig_hash(lines[0]),
        expected,
        "{}: the session ended elsewhere than the same play without a network",
        profile.name
    );

    let bytes = [
        std::fs::read(&records[0]).unwrap(),
        std::fs::read(&records[1]).unwrap(),
    ];
    assert!(bytes[0] == bytes[1], "{}: the replays differ", profile.name);
    let verifier = Verifier::with_builtin_levels(Tuning::default(), Limits::default());
    let verified = verifier.verify(&bytes[0][..]).unwrap();
    assert_eq!((verified.ticks, verified.final_hash), (TICKS, expected));
    assert_eq!(verified.header.players, 2);
    assert_eq!(verified.header.player_name, None);
    let cli = Command::new(env!("CARGO_BIN_EXE_pogo"))
        .arg("verify")
        .args(&records)
        .output()
        .unwrap();
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stdout)
    );
}

const CLEAN: Profile = Profile {
    name: "clean",
    flags: &[],
};
const LOSS_5: Profile = Profile {
    name: "loss-5",
    flags: &["--loss", "5%"],
};
const LOSS_20: Profile = Profile {
    name: "loss-20",
    flags: &["--loss", "20%"],
};
const JITTER: Profile = Profile {
    name: "delay-30-120",
    flags: &["--delay-ms", "30..120"],
};
const DUPLICATE_REORDER: Profile = Profile {
    name: "duplicate-reorder",
    flags: &[
        "--duplicate",
        "20%",
        "--reorder",
        "20%",
        "--delay-ms",
        "5..20",
    ],
};
const EVERYTHING: Profile = Profile {
    name: "loss-20-delay-duplicate-reorder",
    flags: &[
        "--loss",
        "20%",
        "--delay-ms",
        "30..120",
        "--duplicate",
        "10%",
        "--reorder",
        "10%",
    ],
};

#[test]
fn netplay_on_a_clean_network() {
    check_profile(&CLEAN, 1);
}

#[test]
fn netplay_with_5_percent_loss() {
    check_profile(&LOSS_5, 2);
}

#[test]
fn netplay_with_20_percent_loss() {
    check_profile(&LOSS_20, 3);
}

#[test]
fn netplay_with_30_to_120_ms_delay() {
    check_profile(&JITTER, 4);
}

#[test]
fn netplay_with_duplication_and_reordering() {
    check_profile(&DUPLICATE_REORDER, 5);
}

#[test]
fn netplay_with_everything_at_once() {
    check_profile(&EVERYTHING, 6);
}

/// Datagrams from a stranger are hostile input: while a session runs, a third socket on
/// loopback sprays both peers with junk — random bytes, half of them with small values up
/// front (an enum tag and lengths bincode accepts, so decoding gets further) — for two
/// seconds. Both peers ignore it and finish as on a clean network.
#[test]
fn netplay_ignores_junk_from_a_stranger() {
    const JUNK: Profile = Profile {
        name: "junk",
        flags: &[],
    };
    let seed = 8;
    check_profile_with(&JUNK, seed, |ports| {
        let stranger = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut rng = pogo::netplay::SplitMix64::new(seed);
        let started = Instant::now();
        let mut sent = 0u32;
        while started.elapsed() < Duration::from_secs(2) {
            for port in ports {
                let len = rng.below(600) as usize;
                let mut junk: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                if rng.below(2) == 0 {
                    for b in junk.iter_mut().take(16) {
                        *b = rng.below(4) as u8;
                    }
                }
                let _ = stranger.send_to(&junk, ("127.0.0.1", port));
                sent += 1;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        eprintln!("junk: {sent} datagrams sent");
        assert!(sent > 100);
    });
}

/// Peers on different levels disagree from the first tick: GGRS's checksum exchange says so
/// and the session fails (exit 1) rather than recording two different games.
#[test]
fn netplay_catches_peers_that_disagree() {
    let dir = temp_dir("netplay-desync");
    let (peers, _) = session(dir.path(), &[], ["course", "flat"], 7);
    for (i, peer) in peers.iter().enumerate() {
        assert_eq!(peer.status.code(), Some(1), "peer {i}:\n{}", peer.stderr);
        assert!(peer.stdout.is_empty(), "peer {i} printed {:?}", peer.stdout);
    }
    assert!(
        peers.iter().any(|p| p.stderr.contains("desync at frame")),
        "{}\n{}",
        peers[0].stderr,
        peers[1].stderr
    );
}

#[test]
fn netplay_rejects_bad_arguments() {
    for (args, needle) in [
        (&["--player", "2"][..], "--player 2"),
        (&["--player", "0", "--loss", "1.5"][..], "--loss"),
        (
            &["--player", "0", "--delay-ms", "120..30"][..],
            "--delay-ms",
        ),
        (&["--player", "0", "--ticks", "0"][..], "--ticks 0"),
        (&["--player", "0", "--level", "nowhere"][..], "nowhere"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_pogo"))
            .args(["netplay", "--local-port", "0", "--remote", "127.0.0.1:9"])
            .args(args)
            .output()
            .unwrap();
        support::assert_bad_input(&out, &[needle]);
    }
}
