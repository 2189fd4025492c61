//! Any bits into the launch: no panic or overflow (fuzz builds keep debug assertions), and the
//! speed clamp and horizontal cap hold even for non-unit vectors. The contact-edge targets of
//! the fuzzing issue grow from here.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use pogo_core::launch::{self, Landing};
use pogo_core::{Fx, Tuning, Vec3};

#[derive(Arbitrary, Debug)]
struct Input {
    normal: [i64; 3],
    lean_up: [i64; 3],
    velocity: [i64; 3],
    surface_velocity: [i64; 3],
    combo: u32,
}

fn vec(bits: [i64; 3]) -> Vec3 {
    Vec3::new(Fx::from_bits(bits[0]), Fx::from_bits(bits[1]), Fx::from_bits(bits[2]))
}

fuzz_target!(|input: Input| {
    let tuning = Tuning::default();
    let landing = Landing {
        normal: vec(input.normal),
        lean_up: vec(input.lean_up),
        velocity: vec(input.velocity),
        surface_velocity: vec(input.surface_velocity),
        combo: input.combo,
    };
    let out = launch::compute(&landing, &tuning);
    assert!(out.speed >= tuning.spec().min_launch_speed);
    assert!(out.speed <= tuning.spec().max_launch_speed);
    assert!(out.relative_velocity.horizontal().length() <= tuning.spec().max_horizontal_speed);
    assert_eq!(out, launch::compute(&landing, &tuning));
});
