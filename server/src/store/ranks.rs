//! The rank index: every board a process has read, in memory, as an order-statistic tree, so
//! that a page at any offset, a run's rank, a player's rank and the board's size cost
//! O(log n) — not a sort of the whole board per read, as SQL's `OFFSET`, `COUNT(*)` and window
//! functions do.
//!
//! **Why in the process, not in Redis.** A board entry is its order key, its player's slot
//! and what a page shows of the run (name, upload time, splits), so that a page reads no rows:
//! ≈ 130 bytes of heap (`entries.rs`), 150 MB of a server's anonymous memory for a
//! million-entry board (PERFORMANCE.md), which any server holds.
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
//! after a rebuild gives the same index. Every read first asks the database where the feed
//! ends (`MAX(seq)`: one probe of its primary key) and, if the index has not applied that far,
//! applies the feed up to there; so a read sees every write committed before it — in this
//! process or any other sharing the database. A process that has not read the feed for
//! [`FEED_STALE`] (its rows may have been pruned) drops its boards and rebuilds them.
//!
//! **Reads run side by side.** The probes run in parallel, each read its own, no lock held;
//! only a read that finds the feed moved takes the feed's lock (a `tokio` mutex, one catch-up
//! at a time, held across its queries), and the reads waiting on it find their changes
//! applied when they get it. A board's entries sit behind their own read-write lock, taken
//! for reading only while a read copies out its answer (microseconds) and for writing only
//! while a catch-up applies rows it has already fetched. Before, one lock over the whole
//! index was held across each read's feed query (and across a build): at a million runs on
//! PostgreSQL under 16 clients a read waited 3.8 ms for it on average, and the lock was held
//! 62 % of the time (PERFORMANCE.md).
//!
//! **A build answers nothing wrong and blocks nothing.** A board is built in a task of its
//! own, in one walk of the board in board order (`Boards::board_scan`), no lock held; the feed
//! rows committed during the walk are applied to it before it is published. Until then its
//! reads are answered from SQL (`board_sql.rs`): exact, and as fast as SQL is (the top of the
//! board in milliseconds, a rank a walk of the board down to it). A failed build is retried
//! after [`BUILD_RETRY_AFTER`]. Boards are never
//! evicted: a process holds every board it has served since it started (levels × seasons ×
//! categories).

mod entries;
mod source;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex, watch};

use super::board::BestRun;
use super::{Board, Result, Store, StoreError};
use entries::Entries;

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
/// How long after a failed build a board's reads stay with SQL before it is built again (a
/// build is seconds of the database's time at a million runs: not one per read).
const BUILD_RETRY_AFTER: Duration = Duration::from_secs(30);

/// A board as the index holds it.
#[derive(Debug)]
enum BoardState {
    /// Being built: its reads are answered from SQL. The build's task holds the sender and
    /// drops it when it ends, which wakes whoever waits on a receiver.
    Building(watch::Receiver<()>),
    Ready(Arc<RwLock<Entries>>),
    /// Its last build failed at this instant: its reads are answered from SQL.
    Failed(Instant),
}

/// What only a catch-up touches, behind the feed's lock.
#[derive(Debug, Default)]
struct Feed {
    /// When the feed was last read (`None`: never).
    read_at: Option<Instant>,
    /// How far the feed had been read, and when, once per [`FEED_PRUNE_INTERVAL`]: rows up
    /// to a mark older than [`FEED_KEEP`] may go (any process still behind them is stale and
    /// rebuilds anyway).
    marks: VecDeque<(Instant, i64)>,
}

/// Feed rows to apply: the players to re-read, by level (`None`: every level).
type Changes = BTreeMap<Option<String>, BTreeSet<i64>>;

