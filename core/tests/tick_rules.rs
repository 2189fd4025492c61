//! The rules of the pogo through the full tick, in small hand-built worlds.

use std::sync::Arc;

use pogo_core::world::{
    Aabb, Checkpoint, Path, Platform, Ramp, Solid, SurfaceId, World, WorldDesc, Zone,
};
use pogo_core::{
    Buttons, Events, Fx, Input, Launch, Pogo, Simulation, State, Ticks, Tuning, TuningSpec, Vec3,
};

mod support;
use support::{fx, v};

fn aabb(min: Vec3, max: Vec3) -> Aabb {
    Aabb::new(min, max)
}

fn solid(min: Vec3, max: Vec3) -> Solid {
    Solid {
        bounds: aabb(min, max),
        no_bounce: false,
    }
}

/// A 400 m ground slab with its top at y = 0.
fn ground() -> Solid {
    solid(v("-200", "-1", "-200"), v("200", "0", "200"))
}

fn level(solids: Vec<Solid>) -> WorldDesc {
    WorldDesc {
        name: "test".into(),
        spawn: Vec3::ZERO,
        solids,
        ..WorldDesc::default()
    }
}

fn tuning(overrides: &[&str]) -> Tuning {
    let mut spec = TuningSpec::default();
    for o in overrides {
        spec.apply_override(o).unwrap();
    }
    Tuning::new(spec).unwrap()
}

fn sim(desc: WorldDesc, overrides: &[&str]) -> Simulation {
    let tuning = tuning(overrides);
    let world = Arc::new(World::new(desc, &tuning).unwrap());
    Simulation::new(world, tuning, 1).unwrap()
}

fn pogo(sim: &Simulation) -> &Pogo {
    &sim.state().pogos[0]
}

/// Puts the pogo in the air at `position` with `velocity`, launched long ago.
fn place(sim: &mut Simulation, position: Vec3, velocity: Vec3) {
    let p = &mut sim.state_mut().pogos[0];
    *p = Pogo {
        state: State::Airborne,
        position,
        velocity,
        ..Pogo::new(position)
    };
}

/// Steps until `stop` holds for the pogo (returning the tick it held after), at most `max`.
fn run_until(
    sim: &mut Simulation,
    input: Input,
    max: u32,
    mut stop: impl FnMut(&Pogo) -> bool,
) -> Option<u32> {
    for t in 0..max {
        sim.step(&[input]);
        if stop(pogo(sim)) {
            return Some(t);
        }
    }
    None
}

fn has(event: Events) -> impl Fn(&Pogo) -> bool {
    move |p| p.events.contains(event)
}

const NEUTRAL: Input = Input {
    steer_x: 0,
    steer_z: 0,
    buttons: Buttons::NONE,
};

fn within_percent(found: Fx, expected: Fx, percent: i32) -> bool {
    (found - expected).abs() * Fx::from_int(100) <= expected.abs() * Fx::from_int(percent)
}

/// Runs to the next launch and on to the landing after it: (launch speed, highest tip y).
fn hop(sim: &mut Simulation) -> (Fx, Fx) {
    run_until(sim, NEUTRAL, 400, has(Events::LAUNCH)).expect("a launch");
    let speed = pogo(sim).velocity.length();
    let mut apex = Fx::MIN;
    run_until(sim, NEUTRAL, 400, |p| {
        apex = apex.max(p.position.y);
        p.events.contains(Events::BOUNCE)
    })
    .expect("a landing");
    (speed, apex)
}

#[test]
fn flat_ground_settles_at_the_feedback_fixed_point() {
    for transfer in ["0.05", "0.35"] {
        let mut s = sim(
            level(vec![ground()]),
            &[&format!("impact_transfer={transfer}")],
        );
        // Let it settle for 40 s, then measure one hop.
        for _ in 0..2400 {
            s.step(&[NEUTRAL]);
        }
        let (launch_speed, apex) = hop(&mut s);
        let expected_speed = fx("12") / (Fx::ONE - fx(transfer));
        let expected_apex = expected_speed * expected_speed / fx("48");
        assert!(
            within_percent(launch_speed, expected_speed, 1),
            "transfer {transfer}: launch {launch_speed} vs {expected_speed}"
        );
        assert!(
            within_percent(apex, expected_apex, 1),
            "transfer {transfer}: apex {apex} vs {expected_apex}"
        );
    }
}

