//! A pogo tick beside the closest rapier3d workloads, on the boxes of the `course` level.
//!
//! - `compare/pogo_fixed` is pogo's tick as `benches/tick.rs` of the main workspace times it:
//!   `Simulation::step` of one pogo on `course`, replaying the demo bot's recorded inputs
//!   (recorded once before timing; the bot's decisions are not timed), restored to tick 0
//!   (untimed) when the run ends. The figure is the mean tick of the whole run.
//! - `compare/rapier_kcc_path` is rapier's kinematic character controller moving a capsule of
//!   pogo's dimensions (`body_height` 1.6 m from tip to top, `body_radius` 0.25 m) along pogo's
//!   own path: before tick k the capsule is placed where pogo's was, and
//!   `KinematicCharacterController::move_shape` is asked for pogo's displacement of that tick,
//!   against `course`'s 21 boxes as static colliders. The collision work a kinematic
//!   controller does for the same run.
//! - `compare/rapier_kcc_bounce` is the same controller driving a bouncing capsule by itself:
//!   gravity integrated at 60 Hz (pogo's 24 m/s²), a re-launch upward at pogo's steady bounce
//!   speed whenever the controller reports the capsule grounded while falling, and a constant
//!   forward speed, the bot's mean over its run. One iteration is one tick: the velocity
//!   update, `move_shape`, the position update. The run restarts (untimed) after as many ticks
//!   as the bot's run, or when the capsule falls into a pit (it does not steer).
//! - `compare/rapier_pipeline` is a full `PhysicsPipeline::step` (through `PhysicsWorld`) of a
//!   dynamic capsule body of the same size, rotations locked, no friction, restitution 1
//!   (combined by maximum), launched with the same velocity, among the same 21 fixed boxes;
//!   restarted like the bouncing one.
//!
//! What is not the same: rapier is general-purpose f32 (not bit-reproducible across platforms
//! without its `enhanced-determinism` feature), pogo is 32.32 fixed point with exact sweeps and
//! its rules (lean, steering, zones, checkpoints, the state machine, the two ramps and two
//! moving platforms of `course`, which the rapier scenes leave out). See PERFORMANCE.md.
//!
//! `cargo bench -- --warm-up-time 1 --measurement-time 3` in this directory (its own
//! workspace: the main workspace never builds rapier).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use pogo_core::bot::Bot;
use pogo_core::world::World;
use pogo_core::{Fx, Input, Simulation, Snapshot, Tuning};
use rapier3d::control::KinematicCharacterController;
use rapier3d::prelude::*;

const LEVEL: &str = "course";

fn f(x: Fx) -> f32 {
    (x.to_bits() as f64 / 4_294_967_296.0) as f32
}

/// The bot's run on `course`, recorded.
struct Recorded {
    sim: Simulation,
    start: Snapshot,
    inputs: Vec<Input>,
    /// The tip's position before the first tick and after each.
    tips: Vec<Vector>,
}

fn record() -> Recorded {
    let tuning = Tuning::default();
    let desc = pogo_replay::builtin_level(LEVEL).expect("built-in level");
    let world = World::new(desc, &tuning).expect("a valid level");
    let mut sim = Simulation::new(Arc::new(world), tuning, 1).expect("one player");
    let start = sim.snapshot();
    let mut bot = Bot::new();
    let mut inputs = Vec::new();
    let tip = |sim: &Simulation| {
        let p = sim.state().pogos[0].position;
        Vector::new(f(p.x), f(p.y), f(p.z))
    };
    let mut tips = vec![tip(&sim)];
    while inputs.len() < 20_000 {
        let input = bot.input(sim.world(), sim.tuning(), &sim.state().pogos[0]);
        sim.step(&[input]);
        inputs.push(input);
        tips.push(tip(&sim));
        if sim.state().pogos[0].finish_tick.is_some() {
            break;
        }
    }
    let end = sim.state().pogos[0];
    eprintln!(
        "pogo: {} ticks to the finish, {} bounces, tip from x 0 to x {:.1} m",
        inputs.len(),
        end.bounces,
        f(end.position.x)
    );
    sim.restore(&start);
    Recorded {
        sim,
        start,
        inputs,
        tips,
    }
}

