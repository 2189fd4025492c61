//! The shapes levels are made of, as plain data: axis-aligned boxes ([`Aabb`]) and one-sided
//! planes ([`Plane`]). The world holds them, the broad phase indexes boxes, the sweep tests the
//! capsule against both (`sweep.rs` holds the plane's capsule geometry); none of those needs
//! another to name a shape.
//!
//! Axes: x east, y up, z south, metres; `min` ≤ `max` on every axis of a box.

use crate::fx::Fx;
use crate::hash::Encoder;
use crate::vec3::Vec3;

/// An axis-aligned box.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Aabb {
    /// The corner with the smallest coordinates: west, bottom, north (m).
    pub min: Vec3,
    /// The corner with the largest coordinates: east, top, south (m).
    pub max: Vec3,
}

impl Aabb {
    /// The box between the corners `min` and `max` (not checked here: a level's boxes are
    /// validated by [`WorldDesc::validate`](crate::world::WorldDesc::validate)).
    pub const fn new(min: Vec3, max: Vec3) -> Aabb {
        Aabb { min, max }
    }

    /// Whether `p` is inside or on the boundary.
    pub fn contains(&self, p: Vec3) -> bool {
        p.x >= self.min.x
            && p.x <= self.max.x
            && p.y >= self.min.y
            && p.y <= self.max.y
            && p.z >= self.min.z
            && p.z <= self.max.z
    }

    /// Whether the two boxes overlap or touch.
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
            && self.min.z <= other.max.z
            && other.min.z <= self.max.z
    }

    /// Whether `other` lies inside this box (faces may touch).
    pub fn holds(&self, other: &Aabb) -> bool {
        self.min.x <= other.min.x
            && self.min.y <= other.min.y
            && self.min.z <= other.min.z
            && other.max.x <= self.max.x
            && other.max.y <= self.max.y
            && other.max.z <= self.max.z
    }

    /// The box moved by `offset`.
    pub fn translated(&self, offset: Vec3) -> Aabb {
        Aabb::new(self.min + offset, self.max + offset)
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &Aabb) -> Aabb {
        let lo = |a: Fx, b: Fx| a.min(b);
        let hi = |a: Fx, b: Fx| a.max(b);
        Aabb::new(
            Vec3::new(
                lo(self.min.x, other.min.x),
                lo(self.min.y, other.min.y),
                lo(self.min.z, other.min.z),
            ),
            Vec3::new(
                hi(self.max.x, other.max.x),
                hi(self.max.y, other.max.y),
                hi(self.max.z, other.max.z),
            ),
        )
    }

    /// The point of the box closest to `p`.
    pub fn closest_point(&self, p: Vec3) -> Vec3 {
        Vec3::new(
            p.x.clamp(self.min.x, self.max.x),
            p.y.clamp(self.min.y, self.max.y),
            p.z.clamp(self.min.z, self.max.z),
        )
    }

    pub(crate) fn encode(&self, e: &mut Encoder) {
        e.vec3(self.min);
        e.vec3(self.max);
    }
}

/// A ramp as the sweep sees it: unit normal, plane offset `n·x` on the surface, bounds.
#[derive(Clone, Copy, Debug)]
pub struct Plane {
    /// Unit normal, pointing out of the solid side.
    pub normal: Vec3,
    /// `normal · p` for every point `p` on the surface (m).
    pub offset: Fx,
    /// Where the surface exists (the contact point must lie inside, grown by the contact
    /// slop); `None` for an unbounded plane.
    pub bounds: Option<Aabb>,
}
