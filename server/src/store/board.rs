//! The leaderboard queries: the reference ranking in SQL, the reads the rank index
//! ([`super::ranks`]) is built and kept from, and the export's keyset batches.
//!
//! **Two rankings, one order.** [`BOARD_CTE`] ranks a board with window functions over every
//! verified run of the level: simple, obviously right, and linear in the board (2 s a read at
//! 100 000 runs on SQLite). The server answers reads from the in-memory index instead; the
//! `*_sql` functions here stay as the reference the index is tested against
//! (`tests/ranks.rs`: random boards, random changes, both must agree entry for entry).
//!
//! The order, everywhere: a player's best run is their lowest finish tick, then their earliest
//! upload (lowest run id); the board orders those the same way. Only verified, finished,
//! shown runs of shown players count; a real-time board only `realtime` runs.
//!
//! **A board in board order.** The index's build ([`Boards::board_scan`]), the export's
//! batches and the reads from SQL while an index builds (`board_sql.rs`) walk `runs_ranked`
//! (migration 0011: one season's counting runs by (finish tick, id); the real-time boards
//! `runs_ranked_realtime`), so that they read the board's rows and no other season's or
//! category's. A player's best run is the first of theirs met in that order.

use futures_util::TryStreamExt;
use sqlx::Row;

use super::{Board, Category, Entry, ExportCursor, Result, Store};

/// The leaderboard, as common table expressions `best` (each player's best run: lowest
/// finish tick, then earliest upload) and `board` (those ranked, ties by earlier upload —
/// ids are assigned in upload order). `$1`…`$5` are the [`Board`]; queries append their
/// `SELECT … FROM board` with parameters from `$6`.
const BOARD_CTE: &str = concat!(
    "
WITH best AS (
    SELECT r.id, r.player_id, ",
    player_name!(),
    " AS name, r.finish_tick, r.uploaded_ms, r.splits,
           ROW_NUMBER() OVER (PARTITION BY r.player_id ORDER BY r.finish_tick, r.id) AS nth
    FROM runs r JOIN players p ON p.id = r.player_id
    WHERE r.level = $1 AND r.level_hash = $2 AND r.tuning_hash = $3 AND r.rules_version = $4
      AND r.status = 'verified' AND r.finish_tick IS NOT NULL
      AND r.hidden = FALSE AND p.hidden = FALSE AND (r.realtime = TRUE OR $5 = FALSE)
),
board AS (
    SELECT id, player_id, name, finish_tick, uploaded_ms, splits,
           ROW_NUMBER() OVER (ORDER BY finish_tick, id) AS rank
    FROM best WHERE nth = 1
)"
);

/// The condition that picks a category's index: none for the open board (every counting run
/// is in `runs_ranked`), the real-time runs' own partial index's for the real-time board.
/// Written as a literal, not a parameter, so that both planners match the partial index.
pub(super) fn category_filter(board: &Board) -> &'static str {
    match board.category {
        Category::Open => "",
        Category::RealTime => "AND r.realtime = TRUE",
    }
}

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

/// An entry as `BOARD_CTE` gives it, the splits still as stored.
#[derive(sqlx::FromRow)]
struct EntryRow {
    rank: i64,
    run_id: i64,
    player: String,
    finish_tick: i64,
    uploaded_ms: i64,
    splits: Option<String>,
}

/// One row of the change feed (`board_changes`, written by triggers).
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct BoardChange {
    pub seq: i64,
    pub player_id: i64,
    /// `None`: every level (the player was hidden or shown).
    pub level: Option<String>,
}

/// Most ids bound in one `IN (…)` list (SQLite allows 32 766 parameters, PostgreSQL 65 535).
const IDS_PER_QUERY: usize = 500;

/// `$first, $first+1, …` for `count` parameters.
fn placeholders(first: usize, count: usize) -> String {
    (first..first + count)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The boards: leaderboards, ranks, the change feed, exports (`board.rs`, `board_sql.rs`, `ranks.rs`): `store.boards()`.
#[derive(Clone, Copy, Debug)]
pub struct Boards<'a> {
    pub(super) store: &'a Store,
}

