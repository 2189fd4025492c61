//! Diff: the first tick at which two runs' states differ, and which fields.

use pogo_core::{Pogo, Simulation, Ticks};

use crate::reader::Replay;
use crate::verify::{Verifier, VerifyError};

/// Where two runs first part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The tick after which the states differ.
    pub tick: Ticks,
    /// `(player, field)` for every field that differs, players in order, fields in `Pogo`'s
    /// declaration order; a player present in one run only is `(player, "player")`.
    pub fields: Vec<(usize, &'static str)>,
}

/// Re-simulates both replays side by side (each with its own inputs, on the verifier's level
/// and tuning) and returns their first difference, or `None` if they agree to the end of the
/// shorter one.
pub fn first_difference(
    a: &Replay,
    b: &Replay,
    verifier: &Verifier,
) -> Result<Option<Difference>, VerifyError> {
    let mut sims = Vec::new();
    for replay in [a, b] {
        let world = verifier.check_header(&replay.header)?;
        let players = usize::from(replay.header.players);
        let sim = Simulation::new(world, verifier.tuning().clone(), players).map_err(|_| {
            VerifyError::UnknownLevel {
                name: replay.header.level_name.clone(),
            }
        })?;
        sims.push((sim, replay.inputs().into_iter()));
    }
    let (mut sim_a, mut inputs_a) = sims.remove(0);
    let (mut sim_b, mut inputs_b) = sims.remove(0);
    loop {
        let (Some(ia), Some(ib)) = (inputs_a.next(), inputs_b.next()) else {
            return Ok(None);
        };
        sim_a.step(&ia);
        sim_b.step(&ib);
        if sim_a.state_hash() != sim_b.state_hash() {
            let tick = Ticks(sim_a.state().tick.0 - 1);
            return Ok(Some(Difference {
                tick,
                fields: differing_fields(&sim_a.state().pogos, &sim_b.state().pogos),
            }));
        }
    }
}

/// The fields that differ between two lists of pogos.
pub fn differing_fields(a: &[Pogo], b: &[Pogo]) -> Vec<(usize, &'static str)> {
    let mut fields = Vec::new();
    for player in 0..a.len().max(b.len()) {
        let (Some(x), Some(y)) = (a.get(player), b.get(player)) else {
            fields.push((player, "player"));
            continue;
        };
        // Every field named (no `..`): a field added to `Pogo` is a compile error here until
        // the diff compares it.
        let Pogo {
            state,
            position,
            velocity,
            lean,
            combo,
            bounces,
            apex,
            last_launch,
            stun_ticks_left,
            trick_ticks_left,
            buttons_held,
            compression,
            tip_memory,
            checkpoint,
            finish_tick,
            events,
        } = x;
        let checks = [
            ("state", *state != y.state),
            ("position", *position != y.position),
            ("velocity", *velocity != y.velocity),
            ("lean", *lean != y.lean),
            ("combo", *combo != y.combo),
            ("bounces", *bounces != y.bounces),
            ("apex", *apex != y.apex),
            ("last_launch", *last_launch != y.last_launch),
            ("stun_ticks_left", *stun_ticks_left != y.stun_ticks_left),
            ("trick_ticks_left", *trick_ticks_left != y.trick_ticks_left),
            ("buttons_held", *buttons_held != y.buttons_held),
            ("compression", *compression != y.compression),
            ("tip_memory", *tip_memory != y.tip_memory),
            ("checkpoint", *checkpoint != y.checkpoint),
            ("finish_tick", *finish_tick != y.finish_tick),
            ("events", *events != y.events),
        ];
        fields.extend(
            checks
                .iter()
                .filter(|(_, differs)| *differs)
                .map(|(name, _)| (player, *name)),
        );
    }
    fields
}
