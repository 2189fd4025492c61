//! `tick`: a small arbitrary world and input stream through the whole tick (`Simulation`).
//!
//! The world holds at most a ground slab, four boxes, two ramps, two moving platforms, a zone,
//! a checkpoint, a finish and a kill volume, all within ±12 m; one or two players; at most
//! [`TICKS_MAX`] ticks of input (segments of held stick and buttons, played in a loop); any
//! valid tuning with up to three keys moved. Levels or tunings the core rejects are skipped.
//!
//! Oracles:
//! - no panic and no overflow in any stage (fuzz builds keep debug assertions);
//! - **snapshot / restore**: a second run of the same inputs matches the first tick for tick
//!   (state and hash) up to an arbitrary tick `k`, where it takes a snapshot, runs a detour of
//!   up to 31 ticks on other inputs, restores, and then matches the first run again, state and
//!   hash, at every tick to the end;
//! - after every tick, for every pogo: velocity within ±`SPEED_MAX` per axis; compressing
//!   exactly when it has a compression (with ≥ 1 tick left); finished only with a finish tick;
//!   a remembered tip contact no older than `tip_grace_ticks`; the lean within
//!   `max_lean_angle`; the stun no longer than `stun_time`; the apex at or above the tip; the
//!   bounce count never decreasing and rising on every `BOUNCE` event;
//! - in worlds without moving platforms whose spawn points are clear of every box, the capsule
//!   never ends a tick inside a box by more than the sweep's rounding tolerance
//!   ([`crate::contact_geometry::TOLERANCE`]).

use std::sync::Arc;

use arbitrary::Arbitrary;
use pogo_core::sweep::{SKIN, depenetrate_box};
use pogo_core::world::{Aabb, Checkpoint, Path, Platform, Ramp, Solid, World, WorldDesc, Zone};
use pogo_core::{
    Buttons, Events, Fx, Input as TickInput, SPEED_MAX, SimState, Simulation, State, Tuning, Vec3,
    capsule,
};

use crate::InputIn;
use crate::contact_geometry::TOLERANCE;
use crate::num::{Coord, within};
use crate::tuning::{self, Override};

/// Most ticks one input runs (before the detour).
pub const TICKS_MAX: usize = 300;
const SOLIDS_MAX: usize = 4;
const RAMPS_MAX: usize = 2;
const PLATFORMS_MAX: usize = 2;
const OVERRIDES_MAX: usize = 3;
/// Everything lies within ±12 m of the origin.
const RANGE: Fx = Fx::from_int(12);
const SIZE_RANGE: Fx = Fx::from_int(8);

#[derive(Arbitrary, Clone, Debug)]
pub struct Input {
    /// A 100 × 100 m ground slab with its top at y = 0.
    pub ground: bool,
    pub spawn: [Coord; 3],
    pub solids: Vec<BoxIn>,
    pub ramps: Vec<RampIn>,
    pub platforms: Vec<PlatformIn>,
    pub zone: Option<ZoneIn>,
    pub checkpoint: Option<(BoxIn, [Coord; 3])>,
    pub finish: Option<BoxIn>,
    pub kill: Option<BoxIn>,
    pub tuning: Vec<Override>,
    pub two_players: bool,
    /// The tick of the snapshot, modulo the run's length + 1.
    pub snapshot_at: u16,
    /// Ticks run on other inputs between snapshot and restore, modulo 32.
    pub detour: u8,
    /// Length of the run in ticks, modulo `TICKS_MAX + 1`.
    pub ticks: u16,
    /// The input stream, repeated as needed to fill the run (neutral if empty).
    pub segments: Vec<Segment>,
}

#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct BoxIn {
    pub min: [Coord; 3],
    /// 0…8 m per axis.
    pub size: [Coord; 3],
    pub no_bounce: bool,
}

#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct RampIn {
    pub normal: [Coord; 3],
    pub point: [Coord; 3],
    pub bounds: Option<BoxIn>,
    pub no_bounce: bool,
}

#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct PlatformIn {
    pub min: [Coord; 3],
    pub size: [Coord; 3],
    /// Where the path goes from `min`; shortened to keep the platform within 50 m/s.
    pub travel: [Coord; 3],
    /// Period: 0.1 + n/1000 s.
    pub period: u16,
    pub no_bounce: bool,
}

#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct ZoneIn {
    pub bounds: BoxIn,
    /// 0…10, in steps of 10/255.
    pub gravity_scale: u8,
    /// ±100 m/s² per axis.
    pub wind: [Coord; 3],
}

/// Inputs held for `1 + hold % 16` ticks.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct Segment {
    pub hold: u8,
    pub players: [InputIn; 2],
}

impl BoxIn {
    fn aabb(self) -> Aabb {
        let min = Coord::vec(self.min, RANGE);
        let size = Vec3::new(
            self.size[0].within_positive(SIZE_RANGE),
            self.size[1].within_positive(SIZE_RANGE),
            self.size[2].within_positive(SIZE_RANGE),
        );
        Aabb::new(min, min + size)
    }
}

