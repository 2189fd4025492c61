//! The canonical encoding behind every hash: explicit little-endian bytes into xxh3-64.
//!
//! Integers are written at their declared width, little-endian; `Fx` as its 64 raw bits
//! (32.32 two's complement); `Vec3` as x, y, z; `bool` as one byte 0/1; lengths as `u32`.
//! Nothing depends on the platform's endianness, pointer width or memory layout.

use xxhash_rust::xxh3::Xxh3;

use crate::fx::Fx;
use crate::vec3::Vec3;

pub(crate) struct Encoder {
    hasher: Xxh3,
}

impl Encoder {
    /// A new encoding that starts with a domain tag (e.g. `b"pogo-state/1"`), so hashes of
    /// different kinds of data never collide by construction.
    pub(crate) fn new(tag: &[u8]) -> Encoder {
        let mut e = Encoder {
            hasher: Xxh3::new(),
        };
        e.bytes(tag);
        e
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.len(bytes.len());
        self.hasher.update(bytes);
    }

    pub(crate) fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }

    pub(crate) fn u8(&mut self, v: u8) {
        self.hasher.update(&[v]);
    }

    pub(crate) fn bool(&mut self, v: bool) {
        self.u8(u8::from(v));
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.hasher.update(&v.to_le_bytes());
    }

    pub(crate) fn fx(&mut self, v: Fx) {
        self.hasher.update(&v.to_bits().to_le_bytes());
    }

    pub(crate) fn vec3(&mut self, v: Vec3) {
        self.fx(v.x);
        self.fx(v.y);
        self.fx(v.z);
    }

    pub(crate) fn finish(&self) -> u64 {
        self.hasher.digest()
    }
}
