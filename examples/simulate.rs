//! The smallest program that embeds pogo: the demo bot plays the built-in level `course` until
//! it finishes (or two minutes of play have passed), and the program prints the line
//! `pogo simulate --level course --bot` prints for the same run:
//!
//! ```text
//! SIG ticks=3294 bounces=46 apex=10.0928 finish=3293 hash=76722851cbb60a6d
//! ```
//!
//! It uses the facade alone, so it builds with `pogo = { …, default-features = false }`:
//! `tests/embedding.rs` builds it as a crate of its own, outside this workspace, with the
//! dependency line of `docs/embedding.md`, and compares its line with the golden one.
//!
//! Run it here with `cargo run --example simulate`.

use std::error::Error;
use std::sync::Arc;

use pogo::core::bot::Bot;
use pogo::core::world::World;
use pogo::core::{Fx, Simulation, Tuning};
use pogo::replay::builtin_level;

/// The most ticks to run: two minutes at 60 Hz, `pogo simulate`'s default.
const TICKS_MAX: u32 = 7200;

fn main() -> Result<(), Box<dyn Error>> {
    let tuning = Tuning::default();
    let level = builtin_level("course").ok_or("no built-in level `course`")?;
    let world = World::new(level, &tuning)?;
    let mut sim = Simulation::new(Arc::new(world), tuning, 1)?;
    let mut bot = Bot::new();
    while sim.state().tick.0 < TICKS_MAX && sim.state().pogos[0].finish_tick.is_none() {
        // The bot reads the state after the last tick, as a player reads the screen, and
        // answers with the input for the next one.
        let input = bot.input(sim.world(), sim.tuning(), &sim.state().pogos[0]);
        sim.step(&[input]);
    }
    println!("{}", signature(&sim));
    Ok(())
}

/// The SIG line of a one-player run, as `pogo simulate` prints it: ticks run, landings that
/// bounced, the highest tip height (m, 4 decimals, exact from fixed point), the finish tick
/// and the state hash.
fn signature(sim: &Simulation) -> String {
    let state = sim.state();
    let pogo = &state.pogos[0];
    let finish = pogo
        .finish_tick
        .map_or_else(|| "none".to_string(), |t| t.to_string());
    // The apex starts below anything a tick can reach: no tick has run.
    let apex = if pogo.apex == Fx::MIN {
        "none".to_string()
    } else {
        format!("{:.4}", pogo.apex)
    };
    format!(
        "SIG ticks={} bounces={} apex={apex} finish={finish} hash={:016x}",
        state.tick,
        pogo.bounces,
        sim.state_hash()
    )
}