/// The rank index of every board this process has read (see the module doc).
#[derive(Debug)]
pub struct Ranks {
    /// The feed's reader: one catch-up at a time.
    feed: Mutex<Feed>,
    /// The last feed row applied to every built board ([`NOT_READ`] before the first read);
    /// written under the feed's lock, read without it.
    applied: AtomicI64,
    boards: RwLock<HashMap<Board, BoardState>>,
    /// Counts the times every board was dropped: a build begun before the last drop is not
    /// published (the feed rows it would need may be gone).
    epoch: AtomicU64,
    /// Taken for reading by a build before it publishes; [`Boards::hold_rank_builds`] takes it
    /// for writing, so that a test can read a board while its build is held.
    pub(super) publish: Arc<tokio::sync::RwLock<()>>,
}

/// [`Ranks::applied`] before the feed is first read.
const NOT_READ: i64 = i64::MIN;

impl Default for Ranks {
    fn default() -> Ranks {
        Ranks {
            feed: Mutex::default(),
            applied: AtomicI64::new(NOT_READ),
            boards: RwLock::default(),
            epoch: AtomicU64::new(0),
            publish: Arc::default(),
        }
    }
}

/// Locks a std lock, through poisoning: the code under these locks only copies or moves
/// plain data, so a panic there leaves nothing half-written worth refusing.
fn read_lock<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn write_lock<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

impl Ranks {
    /// Whether every feed row up to `seen` is applied.
    fn applied_up_to(&self, seen: i64) -> bool {
        let applied = self.applied.load(Ordering::SeqCst);
        applied != NOT_READ && applied >= seen
    }

    /// Applies the feed up to `seen` at least (a feed end a read saw): nothing if that is
    /// done; else under the feed's lock, after the catch-up under way (which may do it).
    async fn catch_up_to(&self, store: &Store, seen: i64) -> Result<()> {
        if self.applied_up_to(seen) {
            return Ok(());
        }
        let mut feed = self.feed.lock().await;
        if self.applied_up_to(seen) {
            return Ok(());
        }
        self.apply_feed(store, &mut feed).await
    }

    /// Reads the feed from where it stands to its end and applies it to every built board
    /// (under the feed's lock, `feed`).
    async fn apply_feed(&self, store: &Store, feed: &mut Feed) -> Result<()> {
        let now = Instant::now();
        let applied = self.applied.load(Ordering::SeqCst);
        if applied == NOT_READ {
            // First read: start from the feed's end (no board is built before this point).
            self.applied
                .store(store.boards().board_changes_last().await?, Ordering::SeqCst);
            feed.read_at = Some(now);
            return Ok(());
        }
        let stale = feed
            .read_at
            .is_none_or(|at| now.duration_since(at) > FEED_STALE);
        let read = if stale {
            None
        } else {
            read_changes(store, applied, i64::MAX, FEED_REBUILD_AFTER).await?
        };
        let Some((changes, last)) = read else {
            // Too long asleep, or a backlog cheaper to rebuild than to replay (a bulk import,
            // a reverify of a whole season): every board goes, and is built again from `runs`
            // when next read, after this point.
            let end = store.boards().board_changes_last().await?;
            self.drop_boards();
            self.applied.store(end, Ordering::SeqCst);
            feed.read_at = Some(now);
            return Ok(());
        };
        let ready: Vec<(Board, Arc<RwLock<Entries>>)> = read_lock(&self.boards)
            .iter()
            .filter_map(|(board, state)| match state {
                BoardState::Ready(entries) => Some((board.clone(), entries.clone())),
                _ => None,
            })
            .collect();
        for (board, entries) in ready {
            self.apply_changes(store, &board, &entries, &changes)
                .await?;
        }
        self.applied.store(last, Ordering::SeqCst);
        feed.read_at = Some(now);
        if feed
            .marks
            .back()
            .is_none_or(|&(at, _)| now.duration_since(at) > FEED_PRUNE_INTERVAL)
        {
            feed.marks.push_back((now, last));
        }
        Ok(())
    }

    /// Forgets every board (built or being built).
    fn drop_boards(&self) {
        let mut boards = write_lock(&self.boards);
        self.epoch.fetch_add(1, Ordering::SeqCst);
        boards.clear();
    }

