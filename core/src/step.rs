//! The tick: one fixed pipeline of named stages, the same for every pogo and every tick.
//!
//! ```text
//! step(world, tuning, state, inputs)
//!   for each pogo, with its input:
//!     1. respawn      a pogo marked Respawn is placed at its respawn point (teleport)
//!     2. controls     lean follows the stick; stun and trick timers; a trick starts on a press
//!     3. motion       Compression: ride the surface, launch when the compression ends
//!                     otherwise: forces (gravity, zones, steering), out of any overlap
//!                     (after a ride or a teleport), the exact constant-acceleration update,
//!                     swept against the world; each touch is classified (bounce, ricochet,
//!                     body hit, ignored) and answered; a remembered tip contact may still
//!                     bounce within the grace window
//!     4. volumes      checkpoints, finish, kill volumes, kill height, world bounds
//!     5. bookkeeping  buttons held, apex
//!   tick += 1
//! ```
//!
//! Nothing here can fail or panic: every input is a legal input (a missing player's input is
//! neutral), every arithmetic operation saturates or is proven in range, every loop is
//! bounded. The hot path uses the in-range operations (`Fx::add_in_range` and kin, each proof
//! checked by a debug assertion) where the bounds that `docs/tick.md`, "Bounds", derives
//! prove the result representable; each use names the one it relies on: (E) entry, (D)
//! displacement, (P) position, (V) velocity, (G) geometry.

use crate::air;
use crate::collision::{NEARBY_MAX, depenetrate, first_touch, may_overlap, nearby, swept_region};
use crate::contact::{self, Contact, Ignored, Verdict};
use crate::ctx::Ctx;
use crate::fx::Fx;
use crate::input::{Buttons, Input};
use crate::launch::{self, Landing};
use crate::motion;
use crate::neighbourhood::{self, Neighbourhood};
use crate::pogo::{Compression, Events, Launch, Pogo, State, TipMemory};
use crate::sweep::Touch;
use crate::tick::Ticks;
use crate::tuning::Tuning;
use crate::vec3::{InRange, Vec3};
use crate::world::{COORDINATE_MAX, PlatformMove, SurfaceId, VolumeKind, World};

/// Most sweeps in one tick: each touch that deflects the pogo starts a new one.
pub(crate) const SWEEPS_MAX: usize = 4;
/// Bound on every velocity component (m/s), whatever winds and platforms do: keeps the state
/// far inside the scalar's range.
pub const SPEED_MAX: Fx = Fx::from_int(200);
/// Bound (m) on every coordinate of a pogo's position when its tick starts (bound (E),
/// `docs/tick.md`): 2²⁰ m, ten times `COORDINATE_MAX`, so that every pogo a tick leaves is well
/// within it; a position edited beyond it is clamped to it.
pub const POSITION_MAX: Fx = Fx::from_int(1 << 20);
const _: () = assert!(POSITION_MAX.to_bits() > 10 * COORDINATE_MAX.to_bits());

/// Advances every pogo by one tick. `pogos[i]` uses `inputs[i]` (neutral if missing) and
/// `hoods[i]`, what it keeps of the world around it (one per pogo: `neighbourhood.rs`).
pub(crate) fn step(
    world: &World,
    tuning: &Tuning,
    tick: Ticks,
    pogos: &mut [Pogo],
    hoods: &mut [Neighbourhood],
    inputs: &[Input],
) {
    debug_assert_eq!(pogos.len(), hoods.len(), "a neighbourhood per pogo");
    let ctx = Ctx::new(world, tuning, tick);
    for (i, (pogo, hood)) in pogos.iter_mut().zip(hoods).enumerate() {
        let input = inputs.get(i).copied().unwrap_or_default().normalized();
        step_pogo(&ctx, pogo, hood, input);
    }
}

/// [`step`], metered: `costs[i]` is set to the work of pogo `i`'s tick, in the cost model's
/// units (`crate::cost`). The same tick as `step`, bit for bit: the meter only counts.
#[cfg(feature = "meter")]
pub(crate) fn step_metered(
    world: &World,
    tuning: &Tuning,
    tick: Ticks,
    pogos: &mut [Pogo],
    hoods: &mut [Neighbourhood],
    inputs: &[Input],
    costs: &mut [u64],
) {
    let ctx = Ctx::new(world, tuning, tick);
    for (i, (pogo, hood)) in pogos.iter_mut().zip(hoods).enumerate() {
        let input = inputs.get(i).copied().unwrap_or_default().normalized();
        ctx.meter.set(0);
        step_pogo(&ctx, pogo, hood, input);
        if let Some(cost) = costs.get_mut(i) {
            *cost = ctx.meter.get();
        }
    }
}

