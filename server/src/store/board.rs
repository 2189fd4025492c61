//! What a board is, and its reads: `store.boards()`.
//!
//! The order, everywhere: a player's best run is their lowest finish tick, then their earliest
//! upload (lowest run id); the board orders those the same way. Only verified, finished,
//! shown runs of shown players count; a real-time board only `realtime` runs.
//!
//! [`Boards`] is one handle over four files, one role each:
//! - here, the reads the server answers: from the rank index (`ranks.rs`: in memory, O(log n)),
//!   or while a board's index builds from SQL;
//! - `board_sql.rs`: a board read from SQL in board order — the export's keyset batches and
//!   every read while the board's index builds;
//! - `ranks/source.rs`: what the rank index is built and kept from (the board in board order,
//!   a player's best, the change feed);
//! - `reference.rs`: the reference ranking (window functions over every run: simple,
//!   obviously right, linear in the board), which the tests hold every read to.

use serde::Serialize;
use utoipa::ToSchema;

use super::{Result, Store};

/// Where the board change feed ends, as a scalar subquery (`MAX(seq)`: one probe of its
/// primary key; 0 while empty).
pub(super) const FEED_END: &str = "(SELECT COALESCE(MAX(seq), 0) FROM board_changes)";

/// Where the board change feed ended (its last `seq`) when a read looked: a read of the rank
/// index that knows it applies the feed that far first, without a query of its own
/// (`store::ranks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeedSeq(pub i64);

/// Which leaderboard: a level's content under one tuning and rules version (a run verified
/// under other rules stays in the database but is not on this board), in one category.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    pub level: String,
    /// 16 hex digits, as stored.
    pub level_hash: String,
    pub tuning_hash: String,
    pub rules_version: u32,
    pub category: Category,
}

impl Board {
    /// Whether only real-time runs count (the boards' queries bind it as `$5`).
    pub fn real_time_only(&self) -> bool {
        self.category == Category::RealTime
    }
}

/// A hash as a board key stores it and the API shows it: 16 lowercase hex digits (as
/// `pogo levels` prints them).
pub fn hash_hex(hash: u64) -> String {
    format!("{hash:016x}")
}

/// A board's category: which verified runs it ranks.
///
/// **Open** ranks every verified run — the CLI's, files made offline, tool-assisted runs and
/// real-time runs alike: anything the re-simulation accepts. **Real-time** ranks only runs
/// the server saw played in real time (`runs.realtime`: a run ticket whose every commitment
/// arrived on time and was reproduced by the replay). A run without a valid ticket is never
/// on the real-time board.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    #[default]
    Open,
    #[serde(rename = "realtime")]
    RealTime,
}

impl Category {
    /// The name in the API (`open`, `realtime`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Category::Open => "open",
            Category::RealTime => "realtime",
        }
    }
}

/// One leaderboard entry: a player's best run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub rank: i64,
    pub run_id: i64,
    pub player: String,
    pub finish_tick: i64,
    pub uploaded_ms: i64,
    /// `(checkpoint, tick)` at each split, the finish last (`None` checkpoint).
    pub splits: Vec<(Option<u32>, u32)>,
}

/// Where a leaderboard export stands: the last entry sent, as its rank and the board's order
/// key (finish tick, run id); [`ExportCursor::START`] before the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportCursor {
    pub rank: i64,
    pub finish_tick: i64,
    pub run_id: i64,
}

impl ExportCursor {
    /// Before every entry (ranks start at 1, finish ticks at 0, run ids at 1).
    pub const START: ExportCursor = ExportCursor {
        rank: 0,
        finish_tick: -1,
        run_id: 0,
    };

    /// Just after `entry`.
    pub fn after(entry: &Entry) -> ExportCursor {
        ExportCursor {
            rank: entry.rank,
            finish_tick: entry.finish_tick,
            run_id: entry.run_id,
        }
    }
}

/// The condition that picks a category's index: none for the open board (every counting run
/// is in `runs_ranked`), the real-time runs' own partial index's for the real-time board.
/// Written as a literal, not a parameter, so that both planners match the partial index.
pub(super) fn category_filter(board: &Board) -> &'static str {
    match board.category {
        Category::Open => "",
        Category::RealTime => "AND r.realtime = TRUE",
    }
}

/// One entry the rank index keeps: a player's best run on a board, with what a page shows of
/// it (so that a page reads no rows).
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct BestRun {
    pub player_id: i64,
    pub run_id: i64,
    pub finish_tick: i64,
    /// The player's name.
    pub player: String,
    pub uploaded_ms: i64,
    /// The split ticks at each checkpoint, as JSON text (`runs.splits`).
    pub splits: Option<String>,
}

/// Stored splits (`runs.splits`, written by `verdict::splits_json`) back as `(checkpoint, tick)`
/// pairs; none if the text is missing or not that JSON.
pub fn parse_splits(text: Option<&str>) -> Vec<(Option<u32>, u32)> {
    #[derive(serde::Deserialize)]
    struct Stored {
        checkpoint: Option<u32>,
        tick: u32,
    }
    text.and_then(|text| serde_json::from_str::<Vec<Stored>>(text).ok())
        .map(|v| v.into_iter().map(|s| (s.checkpoint, s.tick)).collect())
        .unwrap_or_default()
}

/// The boards: leaderboards, ranks, the change feed, exports — `store.boards()`, its methods in
/// four files (the module's doc).
#[derive(Clone, Copy, Debug)]
pub struct Boards<'a> {
    pub(super) store: &'a Store,
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

/// One state of a board's index: equal versions, the same entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardVersion(u64);

/// While a [`Boards::hold_rank_builds`] hold lives, no rank index build is published.
pub type BuildHold = tokio::sync::OwnedRwLockWriteGuard<()>;

