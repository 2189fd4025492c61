//! The worker's verification (`verdict::verify`: the verifier with an `on_tick` that records
//! splits only) gives the same verdicts, byte for byte, as loading the replay as a `Ghost` and
//! taking its splits — the way verdicts were made before — on the sample replays and on
//! forged ones: every reject kind and reason, the splits' JSON, the final hash, the finish.

mod support;

use pogo_core::Tuning;
use pogo_replay::{Ghost, Limits, Replay, Verifier};
use pogo_server::store::Verdict;
use pogo_server::verdict::{splits_json, verify};
use support::*;

/// The verdict as a `Ghost` gives it: the reference.
fn ghost_verdict(verifier: &Verifier, bytes: &[u8]) -> Verdict {
    match Ghost::load(bytes, verifier) {
        Ok(ghost) => {
            let verified = ghost.verified();
            if verified.finish.len() != 1 {
                return Verdict::Rejected {
                    kind: "not_single_player".into(),
                    reason: format!(
                        "a leaderboard run has exactly one player; this replay has {}",
                        verified.finish.len()
                    ),
                };
            }
            Verdict::Verified {
                ticks: verified.ticks,
                finish_tick: verified.finish[0],
                splits: splits_json(ghost.splits(0)),
                final_hash: verified.final_hash,
                realtime: false,
                realtime_note: None,
            }
        }
        Err(e) => Verdict::Rejected {
            kind: e.kind().into(),
            reason: e.to_string(),
        },
    }
}

fn sample(path: &str) -> Vec<u8> {
    std::fs::read(repo_file(path)).unwrap()
}

/// `bytes` decoded, changed by `edit`, encoded again (checksums recomputed: a forgery that
/// is well-formed).
fn forge(bytes: &[u8], edit: impl FnOnce(&mut Replay)) -> Vec<u8> {
    let mut replay = Replay::decode(bytes, Limits::default()).unwrap();
    edit(&mut replay);
    replay.encode()
}

/// Offset of the last input chunk's payload middle: a flipped byte there breaks its checksum.
fn inside_last_chunk(bytes: &[u8]) -> usize {
    // The trailer is the last frame and short; 40 bytes before the end is in the last inputs.
    bytes.len() - 40
}

fn flip(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at] ^= 0x5a;
    out
}

#[test]
fn the_light_verification_gives_the_ghosts_verdicts() {
    let verifier = verifier(Vec::new());
    let course = sample("samples/course-bot.pogo");
    let tampered = sample("samples/bad/tampered.pogo");
    let tuning_forged = forge(&course, |r| r.header.tuning_hash ^= 1);
    let mut cases: Vec<(String, Vec<u8>)> = vec![
        ("course-bot".into(), course.clone()),
        ("flat-script".into(), sample("samples/flat-script.pogo")),
        ("sprawl-bot".into(), sample("samples/sprawl-bot.pogo")),
        ("course-multi".into(), sample("samples/course-multi.pogo")),
        ("tampered".into(), tampered.clone()),
        ("truncated".into(), sample("samples/bad/truncated.pogo")),
        (
            "finish claimed a tick early".into(),
            forge(&course, |r| r.trailer.finish = vec![Some(3292)]),
        ),
        (
            "final hash".into(),
            forge(&course, |r| r.trailer.final_hash ^= 1),
        ),
        (
            "a stored hash".into(),
            forge(&course, |r| r.chunks[2].hashes[0] ^= 1),
        ),
        ("tuning".into(), tuning_forged.clone()),
        (
            "unknown level".into(),
            forge(&course, |r| r.header.level_name = "nowhere".into()),
        ),
        (
            "level hash".into(),
            forge(&course, |r| r.header.level_hash ^= 1),
        ),
        (
            "rules version".into(),
            forge(&course, |r| r.header.rules_version += 1),
        ),
        // Two problems: the first the stream meets is not the first a full decoding meets.
        (
            "desync, then a bad checksum".into(),
            flip(&tampered, inside_last_chunk(&tampered)),
        ),
        (
            "wrong tuning, then a bad checksum".into(),
            flip(&tuning_forged, inside_last_chunk(&tuning_forged)),
        ),
        ("empty".into(), Vec::new()),
        ("not a replay".into(), b"hello, verifier".to_vec()),
    ];
    for at in (0..course.len()).step_by(97) {
        cases.push((format!("byte {at} flipped"), flip(&course, at)));
    }
    for len in (0..course.len()).step_by(211) {
        cases.push((format!("cut at {len}"), course[..len].to_vec()));
    }
    let mut kinds = std::collections::BTreeSet::new();
    for (name, bytes) in &cases {
        let light = verify(&verifier, bytes);
        assert_eq!(light, ghost_verdict(&verifier, bytes), "{name}");
        kinds.insert(match &light {
            Verdict::Verified { .. } => "verified".to_string(),
            Verdict::Rejected { kind, .. } => kind.clone(),
        });
    }
    // The cases reach what they are meant to.
    for kind in [
        "verified",
        "not_single_player",
        "desync",
        "truncated",
        "checksum",
        "outcome_mismatch",
        "tuning_mismatch",
        "unknown_level",
        "level_mismatch",
        "rules_version",
        "bad_magic",
    ] {
        assert!(
            kinds.contains(kind),
            "no case rejected as {kind}: {kinds:?}"
        );
    }
    // The splits compared are not trivially empty: course-bot reaches its checkpoints.
    let Verdict::Verified {
        splits,
        finish_tick,
        ..
    } = verify(&verifier, &course)
    else {
        panic!("course-bot verifies");
    };
    assert_eq!(finish_tick, Some(3293));
    assert!(
        splits.contains("\"checkpoint\":0")
            && splits.ends_with("{\"checkpoint\":null,\"tick\":3293}]"),
        "{splits}"
    );
}

/// The budget is checked the same way: over it is `over_budget` in both.
#[test]
fn over_the_budget_is_the_same_verdict() {
    let limits = Limits {
        player_ticks_max: 1000,
        ..Limits::default()
    };
    let verifier = Verifier::with_builtin_levels(Tuning::default(), limits);
    let course = sample("samples/course-bot.pogo");
    let light = verify(&verifier, &course);
    assert_eq!(light, ghost_verdict(&verifier, &course));
    assert!(
        matches!(&light, Verdict::Rejected { kind, .. } if kind == "over_budget" || kind == "too_long"),
        "{light:?}"
    );
}
