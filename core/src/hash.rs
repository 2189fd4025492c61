//! The canonical encoding behind every hash: explicit little-endian bytes into xxh3-64.
//!
//! Integers are written at their declared width, little-endian; `Fx` as its 64 raw bits
//! (32.32 two's complement); `Vec3` as x, y, z; `bool` as one byte 0/1; lengths as `u32`.
//! Nothing depends on the platform's endianness, pointer width or memory layout.

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use crate::fx::Fx;
use crate::vec3::Vec3;

/// Bytes gathered before they go to the streaming hasher: a state hash of one pogo fits, and
/// is then hashed in one call (xxh3 of a byte string is the same however it is fed).
const BUFFER: usize = 256;

pub(crate) struct Encoder {
    buffer: [u8; BUFFER],
    len: usize,
    /// Created once the bytes outgrow `buffer`.
    hasher: Option<Xxh3>,
}

impl Encoder {
    /// A new encoding that starts with a domain tag (e.g. `b"pogo-state/1"`), so hashes of
    /// different kinds of data never collide by construction.
    pub(crate) fn new(tag: &[u8]) -> Encoder {
        let mut e = Encoder {
            buffer: [0; BUFFER],
            len: 0,
            hasher: None,
        };
        e.bytes(tag);
        e
    }

    /// Appends raw bytes to the encoding (inlined: the callers' fixed-size pieces become
    /// plain stores).
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        if self.len + bytes.len() > BUFFER {
            let hasher = self.hasher.get_or_insert_with(Xxh3::new);
            hasher.update(&self.buffer[..self.len]);
            self.len = 0;
            if bytes.len() > BUFFER {
                hasher.update(bytes);
                return;
            }
        }
        self.buffer[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    #[inline]
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.len(bytes.len());
        self.write(bytes);
    }

    #[inline]
    pub(crate) fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }

    #[inline]
    pub(crate) fn u8(&mut self, v: u8) {
        self.write(&[v]);
    }

    #[inline]
    pub(crate) fn bool(&mut self, v: bool) {
        self.u8(u8::from(v));
    }

    #[inline]
    pub(crate) fn u32(&mut self, v: u32) {
        self.write(&v.to_le_bytes());
    }

    #[inline]
    pub(crate) fn fx(&mut self, v: Fx) {
        self.write(&v.to_bits().to_le_bytes());
    }

    #[inline]
    pub(crate) fn vec3(&mut self, v: Vec3) {
        self.fx(v.x);
        self.fx(v.y);
        self.fx(v.z);
    }

    /// xxh3-64 of every byte written.
    pub(crate) fn finish(mut self) -> u64 {
        let tail = &self.buffer[..self.len];
        match &mut self.hasher {
            None => xxh3_64(tail),
            Some(hasher) => {
                hasher.update(tail);
                hasher.digest()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// Whatever the sizes of the pieces, the digest is xxh3-64 of their concatenation.
    #[test]
    fn the_digest_is_xxh3_of_all_bytes_written() {
        let mut seed = 0x5eed_u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        for case in 0..300 {
            let mut e = Encoder::new(b"tag");
            let mut all: Vec<u8> = Vec::new();
            all.extend_from_slice(&3u32.to_le_bytes());
            all.extend_from_slice(b"tag");
            for _ in 0..next(40) {
                let piece: Vec<u8> = (0..next([9, 9, 9, 300, 700][case % 5]))
                    .map(|_| next(256) as u8)
                    .collect();
                e.write(&piece);
                all.extend_from_slice(&piece);
            }
            assert_eq!(
                e.finish(),
                xxh3_64(&all),
                "case {case}, {} bytes",
                all.len()
            );
        }
    }
}