#[test]
fn tip_landing_bounces_but_a_body_hit_does_not() {
    // A wall 1 m east, 5 m tall: flying into it at 6 m/s, the body hits (and is stunned).
    let wall = solid(v("1", "-1", "-5"), v("2", "5", "5"));
    let mut s = sim(level(vec![ground(), wall]), &[]);
    place(&mut s, v("0", "1", "0"), v("6", "0", "0"));
    let t = run_until(&mut s, NEUTRAL, 30, has(Events::BODY_HIT)).expect("body hit");
    assert!(t <= 10);
    let p = pogo(&s);
    assert!(
        p.events.contains(Events::STUN) && !p.events.contains(Events::BOUNCE),
        "{:?}",
        p.events
    );
    assert!(p.velocity.x <= Fx::ZERO, "blocked: {:?}", p.velocity);
    assert!(
        p.position.x + fx("0.25") <= fx("1"),
        "not inside the wall: {:?}",
        p.position
    );
    // Dropped onto the wall's top, the tip lands and bounces.
    let mut s = sim(
        level(vec![ground(), solid(v("1", "-1", "-5"), v("2", "5", "5"))]),
        &[],
    );
    place(&mut s, v("1.5", "6", "0"), v("0", "-3", "0"));
    run_until(&mut s, NEUTRAL, 60, has(Events::BOUNCE)).expect("bounce on the top");
    assert!((pogo(&s).position.y - fx("5")).abs() < fx("0.001"));
    assert_eq!(pogo(&s).state, State::Compression);
}

#[test]
fn low_curb_hit_by_the_tip_ricochets() {
    // A 0.35 m curb just ahead: the tip zone (lowest 0.4 m) touches its vertical side face.
    let curb = solid(v("0.3", "0", "-5"), v("3", "0.35", "5"));
    let mut s = sim(level(vec![ground(), curb]), &[]);
    place(&mut s, v("0", "0.05", "0"), v("6", "0", "0"));
    s.state_mut().pogos[0].combo = 2;
    run_until(&mut s, NEUTRAL, 30, |p| p.events != Events::NONE).unwrap();
    let p = pogo(&s);
    assert!(p.events.contains(Events::RICOCHET), "{:?}", p.events);
    assert_eq!(p.velocity.x, fx("-3"), "half the approach speed, reflected");
    assert_eq!(p.combo, 0, "a ricochet resets the combo");
}

#[test]
fn no_bounce_surface_never_bounces() {
    let floor = Solid {
        no_bounce: true,
        ..ground()
    };
    let mut s = sim(level(vec![floor]), &[]);
    place(&mut s, v("0", "3", "0"), Vec3::ZERO);
    assert_eq!(run_until(&mut s, NEUTRAL, 300, has(Events::BOUNCE)), None);
    let p = pogo(&s);
    assert!(
        p.position.y >= Fx::ZERO && p.position.y < fx("0.001"),
        "rests on it: {:?}",
        p.position
    );
    assert!(p.velocity.y.abs() < fx("0.5"), "{:?}", p.velocity);
    assert_eq!(p.bounces, 0);
}

#[test]
fn cooldown_prevents_a_second_bounce_too_soon() {
    // A ceiling 2 cm above the head: launching, the body hits it at once and the pogo drops
    // back onto the ground within the 7-tick cooldown.
    let ceiling = solid(v("-5", "1.62", "-5"), v("5", "2", "5"));
    let gaps = |overrides: &[&str]| {
        let mut s = sim(level(vec![ground(), ceiling]), overrides);
        place(&mut s, v("0", "0.01", "0"), v("0", "-1", "0"));
        run_until(&mut s, NEUTRAL, 60, has(Events::LAUNCH)).unwrap();
        run_until(&mut s, NEUTRAL, 60, has(Events::BOUNCE)).unwrap()
    };
    // Launch at tick L: the next bounce comes at L + 7 (cooldown), not at the first touch.
    assert_eq!(gaps(&[]), 6, "first tick after the launch counts as 0");
    assert!(
        gaps(&["relaunch_cooldown=0.001"]) < 6,
        "without the cooldown it bounces sooner"
    );
}

