//! `replay_decode`: arbitrary bytes through every reader of replays — the whole-file decoder
//! (`Replay::decode`), the streaming reader (`ReplayReader`), the verifier and salvage.
//!
//! The input is the bytes themselves (no `Arbitrary` structure): the seeds are real
//! recordings (see [`seeds`]), and libFuzzer mutates them. Every input is checked twice: as
//! given, and **re-framed** ([`reframe`]): every chunk's check recomputed, and a trailer's
//! file check too, so that a mutation inside a payload reaches the payload's decoder, its
//! canonical-form check, the format's rules and the re-simulation instead of stopping at a
//! checksum.
//!
//! Oracles, for both versions of the bytes:
//! - no panic, no overflow (fuzz builds keep debug assertions), and bounded memory: the fuzz
//!   target runs with `-rss_limit_mb=256 -malloc_limit_mb=64` (`scripts/fuzz.sh`), and here a
//!   decoded replay's payloads must each fit their kind's limit, its ticks the reader's limit;
//! - **determinism**: decoding, streaming and verifying the same bytes twice agree;
//! - **streaming = whole-file**: `ReplayReader` over a reader that hands out a few bytes at a
//!   time and is interrupted now and then gives the chunks (or the error) of `Replay::decode`,
//!   its offset advancing by exactly each chunk's framed, canonical size;
//! - **canonical form**: a decoded replay re-encodes to exactly the input bytes; one byte less
//!   is `Truncated`, one byte more `TrailingBytes`; every error offset lies within the input;
//! - **verify agrees with decode** (under the verifier's own limits): a `ReplayError` from
//!   one is exactly the `ReplayError` of the other, a decode error makes verify fail, and a
//!   verified replay is the decoded one (header, ticks, claimed finish and final hash), whose
//!   `on_tick` ran once per tick;
//! - **salvage**: fails only as the verifier does (same header error, mismatch or desync);
//!   keeps exactly the whole chunks before the first error (the salvaged bytes start with the
//!   input's bytes up to its trailer, the rest was dropped), stopping on decode's error; its
//!   replay decodes and verifies; and a replay that verifies salvages to itself.

use std::io::{self, Read};
use std::sync::{Arc, OnceLock};

use pogo_core::bot::Bot;
use pogo_core::world::World;
use pogo_core::{Input as TickInput, Simulation, Tuning};
use pogo_replay::format::{
    CHUNK_OVERHEAD_BYTES, HASH_INTERVAL_SECONDS_MAX, HEADER_BYTES_MAX, INPUT_CHUNK_BYTES_MAX,
    KIND_HEADER, KIND_INPUTS, KIND_TRAILER, PREAMBLE_BYTES, TRAILER_BYTES_MAX,
};
use pogo_replay::{
    Chunk, Header, Limits, Recorder, Replay, ReplayError, ReplayReader, SalvageError, Trailer,
    Verifier, VerifyError, builtin_level, salvage,
};
use xxhash_rust::xxh3::xxh3_64;

/// The verifier's tick limit: small, so that a replay claiming hours of play costs at most
/// this many simulated ticks.
pub const MAX_TICKS: u32 = 20_000;

/// The verifier all checks share (its worlds are built once, on first use).
pub fn verifier() -> &'static Verifier {
    static VERIFIER: OnceLock<Verifier> = OnceLock::new();
    VERIFIER.get_or_init(|| Verifier::with_builtin_levels(Tuning::default(), small_limits()))
}

/// The limits all checks share: few ticks, and the format's longest hash interval, so that
/// every interval a well-formed replay may have reaches the simulation.
fn small_limits() -> Limits {
    Limits {
        ticks_max: MAX_TICKS,
        player_ticks_max: u64::from(MAX_TICKS),
        hash_interval_s_max: HASH_INTERVAL_SECONDS_MAX,
        ..Limits::default()
    }
}

/// Runs every oracle on `bytes` and on their re-framed version. Always `true`: every input is
/// worth keeping.
pub fn check(bytes: &[u8]) -> bool {
    check_bytes(bytes);
    if let Some(fixed) = reframe(bytes) {
        if fixed != bytes {
            check_bytes(&fixed);
        }
    }
    true
}

