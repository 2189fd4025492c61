//! The `SIG` lines that `pogo simulate` prints at the end of a run, in one place, so
//! every command that ends a run (`simulate`, later `netplay`) prints the same lines.
//!
//! One player, one line:
//!
//! ```text
//! SIG ticks=600 bounces=7 apex=3.3241 finish=none hash=0123456789abcdef
//! ```
//!
//! Several players, one line each, prefixed `P<i> `, the hash named `sim_hash` because it is
//! the whole simulation's state hash (every pogo's state together), the same on every line —
//! not the player's own:
//!
//! ```text
//! P0 SIG ticks=600 bounces=7 apex=3.3241 finish=none sim_hash=0123456789abcdef
//! P1 SIG ticks=600 bounces=6 apex=3.1020 finish=412 sim_hash=0123456789abcdef
//! ```
//!
//! `apex` is the highest the pogo's tip has been (m, 4 decimals), `none` before the first tick
//! has run (`--ticks 0`); `finish` the tick the pogo finished on, or `none`.

use pogo::core::{Fx, SimState};

/// The SIG lines (without newlines) for `state`, whose state hash is `sim_hash`.
pub(crate) fn signature_lines(state: &SimState, sim_hash: u64) -> Vec<String> {
    let several = state.pogos.len() > 1;
    state
        .pogos
        .iter()
        .enumerate()
        .map(|(i, pogo)| {
            let finish = pogo
                .finish_tick
                .map_or_else(|| "none".to_string(), |t| t.to_string());
            // The apex starts at Fx::MIN, below anything a tick can reach: no tick has run.
            let apex = if pogo.apex == Fx::MIN {
                "none".to_string()
            } else {
                format!("{:.4}", pogo.apex)
            };
            let fields = format!(
                "ticks={} bounces={} apex={apex} finish={finish}",
                state.tick, pogo.bounces
            );
            if several {
                format!("P{i} SIG {fields} sim_hash={sim_hash:016x}")
            } else {
                format!("SIG {fields} hash={sim_hash:016x}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use pogo::core::world::World;
    use pogo::core::{Input, Simulation, Tuning};

    use super::*;

    fn sim(players: usize) -> Simulation {
        let tuning = Tuning::default();
        let desc = pogo::replay::builtin_level("flat").unwrap();
        let world = World::new(desc, &tuning).unwrap();
        Simulation::new(Arc::new(world), tuning, players).unwrap()
    }

    #[test]
    fn one_player_has_specs_line_and_no_tick_has_no_apex() {
        let sim = sim(1);
        let hash = sim.state_hash();
        assert_eq!(
            signature_lines(sim.state(), hash),
            [format!(
                "SIG ticks=0 bounces=0 apex=none finish=none hash={hash:016x}"
            )]
        );
    }

    #[test]
    fn several_players_name_the_shared_hash_sim_hash() {
        let mut sim = sim(2);
        sim.step(&[Input::default(); 2]);
        let hash = sim.state_hash();
        let lines = signature_lines(sim.state(), hash);
        assert_eq!(lines.len(), 2);
        for (i, line) in lines.iter().enumerate() {
            assert!(line.starts_with(&format!("P{i} SIG ticks=1 ")), "{line}");
            assert!(line.ends_with(&format!(" sim_hash={hash:016x}")), "{line}");
            assert!(!line.contains("apex=none"), "{line}");
        }
    }
}