/// What the rapier runs copy from pogo's tuning and the bot's run.
struct Params {
    dt: f32,
    gravity: f32,
    half_height: f32,
    radius: f32,
    /// Upward speed of a steady bounce: `base_bounce_speed / (1 − impact_transfer)`, where a
    /// bounce that lands at its launch speed launches at that speed again (12.63 m/s, a 3.32 m
    /// apex with the default tuning).
    bounce_speed: f32,
    /// The bot's mean forward speed over its run.
    forward_speed: f32,
    ticks: usize,
}

fn params(run: &Recorded) -> Params {
    let spec = run.sim.tuning().spec();
    let dt = 1.0 / spec.tick_rate as f32;
    let mut sim = run.sim.clone();
    for input in &run.inputs {
        sim.step(&[*input]);
    }
    let distance = f(sim.state().pogos[0].position.x) - f(run.sim.state().pogos[0].position.x);
    let radius = f(spec.body_radius);
    Params {
        dt,
        gravity: f(spec.gravity),
        half_height: f(spec.body_height) / 2.0 - radius,
        radius,
        bounce_speed: f(spec.base_bounce_speed) / (1.0 - f(spec.impact_transfer)),
        forward_speed: distance / (run.inputs.len() as f32 * dt),
        ticks: run.inputs.len(),
    }
}

/// `course`'s boxes as fixed cuboid colliders (no parent body).
fn add_boxes(world: &mut PhysicsWorld) -> usize {
    let desc = pogo_replay::builtin_level(LEVEL).expect("built-in level");
    for solid in &desc.solids {
        let (lo, hi) = (solid.bounds.min, solid.bounds.max);
        let half = Vector::new(
            f(hi.x - lo.x) / 2.0,
            f(hi.y - lo.y) / 2.0,
            f(hi.z - lo.z) / 2.0,
        );
        let centre = Vector::new(f(lo.x) + half.x, f(lo.y) + half.y, f(lo.z) + half.z);
        world.insert_collider(
            ColliderBuilder::cuboid(half.x, half.y, half.z).translation(centre),
            None,
        );
    }
    desc.solids.len()
}

/// A capsule whose centre is this low has fallen into a pit (every floor's top is at y ≥ 0,
/// every box's bottom at y = −4): the run restarts, untimed. Without `course`'s moving
/// platforms, the only way over its 24 m gap, a bouncing capsule ends there at the latest.
const FALLEN: f32 = -4.0;

/// The spawn: the tip on `course`'s start floor (y = 0), just launched.
fn start_centre(p: &Params) -> Vector {
    Vector::new(0.0, p.half_height + p.radius + 0.01, 0.0)
}

/// The character-controller pogo.
struct Kcc {
    world: PhysicsWorld,
    controller: KinematicCharacterController,
    shape: SharedShape,
    p: Params,
    pos: Pose,
    vy: f32,
    tick: usize,
    bounces: u32,
}

impl Kcc {
    fn new(p: Params) -> Kcc {
        let mut world = PhysicsWorld::default();
        add_boxes(&mut world);
        // Builds the broad phase's tree of the static colliders, which the queries read.
        world.detect_collisions(&(), &());
        let controller = KinematicCharacterController {
            // Pogo neither steps up nor snaps down: it bounces.
            autostep: None,
            snap_to_ground: None,
            ..Default::default()
        };
        let shape = SharedShape::capsule_y(p.half_height, p.radius);
        let mut kcc = Kcc {
            world,
            controller,
            shape,
            pos: Pose::IDENTITY,
            vy: 0.0,
            tick: 0,
            bounces: 0,
            p,
        };
        kcc.restart();
        kcc
    }

    fn restart(&mut self) {
        self.pos = Pose::from_translation(start_centre(&self.p));
        self.vy = self.p.bounce_speed;
        self.tick = 0;
    }

    fn step(&mut self) {
        let p = &self.p;
        self.vy -= p.gravity * p.dt;
        let desired = Vector::new(p.forward_speed * p.dt, self.vy * p.dt, 0.0);
        let w = &self.world;
        let queries = w.broad_phase.as_query_pipeline(
            w.narrow_phase.query_dispatcher(),
            &w.bodies,
            &w.colliders,
            QueryFilter::default(),
        );
        let moved =
            self.controller
                .move_shape(p.dt, &queries, &*self.shape, &self.pos, desired, |_| {});
        self.pos.translation += moved.translation;
        if moved.grounded && self.vy <= 0.0 {
            self.vy = p.bounce_speed;
            self.bounces += 1;
        } else if moved.translation.y < desired.y * 0.5 && self.vy > 0.0 {
            self.vy = 0.0; // a ceiling
        }
        self.tick += 1;
    }

