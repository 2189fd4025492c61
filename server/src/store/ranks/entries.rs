//! One board's entries, in memory: each player's best run, in board order, with what a page
//! shows of it — kept small, since a process holds a million of them per big board.
//!
//! An entry is a fixed-size [`Slot`] (40 bytes: the run, its finish tick and upload time,
//! where its text is) in one `Vec`, its name and splits as bytes in one shared
//! text buffer (no allocation of its own: a `Box<str>` of a 12-byte name takes a 32-byte heap
//! chunk), its place in the board's order a 24-byte key in an order-statistic tree, and its
//! player's slot in a map. Splits are varints (`checkpoint + 1`, 0 for the finish, then the
//! tick): three or four bytes a split where the parsed pairs took eight and the JSON
//! 30. A removed entry's slot is reused; its text stays in the buffer as garbage until the
//! garbage outweighs what is live, when the buffer is rewritten (a pass over the live
//! entries, amortised over as many bytes of changes).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use super::super::Entry;
use super::super::board::{BestRun, parse_splits};

/// Most bytes of text a board holds (names and splits): offsets are 32-bit. A board that
/// needs more (four gigabytes: a hundred million entries of ordinary names) is not indexed,
/// and its reads are answered from SQL.
pub const TEXT_BYTES_MAX: usize = u32::MAX as usize;

/// Garbage below this many bytes is never worth a rewrite of the text buffer (the unit
/// tests' churn is smaller: they rewrite it from 4 kB).
#[cfg(not(test))]
const GARBAGE_BYTES_MIN: usize = 1 << 20;
#[cfg(test)]
const GARBAGE_BYTES_MIN: usize = 4096;

/// The last [`Entries::version`] handed out, in the whole process: a version names one state
/// of one board's entries, never another's (a board dropped and built again starts anew).
static VERSIONS: AtomicU64 = AtomicU64::new(0);

/// An entry's place in the board's order: faster first (`finish_tick`), then earlier upload
/// (`run_id`, assigned in upload order); `slot` is carried along, not compared (run ids are
/// unique on a board).
#[derive(Clone, Copy, Debug)]
struct Placed {
    finish_tick: i64,
    run_id: i64,
    slot: u32,
}

impl PartialEq for Placed {
    fn eq(&self, other: &Placed) -> bool {
        (self.finish_tick, self.run_id) == (other.finish_tick, other.run_id)
    }
}

impl Eq for Placed {}

impl PartialOrd for Placed {
    fn partial_cmp(&self, other: &Placed) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Placed {
    fn cmp(&self, other: &Placed) -> std::cmp::Ordering {
        (self.finish_tick, self.run_id).cmp(&(other.finish_tick, other.run_id))
    }
}

/// An entry (one player's best run on the board), but for its place in the order.
#[derive(Clone, Copy, Debug)]
struct Slot {
    run_id: i64,
    finish_tick: i64,
    uploaded_ms: i64,
    /// Where its text starts in [`Entries::text`]: the name's `name_len` bytes, then the
    /// splits up to `text_len`.
    text_at: u32,
    text_len: u32,
    name_len: u32,
}

impl Slot {
    fn placed(&self, slot: u32) -> Placed {
        Placed {
            finish_tick: self.finish_tick,
            run_id: self.run_id,
            slot,
        }
    }
}

/// The text of an entry does not fit the board's buffer ([`TEXT_BYTES_MAX`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextFull;

impl std::fmt::Display for TextFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a board's names and splits need more than {TEXT_BYTES_MAX} bytes"
        )
    }
}

/// One board's entries (see the module doc).
#[derive(Debug, Default)]
pub struct Entries {
    /// The entries in board order: a two-level B-tree with a Fenwick tree over its nodes, so
    /// ranks and positional reads are O(log n).
    order: indexset::BTreeSet<Placed>,
    slots: Vec<Slot>,
    /// Slots no entry uses.
    free: Vec<u32>,
    /// Each player's slot.
    by_player: HashMap<i64, u32>,
    /// Names and splits, in the order they were written.
    text: Vec<u8>,
    /// Bytes of `text` no slot refers to.
    garbage: usize,
    /// Changes with every change of the entries ([`VERSIONS`]): a reader that saw this
    /// version and sees it again knows the board did not change between (the export).
    version: u64,
}

