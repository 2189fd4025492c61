//! A board read from SQL, walking it in board order (`runs_ranked`: migration 0011, one
//! season's counting runs by (finish tick, id); the real-time boards `runs_ranked_realtime`),
//! so that a read meets the board's rows and no other season's or category's, and a player's
//! best run is the first of theirs met: the export's keyset batches ([`Boards::board_batch`]),
//! and a board's reads while its rank index is being built (`store::ranks`) — exact, as the
//! index would answer (tests/ranks.rs holds them to the reference ranking), rather than
//! ranking all of the board as the reference's window functions do.
//!
//! What each costs:
//! - the top of the board: its own rows (walked down from the top);
//! - the open board's size: one row of `season_counts`; the real-time board's is counted;
//! - a player's or a run's rank: the players whose best is before its entry, counted over
//!   `season_bests` (migration 0014: each player's best per board, kept by triggers) less the
//!   hidden players among them — one range of an index, linear in the rank but a plain count:
//!   0.07–0.10 s on SQLite and 0.08–0.27 s on PostgreSQL half way down a million-run board
//!   (a distinct count over every run before the entry, side by side: 1.3–1.4 s and
//!   0.26–0.34 s);
//! - the page around a player: that rank, then its entries walked up and down from the
//!   player's (the page's own rows);
//! - a page at an offset: the entry just before it, found by walking `season_bests` in board
//!   order past the offset's players (`Boards::key_at`: hidden players' bests stepped over),
//!   then the page's own rows walked down from it. Linear in the offset, but an index walk:
//!   0.1–0.2 s half way down a million-run board, where the reference's window functions (a
//!   pass over the board and a sort) took 5.2 s.
//!
//! They are asked of a board only while its index builds.

use sqlx::Row;

use super::board::{BestRun, BoardPage, Boards, PageAt, category_filter, parse_splits};
use super::{Board, Category, Entry, ExportCursor, Result, Store};

/// The walks [`Boards::key_at`] takes past hidden players' bests before it looks at every
/// best's player instead.
const KEY_AT_WALKS_MAX: usize = 8;

/// A board's bests in `season_bests` (the board's columns `$1`…`$5`), for `concat!`.
macro_rules! bests_of_board {
    () => {
        "b.level = $1 AND b.rules_version = $4 AND b.level_hash = $2
         AND b.tuning_hash = $3 AND b.realtime = $5"
    };
}

/// The hidden players' bests on the board, through `players_hidden` (few rows).
const HIDDEN_BESTS: &str = concat!(
    "SELECT b.finish_tick, b.run_id FROM players p JOIN season_bests b ON b.player_id = p.id
     WHERE p.hidden AND ",
    bests_of_board!()
);

/// Every player's best at offset `$6` in board order: a walk of `season_bests_ranked` alone.
const BEST_AT: &str = concat!(
    "SELECT b.finish_tick, b.run_id FROM season_bests b {index} WHERE ",
    bests_of_board!(),
    " ORDER BY b.finish_tick, b.run_id LIMIT 1 OFFSET $6"
);

/// A shown player's best at offset `$6` in board order: the walk, each best's player looked at.
const SHOWN_BEST_AT: &str = concat!(
    "SELECT b.finish_tick, b.run_id FROM season_bests b {index} WHERE ",
    bests_of_board!(),
    " AND NOT EXISTS (SELECT 1 FROM players p WHERE p.id = b.player_id AND p.hidden)
     ORDER BY b.finish_tick, b.run_id LIMIT 1 OFFSET $6"
);