    fn done(&self) -> bool {
        self.tick >= self.p.ticks || self.pos.translation.y < FALLEN
    }

    fn step_timed(&mut self, n: u64) -> Duration {
        let mut total = Duration::ZERO;
        let mut left = n;
        while left > 0 {
            if self.done() {
                self.restart();
            }
            let started = Instant::now();
            while left > 0 && !self.done() {
                self.step();
                left -= 1;
            }
            total += started.elapsed();
            black_box(&self.pos);
        }
        total
    }
}

/// The character controller moving the capsule along pogo's own path: before tick k the capsule
/// is placed where pogo's was, and `move_shape` is asked for pogo's displacement of that tick.
/// The same capsule, the same boxes, the same motion, tick for tick: the collision queries a
/// kinematic controller makes for pogo's run.
struct Path {
    world: PhysicsWorld,
    controller: KinematicCharacterController,
    shape: SharedShape,
    centres: Vec<Vector>,
    next: usize,
    /// Ticks whose movement the controller shortened or turned (by more than 1 mm).
    blocked: usize,
}

impl Path {
    fn new(run: &Recorded, p: &Params) -> Path {
        let mut world = PhysicsWorld::default();
        add_boxes(&mut world);
        world.detect_collisions(&(), &());
        let lift = Vector::new(0.0, p.half_height + p.radius, 0.0);
        Path {
            world,
            controller: KinematicCharacterController {
                autostep: None,
                snap_to_ground: None,
                ..Default::default()
            },
            shape: SharedShape::capsule_y(p.half_height, p.radius),
            centres: run.tips.iter().map(|t| *t + lift).collect(),
            next: 0,
            blocked: 0,
        }
    }

    fn step(&mut self) -> Vector {
        let k = self.next;
        let (from, to) = (self.centres[k], self.centres[k + 1]);
        let w = &self.world;
        let queries = w.broad_phase.as_query_pipeline(
            w.narrow_phase.query_dispatcher(),
            &w.bodies,
            &w.colliders,
            QueryFilter::default(),
        );
        let moved = self.controller.move_shape(
            1.0 / 60.0,
            &queries,
            &*self.shape,
            &Pose::from_translation(from),
            to - from,
            |_| {},
        );
        self.next += 1;
        moved.translation
    }

    fn step_timed(&mut self, mut n: u64) -> Duration {
        let mut total = Duration::ZERO;
        while n > 0 {
            if self.next + 1 == self.centres.len() {
                self.next = 0;
            }
            let started = Instant::now();
            while n > 0 && self.next + 1 < self.centres.len() {
                black_box(self.step());
                n -= 1;
            }
            total += started.elapsed();
        }
        total
    }
}

/// The dynamic-body pogo: a full physics step a tick.
struct Dynamic {
    world: PhysicsWorld,
    body: RigidBodyHandle,
    p: Params,
    tick: usize,
}

impl Dynamic {
    fn new(p: Params) -> Dynamic {
        let mut world = PhysicsWorld {
            gravity: Vector::new(0.0, -p.gravity, 0.0),
            ..Default::default()
        };
        world.integration_parameters.dt = p.dt;
        add_boxes(&mut world);
        let (body, _) = world.insert(
            RigidBodyBuilder::dynamic()
                .translation(start_centre(&p))
                .linvel(Vector::new(p.forward_speed, p.bounce_speed, 0.0))
                .lock_rotations(),
            ColliderBuilder::capsule_y(p.half_height, p.radius)
                .restitution(1.0)
                .restitution_combine_rule(CoefficientCombineRule::Max)
                .friction(0.0)
                .friction_combine_rule(CoefficientCombineRule::Min),
        );
        Dynamic {
            world,
            body,
            p,
            tick: 0,
        }
    }

