//! The `track` target's seed corpus: files whose run part is fixed and whose level part is a
//! level file's text (`Level::Text`), so libFuzzer starts from real tracks. `corpora.rs`
//! replays them with every other kept input; this test checks that they still decode into
//! the text they were written from (a change of `track::Input`'s layout shows here), and
//! `cargo test -p pogo-checks --test track_seeds -- --ignored` writes them anew.

use std::path::{Path, PathBuf};

use pogo_checks::decode;
use pogo_checks::track::{Input, Level};

/// The run part of every seed: 4 pogos (players 3), bots on for players 0 and 2 (bits 0b101),
/// 400 ticks, a snapshot at tick 150 after a 9-tick detour, the default tuning, six segments
/// of held sticks and buttons.
fn run_bytes() -> Vec<u8> {
    let mut b = vec![3, 0b101];
    b.extend(400u16.to_le_bytes());
    b.extend(150u16.to_le_bytes());
    b.push(9);
    b.extend([0, 0]); // no tuning overrides
    for s in 0..6u8 {
        b.push(10 + 7 * s); // hold
        for p in 0..4u8 {
            let x = s.wrapping_mul(37).wrapping_add(p.wrapping_mul(61)) as i8;
            b.extend([x as u8, x.wrapping_mul(3) as u8, (s + p) & 3]);
        }
    }
    b.extend([0, 0, 0, 0]); // Level::Text
    b
}

/// A hand-made small track: a floor, a step, a ramp, a platform at the speed limit, a wind
/// zone, a checkpoint with its spawn on the step, a finish, a kill floor, a bot route.
const SMALL: &str = r#"{
  "name": "small",
  "spawn": [0, 0, 0],
  "solids": [
    {"min": [-20, -1, -5], "max": [40, 0, 5]},
    {"min": [8, 0, -5], "max": [10, 1, 5]},
    {"min": [9, 1, -1], "max": [9, 1.5, 1], "no_bounce": true}
  ],
  "ramps": [
    {"normal": [-0.3, 1, 0], "point": [14, 0, 0], "bounds": {"min": [12, 0, -5], "max": [18, 2, 5]}}
  ],
  "platforms": [
    {"size": [3, 0.5, 3], "path": {"ping_pong": {"from": [20, 1, -1], "to": [32.5, 1, -1], "period": 0.5}}}
  ],
  "zones": [
    {"min": [-20, 0, -5], "max": [0, 20, 5], "gravity_scale": 10, "wind": [100, 100, -100]}
  ],
  "checkpoints": [
    {"min": [8, 1, -5], "max": [10, 6, 5], "spawn": [9, 1, 0]}
  ],
  "finishes": [
    {"min": [36, 0, -5], "max": [40, 4, 5]}
  ],
  "kills": [
    {"min": [-50, -40, -50], "max": [100, -10, 50]}
  ],
  "bot_path": [[9, 1, 0], [25, 1.5, 0], [38, 0, 0]]
}"#;

fn seeds() -> Vec<(&'static str, String)> {
    vec![
        ("seed-course", pogo_replay::levels::COURSE_JSON.to_string()),
        ("seed-small", SMALL.to_string()),
    ]
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/track")
}

fn bytes(text: &str) -> Vec<u8> {
    let mut b = run_bytes();
    b.extend(text.as_bytes());
    b
}

#[test]
fn the_seeds_decode_into_their_tracks() {
    for (name, text) in seeds() {
        let file = dir().join(name);
        let committed = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(
            committed,
            bytes(&text),
            "{name} is not what the writer writes"
        );
        let input: Input = decode(&committed).expect("a seed decodes");
        match &input.level {
            Level::Text(t) => assert_eq!(t, &text, "{name}: another text"),
            Level::Geometry(_) => panic!("{name} decodes into a structured level"),
        }
        assert_eq!(usize::from(input.run.ticks), 400);
        // Played in full: a seed that the gate refused would seed nothing.
        let refused = pogo_replay::track::check_track(&text, &pogo_core::Tuning::default()).err();
        assert_eq!(refused, None, "{name}: the gate refused it");
        assert!(pogo_checks::track::check(&input), "{name}: not played");
    }
}

#[test]
#[ignore = "writes fuzz/corpus/track/seed-*"]
fn write_seeds() {
    std::fs::create_dir_all(dir()).unwrap();
    for (name, text) in seeds() {
        std::fs::write(dir().join(name), bytes(&text)).unwrap();
    }
}

/// Statistics of a corpus directory (`POGO_TRACK_CORPUS`, default the committed one): how
/// many inputs decode, are text or structure, pass the gate (and why not), and how close the
/// measured tick cost came to the bound. For the fuzzing notes in PERFORMANCE.md.
#[test]
#[ignore = "prints statistics of a track corpus"]
fn corpus_statistics() {
    use std::collections::BTreeMap;
    let dir = std::env::var_os("POGO_TRACK_CORPUS").map_or_else(dir, PathBuf::from);
    let (mut text, mut geometry, mut undecoded, mut played) = (0, 0, 0, 0);
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    let (mut ratio_max, mut cost_max, mut bound_max, mut pogo_ticks) = (0.0f64, 0, 0, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        // A running fuzzer replaces files as it reduces them: skip one gone meanwhile.
        let Ok(bytes) = std::fs::read(entry.unwrap().path()) else {
            continue;
        };
        let Some(input) = decode::<Input>(&bytes) else {
            undecoded += 1;
            continue;
        };
        match input.level {
            Level::Text(_) => text += 1,
            Level::Geometry(_) => geometry += 1,
        }
        match pogo_checks::track::run(&input) {
            Ok(p) => {
                played += 1;
                pogo_ticks += p.ticks * p.players;
                cost_max = cost_max.max(p.cost_max);
                bound_max = bound_max.max(p.bound);
                ratio_max = ratio_max.max(p.cost_max as f64 / p.bound as f64);
            }
            Err(outcome) => {
                let why = match outcome {
                    pogo_checks::track::Outcome::InvalidTuning => "(tuning)".to_string(),
                    pogo_checks::track::Outcome::Refused(field) => {
                        field.split(['[', '.']).next().unwrap_or("").to_string()
                    }
                };
                *refused.entry(why).or_default() += 1;
            }
        }
    }
    eprintln!(
        "{}: {text} text, {geometry} structured, {undecoded} undecoded; {played} played \
         ({pogo_ticks} pogo-ticks), highest bound {bound_max}, highest tick cost {cost_max}, \
         highest cost/bound {ratio_max:.3}; refused by field: {refused:?}",
        dir.display()
    );
}