impl Boards<'_> {
    /// A page of the leaderboard, best first, ranked by the window functions of `BOARD_CTE`.
    pub async fn leaderboard_sql(
        &self,
        board: &Board,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<Entry>> {
        let sql = format!(
            "{BOARD_CTE} SELECT rank, id AS run_id, name AS player, finish_tick, uploaded_ms,
                    splits
             FROM board ORDER BY rank LIMIT $6 OFFSET $7"
        );
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let rows: Vec<EntryRow> = on_pool!(self.store, |pool| {
            bind_board!(sqlx::query_as(&sql), board)
                .bind(i64::from(limit))
                .bind(offset)
                .fetch_all(pool)
                .await?
        });
        Ok(rows
            .into_iter()
            .map(|row| Entry {
                rank: row.rank,
                run_id: row.run_id,
                player: row.player,
                finish_tick: row.finish_tick,
                uploaded_ms: row.uploaded_ms,
                splits: parse_splits(row.splits.as_deref()),
            })
            .collect())
    }

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

    /// How many players are on the board (counted by `BOARD_CTE`).
    pub async fn board_size_sql(&self, board: &Board) -> Result<i64> {
        let sql = format!("{BOARD_CTE} SELECT COUNT(*) FROM board");
        let count = on_pool!(self.store, |pool| {
            bind_board!(sqlx::query(&sql), board)
                .fetch_one(pool)
                .await?
                .try_get::<i64, _>(0)?
        });
        Ok(count)
    }

    /// The rank of a player's entry on the board, if they have one.
    pub async fn player_rank_sql(&self, board: &Board, player_id: i64) -> Result<Option<i64>> {
        let sql = format!("{BOARD_CTE} SELECT rank FROM board WHERE player_id = $6");
        let rank = on_pool!(self.store, |pool| {
            bind_board!(sqlx::query(&sql), board)
                .bind(player_id)
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<i64, _>(0))
                .transpose()?
        });
        Ok(rank)
    }

    /// The rank of a run, if it is its player's entry on the board.
    pub async fn run_rank_sql(&self, board: &Board, run_id: i64) -> Result<Option<i64>> {
        let sql = format!("{BOARD_CTE} SELECT rank FROM board WHERE id = $6");
        let rank = on_pool!(self.store, |pool| {
            bind_board!(sqlx::query(&sql), board)
                .bind(run_id)
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<i64, _>(0))
                .transpose()?
        });
        Ok(rank)
    }

    /// Every counting run of the board of a shown player, in board order, handed to `each`
    /// as it arrives (the rank index's build: a player's first run met is their best, and a
    /// million rows never sit in memory at once). One walk of `runs_ranked`.
    pub async fn board_scan(
        &self,
        board: &Board,
        mut each: impl FnMut(BestRun) -> Result<()>,
    ) -> Result<()> {
        let sql = format!(
            "SELECT r.player_id, r.id AS run_id, r.finish_tick, {name} AS player,
                    r.uploaded_ms, r.splits
             FROM runs r JOIN players p ON p.id = r.player_id
             WHERE r.level = $1 AND r.rules_version = $4 AND r.level_hash = $2
               AND r.tuning_hash = $3 AND r.status = 'verified' AND r.finish_tick IS NOT NULL
               {} AND (r.realtime = TRUE OR $5 = FALSE)
               AND r.hidden = FALSE AND p.hidden = FALSE
             ORDER BY r.finish_tick, r.id",
            category_filter(board),
            name = player_name!(),
        );
        on_pool!(self.store, |pool| {
            let mut rows = bind_board!(sqlx::query_as::<_, BestRun>(&sql), board).fetch(pool);
            while let Some(row) = rows.try_next().await? {
                each(row)?;
            }
        });
        Ok(())
    }

    /// The best run on the board of each of `players` that has one (the rank index's refresh
    /// after a change): every counted run of these players on this level, through
    /// `runs_player` (told so on SQLite, whose planner without statistics walked the whole
    /// board in `runs_ranked`: 1.2 s at a million runs), the best picked here.
    pub async fn board_best_of(&self, board: &Board, players: &[i64]) -> Result<Vec<BestRun>> {
        let mut best: Vec<BestRun> = Vec::new();
        for chunk in players.chunks(IDS_PER_QUERY) {
            let sql = format!(
                "SELECT r.player_id, r.id AS run_id, r.finish_tick, {name} AS player,
                        r.uploaded_ms, r.splits
                 FROM runs r {index} JOIN players p ON p.id = r.player_id
                 WHERE r.player_id IN ({}) AND r.level = $1 AND r.level_hash = $2
                   AND r.tuning_hash = $3 AND r.rules_version = $4
                   AND (r.realtime = TRUE OR $5 = FALSE)
                   AND r.status = 'verified' AND r.finish_tick IS NOT NULL
                   AND r.hidden = FALSE AND p.hidden = FALSE",
                placeholders(6, chunk.len()),
                name = player_name!(),
                index = self.store.sqlite_index("runs_player"),
            );
            let rows: Vec<BestRun> = on_pool!(self.store, |pool| {
                let mut query = bind_board!(sqlx::query_as(&sql), board);
                for id in chunk {
                    query = query.bind(*id);
                }
                query.fetch_all(pool).await?
            });
            best.extend(rows);
        }
        best.sort_by_key(|b| (b.player_id, b.finish_tick, b.run_id));
        best.dedup_by_key(|b| b.player_id);
        Ok(best)
    }

    /// The change feed after `after` up to `upto` (both seqs; `i64::MAX`: to its end), oldest
    /// first, at most `limit` rows.
    pub async fn board_changes_between(
        &self,
        after: i64,
        upto: i64,
        limit: u32,
    ) -> Result<Vec<BoardChange>> {
        const SQL: &str = "SELECT seq, player_id, level FROM board_changes
                           WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3";
        let rows = on_pool!(self.store, |pool| {
            sqlx::query_as(SQL)
                .bind(after)
                .bind(upto)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await?
        });
        Ok(rows)
    }

    /// The feed's last `seq` (0 while empty).
    pub async fn board_changes_last(&self) -> Result<i64> {
        const SQL: &str = "SELECT COALESCE(MAX(seq), 0) FROM board_changes";
        let seq = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .fetch_one(pool)
                .await?
                .try_get::<i64, _>(0)?
        });
        Ok(seq)
    }

    /// Forgets up to `limit` feed rows numbered `seq` or lower (the oldest), by the primary
    /// key; the number forgotten.
    pub async fn prune_board_changes(&self, seq: i64, limit: u32) -> Result<u64> {
        const SQL: &str = "DELETE FROM board_changes WHERE seq IN (
                               SELECT seq FROM board_changes WHERE seq <= $1
                               ORDER BY seq LIMIT $2)";
        let rows = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(seq)
                .bind(i64::from(limit))
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(rows)
    }

    /// A run's player, if the run exists.
    pub async fn run_player(&self, run_id: i64) -> Result<Option<i64>> {
        const SQL: &str = "SELECT player_id FROM runs WHERE id = $1";
        let player = on_pool!(self.store, |pool| {
            sqlx::query(SQL)
                .bind(run_id)
                .fetch_optional(pool)
                .await?
                .map(|row| row.try_get::<i64, _>(0))
                .transpose()?
        });
        Ok(player)
    }
}