/// `bytes` with every whole chunk's check recomputed, and the file check of a trailer whose
/// payload decodes canonically set to the bytes before it; `None` if there is no preamble.
/// Framing is followed as a reader would (kind, length within its limit); what cannot be
/// framed is left as it is.
pub fn reframe(bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.len() < PREAMBLE_BYTES {
        return None;
    }
    let mut out = bytes[..PREAMBLE_BYTES].to_vec();
    let mut pos = PREAMBLE_BYTES;
    loop {
        let rest = &bytes[pos..];
        if rest.len() < 5 {
            break;
        }
        let kind = rest[0];
        let length = u32::from_le_bytes([rest[1], rest[2], rest[3], rest[4]]);
        let max = match kind {
            KIND_HEADER => HEADER_BYTES_MAX,
            KIND_INPUTS => INPUT_CHUNK_BYTES_MAX,
            KIND_TRAILER => TRAILER_BYTES_MAX,
            _ => break,
        };
        let length = length as usize;
        if length > max as usize || rest.len() < CHUNK_OVERHEAD_BYTES + length {
            break;
        }
        let mut payload = rest[5..5 + length].to_vec();
        if kind == KIND_TRAILER {
            if let Ok(mut trailer) = postcard::from_bytes::<Trailer>(&payload) {
                if postcard::to_allocvec(&trailer).ok().as_deref() == Some(&payload[..]) {
                    trailer.file_check = xxh3_64(&out);
                    payload = postcard::to_allocvec(&trailer).unwrap_or(payload);
                }
            }
        }
        let start = out.len();
        out.push(kind);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&payload);
        let check = xxh3_64(&out[start..]);
        out.extend_from_slice(&check.to_le_bytes());
        pos += CHUNK_OVERHEAD_BYTES + length;
    }
    out.extend_from_slice(&bytes[pos..]);
    Some(out)
}

/// A `Read` that hands out 1, 2, … 7 bytes per call, in turn, and fails every third call
/// with `Interrupted` (which `Read`'s contract says to retry).
struct Trickle<'a> {
    bytes: &'a [u8],
    calls: usize,
}

