//! Golden hash chains: the state hash after *every* tick of a matrix of runs — three levels ×
//! three tunings, six pogos each (one demo bot, five seeded random players that steer, dive,
//! trick, die and respawn) — folded into one digest per run and compared with
//! `tests/golden/chains.txt`.
//!
//! Where `golden_hashes` pins a few long runs once a second, this pins every tick of many
//! short ones across tick rates, capsule sizes, moving platforms, zones and the 100 000-box
//! level: the net an optimisation of the tick must pass through unchanged. It runs on every
//! architecture `scripts/cross-check.sh` covers.
//!
//! The digests change only on purpose: bump the rules version, regenerate with
//! `POGO_BLESS=1 cargo test --test golden_chains`, and say why in the commit message.

mod support;

use std::fmt::Write;
use std::sync::Arc;

use pogo::core::bot::Bot;
use pogo::core::world::World;
use pogo::core::{Buttons, Events, Input, Simulation, Tuning, TuningSpec};
use pogo::replay::builtin_level;
use xxhash_rust::xxh3::xxh3_64;

const LEVELS: [&str; 3] = ["flat", "course", "sprawl"];
/// Tuning overrides: the defaults; a slow tick; a fast tick with a fat capsule and heavier
/// gravity.
const TUNINGS: [&[&str]; 3] = [
    &[],
    &["tick_rate=30"],
    &["tick_rate=64", "body_radius=0.6", "gravity=30"],
];
const PLAYERS: usize = 6;
const TICKS: u32 = 2400;

/// A seeded random player: holds a stick direction for a random stretch of ticks, presses
/// trick now and then and holds dive for a while (xorshift64*, fixed seed per player).
struct RandomPlayer {
    state: u64,
    input: Input,
    hold: u32,
}

impl RandomPlayer {
    fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            state: seed | 1,
            input: Input::default(),
            hold: 0,
        }
    }

    fn next(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn input(&mut self) -> Input {
        if self.hold == 0 {
            let r = self.next();
            self.hold = 5 + (r % 90) as u32;
            let buttons = match (r >> 8) % 8 {
                0 => Buttons::TRICK,
                1 | 2 => Buttons::DIVE,
                _ => Buttons::NONE,
            };
            self.input = Input {
                steer_x: (r >> 16) as u8 as i8,
                steer_z: (r >> 24) as u8 as i8,
                buttons,
            };
        } else if self.hold % 7 == 0 {
            // Release trick, so a held trick button presses again later.
            self.input.buttons = Buttons(self.input.buttons.0 & !Buttons::TRICK.0);
        }
        self.hold -= 1;
        self.input
    }
}

fn tuning(overrides: &[&str]) -> Tuning {
    let mut spec = TuningSpec::default();
    for o in overrides {
        spec.apply_override(o).expect("a valid override");
    }
    Tuning::new(spec).expect("a valid tuning")
}

/// Runs one level and tuning; the line names them and gives the digest of every tick's state
/// hash, then the final hash, tick and bounces per player.
fn render(level: &str, overrides: &[&str], seed: u64) -> String {
    let tuning = tuning(overrides);
    let world = World::new(builtin_level(level).expect("built-in level"), &tuning).unwrap();
    let mut sim = Simulation::new(Arc::new(world), tuning, PLAYERS).unwrap();
    let mut bot = Bot::new();
    let mut players: Vec<RandomPlayer> = (1..PLAYERS as u64)
        .map(|p| RandomPlayer::new(seed.wrapping_mul(31).wrapping_add(p)))
        .collect();
    let mut chain = Vec::with_capacity(TICKS as usize * 8);
    let mut deaths = 0;
    for _ in 0..TICKS {
        let mut inputs = vec![bot.input(sim.world(), sim.tuning(), &sim.state().pogos[0])];
        inputs.extend(players.iter_mut().map(RandomPlayer::input));
        sim.step(&inputs);
        chain.extend_from_slice(&sim.state_hash().to_le_bytes());
        let died = |p: &&pogo::core::Pogo| p.events.contains(Events::DEATH);
        deaths += sim.state().pogos.iter().filter(died).count();
    }
    let bounces: Vec<String> = sim
        .state()
        .pogos
        .iter()
        .map(|p| p.bounces.to_string())
        .collect();
    let mut line = String::new();
    write!(
        line,
        "{level} [{}] chain={:016x} final={:016x} bounces={} deaths={deaths}",
        overrides.join(" "),
        xxh3_64(&chain),
        sim.state_hash(),
        bounces.join(",")
    )
    .unwrap();
    line
}

#[test]
fn golden_chains_match() {
    let mut actual = String::new();
    for (l, level) in LEVELS.iter().enumerate() {
        for (t, overrides) in TUNINGS.iter().enumerate() {
            let seed = 0x706f_676f_0000 + (l * TUNINGS.len() + t) as u64;
            writeln!(actual, "{}", render(level, overrides, seed)).unwrap();
        }
    }
    support::golden_text("chains.txt", &actual);
}

/// The random players press what the chains are meant to cover (that they also die and
/// respawn shows as `deaths=` in the golden file).
#[test]
fn random_players_steer_dive_and_trick() {
    let mut p = RandomPlayer::new(7);
    let inputs: Vec<Input> = (0..3000).map(|_| p.input()).collect();
    assert!(inputs.iter().any(|i| i.buttons.contains(Buttons::TRICK)));
    assert!(inputs.iter().any(|i| i.buttons.contains(Buttons::DIVE)));
    assert!(inputs.iter().any(|i| i.steer_x < -100 && i.steer_z > 100));
}