#[test]
fn steep_surface_ricochets_and_a_gentle_one_bounces() {
    let ramp = |degrees_normal_y: &str| {
        // Normal with the given y, tilted toward −x.
        let ny = fx(degrees_normal_y);
        let nx = -(Fx::ONE - ny * ny).sqrt();
        Ramp {
            normal: Vec3::new(nx, ny, Fx::ZERO),
            point: Vec3::ZERO,
            bounds: None,
            no_bounce: false,
        }
    };
    for (ny, expected) in [("0.34", Events::RICOCHET), ("0.36", Events::BOUNCE)] {
        let desc = WorldDesc {
            ramps: vec![ramp(ny)],
            ..level(vec![])
        };
        let mut s = sim(desc, &[]);
        place(&mut s, v("-5", "3", "0"), v("0", "-8", "0"));
        run_until(&mut s, NEUTRAL, 120, |p| p.events.0 != 0).unwrap();
        assert!(
            pogo(&s).events.contains(expected),
            "normal y {ny}: {:?}",
            pogo(&s).events
        );
    }
}

#[test]
fn grace_window_bounces_on_a_contact_lost_during_the_cooldown() {
    // A ledge ending at x = 0. The pogo skims its top moving east fast, 6 ticks after a
    // launch: the touch cannot bounce (cooldown) and it slides off the edge within the tick.
    // A tick later, in the air, the remembered contact bounces once the cooldown is over —
    // unless the grace window is 0.
    let ledge = solid(v("-10", "-1", "-5"), v("0", "0", "5"));
    let run = |grace: &str| {
        let mut s = sim(level(vec![ledge]), &[&format!("tip_grace_ticks={grace}")]);
        place(&mut s, v("-0.3", "0.02", "0"), v("20", "-1.5", "0"));
        s.state_mut().pogos[0].last_launch = Some(Launch {
            tick: Ticks(0),
            point: v("-20", "0", "0"),
            surface: SurfaceId::Solid(0),
        });
        s.state_mut().tick = Ticks(6);
        let mut events = Vec::new();
        for _ in 0..4 {
            s.step(&[NEUTRAL]);
            events.push(pogo(&s).events);
        }
        events
    };
    let with_grace = run("2");
    assert!(
        with_grace.iter().any(|e| e.contains(Events::BOUNCE)),
        "{with_grace:?}"
    );
    let without = run("0");
    assert!(
        !without.iter().any(|e| e.contains(Events::BOUNCE)),
        "{without:?}"
    );
}

#[test]
fn fast_body_hit_stuns_for_the_stun_time_and_a_slow_one_does_not() {
    let wall = solid(v("1", "-1", "-5"), v("2", "5", "5"));
    let mut s = sim(level(vec![ground(), wall]), &[]);
    place(&mut s, v("0", "1", "0"), v("4.5", "0", "0"));
    s.state_mut().pogos[0].combo = 3;
    run_until(&mut s, NEUTRAL, 30, has(Events::STUN)).expect("stun above 4 m/s");
    assert_eq!(pogo(&s).combo, 0, "a stun resets the combo");
    // Stunned for stun_time = 27 ticks, steering (away from the wall, west) ignored.
    let away = Input {
        steer_x: -127,
        ..NEUTRAL
    };
    let mut stunned = 0;
    for _ in 0..40 {
        let vx = pogo(&s).velocity.x;
        s.step(&[away]);
        if pogo(&s).stun_ticks_left > 0 {
            stunned += 1;
            assert_eq!(pogo(&s).velocity.x, vx, "no steering while stunned");
        }
    }
    assert_eq!(stunned, 26, "the stun tick plus 26 more make 27");
    assert_eq!(pogo(&s).state, State::Airborne, "steering again");
    assert!(
        pogo(&s).velocity.x < Fx::ZERO,
        "steers once the stun is over"
    );
    let mut s = sim(
        level(vec![ground(), solid(v("1", "-1", "-5"), v("2", "5", "5"))]),
        &[],
    );
    place(&mut s, v("0", "1", "0"), v("3.5", "0", "0"));
    run_until(&mut s, NEUTRAL, 30, has(Events::BODY_HIT)).unwrap();
    assert!(!pogo(&s).events.contains(Events::STUN));
}

fn platform_level() -> WorldDesc {
    // A 4 × 0.5 × 4 platform sliding east 0 → 12 m and back every 8 s (3 m/s), top at y = 1.
    let platform = Platform {
        size: v("4", "0.5", "4"),
        path: Path::PingPong {
            from: v("0", "0.5", "-2"),
            to: v("12", "0.5", "-2"),
            period: fx("8"),
        },
        no_bounce: false,
    };
    WorldDesc {
        platforms: vec![platform],
        ..level(vec![ground()])
    }
}