impl Boards<'_> {
    /// A page of the board and its size, from one look at the index: the feed applied up to
    /// its end, then the entries as the index keeps them (no row is read); from SQL while the
    /// board's index is being built. `None` if `at` is a player with no entry.
    pub async fn board_page(
        &self,
        board: &Board,
        at: PageAt,
        limit: u32,
    ) -> Result<Option<BoardPage>> {
        self.board_page_at(board, at, limit, None).await
    }

    /// [`Boards::board_page`], the feed applied up to `seen` (where it ended when the caller
    /// read its other rows, [`Players::player_by_name_and_feed`](super::Players::player_by_name_and_feed)) rather than to where it ends
    /// now: one query fewer.
    pub async fn board_page_at(
        &self,
        board: &Board,
        at: PageAt,
        limit: u32,
        seen: Option<FeedSeq>,
    ) -> Result<Option<BoardPage>> {
        let page = self
            .store
            .ranks
            .read(self.store, board, &mut seen.map(|s| s.0), |entries| {
                let offset = match at {
                    PageAt::Offset(offset) => offset,
                    PageAt::Around(player) => {
                        let rank = entries.player_rank(player)?;
                        u64::try_from(rank - 1)
                            .unwrap_or(0)
                            .saturating_sub(u64::from(limit / 2))
                    }
                };
                Some(BoardPage {
                    offset,
                    total: entries.len(),
                    entries: entries.page(offset, limit),
                })
            })
            .await?;
        match page {
            Some(page) => Ok(page),
            None => self.board_page_sql(board, at, limit).await,
        }
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
        let size = self
            .store
            .ranks
            .read(self.store, board, &mut None, |entries| entries.len())
            .await?;
        match size {
            Some(size) => Ok(size),
            None => self.board_size_fast(board).await,
        }
    }

    /// The rank of a player's entry on the board, if they have one.
    pub async fn player_rank(&self, board: &Board, player_id: i64) -> Result<Option<i64>> {
        let rank = self
            .store
            .ranks
            .read(self.store, board, &mut None, |entries| {
                entries.player_rank(player_id)
            })
            .await?;
        match rank {
            Some(rank) => Ok(rank),
            None => self.player_rank_walk(board, player_id).await,
        }
    }

    /// The rank of a run, if it is its player's entry on the board.
    pub async fn run_rank(&self, board: &Board, run_id: i64) -> Result<Option<i64>> {
        let Some(player) = self.run_player(run_id).await? else {
            return Ok(None);
        };
        let ranks = self
            .run_ranks(std::slice::from_ref(board), run_id, player, None)
            .await?;
        Ok(ranks.into_iter().next().flatten())
    }

    /// The rank of run `run_id` of player `player_id` on each of `boards` (where it is its
    /// player's entry): one look at the feed for them all (none if `seen`, where it ended
    /// when the caller read the run: [`Runs::run_and_feed`](super::Runs::run_and_feed)).
    pub async fn run_ranks(
        &self,
        boards: &[Board],
        run_id: i64,
        player_id: i64,
        seen: Option<FeedSeq>,
    ) -> Result<Vec<Option<i64>>> {
        let mut seen = seen.map(|s| s.0);
        let mut ranks = Vec::with_capacity(boards.len());
        for board in boards {
            let rank = self
                .store
                .ranks
                .read(self.store, board, &mut seen, |entries| {
                    entries.run_rank(player_id, run_id)
                })
                .await?;
            ranks.push(match rank {
                Some(rank) => rank,
                None => self.run_rank_walk(board, run_id, player_id).await?,
            });
        }
        Ok(ranks)
    }

    /// Up to `limit` entries from the 0-based `offset`, as the export writes them, from the
    /// index — with the version of the entries read ([`BoardVersion`]) — if the board is
    /// built and, given `since`, has not changed since that version (the feed applied first,
    /// as for any read). `None`: not built, or changed: the caller reads SQL instead.
    ///
    /// This is how an export streams a built board: a probe of the feed per 1 000 entries
    /// instead of their rows, which at a million runs are scattered over more pages than a
    /// database's cache holds (65 µs a row on PostgreSQL with its default 128 MB, 11 µs at
    /// 1 000). An unchanged version means the board is the one the export began on, so the
    /// rows follow on exactly; after a change the export goes on from SQL, as of its start.
    pub async fn board_rows_indexed(
        &self,
        board: &Board,
        since: Option<BoardVersion>,
        offset: u64,
        limit: u32,
    ) -> Result<Option<(BoardVersion, Vec<Entry>)>> {
        let rows = self
            .store
            .ranks
            .read(self.store, board, &mut None, |entries| {
                let version = BoardVersion(entries.version());
                if since.is_some_and(|since| since != version) {
                    return None;
                }
                let rows = entries.page(offset, limit);
                Some((version, rows))
            })
            .await?;
        Ok(rows.flatten())
    }

    /// Applies the change feed and builds `boards` if needed (see `Ranks::keep_up`).
    pub async fn keep_ranks_up(&self, boards: &[Board]) -> Result<()> {
        self.store.ranks.keep_up(self.store, boards).await
    }

    /// Whether the board's rank index is built (its reads are answered from it, not SQL).
    pub fn rank_index_built(&self, board: &Board) -> bool {
        self.store.ranks.ready(board).is_some()
    }

    /// Holds every rank index build before it publishes, until the hold is dropped: reads of
    /// a board being built are answered from SQL meanwhile. For tests of those reads.
    #[doc(hidden)]
    pub async fn hold_rank_builds(&self) -> BuildHold {
        self.store.ranks.publish.clone().write_owned().await
    }
}