fn world_desc(input: &Input) -> WorldDesc {
    let mut solids: Vec<Solid> = input
        .solids
        .iter()
        .take(SOLIDS_MAX)
        .map(|b| Solid {
            bounds: b.aabb(),
            no_bounce: b.no_bounce,
        })
        .collect();
    if input.ground {
        let h = Fx::from_int(50);
        solids.push(Solid {
            bounds: Aabb::new(
                Vec3::new(-h, Fx::from_int(-1), -h),
                Vec3::new(h, Fx::ZERO, h),
            ),
            no_bounce: false,
        });
    }
    let ramps = input
        .ramps
        .iter()
        .take(RAMPS_MAX)
        .map(|r| Ramp {
            normal: Coord::vec(r.normal, Fx::ONE),
            point: Coord::vec(r.point, RANGE),
            bounds: r.bounds.map(BoxIn::aabb),
            no_bounce: r.no_bounce,
        })
        .collect();
    let platforms = input
        .platforms
        .iter()
        .take(PLATFORMS_MAX)
        .map(|p| {
            let from = Coord::vec(p.min, RANGE);
            let period = Fx::lit("0.1") + Fx::from_ratio(i64::from(p.period), 1000);
            // Average speed 2·|travel|/period ≤ 50 m/s: |travel| ≤ 24·period keeps a margin.
            let travel = Coord::vec(p.travel, RANGE).clamp_length(period * Fx::from_int(24));
            let size = Vec3::new(
                Fx::lit("0.05") + p.size[0].within_positive(Fx::from_int(4)),
                Fx::lit("0.05") + p.size[1].within_positive(Fx::from_int(4)),
                Fx::lit("0.05") + p.size[2].within_positive(Fx::from_int(4)),
            );
            Platform {
                size,
                path: Path::PingPong {
                    from,
                    to: from + travel,
                    period,
                },
                no_bounce: p.no_bounce,
            }
        })
        .collect();
    let zones = input
        .zone
        .iter()
        .map(|z| Zone {
            bounds: z.bounds.aabb(),
            gravity_scale: Fx::from_ratio(i64::from(z.gravity_scale) * 10, 255),
            wind: Coord::vec(z.wind, Fx::from_int(100)),
        })
        .collect();
    let checkpoints = input
        .checkpoint
        .iter()
        .map(|(b, spawn)| Checkpoint {
            bounds: b.aabb(),
            spawn: Coord::vec(*spawn, RANGE),
        })
        .collect();
    WorldDesc {
        name: "fuzz".into(),
        spawn: Coord::vec(input.spawn, RANGE),
        solids,
        ramps,
        platforms,
        zones,
        checkpoints,
        finishes: input.finish.iter().map(|b| b.aabb()).collect(),
        kills: input.kill.iter().map(|b| b.aabb()).collect(),
        bot_path: Vec::new(),
    }
}

/// The per-tick inputs of every player: `input.ticks` of them (at most `TICKS_MAX`), the
/// segments played in a loop.
fn tick_inputs(input: &Input, players: usize) -> Vec<Vec<TickInput>> {
    let length = usize::from(input.ticks) % (TICKS_MAX + 1);
    let neutral = [Segment {
        hold: 0,
        players: [InputIn::default(); 2],
    }];
    let segments = if input.segments.is_empty() {
        &neutral[..]
    } else {
        &input.segments[..]
    };
    let held = segments.iter().flat_map(|segment| {
        let inputs: Vec<TickInput> = segment.players[..players]
            .iter()
            .map(|p| p.masked())
            .collect();
        core::iter::repeat_n(inputs, 1 + usize::from(segment.hold % 16))
    });
    held.cycle().take(length).collect()
}

/// Other inputs for the detour: the stick mirrored, every button toggled.
fn detour_inputs(inputs: &[TickInput]) -> Vec<TickInput> {
    inputs
        .iter()
        .map(|i| TickInput {
            steer_x: i.steer_x.saturating_neg(),
            steer_z: i.steer_z.saturating_neg(),
            buttons: Buttons(i.buttons.0 ^ Buttons::ALL.0),
        })
        .collect()
}