/// [`step`] without the first sweep's lookup: what the lookup must not change
/// (`collision::tests`).
#[cfg(test)]
pub(crate) fn step_without_lookup(
    world: &World,
    tuning: &Tuning,
    tick: Ticks,
    pogos: &mut [Pogo],
    inputs: &[Input],
) {
    let ctx = Ctx {
        lookup: false,
        ..Ctx::new(world, tuning, tick)
    };
    for (i, pogo) in pogos.iter_mut().enumerate() {
        let input = inputs.get(i).copied().unwrap_or_default().normalized();
        let mut hood = Neighbourhood::EMPTY; // unused: the lookup is off
        step_pogo(&ctx, pogo, &mut hood, input);
    }
}

fn step_pogo(ctx: &Ctx, pogo: &mut Pogo, hood: &mut Neighbourhood, input: Input) {
    pogo.events = Events::NONE;
    match pogo.state {
        State::Finished => {
            pogo.buttons_held = input.buttons;
            return;
        }
        State::Respawn => respawn(ctx, pogo),
        State::Airborne | State::Compression | State::Stunned => {}
    }
    // Bound (E): the tick's own states are within it already.
    let p = &mut pogo.position;
    let c = |x: Fx| x.clamp(-POSITION_MAX, POSITION_MAX);
    *p = Vec3::new(c(p.x), c(p.y), c(p.z));
    pogo.velocity = clamp_speed(pogo.velocity);
    let stick = input.stick();
    controls(ctx, pogo, input, stick);
    if pogo.state == State::Compression {
        ride(ctx, pogo);
    } else {
        fly(ctx, pogo, hood, input, stick);
    }
    volumes(ctx, pogo, hood);
    pogo.buttons_held = input.buttons;
    pogo.apex = pogo.apex.max(pogo.position.y);
}

// ---------------------------------------------------------------------------------------------
// 1. Respawn

fn respawn(ctx: &Ctx, pogo: &mut Pogo) {
    let spawn = pogo
        .checkpoint
        .map_or(ctx.world.spawn(), |i| ctx.world.checkpoint(i).spawn);
    *pogo = Pogo {
        state: State::Airborne,
        position: spawn,
        apex: pogo.apex,
        bounces: pogo.bounces,
        checkpoint: pogo.checkpoint,
        buttons_held: pogo.buttons_held,
        ..Pogo::new(spawn)
    };
    pogo.events.insert(Events::TELEPORT);
}

// ---------------------------------------------------------------------------------------------
// 2. Controls

