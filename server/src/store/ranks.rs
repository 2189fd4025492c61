//! The rank index: every board a process has read, in memory, as an order-statistic tree, so
//! that a page at any offset, a run's rank, a player's rank and the board's size cost
//! O(log n) — not a sort of the whole board per read, as SQL's `OFFSET`, `COUNT(*)` and window
//! functions do.
//!
//! **Why in the process, not in Redis.** A board entry is 16 bytes of key (finish tick, run
//! id), a player's map slot and what a page shows of the run (name, upload time, splits), so
//! that a page reads no rows: about 225 bytes, 250 MB for a million entries (PERFORMANCE.md),
//! which any server holds.
//! Redis's sorted sets would answer the same ZRANK/ZRANGE in O(log n), shared between
//! processes, but they would add a second store to run, to secure and to keep consistent with
//! the database across crashes — and a network round trip to every read. Each process instead
//! keeps its own index and follows the database's change feed, so nothing new has to be
//! operated and a lost index costs only a rebuild.
//!
//! **The database is the source of truth.** An index is built from `runs` the first time a
//! board is read (or when the server starts, for the current boards) and then follows
//! `board_changes`, a feed written by triggers on `runs` and `players` (migration 0008) in
//! commit order. A change row names a player and a level, nothing else: the index re-reads that
//! player's best run on each of its boards of that level, so applying a change twice, late or
//! after a rebuild gives the same index. Every read first applies the feed rows committed
//! before the read began (one indexed range query; skipped when another read's catch-up began
//! after this one did), so a read sees every write committed before it — in this process or
//! any other sharing the database. A process that has not read the feed for
//! [`FEED_STALE`] (its rows may have been pruned) drops its boards and rebuilds them.
//!
//! Cost: a board's first read pays its build (a pass over the level's runs: about a second a
//! million on PostgreSQL, see PERFORMANCE.md); the index holds one lock while building, so
//! reads wait for it. Boards are never evicted: a process holds every board it has served
//! since it started (levels × seasons × categories).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use super::board::{BestRun, parse_splits};
use super::{Board, Entry, Result, Store};

/// Feed rows read per query.
const FEED_BATCH: u32 = 10_000;
/// A backlog longer than this is not replayed: the affected boards are rebuilt instead.
const FEED_REBUILD_AFTER: usize = 50_000;
/// How long feed rows are kept after a process has read them before it prunes them.
const FEED_KEEP: Duration = Duration::from_secs(10 * 60);
/// A process that has not read the feed for this long may have missed pruned rows: it
/// rebuilds (well inside `FEED_KEEP`).
pub const FEED_STALE: Duration = Duration::from_secs(5 * 60);
/// How often a process notes how far it has read (and so how often it may prune).
const FEED_PRUNE_INTERVAL: Duration = Duration::from_secs(60);
/// Feed rows deleted per statement when pruning (a bulk import leaves a million).
const FEED_PRUNE_BATCH: u32 = 10_000;

/// A board entry's order key: (finish tick, run id) — faster first, then earlier upload.
type Key = (i64, i64);

/// What a page shows of an entry besides its rank and key. Kept in the index so that a page
/// reads no rows: at a million runs a page's 20 runs and their players were 40 scattered row
/// reads, which made a random page cost twice what it did on a small board.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shown {
    player: Box<str>,
    uploaded_ms: i64,
    /// `(checkpoint, tick)` pairs, parsed once: a third of the stored JSON's size.
    splits: Box<[(Option<u32>, u32)]>,
}

impl BestRun {
    fn key(&self) -> Key {
        (self.finish_tick, self.run_id)
    }

    fn shown(&self) -> Shown {
        Shown {
            player: self.player.as_str().into(),
            uploaded_ms: self.uploaded_ms,
            splits: parse_splits(self.splits.as_deref()).into(),
        }
    }
}

/// One board's entries: each player's best run, in board order.
#[derive(Debug, Default)]
struct BoardRanks {
    /// The entries in board order: a two-level B-tree with a Fenwick tree over its nodes, so
    /// `rank` and positional reads are O(log n).
    order: indexset::BTreeSet<Key>,
    /// Each player's entry.
    best: HashMap<i64, Key>,
    /// What a page shows of each entry, by run id.
    shown: HashMap<i64, Shown>,
}