#[test]
fn moving_platform_carries_the_pogo_and_adds_its_velocity_to_the_launch() {
    let mut s = sim(platform_level(), &[]);
    // Falling while keeping pace with the platform: relative to it, straight down.
    place(&mut s, v("2", "3", "0"), v("3", "0", "0"));
    run_until(&mut s, NEUTRAL, 60, has(Events::BOUNCE)).expect("lands on the platform");
    let landed_at = pogo(&s).position;
    assert!((landed_at.y - fx("1")).abs() < fx("0.001"), "{landed_at:?}");
    let tick = s.state().tick;
    let world = s.world().clone();
    let mut x = landed_at.x;
    for _ in 0..2 {
        let moved = world.platform_displacement(0, s.state().tick).x;
        s.step(&[NEUTRAL]);
        x += moved;
        if pogo(&s).state == State::Compression {
            assert_eq!(pogo(&s).position.x, x, "rides exactly with the platform");
            assert_eq!(pogo(&s).velocity.x, moved * Fx::from_int(60));
        }
    }
    let p = pogo(&s);
    assert!(
        p.events.contains(Events::LAUNCH),
        "launches after the compression: {:?}",
        p.events
    );
    let platform_speed = world.platform_displacement(0, tick).x * Fx::from_int(60);
    assert!((platform_speed - fx("3")).abs() < fx("0.001"));
    // Relative to the platform the landing was straight down, so the launch is straight up
    // relative to it: the world velocity carries exactly the platform's 3 m/s east.
    assert!(
        (p.velocity.x - fx("3")).abs() < fx("0.001"),
        "launch carries the platform's 3 m/s: {:?}",
        p.velocity
    );
    assert!(p.velocity.y > fx("12"), "{:?}", p.velocity);
}

#[test]
fn wind_pushes_and_low_gravity_lifts() {
    let zone = |gravity_scale: &str, wind: Vec3| Zone {
        bounds: aabb(v("-100", "-1", "-100"), v("100", "100", "100")),
        gravity_scale: fx(gravity_scale),
        wind,
    };
    let steady_apex = |z: Option<Zone>| {
        let desc = WorldDesc {
            zones: z.into_iter().collect(),
            ..level(vec![ground()])
        };
        let mut s = sim(desc, &[]);
        for _ in 0..1200 {
            s.step(&[NEUTRAL]);
        }
        hop(&mut s).1
    };
    let normal = steady_apex(None);
    let low = steady_apex(Some(zone("0.5", Vec3::ZERO)));
    // Half gravity: the same launch speed rises twice as high (the landing speed is the same).
    assert!(
        within_percent(low, normal * Fx::from_int(2), 1),
        "{low} vs 2 × {normal}"
    );

    let desc = WorldDesc {
        zones: vec![zone("1", v("3", "0", "0"))],
        ..level(vec![ground()])
    };
    let mut s = sim(desc, &[]);
    place(&mut s, v("0", "50", "0"), Vec3::ZERO);
    for _ in 0..60 {
        s.step(&[NEUTRAL]);
    }
    // 1 s of 3 m/s² wind: 3 m/s and 1.5 m east.
    assert!(
        (pogo(&s).velocity.x - fx("3")).abs() < fx("0.0001"),
        "{:?}",
        pogo(&s).velocity
    );
    assert!(
        (pogo(&s).position.x - fx("1.5")).abs() < fx("0.0001"),
        "{:?}",
        pogo(&s).position
    );
}

#[test]
fn falling_speed_never_exceeds_terminal_speed() {
    let mut s = sim(level(vec![ground()]), &["kill_height=-100000"]);
    place(&mut s, v("0", "2000", "0"), Vec3::ZERO);
    let dive = Input {
        buttons: Buttons::DIVE,
        ..NEUTRAL
    };
    let mut fastest = Fx::ZERO;
    for _ in 0..600 {
        s.step(&[dive]);
        fastest = fastest.min(pogo(&s).velocity.y);
    }
    assert_eq!(fastest, fx("-30"));
}