    /// Re-reads the players `changes` names on `board` and sets their entries.
    async fn apply_changes(
        &self,
        store: &Store,
        board: &Board,
        entries: &RwLock<Entries>,
        changes: &Changes,
    ) -> Result<()> {
        let mut players: BTreeSet<i64> = changes.get(&None).cloned().unwrap_or_default();
        if let Some(here) = changes.get(&Some(board.level.clone())) {
            players.extend(here);
        }
        if players.is_empty() {
            return Ok(());
        }
        let players: Vec<i64> = players.into_iter().collect();
        let found: HashMap<i64, BestRun> = store
            .boards()
            .board_best_of(board, &players)
            .await?
            .into_iter()
            .map(|best| (best.player_id, best))
            .collect();
        let mut scratch = Vec::new();
        let mut entries = write_lock(entries);
        for player in players {
            if let Err(full) = entries.set(player, found.get(&player), &mut scratch) {
                drop(entries);
                tracing::warn!(level = %board.level, category = board.category.as_str(),
                    error = %full, "rank index dropped: its reads go to SQL");
                write_lock(&self.boards).insert(board.clone(), BoardState::Failed(Instant::now()));
                return Ok(());
            }
        }
        Ok(())
    }

    /// The board's entries if it is built.
    pub(super) fn ready(&self, board: &Board) -> Option<Arc<RwLock<Entries>>> {
        match read_lock(&self.boards).get(board) {
            Some(BoardState::Ready(entries)) => Some(entries.clone()),
            _ => None,
        }
    }

    /// Runs `read` on the board's entries once every change up to the feed's end `seen` (or,
    /// if `None`, as it ends now) is in; `None` if the board is not built (its build is
    /// started): read SQL instead.
    pub(super) async fn read<T>(
        &self,
        store: &Store,
        board: &Board,
        seen: &mut Option<i64>,
        read: impl FnOnce(&Entries) -> T,
    ) -> Result<Option<T>> {
        if self.ready(board).is_some() {
            let seen = match *seen {
                Some(seen) => seen,
                None => *seen.insert(store.boards().board_changes_last().await?),
            };
            self.catch_up_to(store, seen).await?;
            // Still built (a catch-up may have dropped every board).
            if let Some(entries) = self.ready(board) {
                return Ok(Some(read(&read_lock(&entries))));
            }
        }
        self.start_build(store, board);
        Ok(None)
    }

    /// Starts building the board unless it is built, being built, or failed lately; a
    /// receiver that wakes when the build under way ends (`None`: none is).
    fn start_build(&self, store: &Store, board: &Board) -> Option<watch::Receiver<()>> {
        if let Some(BoardState::Building(done)) = read_lock(&self.boards).get(board) {
            // The common case while a big board builds: every read of it comes here.
            return Some(done.clone());
        }
        let mut boards = write_lock(&self.boards);
        match boards.get(board) {
            Some(BoardState::Ready(_)) => return None,
            Some(BoardState::Building(done)) => return Some(done.clone()),
            Some(BoardState::Failed(at)) if at.elapsed() < BUILD_RETRY_AFTER => return None,
            _ => {}
        }
        let (sender, done) = watch::channel(());
        boards.insert(board.clone(), BoardState::Building(done.clone()));
        // Read under the boards' lock, which `drop_boards` takes to count a drop.
        let epoch = self.epoch.load(Ordering::SeqCst);
        let (store, board) = (store.clone(), board.clone());
        tokio::spawn(async move {
            let ranks = store.ranks.clone();
            if let Err(e) = ranks.build(&store, &board, epoch).await {
                tracing::warn!(level = %board.level, category = board.category.as_str(),
                    error = %e, "rank index not built: its reads go to SQL");
                let mut boards = write_lock(&ranks.boards);
                if ranks.epoch.load(Ordering::SeqCst) == epoch {
                    boards.insert(board, BoardState::Failed(Instant::now()));
                }
            }
            drop(sender);
        });
        Some(done)
    }