    fn restart(&mut self) {
        let b = &mut self.world.bodies[self.body];
        b.set_translation(start_centre(&self.p), true);
        b.set_linvel(
            Vector::new(self.p.forward_speed, self.p.bounce_speed, 0.0),
            true,
        );
        self.tick = 0;
    }

    fn done(&self) -> bool {
        self.tick >= self.p.ticks || self.world.bodies[self.body].translation().y < FALLEN
    }

    fn step_timed(&mut self, n: u64) -> Duration {
        let mut total = Duration::ZERO;
        let mut left = n;
        while left > 0 {
            if self.done() {
                self.restart();
            }
            let started = Instant::now();
            while left > 0 && !self.done() {
                self.world.step();
                self.tick += 1;
                left -= 1;
            }
            total += started.elapsed();
        }
        total
    }
}

fn compare(c: &mut Criterion) {
    let run = record();
    let p = params(&run);
    eprintln!(
        "rapier runs: capsule half-height {:.2} m + radius {:.2} m, gravity {} m/s², \
         bounce {:.2} m/s, forward {:.2} m/s, {} ticks a run",
        p.half_height, p.radius, p.gravity, p.bounce_speed, p.forward_speed, p.ticks
    );

    // What each rapier run does over one run's length, untimed (so a scene that never lands,
    // or falls off at once, shows here).
    let mut path = Path::new(&run, &p);
    while path.next + 1 < path.centres.len() {
        let k = path.next;
        let moved = path.step();
        if (moved - (path.centres[k + 1] - path.centres[k])).length() > 1e-3 {
            path.blocked += 1;
        }
    }
    eprintln!(
        "rapier_kcc_path: {} ticks, the controller shortened or turned {} of the moves",
        path.next, path.blocked
    );
    path.next = 0;

    let mut kcc = Kcc::new(params(&run));
    while !kcc.done() {
        kcc.step();
    }
    eprintln!(
        "rapier_kcc_bounce: {} bounces in {} ticks, centre at x {:.1} y {:.2} m",
        kcc.bounces, kcc.tick, kcc.pos.translation.x, kcc.pos.translation.y
    );
    assert!(kcc.bounces > 2, "the controller's capsule never lands");
    let mut dynamic = Dynamic::new(params(&run));
    let (mut lowest, mut highest, mut bounces, mut last_vy) = (f32::MAX, f32::MIN, 0, 1.0);
    while !dynamic.done() {
        dynamic.world.step();
        dynamic.tick += 1;
        let body = &dynamic.world.bodies[dynamic.body];
        lowest = lowest.min(body.translation().y);
        highest = highest.max(body.translation().y);
        if last_vy < 0.0 && body.linvel().y > 0.0 {
            bounces += 1;
        }
        last_vy = body.linvel().y;
    }
    let end = dynamic.world.bodies[dynamic.body].translation();
    eprintln!(
        "rapier_pipeline: {bounces} bounces in {} ticks, centre at x {:.1} y {:.2} m \
         (lowest {lowest:.2}, highest {highest:.2})",
        dynamic.tick, end.x, end.y
    );
    assert!(bounces > 2, "the dynamic capsule never bounces");
    kcc.restart();
    dynamic.restart();

    let mut group = c.benchmark_group("compare");
    let mut sim = run.sim.clone();
    let mut next = 0;
    group.bench_function("pogo_fixed", |b| {
        b.iter_custom(|mut n| {
            let mut total = Duration::ZERO;
            while n > 0 {
                if next == run.inputs.len() {
                    sim.restore(&run.start);
                    next = 0;
                }
                let chunk = (run.inputs.len() - next).min(n as usize);
                let inputs = &run.inputs[next..next + chunk];
                let started = Instant::now();
                for input in inputs {
                    sim.step(std::slice::from_ref(input));
                }
                total += started.elapsed();
                black_box(sim.state());
                next += chunk;
                n -= chunk as u64;
            }
            total
        })
    });
    group.bench_function("rapier_kcc_path", |b| b.iter_custom(|n| path.step_timed(n)));
    group.bench_function("rapier_kcc_bounce", |b| {
        b.iter_custom(|n| kcc.step_timed(n))
    });
    group.bench_function("rapier_pipeline", |b| {
        b.iter_custom(|n| dynamic.step_timed(n))
    });
    group.finish();
}

criterion_group!(benches, compare);
criterion_main!(benches);