fn controls(ctx: &Ctx, pogo: &mut Pogo, input: Input, stick: Vec3) {
    if pogo.stun_ticks_left > 0 {
        pogo.stun_ticks_left -= 1;
        if pogo.stun_ticks_left == 0 && pogo.state == State::Stunned {
            pogo.state = State::Airborne;
        }
    }
    let stick = if pogo.stun_ticks_left > 0 {
        Vec3::ZERO
    } else {
        stick
    };
    // `Input::stick` is within the unit circle, as `follow` would clamp it.
    pogo.lean = pogo.lean.follow_unit_stick(stick, ctx.tuning);

    match pogo.trick_ticks_left {
        Some(left) => pogo.trick_ticks_left = Some(left.saturating_sub(1)),
        None => {
            let pressed = input.buttons.contains(Buttons::TRICK)
                && !pogo.buttons_held.contains(Buttons::TRICK);
            if pressed && pogo.state == State::Airborne {
                pogo.trick_ticks_left = Some(ctx.tuning.derived().trick_ticks.0);
                pogo.events.insert(Events::TRICK_STARTED);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3a. Motion while compressed

/// Moves with the surface for one tick; launches when the compression ends.
fn ride(ctx: &Ctx, pogo: &mut Pogo) {
    let Some(mut c) = pogo.compression else {
        pogo.state = State::Airborne; // unreachable by construction; recover rather than panic
        return;
    };
    let displacement = surface_displacement(ctx, c.surface);
    pogo.position += displacement;
    pogo.velocity = displacement * tick_rate(ctx);
    c.ticks_left = c.ticks_left.saturating_sub(1);
    if c.ticks_left > 0 {
        pogo.compression = Some(c);
        return;
    }
    let landing = Landing {
        normal: c.normal,
        lean_up: pogo.lean.up(),
        velocity: c.approach + pogo.velocity,
        surface_velocity: pogo.velocity,
        combo: pogo.combo,
    };
    pogo.velocity = clamp_speed(launch::compute(&landing, ctx.tuning).velocity);
    pogo.last_launch = Some(Launch {
        tick: ctx.tick,
        point: pogo.position,
        surface: c.surface,
    });
    pogo.compression = None;
    pogo.state = if pogo.stun_ticks_left > 0 {
        State::Stunned
    } else {
        State::Airborne
    };
    pogo.events.insert(Events::LAUNCH);
}

// ---------------------------------------------------------------------------------------------
// 3b. Motion in the air

fn fly(ctx: &Ctx, pogo: &mut Pogo, hood: &mut Neighbourhood, input: Input, stick: Vec3) {
    let acceleration = forces(ctx, pogo, hood, input, stick);
    age_tip_memory(ctx, pogo);
    // A pogo that starts the tick falling faster than terminal speed (carried down by a
    // fast platform) falls at terminal speed from the start.
    pogo.velocity = air::limit_fall_speed(pogo.velocity, ctx.tuning);
    let landed = move_and_collide(ctx, pogo, hood, acceleration);
    if !landed {
        bounce_on_remembered_contact(ctx, pogo);
    }
    pogo.velocity = clamp_speed(air::limit_fall_speed(pogo.velocity, ctx.tuning));
}

/// Acceleration (m/s²) this tick: gravity (scaled for falling, diving and zones), zone winds,
/// and steering when not stunned.
fn forces(ctx: &Ctx, pogo: &Pogo, hood: &mut Neighbourhood, input: Input, stick: Vec3) -> Vec3 {
    let mut gravity_scale = Fx::ONE;
    let mut wind = Vec3::ZERO;
    let centre = body_centre(ctx, pogo.position);
    neighbourhood::for_each_volume_at(ctx, hood, centre, true, |kind| {
        if let VolumeKind::Zone(i) = kind {
            let zone = ctx.world.zone(i);
            gravity_scale = gravity_scale * zone.gravity_scale;
            wind += zone.wind;
        }
    });
    let diving = input.buttons.contains(Buttons::DIVE);
    let gravity = air::gravity(pogo.velocity.y, diving, gravity_scale, ctx.tuning);
    let steering = if pogo.state == State::Airborne {
        // In range: the stick is within the unit circle, and the velocity is the tick's
        // entry velocity (E), whose squared horizontal length is at most 2·200².
        air::steering_with::<InRange>(stick, pogo.velocity, ctx.tuning)
    } else {
        Vec3::ZERO
    };
    Vec3::new(Fx::ZERO, gravity, Fx::ZERO) + wind + steering
}

/// Moves the pogo through the tick: out of any overlap, then sweeps against the world,
/// answering each touch. Returns whether it landed (and is now compressing).
///
/// What lies near the first sweep's path is looked up once, before depenetrating, and serves
/// both (`collision.rs` says why that changes no result).
fn move_and_collide(
    ctx: &Ctx,
    pogo: &mut Pogo,
    hood: &mut Neighbourhood,
    acceleration: Vec3,
) -> bool {
    let dt = ctx.tuning.derived().dt;
    // In range: a velocity (V) and what an acceleration adds over at most a tick (D).
    let limit = |acceleration, velocity, duration| {
        air::limit_fall_acceleration_with::<InRange>(acceleration, velocity, duration, ctx.tuning)
    };
    // The first sweep lasts the whole tick: its dt²/2 is the tuning's.
    let first = displacement(
        pogo.velocity,
        limit(acceleration, pogo.velocity, dt),
        dt,
        ctx.tuning.derived().half_dt_squared,
    );
    let first_region = swept_region(ctx, pogo.position, first);
    // Out of any overlap (after a ride or a teleport), unless the lookup shows there is none.
    let mut ids = [0; NEARBY_MAX];
    let mut nearby = nearby(ctx, &first_region, &mut ids, hood);
    if nearby.is_none_or(|nearby| may_overlap(ctx, pogo.position, &nearby)) {
        depenetrate(ctx, pogo);
        nearby = None;
    }
    let mut remaining = Fx::ONE; // fraction of the tick still to move
    let mut constraints = [Vec3::ZERO; SWEEPS_MAX];
    let mut constraint_count = 0;
    for _ in 0..SWEEPS_MAX {
        pogo.velocity = slide_along(pogo.velocity, &constraints[..constraint_count]);
        let duration = dt.mul_in_range(remaining); // both within 0…1

        let acceleration = limit(
            slide_along(acceleration, &constraints[..constraint_count]),
            pogo.velocity,
            duration,
        );
        // With `nearby` kept, nothing has changed since `first` was computed.
        let (d, swept) = match nearby {
            Some(_) => (first, first_region),
            None => {
                let half_duration_squared = duration.mul_in_range(duration).half(); // ≤ dt²
                let d = displacement(pogo.velocity, acceleration, duration, half_duration_squared);
                (d, swept_region(ctx, pogo.position, d))
            }
        };
        let Some((touch, surface)) = first_touch(
            ctx,
            pogo.position,
            d,
            &swept,
            Fx::ONE.sub_in_range(remaining), // remaining within 0…1
            remaining,
            nearby.take(),
        ) else {
            pogo.position = pogo.position.add_in_range(d); // (P)
            pogo.velocity = air::limit_fall_speed(
                pogo.velocity.add_in_range(gained(acceleration, duration)),
                ctx.tuning,
            );
            return false;
        };
        // t within 0…1: |d·t| ≤ |d|, and the new position is within (P).
        pogo.position = pogo.position.add_in_range(d.scale_in_range(touch.t));
        // The limit holds up to rounding already; the clamp makes it exact for the impact.
        pogo.velocity = air::limit_fall_speed(
            pogo.velocity
                .add_in_range(gained(acceleration, duration.mul_in_range(touch.t))),
            ctx.tuning,
        );
        remaining = remaining.mul_in_range(Fx::ONE.sub_in_range(touch.t)); // both within 0…1
        match answer_touch(ctx, pogo, &touch, surface, remaining) {
            Answer::Landed => return true,
            Answer::Deflected => {}
            Answer::Blocked => {
                constraints[constraint_count] = touch.normal;
                constraint_count += 1;
            }
        }
    }
    // Out of sweeps (a tight corner): stay at the last safe position for the rest of the tick.
    false
}

/// How far a body moving at `velocity` with constant `acceleration` goes in `duration` (s,
/// at most a tick), given `half_duration_squared` = `duration · duration / 2` (s², as `Fx`
/// computes it): the exact update's displacement, [`motion`]'s.
///
/// In range for any velocity and acceleration (bound (D)): each product is at most
/// 2³¹ · 1/10 or 2³¹ · 1/200, and so is its sum.
fn displacement(
    velocity: Vec3,
    acceleration: Vec3,
    duration: Fx,
    half_duration_squared: Fx,
) -> Vec3 {
    motion::displacement_with::<InRange>(velocity, acceleration, duration, half_duration_squared)
}

/// The velocity (m/s) an acceleration adds over `duration` (s, at most a tick), [`motion`]'s:
/// in range for any acceleration, as in (D) (at most 2³¹ · 1/10 per axis); so is its sum
/// with a velocity (V).
fn gained(acceleration: Vec3, duration: Fx) -> Vec3 {
    motion::gained_with::<InRange>(acceleration, duration)
}

/// `v` without its components into any of the constraint normals.
fn slide_along(mut v: Vec3, normals: &[Vec3]) -> Vec3 {
    for &n in normals {
        let into = v.dot(n);
        if into < Fx::ZERO {
            v -= n * into;
        }
    }
    v
}

/// How a touch changed the pogo's course.
enum Answer {
    /// It bounced: compression has begun.
    Landed,
    /// Its velocity was reflected (ricochet).
    Deflected,
    /// The surface blocks it: it slides along.
    Blocked,
}

/// Classifies a fresh touch and applies its rule.
fn answer_touch(
    ctx: &Ctx,
    pogo: &mut Pogo,
    touch: &Touch,
    surface: SurfaceId,
    remaining: Fx,
) -> Answer {
    let surface_velocity = surface_velocity(ctx, surface);
    let normal_speed = (pogo.velocity - surface_velocity).dot(touch.normal);
    let contact = Contact {
        height_on_body: touch.height_on_body,
        no_bounce: no_bounce(ctx.world, surface),
        normal_speed,
        normal_y: touch.normal.y,
        since_launch: since_launch(ctx, pogo),
        age: Ticks::ZERO,
    };
    match contact::classify(&contact, ctx.tuning) {
        Verdict::Bounce => {
            land(ctx, pogo, touch.normal, surface, remaining);
            Answer::Landed
        }
        Verdict::Ricochet => {
            pogo.velocity =
                contact::ricochet(pogo.velocity, touch.normal, surface_velocity, ctx.tuning);
            pogo.combo = 0;
            pogo.events.insert(Events::RICOCHET);
            Answer::Deflected
        }
        Verdict::BodyHit { stun } => {
            pogo.events.insert(Events::BODY_HIT);
            if stun {
                stun_pogo(ctx, pogo);
            }
            block(pogo, touch.normal, surface_velocity);
            Answer::Blocked
        }
        Verdict::Ignore(reason) => {
            if matches!(reason, Ignored::Cooldown | Ignored::Separating) {
                pogo.tip_memory = Some(TipMemory {
                    normal: touch.normal,
                    surface,
                    age: 0,
                });
            }
            block(pogo, touch.normal, surface_velocity);
            Answer::Blocked
        }
    }
}

/// Removes the velocity's approach toward the surface (relative to the surface).
fn block(pogo: &mut Pogo, normal: Vec3, surface_velocity: Vec3) {
    let into = (pogo.velocity - surface_velocity).dot(normal);
    if into < Fx::ZERO {
        pogo.velocity -= normal * into;
    }
}

/// A bounce: combo and trick bookkeeping, then compression on the surface, riding it for
/// the `remaining` fraction of this tick.
fn land(ctx: &Ctx, pogo: &mut Pogo, normal: Vec3, surface: SurfaceId, remaining: Fx) {
    pogo.events.insert(Events::BOUNCE);
    pogo.bounces = pogo.bounces.saturating_add(1);
    // The hop is measured from the launch point carried along with the surface launched from
    // (bouncing in place on a moving platform is no hop), and a stunned pogo — no stick, its
    // lean returning upright — scores no perfect landing.
    let launch_point = pogo
        .last_launch
        .map(|launch| launch_point_carried(ctx, &launch, Fx::ONE - remaining));
    let stunned = pogo.stun_ticks_left > 0;
    if !stunned
        && contact::is_perfect_landing(
            pogo.lean.up(),
            normal,
            launch_point,
            pogo.position,
            ctx.tuning,
        )
    {
        pogo.combo = pogo.combo.saturating_add(1);
        pogo.events.insert(Events::PERFECT);
    }
    match pogo.trick_ticks_left.take() {
        Some(0) => {
            pogo.combo = pogo.combo.saturating_add(1);
            pogo.events.insert(Events::TRICK_LANDED);
        }
        Some(_) => {
            pogo.events.insert(Events::TRICK_FAILED);
            stun_pogo(ctx, pogo);
        }
        None => {}
    }
    let surface_velocity = surface_velocity(ctx, surface);
    pogo.compression = Some(Compression {
        ticks_left: ctx.tuning.derived().compression_ticks.0,
        normal,
        surface,
        approach: pogo.velocity - surface_velocity,
    });
    pogo.state = State::Compression;
    pogo.tip_memory = None;
    pogo.velocity = surface_velocity;
    pogo.position += surface_displacement(ctx, surface) * remaining;
}

/// Where `launch`'s point is `elapsed` (a fraction) into this tick if it moved with the
/// surface launched from: a platform's travel since the end of the launch tick is added;
/// static surfaces do not move.
fn launch_point_carried(ctx: &Ctx, launch: &Launch, elapsed: Fx) -> Vec3 {
    match launch.surface {
        SurfaceId::Platform(i) if i < ctx.world.platform_count() => {
            let PlatformMove { start, moved } = ctx.world.platform_during(i, ctx.tick);
            let then = ctx.world.platform_position(i, launch.tick.next());
            launch.point + (start.min + moved * elapsed - then)
        }
        SurfaceId::Platform(_) | SurfaceId::Solid(_) | SurfaceId::Ramp(_) => launch.point,
    }
}

fn stun_pogo(ctx: &Ctx, pogo: &mut Pogo) {
    pogo.stun_ticks_left = ctx.tuning.derived().stun_ticks.0;
    pogo.combo = 0;
    pogo.trick_ticks_left = None;
    if pogo.state == State::Airborne {
        pogo.state = State::Stunned;
    }
    pogo.events.insert(Events::STUN);
}

/// Ages the remembered tip contact; forgets it past the grace window.
fn age_tip_memory(ctx: &Ctx, pogo: &mut Pogo) {
    if let Some(m) = &mut pogo.tip_memory {
        m.age = m.age.saturating_add(1);
        if m.age > ctx.tuning.spec().tip_grace_ticks {
            pogo.tip_memory = None;
        }
    }
}

/// The grace window: a tip contact that could not bounce when touched may bounce now, if it
/// was touched at most `tip_grace_ticks` ago and now passes every check.
fn bounce_on_remembered_contact(ctx: &Ctx, pogo: &mut Pogo) {
    let Some(m) = pogo.tip_memory else { return };
    if m.age == 0 {
        return; // touched this very tick: it was just classified
    }
    let contact = Contact {
        height_on_body: Fx::ZERO,
        no_bounce: no_bounce(ctx.world, m.surface),
        normal_speed: (pogo.velocity - surface_velocity(ctx, m.surface)).dot(m.normal),
        normal_y: m.normal.y,
        since_launch: since_launch(ctx, pogo),
        age: Ticks(m.age),
    };
    if contact::classify(&contact, ctx.tuning) == Verdict::Bounce {
        land(ctx, pogo, m.normal, m.surface, Fx::ZERO);
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Volumes

fn volumes(ctx: &Ctx, pogo: &mut Pogo, hood: &mut Neighbourhood) {
    let mut finished = false;
    let mut killed = false;
    let mut checkpoint = pogo.checkpoint;
    let centre = body_centre(ctx, pogo.position);
    neighbourhood::for_each_volume_at(ctx, hood, centre, false, |kind| match kind {
        VolumeKind::Checkpoint(i) => checkpoint = Some(i),
        VolumeKind::Finish => finished = true,
        VolumeKind::Kill => killed = true,
        VolumeKind::Zone(_) => {}
    });
    if checkpoint != pogo.checkpoint {
        pogo.checkpoint = checkpoint;
        pogo.events.insert(Events::CHECKPOINT);
    }
    let p = pogo.position;
    let outside = [p.x, p.y, p.z].iter().any(|c| c.abs() > COORDINATE_MAX);
    killed |= p.y < ctx.tuning.spec().kill_height || outside;
    if finished {
        pogo.state = State::Finished;
        pogo.finish_tick = Some(ctx.tick);
        pogo.velocity = Vec3::ZERO;
        pogo.compression = None;
        pogo.events.insert(Events::FINISH);
    } else if killed {
        pogo.state = State::Respawn;
        pogo.velocity = Vec3::ZERO;
        // Only a compressing pogo has a compression: one killed on the tick it landed must
        // not carry it into the Respawn state (found by the tick fuzz target).
        pogo.compression = None;
        pogo.events.insert(Events::DEATH);
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// The body's centre for a tip within (P): in range (G).
fn body_centre(ctx: &Ctx, tip: Vec3) -> Vec3 {
    Vec3::new(tip.x, tip.y.add_in_range(ctx.half_height), tip.z)
}

fn since_launch(ctx: &Ctx, pogo: &Pogo) -> Ticks {
    pogo.last_launch
        .map_or(Ticks::MAX, |launch| ctx.tick.since(launch.tick))
}

/// How far a surface moves during this tick (m); zero for static geometry.
fn surface_displacement(ctx: &Ctx, surface: SurfaceId) -> Vec3 {
    match surface {
        SurfaceId::Platform(i) if i < ctx.world.platform_count() => {
            ctx.world.platform_during(i, ctx.tick).moved
        }
        SurfaceId::Platform(_) => Vec3::ZERO,
        SurfaceId::Solid(_) | SurfaceId::Ramp(_) => Vec3::ZERO,
    }
}

/// A surface's velocity during this tick (m/s): its displacement times the tick rate.
fn surface_velocity(ctx: &Ctx, surface: SurfaceId) -> Vec3 {
    surface_displacement(ctx, surface) * tick_rate(ctx)
}

fn tick_rate(ctx: &Ctx) -> Fx {
    Fx::from_int(ctx.tuning.spec().tick_rate as i32)
}

fn no_bounce(world: &World, surface: SurfaceId) -> bool {
    match surface {
        SurfaceId::Solid(i) => world.solid(i).no_bounce,
        SurfaceId::Platform(i) => world.platform(i).no_bounce,
        SurfaceId::Ramp(i) => world.ramp(i).no_bounce,
    }
}

fn clamp_speed(v: Vec3) -> Vec3 {
    let c = |x: Fx| x.clamp(-SPEED_MAX, SPEED_MAX);
    Vec3::new(c(v.x), c(v.y), c(v.z))
}