    /// Builds the board from `runs` and publishes it (unless every board was dropped since
    /// `epoch`): the walk first, no lock held; then, under the feed's lock, the feed rows
    /// committed since the walk began, so that it joins the other boards where they stand.
    async fn build(&self, store: &Store, board: &Board, epoch: u64) -> Result<()> {
        // Where the feed stands before the walk: every change up to here is in what the walk
        // reads; those after are applied below (applying one twice changes nothing).
        let from_seq = {
            let mut feed = self.feed.lock().await;
            if self.applied.load(Ordering::SeqCst) == NOT_READ {
                self.apply_feed(store, &mut feed).await?;
            }
            self.applied.load(Ordering::SeqCst)
        };
        let started = Instant::now();
        let mut entries = Entries::new();
        let mut scratch = Vec::new();
        store
            .boards()
            .board_scan(board, |run| {
                entries
                    .add_if_absent(&run, &mut scratch)
                    .map_err(|full| StoreError::Corrupt(full.to_string()))
            })
            .await?;
        let walked_ms = started.elapsed().as_millis() as u64;
        let entries = Arc::new(RwLock::new(entries));
        let _publish = self.publish.read().await;
        let feed = self.feed.lock().await;
        if self.epoch.load(Ordering::SeqCst) != epoch {
            return Ok(());
        }
        let upto = self.applied.load(Ordering::SeqCst);
        if let Some((changes, _)) = read_changes(store, from_seq, upto, usize::MAX).await? {
            self.apply_changes(store, board, &entries, &changes).await?;
        }
        let (count, bytes) = {
            let built = read_lock(&entries);
            (built.len(), built.bytes())
        };
        let mut boards = write_lock(&self.boards);
        if matches!(boards.get(board), Some(BoardState::Building(_))) {
            boards.insert(board.clone(), BoardState::Ready(entries));
        }
        drop(boards);
        drop(feed);
        tracing::info!(
            level = %board.level, category = board.category.as_str(), entries = count,
            ms = walked_ms, heap_mb = bytes >> 20, "rank index built"
        );
        Ok(())
    }

    /// Waits until the board is built (or its build failed), building it if need be.
    async fn wait_built(&self, store: &Store, board: &Board) {
        while let Some(mut done) = self.start_build(store, board) {
            // Resolves (with an error) once the build's task drops its sender.
            let _ = done.changed().await;
        }
    }

    /// Reads the feed now (the server does every second, so that reads find little to apply
    /// and the feed never goes stale), and builds `boards` if not built yet, one at a time.
    pub(super) async fn keep_up(&self, store: &Store, boards: &[Board]) -> Result<()> {
        let seen = store.boards().board_changes_last().await?;
        self.catch_up_to(store, seen).await?;
        for board in boards {
            self.wait_built(store, board).await;
        }
        let prunable = prunable(&mut self.feed.lock().await.marks);
        // Without the lock: reads go on while old rows go, a batch at a time.
        if let Some(seq) = prunable {
            let mut pruned = 0;
            loop {
                let rows = store
                    .boards()
                    .prune_board_changes(seq, FEED_PRUNE_BATCH)
                    .await?;
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

/// The feed rows after `after` up to `upto` as changes to apply, and the last row's seq
/// (`after` if none); `None` if there are more than `most` (a rebuild is cheaper).
async fn read_changes(
    store: &Store,
    after: i64,
    upto: i64,
    most: usize,
) -> Result<Option<(Changes, i64)>> {
    let mut changes = Changes::new();
    let mut last = after;
    let mut count = 0usize;
    loop {
        let rows = store
            .boards()
            .board_changes_between(last, upto, FEED_BATCH)
            .await?;
        let done = rows.len() < FEED_BATCH as usize;
        for row in rows {
            last = row.seq;
            count += 1;
            changes.entry(row.level).or_default().insert(row.player_id);
        }
        if count > most {
            return Ok(None);
        }
        if done {
            return Ok(Some((changes, last)));
        }
    }
}

/// The feed rows this process read more than [`FEED_KEEP`] ago: up to this seq.
fn prunable(marks: &mut VecDeque<(Instant, i64)>) -> Option<i64> {
    let mut cut = None;
    while let Some(&(at, seq)) = marks.front() {
        if at.elapsed() < FEED_KEEP {
            break;
        }
        cut = Some(seq);
        marks.pop_front();
    }
    cut
}