impl BoardRanks {
    fn build(best: Vec<BestRun>) -> BoardRanks {
        let mut ranks = BoardRanks::default();
        for run in best {
            ranks.set(run.player_id, Some((run.key(), run.shown())));
        }
        ranks
    }

    /// Makes `entry` the player's entry (`None`: no entry).
    fn set(&mut self, player: i64, entry: Option<(Key, Shown)>) {
        let old = self.best.get(&player).copied();
        if let (Some(old), Some((key, shown))) = (old, &entry) {
            if old == *key && self.shown.get(&key.1) == Some(shown) {
                return;
            }
        }
        if let Some(old) = old {
            self.order.remove(&old);
            self.shown.remove(&old.1);
            self.best.remove(&player);
        }
        if let Some((key, shown)) = entry {
            self.order.insert(key);
            self.shown.insert(key.1, shown);
            self.best.insert(player, key);
        }
    }

    fn len(&self) -> i64 {
        i64::try_from(self.order.len()).unwrap_or(i64::MAX)
    }

    /// The 1-based rank of an entry.
    fn rank(&self, key: &Key) -> i64 {
        i64::try_from(self.order.rank(key)).map_or(i64::MAX, |r| r + 1)
    }

    fn player_rank(&self, player: i64) -> Option<i64> {
        self.best.get(&player).map(|key| self.rank(key))
    }

    /// `limit` entries from the 0-based `offset`, as the page shows them.
    fn page(&self, offset: u64, limit: u32) -> Vec<Entry> {
        let Ok(start) = usize::try_from(offset) else {
            return Vec::new();
        };
        let end = start.saturating_add(limit as usize).min(self.order.len());
        if start >= end {
            return Vec::new();
        }
        (start..)
            .zip(self.order.range_idx(start..end))
            .filter_map(|(i, &(finish_tick, run_id))| {
                let shown = self.shown.get(&run_id)?;
                Some(Entry {
                    rank: i64::try_from(i).map_or(i64::MAX, |i| i + 1),
                    run_id,
                    player: shown.player.to_string(),
                    finish_tick,
                    uploaded_ms: shown.uploaded_ms,
                    splits: shown.splits.to_vec(),
                })
            })
            .collect()
    }
}

/// The index's state, behind one lock.
#[derive(Debug, Default)]
struct Index {
    /// The last feed row applied; `None` until the first read.
    last_seq: Option<i64>,
    /// When the last catch-up began: a read that began before it needs no other.
    caught_up_from: Option<Instant>,
    /// How far the feed had been read, and when, once per [`FEED_PRUNE_INTERVAL`]: rows up
    /// to a mark older than [`FEED_KEEP`] may go (any process still behind them is stale and
    /// rebuilds anyway).
    marks: std::collections::VecDeque<(Instant, i64)>,
    boards: HashMap<Board, BoardRanks>,
}

/// The rank index of every board this process has read (see the module doc).
#[derive(Debug, Default)]
pub struct Ranks {
    index: Mutex<Index>,
}

impl Index {
    /// Applies the feed rows committed before `started`.
    async fn catch_up(&mut self, store: &Store, started: Instant) -> Result<()> {
        if self.caught_up_from.is_some_and(|from| from >= started) {
            return Ok(());
        }
        let from = Instant::now();
        let stale = self
            .caught_up_from
            .is_none_or(|at| from.duration_since(at) > FEED_STALE);
        let mut last = match self.last_seq {
            Some(last) if !stale => last,
            _ => {
                // First read, or too long asleep: start from the feed's end with no board
                // loaded (each is built from `runs` when next read, after this point).
                self.boards.clear();
                self.last_seq = Some(store.board_changes_last().await?);
                self.caught_up_from = Some(from);
                return Ok(());
            }
        };
        // Players to re-read, by level (`None`: every level).
        let mut changed: BTreeMap<Option<String>, BTreeSet<i64>> = BTreeMap::new();
        let mut count = 0usize;
        loop {
            let rows = store.board_changes_after(last, FEED_BATCH).await?;
            let done = rows.len() < FEED_BATCH as usize;
            for row in rows {
                last = row.seq;
                count += 1;
                changed.entry(row.level).or_default().insert(row.player_id);
            }
            if done || count > FEED_REBUILD_AFTER {
                break;
            }
        }
        if count > FEED_REBUILD_AFTER {
            // Cheaper to rebuild than to replay (a bulk import, a reverify of a whole season).
            self.boards.clear();
            self.last_seq = Some(store.board_changes_last().await?);
            self.caught_up_from = Some(from);
            return Ok(());
        }
        let everywhere = changed.remove(&None).unwrap_or_default();
        for (board, ranks) in self.boards.iter_mut() {
            let mut players: BTreeSet<i64> = everywhere.clone();
            if let Some(here) = changed.get(&Some(board.level.clone())) {
                players.extend(here);
            }
            if players.is_empty() {
                continue;
            }
            let players: Vec<i64> = players.into_iter().collect();
            let found = store.board_best_of(board, &players).await?;
            let mut found: HashMap<i64, (Key, Shown)> = found
                .into_iter()
                .map(|b| (b.player_id, (b.key(), b.shown())))
                .collect();
            for player in players {
                ranks.set(player, found.remove(&player));
            }
        }
        self.last_seq = Some(last);
        self.caught_up_from = Some(from);
        if self
            .marks
            .back()
            .is_none_or(|&(at, _)| from.duration_since(at) > FEED_PRUNE_INTERVAL)
        {
            self.marks.push_back((from, last));
        }
        Ok(())
    }