/// A fall at terminal speed moves `terminal_speed · dt` a tick, not that plus `g·dt²/2`, and
/// lands no faster: the limit holds in the motion and in the impact, not only in the stored
/// velocity.
#[test]
fn terminal_speed_bounds_the_motion_and_the_impact() {
    let mut s = sim(level(vec![ground()]), &[]);
    place(&mut s, v("0", "100", "0"), v("0", "-30", "0"));
    let dive = Input {
        buttons: Buttons::DIVE,
        ..NEUTRAL
    };
    for _ in 0..60 {
        let before = pogo(&s).position.y;
        s.step(&[dive]);
        let fell = before - pogo(&s).position.y;
        // 30 · dt with dt = 1/60 rounded toward zero: 0.5 m less a few 2⁻³² (not 0.5033).
        assert!(fell <= fx("0.5") && fell > fx("0.4999999"), "fell {fell}");
        assert_eq!(pogo(&s).velocity.y, fx("-30"));
    }
    // The landing: its approach (the impact the launch uses) is at most 30 m/s too.
    run_until(&mut s, dive, 600, has(Events::BOUNCE)).expect("lands");
    let approach = pogo(&s).compression.expect("compressing").approach;
    assert!(approach.y >= fx("-30"), "impact {:?}", approach.y);
    assert!(approach.y < fx("-29.99"), "impact {:?}", approach.y);
    // Reaching terminal speed mid-tick: the tick ends exactly at it, never beyond.
    place(&mut s, v("0", "100", "0"), v("0", "-29.9", "0"));
    s.step(&[dive]);
    assert_eq!(pogo(&s).velocity.y, fx("-30"));
    let fell = fx("100") - pogo(&s).position.y;
    assert!(fell < fx("0.5"), "fell {fell} in the tick reaching 30 m/s");
}

/// Bouncing in place on a platform moving at 6 m/s travels 7 m a hop in the world, none
/// relative to the platform: never a perfect landing, so the combo stays 0.
#[test]
fn bouncing_in_place_on_a_moving_platform_is_never_perfect() {
    let platform = Platform {
        size: v("8", "0.5", "8"),
        path: Path::PingPong {
            from: v("-100", "0.5", "-4"),
            to: v("100", "0.5", "-4"),
            period: Fx::from_ratio(200, 3), // 2 × 200 m at 6 m/s
        },
        no_bounce: false,
    };
    let desc = WorldDesc {
        platforms: vec![platform],
        ..level(vec![])
    };
    let mut s = sim(desc, &["kill_height=-1000"]);
    // Just above the platform's middle, moving with it.
    place(&mut s, v("-96", "1.2", "0"), v("6", "0", "0"));
    let mut hops = Vec::new();
    let mut from = None;
    for _ in 0..900 {
        s.step(&[NEUTRAL]);
        let p = pogo(&s);
        if p.events.contains(Events::LAUNCH) {
            from = Some(p.position);
        }
        if p.events.contains(Events::BOUNCE) {
            if let Some(from) = from {
                hops.push(p.position.x - from.x);
            }
            assert!(
                !p.events.contains(Events::PERFECT),
                "perfect after {hops:?}"
            );
        }
    }
    assert!(hops.len() >= 8, "hops {hops:?}");
    assert!(hops.iter().all(|&h| h > fx("6")), "world hops {hops:?}");
    assert_eq!(pogo(&s).combo, 0);
}

/// A stunned pogo (no stick, its lean returning upright) landing straight after a long hop
/// scores no perfect landing; the same landing unstunned does.
#[test]
fn a_stunned_landing_is_never_perfect() {
    let land = |stun_ticks_left: u32| {
        let mut s = sim(level(vec![ground()]), &[]);
        place(&mut s, v("0", "1", "0"), v("0", "-5", "0"));
        let p = &mut s.state_mut().pogos[0];
        p.last_launch = Some(Launch {
            tick: Ticks(0),
            point: v("-5", "0", "0"),
            surface: SurfaceId::Solid(0),
        });
        p.stun_ticks_left = stun_ticks_left;
        if stun_ticks_left > 0 {
            p.state = State::Stunned;
        }
        s.state_mut().tick = Ticks(100);
        run_until(&mut s, NEUTRAL, 60, has(Events::BOUNCE)).expect("lands");
        *pogo(&s)
    };
    let unstunned = land(0);
    assert!(unstunned.events.contains(Events::PERFECT));
    assert_eq!(unstunned.combo, 1);
    let stunned = land(60);
    assert!(stunned.stun_ticks_left > 0, "still stunned when landing");
    assert!(
        !stunned.events.contains(Events::PERFECT),
        "{:?}",
        stunned.events
    );
    assert_eq!(stunned.combo, 0);
}