/// LEB128: seven bits a byte, low first.
fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The varint at the start of `bytes` and the bytes after it (`None`: cut short; never the
/// case for what [`put_varint`] wrote).
fn take_varint(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Some((value, &bytes[i + 1..]));
        }
    }
    None
}

/// An entry's text: its name, then each split as two varints (`checkpoint + 1`, 0 for the
/// finish; the tick).
fn encode_text(run: &BestRun, out: &mut Vec<u8>) -> u32 {
    out.clear();
    out.extend_from_slice(run.player.as_bytes());
    let name_len = out.len();
    for (checkpoint, tick) in parse_splits(run.splits.as_deref()) {
        put_varint(out, checkpoint.map_or(0, |c| u64::from(c) + 1));
        put_varint(out, u64::from(tick));
    }
    u32::try_from(name_len).unwrap_or(u32::MAX)
}

fn decode_splits(mut bytes: &[u8]) -> Vec<(Option<u32>, u32)> {
    let mut splits = Vec::new();
    while let Some((checkpoint, rest)) = take_varint(bytes) {
        let Some((tick, rest)) = take_varint(rest) else {
            break;
        };
        let checkpoint = checkpoint.checked_sub(1).map(|c| c as u32);
        splits.push((checkpoint, tick as u32));
        bytes = rest;
    }
    splits
}

impl Entries {
    /// An empty board, with a version of its own.
    pub fn new() -> Entries {
        let mut entries = Entries::default();
        entries.changed();
        entries
    }

    fn changed(&mut self) {
        self.version = VERSIONS.fetch_add(1, Ordering::Relaxed) + 1;
    }

    /// This state of the entries (see [`VERSIONS`]).
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn len(&self) -> i64 {
        i64::try_from(self.order.len()).unwrap_or(i64::MAX)
    }

    /// Whether `player` has an entry.
    pub fn has(&self, player: i64) -> bool {
        self.by_player.contains_key(&player)
    }

    fn slot_text(&self, slot: &Slot) -> &[u8] {
        let at = slot.text_at as usize;
        &self.text[at..at + slot.text_len as usize]
    }

    /// Makes `run` the player's entry (`None`: no entry). `scratch` is a buffer to encode
    /// into, reused across calls.
    pub fn set(
        &mut self,
        player: i64,
        run: Option<&BestRun>,
        scratch: &mut Vec<u8>,
    ) -> Result<(), TextFull> {
        let name_len = run.map(|run| encode_text(run, scratch));
        let old = self.by_player.get(&player).copied();
        if let (Some(s), Some(run), Some(name_len)) = (old, run, name_len) {
            let slot = self.slots[s as usize];
            if (slot.run_id, slot.finish_tick, slot.uploaded_ms)
                == (run.run_id, run.finish_tick, run.uploaded_ms)
                && slot.name_len == name_len
                && self.slot_text(&slot) == scratch.as_slice()
            {
                return Ok(());
            }
        }
        if old.is_none() && run.is_none() {
            return Ok(());
        }
        self.changed();
        if let Some(s) = old {
            let slot = self.slots[s as usize];
            self.order.remove(&slot.placed(s));
            if let (Some(run), Some(name_len)) = (run, name_len) {
                if slot.name_len == name_len && self.slot_text(&slot) == scratch.as_slice() {
                    // Moved, its text unchanged: it keeps its slot and its text.
                    let moved = Slot {
                        run_id: run.run_id,
                        finish_tick: run.finish_tick,
                        uploaded_ms: run.uploaded_ms,
                        ..slot
                    };
                    self.slots[s as usize] = moved;
                    self.order.insert(moved.placed(s));
                    return Ok(());
                }
            }
            self.garbage += slot.text_len as usize;
            self.by_player.remove(&player);
            self.free.push(s);
        }
        if let (Some(run), Some(name_len)) = (run, name_len) {
            self.insert(run, name_len, scratch)?;
        }
        self.compact_if_worth_it();
        Ok(())
    }