    /// The feed rows this process read more than [`FEED_KEEP`] ago: up to this seq.
    fn prunable(&mut self) -> Option<i64> {
        let mut cut = None;
        while let Some(&(at, seq)) = self.marks.front() {
            if at.elapsed() < FEED_KEEP {
                break;
            }
            cut = Some(seq);
            self.marks.pop_front();
        }
        cut
    }

    /// The board's ranks, built from `runs` if this process has not read it yet.
    async fn board(&mut self, store: &Store, board: &Board) -> Result<&BoardRanks> {
        if !self.boards.contains_key(board) {
            let started = Instant::now();
            let best = store.board_best(board).await?;
            let ranks = BoardRanks::build(best);
            tracing::info!(
                level = %board.level, category = board.category.as_str(),
                entries = ranks.len(), ms = started.elapsed().as_millis() as u64,
                "rank index built"
            );
            self.boards.insert(board.clone(), ranks);
        }
        Ok(&self.boards[board])
    }
}

impl Ranks {
    /// Runs `read` on the board's ranks once every change committed before this call is in.
    async fn read<T>(
        &self,
        store: &Store,
        board: &Board,
        read: impl FnOnce(&BoardRanks) -> T,
    ) -> Result<T> {
        let started = Instant::now();
        let mut index = self.index.lock().await;
        index.catch_up(store, started).await?;
        Ok(read(index.board(store, board).await?))
    }

    /// Reads the feed now (the server does every second, so that reads find little to apply
    /// and the feed never goes stale), and builds `boards` if not built yet.
    pub async fn keep_up(&self, store: &Store, boards: &[Board]) -> Result<()> {
        let prunable = {
            let mut index = self.index.lock().await;
            index.catch_up(store, Instant::now()).await?;
            for board in boards {
                index.board(store, board).await?;
            }
            index.prunable()
        };
        // Without the lock: reads go on while old rows go, a batch at a time.
        if let Some(seq) = prunable {
            let mut pruned = 0;
            loop {
                let rows = store.prune_board_changes(seq, FEED_PRUNE_BATCH).await?;
                pruned += rows;
                if rows < u64::from(FEED_PRUNE_BATCH) {
                    break;
                }
            }
            tracing::debug!(pruned, up_to = seq, "board change feed pruned");
        }
        Ok(())
    }
}

/// Where a page of a board starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageAt {
    /// After this many entries.
    Offset(u64),
    /// With this player's entry in the middle (or as near as the top of the board allows).
    Around(i64),
}

/// A page of a board, read at one instant of the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardPage {
    /// Entries before the page.
    pub offset: u64,
    /// Players on the board.
    pub total: i64,
    pub entries: Vec<Entry>,
}

impl Store {
    /// A page of the board and its size, from one look at the index: one catch-up with the
    /// feed, then the entries as the index keeps them (no row is read); `None` if `at` is a
    /// player with no entry.
    pub async fn board_page(
        &self,
        board: &Board,
        at: PageAt,
        limit: u32,
    ) -> Result<Option<BoardPage>> {
        let page = self
            .ranks
            .read(self, board, |ranks| {
                let offset = match at {
                    PageAt::Offset(offset) => offset,
                    PageAt::Around(player) => {
                        let rank = ranks.player_rank(player)?;
                        u64::try_from(rank - 1)
                            .unwrap_or(0)
                            .saturating_sub(u64::from(limit / 2))
                    }
                };
                Some((offset, ranks.len(), ranks.page(offset, limit)))
            })
            .await?;
        Ok(page.map(|(offset, total, entries)| BoardPage {
            offset,
            total,
            entries,
        }))
    }