#[test]
fn perfect_landing_needs_a_real_hop_and_bouncing_in_place_never_counts() {
    let mut s = sim(level(vec![ground()]), &[]);
    for _ in 0..1200 {
        s.step(&[NEUTRAL]);
    }
    assert_eq!(
        pogo(&s).combo,
        0,
        "upright bouncing in place is never perfect"
    );
    // Steer east for 20 ticks after a launch, then let go: the lean rights itself before the
    // landing, about 6 m further east.
    run_until(&mut s, NEUTRAL, 200, has(Events::LAUNCH)).unwrap();
    let from = pogo(&s).position;
    for _ in 0..20 {
        s.step(&[Input {
            steer_x: 127,
            ..NEUTRAL
        }]);
    }
    run_until(&mut s, NEUTRAL, 200, has(Events::BOUNCE)).unwrap();
    let p = pogo(&s);
    assert!(
        p.position.x - from.x > fx("3"),
        "hopped {:?}",
        p.position.x - from.x
    );
    assert!(p.events.contains(Events::PERFECT), "{:?}", p.events);
    assert_eq!(p.combo, 1);
}

#[test]
fn trick_landed_after_completion_adds_combo_and_too_early_stuns() {
    let mut s = sim(level(vec![ground()]), &[]);
    let trick = Input {
        buttons: Buttons::TRICK,
        ..NEUTRAL
    };
    run_until(&mut s, NEUTRAL, 200, has(Events::LAUNCH)).unwrap();
    s.step(&[trick]); // a hop lasts ~63 ticks; the trick 30
    assert!(pogo(&s).events.contains(Events::TRICK_STARTED));
    run_until(&mut s, trick, 200, has(Events::BOUNCE)).unwrap(); // holding does not restart it
    assert!(
        pogo(&s).events.contains(Events::TRICK_LANDED),
        "{:?}",
        pogo(&s).events
    );
    assert_eq!(pogo(&s).combo, 1);
    // A trick started late in the hop is still on at the landing: stun and combo reset.
    run_until(&mut s, NEUTRAL, 200, has(Events::LAUNCH)).unwrap();
    for _ in 0..50 {
        s.step(&[NEUTRAL]);
    }
    s.step(&[trick]);
    run_until(&mut s, NEUTRAL, 200, has(Events::BOUNCE)).unwrap();
    let p = pogo(&s);
    assert!(
        p.events.contains(Events::TRICK_FAILED) && p.events.contains(Events::STUN),
        "{:?}",
        p.events
    );
    assert_eq!(p.combo, 0);
}

#[test]
fn falling_below_kill_height_respawns_at_the_checkpoint_with_a_teleport() {
    let checkpoint = Checkpoint {
        bounds: aabb(v("-1", "0", "-1"), v("1", "3", "1")),
        spawn: v("0", "5", "0"),
    };
    let pit = solid(v("20", "-1", "-5"), v("30", "0", "5"));
    let desc = WorldDesc {
        checkpoints: vec![checkpoint],
        ..level(vec![ground(), pit])
    };
    let mut s = sim(desc, &["kill_height=-10"]);
    s.step(&[NEUTRAL]);
    assert!(
        pogo(&s).events.contains(Events::TELEPORT),
        "the first tick places the pogo"
    );
    assert!(
        pogo(&s).events.contains(Events::CHECKPOINT),
        "spawned inside the checkpoint"
    );
    assert_eq!(pogo(&s).checkpoint, Some(0));
    s.state_mut().pogos[0].combo = 4;
    place_keep(&mut s, v("250", "5", "0"));
    run_until(&mut s, NEUTRAL, 200, has(Events::DEATH)).expect("falls past −10 m off the edge");
    assert_eq!(pogo(&s).state, State::Respawn);
    s.step(&[NEUTRAL]);
    let p = pogo(&s);
    assert!(p.events.contains(Events::TELEPORT));
    assert_eq!(p.combo, 0, "respawn resets the combo");
    assert!(
        (p.position - v("0", "5", "0")).length() < fx("0.2"),
        "{:?}",
        p.position
    );
}

/// Moves the pogo without touching the rest of its state.
fn place_keep(sim: &mut Simulation, position: Vec3) {
    let p = &mut sim.state_mut().pogos[0];
    p.position = position;
    p.state = State::Airborne;
    p.compression = None;
}

