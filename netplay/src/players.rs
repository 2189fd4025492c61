//! Where a local player's input comes from: the demo bot, a seeded random player, an input
//! script, or nobody (neutral input).
//!
//! A [`Player`] is asked for its input once per frame, in frame order, with the simulation at
//! the start of that frame. Under rollback that state is partly predicted — but only the
//! *other* pogos' parts: pogos do not interact, so a player's own pogo depends on its own
//! (always known) inputs alone and is exact. The bot, which looks at its own pogo only, so
//! plays the same in a rollback session as alone.

use pogo_core::bot::Bot;
use pogo_core::driver::NS_PER_SECOND;
use pogo_core::{Buttons, Input, STEER_MAX, Simulation};
use pogo_replay::InputScript;
use pogo_replay::input_script::At;

use crate::rng::SplitMix64;

/// Shortest time a random player holds an input (ticks).
const RANDOM_HOLD_TICKS_MIN: u64 = 3;
/// Longest time a random player holds an input (ticks): about half a second at 60 Hz.
const RANDOM_HOLD_TICKS_MAX: u64 = 30;
/// Chance, in percent, that a random player's new input holds the trick button.
const RANDOM_TRICK_PERCENT: u64 = 10;
/// Chance, in percent, that a random player's new input holds the dive button.
const RANDOM_DIVE_PERCENT: u64 = 20;

/// The source of one local player's input.
#[derive(Debug)]
pub enum Player {
    /// Neutral input every tick.
    Neutral,
    /// The demo bot (`pogo_core::bot`), steering toward the level's bot path.
    Bot(Bot),
    /// Seeded random input that changes every few ticks, like a restless human.
    Random(RandomPlayer),
    /// One section of an input script.
    Script(ScriptPlayer),
}

impl Player {
    /// A demo bot.
    pub fn bot() -> Player {
        Player::Bot(Bot::new())
    }

    /// A random player drawing from `seed`.
    pub fn random(seed: u64) -> Player {
        Player::Random(RandomPlayer::new(seed))
    }

    /// Player `player`'s section of `script` (or, if the script has only one section, that
    /// one), at `tick_rate`.
    pub fn script(script: &InputScript, player: usize, tick_rate: u32) -> Player {
        let lines = script
            .players
            .get(player)
            .or_else(|| script.players.first().filter(|_| script.players.len() == 1))
            .map(|lines| lines.as_slice())
            .unwrap_or_default();
        Player::Script(ScriptPlayer::new(lines, tick_rate))
    }

    /// The input of pogo `player` for the tick `sim` is about to run. Call once per tick, in
    /// order.
    pub fn input(&mut self, sim: &Simulation, player: usize) -> Input {
        match self {
            Player::Neutral => Input::default(),
            Player::Bot(bot) => match sim.state().pogos.get(player) {
                Some(pogo) => bot.input(sim.world(), sim.tuning(), pogo),
                None => Input::default(),
            },
            Player::Random(random) => random.next_input(),
            Player::Script(script) => script.input(sim.state().tick.0),
        }
    }
}

/// Random input: a new stick position (uniform on each axis) and buttons every
/// 3…30 ticks (`RANDOM_HOLD_TICKS_MIN`…`RANDOM_HOLD_TICKS_MAX`), all from one SplitMix64 stream.
/// The same seed gives the same input sequence everywhere.
#[derive(Debug, Clone)]
pub struct RandomPlayer {
    rng: SplitMix64,
    held: Input,
    hold_ticks: u64,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: SplitMix64::new(seed),
            held: Input::default(),
            hold_ticks: 0,
        }
    }

    /// The next tick's input.
    pub fn next_input(&mut self) -> Input {
        if self.hold_ticks == 0 {
            let axis = |rng: &mut SplitMix64| {
                let span = 2 * i64::from(STEER_MAX) + 1;
                (rng.below(span as u64) as i64 - i64::from(STEER_MAX)) as i8
            };
            let steer_x = axis(&mut self.rng);
            let steer_z = axis(&mut self.rng);
            let mut buttons = Buttons::NONE;
            if self.rng.below(100) < RANDOM_TRICK_PERCENT {
                buttons = buttons.union(Buttons::TRICK);
            }
            if self.rng.below(100) < RANDOM_DIVE_PERCENT {
                buttons = buttons.union(Buttons::DIVE);
            }
            self.held = Input {
                steer_x,
                steer_z,
                buttons,
            };
            let spread = RANDOM_HOLD_TICKS_MAX - RANDOM_HOLD_TICKS_MIN + 1;
            self.hold_ticks = RANDOM_HOLD_TICKS_MIN + self.rng.below(spread);
        }
        self.hold_ticks -= 1;
        self.held
    }
}

