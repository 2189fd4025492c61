//! The meter against the bound on the built-in `course`, the reference track: the demo bot's
//! whole run (to its finish), every tick's measured cost within the track's bound — and the
//! meter really counting (a tick next to `course`'s large boxes and platforms costs tens of
//! units, the most a few times that).

use std::sync::Arc;

use pogo_core::bot::Bot;
use pogo_core::world::World;
use pogo_core::{Simulation, State, Tuning};
use pogo_replay::levels::COURSE_JSON;
use pogo_replay::track::check_track;

#[test]
fn the_bot_on_course_stays_within_the_bound() {
    let tuning = Tuning::default();
    let track = check_track(COURSE_JSON, &tuning).unwrap();
    let world = Arc::new(World::new(track.desc.clone(), &tuning).unwrap());
    let mut sim = Simulation::new(world.clone(), tuning.clone(), 1).unwrap();
    let mut plain = Simulation::new(world.clone(), tuning.clone(), 1).unwrap();
    let mut bot = Bot::new();
    let (mut most, mut total, mut ticks) = (0u64, 0u64, 0u64);
    let mut cost = [0u64];
    while sim.state().pogos[0].state != State::Finished && ticks < 5_000 {
        let input = [bot.input(&world, &tuning, &sim.state().pogos[0])];
        sim.step_metered(&input, &mut cost);
        plain.step(&input);
        assert_eq!(
            sim.state_hash(),
            plain.state_hash(),
            "tick {ticks}: the meter changed the tick"
        );
        assert!(
            cost[0] <= track.tick_cost_bound,
            "tick {ticks}: {} units",
            cost[0]
        );
        most = most.max(cost[0]);
        total += cost[0];
        ticks += 1;
    }
    eprintln!(
        "course, bot: {ticks} ticks, mean {} units, most {most}, bound {}",
        total / ticks,
        track.tick_cost_bound
    );
    assert_eq!(sim.state().pogos[0].finish_tick.map(|t| t.0), Some(3_293));
    assert!(
        (20..=40).contains(&(total / ticks)),
        "mean {}",
        total / ticks
    );
    assert!((40..=200).contains(&most), "most {most}");
}