/// A board's counting runs of shown players after the keyset cursor `($6, $7)` in board
/// order (or before it, walking back: [`Walk`]), each the best of its player's runs (no run of
/// theirs on the board comes before it: a `NOT EXISTS` probe of `runs_player`), verified by
/// `$8` (ms); `{columns}`, `{category}`, `{from}`, `{order}` and `{player_index}` filled in by
/// [`board_rows_sql`]. `$1`…`$5` are the [`Board`], `$9` the limit.
///
/// The probe walks `runs_player`, told so on SQLite: without statistics its planner walked
/// `runs_season_verified` instead, every run of the season verified before `$8`, for each
/// candidate (a top-20 read took 3.1 s on a million-run board; 1 ms with the hint).
const BOARD_ROWS: &str = "
    SELECT {columns}
    FROM runs r JOIN players p ON p.id = r.player_id
    WHERE r.level = $1 AND r.rules_version = $4 AND r.level_hash = $2 AND r.tuning_hash = $3
      AND r.status = 'verified' AND r.finish_tick IS NOT NULL {category}
      AND {from}
      AND (r.realtime = TRUE OR $5 = FALSE)
      AND r.verified_ms <= $8 AND r.hidden = FALSE AND p.hidden = FALSE
      AND NOT EXISTS (
          SELECT 1 FROM runs o {player_index}
          WHERE o.player_id = r.player_id AND o.level = r.level
            AND o.status = 'verified' AND o.finish_tick IS NOT NULL
            AND o.level_hash = r.level_hash AND o.tuning_hash = r.tuning_hash
            AND o.rules_version = r.rules_version
            AND (o.realtime = TRUE OR $5 = FALSE)
            AND o.verified_ms <= $8 AND o.hidden = FALSE
            AND (o.finish_tick < r.finish_tick
                 OR (o.finish_tick = r.finish_tick AND o.id < r.id)))
    ORDER BY {order}
    LIMIT $9";

/// Which way [`BOARD_ROWS`] walks from its cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Walk {
    /// The entries after the cursor, best first.
    Down,
    /// The entries before it, nearest first.
    Up,
}

/// [`BOARD_ROWS`] for `board`, selecting `columns`, walking `walk`.
pub(super) fn board_rows_sql(store: &Store, board: &Board, columns: &str, walk: Walk) -> String {
    let (from, order) = match walk {
        Walk::Down => (
            "r.finish_tick >= $6 AND (r.finish_tick > $6 OR r.id > $7)",
            "r.finish_tick, r.id",
        ),
        Walk::Up => (
            "r.finish_tick <= $6 AND (r.finish_tick < $6 OR r.id < $7)",
            "r.finish_tick DESC, r.id DESC",
        ),
    };
    BOARD_ROWS
        .replace("{columns}", columns)
        .replace("{category}", category_filter(board))
        .replace("{from}", from)
        .replace("{order}", order)
        .replace("{player_index}", &store.sqlite_index("runs_player"))
}

/// An entry as a walk of the board gives it (its rank counted by the walk), the splits
/// still as stored.
#[derive(sqlx::FromRow)]
pub(super) struct WalkRow {
    pub(super) run_id: i64,
    pub(super) player: String,
    pub(super) finish_tick: i64,
    pub(super) uploaded_ms: i64,
    pub(super) splits: Option<String>,
}

/// The columns of a [`WalkRow`], for `board_rows_sql`.
pub(super) const WALK_COLUMNS: &str = concat!(
    "r.id AS run_id, ",
    player_name!(),
    " AS player, r.finish_tick, r.uploaded_ms, r.splits"
);

impl WalkRow {
    /// The entry, at `rank`.
    pub(super) fn entry(self, rank: i64) -> Entry {
        Entry {
            rank,
            run_id: self.run_id,
            player: self.player,
            finish_tick: self.finish_tick,
            uploaded_ms: self.uploaded_ms,
            splits: parse_splits(self.splits.as_deref()),
        }
    }
}

impl Boards<'_> {
    /// The next `limit` entries of the board after `after`, in rank order (ranked on from
    /// `after.rank`), as the board stood at `as_of_ms` (runs verified later are left out, so
    /// a long export does not see a player move past its cursor and list them twice or not at
    /// all; hiding during an export does show).
    ///
    /// Keyset pagination, not `OFFSET` and not `BOARD_CTE` (`BOARD_ROWS`): candidates are
    /// read from `runs_ranked` starting at the cursor, each probed for a better run of its
    /// player. Each batch costs its own rows (plus the player's other runs), not the whole
    /// board, where the window functions of `BOARD_CTE` would rank every run of the level for
    /// every batch (quadratic over an export of a million).
    pub async fn board_batch(
        &self,
        board: &Board,
        as_of_ms: i64,
        after: ExportCursor,
        limit: u32,
    ) -> Result<Vec<Entry>> {
        let sql = board_rows_sql(self.store, board, WALK_COLUMNS, Walk::Down);
        let rows: Vec<WalkRow> = on_pool!(self.store, |pool| {
            bind_board!(sqlx::query_as(&sql), board)
                .bind(after.finish_tick)
                .bind(after.run_id)
                .bind(as_of_ms)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await?
        });
        Ok((after.rank + 1..)
            .zip(rows)
            .map(|(rank, row)| row.entry(rank))
            .collect())
    }
}