impl<'a> Trickle<'a> {
    fn new(bytes: &'a [u8]) -> Trickle<'a> {
        Trickle { bytes, calls: 0 }
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.calls % 3 == 0 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.calls % 7 + 1).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// The encoded length of a payload.
fn payload_len<T: serde::Serialize>(value: &T) -> usize {
    postcard::to_allocvec(value).map_or(usize::MAX, |v| v.len())
}

/// Streams `bytes` through `ReplayReader` (over [`Trickle`]), checking each step's offset.
fn stream(bytes: &[u8], limits: Limits) -> Result<Replay, ReplayError> {
    let mut reader = ReplayReader::open(Trickle::new(bytes), limits)?;
    let header = reader.header().clone();
    let mut offset = reader.offset();
    assert_eq!(
        offset,
        (PREAMBLE_BYTES + CHUNK_OVERHEAD_BYTES + payload_len(&header)) as u64,
        "stream: the header's offset is not its framed, canonical size"
    );
    let mut chunks = Vec::new();
    loop {
        let chunk = reader.next_chunk()?;
        let size = match &chunk {
            Some(Chunk::Inputs(chunk)) => payload_len(chunk),
            Some(Chunk::Trailer(trailer)) => payload_len(trailer),
            None => panic!("stream: next_chunk gave None before the trailer"),
        };
        assert_eq!(
            reader.offset(),
            offset + (CHUNK_OVERHEAD_BYTES + size) as u64,
            "stream: the offset did not advance by the chunk's framed, canonical size"
        );
        offset = reader.offset();
        match chunk {
            Some(Chunk::Inputs(chunk)) => {
                chunks.push(chunk);
                let ticks: u64 = chunks.iter().map(|c| u64::from(c.ticks)).sum();
                assert_eq!(
                    u64::from(reader.ticks_read()),
                    ticks,
                    "stream: ticks_read is not the sum of the chunks' ticks"
                );
            }
            Some(Chunk::Trailer(trailer)) => {
                assert_eq!(
                    reader.next_chunk(),
                    Ok(None),
                    "stream: a chunk after the trailer"
                );
                return Ok(Replay {
                    header,
                    chunks,
                    trailer,
                });
            }
            None => unreachable!(),
        }
    }
}

/// Every byte offset an error names.
fn error_offset(e: &ReplayError) -> Option<u64> {
    match *e {
        ReplayError::Truncated { offset }
        | ReplayError::UnexpectedChunk { offset, .. }
        | ReplayError::ChunkTooLarge { offset, .. }
        | ReplayError::ChunkChecksum { offset, .. }
        | ReplayError::Malformed { offset, .. }
        | ReplayError::TrailingBytes { offset } => Some(offset),
        _ => None,
    }
}

/// The rules of the format, re-checked on a decoded replay, and the memory it may take.
fn check_decoded(replay: &Replay, limits: Limits) {
    let h = &replay.header;
    assert!(
        payload_len(h) <= HEADER_BYTES_MAX as usize,
        "decode: header payload over its limit"
    );
    assert!(
        payload_len(&replay.trailer) <= TRAILER_BYTES_MAX as usize,
        "decode: trailer payload over its limit"
    );
    assert!(
        (1..=16).contains(&h.players),
        "decode: player count {}",
        h.players
    );
    assert!(
        (1..=600).contains(&h.chunk_ticks)
            && h.hash_interval >= 1
            && u64::from(h.hash_interval)
                <= u64::from(HASH_INTERVAL_SECONDS_MAX) * u64::from(h.tick_rate),
        "decode: header ranges"
    );
    assert!(
        replay.trailer.ticks <= limits.ticks_max,
        "decode: more ticks than the limit"
    );
    let players = usize::from(h.players);
    let mut next = 0u32;
    for (i, chunk) in replay.chunks.iter().enumerate() {
        assert!(
            payload_len(chunk) <= INPUT_CHUNK_BYTES_MAX as usize,
            "decode: input chunk {i} payload over its limit"
        );
        assert_eq!(chunk.first_tick, next, "decode: chunk {i} not contiguous");
        assert!(
            chunk.ticks >= 1 && chunk.ticks <= h.chunk_ticks,
            "decode: chunk {i} tick count"
        );
        assert!(
            i + 1 == replay.chunks.len() || chunk.ticks == h.chunk_ticks,
            "decode: chunk {i} of {} ticks is not the last, but holds fewer than chunk_ticks {}",
            chunk.ticks,
            h.chunk_ticks
        );
        assert_eq!(chunk.runs.len(), players, "decode: chunk {i} player lists");
        for runs in &chunk.runs {
            let total: u64 = runs.iter().map(|r| u64::from(r.length)).sum();
            assert_eq!(
                total,
                u64::from(chunk.ticks),
                "decode: chunk {i} run lengths"
            );
            for run in runs {
                assert!(
                    run.length >= 1 && run.input() == run.input().normalized(),
                    "decode: chunk {i} has a run that is empty or not canonical: {run:?}"
                );
            }
        }
        let hashed = (chunk.first_tick..chunk.first_tick + chunk.ticks)
            .filter(|t| (u64::from(*t) + 1) % u64::from(h.hash_interval) == 0)
            .count();
        assert_eq!(chunk.hashes.len(), hashed, "decode: chunk {i} hash count");
        next = chunk.first_tick + chunk.ticks;
    }
    assert_eq!(replay.trailer.ticks, next, "decode: trailer ticks");
    assert_eq!(
        replay.trailer.finish.len(),
        players,
        "decode: trailer finish"
    );
    assert!(
        replay.trailer.finish.iter().flatten().all(|&t| t < next),
        "decode: finish tick beyond the end"
    );
    let inputs = replay.inputs();
    assert_eq!(
        inputs.len(),
        next as usize,
        "decode: inputs() length is not the tick count"
    );
    assert!(
        inputs.iter().all(|tick| tick.len() == players),
        "decode: inputs() row is not one input per player"
    );
}

/// The default limits but the format's longest hash interval: what `small_limits` differs
/// from in its tick caps only.
fn large_limits() -> Limits {
    Limits {
        hash_interval_s_max: HASH_INTERVAL_SECONDS_MAX,
        ..Limits::default()
    }
}

fn check_bytes(bytes: &[u8]) {
    let small = check_decoding(bytes);
    let v = verifier();
    let verified = check_verifying(bytes, v, &small);
    check_salvaging(bytes, v, &small, &verified);
}

/// Decoding `bytes` under each limit, twice, streaming and whole: the same answers, errors
/// within the input, a canonical encoding. The decode under the small limits, for the rest.
fn check_decoding(bytes: &[u8]) -> Result<Replay, ReplayError> {
    let len = bytes.len() as u64;
    let decoded = Replay::decode(bytes, large_limits());
    assert_eq!(
        Replay::decode(bytes, large_limits()),
        decoded,
        "determinism: decoding twice differs"
    );
    // The default limits ask for a hash every second: the same result, or that refusal.
    let default = Replay::decode(bytes, Limits::default());
    assert!(
        default == decoded || matches!(default, Err(ReplayError::SparseHashes { .. })),
        "limits: {default:?} under the default limits, {decoded:?} with 10-second hashes"
    );
    let small = Replay::decode(bytes, small_limits());
    assert_eq!(
        stream(bytes, small_limits()),
        small,
        "stream: ReplayReader differs from Replay::decode"
    );
    for result in [&decoded, &small] {
        if let Err(e) = result {
            assert!(
                !matches!(e, ReplayError::Io { .. }),
                "decode: an I/O error from a slice: {e:?}"
            );
            if let Some(offset) = error_offset(e) {
                assert!(
                    offset <= len,
                    "decode: error offset beyond the input: {e:?}"
                );
            }
        }
    }
    // The small limit changes nothing but the tick cap.
    match (&decoded, &small) {
        (Ok(replay), Ok(small)) => assert_eq!(replay, small, "decode: limits changed the replay"),
        (Ok(replay), Err(e)) => assert!(
            replay.ticks() > MAX_TICKS
                && *e
                    == ReplayError::TooLong {
                        ticks_max: MAX_TICKS
                    },
            "decode: fails under the small limit with {e:?}, passes under the default"
        ),
        (Err(e), Err(small)) => assert!(
            small == e
                || *small
                    == (ReplayError::TooLong {
                        ticks_max: MAX_TICKS
                    }),
            "decode: {e:?} under the default limit, {small:?} under the small one"
        ),
        (Err(e), Ok(_)) => panic!("decode: fails under the default limit ({e:?}) only"),
    }
    if let Ok(replay) = &decoded {
        check_decoded(replay, large_limits());
        assert_eq!(
            replay.encode(),
            bytes,
            "canonical: a decoded replay does not re-encode to its bytes"
        );
        assert!(
            matches!(
                Replay::decode(&bytes[..bytes.len() - 1], large_limits()),
                Err(ReplayError::Truncated { .. })
            ),
            "canonical: the replay less its last byte is not Truncated"
        );
        let mut longer = bytes.to_vec();
        longer.push(0);
        assert_eq!(
            Replay::decode(&longer, large_limits()),
            Err(ReplayError::TrailingBytes { offset: len }),
            "canonical: the replay plus a byte is not TrailingBytes"
        );
    }
    small
}

/// Verifying `bytes` agrees with decoding them (`small`), twice and trickled; the verdict.
fn check_verifying(
    bytes: &[u8],
    v: &Verifier,
    small: &Result<Replay, ReplayError>,
) -> Result<pogo_replay::Verified, VerifyError> {
    let verified = v.verify(bytes);
    let mut ticks = 0u32;
    let again = v.verify_with(Trickle::new(bytes), |_| ticks += 1);
    assert_eq!(again, verified, "determinism: verifying twice differs");
    match (&verified, &small) {
        (Ok(verified), Ok(replay)) => {
            assert_eq!(verified.header, replay.header, "verify: header");
            assert_eq!(verified.ticks, replay.ticks(), "verify: ticks");
            assert_eq!(ticks, replay.ticks(), "verify: on_tick calls");
            assert_eq!(verified.finish, replay.trailer.finish, "verify: finish");
            assert_eq!(
                verified.final_hash, replay.trailer.final_hash,
                "verify: final hash"
            );
        }
        (Ok(_), Err(e)) => panic!("verify: passes bytes that do not decode ({e:?})"),
        (Err(VerifyError::Replay(e)), small) => assert_eq!(
            small.as_ref().err(),
            Some(e),
            "verify: fails with {e:?}, decode gives {small:?}"
        ),
        (Err(_), _) => {}
    }
    verified
}

/// Salvaging `bytes` agrees with decoding (`small`) and verifying (`verified`) them.
fn check_salvaging(
    bytes: &[u8],
    v: &Verifier,
    small: &Result<Replay, ReplayError>,
    verified: &Result<pogo_replay::Verified, VerifyError>,
) {
    let salvaged = salvage(bytes, v);
    match &salvaged {
        Err(SalvageError::Header(e)) => {
            assert_eq!(
                small.as_ref().err(),
                Some(e),
                "salvage: header error {e:?}, decode gives {small:?}"
            );
            assert_eq!(
                *verified,
                Err(VerifyError::Replay(e.clone())),
                "salvage: header error {e:?}, verify gives {verified:?}"
            );
        }
        Err(SalvageError::Mismatch(e) | SalvageError::Desync(e)) => assert_eq!(
            verified.as_ref().err(),
            Some(e),
            "salvage: fails with {e:?}, verify gives {verified:?}"
        ),
        Ok(s) => check_salvaged(bytes, s, small, verified),
    }
    if verified.is_ok() {
        assert!(
            salvaged
                .as_ref()
                .is_ok_and(|s| s.stopped.is_none() && s.replay.encode() == bytes),
            "salvage: a replay that verifies is not salvaged to itself: {salvaged:?}"
        );
    }
}

fn check_salvaged(
    bytes: &[u8],
    s: &pogo_replay::Salvaged,
    small: &Result<Replay, ReplayError>,
    verified: &Result<pogo_replay::Verified, VerifyError>,
) {
    let v = verifier();
    match (&s.stopped, small) {
        (None, Ok(_)) => {}
        (Some(e), Err(small)) => assert_eq!(e, small, "salvage: stopped on another error"),
        _ => panic!(
            "salvage: stopped on {:?}, decode gives {small:?}",
            s.stopped
        ),
    }
    let repaired = s.replay.encode();
    let decoded = Replay::decode(&repaired, small_limits())
        .unwrap_or_else(|e| panic!("salvage: the repaired replay does not decode: {e}"));
    let mut expected = s.replay.clone();
    expected.trailer.file_check = decoded.trailer.file_check;
    assert_eq!(
        decoded, expected,
        "salvage: the repaired replay decodes differently"
    );
    // Everything before the repaired replay's trailer is the input's own bytes: the whole
    // chunks up to the first error (or up to the input's trailer).
    let kept = repaired.len() - CHUNK_OVERHEAD_BYTES - payload_len(&decoded.trailer);
    assert!(
        s.dropped_bytes <= bytes.len() as u64,
        "salvage: dropped more than the input"
    );
    if s.stopped.is_some() {
        assert_eq!(
            kept as u64,
            bytes.len() as u64 - s.dropped_bytes,
            "salvage: kept bytes differ from the whole chunks before the error"
        );
    } else {
        assert_eq!(
            s.dropped_bytes, 0,
            "salvage: dropped bytes of a whole replay"
        );
    }
    assert!(
        kept <= bytes.len() && repaired[..kept] == bytes[..kept],
        "salvage: the kept chunks are not the input's bytes"
    );
    if s.stopped.is_some() || repaired != bytes {
        let ok = v
            .verify(&repaired[..])
            .unwrap_or_else(|e| panic!("salvage: the repaired replay does not verify: {e}"));
        assert_eq!(ok.finish, s.replay.trailer.finish, "salvage: finish");
        assert_eq!(
            ok.final_hash, s.replay.trailer.final_hash,
            "salvage: final hash"
        );
    } else {
        assert!(
            verified.is_ok(),
            "salvage: gives back the input unchanged, which does not verify: {verified:?}"
        );
    }
}

/// Records a bot run of at most `ticks` ticks on a built-in level (every player a bot,
/// stopping when all finish), with `edit` applied to the header.
pub fn record_bot(
    level: &str,
    players: usize,
    ticks: u32,
    edit: impl FnOnce(&mut Header),
) -> Vec<u8> {
    let tuning = Tuning::default();
    let world = World::new(builtin_level(level).expect("a built-in level"), &tuning)
        .expect("a built-in level builds");
    let mut sim = Simulation::new(Arc::new(world), tuning, players).expect("1…16 players");
    let mut header = Header::for_simulation(&sim, Some("bot".into()), Some("2026-11-29".into()));
    edit(&mut header);
    let mut recorder = Recorder::new(Vec::new(), header).expect("a valid header");
    let mut bots = vec![Bot::new(); players];
    for _ in 0..ticks {
        let inputs: Vec<TickInput> = (0..players)
            .map(|p| bots[p].input(sim.world(), sim.tuning(), &sim.state().pogos[p]))
            .collect();
        sim.step(&inputs);
        recorder
            .record(&inputs, || sim.state_hash())
            .expect("writing to a Vec");
        if sim.state().pogos.iter().all(|p| p.finish_tick.is_some()) {
            break;
        }
    }
    recorder.finish_simulation(&sim).expect("writing to a Vec")
}

/// The seed corpus of `fuzz/corpus/replay_decode/`, by name: short bot recordings (flat and
/// course, one and two players, the recorder's header and a few other chunk sizes and hash
/// intervals), and truncated and single-byte-mutated versions of them.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let whole: Vec<(&str, Vec<u8>)> = vec![
        ("flat-1p-300", record_bot("flat", 1, 300, |_| {})),
        ("flat-2p-0", record_bot("flat", 2, 0, |_| {})),
        ("course-2p-600", record_bot("course", 2, 600, |_| {})),
        (
            "course-1p-450-anonymous",
            record_bot("course", 1, 450, |h| {
                h.player_name = None;
                h.date = None;
            }),
        ),
        (
            "course-3p-200-chunk7-hash1",
            record_bot("course", 3, 200, |h| {
                h.chunk_ticks = 7;
                h.hash_interval = 1;
            }),
        ),
        (
            "flat-1p-130-chunk600-hash13",
            record_bot("flat", 1, 130, |h| {
                h.chunk_ticks = 600;
                h.hash_interval = 13;
            }),
        ),
    ];
    let mut seeds = Vec::new();
    for (name, bytes) in &whole {
        seeds.push((name.to_string(), bytes.clone()));
    }
    for (name, bytes) in whole.iter().filter(|(n, _)| *n != "flat-2p-0") {
        let replay = Replay::decode(bytes, large_limits()).expect("a recorded replay decodes");
        let header_end = PREAMBLE_BYTES + CHUNK_OVERHEAD_BYTES + payload_len(&replay.header);
        let first_chunk_end = header_end + CHUNK_OVERHEAD_BYTES + payload_len(&replay.chunks[0]);
        let trailer_start = bytes.len() - CHUNK_OVERHEAD_BYTES - payload_len(&replay.trailer);
        for (what, cut) in [
            ("preamble", 6),
            ("header", header_end),
            ("mid-chunk", header_end + 20),
            ("first-chunk", first_chunk_end),
            ("trailer", trailer_start),
            ("last-byte", bytes.len() - 1),
        ] {
            seeds.push((format!("{name}-cut-{what}"), bytes[..cut].to_vec()));
        }
        let h = &replay.header;
        let players_at = PREAMBLE_BYTES
            + 5
            + payload_len(&(
                h.rules_version,
                h.tick_rate,
                h.frac_bits,
                &h.level_name,
                h.level_hash,
                h.tuning_hash,
            ));
        for (what, at, xor) in [
            ("level-name", PREAMBLE_BYTES + 5 + 4, 0x01),
            ("players", players_at, 0x02),
            ("chunk-ticks", players_at + 1, 0x04),
            ("first-chunk-payload", header_end + 5 + 4, 0x10),
            ("chunk-check", first_chunk_end - 1, 0x80),
            ("trailer-ticks", trailer_start + 5, 0x01),
            ("final-byte", bytes.len() - 1, 0xff),
        ] {
            let mut mutated = bytes.clone();
            mutated[at] ^= xor;
            seeds.push((format!("{name}-flip-{what}"), mutated));
        }
    }
    seeds
}