#[test]
fn no_bounce_lift_carries_a_resting_pogo_up() {
    let lift = Platform {
        size: v("4", "0.5", "4"),
        path: Path::PingPong {
            from: v("-2", "0", "-2"),
            to: v("-2", "6", "-2"),
            period: fx("12"),
        },
        no_bounce: true,
    };
    let desc = WorldDesc {
        platforms: vec![lift],
        ..level(vec![])
    };
    let mut s = sim(desc, &[]);
    place(&mut s, v("0", "0.6", "0"), Vec3::ZERO);
    for _ in 0..120 {
        s.step(&[NEUTRAL]);
    }
    // After 2 s the lift (1 m/s up) has risen 2 m; the pogo stands on it, moving with it.
    let p = pogo(&s);
    let top = s.world().platform_bounds(0, s.state().tick).max.y;
    assert!(
        p.position.y >= top && p.position.y - top < fx("0.01"),
        "{:?} vs top {top}",
        p.position
    );
    assert!(
        (p.velocity.y - Fx::ONE).abs() < fx("0.05"),
        "{:?}",
        p.velocity
    );
    assert_eq!(p.bounces, 0);
}

#[test]
fn riding_a_platform_into_a_wall_is_pushed_back_out() {
    use pogo_core::capsule;
    use pogo_core::sweep::depenetrate_box;
    let wall = solid(v("3.26", "0.5", "-5"), v("4", "6", "5"));
    let mut s = ride_into(level(vec![wall]));
    let body = capsule(s.tuning());
    for _ in 0..2 {
        s.step(&[NEUTRAL]); // rides 10 cm east: 9 cm into the wall
    }
    s.step(&[NEUTRAL]);
    let p = pogo(&s);
    let wall_box = s.world().solid(0).bounds;
    assert!(
        depenetrate_box(&body, p.position, &wall_box).is_none(),
        "still inside the wall: {:?}",
        p.position
    );
}

/// `desc` with a platform sliding east 0.05 m a tick, and a pogo on it 2 ticks before the end
/// of its compression, its body's east side at x = 3.25 (obstacles 1 cm further east get
/// ridden into).
fn ride_into(desc: WorldDesc) -> Simulation {
    use pogo_core::Compression;
    use pogo_core::world::SurfaceId;
    let platform = Platform {
        size: v("4", "0.5", "4"),
        path: Path::PingPong {
            from: v("0", "0", "-2"),
            to: v("12", "0", "-2"),
            period: fx("8"),
        },
        no_bounce: false,
    };
    let desc = WorldDesc {
        platforms: vec![platform],
        ..desc
    };
    let mut s = sim(desc, &[]);
    place(&mut s, v("3", "0.5", "0"), Vec3::ZERO);
    let p = &mut s.state_mut().pogos[0];
    p.state = State::Compression;
    p.compression = Some(Compression {
        ticks_left: 2,
        normal: Vec3::UP,
        surface: SurfaceId::Platform(0),
        approach: v("0", "-10", "0"),
    });
    s
}

#[test]
fn a_platform_moving_into_the_pogo_pushes_it_out() {
    use pogo_core::capsule;
    use pogo_core::sweep::depenetrate_box;
    // A 1 m thick, 4 m tall block sliding east at 3 m/s over the ground, toward a pogo that
    // hops in place just east of it: every tick the block moves 5 cm into where the pogo was.
    // While compressing the pogo rides the ground and the block runs into it; the first
    // airborne tick pushes it out, and from then on the sweep keeps it out.
    let block = Platform {
        size: v("1", "4", "4"),
        path: Path::PingPong {
            from: v("-2", "0", "-2"),
            to: v("22", "0", "-2"),
            period: fx("16"),
        },
        no_bounce: false,
    };
    let desc = WorldDesc {
        platforms: vec![block],
        ..level(vec![ground()])
    };
    let mut s = sim(desc, &[]);
    place(&mut s, v("0.5", "0.5", "0"), Vec3::ZERO);
    let body = capsule(s.tuning());
    let start_x = pogo(&s).position.x;
    let mut airborne_ticks = 0;
    for _ in 0..120 {
        let was_compressing = pogo(&s).state == State::Compression;
        s.step(&[NEUTRAL]);
        let p = pogo(&s);
        if was_compressing || p.state == State::Compression {
            continue;
        }
        airborne_ticks += 1;
        // Where the block is when the tick ends (the next tick's start).
        let block_box = s.world().platform_bounds(0, s.state().tick);
        let inside = depenetrate_box(&body, p.position, &block_box);
        assert!(
            inside.is_none(),
            "tick {}: {:?} inside the block {block_box:?} by {inside:?}",
            s.state().tick.0,
            p.position,
        );
    }
    assert!(airborne_ticks > 60, "{airborne_ticks}");
    let carried = pogo(&s).position.x - start_x;
    assert!(
        carried > fx("4"),
        "carried only {carried:?} m in 2 s at 3 m/s"
    );
}