/// One player's script lines as `(first tick, input)`, each holding until the next.
#[derive(Debug, Clone)]
pub struct ScriptPlayer {
    lines: Vec<(u32, Input)>,
    next: usize,
    held: Input,
}

impl ScriptPlayer {
    /// A line at a tick applies from that tick; a line at a time `t` from the first tick that
    /// starts at or after `t` (tick k starts at k / rate s: the first k with
    /// k · 10⁹ ≥ t · rate), as the frame driver files it.
    pub fn new(lines: &[(At, Input)], tick_rate: u32) -> ScriptPlayer {
        let rate = u128::from(tick_rate.max(1));
        let tick = |at: At| match at {
            At::Tick(k) => k,
            At::Nanos(ns) => {
                let k = (u128::from(ns) * rate).div_ceil(u128::from(NS_PER_SECOND));
                u32::try_from(k).unwrap_or(u32::MAX)
            }
        };
        ScriptPlayer {
            lines: lines.iter().map(|&(at, input)| (tick(at), input)).collect(),
            next: 0,
            held: Input::default(),
        }
    }

    /// The input for `tick`; ticks must not decrease between calls.
    pub fn input(&mut self, tick: u32) -> Input {
        while let Some(&(from, input)) = self.lines.get(self.next) {
            if from > tick {
                break;
            }
            self.held = input;
            self.next += 1;
        }
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pogo_replay::parse_input_script;

    #[test]
    fn random_players_are_seeded_and_hold_their_input() {
        let take = |seed| {
            let mut player = RandomPlayer::new(seed);
            (0..600).map(|_| player.next_input()).collect::<Vec<_>>()
        };
        let a = take(7);
        assert_eq!(a, take(7));
        assert_ne!(a, take(8));
        let changes = a.windows(2).filter(|w| w[0] != w[1]).count();
        // 600 ticks of 3…30-tick holds: between 20 and 200 changes.
        assert!((20..=200).contains(&changes), "{changes} changes");
        assert!(a.iter().any(|i| i.buttons.contains(Buttons::DIVE)));
        assert!(a.iter().any(|i| i.steer_x < -64) && a.iter().any(|i| i.steer_x > 64));
        assert!(a.iter().all(|i| *i == i.normalized()));
    }

    #[test]
    fn script_lines_apply_from_their_tick_as_the_frame_driver_files_them() {
        let script =
            parse_input_script("0 10 0\n2 20 0\n0.05s 30 0 dive\nplayer 1\n1 -5 5\n").unwrap();
        let steer = |player: &mut Player, sim: &Simulation| player.input(sim, 0).steer_x;
        let tuning = pogo_core::Tuning::default();
        let world =
            pogo_core::world::World::new(pogo_replay::builtin_level("flat").unwrap(), &tuning)
                .unwrap();
        let mut sim = Simulation::new(std::sync::Arc::new(world), tuning, 2).unwrap();
        let mut p0 = Player::script(&script, 0, 60);
        let mut p1 = Player::script(&script, 1, 60);
        let mut seen = Vec::new();
        for _ in 0..5 {
            seen.push((steer(&mut p0, &sim), steer(&mut p1, &sim)));
            sim.step(&[Input::default(); 2]);
        }
        // 0.05 s at 60 Hz is 3 ticks exactly: tick 3 starts at 0.05 s.
        assert_eq!(seen, [(10, 0), (10, -5), (20, -5), (30, -5), (30, -5)]);
        // A one-section script drives any player; a missing section is neutral.
        let single = parse_input_script("0 99 0\n").unwrap();
        assert_eq!(steer(&mut Player::script(&single, 1, 60), &sim), 99);
        assert_eq!(steer(&mut Player::script(&script, 5, 60), &sim), 0);
    }
}