    /// A page of the leaderboard, best first: `limit` entries from rank `offset + 1`.
    pub async fn leaderboard(&self, board: &Board, limit: u32, offset: u64) -> Result<Vec<Entry>> {
        let page = self
            .board_page(board, PageAt::Offset(offset), limit)
            .await?;
        Ok(page.map(|p| p.entries).unwrap_or_default())
    }

    /// How many players are on the board.
    pub async fn board_size(&self, board: &Board) -> Result<i64> {
        self.ranks.read(self, board, BoardRanks::len).await
    }

    /// The rank of a player's entry on the board, if they have one.
    pub async fn player_rank(&self, board: &Board, player_id: i64) -> Result<Option<i64>> {
        self.ranks
            .read(self, board, |ranks| ranks.player_rank(player_id))
            .await
    }

    /// The rank of a run, if it is its player's entry on the board.
    pub async fn run_rank(&self, board: &Board, run_id: i64) -> Result<Option<i64>> {
        let Some(player) = self.run_player(run_id).await? else {
            return Ok(None);
        };
        self.ranks
            .read(self, board, |ranks| {
                let key = ranks.best.get(&player)?;
                (key.1 == run_id).then(|| ranks.rank(key))
            })
            .await
    }

    /// Applies the change feed and builds `boards` if needed (see [`Ranks::keep_up`]).
    pub async fn keep_ranks_up(&self, boards: &[Board]) -> Result<()> {
        self.ranks.keep_up(self, boards).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index's own bookkeeping against a plain sorted list, under random moves.
    #[test]
    fn board_ranks_agree_with_a_sorted_list() {
        let seed = std::env::var("POGO_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x5eed_u64);
        println!("seed {seed} (POGO_SEED=… to replay)");
        let mut state = seed;
        let mut next = |n: u64| {
            // xorshift64*: a test's reproducible sequence, nothing more.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
        };
        let mut ranks = BoardRanks::default();
        let mut truth: HashMap<i64, Key> = HashMap::new();
        let mut run = 0i64;
        for step in 0..20_000 {
            let player = next(500) as i64;
            let key = if next(5) == 0 {
                None
            } else {
                run += 1;
                Some((next(300) as i64, run))
            };
            let shown = |key: Key| Shown {
                player: format!("p{player}").into(),
                uploaded_ms: key.1 * 10,
                splits: vec![(Some(0), (key.0 / 2) as u32), (None, key.0 as u32)].into(),
            };
            ranks.set(player, key.map(|key| (key, shown(key))));
            match key {
                Some(key) => truth.insert(player, key),
                None => truth.remove(&player),
            };
            if step % 997 == 0 {
                let mut sorted: Vec<Key> = truth.values().copied().collect();
                sorted.sort();
                assert_eq!(ranks.len() as usize, sorted.len());
                let page: Vec<i64> = ranks.page(0, u32::MAX).iter().map(|e| e.run_id).collect();
                let want: Vec<i64> = sorted.iter().map(|k| k.1).collect();
                assert_eq!(page, want, "step {step}");
                for (player, key) in &truth {
                    let want = sorted.iter().position(|k| k == key).unwrap() as i64 + 1;
                    assert_eq!(ranks.player_rank(*player), Some(want));
                }
                let offset = next(sorted.len() as u64 + 3);
                let page = ranks.page(offset, 7);
                for entry in page {
                    let rank = entry.rank;
                    assert_eq!(
                        sorted[(rank - 1) as usize],
                        (entry.finish_tick, entry.run_id)
                    );
                    assert!(rank as u64 > offset && rank as u64 <= offset + 7);
                    let player = truth.iter().find(|(_, k)| k.1 == entry.run_id).unwrap().0;
                    assert_eq!(entry.player, format!("p{player}"));
                    assert_eq!(entry.uploaded_ms, entry.run_id * 10);
                }
                assert_eq!(
                    ranks.shown.len(),
                    truth.len(),
                    "no entry's display outlives it"
                );
            }
        }
    }
}
