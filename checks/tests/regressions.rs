//! Every crash the fuzzers found, replayed on stable as an ordinary test, with what went wrong.
//!
//! The inputs are the files of `fuzz/regressions/<target>/<name>` (libFuzzer's bytes, decoded
//! as the fuzz target decodes them); each test runs the target's check, which panicked on that
//! input before the fix. `corpora.rs` replays the whole directory as well, so a file added
//! without a test here is still replayed.

use std::path::Path;

#[track_caller]
fn replay(target: &str, name: &str) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(target)
        .join(name);
    let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let target = pogo_checks::target(target).expect("a known fuzz target");
    // Some(true): decoded and checked; a skipped input (invalid level or tuning) or one that
    // no longer decodes would prove nothing.
    assert_eq!(
        (target.run)(&bytes),
        Some(true),
        "{} no longer decodes into an input the check runs on",
        file.display()
    );
}

/// `Vec3::clamp_length` scaled a vector by its length as an `Fx`, which saturates at
/// `Fx::MAX` (2³¹). A vector longer than that — components at the ends of the range, here the
/// launch of a landing with a huge non-unit normal — was scaled by too small a length and came
/// out up to √3 times longer than the cap: a launch velocity of 27.86 m/s relative to the
/// surface with `max_total_speed` 26. Fixed in `core/src/vec3.rs`: the length is kept
/// unsaturated (in `u128`) for the comparison and the division.
#[test]
fn clamp_length_of_saturated_vector() {
    replay("contact_evaluator", "clamp_length_of_saturated_vector");
}

/// `sweep_plane` checked a ramp's bounds only at the point where the capsule stops, `SKIN`
/// short of the plane. On a grazing approach (here 3 m across and 0.15 m down in one step)
/// that point lies `|d|·SKIN/|n·d|` before the point where the path crosses the plane: the
/// capsule stopped 1 mm beside the ramp's edge, so no touch was reported, and the whole move
/// carried it across the plane inside the bounds, ending 5 cm under the ramp's surface. Fixed
/// in `core/src/sweep.rs`: a touch counts if either point lies within the bounds. (Found by
/// the oracle when checking a hand-made scenario; written here as the fuzzer's input bytes.)
#[test]
fn ramp_entered_beside_its_bounds() {
    replay("contact_geometry", "ramp_entered_beside_its_bounds");
}

/// A pogo spawned standing on the ground inside a kill volume landed on its first tick
/// (compression begins) and was killed in the same tick's volume stage: the kill set the
/// state to `Respawn` but left the compression in place, so a `Respawn` pogo carried a
/// compression into the state (and its hash) until the next tick's respawn cleared it — the
/// finish branch already cleared it. Fixed in `core/src/step.rs` (`volumes`): a kill clears
/// the compression too. No golden hash changed.
#[test]
fn killed_while_landing_kept_compression() {
    replay("tick", "killed_while_landing_kept_compression");
}

/// `Vec3::clamp_to_cone` rotates a direction outside the launch cone back onto it along its
/// tangential part (its rejection from the axis, normalised). A direction pointing almost
/// exactly against a tilted normal — here a landing whose saturated velocity made the
/// weighted direction antiparallel to the unit normal −(1, 1, 1)/√3 — has a rejection that
/// is only rounding noise, and that noise pointed along the axis: normalised, it became a
/// "tangent" equal to −normal, and the launch direction came out 0.707 long and opposite the
/// normal (135° outside a 75° cone). Fixed in `core/src/vec3.rs`: a tangent that does not
/// survive re-orthogonalisation (|t|² < ½) is replaced by the fixed perpendicular, as an
/// exactly vanishing one already was.
#[test]
fn cone_clamp_of_opposite_direction() {
    replay("contact_evaluator", "cone_clamp_of_opposite_direction");
}

fn regression_bytes(target: &str, name: &str) -> Vec<u8> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(target)
        .join(name);
    std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// `ReplayReader` probes for bytes after the trailer with a single `read`, and reported an
/// `Interrupted` error from it as `ReplayError::Io` — where every other read goes through
/// `read_exact`, which retries it, as `Read`'s contract asks. A valid replay read from a pipe
/// or socket that a signal interrupted at that moment failed to verify. Found by the
/// streaming oracle (a reader that hands out a few bytes at a time and is interrupted every
/// third call) on the first seed. Fixed in `replay/src/reader.rs`: the probe retries
/// `Interrupted`.
#[test]
fn trailer_probe_interrupted() {
    replay("replay_decode", "trailer_probe_interrupted");
}

/// `salvage` counted the preamble and header as dropped when no whole input chunk followed
/// them: `dropped_bytes` was the whole input although the salvaged replay keeps the header
/// (here 72 bytes of header, 72 "dropped"). Fixed in `replay/src/salvage.rs`: the kept bytes
/// start at the end of the header.
#[test]
fn salvage_of_a_bare_header() {
    replay("replay_decode", "salvage_of_a_bare_header");
    let bytes = regression_bytes("replay_decode", "salvage_of_a_bare_header");
    let v = pogo_checks::replay_decode::verifier();
    let salvaged = pogo_replay::salvage(&bytes, v).unwrap();
    assert!(salvaged.replay.chunks.is_empty());
    assert_eq!(salvaged.dropped_bytes, 0);
}

/// FORMAT.md: "every input chunk but the last holds exactly `chunk_ticks`", but the reader
/// only checked `ticks ≤ chunk_ticks`, so it accepted a short chunk followed by more input —
/// here a 600-tick recording whose header's `chunk_ticks` was changed from 300 to 302 (the
/// check re-frames the bytes, so the checksums match): two chunks of 300, the first short.
/// Such files decode and verify, and the same inputs then have many encodings. Fixed in
/// `replay/src/format.rs` (`InputChunk::check`): an input chunk must start at a multiple of
/// `chunk_ticks`, i.e. where a full chunk ended.
#[test]
fn short_input_chunk_before_another() {
    replay("replay_decode", "short_input_chunk_before_another");
    let bytes = regression_bytes("replay_decode", "short_input_chunk_before_another");
    let fixed = pogo_checks::replay_decode::reframe(&bytes).unwrap();
    let mut reader =
        pogo_replay::ReplayReader::open(&fixed[..], pogo_replay::Limits::default()).unwrap();
    assert_eq!(reader.header().chunk_ticks, 302);
    assert!(matches!(
        reader.next_chunk(),
        Ok(Some(pogo_replay::Chunk::Inputs(c))) if c.ticks == 300
    ));
    assert!(matches!(
        reader.next_chunk(),
        Err(pogo_replay::ReplayError::Malformed {
            what: "input chunk after one shorter than chunk_ticks",
            ..
        })
    ));
}