#[test]
fn riding_a_platform_into_a_ramp_is_pushed_back_out() {
    use pogo_core::capsule;
    use pogo_core::sweep::depenetrate_plane;
    // As the wall test, with a steep one-sided ramp (facing west) 1 cm east of the pogo.
    let ramp = Ramp {
        normal: v("-1", "0", "0"),
        point: v("3.26", "0", "0"),
        bounds: Some(aabb(v("3", "0.5", "-5"), v("4", "6", "5"))),
        no_bounce: false,
    };
    let mut s = ride_into(WorldDesc {
        ramps: vec![ramp],
        ..level(vec![])
    });
    let body = capsule(s.tuning());
    let plane = s.world().ramp_plane(0);
    for _ in 0..2 {
        s.step(&[NEUTRAL]); // rides 10 cm east: 9 cm into the ramp
    }
    assert!(
        depenetrate_plane(&body, pogo(&s).position, &plane).is_some(),
        "the ride ends inside the ramp: {:?}",
        pogo(&s).position
    );
    s.step(&[NEUTRAL]);
    assert!(
        depenetrate_plane(&body, pogo(&s).position, &plane).is_none(),
        "still inside the ramp: {:?}",
        pogo(&s).position
    );
}

/// A floor of 64 small tiles: more solids near the pogo than the tick keeps from its first
/// lookup, so it looks them up again (the fallback path), and lands on them all the same.
#[test]
fn landing_on_a_floor_of_many_small_tiles_bounces() {
    // 8 × 8 half-metre tiles: 16 to a 2 m grid cell (the limit is 32), and the capsule over
    // the corner of four cells sees 64 of them, more than the tick's first lookup keeps.
    let tiles: Vec<Solid> = (0..8)
        .flat_map(|i| (0..8).map(move |j| (i, j)))
        .map(|(i, j)| {
            let min = Vec3::new(
                Fx::from_ratio(i * 50 - 200, 100),
                fx("-0.5"),
                Fx::from_ratio(j * 50 - 200, 100),
            );
            solid(min, min + v("0.5", "0.5", "0.5"))
        })
        .collect();
    let mut s = sim(level(tiles), &[]);
    place(&mut s, v("0.1", "1", "0.1"), Vec3::ZERO);
    run_until(&mut s, NEUTRAL, 120, has(Events::BOUNCE)).expect("lands on the tiles");
    let p = pogo(&s);
    assert!(p.position.y.abs() < fx("0.001"), "{:?}", p.position);
    hop(&mut s);
    assert!(
        pogo(&s).position.y.abs() < fx("0.001"),
        "lands again on the tiles"
    );
}

/// The tick's arithmetic relies on bounds its own states keep (step.rs, "Bounds"); a state
/// edited beyond them through `state_mut` is brought back at the start of the tick, so even
/// the extremes run without an overflow (debug builds assert every in-range operation) and
/// the pogo, outside the world, respawns.
#[test]
fn a_state_edited_beyond_the_bounds_is_brought_back_and_respawns() {
    for (position, velocity) in [
        (
            Vec3::new(Fx::MAX, Fx::MIN, Fx::MAX),
            Vec3::new(Fx::MIN, Fx::MAX, Fx::MIN),
        ),
        (
            Vec3::new(Fx::MIN, Fx::MAX, Fx::ZERO),
            Vec3::new(Fx::MAX, Fx::MIN, Fx::MAX),
        ),
        (v("0", "1", "0"), Vec3::new(Fx::MAX, Fx::MIN, Fx::MAX)),
    ] {
        let mut s = sim(level(vec![ground()]), &[]);
        place(&mut s, position, velocity);
        s.step(&[Input {
            steer_x: 127,
            steer_z: -128,
            buttons: Buttons::DIVE,
        }]);
        let p = *pogo(&s);
        assert!(
            [p.position.x, p.position.y, p.position.z]
                .iter()
                .all(|c| c.abs() <= pogo_core::POSITION_MAX + fx("10")),
            "{p:?}"
        );
        // Clamped to 200 m/s and moved at most a tick's worth from a clamped position.
        if position.x.abs() > pogo_core::POSITION_MAX {
            assert_eq!(p.state, State::Respawn, "{p:?}");
        }
        s.step(&[NEUTRAL]);
        assert!(pogo(&s).velocity.x.abs() <= pogo_core::SPEED_MAX);
    }
}