/// Runs the oracles on `input`; panics naming the first that fails. Returns `false` for a
/// level or tuning the core rejects (skipped).
pub fn check(input: &Input) -> bool {
    let Some(tuning) = tuning::build(&input.tuning, OVERRIDES_MAX) else {
        return false;
    };
    let Ok(world) = World::new(world_desc(input), &tuning) else {
        return false;
    };
    let world = Arc::new(world);
    let players = if input.two_players { 2 } else { 1 };
    let ticks = tick_inputs(input, players);
    let Ok(mut first) = Simulation::new(world.clone(), tuning.clone(), players) else {
        return false;
    };
    let checked_for_overlap = static_and_clear(&world, &tuning);

    // The first run, uninterrupted: every state kept, every tick's invariants checked.
    let mut states = vec![first.state().clone()];
    for (tick, inputs) in ticks.iter().enumerate() {
        let before = first.state().clone();
        first.step(inputs);
        check_invariants(
            &before,
            first.state(),
            &tuning,
            &world,
            checked_for_overlap,
            tick,
        );
        states.push(first.state().clone());
    }

    // The second run: the same to tick k, a detour, a restore, and the same again to the end.
    let k = usize::from(input.snapshot_at) % (ticks.len() + 1);
    let mut second =
        Simulation::new(world, tuning, players).expect("the same arguments were accepted before");
    for (tick, inputs) in ticks[..k].iter().enumerate() {
        second.step(inputs);
        assert_same(
            &second,
            &states[tick + 1],
            tick,
            "a second run of the same inputs",
        );
    }
    let snapshot = second.snapshot();
    for tick in 0..usize::from(input.detour % 32) {
        let inputs = ticks
            .get(k + tick)
            .or(ticks.last())
            .cloned()
            .unwrap_or_default();
        second.step(&detour_inputs(&inputs));
    }
    second.restore(&snapshot);
    assert_same(&second, &states[k], k, "restoring the snapshot");
    for (tick, inputs) in ticks.iter().enumerate().skip(k) {
        second.step(inputs);
        let context = format!("continuing after a restore at tick {k}");
        assert_same(&second, &states[tick + 1], tick, &context);
    }
    true
}

#[track_caller]
fn assert_same(sim: &Simulation, expected: &SimState, tick: usize, what: &str) {
    assert_eq!(
        sim.state_hash(),
        expected.state_hash(),
        "{what}: the state hash after tick {tick} differs from the uninterrupted run's"
    );
    assert_eq!(
        sim.state(),
        expected,
        "{what}: the state after tick {tick} differs from the uninterrupted run's"
    );
}

/// Whether the world lets the no-overlap invariant hold by construction: nothing moves the
/// pogo but sweeps (no platforms carrying it into a box) and it never appears inside a box.
fn static_and_clear(world: &World, tuning: &Tuning) -> bool {
    let desc = world.desc();
    let body = capsule(tuning);
    let spawns = core::iter::once(desc.spawn).chain(desc.checkpoints.iter().map(|c| c.spawn));
    desc.platforms.is_empty()
        && spawns.into_iter().all(|p| {
            desc.solids
                .iter()
                .all(|s| depenetrate_box(&body, p, &s.bounds).is_none())
        })
}

fn check_invariants(
    before: &SimState,
    after: &SimState,
    tuning: &Tuning,
    world: &World,
    check_overlap: bool,
    tick: usize,
) {
    let derived = tuning.derived();
    let spec = tuning.spec();
    let body = capsule(tuning);
    for (i, (old, p)) in before.pogos.iter().zip(&after.pogos).enumerate() {
        let at = || format!("tick {tick}, pogo {i}: {p:#?}");
        assert!(
            within(p.velocity, SPEED_MAX),
            "velocity beyond SPEED_MAX: {}",
            at()
        );
        assert_eq!(
            p.state == State::Compression,
            p.compression.is_some(),
            "state and compression disagree: {}",
            at()
        );
        if let Some(c) = &p.compression {
            assert!(
                c.ticks_left >= 1,
                "a compression with no tick left: {}",
                at()
            );
        }
        if p.state == State::Finished {
            assert!(
                p.finish_tick.is_some(),
                "finished without a finish tick: {}",
                at()
            );
        }
        if let Some(m) = &p.tip_memory {
            assert!(
                m.age <= spec.tip_grace_ticks,
                "a tip contact remembered beyond the grace window: {}",
                at()
            );
        }
        let lean = Vec3::new(p.lean.x, Fx::ZERO, p.lean.z);
        assert!(
            lean.length() <= derived.lean_max_sin,
            "lean beyond max_lean_angle: {}",
            at()
        );
        assert!(
            p.stun_ticks_left <= derived.stun_ticks.0,
            "stunned longer than stun_time: {}",
            at()
        );
        assert!(
            p.apex >= p.position.y,
            "the apex is below the tip: {}",
            at()
        );
        assert!(p.bounces >= old.bounces, "the bounce count fell: {}", at());
        if p.events.contains(Events::BOUNCE) {
            assert!(
                p.bounces > old.bounces,
                "a BOUNCE event without a counted bounce: {}",
                at()
            );
        }
        if check_overlap {
            for (j, s) in world.desc().solids.iter().enumerate() {
                if let Some((depth, _)) = depenetrate_box(&body, p.position, &s.bounds) {
                    assert!(
                        depth - SKIN <= TOLERANCE,
                        "the capsule ends the tick {} m inside solids[{j}] {:?}: {}",
                        depth - SKIN,
                        s.bounds,
                        at()
                    );
                }
            }
        }
    }
}