impl Boards<'_> {
    /// A page of the board and its size from SQL: what [`Boards::board_page`] answers from the
    /// index. `None` if `at` is a player with no entry. Each statement is exact when it runs.
    pub(super) async fn board_page_sql(
        &self,
        board: &Board,
        at: PageAt,
        limit: u32,
    ) -> Result<Option<BoardPage>> {
        let (offset, entries) = match at {
            PageAt::Offset(offset) => (offset, self.page_at_offset(board, offset, limit).await?),
            PageAt::Around(player) => match self.page_around(board, player, limit).await? {
                Some(page) => page,
                None => return Ok(None),
            },
        };
        let total = self.board_size_fast(board).await?;
        Ok(Some(BoardPage {
            offset,
            total,
            entries,
        }))
    }

    /// How many players are on the board, from SQL: `season_counts`' row for an open board,
    /// counted by the reference for a real-time one.
    pub(super) async fn board_size_fast(&self, board: &Board) -> Result<i64> {
        match board.category {
            Category::Open => self.store.seasons().season_players(board).await,
            Category::RealTime => self.board_size_sql(board).await,
        }
    }

    /// The rank of a player's entry, from SQL (see the module doc).
    pub(super) async fn player_rank_walk(&self, board: &Board, player: i64) -> Result<Option<i64>> {
        match self.board_best_of(board, &[player]).await?.pop() {
            Some(best) => Ok(Some(self.rank_of(board, &best).await?)),
            None => Ok(None),
        }
    }

    /// The rank of a run if it is its player's entry, from SQL (see the module doc).
    pub(super) async fn run_rank_walk(
        &self,
        board: &Board,
        run: i64,
        player: i64,
    ) -> Result<Option<i64>> {
        match self.board_best_of(board, &[player]).await?.pop() {
            Some(best) if best.run_id == run => Ok(Some(self.rank_of(board, &best).await?)),
            _ => Ok(None),
        }
    }

    /// The rank of the entry `best`: 1 + the shown players whose best on the board is before
    /// it. Counted in two statements over `season_bests` (migration 0014: each player's best
    /// per season and board, kept by triggers): the bests before the entry (one range of its
    /// `season_bests_ranked` index), less the hidden players among them (`players_hidden`,
    /// migration 0013). Counting every run before the entry instead (a distinct count of
    /// player ids) took 1.3–2.4 s half way down a million-run board on SQLite.
    async fn rank_of(&self, board: &Board, best: &BestRun) -> Result<i64> {
        const BEFORE: &str = "b.level = $1 AND b.rules_version = $4 AND b.level_hash = $2
               AND b.tuning_hash = $3 AND b.realtime = $5
               AND b.finish_tick <= $6 AND (b.finish_tick < $6 OR b.run_id < $7)";
        let players = format!("SELECT COUNT(*) FROM season_bests b WHERE {BEFORE}");
        // From the hidden players (`players_hidden`), each a look at their row: written as a
        // join, SQLite walked the bests before the entry and looked up each one's player.
        let hidden = format!(
            "SELECT COUNT(*) FROM players p WHERE p.hidden
             AND EXISTS (SELECT 1 FROM season_bests b WHERE b.player_id = p.id AND {BEFORE})"
        );
        let mut counts = [0_i64; 2];
        for (count, sql) in counts.iter_mut().zip([&players, &hidden]) {
            *count = on_pool!(self.store, |pool| {
                bind_board!(sqlx::query(sql), board)
                    .bind(best.finish_tick)
                    .bind(best.run_id)
                    .fetch_one(pool)
                    .await?
                    .try_get::<i64, _>(0)?
            });
        }
        Ok(counts[0] - counts[1] + 1)
    }

    /// Up to `limit` entries walked from the key `(finish_tick, run_id)` (exclusive) down or
    /// up the board, in that walk's order.
    async fn walk(
        &self,
        board: &Board,
        from: (i64, i64),
        walk: Walk,
        limit: u64,
    ) -> Result<Vec<WalkRow>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let sql = board_rows_sql(self.store, board, WALK_COLUMNS, walk);
        let rows = on_pool!(self.store, |pool| {
            bind_board!(sqlx::query_as(&sql), board)
                .bind(from.0)
                .bind(from.1)
                .bind(i64::MAX)
                .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                .fetch_all(pool)
                .await?
        });
        Ok(rows)
    }

    /// `limit` entries from the 0-based `offset`.
    async fn page_at_offset(&self, board: &Board, offset: u64, limit: u32) -> Result<Vec<Entry>> {
        // From before the first entry (finish ticks are at least 0, run ids at least 1), or
        // from the entry before the page's.
        let from = match offset.checked_sub(1) {
            None => (-1, 0),
            Some(before) => match self.key_at(board, before).await? {
                Some(key) => key,
                None => return Ok(Vec::new()),
            },
        };
        let rows = self.walk(board, from, Walk::Down, u64::from(limit)).await?;
        Ok((offset.saturating_add(1)..)
            .zip(rows)
            .map(|(rank, row)| row.entry(i64::try_from(rank).unwrap_or(i64::MAX)))
            .collect())
    }

    /// The board key `(finish_tick, run_id)` of the entry at the 0-based `offset`, if the
    /// board has one there, from `season_bests` (each player's best per board) walked in board
    /// order: the best at position `j` of every player's, where `j` is `offset` plus the hidden
    /// players' bests up to it — found by a few walks, each moving `j` past the hidden bests
    /// the last one passed (the least such `j`: the bests of hidden players are few). With
    /// more than [`KEY_AT_WALKS_MAX`] walks needed, one walk that looks at every best's
    /// player.
    async fn key_at(&self, board: &Board, offset: u64) -> Result<Option<(i64, i64)>> {
        let mut hidden: Vec<(i64, i64)> = self.bests_sql(board, HIDDEN_BESTS, None).await?;
        hidden.sort_unstable();
        let mut at = offset;
        for _ in 0..KEY_AT_WALKS_MAX {
            let Some(key) = self.bests_sql(board, BEST_AT, Some(at)).await?.pop() else {
                return Ok(None);
            };
            let hidden_before = hidden.partition_point(|h| *h <= key) as u64;
            let next = offset.saturating_add(hidden_before);
            if next == at {
                return Ok(Some(key));
            }
            at = next;
        }
        Ok(self
            .bests_sql(board, SHOWN_BEST_AT, Some(offset))
            .await?
            .pop())
    }

    /// The `(finish_tick, run_id)` rows of `sql` (one of the `season_bests` statements below)
    /// on `board`, with `$6` the offset if any.
    async fn bests_sql(
        &self,
        board: &Board,
        sql: &str,
        offset: Option<u64>,
    ) -> Result<Vec<(i64, i64)>> {
        let sql = sql.replace("{index}", &self.store.sqlite_index("season_bests_ranked"));
        let rows = on_pool!(self.store, |pool| {
            let query = bind_board!(sqlx::query_as::<_, (i64, i64)>(&sql), board);
            match offset {
                Some(offset) => query.bind(i64::try_from(offset).unwrap_or(i64::MAX)),
                None => query,
            }
            .fetch_all(pool)
            .await?
        });
        Ok(rows)
    }

    /// The page of `limit` entries with `player`'s in the middle (or as near as the top of
    /// the board allows), and its offset; `None` if they have no entry.
    async fn page_around(
        &self,
        board: &Board,
        player: i64,
        limit: u32,
    ) -> Result<Option<(u64, Vec<Entry>)>> {
        let Some(best) = self.board_best_of(board, &[player]).await?.pop() else {
            return Ok(None);
        };
        let rank = self.rank_of(board, &best).await?;
        if limit == 0 {
            return Ok(Some((u64::try_from(rank - 1).unwrap_or(0), Vec::new())));
        }
        let offset = u64::try_from(rank - 1)
            .unwrap_or(0)
            .saturating_sub(u64::from(limit / 2));
        let key = (best.finish_tick, best.run_id);
        let before = u64::try_from(rank - 1).unwrap_or(0) - offset;
        let after = u64::from(limit).saturating_sub(before + 1);
        let mut rows = self.walk(board, key, Walk::Up, before).await?;
        rows.reverse();
        rows.push(WalkRow {
            run_id: best.run_id,
            player: best.player,
            finish_tick: best.finish_tick,
            uploaded_ms: best.uploaded_ms,
            splits: best.splits,
        });
        rows.extend(self.walk(board, key, Walk::Down, after).await?);
        let first = i64::try_from(offset).map_or(i64::MAX, |o| o + 1);
        let entries = (first..)
            .zip(rows)
            .map(|(rank, row)| row.entry(rank))
            .collect();
        Ok(Some((offset, entries)))
    }
}