    /// Adds `run` as its player's entry unless they have one (the build: runs come in board
    /// order, so a player's first is their best).
    pub fn add_if_absent(&mut self, run: &BestRun, scratch: &mut Vec<u8>) -> Result<(), TextFull> {
        if self.has(run.player_id) {
            return Ok(());
        }
        let name_len = encode_text(run, scratch);
        self.changed();
        self.insert(run, name_len, scratch)
    }

    /// Places a new entry for `run` (its player has none), its text in `text`.
    fn insert(&mut self, run: &BestRun, name_len: u32, text: &[u8]) -> Result<(), TextFull> {
        if self.text.len() + text.len() > TEXT_BYTES_MAX {
            self.compact();
            if self.text.len() + text.len() > TEXT_BYTES_MAX {
                return Err(TextFull);
            }
        }
        let slot = Slot {
            run_id: run.run_id,
            finish_tick: run.finish_tick,
            uploaded_ms: run.uploaded_ms,
            text_at: self.text.len() as u32,
            text_len: text.len() as u32,
            name_len,
        };
        self.text.extend_from_slice(text);
        let s = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = slot;
                s
            }
            None => {
                self.slots.push(slot);
                // Slots number at most the entries, which a u32 counts (a board of four
                // billion entries would not fit in memory first).
                (self.slots.len() - 1) as u32
            }
        };
        self.order.insert(slot.placed(s));
        self.by_player.insert(run.player_id, s);
        Ok(())
    }

    /// Rewrites the text buffer without its garbage once the garbage outweighs what is live.
    fn compact_if_worth_it(&mut self) {
        if self.garbage > GARBAGE_BYTES_MIN && self.garbage > self.text.len() - self.garbage {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let mut text = Vec::with_capacity(self.text.len() - self.garbage);
        for &s in self.by_player.values() {
            let slot = &mut self.slots[s as usize];
            let at = slot.text_at as usize;
            let new_at = text.len() as u32;
            text.extend_from_slice(&self.text[at..at + slot.text_len as usize]);
            slot.text_at = new_at;
        }
        self.text = text;
        self.garbage = 0;
    }

    /// The 1-based rank of `player`'s entry.
    pub fn player_rank(&self, player: i64) -> Option<i64> {
        let s = *self.by_player.get(&player)?;
        Some(self.rank(&self.slots[s as usize].placed(s)))
    }

    /// The 1-based rank of `run` if it is `player`'s entry.
    pub fn run_rank(&self, player: i64, run: i64) -> Option<i64> {
        let s = *self.by_player.get(&player)?;
        let slot = &self.slots[s as usize];
        (slot.run_id == run).then(|| self.rank(&slot.placed(s)))
    }

    fn rank(&self, placed: &Placed) -> i64 {
        i64::try_from(self.order.rank(placed)).map_or(i64::MAX, |r| r + 1)
    }

    /// `limit` entries from the 0-based `offset`, as the page shows them.
    pub fn page(&self, offset: u64, limit: u32) -> Vec<Entry> {
        let Ok(start) = usize::try_from(offset) else {
            return Vec::new();
        };
        let end = start.saturating_add(limit as usize).min(self.order.len());
        if start >= end {
            return Vec::new();
        }
        (start..)
            .zip(self.order.range_idx(start..end))
            .map(|(i, placed)| {
                let slot = &self.slots[placed.slot as usize];
                let text = self.slot_text(slot);
                let (name, splits) = text.split_at(slot.name_len as usize);
                Entry {
                    rank: i64::try_from(i).map_or(i64::MAX, |i| i + 1),
                    run_id: slot.run_id,
                    // Written from a `String`: valid UTF-8.
                    player: String::from_utf8_lossy(name).into_owned(),
                    finish_tick: slot.finish_tick,
                    uploaded_ms: slot.uploaded_ms,
                    splits: decode_splits(splits),
                }
            })
            .collect()
    }

    /// Heap bytes held, roughly (for the log line of a build).
    pub fn bytes(&self) -> usize {
        self.order.len() * std::mem::size_of::<Placed>()
            + self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.by_player.capacity() * (std::mem::size_of::<(i64, u32)>() + 1)
            + self.text.capacity()
    }

    #[cfg(test)]
    fn live_text(&self) -> usize {
        self.text.len() - self.garbage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(player: i64, run_id: i64, finish_tick: i64, splits: &[(Option<u32>, u32)]) -> BestRun {
        let list: Vec<String> = splits
            .iter()
            .map(|(c, t)| {
                let c = c.map_or("null".to_string(), |c| c.to_string());
                format!(r#"{{"checkpoint":{c},"tick":{t}}}"#)
            })
            .collect();
        BestRun {
            player_id: player,
            run_id,
            finish_tick,
            player: format!("p{player}"),
            uploaded_ms: run_id * 10,
            splits: Some(format!("[{}]", list.join(","))),
        }
    }

    /// The entries against a plain sorted list, under random moves, removals and text
    /// rewrites (enough churn to compact the text buffer several times).
    #[test]
    fn entries_agree_with_a_sorted_list() {
        let seed = std::env::var("POGO_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x5eed_u64);
        println!("seed {seed} (POGO_SEED=… to replay)");
        let mut state = seed | 1;
        let mut next = |n: u64| {
            // xorshift64*: a test's reproducible sequence, nothing more.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
        };
        let mut entries = Entries::default();
        let mut truth: HashMap<i64, BestRun> = HashMap::new();
        let mut scratch = Vec::new();
        let mut compactions = 0;
        let mut run_id = 0i64;
        for step in 0..60_000 {
            let player = next(500) as i64;
            let best = if next(5) == 0 {
                None
            } else {
                run_id += 1;
                let finish = next(300) as i64;
                // Checkpoints past one byte's varint, ticks past two bytes'.
                let splits: Vec<(Option<u32>, u32)> = (0..next(4))
                    .map(|c| (Some(c as u32 * 70), next(100_000) as u32))
                    .chain([(None, finish as u32)])
                    .collect();
                Some(run(player, run_id, finish, &splits))
            };
            let text_before = entries.text.len();
            entries.set(player, best.as_ref(), &mut scratch).unwrap();
            if entries.text.len() < text_before {
                compactions += 1;
            }
            match best {
                Some(best) => truth.insert(player, best),
                None => truth.remove(&player),
            };
            if step % 997 == 0 {
                let mut sorted: Vec<&BestRun> = truth.values().collect();
                sorted.sort_by_key(|b| (b.finish_tick, b.run_id));
                assert_eq!(entries.len() as usize, sorted.len());
                let page = entries.page(0, u32::MAX);
                for (entry, want) in page.iter().zip(&sorted) {
                    assert_eq!(entry.run_id, want.run_id, "step {step}");
                    assert_eq!(entry.player, want.player);
                    assert_eq!(entry.finish_tick, want.finish_tick);
                    assert_eq!(entry.uploaded_ms, want.uploaded_ms);
                    assert_eq!(entry.splits, parse_splits(want.splits.as_deref()));
                }
                for (rank, want) in sorted.iter().enumerate() {
                    let rank = Some(rank as i64 + 1);
                    assert_eq!(entries.player_rank(want.player_id), rank);
                    assert_eq!(entries.run_rank(want.player_id, want.run_id), rank);
                    assert_eq!(entries.run_rank(want.player_id, want.run_id + 1), None);
                }
                let offset = next(sorted.len() as u64 + 3);
                for entry in entries.page(offset, 7) {
                    assert!(entry.rank as u64 > offset && entry.rank as u64 <= offset + 7);
                    let want = sorted[(entry.rank - 1) as usize];
                    assert_eq!(
                        (entry.finish_tick, entry.run_id),
                        (want.finish_tick, want.run_id)
                    );
                }
                assert_eq!(entries.free.len() + truth.len(), entries.slots.len());
            }
        }
        assert!(compactions > 0, "the text buffer was never rewritten");
        let live: usize = truth
            .values()
            .map(|b| {
                encode_text(b, &mut scratch);
                scratch.len()
            })
            .sum();
        assert_eq!(entries.live_text(), live, "garbage counted as live or lost");
    }

    #[test]
    fn varints_round_trip_at_their_edges() {
        for value in [
            0,
            1,
            0x7f,
            0x80,
            0x3fff,
            0x4000,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut bytes = Vec::new();
            put_varint(&mut bytes, value);
            assert_eq!(take_varint(&bytes), Some((value, &[][..])), "{value}");
        }
        assert_eq!(take_varint(&[0x80]), None);
    }
}
